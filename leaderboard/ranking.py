"""What the leaderboard ranks by, and how sure it is: the score a row shows (claimed or recomputed), its grouping
key, chrF++'s 95 % bootstrap interval and sacreBLEU signature, and rank clusters of methods that a paired bootstrap
cannot tell apart. Pure functions over a parsed card and the per-entry chrF++ statistics that
`verification.entry_statistics` extracts; the rules, and why each was chosen, are in docs/run-cards.md
("Leaderboard", "Bootstrap intervals and rank clusters").

chrF++ is a function of the n-gram statistics summed over a corpus, so a bootstrap replicate — the entries drawn
with replacement — is a weighted sum of the per-entry statistic rows (the weight of an entry: how often it was
drawn), and the whole bootstrap is one matrix product followed by a vectorised F-score. sacrebleu is never called
per replicate. The entries are drawn exactly as the harness draws them (mt_eval_harness confidence.bootstrap_ci:
Python's `random.Random(12345).randint`), so the same outputs give the same interval.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import verification

# sacreBLEU's and the harness's conventions (mt_eval_harness confidence.py): 1,000 resamples, seed 12345, 95 %.
BOOTSTRAP_REPLICATES = 1000
BOOTSTRAP_SEED = 12345
ALPHA = 0.05
# Replicates drawn at a time: the weights of a chunk are chunk × entries integers (8 MB for 10,000 entries).
REPLICATE_CHUNK = 100
# chrF++ as sacrebleu computes it: CHRF(word_order=2) — 6 character and 2 word n-gram orders, β = 2, no eps
# smoothing; statistics are (hypothesis, reference, match) counts per order.
CHRF_ORDERS = 8
CHRF_BETA = 2
CHRF_EPS = 1e-16
STATISTICS_WIDTH = verification.STATISTICS_WIDTH
# A composite is shown to 3 places and rounded to 4 by the harness; its verifiable inputs (chrF++ ±0.05 points,
# exact-match rate ±0.001) move it by less than 0.0002 within their own tolerances.
COMPOSITE_TOLERANCE = 0.001
# Where a harness card keeps chrF++'s interval and signature (mt_eval_harness scoring.PRIMARY_CI_KEY and
# primary_signature): scores.confidence_intervals.corpus_chrf.{ci_lower, ci_upper}, scores.sacrebleu_signatures.chrf.
CI_KEYS = ("corpus_chrf", "chrf", "chrf_plus_plus")
SIGNATURE_KEYS = ("chrf", "corpus_chrf", "chrf++", "chrf_plus_plus")
SIGNATURE_MAX_LENGTH = 200


# ---------------------------------------------------------------------------------------------------------
# The grouping key
# ---------------------------------------------------------------------------------------------------------

def setup_fingerprint(card: dict, public_fingerprint: str, *, pins_hidden_hash: bool) -> str:
    """The fingerprint a leaderboard row groups by: the card's own `fingerprint` (a v1 string, or a v2 object's
    `hash`) once `check_fingerprint` verifies it — a v2 fingerprint names the setup more closely than the v1
    components (endpoint, max_tokens, method version, …), so two setups the card tells apart are not merged — else
    the public v1 fingerprint recomputed here. A card pinning a dataset hash kept from the public always gets the
    public one: a fingerprint over the hidden hash would confirm guesses of it (docs/run-cards.md, "Fingerprint")."""
    if pins_hidden_hash:
        return public_fingerprint
    status, _ = verification.check_fingerprint(card)
    given = card.get("fingerprint")
    if status != "verified":
        return public_fingerprint
    if isinstance(given, str):
        return given.lower()
    return str(given["hash"]).lower()


# ---------------------------------------------------------------------------------------------------------
# chrF++ from summed statistics, vectorised
# ---------------------------------------------------------------------------------------------------------

def chrf_from_totals(totals: np.ndarray) -> np.ndarray:
    """chrF++ (0–100) of each row of summed statistics (…, 24), exactly sacrebleu's `CHRF._compute_f_score`
    (effective-order averaging of precision and recall, then F-β) up to floating-point summation order."""
    totals = np.asarray(totals, dtype=np.float64)
    hyp, ref, match = totals[..., 0::3], totals[..., 1::3], totals[..., 2::3]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(hyp > 0, match / np.where(hyp > 0, hyp, 1), CHRF_EPS)
        recall = np.where(ref > 0, match / np.where(ref > 0, ref, 1), CHRF_EPS)
    effective = (hyp > 0) & (ref > 0)
    orders = effective.sum(axis=-1)
    divisor = np.maximum(orders, 1)
    avg_precision = np.where(orders > 0, np.where(effective, precision, 0.0).sum(axis=-1) / divisor, 0.0)
    avg_recall = np.where(orders > 0, np.where(effective, recall, 0.0).sum(axis=-1) / divisor, 0.0)
    factor = CHRF_BETA ** 2
    denominator = factor * avg_precision + avg_recall
    with np.errstate(divide="ignore", invalid="ignore"):
        score = 100 * (1 + factor) * avg_precision * avg_recall / np.where(denominator > 0, denominator, 1)
    return np.where(avg_precision + avg_recall > 0, score, 0.0)


def statistics_matrix(statistics: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(rows, positions): the statistics of every entry as an (n, 24) array — an errored one's are those of an empty
    hypothesis, as corpus chrF++ counts it (verification.entry_statistics) — and the positions in results[] they
    came from."""
    rows = np.array(statistics, dtype=np.int64).reshape(-1, STATISTICS_WIDTH)
    return rows, np.arange(len(rows), dtype=np.int64)


def harness_draws(entries: int, seed: int = BOOTSTRAP_SEED):
    """The indices `random.Random(seed).randint(0, entries - 1)` returns, one call after another, a numpy array at a
    time (each call for the count asked). CPython draws them from its Mersenne Twister, which
    `numpy.random.RandomState([seed])` seeds the same way (init_by_array): a call takes the top k bits of the next
    32-bit output, k the bit length of `entries`, and draws again while that is not below `entries`
    (random._randbelow_with_getrandbits)."""
    twister = np.random.RandomState([seed])
    shift = np.uint64(32 - entries.bit_length())
    kept = np.empty(0, dtype=np.uint64)

    def take(count: int) -> np.ndarray:
        nonlocal kept
        while len(kept) < count:
            raw = twister.randint(0, 2 ** 32, size=2 * (count - len(kept)) + 64, dtype=np.uint64) >> shift
            kept = np.concatenate([kept, raw[raw < entries]])
        taken, kept = kept[:count], kept[count:]
        return taken.astype(np.int64)

    return take


def bootstrap_weights(entries: int, replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED):
    """Each replicate's weights, a chunk at a time: how often each of `entries` entries was drawn when `entries`
    are drawn with replacement, replicate after replicate, by the harness's own draws (`harness_draws`), so the same
    seed and number of entries give the same resamples as upstream's interval (and pair two cards scored on the
    same entries)."""
    take = harness_draws(entries, seed)
    for start in range(0, replicates, REPLICATE_CHUNK):
        chunk = min(REPLICATE_CHUNK, replicates - start)
        draws = take(chunk * entries).reshape(chunk, entries)
        offsets = (np.arange(chunk) * entries)[:, None]
        yield np.bincount((draws + offsets).ravel(), minlength=chunk * entries).reshape(chunk, entries)


def bootstrap_scores(rows: np.ndarray, replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED
                     ) -> np.ndarray:
    """chrF++ of each bootstrap replicate of the entries whose statistics are `rows` (n, 24)."""
    matrix = np.asarray(rows, dtype=np.float64)  # exact: counts stay far below 2**53
    return np.concatenate([chrf_from_totals(weights @ matrix)
                           for weights in bootstrap_weights(len(matrix), replicates, seed)])


def percentile_interval(values: np.ndarray, alpha: float = ALPHA) -> tuple[float, float]:
    """The harness's percentile interval (mt_eval_harness significance._percentile_ci): the sorted values at
    0-based indices int(B·α/2) and int(B·(1−α/2)) − 1 — no interpolation, so that a card's own interval and ours
    are read the same way."""
    ordered = np.sort(values)
    count = len(ordered)
    low = min(max(int(count * (alpha / 2)), 0), count - 1)
    high = min(max(int(count * (1 - alpha / 2)) - 1, 0), count - 1)
    return float(ordered[low]), float(ordered[high])


def chrf_interval(rows: np.ndarray, replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED
                  ) -> tuple[float, float] | None:
    """The 95 % percentile-bootstrap interval of corpus chrF++ over these entries, rounded to 4 places as the harness
    writes it (confidence.bootstrap_ci); None without entries."""
    if not len(rows):
        return None
    low, high = percentile_interval(bootstrap_scores(rows, replicates, seed))
    return round(low, 4), round(high, 4)


def paired_difference_interval(rows_a: np.ndarray, rows_b: np.ndarray, replicates: int = BOOTSTRAP_REPLICATES,
                               seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Paired bootstrap (Koehn 2004) of chrF++(A) − chrF++(B) on the same entries, row i of both being entry i:
    each replicate draws the entries once and scores both systems on that draw. The 95 % percentile interval."""
    a, b = np.asarray(rows_a, dtype=np.float64), np.asarray(rows_b, dtype=np.float64)
    deltas = np.concatenate([chrf_from_totals(weights @ a) - chrf_from_totals(weights @ b)
                             for weights in bootstrap_weights(len(a), replicates, seed)])
    return percentile_interval(deltas)


# ---------------------------------------------------------------------------------------------------------
# Per-entry statistics kept with a card, for rank clusters
# ---------------------------------------------------------------------------------------------------------

def pack_statistics(entry_ids: Sequence[int], rows: np.ndarray) -> bytes | None:
    """The corpus entry ids and chrF++ statistics of a card's evaluated entries (row i: entry i), compressed (npz,
    no pickles; well under 100 bytes an entry); None without any. Never shown: statistics of secret entries derive
    from their references."""
    if not len(rows):
        return None
    ids = np.asarray(entry_ids, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    buffer = io.BytesIO()
    np.savez_compressed(buffer, entries=ids[order], statistics=np.asarray(rows, dtype=np.int32)[order])
    return buffer.getvalue()


def unpack_statistics(blob: bytes | memoryview | None) -> tuple[np.ndarray, np.ndarray] | None:
    """(entry ids sorted, statistics rows) from `pack_statistics`; None when there are none."""
    if not blob:
        return None
    with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as data:
        return data["entries"], data["statistics"].astype(np.int64)


def shared_rows(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray],
                only: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The statistics of the entries both cards evaluated (restricted to the entry ids `only` when given), aligned
    entry by entry."""
    shared, index_a, index_b = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    if only is not None:
        keep = np.isin(shared, only)
        index_a, index_b = index_a[keep], index_b[keep]
    return a[1][index_a], b[1][index_b]


def rank_clusters(ranked: Sequence[tuple[np.ndarray, np.ndarray] | None], only: np.ndarray | None = None,
                  replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED) -> list[int | None]:
    """Cluster numbers (1, 2, …) of rows in rank order: a row joins the cluster of the row above it when the
    paired bootstrap's 95 % interval of their chrF++ difference, on the entries both evaluated, includes 0 — the
    two are not significantly different. A row without statistics has no cluster (None); a row sharing no
    evaluated entry with the one above starts a new cluster, as nothing pairs them. `only`: entry ids to restrict
    the comparison to (a domain's)."""
    clusters: list[int | None] = []
    current = 0
    previous: tuple[np.ndarray, np.ndarray] | None = None
    for statistics in ranked:
        if statistics is None:
            clusters.append(None)
            previous = None
            continue
        joined = False
        if previous is not None and current:
            rows_a, rows_b = shared_rows(previous, statistics, only)
            if len(rows_a):
                low, high = paired_difference_interval(rows_a, rows_b, replicates, seed)
                joined = low <= 0 <= high
        if not joined:
            current += 1
        clusters.append(current)
        previous = statistics
    return clusters


# ---------------------------------------------------------------------------------------------------------
# The scores a row shows
# ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Headline:
    """What verification stores for the leaderboard (RunCard's leaderboard_* and chrf_* fields)."""

    recomputed_chrf_plus_plus: float | None
    leaderboard_chrf_plus_plus: float | None
    leaderboard_composite: float | None
    primary_recomputed: bool
    chrf_ci_lower: float | None
    chrf_ci_upper: float | None
    chrf_ci_source: str
    chrf_signature: str


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _disagrees(submitted: float | None, recomputed: float | None, tolerance: float) -> bool:
    """Beyond the tolerance (the 1e-9 absorbs binary floating point at its edge, as compare_scores does)."""
    return submitted is not None and recomputed is not None and abs(submitted - recomputed) > tolerance + 1e-9


def leaderboard_composite(scores: dict, recomputed: dict) -> tuple[float | None, bool]:
    """(the composite a legacy card is shown and ranked by, whether it is a recomputed one). Most of the composite's
    inputs are plugin aggregates results[] do not determine, and the harness may weigh inputs its card does not
    record; chrF++ and the exact-match rate results[] do determine. When either disagrees with results[] beyond
    compare_scores's tolerance, the claimed composite is moved by exactly what putting results[]'s value in its
    place changes in `legacy_composite` (clamped to 0–1, 4 places) — the composite the card would have had — and
    replaces the claim if that moves it by more than COMPOSITE_TOLERANCE. Otherwise the claim stands: inputs that
    agree are not a reason to recompute it from a formula the harness may have applied to more than we see."""
    claimed = _number(scores.get("composite"))
    corrected = dict(scores)
    changed = False
    for name, tolerance in (("chrf_plus_plus", verification.CHRF_TOLERANCE),
                            ("exact_match_rate", verification.RATE_TOLERANCE)):
        if _disagrees(_number(scores.get(name)), recomputed.get(name), tolerance):
            corrected[name] = recomputed[name]
            changed = True
    if not changed:
        return claimed, False
    fst_available = _number(scores.get("fst_acceptance_rate")) is not None
    as_given = verification.legacy_composite(scores, fst_available=fst_available)
    as_recomputed = verification.legacy_composite(corrected, fst_available=fst_available)
    if claimed is None or as_given is None or as_recomputed is None:
        return claimed, False
    value = round(min(1.0, max(0.0, claimed + as_recomputed - as_given)), 4)
    if not _disagrees(claimed, value, COMPOSITE_TOLERANCE):
        return claimed, False
    return value, True


def card_interval(scores: dict, shown: float | None) -> tuple[float, float] | None:
    """The card's own chrF++ interval, when it is one: finite bounds, 0 ≤ lower ≤ upper ≤ 100, around the score
    shown (within chrF++'s tolerance). Upstream cards write `ci_lower`/`ci_upper`; older reports `lower`/`upper`."""
    intervals = scores.get("confidence_intervals")
    if shown is None or not isinstance(intervals, dict):
        return None
    interval = next((intervals[key] for key in CI_KEYS if isinstance(intervals.get(key), dict)), None)
    if interval is None:
        return None
    low = _number(interval.get("ci_lower", interval.get("lower")))
    high = _number(interval.get("ci_upper", interval.get("upper")))
    tolerance = verification.CHRF_TOLERANCE + 1e-9
    if low is None or high is None or not 0 <= low <= high <= 100 or not low - tolerance <= shown <= high + tolerance:
        return None
    return low, high


def card_signature(scores: dict) -> str | None:
    """The card's chrF++ sacreBLEU signature (scores.sacrebleu_signatures.chrf), when it carries one."""
    signatures = scores.get("sacrebleu_signatures")
    if not isinstance(signatures, dict):
        return None
    for key in SIGNATURE_KEYS:
        value = signatures.get(key)
        if isinstance(value, str) and value.strip() and len(value) <= SIGNATURE_MAX_LENGTH:
            return value.strip()
    return None


def our_signature() -> str:
    """The sacreBLEU signature of the chrF++ recomputed here (one reference, sacrebleu's defaults)."""
    from sacrebleu.metrics import CHRF

    metric = CHRF(word_order=2)
    metric.corpus_score([""], [[""]])  # a signature names the number of references, known once scored
    return str(metric.get_signature())


def headline(scores: dict, recomputed: dict, rows: np.ndarray, *, standard: str) -> Headline:
    """The scores a card is shown and ranked by, and chrF++'s interval and signature.

    chrF++ shown is the claimed one unless results[] give a value more than ±0.05 away (or the card claims none),
    then the recomputed one; a legacy card's composite follows `leaderboard_composite`. `primary_recomputed` says
    the ranking score — chrF++ for standard/1, the composite for legacy cards — is a recomputed one. The interval
    and signature (standard/1 only) are the card's when it carries them and its chrF++ stands, else recomputed:
    the harness's seeded percentile bootstrap of the entries (`rows`, every entry, an errored one an empty
    hypothesis), when at least two were evaluated, and our sacreBLEU signature."""
    scores = scores if isinstance(scores, dict) else {}
    ours = recomputed.get("chrf_plus_plus")
    claimed_chrf = _number(scores.get("chrf_plus_plus"))
    chrf_recomputed = ours is not None and (claimed_chrf is None or _disagrees(claimed_chrf, ours,
                                                                               verification.CHRF_TOLERANCE))
    shown_chrf = ours if chrf_recomputed else claimed_chrf
    if standard == "legacy-composite":
        composite, primary = leaderboard_composite(scores, recomputed)
        return Headline(ours, shown_chrf, composite, primary, None, None, "", "")
    interval, source = (None if chrf_recomputed else card_interval(scores, shown_chrf)), "card"
    # The harness computes no interval over fewer than two evaluated entries (confidence.compute_all_cis).
    if interval is None and (recomputed.get("evaluated") or 0) >= 2:
        interval, source = chrf_interval(rows), "recomputed"
    signature = None if chrf_recomputed else card_signature(scores)
    return Headline(ours, shown_chrf, None, chrf_recomputed,
                    interval[0] if interval else None, interval[1] if interval else None,
                    source if interval else "", signature or (our_signature() if ours is not None else ""))
