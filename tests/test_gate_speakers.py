"""Enough distinct speakers, and no single speaker deciding the recommendation (leave-one-speaker-out)."""

import itertools
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


def lenient_eighth_speaker():
    """Seven speakers rate 60 items excellent in pairs, with a third rater; speaker 8 is the third rater of a
    third of them, and also of 16 items on which the other two split (acceptable, gist), which speaker 8 alone
    makes usable: 76 of 76 usable, but one speaker carries 16 of them."""
    pairs = list(itertools.combinations(range(1, 8), 2))
    rows = []
    for i in range(60):
        first, second = pairs[i % len(pairs)]
        third = 8 if i % 3 == 0 else next(s for s in range(1, 8) if s not in (first, second))
        rows.append(((first, "excellent"), (second, "excellent"), (third, "excellent")))
    for i in range(16):
        first, second = pairs[(i * 5) % len(pairs)]
        rows.append(((first, "acceptable"), (second, "gist"), (8, "excellent")))
    return campaign(rows)


def test_a_speaker_who_stands_out_and_decides_the_pass_is_named():
    result = lenient_eighth_speaker()
    drops = {drop.speaker_id: drop for drop in result.speaker_drops}
    assert [speaker for speaker, drop in drops.items() if drop.stands_out] == [8]
    # Replaced by a typical speaker of the panel, speaker 8 would make those 16 items usable about half the time
    # (1 - 8 / 76 = 0.89), plus the typical speaker's own small lean towards usable on the other items.
    assert 0.89 < drops[8].campaign.estimate < 0.93
    # At the default threshold the campaign passes with or without speaker 8: nothing decides.
    assert evaluate_gate(result, GatePolicy()).outcome == "pass"
    strict = evaluate_gate(result, GatePolicy(min_usable_lower_bound=0.9), speaker_names={8: "ana@example.org"})
    assert (strict.outcome, strict.decisive_speaker) == ("insufficient_evidence", 8)
    assert check(strict, "speakers").message == (
        "The ratings of ana@example.org stand out from the other speakers', and with them replaced by a typical "
        "speaker's the campaign would no longer pass: one speaker's ratings decide the recommendation. Look at "
        "their ratings, and invite more speakers to rate the same items.")
    assert strict.summary == (
        "Recommendation: insufficient evidence — the ratings of ana@example.org alone decide the recommendation.")


def test_a_speaker_within_the_panels_spread_never_decides():
    # Three speakers: no one can stand out from two others (the interval already reads the panel's spread).
    rows = [((1, "excellent"), (2, "gist" if i < 12 else "excellent"), (3, "excellent")) for i in range(40)]
    result = campaign(rows)
    assert not any(drop.stands_out for drop in result.speaker_drops)
    assert evaluate_gate(result, GatePolicy()).decisive_speaker is None


def test_a_fail_that_one_speaker_decides_is_insufficient_evidence():
    # 35 items rated excellent by speakers 1, 2 and 3; 6 more rated only by speaker 4, as reject. With every
    # rating: reject share 6 of 41 = 0.15 > 0.10, and the interval, reading speaker 4's lone rejects, is wide. With
    # speaker 4 replaced by a typical speaker (the others rated everything usable), 41 of 41 are usable: a pass.
    rows = [((1, "excellent"), (2, "excellent"), (3, "excellent"))] * 35 + [((4, "reject"),)] * 6
    result = evaluate_gate(campaign(rows), GatePolicy(require_complete_coverage=False))
    assert result.outcome == "insufficient_evidence"
    assert result.decisive_speaker == 4
    assert check(result, "speakers").message == (
        "The ratings of speaker 4 stand out from the other speakers', and with them replaced by a typical "
        "speaker's the campaign would pass: one speaker's ratings decide the recommendation. Look at their "
        "ratings, and invite more speakers to rate the same items.")
    assert result.summary.startswith(
        "Recommendation: insufficient evidence — the ratings of speaker 4 alone decide the recommendation, ")
    assert result.summary.endswith(
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
    result = evaluate_gate(lenient_eighth_speaker(), GatePolicy(min_usable_lower_bound=0.9))
    assert "The ratings of speaker 8 stand out" in check(result, "speakers").message


def random_campaign(items, speakers, seed):
    rng = random.Random(seed)
    result = []
    for i in range(items):
        raters = rng.sample(range(1, speakers + 1), rng.choice([1, 2, 3, 3, 3]))
        values = [rng.choice(RATING_VALUES[1:] if rng.random() < 0.8 else RATING_VALUES) for _ in raters]
        result.append(ItemObservations(i, rng.choice([1, 2, None]), "", False,
                                       tuple(Observation(s, v) for s, v in zip(raters, values, strict=True))))
    return result


def replaced_share(items, speaker):
    """The share with ``speaker``'s ratings replaced by a typical speaker's, computed the long way: on each item
    where their rating is pivotal, their vote becomes the share of the item's other ratings that are usable (the
    other speakers' share of usable ratings for an item they rated alone); then the typical speaker's own tendency,
    the others' mean influence per rating, is added back for every rating the speaker gave."""
    def decision(votes):
        return sum(votes) >= len(votes) - (len(votes) - 1) // 2

    def influence(item, rater):
        votes = {o.speaker_id: o.value in ("acceptable", "excellent") for o in item.observations}
        others = [vote for who, vote in votes.items() if who != rater]
        rest = [o.value in ("acceptable", "excellent") for i in items for o in i.observations if o.speaker_id != rater]
        typical = sum(others) / len(others) if others else sum(rest) / len(rest)
        if decision(others + [True]) == decision(others + [False]):
            return 0.0
        return votes[rater] - typical

    rated = [item for item in items if item.observations]
    share = sum(decision([o.value in ("acceptable", "excellent") for o in item.observations])
                for item in rated) / len(rated)
    own = [influence(item, speaker) for item in rated if any(o.speaker_id == speaker for o in item.observations)]
    others = [influence(item, o.speaker_id) for item in rated for o in item.observations if o.speaker_id != speaker]
    return share - (sum(own) - len(own) * sum(others) / len(others)) / len(rated)


@pytest.mark.parametrize("seed", range(5))
def test_a_speaker_replaced_matches_the_long_computation_and_agreement_without_them(seed):
    items = random_campaign(60, 6, seed)
    whole = aggregate(items, ratings_per_item=3)
    assert [drop.speaker_id for drop in whole.speaker_drops] == list(range(1, 7))
    for drop in whole.speaker_drops:
        without = aggregate([replace(item, observations=tuple(o for o in item.observations
                                                              if o.speaker_id != drop.speaker_id))
                             for item in items], ratings_per_item=3)
        assert drop.campaign.estimate == pytest.approx(replaced_share(items, drop.speaker_id), abs=1e-9)
        # Every item keeps its ratings: the counts stay.
        assert (drop.campaign.rated_items, drop.campaign.usable_items) == (whole.campaign.rated_items,
                                                                           whole.campaign.usable_items)
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
