"""The usable share's speaker-aware interval (review/evidence.py): calibrated when speakers' leniency differs, the
same per-item rule as the point estimate, and the same numbers whether the site or the simulation computes them."""

import numpy as np
import pytest

from review.aggregation import ItemObservations, Observation, aggregate, aggregate_arrays
from review.evidence import RatingArrays
from review.gate import GatePolicy, evaluate_gate
from review.simulation import Design, mean_quality, simulate, simulate_arrays, true_share
from review.statistics import wilson_interval

VALUES = ("reject", "gist", "acceptable", "excellent")
RUNS = 300


def observations(arrays: RatingArrays, tiers) -> list[ItemObservations]:
    """The simulated ratings as the decision page's selectors hand them to ``aggregate``."""
    items = []
    for index, stratum in enumerate(arrays.item_stratum):
        rows = np.flatnonzero(arrays.item == index)
        items.append(ItemObservations(index + 1, tiers[stratum], "", False, tuple(
            Observation(int(arrays.speaker[row]) + 1, VALUES[arrays.rank[row]]) for row in rows)))
    return items


def test_the_model_hits_the_true_share_asked_for():
    for ratings in (2, 3, 5):
        assert true_share(mean_quality(0.70, ratings), ratings) == pytest.approx(0.70, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("design", [
    Design(items=60, ratings_per_item=3, speakers=3, populations=(1000,)),
    Design(items=150, ratings_per_item=3, speakers=6, populations=(500, 250, 130, 80, 40)),
    Design(items=150, ratings_per_item=5, speakers=10, populations=(200, 200, 200, 200, 200), leniency_sd=0.6),
])
def test_a_method_exactly_at_the_threshold_rarely_passes_and_the_interval_covers_it(design):
    outcomes = simulate(design, 0.70, RUNS, GatePolicy(), seed=20261204)
    assert sum(outcome.passed for outcome in outcomes) / RUNS <= 0.05
    assert sum(outcome.low <= 0.70 <= outcome.high for outcome in outcomes) / RUNS >= 0.90


@pytest.mark.slow
def test_wilson_alone_would_pass_a_method_at_the_threshold_far_more_often():
    # The same campaigns judged on the items alone (Wilson's interval, which ignores who rated): speakers whose
    # leniency differs by half a step make that interval pass methods at the threshold several times too often.
    rng = np.random.default_rng(7)
    design = Design(items=150, ratings_per_item=3, speakers=4, populations=(1000,))
    wilson = speaker_aware = 0
    for _run in range(RUNS):
        arrays, tiers = simulate_arrays(rng, design, 0.70)
        campaign = aggregate_arrays(arrays, 3, tiers).campaign
        wilson += campaign.wilson_low >= 0.70
        speaker_aware += campaign.interval_low >= 0.70
    assert speaker_aware / RUNS <= 0.05 < wilson / RUNS


def test_a_good_method_passes_with_enough_speakers():
    outcomes = simulate(Design(items=150, ratings_per_item=3, speakers=10, populations=(1000,)), 0.95, 100,
                        GatePolicy(), seed=3)
    assert sum(outcome.passed for outcome in outcomes) >= 90


def test_the_site_and_the_simulation_compute_the_same_figures():
    rng = np.random.default_rng(11)
    design = Design(items=90, ratings_per_item=3, speakers=6, populations=(500, 250, 130, 80, 40))
    for _run in range(5):
        arrays, tiers = simulate_arrays(rng, design, 0.8)
        populations = dict(zip(tiers, (500, 250, 130, 80, 40), strict=False))
        fast = aggregate_arrays(arrays, 3, tiers, populations)
        full = aggregate(observations(arrays, tiers), 3, tier_populations=populations)
        assert (full.campaign, full.tiers, full.floor_groups) == (fast.campaign, fast.tiers, fast.floor_groups)
        assert [(d.campaign, d.floor_groups) for d in full.speaker_drops] == [
            (d.campaign, d.floor_groups) for d in fast.speaker_drops]
        assert evaluate_gate(full, GatePolicy()).outcome == evaluate_gate(fast, GatePolicy()).outcome


def two_ratings(rows):
    return aggregate([ItemObservations(i, 1, "", False, tuple(Observation(s, v) for s, v in row))
                      for i, row in enumerate(rows)], ratings_per_item=2)


def test_two_ratings_a_split_is_never_usable_in_the_estimate_nor_in_the_interval():
    # 40 items rated by two of three speakers; 10 split acceptable / gist. The lower median of two is usable only
    # when both are: 30 of 40. The interval is centred on that share: a split never counts as usable because its
    # usable rater happened to weigh more (the old bootstrap's artefact, +0.06 with two ratings per item).
    pairs = [(1, 2), (2, 3), (1, 3)]
    rows = []
    for i in range(40):
        first, second = pairs[i % 3]
        rows.append(((first, "acceptable"), (second, "gist" if i < 10 else "excellent")))
    result = two_ratings(rows)
    campaign = result.campaign
    assert (campaign.usable_items, campaign.rated_items, campaign.estimate) == (30, 40, 0.75)
    assert campaign.interval_low < 0.75 < campaign.interval_high
    assert campaign.interval_low <= wilson_interval(30, 40)[0]


def test_two_ratings_from_speakers_who_differ_widen_the_interval_beyond_wilsons():
    # Speaker 3 says gist wherever speakers 1 and 2 say acceptable; items are rated by every pair in turn. The
    # share depends on whether speaker 3 rated an item: the interval says so.
    pairs = [(1, 2), (2, 3), (1, 3)]
    rows = []
    for i in range(60):
        first, second = pairs[i % 3]
        rows.append(tuple((speaker, "gist" if speaker == 3 and i % 2 else "acceptable") for speaker in (first, second)))
    campaign = two_ratings(rows).campaign
    wilson_width = campaign.wilson_high - campaign.wilson_low
    assert campaign.interval_high - campaign.interval_low > 1.5 * wilson_width


def test_the_same_ratings_give_the_same_interval():
    arrays, tiers = simulate_arrays(np.random.default_rng(5), Design(60, 3, 4, (1000,)), 0.8)
    first, second = aggregate_arrays(arrays, 3, tiers).campaign, aggregate_arrays(arrays, 3, tiers).campaign
    assert (first.interval_low, first.interval_high) == (second.interval_low, second.interval_high)


def test_a_unanimous_campaign_is_never_certain():
    # Every rating usable: both variances vanish, and the interval is Wilson's for 40 of 40 (with Student's t on 39
    # degrees of freedom), never a point.
    items = [ItemObservations(i, 1, "", False, tuple(Observation(s, "excellent") for s in (1, 2, 3)))
             for i in range(1, 41)]
    campaign = aggregate(items, 3).campaign
    assert campaign.interval_high == 1.0
    assert wilson_interval(40, 40, z=2.03)[0] == pytest.approx(campaign.interval_low, abs=0.002)
    assert evaluate_gate(aggregate(items, 3), GatePolicy()).outcome == "pass"


def test_a_panel_of_three_widens_the_interval_with_students_t():
    # Two lenient speakers and one harsh one on 150 items: the speakers' spread is measured on three people, with
    # two degrees of freedom, so t is about 4 — not 1.96.
    rng = np.random.default_rng(2)
    arrays, tiers = simulate_arrays(rng, Design(150, 3, 3, (1000,), leniency_sd=0.6), 0.8)
    campaign = aggregate_arrays(arrays, 3, tiers).campaign
    assert campaign.interval_high - campaign.interval_low > 2 * (campaign.wilson_high - campaign.wilson_low)
