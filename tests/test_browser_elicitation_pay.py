"""Pay for elicited work in a real headless Chromium on a 360-pixel phone: governance staff record a payment and
its correction on a batch's pay page, reached from its dashboard (errors named at their field, nothing stored); the
translator sees what is owed and paid on their own page, and follows it to choose how they are credited.
Screenshots: screenshots/elicit-pay-*.png.

Skipped like tests/test_browser.py when Chromium or Playwright is missing, unless REQUIRE_BROWSER=1."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from ledger.models import Payment

from .browser_support import assert_accessible as accessible
from .browser_support import screenshot, sign_in
from .elicitation_setup import consented_dataset, make_batch, people, translate, verify
from .test_browser import (  # noqa: F401 - fixtures
    browser,
    expect,
    page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def test_governance_pays_a_translator_who_sees_it(live_server, page, steward, curator, governance_user):  # noqa: F811
    batch = make_batch(curator, consented_dataset(steward).dataset, hourly_rate=Decimal("36.00"), currency="CAD",
                       amount_per_accepted=Decimal("2.50"))
    translator, verifier = people(steward, 2)
    version, _ = translate(translator, batch.sources.get(text="dog"), "atim",
                           shown_at=timezone.now() - timedelta(seconds=300))
    verify(verifier, version.translation, "accept")

    page.set_viewport_size(PHONE)
    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/elicit/b/{batch.public_id}/dashboard/")
    page.get_by_role("link", name="Time and pay").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Translators' and verifiers' time and pay")
    form = page.locator("form.card")
    form.get_by_label("Speaker").select_option(label="Anonymous speaker 1")
    form.get_by_label("Amount").fill("0")
    form.get_by_role("button", name="Record the payment").click()
    expect(page.locator(".errorlist")).to_contain_text("other than 0")
    assert not Payment.objects.exists()
    form = page.locator("form.card")
    form.get_by_label("Amount").fill("5.50")
    form.get_by_label("Reference").fill("e-transfer 4471")
    form.get_by_role("button", name="Record the payment").click()
    expect(page.locator(".messages")).to_contain_text("Payment recorded.")
    expect(page.locator("[data-payment]")).to_contain_text("e-transfer 4471")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the pay page overflows a phone"
    screenshot(page, "elicit-pay-governance", PHONE)
    accessible(page, "a batch's pay page")

    form = page.locator("form.card")
    form.get_by_label("Speaker").select_option(label="Anonymous speaker 1")
    form.get_by_label("Amount").fill("-1.50")
    form.get_by_label("Corrects the payment").select_option(index=1)
    form.get_by_label("Note").fill("Paid the e-transfer fee twice.")
    form.get_by_role("button", name="Record the payment").click()
    expect(page.locator(".messages")).to_contain_text("Payment recorded.")
    assert sorted(Payment.objects.values_list("amount", flat=True)) == [Decimal("-1.50"), Decimal("5.50")]

    sign_in(page, live_server.url, translator)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/elicit/me/")
    row = page.locator("[data-my-pay] tbody tr", has_text=batch.title)
    expect(row).to_contain_text("4.00 CAD")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "'Your translations' overflows"
    screenshot(page, "elicit-pay-translator", PHONE)
    accessible(page, "the translator's own pay")
    page.set_viewport_size(PHONE)
    page.get_by_role("link", name="How each organization credits you").click()
    expect(page.get_by_role("heading", name="How you are credited")).to_be_visible()
