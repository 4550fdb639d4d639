"""Journeys in a real headless Chromium against the live server: a curator's import, what an anonymous
visitor sees, and keyboard use. Screenshots (desktop 1280×900, phone 390×844) land in screenshots/ as a
side effect; every test asserts on page content.

Skipped when /usr/bin/chromium (or playwright) is missing, unless REQUIRE_BROWSER=1, which makes that a failure.
"""

import os
import re
from pathlib import Path

import pytest

from corpus.models import Dataset, Entry

from .conftest import PASSWORD, SECRET_MARK, corpus_bytes, entry, totp_code

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 780}
CREE_SRO = "niwâpamâw atim"
CREE_SYLLABICS = "ᓂᐚᐸᒫᐤ ᐊᑎᒼ"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def unavailable(reason: str):
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        unavailable(f"{CHROMIUM} is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed")
    # Playwright's sync API keeps an event loop running in this thread; Django would otherwise refuse the
    # test's own ORM calls as "async-unsafe". Only for as long as the browser runs.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def screenshot_both(page, name: str, phone: dict = PHONE) -> None:
    """Full-page screenshots at desktop and phone width; the phone one must not scroll sideways."""
    SCREENSHOTS.mkdir(exist_ok=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=SCREENSHOTS / f"{name}-desktop.png", full_page=True)
    page.set_viewport_size(phone)
    page.screenshot(path=SCREENSHOTS / f"{name}-phone.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= phone["width"], f"{name} overflows a phone"
    page.set_viewport_size(DESKTOP)


def sign_in_with_form(page, base_url: str, user) -> None:
    """Sign in as a person does, replacing any earlier session: e-mail and password, then — for users with an
    authenticator app, as governance staff and curators must have — the code it shows now."""
    from allauth.mfa.models import Authenticator

    page.context.clear_cookies()
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=login]", user.email)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    if Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).exists():
        page.wait_for_url("**/accounts/2fa/authenticate/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Two-Factor Authentication")
        page.fill("input[name=code]", totp_code(user))
        page.get_by_role("button", name="Sign In").click()
    # A speaker with items waiting lands on their reviews; everyone else on their account.
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^(My account|Your reviews)$"))


def upload(page, data: bytes) -> None:
    page.set_input_files("input[name=file]", files=[
        {"name": "corpus.json", "mimeType": "application/json", "buffer": data}])
    with page.expect_navigation():
        page.get_by_role("button", name="Import").click()


def test_curator_signs_in_sees_every_problem_then_imports(live_server, page, curator):
    sign_in_with_form(page, live_server.url, curator)  # password, then the authenticator app's code
    expect(page.locator("main")).to_contain_text(curator.email)

    page.goto(f"{live_server.url}/datasets/import/")
    expect(page.get_by_label("Steward organization")).to_have_value("steward")
    bad = corpus_bytes([entry(1, difficulty=6), entry(1, domain="astrology"), entry(2, difficulty=2)])
    upload(page, bad)
    report = page.get_by_role("alert")
    expect(report.get_by_role("heading")).to_have_text("3 problems found — nothing was imported")
    problems = report.locator("ol.problem-list > li")
    expect(problems).to_have_text([
        "entry #0, id 1, field 'difficulty': expected an integer from 1 to 5, found 6",
        "entry #1, id 1, field 'id': duplicate id: entry #0 already uses it",
        re.compile(r"^entry #1, id 1, field 'domain': unknown value \"astrology\"; expected one of: conv, .*\blegal\b"),
    ])
    expect(page.get_by_role("heading", name="Upload the corrected file")).to_be_visible()
    assert Dataset.objects.count() == 0 and Entry.objects.count() == 0
    screenshot_both(page, "import-errors")

    good = corpus_bytes([
        entry(1, difficulty=1, domain="conv", register="conversational", provenance="elicited",
              source="I see the dog", reference=CREE_SRO),
        entry(2, difficulty=1, domain="conv", register="conversational", provenance="elicited",
              source="I see the dog", reference=CREE_SYLLABICS),
        entry(42, "gold_standard", difficulty=2, register="formal", provenance="gold_standard"),
    ])
    upload(page, good)
    expect(page.get_by_role("heading", level=1)).to_contain_text("test-en-crk")
    expect(page.get_by_role("status")).to_contain_text("Imported 3 entries")
    checklist = page.locator("section[aria-labelledby=ready]")
    expect(checklist.get_by_role("heading")).to_have_text("Benchmark readiness")
    gold_row = checklist.locator("tbody tr", has_text="Gold standard entries")
    expect(gold_row).to_contain_text("≥ 50")
    expect(gold_row.locator("td.found")).to_have_text("1")
    expect(gold_row).to_contain_text("not yet")
    expect(checklist.locator("tbody tr", has_text="Every entry has a provenance")).to_contain_text("pass")
    assert {CREE_SRO, CREE_SYLLABICS} <= set(Entry.objects.values_list("reference", flat=True))
    screenshot_both(page, "dataset-page")

    page.get_by_role("link", name="Browse entries").click()
    expect(page.locator("tbody")).to_contain_text(CREE_SRO)
    expect(page.locator("tbody")).to_contain_text(CREE_SYLLABICS)
    expect(page.locator("tbody")).to_contain_text(SECRET_MARK)  # the steward's curator sees the secret entry


def test_anonymous_visitor_sees_public_entries_but_no_secret_text(live_server, page, public_version):
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.goto(f"{live_server.url}/datasets/")
    # Every file the page names is there, its icon too (a browser asks for /favicon.ico, a 404, without one).
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert icon and page.request.get(f"{live_server.url}{icon}").ok
    assert failed == []
    page.get_by_role("link", name="test-en-crk").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("test-en-crk")
    expect(page.locator("main")).to_contain_text("Gold-standard and held-out entries are secret")
    assert SECRET_MARK not in page.content()

    page.get_by_role("link", name="Browse entries").click()
    expect(page.get_by_role("status")).to_have_text("2 entries")
    rows = page.locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("source public-1")
    expect(rows.nth(1)).to_contain_text("reference public-2")
    assert SECRET_MARK not in page.content()
    table = page.locator("tbody").inner_text()
    assert "Gold standard" not in table and "Held out" not in table

    secret = Entry.objects.get(version=public_version, segment="gold_standard")
    assert page.goto(f"{live_server.url}/datasets/entries/{secret.pk}/").status == 404
    assert SECRET_MARK not in page.content()
    export = page.request.get(f"{live_server.url}/datasets/versions/{public_version.pk}/export.json")
    assert export.ok and "public-1" in export.text() and SECRET_MARK not in export.text()


def test_keyboard_skip_link_first_and_filter_submits_with_enter(live_server, page, public_version):
    page.goto(f"{live_server.url}/datasets/versions/{public_version.pk}/entries/")
    page.keyboard.press("Tab")
    focused = page.locator(":focus")
    expect(focused).to_have_text("Skip to content")
    box = focused.bounding_box()
    assert box and box["x"] >= 0 and box["y"] >= 0, "the skip link is on screen once focused"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"

    page.keyboard.press("Tab")  # the breadcrumb's first link, with a visible focus ring
    expect(page.locator(":focus")).to_have_text("Datasets")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_attribute("name", "q")
    page.keyboard.type("public-2")
    page.keyboard.press("Enter")
    page.wait_for_url("**q=public-2**")
    expect(page.get_by_role("status")).to_have_text("1 entry")
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("tbody")).to_contain_text("source public-2")


# --- The leaderboard, as a visitor with no account reads it ---------------------------------------------------


@pytest.fixture
def scored_version(steward):
    """A public dataset of eight development entries: four medical, four legal."""
    from corpus.services import import_corpus

    from .conftest import publish

    entries = [entry(n, "development", difficulty=1 + n % 3, domain="medical" if n <= 4 else "legal",
                     provenance="elicited") for n in range(1, 9)]
    stored = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(stored.dataset)
    return stored


def submitted_cards(version, user):
    """Four cards as the harness writes them: a method with an A2 external dependency (best on legal entries),
    a Deployable legacy run (best on medical entries, best overall), a weaker legacy run whose submitted
    exact-match rate its results do not reproduce, and one standard/1 card that the legacy ranking never shows."""
    from leaderboard.services import submit_run_card

    from .cards import body, make_card, seal

    entries = list(Entry.objects.filter(version=version).order_by("position"))

    def medical_good(row):
        return row.reference if row.domain == "medical" else "wrong wrong"

    def legal_good(row):
        return row.reference if row.domain == "legal" else "wrong"

    def half_right(row):
        return row.reference if row.entry_id in ("1", "5") else "nothing alike"

    method_card = {"method_id": "fst-guided-pipeline", "name": "FST-guided pipeline", "class": "pipeline",
                   "dependency_class": "A2"}
    manifest = {"dependency_class": "A2", "dependencies": [{
        "id": "hosted-llm", "kind": "model", "license": "proprietary", "access": "external-api",
        "source": "https://example.org/api", "redistributable": False, "transferable": False,
        "substitutable": False}]}
    pipeline = make_card(version, entries, composite=0.62, model_slug="pipeline-llm", condition="fst-guided",
                         predict=legal_good, method_card=method_card, manifest=manifest, cost_per_entry=0.004)
    deployable = make_card(version, entries, composite=0.78, model_slug="medic-large", condition="few-shot",
                           predict=medical_good, cost_per_entry=0.02)
    weaker = make_card(version, entries, composite=0.41, model_slug="tiny-open", predict=half_right,
                       cost_per_entry=0.0)
    weaker["scores"]["exact_match_rate"] = 0.5  # the results give 0.25: a discrepancy shown on its page
    seal(weaker)
    modern = make_card(version, entries, model_slug="modern-mt", scoring_standard="standard/1")
    return {name: submit_run_card(body=body(card), actor=user) for name, card in (
        ("pipeline", pipeline), ("deployable", deployable), ("weaker", weaker), ("modern", modern))}


def method_cells(page):
    return page.locator("table.leaderboard tbody tr td.method a")


def test_visitor_reads_the_leaderboard_filters_by_domain_and_opens_a_card(live_server, page, scored_version,
                                                                          speaker):
    cards = submitted_cards(scored_version, speaker)
    page.goto(f"{live_server.url}/leaderboard/?standard=legacy-composite")
    expect(page.get_by_role("heading", level=1)).to_have_text("Leaderboard")
    expect(page.get_by_role("note").first).to_contain_text("Every score here is an automated proxy")

    table = page.locator("table.leaderboard")
    expect(table.locator("thead tr.columns th")).to_have_count(16)  # every column of the spec, in five groups
    expect(table.locator("thead th[scope=colgroup]")).to_have_text(
        ["Automated scores", "Cost and speed", "Setup", "Tiers and flags"])
    expect(table.locator("thead th[aria-sort=descending]")).to_have_text("Composite")
    expect(table.locator("thead abbr[title='FST acceptance rate']")).to_have_text("FST")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)  # the standard/1 card never mixes into the legacy ranking
    expect(method_cells(page)).to_have_text(["medic-large · few-shot", "FST-guided pipeline", "tiny-open · baseline"])
    expect(rows.locator("td.rank")).to_have_text(["1", "2", "3"])
    first, second, third = rows.nth(0), rows.nth(1), rows.nth(2)
    expect(first.locator("td.composite")).to_have_text("0.780")
    expect(first.locator("td.tier")).to_contain_text("Deployable")
    expect(first.locator(".badge.provisional")).to_have_text("provisional — awaiting community review")
    expect(second.locator("td.tier")).to_contain_text("Functional")
    expect(second.locator(".badge.provisional")).to_have_count(0)
    expect(second.locator("td.dependencies")).to_contain_text("A2")
    expect(second.locator("td.dependencies")).to_contain_text("external dependency")
    expect(second.locator("td.class")).to_have_text("pipeline")
    expect(third.locator("td.cost")).to_have_text("$0.0000")
    for row in (first, second, third):
        expect(row.locator("td.verification")).to_have_text("Self-benchmarked")
    assert "modern-mt" not in table.inner_text()
    screenshot_both(page, "leaderboard")

    # Keyboard only: from the segment filter, Tab to the domain select, pick Legal, Tab to Show, Enter.
    page.locator("#f-segment").focus()
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_attribute("id", "f-domain")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.type("Legal")
    expect(page.locator("#f-domain")).to_have_value("legal")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Show")
    page.keyboard.press("Enter")
    page.wait_for_url("**domain=legal**")
    expect(page.get_by_role("status")).to_contain_text(
        "3 setups, ranked by composite with every score computed over the Legal entries only.")
    expect(method_cells(page)).to_have_text(["FST-guided pipeline", "tiny-open · baseline", "medic-large · few-shot"])
    legal_first = page.locator("table.leaderboard tbody tr").first
    expect(legal_first.locator("td.exact")).to_have_text("1.000")
    expect(page.locator("#f-domain")).to_have_value("legal")
    expect(legal_first.locator("td.method")).to_contain_text("4 entries scored")
    screenshot_both(page, "leaderboard-legal")

    page.get_by_role("link", name="tiny-open · baseline").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("tiny-open · baseline")
    expect(page.get_by_role("note")).to_contain_text("automated proxies")
    verification = page.locator("section[aria-labelledby=verification]")
    expect(verification).to_contain_text("Self-benchmarked")
    expect(verification).to_contain_text("Hash verified")
    discrepancies = verification.locator("tbody tr")
    expect(discrepancies).to_have_count(1)
    expect(discrepancies.first).to_contain_text("scores.exact_match_rate")
    expect(discrepancies.first.locator("td").nth(1)).to_have_text("0.5")
    expect(discrepancies.first.locator("td").nth(2)).to_have_text("0.25")
    by_domain = page.locator("section[aria-labelledby=by-domain] tbody tr")
    expect(by_domain.locator("td").first).to_have_text("Legal")
    expect(by_domain).to_have_count(2)
    screenshot_both(page, "run-card")

    page.goto(f"{live_server.url}/leaderboard/cards/{cards['pipeline'].public_id}/")
    expect(page.locator("main")).to_contain_text("external dependency")
    expect(page.locator("section[aria-labelledby=verification]")).to_contain_text(
        "Every recomputable aggregate agrees")
    screenshot_both(page, "run-card-method")

    page.goto(f"{live_server.url}/leaderboard/?standard=standard/1")
    expect(method_cells(page)).to_have_text(["modern-mt · baseline"])
    expect(page.locator("table.leaderboard thead th[aria-sort=descending]")).to_have_text("chrF++")


# --- A new governance staff member: two-factor authentication, then the dashboard and the consent page -------


@pytest.fixture
def governed_world(steward, governance_user, settings, tmp_path):
    """What a newly added governance staff member of Steward Nation finds: a consented dataset under review
    (its campaign fully rated, waiting for a decision), a dataset nobody recorded consent for, one whose
    consent was revoked, and a method submission waiting for staff."""
    import datetime
    import io

    from corpus.models import ConsentUse
    from corpus.services import grant_consent, import_corpus, revoke_consent
    from leaderboard.services import submit_run_card
    from organizations.services import add_member
    from review import services as review_services
    from submissions import services as submission_services

    from .cards import body, make_card
    from .conftest import member
    from .review_setup import gold_entries, rate_everything, settings_for, speakers
    from .test_submissions import COST_REPORT, package_files, zip_bytes

    settings.MEDIA_ROOT = tmp_path / "media"
    entries = [entry(n, difficulty=1 + n % 3, domain="medical", provenance="elicited") for n in range(1, 4)]
    clinic = import_corpus(
        data=corpus_bytes(entries + gold_entries(12)[3:], id="clinic-phrases-en-crk"),
        organization=steward,
        actor=None,
    ).version
    grant_consent(
        dataset=clinic.dataset,
        uses=list(ConsentUse),
        granted_by_name="Chief and Council of Steward Nation, resolution 2026-14",
        granted_on=datetime.date(2026, 1, 15),
        actor=governance_user,
        document_reference="Band office archive, binder 7",
        notes="Gateway disclosure only for runs the council approves one by one.",
    )
    scored = list(Entry.objects.filter(version=clinic, segment="gold_standard").order_by("position"))
    card = submit_run_card(
        body=body(make_card(clinic, scored, composite=0.78, model_slug="clinic-coached")),
        actor=governance_user,
    )
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(
            speakers(steward, 2), title="Clinic phrases, first look", sample_size=6, ratings_per_item=2),
    )
    rate_everything(campaign, lambda assignment: "excellent" if assignment.position % 3 else "acceptable")
    review_services.refresh_summary(campaign.pk)

    import_corpus(data=corpus_bytes([entry(1)], id="elders-stories-en-crk"), organization=steward, actor=None)
    school = import_corpus(
        data=corpus_bytes([entry(1)], id="school-texts-en-crk"),
        organization=steward,
        actor=None,
    ).version.dataset
    record = grant_consent(
        dataset=school,
        uses=[ConsentUse.EVALUATION, ConsentUse.HUMAN_REVIEW],
        granted_by_name="Education committee",
        granted_on=datetime.date(2026, 3, 2),
        actor=governance_user,
        document_reference="Minutes 2026-03-02",
    )
    revoke_consent(
        record=record,
        actor=governance_user,
        reason="The committee asked to pause until the school year ends.",
    )

    developer = member("dev@methods.example", steward, "speaker")
    terms = submission_services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="1",
        text="Submit in good faith.",
        transfer_clause="Ownership transfers to Steward Nation.",
    )
    submission_services.submit_method(
        organization=steward,
        actor=developer,
        terms_acceptance=submission_services.accept_terms(
            terms=terms,
            actor=developer,
        ),
        package=io.BytesIO(zip_bytes(package_files())),
        package_name="method.zip",
        cost_report=COST_REPORT,
    )
    newcomer, _, _ = add_member(
        email="new.staff@steward.example",
        organization=steward,
        role="governance",
        password=PASSWORD,
        actor=None,
    )
    return {"newcomer": newcomer, "campaign": campaign, "clinic": clinic}


def test_new_governance_staff_sets_up_two_factor_then_reads_the_dashboard(live_server, page, governed_world):
    from .conftest import current_totp_code

    newcomer, campaign = governed_world["newcomer"], governed_world["campaign"]
    sign_in_with_form(page, live_server.url, newcomer)  # no authenticator yet: password only
    banner = page.get_by_role("complementary", name="Two-factor authentication")
    expect(banner).to_contain_text("Your role lets you see your community's secret segments once two-factor "
                                   "authentication is set up.")
    screenshot_both(page, "mfa-banner", SMALL_PHONE)

    page.get_by_role("link", name="Governance", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Set up two-factor authentication to continue")
    expect(page.locator("main")).to_contain_text("Governance staff of Steward Nation")
    assert SECRET_MARK not in page.content()
    screenshot_both(page, "mfa-required", SMALL_PHONE)

    page.get_by_role("link", name="Activate two-factor authentication").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Confirm Access")  # allauth asks for the password
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Activate Authenticator App")
    secret = page.locator("#authenticator_secret").input_value()
    page.fill("input[name=code]", current_totp_code(secret))
    page.get_by_role("button", name="Activate").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Recovery Codes")
    expect(page.get_by_role("complementary", name="Two-factor authentication")).to_have_count(0)

    page.get_by_role("link", name="Governance", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Governance dashboard")
    glance = page.locator("ul.card-summary")
    expect(glance.locator("li", has_text="Datasets without active consent")).to_contain_text("2 of 3")
    expect(glance.locator("li", has_text="Submissions waiting")).to_contain_text("1")
    expect(glance.locator("li", has_text="Campaigns ready for a decision")).to_contain_text("1")
    consent_rows = page.locator("section[aria-labelledby=consent] tbody tr")
    expect(consent_rows).to_have_count(3)
    expect(consent_rows.nth(0)).to_contain_text("clinic-phrases-en-crk")
    expect(consent_rows.nth(0)).to_contain_text("human review")
    expect(consent_rows.nth(1)).to_contain_text("No consent recorded")
    expect(consent_rows.nth(2)).to_contain_text("All consent revoked")
    submissions = page.locator("section[aria-labelledby=submissions] tbody tr")
    expect(submissions).to_have_count(1)
    expect(submissions.first).to_contain_text("FST-gated pipeline")
    expect(submissions.first).to_contain_text("Send it to the sandbox, or reject it")
    campaigns = page.locator("section[aria-labelledby=campaigns] tbody tr")
    expect(campaigns).to_have_count(1)
    expect(campaigns.first).to_contain_text("Clinic phrases, first look")
    expect(campaigns.first).to_contain_text("ready for a decision")
    expect(campaigns.first).to_contain_text("6 of 6 items fully rated")
    expect(page.locator("section[aria-labelledby=events] tbody tr")).to_have_count(10)
    assert SECRET_MARK not in page.content()
    screenshot_both(page, "governance-dashboard", SMALL_PHONE)

    page.get_by_role("link", name="Consent records of clinic-phrases-en-crk").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Community consent")
    expect(page.locator("main")).to_contain_text("clinic-phrases-en-crk")
    screenshot_both(page, "consent-page", SMALL_PHONE)

    page.goto(f"{live_server.url}/review/campaigns/{campaign.public_id}/decision/")
    expect(page.locator(".gate h2")).to_contain_text("Gate recommendation")

    sign_in_with_form(page, live_server.url, newcomer)  # from now on the login asks for the app's code
    expect(page.get_by_role("link", name="Governance", exact=True)).to_have_attribute(
        "href", "/orgs/steward/dashboard/")
