"""Which campaigns are serving speakers, and which ones governance staff see."""

from django.db.models import (
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)

from corpus.models import ConsentUse
from corpus.selectors import consent_filter, has_consent
from organizations.selectors import governance_org_ids

from ..models import (
    Campaign,
    Rating,
)

DATASET_PATH = "run_card__dataset_version__dataset"
# A run card's raw text (megabytes for a large card) and method_config: never needed by review pages.
LARGE_CARD_FIELDS = ("run_card__raw", "run_card__method_config")


def serving_filter() -> Q:
    """Campaigns whose items are served to speakers now: open, and human review still consented."""
    return Q(status=Campaign.Status.OPEN) & consent_filter(ConsentUse.HUMAN_REVIEW, DATASET_PATH)


def consent_withdrawn(campaign: Campaign) -> bool:
    return not has_consent(campaign.run_card.dataset_version.dataset, ConsentUse.HUMAN_REVIEW)


def is_serving(campaign: Campaign) -> bool:
    return Campaign.objects.filter(serving_filter(), pk=campaign.pk).exists()


# Governance staff.

def governed_campaigns(user) -> QuerySet[Campaign]:
    return (Campaign.objects.filter(organization_id__in=governance_org_ids(user))
            .select_related("organization", "run_card__dataset_version__dataset", "run_card__method")
            .defer(*LARGE_CARD_FIELDS))


def with_last_rating(campaigns: QuerySet[Campaign]) -> QuerySet[Campaign]:
    """Each campaign with `last_rated_at`, the time of its newest rating (figures_stale), in the same query."""
    newest = Rating.objects.filter(assignment__campaign=OuterRef("pk")).order_by("-created_at").values("created_at")
    return campaigns.annotate(last_rated_at=Subquery(newest[:1]))


def figures_stale(campaign: Campaign) -> bool:
    """No figures were stored since the sample was drawn, or ratings arrived after they were (`last_rated_at`, from
    with_last_rating)."""
    if campaign.status == Campaign.Status.PREPARING:
        return False
    if campaign.summary_at is None:
        return True
    rated_at = getattr(campaign, "last_rated_at", None)
    return rated_at is not None and rated_at > campaign.summary_at


def governed_campaign(user, public_id) -> Campaign | None:
    """A campaign for its organization's governance staff; None (404) for everybody else."""
    return governed_campaigns(user).filter(public_id=public_id).first()
