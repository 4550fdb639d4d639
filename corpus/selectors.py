"""Every read of the corpus that has a rule. `entry_visibility` is THE rule for secret segments and
for community consent: every page, API, export, admin list and search reaches entries through
`visible_entries`, and public segments are public only while an active consent covers public release.
"""

import hashlib
import json
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.db.models import Count, Exists, F, JSONField, OuterRef, Q, QuerySet
from django.db.models.functions import Cast
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from organizations.audit import record_secret_access
from organizations.models import SECRET_READER_ROLES, Organization
from organizations.permissions import permitted
from organizations.selectors import (
    governance_org_ids,
    organizations_where,
    secret_reader_org_ids,
)

from .file_writer import file_chunks
from .label_selectors import refuse_blocked_export, sovereignty_block, with_sovereignty
from .labels import choice_label
from .language_pairs import version_pair_key
from .models import (
    CONSENT_REVOCATION_EFFECTS,
    CONSENT_USE_EXPLANATIONS,
    CONSENT_USE_SHORT_LABELS,
    PUBLIC_SEGMENTS,
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
from .search import fold

READINESS_MINIMUMS = {
    Segment.GOLD_STANDARD: 50,
    Segment.DEVELOPMENT: 30,
    Segment.DIAGNOSTIC: 10,
    Segment.HELD_OUT: 10,
}


def consent_filter(use: str, dataset_path: str = "") -> Q:
    """Rows whose dataset (reached through `dataset_path`, e.g. "version__dataset"; "" for Dataset rows)
    holds an active consent record covering `use`. Evaluated in the query itself, so a revocation takes
    effect on the very next request everywhere this filter is applied."""
    if use not in ConsentUse.values:
        raise ValueError(f"unknown consent use {use!r}; expected one of: {', '.join(ConsentUse.values)}")
    active = ConsentRecord.objects.filter(dataset=OuterRef(dataset_path or "pk"), revoked_at__isnull=True,
                                          **{use: True})
    return Q(Exists(active))


def has_consent(dataset: Dataset, use: str) -> bool:
    return Dataset.objects.filter(consent_filter(use), pk=dataset.pk).exists()


def withdrawn(dataset: Dataset, use: str = ConsentUse.PUBLIC_RELEASE) -> bool:
    """The community consented to `use` once and has revoked it, with no active consent left: pages say
    "withdrawn by its community" instead of pretending the dataset never existed."""
    counts = ConsentRecord.objects.filter(dataset=dataset, **{use: True}).aggregate(
        total=Count("pk"), active=Count("pk", filter=Q(revoked_at__isnull=True)))
    return counts["total"] > 0 and counts["active"] == 0


def publicly_released(dataset_path: str = "") -> Q:
    """Datasets whose public segments everyone sees: published by governance staff AND covered by an
    active public-release consent. Revoking the consent hides them without unpublishing, so re-granting
    restores them."""
    prefix = f"{dataset_path}__" if dataset_path else ""
    return Q(**{f"{prefix}is_public": True}) & consent_filter(ConsentUse.PUBLIC_RELEASE, dataset_path)


def public_segment(entry_path: str = "") -> Q:
    """Entries of the public segments (development, diagnostic): the part of a dataset its release shows, and
    all that its public download holds. Gold-standard and held-out entries never match."""
    prefix = f"{entry_path}__" if entry_path else ""
    return Q(**{f"{prefix}segment__in": PUBLIC_SEGMENTS})


def entry_visibility(user) -> Q:
    """Public segments of publicly released datasets to anyone; everything of a steward's datasets to its
    governance staff and curators (consent or not: they manage it). Nothing else, for anyone (site staff
    included)."""
    visible = public_segment() & publicly_released("version__dataset")
    reader_orgs = secret_reader_org_ids(user)
    if reader_orgs:
        visible |= Q(version__dataset__organization_id__in=reader_orgs)
    return visible


def visible_entries(user, version: DatasetVersion | None = None) -> QuerySet[Entry]:
    entries = Entry.objects.filter(entry_visibility(user))
    if version is not None:
        entries = entries.filter(version=version)
    return entries


def visible_datasets(user) -> QuerySet[Dataset]:
    """Publicly released datasets, plus every dataset the user stewards as governance staff or curator."""
    visible = publicly_released()
    reader_orgs = secret_reader_org_ids(user)
    if reader_orgs:
        visible |= Q(organization_id__in=reader_orgs)
    return Dataset.objects.filter(visible).select_related("organization")


def visible_versions(user) -> QuerySet[DatasetVersion]:
    return DatasetVersion.objects.filter(dataset__in=visible_datasets(user)).select_related(
        "dataset", "dataset__organization"
    )


@dataclass(frozen=True)
class Withdrawal:
    """A published dataset whose community withdrew the consent to `use`: what a 410 answer says."""

    dataset: Dataset
    use: ConsentUse

    @property
    def message(self) -> str:
        return withdrawal_message(self.dataset, self.use)

    @property
    def use_label(self) -> str:
        return use_phrase(self.use)


def withdrawal(dataset: Dataset | None,
               uses: tuple[ConsentUse, ...] = (ConsentUse.PUBLIC_RELEASE,)) -> Withdrawal | None:
    """THE rule behind every "withdrawn" answer (410) where visibility found nothing — pages and API, datasets,
    versions, entries and run cards: the dataset was published and its community revoked the first of `uses`
    it withdrew. None for anything else, above all datasets that were never public: their existence stays
    unrevealed (404)."""
    if dataset is None or not dataset.is_public:
        return None
    for use in uses:
        if withdrawn(dataset, use):
            return Withdrawal(dataset, ConsentUse(use))
    return None


def withdrawal_matching(*conditions: Q, **lookup) -> Withdrawal | None:
    """`withdrawal` of the published dataset matching `conditions` and `lookup` (e.g. versions__pk=3)."""
    return withdrawal(Dataset.objects.filter(*conditions, is_public=True, **lookup).select_related("organization")
                      .first())


def entry_withdrawal(entry_pk) -> Withdrawal | None:
    """`withdrawal` of the dataset holding the public entry `entry_pk`: a secret entry's dataset never answers
    "withdrawn", which would reveal that the entry exists."""
    return withdrawal_matching(Q(versions__entries__pk=entry_pk) & public_segment("versions__entries"))


def use_phrase(use: str) -> str:
    """A consent use's label inside a sentence, in the reader's language ("public release of the …")."""
    label = choice_label("consent_use", use)
    return label[:1].lower() + label[1:]


def withdrawal_message(dataset: Dataset, use: str = ConsentUse.PUBLIC_RELEASE) -> str:
    """What the public is told instead of the dataset (or its run cards), in the reader's language: who withdrew
    which consent."""
    if use == ConsentUse.PUBLIC_RELEASE:
        consequence = _("its entries are no longer available here")
    elif use == ConsentUse.EVALUATION:
        consequence = _("its run cards and leaderboard rows are no longer shown, and new run cards are refused")
    else:
        consequence = _("it is no longer used for this")
    return _("The dataset %(dataset)s was withdrawn by its community: %(organization)s revoked its consent to "
             "%(use)s, so %(consequence)s. Nothing was deleted.") % {
        "dataset": dataset.identifier, "organization": dataset.organization.name, "use": use_phrase(use),
        "consequence": consequence,
    }


def active_consents(dataset: Dataset) -> QuerySet[ConsentRecord]:
    return dataset.consents.filter(revoked_at__isnull=True)


def covered_uses(dataset: Dataset) -> list[ConsentUse]:
    """The uses the dataset's active consent records cover together, in ConsentUse order."""
    rows = active_consents(dataset).values_list(*ConsentUse.values)
    covered = {use for row in rows for use, granted in zip(ConsentUse, row, strict=True) if granted}
    return [use for use in ConsentUse if use in covered]


def uses_text(uses) -> str:
    """Uses as a phrase for messages and pages, e.g. "public release, evaluation and human review"."""
    labels = [str(CONSENT_USE_SHORT_LABELS[ConsentUse(use)]) for use in uses]
    if len(labels) > 1:
        return _("%(list)s and %(last)s") % {"list": ", ".join(labels[:-1]), "last": labels[-1]}
    return "".join(labels)


@dataclass(frozen=True)
class UseStatus:
    use: ConsentUse
    explanation: str
    covered_by: list[ConsentRecord]
    withdrawn: bool

    @property
    def allowed(self) -> bool:
        return bool(self.covered_by)


def consent_overview(records: list[ConsentRecord]) -> list[UseStatus]:
    """Per use: the active records that allow it, or whether a revocation withdrew it (from records
    already fetched, so the consent page costs no query per use)."""
    return [UseStatus(
        use=use, explanation=str(CONSENT_USE_EXPLANATIONS[use]),
        covered_by=[record for record in records if record.is_active and getattr(record, use.value)],
        withdrawn=any(not record.is_active and getattr(record, use.value) for record in records),
    ) for use in ConsentUse]


@dataclass(frozen=True)
class Consequence:
    use: ConsentUse
    effect: str
    still_covered_by: list[int]


def revocation_consequences(record: ConsentRecord) -> list[Consequence]:
    """What revoking `record` changes, use by use: the effect, unless another active record still covers
    that use (then nothing stops, and the page says which record keeps it)."""
    others = active_consents(record.dataset).exclude(pk=record.pk)
    return [Consequence(
        use=use, effect=str(CONSENT_REVOCATION_EFFECTS[use]),
        still_covered_by=list(others.filter(**{use.value: True}).values_list("pk", flat=True)),
    ) for use in record.uses]


def consent_records(dataset: Dataset) -> QuerySet[ConsentRecord]:
    """Every record of the dataset, active first, for its governance staff (callers check the role)."""
    return dataset.consents.select_related("recorded_by", "revoked_by").order_by(
        F("revoked_at").desc(nulls_first=True), "-granted_on", "-recorded_at")


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


def curating_organizations(user) -> QuerySet[Organization]:
    """Organizations whose corpora the user imports and edits: the same roles that read their secrets."""
    return organizations_where(user, SECRET_READER_ROLES)


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



def distribution(entries: QuerySet[Entry], field: str) -> list[tuple[str, int]]:
    """Counts of entries per value of `field`, most frequent first."""
    rows = entries.order_by().values(field).annotate(n=Count("pk")).order_by("-n", field)
    return [(row[field] if row[field] not in (None, "") else "—", row["n"]) for row in rows]


def exported_entries(user, version: DatasetVersion, segments: list[str] | None = None) -> QuerySet[Entry]:
    entries = visible_entries(user, version)
    return entries.filter(segment__in=segments) if segments else entries


def export_chunks(user, version: DatasetVersion, segments: list[str] | None = None):
    """The corpus file of `version` holding only the entries `user` may see (optionally some segments): for the
    steward's secret readers in the shape it was imported in (the file its content hash is of), for everyone else
    as the public download is written, the file the harness runs (public_file_chunks). The labels that apply to the
    version are the envelope's `sovereignty` block (docs/labels.md)."""
    entries = exported_entries(user, version, segments)
    block = sovereignty_block(version)
    if permitted(user, "dataset.see_secret", version.dataset):
        return version_file_chunks(version, entries, block)
    return public_file_chunks(version, entries, block)


def version_file_chunks(version: DatasetVersion, entries: QuerySet[Entry], block: dict[str, Any] | None = None):
    """The file of `version` holding `entries` (already narrowed by visibility), in position order; with `block`,
    the envelope carries it as its `sovereignty` member (a bare list has no envelope to carry it)."""
    documents = entries.order_by("position").values_list("document", flat=True).iterator(chunk_size=2000)
    envelope = version.envelope if version.layout == FileLayout.LIST else with_sovereignty(version.envelope, block)
    return file_chunks(version.layout, envelope, documents)


# ---------------------------------------------------------------------------------------------------------
# The public download and its pin (docs/corpus.md, "Hashes")
# ---------------------------------------------------------------------------------------------------------

def public_download_entries(user, version: DatasetVersion) -> QuerySet[Entry]:
    """The entries of the public download of `version` as `user` gets it: the visible entries of its public
    segments. Whoever may see the version gets the same ones (its steward's readers see every entry, anyone else
    sees a released dataset's public segments), and never a secret one."""
    return visible_entries(user, version).filter(public_segment())


def public_download_chunks(user, version: DatasetVersion):
    """The public download: the file of `version` holding its public segments' entries in file order, as the
    harness runs it (public_file_chunks). Byte-stable: nothing in it depends on who asks or when, so the same
    content always gives the same bytes, and their SHA-256 is public_download_hash(version): so it carries no label
    block, and restrictive labels refuse it as they refuse every public export (LabelReleaseRequired)."""
    refuse_blocked_export(user, version)
    return public_file_chunks(version, public_download_entries(user, version))


def compute_public_download_hash(version: DatasetVersion) -> str:
    """SHA-256 of the public download's bytes, computed (the import and every change of a version store it).
    It reads the public segments only, whatever the dataset's publication: the same entries any reader of the
    version gets, which reveal nothing of the secret ones."""
    digest = hashlib.sha256()
    for chunk in public_file_chunks(version, version.entries.filter(public_segment())):
        digest.update(chunk)
    return digest.hexdigest()


def public_file_chunks(version: DatasetVersion, entries: QuerySet[Entry], block: dict[str, Any] | None = None):
    """`entries` in the file the harness runs as this version: the version's own file (its envelope verbatim, in the
    shape it was imported in) when the harness reads it as this dataset's id and version with a language pair it
    reads, and every entry names its id; otherwise the corpus format with an envelope it reads (harness_envelope),
    each entry as stored, its stored id written first when it gives none (with_id)."""
    envelope = harness_envelope(version)
    if envelope is None:
        return version_file_chunks(version, entries, block)
    rows = entries.order_by("position").values_list("entry_id", "document").iterator(chunk_size=2000)
    return file_chunks(FileLayout.DATASET, with_sovereignty(envelope, block),
                       (with_id(entry_id, document) for entry_id, document in rows))


def with_id(entry_id: str, document: str) -> str:
    """An entry object as stored, with its id written first when it gives none: the harness numbers an entry without
    one by its position in the file it reads (corpus_loader._ensure_ids), which a download of some entries changes."""
    if "id" in json.loads(document):
        return document
    stored = int(entry_id) if entry_id.isdigit() else entry_id
    rest = document.lstrip()[1:].lstrip()
    return '{"id": ' + json.dumps(stored) + (", " + rest if rest != "}" else "}")


# The pairs the harness reads written out (mt_eval_harness corpus_loader._coerce_lang_pair): two bare codes joined by
# "-", ":" or ">".
HARNESS_PAIR = re.compile(r"^\s*([A-Za-z]{2,3})\s*[-:>]\s*([A-Za-z]{2,3})\s*$")
HARNESS_ENVELOPE_FIELDS = ("id", "version", "language_pair", "source_language", "target_language", "created",
                           "license")


def harness_reads_pair(value: Any) -> bool:
    """Whether the harness reads `value` as a language pair (an object with both sides, or two bare codes)."""
    if isinstance(value, dict):
        return bool(value.get("source")) and bool(value.get("target"))
    return isinstance(value, str) and HARNESS_PAIR.match(value) is not None


def harness_reads_version(version: DatasetVersion, stored: dict[str, Any]) -> bool:
    """Whether the harness (corpus_loader.load_corpus, publish.assemble_run_card) reads the stored file as this
    version: the id and version it takes (the `dataset` object's, else `corpus_id` and `version` beside the entries)
    are the version's, the language pair it reads first is one it can read, and every entry names its id."""
    inner = stored.get("dataset") if version.layout == FileLayout.OBJECT else stored
    inner = inner if isinstance(inner, dict) else {}
    outer = stored if version.layout == FileLayout.OBJECT else {}
    identifier = inner.get("id") or outer.get("corpus_id")
    number = inner.get("version") or outer.get("version")
    pair = inner.get("language_pair") or outer.get("language_pair")
    if identifier != version.dataset.identifier or number != version.version or not harness_reads_pair(pair):
        return False
    return not version.entries.annotate(parsed=Cast("document", JSONField())).exclude(parsed__has_key="id").exists()


def harness_envelope(version: DatasetVersion) -> str | None:
    """None when the harness reads the version's own file as the version (harness_reads_version); else the envelope
    of the corpus format it reads: the version's id, version, language pair as an object of ISO 639-3 codes
    (`{"source": "eng", "target": "crk"}`), languages, creation date and licence, then every other member of the
    stored envelope as stored (a corpus builder's `dataset` object's members first)."""
    stored = json.loads(version.envelope) if version.layout != FileLayout.LIST else {}
    stored = stored if isinstance(stored, dict) else {}
    if version.layout != FileLayout.LIST and harness_reads_version(version, stored):
        return None
    key = version_pair_key(version.language_pair, version.source_language, version.target_language)
    source, target = key.split(">", 1) if key else (version.source_language, version.target_language)
    envelope: dict[str, Any] = {
        "id": version.dataset.identifier, "version": version.version,
        "language_pair": {"source": source, "target": target}, "source_language": version.source_language,
        "target_language": version.target_language, "created": version.created.isoformat(),
        "license": version.license,
    }
    nested = stored.get("dataset") if version.layout == FileLayout.OBJECT else None
    for members in (nested if isinstance(nested, dict) else {}, stored):
        for name, value in members.items():
            if name not in envelope and name not in ("dataset", "entries", "corpus_id"):
                envelope[name] = value
    return json.dumps(envelope, ensure_ascii=False)


def public_download_hash(version: DatasetVersion) -> str:
    """THE public-download pin of `version`: the SHA-256 of the bytes of its public download (public_download_chunks;
    the page `/datasets/versions/PK/export.json?public=1`, the API's `versions/PK/public/`), which a developer who
    runs the harness on that download gets as the run card's `dataset.sha256`. A run card pinning it scores public
    entries only. Stored on the version row (`public_download_sha256`); a version stored before it existed has it
    computed and stored on first use."""
    if not version.public_download_sha256:
        version.public_download_sha256 = compute_public_download_hash(version)
        DatasetVersion.objects.filter(pk=version.pk).update(public_download_sha256=version.public_download_sha256)
    return version.public_download_sha256


def mt_output_visibility(user, entry_path: str = "entry") -> Q:
    """Machine-translation output for an entry: as visible as the entry when it is public (released and
    consented); for secret entries, governance staff of the steward only (SPEC §2 principle 3)."""
    public = public_segment(entry_path) & publicly_released(f"{entry_path}__version__dataset")
    governed = governance_org_ids(user)
    if governed:
        public |= Q(**{f"{entry_path}__version__dataset__organization_id__in": governed})
    reader_orgs = secret_reader_org_ids(user)
    if reader_orgs:
        public |= public_segment(entry_path) & Q(**{
            f"{entry_path}__version__dataset__organization_id__in": reader_orgs})
    return public


def filter_entries(entries: QuerySet[Entry], filters: dict) -> QuerySet[Entry]:
    """Narrow already-visible entries by the entry filters (segment, difficulty, domain, register,
    provenance, and `q`: text in source, reference or notes, diacritics and case optional (corpus.search),
    or an exact id)."""
    for name in ("segment", "domain", "register", "provenance"):
        if filters.get(name):
            entries = entries.filter(**{name: filters[name]})
    if filters.get("difficulty") is not None:
        entries = entries.filter(difficulty=filters["difficulty"])
    if filters.get("q"):
        query = filters["q"]
        entries = entries.filter(Q(search_text__contains=fold(query)) | Q(entry_id=query))
    return entries


@dataclass(frozen=True)
class Neighbour:
    """A sentence of the same text (`Entry.document_id`) next to an entry: what a reader may be shown as context."""

    entry_id: int
    source: str
    is_secret: bool


def document_neighbours(entries: Iterable[Entry], *, before: int = 2,
                        after: int = 1) -> dict[int, tuple[list[Neighbour], list[Neighbour]]]:
    """Entry pk → the sentences just before and just after it in its text, in order (entries sharing a
    `document_id` in one version, by position): one query for any number of entries, none when no entry names a
    text. Who may read a secret neighbour is the caller's rule."""
    entries = list(entries)
    wanted = {(entry.version_id, entry.document_id) for entry in entries if entry.document_id}
    if not wanted:
        return {}
    texts: dict[tuple[int, str], list[tuple[int, int, str, str]]] = {}
    rows = (Entry.objects.filter(reduce(operator.or_, (Q(version_id=version, document_id=document)
                                                       for version, document in wanted)))
            .order_by("position").values_list("version_id", "document_id", "pk", "position", "source", "segment"))
    for version, document, pk, position, source, segment in rows:
        texts.setdefault((version, document), []).append((pk, position, source, segment))
    found = {}
    for entry in entries:
        text = texts.get((entry.version_id, entry.document_id)) if entry.document_id else None
        if not text:
            continue
        at = next(index for index, row in enumerate(text) if row[0] == entry.pk)
        lines = [Neighbour(pk, source, segment in SECRET_SEGMENTS) for pk, _, source, segment in text]
        found[entry.pk] = (lines[max(0, at - before):at], lines[at + 1:at + 1 + after])
    return found


def shown_entries(user, entries: Iterable[Entry], *, where: str) -> list[Entry]:
    """THE way a response shows entries: they are fetched and the audit event of the secret ones among them
    (`secret_entries.shown`) is recorded in this one call, so no page or API answer shows secret text without its
    event. `where` is the request path."""
    shown = list(entries)
    record_secret_access(user, secret_entries_shown(shown), where)
    return shown


def streamed_entries(user, version: DatasetVersion, entries: QuerySet[Entry], *, where: str) -> QuerySet[Entry]:
    """The same for an export about to be streamed or written whole: the event counts its secret entries (one
    count query, secret readers only) before the queryset is handed back."""
    record_secret_access(user, secret_entries_in(user, version, entries), where)
    return entries


def shown_export_chunks(user, version: DatasetVersion, segments: list[str] | None, *, where: str):
    """The JSON export's chunks, its secret entries counted in the audit event first (see `streamed_entries`). Refused
    (LabelReleaseRequired) to anyone but the steward's own readers while restrictive labels wait for their release."""
    refuse_blocked_export(user, version)
    streamed_entries(user, version, exported_entries(user, version, segments), where=where)
    return export_chunks(user, version, segments)


def secret_entries_shown(entries) -> dict[int, int]:
    """Organization id → how many of these (already fetched) entries are secret, for the audit log."""
    shown: dict[int, int] = {}
    for entry in entries:
        if entry.is_secret:
            organization_id = entry.version.dataset.organization_id
            shown[organization_id] = shown.get(organization_id, 0) + 1
    return shown


def secret_entries_in(user, version: DatasetVersion, entries: QuerySet[Entry]) -> dict[int, int]:
    """The same for a queryset about to be streamed (one count query, only for secret readers)."""
    if not permitted(user, "dataset.see_secret", version.dataset):
        return {}
    return {version.dataset.organization_id: entries.filter(segment__in=SECRET_SEGMENTS).count()}
