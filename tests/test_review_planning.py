"""Planning before opening: the chance of a pass and the risk of a false one, simulated with the calibration
suite's model through the real aggregation and gate, for the form's numbers and the card's own tiers, computed by a
Celery task and kept in the cache (never in a web request)."""

from dataclasses import replace

import pytest

from review import planning
from review.gate import GatePolicy
from review.planning import PLANNED_SHARES, planned_design, simulate_plan
from review.simulation import Design

from .review_setup import gold_card, speakers

FORTY = Design(items=40, ratings_per_item=3, speakers=4, populations=(20, 20, 10, 5, 5))
LARGE = Design(items=300, ratings_per_item=3, speakers=10, populations=(200, 200, 100, 50, 50))


@pytest.mark.slow
def test_the_plan_shows_the_false_pass_risk_at_the_threshold_then_the_chance_above_it():
    plan = simulate_plan(LARGE, GatePolicy(), runs=40)
    assert [row.share for row in plan.rows] == [0.70, *PLANNED_SHARES]
    assert [row.at_threshold for row in plan.rows] == [True] + [False] * len(PLANNED_SHARES)
    assert plan.risk.chance <= 0.1
    # With 300 items and 10 speakers a method at 0.95 passes almost always; with 40 items and 4 speakers the
    # speaker-aware interval is too wide for that.
    assert plan.rows[-1].chance >= 0.85
    assert simulate_plan(FORTY, GatePolicy(), runs=40).rows[-1].chance < plan.rows[-1].chance
    # Each chance carries its 95% Monte-Carlo margin: ±1.96 · sqrt(p(1 - p) / runs), at least that of one run.
    for row in plan.rows:
        assert row.margin == pytest.approx(1.96 * max(row.chance * (1 - row.chance), 1 / 40) ** 0.5 / 40 ** 0.5,
                                           rel=1e-3)


def test_the_plan_is_seeded_and_follows_the_thresholds():
    assert simulate_plan(FORTY, GatePolicy(), runs=10) == simulate_plan(FORTY, GatePolicy(), runs=10)
    strict = simulate_plan(FORTY, replace(GatePolicy(), min_usable_lower_bound=0.9), runs=10)
    assert [row.share for row in strict.rows] == [0.9, 0.95]


def test_fewer_speakers_than_ratings_per_item_never_pass():
    plan = simulate_plan(replace(FORTY, speakers=2), GatePolicy(), runs=10)
    assert all(row.chance == 0.0 for row in plan.rows)


def test_large_samples_and_pools_are_planned_at_the_caps_never_below_the_policys_minimums():
    populations = (5000, 3000, 2000, 0, 0, 0)
    design = planned_design(50_000, 3, 400, populations, GatePolicy())
    assert (design.items, design.speakers) == (planning.MAX_PLANNED_ITEMS, planning.MAX_PLANNED_SPEAKERS)
    strict = replace(GatePolicy(), min_rated_items=500, min_distinct_speakers=25)
    assert (planned_design(1000, 3, 30, populations, strict).items,
            planned_design(1000, 3, 30, populations, strict).speakers) == (500, 25)


@pytest.mark.django_db
def test_the_cards_tiers_are_the_strata_of_the_plan(steward, governance_user):
    card = gold_card(steward, governance_user, count=60)
    populations = planning.card_populations(card)
    # tests/review_setup.py: six outputs in ten have no difficulty... every tenth has none.
    assert sum(populations) == 60 and populations[-1] == 6 and all(populations[:5])


def campaign_form_url(client, steward, governance_user, pool_size: int) -> str:
    """The new-campaign page of a 60-output gold card, for governance staff signed in, with a pool of `pool_size`."""
    card = gold_card(steward, governance_user, count=60)
    speakers(steward, pool_size)
    client.force_login(governance_user)
    return f"/review/campaigns/new/{card.public_id}/"


@pytest.mark.django_db
def test_the_plan_is_computed_by_a_task_once_then_served_from_the_cache(
        client, steward, governance_user, monkeypatch, django_capture_on_commit_callbacks, eager_tasks):
    url = campaign_form_url(client, steward, governance_user, 5)
    page = client.get(url).content.decode()
    assert "Before opening: the chance of a pass" in page and 'name="plan_speakers" value="5"' in page
    assert "Chance the gate recommends a pass" not in page, "nothing is simulated until asked"
    assert "js/plan.js" in page and 'id="campaign-form"' in page
    calls = []
    real = planning.simulate_plan
    monkeypatch.setattr(planning, "simulate_plan", lambda *args, **kwargs: calls.append(args) or real(*args, runs=6))
    numbers = {"plan_size": "45", "plan_ratings": "3", "plan_speakers": "5"}
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        asked = client.get(url, numbers).content.decode()
    # The request never simulates: it enqueues the task (once) and says the plan is on its way.
    assert calls == [] and len(enqueued) == 1
    assert "is being simulated" in asked and 'data-pending="1"' in asked
    with django_capture_on_commit_callbacks(execute=False) as again:
        client.get(url, numbers)
    assert again == [], "a plan already asked for is not enqueued twice"
    enqueued[0]()
    assert len(calls) == 1
    html = client.get(url, numbers).content.decode()
    assert "Chance the gate recommends a pass" in html
    assert "45 items, 3 ratings each, 5 speakers" in html and "6 simulated campaigns for each row" in html
    assert "the risk of a false pass" in html and "(your threshold)" in html
    assert 'name="sample_size" value="45"' in html and 'name="ratings_per_item" value="3"' in html
    fragment = client.get(url, {**numbers, "fragment": "plan"}).content.decode()
    assert fragment.startswith('<div id="plan"') and "Open the campaign" not in fragment
    assert len(calls) == 1, "the same plan is simulated once and kept"


@pytest.mark.django_db
@pytest.mark.parametrize("params, message", [
    ({"plan_size": "61", "plan_ratings": "3", "plan_speakers": "4"}, "less than or equal to 60"),
    ({"plan_size": "0", "plan_ratings": "3", "plan_speakers": "4"}, "greater than or equal to 1"),
    ({"plan_size": "20", "plan_ratings": "11", "plan_speakers": "4"}, "less than or equal to 10"),
    ({"plan_size": "20", "plan_ratings": "4", "plan_speakers": "4"}, "With 4 ratings per item, an item is usable only "
                                                                     "with more than a majority of them"),
    ({"plan_size": "many", "plan_ratings": "3", "plan_speakers": "4"}, "Enter a whole number."),
])
def test_a_bad_plan_names_the_field(client, steward, governance_user, params, message):
    card = gold_card(steward, governance_user, count=60)
    client.force_login(governance_user)
    answer = client.get(f"/review/campaigns/new/{card.public_id}/", params)
    assert answer.status_code == 400 and message in answer.content.decode()
    assert "Chance the gate recommends a pass" not in answer.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("ratings, reason", [
    (2, "With 2 ratings per item, an item is usable only with more than a majority of them"),
    (4, "With 4 ratings per item"),
    (1, "One rating per item leaves no agreement between speakers to measure"),
    (7, "The gate is checked for 3 or 5 ratings per item"),
])
def test_the_campaign_form_refuses_a_design_the_gate_is_not_calibrated_for(client, steward, governance_user,
                                                                           ratings, reason):
    card = gold_card(steward, governance_user, count=60)
    pool = speakers(steward, 8)
    client.force_login(governance_user)
    answer = client.post(f"/review/campaigns/new/{card.public_id}/", {
        "title": "Spring review", "sample_size": "40", "ratings_per_item": str(ratings),
        "speakers": [speaker.pk for speaker in pool], "seed": "1", "control_count": "0"})
    html = answer.content.decode()
    assert answer.status_code == 400 and reason in html
    assert '<a href="#id_ratings_per_item">Ratings per item</a>' in html
    assert not card.campaigns.exists()


@pytest.mark.django_db
def test_a_refused_campaign_lists_its_errors_at_the_top_with_links_to_the_fields(client, steward, governance_user):
    card = gold_card(steward, governance_user, count=60)
    [speaker] = speakers(steward, 1)
    client.force_login(governance_user)
    answer = client.post(f"/review/campaigns/new/{card.public_id}/", {
        "title": "", "sample_size": "20", "ratings_per_item": "3", "speakers": [speaker.pk], "seed": "1",
        "control_count": "0"})
    html = answer.content.decode()
    assert answer.status_code == 400
    summary = html[html.index('id="error-summary"'):]
    assert html.index('id="error-summary"') < html.index('id="plan-h"'), "before the long plan section"
    assert '<a href="#id_title">Title</a>: This field is required.' in summary
    assert 'id="id_speakers"' in html, "the speakers' fieldset is a link target"
    too_few = client.post(f"/review/campaigns/new/{card.public_id}/", {
        "title": "Spring review", "sample_size": "20", "ratings_per_item": "3", "speakers": [speaker.pk], "seed": "1",
        "control_count": "0"}).content.decode()
    summary = too_few[too_few.index('id="error-summary"'):too_few.index('id="plan-h"')]
    assert "Each item needs 3 different speakers, but the pool has 1." in summary
