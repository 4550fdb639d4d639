"""The standard/1 leaderboard as a visitor sees it after developers published with the upstream harness: chrF++
with its interval and rank cluster, a card published scores-only marked unverified, a card's page saying so.
Clean under axe at phone and desktop widths; screenshots in screenshots/harness-*.png."""

import pytest

from accounts.services import create_api_token
from corpus.services import import_corpus

from .browser_support import assert_accessible as accessible
from .conftest import corpus_bytes, entry, publish
from .harness_fixtures import card_row, harness_card
from .test_browser import (  # noqa: F401 - browser and page are fixtures
    browser,
    expect,
    page,
    screenshot_both,
)
from .test_harness_intake import post, public_entries, publish_like_the_harness

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_reads_the_standard1_leaderboard_of_harness_cards(live_server, page, steward,  # noqa: F811
                                                                     speaker):
    entries = [entry(n, "development", difficulty=1 + n % 3, domain="conv") for n in range(1, 41)]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    key = create_api_token(actor=speaker)[1]
    from django.test import Client

    client = Client()
    shown = public_entries(version)
    card, rows = harness_card(version, shown, run_suffix="aaa111")
    card["dataset"]["entry_count"] = card["scores"]["total"] = 40
    close, close_rows = harness_card(version, shown, model_slug="acme/mt-twin", run_suffix="bbb222",
                                     predict=lambda e: e.reference if int(e.entry_id) % 7 else e.source)
    # Claims more than the verified cards show: still ranked after them, since nothing could recompute it.
    weak, _ = harness_card(version, shown, model_slug="acme/scores-only", run_suffix="ccc333",
                           predict=lambda e: e.source, claimed_chrf=99.9)
    for published, published_rows in ((card, rows), (close, close_rows)):
        publish_like_the_harness(client, key, published, published_rows)
    assert post(client, "run_cards", card_row(weak), key).status_code == 201

    page.goto(f"{live_server.url}/leaderboard/")
    table = page.locator("table.leaderboard tbody tr")
    expect(table).to_have_count(3)
    expect(table.nth(0)).to_contain_text("acme/mt-small")
    expect(table.nth(2)).to_contain_text("acme/scores-only")
    expect(page.locator("table.leaderboard")).to_contain_text("unverified: no per-entry rows")
    expect(table.nth(0).locator("td.chrf")).to_contain_text("[")
    screenshot_both(page, "harness-leaderboard")
    accessible(page, "standard/1 leaderboard")

    page.get_by_role("link", name="acme/scores-only", exact=False).first.click()
    expect(page.locator("main")).to_contain_text("published without its per-entry rows")
    expect(page.locator("main")).to_contain_text("no system prompt")
    screenshot_both(page, "harness-unverified-card")
    accessible(page, "unverified card page")
