"""Every write on the corpus. Imports are all-or-nothing; frozen versions never change."""

import datetime
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from accounts.models import User
from common.bulk_insert import bulk_insert
from common.errors import ApplicationError, Conflict, ErrorKind
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from .label_selectors import LabelReleaseRequired, release_block, sovereignty_block, with_sovereignty
from .models import (
    CONSENT_DOCUMENT_EXTENSIONS,
    SECRET_SEGMENTS,
    ConsentRecord,
    ConsentUse,
    Dataset,
    DatasetVersion,
    Entry,
    FileLayout,
    Segment,
    Sha256Source,
)
from .search import entry_search_text
from .selectors import ROTATION_NOTE, compute_public_download_hash, has_consent, segment_counts
from .validation import (
    VERSION,
    CorpusFileError,
    Problem,
    ValidCorpus,
    ValidEntry,
    entry_reference,
    read_corpus,
    reference_key,
    too_large,
    unavailable_dataset_id,
    validate_entry,
)

INSERT_BATCH_SIZE = 5000


class FrozenVersionError(Conflict):
    """The version is frozen: a run card depends on it. Changes go into a new version."""


class VersionRefused(ApplicationError):
    """A refused action on versions (next version, rotation, held_out activation): every problem found, by the input
    it concerns (`problems`: `new_version`, `moves` or `held_out` → messages). The message and field are the first
    problem's, so callers that show one message show that one."""

    def __init__(self, problems: dict[str, list[str]], *, kind: ErrorKind | None = None) -> None:
        self.problems = problems
        name, messages = next(iter(problems.items()))
        super().__init__(messages[0], name, kind=kind)


@dataclass
class ImportOutcome:
    version: DatasetVersion
    created: bool
    entry_count: int
    warnings: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        if not self.created:
            return gettext("%(version)s was already imported (same sha256); nothing changed.") % {
                "version": self.version}
        # English keeps one wording for every count (scripts match it); other languages agree in number.
        return ngettext("Imported %(count)s entries into %(version)s.", "Imported %(count)s entries into %(version)s.",
                        self.entry_count) % {"count": number_format(self.entry_count, force_grouping=True),
                                             "version": self.version}


def corpus_file_chunks(envelope: str, documents: Iterable[str]) -> Iterator[bytes]:
    """The corpus file format (SPEC §3.1), streamed: the stored envelope and entry objects verbatim."""
    yield b'{\n  "dataset": ' + envelope.encode("utf-8") + b',\n  "entries": ['
    separator = b"\n    "
    for document in documents:
        yield separator + document.encode("utf-8")
        separator = b",\n    "
    yield b"\n  ]\n}\n"


def file_chunks(layout: str, envelope: str, documents: Iterable[str]) -> Iterator[bytes]:
    """A version's file in the shape it was imported in (FileLayout), streamed: the corpus format as
    corpus_file_chunks writes it; another object with its members in their order, each on one line as stored,
    and `entries` last; a bare list of the entry objects. Two-space indent, one entry per line, nothing that
    changes between two calls: the same envelope and entries give the same bytes."""
    if layout == FileLayout.DATASET:
        yield from corpus_file_chunks(envelope, documents)
        return
    separator = b"\n  "
    if layout == FileLayout.OBJECT:
        yield b"{"
        for name, value in json.loads(envelope).items():
            yield (b"\n  " + json.dumps(name, ensure_ascii=False).encode("utf-8") + b": "
                   + json.dumps(value, ensure_ascii=False).encode("utf-8") + b",")
        yield b'\n  "entries": ['
        separator = b"\n    "
    else:
        yield b"["
    first = separator
    for document in documents:
        yield separator + document.encode("utf-8")
        separator = b"," + first
    yield b"\n  ]\n}\n" if layout == FileLayout.OBJECT else b"\n]\n"


# The salt of the key (derived from SECRET_KEY) of public hashes; migrations 0006 and 0008 use the same recipe.
PUBLIC_HASH_SALT = "corpus.DatasetVersion.public_sha256"


def keyed_content_hash(sha256: str) -> str:
    """HMAC-SHA256 of a version's hash (of a file or of its content), keyed from SECRET_KEY: it names the
    content as well as the hash does, but nobody without the key can recompute it from a guess of the secret
    entries to confirm the guess."""
    return salted_hmac(PUBLIC_HASH_SALT, sha256, algorithm="sha256").hexdigest()


def public_sha256(sha256: str, holds_secret_entries: bool) -> str:
    """What everyone but the steward's secret readers is shown of a version's hash. Keyed whenever secret
    entries are part of it, whatever it is the hash of: an imported file may be in the canonical export
    layout (re-importing one's own export is the documented round trip), and then its hash is the content
    hash that anyone could recompute from a guess of the secret entries."""
    return keyed_content_hash(sha256) if holds_secret_entries else sha256


def content_sha256(version: DatasetVersion, envelope: str | None = None) -> str:
    """SHA-256 of the version's canonical export (with `envelope` instead of the stored one when given)."""
    digest = hashlib.sha256()
    documents = version.entries.order_by("position").values_list("document", flat=True).iterator(chunk_size=2000)
    for chunk in file_chunks(version.layout, version.envelope if envelope is None else envelope, documents):
        digest.update(chunk)
    return digest.hexdigest()


def exported_hashes(version: DatasetVersion) -> set[str]:
    """The content hashes of what exporting `version` gives its steward: as stored, and with the envelope's label
    block (docs/labels.md), so re-importing one's own export is recognised as the same version."""
    hashes = {content_sha256(version)}
    block = sovereignty_block(version)
    if block is not None and version.layout != FileLayout.LIST:
        hashes.add(content_sha256(version, with_sovereignty(version.envelope, block)))
    return hashes


# The columns an entry row stores besides its version and position, in the order entry_values gives them.
ENTRY_VALUE_FIELDS = (
    "entry_id", "source", "reference", "segment", "difficulty", "provenance", "register", "context", "domain",
    "morphological_analysis", "notes", "variant_class", "document_id", "document", "search_text",
)


def canonical_sha256(corpus: ValidCorpus) -> str:
    """SHA-256 of the file that exporting `corpus` would give, so that re-importing an exported (or
    re-formatted) copy of a stored version is recognised as the same content."""
    digest = hashlib.sha256()
    documents = (json.dumps(valid.data, ensure_ascii=False) for valid in corpus.entries)
    for chunk in file_chunks(corpus.layout, corpus.envelope_text, documents):
        digest.update(chunk)
    return digest.hexdigest()


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


def import_corpus(*, actor: User | None, data: bytes, organization: Organization,
                  supplied: dict[str, Any] | None = None) -> ImportOutcome:
    """Import a corpus file as a new dataset version of `organization`: the corpus format, or any shape the
    harness reads (corpus.validation). `supplied` gives envelope fields the file lacks, by parameter name
    (corpus.validation.SUPPLIED_FIELDS: dataset_id, dataset_version, language_pair, source_language,
    target_language, created, license), and `segment_map`, the segment of each segment name the file uses that is
    none of the four (the entries are stored with the segment chosen; nothing is guessed).

    Every problem is reported at once (CorpusFileError) and nothing is stored on error. The same
    file again is recognised by its sha256; the same id and version with other content is refused.
    """
    corpus = read_corpus(data, settings.CORPUS_MAX_UPLOAD_BYTES, supplied)
    sha256 = hashlib.sha256(data).hexdigest()
    fields = corpus.envelope_fields
    with transaction.atomic():
        # get_or_create: an import of the same new id by another organization at the same moment ends in
        # the same refusal below, not in an integrity error.
        dataset, _ = Dataset.objects.select_for_update().get_or_create(
            identifier=fields["identifier"], defaults={"organization": organization})
        if dataset.organization_id != organization.pk:
            raise CorpusFileError([unavailable_dataset_id(fields["identifier"], organization.name)])
        existing = dataset.versions.filter(version=fields["version"]).first()
        if existing is not None:
            if existing.sha256 == sha256 or canonical_sha256(corpus) in exported_hashes(existing):
                return ImportOutcome(existing, created=False, entry_count=existing.entry_count)
            raise CorpusFileError([Problem(
                gettext("version %(version)s of %(id)s is already stored with different content (sha256 "
                        "%(stored)s…, this file %(sent)s…); give the changed corpus a new version number")
                % {"version": repr(fields["version"]), "id": repr(fields["identifier"]),
                   "stored": existing.sha256[:12], "sent": sha256[:12]}, field="dataset.version")])
        version = DatasetVersion.objects.create(
            dataset=dataset,
            version=fields["version"],
            language_pair=fields["language_pair"],
            source_language=fields["source_language"],
            target_language=fields["target_language"],
            created=fields["created"],
            license=fields["license"],
            provenance=fields["provenance"],
            envelope=corpus.envelope_text,
            layout=corpus.layout,
            sha256=sha256,
            sha256_source=Sha256Source.FILE,
            public_sha256=public_sha256(sha256, any(segment in SECRET_SEGMENTS for segment in corpus.segments)),
            entry_count=len(corpus.entries),
            imported_by=actor,
        )
        insert_entries(version, ((valid.position, valid) for valid in corpus.entries))
        version.public_download_sha256 = compute_public_download_hash(version)
        version.save(update_fields=["public_download_sha256"])
        record_event(AuditAction.CORPUS_IMPORTED, actor=actor, organization=organization, obj=version,
                     details=content_details(version))
    return ImportOutcome(version, created=True, entry_count=len(corpus.entries), warnings=corpus.warnings)


def ensure_editable(version: DatasetVersion) -> None:
    if version.is_frozen:
        raise FrozenVersionError(
            gettext("%(version)s is frozen since %(date)s: a run card references it. Create a new version to "
                    "change its entries.") % {"version": version, "date": f"{version.frozen_at:%Y-%m-%d}"}
        )


def refresh_version_content(version: DatasetVersion) -> None:
    """Keep entry_count and sha256 equal to what exporting the version produces. Anyone who knows the public
    entries could confirm a guess of the secret ones against that hash, so when secret entries are part of
    it, the public is shown (and pins) a keyed hash of it instead (public_sha256)."""
    counts = version.entries.aggregate(total=Count("pk"), secret=Count("pk", filter=Q(segment__in=SECRET_SEGMENTS)))
    version.entry_count = counts["total"]
    version.sha256 = content_sha256(version)
    version.sha256_source = Sha256Source.CONTENT
    version.public_sha256 = public_sha256(version.sha256, bool(counts["secret"]))
    version.public_download_sha256 = compute_public_download_hash(version)
    version.save(update_fields=["entry_count", "sha256", "sha256_source", "public_sha256", "public_download_sha256"])


def content_details(version: DatasetVersion) -> dict[str, Any]:
    """What the audit log records of a version's content after a change: how many entries, per segment. Counts only,
    never a text: the log is append-only and exported, so a secret written into it could never be withdrawn with its
    entry."""
    return {"dataset": version.dataset.identifier, "version": version.version, "entries": version.entry_count,
            "segments": segment_counts(version)}


def validate_entry_data(data: dict[str, Any], version: DatasetVersion, position: int, exclude_pk=None) -> ValidEntry:
    problems: list[Problem] = []
    taken = dict.fromkeys(version.entries.exclude(pk=exclude_pk).values_list("entry_id", flat=True), -1)
    valid = validate_entry(position, data, problems, taken)
    if problems:
        raise CorpusFileError(problems)
    assert valid is not None  # validate_entry returns None only after adding a problem, raised above
    return valid


def locked_version(pk: int) -> DatasetVersion:
    """The version row, locked until the transaction ends, with its steward (whose audit chain the change extends)."""
    return DatasetVersion.objects.select_for_update(of=("self",)).select_related("dataset__organization").get(pk=pk)


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


@transaction.atomic
def freeze_version(*, actor: User | None, version: DatasetVersion) -> DatasetVersion:
    """Make a version immutable; run-card ingestion calls this when a card references it."""
    locked = DatasetVersion.objects.select_for_update().select_related("dataset__organization").get(pk=version.pk)
    if locked.frozen_at is None:
        locked.frozen_at = timezone.now()
        locked.save(update_fields=["frozen_at"])
        record_event(AuditAction.DATASET_VERSION_FROZEN,
                     actor=actor, organization=locked.dataset.organization, obj=locked,
                     details={"dataset": locked.dataset.identifier, "version": locked.version})
    return locked


def version_name_problems(version: DatasetVersion, new_version: str) -> list[str]:
    """What is wrong with `new_version` as the name of a new version of `version`'s dataset (empty: nothing)."""
    if not VERSION.fullmatch(new_version):
        return [gettext("The new version needs a name of at most 50 characters: letters, digits, '.', '_', '+' and "
                        "'-', e.g. 1.1.")]
    if version.dataset.versions.filter(version=new_version).exists():
        return [gettext("Version %(version)s of %(dataset)s already exists; choose another name.")
                % {"version": repr(new_version), "dataset": version.dataset}]
    return []


def with_segment(document: str, segment: str) -> str:
    """An entry's stored object with `segment` set: in its place when the object names one (key order kept), else
    last, so that export gives the new segment back."""
    data = json.loads(document)
    data["segment"] = segment
    return json.dumps(data, ensure_ascii=False)


def copy_into_new_version(*, actor: User | None, version: DatasetVersion, new_version: str, note: str = "",
                          moves: Mapping[str, str] | None = None) -> DatasetVersion:
    """A new, editable version of `version`'s dataset holding copies of its entries in order, `moves` (entry id →
    segment) applied to the copies, its count and hashes computed. The envelope names the new version and today's
    date where the file gave them. Nothing else carries over: the copy is not frozen and its held_out segment is
    reserved until activated again. Callers check the name and record the event, in their transaction."""
    moves = moves or {}
    today = timezone.now().date()
    envelope = json.loads(version.envelope)
    if version.layout == FileLayout.DATASET:
        envelope["version"] = new_version
        if "created" in envelope:
            envelope["created"] = today.isoformat()
    elif version.layout == FileLayout.OBJECT:
        # Where the file gave them; a version or date that an import supplied stays out of the file.
        for name, value in (("version", new_version), ("created", today.isoformat())):
            holders = [envelope.get("dataset"), envelope]
            holder = next((held for held in holders if isinstance(held, dict) and name in held), None)
            if holder is not None:
                holder[name] = value
    successor = DatasetVersion.objects.create(
        dataset=version.dataset,
        version=new_version,
        language_pair=version.language_pair,
        source_language=version.source_language,
        target_language=version.target_language,
        created=today,
        license=version.license,
        provenance=version.provenance,
        envelope=json.dumps(envelope, ensure_ascii=False),
        layout=version.layout,
        sha256=version.sha256,
        sha256_source=version.sha256_source,
        public_sha256=version.public_sha256,
        entry_count=version.entry_count,
        imported_by=actor,
        note=note,
    )
    fields = [f.name for f in Entry._meta.concrete_fields if f.name not in ("id", "version")]
    batch: list[Entry] = []
    for values in version.entries.order_by("position").values(*fields).iterator(chunk_size=INSERT_BATCH_SIZE):
        segment = moves.get(values["entry_id"])
        if segment is not None:
            values.update(segment=segment, document=with_segment(values["document"], segment))
        batch.append(Entry(version=successor, **values))
        if len(batch) >= INSERT_BATCH_SIZE:
            Entry.objects.bulk_create(batch)
            batch = []
    Entry.objects.bulk_create(batch)
    refresh_version_content(successor)
    return successor


@transaction.atomic
def create_next_version(*, actor: User | None, version: DatasetVersion, new_version: str) -> DatasetVersion:
    """Copy a (typically frozen) version's entries into a new, editable version."""
    new_version = new_version.strip()
    problems = version_name_problems(version, new_version)
    if problems:
        raise VersionRefused({"new_version": problems})
    successor = copy_into_new_version(actor=actor, version=version, new_version=new_version)
    record_event(AuditAction.DATASET_VERSION_CREATED, actor=actor, organization=version.dataset.organization,
                 obj=successor, details={**content_details(successor), "from_version": version.version})
    return successor


@dataclass(frozen=True)
class Move:
    """One move of a rotation: the entry (by id) and the segment it goes to; `line` where the page's list gave it."""

    entry_id: str
    segment: str
    line: int | None = None


def move_problems(version: DatasetVersion, moves: Sequence[Move]) -> list[str]:
    """Every problem of a rotation's moves against `version`, each naming its line (when the moves came from the
    page's list) and its entry: no move at all, an entry named twice, an unknown entry or segment, a move to the
    segment the entry is already in."""
    if not moves:
        return [gettext("Give at least one move: one line per entry, its id and the segment it moves to.")]
    current = dict(version.entries.filter(entry_id__in={move.entry_id for move in moves})
                   .values_list("entry_id", "segment"))
    first: dict[str, Move] = {}
    problems = []
    for move in moves:
        found = []
        if move.entry_id in first:
            found.append(gettext("entry %(id)s is moved more than once (also on line %(line)s)")
                         % {"id": move.entry_id, "line": first[move.entry_id].line})
        elif move.entry_id not in current:
            found.append(gettext("no entry has the id %(id)s in %(version)s")
                         % {"id": move.entry_id, "version": version})
        if move.segment not in Segment.values:
            found.append(gettext("entry %(id)s: unknown segment %(segment)s; expected one of: %(segments)s")
                         % {"id": move.entry_id, "segment": repr(move.segment), "segments": ", ".join(Segment.values)})
        elif current.get(move.entry_id) == move.segment:
            found.append(gettext("entry %(id)s is already in %(segment)s; leave it out or move it to another segment")
                         % {"id": move.entry_id, "segment": move.segment})
        first.setdefault(move.entry_id, move)
        problems += [problem if move.line is None else gettext("line %(line)s: %(problem)s")
                     % {"line": move.line, "problem": problem} for problem in found]
    return problems


@transaction.atomic
def rotate_segments(*, actor: User, version: DatasetVersion, new_version: str,
                    moves: Mapping[str, str]) -> DatasetVersion:
    """Move entries between segments (`moves`: entry id → segment) into a new version of `version`, in one step
    (benchmark specification §9.2: segments are rotated so that secret entries do not stay secret for ever, nor
    public ones become learnt). Developers are not told which entries moved: the new version's note says only that a
    rotation happened, and the audit log records how many moved from which segment to which. Governance staff of the
    steward only. Every problem is refused at once (VersionRefused, by field) and nothing is stored."""
    require(actor, "dataset.govern", version.dataset)
    new_version = new_version.strip()
    listed = [Move(str(entry_id), segment) for entry_id, segment in moves.items()]
    problems = {name: found for name, found in (("new_version", version_name_problems(version, new_version)),
                                                 ("moves", move_problems(version, listed))) if found}
    if problems:
        raise VersionRefused(problems)
    before = dict(version.entries.filter(entry_id__in=[move.entry_id for move in listed])
                  .values_list("entry_id", "segment"))
    successor = copy_into_new_version(actor=actor, version=version, new_version=new_version, note=ROTATION_NOTE,
                                      moves={move.entry_id: move.segment for move in listed})
    moved = Counter(f"{before[move.entry_id]}→{move.segment}" for move in listed)
    record_event(AuditAction.SEGMENTS_ROTATED, actor=actor, organization=version.dataset.organization, obj=successor,
                 details={**content_details(successor), "from_version": version.version, "moved": len(listed),
                          "moves": dict(sorted(moved.items()))})
    return successor


@transaction.atomic
def activate_held_out(*, actor: User, version: DatasetVersion) -> DatasetVersion:
    """Make the version's held_out entries scorable (benchmark specification §2.3: the segment is reserved for future
    evaluation until its community's governance decides). It changes no entry, so a frozen version is activated too;
    once, for good. Governance staff of the steward only."""
    require(actor, "dataset.govern", version.dataset)
    locked = locked_version(version.pk)
    if locked.held_out_active:
        raise VersionRefused({"held_out": [
            gettext("The held_out segment of %(version)s is already active (since %(date)s).")
            % {"version": locked, "date": f"{locked.held_out_activated_at:%Y-%m-%d}"}]}, kind=ErrorKind.CONFLICT)
    held_out = locked.entries.filter(segment=Segment.HELD_OUT).count()
    if not held_out:
        raise VersionRefused({"held_out": [
            gettext("%(version)s has no held_out entries: activation of a segment with no entries is refused.")
            % {"version": locked}]}, kind=ErrorKind.CONFLICT)
    locked.held_out_activated_at = timezone.now()
    locked.held_out_activated_by = actor
    locked.save(update_fields=["held_out_activated_at", "held_out_activated_by"])
    record_event(AuditAction.HELD_OUT_ACTIVATED, actor=actor, organization=locked.dataset.organization, obj=locked,
                 details={**content_details(locked), "held_out": held_out})
    return locked


class ConsentRequired(Conflict):
    """The community has not consented to what was asked (e.g. publishing without public-release consent)."""


@transaction.atomic
def set_dataset_public(*, actor: User | None, dataset: Dataset, is_public: bool) -> Dataset:
    """Release the public segments to everyone, or withdraw them from public view. Releasing needs an
    active consent covering public release, and the release decision of its restrictive Local Contexts labels
    when it carries some (docs/labels.md); withdrawing is always possible."""
    if is_public and not dataset.is_public and not has_consent(dataset, ConsentUse.PUBLIC_RELEASE):
        raise ConsentRequired(
            gettext("%(dataset)s cannot be released publicly: no active consent record covers public release of "
                    "its development and diagnostic segments. Record the community's consent first.")
            % {"dataset": dataset.identifier})
    block = release_block(dataset) if is_public and not dataset.is_public else None
    if block is not None:
        raise LabelReleaseRequired(block.message, "labels")
    if dataset.is_public != is_public:
        dataset.is_public = is_public
        dataset.save(update_fields=["is_public"])
        record_event(AuditAction.DATASET_PUBLISHED if is_public else AuditAction.DATASET_WITHDRAWN, actor=actor,
                     organization=dataset.organization, obj=dataset, details={"dataset": dataset.identifier})
    return dataset


# The signatures of the accepted document types: a renamed executable is not a PDF.
DOCUMENT_SIGNATURES = {
    "pdf": (b"%PDF-",),
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpg": (b"\xff\xd8\xff",),
    "jpeg": (b"\xff\xd8\xff",),
    "docx": (b"PK\x03\x04",),
}


def document_problem(document: UploadedFile) -> str | None:
    """Why an uploaded supporting document is refused, or None: size, type (by extension) and content."""
    limit = settings.CONSENT_DOCUMENT_MAX_BYTES
    assert document.size is not None  # Django's upload handlers (and SimpleUploadedFile) always set the size
    if document.size > limit:
        return too_large(document.size, limit).message
    extension = PurePath(document.name or "").suffix.lower().lstrip(".")
    if extension not in CONSENT_DOCUMENT_EXTENSIONS:
        if not extension:
            return gettext("a file without an extension is not accepted; upload PDF, PNG, JPEG, plain text (.txt) "
                           "or Word (.docx)")
        return gettext("a .%(extension)s file is not accepted; upload PDF, PNG, JPEG, plain text (.txt) or Word "
                       "(.docx)") % {"extension": extension}
    document.seek(0)
    head = document.read(2048)
    document.seek(0)
    if extension == "txt":
        if b"\x00" in head:
            return gettext("this .txt file is not plain text")
        return None
    if not head.startswith(DOCUMENT_SIGNATURES[extension]):
        return gettext("the file's content is not %(format)s; upload the document in the format its name says") % {
            "format": extension.upper()}
    return None


def consent_problems(uses, granted_by_name: str, granted_on, document, document_reference: str) -> dict[str, str]:
    """Every problem of a consent to be recorded, by field name."""
    problems: dict[str, str] = {}
    uses = list(uses or [])
    unknown = [str(use) for use in uses if use not in ConsentUse.values]
    if unknown:
        problems["uses"] = gettext("unknown use(s) %(unknown)s; expected: %(uses)s") % {
            "unknown": ", ".join(unknown), "uses": ", ".join(ConsentUse.values)}
    elif not uses:
        problems["uses"] = gettext("choose at least one use the community consented to")
    name_limit = ConsentRecord._meta.get_field("granted_by_name").max_length
    reference_limit = ConsentRecord._meta.get_field("document_reference").max_length
    # Both are CharFields, which always have a max_length
    assert name_limit is not None and reference_limit is not None
    if not (granted_by_name or "").strip():
        problems["granted_by_name"] = gettext("name the person or body who granted consent on the community's "
                                              "behalf")
    elif len(granted_by_name.strip()) > name_limit:
        problems["granted_by_name"] = gettext("at most %(limit)s characters") % {"limit": name_limit}
    if not isinstance(granted_on, datetime.date):
        problems["granted_on"] = gettext("give the date the consent was granted")
    elif granted_on > timezone.localdate():
        problems["granted_on"] = gettext("a consent cannot be granted in the future")
    if len((document_reference or "").strip()) > reference_limit:
        problems["document_reference"] = gettext("at most %(limit)s characters") % {"limit": reference_limit}
    if document is not None:
        problem = document_problem(document)
        if problem:
            problems["document"] = problem
    elif not (document_reference or "").strip():
        problems["document_reference"] = gettext("upload the supporting document or give a reference to it (URL or "
                                                 "archive)")
    return problems


@transaction.atomic
def grant_consent(*, actor: User, dataset: Dataset, uses, granted_by_name: str, granted_on: datetime.date,
                  document: UploadedFile | None = None, document_reference: str = "", notes: str = "") -> ConsentRecord:
    """Record a community's consent for uses of `dataset`. The caller has checked that `actor` is
    governance staff of the steward. Takes effect on the next request; ValidationError names each field."""
    problems = consent_problems(uses, granted_by_name, granted_on, document, document_reference)
    if problems:
        raise ValidationError({name: [message] for name, message in problems.items()})
    record = ConsentRecord(
        dataset=dataset,
        granted_by_name=granted_by_name.strip(),
        granted_on=granted_on,
        document_reference=document_reference.strip(),
        notes=notes.strip(),
        recorded_by=actor,
        **{use: use in uses for use in ConsentUse.values},
    )
    if document is not None:
        # document_problem (via consent_problems above) refuses a document without a name: no extension
        assert document.name is not None
        record.document_name = PurePath(document.name).name[:255]
        record.document.save(document.name, document, save=False)
    try:
        record.save()
    except Exception:
        if record.document:
            record.document.delete(save=False)
        raise
    record_event(AuditAction.CONSENT_GRANTED,
                 actor=actor, organization=dataset.organization, obj=record, details={
        "dataset": dataset.identifier, "uses": [use.value for use in record.uses],
        "granted_by": record.granted_by_name, "granted_on": granted_on.isoformat(),
        "document": record.document_name, "document_reference": record.document_reference,
    })
    return record


@transaction.atomic
def revoke_consent(*, actor: User, record: ConsentRecord, reason: str) -> ConsentRecord:
    """Revoke a consent record; it stays, with who, when and why. Every use it alone covered stops on the
    next request (nothing else is touched: re-granting restores it). The caller checked the role."""
    locked = ConsentRecord.objects.select_for_update().select_related("dataset__organization").get(pk=record.pk)
    if locked.revoked_at is not None:
        raise ValidationError({NON_FIELD_ERRORS: [gettext("this consent was already revoked on %(date)s")
                                                   % {"date": f"{locked.revoked_at:%Y-%m-%d}"}]})
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": [gettext("say why the consent is revoked; the reason is kept with the "
                                                  "record")]})
    locked.revoked_at = timezone.now()
    locked.revoked_by = actor
    locked.revocation_reason = reason
    locked.save(update_fields=["revoked_at", "revoked_by", "revocation_reason"])
    record_event(AuditAction.CONSENT_REVOKED,
                 actor=actor, organization=locked.dataset.organization, obj=locked, details={
        "dataset": locked.dataset.identifier, "uses": [use.value for use in locked.uses], "reason": reason,
    })
    return locked
