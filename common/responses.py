"""How a page that holds something private is cached: never by a shared cache, nor kept for the back button."""

from django.utils.cache import patch_cache_control


def private(response):
    """`Cache-Control: private, no-store` on `response`: pages with an item's texts (secret ones included), a person's
    texts, or a key shown once stay out of shared and back-button caches."""
    patch_cache_control(response, private=True, no_store=True)
    return response


def wants_json(request) -> bool:
    """The page's script asks for the answer as JSON (rate.js, elicit.js); a plain form post gets a page."""
    return "application/json" in request.headers.get("Accept", "")
