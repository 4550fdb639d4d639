"""The ownership transfer of an approved method (SPEC §5), against the terms version its developer accepted: only
when its run card is eligible (`review.selectors.decisions.transfer_eligible`) and its A2 rights holders consented."""

from django.db import transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.models import User
from leaderboard.verification import DEPLOYABLE_THRESHOLD
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require
from review.selectors import transfer_eligible

from ..models import DEVELOPER_KEEPS, GOVERNANCE_GETS, MethodSubmission, OwnershipTransfer
from .dependencies import refuse_without_rights_permissions
from .errors import NotAllowed, SubmissionError
from .states import State, record_change, refuse


def refuse_untransferable(submission: MethodSubmission) -> None:
    """Only an approved submission whose run card is eligible (SPEC §5) is transferred."""
    if submission.state != State.APPROVED:
        raise refuse(submission, State.OWNERSHIP_TRANSFERRED, _("Only an approved submission is transferred."))
    refuse_without_rights_permissions(submission, State.OWNERSHIP_TRANSFERRED)
    assert submission.run_card is not None  # an approved submission keeps its run card (a DB constraint)
    if not transfer_eligible(submission.run_card):
        raise refuse(submission, State.OWNERSHIP_TRANSFERRED,
                     _("Its run card is not eligible: a transfer needs a gold_standard card with an approval in force "
                       "at the review gate, and composite ≥ %(threshold)s for a legacy-composite card.")
                     % {"threshold": number_format(DEPLOYABLE_THRESHOLD, 2)})


def check_transfer(submission: MethodSubmission, developer_keeps: list[str], governance_gets: list[str]) -> None:
    """Refuse a transfer that could not be recorded now (proposal and execution of a transfer decision)."""
    refuse_untransferable(submission)
    if not [item for item in developer_keeps if item.strip()]:
        raise SubmissionError(_("List what the developer keeps (SPEC §5: attribution, publication, other pairs)."),
                              "developer_keeps")
    if not [item for item in governance_gets if item.strip()]:
        raise SubmissionError(_("List what the governance organization gets (SPEC §5)."), "governance_gets")


@transaction.atomic
def record_ownership_transfer(*, actor: User, submission: MethodSubmission, developer_keeps: list[str] | None = None,
                              governance_gets: list[str] | None = None, notes: str = "") -> OwnershipTransfer:
    """Record the transfer of an approved, eligible method (SPEC §5) against the terms version its
    developer accepted, and move the submission to ownership_transferred."""
    submission = (MethodSubmission.objects.select_for_update(of=("self",))
                  .select_related("organization", "run_card", "terms_acceptance__terms").get(pk=submission.pk))
    require(actor, "organization.govern", submission.organization, error=NotAllowed)
    refuse_untransferable(submission)
    assert submission.run_card is not None  # an approved submission keeps its run card (a DB constraint)
    keeps = [item.strip() for item in (DEVELOPER_KEEPS if developer_keeps is None else developer_keeps) if item.strip()]
    gets = [item.strip() for item in (GOVERNANCE_GETS if governance_gets is None else governance_gets) if item.strip()]
    if not keeps:
        raise SubmissionError(_("List what the developer keeps (SPEC §5: attribution, publication, other pairs)."),
                              "developer_keeps")
    if not gets:
        raise SubmissionError(_("List what the governance organization gets (SPEC §5)."), "governance_gets")
    terms = submission.terms_acceptance.terms
    transfer = OwnershipTransfer.objects.create(
        submission=submission, method_id=submission.method_id, method_name=submission.method_name,
        organization=submission.organization, terms=terms, run_card=submission.run_card,
        developer_keeps=keeps, governance_gets=gets, notes=notes.strip(), recorded_by=actor,
    )
    from_state = submission.state
    submission.state = State.OWNERSHIP_TRANSFERRED
    submission.updated_at = timezone.now()
    submission.save(update_fields=["state", "updated_at"])
    record_change(submission, actor, from_state, State.OWNERSHIP_TRANSFERRED, "", transfer=str(transfer.public_id))
    record_event(AuditAction.OWNERSHIP_TRANSFERRED,
                 actor=actor, organization=submission.organization, obj=transfer, details={
        "submission": str(submission.public_id), "method_id": submission.method_id,
        "terms_version": terms.version, "run_id": str(submission.run_card.run_id),
        "developer_keeps": keeps, "governance_gets": gets,
    })
    return transfer
