"""A submission's moves as the workflow words and records them (SPEC §5, §6): the refusal of a move that
TRANSITIONS (submissions.models) does not allow, and each move, in the submission's history (`SubmissionEvent`) and
the audit log (`submission.state_changed`)."""

from django.utils.translation import gettext as _

from organizations.audit import record_event
from organizations.models import AuditAction

from ..models import TRANSITIONS, MethodSubmission, SubmissionEvent, SubmissionState
from .errors import TransitionRefused

State = SubmissionState


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
