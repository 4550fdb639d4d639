"""The review app's refusals: the one error type with the app's name on it."""

from common import errors
from common.errors import ApplicationError


class ReviewError(ApplicationError):
    """A refused review action; `field` names the form field at fault when there is one."""


class SettingsRefused(ReviewError):
    """A campaign's settings refused on several fields at once: `problems` holds each (field, message), in the
    form's order; the error's own message and field are the first's."""

    def __init__(self, problems: list[tuple[str | None, str]]) -> None:
        super().__init__(problems[0][1], problems[0][0])
        self.problems = problems


class NothingToWithdraw(ReviewError, errors.Conflict):
    """The speaker has no ratings left to withdraw (a second tap found them withdrawn already)."""


class NotAllowed(ReviewError, errors.NotAllowed):
    """The actor lacks the permission the action needs (views answer 403/404)."""
