"""Which run cards are listed, and which of them rankings are made of: visibility, consent to evaluation, class X
methods and disqualifications, each decided once here for the page, the API and the harness's install read."""

from django.db.models import BooleanField, Case, CharField, ExpressionWrapper, F, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce, NullIf

from corpus.language_pairs import version_pair_key
from corpus.models import ConsentUse, DatasetVersion
from corpus.selectors import consent_filter, visible_datasets
from organizations.selectors import governance_org_ids

from ..models import Disqualification, Method, RunCard


def evaluation_consented(user, dataset_path: str = "dataset_version__dataset") -> Q:
    """Cards (rows reaching their dataset through `dataset_path`) of datasets whose community consents to
    evaluation; the steward's governance staff also see their withdrawn ones (marked `withdrawn`), to manage them.
    Nothing is deleted either way."""
    consented = consent_filter(ConsentUse.EVALUATION, dataset_path)
    governed = governance_org_ids(user)
    if governed:
        consented |= Q(**{f"{dataset_path}__organization_id__in": governed})
    return consented


def unverified_last() -> Case:
    """1 for a card published without its per-entry rows, 0 for a verified one: ordered by it first, a claim
    nothing could recompute never comes before a verified score (the leaderboard, the harness's install read)."""
    return Case(When(status=RunCard.Status.UNVERIFIED, then=Value(1)), default=Value(0), output_field=IntegerField())


# Ready cards, and cards published without their per-entry rows (shown with their own scores, marked).
LISTED_STATUSES = (RunCard.Status.READY, RunCard.Status.UNVERIFIED)


def listed_cards(user) -> QuerySet[RunCard]:
    """Verified-and-processed cards of datasets the user may see and whose community consents to
    evaluation (governance staff: their own withdrawn ones too); class X methods are never listed."""
    # Visibility, consent and class X are decided over the few versions and methods, in subqueries PostgreSQL runs
    # once: checked card by card, they cost more than the ranking itself at 10,000 cards.
    versions = DatasetVersion.objects.filter(dataset__in=visible_datasets(user)).filter(
        evaluation_consented(user, "dataset")).values("pk")
    return marked_withdrawn(user, RunCard.objects.filter(status__in=LISTED_STATUSES, dataset_version_id__in=versions)
                            .exclude(method_id__in=Method.objects.filter(dependency_class="X").values("pk")))


def marked_withdrawn(user, cards: QuerySet[RunCard]) -> QuerySet[RunCard]:
    """`cards` each marked `evaluation_withdrawn` when its community revoked consent to evaluation, for governance
    staff, the only ones listed such cards (`evaluation_consented`)."""
    if governance_org_ids(user):
        cards = cards.annotate(evaluation_withdrawn=ExpressionWrapper(
            ~consent_filter(ConsentUse.EVALUATION, "dataset_version__dataset"), output_field=BooleanField()))
    return cards


def versions_of_pair(key: str) -> list[int]:
    """Versions whose language pair reads as `key`, however each was written (`EN→CRK`, `eng>crk`, its source and
    target languages): the spellings differ, so the comparison is made here, over the versions' three columns."""
    return [pk for pk, pair, source, target in DatasetVersion.objects.values_list(
        "pk", "language_pair", "source_language", "target_language") if version_pair_key(pair, source, target) == key]


def setup_key():
    """The leaderboard's grouping key: the fingerprint verification chose (`setup_fingerprint`), or, for a card
    verified before it was stored, the public v1 fingerprint."""
    return Coalesce(NullIf(F("setup_fingerprint"), Value("")), F("fingerprint"), output_field=CharField())


def disqualified() -> ExpressionWrapper:
    """A card disqualified itself, or through its method (benchmark specification §9.2), and not lifted since. Two
    uncorrelated subqueries (the disqualifications in force are few), never a check per card."""
    active = Disqualification.objects.filter(lifted_at__isnull=True)
    return ExpressionWrapper(Q(pk__in=active.filter(run_card_id__isnull=False).values("run_card_id"))
                             # A method-less card is not disqualified: false, never NULL (negated, NULL drops it).
                             | Q(method_id__isnull=False,
                                 method_id__in=active.filter(method_id__isnull=False).values("method_id")),
                             output_field=BooleanField())


def ranked_cards(user) -> QuerySet[RunCard]:
    """The cards rankings are made of: the listed ones that are not disqualified (those stay reachable at their
    pages, marked, and in the install read as `trust = disqualified`)."""
    return listed_cards(user).exclude(disqualified())
