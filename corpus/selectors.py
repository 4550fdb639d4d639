"""Every read of the corpus that has a rule. `entry_visibility` is THE rule for secret segments:
every page, API, export, admin list and search reaches entries through `visible_entries`.
"""

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from governance.models import SECRET_READER_ROLES, Organization
from governance.selectors import (
    governance_org_ids,
    organizations_where,
    secret_reader_org_ids,
)

from .models import (
    PUBLIC_SEGMENTS,
    SECRET_SEGMENTS,
    Dataset,
    DatasetVersion,
    Entry,
    Segment,
)

READINESS_MINIMUMS = {
    Segment.GOLD_STANDARD: 50,
    Segment.DEVELOPMENT: 30,
    Segment.DIAGNOSTIC: 10,
    Segment.HELD_OUT: 10,
}


def entry_visibility(user) -> Q:
    """Public segments of public datasets to anyone; everything of a steward's datasets to its
    governance staff and curators. Nothing else, for anyone (site staff included)."""
    visible = Q(segment__in=PUBLIC_SEGMENTS, version__dataset__is_public=True)
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
    """Public datasets, plus the non-public ones the user steward as governance staff or curator."""
    visible = Q(is_public=True)
    reader_orgs = secret_reader_org_ids(user)
    if reader_orgs:
        visible |= Q(organization_id__in=reader_orgs)
    return Dataset.objects.filter(visible).select_related("organization")


def visible_versions(user) -> QuerySet[DatasetVersion]:
    return DatasetVersion.objects.filter(dataset__in=visible_datasets(user)).select_related(
        "dataset", "dataset__organization"
    )


def can_see_secret_segments(user, dataset: Dataset) -> bool:
    return dataset.organization_id in secret_reader_org_ids(user)


def curating_organizations(user) -> QuerySet[Organization]:
    """Organizations whose corpora the user imports and edits: the same roles that read their secrets."""
    return organizations_where(user, SECRET_READER_ROLES)


def can_curate(user, dataset: Dataset) -> bool:
    """Curators and governance staff of the steward organization edit and import its corpora."""
    return can_see_secret_segments(user, dataset)


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
        Requirement(f"{segment.label} entries", f"≥ {minimum}", str(stats[segment.value]),
                    stats[segment.value] >= minimum)
        for segment, minimum in READINESS_MINIMUMS.items()
    ]
    checklist += [
        Requirement("Every entry has a provenance", "0 without", f"{stats['without_provenance']} without",
                    stats["total"] > 0 and stats["without_provenance"] == 0),
        Requirement("Difficulty tiers spanned", "≥ 3 of 5", str(stats["tiers"]), stats["tiers"] >= 3),
        Requirement("Registers represented", "≥ 2", str(stats["registers"]), stats["registers"] >= 2),
        Requirement("Documented community consent", "recorded", "not tracked yet", False),
    ]
    return checklist


def distribution(entries: QuerySet[Entry], field: str) -> list[tuple[str, int]]:
    """Counts of entries per value of `field`, most frequent first."""
    rows = entries.order_by().values(field).annotate(n=Count("pk")).order_by("-n", field)
    return [(row[field] if row[field] not in (None, "") else "—", row["n"]) for row in rows]


def exported_entries(user, version: DatasetVersion, segments: list[str] | None = None) -> QuerySet[Entry]:
    entries = visible_entries(user, version)
    return entries.filter(segment__in=segments) if segments else entries


def export_chunks(user, version: DatasetVersion, segments: list[str] | None = None):
    """The corpus file of `version` holding only the entries `user` may see (optionally some segments)."""
    from .services import corpus_file_chunks

    entries = exported_entries(user, version, segments)
    documents = entries.order_by("position").values_list("document", flat=True).iterator(chunk_size=2000)
    return corpus_file_chunks(version.envelope, documents)


def mt_output_visibility(user, entry_path: str = "entry") -> Q:
    """Machine-translation output for an entry: as visible as the entry when it is public; for secret
    entries, governance staff of the steward only (SPEC §2 principle 3)."""
    public = Q(**{f"{entry_path}__segment__in": PUBLIC_SEGMENTS, f"{entry_path}__version__dataset__is_public": True})
    governed = governance_org_ids(user)
    if governed:
        public |= Q(**{f"{entry_path}__version__dataset__organization_id__in": governed})
    reader_orgs = secret_reader_org_ids(user)
    if reader_orgs:
        public |= Q(**{f"{entry_path}__segment__in": PUBLIC_SEGMENTS,
                       f"{entry_path}__version__dataset__organization_id__in": reader_orgs})
    return public


def filter_entries(entries: QuerySet[Entry], filters: dict) -> QuerySet[Entry]:
    """Narrow already-visible entries by the entry filters (segment, difficulty, domain, register,
    provenance, and `q`: text in source, reference or notes, or an exact id)."""
    for name in ("segment", "domain", "register", "provenance"):
        if filters.get(name):
            entries = entries.filter(**{name: filters[name]})
    if filters.get("difficulty") is not None:
        entries = entries.filter(difficulty=filters["difficulty"])
    if filters.get("q"):
        query = filters["q"]
        entries = entries.filter(
            Q(source__icontains=query) | Q(reference__icontains=query) | Q(entry_id=query) | Q(notes__icontains=query)
        )
    return entries


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
    if not can_see_secret_segments(user, version.dataset):
        return {}
    return {version.dataset.organization_id: entries.filter(segment__in=SECRET_SEGMENTS).count()}
