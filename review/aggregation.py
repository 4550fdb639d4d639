"""Aggregate the ratings of a review campaign into the numbers governance staff decide from.

Pure Python on plain dataclasses: the views read the database and build ``ItemObservations``; this
module never queries. Every number is defined here once (see docs/validation-gate.md):

- An item's rating is the *lower median* of its ratings (conservative for an even count).
- An item is *usable* when that median is ``acceptable`` or ``excellent``; shares are over *rated*
  items (at least one rating), and their 95% Wilson interval goes with them. The whole campaign's usable
  share also gets a two-way cluster bootstrap interval (review/bootstrap.py) that knows who rated; the gate
  reads that one, never narrower than Wilson's.
- *Coverage* counts items with at least ``ratings_per_item`` ratings.
- Hidden control items (the human reference shown as a candidate) measure the speakers, not the
  method: they count only in speaker reliability, never in campaign, tier or domain figures or alpha.
- Agreement on the usable / not-usable decision is Gwet's AC1 over the ratings themselves (each rating
  usable or not), with the raw agreement it rests on; it stays meaningful when nearly every rating is
  the same, where Krippendorff's alpha collapses.
- Unreliable speakers are flagged with plain-English reasons but their ratings are kept: governance
  staff decide what to do about them.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy, ngettext

from corpus.labels import DOMAIN_LABELS
from review.bootstrap import REPLICATES, cluster_bootstrap_intervals
from review.statistics import krippendorff_alpha_ordinal, lower_median, weighted_wilson_interval, wilson_interval

RATING_VALUES = ("reject", "gist", "acceptable", "excellent")
"""Ordinal scale: the position of a value is its rank 0..3."""
USABLE_VALUES = ("acceptable", "excellent")
FLAGS = ("semantically_wrong", "culturally_inappropriate", "hallucination", "acceptable_variant")

RATING_RANK = {value: rank for rank, value in enumerate(RATING_VALUES)}
USABLE_MIN_RANK = RATING_RANK["acceptable"]
REJECT_RANK = RATING_RANK["reject"]

# Labels and reasons are lazy: an aggregate is cached and read back by pages in every language.
CAMPAIGN_LABEL = gettext_lazy("Whole campaign")
NO_DIFFICULTY_LABEL = gettext_lazy("No difficulty")
NO_DOMAIN_LABEL = gettext_lazy("No domain")

CONTROL_MIN_RATED = 2
"""A speaker's control accuracy is judged only once they rated at least this many control items."""
CONTROL_MIN_ACCURACY = 0.75
"""Flag a speaker who rates fewer than this share of control items (human references) usable."""
PANEL_MIN_COMPARISONS = 5
"""Panel agreement is judged only once this many of a speaker's ratings could be compared."""
PANEL_MIN_AGREEMENT = 0.5
"""Flag a speaker whose ratings are within one step of the others' median less often than this."""
REPEAT_MIN_PAIRS = 3
"""A speaker's consistency is judged once they rated at least this many items twice."""
REPEAT_MIN_CONSISTENCY = 2 / 3
"""Flagged when they gave the same usable / not-usable answer the second time less often than this."""
LENIENCY_MIN_COMPARISONS = 10
"""A speaker's leniency is judged on at least this many items that others rated too."""
LENIENCY_FLAG_STEPS = 0.6
"""Flagged when their ratings sit on average this many scale steps above (or below) the other speakers' median
(the plain median: the mean of the two middle ratings when they are even in number) of the same items: more
than half a step, the difference at which the usable share's interval needs speakers resampled
(docs/validation-gate.md)."""
PANEL_TOLERANCE_STEPS = 1
"""How far (in ordinal steps) a rating may be from the other speakers' median and still agree."""


@dataclass(frozen=True)
class Observation:
    """One speaker's rating of one item ("can't judge" answers are left out by the caller)."""

    speaker_id: int
    value: str
    flags: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.value not in RATING_RANK:
            raise ValueError(f"rating value {self.value!r} is not one of {RATING_VALUES}")
        unknown = set(self.flags) - set(FLAGS)
        if unknown:
            raise ValueError(f"unknown flags {sorted(unknown)}; expected some of {FLAGS}")


@dataclass(frozen=True)
class ItemObservations:
    """All ratings of one sampled item of a campaign."""

    item_id: int
    difficulty: int | None
    domain: str
    is_control: bool
    observations: tuple[Observation, ...]


@dataclass(frozen=True)
class ItemSummary:
    """Per-item result for a non-control item; ``median_value`` and ``usable`` are None when unrated."""

    item_id: int
    difficulty: int | None
    domain: str
    rating_count: int
    covered: bool
    median_value: str | None
    usable: bool | None


@dataclass(frozen=True)
class GroupSummary:
    """Figures for a set of non-control items: the whole campaign, one difficulty tier or one domain.

    ``key`` is the difficulty (int or None) for a tier, the domain string for a domain, None for the
    whole campaign. Tiers come in order 1..5 then "No difficulty"; domains alphabetically, then
    "No domain". Shares are None when their denominator is 0; with no rated item the Wilson interval
    is (0.0, 1.0) — nothing is known. ``bootstrap_low`` / ``bootstrap_high`` (whole campaign only, None
    elsewhere) resample speakers as well as items; ``interval_low`` / ``interval_high`` are what the gate
    reads.
    """

    label: str
    key: int | str | None
    items: int
    covered_items: int
    coverage: float | None
    rated_items: int
    rating_count: int
    distribution: dict[str, int]
    usable_items: int
    usable_share: float | None
    wilson_low: float
    wilson_high: float
    reject_items: int
    reject_share: float | None
    flag_counts: dict[str, int]
    bootstrap_low: float | None = None
    bootstrap_high: float | None = None
    weighted_share: float | None = None

    @property
    def estimate(self) -> float | None:
        """What the gate judges: the post-stratified share (whole campaign, when its tiers' populations are known
        and two or more tiers have rated items), otherwise the share of rated items."""
        return self.usable_share if self.weighted_share is None else self.weighted_share

    @property
    def interval_low(self) -> float:
        """The bootstrap's lower bound, but never above Wilson's: at a share of 0 or 1 every replicate agrees
        and the percentile bootstrap collapses to a point, which would claim certainty from a small sample."""
        return self.wilson_low if self.bootstrap_low is None else min(self.bootstrap_low, self.wilson_low)

    @property
    def interval_high(self) -> float:
        """The bootstrap's upper bound, never below Wilson's (see ``interval_low``)."""
        return self.wilson_high if self.bootstrap_high is None else max(self.bootstrap_high, self.wilson_high)


@dataclass(frozen=True)
class SpeakerReliability:
    """How far one speaker's ratings can be trusted; a flagged speaker is reported, never dropped."""

    speaker_id: int
    rating_count: int
    control_rated: int
    control_usable: int
    control_accuracy: float | None
    panel_comparisons: int
    panel_agreements: int
    panel_agreement: float | None
    flagged: bool
    reasons: tuple[str, ...]
    # Defaults let an aggregate cached before these fields existed be read back.
    usable_rate: float | None = None
    mean_offset: float | None = None
    repeat_pairs: int = 0
    repeat_same: int = 0
    repeat_step_change: float | None = None

    @property
    def repeat_consistency(self) -> float | None:
        """The share of items rated twice that got the same usable / not-usable answer both times."""
        return _share(self.repeat_same, self.repeat_pairs)


@dataclass(frozen=True)
class CampaignAggregate:
    """Everything the gate and the campaign report need.

    ``alpha`` is Krippendorff's ordinal alpha over non-control items; ``alpha_pairable_ratings`` is the
    number of ratings it rests on (ratings of items with two or more ratings), which tells apart "no
    item has two ratings yet" (0) from "all ratings are the same value" when alpha is None.
    """

    ratings_per_item: int
    campaign: GroupSummary
    tiers: tuple[GroupSummary, ...]
    domains: tuple[GroupSummary, ...]
    alpha: float | None
    alpha_pairable_ratings: int
    items: tuple[ItemSummary, ...]
    control_items: int
    control_rating_count: int
    speakers: tuple[SpeakerReliability, ...]
    flagged_speakers: int
    # Defaults let an aggregate cached before these fields existed be read back.
    ac1: float | None = None
    raw_agreement: float | None = None
    ac1_items: int = 0
    distinct_speakers: int = 0
    speaker_drops: tuple[SpeakerDrop, ...] = ()


@dataclass(frozen=True)
class SpeakerDrop:
    """The figures the gate reads, recomputed without one speaker's ratings (leave-one-speaker-out): if the
    recommendation changes without them, that one speaker's ratings decide it."""

    speaker_id: int
    campaign: GroupSummary
    tiers: tuple[GroupSummary, ...]
    ac1: float | None
    raw_agreement: float | None


def _ac1_terms(usable: int, ratings: int) -> tuple[float, int, float, int]:
    """One unit's share of Gwet's sums: (pa term, paired, pi term, rated)."""
    if ratings == 0:
        return 0.0, 0, 0.0, 0
    if ratings == 1:
        return 0.0, 0, usable / ratings, 1
    other = ratings - usable
    return (usable * (usable - 1) + other * (other - 1)) / (ratings * (ratings - 1)), 1, usable / ratings, 1


def gwet_ac1_binary(units: Iterable[Sequence[bool]]) -> tuple[float | None, float | None, int]:
    """Gwet's AC1 for two categories, any number of raters per unit: (AC1, raw agreement, units with two
    or more ratings); (None, None, 0) when no unit has two ratings.

    pa is the mean over units with r >= 2 ratings of [u(u-1) + v(v-1)] / [r(r-1)] (u ratings in the
    category, v = r - u); pi is the mean over units with a rating of u / r; pe = 2 pi (1 - pi);
    AC1 = (pa - pe) / (1 - pe) (Gwet, Handbook of Inter-Rater Reliability, ch. 4; irrCAC gwet.ac1.raw).
    """
    sums = [0.0, 0, 0.0, 0]
    for unit in units:
        for index, term in enumerate(_ac1_terms(sum(unit), len(unit))):
            sums[index] += term
    return _ac1_from_sums(*sums)


def _ac1_from_sums(pa_sum: float, paired: float, pi_sum: float, rated: float) -> tuple[float | None, float | None, int]:
    paired = round(paired)
    if paired == 0:
        return None, None, 0
    pa = pa_sum / paired
    pi = pi_sum / rated
    pe = 2 * pi * (1 - pi)
    return (pa - pe) / (1 - pe), pa, paired


def aggregate(items: Sequence[ItemObservations], ratings_per_item: int, seed: int = 0,
              tier_populations: Mapping[int | None, int] | None = None,
              replicates: int = REPLICATES, repeats: Sequence[tuple[int, str, str]] = ()) -> CampaignAggregate:
    """Summarise a campaign's ratings: per item, per group, agreement and speaker reliability; ``seed`` fixes
    the bootstrap's draws (the campaign's seed, so its page shows the same interval on every view).

    ``tier_populations`` (how many of the card's outputs each difficulty tier has) makes the campaign's estimate
    post-stratified: the sample gives small tiers a floor, so they are over-represented; weighting each tier's
    usable share by its share of the population estimates the share of all the card's outputs. ``replicates``
    is the bootstrap's (fewer only for planning simulations, review/planning.py). ``repeats``: (speaker, first
    rating, second rating) of items a speaker was shown twice — only their consistency; never in the figures."""
    if ratings_per_item < 1:
        raise ValueError("ratings_per_item must be at least 1")
    seen: set[int] = set()
    for item in items:
        if item.item_id in seen:
            raise ValueError(f"item {item.item_id} appears twice")
        seen.add(item.item_id)

    reviewed = [item for item in items if not item.is_control]
    controls = [item for item in items if item.is_control]
    summaries = tuple(_summarise_item(item, ratings_per_item) for item in reviewed)
    pairs = list(zip(reviewed, summaries, strict=True))

    tiers = defaultdict(list)
    domains = defaultdict(list)
    for pair in pairs:
        tiers[pair[0].difficulty].append(pair)
        domains[pair[0].domain].append(pair)
    tier_keys = sorted(tiers, key=lambda difficulty: (difficulty is None, difficulty or 0))
    domain_keys = sorted(domains, key=lambda domain: (domain == "", domain))

    units = [[RATING_RANK[o.value] for o in item.observations] for item in reviewed]
    speakers = _speaker_reliability(reviewed, controls, repeats)
    ac1, raw_agreement, ac1_items = gwet_ac1_binary(
        [[rank >= USABLE_MIN_RANK for rank in unit] for unit in units])
    drops = _speaker_drops(pairs, ratings_per_item, tiers, tier_keys)
    weights = _tier_weights(tier_populations, tier_keys)
    whole, *without = _bootstrap_intervals(reviewed, [drop.speaker_id for drop in drops], seed, weights,
                                           replicates)
    tier_summaries = tuple(_summarise_group(_tier_label(key), key, tiers[key]) for key in tier_keys)
    return CampaignAggregate(
        ratings_per_item=ratings_per_item,
        campaign=_with_interval(_weighted(_summarise_group(CAMPAIGN_LABEL, None, pairs), tier_summaries, weights),
                                whole),
        tiers=tier_summaries,
        domains=tuple(_summarise_group(DOMAIN_LABELS.get(key, key) if key else NO_DOMAIN_LABEL, key, domains[key])
                      for key in domain_keys),
        alpha=krippendorff_alpha_ordinal(units, categories=len(RATING_VALUES)),
        alpha_pairable_ratings=sum(len(unit) for unit in units if len(unit) >= 2),
        items=summaries,
        control_items=len(controls),
        control_rating_count=sum(len(item.observations) for item in controls),
        speakers=speakers,
        flagged_speakers=sum(speaker.flagged for speaker in speakers),
        ac1=ac1,
        raw_agreement=raw_agreement,
        ac1_items=ac1_items,
        distinct_speakers=len({o.speaker_id for item in reviewed for o in item.observations}),
        speaker_drops=tuple(replace(drop, campaign=_with_interval(_weighted(drop.campaign, drop.tiers, weights),
                                                                  bounds))
                            for drop, bounds in zip(drops, without, strict=True)),
    )


def _stratum_code(difficulty: int | None) -> int:
    return -1 if difficulty is None else difficulty


def _tier_weights(populations: Mapping[int | None, int] | None,
                  tier_keys: Sequence[int | None]) -> dict[int | None, float] | None:
    """Each reviewed tier's share of the population, when every reviewed tier's population is known and there
    are two tiers or more (one tier needs no weighting)."""
    if not populations or len(tier_keys) < 2 or any(not populations.get(key) for key in tier_keys):
        return None
    total = sum(populations[key] for key in tier_keys)
    return {key: populations[key] / total for key in tier_keys}


def _weighted(summary: GroupSummary, tiers: Sequence[GroupSummary],
              weights: Mapping[int | None, float] | None) -> GroupSummary:
    """The campaign's summary with its post-stratified share: tier shares weighted by population, over the tiers
    with a rated item (their weights scaled to sum to 1). Its Wilson reference interval is then taken at that
    share on Kish's effective sample size, 1 / Σ (weight² / rated items of the tier)."""
    if weights is None:
        return summary
    rated = [(weights[tier.key], tier.usable_share, tier.rated_items) for tier in tiers
             if tier.usable_share is not None and isinstance(tier.key, int | None)]
    total = sum(weight for weight, _share, _n in rated)
    if not total:
        return summary
    share = min(1.0, sum(weight * tier_share for weight, tier_share, _n in rated) / total)
    effective_n = 1 / sum((weight / total) ** 2 / n for weight, _share, n in rated)
    low, high = weighted_wilson_interval(share, effective_n)
    return replace(summary, weighted_share=share, wilson_low=low, wilson_high=high)


def _bootstrap_intervals(reviewed: Sequence[ItemObservations], leave_out: Sequence[int], seed: int,
                         weights: Mapping[int | None, float] | None = None,
                         replicates: int = REPLICATES) -> list[tuple[float, float] | None]:
    """The usable share's cluster-bootstrap interval, then the same without each speaker of ``leave_out``."""
    ratings = [(item.item_id, o.speaker_id, RATING_RANK[o.value] >= USABLE_MIN_RANK, _stratum_code(item.difficulty))
               for item in reviewed for o in item.observations]
    if not ratings:
        return [None] * (1 + len(leave_out))
    items, speakers, usable, strata = zip(*ratings, strict=True)
    stratum_weights = None if weights is None else {_stratum_code(key): share for key, share in weights.items()}
    return cluster_bootstrap_intervals(items, speakers, usable, strata, seed, leave_out, replicates=replicates,
                                       stratum_weights=stratum_weights)


def _with_interval(summary: GroupSummary, bounds: tuple[float, float] | None) -> GroupSummary:
    return summary if bounds is None else replace(summary, bootstrap_low=bounds[0], bootstrap_high=bounds[1])


def _difficulty_label(difficulty: int) -> str:
    return gettext("Difficulty %(difficulty)s") % {"difficulty": difficulty}


def _control_reason(missed: int, rated: int) -> str:
    return ngettext(
        "rated %(missed)s of %(rated)s hidden control item (the human reference) as reject or gist",
        "rated %(missed)s of %(rated)s hidden control items (the human reference) as reject or gist",
        rated,
    ) % {"missed": missed, "rated": rated}


def _panel_reason(agreements: int, comparisons: int) -> str:
    return ngettext(
        "agreed with the other speakers (within one step of their median) on only %(agreements)s of "
        "%(comparisons)s item",
        "agreed with the other speakers (within one step of their median) on only %(agreements)s of "
        "%(comparisons)s items",
        comparisons,
    ) % {"agreements": agreements, "comparisons": comparisons}


def _leniency_reason(offset: float, comparisons: int) -> str:
    """How far, in steps, a speaker's ratings sit above (more lenient) or below (harsher) the others' median."""
    if offset > 0:
        text = ngettext(
            "rated on average %(steps)s steps above the other speakers of the same item (more lenient), over "
            "%(comparisons)s item",
            "rated on average %(steps)s steps above the other speakers of the same items (more lenient), over "
            "%(comparisons)s items",
            comparisons,
        )
    else:
        text = ngettext(
            "rated on average %(steps)s steps below the other speakers of the same item (harsher), over "
            "%(comparisons)s item",
            "rated on average %(steps)s steps below the other speakers of the same items (harsher), over "
            "%(comparisons)s items",
            comparisons,
        )
    return text % {"steps": f"{abs(offset):.1f}", "comparisons": comparisons}


def _repeat_reason(same: int, pairs: int) -> str:
    return ngettext(
        "gave the same usable / not-usable answer to only %(same)s of %(pairs)s item shown twice",
        "gave the same usable / not-usable answer to only %(same)s of %(pairs)s items shown twice",
        pairs,
    ) % {"same": same, "pairs": pairs}


difficulty_label = lazy(_difficulty_label, str)
repeat_reason = lazy(_repeat_reason, str)
leniency_reason = lazy(_leniency_reason, str)
control_reason = lazy(_control_reason, str)
panel_reason = lazy(_panel_reason, str)


def _tier_label(difficulty: int | None) -> str:
    return NO_DIFFICULTY_LABEL if difficulty is None else difficulty_label(difficulty)


def _median_rank(observations: Iterable[Observation]) -> int | None:
    ranks = [RATING_RANK[o.value] for o in observations]
    return lower_median(ranks) if ranks else None


def _summarise_item(item: ItemObservations, ratings_per_item: int) -> ItemSummary:
    median = _median_rank(item.observations)
    return ItemSummary(
        item_id=item.item_id,
        difficulty=item.difficulty,
        domain=item.domain,
        rating_count=len(item.observations),
        covered=len(item.observations) >= ratings_per_item,
        median_value=None if median is None else RATING_VALUES[median],
        usable=None if median is None else median >= USABLE_MIN_RANK,
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class _Counts:
    """The running counts behind a GroupSummary, so that one speaker's ratings can be taken out cheaply."""

    def __init__(self) -> None:
        self.items = self.covered = self.rated = self.usable = self.rejected = 0
        self.distribution = dict.fromkeys(RATING_VALUES, 0)
        self.flags = dict.fromkeys(FLAGS, 0)

    def copy(self) -> _Counts:
        other = _Counts()
        other.items, other.covered, other.rated, other.usable, other.rejected = (
            self.items, self.covered, self.rated, self.usable, self.rejected)
        other.distribution, other.flags = dict(self.distribution), dict(self.flags)
        return other

    def add_rating(self, observation: Observation, sign: int = 1) -> None:
        self.distribution[observation.value] += sign
        for flag in observation.flags:
            self.flags[flag] += sign

    def summary(self, label: str, key: int | str | None) -> GroupSummary:
        low, high = wilson_interval(self.usable, self.rated)
        return GroupSummary(
            label=label,
            key=key,
            items=self.items,
            covered_items=self.covered,
            coverage=_share(self.covered, self.items),
            rated_items=self.rated,
            rating_count=sum(self.distribution.values()),
            distribution=self.distribution,
            usable_items=self.usable,
            usable_share=_share(self.usable, self.rated),
            wilson_low=low,
            wilson_high=high,
            reject_items=self.rejected,
            reject_share=_share(self.rejected, self.rated),
            flag_counts=self.flags,
        )


def _count(pairs: Iterable[tuple[ItemObservations, ItemSummary]]) -> _Counts:
    counts = _Counts()
    for item, summary in pairs:
        counts.items += 1
        counts.covered += summary.covered
        if summary.median_value is not None:
            counts.rated += 1
            counts.usable += bool(summary.usable)
            counts.rejected += summary.median_value == RATING_VALUES[REJECT_RANK]
        for observation in item.observations:
            counts.add_rating(observation)
    return counts


def _summarise_group(
    label: str, key: int | str | None, pairs: Sequence[tuple[ItemObservations, ItemSummary]]
) -> GroupSummary:
    return _count(pairs).summary(label, key)


def _contribution(ranks: Sequence[int], ratings_per_item: int) -> tuple[int, int, int, int]:
    """What one item adds to a group's counts: (covered, rated, usable, rejected)."""
    if not ranks:
        return 0, 0, 0, 0
    median = lower_median(ranks)
    return len(ranks) >= ratings_per_item, 1, median >= USABLE_MIN_RANK, median == REJECT_RANK


def _speaker_drops(
    pairs: Sequence[tuple[ItemObservations, ItemSummary]], ratings_per_item: int,
    tier_pairs: Mapping[int | None, Sequence[tuple[ItemObservations, ItemSummary]]], tier_keys: Sequence[int | None],
) -> tuple[SpeakerDrop, ...]:
    """For each speaker, the campaign and tier figures and AC1 without their ratings. Starts from the totals
    and redoes only the items that speaker rated, so the cost is one pass over the ratings, not one
    aggregate per speaker."""
    campaign = _count(pairs)
    tiers = {key: _count(tier_pairs[key]) for key in tier_keys}
    ac1_sums = [0.0, 0, 0.0, 0]
    rated_by: defaultdict[int, list[tuple[ItemObservations, list[int], tuple[int, int, int, int]]]] = defaultdict(list)
    for item, summary in pairs:
        ranks = [RATING_RANK[o.value] for o in item.observations]
        for index, term in enumerate(_ac1_terms(sum(rank >= USABLE_MIN_RANK for rank in ranks), len(ranks))):
            ac1_sums[index] += term
        entry = (item, ranks, (int(summary.covered), int(summary.median_value is not None), int(bool(summary.usable)),
                               int(summary.median_value == RATING_VALUES[REJECT_RANK])))
        for speaker_id in {o.speaker_id for o in item.observations}:
            rated_by[speaker_id].append(entry)

    drops = []
    for speaker_id in sorted(rated_by):
        without_campaign = campaign.copy()
        without_tiers: dict[int | None, _Counts] = {}
        sums = list(ac1_sums)
        for item, ranks, before in rated_by[speaker_id]:
            kept = [rank for rank, o in zip(ranks, item.observations, strict=True) if o.speaker_id != speaker_id]
            after = _contribution(kept, ratings_per_item)
            if item.difficulty not in without_tiers:
                without_tiers[item.difficulty] = tiers[item.difficulty].copy()
            for counts in (without_campaign, without_tiers[item.difficulty]):
                counts.covered += after[0] - before[0]
                counts.rated += after[1] - before[1]
                counts.usable += after[2] - before[2]
                counts.rejected += after[3] - before[3]
                for observation in item.observations:
                    if observation.speaker_id == speaker_id:
                        counts.add_rating(observation, -1)
            old_terms = _ac1_terms(sum(rank >= USABLE_MIN_RANK for rank in ranks), len(ranks))
            new_terms = _ac1_terms(sum(rank >= USABLE_MIN_RANK for rank in kept), len(kept))
            for index in range(4):
                sums[index] += new_terms[index] - old_terms[index]
        ac1, raw_agreement, _paired = _ac1_from_sums(*sums)
        drops.append(SpeakerDrop(
            speaker_id=speaker_id,
            campaign=without_campaign.summary(CAMPAIGN_LABEL, None),
            tiers=tuple((without_tiers.get(key) or tiers[key]).summary(_tier_label(key), key) for key in tier_keys),
            ac1=ac1,
            raw_agreement=raw_agreement,
        ))
    return tuple(drops)


def _speaker_reliability(
    reviewed: Sequence[ItemObservations], controls: Sequence[ItemObservations],
    repeats: Sequence[tuple[int, str, str]] = (),
) -> tuple[SpeakerReliability, ...]:
    ratings: Counter[int] = Counter()
    control_rated: Counter[int] = Counter()
    control_usable: Counter[int] = Counter()
    comparisons: Counter[int] = Counter()
    agreements: Counter[int] = Counter()
    reviewed_ratings: Counter[int] = Counter()
    usable_ratings: Counter[int] = Counter()
    offsets: Counter[float] = Counter()
    pairs: Counter[int] = Counter()
    same: Counter[int] = Counter()
    step_changes: Counter[int] = Counter()
    for speaker_id, first, second in repeats:
        pairs[speaker_id] += 1
        same[speaker_id] += (RATING_RANK[first] >= USABLE_MIN_RANK) == (RATING_RANK[second] >= USABLE_MIN_RANK)
        step_changes[speaker_id] += abs(RATING_RANK[first] - RATING_RANK[second])

    for item in controls:
        for observation in item.observations:
            ratings[observation.speaker_id] += 1
            control_rated[observation.speaker_id] += 1
            control_usable[observation.speaker_id] += RATING_RANK[observation.value] >= USABLE_MIN_RANK

    for item in reviewed:
        for observation in item.observations:
            rank = RATING_RANK[observation.value]
            ratings[observation.speaker_id] += 1
            reviewed_ratings[observation.speaker_id] += 1
            usable_ratings[observation.speaker_id] += rank >= USABLE_MIN_RANK
            other_ranks = [RATING_RANK[o.value] for o in item.observations if o.speaker_id != observation.speaker_id]
            if not other_ranks:
                continue
            comparisons[observation.speaker_id] += 1
            agreements[observation.speaker_id] += abs(rank - lower_median(other_ranks)) <= PANEL_TOLERANCE_STEPS
            # The offset uses the plain median (the mean of the two middle ratings when they are even in number):
            # the lower one would make every speaker look half a step lenient when two others rated the item.
            offsets[observation.speaker_id] += rank - statistics.median(other_ranks)

    result = []
    for speaker_id in sorted(ratings):
        reasons = []
        accuracy = _share(control_usable[speaker_id], control_rated[speaker_id])
        if control_rated[speaker_id] >= CONTROL_MIN_RATED and accuracy < CONTROL_MIN_ACCURACY:
            missed = control_rated[speaker_id] - control_usable[speaker_id]
            reasons.append(control_reason(missed, control_rated[speaker_id]))
        agreement = _share(agreements[speaker_id], comparisons[speaker_id])
        if comparisons[speaker_id] >= PANEL_MIN_COMPARISONS and agreement < PANEL_MIN_AGREEMENT:
            reasons.append(panel_reason(agreements[speaker_id], comparisons[speaker_id]))
        offset = offsets[speaker_id] / comparisons[speaker_id] if comparisons[speaker_id] else None
        if (offset is not None and comparisons[speaker_id] >= LENIENCY_MIN_COMPARISONS
                and abs(offset) >= LENIENCY_FLAG_STEPS):
            reasons.append(leniency_reason(offset, comparisons[speaker_id]))
        if pairs[speaker_id] >= REPEAT_MIN_PAIRS and same[speaker_id] / pairs[speaker_id] < REPEAT_MIN_CONSISTENCY:
            reasons.append(repeat_reason(same[speaker_id], pairs[speaker_id]))
        result.append(
            SpeakerReliability(
                speaker_id=speaker_id,
                rating_count=ratings[speaker_id],
                control_rated=control_rated[speaker_id],
                control_usable=control_usable[speaker_id],
                control_accuracy=accuracy,
                panel_comparisons=comparisons[speaker_id],
                panel_agreements=agreements[speaker_id],
                panel_agreement=agreement,
                flagged=bool(reasons),
                reasons=tuple(reasons),
                usable_rate=_share(usable_ratings[speaker_id], reviewed_ratings[speaker_id]),
                mean_offset=offset,
                repeat_pairs=pairs[speaker_id],
                repeat_same=same[speaker_id],
                repeat_step_change=step_changes[speaker_id] / pairs[speaker_id] if pairs[speaker_id] else None,
            )
        )
    return tuple(result)
