"""Request size and rate limits of the API: a body is measured before it is read, and writes get their own,
stricter rate."""

from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle

READ_CHUNK_BYTES = 64 * 1024


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


def read_capped_body(request: Request, limit: int, what: str) -> bytes:
    """The request body, never more than `limit` bytes of it in memory. A declared Content-Length over the limit
    is refused (413) before anything is read; a body without one (chunked) is read in chunks and refused as
    soon as it crosses the limit. Such a body is read from the server's input when the server marks it as
    ending with the body (`wsgi.input_terminated`, gunicorn); otherwise Django's stream holds what there is
    (ASGI) or nothing (a plain WSGI server, which gives no length)."""
    meta = request.META
    declared = meta.get("CONTENT_LENGTH") or ""
    if declared.isdigit():
        if int(declared) > limit:
            raise PayloadTooLarge(f"{what} is {int(declared):,} bytes (Content-Length); the limit is {limit:,} bytes; "
                                  "nothing was read or stored")
        stream = request.stream
    elif meta.get("wsgi.input_terminated"):
        stream = meta["wsgi.input"]
    else:
        stream = request._request
    chunks: list[bytes] = []
    size = 0
    while stream is not None and (chunk := stream.read(min(READ_CHUNK_BYTES, limit + 1 - size))):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"{what} is more than the limit of {limit:,} bytes (read without Content-Length, "
                                  "it was cut off there); nothing was stored")
    return b"".join(chunks)


class WriteRateThrottle(ScopedRateThrottle):
    """The view's `throttle_scope` rate, counted for writes (POST, PUT, PATCH, DELETE) only: reading the same
    endpoint is left to the anonymous and per-user rates."""

    def allow_request(self, request: Request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)


class SignedInRateThrottle(UserRateThrottle):
    """The per-user rate, for signed-in users only. DRF's own counts anonymous clients by address too, a second
    history beside the anonymous rate's with a looser limit: it never refused one and cost two cache round trips
    on every anonymous request."""

    def get_cache_key(self, request: Request, view) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)
