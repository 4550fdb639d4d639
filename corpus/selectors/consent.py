"""A dataset's consent records as the rules and pages read them: whether an active record covers a use (in the
query itself, so a revocation takes effect on the next request), which uses are covered or withdrawn, and what
revoking a record would stop."""

from dataclasses import dataclass

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from ..models import (
    CONSENT_REVOCATION_EFFECTS,
    CONSENT_USE_EXPLANATIONS,
    CONSENT_USE_SHORT_LABELS,
    ConsentRecord,
    ConsentUse,
    Dataset,
)


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
