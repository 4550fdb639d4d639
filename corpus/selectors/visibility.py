"""THE rule for secret segments and for community consent (`entry_visibility`): every page, API, export, admin
list and search reaches entries through `visible_entries`, and public segments are public only while an active
consent covers public release. What answers 410 where visibility found nothing is decided here too (`withdrawal`)."""

from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from organizations.models import SECRET_READER_ROLES, Organization
from organizations.selectors import governance_org_ids, organizations_where, secret_reader_org_ids

from ..labels import choice_label
from ..models import PUBLIC_SEGMENTS, ConsentUse, Dataset, DatasetVersion, Entry
from .consent import consent_filter, withdrawn


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


def curating_organizations(user) -> QuerySet[Organization]:
    """Organizations whose corpora the user imports and edits: the same roles that read their secrets."""
    return organizations_where(user, SECRET_READER_ROLES)


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
