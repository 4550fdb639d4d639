"""The rating page in a real headless Chromium, as a speaker holds it: on a 360 × 740 and a 390 × 844 phone the
source, the candidate (120 characters each), the four ratings, "can't judge" and the save status are on screen
without scrolling; five ratings given without a connection survive a reload and are stored exactly once each
when the network returns; keys rate, undo (bringing back flags, comment and translation) and open the help.
Screenshots: screenshots/rate-*.png.

Skipped like tests/test_browser.py when Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

import re

import pytest

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.services import submit_run_card
from review import services
from review.models import Assignment, Campaign, Rating

from .browser_support import BLOCKING_IMPACTS, axe_violations, describe, id_problems, screenshot, sign_in
from .cards import body, make_card
from .conftest import corpus_bytes, enable_totp, entry, publish
from .review_setup import MODEL_SLUG, speakers
from .test_browser import (  # noqa: F401 - fixtures
    browser,
    expect,
    page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONES = {"360x740": {"width": 360, "height": 740}, "390x844": {"width": 390, "height": 844}}
# 120 characters each, with long words: the longest item the page promises to show whole.
SOURCE = ("The nurse will visit on Tuesday morning to check the dressing; please keep the wound dry, and call us if it "
          "hurts, please")
CANDIDATE = ("kîkisêpâyâki nîso-kîsikâw ka-pê-kiyokêw maskihkîwiskwêw; kanawêyimi ê-pâstêk, êkwa kitohtê kîspin "
             "wîsakêyihtaman anohc kîsikâk")


def long_text_campaign(organization, governance_user, pool, count: int = 8, **settings) -> Campaign:
    """A public dataset of `count` development entries whose source and reference are 120 characters long, a run
    card whose outputs are the references, and an open campaign giving every speaker every item."""
    assert len(SOURCE) >= 117 and len(CANDIDATE) >= 117
    entries = [entry(n, source=f"{n:02d} {SOURCE}"[:120], reference=f"{n:02d} {CANDIDATE}"[:120], domain="medical",
                     difficulty=1 + n % 3) for n in range(1, count + 1)]
    enable_totp(governance_user)
    version = import_corpus(data=corpus_bytes(entries), organization=organization, actor=None).version
    publish(version.dataset)
    rows = list(Entry.objects.filter(version=version).order_by("position"))
    card = submit_run_card(body=body(make_card(version, rows, composite=0.8, model_slug=MODEL_SLUG)),
                           actor=governance_user)
    values = services.CampaignSettings(title="Clinic phrases", sample_size=count, speakers=pool,
                                       ratings_per_item=len(pool), seed=3, **settings)
    return services.open_campaign(run_card=card, actor=governance_user, values=values)


def open_rating_page(page, base_url: str, campaign: Campaign) -> None:  # noqa: F811 - a page, not the fixture
    """Go to the speaker's next item and wait until rate.js holds the items after it; the first-time walkthrough
    is dismissed (and stays dismissed on this device)."""
    with page.expect_response(re.compile(r"/review/c/[0-9a-f-]+/upcoming/$")):
        page.goto(f"{base_url}/review/c/{campaign.public_id}/")
    walkthrough = page.locator("[data-walkthrough]")
    if walkthrough.is_visible():
        page.get_by_role("button", name="Got it").click()
    expect(walkthrough).to_be_hidden()


# An element's text: the lines it takes on screen, and its words (more lines than words: a word was cut).
LINES_AND_WORDS = """e => {
    const range = document.createRange();
    range.selectNodeContents(e);
    const tops = new Set(Array.from(range.getClientRects(), rect => Math.round(rect.top)));
    return [tops.size, e.textContent.trim().split(/\\s+/).length];
}"""


def ready_offline(page) -> None:  # noqa: F811 - a page, not the fixture
    """Wait until the rating page stored its shell and its service worker controls it."""
    expect(page.locator("[data-rating-form][data-offline-ready]")).to_have_count(1)
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def inside_viewport(page, locator) -> bool:  # noqa: F811 - a page, not the fixture
    box = locator.bounding_box()
    viewport = page.viewport_size
    return (box is not None and box["y"] >= 0 and box["x"] >= 0 and box["y"] + box["height"] <= viewport["height"]
            and box["x"] + box["width"] <= viewport["width"])


def test_on_a_phone_the_texts_the_ratings_and_the_save_status_fit_the_screen(live_server, page, steward,  # noqa: F811
                                                                           governance_user):
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker])
    sign_in(page, live_server.url, speaker)
    for name, viewport in PHONES.items():
        page.set_viewport_size(viewport)
        open_rating_page(page, live_server.url, campaign)
        page.keyboard.press("4")  # a rating shown in the save status, so that it has something to say
        expect(page.locator("[data-save-status]")).not_to_be_empty()
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("window.scrollY") == 0
        source, candidate = page.locator(".text.source"), page.locator(".text.candidate")
        assert len(source.inner_text().strip()) == 120 and len(candidate.inner_text().strip()) == 120
        cant_judge = page.get_by_role("button", name=re.compile("Can't judge"))
        for locator in (source, candidate, page.locator("[data-save-status]"), cant_judge):
            assert inside_viewport(page, locator), f"{locator} is not on screen at {name}"
        assert cant_judge.bounding_box()["y"] + cant_judge.bounding_box()["height"] <= \
            page.locator(".rate-status").bounding_box()["y"], f"the save status covers a button at {name}"
        ratings = page.locator("button.rating")
        expect(ratings).to_have_count(4)
        for index in range(4):
            button = ratings.nth(index)
            assert inside_viewport(page, button), f"rating {index + 1} is not on screen at {name}"
            box = button.bounding_box()
            assert box["height"] >= 48 and box["width"] >= 48, f"rating {index + 1} is too small to tap at {name}"
        for target in ("a.rate-back", "details.rate-instructions > summary", "details.extras > summary"):
            assert page.locator(target).bounding_box()["height"] >= 48, f"{target} is too small to tap at {name}"
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        # The status stays on screen while the page scrolls (the "More" panel open makes it long).
        page.locator("details.extras > summary").click()
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(100)
        assert inside_viewport(page, page.locator(".rate-status")), f"the save status scrolled away at {name}"
        page.locator("details.extras > summary").click()
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, f"rate-phone-{name}", viewport)
    # Browser zoom 200% on a 1280-pixel screen lays the page out 640 CSS pixels wide: nothing scrolls sideways.
    page.set_viewport_size({"width": 640, "height": 450})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 640
    assert inside_viewport(page, page.locator(".rate-status"))
    screenshot(page, "rate-zoom-200", {"width": 640, "height": 450})
    # And on the 360-pixel phone, 180 CSS pixels: one column of ratings, still nothing sideways.
    page.set_viewport_size({"width": 180, "height": 370})
    assert page.evaluate("document.documentElement.scrollWidth") <= 180
    for index in range(4):
        box = page.locator("button.rating").nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 180 and box["height"] >= 48
    screenshot(page, "rate-zoom-200-phone", {"width": 180, "height": 370})


def test_five_ratings_given_offline_survive_a_reload_and_are_stored_once(live_server, page, steward,  # noqa: F811
                                                                         governance_user):
    """The must-show journey: offline, five ratings, the page reloaded while still offline (the service worker
    answers with the page shell, filled from the items held on the device), the network back: five rows."""
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker])
    sign_in(page, live_server.url, speaker)
    page.set_viewport_size(PHONES["360x740"])
    open_rating_page(page, live_server.url, campaign)
    ready_offline(page)

    page.context.set_offline(True)
    for number, key in enumerate(["1", "2", "3", "4", "s"], start=1):
        page.keyboard.press(key)
        expect(page.locator("[data-progress-text]")).to_have_text(f"{number} of 8 rated")
    expect(page.locator("[data-pending]")).to_have_text("5 ratings kept on this device, waiting to be sent.")
    sixth = page.locator(".text.source").inner_text()
    screenshot(page, "rate-offline-waiting", PHONES["360x740"])
    assert not Rating.objects.exists()

    # Leaving the page with ratings unsent asks first; reloaded without a connection, it comes back as it was.
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.accept()))
    page.reload()
    assert dialogs == ["beforeunload"]
    expect(page.locator("[data-item][data-shell]")).to_be_visible()
    expect(page.locator(".text.source")).to_have_text(sixth)
    expect(page.locator("[data-progress-text]")).to_have_text("5 of 8 rated")
    expect(page.locator("[data-pending]")).to_have_text("5 ratings kept on this device, waiting to be sent.")
    screenshot(page, "rate-offline-reloaded", PHONES["360x740"])
    assert not Rating.objects.exists()

    page.context.set_offline(False)
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    expect(page.locator("[data-save-status]")).to_have_text("All your ratings are saved.")
    ratings = Rating.objects.filter(speaker=speaker).select_related("assignment").order_by("assignment__position")
    assert ratings.count() == 5, "each rating given offline is stored exactly once"
    assert [r.value for r in ratings] == ["reject", "gist", "acceptable", "excellent", "cannot_judge"]
    assert Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open").count() == 3
    # Rating goes on from the reloaded page.
    page.keyboard.press("4")
    expect(page.locator("[data-save-status]")).to_have_text("All your ratings are saved.")
    expect(page.locator("[data-pending]")).to_be_hidden()
    assert Rating.objects.filter(speaker=speaker).count() == 6


def test_keys_rate_undo_brings_back_what_was_given_and_question_mark_shows_help(live_server, page, steward,  # noqa: F811
                                                                               governance_user):
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    page.set_viewport_size(PHONES["390x844"])
    open_rating_page(page, live_server.url, campaign)
    first_source = page.locator(".text.source").inner_text()

    page.keyboard.press("?")
    expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()

    page.keyboard.press("f")
    expect(page.locator("details.extras")).to_have_attribute("open", "")
    expect(page.locator("input[name=flags]").first).to_be_focused()
    page.get_by_label("Says something that is not in the source").check()
    page.get_by_label("Comment (optional)").fill("The nurse comes in the morning.")
    page.get_by_label("Your translation (optional)").fill("kîkisêpâyâki")
    page.locator("h1").focus()
    page.keyboard.press("2")
    expect(page.locator("[data-progress-text]")).to_have_text("1 of 4 rated")
    assert page.locator(".text.source").inner_text() != first_source
    expect(page.get_by_label("Comment (optional)")).to_have_value("")

    # Undo while the rating may still be on the device or already sent: either way it comes back as given.
    page.keyboard.press("u")
    expect(page.locator(".text.source")).to_have_text(first_source)
    expect(page.get_by_label("Says something that is not in the source")).to_be_checked()
    expect(page.get_by_label("Comment (optional)")).to_have_value("The nurse comes in the morning.")
    expect(page.get_by_label("Your translation (optional)")).to_have_value("kîkisêpâyâki")
    expect(page.locator("[data-progress-text]")).to_have_text("0 of 4 rated")

    page.locator("h1").focus()
    page.keyboard.press("0")
    expect(page.locator("[data-progress-text]")).to_have_text("1 of 4 rated")
    expect(page.locator("[data-save-status]")).to_have_text("All your ratings are saved.")
    # Sent: Undo now asks the server, which withdraws the rating and gives the item back with what was given.
    page.keyboard.press("u")
    expect(page.locator(".messages")).to_contain_text("Your last rating was withdrawn")
    expect(page.locator(".text.source")).to_have_text(first_source)
    expect(page.get_by_label("Comment (optional)")).to_have_value("The nurse comes in the morning.")
    expect(page.get_by_label("Says something that is not in the source")).to_be_checked()
    rating = Rating.objects.filter(speaker=speaker).latest("pk")
    assert rating.value == "cannot_judge" and rating.withdrawn_at is not None and rating.hallucination
    assert rating.correction == "kîkisêpâyâki"


@pytest.fixture
def touch_page(browser):  # noqa: F811 - the browser fixture
    """A 360 × 740 touch phone: taps, no hover (a tapped button must not look chosen on the next item)."""
    context = browser.new_context(viewport=PHONES["360x740"], has_touch=True, is_mobile=True)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_tapping_undo_after_the_rating_was_sent_withdraws_it(live_server, touch_page, steward, governance_user):
    page = touch_page  # noqa: F811 - a page, not the fixture
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    open_rating_page(page, live_server.url, campaign)
    first_source = page.locator(".text.source").inner_text()
    page.get_by_role("button", name=re.compile("Acceptable")).tap()
    expect(page.locator("[data-save-status]")).to_have_text("All your ratings are saved.")
    assert Rating.objects.filter(speaker=speaker, withdrawn_at__isnull=True).count() == 1
    # The tapped button does not stay underlined or outlined on the next item (no hover on a touch screen).
    tapped = page.get_by_role("button", name=re.compile("Acceptable"))
    assert tapped.evaluate("b => getComputedStyle(b).textDecorationLine") == "none"
    assert tapped.evaluate("b => b.matches(':focus')") is False

    page.locator("details.extras > summary").tap()
    page.get_by_role("button", name="Undo last rating").tap()
    expect(page.locator(".messages")).to_contain_text("Your last rating was withdrawn")
    expect(page.locator(".text.source")).to_have_text(first_source)
    assert Rating.objects.get(speaker=speaker).withdrawn_at is not None
    screenshot(page, "rate-undo-tapped", PHONES["360x740"])


def test_tapping_undo_while_the_rating_is_still_on_the_phone_takes_it_back(live_server, touch_page, steward,
                                                                           governance_user):
    page = touch_page  # noqa: F811 - a page, not the fixture
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    open_rating_page(page, live_server.url, campaign)
    first_source = page.locator(".text.source").inner_text()
    page.context.set_offline(True)
    page.get_by_role("button", name=re.compile("Reject")).tap()
    expect(page.locator("[data-pending]")).to_contain_text("1 rating kept on this device")
    expect(page.locator("[data-save-status]")).to_contain_text(re.compile("kept on this device|No connection"))
    page.locator("details.extras > summary").tap()
    page.get_by_role("button", name="Undo last rating").tap()
    expect(page.locator(".text.source")).to_have_text(first_source)
    expect(page.locator("[data-save-status]")).to_have_text("Rating taken back. Rate this item again.")
    expect(page.locator("[data-progress-text]")).to_have_text("0 of 4 rated")
    page.context.set_offline(False)
    assert not Rating.objects.filter(speaker=speaker).exists()


def test_a_tap_that_comes_as_the_next_item_appears_is_not_counted_and_the_page_says_so(live_server, touch_page,
                                                                                     steward, governance_user):
    page = touch_page  # noqa: F811 - a page, not the fixture
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    open_rating_page(page, live_server.url, campaign)
    button = page.get_by_role("button", name=re.compile("Excellent"))
    button.tap()
    button.tap()  # the second half of a double tap, as the next item has just appeared
    expect(page.locator("[data-save-status]")).to_contain_text("That tap came as the next item appeared")
    expect(page.locator("[data-progress-text]")).to_have_text("1 of 4 rated")
    page.wait_for_timeout(400)
    button.tap()
    expect(page.locator("[data-progress-text]")).to_have_text("2 of 4 rated")


def test_the_phone_discards_waiting_ratings_when_the_campaign_is_paused(live_server, page, steward,  # noqa: F811
                                                                       governance_user):
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    page.set_viewport_size(PHONES["360x740"])
    open_rating_page(page, live_server.url, campaign)
    page.context.set_offline(True)
    page.keyboard.press("3")
    page.keyboard.press("3")
    expect(page.locator("[data-pending]")).to_have_text("2 ratings kept on this device, waiting to be sent.")
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="paused")
    page.context.set_offline(False)
    expect(page.locator("[data-save-status]")).to_contain_text("paused this campaign", timeout=15_000)
    expect(page.locator("[data-pending]")).to_be_hidden()
    expect(page.locator("button.rating").first).to_be_disabled()
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('champollion-rate-queue'))") == []
    assert not Rating.objects.exists()
    screenshot(page, "rate-paused", PHONES["360x740"])
    # A rating left on the device from before (another tab, an older page) is discarded by the page saying so.
    page.evaluate("""([user, campaign]) => localStorage.setItem('champollion-rate-queue:' + user, JSON.stringify([
        {id: crypto.randomUUID(), campaign: campaign, item: 'x', url: '/review/items/x/', value: 'gist', flags: [],
         comment: '', correction: '', counted: true}]))""", [speaker.pk, str(campaign.public_id)])
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("This review is paused")
    expect(page.locator("[data-rate-wipe]")).to_have_text("1 rating waiting on this device was discarded.")
    assert page.evaluate(f"localStorage.getItem('champollion-rate-queue:{speaker.pk}')") is None


def test_the_rating_page_in_each_of_its_states_passes_axe(live_server, page, steward, governance_user):  # noqa: F811
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4,
                                  instructions="Accept SRO and syllabics alike.\n\nAsk Mary at the band office.")
    sign_in(page, live_server.url, speaker)
    found = []

    def audit(label: str) -> None:
        found.extend((label, violation) for violation in axe_violations(page) + id_problems(page))

    for name, viewport in PHONES.items():
        page.set_viewport_size(viewport)
        page.goto(f"{live_server.url}/review/c/{campaign.public_id}/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Before you start")
        audit(f"instructions {name}")
        screenshot(page, f"rate-instructions-{name}", viewport)
        page.get_by_role("link", name="Start").click()
        expect(page.locator("[data-walkthrough]")).to_be_visible()
        audit(f"walkthrough {name}")
        screenshot(page, f"rate-walkthrough-{name}", viewport)
        page.get_by_role("button", name="Got it").click()
        page.locator("details.rate-instructions > summary").click()
        expect(page.locator(".rate-instructions-panel")).to_contain_text("Ask Mary at the band office.")
        audit(f"instructions panel {name}")
        page.locator("details.rate-instructions > summary").click()
        page.locator("details.extras > summary").click()
        audit(f"more {name}")
        page.locator("details.extras > summary").click()
        page.keyboard.press("?")
        expect(page.get_by_role("dialog")).to_be_visible()
        audit(f"shortcut help {name}")
        page.keyboard.press("Escape")
        page.evaluate("localStorage.clear()")
    blocking = [(label, v) for label, v in found if v["impact"] in BLOCKING_IMPACTS]
    print("\n".join(line for label, v in found for line in describe(label, [v])) or "axe: no violations")
    assert not blocking, "\n".join(line for label, v in blocking for line in describe(label, [v]))


def test_a_larger_text_size_is_remembered_on_the_device_and_the_page_still_fits(live_server, touch_page, steward,
                                                                               governance_user):
    page = touch_page  # noqa: F811 - a page, not the fixture
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    open_rating_page(page, live_server.url, campaign)
    normal = page.locator(".text.source").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    control = page.get_by_role("group", name="Text size on this device")
    control.get_by_role("button", name="larger").tap()
    expect(control.get_by_role("button", name="larger")).to_have_attribute("aria-pressed", "true")
    larger = page.locator(".text.source").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert larger >= normal * 1.4
    open_rating_page(page, live_server.url, campaign)  # another page load: still larger
    assert page.evaluate("document.documentElement.classList.contains('text-larger')")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONES["360x740"]["width"]
    for index in range(4):
        box = page.locator("button.rating").nth(index).bounding_box()
        assert box["width"] <= PHONES["360x740"]["width"] and box["height"] >= 48
    # Every rating's name whole (one column at this size on a phone), the back link never cut inside a word.
    assert page.locator("button.rating .name").evaluate_all("names => names.every(n => n.scrollWidth <= n.clientWidth)")
    for link in (".rate-back", "details.rate-instructions > summary"):
        lines, words = page.locator(link).evaluate(LINES_AND_WORDS)
        assert lines <= words, f"{link}: a word cut across lines"
    screenshot(page, "rate-text-larger-360", PHONES["360x740"])
    # Offline, with a rating kept on the phone: the save status at the bottom takes at most a quarter of the screen,
    # so the next item's ratings show above it.
    page.context.set_offline(True)
    page.locator("button.rating").first.tap()
    expect(page.locator("[data-pending]")).to_be_visible()
    expect(page.locator("[data-save-status]")).to_contain_text("No connection", timeout=10_000)
    status = page.locator("[data-rate-status]").bounding_box()
    assert status["height"] <= PHONES["360x740"]["height"] / 4 + 1
    page.locator("button.rating").first.scroll_into_view_if_needed()
    first = page.locator("button.rating").first.bounding_box()
    assert first["y"] + first["height"] <= status["y"] or first["y"] + first["height"] <= page.locator(
        "[data-rate-status]").bounding_box()["y"]
    screenshot(page, "rate-text-larger-360-offline", PHONES["360x740"])
    page.context.set_offline(False)


def test_a_community_languages_longer_words_never_push_the_top_bar_off_a_phone(live_server, touch_page, steward,
                                                                               governance_user):
    from languages.models import InterfaceTranslation
    from languages.services import add_interface_language

    page = touch_page  # noqa: F811 - a page, not the fixture
    cree = add_interface_language(actor=governance_user, organization=steward, code="crk", name="nēhiyawēwin")
    for msgid, msgstr in (("Your reviews", "kitaskîhkêwina kahkiyaw ê-kî-kitâpahtaman"),
                          ("Instructions", "«crk» kiskinohamâkêwina"),
                          ("%(done)s of %(total)s rated", "%(done)s ohci %(total)s kîsi-kitâpahtamihk")):
        InterfaceTranslation.objects.create(language=cree, msgid=msgid, msgstr=msgstr, updated_by=governance_user)
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=4)
    sign_in(page, live_server.url, speaker)
    page.context.add_cookies([{"name": "champollion_language", "value": "crk", "url": live_server.url}])
    open_rating_page(page, live_server.url, campaign)
    expect(page.locator("[data-progress-text]")).to_contain_text("kîsi-kitâpahtamihk")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONES["360x740"]["width"]
    for target in ("a.rate-back", "details.rate-instructions > summary", "[data-progress-text]"):
        box = page.locator(target).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONES["360x740"]["width"], f"{target} runs off"
    line = page.locator("[data-progress-text]").evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
    assert page.locator("[data-progress-text]").bounding_box()["height"] <= 2.2 * line, "the count wraps to 3 lines"
    screenshot(page, "rate-community-language-360", PHONES["360x740"])


def test_a_new_rating_of_a_rated_item_given_offline_no_longer_shows_the_old_one_as_given(
        live_server, page, steward, governance_user):  # noqa: F811
    """From the end screen a speaker opens an item rated Excellent and, offline, taps Reject: the page must not go on
    saying "You rated this Excellent" with Excellent chosen while the new rating waits on the phone; back online,
    Reject is the current rating."""
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=2)
    sign_in(page, live_server.url, speaker)
    page.set_viewport_size(PHONES["360x740"])
    open_rating_page(page, live_server.url, campaign)
    first_source = page.locator(".text.source").inner_text()
    page.keyboard.press("4")
    expect(page.locator(".text.source")).not_to_have_text(first_source)  # the second item shows: it may be rated
    page.locator("h1").focus()
    page.keyboard.press("4")
    expect(page).to_have_url(re.compile(r"/done/$"), timeout=20_000)
    first = Assignment.objects.filter(campaign=campaign, speaker=speaker).order_by("position").first()
    with page.expect_response(re.compile(r"/upcoming/$")):
        page.goto(f"{live_server.url}/review/items/{first.public_id}/")
    expect(page.locator("[data-current-notice]")).to_contain_text("Excellent")
    page.context.set_offline(True)
    page.get_by_role("button", name=re.compile("Reject")).click()
    expect(page.locator("[data-current-notice]")).to_have_count(0)
    expect(page.locator("button.rating.chosen")).to_have_count(0)
    screenshot(page, "rate-offline-rerated", PHONES["360x740"])
    page.context.set_offline(False)
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    assert Rating.objects.get(assignment=first, is_current=True).value == "reject"


def test_the_instructions_close_with_their_button_or_escape(live_server, page, steward,  # noqa: F811
                                                             governance_user):
    """On a phone the instructions cover the item: a button at their end and Escape close them, focus back on their
    title; the controls only the script works show once it runs."""
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=2)
    sign_in(page, live_server.url, speaker)
    page.set_viewport_size(PHONES["360x740"])
    open_rating_page(page, live_server.url, campaign)
    instructions = page.locator("details[data-instructions]")
    summary = instructions.locator("summary")
    summary.click()
    expect(instructions).to_have_attribute("open", "")
    expect(instructions.get_by_role("button", name="Keyboard shortcuts")).to_be_visible()
    page.keyboard.press("Escape")
    expect(instructions).not_to_have_attribute("open", "")
    expect(summary).to_be_focused()
    summary.click()
    instructions.get_by_role("button", name="Close the instructions").click()
    expect(instructions).not_to_have_attribute("open", "")
    expect(summary).to_be_focused()


def test_another_review_page_without_a_connection_says_the_ratings_are_kept(live_server, page, steward,  # noqa: F811
                                                                            governance_user):
    """Offline, with a rating kept on the phone, the speaker goes to their reviews: instead of the browser's own
    error, the notice the page stored (in their language) says their ratings are kept; Back returns to the item."""
    speaker = speakers(steward, 1)[0]
    campaign = long_text_campaign(steward, governance_user, [speaker], count=3)
    sign_in(page, live_server.url, speaker)
    page.set_viewport_size(PHONES["360x740"])
    open_rating_page(page, live_server.url, campaign)
    ready_offline(page)
    page.context.set_offline(True)
    page.get_by_role("button", name=re.compile("Acceptable")).click()
    second = page.locator(".text.source").inner_text()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{live_server.url}/review/")
    expect(page.locator("h1")).to_have_text("No connection")
    expect(page.locator("main")).to_contain_text("stays on it, and is sent as soon as the connection returns")
    screenshot(page, "rate-offline-notice", PHONES["360x740"])
    page.go_back()
    expect(page.locator(".text.source")).to_have_text(second)
    page.context.set_offline(False)
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    assert Rating.objects.filter(speaker=speaker).count() == 1
