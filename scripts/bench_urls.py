"""URLconf of the benchmark's server: the project's own routes plus two bare views.

The bare view returns a fixed string through the same middleware on the same gunicorn: what Django itself
costs per request on this machine, the ceiling the project's pages are compared with. The signed-in bare view does
the same for a signed-in speaker (their session and account read, as on every page of theirs): the ceiling of any
request of the rating loop. They exist only in the bench (scripts/bench_site.py); the project has no such route.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.urls import include, path

BARE_VIEW_PATH = "/bench/bare/"
SIGNED_IN_BARE_VIEW_PATH = "/bench/signed-in/"


def bare(request) -> HttpResponse:
    """A fixed string: no database, no template."""
    return HttpResponse(b"bench", content_type="text/plain")


@login_required
def signed_in_bare(request) -> JsonResponse:
    """A fixed answer to a signed-in user: no query of its own."""
    return JsonResponse({"bench": True})


urlpatterns = [
    path(BARE_VIEW_PATH.lstrip("/"), bare),
    path(SIGNED_IN_BARE_VIEW_PATH.lstrip("/"), signed_in_bare),
    path("", include("config.urls")),
]
