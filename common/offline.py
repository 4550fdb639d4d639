"""The service worker of the pages that work without a connection (the rating, translate and verify pages): one
script (templates/includes/service_worker.js), served by each app under its own part of the site so that its scope
covers that app's item pages, with the app's cache and addresses. It holds no data of its own: the page's script decides
what is stored (static/js/device-store.js). Beside it, `offline/`: the page it answers any other page of its part of
the site with when there is no connection (offline_notice)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control


def service_worker(request: HttpRequest, *, cache: str, item_page: str, submission: str) -> HttpResponse:
    """The worker for one kind of page: `cache` is the Cache Storage name the page's script stores the shell and
    assets in, `item_page` the pattern of the item pages a reload without a connection is answered for (with the
    shell stored under their address), `submission` the pattern of the addresses the page posts its work to."""
    response = render(request, "includes/service_worker.js",
                      {"cache": cache, "item_page": item_page, "submission": submission},
                      content_type="text/javascript; charset=utf-8")
    patch_cache_control(response, no_cache=True)
    return response


def offline_notice(request: HttpRequest) -> HttpResponse:
    """What a page of the app that needs a connection shows without one (the service worker answers with the copy the
    page's script stored, in the reader's language): their work is kept on the device, Back returns to it."""
    response = render(request, "includes/offline_notice.html")
    patch_cache_control(response, no_cache=True)
    return response
