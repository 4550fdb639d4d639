"""The sentences around the source in a real headless Chromium on a 360-px phone: rate.js shows each held item's
own context as it moves on (one tap per rating, no page load), an item of no text shows none, and the page stays
within the screen. Screenshot: screenshots/rate-context-360.png.

Skipped like tests/test_browser.py when Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

import pytest

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.services import submit_run_card
from review import services

from .browser_support import BLOCKING_IMPACTS, axe_violations, screenshot, sign_in
from .cards import body, make_card
from .conftest import corpus_bytes, enable_totp, entry, publish
from .review_setup import MODEL_SLUG, speakers
from .test_browser import (  # noqa: F401 - fixtures
    browser,
    expect,
    page,
)
from .test_browser_rate_phone import open_rating_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STORY = ["The river was high that spring.", "My grandfather took the canoe out anyway.",
         "He said the water knew him.", "We waited on the shore until dark.", "He came back with two fish."]


def story_campaign(steward, governance_user, speaker, segment: str = "development"):
    """A story of five sentences in order (one text), then a sentence of no text; one speaker rates all six."""
    entries = [entry(n, segment, source=text, document_id="river") for n, text in enumerate(STORY, start=1)]
    entries.append(entry(6, segment, source="Where is the clinic?"))
    enable_totp(governance_user)
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    rows = list(Entry.objects.filter(version=version).order_by("position"))
    card = submit_run_card(body=body(make_card(version, rows, composite=0.8, model_slug=MODEL_SLUG)),
                           actor=governance_user)
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=services.CampaignSettings(
        title="River story", sample_size=6, speakers=[speaker], ratings_per_item=1, seed=3))
    return campaign


def shown_context(page, side: str) -> list[str]:  # noqa: F811 - a page, not the fixture
    box = page.locator(f'[data-context="{side}"]')
    return box.locator(".context-line").all_inner_texts() if box.is_visible() else []


def test_a_speaker_on_a_phone_reads_each_items_own_context_as_rate_js_moves_on(live_server, page, steward,  # noqa: F811
                                                                             governance_user):
    speaker = speakers(steward, 1)[0]
    campaign = story_campaign(steward, governance_user, speaker)
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, live_server.url, speaker)
    open_rating_page(page, live_server.url, campaign)
    seen = 0
    for _ in range(6):
        source = page.locator('[data-text="source"]').inner_text()
        if source in STORY:
            at = STORY.index(source)
            assert shown_context(page, "before") == STORY[max(0, at - 2):at]
            assert shown_context(page, "after") == STORY[at + 1:at + 2]
            for line in page.locator(".context-line").all():
                assert line.get_attribute("lang") == "en"
            if at == 2:
                screenshot(page, "rate-context-360", {"width": 360, "height": 740})
                assert page.evaluate("document.documentElement.scrollWidth") <= 360
                blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING_IMPACTS]
                assert blocking == [], blocking
        else:
            assert shown_context(page, "before") == [] and shown_context(page, "after") == []
        seen += 1
        page.get_by_role("button", name="Acceptable").click()
        if seen < 6:
            expect(page.locator('[data-text="source"]')).not_to_have_text(source)
    assert seen == 6


def test_secret_items_the_phone_may_not_keep_come_one_per_rating_with_their_context(live_server, page, steward,  # noqa: F811
                                                                                   governance_user):
    """A campaign on secret sentences that phones may not keep: each rating's answer carries the next item (texts,
    context, showing stamp), so one request per rating and no page load; every sentence of the story is the
    speaker's own to rate, so none reads "kept secret"."""
    speaker = speakers(steward, 1)[0]
    campaign = story_campaign(steward, governance_user, speaker, segment="gold_standard")
    assert not campaign.device_may_hold_secret_items
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, live_server.url, speaker)
    page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
    page.get_by_role("button", name="Got it").click()
    requests = []
    page.on("request", lambda request: requests.append((request.method, request.url)))
    for _ in range(5):
        source = page.locator('[data-text="source"]').inner_text()
        if source in STORY:
            at = STORY.index(source)
            assert shown_context(page, "before") == STORY[max(0, at - 2):at]
            assert shown_context(page, "after") == STORY[at + 1:at + 2]
        requests.clear()
        with page.expect_response(lambda response: response.request.method == "POST"):
            page.get_by_role("button", name="Gist").click()
        expect(page.locator('[data-text="source"]')).not_to_have_text(source)
        posts = [url for method, url in requests if method == "POST"]
        pages = [url for method, url in requests if method == "GET" and "/review/items/" in url]
        assert len(posts) == 1 and pages == [], requests
    assert page.locator("[data-secret]").count() == 0
