"""Planning a campaign before opening it: the chance that the gate recommends a pass, simulated.

For a sample size, ratings per item and pool of speakers, campaigns are simulated at a few true usable shares:
each item is truly usable with that probability; each of its speakers (drawn from the pool without repetition)
calls a usable item usable with probability 0.9 and an unusable one usable with probability 0.1, each speaker
shifted by their own leniency (uniform in ±0.1, a fifth of a scale step). Every simulated campaign goes through
the real aggregation (the two-way bootstrap, with fewer replicates) and the real gate with the organization's
thresholds; the chance of a pass is the share of simulated campaigns it passes. Seeded: the same plan gives the
same table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .aggregation import RATING_VALUES, ItemObservations, Observation, aggregate
from .gate import OUTCOME_PASS, GatePolicy, evaluate_gate

PLANNED_SHARES = (0.75, 0.80, 0.85, 0.90, 0.95)
SIMULATIONS = 24
"""Per share: a chance is then known to about ±0.1 (one standard error at 0.5), enough to plan with."""
REPLICATES = 300
"""Bootstrap replicates per simulated campaign (the decision page uses 2,000)."""
CORRECT = 0.9
LENIENCY = 0.1
MAX_PLANNED_ITEMS = 400
"""Larger samples are planned as this many, so that a plan takes seconds: the chance of a pass only grows with
the sample, so the table then understates it."""
MAX_PLANNED_SPEAKERS = 20
"""Larger pools are planned as this many (the leave-one-speaker-out check costs one bootstrap per speaker); more
speakers only narrow the interval, so the table then understates the chance too."""


@dataclass(frozen=True)
class PassChance:
    share: float
    chance: float


def pass_chances(sample_size: int, ratings_per_item: int, pool_size: int, policy: GatePolicy,
                 seed: int = 0, simulations: int = SIMULATIONS) -> tuple[PassChance, ...]:
    """The chance of a pass at each of ``PLANNED_SHARES``. Coverage is assumed complete (the plan asks what the
    evidence will show once every item has its ratings); fewer speakers than ratings per item can never pass."""
    if sample_size < 1 or ratings_per_item < 1 or pool_size < 1:
        raise ValueError("sample size, ratings per item and pool size must each be at least 1")
    if pool_size < ratings_per_item:
        return tuple(PassChance(share, 0.0) for share in PLANNED_SHARES)
    # Never capped below the policy's own minimums, which would make every simulated campaign fall short.
    items = min(sample_size, max(MAX_PLANNED_ITEMS, policy.min_rated_items))
    pool_size = min(pool_size, max(MAX_PLANNED_SPEAKERS, policy.min_distinct_speakers))
    rng = np.random.default_rng(seed)
    planned = replace(policy, require_complete_coverage=False)
    chances = []
    for share in PLANNED_SHARES:
        passes = sum(_simulated_pass(rng, items, ratings_per_item, pool_size, share, planned, run)
                     for run in range(simulations))
        chances.append(PassChance(share, passes / simulations))
    return tuple(chances)


def _simulated_pass(rng: np.random.Generator, items: int, per_item: int, pool: int, share: float,
                    policy: GatePolicy, run: int) -> bool:
    leniency = rng.uniform(-LENIENCY, LENIENCY, size=pool)
    truly_usable = rng.random(items) < share
    raters = np.argsort(rng.random((items, pool)), axis=1)[:, :per_item]
    chance_usable = np.where(truly_usable[:, None], CORRECT, 1 - CORRECT) + leniency[raters]
    called_usable = rng.random((items, per_item)) < chance_usable
    grade = rng.random((items, per_item)) < 0.5
    observations = [
        ItemObservations(item, None, "", False, tuple(
            Observation(int(raters[item, k]) + 1,
                        RATING_VALUES[(2 if called_usable[item, k] else 0) + int(grade[item, k])])
            for k in range(per_item)))
        for item in range(items)
    ]
    result = aggregate(observations, per_item, seed=run, replicates=REPLICATES)
    return evaluate_gate(result, policy).outcome == OUTCOME_PASS
