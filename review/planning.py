"""Planning a campaign before opening it: the chance that the gate recommends a pass, and the risk of a false one.

The campaign form's table comes from the calibration suite's simulation (review/simulation.py: speakers of
differing leniency, each simulated campaign aggregated and judged by the code the decision page runs), for the
form's own numbers (sample size, ratings per item, speakers in the pool), the card's own difficulty tiers and the
organization's thresholds: at a true usable share exactly at the threshold (the false-pass risk) and at the planned
shares above it (the chance of a deserved pass), ``PLAN_RUNS`` campaigns each, with the Monte-Carlo error.

A plan takes seconds, so it is never computed in a web request: ``requested_plan`` answers from the cache or
enqueues ``tasks.plan_campaign_task`` (once per plan, however many pages ask) and says it is being computed; the
task stores the plan in the cache, keyed by everything it depends on, so the same numbers answer at once afterwards.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace

from django.core.cache import cache
from django.db import transaction
from django.db.models import Count

from leaderboard.models import RunCard, RunCardResult

from .gate import GatePolicy
from .simulation import TIERS, Design, simulate

PLANNED_SHARES = (0.75, 0.80, 0.85, 0.90, 0.95)
PLAN_RUNS = 200
"""Simulated campaigns per share: a chance of 0.80 is then known to ±0.055 (95%), a false-pass risk of 0.03 to
±0.024."""
MAX_PLANNED_ITEMS = 400
"""Larger samples are planned as this many, so that a plan takes seconds: the chance of a pass only grows with the
sample, so the table then understates it."""
MAX_PLANNED_SPEAKERS = 20
"""Larger pools are planned as this many; more speakers only narrow the interval, so the table then understates
the chance too."""
PLAN_CACHE_SECONDS = 30 * 24 * 3600
PENDING_SECONDS = 10 * 60
"""A plan asked for is enqueued once; asked again after this long without a result (a lost task), it is enqueued
again."""
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class PlanRow:
    """The chance of a pass at one true usable share, with its 95% Monte-Carlo margin; ``at_threshold`` marks the
    row whose passes are false passes."""

    share: float
    chance: float
    margin: float
    at_threshold: bool


@dataclass(frozen=True)
class Plan:
    """What the form shows: the numbers simulated (after the caps) and one row per share."""

    design: Design
    runs: int
    rows: tuple[PlanRow, ...]

    @property
    def risk(self) -> PlanRow:
        return self.rows[0]


def card_populations(run_card: RunCard) -> tuple[int, ...]:
    """The card's outputs per difficulty tier, in ``simulation.TIERS`` order: the strata its sample is drawn from."""
    counts = dict(RunCardResult.objects.filter(run_card=run_card).values("entry__difficulty")
                  .annotate(outputs=Count("pk")).values_list("entry__difficulty", "outputs"))
    return tuple(counts.get(tier, 0) for tier in TIERS)


def planned_design(sample_size: int, ratings_per_item: int, speakers: int, populations: tuple[int, ...],
                   policy: GatePolicy) -> Design:
    """The design simulated for the form's numbers: at most ``MAX_PLANNED_ITEMS`` items and
    ``MAX_PLANNED_SPEAKERS`` speakers, never fewer than the policy's own minimums."""
    return Design(items=min(sample_size, max(MAX_PLANNED_ITEMS, policy.min_rated_items), sum(populations)),
                  ratings_per_item=ratings_per_item,
                  speakers=min(speakers, max(MAX_PLANNED_SPEAKERS, policy.min_distinct_speakers)),
                  populations=populations)


def plan_key(design: Design, policy: GatePolicy) -> str:
    """The cache key of a plan: the design, the thresholds and the simulation's settings."""
    text = json.dumps([asdict(design), asdict(policy), PLAN_RUNS, PLANNED_SHARES], sort_keys=True)
    return "plan:v2:" + hashlib.sha256(text.encode()).hexdigest()


def requested_plan(design: Design, policy: GatePolicy) -> Plan | None:
    """The plan from the cache; None while it is being computed (then enqueued, once, after the current
    transaction commits)."""
    key = plan_key(design, policy)
    plan = cache.get(key)
    if plan is None and cache.add(key + ":pending", True, PENDING_SECONDS):
        from .tasks import plan_campaign_task

        arguments = {"design": asdict(design), "policy": asdict(policy)}
        transaction.on_commit(lambda: plan_campaign_task.delay(arguments), robust=True)
        plan = cache.get(key)
    return plan


def store_plan(design: Mapping, policy: Mapping) -> Plan:
    """Simulate the plan of ``design`` under ``policy`` (as ``asdict`` gave them) and keep it in the cache; the
    Celery task's work."""
    planned = Design(**{**design, "populations": tuple(design["populations"])})
    thresholds = GatePolicy(**policy)
    plan = simulate_plan(planned, thresholds)
    cache.set(plan_key(planned, thresholds), plan, PLAN_CACHE_SECONDS)
    cache.delete(plan_key(planned, thresholds) + ":pending")
    return plan


def simulate_plan(design: Design, policy: GatePolicy, runs: int | None = None) -> Plan:
    """The chance of a pass at the policy's threshold and at each planned share above it. Coverage is assumed
    complete (the plan asks what the evidence will show once every item has its ratings); a pool smaller than the
    ratings per item, or than the policy's minimum of speakers, can never pass."""
    runs = PLAN_RUNS if runs is None else runs
    threshold = policy.min_usable_lower_bound
    shares = (threshold, *(share for share in PLANNED_SHARES if share > threshold + 1e-9))
    planned = replace(policy, require_complete_coverage=False)
    rows = []
    for index, share in enumerate(shares):
        if design.speakers < design.ratings_per_item:
            chance = 0.0
        else:
            seed = int.from_bytes(hashlib.sha256(f"{asdict(design)}:{share}".encode()).digest()[:8], "big")
            outcomes = simulate(design, share, runs, planned, seed=seed)
            chance = sum(outcome.passed for outcome in outcomes) / runs
        margin = Z_95 * math.sqrt(max(chance * (1 - chance), 1 / runs) / runs)
        rows.append(PlanRow(share=share, chance=chance, margin=margin, at_threshold=index == 0))
    return Plan(design=design, runs=runs, rows=tuple(rows))
