import hashlib

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.errors import ApplicationError
from organizations.mfa import secret_holder_required
from organizations.models import Organization, Role
from organizations.permissions import permitted

from . import selectors, services
from .forms import AddLanguageForm
from .models import MAX_FALLBACKS, InterfaceLanguage


def safe_next(request, fallback: str = "/") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                              require_https=request.is_secure())
    return target if allowed else fallback


def choose_language(request):
    """Everyone picks the interface language here, and the languages a text not yet written in it falls back on
    (before English); a signed-in user's choice is kept on their account, a visitor's in cookies."""
    choices = selectors.language_choices()
    current = request.LANGUAGE_CODE
    fallbacks = list(getattr(request, "language_fallbacks", []))
    context = {"choices": choices, "current": current, "next": safe_next(request),
               "fallback_fields": fallback_fields(fallbacks)}
    if request.method == "POST":
        code = request.POST.get("language", "")
        wanted = [request.POST.get(f"fallback_{position}", "") for position in range(1, MAX_FALLBACKS + 1)]
        try:
            if selectors.language_info(code) is None:
                raise ApplicationError(_("Choose one of the languages listed."), "language")
            if request.user.is_authenticated:
                kept = services.choose_interface_language(user=request.user, code=code, fallbacks=wanted)
            else:
                kept = services.checked_fallbacks(code, wanted)
        except ApplicationError as error:
            return render(request, "languages/choose.html", context | {
                "current": code or current, "fallback_fields": fallback_fields(wanted),
                "error": error.message, "error_field": error.field}, status=400)
        response = redirect(safe_next(request))
        for name, value in ((settings.LANGUAGE_COOKIE_NAME, code), (selectors.FALLBACKS_COOKIE, ",".join(kept))):
            response.set_cookie(name, value, max_age=365 * 24 * 60 * 60, samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                                secure=settings.SESSION_COOKIE_SECURE, httponly=True)
        return response
    return render(request, "languages/choose.html", context)


def fallback_fields(chosen: list[str]) -> list[tuple[str, str]]:
    """(field name, chosen code or "") of each fallback select, in order."""
    return [(f"fallback_{position}", chosen[position - 1] if position <= len(chosen) else "")
            for position in range(1, MAX_FALLBACKS + 1)]


def governed_organization(request, slug: str) -> Organization:
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.govern", organization):
        raise Http404("No such organization among yours.")
    return organization


@login_required
@secret_holder_required(Role.GOVERNANCE)
def community_languages(request, slug: str):
    """A community's own interface languages, and the form that adds one."""
    organization = governed_organization(request, slug)
    form = AddLanguageForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            language = services.add_interface_language(actor=request.user, organization=organization,
                                                       **form.cleaned_data)
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            messages.success(request, _("%(name)s added: every string shows in English until you translate it.")
                             % {"name": language.name})
            return redirect("languages:translate", slug=slug, code=language.code)
    return render(request, "languages/community_languages.html", {
        "organization": organization, "form": form, "languages": selectors.languages_of(organization),
    }, status=400 if form.errors else 200)


def field_name(key: tuple[str, str]) -> str:
    """A form field name for a string that stays the same across deployments that reorder the catalog."""
    return "s-" + hashlib.sha256("\x04".join(key).encode("utf-8")).hexdigest()[:20]


@login_required
@secret_holder_required(Role.GOVERNANCE)
def translate(request, slug: str, code: str):
    """Every rater-facing string with its English text, where it appears and the French version; the community
    writes its own. A string left empty shows in English."""
    organization = governed_organization(request, slug)
    language = get_object_or_404(InterfaceLanguage, organization=organization, code=code)
    missing_only = request.GET.get("missing") == "1"
    rows = selectors.translation_rows(language, missing_only=missing_only)
    problems: dict[tuple[str, str], str] = {}
    typed: dict[tuple[str, str], tuple[str, str]] = {}
    if request.method == "POST":
        typed = {row.source.key: (request.POST.get(field_name(row.source.key), ""),
                                  request.POST.get(field_name(row.source.key) + "-plural", ""))
                 for row in rows if field_name(row.source.key) in request.POST}
        try:
            changed = services.save_interface_translations(actor=request.user, language=language, given=typed)
        except services.TranslationError as error:
            problems = error.problems
            messages.error(request, error.message)
        else:
            messages.success(request, ngettext("%(count)s string saved.", "%(count)s strings saved.", changed)
                             % {"count": changed})
            return redirect(request.get_full_path())
    entries = [{
        "row": row, "name": field_name(row.source.key),
        "value": typed.get(row.source.key, (row.msgstr, row.msgstr_plural)),
        "problem": problems.get(row.source.key, ""),
    } for row in rows]
    return render(request, "languages/translate.html", {
        "organization": organization, "language": language, "entries": entries, "missing_only": missing_only,
        "total": len(selectors.translation_rows(language)) if missing_only else len(rows),
        "translated": language.translations.count(),
    }, status=400 if problems else 200)
