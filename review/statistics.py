"""Small, dependency-free statistics for human review of machine translation.

Kept in pure Python (no NumPy, no database) so that every number a governance decision rests on can
be recomputed by hand from the formulas below and checked against published examples in the tests.
The vectorised interval of the usable share (review/evidence.py) takes its Student t quantile from here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

Z_95 = 1.959963984540054
"""Two-sided 95% standard-normal quantile."""


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    Used instead of the textbook ``p ± z·√(p(1-p)/n)`` interval because that one collapses to a single
    point at 0% or 100% and leaves [0, 1] for the small samples a community review produces; Wilson stays
    honest there. With no observations every proportion is possible, hence (0.0, 1.0).
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half_width = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half_width)
    high = 1.0 if successes == n else min(1.0, centre + half_width)
    return (low, high)


def weighted_wilson_interval(share: float, effective_n: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson's interval at a weighted estimate ``share``, on Kish's effective sample size (the number of
    equally weighted items that would be as informative): the reference interval of a post-stratified share."""
    if not 0.0 <= share <= 1.0 or effective_n <= 0:
        raise ValueError(f"need 0 <= share <= 1 and effective_n > 0, got share={share}, effective_n={effective_n}")
    z2 = z * z
    denominator = 1 + z2 / effective_n
    centre = (share + z2 / (2 * effective_n)) / denominator
    half_width = z / denominator * math.sqrt(share * (1 - share) / effective_n + z2 / (4 * effective_n ** 2))
    low = 0.0 if share == 0.0 else max(0.0, centre - half_width)
    high = 1.0 if share == 1.0 else min(1.0, centre + half_width)
    return (low, high)


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom, through the
    regularized incomplete beta function: P(|T| > |t|) = I_x(df / 2, 1 / 2) with x = df / (df + t²)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    tail = 0.5 * _regularized_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (0.5 < p < 1): Newton's method on
    ``student_t_cdf`` from the normal quantile, kept inside a bracket that bisection narrows whenever a Newton step
    would leave it. t(0.975, 1) = 12.706, t(0.975, 2) = 4.303, t(0.975, 30) = 2.042 (published tables)."""
    if not 0.5 < p < 1:
        raise ValueError(f"need 0.5 < p < 1, got {p}")
    low, high = 0.0, 1.0
    while student_t_cdf(high, df) < p:
        low, high = high, high * 2
    guess = min(max(NormalDist().inv_cdf(p), low), high)
    for _step in range(100):
        error = student_t_cdf(guess, df) - p
        if abs(error) < 1e-13:
            break
        if error < 0:
            low = guess
        else:
            high = guess
        density = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
                           - 0.5 * math.log(df * math.pi) - (df + 1) / 2 * math.log1p(guess * guess / df))
        step = guess - error / density if density > 0 else (low + high) / 2
        guess = step if low < step < high else (low + high) / 2
        if high - low < 1e-12:
            break
    return guess


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), by the continued fraction of Numerical Recipes (betacf), on whichever side converges."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 400):
        even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        for term in (even, odd):
            d = 1.0 + term * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + term / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1.0) < 3e-15:
            break
    return result


def lower_median(values: Iterable[int]) -> int:
    """Median of integers; for an even count the lower of the two middle values.

    Choosing the lower middle value is deliberately conservative: an item rated ``gist`` by one
    speaker and ``acceptable`` by another is not counted as usable.
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("lower_median() of no values")
    return ordered[(len(ordered) - 1) // 2]


def krippendorff_alpha_ordinal(units: Sequence[Sequence[int]], categories: int = 4) -> float | None:
    """Krippendorff's alpha with the ordinal difference metric for values ``0 .. categories - 1``.

    Each unit holds the values assigned to one item by its raters (any number, missing ratings simply
    absent). Units with fewer than two values cannot be paired and are ignored. Returns None when no
    value is pairable or when the expected disagreement is zero (every pairable value identical): alpha
    is undefined then, and pretending it is 1.0 would hide that the data cannot show reliability.

    Computed from the coincidence matrix as in Krippendorff (2011), "Computing Krippendorff's
    Alpha-Reliability": alpha = 1 - (n - 1) · Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, with the ordinal
    δ_ck = Σ_{g=c..k} n_g - (n_c + n_k) / 2.
    """
    if categories < 2:
        raise ValueError("need at least two categories")
    coincidences = [[0.0] * categories for _ in range(categories)]
    for unit in units:
        m = len(unit)
        if m < 2:
            continue
        counts = [0] * categories
        for value in unit:
            if not 0 <= value < categories:
                raise ValueError(f"value {value} outside 0..{categories - 1}")
            counts[value] += 1
        for c in range(categories):
            if not counts[c]:
                continue
            for k in range(categories):
                pairs = counts[c] * (counts[k] - 1 if c == k else counts[k])
                if pairs:
                    coincidences[c][k] += pairs / (m - 1)

    marginals = [sum(row) for row in coincidences]
    total = sum(marginals)
    if total == 0:
        return None

    def ordinal_distance_squared(c: int, k: int) -> float:
        low, high = min(c, k), max(c, k)
        return (sum(marginals[low : high + 1]) - (marginals[c] + marginals[k]) / 2) ** 2

    observed = 0.0
    expected = 0.0
    for c in range(categories):
        for k in range(categories):
            if c == k:
                continue
            delta2 = ordinal_distance_squared(c, k)
            observed += coincidences[c][k] * delta2
            expected += marginals[c] * marginals[k] * delta2
    if expected == 0:
        return None
    return 1 - (total - 1) * observed / expected
