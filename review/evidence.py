"""The usable share the gate judges and its speaker-aware 95% interval, from a campaign's ratings held as arrays.

One vectorised core (NumPy) that the campaign's figures (review/aggregation.py), the planning simulation and the
calibration suite (review/simulation.py) all call, so that the three compute the same numbers
(docs/validation-gate.md, "95% interval").

*The decision.* An item with c ratings is usable when its lower median is acceptable or better, that is when at
least c - (c - 1) // 2 of its ratings are usable (both of 2, 2 of 3, 3 of 4, 3 of 5); it is a reject when at least
(c - 1) // 2 + 1 are reject. The share is post-stratified: each difficulty tier's share weighted by its share of the
card's outputs when those are known, by its share of the rated items otherwise.

*Where the uncertainty comes from.* Two samples: the items (drawn within tiers) and the speakers (a few people whose
leniency differs). The interval's variance is the sum of the two parts:

- items: the stratified variance of the items' decisions (each tier's sample variance, weighted);
- speakers: each speaker's *influence* is how much the share would move if their ratings were replaced, item by
  item, by those of a typical speaker of the panel, the item's other ratings deciding by the same rule. A rating
  moves its item's decision only where it is pivotal (the other ratings sit exactly one short of the rule either
  way); there the replacement is usable with the probability the item's other ratings give (the panel's share of
  usable ratings for an item rated once). Influences are centred on the panel (a speaker of average leniency has
  none), and their spread over the S speakers, S / (S - 1) · (Σ influence² − its item-sampling part), is the
  speakers' variance: the item-sampling part (the rating noise any panel would show) is measured by resampling
  the items within tiers, so that it is not counted twice.

The interval is share ± t · sqrt(items' variance + speakers' variance), t being Student's with Satterthwaite's
degrees of freedom: the speakers' part (net of its item-sampling part) is estimated from S speakers and has S − 1,
so where it is most of the variance a panel of three gets t ≈ 4, not 1.96. It is never narrower than Wilson's
score interval of the items alone on the design's effective sample size (n_eff = share(1 − share) / the items'
variance, at most the rated items; Kish's for a share of 0 or 1): when every rating agrees both variances vanish,
and 30 of 30 usable must not read as certainty.

*One speaker replaced.* The share is linear in each speaker's votes on the items where they are pivotal, so the
share with a speaker's ratings replaced by a typical speaker's (one of the others, on average) is the share less
their influence measured against the others; the interval is recomputed with the others' spread. The
leave-one-speaker-out check reads these (the same items, the same rule), and asks whether the speaker stands out
from the others at all (``Decisions.standing_out``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from review.statistics import student_t_quantile

USABLE_MIN_RANK = 2
"""Ranks of the four-step scale: reject 0, gist 1, acceptable 2, excellent 3; usable from acceptable."""
REJECT_RANK = 0
CONFIDENCE = 0.95
ROUNDING = 1e-15
"""Variances below this are rounding errors of a variance that is zero."""


@dataclass(frozen=True)
class RatingArrays:
    """A campaign's reviewed items and their current ratings: ``item_stratum`` has one entry per reviewed item
    (rated or not, its tier's index); ``item``, ``speaker`` and ``rank`` one per rating (at most one per speaker and
    item)."""

    item_stratum: np.ndarray
    item: np.ndarray
    speaker: np.ndarray
    rank: np.ndarray


@dataclass(frozen=True)
class ShareEvidence:
    """A group's post-stratified usable share with its interval, its reject share (of the rated items, unweighted,
    as the pages show it) and Kish's effective number of items; ``drop_*`` the same with each speaker of
    ``Decisions.speakers`` replaced by a typical speaker."""

    share: float
    reject_share: float
    low: float
    high: float
    effective_items: float
    drop_share: np.ndarray
    drop_reject_share: np.ndarray
    drop_low: np.ndarray
    drop_high: np.ndarray


@lru_cache(maxsize=4096)
def _t_at(df: float) -> float:
    return student_t_quantile(1 - (1 - CONFIDENCE) / 2, df)


def t_multiplier(df: float) -> float:
    """Student's 97.5% quantile at ``df`` rounded down to two significant digits (never a narrower interval), so
    that the quantiles a process needs are computed once each."""
    df = max(1.0, min(df, 1e5))
    unit = 10.0 ** (math.floor(math.log10(df)) - 1)
    return _t_at(math.floor(df / unit) * unit)


class Decisions:
    """The per-item decisions of a campaign and each rating's influence on them, with the speakers' spread measured
    once on the whole campaign (its tiers weighted by ``weights``, their shares of the card's outputs, or by their
    rated items); ``evidence`` then gives any group of tiers its share and interval."""

    def __init__(self, arrays: RatingArrays, weights: np.ndarray | None = None) -> None:
        self.stratum = np.asarray(arrays.item_stratum, dtype=np.intp)
        n_items = len(self.stratum)
        self.item = np.asarray(arrays.item, dtype=np.intp)
        rank = np.asarray(arrays.rank, dtype=np.intp)
        self.speakers, self.speaker = np.unique(np.asarray(arrays.speaker, dtype=np.int64), return_inverse=True)
        self.speaker = self.speaker.astype(np.intp)
        count = np.bincount(self.item, minlength=n_items)
        self.count = count
        usable_vote = rank >= USABLE_MIN_RANK
        reject_vote = rank == REJECT_RANK
        usable_votes = np.bincount(self.item, weights=usable_vote, minlength=n_items)
        reject_votes = np.bincount(self.item, weights=reject_vote, minlength=n_items)
        need_usable = count - (count - 1) // 2
        need_reject = (count - 1) // 2 + 1
        self.rated = count > 0
        self.usable = self.rated & (usable_votes >= need_usable)
        self.reject = self.rated & (reject_votes >= need_reject)
        self.usable_influence = _influence(usable_vote, usable_votes, need_usable, count, self.item, self.speaker)
        self.reject_influence = _influence(reject_vote, reject_votes, need_reject, count, self.item, self.speaker)
        self.weights = weights
        everything = np.ones(int(self.stratum.max()) + 1 if n_items else 0, dtype=bool)
        self.panel = self._group(everything, traces=True)

    def evidence(self, strata: np.ndarray, drops: bool = True) -> ShareEvidence | None:
        """The share of the items of ``strata`` (a boolean mask over strata) and its interval (with ``drops``, also
        for each speaker replaced by a typical one). None when no item of the group is rated. The speakers' part of
        a group's variance is the whole campaign's (the same speakers, the same leniency), scaled by the ratio of the
        binomial variances share(1 − share) of the group and of the campaign: a share near 0 or 1 moves less with
        the speakers. Estimated on a tier's few items alone, it would rest on a handful of pivotal ratings per
        speaker."""
        group = self._group(strata)
        if group is None or self.panel is None:
            return None
        whole = self.panel.share * (1 - self.panel.share)
        scale = group.share * (1 - group.share) / whole if whole > 0 else 0.0
        panel = self.panel.spread
        low, high = _interval(np.asarray(group.share), group.items_variance, group.items_df_terms,
                              np.asarray(scale * panel.squares), np.asarray(scale * panel.trace), panel.panel,
                              group.kish, group.n_rated)
        drop_share = np.clip(group.share - group.spread.against_others, 0.0, 1.0)
        chosen = slice(None) if drops else slice(0, 0)
        drop_low, drop_high = _interval(drop_share[chosen], group.items_variance, group.items_df_terms,
                                        scale * np.maximum(panel.others_squares[chosen], 0.0),
                                        scale * (panel.trace - panel.column_trace[chosen]), panel.panel, group.kish,
                                        group.n_rated)
        return ShareEvidence(
            share=group.share, reject_share=group.reject_share, low=float(low), high=float(high),
            effective_items=group.kish, drop_share=drop_share,
            drop_reject_share=np.clip(group.reject_share - group.reject_shift, 0.0, 1.0),
            drop_low=drop_low, drop_high=drop_high,
        )

    def standing_out(self) -> np.ndarray:
        """For each speaker, whether their influence on the campaign's share stands out from the rest of the panel:
        measured against the others' average, outside the 95% prediction interval the others' spread gives
        (Student's t with S − 2 degrees of freedom, Bonferroni over the S speakers). Always False with fewer than
        four speakers."""
        n = len(self.speakers)
        if self.panel is None or n < 4:
            return np.zeros(n, dtype=bool)
        spread = self.panel.spread
        others = np.maximum(spread.others_count, 2)
        scale = np.sqrt(np.maximum(spread.others_squares, 0.0) / (others - 1) * (1 + 1 / others))
        limit = student_t_quantile(1 - (1 - CONFIDENCE) / 2 / n, n - 2)
        return np.abs(spread.against_others) > limit * scale

    def _group(self, strata: np.ndarray, traces: bool = False) -> _Group | None:
        member = self.rated & strata[self.stratum]
        n_strata = len(strata)
        rated = np.bincount(self.stratum[member], minlength=n_strata).astype(float)
        present = rated > 0
        if not present.any():
            return None
        base = rated if self.weights is None else np.where(present, self.weights, 0.0)
        stratum_weight = base / base.sum()
        item_weight = np.zeros(len(self.stratum))
        item_weight[member] = stratum_weight[self.stratum[member]] / rated[self.stratum[member]]
        share = float(min(1.0, (item_weight * self.usable).sum()))
        n_rated = float(rated.sum())
        plain_weight = member / n_rated
        items_variance, items_df_terms = _items_variance(item_weight * self.usable, self.stratum, member, rated,
                                                         stratum_weight, share)
        rating_weight = item_weight[self.item]
        plain_rating_weight = plain_weight[self.item]
        return _Group(
            share=share, n_rated=n_rated, items_variance=items_variance, items_df_terms=items_df_terms,
            kish=1.0 / float((stratum_weight[present] ** 2 / rated[present]).sum()),
            reject_share=float(min(1.0, (plain_weight * self.reject).sum())),
            spread=_Spread(self.usable_influence * rating_weight, rating_weight, self, member, rated, n_strata,
                           traces=traces),
            reject_shift=_Spread(self.reject_influence * plain_rating_weight, plain_rating_weight, self, member,
                                 rated, n_strata, traces=False).against_others,
        )


@dataclass(frozen=True)
class _Group:
    share: float
    n_rated: float
    items_variance: float
    items_df_terms: list[tuple[float, float]]
    kish: float
    reject_share: float
    spread: _Spread
    reject_shift: np.ndarray


def _influence(vote: np.ndarray, votes: np.ndarray, need: np.ndarray, count: np.ndarray, item: np.ndarray,
               speaker: np.ndarray) -> np.ndarray:
    """Each rating's effect on its item's decision against a typical speaker's: where the rating is pivotal (the
    item's other ratings one vote short of the rule), its vote minus the share of the other ratings that vote so
    (for an item rated once, the share of the other speakers' ratings that do); zero elsewhere."""
    others = votes[item] - vote
    rated_with = count[item]
    by_speaker = np.bincount(speaker, weights=vote)
    ratings_by = np.bincount(speaker)
    rest = len(vote) - ratings_by[speaker]
    panel_share = np.where(rest > 0, (vote.sum() - by_speaker[speaker]) / np.maximum(rest, 1), 0.0)
    typical = np.where(rated_with > 1, others / np.maximum(rated_with - 1, 1), panel_share)
    pivotal = others == need[item] - 1
    return np.where(pivotal, vote - typical, 0.0)


def _items_variance(values: np.ndarray, stratum: np.ndarray, member: np.ndarray, rated: np.ndarray,
                    stratum_weight: np.ndarray, share: float) -> tuple[float, list[tuple[float, float]]]:
    """The stratified variance of the weighted decisions (items resampled within their tier) and its terms with
    their degrees of freedom, for Satterthwaite. A tier with one rated item has no variance of its own: it is given
    the binomial variance of the group's share."""
    n_strata = len(rated)
    total = np.bincount(stratum[member], weights=values[member], minlength=n_strata)
    squares = np.bincount(stratum[member], weights=values[member] ** 2, minlength=n_strata)
    terms = []
    for index in np.flatnonzero(rated > 0):
        n = rated[index]
        if n >= 2:
            term = float(n / (n - 1) * (squares[index] - total[index] ** 2 / n))
            # A tier whose items all agree has no variance; rounding leaves about 1e-21, which must not count.
            terms.append((term if term > ROUNDING else 0.0, float(n - 1)))
        else:
            terms.append((float(stratum_weight[index] ** 2 * share * (1 - share)), 1.0))
    return sum(term for term, _df in terms), terms


class _Spread:
    """The speakers' centred influences on a group's share, and the part of their spread that resampling the items
    within tiers alone would produce (per speaker and in all)."""

    def __init__(self, effect: np.ndarray, load: np.ndarray, decisions: Decisions, member: np.ndarray,
                 rated: np.ndarray, n_strata: int, traces: bool) -> None:
        n_speakers = len(decisions.speakers)
        in_group = member[decisions.item]
        speaker, item = decisions.speaker[in_group], decisions.item[in_group]
        effect, load = effect[in_group], load[in_group]
        influence = np.bincount(speaker, weights=effect, minlength=n_speakers)
        loads = np.bincount(speaker, weights=load, minlength=n_speakers)
        total_load = loads.sum()
        self.centred = influence - loads * (influence.sum() / total_load) if total_load > 0 else influence
        self.squares = float((self.centred ** 2).sum())
        # Each speaker against the others alone (a typical speaker is one of the others): their influence centred on
        # the others' per-load average, and the others' squared influences centred the same way.
        others_load = total_load - loads
        others_rate = np.divide(influence.sum() - influence, others_load, out=np.zeros(n_speakers),
                                where=others_load > 0)
        self.against_others = influence - loads * others_rate
        self.others_squares = ((influence ** 2).sum() - 2 * others_rate * (influence * loads).sum()
                               + others_rate ** 2 * (loads ** 2).sum() - self.against_others ** 2)
        self.others_count = (loads > 0).sum() - (loads > 0)
        self.panel = int((loads > 0).sum())
        self.column_trace = np.zeros(n_speakers)
        self.trace = 0.0
        if not traces or total_load <= 0:
            return
        # Item i's contribution to the centred influences is C_i = a_i - loads · b_i, with a_i its ratings' effects
        # by speaker and b_i = Σ a_i / Σ loads. The item-sampling variance of Σ C_i, tier by tier, is
        # Σ_h n_h / (n_h - 1) · Σ_{i in h} (C_i - mean_h C)², expanded below so that no items × speakers matrix is
        # built.
        n_items = len(decisions.stratum)
        b = np.bincount(item, weights=effect, minlength=n_items) / total_load
        stratum = decisions.stratum
        rating_stratum = stratum[item]
        cell = rating_stratum * n_speakers + speaker
        size = n_strata * n_speakers
        sum_a2 = np.bincount(cell, weights=effect ** 2, minlength=size).reshape(n_strata, n_speakers)
        sum_ab = np.bincount(cell, weights=effect * b[item], minlength=size).reshape(n_strata, n_speakers)
        sum_a = np.bincount(cell, weights=effect, minlength=size).reshape(n_strata, n_speakers)
        sum_b = np.bincount(stratum[member], weights=b[member], minlength=n_strata)
        sum_b2 = np.bincount(stratum[member], weights=b[member] ** 2, minlength=n_strata)
        factor = np.where(rated >= 2, rated / np.maximum(rated - 1, 1), 0.0)
        safe = np.maximum(rated, 1)
        within = (sum_a2 - 2 * loads * sum_ab + loads ** 2 * sum_b2[:, None]
                  - (sum_a - loads * sum_b[:, None]) ** 2 / safe[:, None])
        self.column_trace = (factor[:, None] * within).sum(axis=0)
        self.trace = float(self.column_trace.sum())


def _interval(share: np.ndarray, items_variance: float, items_df_terms: list[tuple[float, float]],
              squares: np.ndarray, trace: np.ndarray, panel: int, kish: float,
              n_rated: float) -> tuple[np.ndarray, np.ndarray]:
    """share ± t · sqrt(items' variance + speakers' variance), with Student's t on Satterthwaite's degrees of
    freedom, and never narrower than Wilson's score interval of the items alone on the effective sample size (at a
    share of 0 or 1, or when every rating agrees, the variances vanish and the items alone must not claim
    certainty). (0, 1) when fewer than two speakers rated: how others would judge is then unknown. Vectorised:
    ``share``, ``squares`` and ``trace`` may be arrays (one entry per speaker replaced)."""
    share, squares, trace = np.broadcast_arrays(*(np.asarray(value, dtype=float) for value in (share, squares,
                                                                                               trace)))
    if panel < 2:
        return np.zeros(share.shape), np.ones(share.shape)
    speakers_variance = panel / (panel - 1) * (squares - trace)
    speakers_variance = np.where(speakers_variance > ROUNDING, speakers_variance, 0.0)
    variance = items_variance + speakers_variance
    # Satterthwaite: each component's estimate with its own degrees of freedom, the speakers' at S - 1.
    denominator = sum(term ** 2 / df for term, df in items_df_terms) + speakers_variance ** 2 / (panel - 1)
    measured = (denominator > 0) & (variance > 0)
    df = np.where(measured, variance ** 2 / np.where(measured, denominator, 1.0), n_rated - 1)
    t = np.array([t_multiplier(float(value)) for value in df.ravel()]).reshape(df.shape)
    inside = (share > 0) & (share < 1) & (items_variance > 0)
    n_eff = np.where(inside, np.minimum(share * (1 - share) / (items_variance or 1.0), n_rated), kish)
    z2 = t * t / n_eff
    centre = (share + z2 / 2) / (1 + z2)
    half = np.sqrt(z2 * share * (1 - share) + z2 * z2 / 4) / (1 + z2)
    spread = t * np.sqrt(variance)
    return (np.maximum(0.0, np.minimum(share - spread, centre - half)),
            np.minimum(1.0, np.maximum(share + spread, centre + half)))
