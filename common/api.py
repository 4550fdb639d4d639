"""The API layer's half of the one error type: an `ApplicationError` that no view caught becomes a JSON answer
with the status its kind maps to (`common.errors.HTTP_STATUS`), the message, and the field at fault if any."""

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import ApplicationError


def exception_handler(error: Exception, context: dict) -> Response | None:
    if isinstance(error, ApplicationError):
        body = {"detail": error.message, "code": error.kind.value}
        if error.field:
            body["field"] = error.field
        return Response(body, status=error.http_status)
    return drf_exception_handler(error, context)
