"""What a version shows of itself to whoever may see it: the hash they are shown and pin, its note, its entries
per segment and the benchmark-readiness checklist (aggregates only, never a text)."""

from dataclasses import dataclass

from django.db.models import Count, Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from organizations.permissions import permitted

from ..labels import choice_label
from ..models import CONSENT_USE_SHORT_LABELS, ConsentUse, Dataset, DatasetVersion, Segment, Sha256Source
from .consent import covered_uses

READINESS_MINIMUMS = {
    Segment.GOLD_STANDARD: 50,
    Segment.DEVELOPMENT: 30,
    Segment.DIAGNOSTIC: 10,
    Segment.HELD_OUT: 10,
}


KEYED_HASH_LABEL = gettext_lazy("keyed content hash (HMAC-SHA256 of the version's real hash, keyed by this site; it "
                                "cannot be recomputed)")


# Sha256Source's labels in the reader's language (the model keeps its English ones: migrations record them).
SHA256_SOURCE_LABELS = {
    Sha256Source.FILE: gettext_lazy("SHA-256 of the corpus file as imported"),
    Sha256Source.CONTENT: gettext_lazy("SHA-256 of the canonical export, computed here"),
}


@dataclass(frozen=True)
class VersionHash:
    """A version's hash as one user sees it; `kind` is "file", "content" or "keyed" (docs/corpus.md, "Hashes")."""

    value: str
    kind: str
    label: str


def version_hash(user, version: DatasetVersion) -> VersionHash:
    """The hash `user` is shown and pins run cards to: the real sha256 (of the file or of the content) for the
    steward's secret readers, and for everyone of a version without secret entries; otherwise the keyed hash,
    since a real hash covering secret entries confirms guesses of them."""
    if not version.public_hash_is_keyed or permitted(user, "dataset.see_secret", version.dataset):
        return VersionHash(version.sha256, version.sha256_source,
                           str(SHA256_SOURCE_LABELS[Sha256Source(version.sha256_source)]))
    return VersionHash(version.public_sha256, "keyed", str(KEYED_HASH_LABEL))


# The note of a version made by a rotation of segments (corpus.services.rotate_segments): that one happened, nothing
# more, so that developers cannot tell which entries moved. Stored in English and shown in the reader's language.
ROTATION_NOTE = gettext_noop("Entries were rotated between segments when this version was made: some moved from one "
                             "segment to another. Which ones is not published.")


SITE_NOTES = frozenset({ROTATION_NOTE})


def version_note(version: DatasetVersion) -> str:
    """The version's note in the reader's language: a note the site writes is translated, any other shown as
    written."""
    return _(version.note) if version.note in SITE_NOTES else version.note


def segment_counts(version: DatasetVersion) -> dict[str, int]:
    """Entries per segment, in the segments' order, segments without entries left out. Aggregates reveal no text:
    the readiness checklist shows them to everyone who may see the version, and the audit log records them."""
    counts = dict(version.entries.order_by().values("segment").annotate(n=Count("pk")).values_list("segment", "n"))
    return {segment: counts[segment] for segment in Segment.values if segment in counts}


@dataclass(frozen=True)
class Requirement:
    label: str
    expected: str
    actual: str
    passed: bool


def readiness(version: DatasetVersion) -> list[Requirement]:
    """The benchmark-readiness checklist of SPEC §3.4. Counts are aggregates over every entry, so
    showing them reveals no secret text."""
    stats = version.entries.aggregate(
        total=Count("pk"),
        without_provenance=Count("pk", filter=Q(provenance="")),
        tiers=Count("difficulty", distinct=True),
        registers=Count("register", distinct=True, filter=~Q(register="")),
        **{segment.value: Count("pk", filter=Q(segment=segment)) for segment in READINESS_MINIMUMS},
    )
    checklist = [
        Requirement(_("%(segment)s entries") % {"segment": choice_label("segment", segment)}, f"≥ {minimum}",
                    str(stats[segment.value]), stats[segment.value] >= minimum)
        for segment, minimum in READINESS_MINIMUMS.items()
    ]
    checklist += [
        Requirement(_("Every entry has a provenance"), _("%(count)s without") % {"count": 0},
                    _("%(count)s without") % {"count": stats["without_provenance"]},
                    stats["total"] > 0 and stats["without_provenance"] == 0),
        Requirement(_("Difficulty tiers spanned"), _("≥ 3 of 5"), str(stats["tiers"]), stats["tiers"] >= 3),
        Requirement(_("Registers represented"), "≥ 2", str(stats["registers"]), stats["registers"] >= 2),
        consent_requirement(version.dataset),
    ]
    return checklist


def consent_requirement(dataset: Dataset) -> Requirement:
    """SPEC §3.4's "documented community consent": an active record covering evaluation."""
    uses = covered_uses(dataset)
    if uses:
        found = ", ".join(str(CONSENT_USE_SHORT_LABELS[use]) for use in uses)
    else:
        found = _("revoked") if dataset.consents.exists() else _("none recorded")
    return Requirement(_("Documented community consent"), _("active, covering evaluation"), found,
                       ConsentUse.EVALUATION in uses)
