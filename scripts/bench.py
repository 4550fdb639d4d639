"""`make bench`: the benchmark report. Sets up its own PostgreSQL database, measures side by side in one run,
prints one table and writes bench/results.json.

* Corpus import: JSON and CSV imports of N entries against PostgreSQL COPY of the same rows (the physical
  limit), with the JSON export; entries/s and memory.
* Run-card ingest of a 10,000-result card against sacrebleu alone on the same sentences.
* HTTP: the leaderboard page and API and a speaker's rating page under 50 concurrent clients on loopback,
  served by gunicorn with production settings, against a bare Django view on the same server.
* Aggregation of the 10,199 ratings of a 3,400-item campaign, in memory and from the database.

Every phase runs in its own process (its peak RSS is the phase's), in a database dropped and created
afresh for the run; see docs/performance.md for what each figure means.

    .venv/bin/python scripts/bench.py [--entries N] [--results N] [--cards N] [--seconds S] [--output PATH]
"""

import argparse
import importlib.metadata
import json
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/champollion_bench"
DEFAULT_OUTPUT = ROOT / "bench" / "results.json"
MIB = 1024 * 1024
WRK_REPORT = """
done = function(summary, latency, requests)
  io.write(string.format(
    "BENCH {\\"requests\\": %d, \\"duration_us\\": %d, \\"connect_errors\\": %d, \\"read_errors\\": %d, "
    .. "\\"write_errors\\": %d, \\"status_errors\\": %d, \\"timeouts\\": %d, \\"p50_us\\": %d, "
    .. "\\"p95_us\\": %d, \\"p99_us\\": %d, \\"max_us\\": %d}\\n",
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max))
end
"""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL),
                        help="PostgreSQL database to DROP and create for the run; its name must contain 'bench'")
    parser.add_argument("--entries", type=int, default=100_000, help="entries of the imported corpus")
    parser.add_argument("--results", type=int, default=10_000, help="results of the ingested run card")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the ingest timings")
    parser.add_argument("--cards", type=int, default=1_000, help="run cards behind the leaderboard")
    parser.add_argument("--seconds", type=float, default=15, help="load time per HTTP target")
    parser.add_argument("--connections", type=int, default=50, help="concurrent HTTP clients")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (above 1: gthread workers)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="where to write the JSON report")
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
    return {"ingest": ingest, "cards": args.cards, "results_per_card": bench_leaderboard.CARD_RESULTS,
            "cards_store_seconds": round(time.perf_counter() - started, 1)}


def phase_review(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import bench_review

    return bench_review.phase_review()


PHASES: dict[str, Callable[[Path, argparse.Namespace], Any]] = {
    "migrate": phase_migrate,
    "files": phase_files,
    "import-copy": phase_import_copy,
    "import-json": phase_import_json,
    "import-csv": phase_import_csv,
    "run-cards": phase_run_cards,
    "review": phase_review,
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

def bench_environment(database_url: str) -> dict[str, str]:
    """Production settings on loopback: DEBUG off, WhiteNoise, the project's middleware, a fresh secret key
    (shared by every phase and the server, so the speaker's session is valid there), no HTTPS redirect (there
    is no TLS on loopback), eager Celery tasks, no mail sent, and the bench URLconf with its bare view."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("CELERY_BROKER_URL", "REDIS_CACHE_URL", "DEBUG")}
    env.update(
        DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="bench_site", DJANGO_ENV="production",
        SECRET_KEY=secrets.token_hex(32), SECURE_SSL_REDIRECT="0", ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING", PYTHONPATH=os.pathsep.join([str(ROOT), str(SCRIPTS)]),
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",  # campaign invitations go nowhere
        API_THROTTLE_ANON="1000000/min",  # one load generator is one anonymous client: measure the view, not 429s
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
    with psycopg.connect(dbname="postgres", autocommit=True, **{k: v for k, v in params.items() if v}) as conn:
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


def wrk_load(url: str, cookie: str | None, seconds: float, connections: int) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(WRK_REPORT)
        script.flush()
        command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds:g}s", "--timeout", "30s",
                   "-s", script.name, url]
        if cookie:
            command[1:1] = ["-H", f"Cookie: {cookie}"]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("BENCH "))
    report = json.loads(line[len("BENCH "):])
    return {
        "requests": report["requests"], "seconds": report["duration_us"] / 1e6,
        "errors": sum(report[k] for k in ("connect_errors", "read_errors", "write_errors", "status_errors",
                                          "timeouts")),
        "p50_ms": report["p50_us"] / 1000, "p95_ms": report["p95_us"] / 1000, "p99_ms": report["p99_us"] / 1000,
        "max_ms": report["max_us"] / 1000,
    }


def python_load(url: str, cookie: str | None, seconds: float, connections: int) -> dict[str, Any]:
    """The fallback without wrk: one thread and keep-alive connection per client. The client shares the GIL
    and the two cores with the server, so its figures are lower bounds."""
    target = urllib.parse.urlsplit(url)
    headers = {"Cookie": cookie} if cookie else {}
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        connection = HTTPConnection(target.hostname, target.port, timeout=30)
        mine, failed = [], 0
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                connection.request("GET", target.path, headers=headers)
                response = connection.getresponse()
                response.read()
                failed += response.status >= 400
            except OSError:
                failed += 1
                connection.close()
                connection = HTTPConnection(target.hostname, target.port, timeout=30)
                continue
            mine.append(time.perf_counter() - started)
        connection.close()
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies) or [0.0]

    def percentile(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    return {"requests": len(latencies), "seconds": elapsed, "errors": errors[0], "p50_ms": percentile(0.50),
            "p95_ms": percentile(0.95), "p99_ms": percentile(0.99), "max_ms": ordered[-1] * 1000}


def http_targets(review: dict[str, Any]) -> list[tuple[str, str, str | None, bytes]]:
    """(name, path, cookie, a marker the 200 answer must contain) per target; the bare view first."""
    page = review["rating_page"]
    return [
        ("bare Django view", "/bench/bare/", None, b"bench"),
        ("GET /leaderboard/", "/leaderboard/", None, b'data-label="Rank"'),
        ("GET /api/v1/leaderboard/", "/api/v1/leaderboard/", None, b'"results"'),
        ("GET /review/items/<id>/ (speaker)", page["path"], page["cookie"], b"data-rating-form"),
    ]


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


def database_backends(database_url: str) -> list[int]:
    """The PostgreSQL server processes serving the bench database (on this machine)."""
    import dj_database_url
    import psycopg

    config = dj_database_url.parse(database_url)
    params = {"host": config["HOST"], "port": config["PORT"], "user": config["USER"], "password": config["PASSWORD"]}
    with psycopg.connect(dbname="postgres", **{k: v for k, v in params.items() if v}) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [config["NAME"]]).fetchall()
    return [pid for (pid,) in rows]


class CpuMeter:
    """CPU time the gunicorn workers and the bench database's backends spend during a load: per request, it
    hardly depends on what else the machine runs, unlike requests/s (the machine may be shared)."""

    def __init__(self, server: "Server", database_url: str):
        self.server, self.database_url = server, database_url

    def snapshot(self) -> tuple[dict[int, float], dict[int, float]]:
        return cpu_seconds(self.server.worker_pids()), cpu_seconds(database_backends(self.database_url))

    @staticmethod
    def spent(before: dict[int, float], after: dict[int, float]) -> float:
        return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def phase_http(args: argparse.Namespace, env: dict[str, str], review: dict[str, Any]) -> dict[str, Any]:
    """Each target under `connections` clients for `seconds`, after a 2-second warm-up, on one server."""
    load = wrk_load if shutil.which("wrk") else python_load
    print(f"· http ({load.__name__}, gunicorn {args.workers} × {args.threads}) …", flush=True)
    server = Server(env, args.workers, args.threads)
    meter = CpuMeter(server, env["DATABASE_URL"])
    measurements = []
    try:
        for name, path, cookie, marker in http_targets(review):
            status, content = fetch(server.base + path, cookie)
            if status != 200 or marker not in content:
                raise SystemExit(f"{name}: {path} answered {status} without {marker!r}")
            load(server.base + path, cookie, 2, args.connections)
            app_before, database_before = meter.snapshot()
            figures = load(server.base + path, cookie, args.seconds, args.connections)
            app_after, database_after = meter.snapshot()
            figures["requests_per_second"] = figures["requests"] / figures["seconds"]
            figures["app_cpu_ms_per_request"] = 1000 * meter.spent(app_before, app_after) / figures["requests"]
            figures["database_cpu_ms_per_request"] = (1000 * meter.spent(database_before, database_after)
                                                      / figures["requests"])
            measurements.append({"target": name, "path": path if cookie is None else "/review/items/<id>/",
                                 "bytes": len(content), **{k: round(v, 2) if isinstance(v, float) else v
                                                           for k, v in figures.items()}})
    finally:
        server.stop()
    bare = measurements[0]["requests_per_second"]
    bare_cpu = measurements[0]["app_cpu_ms_per_request"] + measurements[0]["database_cpu_ms_per_request"]
    for measurement in measurements:
        measurement["times_slower_than_bare"] = round(bare / measurement["requests_per_second"], 2)
        cpu = measurement["app_cpu_ms_per_request"] + measurement["database_cpu_ms_per_request"]
        measurement["cpu_times_bare"] = round(cpu / bare_cpu, 2)
    return {"load_generator": "wrk" if load is wrk_load else "python threads (wrk not installed)",
            "server": {"workers": args.workers, "threads": args.threads,
                       "worker_class": "gthread" if args.threads > 1 else "sync", "settings": "DJANGO_ENV=production "
                       "(DEBUG off, WhiteNoise, JSON-only API), SECURE_SSL_REDIRECT=0 (no TLS on loopback)"},
            "connections": args.connections, "seconds_per_target": args.seconds, "targets": measurements}


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


def import_section(report: dict[str, Any]) -> str:
    section = report["import"]
    rows = [(m["operation"], f"{m['entries']:,}", f"{m['seconds']:.2f}", f"{m['entries_per_second']:,.0f}",
             "—" if m.get("times_slower_than_copy") is None else f"{m['times_slower_than_copy']:.1f}×",
             mib(m["file_bytes"]), mib(m["rss_growth_bytes"]), mib(m["phase_peak_rss_bytes"]))
            for m in section["measurements"]]
    header = ("operation", "entries", "seconds", "entries/s", "÷ COPY", "file MiB", "RSS +MiB", "peak RSS MiB")
    return f"Corpus import and export, {section['entries']:,} entries:\n" + aligned(header, rows)


def ingest_section(report: dict[str, Any]) -> str:
    ingest = report["run_cards"]["ingest"]
    rows = [(("  " if m["part_of_ingest"] else "") + m["operation"], f"{m['results']:,}", f"{m['seconds']:.2f}",
             f"{m['ratio_to_sacrebleu']:.2f}×", " ".join(f"{s:.2f}" for s in m["runs_seconds"]))
            for m in ingest["measurements"]]
    header = ("operation", "results", "seconds", "× sacrebleu", "runs (s)")
    return (f"Run-card ingest, one {ingest['results']:,}-result card ({mib(ingest['card_bytes'])} MiB), median of "
            f"{ingest['rounds']} interleaved rounds:\n" + aligned(header, rows))


def http_section(report: dict[str, Any]) -> str:
    http = report["http"]
    rows = [(m["target"], f"{m['requests_per_second']:,.0f}", f"{m['p50_ms']:.1f}", f"{m['p95_ms']:.1f}",
             f"{m['p99_ms']:.1f}", f"{m['requests']:,}", str(m["errors"]), f"{m['times_slower_than_bare']:.1f}×",
             f"{m['app_cpu_ms_per_request']:.2f}", f"{m['database_cpu_ms_per_request']:.2f}",
             f"{m['cpu_times_bare']:.1f}×") for m in http["targets"]]
    header = ("target", "req/s", "p50 ms", "p95 ms", "p99 ms", "requests", "errors", "÷ bare", "app CPU ms",
              "DB CPU ms", "CPU × bare")
    server = http["server"]
    return (f"HTTP on loopback: gunicorn {server['workers']} {server['worker_class']} worker(s) × {server['threads']} "
            f"thread(s), {http['connections']} concurrent clients ({http['load_generator']}), "
            f"{http['seconds_per_target']:g} s per target; {report['run_cards']['cards']:,} run cards:\n"
            + aligned(header, rows))


def aggregation_section(report: dict[str, Any]) -> str:
    review = report["review"]
    rows = [(m["operation"], f"{m['ratings']:,}", f"{m['seconds'] * 1000:,.0f}", f"{m['ratings_per_second']:,.0f}")
            for m in review["measurements"]]
    return (f"Aggregation of a campaign of {review['items']:,} items and {review['ratings']:,} ratings, median of "
            f"{review['rounds']}:\n" + aligned(("operation", "ratings", "ms", "ratings/s"), rows))


def ratios(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every "how many times the baseline" figure of the run, worst first."""
    found = [{"what": f"{m['operation']} ÷ PostgreSQL COPY", "ratio": m["times_slower_than_copy"]}
             for m in report["import"]["measurements"]
             if m.get("times_slower_than_copy") is not None and "COPY" not in m["operation"]
             and "import" in m["operation"]]
    ingest = {m["operation"]: m for m in report["run_cards"]["ingest"]["measurements"]}
    found.append({"what": "whole run-card ingest ÷ sacrebleu alone",
                  "ratio": ingest["services.submit_run_card (whole ingest)"]["ratio_to_sacrebleu"]})
    found += [{"what": f"{m['target']} ÷ bare Django view (req/s)", "ratio": m["times_slower_than_bare"],
               "cpu_ratio": m["cpu_times_bare"]} for m in report["http"]["targets"][1:]]
    aggregation = {m["operation"]: m["seconds"] for m in report["review"]["measurements"]}
    found.append({"what": "campaign_aggregate (database) ÷ aggregate (in memory), same campaign",
                  "ratio": round(aggregation["review.selectors.campaign_aggregate"]
                                 / aggregation["review.aggregation.aggregate (campaign's)"], 2)})
    return sorted(found, key=lambda item: -item["ratio"])


def assemble(parts: dict[str, Any], phases: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    peak = {phase["phase"]: phase["peak_rss_bytes"] for phase in phases}
    copy_seconds = next((m["seconds"] for m in parts["import-copy"]), None)
    measurements = []
    for phase in ("import-copy", "import-json", "import-csv"):
        for measurement in parts[phase]:
            slower = None if copy_seconds is None or "export" in measurement["operation"] else round(
                measurement["seconds"] / copy_seconds, 2)
            measurements.append({**measurement, "times_slower_than_copy": slower, "phase_peak_rss_bytes": peak[phase]})
    review = {key: value for key, value in parts["review"].items() if key != "rating_page"}  # no session key kept
    report = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {**machine(), "postgresql": parts["migrate"]["postgresql"]},
        "load_average_at_start": parts["load_average_at_start"],
        "load_average_at_end": list(os.getloadavg()),
        "options": {k: v for k, v in vars(args).items() if k not in ("phase", "workdir", "database_url", "output")},
        "import": {"entries": args.entries, "files": parts["files"], "measurements": measurements},
        "run_cards": parts["run-cards"],
        "http": parts["http"],
        "review": review,
        "phases": phases,
    }
    report["ratios"] = ratios(report)
    return report


def print_report(report: dict[str, Any]) -> None:
    machine_ = report["machine"]
    print()
    print(f"Champollion Review benchmark, {report['generated_at']}: {machine_['cpu']}, {machine_['cores']} cores, "
          f"{machine_['memory_gib']} GiB, PostgreSQL {machine_['postgresql']}, Python {machine_['python']}, "
          f"Django {machine_['django']}; load average {report['load_average_at_start'][0]:.1f} at start")
    for section in (import_section, ingest_section, http_section, aggregation_section):
        print()
        print(section(report))
    print()
    print("Ratios to the baselines, worst first:")
    print(aligned(("comparison", "ratio", "CPU per request"),
                  [(item["what"], f"{item['ratio']:.2f}×", f"{item['cpu_ratio']:.1f}×" if "cpu_ratio" in item else "")
                   for item in report["ratios"]]))
    print()
    print(aligned(("phase", "seconds", "peak RSS MiB"),
                  [(p["phase"], f"{p['seconds']:.1f}", mib(p["peak_rss_bytes"])) for p in report["phases"]]))


def main() -> None:
    args = parse_args()
    if args.phase:
        run_phase(args)
        return
    started = time.perf_counter()
    env = bench_environment(args.database_url)
    parts: dict[str, Any] = {"load_average_at_start": list(os.getloadavg())}
    phases = []
    recreate_database(args.database_url)
    with tempfile.TemporaryDirectory(prefix="champollion-bench-") as tmp:
        for name in PHASES:
            parts[name], phase = run_child(name, args, Path(tmp), env)
            phases.append(phase)
        parts["http"] = phase_http(args, env, parts["review"])
    report = assemble(parts, phases, args)
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    print_report(report)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{report['total_seconds']:.0f} s in all; wrote {output}")


if __name__ == "__main__":
    main()
