"""Which interface languages exist and what a community has translated. The list of community languages is read
on requests that ask for one, so it is cached (shared by every web process) and dropped when a language or a
translation changes."""

from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import trans_real

from organizations.models import Organization

from .catalog import SourceString, rater_facing_strings
from .models import InterfaceLanguage, InterfaceTranslation, LanguageFallbacks

COMMUNITY_LANGUAGES_KEY = "languages:community:v2"
# A visitor's fallback languages, in order, comma-separated (a signed-in user's are on their account).
FALLBACKS_COOKIE = "champollion_language_fallbacks"


@dataclass(frozen=True)
class LanguageInfo:
    code: str
    name: str
    bidi: bool
    # Which saved state of the language a process or browser holds: the row's id and its revision, so a language
    # deleted and added again under the same tag never matches a catalog cached for the one before ("0" if shipped).
    state: str
    community: str


def shipped_languages() -> dict[str, str]:
    return dict(settings.LANGUAGES)


def community_languages() -> dict[str, LanguageInfo]:
    languages = cache.get(COMMUNITY_LANGUAGES_KEY)
    if languages is None:
        languages = {
            code: LanguageInfo(code, name, direction == InterfaceLanguage.Direction.RTL, f"{pk}.{revision}", community)
            for pk, code, name, direction, revision, community in InterfaceLanguage.objects.values_list(
                "pk", "code", "name", "direction", "revision", "organization__name")
        }
        cache.set(COMMUNITY_LANGUAGES_KEY, languages, None)
    return languages


def language_info(code: str) -> LanguageInfo | None:
    """What a page needs to speak `code`, or None when no such interface language exists."""
    if code in shipped_languages():
        return LanguageInfo(code, shipped_languages()[code], code.split("-")[0] in settings.LANGUAGES_BIDI, "0", "")
    return community_languages().get(code)


def active_fallbacks() -> tuple[str, ...]:
    """The languages the active translation falls back on before English (languages.activation)."""
    return getattr(getattr(trans_real._active, "value", None), "fallback_codes", ())  # type: ignore[attr-defined]


def language_cache_key() -> str:
    """The active interface language as a cache key part: a community language's state is in it, so a page
    cached before its translations changed is not served after, and so are the languages it falls back on."""
    code = translation.get_language() or settings.LANGUAGE_CODE
    info = language_info(code)
    key = f"{code}.{info.state}" if info is not None else code
    for fallback in active_fallbacks():
        found = language_info(fallback)
        key += f">{fallback}.{found.state if found is not None else 0}"
    return key


def stored_fallbacks(user) -> list[str] | None:
    """The user's own fallback languages, in order; None when they never chose any."""
    found = LanguageFallbacks.objects.filter(user=user).values_list("codes", flat=True).first()
    return None if found is None else [code for code in found if isinstance(code, str)]


def language_choices() -> list[LanguageInfo]:
    """Shipped languages first, then each community's, by name."""
    shipped = [info for info in map(language_info, shipped_languages()) if info is not None]
    return shipped + sorted(community_languages().values(), key=lambda info: info.name.casefold())


def languages_of(organization: Organization) -> list[InterfaceLanguage]:
    return list(InterfaceLanguage.objects.filter(organization=organization).order_by("name"))


def community_catalog(code: str) -> tuple[dict, int]:
    """A language's translations as a gettext catalog (context\\x04msgid keys, (msgid, form) for plurals)."""
    catalog: dict = {}
    rows = InterfaceTranslation.objects.filter(language__code=code).values_list(
        "msgctxt", "msgid", "msgstr", "msgstr_plural")
    for msgctxt, msgid, msgstr, msgstr_plural in rows:
        key = f"{msgctxt}\x04{msgid}" if msgctxt else msgid
        if msgstr_plural:
            catalog[(key, 0)] = msgstr
            catalog[(key, 1)] = msgstr_plural
        else:
            catalog[key] = msgstr
    return catalog, len(catalog)


@dataclass(frozen=True)
class TranslationRow:
    source: SourceString
    msgstr: str
    msgstr_plural: str


def translation_rows(language: InterfaceLanguage, *, missing_only: bool = False) -> list[TranslationRow]:
    """Every rater-facing string with the community's translation, if any (one query)."""
    given = {(msgctxt, msgid): (msgstr, msgstr_plural) for msgctxt, msgid, msgstr, msgstr_plural in
             language.translations.values_list("msgctxt", "msgid", "msgstr", "msgstr_plural")}
    rows = [TranslationRow(source, *given.get(source.key, ("", ""))) for source in rater_facing_strings()]
    return [row for row in rows if not row.msgstr] if missing_only else rows
