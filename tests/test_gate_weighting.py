"""The design-weighted (post-stratified) estimate: the sample gives small difficulty tiers a floor, so the usable
share of the card's outputs weights each tier by its share of them."""

import math
import random

import pytest

from review import services
from review.aggregation import ItemObservations, Observation, aggregate
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
    result = aggregate(tiered({1: 20, 2: 20}, usable_in={1}), 3, seed=1, tier_populations={1: 900, 2: 100})
    campaign = result.campaign
    assert campaign.usable_share == 0.5 and campaign.weighted_share == pytest.approx(0.9)
    assert campaign.estimate == pytest.approx(0.9)
    # Every replicate draws items within tiers: tier 1 stays all usable, tier 2 none, so the bootstrap is a point.
    assert campaign.bootstrap_low == pytest.approx(0.9) and campaign.bootstrap_high == pytest.approx(0.9)
    # Kish's effective size: 1 / (0.9² / 20 + 0.1² / 20) = 24.39...; Wilson's interval at 0.9 on it.
    assert (campaign.wilson_low, campaign.wilson_high) == pytest.approx(
        weighted_wilson_interval(0.9, 1 / (0.81 / 20 + 0.01 / 20)))
    assert campaign.interval_low == pytest.approx(campaign.wilson_low) and campaign.interval_low < 0.9


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
    result = aggregate(tiered({1: 40, 2: 20}, usable_in={1}), 3, seed=1, tier_populations={1: 950, 2: 50})
    gate = evaluate_gate(result, GatePolicy(min_tier_usable_share=0.0))
    check = next(check for check in gate.reasons if check.name == "usable_share")
    assert check.message.startswith("Usable share 0.95, each difficulty tier weighted by its share of the card's "
                                    "outputs (40 of 60 rated items unweighted; 95% interval")
    assert check.passed is True
    # Unweighted, the hard tier's floor drags the share to 0.67: not demonstrated.
    unweighted = evaluate_gate(aggregate(tiered({1: 40, 2: 20}, usable_in={1}), 3, seed=1),
                               GatePolicy(min_tier_usable_share=0.0))
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
    for run in range(runs):
        items, item_id = [], 0
        for tier, take in ((1, 40), (2, 20), (3, 20)):
            for _ in range(take):
                value = "excellent" if rng.random() < quality[tier] else "reject"
                items.append(ItemObservations(item_id, tier, "", False,
                                              tuple(Observation(speaker, value) for speaker in (1, 2, 3))))
                item_id += 1
        campaign = aggregate(items, 3, seed=run, tier_populations=populations).campaign
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
