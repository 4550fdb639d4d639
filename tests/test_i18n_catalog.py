"""The French (Canada) catalogs are complete and current: what `make messages` would extract from the code today
is all translated by hand, the compiled catalogs say what the .po files say, and no translation breaks its
placeholders (issue 12, part 4)."""

import gettext
import os
import re
import shutil
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

LOCALE = Path(settings.BASE_DIR) / "locale" / "fr_CA" / "LC_MESSAGES"
DOMAINS = ("django", "djangojs")
SOURCES = ("accounts", "common", "config", "corpus", "governance", "languages", "leaderboard", "ledger",
           "organizations", "review", "elicitation", "speakers", "submissions", "templates", "static")
IGNORE = ["tests", "scripts", "staticfiles", "bench", "docs", "media"]
PLACEHOLDER = re.compile(r"%\([A-Za-z_][A-Za-z0-9_]*\)[sd]|%[sd]")


def catalog(domain: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / f"{domain}.po"))


def keys(po: polib.POFile) -> set[tuple[str, str]]:
    return {(entry.msgctxt or "", entry.msgid) for entry in po if not entry.obsolete}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict[str, polib.POFile]:
    """Run makemessages on the code as it is now, into a copy of the catalogs (the committed ones stay as
    they are): a tree of links to the sources, with its own locale folder."""
    if not shutil.which("xgettext"):
        if os.environ.get("REQUIRE_GETTEXT") == "1":
            pytest.fail("GNU gettext (xgettext) is missing; `apt-get install gettext`.")
        pytest.skip("GNU gettext (xgettext) is not installed")
    tree = tmp_path_factory.mktemp("messages")
    for source in SOURCES:
        (tree / source).symlink_to(Path(settings.BASE_DIR) / source)
    shutil.copytree(LOCALE.parent, tree / "locale" / "fr_CA")
    here = os.getcwd()
    os.chdir(tree)
    try:
        with override_settings(LOCALE_PATHS=[str(tree / "locale")]):
            for domain in DOMAINS:
                call_command("makemessages", locale=["fr_CA"], domain=domain, symlinks=True, no_obsolete=True,
                             ignore_patterns=IGNORE, verbosity=0)
    finally:
        os.chdir(here)
    return {domain: polib.pofile(str(tree / "locale" / "fr_CA" / "LC_MESSAGES" / f"{domain}.po"))
            for domain in DOMAINS}


@pytest.mark.parametrize("domain", DOMAINS)
def test_makemessages_leaves_no_french_string_untranslated(extracted, domain):
    untranslated = [f"{entry.occurrences[:1]} {entry.msgid!r}" for entry in extracted[domain]
                    if not entry.obsolete and (not entry.translated() or "fuzzy" in entry.flags)]
    assert not untranslated, "Untranslated or fuzzy French strings:\n" + "\n".join(untranslated)


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_catalog_is_what_the_code_extracts(extracted, domain):
    """A string removed from the code leaves the catalog too (`make messages`), so translators never work on
    dead strings."""
    assert keys(catalog(domain)) == keys(extracted[domain])


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_compiled_catalog_matches_its_source(domain):
    with open(LOCALE / f"{domain}.mo", "rb") as compiled:
        translations = gettext.GNUTranslations(compiled)
    stale = []
    for entry in catalog(domain):
        if entry.obsolete:
            continue
        key = f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid
        if entry.msgid_plural:
            found = [translations._catalog.get((key, form)) for form in (0, 1)]  # type: ignore[attr-defined]
            if found != [entry.msgstr_plural[0], entry.msgstr_plural[1]]:
                stale.append(entry.msgid)
        elif translations._catalog.get(key) != entry.msgstr:  # type: ignore[attr-defined]
            stale.append(entry.msgid)
    assert not stale, "Run `make messages`: the .mo files are older than the .po files for " + repr(stale[:5])


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_translation_keeps_its_placeholders(domain):
    """The same placeholders as the English; a plural's singular form may leave out the count (« un élément »)."""
    broken = []
    for entry in catalog(domain):
        if entry.obsolete:
            continue
        if entry.msgid_plural:
            allowed = set(PLACEHOLDER.findall(entry.msgid + entry.msgid_plural))
            singular, plural = entry.msgstr_plural[0], entry.msgstr_plural[1]
            if not set(PLACEHOLDER.findall(singular)) <= allowed or \
                    set(PLACEHOLDER.findall(plural)) != set(PLACEHOLDER.findall(entry.msgid_plural)):
                broken.append((entry.msgid, entry.msgstr_plural))
        elif sorted(PLACEHOLDER.findall(entry.msgstr)) != sorted(PLACEHOLDER.findall(entry.msgid)):
            broken.append((entry.msgid, entry.msgstr))
    assert not broken, broken[:10]


def test_french_typography_uses_no_break_spaces():
    """Québec typography: a no-break space before a colon and inside « guillemets », so they never start a line,
    and none before ; ! ? (docs/i18n.md)."""
    wrong = [text for domain in DOMAINS for entry in catalog(domain)
             for text in (entry.msgstr, *entry.msgstr_plural.values())
             if re.search(r" [:»]|« |[ \u00a0\u202f][;!?]", text)]
    assert not wrong, wrong[:10]
