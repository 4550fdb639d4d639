"""Corpus import phases of `make bench` (scripts/bench.py): JSON import, CSV import and PostgreSQL COPY of
the same rows, and the JSON export, each timed with its memory growth.

The corpus is generated: obviously artificial placeholder entries (never language data). Each phase runs
in its own process (bench.py), so the process's peak RSS is that phase's; inside it, `measured` also
gives the operation's own RSS growth. Between phases the bench's rows are deleted and the entry table
vacuumed, so every import starts from the same table. See docs/performance.md.
"""

import csv
import ctypes
import ctypes.util
import gc
import hashlib
import io
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH_ORG_SLUG = "bench-import"
JSON_DATASET_ID = "bench-import-json"
CSV_DATASET_ID = "bench-import-csv"
COPY_DATASET_ID = "bench-import-copy"
PLACEHOLDER_TAIL = "âêîô ᓂᐚᐸᒫᐤ"  # non-ASCII only to exercise UTF-8 handling; not language data
MIB = 1024 * 1024
JSON_FILE = "bench-corpus.json"
CSV_FILE = "bench-rows.csv"

SEGMENTS = ("development", "diagnostic", "gold_standard", "held_out")
REGISTERS = ("conversational", "formal", "technical", "ceremonial", "educational")
CONTEXTS = ("greeting", "declaration", "question", "instruction", "narrative", "label", "error")
DOMAINS = ("conv", "edu", "gov", "legal", "medical", "news", "tech", "ui")


@dataclass
class Measurement:
    """One timed operation over `entries` rows; `rss_growth_bytes` is None where it cannot be measured."""

    operation: str
    entries: int
    seconds: float
    file_bytes: int
    rss_growth_bytes: int | None = None
    note: str = ""

    @property
    def entries_per_second(self) -> float:
        return self.entries / self.seconds if self.seconds else 0.0

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "entries_per_second": round(self.entries_per_second, 1)}


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


def corpus_file(dataset_id: str, indexes: Iterable[int]) -> bytes:
    """A corpus file in the export format, so that exporting its import must give the same bytes."""
    from corpus.services import corpus_file_chunks

    documents = (json.dumps(placeholder_entry(i), ensure_ascii=False) for i in indexes)
    return b"".join(corpus_file_chunks(json.dumps(envelope(dataset_id), ensure_ascii=False), documents))


def write_files(directory: Path, count: int) -> dict[str, int]:
    """The JSON corpus of entries 1..count and the CSV of the same rows (empty cells are absent fields)."""
    from corpus.resources import COLUMNS

    (directory / JSON_FILE).write_bytes(corpus_file(JSON_DATASET_ID, range(1, count + 1)))
    with (directory / CSV_FILE).open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS)
        writer.writeheader()
        for index in range(1, count + 1):
            writer.writerow(placeholder_entry(index))
    return {name: (directory / name).stat().st_size for name in (JSON_FILE, CSV_FILE)}


# ---------------------------------------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------------------------------------

def proc_status_kib(field: str) -> int:
    match = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
    return int(match.group(1)) if match else 0


def settle_memory() -> None:
    """Collect garbage and return freed heap to the OS, so RSS kept from one step doesn't hide the next's growth."""
    gc.collect()
    libc_name = ctypes.util.find_library("c")
    malloc_trim = getattr(ctypes.CDLL(libc_name), "malloc_trim", None) if libc_name else None
    if malloc_trim is not None:
        malloc_trim(0)


def reset_rss_peak() -> int | None:
    """Reset the kernel's peak-RSS mark (VmHWM) to the current RSS and return that RSS in bytes; None where
    the mark cannot be reset (not Linux)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return None
    return proc_status_kib("VmRSS") * 1024


def measured(operation: Callable[[], Any]) -> tuple[Any, float, int | None]:
    """Run `operation`; return its result, wall seconds and peak RSS growth (VmHWM after minus RSS before)."""
    settle_memory()
    rss_before = reset_rss_peak()
    started = time.perf_counter()
    result = operation()
    seconds = time.perf_counter() - started
    rss_growth = None if rss_before is None else proc_status_kib("VmHWM") * 1024 - rss_before
    return result, seconds, rss_growth


# ---------------------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------------------

def bench_organization():
    from organizations.models import Organization

    organization, _ = Organization.objects.get_or_create(slug=BENCH_ORG_SLUG,
                                                         defaults={"name": "Import benchmark (throwaway)"})
    return organization


def delete_bench_data() -> None:
    """Remove the import phases' datasets and vacuum the entry table, so each phase starts from the same table.
    (Nothing here is published or frozen, so no audit event or trigger keeps them.)"""
    from django.db import connection

    from corpus.models import Dataset, DatasetVersion, Entry

    datasets = Dataset.objects.filter(organization__slug=BENCH_ORG_SLUG)
    Entry.objects.filter(version__dataset__in=datasets).delete()
    DatasetVersion.objects.filter(dataset__in=datasets).delete()
    datasets.delete()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(Entry._meta.db_table)}")


def seeded_version(dataset_id: str):
    """A version holding entry 0 only: the CSV import and COPY add entries 1..N to it."""
    from corpus.services import import_corpus

    return import_corpus(data=corpus_file(dataset_id, [0]), organization=bench_organization(), actor=None).version


# ---------------------------------------------------------------------------------------------------------
# Phases (each returns its measurements as JSON-ready dicts)
# ---------------------------------------------------------------------------------------------------------

def phase_json(directory: Path, count: int) -> list[dict[str, Any]]:
    """`corpus.services.import_corpus` of the file, then the export, checked byte for byte against it."""
    from corpus.services import corpus_file_chunks, import_corpus

    delete_bench_data()
    data = (directory / JSON_FILE).read_bytes()
    organization = bench_organization()
    outcome, seconds, rss = measured(lambda: import_corpus(data=data, organization=organization, actor=None))
    if not outcome.created or outcome.entry_count != count:
        raise SystemExit(f"JSON import went wrong: {outcome.message}")
    json_import = Measurement("JSON import", count, seconds, len(data), rss,
                              "import_corpus: parse, validate, store the version and its entries, commit")
    version = outcome.version

    def export() -> tuple[int, str]:
        digest = hashlib.sha256()
        exported = 0
        documents = version.entries.order_by("position").values_list("document", flat=True).iterator(2000)
        for chunk in corpus_file_chunks(version.envelope, documents):
            digest.update(chunk)
            exported += len(chunk)
        return exported, digest.hexdigest()

    (exported_bytes, exported_sha), seconds, rss = measured(export)
    if exported_sha != hashlib.sha256(data).hexdigest():
        raise SystemExit("export does not reproduce the imported file byte for byte")
    json_export = Measurement("JSON export", count, seconds, exported_bytes, rss,
                              "corpus_file_chunks over all entries; byte-identical to the imported file")
    delete_bench_data()
    return [json_import.as_json(), json_export.as_json()]


def phase_csv(directory: Path, count: int) -> list[dict[str, Any]]:
    """`corpus.bulk.apply_bulk_import` of the CSV rows into a one-entry version (the curators' bulk path)."""
    from corpus.bulk import apply_bulk_import

    delete_bench_data()
    data = (directory / CSV_FILE).read_bytes()
    version = seeded_version(CSV_DATASET_ID)
    preview, seconds, rss = measured(lambda: apply_bulk_import(version, data, "csv"))
    if preview.counts["new"] != count or preview.version.entry_count != count + 1:
        raise SystemExit(f"CSV import went wrong: {preview.summary}")
    delete_bench_data()
    return [Measurement("CSV import", count, seconds, len(data), rss,
                        "apply_bulk_import: parse, validate, store, refresh the version's count and sha256").as_json()]


def copy_text(rows: Iterable[tuple[Any, ...]]) -> bytes:
    """Rows in PostgreSQL's COPY text format (tab-separated, backslash escapes, \\N for NULL)."""
    def cell(value: Any) -> str:
        if value is None:
            return "\\N"
        return (str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r"))

    out = io.StringIO()
    for row in rows:
        out.write("\t".join(map(cell, row)))
        out.write("\n")
    return out.getvalue().encode("utf-8")


def phase_copy(directory: Path, count: int) -> list[dict[str, Any]]:
    """PostgreSQL COPY of the same rows into the same table (same indexes and triggers), pre-rendered: no
    Python work per row, so this is what the database itself takes to store them, the imports' limit."""
    from django.db import connection, transaction

    from corpus.models import Entry
    from corpus.services import ENTRY_VALUE_FIELDS, entry_values
    from corpus.validation import decode_corpus_bytes, validate_corpus

    if connection.vendor != "postgresql":
        return []
    delete_bench_data()
    data = (directory / JSON_FILE).read_bytes()
    corpus = validate_corpus(decode_corpus_bytes(data, len(data) + 1)[0])
    version = seeded_version(COPY_DATASET_ID)
    text = copy_text((version.pk, valid.position + 1, *entry_values(valid)) for valid in corpus.entries)
    del corpus
    quote = connection.ops.quote_name
    columns = [Entry._meta.get_field(name).column for name in ("version", "position", *ENTRY_VALUE_FIELDS)]
    statement = f"COPY {quote(Entry._meta.db_table)} ({', '.join(map(quote, columns))}) FROM STDIN"

    def copy() -> None:
        with transaction.atomic(), connection.cursor() as cursor, cursor.copy(statement) as target:
            for start in range(0, len(text), MIB):
                target.write(text[start:start + MIB])

    _, seconds, rss = measured(copy)
    stored = Entry.objects.filter(version=version).count()
    if stored != count + 1:
        raise SystemExit(f"COPY stored {stored} entries, expected {count + 1}")
    delete_bench_data()
    return [Measurement("PostgreSQL COPY (same rows)", count, seconds, len(text), rss,
                        "COPY corpus_entry FROM STDIN of the rows pre-rendered in COPY text format, commit").as_json()]
