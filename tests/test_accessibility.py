"""axe-core (tests/vendor/axe-core) in a real headless Chromium on the main pages, each as the persona who
uses it and, for the main forms, also as they look after a refused submission: WCAG 2.0–2.2 A/AA rules and
axe's best practices, plus broken id references and duplicate ids. Zero serious or critical violations;
moderate and minor ones are printed and listed in the failure message too. Screenshots: screenshots/a11y-*.png.

Skipped like tests/test_browser.py when Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

import pytest

from accounts.services import get_or_create_user
from corpus.services import import_corpus
from languages.services import add_interface_language
from review.models import Assignment
from submissions import services as submission_services

from .browser_support import (
    BLOCKING_IMPACTS,
    axe_violations,
    describe,
    id_problems,
    reviewed_public_dataset,
    screenshot,
    sign_in,
)
from .conftest import PASSWORD, corpus_bytes, entry, mixed_entries
from .review_setup import rate_everything, speakers, submit
from .test_browser import (  # noqa: F401 - fixtures
    DESKTOP,
    browser,
    expect,
    page,
    scored_version,
    submitted_cards,
    upload,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_360 = {"width": 360, "height": 780}


class AxeAudit:
    """Visits pages, runs axe and the id check on each, and keeps every violation so that one run reports all."""

    def __init__(self, browser_page, base_url: str):
        self.page, self.base_url = browser_page, base_url
        self.found: list[tuple[str, dict]] = []
        self.checked: list[str] = []

    def visit(self, label: str, path: str, heading: str, viewport: dict | None = None) -> None:
        self.page.set_viewport_size(viewport or DESKTOP)
        response = self.page.goto(f"{self.base_url}{path}")
        assert response is not None and response.ok, f"{label}: {path} answered {response and response.status}"
        self.check(label, heading, viewport)

    def check(self, label: str, heading: str, viewport: dict | None = None) -> None:
        """Audit the page the browser shows now (after a visit, or after submitting a form)."""
        expect(self.page.get_by_role("heading", level=1)).to_contain_text(heading)
        screenshot(self.page, f"a11y-{label}", viewport)
        self.found += [(label, violation) for violation in axe_violations(self.page) + id_problems(self.page)]
        self.checked.append(label)

    def submit_refused(self, label: str, button: str, heading: str, errors: int) -> None:
        """Press `button`, expect the form back with `errors` field errors, and audit it as it is then."""
        self.page.get_by_role("button", name=button).click()
        expect(self.page.locator(".errorlist:not(.nonfield)")).to_have_count(errors)
        self.check(label, heading)

    def assert_no_serious_violations(self) -> None:
        blocking = [(label, v) for label, v in self.found if v["impact"] in BLOCKING_IMPACTS]
        others = [(label, v) for label, v in self.found if v["impact"] not in BLOCKING_IMPACTS]
        report = [line for label, v in blocking for line in describe(label, [v])]
        if others:
            report += ["", "Moderate and minor (not failing the test):"]
            report += [line for label, v in others for line in describe(label, [v])]
        print("\n".join(report) or f"axe: no violations on {', '.join(self.checked)}")
        assert not blocking, "axe found serious or critical violations:\n" + "\n".join(report)


def test_the_audit_fails_on_a_broken_page(live_server, page):  # noqa: F811
    """The check itself can fail: a missing alt text, grey-on-white text, a label and a hint pointing nowhere."""
    audit = AxeAudit(page, live_server.url)
    page.goto(f"{live_server.url}/")
    page.evaluate("""() => {
        const main = document.querySelector("main");
        main.insertAdjacentHTML("beforeend", '<img src="/static/none.png"><p class="faint">faint</p>' +
            '<label for="nowhere">Name</label><input type="text" aria-describedby="no-hint">');
        main.querySelector(".faint").style.color = "#bbbbbb";
    }""")
    audit.check("broken-on-purpose", "Community review of machine translation")
    rules = {violation["id"]: violation["impact"] for _, violation in audit.found}
    assert rules["image-alt"] == "critical"
    assert rules["color-contrast"] == "serious"
    assert rules["label"] == "critical"
    assert rules["broken-id-reference"] == "serious"
    with pytest.raises(AssertionError, match="image-alt"):
        audit.assert_no_serious_violations()


def test_public_pages_for_a_visitor(live_server, page, scored_version, speaker):  # noqa: F811
    cards = submitted_cards(scored_version, speaker)
    audit = AxeAudit(page, live_server.url)
    version = scored_version.pk
    audit.visit("home", "/", "Community review of machine translation")
    audit.visit("datasets", "/datasets/", "Datasets")
    audit.visit("dataset-version", f"/datasets/versions/{version}/", "test-en-crk")
    audit.visit("entries", f"/datasets/versions/{version}/entries/", "Entries")
    audit.visit("leaderboard", "/leaderboard/", "Leaderboard")
    audit.visit("leaderboard-360", "/leaderboard/?domain=legal", "Leaderboard", PHONE_360)
    audit.visit("run-card", f"/leaderboard/cards/{cards['weaker'].public_id}/", "tiny-open")
    audit.visit("organization", "/orgs/steward/", "Steward Nation")
    audit.visit("sign-in", "/accounts/login/", "Sign In")
    audit.visit("language", "/language/", "Interface language")
    assert len(audit.checked) == 10
    audit.assert_no_serious_violations()


def test_speaker_pages(live_server, page, steward, governance_user):  # noqa: F811
    first, second = speakers(steward, 2)
    _, _, campaign = reviewed_public_dataset(steward, governance_user, [first, second], ratings_per_item=1)
    for assignment in Assignment.objects.filter(campaign=campaign, speaker=second):
        submit(assignment, "acceptable")
    open_item = Assignment.objects.filter(campaign=campaign, speaker=first).order_by("position").first()
    audit = AxeAudit(page, live_server.url)

    sign_in(page, live_server.url, first)
    audit.visit("review-queue", "/review/", "Your reviews")
    audit.visit("rating-page", f"/review/items/{open_item.public_id}/", "Rate this translation")
    audit.visit("rating-page-360", f"/review/items/{open_item.public_id}/", "Rate this translation", PHONE_360)
    sign_in(page, live_server.url, second)
    audit.visit("end-screen", f"/review/c/{campaign.public_id}/done/", "All done — thank you!")
    audit.assert_no_serious_violations()


def test_governance_pages(live_server, page, steward, governance_user):  # noqa: F811
    pool = speakers(steward, 3)
    version, card, campaign = reviewed_public_dataset(steward, governance_user, pool)
    rate_everything(campaign, lambda assignment: "gist" if assignment.item.domain == "legal" else "acceptable")
    audit = AxeAudit(page, live_server.url)
    consent = version.dataset.consents.get()

    audit.visit("sign-in-governance", "/accounts/login/", "Sign In")
    page.get_by_label("Email").fill(governance_user.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    audit.check("two-factor-code", "Two-Factor Authentication")
    sign_in(page, live_server.url, governance_user)
    audit.visit("campaign", f"/review/campaigns/{campaign.public_id}/", "Spring review of clinic phrases")
    audit.visit("decision", f"/review/campaigns/{campaign.public_id}/decision/", "Evidence and decision")
    audit.submit_refused("decision-refused", "Record the decision", "Evidence and decision", errors=2)
    audit.visit("decision-360", f"/review/campaigns/{campaign.public_id}/decision/", "Evidence and decision",
                PHONE_360)
    # On a phone the charts scroll sideways rather than shrink their labels out of reading.
    label_heights = page.locator("svg.svg-chart text").evaluate_all(
        "texts => texts.map(t => t.getBoundingClientRect().height)")
    assert label_heights and min(label_heights) >= 10, label_heights
    audit.visit("campaign-new", f"/review/campaigns/new/{card.public_id}/", "Open a review campaign")
    page.get_by_label("Title").fill("")
    audit.submit_refused("campaign-new-refused", "Open the campaign", "Open a review campaign", errors=2)
    audit.visit("consent", f"/datasets/d/{version.dataset.identifier}/consent/", "Community consent")
    audit.submit_refused("consent-refused", "Record consent", "Community consent", errors=4)
    audit.visit("consent-revoke", f"/datasets/d/{version.dataset.identifier}/consent/{consent.pk}/revoke/",
                "Revoke consent record")
    audit.submit_refused("consent-revoke-refused", f"Revoke record #{consent.pk}", "Revoke consent record", errors=1)
    audit.visit("organization-governance", "/orgs/steward/", "Steward Nation")
    audit.visit("audit-log", "/orgs/steward/audit/", "Audit log")
    audit.visit("gate-thresholds", "/review/orgs/steward/gate/", "Deployable validation gate")
    page.get_by_label("Lowest agreement between speakers").fill("2")
    audit.submit_refused("gate-thresholds-refused", "Save thresholds", "Deployable validation gate", errors=1)
    audit.visit("entries-steward-view", f"/datasets/versions/{version.pk}/entries/", "Entries")
    audit.visit("rating-examples", "/review/orgs/steward/rating-examples/", "Rating examples of Steward Nation")
    audit.visit("interface-languages", "/orgs/steward/languages/", "Interface languages of Steward Nation")
    audit.submit_refused("interface-languages-refused", "Add the language", "Interface languages of Steward Nation",
                         errors=2)
    add_interface_language(actor=governance_user, organization=steward, code="crk", name="nēhiyawēwin")
    audit.visit("translate-interface", "/orgs/steward/languages/crk/", "Translate the interface into nēhiyawēwin")
    page.locator("textarea").first.fill("<b>x</b>")
    audit.submit_refused("translate-interface-refused", "Save the translations",
                         "Translate the interface into nēhiyawēwin", errors=1)
    audit.assert_no_serious_violations()


def test_curator_pages(live_server, page, steward, curator):  # noqa: F811
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    audit = AxeAudit(page, live_server.url)

    sign_in(page, live_server.url, curator)
    audit.visit("import", "/datasets/import/", "Import a corpus file")
    upload(page, corpus_bytes([entry(1, difficulty=6), entry(1, domain="astrology")]))
    expect(page.get_by_role("alert").get_by_role("heading")).to_have_text("3 problems found — nothing was imported")
    audit.check("import-problems", "Import a corpus file")
    audit.visit("bulk-import", f"/datasets/versions/{version.pk}/bulk-import/", "Import entries from a spreadsheet")
    audit.visit("entry-new", f"/datasets/versions/{version.pk}/entries/new/", "New entry")
    audit.submit_refused("entry-new-refused", "Save entry", "New entry", errors=3)
    audit.assert_no_serious_violations()


def test_method_developer_pages(live_server, page, steward, governance_user):  # noqa: F811
    submission_services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="1",
        text="Submit in good faith.",
        transfer_clause="Ownership of the method transfers to Steward Nation on approval.",
    )
    developer, _ = get_or_create_user("dev@methods.example", PASSWORD)
    audit = AxeAudit(page, live_server.url)

    sign_in(page, live_server.url, developer)
    audit.visit("my-account", "/accounts/profile/", "My account")
    audit.visit("submission-form", "/orgs/steward/submit/", "Submit a method")
    audit.submit_refused("submission-form-refused", "Submit for gold-standard evaluation", "Submit a method", errors=4)
    audit.assert_no_serious_violations()


def test_speakers_ledger_pages(live_server, page, steward, governance_user):  # noqa: F811
    """My languages, vouching and the practice round (a question, its feedback, the result) as a speaker, on a
    computer and a 360 px phone; the speakers' languages and the practice round's pages as governance staff."""
    from speakers import services as speaker_services

    voucher, learner = speakers(steward, 2)
    speaker_services.add_skill(actor=learner, language="crk-Cans", variety="Plains Cree", reading=3, writing=1)
    for n in range(5):
        speaker_services.save_practice_item(
            actor=governance_user, organization=steward, source=f"I see the dog ({n})", candidate="niwâpamâw atim",
            right={"acceptable", "excellent"}, explanation="The verb agrees with the animate noun.",
            source_language="en", target_language="crk")
    attempt = speaker_services.start_practice(actor=learner, organization=steward)
    speaker_services.answer_practice_item(actor=learner, attempt=attempt, position=1, value="gist")
    audit = AxeAudit(page, live_server.url)

    sign_in(page, live_server.url, learner)
    audit.visit("my-languages", "/speakers/", "My languages")
    audit.visit("my-languages-360", "/speakers/", "My languages", PHONE_360)
    page.set_viewport_size(DESKTOP)
    page.locator("#id_language").fill("Plains Cree")
    audit.submit_refused("my-languages-refused", "Add the language", "My languages", errors=1)
    audit.visit("practice", "/speakers/practice/steward/", "Practice round of Steward Nation")
    audit.visit("practice-feedback-360", f"/speakers/practice/steward/{attempt.pk}/1/", "Practice item 1 of 5",
                PHONE_360)
    audit.visit("practice-question-360", f"/speakers/practice/steward/{attempt.pk}/2/", "Practice item 2 of 5",
                PHONE_360)
    for position in range(2, 6):
        speaker_services.answer_practice_item(actor=learner, attempt=attempt, position=position, value="excellent")
    audit.visit("practice-result-360", f"/speakers/practice/steward/{attempt.pk}/result/", "Your practice result",
                PHONE_360)
    sign_in(page, live_server.url, voucher)
    audit.visit("vouch", f"/speakers/vouch/steward/?email={learner.email}", "Vouch for a speaker of Steward Nation")
    sign_in(page, live_server.url, governance_user)
    audit.visit("speakers-languages", "/speakers/orgs/steward/", "Speakers' languages of Steward Nation")
    audit.visit("speakers-languages-360", "/speakers/orgs/steward/", "Speakers' languages of Steward Nation",
                PHONE_360)
    audit.visit("practice-settings", "/speakers/orgs/steward/practice/", "Practice round of Steward Nation")
    audit.visit("practice-item-new", "/speakers/orgs/steward/practice/items/new/", "Write a practice item")
    audit.submit_refused("practice-item-refused", "Save the item", "Write a practice item", errors=4)
    assert len(audit.checked) == 13
    audit.assert_no_serious_violations()
    for path in ("/speakers/orgs/steward/", "/speakers/orgs/steward/practice/"):
        page.set_viewport_size(PHONE_360)
        page.goto(f"{live_server.url}{path}")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_360["width"], path
    sign_in(page, live_server.url, learner)
    for path in ("/speakers/", f"/speakers/practice/steward/{attempt.pk}/3/",
                 f"/speakers/practice/steward/{attempt.pk}/result/"):
        page.goto(f"{live_server.url}{path}")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_360["width"], path
