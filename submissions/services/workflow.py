"""Moving a submission through the workflow (governance staff only): each move's condition. The moves that depend on
the review app mirror it rather than decide: approval and rejection after community review follow the decision in
force (docs/submissions.md)."""

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from leaderboard.models import RunCard
from organizations.permissions import require
from review.models import Campaign, Decision
from review.selectors import decision_in_force

from ..models import TRANSITIONS, MethodSubmission
from .dependencies import missing_sign_offs, refuse_without_rights_permissions
from .errors import NotAllowed, SubmissionError
from .states import REVIEWED_STATES, State, record_change, refuse


def latest_campaign(run_card: RunCard):
    """The card's most recently opened review campaign, whose decision the submission mirrors."""
    return run_card.campaigns.order_by("-opened_at", "-pk").first()


def _check_run_card(submission: MethodSubmission, run_card: RunCard | None) -> None:
    if run_card is None:
        raise SubmissionError(_("Choose the gold_standard run card the sandbox produced."), "run_card")
    if run_card.status != RunCard.Status.READY:
        raise SubmissionError(_("That run card is not verified yet (or failed verification)."), "run_card")
    if run_card.segment != "gold_standard":
        raise SubmissionError(_("That run card scores the %(segment)s segment; a submission is evaluated on "
                                "gold_standard.") % {"segment": run_card.segment}, "run_card")
    if run_card.dataset_version.dataset.organization_id != submission.organization_id:
        raise SubmissionError(_("That run card scores a dataset %(organization)s does not steward.") % {
            "organization": submission.organization.name}, "run_card")
    if run_card.method is not None and run_card.method.method_id != submission.method_id:
        raise SubmissionError(_('That run card is of method "%(card_method)s", not "%(method)s".') % {
            "card_method": run_card.method.method_id, "method": submission.method_id}, "run_card")
    if MethodSubmission.objects.filter(run_card=run_card).exclude(pk=submission.pk).exists():
        raise SubmissionError(_("That run card is already attached to another submission."), "run_card")
    if submission.derived_class == "A1" and not hasattr(run_card, "a1_run_approval"):
        raise SubmissionError(_("That run card scores secret entries without an A1 run approval: a class A1 method's "
                                "run on secret sources needs its own approval, given before the run."), "run_card")


def _check_condition(submission: MethodSubmission, to_state: str, run_card: RunCard | None, note: str) -> None:
    """The condition each move needs; raises TransitionRefused (or SubmissionError for a bad field)."""
    if to_state == State.MANIFEST_AUDITED:
        missing = missing_sign_offs(submission)
        if missing:
            raise refuse(submission, to_state, _("Every declared dependency needs a reviewer's sign-off (licence and "
                                                 "source checked) on the current manifest; missing: %(missing)s.")
                         % {"missing": ", ".join(missing)})
    elif to_state == State.AWAITING_SANDBOX:
        refuse_without_rights_permissions(submission, to_state)
    elif to_state == State.EVALUATED:
        _check_run_card(submission, run_card)
    elif to_state == State.IN_REVIEW:
        if not Campaign.objects.filter(run_card=submission.run_card).exists():
            raise refuse(submission, to_state, _("Open a review campaign on its run card first."))
    elif to_state == State.APPROVED or (to_state == State.REJECTED and submission.state in REVIEWED_STATES):
        assert submission.run_card is not None  # in review and approved keep their run card (a DB constraint)
        campaign = latest_campaign(submission.run_card)
        decision = decision_in_force(campaign) if campaign is not None else None
        in_force = decision.outcome if decision is not None else None
        wanted = (Decision.Outcome.APPROVE,) if to_state == State.APPROVED else (Decision.Outcome.REJECT,
                                                                                 Decision.Outcome.REVOKE)
        if in_force not in wanted:
            reason = _("It mirrors the community review, and the decision in force is “%(outcome)s”.") % {
                "outcome": decision.get_outcome_display()} if decision else _(
                "It mirrors the community review, and the review campaign has no decision yet.")
            raise refuse(submission, to_state, reason)
    elif to_state == State.REJECTED and not note.strip():
        raise SubmissionError(_("Write why the submission is rejected; the submitter reads it."), "note")


def check_approval(submission: MethodSubmission) -> None:
    """Refuse an approval that could not happen now: the state must allow it and the review decision in force must
    approve (what a decision to approve checks when it is proposed, and again when it executes)."""
    if State.APPROVED not in TRANSITIONS.get(submission.state, ()):
        raise refuse(submission, State.APPROVED)
    _check_condition(submission, State.APPROVED, None, "")


@transaction.atomic
def advance_submission(*, actor: User, submission: MethodSubmission, to_state: str, run_card: RunCard | None = None,
                       note: str = "") -> MethodSubmission:
    """Move a submission to `to_state` (governance staff of its organization only), checking the
    workflow table and the move's condition; the change is recorded and audited."""
    submission = (MethodSubmission.objects.select_for_update(of=("self",)).select_related("organization", "run_card")
                  .get(pk=submission.pk))
    require(actor, "organization.govern", submission.organization, error=NotAllowed)
    if to_state == State.OWNERSHIP_TRANSFERRED:
        raise refuse(submission, to_state,
                     _("Record the ownership transfer instead (it lists what each side keeps)."))
    if to_state not in TRANSITIONS.get(submission.state, ()):
        raise refuse(submission, to_state)
    _check_condition(submission, to_state, run_card, note)
    details = {}
    from_state = submission.state
    submission.state = to_state
    submission.updated_at = timezone.now()
    fields = ["state", "updated_at"]
    if to_state == State.EVALUATED:
        assert run_card is not None  # _check_run_card refused a missing one
        submission.run_card = run_card
        fields.append("run_card")
        details = {"run_id": str(run_card.run_id)}
    try:
        submission.save(update_fields=fields)
    except IntegrityError as error:  # a concurrent attach of the same run card
        raise SubmissionError(_("That run card is already attached to another submission."),
                              "run_card") from error
    record_change(submission, actor, from_state, to_state, note.strip(), **details)
    return submission
