"""The ledger's refusals: the one error type with the app's name on it."""

from common import errors
from common.errors import ApplicationError


class LedgerError(ApplicationError):
    """A refused pay or credit action; `field` names the form field at fault when there is one."""


class NotAllowed(LedgerError, errors.NotAllowed):
    """The actor lacks the permission the action needs (views answer 403/404)."""
