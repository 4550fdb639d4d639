"""Community review in a real headless Chromium: governance staff open a campaign, two speakers rate
everything on a phone-sized screen with keys and taps (one through a dropped connection), governance
staff approve on the decision page and the leaderboard shows Community Validated. Everyone signs in
through the login form; governance staff also type their authenticator app's code. Screenshots go to
screenshots/review-*.png."""

import re

import pytest

from review.models import Campaign, Rating

from .review_setup import MODEL_SLUG, gold_card, speakers
from .test_browser import (  # noqa: F401 - browser and page are fixtures
    PHONE,
    SCREENSHOTS,
    browser,
    expect,
    page,
    screenshot_both,
)
from .test_browser import sign_in_with_form as sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_open_rate_on_a_phone_and_approve(live_server, page, steward, governance_user):  # noqa: F811
    card = gold_card(steward, governance_user, count=12)
    first, second, third = speakers(steward, 3)

    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/review/campaigns/new/{card.public_id}/")
    page.get_by_label("Title").fill("Clinic phrases, first look")
    page.get_by_label("Sample size", exact=True).fill("6")
    page.get_by_label("Ratings per item", exact=True).fill("3")
    for speaker in (first, second, third):
        page.get_by_label(speaker.email).check()
    screenshot_both(page, "review-open-campaign")
    page.get_by_role("button", name="Open the campaign").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Clinic phrases, first look")
    expect(page.locator("main")).to_contain_text("Difficulty 1")
    campaign = Campaign.objects.get()

    page.set_viewport_size(PHONE)
    sign_in(page, live_server.url, first)
    page.goto(f"{live_server.url}/review/")
    page.get_by_role("link", name="Start").click()
    expect(page.locator(".progress")).to_contain_text("0 of 6 rated")
    assert MODEL_SLUG not in page.content()
    screenshot_both(page, "review-rating-page")
    for number in range(1, 7):
        expect(page.locator(".progress")).to_contain_text(f"{number - 1} of 6 rated")
        # The progress text is in the new page's HTML before its deferred rate.js binds the keys: wait for that,
        # and for the item itself (the page waits for the previous rating's answer when it holds no next item).
        page.wait_for_load_state("load")
        expect(page.locator("[data-item]")).to_be_visible()
        expect(page.locator("button.rating").first).to_be_enabled()
        if number == 2:
            failures = {"left": 1}

            def drop_once(route):
                if failures["left"]:  # noqa: B023 - routed within this iteration
                    failures["left"] -= 1  # noqa: B023
                    route.abort()
                else:
                    route.continue_()

            # The context, not the page: the rating page's service worker sends the ratings.
            page.context.route(re.compile(r".*/review/items/.*"), drop_once)
            page.keyboard.press("3")
            expect(page.locator("[data-save-status]")).to_contain_text("Not sent yet")
            screenshot_both(page, "review-retrying")
            page.wait_for_url(re.compile(r".*/review/(items|c)/.*"), timeout=15_000)
            expect(page.locator(".progress")).to_contain_text("2 of 6 rated", timeout=15_000)
            page.context.unroute(re.compile(r".*/review/items/.*"))
            continue
        if number == 3:
            # One round trip per rating: the rating's answer is the next item, shown in place (no page load).
            sent = []
            page.on("request", lambda request: sent.append(request.method) if "/review/" in request.url else None)  # noqa: B023
            shown = page.locator(".text.source").inner_text()
            page.keyboard.press("4")
            expect(page.locator(".progress")).to_contain_text("3 of 6 rated")
            expect(page.locator(".text.source")).not_to_have_text(shown)
            expect(page.locator("button.rating").first).to_be_enabled()
            assert sent == ["POST"] and re.search(r"/review/items/[0-9a-f-]+/$", page.url)
            continue
        if number % 2:
            page.keyboard.press("4")
        else:
            page.get_by_role("button", name=re.compile("Excellent")).click()
        page.wait_for_load_state()
    expect(page.get_by_role("heading", level=1)).to_have_text("All done — thank you!")
    screenshot_both(page, "review-done")
    assert Rating.objects.filter(speaker=first).count() == 6, "the retried rating is stored once"

    sign_in(page, live_server.url, second)
    page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
    for _ in range(6):
        page.get_by_role("button", name=re.compile("Excellent")).click()
        page.wait_for_load_state()
    expect(page.get_by_role("heading", level=1)).to_have_text("All done — thank you!")

    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/review/campaigns/{campaign.public_id}/decision/")
    expect(page.locator(".gate h2")).to_contain_text("Gate recommendation")
    screenshot_both(page, "review-decision")
    page.get_by_label(re.compile("^Approve")).check()
    page.get_by_label("Rationale").fill("Both speakers found every output acceptable or better.")
    # Six items, and two of the three speakers' ratings, are too few for a pass: approving all the same takes the
    # explicit confirmation.
    page.get_by_role("button", name="Record the decision").click()
    expect(page.locator(".errorlist")).to_contain_text("To approve all the same")
    page.get_by_label("The community approves against the gate's recommendation").check()
    page.get_by_role("button", name="Record the decision").click()
    expect(page.locator(".messages")).to_contain_text("Decision recorded.")
    page.goto(f"{live_server.url}/leaderboard/?standard=legacy-composite")
    expect(page.locator("main")).to_contain_text("Community Validated")
    assert (SCREENSHOTS / "review-rating-page-phone.png").exists()
