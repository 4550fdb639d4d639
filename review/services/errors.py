"""The review app's refusals: the one error type with the app's name on it."""

from common import errors
from common.errors import ApplicationError


class ReviewError(ApplicationError):
    """A refused review action; `field` names the form field at fault when there is one."""


class NothingToWithdraw(ReviewError, errors.Conflict):
    """The speaker has no ratings left to withdraw (a second tap found them withdrawn already)."""


class NotAllowed(ReviewError, errors.NotAllowed):
    """The actor lacks the permission the action needs (views answer 403/404)."""
