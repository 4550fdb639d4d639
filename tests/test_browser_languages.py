"""The interface in the community's language, in a real headless Chromium on a small phone: a speaker works in
French from sign-in to the end of a campaign with no English left on any page; governance staff add their
community's language, translate the rating buttons, and a speaker rates with them (issue 12, part 4).
Screenshots of the rating page at 360 px in the three languages go to screenshots/language-*.png."""

import re

import pytest
from django.urls import reverse

from languages.models import InterfaceTranslation
from review import services
from review.models import Campaign, Rating

from .conftest import PASSWORD
from .review_setup import gold_card, settings_for, speakers
from .test_browser import SCREENSHOTS, browser, expect  # noqa: F401 - browser is a fixture
from .test_i18n_pages import english_left, english_msgids  # noqa: F401 - english_msgids is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RATING_PAGE_PHONE = {"width": 360, "height": 740}


def new_page(browser, viewport: dict | None = None, locale: str = "en-CA"):  # noqa: F811
    context = browser.new_context(viewport=viewport or RATING_PAGE_PHONE, locale=locale)
    context.set_default_timeout(10_000)
    return context.new_page()


def dismiss_walkthrough(page) -> None:
    """The rating page explains itself the first time; a speaker closes the explanation."""
    page.wait_for_load_state("load")
    done = page.locator("[data-walkthrough-done]")
    if done.is_visible():
        done.click()


@pytest.fixture
def campaign(steward, governance_user) -> Campaign:
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    return services.open_campaign(run_card=card, actor=governance_user,
                                  values=settings_for(pool, sample_size=3, ratings_per_item=2))


def no_english(page, english_msgids) -> None:  # noqa: F811
    page.wait_for_load_state("load")
    left = english_left(page.content(), english_msgids)
    assert left == [], f"{page.url} still shows English: {left}"


def test_a_speaker_works_in_french_from_sign_in_to_done(live_server, browser, campaign, english_msgids):  # noqa: F811
    speaker = campaign.pool.order_by("user__email").first().user
    page = new_page(browser, locale="fr-CA")
    page.goto(f"{live_server.url}/accounts/login/")
    no_english(page, english_msgids)
    page.fill("input[name=login]", speaker.email)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r".*/review/$"))
    no_english(page, english_msgids)
    page.locator(f"a[href='/review/c/{campaign.public_id}/']").first.click()
    page.wait_for_url(re.compile(r".*/review/items/.*"))
    dismiss_walkthrough(page)
    no_english(page, english_msgids)
    page.screenshot(path=SCREENSHOTS / "language-fr-rating-page.png")
    for done in range(1, 4):
        page.keyboard.press("3")
        if done < 3:
            expect(page.locator("[data-progress-text]")).to_contain_text(f"{done} sur 3")
            no_english(page, english_msgids)
    page.wait_for_url(re.compile(r".*/done/$"))
    no_english(page, english_msgids)
    assert Rating.objects.filter(speaker=speaker).count() == 3


def test_governance_translates_the_rating_buttons_and_a_speaker_rates_with_them(
        live_server, browser, campaign, steward, governance_user):  # noqa: F811
    from .test_browser import sign_in_with_form

    staff = new_page(browser)
    sign_in_with_form(staff, live_server.url, governance_user)
    staff.goto(live_server.url + reverse("languages:community_languages", args=[steward.slug]))
    staff.get_by_label("Language tag (BCP 47)").fill("crk")
    staff.get_by_label("Name of the language, as its speakers write it").fill("nēhiyawēwin")
    staff.get_by_role("button", name="Add the language").click()
    staff.wait_for_url(re.compile(r".*/languages/crk/$"))
    words = {"Acceptable": "miywâsin", "Excellent": "mitoni miywâsin"}
    for english, cree in words.items():
        staff.locator("fieldset", has=staff.locator("legend", has_text=re.compile(f"^{english}$"))) \
            .locator("textarea").first.fill(cree)
    staff.get_by_role("button", name="Save the translations").click()
    expect(staff.locator(".messages")).to_contain_text("2 strings saved.")
    assert InterfaceTranslation.objects.filter(language__code="crk").count() == 2

    speaker = campaign.pool.order_by("user__email").first().user
    page = new_page(browser, viewport=RATING_PAGE_PHONE)
    from .browser_support import sign_in

    sign_in(page, live_server.url, speaker)
    page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
    dismiss_walkthrough(page)
    expect(page.locator(".rating-buttons")).to_contain_text("Excellent")
    page.screenshot(path=SCREENSHOTS / "language-en-rating-page.png")
    page.goto(f"{live_server.url}/language/")
    page.get_by_label("nēhiyawēwin").check()
    page.locator("form button").last.click()
    page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
    page.wait_for_url(re.compile(r".*/review/items/.*"))
    dismiss_walkthrough(page)
    assert page.locator("html").get_attribute("lang") == "crk"
    expect(page.locator(".rating-buttons")).to_contain_text("mitoni miywâsin")
    expect(page.locator(".rating-buttons")).to_contain_text("miywâsin")
    page.screenshot(path=SCREENSHOTS / "language-crk-rating-page.png")
    page.get_by_role("button", name=re.compile("mitoni miywâsin")).click()
    expect(page.locator("[data-progress-text]")).to_contain_text("1")
    assert Rating.objects.filter(speaker=speaker, value="excellent").count() == 1
