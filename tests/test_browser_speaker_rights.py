"""A speaker's rights in a real browser: they rate (the page measures their working time), see their hours and the
amount owed, switch to anonymous credit and withdraw a campaign's ratings; governance staff see the decision page
say the evidence changed and export the timesheet. Every page passes axe at phone and desktop widths."""

import csv
import io
import re
import time
from decimal import Decimal

import pytest

from ledger import services as ledger
from ledger.models import SpeakerCredit
from review import services
from review.models import Assignment, Rating

from .browser_support import assert_accessible as accessible
from .review_setup import gold_card, settings_for, speakers, submit
from .test_browser import (  # noqa: F401 - browser and page are fixtures
    browser,
    expect,
    page,
    screenshot_both,
)
from .test_browser import sign_in_with_form as sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REASON = "The council read every output with the speakers and approves the method for teaching."


def test_a_speaker_rates_is_paid_chooses_anonymity_and_withdraws(live_server, page, steward,  # noqa: F811
                                                                   governance_user):
    card = gold_card(steward, governance_user, count=40)
    pool = speakers(steward, 4)
    ledger.set_pay_policy(actor=governance_user, organization=steward, hourly_rate=Decimal("60.00"),
                            currency="CAD", default_seconds_per_rating=45)
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=30))
    speaker = pool[0]
    ledger.set_speaker_credit(actor=speaker, organization=steward, choice="display_name", display_name="Kôhkom")

    sign_in(page, live_server.url, speaker)
    page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
    for _ in range(2):
        page.wait_for_timeout(300)
        page.get_by_role("button", name=re.compile("Acceptable")).click()
        page.wait_for_load_state()
    expect(page.locator("[data-save-status]")).to_contain_text(re.compile("Saved|saved"))
    page.wait_for_function("() => !document.querySelector('[data-pending]') || "
                           "document.querySelector('[data-pending]').hidden")
    timed = list(Rating.objects.filter(speaker=speaker).values_list("timed_by", "active_seconds"))
    assert len(timed) == 2 and all(by == "device" and 0 < seconds < 60 for by, seconds in timed)
    for assignment in Assignment.objects.filter(campaign=campaign, state="open").select_related("speaker"):
        submit(assignment, "excellent", active_seconds=600.0, timed_by="device")
    services.record_decision(actor=governance_user, campaign=campaign, outcome="approve", rationale=REASON,
                             against_recommendation=True)

    page.goto(f"{live_server.url}/review/me/")
    row = page.locator("tr", has_text=steward.name)
    expect(row.locator("[data-owed]")).to_contain_text("CAD")
    hours = float(row.locator("[data-hours]").inner_text())
    assert hours > 1, "the ratings timed at ten minutes each count"
    screenshot_both(page, "speaker-time-pay")
    accessible(page, "the speaker's time, pay and credit page")

    credit = page.locator(f"[data-credit-form={steward.slug}]")
    credit.get_by_label("Anonymously: count me, never name me").check()
    credit.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("credits you this way from now on")
    assert SpeakerCredit.objects.get(user=speaker).choice == "anonymous"

    page.locator("tr", has_text=steward.name).get_by_role("link", name="Withdraw…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Withdraw your ratings of this campaign?")
    expect(page.locator("main")).to_contain_text("Your pay is unaffected")
    accessible(page, "the withdrawal confirmation")
    page.get_by_role("button", name="Withdraw my ratings").click()
    expect(page.locator(".messages")).to_contain_text("no longer count anywhere")
    expect(page.locator("tr", has_text=steward.name).locator("[data-withdrawn]")).to_be_visible()
    assert not Rating.objects.filter(speaker=speaker, is_current=True).exists()

    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/review/campaigns/{campaign.public_id}/decision/")
    expect(page.locator("[data-evidence-changed]")).to_contain_text("Evidence changed after the decision")
    expect(page.locator("main")).not_to_contain_text("Kôhkom")
    screenshot_both(page, "decision-evidence-changed")
    page.goto(f"{live_server.url}/review/campaigns/{campaign.public_id}/timesheet/")
    expect(page.locator("tr", has_text=speaker.email)).to_contain_text("ratings withdrawn")
    accessible(page, "the campaign's timesheet")
    screenshot_both(page, "timesheet")
    with page.expect_download() as download:
        page.get_by_role("link", name="Export the timesheet (CSV)").click()
    rows = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8-sig").read())))
    mine = next(row for row in rows if row["speaker"] == speaker.email)
    assert float(mine["hours"]) == pytest.approx(hours, abs=0.01) and mine["ratings_withdrawn"] == "True"


def form_fields(body: str) -> dict[str, str]:
    """The fields of a multipart form body, as rate.js posts them."""
    return dict(re.findall(r'name="([^"]+)"\r\n\r\n([^\r]*)\r\n', body))


def test_the_rating_page_counts_working_time_but_not_a_long_idle_gap(live_server, page, steward,  # noqa: F811
                                                                      governance_user):
    """What the page sends (the server then bounds it by its own clock, which a faked page clock can't move)."""
    card = gold_card(steward, governance_user, count=40)
    pool = speakers(steward, 3)
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool))
    speaker = pool[0]
    sign_in(page, live_server.url, speaker)
    sent: list[dict] = []
    page.on("request", lambda request: sent.append(form_fields(request.post_data or "")) if (
        request.method == "POST" and "/review/items/" in request.url) else None)
    page.clock.install()
    page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
    item = page.locator("[data-item]")
    first = item.get_attribute("data-item-id")
    for _ in range(2):  # two minutes of reading, a touch of the keyboard each minute
        page.clock.run_for(60_000)
        page.keyboard.press("Shift")
    page.keyboard.press("3")
    expect(item).not_to_have_attribute("data-item-id", first)
    # The first rating answered before the page's clock jumps: a jump while it is on its way would fire its
    # time-out (the page's clock is faked) and leave the retry waiting on a clock that no longer moves.
    expect(page.locator("[data-save-status]")).to_have_text("All your ratings are saved.")
    page.clock.run_for(10 * 60_000)  # ten minutes away from the phone, then an answer
    page.keyboard.press("3")
    for _ in range(100):
        if Rating.objects.filter(speaker=speaker).count() == 2:
            break
        time.sleep(0.1)
    reading, away = (int(body["active_ms"]) for body in sent[:2])
    assert 120_000 <= reading <= 135_000
    assert away < 5_000, "a gap of more than three minutes without input does not count"
    assert all(body["shown"] for body in sent[:2]), "each rating carries the server's proof of its showing"


def test_a_speaker_on_a_phone_finds_a_named_campaign_and_opens_the_finished_ones(
        live_server, page, steward, governance_user):  # noqa: F811
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 3)
    current = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
        pool, sample_size=4, speaker_title="Greetings, spring round"))
    closed = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
        pool, sample_size=4, speaker_title="Winter round"))
    submit(Assignment.objects.filter(campaign=closed, speaker=pool[0], state="open").first(), "gist")
    services.set_campaign_status(actor=governance_user, campaign=closed, status="closed")

    page.set_viewport_size({"width": 360, "height": 780})
    sign_in(page, live_server.url, pool[0])
    page.goto(f"{live_server.url}/review/")
    expect(page.locator(".campaign-list h2")).to_have_text(["Greetings, spring round"])
    finished = page.locator("details.finished-campaigns")
    expect(finished.get_by_role("link", name="Your ratings")).to_be_hidden()
    finished.locator("summary").click()
    expect(finished).to_contain_text("Winter round")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    accessible(page, "review-queue-finished")
    page.set_viewport_size({"width": 360, "height": 780})
    finished.get_by_role("link", name="Your ratings").click()
    page.wait_for_url(re.compile(f".*/review/c/{closed.public_id}/done/$"))
    expect(page.locator("main")).to_contain_text("Winter round")
    assert str(current.public_id) not in page.url
