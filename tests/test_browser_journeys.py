"""Two journeys of issue 6 in a real headless Chromium against the live server, with screenshots in
screenshots/journey2-*.png and journey4-*.png (desktop 1280 px and phone 390 px):

2. a method developer creates an API token on My account, publishes a run card with it (what `curl` does), and
   finds the row on the leaderboard filtered by domain;
4. governance staff revoke a dataset's consent, and the public pages and the speakers' queue show the withdrawal.

Users are signed in with a session cookie (tests/browser_support.py: sign_in), not through the login form.
Skipped like tests/test_browser.py when Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

import json
import urllib.error
import urllib.request

import pytest

from accounts.services import get_or_create_user
from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.models import RunCard
from leaderboard.services import submit_run_card
from review.models import Assignment

from .browser_support import reviewed_public_dataset, sign_in
from .cards import body, make_card
from .conftest import PASSWORD, corpus_bytes, entry, publish
from .review_setup import speakers
from .test_browser import (  # noqa: F401 - fixtures
    CREE_SRO,
    CREE_SYLLABICS,
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    browser,
    expect,
    page,
    screenshot_both,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REASON = "Chief and Council withdrew the recordings pending a community meeting."


def post_run_card(base_url: str, key: str, card: dict) -> tuple[int, dict]:
    """What `curl -X POST .../api/v1/run-cards/ -H "Authorization: Token $TOKEN" --data-binary @card.json` does."""
    request = urllib.request.Request(f"{base_url}/api/v1/run-cards/", data=body(card), method="POST", headers={
        "Authorization": f"Token {key}", "Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def conversation_version(steward):
    """A public EN→CRK dataset of development entries: two conversational ones whose references are Cree in
    standard Roman orthography and in syllabics, and four medical ones."""
    conversational = {"domain": "conv", "register": "conversational", "provenance": "elicited", "difficulty": 1}
    entries = [entry(1, source="I see the dog", reference=CREE_SRO, **conversational),
               entry(2, source="I see the dog", reference=CREE_SYLLABICS, **conversational)]
    entries += [entry(n, difficulty=2, domain="medical", provenance="elicited") for n in range(3, 7)]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    return version


def test_journey2_developer_publishes_with_a_token_and_finds_the_row(live_server, browser, page,  # noqa: F811
                                                                     conversation_version):
    entries = list(Entry.objects.filter(version=conversation_version).order_by("position"))
    clinic_only = [row for row in entries if row.domain == "medical"]
    other, _ = get_or_create_user("clinic-team@methods.example", PASSWORD)
    submit_run_card(
        body=body(make_card(conversation_version, clinic_only, composite=0.7, model_slug="clinic-mt")),
        actor=other,
    )
    developer, _ = get_or_create_user("dev@methods.example", PASSWORD)

    sign_in(page, live_server.url, developer)
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="My account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("My account")
    expect(page.locator("main")).to_contain_text("You have no role in any organization yet")
    page.get_by_label("Name of a new token").fill("mt-eval publish on my laptop")
    screenshot_both(page, "journey2-1-account")
    page.get_by_role("button", name="Create token").click()
    shown = page.get_by_role("alert")
    expect(shown).to_contain_text("copy it now, it is not shown again")
    key = page.locator("#new-token").inner_text().strip()
    assert len(key) >= 32 and " " not in key
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("tbody tr").first).to_contain_text("mt-eval publish on my laptop")
    expect(page.locator("tbody tr").first).to_contain_text(f"{key[:8]}…")
    screenshot_both(page, "journey2-2-token-shown-once")
    page.reload()
    assert key not in page.content(), "the token is shown once"

    # Only what the developer can see: the public development entries. Right on both conversational ones.
    card = make_card(conversation_version, entries, composite=0.74, model_slug="nehiyaw-mt", condition="few-shot",
                     predict=lambda row: row.reference if row.domain == "conv" else "tânisi")
    status, answer = post_run_card(live_server.url, key, card)
    assert status == 201, answer
    assert answer["hash_verified"] is True and answer["dataset"] == "test-en-crk" and answer["status"] == "ready"
    stored = RunCard.objects.get(public_id=answer["id"])
    assert stored.submitted_by == developer and str(stored.run_id) == card["run_id"]
    assert post_run_card(live_server.url, "not-a-token", card)[0] == 401

    page.get_by_role("link", name="Leaderboard").click()
    # standard/1 is the default ranking; these cards are legacy-composite, ranked on their own. The filters fold
    # behind one line until opened.
    page.locator("details.leaderboard-filter-box > summary").click()
    page.get_by_label("Scoring standard").select_option("legacy-composite")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**standard=legacy-composite**")
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
    page.get_by_label("Domain").select_option(label="Conversation")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**domain=conv**")
    expect(page.get_by_role("status")).to_contain_text("computed over the Conversation entries only")
    rows = page.locator("table.leaderboard tbody tr")
    expect(rows).to_have_count(1)
    mine = rows.first
    expect(mine.locator("td.method")).to_contain_text("nehiyaw-mt · few-shot")
    expect(mine.locator("td.method")).to_contain_text("2 entries scored")
    expect(mine.locator("td.exact")).to_have_text("1.000")
    expect(page.get_by_label("Domain")).to_have_value("conv")
    screenshot_both(page, "journey2-3-leaderboard-conversation")

    mine.get_by_role("link", name="nehiyaw-mt · few-shot").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("nehiyaw-mt · few-shot")
    expect(page.locator("main")).to_contain_text(CREE_SYLLABICS)
    expect(page.locator("main")).to_contain_text(CREE_SRO)
    screenshot_both(page, "journey2-4-run-card")

    # Syllabics up close, as a high-density phone screen draws them: a box per character would show here.
    close_up = browser.new_context(viewport=PHONE, device_scale_factor=3)
    phone = close_up.new_page()
    phone.goto(page.url)
    syllabics = phone.locator("td.text", has_text=CREE_SYLLABICS).first
    expect(syllabics).to_contain_text(CREE_SYLLABICS)
    expect(syllabics).to_have_attribute("lang", "crk")  # read out as Cree, not as English
    syllabics.screenshot(path=SCREENSHOTS / "journey2-5-syllabics-close-up.png")
    close_up.close()


def test_journey4_governance_revokes_consent_and_everyone_sees_the_withdrawal(live_server, browser, page,  # noqa: F811
                                                                             steward, governance_user):
    version, _, campaign = reviewed_public_dataset(steward, governance_user, speakers(steward, 2), sample_size=12,
                                                   ratings_per_item=1)
    waiting = Assignment.objects.select_related("speaker").get(campaign=campaign,
                                                               item__entry__reference=CREE_SYLLABICS)
    speaker = waiting.speaker
    identifier = version.dataset.identifier

    # Before: the speaker has items waiting and reads one.
    sign_in(page, live_server.url, speaker)
    page.goto(f"{live_server.url}/review/")
    expect(page.get_by_role("link", name="Start")).to_be_visible()
    page.goto(f"{live_server.url}/review/items/{waiting.public_id}/")
    expect(page.locator(".item .text.source")).to_have_text("I see the dog")
    expect(page.locator(".item .text.candidate")).to_have_text(CREE_SYLLABICS)
    screenshot_both(page, "journey4-1-speaker-rates-before")

    # Governance staff revoke the one consent record, with a reason.
    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/datasets/d/{identifier}/consent/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Community consent")
    record = version.dataset.consents.get()
    screenshot_both(page, "journey4-2-consent-page")
    page.get_by_role("link", name=f"Revoke record #{record.pk}…").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Revoke consent record #{record.pk}")
    effects = page.locator("section.revoke-effects")
    expect(effects).to_contain_text("Human review")
    page.get_by_role("button", name=f"Revoke record #{record.pk}").click()
    expect(page.locator(".errorlist")).to_have_text(
        "Say why the consent is revoked; the reason is kept with the record.")
    page.get_by_label("Why is the consent revoked?").fill(REASON)
    screenshot_both(page, "journey4-3-revoke-confirm")
    page.get_by_role("button", name=f"Revoke record #{record.pk}").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Community consent")
    expect(page.locator(".messages")).to_contain_text(f"Consent #{record.pk} revoked")
    expect(page.locator(f"#consent-{record.pk}")).to_contain_text(REASON)
    expect(page.locator(f"#consent-{record.pk} .badge.revoked")).to_be_visible()
    screenshot_both(page, "journey4-4-consent-revoked")

    # (a) An anonymous visitor: the dataset and its entry list say "withdrawn by its community".
    visitor = browser.new_context(viewport=DESKTOP)
    anonymous = visitor.new_page()
    response = anonymous.goto(f"{live_server.url}/datasets/d/{identifier}/")
    assert response.status == 410
    expect(anonymous.get_by_role("heading", level=1)).to_have_text("Withdrawn by its community")
    expect(anonymous.locator("main")).to_contain_text(f"The dataset {identifier} was withdrawn by its community")
    screenshot_both(anonymous, "journey4-5-visitor-dataset-withdrawn")
    response = anonymous.goto(f"{live_server.url}/datasets/versions/{version.pk}/entries/")
    assert response.status == 410
    expect(anonymous.get_by_role("heading", level=1)).to_have_text("Withdrawn by its community")
    assert CREE_SRO not in anonymous.content() and CREE_SYLLABICS not in anonymous.content()
    anonymous.goto(f"{live_server.url}/datasets/")
    assert identifier not in anonymous.locator("main").inner_text()
    visitor.close()

    # (b) The speaker: the queue says so, and the rating page no longer shows the item.
    sign_in(page, live_server.url, speaker)
    page.goto(f"{live_server.url}/review/")
    expect(page.locator(".campaign-list")).to_contain_text("Withdrawn by its community")
    expect(page.get_by_role("link", name="Start")).to_have_count(0)
    screenshot_both(page, "journey4-6-speaker-queue-withdrawn")
    response = page.goto(f"{live_server.url}/review/items/{waiting.public_id}/")
    assert response.status == 409
    expect(page.get_by_role("heading", level=1)).to_have_text("Withdrawn by its community")
    assert CREE_SYLLABICS not in page.content() and "I see the dog" not in page.content()
    screenshot_both(page, "journey4-7-rating-page-withdrawn")
