"""The workflow's table (SPEC §5, §6): which moves exist, how a refused move is worded, and how a move is
recorded, in the submission's history (`SubmissionEvent`) and the audit log (`submission.state_changed`)."""

from django.utils.translation import gettext as _

from organizations.audit import record_event
from organizations.models import AuditAction

from ..models import MethodSubmission, SubmissionEvent, SubmissionState
from .errors import TransitionRefused

State = SubmissionState


# Who may move a submission where. The move to manifest_audited is governance staff's once a reviewer signed off
# every dependency the manifest declares (`submit_method` makes it at once for a manifest that declares none);
# every other move is governance staff's too. Rejection is possible at every step before approval: before
# community review with a written reason (governance declines to evaluate), from review on only when the decision
# in force rejects (or revokes the approval). Rejected and ownership_transferred are terminal: a corrected method
# is a new submission.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    State.SUBMITTED: (State.MANIFEST_AUDITED, State.REJECTED),
    State.MANIFEST_AUDITED: (State.AWAITING_SANDBOX, State.REJECTED),
    State.AWAITING_SANDBOX: (State.EVALUATED, State.REJECTED),
    State.EVALUATED: (State.IN_REVIEW, State.REJECTED),
    State.IN_REVIEW: (State.APPROVED, State.REJECTED),
    State.APPROVED: (State.OWNERSHIP_TRANSFERRED, State.REJECTED),
    State.REJECTED: (),
    State.OWNERSHIP_TRANSFERRED: (),
}


# States from which a rejection mirrors the review decision instead of needing a reason of its own.
REVIEWED_STATES = (State.IN_REVIEW, State.APPROVED)


def state_label(state: str) -> str:
    return str(State(state).label) if state in State.values else state


def record_change(submission: MethodSubmission, actor, from_state: str, to_state: str, note: str,
                  **details) -> SubmissionEvent:
    """A move, in the submission's history and the audit log; the caller saves the new state."""
    event = SubmissionEvent.objects.create(submission=submission, from_state=from_state, to_state=to_state,
                                           actor=actor, note=note)
    record_event(AuditAction.SUBMISSION_STATE_CHANGED,
                 actor=actor, organization=submission.organization, obj=submission,
                 details={"submission": str(submission.public_id), "method_id": submission.method_id,
                          "from": from_state, "to": to_state, **({"note": note} if note else {}), **details})
    return event


def refuse(submission: MethodSubmission, to_state: str, reason: str = "") -> TransitionRefused:
    allowed = ", ".join(state_label(state) for state in TRANSITIONS.get(submission.state, ())) or _(
        "none (final state)")
    values = {"state": state_label(submission.state), "to_state": state_label(to_state), "reason": reason,
              "allowed": allowed}
    if reason:
        message = _('A submission in state "%(state)s" cannot move to "%(to_state)s". %(reason)s Allowed next: '
                    '%(allowed)s.') % values
    else:
        message = _('A submission in state "%(state)s" cannot move to "%(to_state)s". Allowed next: '
                    '%(allowed)s.') % values
    return TransitionRefused(message, "to_state")
