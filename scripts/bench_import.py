"""Import benchmark: entries per second and peak memory of the corpus imports, then export.

Generates a throwaway corpus of obviously artificial placeholder entries (never language data),
imports it through `corpus.services.import_corpus` (and the CSV bulk import when `corpus.bulk`
exists), times the export, prints a table and writes the figures as JSON. Everything the bench
stores (organization, dataset, versions, entries) is deleted afterwards, as is the temp file.

    .venv/bin/python scripts/bench_import.py [--entries N] [--output bench-results.json]

DATABASE_URL names the database (default: a `champollion_bench` PostgreSQL database, created
and migrated when missing). See docs/benchmarks.md for what each figure means.
"""

import argparse
import ctypes
import ctypes.util
import gc
import hashlib
import importlib.util
import json
import os
import platform
import re
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/champollion_bench"
BENCH_ORG_SLUG = "bench-import"
JSON_DATASET_ID = "bench-import-json"
CSV_DATASET_ID = "bench-import-csv"
PLACEHOLDER_TAIL = "âêîô ᓂᐚᐸᒫᐤ"  # non-ASCII only to exercise UTF-8 handling; not language data
MIB = 1024 * 1024

SEGMENTS = ("development", "diagnostic", "gold_standard", "held_out")
REGISTERS = ("conversational", "formal", "technical", "ceremonial", "educational")
CONTEXTS = ("greeting", "declaration", "question", "instruction", "narrative", "label", "error")
DOMAINS = ("conv", "edu", "gov", "legal", "medical", "news", "tech", "ui")


@dataclass
class Measurement:
    """One benchmarked operation; memory figures are None when not measured for it."""

    operation: str
    entries: int
    seconds: float
    file_bytes: int
    python_peak_bytes: int | None = None
    rss_growth_bytes: int | None = None
    note: str = ""

    @property
    def entries_per_second(self) -> float:
        return self.entries / self.seconds if self.seconds else 0.0

    def ratio(self, value: int | None) -> float | None:
        return None if value is None or not self.file_bytes else value / self.file_bytes

    def as_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "entries_per_second": round(self.entries_per_second, 1),
            "python_peak_per_file_size": self.ratio(self.python_peak_bytes),
            "rss_growth_per_file_size": self.ratio(self.rss_growth_bytes),
        }


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000, help="entries in the generated corpus")
    parser.add_argument("--output", default=str(ROOT / "bench-results.json"), help="where to write the JSON")
    return parser.parse_args()


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named by `url` when it does not exist (SQLite creates itself)."""
    import dj_database_url
    import psycopg
    from psycopg import sql

    config = dj_database_url.parse(url)
    if "postgresql" not in config["ENGINE"]:
        return
    params = {"host": config["HOST"] or None, "port": config["PORT"] or None, "user": config["USER"] or None,
              "password": config["PASSWORD"] or None}
    with psycopg.connect(dbname="postgres", autocommit=True, **{k: v for k, v in params.items() if v}) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(config["NAME"])))
            print(f"created database {config['NAME']}")


def setup_django() -> None:
    """Point Django at the bench database, production-like (DEBUG off, so no query log), and migrate it."""
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DEBUG"] = "0"
    sys.path.insert(0, str(ROOT))
    ensure_database(os.environ["DATABASE_URL"])
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)


def placeholder_entry(index: int) -> dict[str, Any]:
    """An artificial entry: every text says 'bench' and its number; the fields cycle through valid values."""
    entry: dict[str, Any] = {
        "id": index,
        "source": f"bench source {index} {PLACEHOLDER_TAIL}",
        "reference": f"bench reference {index} {PLACEHOLDER_TAIL}",
        "segment": SEGMENTS[index % len(SEGMENTS)],
        "difficulty": index % 5 + 1,
        "provenance": "bench",
        "register": REGISTERS[index % len(REGISTERS)],
        "context": CONTEXTS[index % len(CONTEXTS)],
        "domain": DOMAINS[index % len(DOMAINS)],
    }
    if index % 3 == 0:
        entry["morphological_analysis"] = f"bench analysis {index}"
        entry["notes"] = f"bench note {index} {PLACEHOLDER_TAIL}"
        entry["variant_class"] = f"bench-class-{index % 10}"
    return entry


def envelope(dataset_id: str) -> dict[str, Any]:
    return {
        "id": dataset_id,
        "version": "1",
        "language_pair": "BENCH→BENCH",
        "source_language": "und",
        "target_language": "und",
        "created": "2026-01-01",
        "license": "CC0-1.0",
        "provenance": ["bench-generated"],
        "notes": "Throwaway benchmark load of artificial placeholder strings; not language data.",
    }


def write_json_corpus(path: Path, count: int) -> None:
    """Stream the file in the export format, so that exporting the import must give the same sha256."""
    from corpus.services import corpus_file_chunks

    documents = (json.dumps(placeholder_entry(i), ensure_ascii=False) for i in range(1, count + 1))
    with path.open("wb") as file:
        for chunk in corpus_file_chunks(json.dumps(envelope(JSON_DATASET_ID), ensure_ascii=False), documents):
            file.write(chunk)


def write_csv_corpus(path: Path, first_id: int, count: int) -> None:
    """Stream `count` placeholder rows in the bulk import's columns; empty cells are absent fields."""
    import csv

    from corpus.resources import COLUMNS

    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS)
        writer.writeheader()
        for index in range(first_id, first_id + count):
            writer.writerow(placeholder_entry(index))


def proc_status_kib(field: str) -> int:
    match = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
    return int(match.group(1)) if match else 0


def settle_memory() -> None:
    """Collect garbage and return freed heap to the OS, so RSS kept from one phase doesn't hide the next's growth."""
    gc.collect()
    libc_name = ctypes.util.find_library("c")
    malloc_trim = getattr(ctypes.CDLL(libc_name), "malloc_trim", None) if libc_name else None
    if malloc_trim is not None:
        malloc_trim(0)


def reset_rss_peak() -> int | None:
    """Reset the kernel's peak-RSS mark (VmHWM) to the current RSS and return that RSS in bytes.

    None where the mark cannot be reset (not Linux): ru_maxrss, the process's lifetime peak, would
    only show an operation's growth when it beats every earlier phase, so no figure is better.
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return None
    return proc_status_kib("VmRSS") * 1024


def measured(operation: Callable[[], Any], trace_python: bool) -> tuple[Any, float, int | None, int | None]:
    """Run `operation`; return its result, wall seconds, tracemalloc peak (if traced) and peak RSS growth."""
    settle_memory()
    rss_before = reset_rss_peak()
    if trace_python:
        tracemalloc.start()
    started = time.perf_counter()
    try:
        result = operation()
    finally:
        seconds = time.perf_counter() - started
        python_peak = tracemalloc.get_traced_memory()[1] if trace_python else None
        if trace_python:
            tracemalloc.stop()
    rss_growth = None if rss_before is None else proc_status_kib("VmHWM") * 1024 - rss_before
    return result, seconds, python_peak, rss_growth


def delete_bench_data() -> None:
    """Remove every row the bench stored: its two datasets (entries, versions) and its organization."""
    from django.db import connection

    from corpus.models import Dataset, DatasetVersion, Entry
    from governance.models import Organization

    datasets = Dataset.objects.filter(
        organization__slug=BENCH_ORG_SLUG, identifier__in=[JSON_DATASET_ID, CSV_DATASET_ID]
    )
    Entry.objects.filter(version__dataset__in=datasets).delete()
    DatasetVersion.objects.filter(dataset__in=datasets).delete()
    datasets.delete()
    Organization.objects.filter(slug=BENCH_ORG_SLUG).delete()
    if connection.vendor == "postgresql":
        # Each phase then starts from the same table, not from the last one's 100,000 dead rows.
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(Entry._meta.db_table)}")


def bench_organization():
    from governance.models import Organization

    return Organization.objects.create(slug=BENCH_ORG_SLUG, name="Benchmark (throwaway)")


def timed_then_traced(
    name: str, count: int, file_bytes: int, prepare: Callable[[], Callable[[], Any]]
) -> tuple[Measurement, Any]:
    """Run a fresh import untraced (wall time, RSS), wipe the bench data, then again traced (Python peak).

    tracemalloc slows every allocation several times over (import: about 5×), so one run cannot
    give both figures.
    Returns the measurement and the traced run's result, whose data is left in place.
    """
    _, seconds, _, rss_growth = measured(prepare(), trace_python=False)
    delete_bench_data()
    result, traced_seconds, python_peak, _ = measured(prepare(), trace_python=True)
    note = f"wall time untraced; the traced run (for the Python peak) took {traced_seconds:.1f} s"
    return Measurement(name, count, seconds, file_bytes, python_peak, rss_growth, note), result


def bench_json(path: Path, count: int) -> list[Measurement]:
    """Import the file, then export the version and check that it reproduces the file byte for byte."""
    from corpus.services import corpus_file_chunks, import_corpus

    data = path.read_bytes()

    def prepare() -> Callable[[], Any]:
        organization = bench_organization()
        return lambda: import_corpus(data, organization)

    json_import, outcome = timed_then_traced("JSON import", count, len(data), prepare)
    if not outcome.created or outcome.entry_count != count:
        raise SystemExit(f"JSON import went wrong: {outcome.message}")
    version = outcome.version

    def export() -> tuple[int, str]:
        digest = hashlib.sha256()
        exported = 0
        documents = version.entries.order_by("position").values_list("document", flat=True).iterator(2000)
        for chunk in corpus_file_chunks(version.envelope, documents):
            digest.update(chunk)
            exported += len(chunk)
        return exported, digest.hexdigest()

    (exported_bytes, exported_sha), seconds, _, rss_growth = measured(export, trace_python=False)
    if exported_sha != hashlib.sha256(data).hexdigest():
        raise SystemExit("export does not reproduce the imported file byte for byte")
    _, _, python_peak, _ = measured(export, trace_python=True)
    json_export = Measurement("JSON export", count, seconds, exported_bytes, python_peak, rss_growth,
                              note="corpus_file_chunks over all entries; byte-identical to the imported file")
    return [json_import, json_export]


def bench_csv(directory: Path, count: int) -> Measurement | None:
    """`corpus.bulk.apply_bulk_import` of `count` new rows into a one-entry version; None without corpus.bulk."""
    if importlib.util.find_spec("corpus.bulk") is None:
        return None
    from corpus.bulk import apply_bulk_import
    from corpus.services import corpus_file_chunks, import_corpus

    path = directory / "bench-rows.csv"
    write_csv_corpus(path, first_id=1, count=count)
    data = path.read_bytes()
    seed = b"".join(corpus_file_chunks(json.dumps(envelope(CSV_DATASET_ID), ensure_ascii=False),
                                       [json.dumps(placeholder_entry(0), ensure_ascii=False)]))

    def prepare() -> Callable[[], Any]:
        version = import_corpus(seed, bench_organization()).version
        return lambda: apply_bulk_import(version, data, "csv")

    measurement, preview = timed_then_traced("CSV import", count, len(data), prepare)
    if preview.counts["new"] != count or preview.version.entry_count != count + 1:
        raise SystemExit(f"CSV import went wrong: {preview.summary}")
    measurement.note += "; includes the version's sha256 refresh"
    return measurement


def megabytes(value: int | None) -> str:
    return "—" if value is None else f"{value / MIB:,.1f}"


def times(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}×"


def table(measurements: list[Measurement]) -> str:
    header = ("operation", "entries", "seconds", "entries/s", "file MiB", "py peak MiB", "py/file",
              "RSS +MiB", "RSS/file")
    rows = [header] + [
        (m.operation, f"{m.entries:,}", f"{m.seconds:.2f}", f"{m.entries_per_second:,.0f}",
         megabytes(m.file_bytes), megabytes(m.python_peak_bytes), times(m.ratio(m.python_peak_bytes)),
         megabytes(m.rss_growth_bytes), times(m.ratio(m.rss_growth_bytes)))
        for m in measurements
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))

    return "\n".join([line(rows[0]), "  ".join("-" * w for w in widths), *map(line, rows[1:])])


def environment() -> dict[str, Any]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT version()" if connection.vendor == "postgresql" else "SELECT sqlite_version()")
        server = cursor.fetchone()[0]
    return {
        "database_vendor": connection.vendor,
        "database_name": str(connection.settings_dict["NAME"]),
        "database_server": server,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }


def run(count: int, output: Path) -> None:
    setup_django()
    delete_bench_data()  # leftovers of an interrupted run
    measurements: list[Measurement] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="champollion-bench-") as tmp:
        directory = Path(tmp)
        corpus_path = directory / "bench-corpus.json"
        try:
            write_json_corpus(corpus_path, count)
            measurements += bench_json(corpus_path, count)
            delete_bench_data()
            csv_measurement = bench_csv(directory, count)
            if csv_measurement is None:
                notes.append("CSV import: not available (corpus.bulk does not exist yet)")
            else:
                measurements.append(csv_measurement)
        finally:
            delete_bench_data()
    print(table(measurements))
    for measurement in measurements:
        if measurement.note:
            print(f"{measurement.operation}: {measurement.note}")
    for note in notes:
        print(note)
    report = {
        "entries": count,
        "environment": environment(),
        "results": [m.as_json() for m in measurements],
        "notes": notes,
        "memory_definitions": {
            "python_peak_bytes": "tracemalloc peak of the operation, file bytes already in memory not counted",
            "rss_growth_bytes": "VmHWM after the operation minus VmRSS before it (VmHWM reset via clear_refs)",
        },
    }
    output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {output}")


def main() -> None:
    args = parse_args()
    if args.entries < 1:
        raise SystemExit("--entries must be at least 1")
    run(args.entries, Path(args.output))


if __name__ == "__main__":
    main()
