"""The account pages in French (Canada): locale_allauth/ corrects django-allauth's French (France) where it reads
wrong in Québec. Each correction is of a string allauth still has, keeps its placeholders and Québec typography,
is compiled, and shows on the pages."""

import gettext
import re
from pathlib import Path

import allauth
import polib
import pytest
from django.conf import settings

OVERRIDES = Path(settings.BASE_DIR) / "locale_allauth" / "fr_CA" / "LC_MESSAGES"
ALLAUTH_FRENCH = Path(allauth.__file__).parent / "locale" / "fr" / "LC_MESSAGES" / "django.po"
PLACEHOLDER = re.compile(r"%\([A-Za-z_][A-Za-z0-9_]*\)[sd]|%[sd]")


def overrides() -> list[polib.POEntry]:
    return [entry for entry in polib.pofile(str(OVERRIDES / "django.po")) if entry.msgid]


def test_each_correction_is_of_a_string_allauth_has_with_its_placeholders_and_quebec_typography():
    known = {entry.msgid for entry in polib.pofile(str(ALLAUTH_FRENCH))}
    entries = overrides()
    assert entries and [entry.msgid for entry in entries if entry.msgid not in known] == []
    for entry in entries:
        assert sorted(PLACEHOLDER.findall(entry.msgstr)) == sorted(PLACEHOLDER.findall(entry.msgid)), entry.msgid
        assert not re.search(r" [:»]|« |[ \u00a0\u202f][;!?]|'|e-mail", entry.msgstr), entry.msgstr


def test_the_compiled_corrections_say_what_the_po_says():
    with open(OVERRIDES / "django.mo", "rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
    assert {entry.msgid: entry.msgstr for entry in overrides()} == {
        key: value for key, value in catalog.items() if key}


@pytest.mark.django_db
@pytest.mark.parametrize("url, shown", [
    ("/accounts/login/", ["Mot de passe oublié?", 'placeholder="Adresse courriel"', "Inscrivez-vous"]),
    ("/accounts/signup/", ["Vous avez déjà un compte?", "Connectez-vous"]),
    ("/accounts/password/reset/", ["Mot de passe oublié? Indiquez votre adresse courriel ci-dessous\u00a0:"]),
])
def test_the_account_pages_read_as_in_quebec(client, url, shown):
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="fr-CA").content.decode()
    main = page[page.index("<main"):page.index("</main>")]
    for text in shown:
        assert text in main, text
    assert "e-mail" not in main and " ?" not in main
