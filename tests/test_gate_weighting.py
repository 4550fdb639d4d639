"""The design-weighted (post-stratified) estimate: the sample gives small difficulty tiers a floor, so the usable
share of the card's outputs weights each tier by its share of them."""

import math
import random

import pytest

from review import services
from review.aggregation import FLOOR_GROUP_MIN_ITEMS, ItemObservations, Observation, aggregate, floor_groups
from review.gate import GatePolicy, evaluate_gate
from review.selectors import campaign_aggregate, tier_populations
from review.statistics import weighted_wilson_interval, wilson_interval

from .review_setup import gold_card, rate_everything, settings_for, speakers


def tiered(counts, usable_in):
    """``counts``: items per tier; an item of tier t is rated excellent by three speakers when t is in
    ``usable_in``, reject otherwise."""
    items, item_id = [], 0
    for tier, count in counts.items():
        value = "excellent" if tier in usable_in else "reject"
        for _ in range(count):
            items.append(ItemObservations(item_id, tier, "", False,
                                          tuple(Observation(speaker, value) for speaker in (1, 2, 3))))
            item_id += 1
    return items


def test_each_tier_is_weighted_by_its_share_of_the_population():
    # 20 items of tier 1 (all usable) and 20 of tier 2 (none usable): half the sample is usable, but tier 1
    # holds 900 of the card's 1,000 outputs, so the estimate for the card is 0.9.
    result = aggregate(tiered({1: 20, 2: 20}, usable_in={1}), 3, tier_populations={1: 900, 2: 100})
    campaign = result.campaign
    assert campaign.usable_share == 0.5 and campaign.weighted_share == pytest.approx(0.9)
    assert campaign.estimate == pytest.approx(0.9)
    # Kish's effective size: 1 / (0.9² / 20 + 0.1² / 20) = 24.39...; Wilson's interval at 0.9 on it.
    assert (campaign.wilson_low, campaign.wilson_high) == pytest.approx(
        weighted_wilson_interval(0.9, 1 / (0.81 / 20 + 0.01 / 20)))
    # Within each tier every item agrees and every speaker agrees: both variances vanish, and the interval is
    # Wilson's on that effective size (with Student's t rather than 1.96), never a point.
    assert campaign.interval_low < 0.9 < campaign.interval_high
    assert campaign.interval_low == pytest.approx(campaign.wilson_low, abs=0.01)


def test_without_populations_or_with_one_tier_the_estimate_is_the_share_of_rated_items():
    items = tiered({1: 20, 2: 20}, usable_in={1})
    assert aggregate(items, 3).campaign.weighted_share is None
    assert aggregate(items, 3).campaign.estimate == 0.5
    assert aggregate(tiered({1: 40}, usable_in={1}), 3, tier_populations={1: 500}).campaign.weighted_share is None
    # A tier of the sample missing from the populations: no weighting rather than a wrong one.
    assert aggregate(items, 3, tier_populations={1: 900}).campaign.weighted_share is None


def test_a_tier_with_no_rated_item_leaves_the_weights_of_the_others():
    items = tiered({1: 20, 2: 20}, usable_in={1}) + [ItemObservations(99, 3, "", False, ())]
    campaign = aggregate(items, 3, tier_populations={1: 600, 2: 200, 3: 200}).campaign
    assert campaign.weighted_share == pytest.approx(0.75)


def test_the_gate_judges_the_weighted_estimate_and_says_so():
    result = aggregate(tiered({1: 40, 2: 20}, usable_in={1}), 3, tier_populations={1: 950, 2: 50})
    gate = evaluate_gate(result, GatePolicy(min_tier_usable_share=0.25))
    check = next(check for check in gate.reasons if check.name == "usable_share")
    assert check.message.startswith("Usable share 0.95, each difficulty tier weighted by its share of the card's "
                                    "outputs (40 of 60 rated items unweighted; 95% interval")
    assert check.passed is True
    # Unweighted, the hard tier's floor drags the share to 0.67: not demonstrated.
    unweighted = evaluate_gate(aggregate(tiered({1: 40, 2: 20}, usable_in={1}), 3),
                               GatePolicy(min_tier_usable_share=0.25))
    assert next(c for c in unweighted.reasons if c.name == "usable_share").passed is None


def test_weighted_wilson_matches_wilson_on_whole_counts():
    for successes, n in ((0, 10), (7, 10), (10, 10), (33, 50)):
        assert weighted_wilson_interval(successes / n, n) == pytest.approx(wilson_interval(successes, n))
    with pytest.raises(ValueError):
        weighted_wilson_interval(1.2, 10)


def test_the_weighted_interval_covers_the_population_share():
    """Simulated cards of 2,000 outputs in three tiers of different quality, sampled with a floor (the small
    tiers over-represented): the weighted estimate's interval covers the card's true share about 95% of the
    time (the unweighted share, biased towards the small hard tiers, would not)."""
    rng = random.Random(3)
    populations = {1: 1600, 2: 300, 3: 100}
    quality = {1: 0.85, 2: 0.55, 3: 0.30}
    truth = sum(populations[t] * quality[t] for t in populations) / sum(populations.values())
    covered = 0
    runs = 150
    for _run in range(runs):
        items, item_id = [], 0
        for tier, take in ((1, 40), (2, 20), (3, 20)):
            for _ in range(take):
                value = "excellent" if rng.random() < quality[tier] else "reject"
                items.append(ItemObservations(item_id, tier, "", False,
                                              tuple(Observation(speaker, value) for speaker in (1, 2, 3))))
                item_id += 1
        campaign = aggregate(items, 3, tier_populations=populations).campaign
        covered += campaign.interval_low <= truth <= campaign.interval_high
    assert math.isclose(truth, 0.7775)
    assert covered / runs >= 0.9


@pytest.mark.django_db
def test_a_campaign_is_weighted_by_the_populations_it_recorded(steward, governance_user, client):
    card = gold_card(steward, governance_user, count=200)
    pool = speakers(steward, 4)
    campaign = services.open_campaign(run_card=card, actor=governance_user,
                                      values=settings_for(pool, sample_size=40))
    populations = tier_populations(campaign)
    assert sum(populations.values()) == 200 and len(populations) >= 2
    rate_everything(campaign, lambda assignment: "excellent" if assignment.item.difficulty == 1 else "gist")
    result = campaign_aggregate(campaign)
    rated = {tier.key: tier.rated_items for tier in result.tiers}
    expected = populations[1] / sum(populations[key] for key in rated)
    assert result.campaign.weighted_share == pytest.approx(expected)
    client.force_login(governance_user)
    page = client.get(f"/review/campaigns/{campaign.public_id}/decision/").content.decode()
    assert "An estimate for all 200 outputs of the card" in page
    unweighted = f"{result.campaign.usable_items} of {result.campaign.rated_items} rated items."
    assert "Unweighted: " in page and unweighted in " ".join(page.split())


@pytest.mark.parametrize("rated, groups", [
    ([15, 15, 10], [[0, 1, 2]]),
    ([80, 45, 5], [[0], [1, 2]]),
    ([60, 3], [[0, 1]]),
    ([0, 45, 2], [[1, 2]]),
    ([30, 30, 30, 30, 30], [[0, 1], [2, 3, 4]]),
    ([50, 50], [[0], [1]]),
    ([12], [[0]]),
])
def test_tiers_below_the_minimum_join_their_smaller_neighbour(rated, groups):
    assert FLOOR_GROUP_MIN_ITEMS == 40
    assert floor_groups(rated) == groups


def test_a_small_tier_rated_in_full_is_judged_with_its_neighbour_and_never_blocks_a_pass():
    # The card has 3 outputs of difficulty 5 and the campaign rated all three: they are judged with difficulty 4,
    # on the two tiers' 43 items, instead of being "too few to judge" for ever.
    items = tiered({4: 40, 5: 3}, usable_in={4, 5})
    result = aggregate(items, 3, tier_populations={4: 400, 5: 3})
    assert [(group.label, group.rated_items) for group in result.floor_groups] == [("Difficulties 4 to 5", 43)]
    assert evaluate_gate(result, GatePolicy()).outcome == "pass"


def test_a_large_bad_tier_still_fails_its_floor():
    items = tiered({1: 60, 2: 45}, usable_in={1})
    result = evaluate_gate(aggregate(items, 3, tier_populations={1: 950, 2: 50}), GatePolicy())
    assert result.outcome == "fail"
    assert result.summary == ("Recommendation: fail — Difficulty 2 falls below the 0.50 tier floor and the reject "
                              "share 0.43 exceeds the 0.10 maximum.")
