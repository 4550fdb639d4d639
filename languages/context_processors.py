"""The interface language every page is written in: `lang`/`dir` on <html>, the address of the JavaScript
catalog, which names language, fallbacks and revisions so that browsers may keep it for a day, and the footer's link
to choose another language, which brings the reader back to the page."""

from urllib.parse import quote

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation

from common.addresses import address

from .catalog import catalog_paths
from .selectors import language_cache_key, language_info


def _catalog_stamp() -> int:
    """Changes with every deployment that changes the shipped catalogs."""
    return max((path.with_suffix(".mo").stat().st_mtime_ns for path in catalog_paths()
                if path.with_suffix(".mo").exists()), default=0) // 1_000_000_000


CATALOG_STAMP = _catalog_stamp()


def interface_language(request: HttpRequest) -> dict:
    info = getattr(request, "interface_language", None) or language_info(translation.get_language()) \
        or language_info(settings.LANGUAGE_CODE)
    query = f"?language={info.code}&revision={info.state}.{CATALOG_STAMP}"
    fallbacks = [found for found in map(language_info, getattr(request, "language_fallbacks", [])) if found]
    if fallbacks:
        query += "&fallbacks=" + ",".join(found.code for found in fallbacks)
        query += "&fallback_revisions=" + "-".join(found.state for found in fallbacks)
    return {"interface_language": info, "javascript_catalog_url": address("javascript-catalog") + query,
            "choose_language_url": f"{address('languages:choose')}?next={quote(request.get_full_path(), safe='/')}",
            # What a page's cached fragments are keyed on for its language: a community's new translation, or one
            # of the languages it falls back on, makes a new key.
            "language_key": language_cache_key()}
