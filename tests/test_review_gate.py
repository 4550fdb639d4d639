"""The Deployable validation gate: every outcome and every reason for it (no database)."""

import pytest

from review.aggregation import (
    RATING_VALUES,
    CampaignAggregate,
    GroupSummary,
    ItemObservations,
    Observation,
    aggregate,
)
from review.gate import CHECK_NAMES, GatePolicy, evaluate_gate
from review.statistics import wilson_interval
from tests.test_review_statistics import HAND_BUILT_CAMPAIGN

DEFAULT = GatePolicy()


def group(label, key, usable, rated, *, items=None, covered=None, rejects=0):
    """A GroupSummary with the figures the gate reads; the Wilson interval is the real one."""
    items = rated if items is None else items
    covered = items if covered is None else covered
    low, high = wilson_interval(usable, rated)
    return GroupSummary(
        label=label, key=key, items=items, covered_items=covered, coverage=covered / items if items else None,
        rated_items=rated, rating_count=3 * rated, distribution=dict.fromkeys(RATING_VALUES, 0),
        usable_items=usable, usable_share=usable / rated if rated else None, wilson_low=low, wilson_high=high,
        reject_items=rejects, reject_share=rejects / rated if rated else None, flag_counts={},
    )


def campaign(usable, rated, *, items=None, covered=None, rejects=0, alpha=0.6, pairable=None, tiers=None,
             ac1=0.8, raw=0.9):
    """A campaign aggregate; ``tiers`` is a list of (difficulty, usable, rated), one tier by default, each judged
    on its own by the tier floor (with its Wilson interval: no speaker-aware interval is given)."""
    tiers = [(1, usable, rated)] if tiers is None else tiers
    tier_groups = tuple(
        group("No difficulty" if key is None else f"Difficulty {key}", key, tier_usable, tier_rated)
        for key, tier_usable, tier_rated in tiers
    )
    return CampaignAggregate(
        ratings_per_item=3,
        campaign=group("Whole campaign", None, usable, rated, items=items, covered=covered, rejects=rejects),
        tiers=tier_groups,
        floor_groups=tier_groups,
        domains=(),
        alpha=alpha,
        alpha_pairable_ratings=3 * rated if pairable is None else pairable,
        items=(),
        control_items=0,
        control_rating_count=0,
        speakers=(),
        flagged_speakers=0,
        ac1=ac1,
        raw_agreement=None if ac1 is None else raw,
        ac1_items=0 if ac1 is None else rated,
        distinct_speakers=3,
    )


def checks(result):
    return {check.name: check.passed for check in result.reasons}


def message(result, name):
    return next(check.message for check in result.reasons if check.name == name)


# The worked example of docs/validation-gate.md: 40 items, each rated by speakers 1, 2 and 3.
PATTERNS = {
    "A": ("excellent", "excellent", "excellent"),
    "B": ("acceptable", "acceptable", "excellent"),
    "C": ("gist", "gist", "acceptable"),
    "D": ("reject", "reject", "gist"),
}
WORKED_EXAMPLE_TIERS = {1: "A" * 10 + "B" * 5, 2: "A" * 6 + "B" * 7 + "C" + "D", 3: "A" * 3 + "B" * 3 + "C" * 3 + "D"}


def worked_example():
    items = []
    for difficulty, patterns in WORKED_EXAMPLE_TIERS.items():
        for pattern in patterns:
            ratings = tuple(Observation(speaker, value)
                            for speaker, value in zip((1, 2, 3), PATTERNS[pattern], strict=False))
            items.append(ItemObservations(len(items) + 1, difficulty, "", False, ratings))
    return aggregate(items, ratings_per_item=3)


def test_worked_example():
    example = worked_example()
    assert (example.campaign.usable_items, example.campaign.rated_items, example.campaign.reject_items) == (34, 40, 2)
    assert [(t.usable_items, t.rated_items) for t in example.tiers] == [(15, 15), (13, 15), (6, 10)]
    # Cross-checked with an independent pairwise computation of the ordinal alpha.
    assert round(example.alpha, 4) == 0.6001
    # AC1 on usable / not usable: pa = (36 + 4 · 1/3) / 40 = 0.9333, pi = (34 + 4 · 1/3) / 40 = 0.8833,
    # pe = 2 · 0.8833 · 0.1167 = 0.2061, AC1 = (0.9333 - 0.2061) / (1 - 0.2061) = 0.9160.
    assert round(example.ac1, 4) == 0.9160 and round(example.raw_agreement, 4) == 0.9333
    # Three speakers: the usable share's speaker-aware interval is 0.69–1.00 (Wilson's, items only, 0.71–0.93), so
    # the lower bound misses 0.70. The three tiers have 40 rated items together: the tier floor judges them as one.
    campaign_ = example.campaign
    assert (round(campaign_.interval_low, 2), campaign_.interval_high) == (0.69, 1.0)
    assert (round(campaign_.wilson_low, 2), round(campaign_.wilson_high, 2)) == (0.71, 0.93)
    assert [(group.label, group.key) for group in example.floor_groups] == [("Difficulties 1 to 3", (1, 2, 3))]
    held_back = evaluate_gate(example, DEFAULT)
    assert held_back.outcome == "insufficient_evidence"
    assert held_back.summary == (
        "Recommendation: insufficient evidence — the usable share's lower bound 0.69 is still below 0.70."
    )
    policy = GatePolicy(min_usable_lower_bound=0.65)
    result = evaluate_gate(example, policy)
    assert result.outcome == "pass"
    assert result.outcome_label == "Pass"
    assert [check.name for check in result.reasons] == list(CHECK_NAMES)
    assert [check.message for check in result.reasons] == [
        "40 items have been rated, meeting the minimum of 30.",
        "All 40 sampled items have the required 3 ratings: coverage is complete.",
        "3 distinct speakers have rated, meeting the minimum of 3, and no single speaker's ratings decide the "
        "recommendation.",
        "Agreement between speakers on the usable / not-usable decision (Gwet's AC1) is 0.92 (raw agreement 0.93), "
        "meeting the 0.60 minimum.",
        "Usable share 0.85 (34 of 40 rated items; 95% interval 0.69–1.00) — its lower bound 0.69 meets the 0.65 "
        "threshold.",
        "Every rated difficulty tier demonstrates the 0.50 floor (lowest lower bound: Difficulties 1 to 3 at 0.69).",
        "Reject share 0.05 (2 of 40 rated items have a median rating of reject) is within the 0.10 maximum.",
    ]
    assert result.summary == (
        "Recommendation: pass — all 7 checks are met; governance staff make and record the decision."
    )
    assert result.policy is policy


def test_lower_bound_exactly_at_the_threshold_passes():
    policy = GatePolicy(min_usable_lower_bound=wilson_interval(34, 40)[0])
    assert evaluate_gate(campaign(34, 40), policy).outcome == "pass"


def test_certain_fail_even_with_few_items_partial_coverage_and_no_agreement():
    # 3 of 10 usable: the 95% interval is 0.11–0.60, wholly below 0.70 — more ratings cannot rescue it.
    result = evaluate_gate(campaign(3, 10, items=40, covered=10, alpha=None, pairable=0, ac1=None), DEFAULT)
    assert result.outcome == "fail"
    assert checks(result) == {
        "rated_items": False, "coverage": False, "speakers": True, "agreement": False,
        "usable_share": False, "tier_floor": None, "reject_share": True,
    }
    assert message(result, "usable_share") == (
        "Usable share 0.30 (3 of 10 rated items; 95% interval 0.11–0.60) — even its upper bound 0.60 is below "
        "the 0.70 threshold, so more ratings would not change the outcome."
    )
    assert result.summary == (
        "Recommendation: fail — even the upper end of the usable-share interval (0.60) is below the 0.70 "
        "threshold, so more ratings would not change this."
    )


def test_a_usable_share_below_the_threshold_is_not_a_demonstrated_fail():
    result = evaluate_gate(campaign(26, 40, tiers=[(1, 26, 40)]), DEFAULT)  # interval 0.50–0.78 reaches above 0.70
    assert result.outcome == "insufficient_evidence"
    assert checks(result)["usable_share"] is None
    assert message(result, "usable_share") == (
        "Usable share 0.65 (26 of 40 rated items; 95% interval 0.50–0.78) is below the 0.70 threshold, but its upper "
        "bound 0.78 is not, so a fail is not demonstrated either: more rated items are needed."
    )
    assert result.summary == (
        "Recommendation: insufficient evidence — the usable share 0.65 is below the 0.70 threshold but its upper "
        "bound 0.78 is not (a fail is not demonstrated) and Difficulty 1 does not yet demonstrate the 0.50 tier "
        "floor."
    )


def test_fail_when_a_difficulty_tier_falls_below_its_floor():
    tiers = [(1, 15, 15), (2, 15, 15), (3, 1, 9)]
    result = evaluate_gate(campaign(34, 40, tiers=tiers), DEFAULT)
    assert result.outcome == "fail"
    assert checks(result) == {
        "rated_items": True, "coverage": True, "speakers": True, "agreement": True,
        "usable_share": True, "tier_floor": False, "reject_share": True,
    }
    assert message(result, "tier_floor") == (
        "Difficulty 3 (1 of 9 items usable, 95% interval 0.02–0.43) falls below the 0.50 floor for every "
        "difficulty tier: even the upper bound of its interval is below it."
    )
    assert result.summary == "Recommendation: fail — Difficulty 3 falls below the 0.50 tier floor."


def test_tier_floor_is_judged_on_the_lower_bound_inclusively():
    tiers = [(1, 15, 15), (2, 15, 15), (3, 6, 8), (4, 0, 0)]
    policy = GatePolicy(require_complete_coverage=False, min_tier_usable_share=wilson_interval(6, 8)[0])
    result = evaluate_gate(campaign(36, 38, items=40, covered=38, tiers=tiers), policy)
    assert result.outcome == "pass"
    assert message(result, "tier_floor") == (
        "Every rated difficulty tier demonstrates the 0.41 floor (lowest lower bound: Difficulty 3 at 0.41)."
    )


def test_fail_when_too_many_items_are_rejected():
    result = evaluate_gate(campaign(34, 40, rejects=5), DEFAULT)
    assert result.outcome == "fail"
    assert checks(result)["reject_share"] is False
    assert message(result, "reject_share") == (
        "Reject share 0.12 (5 of 40 rated items have a median rating of reject) exceeds the 0.10 maximum."
    )
    assert result.summary == "Recommendation: fail — the reject share 0.12 exceeds the 0.10 maximum."
    assert evaluate_gate(campaign(34, 40, rejects=4), DEFAULT).outcome == "pass"  # 0.10 is allowed


def test_fail_lists_every_failing_rule():
    result = evaluate_gate(campaign(34, 40, rejects=6, tiers=[(1, 30, 30), (2, 1, 10)]), DEFAULT)
    assert result.outcome == "fail"
    assert result.summary == (
        "Recommendation: fail — Difficulty 2 falls below the 0.50 tier floor and the reject share 0.15 exceeds the "
        "0.10 maximum."
    )


def test_insufficient_evidence_with_no_rated_items():
    result = evaluate_gate(campaign(0, 0, items=40, covered=0, alpha=None, pairable=0, tiers=[], ac1=None), DEFAULT)
    assert result.outcome == "insufficient_evidence"
    assert result.outcome_label == "Insufficient evidence"
    assert checks(result) == {
        "rated_items": False, "coverage": False, "speakers": True, "agreement": False,
        "usable_share": None, "tier_floor": None, "reject_share": None,
    }
    assert message(result, "rated_items") == "No item has been rated yet."
    assert message(result, "agreement") == (
        "Agreement between speakers cannot be measured yet: no item has ratings from two speakers."
    )
    assert result.summary == (
        "Recommendation: insufficient evidence — no item has been rated yet, coverage is incomplete (0 of 40 "
        "items) and agreement between speakers cannot be measured."
    )


def test_insufficient_evidence_with_too_few_rated_items():
    result = evaluate_gate(campaign(28, 29), DEFAULT)  # lower bound 0.83: only the count is short
    assert result.outcome == "insufficient_evidence"
    assert checks(result)["rated_items"] is False
    assert message(result, "rated_items") == (
        "Only 29 items have been rated; the policy needs at least 30 before it can recommend anything — rate "
        "more items or sample a larger campaign."
    )
    assert result.summary == "Recommendation: insufficient evidence — only 29 items are rated (30 needed)."


def test_insufficient_evidence_while_coverage_is_incomplete():
    unfinished = campaign(34, 40, items=42, covered=40)
    result = evaluate_gate(unfinished, DEFAULT)
    assert result.outcome == "insufficient_evidence"
    assert message(result, "coverage") == (
        "Only 40 of 42 sampled items (95%) have the required 3 ratings; the policy requires complete coverage, "
        "so the remaining items need ratings."
    )
    assert result.summary == "Recommendation: insufficient evidence — coverage is incomplete (40 of 42 items)."
    relaxed = evaluate_gate(unfinished, GatePolicy(require_complete_coverage=False))
    assert relaxed.outcome == "pass"
    assert message(relaxed, "coverage") == (
        "40 of 42 sampled items (95%) have the required 3 ratings; this policy does not require complete coverage."
    )


def test_insufficient_evidence_when_speakers_disagree_too_much():
    result = evaluate_gate(campaign(34, 40, ac1=0.59, raw=0.75), DEFAULT)
    assert result.outcome == "insufficient_evidence"
    assert message(result, "agreement") == (
        "Agreement between speakers on the usable / not-usable decision (Gwet's AC1) is 0.59 (raw agreement 0.75), "
        "below the 0.60 minimum: the speakers disagree too much to conclude anything from their ratings. Review "
        "the flagged speakers and the rating guidance before collecting more ratings."
    )
    assert result.summary == (
        "Recommendation: insufficient evidence — speakers disagree too much (AC1 0.59, minimum 0.60)."
    )
    assert evaluate_gate(campaign(34, 40, ac1=0.60), DEFAULT).outcome == "pass"  # the minimum is allowed
    shown = evaluate_gate(campaign(34, 40, ac1=0.5996), DEFAULT)
    assert "is 0.5996 (raw agreement 0.90), below the 0.60 minimum" in message(shown, "agreement")


def test_alpha_does_not_gate():
    # Near-unanimous ratings: alpha is low or unmeasurable, AC1 is high — the agreement rule is met.
    assert evaluate_gate(campaign(34, 40, alpha=-0.2), DEFAULT).outcome == "pass"
    result = evaluate_gate(campaign(40, 40, alpha=None, pairable=120, ac1=1.0, raw=1.0), DEFAULT)
    assert checks(result)["agreement"] is True


def test_insufficient_evidence_when_the_interval_straddles_the_threshold():
    result = evaluate_gate(campaign(25, 30), DEFAULT)
    assert result.outcome == "insufficient_evidence"
    assert checks(result)["usable_share"] is None
    assert message(result, "usable_share") == (
        "Usable share 0.83 (25 of 30 rated items; 95% interval 0.66–0.93) is at or above the 0.70 threshold, "
        "but its lower bound 0.66 is not: more rated items are needed to be confident."
    )
    assert result.summary == (
        "Recommendation: insufficient evidence — the usable share's lower bound 0.66 is still below 0.70."
    )


def test_a_lower_bound_just_under_the_threshold_is_shown_with_enough_decimals():
    result = evaluate_gate(campaign(55, 68), DEFAULT)  # lower bound 0.69989
    assert result.outcome == "insufficient_evidence"
    assert "its lower bound 0.6999 is not" in message(result, "usable_share")


def test_insufficient_evidence_mentions_rules_already_failing():
    result = evaluate_gate(campaign(25, 30, rejects=4, tiers=[(1, 20, 20), (2, 5, 10)]), DEFAULT)
    assert result.outcome == "insufficient_evidence"
    assert result.summary == (
        "Recommendation: insufficient evidence — the usable share's lower bound 0.66 is still below 0.70 and "
        "Difficulty 2 does not yet demonstrate the 0.50 tier floor. Also not met on the current evidence: the "
        "reject share 0.13 exceeds the 0.10 maximum."
    )


def test_hand_built_campaign_needs_more_evidence():
    result = evaluate_gate(aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3), DEFAULT)
    # Upper bound 1.00 (four speakers who disagree, on six items) is above 0.70, so the low usable share (0.50) is
    # not yet a certain failure. The three tiers, 6 rated items in all, are judged together against the floor.
    assert result.outcome == "insufficient_evidence"
    assert checks(result) == {
        "rated_items": False, "coverage": False, "speakers": True, "agreement": False,
        "usable_share": None, "tier_floor": None, "reject_share": False,
    }
    assert result.summary == (
        "Recommendation: insufficient evidence — only 6 items are rated (30 needed), coverage is incomplete "
        "(5 of 7 items), speakers disagree too much (AC1 -0.14, minimum 0.60), the usable share 0.50 is below the "
        "0.70 threshold but its upper bound 1.00 is not (a fail is not demonstrated) and Difficulties 1 to 2 and no "
        "difficulty does not yet demonstrate the 0.50 tier floor. Also not met on the current evidence: the reject "
        "share 0.17 exceeds the 0.10 maximum."
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"min_usable_lower_bound": 1.2},
        {"min_tier_usable_share": -0.1},
        {"max_reject_share": 2},
        {"min_alpha": 1.5},
        {"min_ac1": 1.1},
        {"min_ac1": -0.1},
        {"min_rated_items": -1},
        {"min_rated_items": 29},
        {"min_usable_lower_bound": 0.49},
        {"min_usable_lower_bound": 0.96},
        {"min_tier_usable_share": 0.2},
        {"max_reject_share": 0.51},
        {"min_ac1": 0.39},
    ],
)
def test_policy_refuses_impossible_thresholds(fields):
    with pytest.raises(ValueError):
        GatePolicy(**fields)
