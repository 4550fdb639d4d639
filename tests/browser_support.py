"""What the accessibility check and the browser journeys share: signing a user in without the login form,
screenshots, and running axe-core in the page."""

from pathlib import Path

from django.conf import settings
from django.test import Client

from .test_browser import DESKTOP, PHONE, SCREENSHOTS

AXE_SOURCE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices (landmarks, one h1, heading order...).
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
BLOCKING_IMPACTS = ("serious", "critical")


def sign_in(page, live_server_url: str, user) -> None:
    """Give the browser a session of `user` (as `Client.force_login` does) instead of typing credentials, so a
    journey does not depend on the login form or its two-factor step; replaces any earlier session."""
    client = Client()
    client.force_login(user)
    page.context.clear_cookies()
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                               "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                               "url": live_server_url}])


def screenshot(page, name: str, viewport: dict | None = None) -> Path:
    """A full-page screenshot at `viewport` (desktop by default) under screenshots/; the viewport stays."""
    SCREENSHOTS.mkdir(exist_ok=True)
    page.set_viewport_size(viewport or DESKTOP)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path


def axe_violations(page) -> list[dict]:
    """Run axe-core's WCAG 2 A/AA and best-practice rules on the page as loaded and return its violations.

    axe is evaluated through the DevTools protocol (`page.evaluate`) rather than added as a <script> tag: the
    app's Content-Security-Policy (`script-src 'self'`) would refuse the tag, and `bypass_csp=True` would switch
    the whole policy off, inline styles included, so axe would check a page users never get."""
    page.evaluate(AXE_SOURCE.read_text(encoding="utf-8"))
    return page.evaluate("""async (tags) => {
        const results = await axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
        return results.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary || ""})),
        }));
    }""", WCAG_TAGS)


ID_REFERENCES = ["aria-describedby", "aria-labelledby", "aria-controls", "aria-errormessage", "aria-owns", "for"]


def id_problems(page) -> list[dict]:
    """ID references that lead nowhere and ids used twice, as axe-style violations. axe only reports a missing
    aria-describedby target as "needs review" (a script might add it later); no script here adds ids, so a
    missing target is a bug: Django 5 points each widget at `<id>_helptext` and `<id>_error`, and a template
    must render those ids."""
    return page.evaluate("""(attributes) => {
        const problems = [];
        const selector = attributes.map(a => a === "for" ? "label[for]" : `[${a}]`).join(",");
        for (const element of document.querySelectorAll(selector)) {
            for (const attribute of attributes) {
                const value = element.getAttribute(attribute);
                if (value === null || (attribute === "for" && element.tagName !== "LABEL")) continue;
                for (const id of value.split(/\\s+/).filter(Boolean)) {
                    if (!document.getElementById(id)) {
                        problems.push({id: "broken-id-reference", impact: "serious",
                            help: `${attribute} must name an element of the page`,
                            nodes: [{target: `${element.tagName.toLowerCase()}[${attribute}="${value}"]`,
                                     summary: `no element has id "${id}"`}]});
                    }
                }
            }
        }
        const seen = new Map();
        for (const element of document.querySelectorAll("[id]")) seen.set(element.id, (seen.get(element.id) || 0) + 1);
        for (const [id, count] of seen) {
            if (count > 1) problems.push({id: "duplicate-id", impact: "serious", help: "ids must be unique",
                                          nodes: [{target: `#${id}`, summary: `${count} elements share it`}]});
        }
        return problems;
    }""", ID_REFERENCES)


def describe(label: str, violations: list[dict]) -> list[str]:
    """One readable block per violation: page, impact, rule, and where (first three elements)."""
    lines = []
    for violation in violations:
        lines.append(f"{label}: [{violation['impact']}] {violation['id']}: {violation['help']}")
        for node in violation["nodes"][:3]:
            summary = " ".join(node["summary"].split())
            lines.append(f"    {node['target']}: {summary[:300]}")
        if len(violation["nodes"]) > 3:
            lines.append(f"    … and {len(violation['nodes']) - 3} more")
    return lines


def assert_accessible(page, label: str) -> None:
    """axe and the page's id references, clean at phone and desktop widths."""
    found = []
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        found += describe(label, axe_violations(page) + id_problems(page))
    assert not found, "\n".join(found)


def reviewed_public_dataset(organization, governance_user, pool: list, *, sample_size: int = 6,
                            ratings_per_item: int = 2):
    """A public EN→CRK dataset (Cree texts in SRO and syllabics among its development entries, secret
    gold-standard entries besides) under one consent record for every use, a run card of all its entries and an
    open review campaign on it: (version, run card, campaign). One consent record, so revoking it withdraws."""
    from corpus.models import Entry
    from corpus.services import import_corpus
    from leaderboard.services import submit_run_card
    from review import services as review_services

    from .cards import body, make_card
    from .conftest import corpus_bytes, enable_totp, entry, publish
    from .review_setup import MODEL_SLUG, sandbox_operator
    from .test_browser import CREE_SRO, CREE_SYLLABICS

    conversational = {"domain": "conv", "register": "conversational", "provenance": "elicited", "difficulty": 1}
    entries = [entry(1, source="I see the dog", reference=CREE_SRO, **conversational),
               entry(2, source="I see the dog", reference=CREE_SYLLABICS, **conversational),
               entry(3, difficulty=2, domain="medical"), entry(4, difficulty=3, domain="legal")]
    entries += [entry(n, "gold_standard", difficulty=1 + n % 5, domain="medical" if n % 2 else "legal")
                for n in range(5, 13)]
    enable_totp(governance_user)  # governance staff read secret entries only with two-factor authentication on
    version = import_corpus(data=corpus_bytes(entries), organization=organization, actor=None).version
    publish(version.dataset)
    rows = list(Entry.objects.filter(version=version).order_by("position"))
    card = submit_run_card(
        body=body(make_card(version, rows, composite=0.8, model_slug=MODEL_SLUG)),
        actor=sandbox_operator(organization),
    )
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=review_services.CampaignSettings(
            title="Spring review of clinic phrases", sample_size=sample_size, speakers=pool,
            ratings_per_item=ratings_per_item, seed=7),
    )
    return version, card, campaign
