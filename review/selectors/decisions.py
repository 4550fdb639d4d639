"""The gate's policy, decisions taken and in force, and the review a run card's scores call for."""

from dataclasses import asdict, dataclass

from django.db.models import (
    QuerySet,
    Sum,
)
from django.utils.translation import gettext as _

from leaderboard.models import RunCard
from leaderboard.selectors import bands_of, conflicts_of
from organizations.models import Organization

from ..aggregation import CampaignAggregate
from ..gate import GatePolicy as GateThresholds
from ..gate import GateResult
from ..models import (
    Campaign,
    Decision,
    GatePolicy,
    RatingWithdrawal,
    SpeakerExclusion,
)
from .campaigns import LARGE_CARD_FIELDS
from .figures import campaign_aggregate


def decision_conflict(user, campaign: Campaign) -> str | None:
    """Why `user` may not record the campaign's decision (a conflict of interest with its run card), or None."""
    return conflicts_of(campaign.run_card).get(user.pk)


def excluded_speakers(campaign: Campaign) -> list[SpeakerExclusion]:
    """The exclusions in force (governance staff left these speakers' ratings out, with a reason)."""
    return list(SpeakerExclusion.objects.filter(campaign=campaign, included_at__isnull=True)
                .select_related("speaker", "excluded_by").order_by("excluded_at", "pk"))


def gate_policy_for(organization: Organization) -> GateThresholds:
    """The organization's thresholds, or the documented defaults when it never changed them."""
    stored = stored_gate_policy(organization)
    if stored is None:
        return GateThresholds()
    return GateThresholds(
        require_complete_coverage=stored.require_complete_coverage,
        min_usable_lower_bound=stored.min_usable_lower_bound,
        min_tier_usable_share=stored.min_tier_usable_share,
        max_reject_share=stored.max_reject_share,
        min_alpha=stored.min_alpha,
        min_ac1=stored.min_ac1,
        min_rated_items=stored.min_rated_items,
        min_distinct_speakers=stored.min_distinct_speakers,
    )


def gate_snapshot(result: GateResult) -> dict:
    """The recommendation as kept with a decision: outcome, summary and every check."""
    return {"outcome": result.outcome, "summary": result.summary,
            "checks": [asdict(check) for check in result.reasons]}


def decision_in_force(campaign: Campaign) -> Decision | None:
    return campaign.decisions.select_related("decided_by").first()


def decisions_of(campaign: Campaign) -> QuerySet[Decision]:
    return campaign.decisions.select_related("decided_by")


def latest_decision(run_card: RunCard) -> Decision | None:
    """The decision in force for a run card: the latest over all its campaigns (one query)."""
    return Decision.objects.filter(campaign__run_card=run_card).order_by("-decided_at", "-pk").first()


def decision_notice(decision_pk: int) -> tuple[Decision, CampaignAggregate] | None:
    """What the card's submitter is told of a decision: the decision with its card, and the campaign's
    aggregates (never an item). None when the card has no submitter with an address to write to."""
    decision = (Decision.objects.select_related("campaign__organization", "campaign__run_card__submitted_by",
                                                "campaign__run_card__method",
                                                "campaign__run_card__dataset_version__dataset")
                .defer(*(f"campaign__{name}" for name in LARGE_CARD_FIELDS)).get(pk=decision_pk))
    developer = decision.campaign.run_card.submitted_by
    if developer is None or not developer.email or not developer.is_active:
        return None
    return decision, campaign_aggregate(decision.campaign)


STANDARD_1 = "standard/1"


@dataclass(frozen=True)
class ReviewTrigger:
    """Whether a card is ready for community review without a written reason, and if not, why."""

    met: bool
    message: str = ""


def stored_gate_policy(organization: Organization) -> GatePolicy | None:
    return GatePolicy.objects.filter(organization=organization).first()


def deployable_composite(run_card: RunCard) -> float:
    """Where the Deployable tier starts for the card's language pair: its steward's bands, DEFAULT_TIER_BANDS by default
    (SPEC §5; leaderboard.selectors.bands_of)."""
    return bands_of(run_card.dataset_version)["deployable"]


def shown_composite(run_card: RunCard) -> float | None:
    """The composite the leaderboard shows: recomputed where the claim is not what the card's predictions give."""
    return run_card.leaderboard_composite if run_card.leaderboard_composite is not None else run_card.composite


def shown_chrf(run_card: RunCard) -> float | None:
    return (run_card.leaderboard_chrf_plus_plus if run_card.leaderboard_chrf_plus_plus is not None
            else run_card.chrf_plus_plus)


def review_trigger(run_card: RunCard, policy: GatePolicy | None) -> ReviewTrigger:
    """Legacy-composite cards are ready for review from the Deployable composite (the start of the Deployable band of
    their pair, DEFAULT_TIER_BANDS by default; SPEC §5). standard/1 cards have no composite: they are ready from the
    corpus chrF++ the organization chose (`policy`), and need a written reason while it chose none. Both read the
    scores the leaderboard shows, never a claim the card's predictions do not give."""
    if run_card.scoring_standard == STANDARD_1:
        chrf_value = shown_chrf(run_card)
        chrf = "—" if chrf_value is None else f"{chrf_value:.1f}"
        trigger = None if policy is None else policy.standard1_min_chrf
        if trigger is None:
            return ReviewTrigger(False, _(
                "This standard/1 card has corpus chrF++ %(chrf)s, and your organization has set no chrF++ from which "
                "such cards are ready for review: write why it should be reviewed, or set the trigger on the gate "
                "thresholds page.") % {"chrf": chrf})
        if chrf_value is not None and chrf_value >= trigger:
            return ReviewTrigger(True)
        return ReviewTrigger(False, _(
            "This standard/1 card has corpus chrF++ %(chrf)s, under your organization's trigger of %(trigger)s: "
            "write why it should be reviewed anyway.") % {"chrf": chrf, "trigger": f"{trigger:.1f}"})
    composite, deployable = shown_composite(run_card), deployable_composite(run_card)
    if composite is not None and composite >= deployable:
        return ReviewTrigger(True)
    threshold = f"{deployable:.2f}"
    if composite is None:
        return ReviewTrigger(False, _("This run card has no composite, under the Deployable threshold of "
                                      "%(threshold)s: write why it should be reviewed anyway.")
                             % {"threshold": threshold})
    return ReviewTrigger(False, _("This run card has composite %(composite)s, under the Deployable threshold of "
                                  "%(threshold)s: write why it should be reviewed anyway.")
                         % {"composite": f"{composite:.2f}", "threshold": threshold})


def transfer_eligible(run_card: RunCard) -> bool:
    """SPEC §5: on gold_standard and approved at the review gate (decision in force); a legacy-composite card also
    needs a Deployable composite (its pair's band). A standard/1 card has no composite: the community's approval
    decides."""
    if run_card.segment != "gold_standard":
        return False
    composite = shown_composite(run_card)
    if run_card.scoring_standard != STANDARD_1 and (composite is None or composite < deployable_composite(run_card)):
        return False
    latest = latest_decision(run_card)
    return latest is not None and latest.outcome == Decision.Outcome.APPROVE


def ratings_withdrawn_since(decision: Decision) -> int:
    """Ratings the decision was taken on that their speakers withdrew after it (one aggregate)."""
    return RatingWithdrawal.objects.filter(campaign_id=decision.campaign_id, withdrawn_at__gt=decision.decided_at
                                           ).aggregate(n=Sum("counted"))["n"] or 0
