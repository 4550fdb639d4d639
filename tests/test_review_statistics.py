"""Review statistics and aggregation, checked against hand-computed and published values (no database)."""


import pytest

from review.aggregation import (
    FLAGS,
    RATING_VALUES,
    ItemObservations,
    Observation,
    aggregate,
)
from review.statistics import (
    krippendorff_alpha_ordinal,
    lower_median,
    student_t_cdf,
    student_t_quantile,
    wilson_interval,
)


def test_wilson_interval_matches_hand_computed_values():
    # 8/10: centre (0.8 + z²/20) / (1 + z²/10) = 0.71674, half-width 0.22658.
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    low, high = wilson_interval(34, 40)
    assert (round(low, 4), round(high, 4)) == (0.7093, 0.9294)
    low, high = wilson_interval(3, 6)
    assert (round(low, 4), round(high, 4)) == (0.1876, 0.8124)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 5)
    assert low == 0.0 and round(high, 4) == 0.4345  # z² / (5 + z²)
    low, high = wilson_interval(5, 5)
    assert round(low, 4) == 0.5655 and high == 1.0  # 5 / (5 + z²)


def test_wilson_interval_refuses_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(6, 5)
    with pytest.raises(ValueError):
        wilson_interval(-1, 5)


def test_lower_median_takes_the_lower_middle_value():
    assert lower_median([2]) == 2
    assert lower_median([3, 1, 2]) == 2
    assert lower_median([1, 2]) == 1
    assert lower_median([3, 0, 2, 1]) == 1
    assert lower_median([0, 3, 3, 3]) == 3
    with pytest.raises(ValueError):
        lower_median([])


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", reliability data with missing values:
# rows are observers A-D, columns units 1-12, None where an observer gave no value.
KRIPPENDORFF_2011 = (
    (1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None),
    (1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3),
    (None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None),
    (1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None),
)


def test_krippendorff_ordinal_alpha_matches_published_example():
    units = [[value - 1 for value in unit if value is not None] for unit in zip(*KRIPPENDORFF_2011, strict=True)]
    # Published: nominal 0.743, ordinal 0.815, interval 0.849. Unit 12 has one value and is not pairable.
    assert round(krippendorff_alpha_ordinal(units, categories=5), 3) == 0.815


def test_krippendorff_alpha_perfect_agreement_is_one():
    assert krippendorff_alpha_ordinal([[0, 0], [1, 1, 1], [3, 3], [2]]) == 1.0


def test_krippendorff_alpha_undefined_cases():
    assert krippendorff_alpha_ordinal([]) is None
    assert krippendorff_alpha_ordinal([[1], [2], []]) is None  # nothing pairable
    assert krippendorff_alpha_ordinal([[2, 2], [2, 2, 2]]) is None  # no variation: expected disagreement 0


def test_krippendorff_alpha_refuses_values_outside_the_scale():
    with pytest.raises(ValueError):
        krippendorff_alpha_ordinal([[0, 4]], categories=4)


def test_observation_refuses_unknown_values_and_flags():
    with pytest.raises(ValueError):
        Observation(1, "cannot_judge")
    with pytest.raises(ValueError):
        Observation(1, "gist", frozenset({"typo"}))


def rating(speaker_id, value, *flags):
    return Observation(speaker_id, value, frozenset(flags))


# Speakers 1-3 are careful; speaker 9 rates the human references badly and disagrees with everyone.
HAND_BUILT_CAMPAIGN = (
    ItemObservations(1, 1, "health", False, (
        rating(1, "excellent"), rating(2, "acceptable"), rating(9, "reject", "hallucination"))),
    ItemObservations(2, 1, "", False, (rating(1, "acceptable"), rating(2, "acceptable"), rating(9, "reject"))),
    ItemObservations(3, 2, "health", False, (
        rating(1, "gist", "semantically_wrong"),
        rating(2, "reject", "semantically_wrong", "culturally_inappropriate"),
        rating(3, "gist"),
        rating(9, "excellent"))),
    ItemObservations(4, 2, "legal", False, (rating(1, "reject"), rating(2, "reject"), rating(9, "excellent"))),
    ItemObservations(5, None, "legal", False, (rating(3, "excellent"), rating(9, "gist"))),
    ItemObservations(6, None, "", False, ()),
    ItemObservations(7, 2, "health", False, (
        rating(1, "excellent", "acceptable_variant"), rating(2, "excellent"), rating(3, "acceptable"))),
    ItemObservations(100, 1, "health", True, (rating(1, "excellent"), rating(2, "acceptable"), rating(9, "reject"))),
    ItemObservations(101, 2, "", True, (rating(1, "acceptable"), rating(3, "excellent"), rating(9, "gist"))),
)


def test_aggregate_items_use_the_lower_median():
    result = aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3)
    rows = [(i.item_id, i.rating_count, i.covered, i.median_value, i.usable) for i in result.items]
    assert rows == [
        (1, 3, True, "acceptable", True),  # reject, acceptable, excellent
        (2, 3, True, "acceptable", True),
        (3, 4, True, "gist", False),  # reject, gist, gist, excellent: lower middle is gist
        (4, 3, True, "reject", False),
        (5, 2, False, "gist", False),  # gist, excellent: the conservative lower value
        (6, 0, False, None, None),
        (7, 3, True, "excellent", True),
    ]
    assert (result.control_items, result.control_rating_count) == (2, 6)


def test_aggregate_whole_campaign_leaves_control_items_out():
    campaign = aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3).campaign
    assert (campaign.label, campaign.key) == ("Whole campaign", None)
    assert (campaign.items, campaign.covered_items, campaign.coverage) == (7, 5, 5 / 7)
    assert (campaign.rated_items, campaign.rating_count) == (6, 18)
    assert campaign.distribution == {"reject": 5, "gist": 3, "acceptable": 4, "excellent": 6}
    assert list(campaign.distribution) == list(RATING_VALUES)
    assert (campaign.usable_items, campaign.usable_share) == (3, 0.5)
    assert (round(campaign.wilson_low, 4), round(campaign.wilson_high, 4)) == (0.1876, 0.8124)
    assert (campaign.reject_items, campaign.reject_share) == (1, 1 / 6)
    assert campaign.flag_counts == {
        "semantically_wrong": 2, "culturally_inappropriate": 1, "hallucination": 1, "acceptable_variant": 1,
    }
    assert list(campaign.flag_counts) == list(FLAGS)


def test_aggregate_difficulty_tiers():
    tiers = aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3).tiers
    assert [(t.label, t.key) for t in tiers] == [("Difficulty 1", 1), ("Difficulty 2", 2), ("No difficulty", None)]
    one, two, none = tiers
    assert (one.items, one.covered_items, one.coverage, one.rated_items, one.rating_count) == (2, 2, 1.0, 2, 6)
    assert one.distribution == {"reject": 2, "gist": 0, "acceptable": 3, "excellent": 1}
    assert (one.usable_items, one.usable_share, one.reject_items, one.reject_share) == (2, 1.0, 0, 0.0)
    assert one.wilson_high == 1.0
    assert one.flag_counts == {
        "semantically_wrong": 0, "culturally_inappropriate": 0, "hallucination": 1, "acceptable_variant": 0,
    }
    assert (two.items, two.covered_items, two.rated_items, two.rating_count) == (3, 3, 3, 10)
    assert two.distribution == {"reject": 3, "gist": 2, "acceptable": 1, "excellent": 4}
    assert (two.usable_items, two.usable_share, two.reject_items, two.reject_share) == (1, 1 / 3, 1, 1 / 3)
    assert (none.items, none.covered_items, none.coverage, none.rated_items, none.rating_count) == (2, 0, 0.0, 1, 2)
    assert none.distribution == {"reject": 0, "gist": 1, "acceptable": 0, "excellent": 1}
    assert (none.usable_items, none.usable_share, none.reject_share) == (0, 0.0, 0.0)
    assert (none.wilson_low, round(none.wilson_high, 4)) == (0.0, 0.7935)  # 0 of 1: z² / (1 + z²)


def test_aggregate_domains_sorted_with_no_domain_last():
    domains = aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3).domains
    # A domain by its name; a code the corpus format does not know, as it is.
    assert [(d.label, d.key) for d in domains] == [("health", "health"), ("Legal", "legal"), ("No domain", "")]
    health, legal, no_domain = domains
    assert (health.items, health.covered_items, health.rated_items, health.rating_count) == (3, 3, 3, 10)
    assert health.distribution == {"reject": 2, "gist": 2, "acceptable": 2, "excellent": 4}
    assert (health.usable_items, health.usable_share, health.reject_items) == (2, 2 / 3, 0)
    assert (legal.items, legal.covered_items, legal.coverage, legal.rated_items) == (2, 1, 0.5, 2)
    assert legal.distribution == {"reject": 2, "gist": 1, "acceptable": 0, "excellent": 2}
    assert (legal.usable_items, legal.usable_share, legal.reject_items, legal.reject_share) == (0, 0.0, 1, 0.5)
    assert (no_domain.items, no_domain.covered_items, no_domain.rated_items, no_domain.rating_count) == (2, 1, 1, 3)
    assert (no_domain.usable_items, no_domain.usable_share) == (1, 1.0)


def test_aggregate_alpha_over_non_control_items_hand_computed():
    result = aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3)
    # Coincidence marginals n = (5, 3, 4, 6), 18 pairable values; ordinal δ² 01=16, 02=56.25, 03=156.25,
    # 12=12.25, 13=72.25, 23=25. Σ o·δ² (one triangle) = 12946/24, Σ n·n·δ² = 8100,
    # alpha = 1 - 17 · (12946/24) / 8100 = -25682 / 194400.
    assert result.alpha == pytest.approx(-25682 / 194400, abs=1e-12)
    assert result.alpha_pairable_ratings == 18


def test_speaker_reliability_flags_the_unreliable_speaker_without_dropping_anyone():
    result = aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=3)
    rows = {
        s.speaker_id: (s.rating_count, s.control_rated, s.control_usable, s.control_accuracy,
                       s.panel_comparisons, s.panel_agreements, s.panel_agreement, s.flagged)
        for s in result.speakers
    }
    assert rows == {
        # Speaker 1 disagrees on items 1 and 2, where the others' lower median is speaker 9's reject.
        1: (7, 2, 2, 1.0, 5, 3, 0.6, False),
        2: (6, 1, 1, 1.0, 5, 3, 0.6, False),
        3: (4, 1, 1, 1.0, 3, 2, 2 / 3, False),
        9: (7, 2, 0, 0.0, 5, 0, 0.0, True),
    }
    assert [s.speaker_id for s in result.speakers] == [1, 2, 3, 9]
    assert result.speakers[-1].reasons == (
        "rated 2 of 2 hidden control items (the human reference) as reject or gist",
        "agreed with the other speakers (within one step of their median) on only 0 of 5 items",
    )
    assert result.flagged_speakers == 1
    assert all(s.reasons == () for s in result.speakers[:3])


def control_items(*values):
    return tuple(ItemObservations(200 + i, None, "", True, (rating(5, value),)) for i, value in enumerate(values))


def test_control_accuracy_flag_threshold():
    at_limit = aggregate(control_items("acceptable", "excellent", "excellent", "gist"), 1).speakers[0]
    assert (at_limit.control_rated, at_limit.control_usable, at_limit.control_accuracy) == (4, 3, 0.75)
    assert at_limit.flagged is False
    below = aggregate(control_items("excellent", "excellent", "gist"), 1).speakers[0]
    assert (below.control_accuracy, below.flagged) == (2 / 3, True)
    assert below.reasons == ("rated 1 of 3 hidden control items (the human reference) as reject or gist",)
    too_few = aggregate(control_items("reject"), 1).speakers[0]  # one control is not enough to judge
    assert (too_few.control_accuracy, too_few.flagged, too_few.panel_agreement) == (0.0, False, None)


def panel_items(speaker_5_values):
    return tuple(
        ItemObservations(i, 1, "", False, (rating(5, value), rating(6, "excellent"), rating(7, "excellent")))
        for i, value in enumerate(speaker_5_values)
    )


def test_panel_agreement_flag_threshold():
    half = aggregate(panel_items(["excellent", "acceptable", "excellent", "reject", "gist", "reject"]), 3)
    speaker = half.speakers[0]
    assert (speaker.speaker_id, speaker.panel_comparisons, speaker.panel_agreements) == (5, 6, 3)
    assert (speaker.panel_agreement, speaker.flagged) == (0.5, False)
    below = aggregate(panel_items(["excellent", "acceptable", "reject", "reject", "gist"]), 3).speakers[0]
    assert (below.panel_comparisons, below.panel_agreements, below.flagged) == (5, 2, True)
    assert below.reasons == (
        "agreed with the other speakers (within one step of their median) on only 2 of 5 items",
    )
    too_few = aggregate(panel_items(["reject"] * 4), 3).speakers[0]
    assert (too_few.panel_comparisons, too_few.panel_agreement, too_few.flagged) == (4, 0.0, False)


def test_aggregate_refuses_duplicate_items_and_zero_overlap():
    with pytest.raises(ValueError):
        aggregate(HAND_BUILT_CAMPAIGN + HAND_BUILT_CAMPAIGN[:1], ratings_per_item=3)
    with pytest.raises(ValueError):
        aggregate(HAND_BUILT_CAMPAIGN, ratings_per_item=0)


def test_aggregate_of_an_empty_campaign():
    result = aggregate((), ratings_per_item=3)
    assert (result.campaign.items, result.campaign.coverage, result.campaign.usable_share) == (0, None, None)
    assert (result.campaign.wilson_low, result.campaign.wilson_high) == (0.0, 1.0)
    assert (result.tiers, result.domains, result.speakers, result.alpha) == ((), (), (), None)


def test_aggregate_counts_ten_thousand_ratings():
    items = [
        ItemObservations(
            item_id, item_id % 5 + 1, f"domain {item_id % 4}", item_id % 50 == 0,
            tuple(Observation(speaker, RATING_VALUES[(item_id + speaker) % 4]) for speaker in range(3)),
        )
        for item_id in range(3334)
    ]
    result = aggregate(items, ratings_per_item=3)
    assert result.campaign.rating_count + result.control_rating_count == 10002


@pytest.mark.parametrize("df, quantile", [(1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (10, 2.2281),
                                          (30, 2.0423), (120, 1.9799)])
def test_student_t_quantile_matches_published_tables(df, quantile):
    assert student_t_quantile(0.975, df) == pytest.approx(quantile, abs=1e-4)
    assert student_t_cdf(quantile, df) == pytest.approx(0.975, abs=1e-5)


def test_student_t_takes_fractional_degrees_of_freedom_between_its_neighbours():
    assert student_t_quantile(0.975, 2) > student_t_quantile(0.975, 2.5) > student_t_quantile(0.975, 3)
    assert student_t_quantile(0.975, 1e6) == pytest.approx(1.95996, abs=1e-4)
    with pytest.raises(ValueError):
        student_t_quantile(0.4, 3)
