"""The usable share's interval when speakers differ: a two-way (items × speakers) cluster bootstrap.

Wilson's interval treats every rated item as an independent coin; it ignores who rated. With three or four
speakers whose leniency differs, much of the uncertainty is *which* speakers happened to rate, and Wilson's
95% interval covers the true share only about three times in four. Resampling speakers as well as items puts that
uncertainty back (docs/validation-gate.md, "95% interval").

A replicate draws items with replacement within each difficulty tier (the sample was stratified by tier) and
speakers with replacement from the panel, as multiplicity weights. An item is usable in a replicate when its
speaker-weighted usable ratings are a strict majority of its weighted ratings — the weighted form of "the lower
median is acceptable or better" — and the replicate's share is the item-weighted mean over items that kept a
rating. The interval is the 2.5th and 97.5th percentiles over the replicates. NumPy, vectorised over replicates
in chunks (speaker weights times a speaker × item count matrix; drawn items as index arrays).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

REPLICATES = 2000
"""Enough for stable 2.5% / 97.5% percentiles (about 50 replicates beyond each end)."""
CHUNK_CELLS = 2_000_000
"""Replicates are drawn in chunks of at most this many replicate × item cells, to bound memory."""


def cluster_bootstrap_intervals(
    items: Sequence[int], speakers: Sequence[int], usable: Sequence[bool], strata: Sequence[int],
    seed: int, leave_out: Sequence[int] = (), replicates: int = REPLICATES,
    stratum_weights: Mapping[int, float] | None = None,
) -> list[tuple[float, float] | None]:
    """95% percentile intervals of the usable share from ratings given as parallel arrays (one entry per rating:
    item, speaker, usable or not, the item's stratum): first with every speaker, then without each speaker of
    ``leave_out`` in turn (the gate's leave-one-speaker-out check), the item draws shared between them. None
    where no rating is left. The same seed gives the same bounds, so a page shows the same figures on every
    view.

    With ``stratum_weights`` (each stratum's share of the population) a replicate's share is post-stratified:
    each stratum's usable share weighted by its population share, over the strata that kept a rating in that
    replicate (their weights scaled to sum to 1)."""
    if not len(items):
        return [None] * (1 + len(leave_out))
    _item_codes, item_index = np.unique(np.asarray(items), return_inverse=True)
    speaker_codes, speaker_index = np.unique(np.asarray(speakers), return_inverse=True)
    n_items, n_speakers = int(item_index.max()) + 1, len(speaker_codes)
    # Ratings as a speaker × item count matrix: an item's weighted ratings in a replicate are then one matrix
    # product with the replicate's speaker weights.
    rated = np.zeros((n_speakers, n_items), dtype=np.float32)
    np.add.at(rated, (speaker_index, item_index), 1.0)
    rated_usable = np.zeros((n_speakers, n_items), dtype=np.float32)
    np.add.at(rated_usable, (speaker_index, item_index), np.asarray(usable, dtype=np.float32))
    item_strata = np.zeros(n_items, dtype=np.asarray(strata).dtype)
    item_strata[item_index] = np.asarray(strata)
    # Items ordered by tier, so that an item drawn within its tier is a draw between the tier's first and last
    # column: one vectorised call for every tier at once.
    by_tier = np.argsort(item_strata, kind="stable")
    rated, rated_usable, item_strata = rated[:, by_tier], rated_usable[:, by_tier], item_strata[by_tier]
    tiers, tier_start, tier_size = np.unique(item_strata, return_index=True, return_counts=True)
    tier_of_column = np.repeat(np.arange(len(tier_start)), tier_size)
    draw_low, draw_span = tier_start[tier_of_column], tier_size[tier_of_column]
    panels = [np.arange(n_speakers)] + [np.flatnonzero(speaker_codes != speaker) for speaker in leave_out]
    tier_weights = None if stratum_weights is None else np.array([stratum_weights[tier] for tier in tiers])

    rng = np.random.default_rng(abs(seed))
    shares: list[list[np.ndarray]] = [[] for _panel in panels]
    chunk = max(1, min(replicates, CHUNK_CELLS // n_items))
    for first in range(0, replicates, chunk):
        size = min(chunk, replicates - first)
        drawn = draw_low + (rng.random((size, n_items)) * draw_span).astype(np.intp)
        rows = np.repeat(np.arange(size) * n_items, n_items)
        item_weights = np.bincount(rows + drawn.ravel(), minlength=size * n_items).reshape(size, n_items)
        item_weights = item_weights.astype(np.float32)
        for panel, found in zip(panels, shares, strict=True):
            speaker_weights = np.zeros((size, n_speakers), dtype=np.float32)
            if len(panel):
                speaker_weights[:, panel] = rng.multinomial(len(panel), np.full(len(panel), 1 / len(panel)), size=size)
            # Weights are small whole numbers, exact in float32; the comparisons below are therefore exact.
            total = speaker_weights @ rated
            usable_weight = speaker_weights @ rated_usable
            rated_weight = item_weights * (total > 0)
            usable_items = item_weights * (2 * usable_weight > total)
            if tier_weights is None:
                denominator = rated_weight.sum(axis=1, dtype=np.float64)
                numerator = usable_items.sum(axis=1, dtype=np.float64)
                found.append(numerator[denominator > 0] / denominator[denominator > 0])
            else:
                found.append(_post_stratified(usable_items, rated_weight, tier_start, tier_weights))
    return [_percentiles(np.concatenate(found)) for found in shares]


def _post_stratified(usable_items: np.ndarray, rated_weight: np.ndarray, tier_start: np.ndarray,
                     tier_weights: np.ndarray) -> np.ndarray:
    """Each replicate's tier shares (columns are grouped by tier from ``tier_start``) weighted by the tiers'
    population shares, over the tiers with a rated item in that replicate; replicates with none are dropped."""
    rated = np.add.reduceat(rated_weight, tier_start, axis=1, dtype=np.float64)
    usable = np.add.reduceat(usable_items, tier_start, axis=1, dtype=np.float64)
    present = rated > 0
    shares = np.divide(usable, rated, out=np.zeros_like(usable), where=present)
    weights = tier_weights * present
    total = weights.sum(axis=1)
    kept = total > 0
    return (shares * weights).sum(axis=1)[kept] / total[kept]


def _percentiles(replicate_shares: np.ndarray) -> tuple[float, float] | None:
    if not len(replicate_shares):
        return None
    low, high = np.percentile(replicate_shares, [2.5, 97.5])
    return float(low), float(high)
