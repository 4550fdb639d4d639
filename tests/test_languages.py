"""Interface languages: the shipped French, a user's remembered choice, and a community's own language written
in the app by its governance staff (issue 12, part 4)."""

import pytest
from django.conf import settings
from django.urls import reverse

from accounts.models import User
from languages.catalog import rater_facing_strings
from languages.models import InterfaceLanguage, InterfaceTranslation
from languages.services import add_interface_language
from languages.views import field_name
from organizations.models import AuditEvent
from tests.conftest import member

SIGN_IN = ("", "Sign in")


def test_the_browser_language_picks_french(client, db):
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="fr-CA,fr;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="fr-ca" dir="ltr">' in page
    assert "Se connecter" in page and ">Sign in<" not in page
    assert "Français (Canada)" in page


def test_plain_fr_in_the_browser_also_gets_canadian_french(client, db):
    assert '<html lang="fr-ca"' in client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()


def test_english_stays_the_default(client, db):
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="en" dir="ltr">' in page and ">Sign in<" in page


def test_a_visitor_chooses_a_language_and_the_cookie_keeps_it(client, db):
    response = client.post(reverse("languages:choose"), {"language": "fr-ca", "next": "/leaderboard/"})
    assert response.status_code == 302 and response["Location"] == "/leaderboard/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr-ca"
    assert '<html lang="fr-ca"' in client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_a_signed_in_users_choice_is_kept_on_the_account(client, speaker):
    client.force_login(speaker)
    client.post(reverse("languages:choose"), {"language": "fr-ca"})
    assert User.objects.get(pk=speaker.pk).interface_language == "fr-ca"
    client.cookies.clear()
    client.force_login(speaker)
    assert '<html lang="fr-ca"' in client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.parametrize("code", ["xx", "", "<script>", "en'--"])
def test_an_unknown_language_is_refused_and_nothing_is_kept(client, speaker, code):
    client.force_login(speaker)
    response = client.post(reverse("languages:choose"), {"language": code})
    assert response.status_code == 400
    assert "Choose one of the languages listed." in response.content.decode()
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert User.objects.get(pk=speaker.pk).interface_language == ""


def test_the_language_page_never_redirects_off_site(client, db):
    response = client.post(reverse("languages:choose"), {"language": "en", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_the_shipped_catalog_offers_the_rater_facing_strings():
    keys = {string.key for string in rater_facing_strings()}
    assert SIGN_IN in keys
    assert all(string.occurrences for string in rater_facing_strings())


@pytest.fixture
def cree(governance_user, steward):
    return add_interface_language(actor=governance_user, organization=steward, code="crk", name="nēhiyawēwin")


def test_governance_adds_a_language_from_the_page(client, governance_user, steward):
    client.force_login(governance_user)
    url = reverse("languages:community_languages", args=[steward.slug])
    response = client.post(url, {"code": "CRK", "name": "  nēhiyawēwin ", "direction": "ltr"})
    assert response.status_code == 302
    language = InterfaceLanguage.objects.get()
    assert (language.code, language.name, language.organization) == ("crk", "nēhiyawēwin", steward)
    assert AuditEvent.objects.filter(action="interface_language.added", organization=steward).exists()
    assert "nēhiyawēwin" in client.get(url).content.decode()


@pytest.mark.parametrize(("code", "name", "message"), [
    ("fr", "français", "already ships with"),
    ("en-ca", "English", "already ships with"),
    ("c", "x", "BCP 47"),
    ("crk_CA!", "x", "BCP 47"),
    ("crk-x", "x", "BCP 47"),  # a private-use part needs its subtag
    ("crk--ux", "x", "BCP 47"),
    ("crk", "", "This field is required"),
    ("crk", "a\x00b", "Null characters are not allowed"),
    ("crk", "a\x07b", "Give the language"),
])
def test_a_bad_language_is_refused_with_the_field_named(client, governance_user, steward, code, name, message):
    client.force_login(governance_user)
    response = client.post(reverse("languages:community_languages", args=[steward.slug]),
                           {"code": code, "name": name, "direction": "ltr"})
    assert response.status_code == 400 and message in response.content.decode()
    assert not InterfaceLanguage.objects.exists()


def test_a_code_cannot_be_added_twice(client, governance_user, steward, cree):
    client.force_login(governance_user)
    response = client.post(reverse("languages:community_languages", args=[steward.slug]),
                           {"code": "crk", "name": "Cree", "direction": "ltr"})
    assert response.status_code == 400 and "already exists" in response.content.decode()


def test_only_the_communitys_governance_staff_reach_the_pages(client, speaker, outsider, steward, cree):
    for user in (speaker, outsider):
        client.force_login(user)
        assert client.get(reverse("languages:community_languages", args=[steward.slug])).status_code == 404
        assert client.get(reverse("languages:translate", args=[steward.slug, "crk"])).status_code == 404


def test_governance_without_two_factor_gets_the_set_up_page(client, governance_user_without_mfa, steward):
    client.force_login(governance_user_without_mfa)
    assert client.get(reverse("languages:community_languages", args=[steward.slug])).status_code == 403


def test_a_translation_shows_to_speakers_at_once_and_english_fills_the_rest(client, governance_user, speaker,
                                                                             steward, cree):
    client.force_login(governance_user)
    url = reverse("languages:translate", args=[steward.slug, "crk"])
    page = client.get(url).content.decode()
    assert "Sign in" in page and "Se connecter" in page  # English, with the French beside it
    response = client.post(url, {field_name(SIGN_IN): "pîhtokwê"})
    assert response.status_code == 302
    row = InterfaceTranslation.objects.get(language=cree, msgid="Sign in")
    assert (row.msgstr, row.updated_by) == ("pîhtokwê", governance_user)
    event = AuditEvent.objects.get(action="interface_translation.changed")
    assert event.details["strings"][0]["translation"] == "pîhtokwê"

    client.logout()
    client.post(reverse("languages:choose"), {"language": "crk"})
    page = client.get(reverse("home")).content.decode()
    assert '<html lang="crk" dir="ltr">' in page
    assert ">pîhtokwê<" in page and ">Leaderboard<" in page

    client.force_login(governance_user)
    client.post(url, {field_name(SIGN_IN): "pîhtokwê ôta"})
    client.logout()  # the test client's logout forgets every cookie, the language's too
    client.post(reverse("languages:choose"), {"language": "crk"})
    assert ">pîhtokwê ôta<" in client.get(reverse("home")).content.decode()


def test_emptying_a_translation_brings_back_the_english(client, governance_user, steward, cree):
    client.force_login(governance_user)
    url = reverse("languages:translate", args=[steward.slug, "crk"])
    leaderboard = field_name(("", "Leaderboard"))
    client.post(url, {field_name(SIGN_IN): "pîhtokwê", leaderboard: "kiskinowâcihcikan"})
    assert InterfaceTranslation.objects.count() == 2
    client.post(url, {field_name(SIGN_IN): "", leaderboard: ""})
    assert not InterfaceTranslation.objects.exists()


@pytest.mark.parametrize("hostile", [
    "<script>alert(1)</script>", "<a href=javascript:alert(1)>x</a>", "x > y", "50 %(secret)s",
])
def test_a_translation_cannot_inject_markup_or_placeholders(client, governance_user, steward, cree, hostile):
    client.force_login(governance_user)
    url = reverse("languages:translate", args=[steward.slug, "crk"])
    response = client.post(url, {field_name(SIGN_IN): hostile, field_name(("", "Leaderboard")): "fine"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "nothing was saved" in page and 'aria-invalid="true"' in page
    assert "<script>alert" not in page
    assert not InterfaceTranslation.objects.exists()


def test_the_javascript_catalog_carries_the_language_and_is_cacheable(client, db):
    response = client.get(reverse("javascript-catalog"), {"language": "fr-ca", "revision": "0.1"})
    assert response.status_code == 200 and "max-age=86400" in response["Cache-Control"]
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="fr-CA").content.decode()
    assert "/jsi18n/?language=fr-ca&amp;revision=" in page


def test_the_translation_page_query_count_does_not_grow(client, governance_user, steward, cree,
                                                        django_assert_max_num_queries):
    client.force_login(governance_user)
    url = reverse("languages:translate", args=[steward.slug, "crk"])
    strings = rater_facing_strings()[:20]
    client.post(url, {field_name(string.key): "x" for string in strings if not string.msgid_plural})
    with django_assert_max_num_queries(12):
        assert client.get(url).status_code == 200


def test_another_communitys_staff_cannot_translate_it(client, steward, other_org, cree):
    elsewhere = member("gov@other.example", other_org, "governance")
    client.force_login(elsewhere)
    assert client.post(reverse("languages:translate", args=[steward.slug, "crk"]),
                       {field_name(SIGN_IN): "x"}).status_code == 404
    assert client.get(reverse("languages:translate", args=[other_org.slug, "crk"])).status_code == 404


def test_the_governance_dashboard_leads_to_the_language_pages(client, governance_user, steward):
    client.force_login(governance_user)
    page = client.get(reverse("submissions:dashboard", args=[steward.slug])).content.decode()
    assert reverse("languages:community_languages", args=[steward.slug]) in page
    assert reverse("review:rating_examples", args=[steward.slug]) in page


def test_a_cached_page_follows_a_changed_translation(client, governance_user, steward, cree):
    """The anonymous leaderboard page is cached whole; its key carries the community language's revision."""
    url = reverse("languages:translate", args=[steward.slug, "crk"])
    leaderboard = field_name(("", "Leaderboard"))
    client.force_login(governance_user)
    client.post(url, {leaderboard: "kiskinowâcihcikan"})
    client.logout()
    client.post(reverse("languages:choose"), {"language": "crk"})
    assert ">kiskinowâcihcikan<" in client.get(reverse("leaderboard:leaderboard")).content.decode()
    client.force_login(governance_user)
    client.post(url, {leaderboard: "kiskinowâcihcikana"})
    client.logout()
    client.post(reverse("languages:choose"), {"language": "crk"})
    assert ">kiskinowâcihcikana<" in client.get(reverse("leaderboard:leaderboard")).content.decode()


def test_a_language_added_again_under_the_same_tag_never_speaks_the_old_ones_strings(
        client, governance_user, steward, cree):
    """A process keeps each community catalog it built, by the language's state: the row's id is in that state,
    so a language deleted and added again reaches the same revision without matching the old catalog."""
    url = reverse("languages:translate", args=[steward.slug, "crk"])
    leaderboard = field_name(("", "Leaderboard"))
    client.force_login(governance_user)
    client.post(url, {leaderboard: "kiskinowâcihcikan"})
    client.post(reverse("languages:choose"), {"language": "crk"})
    assert ">kiskinowâcihcikan<" in client.get(reverse("review:queue")).content.decode()
    revision = InterfaceLanguage.objects.get(code="crk").revision
    InterfaceLanguage.objects.filter(code="crk").delete()
    again = InterfaceLanguage.objects.create(organization=steward, code="crk", name="nēhiyawēwin",
                                             created_by=governance_user, revision=revision)
    InterfaceTranslation.objects.create(language=again, msgid="Leaderboard", msgstr="akihtâson",
                                        updated_by=governance_user)
    from django.core.cache import cache

    from languages.selectors import COMMUNITY_LANGUAGES_KEY

    cache.delete(COMMUNITY_LANGUAGES_KEY)
    page = client.get(reverse("review:queue")).content.decode()
    assert ">akihtâson<" in page and "kiskinowâcihcikan" not in page


@pytest.mark.parametrize("code", ["crk-x-ux", "crk-cans", "oj-ca", "crk-cans-ca-x-y", "zh-yue"])
def test_any_well_formed_tag_is_accepted_private_use_included(client, governance_user, steward, code):
    client.force_login(governance_user)
    response = client.post(reverse("languages:community_languages", args=[steward.slug]),
                           {"code": code.upper(), "name": "nēhiyawēwin (ux)", "direction": "ltr"})
    assert response.status_code == 302, response.content.decode()[:300]
    assert InterfaceLanguage.objects.get().code == code


# ------------------------------------------------------------------ falling back along the reader's own languages

def translate_sign_in(cree, governance_user):
    InterfaceTranslation.objects.create(language=cree, msgid="Sign in", msgstr="pîhtokwê", updated_by=governance_user)
    InterfaceLanguage.objects.filter(pk=cree.pk).update(revision=cree.revision + 1)
    from django.core.cache import cache

    from languages.selectors import COMMUNITY_LANGUAGES_KEY

    cache.delete(COMMUNITY_LANGUAGES_KEY)


def test_a_visitor_falls_back_on_french_before_english(client, governance_user, cree):
    translate_sign_in(cree, governance_user)
    response = client.post(reverse("languages:choose"), {"language": "crk", "fallback_1": "fr-ca"})
    assert response.status_code == 302
    assert response.cookies["champollion_language_fallbacks"].value == "fr-ca"
    page = client.get(reverse("leaderboard:leaderboard")).content.decode()
    assert '<html lang="crk"' in page and ">pîhtokwê<" in page  # the community's own string
    assert "Classement" in page and ">Leaderboard<" not in page  # not written yet: French, not English
    assert "fallbacks=fr-ca" in page  # the script catalog falls back the same way
    script = client.get(reverse("javascript-catalog"), {"language": "crk", "fallbacks": "fr-ca"}).content.decode()
    assert "Toutes vos \\u00e9valuations sont enregistr\\u00e9es." in script


def test_pages_cached_for_one_chain_are_never_served_for_another(client, governance_user, cree):
    from django.test import Client

    translate_sign_in(cree, governance_user)
    english_after = Client()
    english_after.post(reverse("languages:choose"), {"language": "crk"})
    assert ">Leaderboard<" in english_after.get(reverse("leaderboard:leaderboard")).content.decode()
    client.post(reverse("languages:choose"), {"language": "crk", "fallback_1": "fr-ca"})
    assert ">Leaderboard<" not in client.get(reverse("leaderboard:leaderboard")).content.decode()
    assert ">Leaderboard<" in english_after.get(reverse("leaderboard:leaderboard")).content.decode()


def test_a_speakers_chain_is_kept_on_their_account(client, speaker, governance_user, cree):
    translate_sign_in(cree, governance_user)
    client.force_login(speaker)
    client.post(reverse("languages:choose"), {"language": "crk", "fallback_1": "fr-ca", "fallback_2": ""})
    assert speaker.language_fallbacks.codes == ["fr-ca"]
    client.cookies.clear()
    client.force_login(speaker)
    page = client.get(reverse("review:queue")).content.decode()
    assert '<html lang="crk"' in page and "Vos évaluations" in page
    chooser = client.get(reverse("languages:choose")).content.decode()
    assert '<option value="fr-ca" lang="fr-ca" selected>' in chooser


@pytest.mark.parametrize(("fallbacks", "field", "message"), [
    ({"fallback_1": "xx-unknown"}, "fallback_1", "is not an interface language"),
    ({"fallback_1": "crk"}, "fallback_1", "Choose each language once"),
    ({"fallback_1": "fr-ca", "fallback_2": "fr-ca"}, "fallback_2", "Choose each language once"),
])
def test_a_bad_chain_is_refused_naming_the_field(client, speaker, cree, fallbacks, field, message):
    from languages.models import LanguageFallbacks

    client.force_login(speaker)
    response = client.post(reverse("languages:choose"), {"language": "crk", **fallbacks})
    page = response.content.decode()
    assert response.status_code == 400 and message in page
    assert f'id="{field}" aria-invalid="true"' in page
    assert not LanguageFallbacks.objects.exists() and User.objects.get(pk=speaker.pk).interface_language == ""
