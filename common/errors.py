"""The one error type of the application layer. A service that refuses raises an `ApplicationError` (or one of
its app's subclasses): a message written for the person who asked, the form field at fault when there is one, and
a `kind` saying what sort of refusal it is. Services never name an HTTP status: the web layer maps the kind to one
(`http_status`), the API layer through `common.api.exception_handler`."""

from enum import StrEnum
from http import HTTPStatus
from typing import ClassVar


class ErrorKind(StrEnum):
    INVALID = "invalid"  # the input is wrong; the message (and field) say what was expected
    NOT_ALLOWED = "not_allowed"  # the actor lacks the permission the action needs
    NOT_FOUND = "not_found"  # nothing the actor may see matches
    CONFLICT = "conflict"  # the input is fine, the current state refuses it (already stored, frozen, closed)
    GONE = "gone"  # the community withdrew its consent; nothing was deleted
    TOO_LARGE = "too_large"  # over a size limit; nothing was read or stored
    THROTTLED = "throttled"  # the actor used up an allowance; the message says until when
    UNAUTHENTICATED = "unauthenticated"  # the request presents no valid sign-in, key or token


HTTP_STATUS = {
    ErrorKind.INVALID: HTTPStatus.BAD_REQUEST,
    ErrorKind.NOT_ALLOWED: HTTPStatus.FORBIDDEN,
    ErrorKind.NOT_FOUND: HTTPStatus.NOT_FOUND,
    ErrorKind.CONFLICT: HTTPStatus.CONFLICT,
    ErrorKind.GONE: HTTPStatus.GONE,
    ErrorKind.TOO_LARGE: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    ErrorKind.THROTTLED: HTTPStatus.TOO_MANY_REQUESTS,
    ErrorKind.UNAUTHENTICATED: HTTPStatus.UNAUTHORIZED,
}


class ApplicationError(Exception):
    """A refused action. `kind` is the class's unless given; `field` names the input at fault, if any."""

    default_kind: ClassVar[ErrorKind] = ErrorKind.INVALID

    def __init__(self, message: str, field: str | None = None, *, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.kind = kind or self.default_kind

    @property
    def http_status(self) -> int:
        return int(HTTP_STATUS[self.kind])


class NotAllowed(ApplicationError):
    """The actor lacks the permission the action needs (`organizations.permissions` says which and why)."""

    default_kind = ErrorKind.NOT_ALLOWED


class Conflict(ApplicationError):
    default_kind = ErrorKind.CONFLICT
