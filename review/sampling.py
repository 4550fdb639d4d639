"""Stratified sampling of a run card's outputs for a review campaign (SPEC §5), in pure Python.

Governance staff must be able to redraw exactly the same sample from the recorded seed, years later and on
another Python version. So every random draw here uses only ``random.Random.random()`` (whose sequence
Python guarantees for a given seed) seeded from a string (``random`` hashes strings with SHA-512, never with
the per-process ``hash()``), and never ``sample()``/``shuffle()``, whose algorithms may change between
versions. A uniform random subset of size k is the k keys with the smallest random tags.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_PER_TIER = 5
"""Documented floor: every stratum present gets at least min(MIN_PER_TIER, its population)."""

DIFFICULTY_TIERS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Candidate:
    """One output that may be reviewed: its key (e.g. a run-card result id) and its entry's difficulty."""

    key: int
    difficulty: int | None


@dataclass(frozen=True)
class Stratum:
    """How many candidates a difficulty tier had and how many of them the sample takes."""

    difficulty: int | None
    population: int
    allocated: int

    @property
    def label(self) -> str:
        return stratum_label(self.difficulty)


@dataclass(frozen=True)
class Sample:
    """The drawn keys (ascending) and the per-stratum allocation (tiers 1..5, then "No difficulty")."""

    keys: tuple[int, ...]
    strata: tuple[Stratum, ...]


def stratum_label(difficulty: int | None) -> str:
    """The label shown to governance staff; it is also part of the stratum's seed, so it must never change."""
    return "No difficulty" if difficulty is None else f"Tier {difficulty}"


def seeded_order(keys: Iterable[int], seed_text: str) -> list[int]:
    """The keys in a random order determined only by the set of keys and ``seed_text``.

    Keys are tagged in ascending order, so the input order does not matter; the key breaks a (practically
    impossible) tie between two tags.
    """
    rng = random.Random(seed_text)
    tagged = [(rng.random(), key) for key in sorted(keys)]
    tagged.sort()
    return [key for _, key in tagged]


def stratified_sample(candidates: Sequence[Candidate], size: int, seed: int, floor: int = MIN_PER_TIER) -> Sample:
    """Draw ``size`` keys stratified by difficulty, reproducibly from ``seed``.

    Every stratum first gets its floor, then the remaining seats go by Webster's divisor method, seat by seat,
    so a larger sample never shrinks a stratum; see ``docs/review-sampling.md`` for the rules and a worked
    example.
    """
    if size <= 0:
        raise ValueError(f"The sample size must be at least 1 (got {size}).")
    if floor < 0:
        raise ValueError(f"The floor per tier cannot be negative (got {floor}).")
    populations = _group_by_difficulty(candidates)
    order = [tier for tier in (*DIFFICULTY_TIERS, None) if tier in populations]
    sizes = [len(populations[tier]) for tier in order]
    allocations = _allocate(sizes, size, floor)

    keys: list[int] = []
    strata = []
    for difficulty, population, allocated in zip(order, sizes, allocations, strict=True):
        stratum = Stratum(difficulty=difficulty, population=population, allocated=allocated)
        drawn = seeded_order(populations[difficulty], f"{seed}:{stratum.label}")[:allocated]
        keys.extend(drawn)
        strata.append(stratum)
    return Sample(keys=tuple(sorted(keys)), strata=tuple(strata))


def choose_controls(keys: Sequence[int], count: int, seed: int) -> tuple[int, ...]:
    """Pick ``count`` sampled keys whose human reference is shown as a hidden control item (ascending).

    ``count`` above the number of keys takes them all: a campaign cannot have more controls than items.
    """
    if count < 0:
        raise ValueError(f"The number of control items cannot be negative (got {count}).")
    reject_duplicate_keys(keys)
    return tuple(sorted(seeded_order(keys, f"{seed}:controls")[:count]))


def _group_by_difficulty(candidates: Sequence[Candidate]) -> dict[int | None, list[int]]:
    groups: dict[int | None, list[int]] = {}
    for candidate in candidates:
        if candidate.difficulty is not None and candidate.difficulty not in DIFFICULTY_TIERS:
            raise ValueError(
                f"Candidate {candidate.key} has difficulty {candidate.difficulty!r}; expected 1 to 5 or none."
            )
        groups.setdefault(candidate.difficulty, []).append(candidate.key)
    reject_duplicate_keys([candidate.key for candidate in candidates])
    return groups


def reject_duplicate_keys(keys: Sequence[int]) -> None:
    """A key listed twice means the caller built its list wrongly; failing loudly beats a skewed draw."""
    duplicates = sorted(key for key, times in Counter(keys).items() if times > 1)
    if duplicates:
        shown = ", ".join(str(key) for key in duplicates[:10])
        raise ValueError(f"Each key may appear only once; duplicated: {shown}.")


def _allocate(populations: list[int], size: int, floor: int) -> list[int]:
    """Allocation per stratum (in stratum order) summing to min(size, total population): the first ``size`` seats
    of one fixed sequence (``_seat_order``), so that a larger sample only ever adds seats — no stratum shrinks
    when the sample grows (no Alabama paradox, which the largest-remainder method has)."""
    allocations = [0] * len(populations)
    for index in _seat_order(populations, min(size, sum(populations)), floor):
        allocations[index] += 1
    return allocations


def _seat_order(populations: list[int], seats: int, floor: int) -> list[int]:
    """The stratum of each successive seat. First the floors: one seat per stratum per round, up to
    min(floor, population), the largest strata first within a round (then stratum order). Then Webster's divisor
    method: each next seat goes to the stratum with the highest population / (its seats + ½) among those not yet
    full, the first in stratum order on a tie (compared exactly, in integers)."""
    allocated = [0] * len(populations)
    order: list[int] = []
    caps = [min(floor, population) for population in populations]
    by_size = sorted(range(len(populations)), key=lambda i: (-populations[i], i))
    while len(order) < seats and any(allocated[i] < caps[i] for i in by_size):
        for index in by_size:
            if len(order) < seats and allocated[index] < caps[index]:
                allocated[index] += 1
                order.append(index)
    while len(order) < seats:
        best = -1
        for index, population in enumerate(populations):
            if allocated[index] >= population:
                continue
            # population / (seats + ½) above the best's, cross-multiplied: p·(2·s_best + 1) > p_best·(2·s + 1).
            if best < 0 or population * (2 * allocated[best] + 1) > populations[best] * (2 * allocated[index] + 1):
                best = index
        allocated[best] += 1
        order.append(best)
    return order
