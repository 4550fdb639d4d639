"""Planning before opening: the chance of a pass at a few true usable shares, simulated through the real
aggregation and gate with the organization's thresholds."""

from dataclasses import replace

import pytest

from review import planning
from review.gate import GatePolicy
from review.planning import PLANNED_SHARES, pass_chances

from .review_setup import gold_card, speakers


def test_the_chance_grows_with_the_true_share_and_with_the_evidence():
    small = pass_chances(40, 3, 4, GatePolicy(), simulations=12)
    large = pass_chances(300, 3, 10, GatePolicy(), simulations=12)
    assert [row.share for row in small] == list(PLANNED_SHARES)
    # A usable share of 0.75 sits just above the 0.70 threshold: a pass is then rare whatever the numbers.
    assert large[0].chance <= 0.25
    # With 300 items and 10 speakers a method at 0.95 passes almost always; with 40 items and 4 speakers the
    # speaker-aware interval is too wide for that.
    assert large[-1].chance >= 0.75 and small[-1].chance < large[-1].chance
    assert large[-1].chance >= large[0].chance


def test_the_plan_is_seeded_and_follows_the_thresholds():
    assert pass_chances(60, 3, 6, GatePolicy(), simulations=8) == pass_chances(60, 3, 6, GatePolicy(), simulations=8)
    strict = replace(GatePolicy(), min_usable_lower_bound=0.99)
    assert all(row.chance == 0.0 for row in pass_chances(60, 3, 6, strict, simulations=8))


def test_fewer_speakers_than_ratings_per_item_never_pass():
    assert all(row.chance == 0.0 for row in pass_chances(100, 3, 2, GatePolicy()))
    with pytest.raises(ValueError):
        pass_chances(0, 3, 4, GatePolicy())


def test_a_large_sample_and_a_large_pool_are_planned_at_the_caps(monkeypatch):
    seen = []
    monkeypatch.setattr(planning, "_simulated_pass",
                        lambda rng, items, per_item, pool, *rest: seen.append((items, pool)) or False)
    pass_chances(50_000, 3, 400, GatePolicy(), simulations=1)
    assert set(seen) == {(planning.MAX_PLANNED_ITEMS, planning.MAX_PLANNED_SPEAKERS)}


def campaign_form_url(client, steward, governance_user, pool_size: int) -> str:
    """The new-campaign page of a 60-output gold card, for governance staff signed in, with a pool of `pool_size`."""
    card = gold_card(steward, governance_user, count=60)
    speakers(steward, pool_size)
    client.force_login(governance_user)
    return f"/review/campaigns/new/{card.public_id}/"


@pytest.mark.django_db
def test_the_campaign_form_shows_the_plan_and_prefills_its_numbers(client, steward, governance_user, monkeypatch):
    url = campaign_form_url(client, steward, governance_user, 5)
    page = client.get(url).content.decode()
    assert "Before opening: the chance of a pass" in page and 'name="plan_speakers" value="5"' in page
    assert "Chance the gate recommends a pass" not in page, "nothing is simulated until asked"
    calls = []
    real = planning.pass_chances
    monkeypatch.setattr("review.selectors.pass_chances",
                        lambda *args, **kwargs: calls.append(args) or real(*args, simulations=6))
    planned = client.get(url, {"plan_size": "45", "plan_ratings": "2", "plan_speakers": "5"})
    html = planned.content.decode()
    assert planned.status_code == 200 and "Chance the gate recommends a pass" in html
    assert "45 items, 2 ratings each, 5 speakers" in html and html.count("about ") >= 5
    assert 'name="sample_size" value="45"' in html and 'name="ratings_per_item" value="2"' in html
    client.get(url, {"plan_size": "45", "plan_ratings": "2", "plan_speakers": "5"})
    assert len(calls) == 1, "the same plan is simulated once and kept"


@pytest.mark.django_db
@pytest.mark.parametrize("params, message", [
    ({"plan_size": "61", "plan_ratings": "3", "plan_speakers": "4"}, "less than or equal to 60"),
    ({"plan_size": "0", "plan_ratings": "3", "plan_speakers": "4"}, "greater than or equal to 1"),
    ({"plan_size": "20", "plan_ratings": "11", "plan_speakers": "4"}, "less than or equal to 10"),
    ({"plan_size": "many", "plan_ratings": "3", "plan_speakers": "4"}, "Enter a whole number."),
])
def test_a_bad_plan_names_the_field(client, steward, governance_user, params, message):
    card = gold_card(steward, governance_user, count=60)
    client.force_login(governance_user)
    answer = client.get(f"/review/campaigns/new/{card.public_id}/", params)
    assert answer.status_code == 400 and message in answer.content.decode()
    assert "Chance the gate recommends a pass" not in answer.content.decode()


def test_the_caps_never_go_below_the_policys_own_minimums(monkeypatch):
    seen = []
    monkeypatch.setattr(planning, "_simulated_pass",
                        lambda rng, items, per_item, pool, *rest: seen.append((items, pool)) or False)
    strict = replace(GatePolicy(), min_rated_items=500, min_distinct_speakers=25)
    pass_chances(1000, 3, 30, strict, simulations=1)
    assert set(seen) == {(500, 25)}


@pytest.mark.django_db
def test_the_defaults_fit_a_small_pool_and_one_speaker_is_one_speaker(client, steward, governance_user, monkeypatch):
    url = campaign_form_url(client, steward, governance_user, 1)
    page = client.get(url).content.decode()
    assert 'name="ratings_per_item" value="1"' in page, "never more ratings per item than speakers in the pool"
    assert 'name="plan_speakers" value="1"' in page
    monkeypatch.setattr("review.selectors.pass_chances",
                        lambda *args, **kwargs: planning.pass_chances(*args, simulations=4))
    planned = client.get(url, {"plan_size": "10", "plan_ratings": "1", "plan_speakers": "1"}).content.decode()
    assert "10 items, 1 ratings each, 1 speaker (" in planned


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
