"""Bulk import of entries from CSV or XLSX into one dataset version: dry run, staging, all-or-nothing apply.

Files are read by `corpus.resources.read_table` (stdlib csv / openpyxl, not import_export's row
import: see that module's docstring). Each row becomes the entry object the corpus file would hold
and goes through `corpus.validation.validate_entry`, the rule of the JSON import. After one query
for the version's existing entries, new rows go in through `services.insert_entries` (COPY on
PostgreSQL, bulk_create batches elsewhere) and changed rows through `update_entries` (one UPDATE per
batch of thousands): no query per row, so 100,000 rows take seconds (a benchmark case).

Rows whose id exists in the version update that entry: only the columns present in the file are
touched, a cell equal to what export shows keeps the stored JSON value (a nested provenance object,
an id stored as a string, a missing segment), an emptied cell removes the field (refused for the segment and the
provenance, which every entry keeps: KEPT_FIELDS), and keys that have no column are kept. A row may not move a secret
entry to a public segment (`services.entries.declassification_problem`, the entry form's rule too). Other rows are
appended after the last position.
"""

import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connections, router, transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop, ngettext

from common.errors import ApplicationError, NotAllowed
from common.spreadsheets import restore_formula
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from .models import DatasetVersion, Entry, StagedImport
from .resources import (
    COLUMNS,
    REQUIRED_COLUMNS,
    canonical_int,
    is_blank,
    read_table,
)
from .services.content import content_details, refresh_version_content
from .services.entries import (
    ENTRY_VALUE_FIELDS,
    declassification_problem,
    entry_row,
    entry_values,
    insert_entries,
)
from .services.errors import FrozenVersionError
from .services.versions import INSERT_BATCH_SIZE, ensure_editable
from .validation import (
    MAX_PROBLEMS_KEPT,
    CorpusFileError,
    Problem,
    ValidEntry,
    validate_entry,
)

__all__ = [
    "BulkImportRejected", "BulkPreview", "FrozenVersionError", "RowProblem", "RowResult",
    "apply_bulk_import", "apply_staged_import", "preview_bulk_import", "stage_bulk_import", "staged_import_for",
    "update_entries",
]

NEW, UPDATED, SKIPPED, INVALID = "new", "updated", "skipped", "invalid"
DEFAULT_PROVENANCE = "elicited"
STRIPPED_COLUMNS = frozenset({"id", "difficulty", "segment", "register", "context", "domain", "document_id"})
UPDATE_FIELDS = ENTRY_VALUE_FIELDS[1:]  # an update never changes entry_id (nor version, nor position)
UPDATE_BATCH_SIZE = 2000
STAGED_IMPORT_TTL = timedelta(hours=24)
INTEGER = re.compile(r"[+-]?\d{1,9}")


@dataclass(frozen=True)
class RowProblem:
    """One invalid cell or row, located as the spreadsheet shows it (the header is row 1)."""

    row: int
    entry_id: str | None
    field: str
    message: str

    def __str__(self) -> str:
        where = [gettext("row %(row)s") % {"row": self.row}]
        if self.entry_id is not None:
            where.append(gettext("id %(id)s") % {"id": self.entry_id})
        if self.field:
            where.append(gettext("field '%(field)s'") % {"field": self.field})
        return gettext("%(where)s: %(message)s") % {"where": ", ".join(where), "message": self.message}


@dataclass(frozen=True)
class RowResult:
    """What confirming would do with one row: new, updated (with the changed fields), skipped or invalid."""

    row: int
    entry_id: str | None
    action: str
    changed: tuple[str, ...] = ()


@dataclass
class BulkPreview:
    """The dry run of a file against a version; after `apply_bulk_import`, what was done."""

    version: DatasetVersion
    file_format: str
    rows: list[RowResult] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)
    total_problems: int = 0
    warnings: list[str] = field(default_factory=list)
    blank_rows: int = 0
    staged: StagedImport | None = None
    creates: list[tuple[int, ValidEntry]] = field(default_factory=list, repr=False)
    updates: list[tuple[int, int, ValidEntry]] = field(default_factory=list, repr=False)

    @property
    def is_valid(self) -> bool:
        return self.total_problems == 0

    @property
    def counts(self) -> Counter:
        return Counter(result.action for result in self.rows)

    @property
    def has_changes(self) -> bool:
        return bool(self.creates or self.updates)

    @property
    def summary(self) -> str:
        counts = self.counts
        parts = [
            ngettext("%(number)s new", "%(number)s new", counts[NEW]),
            ngettext("%(number)s updated", "%(number)s updated", counts[UPDATED]),
            ngettext("%(number)s unchanged", "%(number)s unchanged", counts[SKIPPED]),
        ]
        numbers = [counts[NEW], counts[UPDATED], counts[SKIPPED]]
        if counts[INVALID]:
            parts.append(ngettext("%(number)s invalid", "%(number)s invalid", counts[INVALID]))
            numbers.append(counts[INVALID])
        return ", ".join(part % {"number": number_format(number, force_grouping=True)}
                         for part, number in zip(parts, numbers, strict=True))

    def add_problem(self, problem: RowProblem) -> None:
        self.total_problems += 1
        if len(self.problems) < MAX_PROBLEMS_KEPT:
            self.problems.append(problem)


class BulkImportRejected(ApplicationError):
    """Some rows are invalid, so nothing was imported; `preview` lists them."""

    def __init__(self, preview: BulkPreview):
        self.preview = preview
        super().__init__(f"{preview.total_problems} problem(s) in the file; nothing was imported")


@dataclass
class _Existing:
    pk: int
    position: int
    document: str
    columns: dict[str, Any]


# What every stored entry keeps: an emptied cell in an existing entry's row would remove it (the segment would fall
# back to development, publishing a secret entry; the provenance, where the text comes from, would be lost).
KEPT_FIELDS = {
    "segment": gettext_noop("an emptied cell would file this entry under development; write its segment, or leave "
                            "the segment column out"),
    "provenance": gettext_noop("an emptied cell would remove where this entry comes from; write its provenance, or "
                               "leave the provenance column out"),
}


def cell_value(column: str, value: Any) -> Any:
    """A cell as the corpus file would hold it, or None when empty (the field is absent).

    Ids of digits become ints, difficulties of digits ints; numbers in text columns become text;
    anything else that does not fit (a date, a boolean, "high") is left for validate_entry to report.
    """
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            return None
        if column in STRIPPED_COLUMNS:
            value = value.strip()
        value = restore_formula(value)
        if column == "id":
            number = canonical_int(value)
            return value if number is None else number
        if column == "difficulty" and INTEGER.fullmatch(value):
            return int(value)
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (int, float)):
        return value if column in ("id", "difficulty") else str(value)
    return value


def as_text(value: Any) -> str:
    """How export shows a value: None as an empty cell, everything else as its text."""
    return "" if value is None else str(value)


def raw_entry_id(raw: dict[str, Any]) -> str | None:
    """The id as validate_entry will store it, for matching rows to entries and finding duplicates."""
    value = raw.get("id")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return str(value)


def map_columns(headers: list[str]) -> tuple[dict[str, int], list[str]]:
    """Known column name → index; missing required columns and repeated names are file errors."""
    columns: dict[str, int] = {}
    repeated: list[str] = []
    unknown: list[str] = []
    for index, name in enumerate(headers):
        if not name:
            continue
        if name not in COLUMNS:
            unknown.append(name)
        elif name in columns:
            repeated.append(name)
        else:
            columns[name] = index
    problems = []
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        problems.append(Problem(
            ngettext("missing required column: %(missing)s. The first row must name the columns; found: %(found)s",
                     "missing required columns: %(missing)s. The first row must name the columns; found: %(found)s",
                     len(missing))
            % {"missing": ", ".join(missing), "found": ", ".join(h for h in headers if h) or gettext("none")},
            line=1, column=1))
    if repeated:
        problems.append(Problem(ngettext("column named more than once: %(names)s",
                                         "columns named more than once: %(names)s", len(repeated))
                                % {"names": ", ".join(sorted(set(repeated)))}, line=1, column=1))
    if problems:
        raise CorpusFileError(problems)
    warnings = []
    if unknown:
        shown = ", ".join(repr(name) for name in unknown[:20]) + (" …" if len(unknown) > 20 else "")
        warnings.append(ngettext("Unknown column ignored: %(shown)s. Known columns: %(known)s.",
                                 "Unknown columns ignored: %(shown)s. Known columns: %(known)s.", len(unknown))
                        % {"shown": shown, "known": ", ".join(COLUMNS)})
    return columns, warnings


def load_existing(version: DatasetVersion, wanted: set[str]) -> tuple[dict[str, _Existing], int]:
    """The version's entries whose ids the file names, and the next free position, in one query."""
    names = ["pk", "entry_id", "position", "document", *COLUMNS[1:]]
    existing: dict[str, _Existing] = {}
    last = -1
    rows = Entry.objects.filter(version=version).order_by().values_list(*names)
    for values in rows.iterator(chunk_size=INSERT_BATCH_SIZE):
        pk, entry_id, position, document, *columns = values
        last = max(last, position)
        if entry_id in wanted:
            existing[entry_id] = _Existing(pk, position, document, dict(zip(COLUMNS[1:], columns, strict=True)))
    return existing, last + 1


def merge_row(current: _Existing, raw: dict[str, Any], present: list[str]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The entry object after applying the row's cells (see the module docstring), and the fields changed.

    A change is a key added or removed, or a value of another type or value (True is not 1 here).
    """
    stored = json.loads(current.document)
    merged = dict(stored)
    changed = []
    for name in present:
        if name == "id":
            continue
        new = raw.get(name)
        if as_text(new) == as_text(current.columns[name]):
            continue
        if new is None:
            if name in merged:
                del merged[name]
                changed.append(name)
        elif name not in merged or type(merged[name]) is not type(new) or merged[name] != new:
            merged[name] = new
            changed.append(name)
    return merged, tuple(changed)


def preview_bulk_import(version: DatasetVersion, data: bytes, file_format: str) -> BulkPreview:
    """Dry run: read and validate every row against `version` and say what confirming would do.

    Writes nothing. File-level problems (size, encoding, format, columns) raise CorpusFileError;
    row problems are collected in the returned preview.
    """
    table = read_table(data, file_format, settings.CORPUS_MAX_UPLOAD_BYTES)
    columns, warnings = map_columns(table.headers)
    preview = BulkPreview(version=version, file_format=file_format, warnings=warnings)
    present = [name for name in COLUMNS if name in columns]
    width = len(table.headers)

    parsed: list[tuple[int, dict[str, Any], str | None]] = []
    ragged: dict[int, str] = {}
    unnamed = [index for index, name in enumerate(table.headers) if not name]
    unnamed_with_data = False
    for number, cells in table.rows:
        if is_blank(cells):
            preview.blank_rows += 1
            continue
        raw = {}
        for name in present:
            index = columns[name]
            value = cell_value(name, cells[index] if index < len(cells) else None)
            if value is not None:
                raw[name] = value
        parsed.append((number, raw, raw_entry_id(raw)))
        if len(cells) > width and not is_blank(cells[width:]):
            ragged[number] = (gettext("the row has %(cells)s cells but the header names %(columns)s columns; put "
                                      "text that contains the separator in double quotes")
                              % {"cells": len(cells), "columns": width})
        if unnamed and not unnamed_with_data:
            unnamed_with_data = not is_blank([cells[index] for index in unnamed if index < len(cells)])
    if unnamed_with_data:
        preview.warnings.append(gettext("Some cells are in columns without a header; they were ignored."))
    if not parsed:
        preview.add_problem(RowProblem(1, None, "", gettext("the file has a header row but no entries below it")))
        return preview

    existing, next_position = load_existing(version, {entry_id for _, _, entry_id in parsed if entry_id})
    first_row: dict[str, int] = {}
    for number, raw, entry_id in parsed:
        before = preview.total_problems
        shown_id = None if entry_id is None else entry_id[:60]
        if number in ragged:
            preview.add_problem(RowProblem(number, shown_id, "", ragged[number]))
        if entry_id is not None:
            if entry_id in first_row:
                preview.add_problem(RowProblem(number, shown_id, "id",
                                               gettext("duplicate id: row %(row)s already uses it")
                                               % {"row": first_row[entry_id]}))
            else:
                first_row[entry_id] = number
        current = existing.get(entry_id) if entry_id is not None else None
        changed: tuple[str, ...] = ()
        if current is None:
            document = {name: raw[name] for name in COLUMNS if name in raw}
            if "provenance" not in document:
                document["provenance"] = DEFAULT_PROVENANCE
        else:
            document, changed = merge_row(current, raw, present)
            if not changed and preview.total_problems == before:
                preview.rows.append(RowResult(number, entry_id, SKIPPED))
                continue
            for name in KEPT_FIELDS:
                if name in changed and name not in document:
                    preview.add_problem(RowProblem(number, shown_id, name, gettext(KEPT_FIELDS[name])))
        found: list[Problem] = []
        valid = validate_entry(number, document, found, {}, scan_text=True)
        if valid is not None and current is not None and "segment" not in document:
            # An entry with no segment of its own took its file's whole-file segment when imported: it keeps it
            # (read alone, the object would fall back to development).
            valid = replace(valid, segment=current.columns["segment"])
        for problem in found:
            preview.add_problem(RowProblem(number, problem.entry_id, problem.field, problem.message))
        refusal = (declassification_problem(current.columns["segment"], valid.segment)
                   if valid is not None and current is not None else None)
        if refusal:
            preview.add_problem(RowProblem(number, shown_id, "segment", refusal))
        if valid is None or preview.total_problems > before:
            preview.rows.append(RowResult(number, entry_id, INVALID))
        elif current is None:
            preview.creates.append((next_position, valid))
            next_position += 1
            preview.rows.append(RowResult(number, entry_id, NEW))
        else:
            preview.updates.append((current.pk, current.position, valid))
            preview.rows.append(RowResult(number, entry_id, UPDATED, changed))
    return preview


def stage_bulk_import(*, actor: AbstractBaseUser, version: DatasetVersion, data: bytes, file_format: str,
                      filename: str = "") -> BulkPreview:
    """Dry-run an upload and, when every row is valid and something would change, keep its bytes.

    The returned preview's `staged` is the StagedImport to confirm with `apply_staged_import`
    (None otherwise). The user's earlier staged files for this version, and expired ones, are dropped.
    Raises FrozenVersionError for a frozen version and CorpusFileError for an unreadable file.
    """
    ensure_editable(version)
    preview = preview_bulk_import(version, data, file_format)
    with transaction.atomic():
        StagedImport.objects.filter(created_at__lt=timezone.now() - STAGED_IMPORT_TTL).delete()
        StagedImport.objects.filter(user=actor, version=version).delete()
        if preview.is_valid and preview.has_changes:
            preview.staged = StagedImport.objects.create(
                user=actor, version=version, format=file_format, filename=filename[:255], content=data
            )
    return preview


def apply_bulk_import(version: DatasetVersion, data: bytes, file_format: str) -> BulkPreview:
    """Validate the file again and apply every row, or none: one transaction, version row locked.

    Raises FrozenVersionError, CorpusFileError (unreadable file) or BulkImportRejected (invalid rows);
    nothing is stored then. On success the version's entry_count and sha256 are refreshed once and
    the returned preview says what was done.
    """
    with transaction.atomic():
        locked = DatasetVersion.objects.select_for_update().get(pk=version.pk)
        ensure_editable(locked)
        preview = preview_bulk_import(locked, data, file_format)
        if not preview.is_valid:
            raise BulkImportRejected(preview)
        insert_entries(locked, preview.creates)
        update_entries(locked, preview.updates)
        if preview.has_changes:
            refresh_version_content(locked)
    version.entry_count, version.sha256 = locked.entry_count, locked.sha256
    preview.version = version
    return preview


def max_query_params(connection) -> int:
    """How many parameters one statement may carry (SQLite's compiled limit, not Django's 999 floor)."""
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        try:
            return connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        except AttributeError:  # Python < 3.11
            return 999
    return connection.features.max_query_params or 65535


def update_entries(version: DatasetVersion, rows: list[tuple[int, int, ValidEntry]]) -> None:
    """Rewrite existing entries of `version` (pk and position kept), many rows per statement.

    PostgreSQL runs UPDATE … FROM json_to_recordset(…), SQLite UPDATE … FROM (VALUES …), one statement per
    batch: bulk_update's CASE WHEN per column costs rows × batch comparisons (minutes for 100,000
    rows). Other databases fall back to bulk_update. Call within the caller's transaction.
    """
    if not rows:
        return
    connection = connections[router.db_for_write(Entry)]
    if connection.vendor not in ("postgresql", "sqlite"):
        for start in range(0, len(rows), UPDATE_BATCH_SIZE):
            batch = []
            for pk, position, valid in rows[start : start + UPDATE_BATCH_SIZE]:
                row = entry_row(version, valid, position)
                row.pk = pk
                batch.append(row)
            Entry.objects.bulk_update(batch, UPDATE_FIELDS)
        return
    quote = connection.ops.quote_name
    meta = Entry._meta
    table = quote(meta.db_table)
    fields = [meta.get_field(name) for name in UPDATE_FIELDS]
    if connection.vendor == "postgresql":
        # The batch travels as one JSON text: psycopg neither splits thousands of placeholders nor
        # escapes array elements one by one, and PostgreSQL parses it in C.
        definitions = ", ".join(
            ["id bigint", *(f"{quote(field.column)} {field.db_type(connection)}" for field in fields)]
        )
        assignments = ", ".join(f"{quote(field.column)} = v.{quote(field.column)}" for field in fields)
        statement = (f"UPDATE {table} AS e SET {assignments} FROM json_to_recordset(%s::json) AS v({definitions}) "
                     f"WHERE e.{quote(meta.pk.column)} = v.id AND e.version_id = %s")
        keys = ["id", *(field.column for field in fields)]
        with connection.cursor() as cursor:
            for start in range(0, len(rows), INSERT_BATCH_SIZE):
                batch = rows[start : start + INSERT_BATCH_SIZE]
                payload = json.dumps(
                    [dict(zip(keys, (pk, *entry_values(valid)[1:]), strict=True)) for pk, _, valid in batch],
                    ensure_ascii=False,
                )
                cursor.execute(statement, [payload, version.pk])
        return
    # SQLite ≥ 3.33: UPDATE … FROM (VALUES …), whose columns are named column1, column2, …
    per_row = len(fields) + 1
    batch_size = max(1, min(UPDATE_BATCH_SIZE, (max_query_params(connection) - 1) // per_row))
    assignments = ", ".join(f"{quote(field.column)} = v.column{index}" for index, field in enumerate(fields, 2))
    template = (f"UPDATE {table} SET {assignments} FROM (VALUES {{values}}) AS v "
                f"WHERE {table}.{quote(meta.pk.column)} = v.column1 AND {table}.version_id = %s")
    placeholders = "(" + ", ".join(["%s"] * per_row) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            params: list[Any] = []
            for pk, _position, valid in batch:
                params.append(pk)
                params.extend(entry_values(valid)[1:])
            params.append(version.pk)
            cursor.execute(template.format(values=", ".join([placeholders] * len(batch))), params)


def staged_import_for(user: AbstractBaseUser, version: DatasetVersion, staged_pk: int) -> StagedImport | None:
    """The user's own, unexpired staged file for this version, or None."""
    return StagedImport.objects.filter(
        pk=staged_pk, user=user, version=version, created_at__gte=timezone.now() - STAGED_IMPORT_TTL
    ).first()


def apply_staged_import(*, actor: AbstractBaseUser, staged: StagedImport) -> BulkPreview:
    """Apply a staged upload (its stored bytes, re-validated) and drop it, in the same transaction, recorded in the
    steward's audit log with how many rows were new, updated and unchanged (counts only, no text). Only the curator
    who staged it confirms it, while they still curate the dataset."""
    if staged.user_id != actor.pk:
        raise NotAllowed(gettext("Only the person who uploaded this file confirms it."))
    require(actor, "dataset.curate", staged.version.dataset)
    with transaction.atomic():
        preview = apply_bulk_import(staged.version, bytes(staged.content), staged.format)
        staged.delete()
        counts = preview.counts
        details = {**content_details(preview.version), "format": staged.format, "new": counts[NEW],
                   "updated": counts[UPDATED], "unchanged": counts[SKIPPED]}
        record_event(AuditAction.CORPUS_BULK_IMPORTED, actor=actor, organization=staged.version.dataset.organization,
                     obj=preview.version, details=details)
    return preview
