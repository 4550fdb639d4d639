"""Aggregate the ratings of a review campaign into the numbers governance staff decide from.

Plain dataclasses: the views read the database and build ``ItemObservations``; this module never queries.
Every number is defined here once (see docs/validation-gate.md):

- An item's rating is the *lower median* of its ratings (conservative for an even count).
- An item is *usable* when that median is ``acceptable`` or ``excellent``; shares are over *rated*
  items (at least one rating), and their 95% Wilson interval goes with them for reference. The whole
  campaign, each difficulty tier and each group of tiers the tier floor judges also get the speaker-aware
  interval of review/evidence.py (items and speakers as the two sources of uncertainty); the gate reads that one.
- The figures the gate reads come from ``aggregate_arrays`` (vectorised, on the ratings as arrays), which the
  planning simulation and the calibration suite call too; ``aggregate`` adds what only the pages show.
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

import numpy as np
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy, ngettext

from corpus.labels import DOMAIN_LABELS
from review.evidence import REJECT_RANK, USABLE_MIN_RANK, Decisions, RatingArrays, ShareEvidence
from review.statistics import krippendorff_alpha_ordinal, lower_median, weighted_wilson_interval, wilson_interval

RATING_VALUES = ("reject", "gist", "acceptable", "excellent")
"""Ordinal scale: the position of a value is its rank 0..3."""
USABLE_VALUES = ("acceptable", "excellent")
FLAGS = ("semantically_wrong", "culturally_inappropriate", "hallucination", "acceptable_variant")

RATING_RANK = {value: rank for rank, value in enumerate(RATING_VALUES)}
FLAG_BITS = {flag: 1 << index for index, flag in enumerate(FLAGS)}

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
    """Figures for a set of non-control items: the whole campaign, one difficulty tier, a group of tiers the tier
    floor judges together, or one domain.

    ``key`` is the difficulty (int or None) for a tier, the tuple of its tiers' difficulties for a group of tiers,
    the domain string for a domain, None for the whole campaign. Tiers come in order 1..5 then "No difficulty";
    domains alphabetically, then "No domain". Shares are None when their denominator is 0; with no rated item the
    Wilson interval is (0.0, 1.0) — nothing is known. ``speaker_low`` / ``speaker_high`` are the speaker-aware
    interval (whole campaign, tiers and groups of tiers; None for domains, which the gate does not read);
    ``interval_low`` / ``interval_high`` are what the pages and the gate show.
    """

    label: str
    key: int | str | tuple[int | None, ...] | None
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
    speaker_low: float | None = None
    speaker_high: float | None = None
    weighted_share: float | None = None

    @property
    def estimate(self) -> float | None:
        """What the gate judges: the post-stratified share (whole campaign and groups of tiers, when the tiers'
        populations are known and two or more tiers have rated items), otherwise the share of rated items."""
        return self.usable_share if self.weighted_share is None else self.weighted_share

    @property
    def interval_low(self) -> float:
        """The speaker-aware lower bound; Wilson's (items only) for a domain, which only the page shows."""
        return self.wilson_low if self.speaker_low is None else self.speaker_low

    @property
    def interval_high(self) -> float:
        """The speaker-aware upper bound; Wilson's for a domain (see ``interval_low``)."""
        return self.wilson_high if self.speaker_high is None else self.speaker_high


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
    item has two ratings yet" (0) from "all ratings are the same value" when alpha is None. ``floor_groups`` are
    the difficulty tiers as the tier floor judges them: a tier with fewer than ``FLOOR_GROUP_MIN_ITEMS`` rated
    items joins its neighbour.
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
    floor_groups: tuple[GroupSummary, ...] = ()


@dataclass(frozen=True)
class SpeakerDrop:
    """The figures the gate reads with one speaker's ratings replaced by a typical speaker's (leave-one-speaker-out,
    like with like: the same items, the same rule, the item's other ratings deciding). ``stands_out`` when their
    influence on the share lies outside what the rest of the panel's spread predicts; such a speaker whose
    replacement changes the recommendation decides it. ``floor_groups`` are the campaign's groups of tiers, in
    order; ``ac1`` is computed without the speaker's ratings."""

    speaker_id: int
    stands_out: bool
    campaign: GroupSummary
    floor_groups: tuple[GroupSummary, ...]
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


FLOOR_GROUP_MIN_ITEMS = 40
"""The tier floor judges a difficulty tier on at least this many rated items: a smaller tier is judged together with
its neighbour (docs/validation-gate.md, "Tier floor"). On 40 items a tier whose true share is 0.85 demonstrates the
default floor of 0.50 in all but about one campaign in a thousand; on 30, five such tiers left at least one
undemonstrated in about one campaign in five, and a tier of a handful of outputs could never be judged at all."""


def aggregate(items: Sequence[ItemObservations], ratings_per_item: int,
              tier_populations: Mapping[int | None, int] | None = None,
              repeats: Sequence[tuple[int, str, str]] = ()) -> CampaignAggregate:
    """Summarise a campaign's ratings: per item, per group, agreement and speaker reliability.

    ``tier_populations`` (how many of the card's outputs each difficulty tier has) makes the campaign's estimate
    post-stratified: the sample gives small tiers a floor, so they are over-represented; weighting each tier's
    usable share by its share of the population estimates the share of all the card's outputs. ``repeats``:
    (speaker, first rating, second rating) of items a speaker was shown twice — only their consistency; never in
    the figures. The figures the gate reads are ``aggregate_arrays``'s on the same ratings."""
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
    domains = defaultdict(list)
    for pair in zip(reviewed, summaries, strict=True):
        domains[pair[0].domain].append(pair)
    domain_keys = sorted(domains, key=lambda domain: (domain == "", domain))
    tier_keys = sorted({item.difficulty for item in reviewed}, key=lambda difficulty: (difficulty is None,
                                                                                         difficulty or 0))
    stratum = {key: index for index, key in enumerate(tier_keys)}
    ratings = [(index, o.speaker_id, RATING_RANK[o.value], sum(FLAG_BITS[flag] for flag in o.flags))
               for index, item in enumerate(reviewed) for o in item.observations]
    columns = list(zip(*ratings, strict=True)) if ratings else [(), (), (), ()]
    arrays = RatingArrays(
        item_stratum=np.array([stratum[item.difficulty] for item in reviewed], dtype=np.intp),
        item=np.array(columns[0], dtype=np.intp), speaker=np.array(columns[1], dtype=np.int64),
        rank=np.array(columns[2], dtype=np.intp))
    figures = aggregate_arrays(arrays, ratings_per_item, tier_keys, tier_populations,
                               flags=np.array(columns[3], dtype=np.int64))
    units = [[RATING_RANK[o.value] for o in item.observations] for item in reviewed]
    speakers = _speaker_reliability(reviewed, controls, repeats)
    return replace(
        figures,
        domains=tuple(_summarise_group(DOMAIN_LABELS.get(key, key) if key else NO_DOMAIN_LABEL, key, domains[key])
                      for key in domain_keys),
        alpha=krippendorff_alpha_ordinal(units, categories=len(RATING_VALUES)),
        alpha_pairable_ratings=sum(len(unit) for unit in units if len(unit) >= 2),
        items=summaries,
        control_items=len(controls),
        control_rating_count=sum(len(item.observations) for item in controls),
        speakers=speakers,
        flagged_speakers=sum(speaker.flagged for speaker in speakers),
    )


def aggregate_arrays(arrays: RatingArrays, ratings_per_item: int, tier_keys: Sequence[int | None],
                     tier_populations: Mapping[int | None, int] | None = None,
                     flags: np.ndarray | None = None) -> CampaignAggregate:
    """The figures the gate reads, from the reviewed items' ratings as arrays (``tier_keys``: the difficulty of
    each stratum index of ``arrays.item_stratum``; ``flags``: each rating's flags as bits of ``FLAG_BITS``): the
    whole campaign, its tiers and the groups of tiers the tier floor judges, each with its speaker-aware interval;
    agreement; and the same figures with each speaker replaced by a typical one. What only the pages show (domains,
    alpha, items, speakers' reliability) is left empty: ``aggregate`` adds it. The planning simulation and the
    calibration suite call this directly, so they judge exactly what the site judges."""
    if ratings_per_item < 1:
        raise ValueError("ratings_per_item must be at least 1")
    weights = _tier_weights(tier_populations, tier_keys)
    decisions = Decisions(arrays, weights)
    rank = np.asarray(arrays.rank, dtype=np.intp)
    flags = np.zeros(len(rank), dtype=np.int64) if flags is None else flags
    counts = _Tally(decisions, rank, flags, ratings_per_item)
    everything = np.ones(len(tier_keys), dtype=bool)
    whole = decisions.evidence(everything)
    campaign = counts.summary(CAMPAIGN_LABEL, None, everything, whole, weighted=weights is not None)
    tiers = []
    for index, key in enumerate(tier_keys):
        mask = np.arange(len(tier_keys)) == index
        tiers.append(counts.summary(_tier_label(key), key, mask, decisions.evidence(mask, drops=False),
                                    weighted=False))
    groups = []
    for members in floor_groups([tier.rated_items for tier in tiers]):
        mask = np.isin(np.arange(len(tier_keys)), members)
        keys = tuple(tier_keys[index] for index in members)
        evidence = decisions.evidence(mask)
        groups.append((counts.summary(_floor_label(keys), keys, mask, evidence,
                                      weighted=weights is not None and len(members) > 1), evidence))
    agreement = _Agreement(decisions, rank)
    standing_out = decisions.standing_out()
    drops = tuple(
        SpeakerDrop(
            speaker_id=int(speaker_id),
            stands_out=bool(standing_out[index]),
            campaign=_dropped(campaign, whole, index),
            floor_groups=tuple(_dropped(group, evidence, index) for group, evidence in groups),
            ac1=agreement.without[index][0],
            raw_agreement=agreement.without[index][1],
        )
        for index, speaker_id in enumerate(decisions.speakers))
    return CampaignAggregate(
        ratings_per_item=ratings_per_item,
        campaign=campaign,
        tiers=tuple(tiers),
        domains=(),
        alpha=None,
        alpha_pairable_ratings=0,
        items=(),
        control_items=0,
        control_rating_count=0,
        speakers=(),
        flagged_speakers=0,
        ac1=agreement.whole[0],
        raw_agreement=agreement.whole[1],
        ac1_items=agreement.whole[2],
        distinct_speakers=len(decisions.speakers),
        speaker_drops=drops,
        floor_groups=tuple(group for group, _evidence in groups),
    )


def floor_groups(rated: Sequence[int]) -> list[list[int]]:
    """The tiers (indices, in tier order) the tier floor judges together: each tier with a rated item on its own;
    then, while some group has fewer than ``FLOOR_GROUP_MIN_ITEMS`` rated items and there are others, the smallest
    such group joins its smaller neighbour (the following one on a tie)."""
    groups = [[index] for index, count in enumerate(rated) if count > 0]
    sizes = [rated[group[0]] for group in groups]
    while len(groups) > 1:
        small = [index for index, size in enumerate(sizes) if size < FLOOR_GROUP_MIN_ITEMS]
        if not small:
            break
        chosen = min(small, key=lambda index: (sizes[index], index))
        neighbour = min((index for index in (chosen - 1, chosen + 1) if 0 <= index < len(groups)),
                        key=lambda index: (sizes[index], -index))
        first, last = sorted((chosen, neighbour))
        groups[first:last + 1] = [groups[first] + groups[last]]
        sizes[first:last + 1] = [sizes[first] + sizes[last]]
    return groups


class _Tally:
    """Counts of a group of tiers, from the per-item decisions: what a GroupSummary shows."""

    def __init__(self, decisions: Decisions, rank: np.ndarray, flags: np.ndarray, ratings_per_item: int) -> None:
        self.decisions, self.rank, self.flags, self.ratings_per_item = decisions, rank, flags, ratings_per_item

    def summary(self, label: str, key: int | tuple[int | None, ...] | None, strata: np.ndarray,
                evidence: ShareEvidence | None, weighted: bool) -> GroupSummary:
        decisions = self.decisions
        in_group = strata[decisions.stratum] if len(decisions.stratum) else np.zeros(0, dtype=bool)
        rated = int((in_group & decisions.rated).sum())
        usable = int((in_group & decisions.usable).sum())
        rejected = int((in_group & decisions.reject).sum())
        items = int(in_group.sum())
        covered = int((in_group & (decisions.count >= self.ratings_per_item)).sum())
        in_ratings = in_group[decisions.item] if len(decisions.item) else np.zeros(0, dtype=bool)
        distribution = np.bincount(self.rank[in_ratings], minlength=len(RATING_VALUES))
        flags = self.flags[in_ratings]
        low, high = wilson_interval(usable, rated)
        summary = GroupSummary(
            label=label, key=key, items=items, covered_items=covered, coverage=_share(covered, items),
            rated_items=rated, rating_count=int(in_ratings.sum()),
            distribution={value: int(distribution[rank]) for rank, value in enumerate(RATING_VALUES)},
            usable_items=usable, usable_share=_share(usable, rated), wilson_low=low, wilson_high=high,
            reject_items=rejected, reject_share=_share(rejected, rated),
            flag_counts={flag: int(((flags & bit) != 0).sum()) for flag, bit in FLAG_BITS.items()},
        )
        if evidence is None:
            return summary
        summary = replace(summary, speaker_low=evidence.low, speaker_high=evidence.high)
        if not weighted:
            return summary
        low, high = weighted_wilson_interval(evidence.share, evidence.effective_items)
        return replace(summary, weighted_share=evidence.share, wilson_low=low, wilson_high=high)


def _dropped(summary: GroupSummary, evidence: ShareEvidence | None, index: int) -> GroupSummary:
    """``summary`` with the speaker at ``index`` replaced by a typical speaker: the estimate, the reject share and
    the speaker-aware interval move; the counts stay (every item keeps its ratings)."""
    if evidence is None:
        return summary
    share = float(evidence.drop_share[index])
    return replace(summary, usable_share=summary.usable_share if summary.weighted_share is not None else share,
                   weighted_share=None if summary.weighted_share is None else share,
                   reject_share=float(evidence.drop_reject_share[index]),
                   speaker_low=float(evidence.drop_low[index]), speaker_high=float(evidence.drop_high[index]))


class _Agreement:
    """Gwet's AC1 from the per-item vote counts, with all ratings (``whole``) and without each speaker's
    (``without``, in the order of ``Decisions.speakers``)."""

    def __init__(self, decisions: Decisions, rank: np.ndarray) -> None:
        usable = (rank >= USABLE_MIN_RANK).astype(float)
        count = decisions.count.astype(float)
        votes = np.bincount(decisions.item, weights=usable, minlength=len(count))
        terms = _ac1_term_arrays(votes, count)
        sums = [float(term.sum()) for term in terms]
        self.whole = _ac1_from_sums(*sums)
        before = _ac1_term_arrays(votes[decisions.item], count[decisions.item])
        after = _ac1_term_arrays(votes[decisions.item] - usable, count[decisions.item] - 1)
        n_speakers = len(decisions.speakers)
        changes = [np.bincount(decisions.speaker, weights=new - old, minlength=n_speakers)
                   for new, old in zip(after, before, strict=True)]
        self.without = [_ac1_from_sums(*(total + float(change[index])
                                         for total, change in zip(sums, changes, strict=True)))
                        for index in range(n_speakers)]


def _ac1_term_arrays(votes: np.ndarray, count: np.ndarray) -> list[np.ndarray]:
    """``_ac1_terms`` for arrays of units: (pa term, paired, pi term, rated)."""
    safe = np.maximum(count, 1)
    paired = count >= 2
    other = count - votes
    pa = np.where(paired, (votes * (votes - 1) + other * (other - 1)) / np.maximum(safe * (safe - 1), 1), 0.0)
    rated = count >= 1
    return [pa, paired.astype(float), np.where(rated, votes / safe, 0.0), rated.astype(float)]


def _tier_weights(populations: Mapping[int | None, int] | None,
                  tier_keys: Sequence[int | None]) -> np.ndarray | None:
    """Each reviewed tier's share of the population (in ``tier_keys`` order), when every reviewed tier's
    population is known and there are two tiers or more (one tier needs no weighting)."""
    if not populations or len(tier_keys) < 2 or any(not populations.get(key) for key in tier_keys):
        return None
    total = sum(populations[key] for key in tier_keys)
    return np.array([populations[key] / total for key in tier_keys])


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


def _merged_label(first: int, last: int, without_difficulty: bool) -> str:
    if without_difficulty and first == last:
        return gettext("Difficulty %(first)s and no difficulty") % {"first": first}
    if without_difficulty:
        return gettext("Difficulties %(first)s to %(last)s and no difficulty") % {"first": first, "last": last}
    return gettext("Difficulties %(first)s to %(last)s") % {"first": first, "last": last}


merged_label = lazy(_merged_label, str)


def _floor_label(keys: tuple[int | None, ...]) -> str:
    """A group of tiers by its difficulties: "Difficulty 4", "Difficulties 4 to 5", "Difficulty 5 and no
    difficulty"."""
    numbered = [key for key in keys if key is not None]
    if len(keys) == 1 or not numbered:
        return _tier_label(keys[0])
    return merged_label(numbered[0], numbered[-1], None in keys)


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
    """The counts behind a domain's GroupSummary."""

    def __init__(self) -> None:
        self.items = self.covered = self.rated = self.usable = self.rejected = 0
        self.distribution = dict.fromkeys(RATING_VALUES, 0)
        self.flags = dict.fromkeys(FLAGS, 0)

    def add_rating(self, observation: Observation) -> None:
        self.distribution[observation.value] += 1
        for flag in observation.flags:
            self.flags[flag] += 1

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
