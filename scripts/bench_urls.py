"""URLconf of the benchmark's server: the project's own routes plus one bare view.

The bare view returns a fixed string through the same middleware on the same gunicorn: what Django itself
costs per request on this machine, the ceiling the project's pages are compared with. It exists only in the
bench (scripts/bench_site.py); the project has no such route.
"""

from django.http import HttpResponse
from django.urls import include, path

BARE_VIEW_PATH = "/bench/bare/"


def bare(request) -> HttpResponse:
    """A fixed string: no database, no template."""
    return HttpResponse(b"bench", content_type="text/plain")


urlpatterns = [
    path(BARE_VIEW_PATH.lstrip("/"), bare),
    path("", include("config.urls")),
]
