"""The submissions' refusals, each with the form field at fault when there is one."""

from common import errors
from common.errors import ApplicationError, ErrorKind


class SubmissionError(ApplicationError):
    """A refused action, with the form field at fault when there is one."""


class NotAllowed(SubmissionError, errors.NotAllowed):
    """The actor lacks the permission the action needs (views answer 404)."""


class TransitionRefused(SubmissionError):
    """A move the workflow does not allow from the current state, or whose condition is not met."""

    default_kind = ErrorKind.CONFLICT
