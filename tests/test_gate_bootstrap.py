"""The usable share's two-way cluster bootstrap: it knows who rated, so the gate does not pass a method whose
true usable share is exactly at the threshold more often than it should when speakers' leniency differs."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from review.aggregation import ItemObservations, Observation, aggregate
from review.bootstrap import cluster_bootstrap_intervals
from review.gate import GatePolicy, evaluate_gate
from review.statistics import wilson_interval

VALUES = ("reject", "gist", "acceptable", "excellent")
USABLE_FROM = 1.5
"""On the latent scale a rating is the nearest step (0 reject .. 3 excellent): usable from 1.5 up."""
LENIENCY_SD = 0.5
"""Speakers' leniency offsets differ by about half a scale step."""
NOISE_SD = 0.2
QUALITY_SD = 1.0
TRUE_SHARE = 0.70
CAMPAIGNS = 400


def simulated_campaign(rng: np.random.Generator, true_share: float = TRUE_SHARE) -> list[ItemObservations]:
    """40–60 items in three difficulty tiers, each rated by 3 of a panel of 4 speakers. An item's latent quality
    is drawn so that exactly ``true_share`` of items are usable for the median speaker (offset 0, no noise);
    each rating is the quality plus the speaker's leniency plus noise, rounded to the 4-step scale."""
    offsets = rng.normal(0.0, LENIENCY_SD, size=4)
    mean = USABLE_FROM + QUALITY_SD * NormalDist().inv_cdf(true_share)
    items = []
    for item_id in range(int(rng.integers(40, 61))):
        quality = rng.normal(mean, QUALITY_SD)
        panel = rng.choice(4, size=3, replace=False)
        latent = quality + offsets[panel] + rng.normal(0.0, NOISE_SD, size=3)
        ranks = np.clip(np.rint(latent), 0, 3).astype(int)
        observations = tuple(Observation(int(speaker) + 1, VALUES[rank]) for speaker, rank in zip(panel, ranks,
                                                                                                  strict=True))
        items.append(ItemObservations(item_id + 1, item_id % 3 + 1, "", False, observations))
    return items


def simulate(campaigns: int, seed: int) -> dict[str, float]:
    """Over simulated campaigns at the threshold: how often the gate passes, how often the usable-share rule alone
    is met with the gate's interval and with Wilson's, and how often each interval covers the true share."""
    rng = np.random.default_rng(seed)
    policy = GatePolicy()
    counts = dict.fromkeys(("gate", "rule", "wilson_rule", "covers", "wilson_covers"), 0)
    for number in range(campaigns):
        result = aggregate(simulated_campaign(rng), ratings_per_item=3, seed=seed + number)
        share = result.campaign
        counts["gate"] += evaluate_gate(result, policy).outcome == "pass"
        counts["rule"] += share.interval_low >= policy.min_usable_lower_bound
        counts["wilson_rule"] += share.wilson_low >= policy.min_usable_lower_bound
        counts["covers"] += share.interval_low <= TRUE_SHARE <= share.interval_high
        counts["wilson_covers"] += share.wilson_low <= TRUE_SHARE <= share.wilson_high
    return {name: count / campaigns for name, count in counts.items()}


def test_false_pass_rate_at_the_threshold_with_speakers_of_differing_leniency():
    # A true usable share of exactly 0.70 must not pass a 0.70 lower-bound rule more than 5% of the time
    # (nominally 2.5%): neither the whole gate nor the usable-share rule on its own. Wilson's interval, which
    # ignores who rated, meets the rule far more often on the same campaigns and covers the truth far less.
    rates = simulate(CAMPAIGNS, seed=20261203)
    assert rates["gate"] <= 0.05
    assert rates["rule"] <= 0.05
    assert rates["wilson_rule"] > 0.05 and rates["wilson_rule"] > 3 * rates["rule"]
    assert rates["covers"] >= 0.90 > rates["wilson_covers"]


def test_a_clearly_good_method_still_passes():
    rng = np.random.default_rng(7)
    result = aggregate(simulated_campaign(rng, true_share=0.97), ratings_per_item=3, seed=7)
    assert evaluate_gate(result, GatePolicy()).outcome == "pass"


def test_same_seed_same_bounds_and_wider_than_wilson_when_speakers_differ():
    items = simulated_campaign(np.random.default_rng(11))
    first, second = aggregate(items, 3, seed=5).campaign, aggregate(items, 3, seed=5).campaign
    assert (first.bootstrap_low, first.bootstrap_high) == (second.bootstrap_low, second.bootstrap_high)
    assert first.bootstrap_low is not None and first.bootstrap_high is not None
    assert first.bootstrap_high - first.bootstrap_low > first.wilson_high - first.wilson_low
    assert (first.interval_low, first.interval_high) == (min(first.bootstrap_low, first.wilson_low),
                                                         max(first.bootstrap_high, first.wilson_high))


def test_unanimous_campaign_keeps_wilson_as_the_floor_of_the_width():
    # Every rating usable: every replicate's share is 1, so the bootstrap alone would claim certainty.
    items = [ItemObservations(i, 1, "", False, tuple(Observation(s, "excellent") for s in (1, 2, 3)))
             for i in range(1, 41)]
    result = aggregate(items, 3, seed=1)
    assert (result.campaign.bootstrap_low, result.campaign.bootstrap_high) == (1.0, 1.0)
    assert (result.campaign.interval_low, result.campaign.interval_high) == wilson_interval(40, 40)
    assert evaluate_gate(result, GatePolicy()).outcome == "pass"


def test_bootstrap_resamples_items_within_strata_and_leaves_speakers_out():
    # Two strata of 20 items: stratum 1 all usable, stratum 2 none; one speaker each, agreeing. Drawing items
    # within strata keeps each stratum's share, so every replicate's share is exactly one half.
    items = [i for i in range(40) for _ in range(2)]
    speakers = [1, 2] * 40
    usable = [i < 20 for i in items]
    strata = [1 if i < 20 else 2 for i in items]
    whole, without_one, without_two = cluster_bootstrap_intervals(items, speakers, usable, strata, seed=3,
                                                                  leave_out=[1, 2])
    assert whole == without_one == without_two == (0.5, 0.5)
    assert cluster_bootstrap_intervals([], [], [], [], seed=3, leave_out=[1]) == [None, None]


def test_a_speaker_without_whom_the_campaign_would_no_longer_pass_is_named():
    # 29 items rated excellent by speakers 1, 2 and 3, and 11 more by speaker 1 alone: 40 of 40 usable, a pass.
    # Without speaker 1 only 29 items are rated, fewer than the 30 the policy needs.
    rows = [(1, 2, 3)] * 29 + [(1,)] * 11
    items = [ItemObservations(i, 1, "", False, tuple(Observation(s, "excellent") for s in row))
             for i, row in enumerate(rows)]
    result = evaluate_gate(aggregate(items, 3, seed=2), GatePolicy(require_complete_coverage=False),
                           speaker_names={1: "ana@example.org"})
    assert (result.outcome, result.decisive_speaker) == ("insufficient_evidence", 1)
    assert next(check.message for check in result.reasons if check.name == "speakers") == (
        "Without the ratings of ana@example.org the campaign would no longer pass: one speaker's ratings decide "
        "the recommendation. Invite more speakers to rate the same items.")
