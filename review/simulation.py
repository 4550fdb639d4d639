"""Simulated campaigns: what the gate recommends for a design when the method's true usable share is known.

One model, used by the campaign form's planning table (review/planning.py) and by the calibration suite
(`make gate-check`, scripts/gate_check.py), so that the chances the form shows are the ones the suite checks:

- each output has a latent quality q ~ Normal(mu, 1) on the rating scale (reject 0, gist 1, acceptable 2,
  excellent 3), whatever its difficulty tier;
- each speaker of the pool has a leniency offset ~ Normal(0, 0.45 steps), drawn once per campaign;
- a rating is q + the speaker's offset + noise ~ Normal(0, 0.5), rounded to the nearest step of the scale;
- each sampled output is rated by ``ratings_per_item`` distinct speakers of the pool, drawn at random; every
  item gets all its ratings (coverage complete);
- the sample is drawn tier by tier as the campaign draws it (review/sampling.py: a floor per tier, then
  proportional), and the campaign is weighted by the card's tier populations;
- the *true usable share* is the probability that an output's per-item rule says usable (its lower median
  acceptable or better) when its speakers are drawn from the whole population of speakers: mu is set so that it
  is exactly the share asked for.

Each simulated campaign goes through ``aggregation.aggregate_arrays`` and ``gate.evaluate_gate``, the code the
decision page runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from .aggregation import aggregate_arrays
from .evidence import RatingArrays
from .gate import OUTCOME_PASS, GatePolicy, evaluate_gate
from .sampling import MIN_PER_TIER, _allocate

LENIENCY_SD = 0.45
NOISE_SD = 0.5
QUALITY_SD = 1.0
USABLE_FROM = 1.5
"""On the latent scale a rating is the nearest step, so a rating is usable from 1.5 up."""
TIERS = (1, 2, 3, 4, 5, None)
"""The difficulty tiers in the sampler's order; None is the card's outputs without a difficulty."""


@dataclass(frozen=True)
class Design:
    """A campaign as planned: its sample size, ratings per item, pool of speakers and the card's outputs per
    difficulty tier (in ``TIERS`` order, 0 for a tier the card does not have; a shorter tuple leaves the last
    tiers empty)."""

    items: int
    ratings_per_item: int
    speakers: int
    populations: tuple[int, ...]
    leniency_sd: float = LENIENCY_SD

    def allocation(self) -> dict[int | None, int]:
        """Items per tier, as the campaign's stratified sample allocates them."""
        present = [(tier, population) for tier, population in zip(TIERS, self.populations, strict=False)
                   if population > 0]
        seats = _allocate([population for _tier, population in present], self.items, MIN_PER_TIER)
        return {tier: seat for (tier, _population), seat in zip(present, seats, strict=True) if seat > 0}


@dataclass(frozen=True)
class Outcome:
    """One simulated campaign: the recommendation and the usable share's interval."""

    passed: bool
    low: float
    high: float


def true_share(mean: float, ratings_per_item: int, leniency_sd: float = LENIENCY_SD) -> float:
    """The probability that an output of quality ~ Normal(mean, 1) is usable by its lower median of
    ``ratings_per_item`` ratings from speakers drawn from the population: given q, each rating is usable
    independently with p(q) = Phi((q - 1.5) / sqrt(leniency² + noise²)), and the rule needs at least
    k - (k - 1) // 2 of them. Gauss-Hermite quadrature over q."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(96)
    quality = mean + QUALITY_SD * nodes
    spread = math.hypot(leniency_sd, NOISE_SD)
    usable = np.array([NormalDist().cdf((q - USABLE_FROM) / spread) for q in quality])
    k = ratings_per_item
    need = k - (k - 1) // 2
    rule = sum(math.comb(k, j) * usable ** j * (1 - usable) ** (k - j) for j in range(need, k + 1))
    return float((weights * rule).sum() / weights.sum())


@lru_cache(maxsize=512)
def mean_quality(share: float, ratings_per_item: int, leniency_sd: float = LENIENCY_SD) -> float:
    """The mean latent quality whose true usable share is ``share`` (bisection; the share grows with it)."""
    low, high = -6.0, 9.0
    for _step in range(60):
        middle = (low + high) / 2
        if true_share(middle, ratings_per_item, leniency_sd) < share:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def simulate_arrays(rng: np.random.Generator, design: Design,
                    share: float) -> tuple[RatingArrays, list[int | None]]:
    """One campaign's ratings under the model, with the difficulty of each stratum index."""
    allocation = design.allocation()
    tiers = [tier for tier in TIERS if tier in allocation]
    stratum = np.repeat(np.arange(len(tiers)), [allocation[tier] for tier in tiers])
    n, k, pool = len(stratum), design.ratings_per_item, design.speakers
    leniency = rng.normal(0.0, design.leniency_sd, size=pool)
    quality = rng.normal(mean_quality(share, k, design.leniency_sd), QUALITY_SD, size=n)
    raters = np.argsort(rng.random((n, pool)), axis=1)[:, :k]
    latent = quality[:, None] + leniency[raters] + rng.normal(0.0, NOISE_SD, size=(n, k))
    rank = np.clip(np.rint(latent), 0, 3).astype(np.intp)
    arrays = RatingArrays(item_stratum=stratum, item=np.repeat(np.arange(n), k), speaker=raters.ravel(),
                          rank=rank.ravel())
    return arrays, tiers


def simulate(design: Design, share: float, runs: int, policy: GatePolicy, seed: int) -> list[Outcome]:
    """``runs`` campaigns of ``design`` at a true usable share ``share``, each judged by the gate under ``policy``
    (coverage complete: the plan asks what the evidence will say once every item has its ratings)."""
    rng = np.random.default_rng(seed)
    populations = {tier: population for tier, population in zip(TIERS, design.populations, strict=False)
                   if population > 0}
    outcomes = []
    for _run in range(runs):
        arrays, tiers = simulate_arrays(rng, design, share)
        figures = aggregate_arrays(arrays, design.ratings_per_item, tiers,
                                   {tier: populations[tier] for tier in tiers})
        result = evaluate_gate(figures, policy)
        outcomes.append(Outcome(result.outcome == OUTCOME_PASS, figures.campaign.interval_low,
                                figures.campaign.interval_high))
    return outcomes
