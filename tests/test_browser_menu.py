"""The site menu on a phone: folded behind one "Menu" button at 360 px (the header one line high), opened and closed
by tap and by keyboard; a speaker's menu offers what speakers use. Skipped like tests/test_browser.py when
Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

import pytest

from .browser_support import screenshot, sign_in
from .conftest import member
from .test_browser import browser, expect, page  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def phone(browser):  # noqa: F811 - the browser fixture
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_on_a_phone_the_menu_folds_behind_one_button(live_server, phone, steward):
    speaker = member("reader@steward.example", steward, "speaker")
    sign_in(phone, live_server.url, speaker)
    phone.goto(f"{live_server.url}/review/")
    header = phone.locator("header.site")
    assert header.bounding_box()["height"] <= 70, "the header is one line on a 360-pixel phone"
    toggle = phone.get_by_role("button", name="Menu")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(phone.get_by_role("link", name="My account")).to_be_hidden()
    toggle.tap()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    for name in ("Leaderboard", "Reviews", "My account"):
        link = phone.get_by_role("link", name=name)
        expect(link).to_be_visible()
        assert link.bounding_box()["height"] >= 44, f"{name} is too small to tap"
    # A speaker is offered what speakers use: not the datasets or the API.
    expect(phone.locator("header.site").get_by_role("link", name="Datasets")).to_have_count(0)
    expect(phone.locator("header.site").get_by_role("link", name="API")).to_have_count(0)
    screenshot(phone, "menu-open-360", PHONE)
    phone.keyboard.press("Escape")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_be_focused()
    phone.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    phone.get_by_role("link", name="My account").tap()
    phone.wait_for_url(f"{live_server.url}/accounts/profile/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_on_a_wide_screen_every_link_shows_without_a_button(live_server, page, curator):  # noqa: F811
    sign_in(page, live_server.url, curator)
    page.goto(f"{live_server.url}/leaderboard/")
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    for name in ("Datasets", "Leaderboard", "API", "Reviews", "My account"):
        expect(page.locator("header.site").get_by_role("link", name=name)).to_be_visible()
