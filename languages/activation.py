"""Which language each request speaks, and how a community's language joins Django's translation machinery.

Order: the signed-in user's choice (their account), then the language cookie (a visitor's choice), then the
browser's Accept-Language among the shipped languages, then English. A community language is a Django translation
whose catalog comes from the database: it is built once per process and rebuilt when its `revision` moves, so a
saved translation shows on the next request of every process, without a restart."""

import gettext as gettext_module
import threading

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.translation import trans_real
from django.views.i18n import JavaScriptCatalog

from .selectors import LanguageInfo, community_catalog, community_languages, language_info, shipped_languages

_installed: dict[str, int] = {}
_install_lock = threading.Lock()


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
    if _installed.get(info.code) == info.revision:
        return
    with _install_lock:
        if _installed.get(info.code) != info.revision:
            # Django keeps one translation object per language code in this process-wide registry.
            trans_real._translations[info.code] = community_translation(info)
            _installed[info.code] = info.revision


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
        translation.activate(chosen_language(request))
        request.LANGUAGE_CODE = translation.get_language()
        request.interface_language = language_info(request.LANGUAGE_CODE)


class InterfaceJavaScriptCatalog(JavaScriptCatalog):
    """The JavaScript catalog of the language its address names (pages link it with the language's revision,
    so it may be cached), with a community language's strings merged in."""

    def get(self, request, *args, **kwargs):
        info = language_info(request.GET.get("language", "")) or language_info(translation.get_language())
        if info is None:
            info = language_info(settings.LANGUAGE_CODE)
        with translation.override(info.code):
            if info.code in shipped_languages():
                response = super().get(request, *args, **kwargs)
            else:
                install_community_language(info)
                self.translation = community_translation(info, domain="djangojs")
                response = self.render_to_response(self.get_context_data(**kwargs))
        if "revision" in request.GET:
            patch_cache_control(response, public=True, max_age=24 * 60 * 60)
        return response
