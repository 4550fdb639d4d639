"""Speaker assignment for review campaigns: distinct raters, balanced load, reassignment, per-speaker order."""

import random
from collections import Counter

import pytest

from review.assignment import NotEnoughSpeakers, assign, reassign, speaker_order

ITEMS = list(range(100, 140))  # 40 items
SPEAKERS = list(range(1, 8))  # 7 speakers


def loads_of(assignment, speakers, start=None):
    counts = Counter(start or {})
    for chosen in assignment.values():
        counts.update(chosen)
    return {speaker: counts[speaker] for speaker in speakers}


def test_every_item_gets_per_item_distinct_speakers():
    assignment = assign(ITEMS, SPEAKERS, per_item=3, seed=1)
    assert sorted(assignment) == ITEMS
    for chosen in assignment.values():
        assert len(chosen) == 3
        assert len(set(chosen)) == 3
        assert set(chosen) <= set(SPEAKERS)
        assert chosen == sorted(chosen)


def test_load_is_balanced_from_equal_start():
    # 40 items x 3 = 120 assignments over 7 speakers: 120 = 7 x 17 + 1, so six carry 17 and one 18.
    for seed in range(20):
        loads = loads_of(assign(ITEMS, SPEAKERS, per_item=3, seed=seed), SPEAKERS)
        assert sorted(loads.values()) == [17] * 6 + [18]


def test_existing_load_is_evened_out_first():
    # Speaker 1 already has 5 open items: the 6 new single-rated items go to the other six first.
    assignment = assign([10, 11, 12, 13, 14, 15], [1, 2, 3, 4, 5, 6, 7], per_item=1, seed=3, load={1: 5})
    assert 1 not in {speaker for chosen in assignment.values() for speaker in chosen}
    loads = loads_of(assignment, [2, 3, 4, 5, 6, 7])
    assert sorted(loads.values()) == [1, 1, 1, 1, 1, 1]


def test_input_load_is_not_changed():
    load = {1: 2, 2: 0}
    assign([10, 11], [1, 2, 3], per_item=2, seed=0, load=load)
    assert load == {1: 2, 2: 0}


def test_speakers_already_holding_an_item_count_and_are_not_chosen_again():
    already = {100: [1, 2], 101: [3, 4, 5], 102: [9]}  # 9 is no longer in the pool but still holds 102
    assignment = assign([100, 101, 102], SPEAKERS, per_item=3, seed=4, already=already)
    assert len(assignment[100]) == 1
    assert not set(assignment[100]) & {1, 2}
    assert assignment[101] == []
    assert len(assignment[102]) == 2


def test_pairings_vary_between_items():
    # Agreement statistics need raters mixed across items, not the same trio over and over.
    assignment = assign(ITEMS, SPEAKERS, per_item=3, seed=1)
    assert len({tuple(chosen) for chosen in assignment.values()}) >= 15


def test_too_few_speakers_is_refused_with_the_numbers():
    with pytest.raises(ValueError, match="needs 3 distinct speakers, but only 2 eligible speakers are available"):
        assign([10, 11], [1, 2], per_item=3, seed=0)
    with pytest.raises(NotEnoughSpeakers) as refused:
        assign([11], [1, 2, 3], per_item=4, seed=0, already={11: [1, 2]})
    assert str(refused.value) == (
        "Not enough speakers: item 11 needs 2 more distinct speakers (2 already hold it), "
        "but only 1 eligible speaker is available."
    )
    assert (refused.value.item, refused.value.needed, refused.value.available) == (11, 2, 1)


def test_invalid_arguments():
    with pytest.raises(ValueError, match="at least 1"):
        assign(ITEMS, SPEAKERS, per_item=0, seed=0)
    with pytest.raises(ValueError, match="duplicated: 2"):
        assign(ITEMS, [1, 2, 2], per_item=1, seed=0)
    with pytest.raises(ValueError, match="duplicated: 100"):
        assign([100, 100], SPEAKERS, per_item=1, seed=0)


def test_assignment_is_deterministic_and_independent_of_input_order():
    reference = assign(ITEMS, SPEAKERS, per_item=3, seed=8, load={2: 1})
    shuffled_items, shuffled_speakers = list(ITEMS), list(SPEAKERS)
    random.Random(0).shuffle(shuffled_items)
    random.Random(1).shuffle(shuffled_speakers)
    assert assign(shuffled_items, shuffled_speakers, per_item=3, seed=8, load={2: 1}) == reference
    assert assign(ITEMS, SPEAKERS, per_item=3, seed=9, load={2: 1}) != reference


def test_reassign_skips_excluded_and_picks_least_loaded():
    load = {1: 0, 2: 4, 3: 1, 4: 1, 5: 2}
    # 1 is least loaded but excluded (e.g. skipped the item); 3 and 4 tie at 1.
    chosen = reassign(100, exclude={1}, speakers=[1, 2, 3, 4, 5], load=load, seed=6)
    assert chosen in (3, 4)
    assert reassign(100, exclude={1}, speakers=[5, 4, 3, 2, 1], load=load, seed=6) == chosen
    assert reassign(100, exclude={1, 3, 4}, speakers=[1, 2, 3, 4, 5], load=load, seed=6) == 5
    # A speaker missing from the load has none.
    assert reassign(100, exclude={1}, speakers=[2, 3, 6], load=load, seed=6) == 6


def test_reassign_tie_break_is_seeded():
    picks = {reassign(100, exclude=set(), speakers=range(1, 11), load={}, seed=seed) for seed in range(40)}
    assert len(picks) > 1


def test_reassign_returns_none_when_nobody_is_left():
    assert reassign(100, exclude={1, 2}, speakers=[1, 2], load={}, seed=0) is None
    assert reassign(100, exclude=set(), speakers=[], load={}, seed=0) is None


def test_speaker_order_is_a_stable_per_speaker_shuffle():
    keys = list(range(500, 530))
    first = speaker_order(1, keys, seed=5)
    assert sorted(first) == keys
    assert first != keys
    assert speaker_order(1, keys, seed=5) == first
    assert speaker_order(1, list(reversed(keys)), seed=5) == first
    orders = {tuple(speaker_order(speaker, keys, seed=5)) for speaker in range(1, 11)}
    assert len(orders) == 10
    assert speaker_order(1, keys, seed=6) != first
    assert speaker_order(1, [], seed=5) == []
    with pytest.raises(ValueError, match="duplicated: 500"):
        speaker_order(1, [500, 500], seed=5)


@pytest.mark.parametrize("case", range(200))
def test_assignment_invariants_over_random_cases(case):
    rng = random.Random(f"assignment:{case}")
    speakers = rng.sample(range(1, 60), rng.randint(1, 12))
    items = rng.sample(range(1000, 2000), rng.randint(1, 50))
    per_item = rng.randint(1, len(speakers))
    assignment = assign(items, speakers, per_item=per_item, seed=case)
    for chosen in assignment.values():
        assert len(set(chosen)) == len(chosen) == per_item
    loads = loads_of(assignment, speakers)
    assert max(loads.values()) - min(loads.values()) <= 1
    assert sum(loads.values()) == per_item * len(items)
