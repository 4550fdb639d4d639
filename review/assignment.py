"""Which speakers rate which sampled items, and in what order each speaker sees them (SPEC §5), in pure Python.

Each item needs ``per_item`` independent ratings, so it goes to that many *distinct* speakers. Load is
spread evenly (the least-loaded speaker first) so no volunteer carries the campaign alone, and ties are
broken by a seeded draw so the same inputs and seed always give the same assignment.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

from review.sampling import reject_duplicate_keys, seeded_order


class NotEnoughSpeakers(ValueError):
    """An item cannot get the distinct speakers it needs; the message is written for governance staff."""

    def __init__(self, item: int, needed: int, available: int, holding: int = 0) -> None:
        self.item = item
        self.needed = needed
        self.available = available
        self.holding = holding
        wanted = f"{needed} distinct {_speakers(needed)}"
        if holding:
            verb = "holds" if holding == 1 else "hold"
            wanted = f"{needed} more distinct {_speakers(needed)} ({holding} already {verb} it)"
        super().__init__(
            f"Not enough speakers: item {item} needs {wanted}, but only {available} eligible "
            f"{_speakers(available)} {'is' if available == 1 else 'are'} available."
        )


def assign(
    items: Sequence[int],
    speakers: Sequence[int],
    per_item: int,
    seed: int,
    load: Mapping[int, int] | None = None,
    already: Mapping[int, Collection[int]] | None = None,
) -> dict[int, list[int]]:
    """New speakers for each item (ascending; ``[]`` when it already has enough), keyed by item.

    Speakers in ``already[item]`` hold the item already: they count toward ``per_item`` and are not chosen
    again. ``load`` is each speaker's current number of open assignments (missing means 0); it is not
    changed. Raises ``NotEnoughSpeakers`` before choosing anything if any item cannot be served.
    """
    if per_item < 1:
        raise ValueError(f"Each item needs at least 1 rating (got {per_item}).")
    reject_duplicate_keys(items)
    reject_duplicate_keys(speakers)
    load = load or {}
    already = already or {}
    pool = sorted(speakers)

    needs: dict[int, tuple[int, list[int]]] = {}
    for item in sorted(items):
        holders = set(already.get(item, ()))
        eligible = [speaker for speaker in pool if speaker not in holders]
        needed = max(0, per_item - len(holders))
        if len(eligible) < needed:
            raise NotEnoughSpeakers(item, needed, len(eligible), holding=len(holders))
        needs[item] = (needed, eligible)

    loads = {speaker: load.get(speaker, 0) for speaker in pool}
    rng = random.Random(f"{seed}:assign")
    assignment: dict[int, list[int]] = {}
    for item, (needed, eligible) in needs.items():
        # A fresh tie-break per item varies who rates alongside whom, which inter-rater agreement needs.
        tie_break = {speaker: rng.random() for speaker in pool}
        chosen = sorted(eligible, key=lambda speaker: (loads[speaker], tie_break[speaker]))[:needed]
        for speaker in chosen:
            loads[speaker] += 1
        assignment[item] = sorted(chosen)
    return assignment


def reassign(
    item: int, exclude: Collection[int], speakers: Sequence[int], load: Mapping[int, int], seed: int
) -> int | None:
    """The least-loaded speaker outside ``exclude`` (who hold, held, skipped or left the item), or None."""
    pool = sorted(set(speakers))
    rng = random.Random(f"{seed}:reassign:{item}")
    tie_break = {speaker: rng.random() for speaker in pool}
    excluded = set(exclude)
    eligible = [speaker for speaker in pool if speaker not in excluded]
    if not eligible:
        return None
    return min(eligible, key=lambda speaker: (load.get(speaker, 0), tie_break[speaker]))


def speaker_order(speaker_id: int, item_keys: Sequence[int], seed: int) -> list[int]:
    """The order in which this speaker sees the campaign's items: shuffled per speaker, stable across visits."""
    reject_duplicate_keys(item_keys)
    return seeded_order(item_keys, f"{seed}:order:{speaker_id}")


def _speakers(count: int) -> str:
    return "speaker" if count == 1 else "speakers"
