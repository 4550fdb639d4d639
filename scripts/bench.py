"""`make bench`: the benchmark report. Sets up its own PostgreSQL database, measures side by side in one run —
every comparison in interleaved rounds — prints the goals and the tables, writes bench/results.json and
(with --docs) the results block of docs/performance.md.

* Corpus import: JSON and CSV imports of N entries against PostgreSQL COPY of the same rows (the physical
  limit), with the JSON export; entries/s and memory against the file's size.
* Run-card ingest of a 10,000-result card against sacrebleu alone on the same sentences; time and memory.
* HTTP on loopback, gunicorn with production settings: the leaderboard page and API, and the speakers' rating
  loop as speakers do it (GET the item, POST the rating, go to the next item; with and without rate.js) at 10
  and 50 speakers, each against a bare Django view on the same server in the same round; the decision page.
* The elicitation loops as elicit.js runs them (translate: POST a translation, show the next source held; verify:
  POST a verdict, show the next translation held) at 50 speakers, against the rating loop in the same round.
* Aggregation of the 30,000 ratings of a 10,000-item campaign, cached and computed; queries per page.
* Then, with --gate-check-docs, the gate's calibration suite (scripts/gate_check.py, `make gate-check`): its own
  report, bench/gate_check.json, and the generated table of docs/validation-gate.md.

Every phase runs in its own process (its peak RSS is the phase's), in a database dropped and created
afresh for the run; see docs/performance.md for what each figure means.

    .venv/bin/python scripts/bench.py [--entries N] [--results N] [--cards N] [--seconds S] [--rounds R]
                                      [--output PATH] [--docs docs/performance.md]
"""

import argparse
import importlib.metadata
import json
import math
import os
import platform
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench_wrk import LOOP_PRELUDE, LOOP_TOTALS, WRK_REPORT

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/champollion_bench"
DEFAULT_OUTPUT = ROOT / "bench" / "results.json"
MIB = 1024 * 1024
# A speaker's rating loop, one wrk thread and connection per speaker (CLIENTS and MODE are prepended). MODE
# "redirect" is a browser without JavaScript: GET the item, POST a rating, follow the 302 to the next item.
# MODE "script" is rate.js: GET the first item's page, fetch the upcoming items (as the page does on load), then
# POST each rating as JSON (saying it holds the next item, X-Next-Item: held, while it does) and show the next item
# from those held; when fewer than REFILL_BELOW are held, fetch the upcoming items again (rate.js's REFILL_BELOW).
# MODE "item" is rate.js when the phone may not hold the items (secret ones, by the campaign's choice): the POST
# asks for the next item as its answer (X-Next-Item: item, JSON) and the next request is already the next
# rating's POST. Every POST carries the item's signed showing stamp (and, with rate.js, the time it was on
# screen), as the page does. Only ratings the server answered as stored count.
# SPREAD (rate.js): speakers do not all start their batches at the same item. Speaker n starts as if part of its
# first batch were already rated (n - 1 modulo the batch's length: fewer held items before its first refill), so
# that the speakers' fetches of the upcoming items fall at different ratings. Without it, speakers that start
# together and never pause stay in step for ever (the server answers them in turn): every fifteenth round all of
# them fetch their upcoming items at once, with only such fetches queued in front of each (the "lockstep" row).
LOOP_SCRIPT = WRK_REPORT + LOOP_PRELUDE + """
local REFILL_BELOW = 5
local function header(headers, name)
  return headers[name] or headers[string.lower(name)]
end
function request()
  if step == "upcoming" then
    return wrk.format("GET", me.upcoming, {["Cookie"] = me.cookie, ["Accept"] = "application/json"})
  end
  if step == "post" then
    local headers = {["Cookie"] = me.cookie, ["Content-Type"] = "application/x-www-form-urlencoded"}
    local timing = ""
    if shown[current] then
      -- The signed showing stamp the item came with (the form's hidden field, or rate.js's copy of it) and, with
      -- rate.js, the time the item was on screen.
      timing = "&shown=" .. string.gsub(shown[current], ":", "%%3A")
      if MODE ~= "redirect" then timing = timing .. "&active_ms=" .. math.random(2000, 9000) end
    end
    if MODE == "script" then
      headers["Accept"] = "application/json"
      headers["X-Requested-With"] = "fetch"
      if #held > 0 then headers["X-Next-Item"] = "held" end
    elseif MODE == "item" then
      headers["X-Next-Item"] = "item"
      headers["Accept"] = "application/json"
      headers["X-Requested-With"] = "fetch"
    end
    local body = "csrfmiddlewaretoken=" .. me.token .. "&value=acceptable&client_id=" .. hex(8) .. "-" .. hex(4)
      .. "-4" .. hex(3) .. "-a" .. hex(3) .. "-" .. hex(12) .. timing
    return wrk.format("POST", current, headers, body)
  end
  return wrk.format("GET", current, {["Cookie"] = me.cookie})
end
function response(status, headers, body)
  if step == "page" then
    if status ~= 200 then failures = failures + 1 return end
    shown[current] = string.match(body, 'data%-shown="([^"]+)"')
    step = MODE == "script" and "upcoming" or "post"
    return
  end
  if step == "upcoming" then
    if status ~= 200 then failures = failures + 1 step = "page" current = me.first return end
    held = {}
    for url, stamp in string.gmatch(body, '"url": "([^"]+)", "shown": "([^"]+)"') do
      shown[url] = stamp
      if url ~= current then table.insert(held, url) end
    end
    if #held == 0 and not shown[current] then failures = failures + 1 step = "page" current = me.first return end
    if SPREAD and not spread_done then
      spread_done = true
      for _ = 1, (id - 1) % math.max(1, #held - REFILL_BELOW + 1) do table.remove(held) end
    end
    step = "post"
    return
  end
  local location = header(headers, "Location")
  local next_url, next_shown = string.match(body, '"next_item": {"id": "[^"]+", "url": "([^"]+)", "shown": "([^"]+)"')
  if MODE == "item" and status == 201 and next_url then
    ratings = ratings + 1
    current = next_url
    shown[current] = next_shown
  elseif MODE == "script" and (status == 201 or status == 200) then
    -- The next item from those held, as rate.js shows it; else where the answer says.
    local following = table.remove(held, 1) or string.match(body, '"next_url": *"([^"]+)"')
    ratings = ratings + 1
    if following and string.find(following, "/review/items/", 1, true) then
      current = following
      if #held < REFILL_BELOW then step = "upcoming" end
    else
      current = me.first
      step = "page"
    end
  elseif status == 302 and location and string.find(location, "/review/items/", 1, true) then
    ratings = ratings + 1
    current = location
    step = "page"
  elseif status == 302 then
    ratings = ratings + 1
    current = me.first
    step = "page"
  else
    failures = failures + 1
    current = me.first
    step = "page"
  end
end
""" + LOOP_TOTALS


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL),
                        help="PostgreSQL database to DROP and create for the run; its name must contain 'bench'")
    parser.add_argument("--entries", type=int, default=100_000, help="entries of the imported corpus")
    parser.add_argument("--results", type=int, default=10_000, help="results of the ingested run card")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of every comparison")
    parser.add_argument("--cards", type=int, default=10_000, help="run cards behind the leaderboard")
    parser.add_argument("--seconds", type=float, default=8, help="load time per HTTP target and round")
    parser.add_argument("--connections", type=int, default=50, help="concurrent HTTP clients")
    parser.add_argument("--cache-url", default=os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/15"),
                        help="Redis database the server's workers share as their cache, as in production; emptied "
                             "at the start; '' for each worker's own memory")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (above 1: gthread workers)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="where to write the JSON report")
    parser.add_argument("--gate-check-docs", default="",
                        help="run the gate's calibration suite afterwards, rewriting this Markdown file's table")
    parser.add_argument("--docs", default="", help="a Markdown file whose results block to rewrite from this run "
                        "(make bench: docs/performance.md)")
    parser.add_argument("--phase", help=argparse.SUPPRESS)  # internal: run one phase in this process
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    return parser.parse_args()


# ---------------------------------------------------------------------------------------------------------
# Phases: each runs in its own process, with Django set up, and returns JSON-ready figures
# ---------------------------------------------------------------------------------------------------------

def phase_migrate(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    from django.core.management import call_command
    from django.db import connection

    started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    migrate_seconds = time.perf_counter() - started
    started = time.perf_counter()
    call_command("collectstatic", verbosity=0, interactive=False)  # the production storage needs its manifest
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        server_version = cursor.fetchone()[0]
    return {"migrate_seconds": round(migrate_seconds, 1),
            "collectstatic_seconds": round(time.perf_counter() - started, 1),
            "postgresql": server_version}


def phase_files(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import bench_import

    return bench_import.write_files(workdir, args.entries)


def phase_import_copy(workdir: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    import bench_import

    return bench_import.phase_copy(workdir, args.entries)


def phase_import_json(workdir: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    import bench_import

    return bench_import.phase_json(workdir, args.entries)


def phase_import_csv(workdir: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    import bench_import

    return bench_import.phase_csv(workdir, args.entries)


def phase_run_cards(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The ingest against sacrebleu, then the cards the leaderboard pages will show."""
    import bench_leaderboard

    user, version = bench_leaderboard.create_fixture(args.results)
    ingest, template = bench_leaderboard.bench_ingest(user, version, args.rounds)
    started = time.perf_counter()
    bench_leaderboard.bench_cards(template, version, user, args.cards, template["results"])
    bench_leaderboard.analyze()
    cold = bench_leaderboard.bench_cold_leaderboard(args.rounds)
    return {"ingest": ingest, "cold_leaderboard": cold, "secret_scan": bench_leaderboard.bench_secret_scan(),
            "card_scan": bench_leaderboard.bench_card_scan(template), "hostile": bench_leaderboard.bench_hostile(),
            "cards": args.cards,
            "results_per_card": bench_leaderboard.CARD_RESULTS,
            "cards_store_seconds": round(time.perf_counter() - started, 1)}


def phase_review(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import bench_review

    return bench_review.phase_review()


def phase_elicitation(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import bench_elicitation

    return bench_elicitation.phase_elicitation(scored=args.results)


PHASES: dict[str, Callable[[Path, argparse.Namespace], Any]] = {
    "migrate": phase_migrate,
    "files": phase_files,
    "import-copy": phase_import_copy,
    "import-json": phase_import_json,
    "import-csv": phase_import_csv,
    "run-cards": phase_run_cards,
    "review": phase_review,
    "elicitation": phase_elicitation,
}


def run_phase(args: argparse.Namespace) -> None:
    """Child process: set Django up on the bench database and write the phase's figures to the workdir."""
    sys.path[:0] = [str(ROOT), str(SCRIPTS)]
    import django

    django.setup()
    workdir = Path(args.workdir)
    result = PHASES[args.phase](workdir, args)
    (workdir / f"{args.phase}.json").write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------
# Orchestration
# ---------------------------------------------------------------------------------------------------------

def shared_cache(url: str) -> str:
    """The Redis cache the server shares between its workers, as production does (deploy.md), emptied first;
    "" (each worker's own memory) when none is given or it does not answer."""
    if not url:
        return ""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).flushdb()
    except redis.RedisError as error:
        print(f"· no shared cache ({url}: {error}); each worker caches in its own memory", flush=True)
        return ""
    return url


def bench_environment(database_url: str, cache_url: str = "") -> dict[str, str]:
    """Production settings on loopback: DEBUG off, WhiteNoise, the project's middleware, a fresh secret key
    (shared by every phase and the server, so the speaker's session is valid there), no HTTPS redirect (there
    is no TLS on loopback), eager Celery tasks, no mail sent, and the bench URLconf with its bare view."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("CELERY_BROKER_URL", "REDIS_CACHE_URL", "DEBUG")}
    if cache_url:
        env["REDIS_CACHE_URL"] = cache_url
    env.update(
        DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="bench_site", DJANGO_ENV="production",
        SECRET_KEY=secrets.token_hex(32), SECURE_SSL_REDIRECT="0", ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING", PYTHONPATH=os.pathsep.join([str(ROOT), str(SCRIPTS)]),
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",  # campaign invitations go nowhere
        # One load generator is one client: measure the views, not 429s (anonymous requests count against the
        # anonymous rate, signed-in ones against the per-user rate). Per second, not per minute: DRF keeps a
        # client's request times over the rate's period and reads and writes that list on every request, so a
        # minute of this load (thousands of times, where a real client's list holds at most its 120) would
        # measure the throttle's bookkeeping instead.
        API_THROTTLE_ANON="1000000/s", API_THROTTLE_USER="1000000/s",
    )
    return env


def recreate_database(url: str) -> None:
    """DROP and CREATE the bench database: every run starts empty (the audit log is append-only, so bench
    rows could not be cleaned up otherwise)."""
    import dj_database_url
    import psycopg
    from psycopg import sql

    config = dj_database_url.parse(url)
    if "postgresql" not in config["ENGINE"]:
        raise SystemExit("the benchmark needs PostgreSQL (COPY, the audit log's triggers, the production setup)")
    if "bench" not in config["NAME"]:
        raise SystemExit(f"refusing to drop {config['NAME']!r}: the bench database's name must contain 'bench'")
    params = {"host": config["HOST"], "port": config["PORT"], "user": config["USER"], "password": config["PASSWORD"]}
    try:
        conn = psycopg.connect(dbname="postgres", autocommit=True, connect_timeout=5,
                               **{k: v for k, v in params.items() if v})
    except psycopg.OperationalError as error:
        raise SystemExit(f"make bench needs the PostgreSQL server of {url} (BENCH_DATABASE_URL): {error}") from error
    with conn:
        name = sql.Identifier(config["NAME"])
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(name))


def run_child(name: str, args: argparse.Namespace, workdir: Path, env: dict[str, str]) -> tuple[Any, dict[str, Any]]:
    """Run one phase in a new process; return its figures and its wall time and peak RSS (from wait4)."""
    command = [sys.executable, __file__, "--phase", name, "--workdir", str(workdir),
               "--entries", str(args.entries), "--results", str(args.results), "--rounds", str(args.rounds),
               "--cards", str(args.cards)]
    print(f"· {name} …", flush=True)
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=ROOT)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"phase {name} failed (exit {process.returncode})")
    result = json.loads((workdir / f"{name}.json").read_text(encoding="utf-8"))
    return result, {"phase": name, "seconds": round(seconds, 1), "peak_rss_bytes": usage.ru_maxrss * 1024}


# ---------------------------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, cookie: str | None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class Server:
    """gunicorn serving the project (with the bench URLconf) on a free loopback port."""

    def __init__(self, env: dict[str, str], workers: int, threads: int):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.command = [str(gunicorn), "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
                        "--workers", str(workers), "--threads", str(threads),
                        "--worker-class", "gthread" if threads > 1 else "sync", "--chdir", str(ROOT),
                        "--timeout", "120", "--log-level", "warning", "--error-logfile", "-"]
        self.process = subprocess.Popen(self.command, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                if fetch(self.base + "/bench/bare/", None)[0] == 200:
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit("gunicorn did not start: " + " ".join(self.command))
            time.sleep(0.2)

    def worker_pids(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def wrk_load(url: str, seconds: float, connections: int, *, cookie: str | None = None, script: str = WRK_REPORT,
             threads: int = 2) -> dict[str, Any]:
    """One wrk run; latencies are wrk's, from sending a request to its whole answer, queueing included."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:
        lua.write(script)
        lua.flush()
        command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds:g}s", "--timeout", "30s",
                   "-s", lua.name, url]
        if cookie:
            command[1:1] = ["-H", f"Cookie: {cookie}"]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    lines = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in output.splitlines()
             if line.startswith(("BENCH ", "LOOP "))}
    report = lines["BENCH"]
    figures = {
        "requests": report["requests"], "seconds": report["duration_us"] / 1e6,
        "errors": sum(report[k] for k in ("connect_errors", "read_errors", "write_errors", "status_errors",
                                          "timeouts")),
        "p50_ms": report["p50_us"] / 1000, "p95_ms": report["p95_us"] / 1000, "p99_ms": report["p99_us"] / 1000,
        "max_ms": report["max_us"] / 1000,
    }
    if "LOOP" in lines:
        figures["ratings"] = lines["LOOP"]["ratings"]
        figures["errors"] += lines["LOOP"]["failures"]
    return figures


ELICITATION_MODES = ("translate", "verify")


def loop_script(clients: list[dict[str, str]], mode: str, spread: bool = True) -> str:
    """The rating-loop script (or, for an elicitation mode, bench_elicitation's) with its speakers (one per wrk
    thread), mode and spread; JSON strings are Lua strings here (cookies, tokens and paths are ASCII)."""
    rows = ",\n".join(f"{{cookie={json.dumps(c['cookie'])}, token={json.dumps(c['token'])}, "
                      f"first={json.dumps(c['first'])}, upcoming={json.dumps(c['upcoming'])}}}" for c in clients)
    head = f"CLIENTS = {{\n{rows}\n}}\nMODE = {json.dumps(mode)}\nSPREAD = {'true' if spread else 'false'}\n"
    if mode in ELICITATION_MODES:
        import bench_elicitation

        return (head + f"REFILL_BELOW = {bench_elicitation.REFILL_BELOW}\n" + WRK_REPORT
                + bench_elicitation.ELICIT_SCRIPT)
    return head + LOOP_SCRIPT


def reset_loop_campaign(database_url: str, campaign_id: int) -> None:
    """Give every loop speaker all their items back, unrated, so each loop run starts alike and each of its
    ratings is a first rating of its item, as nearly all are. The bench's own throwaway database is the one place
    ratings are ever deleted: the application keeps every rating."""
    import psycopg

    time.sleep(1)  # ratings a finished wrk run left in flight are stored first
    with psycopg.connect(**connection_params(database_url), autocommit=True) as conn:
        with conn.transaction():
            conn.execute("LOCK TABLE review_assignment IN SHARE ROW EXCLUSIVE MODE")
            conn.execute("DELETE FROM review_rating r USING review_assignment a "
                         "WHERE r.assignment_id = a.id AND a.campaign_id = %s", [campaign_id])
            conn.execute("UPDATE review_assignment SET state = 'open' WHERE campaign_id = %s AND state <> 'open'",
                         [campaign_id])
        conn.execute("VACUUM ANALYZE review_rating")
        conn.execute("VACUUM ANALYZE review_assignment")


def connection_params(database_url: str, dbname: str | None = None) -> dict[str, Any]:
    import dj_database_url

    config = dj_database_url.parse(database_url)
    params = {"host": config["HOST"], "port": config["PORT"], "user": config["USER"], "password": config["PASSWORD"],
              "dbname": dbname or config["NAME"]}
    return {k: v for k, v in params.items() if v}


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User + system CPU time of each live process (fields 14 and 15 of /proc/PID/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds


class CpuMeter:
    """CPU time the gunicorn workers, the bench database's PostgreSQL backends and the Redis server (sessions, cache)
    spend during a load. The backends are sampled every 250 ms throughout (a backend that ends between two samples
    counts up to its last one); per request, CPU hardly depends on what else the machine runs, unlike requests/s.
    Redis is counted whole: on a machine where other programs use the same Redis server, their share counts too."""

    INTERVAL = 0.25

    def __init__(self, server: "Server", database_url: str, cache_url: str = ""):
        import psycopg

        self.server, self.name = server, connection_params(database_url)["dbname"]
        self.connection = psycopg.connect(**connection_params(database_url, "postgres"), autocommit=True)
        self.redis_pids = [redis_server_pid(cache_url)] if cache_url else []

    def backends(self) -> dict[int, float]:
        rows = self.connection.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.name]).fetchall()
        return cpu_seconds([pid for (pid,) in rows])

    def __enter__(self) -> "CpuMeter":
        self.app_before = cpu_seconds(self.server.worker_pids())
        self.redis_before = cpu_seconds(self.redis_pids)
        self.database_first = self.backends()
        self.database_last = dict(self.database_first)
        self.stopping = threading.Event()
        self.sampler = threading.Thread(target=self.sample)
        self.sampler.start()
        return self

    def sample(self) -> None:
        while not self.stopping.wait(self.INTERVAL):
            for pid, seconds in self.backends().items():
                self.database_first.setdefault(pid, 0.0)  # started during the load
                self.database_last[pid] = seconds

    def __exit__(self, *exc_info) -> None:
        self.stopping.set()
        self.sampler.join()
        app_after = cpu_seconds(self.server.worker_pids())
        self.app_seconds = sum(seconds - self.app_before.get(pid, 0.0) for pid, seconds in app_after.items())
        self.database_seconds = sum(last - self.database_first[pid] for pid, last in self.database_last.items())
        redis_after = cpu_seconds(self.redis_pids)
        self.redis_seconds = sum(seconds - self.redis_before.get(pid, 0.0) for pid, seconds in redis_after.items())

    def close(self) -> None:
        self.connection.close()


def redis_server_pid(url: str) -> int:
    """The process id of the Redis server behind `url` (its CPU is read from /proc: a local server only)."""
    import redis

    return int(redis.Redis.from_url(url, socket_connect_timeout=2).info("server")["process_id"])


@dataclass(frozen=True)
class Target:
    """One HTTP load: a page under `connections` clients, or (with `mode`) the speakers' rating loop."""

    name: str
    path: str
    connections: int
    marker: bytes = b""
    cookie: str | None = None
    mode: str | None = None
    spread: bool = True  # rate.js loop: speakers' refills spread over their batch (LOOP_SCRIPT), else in lockstep


def http_targets(args: argparse.Namespace, review: dict[str, Any], elicitation: dict[str, Any]) -> list[Target]:
    """The bare view first: every other target's requests/s is compared with it within the same round."""
    loop = review["loop"]["clients"]
    first = loop[0]["first"]
    targets = [
        Target("bare Django view", "/bench/bare/", args.connections, b"bench"),
        # The floor of any request of the loop: a speaker's session and account read, nothing else.
        Target("signed-in bare view", "/bench/signed-in/", args.connections, b"bench", cookie=loop[0]["cookie"]),
        # The bench's cards are legacy-composite: the ranking they fill (standard/1, the default, would be empty).
        Target("GET /leaderboard/", "/leaderboard/?standard=legacy-composite", args.connections,
               b'data-label="Rank"'),
        Target("GET /api/v1/leaderboard/", "/api/v1/leaderboard/?standard=legacy-composite", args.connections,
               b'"rank"'),
    ]
    for clients in sorted({min(10, len(loop)), min(args.connections, len(loop))}):
        targets.append(Target(f"rating loop, rate.js, {clients} speakers", first, clients, mode="script"))
        targets.append(Target(f"rating loop, no JavaScript, {clients} speakers", first, clients, mode="redirect"))
    busiest = min(args.connections, len(loop))
    targets.append(Target(f"rating loop, rate.js, {busiest} speakers in lockstep", first, busiest, mode="script",
                          spread=False))
    targets.append(Target(f"rating loop, rate.js, items not held, {busiest} speakers", first, busiest, mode="item"))
    for mode, noun in (("translate", "translators"), ("verify", "verifiers")):
        clients = elicitation[f"{mode}_clients"]
        count = min(args.connections, len(clients))
        targets.append(Target(f"{mode} loop, elicit.js, {count} {noun}", clients[0]["first"], count, mode=mode))
    return targets


def loop_clients(target: Target, review: dict[str, Any], elicitation: dict[str, Any]) -> list[dict[str, str]]:
    if target.mode in ELICITATION_MODES:
        return elicitation[f"{target.mode}_clients"][:target.connections]
    return review["loop"]["clients"][:target.connections]


def reset_loop(database_url: str, target: Target, review: dict[str, Any], elicitation: dict[str, Any]) -> None:
    """Every loop run starts alike: the speakers' items given back (their ratings, or their elicited work, deleted)."""
    if target.mode in ELICITATION_MODES:
        import bench_elicitation

        time.sleep(1)  # submissions a finished wrk run left in flight are stored first
        bench_elicitation.reset(connection_params(database_url), elicitation["translate_batches"],
                                elicitation["verify_batches"])
    else:
        reset_loop_campaign(database_url, review["loop"]["campaign_id"])


def run_target(server: Server, meter: CpuMeter, target: Target, seconds: float, review: dict[str, Any],
               elicitation: dict[str, Any], database_url: str) -> dict[str, Any]:
    if target.mode:
        reset_loop(database_url, target, review, elicitation)
        script = loop_script(loop_clients(target, review, elicitation), target.mode, target.spread)
        with meter:
            figures = wrk_load(server.base + target.path, seconds, target.connections, script=script,
                               threads=target.connections)
    else:
        with meter:
            figures = wrk_load(server.base + target.path, seconds, target.connections, cookie=target.cookie)
    figures["requests_per_second"] = figures["requests"] / figures["seconds"]
    figures["app_cpu_ms_per_request"] = 1000 * meter.app_seconds / max(1, figures["requests"])
    figures["database_cpu_ms_per_request"] = 1000 * meter.database_seconds / max(1, figures["requests"])
    figures["redis_cpu_ms_per_request"] = 1000 * meter.redis_seconds / max(1, figures["requests"])
    figures["total_cpu_ms_per_request"] = (figures["app_cpu_ms_per_request"] + figures["database_cpu_ms_per_request"]
                                           + figures["redis_cpu_ms_per_request"])
    if target.mode:
        figures["ratings_per_second"] = figures["ratings"] / figures["seconds"]
        # Each speaker's first GET of the run is not part of any rating's round trip.
        figures["requests_per_rating"] = (figures["requests"] - target.connections) / max(1, figures["ratings"])
    return figures


def timed_requests(url: str, cookie: str | None, count: int, warm_up: int) -> dict[str, Any]:
    """`count` sequential requests after `warm_up` (one client): a page's own time, no queueing."""
    for _ in range(warm_up):
        fetch(url, cookie)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        status, _ = fetch(url, cookie)
        times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise SystemExit(f"{url} answered {status}")
    ordered = sorted(times)
    return {"requests": count, "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(ordered[math.ceil(0.95 * count) - 1], 1), "max_ms": round(ordered[-1], 1)}


def summary(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values), 3), "median": round(statistics.median(values), 3), "max": round(max(values), 3)}


def phase_http(args: argparse.Namespace, env: dict[str, str], review: dict[str, Any],
               elicitation: dict[str, Any]) -> dict[str, Any]:
    """Every target in each of `rounds` interleaved rounds, so that each ratio to a bare view compares loads run
    minutes apart at most; each round runs the targets in the other order than the round before (a target that
    always ran after a heavy one would pay for its leftovers), and each target is warmed for 2 seconds first."""
    print(f"· http (wrk, gunicorn {args.workers} × {args.threads}, {args.rounds} rounds) …", flush=True)
    server = Server(env, args.workers, args.threads)
    meter = CpuMeter(server, env["DATABASE_URL"], env.get("REDIS_CACHE_URL", ""))
    targets = http_targets(args, review, elicitation)
    runs: dict[str, list[dict[str, Any]]] = {target.name: [] for target in targets}
    try:
        for target in targets:
            if target.mode:
                continue
            status, content = fetch(server.base + target.path, target.cookie)
            if status != 200 or target.marker not in content:
                raise SystemExit(f"{target.name}: {target.path} answered {status} without {target.marker!r}")
        for round_number in range(args.rounds):
            for target in (targets if round_number % 2 == 0 else targets[::-1]):
                run_target(server, meter, target, 2, review, elicitation, env["DATABASE_URL"])
                runs[target.name].append(run_target(server, meter, target, args.seconds, review, elicitation,
                                                     env["DATABASE_URL"]))
        decision = review["decision_page"]
        decision_page = timed_requests(server.base + decision["path"], decision["cookie"], 60,
                                       warm_up=2 * args.workers)
    finally:
        meter.close()
        server.stop()
    bare = runs[targets[0].name]
    signed_in = runs[targets[1].name]
    # The elicitation loops are compared with the rating loop (rate.js, speakers spread) at as many clients.
    rating_loops = {target.connections: runs[target.name] for target in targets
                    if target.mode == "script" and target.spread}
    measurements = []
    for target in targets:
        mine = runs[target.name]
        ratios = [b["requests_per_second"] / m["requests_per_second"] for m, b in zip(mine, bare, strict=True)]
        cpu_ratios = [m["total_cpu_ms_per_request"] / s["total_cpu_ms_per_request"]
                      for m, s in zip(mine, signed_in, strict=True)]
        median_of = {key: statistics.median(run[key] for run in mine) for key in mine[0] if key != "errors"}
        measurements.append({
            "target": target.name, "connections": target.connections, "loop_mode": target.mode,
            "spread": target.spread,
            **{key: round(value, 2) for key, value in median_of.items()},
            "errors": sum(run["errors"] for run in mine),
            "times_slower_than_bare": summary(ratios),
            "cpu_times_signed_in_bare": summary(cpu_ratios),
            "cpu_ms_per_request": round(median_of["app_cpu_ms_per_request"] + median_of["database_cpu_ms_per_request"],
                                        2),
            "runs": [{key: round(value, 2) if isinstance(value, float) else value for key, value in run.items()}
                     for run in mine],
        })
        if target.mode in ELICITATION_MODES and target.connections in rating_loops:
            measurements[-1]["cpu_times_rating_loop"] = summary([
                m["total_cpu_ms_per_request"] / r["total_cpu_ms_per_request"]
                for m, r in zip(mine, rating_loops[target.connections], strict=True)])
    return {"load_generator": "wrk",
            "server": {"workers": args.workers, "threads": args.threads,
                       "worker_class": "gthread" if args.threads > 1 else "sync", "settings": "DJANGO_ENV=production "
                       "(DEBUG off, WhiteNoise, JSON-only API), SECURE_SSL_REDIRECT=0 (no TLS on loopback)"},
            "rounds": args.rounds, "seconds_per_target": args.seconds, "targets": measurements,
            "decision_page": decision_page}


# ---------------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")),
                 platform.processor())
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    memory_kib = next((int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal:")), 0)
    wrk = shutil.which("wrk")
    return {
        "cpu": model, "cores": len(os.sched_getaffinity(0)), "memory_gib": round(memory_kib / 1024 / 1024, 1),
        "platform": platform.platform(), "python": platform.python_version(),
        "django": importlib.metadata.version("Django"), "gunicorn": importlib.metadata.version("gunicorn"),
        "wrk": subprocess.run([wrk, "--version"], capture_output=True, text=True).stdout.split(" [")[0]
        if wrk else None,
    }


def aligned(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """First column left-aligned, the others right-aligned."""
    table = [header, *rows]
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                         for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def mib(value: int | None) -> str:
    return "—" if value is None else f"{value / MIB:,.1f}"


def ratio_text(ratio: dict[str, float]) -> str:
    return f"{ratio['median']:.2f}× ({ratio['min']:.2f}–{ratio['max']:.2f})"


def import_section(report: dict[str, Any]) -> str:
    section = report["import"]
    rows = [(m["operation"], f"{m['entries']:,}", f"{m['seconds']:.2f}", f"{m['entries_per_second']:,.0f}",
             "—" if m.get("times_slower_than_copy") is None else ratio_text(m["times_slower_than_copy"]),
             mib(m["file_bytes"]), mib(m["rss_growth_bytes"]),
             "—" if m.get("memory_times_file") is None else f"{m['memory_times_file']:.1f}×")
            for m in section["measurements"]]
    header = ("operation", "entries", "seconds", "entries/s", "÷ COPY (min–max)", "file MiB", "RSS +MiB",
              "RSS ÷ file")
    return (f"Corpus import and export, {section['entries']:,} entries, median of {section['rounds']} interleaved "
            "rounds:\n" + aligned(header, rows))


def ingest_section(report: dict[str, Any]) -> str:
    ingest = report["run_cards"]["ingest"]
    rows = [(("  " if m["part_of_ingest"] else "") + m["operation"], f"{m['results']:,}", f"{m['seconds']:.2f}",
             f"{m['ratio_to_sacrebleu']:.2f}× ({min(m['runs_ratio_to_sacrebleu']):.2f}–"
             f"{max(m['runs_ratio_to_sacrebleu']):.2f})", mib(m.get("peak_rss_growth_bytes")))
            for m in ingest["measurements"]]
    header = ("operation", "results", "seconds", "× sacrebleu (min–max)", "RSS +MiB")
    hostile = hostile_section(report)
    return (f"Run-card ingest, one {ingest['results']:,}-result card ({mib(ingest['card_bytes'])} MiB), median of "
            f"{ingest['rounds']} interleaved rounds:\n" + aligned(header, rows) + "\n" + secret_scan_line(report)
            + (f"\n\n{hostile}" if hostile else ""))


def cold_leaderboard_section(report: dict[str, Any]) -> str:
    """The leaderboard with its cache emptied before every request (runs before this measurement show nothing)."""
    cold = report["run_cards"].get("cold_leaderboard")
    if cold is None:
        return ""
    rows = [(m["target"], f"{m['median_ms']:.1f}", f"{m['min_ms']:.1f}", f"{m['max_ms']:.1f}", str(m["queries"]))
            for m in cold["measurements"]]
    return (f"Leaderboard with the cache emptied before every request, {report['run_cards']['cards']:,} run cards, "
            f"{cold['requests_per_target']} requests per target, in-process (Django's test client):\n"
            + aligned(("target", "median ms", "min ms", "max ms", "queries"), rows))


def secret_scan_line(report: dict[str, Any]) -> str:
    scan = report["run_cards"]["secret_scan"]
    line = (f"Secret-text scan: {mib(scan['text_bytes'])} MiB of card text against {scan['secrets']:,} secrets in "
            f"{scan['seconds']:.2f} s (index built in {scan['build_seconds']:.2f} s)")
    card = report["run_cards"].get("card_scan")
    if card is not None:
        line += (f"; the ingest's card, every row public, against {card['secret_texts']:,} secret texts in "
                 f"{card['seconds']:.2f} s")
    return line


def hostile_section(report: dict[str, Any]) -> str:
    """Hostile run-card bodies (runs before this measurement have none: nothing is shown)."""
    hostile = report["run_cards"].get("hostile")
    if hostile is None:
        return ""
    rows = [(m["body"], mib(m["bytes"]), m["answer"], f"{m['seconds']:.2f}", mib(m["peak_rss_growth_bytes"]),
             "—" if m["peak_rss_growth_bytes"] is None else f"{m['peak_rss_growth_bytes'] / hostile['max_bytes']:.1f}×")
            for m in hostile["measurements"]]
    header = ("body", "MiB", "answer", "seconds", "RSS +MiB", "÷ largest card")
    return (f"Hostile run-card bodies read as a submission is read (largest card {mib(hostile['max_bytes'])} MiB, "
            f"{hostile['max_values']:,} JSON values):\n" + aligned(header, rows))


def http_section(report: dict[str, Any]) -> str:
    http = report["http"]
    rows = [(m["target"], f"{m['requests_per_second']:,.0f}",
             f"{m['ratings_per_second']:,.0f}" if m["loop_mode"] else "—", f"{m['p50_ms']:.1f}",
             f"{m['p95_ms']:.1f}", f"{m['p99_ms']:.1f}", str(m["errors"]), ratio_text(m["times_slower_than_bare"]),
             f"{m['app_cpu_ms_per_request']:.2f}", f"{m['database_cpu_ms_per_request']:.2f}",
             f"{m['redis_cpu_ms_per_request']:.2f}", ratio_text(m["cpu_times_signed_in_bare"]))
            for m in http["targets"] if m["loop_mode"] not in ELICITATION_MODES]
    header = ("target", "req/s", "ratings/s", "p50 ms", "p95 ms", "p99 ms", "errors", "÷ bare req/s (min–max)",
              "app CPU ms", "DB CPU ms", "Redis CPU ms", "CPU ÷ signed-in (min–max)")
    server = http["server"]
    decision = http["decision_page"]
    return (f"HTTP on loopback: gunicorn {server['workers']} {server['worker_class']} worker(s) × {server['threads']} "
            f"thread(s), cache {'shared (Redis)' if report['options'].get('cache_url') else 'per worker'}, wrk, "
            f"{http['seconds_per_target']:g} s per target, median of {http['rounds']} interleaved "
            f"rounds; {report['run_cards']['cards']:,} run cards; loop: each client a speaker of their own:\n"
            + aligned(header, rows)
            + f"\n\nDecision page, {campaign_size(report)}, one client, {decision['requests']} views after a "
            f"warm-up: p50 {decision['p50_ms']:.0f} ms, "
            f"p95 {decision['p95_ms']:.0f} ms, max {decision['max_ms']:.0f} ms")


def elicitation_section(report: dict[str, Any]) -> str:
    """The translate and verify loops beside the rating loop (runs before this measurement have none)."""
    loops = [m for m in report["http"]["targets"] if m["loop_mode"] in ELICITATION_MODES]
    if not loops:
        return ""
    rows = [(m["target"], f"{m['requests_per_second']:,.0f}", f"{m['ratings_per_second']:,.0f}",
             f"{m['requests_per_rating']:.2f}", f"{m['p50_ms']:.1f}", f"{m['p95_ms']:.1f}", f"{m['p99_ms']:.1f}",
             str(m["errors"]), f"{m['app_cpu_ms_per_request']:.2f}", f"{m['database_cpu_ms_per_request']:.2f}",
             f"{m['redis_cpu_ms_per_request']:.2f}", ratio_text(m["cpu_times_rating_loop"]))
            for m in loops]
    header = ("target", "req/s", "items/s", "requests/item", "p50 ms", "p95 ms", "p99 ms", "errors", "app CPU ms",
              "DB CPU ms", "Redis CPU ms", "CPU ÷ rating loop (min–max)")
    elicitation = report["elicitation"]
    return (f"Elicitation on the same server, in the same rounds: each client a speaker translating (or verifying) "
            f"a batch of their own of {elicitation['sources_per_speaker']:,} items, one source in "
            f"{elicitation['corpus_source_every']} with stored machine outputs to compare with; CPU per request "
            f"against the rating loop (rate.js, as many speakers) of the same round:\n" + aligned(header, rows))


def campaign_size(report: dict[str, Any]) -> str:
    review = report["review"]
    return f"{review['items']:,} items × {round(review['ratings'] / max(1, review['items']))} ratings"


def aggregation_section(report: dict[str, Any]) -> str:
    review = report["review"]
    rows = [(m["operation"], f"{m['ratings']:,}", f"{m['seconds'] * 1000:,.1f}", f"{m['ratings_per_second']:,.0f}")
            for m in review["measurements"]]
    return (f"Aggregation of a campaign of {review['items']:,} items and {review['ratings']:,} ratings, median of "
            f"{review['rounds']}:\n" + aligned(("operation", "ratings", "ms", "ratings/s"), rows))


def queries_section(report: dict[str, Any]) -> str:
    counts = report["review"]["query_counts"] + report.get("elicitation", {}).get("query_counts", [])
    return ("Queries per page (Django's test client in the review phase; each bounded by a test whatever the data):\n"
            + aligned(("page", "queries"), [(q["page"], str(q["queries"])) for q in counts]))


def elicitation_goals(report: dict[str, Any]) -> list[tuple]:
    """The translate and verify pages meet the rating loop's budget: CPU per request within 1.5× of the rating loop's
    in the same round, and one request per item with elicit.js (runs before this measurement have no such loop)."""
    found: list[tuple] = []
    for loop in (m for m in report["http"]["targets"] if m["loop_mode"] in ELICITATION_MODES):
        found.append((f"{loop['target']}: CPU per request (app + database + Redis) ÷ the rating loop's (rate.js)",
                      "≤ 1.5", loop["cpu_times_rating_loop"]["median"], lambda v: v <= 1.5, "{:.2f}"))
        found.append((f"{loop['target']}: requests per item", "1 POST (+ 1 fetch of 20 items ahead per ~15)",
                      loop["requests_per_rating"], lambda v: v <= 1.1, "{:.2f}"))
    return found


def goals(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The performance goals, each with the measured figure and whether it is met."""
    http = {m["target"]: m for m in report["http"]["targets"]}
    loops = [m for m in report["http"]["targets"] if m["loop_mode"] == "script" and m.get("spread", True)]
    busiest = max(loops, key=lambda m: m["connections"])
    not_held = next(m for m in report["http"]["targets"] if m["loop_mode"] == "item")
    plain = max((m for m in report["http"]["targets"] if m["loop_mode"] == "redirect"), key=lambda m: m["connections"])
    ingest = {m["operation"]: m for m in report["run_cards"]["ingest"]["measurements"]}
    whole = ingest["services.submit_run_card (whole ingest)"]
    card_bytes = report["run_cards"]["ingest"]["card_bytes"]
    gate = report["review"]["gate"]
    json_import = next(m for m in report["import"]["measurements"] if m["operation"] == "JSON import")
    found = [
        (f"{busiest['target']}: CPU per request (app + database + Redis) ÷ the signed-in bare view's", "≤ 4",
         busiest["cpu_times_signed_in_bare"]["median"], lambda v: v <= 4, "{:.2f}"),
        (f"{busiest['target']}: CPU per request (app + database), this machine", "≤ 6 ms",
         busiest["cpu_ms_per_request"], lambda v: v <= 6, "{:.2f} ms"),
        (f"{not_held['target']}: CPU per request (app + database), this machine", "≤ 6 ms",
         not_held["cpu_ms_per_request"], lambda v: v <= 6, "{:.2f} ms"),
        (f"{plain['target']}: CPU per request (app + database), this machine", "≤ 6 ms",
         plain["cpu_ms_per_request"], lambda v: v <= 6, "{:.2f} ms"),
        (f"{busiest['target']}: p95 latency, this machine", "< 150 ms", busiest["p95_ms"], lambda v: v < 150,
         "{:.0f} ms"),
        (f"{busiest['target']}: requests per rating", "1 POST (+ 1 fetch of 20 items ahead per ~15)",
         busiest["requests_per_rating"], lambda v: v <= 1.1,
         "{:.2f}"),
        (f"{not_held['target']}: requests per rating", "1", not_held["requests_per_rating"], lambda v: v <= 1.05,
         "{:.2f}"),
        (f"{plain['target']}: requests per rating", "2", plain["requests_per_rating"], lambda v: v <= 2.05, "{:.2f}"),
        *elicitation_goals(report),
        ("GET /leaderboard/: bare view's req/s ÷ its req/s", "≤ 4",
         http["GET /leaderboard/"]["times_slower_than_bare"]["median"], lambda v: v <= 4, "{:.2f}"),
        ("GET /api/v1/leaderboard/: bare view's req/s ÷ its req/s", "≤ 4",
         http["GET /api/v1/leaderboard/"]["times_slower_than_bare"]["median"], lambda v: v <= 4, "{:.2f}"),
        *((f"{m['target']} with the cache emptied, {report['run_cards']['cards']:,} cards: median (this machine)",
           "≤ 50 ms", m["median_ms"], lambda v: v <= 50, "{:.0f} ms")
          for m in report["run_cards"].get("cold_leaderboard", {}).get("measurements", [])),
        (f"decision page, {campaign_size(report)}: p95 of one client's views, this machine", "< 200 ms",
         report["http"]["decision_page"]["p95_ms"], lambda v: v < 200, "{:.0f} ms"),
        ("aggregate + gate, 1,000 items × up to 3 ratings, 12 speakers, this machine", "< 500 ms",
         gate["seconds"] * 1000, lambda v: v < 500, "{:.0f} ms"),
        ("secret-text scan, 1.3 MB of card text against 20,000 secrets, this machine", "< 2 s",
         report["run_cards"]["secret_scan"]["seconds"], lambda v: v < 2, "{:.2f} s"),
        ("run-card ingest: peak memory ÷ card size", "≤ 10×",
         (whole.get("peak_rss_growth_bytes") or 0) / card_bytes, lambda v: v <= 10, "{:.1f}×"),
        ("JSON corpus import: peak memory ÷ file size", "≤ 3×", json_import["memory_times_file"], lambda v: v <= 3,
         "{:.1f}×"),
    ]
    hostile = report["run_cards"].get("hostile")
    if hostile is not None:
        worst = max((m["peak_rss_growth_bytes"] or 0) for m in hostile["measurements"])
        found.append(("hostile run-card bodies: peak memory ÷ largest allowed card", "≤ 10×",
                      worst / hostile["max_bytes"], lambda v: v <= 10, "{:.1f}×"))
    return [{"goal": name, "target": target, "measured": value, "shown": shown.format(value), "met": bool(check(value))}
            for name, target, value, check, shown in found]


def goals_section(report: dict[str, Any]) -> str:
    return "Goals:\n" + aligned(("goal", "target", "measured", "met"),
                                [(g["goal"], g["target"], g["shown"], "met" if g["met"] else "NOT MET")
                                 for g in report["goals"]])


def import_measurements(parts: dict[str, Any], phases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Medians over the interleaved rounds; each import's ratio to COPY from the same round."""
    peak: dict[str, int] = {}
    for phase in phases:
        peak[phase["phase"]] = max(peak.get(phase["phase"], 0), phase["peak_rss_bytes"])
    copies = [run[0]["seconds"] for run in parts["import-copy"]]
    measurements = []
    for phase in ("import-copy", "import-json", "import-csv"):
        for index, first in enumerate(parts[phase][0]):
            runs = [run[index] for run in parts[phase]]
            seconds = statistics.median(run["seconds"] for run in runs)
            growth = max((run["rss_growth_bytes"] for run in runs if run["rss_growth_bytes"] is not None),
                         default=None)
            slower = None
            if "export" not in first["operation"] and phase != "import-copy":
                slower = summary([run["seconds"] / copy for run, copy in zip(runs, copies, strict=True)])
            measurements.append({
                **first, "seconds": round(seconds, 3), "entries_per_second": round(first["entries"] / seconds),
                "rss_growth_bytes": growth, "runs_seconds": [run["seconds"] for run in runs],
                "times_slower_than_copy": slower, "phase_peak_rss_bytes": peak[phase],
                "memory_times_file": None if growth is None or not first["file_bytes"] else round(
                    growth / first["file_bytes"], 2),
            })
    return measurements


def assemble(parts: dict[str, Any], phases: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    review = {key: value for key, value in parts["review"].items()
              if key not in ("loop", "decision_page")}  # no session key or CSRF token kept
    review["loop"] = {key: value for key, value in parts["review"]["loop"].items() if key != "clients"}
    report = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {**machine(), "postgresql": parts["migrate"]["postgresql"]},
        "load_average_at_start": parts["load_average_at_start"],
        "load_average_at_end": list(os.getloadavg()),
        "options": {k: v for k, v in vars(args).items()
                    if k not in ("phase", "workdir", "database_url", "output", "docs")},
        "import": {"entries": args.entries, "rounds": args.rounds, "files": parts["files"],
                   "measurements": import_measurements(parts, phases)},
        "run_cards": parts["run-cards"],
        "http": parts["http"],
        "review": review,
        "phases": phases,
    }
    if "elicitation" in parts:
        report["elicitation"] = {key: value for key, value in parts["elicitation"].items()
                                 if not key.endswith("_clients")}  # no session key or CSRF token kept
    report["goals"] = goals(report)
    return report


SECTIONS = (goals_section, http_section, elicitation_section, cold_leaderboard_section, queries_section,
            aggregation_section, ingest_section, import_section)


def report_text(report: dict[str, Any]) -> str:
    machine_ = report["machine"]
    head = (f"Champollion Review benchmark, {report['generated_at']}: {machine_['cpu']}, {machine_['cores']} cores, "
            f"{machine_['memory_gib']} GiB, PostgreSQL {machine_['postgresql']}, Python {machine_['python']}, "
            f"Django {machine_['django']}; load average {report['load_average_at_start'][0]:.1f} at start, "
            f"{report['total_seconds']:.0f} s in all")
    phases = aligned(("phase", "seconds", "peak RSS MiB"),
                     [(p["phase"], f"{p['seconds']:.1f}", mib(p["peak_rss_bytes"])) for p in report["phases"]])
    return "\n\n".join([head, *(text for section in SECTIONS if (text := section(report))), phases])


DOC_BEGIN = "<!-- bench results: generated by scripts/bench.py from bench/results.json; do not edit -->"
DOC_END = "<!-- end of bench results -->"


def results_markdown(report: dict[str, Any]) -> str:
    """The docs' copy of a run: the goals as a table, then every section as `make bench` prints it."""
    rows = "\n".join(f"| {g['goal']} | {g['target']} | {g['shown']} | {'met' if g['met'] else '**not met**'} |"
                     for g in report["goals"])
    blocks = "\n\n".join(f"```\n{text}\n```" for section in SECTIONS[1:] if (text := section(report)))
    machine_ = report["machine"]
    return (f"{DOC_BEGIN}\n\n`make bench` on {report['generated_at']} ({machine_['cpu']}, {machine_['cores']} "
            f"cores, PostgreSQL {machine_['postgresql']}; load average {report['load_average_at_start'][0]:.1f} at "
            f"start), {report['total_seconds']:.0f} s in all.\n\n| goal | target | measured | |\n|---|---|---|---|\n"
            f"{rows}\n\n{blocks}\n\n{DOC_END}")


def with_results(document: str, report: dict[str, Any]) -> str:
    """`document` with its results block replaced by this run's."""
    before, rest = document.split(DOC_BEGIN, 1)
    after = rest.split(DOC_END, 1)[1]
    return before + results_markdown(report) + after


def preflight(args: argparse.Namespace) -> None:
    """What the run needs, checked in its first seconds rather than after minutes of phases: wrk for the HTTP
    phase (the database is the next thing the run reaches)."""
    if not shutil.which("wrk"):
        raise SystemExit("make bench needs wrk, the HTTP load generator: apt-get install wrk (Debian, Ubuntu), "
                         "brew install wrk (macOS); `make bench` installs it itself when run as root on Debian")


def main() -> None:
    args = parse_args()
    if args.phase:
        run_phase(args)
        return
    started = time.perf_counter()
    preflight(args)
    args.cache_url = shared_cache(args.cache_url)
    env = bench_environment(args.database_url, args.cache_url)
    parts: dict[str, Any] = {"load_average_at_start": list(os.getloadavg())}
    phases = []
    recreate_database(args.database_url)
    with tempfile.TemporaryDirectory(prefix="champollion-bench-") as tmp:
        for name in ("migrate", "files"):
            parts[name], phase = run_child(name, args, Path(tmp), env)
            phases.append(phase)
        for _ in range(args.rounds):
            for name in ("import-copy", "import-json", "import-csv"):
                result, phase = run_child(name, args, Path(tmp), env)
                parts.setdefault(name, []).append(result)
                phases.append(phase)
        for name in ("run-cards", "review", "elicitation"):
            parts[name], phase = run_child(name, args, Path(tmp), env)
            phases.append(phase)
        parts["http"] = phase_http(args, env, parts["review"], parts["elicitation"])
    report = assemble(parts, phases, args)
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    print()
    print(report_text(report))
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {output}")
    if args.docs:
        docs = Path(args.docs)
        docs.write_text(with_results(docs.read_text(encoding="utf-8"), report), encoding="utf-8")
        print(f"wrote {docs}")
    if args.gate_check_docs:
        subprocess.run([sys.executable, str(SCRIPTS / "gate_check.py"), "--docs", args.gate_check_docs], check=True)


if __name__ == "__main__":
    main()
