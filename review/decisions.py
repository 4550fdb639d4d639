"""Review's kind of decision (docs/governance.md): approving a run card at the validation gate against the gate's
recommendation is taken by k of the steward's governance staff. A decision that follows the recommendation (or
rejects, or revokes) is recorded at once as before. Registered with governance from `ReviewConfig.ready`."""

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from accounts.models import User
from common.errors import ApplicationError, ErrorKind
from common.sentences import Sentence
from governance import kinds
from governance import services as governance
from leaderboard.selectors import conflicts_of
from organizations.models import Organization

from .gate import evaluate_gate
from .models import Campaign
from .selectors.decisions import gate_policy_for
from .selectors.figures import campaign_aggregate
from .services.decisions import MIN_OVERRIDE_RATIONALE, record_decision
from .services.errors import ReviewError

GATE_OVERRIDE = "review.gate_override"


def _campaign(organization: Organization, payload: dict) -> Campaign:
    found = Campaign.objects.select_related("run_card").filter(
        organization=organization, public_id=payload.get("campaign")).first()
    if found is None:
        raise ApplicationError(_("No review campaign of %(organization)s matches.") % {
            "organization": organization.name}, "campaign", kind=ErrorKind.NOT_FOUND)
    return found


def _check(organization: Organization, payload: dict) -> None:
    campaign = _campaign(organization, payload)
    if campaign.status == Campaign.Status.PREPARING:
        raise ReviewError(_("The campaign is still being prepared."))
    if len((payload.get("rationale") or "").strip()) < MIN_OVERRIDE_RATIONALE:
        raise ReviewError(_("Approving against the recommendation: say in the rationale why the community approves "
                            "(at least %(count)d characters).") % {"count": MIN_OVERRIDE_RATIONALE}, "rationale")


def _conflicts(organization: Organization, payload: dict) -> dict[int, str]:
    campaign = Campaign.objects.select_related("run_card").filter(public_id=payload.get("campaign")).first()
    return conflicts_of(campaign.run_card) if campaign is not None else {}


def _execute(decision, actor: User) -> Sentence:
    campaign = _campaign(decision.organization, decision.payload)
    record_decision(actor=actor, campaign=campaign, outcome="approve", rationale=decision.payload["rationale"],
                    against_recommendation=True)
    return Sentence(gettext_noop("The approval against the gate's recommendation is recorded."))


GATE_OVERRIDE_KIND = kinds.DecisionKind(
    name=GATE_OVERRIDE, label=gettext_lazy("Approve at the review gate against its recommendation"),
    execute=_execute, check=_check, conflicts=_conflicts,
    url=lambda payload: reverse("review:decision", args=[payload["campaign"]]),
    editable=("rationale",), field_labels={"rationale": gettext_lazy("Rationale")},
    checks=(("evidence", gettext_lazy("I read the evidence: figures, flagged items, speakers")),
            ("recommendation", gettext_lazy("I read why the gate does not recommend a pass"))),
    min_open_hours=48, expires_after_days=14)


def register() -> None:
    kinds.register(GATE_OVERRIDE_KIND)


def record_or_propose(*, actor: User, campaign: Campaign, outcome: str, rationale: str,
                      against_recommendation: bool = False):
    """Approving against the gate's recommendation (confirmed) is a decision of k governance staff (k = 1: at once,
    as before); every other decision is recorded at once. Returns the governance decision, or None."""
    if outcome == "approve" and against_recommendation:
        result = evaluate_gate(campaign_aggregate(campaign), gate_policy_for(campaign.organization))
        if result.outcome != "pass":
            return governance.propose(
                actor=actor, organization=campaign.organization, kind=GATE_OVERRIDE,
                subject=f"campaign:{campaign.public_id}",
                summary=Sentence(gettext_noop("Approve %(campaign)s against the gate's recommendation"),
                                 {"campaign": campaign.title}),
                payload={"campaign": str(campaign.public_id), "run_id": str(campaign.run_card.run_id),
                         "recommendation": result.outcome, "rationale": rationale.strip()})
    record_decision(actor=actor, campaign=campaign, outcome=outcome, rationale=rationale,
                    against_recommendation=against_recommendation)
    return None
