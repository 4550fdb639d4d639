"""Entry rows and their edits: the stored values of a validated entry (one definition for ORM saves and COPY
rows), adding, changing and removing entries of a version that is not frozen."""

import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from common.bulk_insert import bulk_insert
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from ..models import SECRET_SEGMENTS, DatasetVersion, Entry
from ..search import entry_search_text
from ..validation import CorpusFileError, Problem, ValidEntry, entry_reference, reference_key, validate_entry
from .content import content_details, refresh_version_content
from .versions import ensure_editable, locked_version

# The columns an entry row stores besides its version and position, in the order entry_values gives them.
ENTRY_VALUE_FIELDS = (
    "entry_id", "source", "reference", "segment", "difficulty", "provenance", "register", "context", "domain",
    "morphological_analysis", "notes", "variant_class", "document_id", "document", "search_text",
)


def entry_values(valid: ValidEntry) -> tuple[Any, ...]:
    """The stored values of ENTRY_VALUE_FIELDS: one definition for ORM saves and COPY rows alike."""
    data = valid.data
    notes = data.get("notes") or ""
    return (
        valid.entry_id,
        data["source"],
        entry_reference(data),
        valid.segment,
        valid.difficulty,
        valid.provenance,
        valid.register,
        valid.context,
        valid.domain,
        data.get("morphological_analysis") or "",
        notes,
        data.get("variant_class") or "",
        (data.get("document_id") or "").strip(),
        json.dumps(data, ensure_ascii=False),
        entry_search_text(data["source"], entry_reference(data), notes),
    )


def entry_row(version: DatasetVersion, valid: ValidEntry, position: int | None = None) -> Entry:
    return Entry(
        version=version,
        position=valid.position if position is None else position,
        **dict(zip(ENTRY_VALUE_FIELDS, entry_values(valid), strict=True)),
    )


def insert_entries(version: DatasetVersion, rows: Iterable[tuple[int, ValidEntry]]) -> None:
    """Store validated entries, each at its position, in `version` within the caller's transaction."""
    bulk_insert(Entry, ("version", "position", *ENTRY_VALUE_FIELDS),
                ((version.pk, position, *entry_values(valid)) for position, valid in rows))


def validate_entry_data(data: dict[str, Any], version: DatasetVersion, position: int, exclude_pk=None) -> ValidEntry:
    problems: list[Problem] = []
    taken = dict.fromkeys(version.entries.exclude(pk=exclude_pk).values_list("entry_id", flat=True), -1)
    valid = validate_entry(position, data, problems, taken)
    if problems:
        raise CorpusFileError(problems)
    assert valid is not None  # validate_entry returns None only after adding a problem, raised above
    return valid


@transaction.atomic
def add_entry(*, actor: User, version: DatasetVersion, data: dict[str, Any]) -> Entry:
    """Append one entry, validated by the same rules as an imported one. Curators and governance staff only."""
    require(actor, "dataset.curate", version.dataset)
    version = locked_version(version.pk)
    ensure_editable(version)
    last = version.entries.order_by("-position").values_list("position", flat=True).first()
    position = 0 if last is None else last + 1
    valid = validate_entry_data(data, version, position)
    entry = entry_row(version, valid)
    entry.save()
    refresh_version_content(version)
    record_event(AuditAction.CORPUS_ENTRY_ADDED, actor=actor, organization=version.dataset.organization, obj=entry,
                 details={**content_details(version), "entry": entry.entry_id, "segment": entry.segment})
    return entry


@transaction.atomic
def add_entries(*, actor: User, version: DatasetVersion, documents: Sequence[dict[str, Any]]) -> list[Entry]:
    """Append entries after the last one, each validated by the same rules as an imported one, all or none; the
    version's count and hashes computed once. Curators and governance staff only."""
    require(actor, "dataset.curate", version.dataset)
    version = locked_version(version.pk)
    ensure_editable(version)
    last = version.entries.order_by("-position").values_list("position", flat=True).first()
    start = 0 if last is None else last + 1
    problems: list[Problem] = []
    taken = dict.fromkeys(version.entries.values_list("entry_id", flat=True), -1)
    valid = [validate_entry(start + offset, data, problems, taken) for offset, data in enumerate(documents)]
    if problems:
        raise CorpusFileError(problems)
    entries = Entry.objects.bulk_create([entry_row(version, row) for row in valid if row is not None])
    refresh_version_content(version)
    record_event(AuditAction.CORPUS_ENTRIES_ADDED, actor=actor, organization=version.dataset.organization,
                 obj=version, details={**content_details(version), "added": len(entries)})
    return entries


@transaction.atomic
def remove_entries(*, actor: User | None, version: DatasetVersion, entries: Sequence[Entry], reason: str) -> int:
    """Take entries out of a version that is not frozen (a frozen version never changes), the others keeping their
    order; for the people whose work they are (a speaker withdrawing what they wrote), hence no curator's permission:
    the caller decides who may. Counts only in the audit log, never a text."""
    version = locked_version(version.pk)
    ensure_editable(version)
    _total, by_model = version.entries.filter(pk__in=[entry.pk for entry in entries]).delete()
    removed = by_model.get(Entry._meta.label, 0)
    refresh_version_content(version)
    record_event(AuditAction.CORPUS_ENTRIES_REMOVED, actor=actor, organization=version.dataset.organization,
                 obj=version, details={**content_details(version), "removed": removed, "reason": reason})
    return removed


ABSENT = object()


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The names of the fields an edit added, removed or changed (names only: the audit log keeps no text)."""
    return sorted(name for name in before.keys() | after.keys() if before.get(name, ABSENT) != after.get(name, ABSENT))


def declassification_problem(from_segment: str, to_segment: str) -> str | None:
    """Why an edit (the entry form, a spreadsheet row) may not move an entry from `from_segment` to `to_segment`: a
    secret segment's text filed under a public one would be published at once, and for good. Governance staff move
    entries between segments with *Rotate segments…* into a new version (`rotate_segments`), which publishes
    nothing of what moved."""
    if from_segment in SECRET_SEGMENTS and to_segment not in SECRET_SEGMENTS:
        return gettext("this entry is in %(secret)s, a secret segment: filing it under %(public)s would publish its "
                       "text; governance staff move entries between segments with “Rotate segments…”, into a new "
                       "version") % {"secret": from_segment, "public": to_segment}
    return None


@transaction.atomic
def update_entry(*, actor: User, entry: Entry, changes: dict[str, Any]) -> Entry:
    """Change fields of an entry; fields set to None are removed from its stored object. Curators and governance
    staff only."""
    require(actor, "dataset.curate", entry.version.dataset)
    version = locked_version(entry.version_id)
    ensure_editable(version)
    before = json.loads(entry.document)
    data = dict(before)
    if "reference" in changes and reference_key(data) == "target":  # the entry keeps its reference where it was
        changes = {("target" if key == "reference" else key): value for key, value in changes.items()}
    for key, value in changes.items():
        if value is None or value == "":
            data.pop(key, None)
        else:
            data[key] = value
    valid = validate_entry_data(data, version, entry.position, exclude_pk=entry.pk)
    refusal = declassification_problem(entry.segment, valid.segment)
    if refusal:
        raise CorpusFileError([Problem(refusal, field="segment", entry_id=entry.entry_id)])
    updated = entry_row(version, valid)
    updated.pk = entry.pk
    updated.save()
    refresh_version_content(version)
    fields = changed_fields(before, data)
    if fields:
        details = {**content_details(version), "entry": updated.entry_id, "segment": updated.segment, "fields": fields}
        if entry.segment != updated.segment:
            details["from_segment"] = entry.segment
        record_event(AuditAction.CORPUS_ENTRY_CHANGED, actor=actor, organization=version.dataset.organization,
                     obj=updated, details=details)
    return updated
