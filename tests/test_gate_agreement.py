"""Gwet's AC1 on the usable / not-usable decision: hand-computed references and the gate's use of it."""

import pytest

from review.aggregation import ItemObservations, Observation, aggregate, gwet_ac1_binary
from review.gate import GatePolicy, evaluate_gate


def test_ac1_hand_computed_with_varying_numbers_of_raters():
    # Items × ratings (True = usable), following Gwet's formulas for two categories:
    #   item 1: U U U   r=3 u=3  pa_i = (3·2 + 0)/(3·2) = 1        share u/r = 1
    #   item 2: U U N   r=3 u=2  pa_i = (2·1 + 1·0)/6   = 1/3      share 2/3
    #   item 3: N N     r=2 u=0  pa_i = (0 + 2·1)/(2·1) = 1        share 0
    #   item 4: U N     r=2 u=1  pa_i = 0                          share 1/2
    #   item 5: U       r=1      (no pair: not in pa)              share 1
    # pa = (1 + 1/3 + 1 + 0) / 4 = 7/12
    # pi = (1 + 2/3 + 0 + 1/2 + 1) / 5 = (19/6) / 5 = 19/30
    # pe = 2 · 19/30 · 11/30 = 418/900
    # AC1 = (7/12 - 418/900) / (1 - 418/900) = (525/900 - 418/900) / (482/900) = 107/482
    units = [[True, True, True], [True, True, False], [False, False], [True, False], [True]]
    ac1, pa, paired = gwet_ac1_binary(units)
    assert pa == pytest.approx(7 / 12, abs=1e-12)
    assert ac1 == pytest.approx(107 / 482, abs=1e-12)
    assert paired == 4


def test_ac1_of_unanimous_ratings_is_one():
    # pa = 1; every rating usable so pi = 1 and pe = 2 · 1 · 0 = 0; AC1 = (1 - 0) / (1 - 0) = 1.
    assert gwet_ac1_binary([[True, True, True]] * 40) == (1.0, 1.0, 40)
    assert gwet_ac1_binary([[False, False]] * 3) == (1.0, 1.0, 3)


def test_ac1_is_undefined_without_a_pair():
    assert gwet_ac1_binary([[True], [False], []]) == (None, None, 0)


def test_ac1_half_and_half_disagreement():
    # Every item rated U N: pa = 0, pi = 1/2, pe = 1/2, AC1 = (0 - 1/2) / (1/2) = -1.
    assert gwet_ac1_binary([[True, False]] * 10) == (-1.0, 0.0, 10)


def unanimous_campaign(items=40, value="excellent", speakers=(1, 2, 3)):
    return aggregate(
        [ItemObservations(i, 1, "", False, tuple(Observation(s, value) for s in speakers)) for i in range(items)],
        ratings_per_item=len(speakers),
    )


def test_all_usable_unanimous_campaign_of_40_items_passes():
    result = unanimous_campaign()
    assert result.alpha is None  # every rating the same: alpha cannot be measured
    assert (result.ac1, result.raw_agreement) == (1.0, 1.0)
    assert evaluate_gate(result, GatePolicy()).outcome == "pass"


def test_near_unanimous_ratings_pass_the_agreement_rule():
    items = [ItemObservations(i, 1, "", False, tuple(Observation(s, "excellent") for s in (1, 2, 3)))
             for i in range(39)]
    items.append(ItemObservations(39, 1, "", False, (Observation(1, "excellent"), Observation(2, "excellent"),
                                                     Observation(3, "acceptable"))))
    result = aggregate(items, ratings_per_item=3)
    assert result.ac1 == 1.0
    check = next(c for c in evaluate_gate(result, GatePolicy()).reasons if c.name == "agreement")
    assert check.passed is True


@pytest.mark.parametrize("items", [1, 10, 29])
def test_fewer_rated_items_than_the_minimum_never_passes(items):
    result = evaluate_gate(unanimous_campaign(items), GatePolicy())
    assert result.outcome == "insufficient_evidence"
