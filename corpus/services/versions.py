"""Versions: frozen ones never change (a run card depends on them); a change goes into a new version, made by
copying (next version, rotation of segments). Activating the held_out segment."""

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from common.errors import ErrorKind
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from ..models import DatasetVersion, Entry, FileLayout, Segment
from ..selectors.versions import ROTATION_NOTE
from ..validation import VERSION
from .content import content_details, refresh_version_content
from .errors import FrozenVersionError, VersionRefused

# Entry rows written per query when a version is copied (and by bulk imports).
INSERT_BATCH_SIZE = 5000


def ensure_editable(version: DatasetVersion) -> None:
    if version.is_frozen:
        raise FrozenVersionError(
            gettext("%(version)s is frozen since %(date)s: a run card references it. Create a new version to "
                    "change its entries.") % {"version": version, "date": f"{version.frozen_at:%Y-%m-%d}"}
        )


def locked_version(pk: int) -> DatasetVersion:
    """The version row, locked until the transaction ends, with its steward (whose audit chain the change extends)."""
    return DatasetVersion.objects.select_for_update(of=("self",)).select_related("dataset__organization").get(pk=pk)


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
