"""Governance staff in a real browser: plan a campaign (the chance of a pass), then, on a rated campaign's decision
page, leave a flagged speaker out with a reason and read the recommendation both ways; both pages pass axe at
desktop and phone widths."""

import re

import pytest

from ledger import services as ledger
from review import planning, services

from .browser_support import assert_accessible as accessible
from .review_setup import gold_card, rate_everything, settings_for, speakers
from .test_browser import (  # noqa: F401 - browser and page are fixtures
    browser,
    expect,
    page,
    screenshot_both,
)
from .test_browser import sign_in_with_form as sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_plan_then_leave_a_speaker_out_and_read_both_recommendations(live_server, page, steward,  # noqa: F811
                                                                     governance_user, eager_tasks, monkeypatch):
    card = gold_card(steward, governance_user, count=60)
    pool = speakers(steward, 4)
    monkeypatch.setattr(planning, "PLAN_RUNS", 20)
    sign_in(page, live_server.url, governance_user)

    page.goto(f"{live_server.url}/review/campaigns/new/{card.public_id}/")
    page.get_by_label("Planned sample size").fill("40")
    page.get_by_role("button", name="Estimate the chance of a pass").click()
    expect(page.locator("table.plan-table caption")).to_contain_text("40 items, 3 ratings each, 4 speakers")
    # The risk of a false pass at the threshold, then the chance of a pass at 0.75 to 0.95.
    expect(page.locator("table.plan-table tbody tr")).to_have_count(6)
    expect(page.locator("table.plan-table tbody tr").first).to_contain_text("the risk of a false pass")
    # The table follows the campaign form: the sample size typed and the three speakers ticked ask for their plan.
    page.get_by_label("Sample size", exact=True).fill("50")
    for speaker in pool[:3]:
        page.get_by_label(speaker.email).check()
    expect(page.locator("table.plan-table caption")).to_contain_text("50 items, 3 ratings each, 3 speakers")
    screenshot_both(page, "review-plan")
    accessible(page, "campaign form with a plan")

    campaign = services.open_campaign(run_card=card, actor=governance_user,
                                      values=settings_for(pool, sample_size=40))
    harsh = pool[0]
    rate_everything(campaign, lambda a: "reject" if a.speaker_id == harsh.pk else "excellent")
    # Every list of speakers names them as they chose to be credited; this one chose a name.
    ledger.set_speaker_credit(actor=harsh, organization=steward, choice="display_name", display_name="Harsh Rater")
    page.goto(f"{live_server.url}/review/campaigns/{campaign.public_id}/decision/")
    row = page.locator("tr", has_text="Harsh Rater")
    row.get_by_text("Leave out…").click()
    row.get_by_label("Why (kept in the audit log)").fill("Rated every output reject, the references too.")
    row.get_by_role("button", name="Leave their ratings out").click()
    expect(page.locator(".messages")).to_contain_text("The ratings of Harsh Rater are left out of the figures.")
    notice = page.locator(".message.warning", has_text="These figures leave out the ratings of:")
    expect(notice).to_contain_text("Rated every output reject, the references too.")
    expect(notice).to_contain_text(re.compile("With every speaker's ratings the recommendation would be"))
    expect(page.locator("tr", has_text="Harsh Rater")).to_contain_text("Left out")
    screenshot_both(page, "review-decision-exclusion")
    accessible(page, "decision page with a speaker left out")
