"""The Lua that every wrk load of `make bench` shares (scripts/bench.py, bench_elicitation.py): the report line
each run prints for bench.py to read, and the parts of a speaker's loop that the rating, translate and verify loops
have in common (one wrk thread and connection per speaker, CLIENTS prepended; each loop adds its own `request` and
`response`)."""

WRK_REPORT = """
function report_line(summary, latency)
  io.write(string.format(
    "BENCH {\\"requests\\": %d, \\"duration_us\\": %d, \\"connect_errors\\": %d, \\"read_errors\\": %d, "
    .. "\\"write_errors\\": %d, \\"status_errors\\": %d, \\"timeouts\\": %d, \\"p50_us\\": %d, "
    .. "\\"p95_us\\": %d, \\"p99_us\\": %d, \\"max_us\\": %d}\\n",
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max))
end
done = function(summary, latency, requests) report_line(summary, latency) end
"""

# One wrk thread per speaker (`id` indexes CLIENTS), its loop's state, and random hex for client ids.
LOOP_PRELUDE = """
local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end
function init(args)
  me = CLIENTS[id]
  current = me.first
  step = "page"
  held = {}
  shown = {}
  versions = {}
  ratings = 0
  failures = 0
  math.randomseed(id * 7919 + os.time())
end
local function hex(n)
  local digits = {}
  for i = 1, n do digits[i] = string.format("%x", math.random(0, 15)) end
  return table.concat(digits)
end
"""

# A loop's end: the report line, then the submissions stored and refused over every thread.
LOOP_TOTALS = """done = function(summary, latency, requests)
  report_line(summary, latency)
  local stored, failed = 0, 0
  for _, thread in ipairs(threads) do
    stored = stored + thread:get("ratings")
    failed = failed + thread:get("failures")
  end
  io.write(string.format("LOOP {\\"ratings\\": %d, \\"failures\\": %d}\\n", stored, failed))
end
"""
