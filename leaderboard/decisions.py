"""The leaderboard's kind of decision (docs/governance.md): disqualifying a run card on the community's data is
taken by k of its steward's governance staff (maintainers, who act for the whole site, still disqualify at once).
Registered with governance from `LeaderboardConfig.ready`."""

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from accounts.models import User
from common.errors import ApplicationError, ErrorKind
from common.sentences import Sentence
from governance import kinds
from governance import services as governance
from organizations.models import Organization
from organizations.permissions import permitted

from . import services
from .models import Disqualification, RunCard
from .selectors import conflicts_of

DISQUALIFY = "leaderboard.disqualify"


def _card(organization: Organization, payload: dict) -> RunCard:
    found = RunCard.objects.select_related("dataset_version__dataset").filter(
        public_id=payload.get("run_card"), dataset_version__dataset__organization=organization).first()
    if found is None:
        raise ApplicationError(_("No run card on %(organization)s's data matches.") % {
            "organization": organization.name}, "run_card", kind=ErrorKind.NOT_FOUND)
    return found


def _check(organization: Organization, payload: dict) -> None:
    card = _card(organization, payload)
    services.written_reason(payload.get("reason"))
    if Disqualification.objects.filter(run_card=card, lifted_at__isnull=True).exists():
        raise services.LeaderboardError(_("It is already disqualified."), "target", kind=ErrorKind.CONFLICT)


def _conflicts(organization: Organization, payload: dict) -> dict[int, str]:
    card = RunCard.objects.filter(public_id=payload.get("run_card")).first()
    return conflicts_of(card) if card is not None else {}


def _execute(decision, actor: User) -> Sentence:
    card = _card(decision.organization, decision.payload)
    services.disqualify(actor=actor, run_card=card, reason=decision.payload["reason"])
    return Sentence(gettext_noop("The run card is disqualified: it left every ranking."))


DISQUALIFY_KIND = kinds.DecisionKind(
    name=DISQUALIFY, label=gettext_lazy("Disqualify a run card"),
    execute=_execute, check=_check, conflicts=_conflicts,
    url=lambda payload: reverse("leaderboard:card", args=[payload["run_card"]]),
    editable=("reason",), field_labels={"reason": gettext_lazy("Reason (public)")},
    checks=(("evidence", gettext_lazy("I read the evidence behind the reason")),
            ("card", gettext_lazy("I read the run card and its outputs"))),
    min_open_hours=24, expires_after_days=14)


def register() -> None:
    kinds.register(DISQUALIFY_KIND)


def propose_disqualification(*, actor: User, run_card: RunCard, reason: str):
    """Disqualify a card on the community's data: at once where k = 1 (as before), otherwise a decision."""
    reason = services.written_reason(reason)
    return governance.propose(
        actor=actor, organization=run_card.dataset_version.dataset.organization, kind=DISQUALIFY,
        subject=f"run_card:{run_card.public_id}",
        summary=Sentence(gettext_noop("Disqualify the run card of %(model)s"),
                         {"model": run_card.model_slug or str(run_card.run_id)}),
        payload={"run_card": str(run_card.public_id), "run_id": str(run_card.run_id), "reason": reason})


def disqualify_or_propose(*, actor: User, run_card: RunCard, reason: str):
    """Governance staff of the card's steward disqualify by a decision (k of them; k = 1 at once, as before); a
    maintainer who is not one of them acts at once for the site. Returns the decision, or None for the latter."""
    organization = run_card.dataset_version.dataset.organization
    if permitted(actor, "organization.govern", organization):
        return propose_disqualification(actor=actor, run_card=run_card, reason=reason)
    services.disqualify(actor=actor, run_card=run_card, reason=reason)
    return None
