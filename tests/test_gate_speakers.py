"""Enough distinct speakers, and no single speaker deciding the recommendation (leave-one-speaker-out)."""

import random
from dataclasses import replace

import pytest

from review.aggregation import RATING_VALUES, ItemObservations, Observation, aggregate
from review.gate import GatePolicy, evaluate_gate


def campaign(rows, ratings_per_item=3):
    """``rows``: one tuple of (speaker, value) per item, difficulty 1."""
    return aggregate([ItemObservations(i, 1, "", False, tuple(Observation(s, v) for s, v in row))
                      for i, row in enumerate(rows)], ratings_per_item=ratings_per_item)


def check(result, name):
    return next(c for c in result.reasons if c.name == name)


def test_too_few_distinct_speakers_is_insufficient_evidence():
    two = campaign([((1, "excellent"), (2, "excellent"))] * 40, ratings_per_item=2)
    assert two.distinct_speakers == 2
    result = evaluate_gate(two, GatePolicy())
    assert result.outcome == "insufficient_evidence"
    assert check(result, "speakers").message == (
        "Only 2 distinct speakers have rated; the policy needs ratings from at least 3 — invite more speakers.")
    assert result.summary == "Recommendation: insufficient evidence — only 2 distinct speakers have rated (3 needed)."
    assert evaluate_gate(two, GatePolicy(min_distinct_speakers=2)).outcome == "pass"


def test_too_few_speakers_overrides_even_a_certain_fail():
    result = evaluate_gate(campaign([((1, "reject"), (2, "reject"))] * 40, ratings_per_item=2), GatePolicy())
    assert result.outcome == "insufficient_evidence"


def test_policy_never_allows_fewer_than_two_speakers():
    with pytest.raises(ValueError):
        GatePolicy(min_distinct_speakers=1)


def test_a_decisive_single_speaker_gives_insufficient_evidence_and_is_named():
    # Speakers 1 and 3 rate all 40 items excellent; speaker 2 rates 12 of them gist. Every median is excellent
    # (40 of 40 usable), but the interval resamples speakers: a panel drawn with speaker 2 twice makes those 12
    # items gist, so its lower bound is 0.60 — not a pass. Without speaker 2 every rating is excellent: a pass.
    # Speaker 2's ratings decide the outcome.
    rows = [((1, "excellent"), (2, "gist" if i < 12 else "excellent"), (3, "excellent")) for i in range(40)]
    result = evaluate_gate(campaign(rows), GatePolicy(), speaker_names={2: "ana@example.org"})
    assert result.outcome == "insufficient_evidence"
    assert result.decisive_speaker == 2
    assert check(result, "speakers").message == (
        "Without the ratings of ana@example.org the campaign would pass: one speaker's ratings decide "
        "the recommendation. Invite more speakers to rate the same items.")
    assert result.summary == (
        "Recommendation: insufficient evidence — the ratings of ana@example.org alone decide the recommendation "
        "and the usable share's lower bound 0.60 is still below 0.70.")


def test_a_fail_that_one_speaker_decides_is_insufficient_evidence():
    # 35 items rated excellent by speakers 1, 2 and 3; 6 more rated only by speaker 4, as reject. With every
    # rating: reject share 6 of 41 = 0.15 > 0.10, a fail. Without speaker 4 those 6 items are unrated: 35 of 35
    # usable, no reject — a pass. The fail rests on speaker 4 alone.
    rows = [((1, "excellent"), (2, "excellent"), (3, "excellent"))] * 35 + [((4, "reject"),)] * 6
    policy = GatePolicy(require_complete_coverage=False)
    result = evaluate_gate(campaign(rows), policy)
    assert result.outcome == "insufficient_evidence"
    assert result.decisive_speaker == 4
    assert check(result, "speakers").message == (
        "Without the ratings of speaker 4 the campaign would pass: one speaker's ratings decide the "
        "recommendation. Invite more speakers to rate the same items.")
    assert result.summary == (
        "Recommendation: insufficient evidence — the ratings of speaker 4 alone decide the recommendation. "
        "Also not met on the current evidence: the reject share 0.15 exceeds the 0.10 maximum.")


def test_a_fail_no_single_speaker_decides_stays_a_fail():
    # (excellent, excellent, gist) has median excellent, and so has either pair left when one speaker is taken
    # out: 10 of 40 usable (upper bound 0.40, however the panel is resampled) with or without any one speaker.
    rows = [((1, "excellent"), (2, "excellent"), (3, "gist"))] * 10 + [((1, "gist"), (2, "reject"), (3, "gist"))] * 30
    result = evaluate_gate(campaign(rows), GatePolicy())
    assert result.outcome == "fail"
    assert result.decisive_speaker is None


def test_one_lenient_speaker_against_two_strict_ones_is_not_a_certain_fail():
    # Speaker 1 rates every item excellent, speakers 2 and 3 rate 30 of them gist: 10 of 40 usable, but a panel
    # drawn with speaker 1 twice finds them all usable, so a fail is not demonstrated (Wilson alone said fail).
    rows = [((1, "excellent"), (2, "gist" if i < 30 else "excellent"), (3, "gist" if i < 30 else "excellent"))
            for i in range(40)]
    result = evaluate_gate(campaign(rows), GatePolicy())
    assert result.outcome == "insufficient_evidence"
    assert result.decisive_speaker is None


def test_speaker_name_falls_back_to_the_id():
    rows = [((1, "excellent"), (2, "gist" if i < 12 else "excellent"), (3, "excellent")) for i in range(40)]
    assert "speaker 2" in check(evaluate_gate(campaign(rows), GatePolicy()), "speakers").message


def random_campaign(items, speakers, seed):
    rng = random.Random(seed)
    result = []
    for i in range(items):
        raters = rng.sample(range(1, speakers + 1), rng.choice([1, 2, 3, 3, 3]))
        values = [rng.choice(RATING_VALUES[1:] if rng.random() < 0.8 else RATING_VALUES) for _ in raters]
        result.append(ItemObservations(i, rng.choice([1, 2, None]), "", False,
                                       tuple(Observation(s, v) for s, v in zip(raters, values, strict=True))))
    return result


@pytest.mark.parametrize("seed", range(5))
def test_speaker_drops_equal_a_full_recomputation_without_the_speaker(seed):
    items = random_campaign(60, 6, seed)
    whole = aggregate(items, ratings_per_item=3)
    assert [drop.speaker_id for drop in whole.speaker_drops] == list(range(1, 7))
    for drop in whole.speaker_drops:
        without = aggregate([replace(item, observations=tuple(o for o in item.observations
                                                              if o.speaker_id != drop.speaker_id))
                             for item in items], ratings_per_item=3)
        # The bootstrap's item draws are shared with the whole panel's, so its bounds are close, not equal.
        assert replace(drop.campaign, bootstrap_low=None, bootstrap_high=None) == replace(
            without.campaign, bootstrap_low=None, bootstrap_high=None)
        assert drop.campaign.bootstrap_low == pytest.approx(without.campaign.bootstrap_low, abs=0.05)
        assert drop.campaign.bootstrap_high == pytest.approx(without.campaign.bootstrap_high, abs=0.05)
        assert drop.tiers == without.tiers
        assert drop.ac1 == pytest.approx(without.ac1, abs=1e-9)
        assert drop.raw_agreement == pytest.approx(without.raw_agreement, abs=1e-9)


def test_a_speaker_far_more_lenient_than_the_others_is_flagged_with_the_figure():
    # Four ratings per item. Speakers 1, 2 and 4 rate all 12 items gist; speaker 3 rates them excellent, two steps
    # above the others' median (gist). Speaker 1's others are gist, gist, excellent: median gist, offset 0.
    rows = [((1, "gist"), (2, "gist"), (3, "excellent"), (4, "gist")) for _ in range(12)]
    result = campaign(rows, ratings_per_item=4)
    by_speaker = {speaker.speaker_id: speaker for speaker in result.speakers}
    assert by_speaker[3].mean_offset == 2.0 and by_speaker[3].usable_rate == 1.0
    assert by_speaker[3].flagged and any("2.0 steps above the other speakers of the same items (more lenient), "
                                         "over 12 items" in str(reason) for reason in by_speaker[3].reasons)
    assert by_speaker[1].mean_offset == 0.0 and by_speaker[1].usable_rate == 0.0
    assert not any("steps" in str(reason) for reason in by_speaker[1].reasons)


def test_the_offset_is_unbiased_with_two_other_ratings():
    # Three ratings per item: each speaker's others are two ratings, whose plain median is their mean. Identical
    # speakers (each rating gist on half the items and acceptable on the other half, in rotation) get offset 0;
    # the lower median would have given every one of them a lenient offset.
    rows = []
    for i in range(12):
        values = ["gist", "acceptable", "gist" if i % 2 else "acceptable"]
        rows.append(tuple((speaker, values[(i + speaker) % 3]) for speaker in (1, 2, 3)))
    offsets = [speaker.mean_offset for speaker in campaign(rows).speakers]
    assert sum(offsets) == pytest.approx(0.0) and max(abs(offset) for offset in offsets) < 0.6


def test_a_harsh_speaker_is_flagged_and_few_comparisons_are_not_judged():
    rows = [((1, "excellent"), (2, "excellent"), (3, "gist")) for _ in range(10)]
    harsh = {s.speaker_id: s for s in campaign(rows).speakers}[3]
    assert harsh.mean_offset == -2.0
    assert any("2.0 steps below the other speakers of the same items (harsher), over 10 items" in str(reason)
               for reason in harsh.reasons)
    few = {s.speaker_id: s for s in campaign(rows[:9]).speakers}[3]
    assert few.mean_offset == -2.0 and not any("steps" in str(reason) for reason in few.reasons)
