"""The elicitation journey in a real headless Chromium: a curator creates a batch from a CSV file; two speakers
translate on a 360-pixel phone (one of them offline for part of it, their translations kept on the phone and sent
once each when the network returns); a third person verifies (one edit, one rejection) and the edited translation is
accepted by someone else; the curator adds the accepted translations to a draft version and freezes it; its export
holds exactly the accepted entries with their provenance, and each person's time is counted once.
Screenshots: screenshots/elicit-*.png.

Skipped like tests/test_browser.py when Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

import json
import re

import pytest
from django.test import Client

from elicitation.models import Batch, Translation, TranslationVersion, Verification
from ledger.models import WorkClock

from .browser_support import BLOCKING_IMPACTS, axe_violations, describe, screenshot, sign_in
from .conftest import member, qualify
from .elicitation_setup import consented_dataset, make_batch
from .test_browser import (  # noqa: F401 - fixtures
    browser,
    expect,
    page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
CSV = (
    "source,context,difficulty,register,domain,segment,origin,origin_name,origin_license\n"
    "Good morning,said to an elder at the door,1,conversational,conv,development,community,,\n"
    "The dog is sleeping,,2,conversational,conv,development,community,,\n"
    "The clinic opens at nine,,2,formal,medical,development,public_source,Clinic poster,CC-BY-4.0\n"
    "Take one tablet twice a day,,3,formal,medical,diagnostic,community,,\n"
    "Where is the band office?,,2,conversational,gov,development,machine_proposed,source-proposer-1,\n"
)
TRANSLATIONS = {
    "Good morning": "tânisi kîkisêpâyâw",
    "The dog is sleeping": "nipâw atim",
    "The clinic opens at nine": "kâ-nâtawihowikamik yôhtênikâtêw",
    "Take one tablet twice a day": "pêyak maskihkîs nîsw-âw",
    "Where is the band office?": "tânitê okimâwikamik?",
}


def no_sideways_scroll(page, width: int) -> bool:  # noqa: F811 - a page, not the fixture
    return page.evaluate("document.documentElement.scrollWidth") <= width


def translate_shown(page) -> str:  # noqa: F811 - a page, not the fixture
    """Type the translation of the source on screen and save it with Ctrl+Enter; the source it was for."""
    source = page.locator("[data-text=source]").inner_text().strip()
    page.locator("[data-text-input]").fill(TRANSLATIONS[source])
    page.keyboard.press("Control+Enter")
    return source


def open_translate_page(page, base_url: str, batch, translator, *, offline_ready: bool = False) -> None:  # noqa: F811
    """The translator's translate page on a 360-pixel phone, the sources ahead fetched; with `offline_ready`, once it
    stored its shell and its service worker controls it."""
    sign_in(page, base_url, translator)
    page.set_viewport_size(PHONE)
    with page.expect_response(re.compile(r"/elicit/b/[0-9a-f-]+/upcoming/$")):
        page.goto(f"{base_url}/elicit/b/{batch.public_id}/translate/")
    if offline_ready:
        expect(page.locator("[data-elicit-form][data-offline-ready]")).to_have_count(1)
        page.wait_for_function("navigator.serviceWorker.controller !== null")


def test_elicitation_from_csv_to_a_frozen_version(live_server, page, steward, curator, tmp_path):  # noqa: F811
    dataset = consented_dataset(steward).dataset
    first, second, verifier = (qualify(member(f"{name}@steward.example", steward, "speaker"), steward,
                                       languages=("crk",), script="Latn")
                               for name in ("first", "second", "verifier"))

    # The curator creates the batch from a CSV file.
    sign_in(page, live_server.url, curator)
    page.goto(f"{live_server.url}/elicit/new/")
    page.get_by_label("Dataset").select_option(str(dataset.pk))
    page.get_by_label("Title").fill("Clinic and home")
    page.get_by_label("Target language").fill("crk-Latn")
    page.get_by_label("Guideline").fill("Write it as you would say it to an elder.")
    csv_file = tmp_path / "sources.csv"
    csv_file.write_text(CSV, encoding="utf-8")
    page.get_by_label("Sources file (CSV or JSON, optional)").set_input_files(str(csv_file))
    page.get_by_role("button", name="Create the batch").click()
    expect(page.locator("[data-matrix]")).to_be_visible()
    expect(page.locator('[data-missing="gold_standard"]')).to_have_text("50")
    batch = Batch.objects.get()
    assert batch.sources.count() == 5
    violations = [v for v in axe_violations(page) if v["impact"] in BLOCKING_IMPACTS]
    assert not violations, describe(violations)
    screenshot(page, "elicit-batch")

    # The first speaker translates on a phone: one source online, two offline, kept on the phone until it returns.
    sign_in(page, live_server.url, first)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/elicit/")
    with page.expect_response(re.compile(r"/elicit/b/[0-9a-f-]+/upcoming/$")):
        page.get_by_role("link", name="Translate", exact=True).click()
    textarea = page.locator("[data-text-input]")
    expect(textarea).to_have_attribute("lang", "crk-Latn")
    expect(textarea).to_have_attribute("dir", "ltr")
    assert no_sideways_scroll(page, 360)
    violations = [v for v in axe_violations(page) if v["impact"] in BLOCKING_IMPACTS]
    assert not violations, describe(violations)
    screenshot(page, "elicit-translate-phone", PHONE)
    done = [translate_shown(page)]
    expect(page.locator("[data-progress]")).to_have_text("1 translated in this batch")
    expect(page.locator("[data-save-status]")).to_have_text("Saved.")
    expect(page.locator("[data-text=source]")).not_to_have_text(done[0])
    page.context.set_offline(True)
    done.append(translate_shown(page))
    expect(page.locator("[data-text=source]")).not_to_have_text(done[1])
    done.append(translate_shown(page))
    expect(page.locator("[data-pending]")).to_have_text(
        "2 submissions wait on this device; they are sent when there is a connection.")
    assert no_sideways_scroll(page, 360)
    screenshot(page, "elicit-translate-offline", PHONE)
    assert Translation.objects.filter(translator=first).count() == 1
    page.context.set_offline(False)
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    assert Translation.objects.filter(translator=first).count() == 3, "each offline translation is stored once"
    assert TranslationVersion.objects.filter(author=first).count() == 3

    # The second speaker translates the other two, then has nothing left.
    sign_in(page, live_server.url, second)
    with page.expect_response(re.compile(r"/elicit/b/[0-9a-f-]+/upcoming/$")):
        page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/translate/")
    shown = translate_shown(page)
    expect(page.locator("[data-save-status]")).to_have_text("Saved.")
    expect(page.locator("[data-text=source]")).not_to_have_text(shown)
    translate_shown(page)
    expect(page.locator("[data-done]")).to_be_visible(timeout=15_000)
    assert Translation.objects.filter(translator=second).count() == 2

    # The third person verifies: accept, edit, accept, reject, accept, in the batch's order.
    sign_in(page, live_server.url, verifier)
    with page.expect_response(re.compile(r"/verify/upcoming/$")):
        page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/verify/")
    assert no_sideways_scroll(page, 360)
    violations = [v for v in axe_violations(page) if v["impact"] in BLOCKING_IMPACTS]
    assert not violations, describe(violations)
    screenshot(page, "elicit-verify-phone", PHONE)
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("[data-text=source]")).to_have_text("The dog is sleeping")
    page.locator("[data-edit-panel] > summary").click()
    page.locator("[data-edit-text]").fill("nipâw ana atim")
    page.get_by_role("button", name="Save my edit").click()
    expect(page.locator("[data-text=source]")).to_have_text("The clinic opens at nine")
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("[data-text=source]")).to_have_text("Take one tablet twice a day")
    page.get_by_label(re.compile("Comment for the translator")).fill("This is not how we count doses.")
    page.get_by_role("button", name="Reject").click()
    expect(page.locator("[data-text=source]")).to_have_text("Where is the band office?")
    page.keyboard.press("Control+Enter")
    expect(page.locator("[data-done]")).to_be_visible(timeout=15_000)
    assert Verification.objects.filter(verifier=verifier).count() == 5

    # The edited translation needs someone else's accept: the second speaker, who did not write it.
    sign_in(page, live_server.url, second)
    page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/verify/")
    expect(page.locator("[data-text=text]")).to_have_text("nipâw ana atim")
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("[data-done]")).to_be_visible(timeout=15_000)
    statuses = dict(Translation.objects.values_list("source__text", "status"))
    assert statuses == {"Good morning": "accepted", "The dog is sleeping": "accepted",
                        "The clinic opens at nine": "accepted", "Take one tablet twice a day": "rejected",
                        "Where is the band office?": "accepted"}

    # The curator adds the accepted translations to the draft version and freezes it.
    sign_in(page, live_server.url, curator)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/")
    version = dataset.versions.get()
    page.get_by_label("Draft version").select_option(str(version.pk))
    page.get_by_role("button", name="Add the accepted translations").click()
    expect(page.locator(".messages")).to_contain_text("4 accepted translations added to version 1.0.")
    page.get_by_role("button", name="Add the accepted translations").click()
    expect(page.locator(".messages")).to_contain_text("0 accepted translations added to version 1.0.")
    page.goto(f"{live_server.url}/datasets/versions/{version.pk}/")
    page.get_by_role("button", name="Freeze this version").click()
    expect(page.locator(".messages")).to_contain_text("is frozen")
    version.refresh_from_db()
    assert version.is_frozen

    client = Client()
    client.force_login(curator)
    exported = json.loads(b"".join(client.get(f"/datasets/versions/{version.pk}/export.json").streaming_content))
    elicited = [entry for entry in exported["entries"] if entry.get("provenance") == "elicited"]
    assert sorted(entry["reference"] for entry in elicited) == sorted(
        ["tânisi kîkisêpâyâw", "nipâw ana atim", "kâ-nâtawihowikamik yôhtênikâtêw", "tânitê okimâwikamik?"])
    assert len(exported["entries"]) == 5, "the imported entry and exactly the four accepted translations"
    for entry in elicited:
        assert entry["elicitation"]["batch"] == str(batch.public_id)
        assert entry["elicitation"]["translator"] == "anonymous" and entry["elicitation"]["verifiers"]

    # Each person's time is counted once: never more than the wall time their work clock moved through.
    dashboard = page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/dashboard/")
    assert dashboard.status == 200
    expect(page.locator("[data-people] tbody tr")).to_have_count(3)
    for person in (first, second, verifier):
        worked = sum(TranslationVersion.objects.filter(author=person).values_list("seconds", flat=True)) + sum(
            Verification.objects.filter(verifier=person).values_list("seconds", flat=True))
        clock = WorkClock.objects.get(speaker=person)
        first_shown = person.date_joined
        assert 0 < worked <= (clock.counted_until - first_shown).total_seconds() + 5
    violations = [v for v in axe_violations(page) if v["impact"] in BLOCKING_IMPACTS]
    assert not violations, describe(violations)
    screenshot(page, "elicit-dashboard")


def test_the_translate_and_verify_pages_reload_without_a_connection_and_store_each_submission_once(
        live_server, page, steward, curator):  # noqa: F811
    """On a 360-pixel phone: the page keeps its shell and the sources it holds on the device; offline, two
    translations, the page reloaded while still offline (the service worker answers with the shell, filled with the
    source held for that address), a third translation from the reloaded page, the network back: three
    translations, each stored once. Then the verify page, through the same service worker with its own shell and the
    translations it holds: two verdicts offline, a reload offline, a third verdict, the network back: three
    verdicts, each stored once."""
    batch = make_batch(curator, consented_dataset(steward).dataset, CSV)
    translator = member("offline@steward.example", steward, "speaker")
    open_translate_page(page, live_server.url, batch, translator, offline_ready=True)

    page.context.set_offline(True)
    done = [translate_shown(page)]
    expect(page.locator("[data-text=source]")).not_to_have_text(done[0])
    done.append(translate_shown(page))
    expect(page.locator("[data-text=source]")).not_to_have_text(done[1])
    waiting = "2 submissions wait on this device; they are sent when there is a connection."
    expect(page.locator("[data-pending]")).to_have_text(waiting)
    third = page.locator("[data-text=source]").inner_text().strip()

    # Leaving the page with translations unsent asks first; reloaded without a connection, it comes back as it was.
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.accept()))
    page.reload()
    assert dialogs == ["beforeunload"]
    expect(page.locator("[data-item][data-shell]")).to_be_visible()
    expect(page.locator("[data-text=source]")).to_have_text(third)
    expect(page.locator("[data-pending]")).to_have_text(waiting)
    expect(page.locator("[data-progress]")).to_have_text("2 translated in this batch")
    assert no_sideways_scroll(page, PHONE["width"])
    screenshot(page, "elicit-translate-offline-reloaded", PHONE)
    assert not Translation.objects.filter(translator=translator).exists()

    # Translating goes on from the reloaded page; the network back, each translation is stored once.
    done.append(translate_shown(page))
    expect(page.locator("[data-pending]")).to_have_text(
        "3 submissions wait on this device; they are sent when there is a connection.")
    page.context.set_offline(False)
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    stored = Translation.objects.filter(translator=translator).select_related("source")
    assert sorted(translation.source.text for translation in stored) == sorted(done)
    assert {version.text for version in TranslationVersion.objects.filter(author=translator)} == {
        TRANSLATIONS[source] for source in done}

    # Someone else verifies them on the same phone: the verify page holds the translations ahead with its own shell.
    verifier = member("offline-verifier@steward.example", steward, "speaker")
    sign_in(page, live_server.url, verifier)
    with page.expect_response(re.compile(r"/verify/upcoming/$")):
        page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/verify/")
    expect(page.locator("[data-elicit-form][data-offline-ready]")).to_have_count(1)
    page.wait_for_function("navigator.serviceWorker.controller !== null")

    page.context.set_offline(True)
    verdicts = {page.locator("[data-text=source]").inner_text().strip(): "accept"}
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("[data-text=source]")).not_to_have_text(next(iter(verdicts)))
    second = page.locator("[data-text=source]").inner_text().strip()
    verdicts[second] = "reject"
    page.get_by_label(re.compile("Comment for the translator")).fill("This is not how we say it.")
    page.get_by_role("button", name="Reject").click()
    expect(page.locator("[data-text=source]")).not_to_have_text(second)
    waiting = "2 submissions wait on this device; they are sent when there is a connection."
    expect(page.locator("[data-pending]")).to_have_text(waiting)
    third = page.locator("[data-text=source]").inner_text().strip()

    page.reload()
    expect(page.locator("[data-item][data-shell]")).to_be_visible()
    expect(page.locator("[data-text=source]")).to_have_text(third)
    expect(page.locator("[data-text=text]")).to_have_text(TRANSLATIONS[third])
    expect(page.locator("[data-pending]")).to_have_text(waiting)
    assert no_sideways_scroll(page, PHONE["width"])
    screenshot(page, "elicit-verify-offline-reloaded", PHONE)
    assert not Verification.objects.filter(verifier=verifier).exists()

    verdicts[third] = "accept"
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("[data-pending]")).to_have_text(
        "3 submissions wait on this device; they are sent when there is a connection.")
    page.context.set_offline(False)
    expect(page.locator("[data-done]")).to_be_visible(timeout=20_000)
    stored = Verification.objects.filter(verifier=verifier).select_related("translation__source")
    assert {v.translation.source.text: v.outcome for v in stored} == verdicts, "each verdict stored once"


def test_the_verify_page_says_how_many_accepts_each_translation_it_shows_needs(live_server, page, steward,  # noqa: F811
                                                                               curator):
    """A gold-standard translation needs more accepts than the batch's usual number: the page opened on one says so,
    and says the usual number again for the next translation, shown from those the phone holds. A conflict declared
    without a connection is not lost with the page."""
    from .elicitation_setup import translate

    csv = (CSV.splitlines()[0] + "\n" + "I see the dog,,2,conversational,conv,gold_standard,community,,\n"
           "Good morning,,1,conversational,conv,development,community,,\n")
    batch = make_batch(curator, consented_dataset(steward).dataset, csv, verifications_per_translation=1)
    translator, verifier = (member(f"{name}@steward.example", steward, "speaker") for name in ("writer", "checker"))
    for source in batch.sources.order_by("position"):
        translate(translator, source, "tânisi")
    sign_in(page, live_server.url, verifier)
    with page.expect_response(re.compile(r"/verify/upcoming/$")):
        page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/verify/")
    expect(page.locator("[data-text=source]")).to_have_text("I see the dog")
    expect(page.locator("[data-needed]")).to_have_text("It needs 2 accepts from different people.")
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("[data-text=source]")).to_have_text("Good morning")
    expect(page.locator("[data-needed]")).to_have_text("It needs 1 accept.")
    # Declaring a conflict needs a connection: offline, the page says so and keeps the reason written.
    page.context.set_offline(True)
    page.locator("[data-conflict] > summary").click()
    page.get_by_label(re.compile("The conflict of interest")).fill("My sister")
    page.get_by_role("button", name="Declare the conflict").click()
    expect(page.locator("[data-save-status]")).to_contain_text("No connection: this is sent only when there is one.")
    expect(page.get_by_label(re.compile("The conflict of interest"))).to_have_value("My sister")
    page.context.set_offline(False)


def test_a_translation_the_server_refuses_comes_back_with_what_was_written(live_server, page, steward,  # noqa: F811
                                                                            curator):
    """elicit.js moves on as soon as a translation is kept on the phone; when the server then refuses it (here, the
    translation is the source text itself), the page shows that source again with the text written and why, the
    source it had moved on to comes next, and the counter goes back. Corrected, it is stored once."""
    batch = make_batch(curator, consented_dataset(steward).dataset, CSV)
    translator = member("refused@steward.example", steward, "speaker")
    open_translate_page(page, live_server.url, batch, translator)
    first = page.locator("[data-text=source]").inner_text().strip()
    page.locator("[data-text-input]").fill(first)
    with page.expect_response(lambda response: response.request.method == "POST" and response.status == 400):
        page.keyboard.press("Control+Enter")
    expect(page.locator("[data-text=source]")).to_have_text(first)
    expect(page.locator("[data-text-input]")).to_have_value(first)
    expect(page.locator("[data-text-input]")).to_be_focused()
    refusal = "Not saved. The translation is the source text itself: write it in the target language."
    expect(page.locator(".errorlist[role=alert]")).to_have_text(refusal)
    expect(page.locator("[data-save-status]")).to_have_text("")
    expect(page.locator("[data-progress]")).to_have_text("0 translated in this batch")
    screenshot(page, "elicit-translate-refused-back", PHONE)

    assert translate_shown(page) == first
    expect(page.locator("[data-text=source]")).not_to_have_text(first)
    expect(page.locator(".errorlist")).to_have_count(0)
    second = translate_shown(page)
    expect(page.locator("[data-progress]")).to_have_text("2 translated in this batch")
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    stored = Translation.objects.filter(translator=translator).select_related("source")
    assert sorted(t.source.text for t in stored) == sorted([first, second])
    assert {v.text for v in TranslationVersion.objects.filter(author=translator)} == {TRANSLATIONS[first],
                                                                                      TRANSLATIONS[second]}


def test_a_refusal_never_takes_the_place_of_what_is_being_written(live_server, page, steward,  # noqa: F811
                                                                  curator):
    """Offline, a translation the server will refuse, then the next source half translated when the connection
    returns: the refusal waits — the status line says so — and the refused source comes next, with its text."""
    batch = make_batch(curator, consented_dataset(steward).dataset, CSV)
    translator = member("deferred@steward.example", steward, "speaker")
    open_translate_page(page, live_server.url, batch, translator)
    page.context.set_offline(True)
    first = page.locator("[data-text=source]").inner_text().strip()
    page.locator("[data-text-input]").fill(first)
    page.keyboard.press("Control+Enter")
    expect(page.locator("[data-text=source]")).not_to_have_text(first)
    second = page.locator("[data-text=source]").inner_text().strip()
    page.locator("[data-text-input]").fill(TRANSLATIONS[second][:5])
    page.context.set_offline(False)
    expect(page.locator("[data-save-status]")).to_contain_text("It comes back next, with what you wrote.",
                                                               timeout=20_000)
    expect(page.locator("[data-text=source]")).to_have_text(second)
    expect(page.locator("[data-text-input]")).to_have_value(TRANSLATIONS[second][:5])
    page.locator("[data-text-input]").fill(TRANSLATIONS[second])
    page.keyboard.press("Control+Enter")
    expect(page.locator("[data-text=source]")).to_have_text(first)
    expect(page.locator("[data-text-input]")).to_have_value(first)
    expect(page.locator(".errorlist[role=alert]")).to_contain_text("The translation is the source text itself")
    assert translate_shown(page) == first
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    assert sorted(t.source.text for t in Translation.objects.filter(translator=translator).select_related(
        "source")) == sorted([first, second])


def test_a_skip_says_so_and_the_count_survives_a_reload_after_the_last_source(live_server, page, steward,  # noqa: F811
                                                                              curator):
    """A skip's answer says it was a skip; offline, the last held source translated and the page reloaded without a
    connection, the count is still every translation given."""
    batch = make_batch(curator, consented_dataset(steward).dataset, CSV)
    translator = member("skipper@steward.example", steward, "speaker")
    open_translate_page(page, live_server.url, batch, translator, offline_ready=True)
    skipped = page.locator("[data-text=source]").inner_text().strip()
    page.locator("[data-skip-panel] summary").click()
    page.locator("[data-skip-form] [name=reason]").first.check()
    page.locator("[data-skip-form] button").click()
    expect(page.locator("[data-save-status]")).to_have_text("Skipped; your reason is recorded.", timeout=10_000)
    page.context.set_offline(True)
    for _ in range(4):
        translate_shown(page)
    expect(page.locator("[data-progress]")).to_have_text("4 translated in this batch")
    page.on("dialog", lambda dialog: dialog.accept())
    page.reload()
    expect(page.locator("[data-progress]")).to_have_text("4 translated in this batch")
    page.context.set_offline(False)
    expect(page.locator("[data-pending]")).to_be_hidden(timeout=20_000)
    assert Translation.objects.filter(translator=translator).count() == 4
    assert not Translation.objects.filter(translator=translator, source__text=skipped).exists()
