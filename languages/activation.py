"""Which language each request speaks, and how a community's language joins Django's translation machinery.

Order: the signed-in user's choice (their account), then the language cookie (a visitor's choice), then the
browser's Accept-Language among the shipped languages, then English. A community language is a Django translation
whose catalog comes from the database: it is built once per process and rebuilt when its state (row and `revision`)
moves, so a saved translation shows on the next request of every process, without a restart.

A string a community has not translated yet falls back along the reader's own list (their account, or the fallback
cookie): Plains Cree, then French, then English. Each such chain is a translation object of its own, built once per
process and state of its languages, whose fallbacks are links to each language's own strings (never the shared
objects themselves, whose own fallbacks must not change)."""

import gettext as gettext_module
import threading
from collections.abc import Sequence

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.translation import trans_real
from django.views.i18n import JavaScriptCatalog

from .models import MAX_FALLBACKS
from .selectors import (
    FALLBACKS_COOKIE,
    LanguageInfo,
    community_catalog,
    community_languages,
    language_info,
    shipped_languages,
    stored_fallbacks,
)

_installed: dict[str, str] = {}
_install_lock = threading.Lock()
_chains: dict[tuple, trans_real.DjangoTranslation] = {}


class CommunityCatalog(gettext_module.NullTranslations):
    """A gettext translation holding a community language's strings (missing ones fall back to English)."""

    def __init__(self, catalog: dict) -> None:
        super().__init__()
        self._catalog = catalog
        self._info: dict = {}
        self.plural = lambda n: int(n != 1)


def community_translation(info: LanguageInfo, domain: str = "django") -> trans_real.DjangoTranslation:
    translation_object = trans_real.DjangoTranslation(info.code, domain=domain)
    catalog, size = community_catalog(info.code)
    if size:
        translation_object.merge(CommunityCatalog(catalog))
    return translation_object


def install_community_language(info: LanguageInfo) -> None:
    """Make `translation.activate(info.code)` speak the community's current strings in this process."""
    if _installed.get(info.code) == info.state:
        return
    with _install_lock:
        if _installed.get(info.code) != info.state:
            # Django keeps one translation object per language code in this process-wide registry.
            trans_real._translations[info.code] = community_translation(info)
            _installed[info.code] = info.state


class CatalogLink(gettext_module.GNUTranslations):
    """One language's own strings as a link of a fallback chain: its catalog and plural rule, and no fallback of its
    own but the next link's."""

    def __init__(self, source: gettext_module.GNUTranslations) -> None:
        super().__init__()
        self._catalog = source._catalog
        self.plural = source.plural


def own_translation(code: str, domain: str) -> trans_real.DjangoTranslation:
    """The translation of one interface language, its community strings included."""
    info = language_info(code)
    if info is not None and code not in shipped_languages():
        return community_translation(info, domain)
    return trans_real.translation(code) if domain == "django" else trans_real.DjangoTranslation(code, domain=domain)


def chained_translation(info: LanguageInfo, fallbacks: Sequence[str],
                        domain: str = "django") -> trans_real.DjangoTranslation:
    """`info`'s community translation whose missing strings are looked up in `fallbacks`, in order, then English;
    cached per process and state of the community languages in it."""
    states = tuple((code, getattr(language_info(code), "state", "0")) for code in (info.code, *fallbacks))
    key = (domain, states)
    chain = _chains.get(key)
    if chain is None:
        chain = community_translation(info, domain)
        chain._fallback = None
        link: gettext_module.NullTranslations = chain
        for code in fallbacks:
            link._fallback = CatalogLink(own_translation(code, domain))
            link = link._fallback
        chain.fallback_codes = tuple(fallbacks)
        with _install_lock:
            _chains[key] = chain
    return chain


def valid_fallbacks(code: str, candidates: Sequence[str]) -> list[str]:
    """The candidates that are interface languages other than `code` and English, in order, without repeats, at most
    MAX_FALLBACKS (English, which has every string, always comes last anyway)."""
    kept: list[str] = []
    for candidate in candidates:
        if (candidate and candidate != code and candidate not in kept and language_info(candidate) is not None
                and candidate != settings.LANGUAGE_CODE):
            kept.append(candidate)
    return kept[:MAX_FALLBACKS]


def chosen_fallbacks(request, code: str) -> list[str]:
    """The languages the reader falls back on before English: their account's list, else the fallback cookie's."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        stored = stored_fallbacks(user)
        if stored is not None:
            return valid_fallbacks(code, stored)
    return valid_fallbacks(code, request.COOKIES.get(FALLBACKS_COOKIE, "").split(","))


def chosen_language(request) -> str:
    user = getattr(request, "user", None)
    candidates = []
    if user is not None and user.is_authenticated and user.interface_language:
        candidates.append(user.interface_language)
    candidates.append(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""))
    for code in filter(None, candidates):
        if code in shipped_languages():
            return code
        info = community_languages().get(code)
        if info is not None:
            install_community_language(info)
            return code
    return translation.get_language_from_request(request)


class InterfaceLanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware (Content-Language, Vary) choosing among shipped and community languages; placed
    after the authentication middleware, since a signed-in user's own choice comes first."""

    def process_request(self, request) -> None:
        code = chosen_language(request)
        info = language_info(code)
        fallbacks = chosen_fallbacks(request, code) if info is not None and code not in shipped_languages() else []
        if fallbacks:
            trans_real._active.value = chained_translation(info, fallbacks)
        else:
            translation.activate(code)
        request.LANGUAGE_CODE = translation.get_language()
        request.interface_language = language_info(request.LANGUAGE_CODE)
        request.language_fallbacks = fallbacks


class InterfaceJavaScriptCatalog(JavaScriptCatalog):
    """The JavaScript catalog of the language its address names (pages link it with the language's revision,
    so it may be cached), with a community language's strings merged in."""

    def get(self, request, *args, **kwargs):
        info = language_info(request.GET.get("language", "")) or language_info(translation.get_language())
        if info is None:
            info = language_info(settings.LANGUAGE_CODE)
        fallbacks = valid_fallbacks(info.code, request.GET.get("fallbacks", "").split(","))
        with translation.override(info.code):
            if info.code in shipped_languages():
                response = super().get(request, *args, **kwargs)
            else:
                install_community_language(info)
                self.translation = (chained_translation(info, fallbacks, domain="djangojs") if fallbacks
                                    else community_translation(info, domain="djangojs"))
                response = self.render_to_response(self.get_context_data(**kwargs))
        if "revision" in request.GET:
            patch_cache_control(response, public=True, max_age=24 * 60 * 60)
        return response
