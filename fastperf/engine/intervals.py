"""Confidence intervals shared by the table-level functions: Student mean, order-statistic median.

Both work on whole arrays of group sizes at once (one call per table, never per group).
"""
from __future__ import annotations

import numpy as np

from fastperf.data.validation import check_confidence

__all__ = ["student_quantile", "student_halfwidth", "median_interval_ranks"]


def student_quantile(df: np.ndarray, confidence: float) -> np.ndarray:
    """The two-sided Student coefficient t[(1 + c)/2; df] (NaN where df is NaN or < 1)."""
    from scipy.special import stdtrit

    confidence = check_confidence(confidence)
    df = np.asarray(df, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return stdtrit(np.where(df > 0, df, np.nan), 0.5 + confidence / 2)


def student_halfwidth(n: np.ndarray, sd: np.ndarray, confidence: float) -> np.ndarray:
    """Half-width of the Student-t interval of the mean: t[1 - a/2; n - 1] * sd / sqrt(n).

    Lilja (seed 000), Pakhomov (seed 004, with the same Student coefficients). NaN for n < 2.
    """
    sizes, inverse = np.unique(np.asarray(n, dtype=np.float64), return_inverse=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        coefficient = student_quantile(sizes - 1, confidence) / np.sqrt(sizes)  # per distinct n
        return coefficient[inverse] * np.asarray(sd)


def median_interval_ranks(
    n: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order statistics bounding the median with at least `confidence` coverage, for any n.

    For a sample of size n from a continuous distribution, the number B of values below the
    median is Binomial(n, 1/2), so ``[x_(j+1), x_(n-j)]`` covers the median with probability
    ``1 - 2 P(B <= j)`` whatever the distribution. The interval returned is the narrowest of
    these symmetric-in-rank pairs whose coverage is at least `confidence`: j is the largest
    integer with ``P(B <= j) <= (1 - confidence) / 2``. The binomial tail is computed exactly (the
    regularised incomplete beta function, accurate at every n), so no normal approximation is
    needed even for large n.

    Parameters
    ----------
    n : array of int, sample sizes.
    confidence : float in (0, 1).

    Returns
    -------
    lower, upper : int64 arrays, 1-based ranks of the bounds; 0 where no pair reaches
        `confidence` (n too small: even [min, max] covers only 1 - 2^(1-n)).
    coverage : float64 array, the exact coverage of those order statistics (NaN where none).
    """
    from scipy.special import bdtr
    from scipy.stats import binom

    confidence = check_confidence(confidence)
    n = np.asarray(n, dtype=np.int64)
    sizes, inverse = np.unique(n, return_inverse=True)
    tail = (1.0 - confidence) / 2.0
    # ppf gives the smallest k with P(B <= k) >= tail; step back one where it overshoots.
    k = binom.ppf(tail, np.maximum(sizes, 1), 0.5)
    k = np.where(np.isnan(k), -1.0, k)
    tolerance = tail * 1e-12  # coverage exactly equal to `confidence` counts as reaching it
    while True:
        over = (k >= 0) & (bdtr(np.maximum(k, 0), sizes, 0.5) > tail + tolerance)
        if not over.any():
            break
        k = np.where(over, k - 1, k)
    while True:  # guard against ppf stopping short: move up while the next rank still qualifies
        nxt = k + 1
        under = (2 * (nxt + 1) <= sizes) & (bdtr(nxt, sizes, 0.5) <= tail + tolerance)
        if not under.any():
            break
        k = np.where(under, nxt, k)
    ok = (k >= 0) & (sizes >= 1)
    j = np.where(ok, k, 0).astype(np.int64)
    lower = np.where(ok, j + 1, 0)
    upper = np.where(ok, sizes - j, 0)
    coverage = np.where(ok, 1.0 - 2.0 * bdtr(j, sizes, 0.5), np.nan)
    return lower[inverse], upper[inverse], coverage[inverse]
