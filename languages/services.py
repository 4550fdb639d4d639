"""Writes on interface languages: a community adds its language, translates the rater-facing strings, a user
chooses the language they read. Each change to a community language drops the shared cache after commit, so every
web process rebuilds that language's catalog on its next request."""

import operator
import re
from collections import Counter
from collections.abc import Sequence
from functools import reduce

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from common.errors import ApplicationError, Conflict
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from .catalog import SourceString, rater_facing_strings
from .models import BCP47_LOWER, MAX_FALLBACKS, InterfaceLanguage, InterfaceTranslation, LanguageFallbacks
from .selectors import COMMUNITY_LANGUAGES_KEY, language_info, shipped_languages

CODE_PATTERN = re.compile(BCP47_LOWER)
PLACEHOLDER = re.compile(r"%\([A-Za-z_][A-Za-z0-9_]*\)[sd]|%[sd]")
TAG = re.compile(r"<[^<>]*>")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
MAX_TRANSLATION_LENGTH = 2000


class TranslationError(ApplicationError):
    """Refused translations: `problems` maps each string's key to what is wrong with it; nothing was saved."""

    def __init__(self, problems: dict[tuple[str, str], str]) -> None:
        super().__init__(ngettext("%(count)s translation needs a correction; nothing was saved.",
                                  "%(count)s translations need a correction; nothing was saved.",
                                  len(problems)) % {"count": len(problems)})
        self.problems = problems


def _drop_cache() -> None:
    """Dropped now for this transaction's own later reads, and again after commit, since another request may
    have cached the old state in between."""
    cache.delete(COMMUNITY_LANGUAGES_KEY)
    transaction.on_commit(lambda: cache.delete(COMMUNITY_LANGUAGES_KEY))


@transaction.atomic
def add_interface_language(*, actor: User, organization: Organization, code: str, name: str,
                           direction: str = InterfaceLanguage.Direction.LTR) -> InterfaceLanguage:
    """A community's own interface language, which starts with every string in English."""
    require(actor, "organization.govern", organization)
    code = code.strip().lower().replace("_", "-")
    name = " ".join(name.split())
    if not CODE_PATTERN.match(code) or len(code) > 35:
        raise ApplicationError(_("Enter a BCP 47 language tag such as “crk”, “oj-ca”, “crk-cans” or “crk-x-ux”: "
                                 "two or three letters, then optional script, region, variant and private-use "
                                 "parts after hyphens."), "code")
    if code.split("-")[0] in {shipped.split("-")[0] for shipped in shipped_languages()}:
        raise ApplicationError(_("“%(code)s” is a language the interface already ships with.") % {"code": code},
                               "code")
    if not name or len(name) > 100 or CONTROL.search(name):
        raise ApplicationError(_("Give the language's name as its speakers write it (1 to 100 characters)."), "name")
    if direction not in InterfaceLanguage.Direction.values:
        raise ApplicationError(_("Choose left to right or right to left."), "direction")
    if InterfaceLanguage.objects.filter(code=code).exists():
        raise Conflict(_("The interface language “%(code)s” already exists.") % {"code": code}, "code")
    language = InterfaceLanguage.objects.create(code=code, name=name, direction=direction,
                                                organization=organization, created_by=actor)
    record_event(AuditAction.INTERFACE_LANGUAGE_ADDED, actor=actor, organization=organization, obj=language,
                 details={"code": code, "name": name, "direction": direction})
    _drop_cache()
    return language


def translation_problem(source: SourceString, msgstr: str, msgstr_plural: str) -> str | None:
    """What makes a translation unsafe or unusable, in words for its translator; None when it is fine. A
    translation may only use the English text's placeholders and markup: anything else would break the page or
    let a translation inject markup into every speaker's page."""
    english = source.msgid + source.msgid_plural
    allowed_names = set(PLACEHOLDER.findall(english))
    english_tags = Counter(TAG.findall(source.msgid))
    for form, english_form in ((msgstr, source.msgid), (msgstr_plural, source.msgid_plural or source.msgid)):
        if not form:
            continue
        if len(form) > MAX_TRANSLATION_LENGTH:
            return _("Keep it under %(limit)s characters.") % {"limit": MAX_TRANSLATION_LENGTH}
        if CONTROL.search(form):
            return _("Remove the invisible control characters.")
        used = PLACEHOLDER.findall(form)
        unknown = sorted(set(used) - allowed_names)
        if unknown:
            return _("Use only the placeholders of the English text; %(unknown)s is not one of them.") % {
                "unknown": ", ".join(unknown)}
        if used.count("%s") != PLACEHOLDER.findall(english_form).count("%s"):
            return _("Keep each %s placeholder of the English text exactly once.")
        if allowed_names and "%" in PLACEHOLDER.sub("", form).replace("%%", ""):
            return _("Write a percent sign as %% in this text.")
        if Counter(TAG.findall(form)) != english_tags or "<" in TAG.sub("", form) or ">" in TAG.sub("", form):
            return _("Keep the English text's markup exactly as it is and add none.")
    if source.msgid_plural and msgstr and not msgstr_plural:
        return _("This text has a plural form: give it too.")
    return None


@transaction.atomic
def save_interface_translations(*, actor: User, language: InterfaceLanguage,
                                given: dict[tuple[str, str], tuple[str, str]]) -> int:
    """Store the translations that changed (an empty one falls back to English). All or nothing: one unusable
    translation refuses the whole form, with a reason per string. Returns how many strings changed."""
    require(actor, "organization.govern", language.organization)
    sources = {source.key: source for source in rater_facing_strings()}
    current = {(row.msgctxt, row.msgid): row for row in language.translations.select_for_update()}
    problems: dict[tuple[str, str], str] = {}
    changed: list[tuple[tuple[str, str], str, str]] = []
    for key, (msgstr, msgstr_plural) in given.items():
        source = sources.get(key)
        if source is None:
            problems[key] = _("This string is not one of the interface's rater-facing strings.")
            continue
        msgstr, msgstr_plural = msgstr.strip(), msgstr_plural.strip() if source.msgid_plural else ""
        problem = translation_problem(source, msgstr, msgstr_plural)
        if problem:
            problems[key] = problem
            continue
        row = current.get(key)
        if ((row.msgstr, row.msgstr_plural) if row else ("", "")) != (msgstr, msgstr_plural):
            changed.append((key, msgstr, msgstr_plural))
    if problems:
        raise TranslationError(problems)
    if not changed:
        return 0
    now = timezone.now()
    removed = [key for key, msgstr, _plural in changed if not msgstr]
    if removed:
        language.translations.filter(
            reduce(operator.or_, (Q(msgctxt=msgctxt, msgid=msgid) for msgctxt, msgid in removed))).delete()
    InterfaceTranslation.objects.bulk_create(
        [InterfaceTranslation(language=language, msgctxt=key[0], msgid=key[1], msgstr=msgstr,
                              msgstr_plural=msgstr_plural, updated_by=actor, updated_at=now)
         for key, msgstr, msgstr_plural in changed if msgstr],
        update_conflicts=True, unique_fields=["language", "msgctxt", "msgid"],
        update_fields=["msgstr", "msgstr_plural", "updated_by", "updated_at"],
    )
    InterfaceLanguage.objects.filter(pk=language.pk).update(revision=F("revision") + 1)
    record_event(AuditAction.INTERFACE_TRANSLATION_CHANGED, actor=actor, organization=language.organization,
                 obj=language, details={
                     "code": language.code, "changed": len(changed), "removed": len(removed),
                     "strings": [{"context": key[0], "english": key[1][:200], "translation": msgstr[:200]}
                                 for key, msgstr, _plural in changed[:50]],
                 })
    _drop_cache()
    return len(changed)


@transaction.atomic
def checked_fallbacks(code: str, fallbacks: Sequence[str]) -> list[str]:
    """The fallback languages of `code` as they are kept: each an interface language other than `code` and English,
    none twice, at most MAX_FALLBACKS; a refusal names the field."""
    kept: list[str] = []
    for position, fallback in enumerate(fallbacks, 1):
        field = f"fallback_{position}"
        if not fallback:
            continue
        if language_info(fallback) is None:
            raise ApplicationError(_("“%(code)s” is not an interface language here.") % {"code": fallback[:40]},
                                   field)
        if fallback == code or fallback in kept:
            raise ApplicationError(_("Choose each language once: a text missing in one is looked for in the next."),
                                   field)
        if fallback != settings.LANGUAGE_CODE:
            kept.append(fallback)
    if len(kept) > MAX_FALLBACKS:
        raise ApplicationError(_("At most %(count)s languages before English.") % {"count": MAX_FALLBACKS},
                               f"fallback_{MAX_FALLBACKS + 1}")
    return kept


def choose_interface_language(*, user: User, code: str, fallbacks: Sequence[str] = ()) -> list[str]:
    """Remember the user's interface language, and the languages to fall back on before English for the strings it
    has not translated yet, on their account, so every device they sign in on speaks them. Returns the fallbacks
    kept."""
    if language_info(code) is None:
        raise ApplicationError(_("“%(code)s” is not an interface language here.") % {"code": code}, "language")
    kept = checked_fallbacks(code, fallbacks)
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(interface_language=code)
        LanguageFallbacks.objects.update_or_create(user=user, defaults={"codes": kept, "updated_at": timezone.now()})
    user.interface_language = code
    return kept
