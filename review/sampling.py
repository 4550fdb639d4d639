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

    Allocation is proportional (largest remainder), then lifted to the floor per stratum; see
    ``docs/review-sampling.md`` for the rules and a worked example.
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
    """Allocation per stratum (in stratum order) summing to min(size, total population)."""
    total = sum(populations)
    if size >= total:
        return list(populations)
    allocations = _largest_remainder(populations, size)
    floors = _floors(populations, size, floor)
    allocations = [max(share, lowest) for share, lowest in zip(allocations, floors, strict=True)]
    for _ in range(sum(allocations) - size):
        # The excess comes off the stratum furthest above its floor; max() keeps the first on a tie.
        index = max(range(len(allocations)), key=lambda i: allocations[i] - floors[i])
        allocations[index] -= 1
    return allocations


def _largest_remainder(populations: list[int], size: int) -> list[int]:
    """Proportional shares of ``size`` in integers (Hamilton's method), exact with integer arithmetic."""
    total = sum(populations)
    shares = [size * population // total for population in populations]
    remainders = [size * population % total for population in populations]
    by_remainder = sorted(range(len(populations)), key=lambda i: (-remainders[i], i))
    for index in by_remainder[: size - sum(shares)]:
        shares[index] += 1
    return shares


def _floors(populations: list[int], size: int, floor: int) -> list[int]:
    """Each stratum's guaranteed minimum: min(floor, population), or an equal split when those exceed size.

    The equal split fills every stratum one unit per round (never above its population or the floor); the
    last partial round goes to the largest strata first, then by stratum order.
    """
    caps = [min(floor, population) for population in populations]
    if sum(caps) <= size:
        return caps
    floors = [0] * len(populations)
    remaining = size
    preference = sorted(range(len(populations)), key=lambda i: (-populations[i], i))
    while remaining:
        for index in preference:
            if remaining and floors[index] < caps[index]:
                floors[index] += 1
                remaining -= 1
    return floors
