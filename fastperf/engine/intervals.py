"""Confidence intervals shared by the table-level functions: Student mean, order-statistic median.

Both work on whole arrays of group sizes at once (one call per table, never per group).
"""
from __future__ import annotations

import functools

import numpy as np
from scipy.special import bdtr, stdtrit

from fastperf.data.validation import check_confidence

__all__ = ["student_quantile", "student_halfwidth", "median_interval_ranks",
           "median_interval_minimum_size"]


def student_quantile(df: np.ndarray, confidence: float) -> np.ndarray:
    """The two-sided Student coefficient t[(1 + c)/2; df] (NaN where df is NaN or < 1)."""
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
    n: np.ndarray, confidence: float, rule: str = "symmetric"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order statistics bounding the median with at least `confidence` coverage, for any n.

    For a sample of size n from a continuous distribution, the number B of values below the
    median is Binomial(n, 1/2), so ``[x_(j+1), x_(n-j)]`` covers the median with probability
    ``1 - 2 P(B <= j)`` whatever the distribution. The interval returned is the narrowest of
    these symmetric-in-rank pairs whose coverage is at least `confidence`: j is the largest
    integer with ``P(B <= j) <= (1 - confidence) / 2``. The binomial tail is computed exactly (the
    regularised incomplete beta function, accurate at every n), so no normal approximation is
    needed even for large n.

    With ``rule="shortest"`` the pair need not be symmetric in rank: the binomial
    probabilities P(B = k) are added from the middle outwards in decreasing order (the left one
    first where two are equal) until they reach `confidence`; ``[x_(l), x_(r)]`` with l the
    smallest and r - 1 the largest k added. This is the fewest order statistics with exact
    coverage >= `confidence`, and it is benchstat's rule (go-moremath ``stats.QuantileCI``,
    which uses it for n <= 30 and a normal approximation above; here it is exact at every n).
    It can be one rank narrower than the symmetric pair.

    Parameters
    ----------
    n : array of int, sample sizes.
    confidence : float in (0, 1).
    rule : {"symmetric", "shortest"}

    Returns
    -------
    lower, upper : int64 arrays, 1-based ranks of the bounds; 0 where no pair reaches
        `confidence` (n too small: even [min, max] covers only 1 - 2^(1-n)); with "shortest",
        0 in either bound alone where that side of the interval is unbounded.
    coverage : float64 array, the exact coverage of those order statistics (NaN where none).
    """
    if rule == "shortest":
        return _shortest_median_ranks(n, confidence)
    confidence = check_confidence(confidence)
    n = np.asarray(n, dtype=np.int64)
    sizes, inverse = np.unique(n, return_inverse=True)
    tail = (1.0 - confidence) / 2.0
    tolerance = tail * 1e-12  # coverage exactly equal to `confidence` counts as reaching it
    # j = the largest k in [-1, floor(n/2) - 1] with P(B <= k) <= tail: bisection on the
    # monotone binomial cdf, all sizes at once (low always qualifies, high + 1 never does).
    low = np.full(sizes.shape, -1, dtype=np.int64)
    high = np.maximum(sizes // 2 - 1, -1)
    while True:
        open_ = low < high
        if not open_.any():
            break
        mid = (low + high + 1) // 2
        fits = open_ & (bdtr(np.maximum(mid, 0), np.maximum(sizes, 1), 0.5) <= tail + tolerance)
        low = np.where(fits, mid, low)
        high = np.where(open_ & ~fits, mid - 1, high)
    k = low
    ok = (k >= 0) & (sizes >= 1)
    j = np.where(ok, k, 0).astype(np.int64)
    lower = np.where(ok, j + 1, 0)
    upper = np.where(ok, sizes - j, 0)
    coverage = np.where(ok, 1.0 - 2.0 * bdtr(j, sizes, 0.5), np.nan)
    return lower[inverse], upper[inverse], coverage[inverse]


def median_interval_minimum_size(confidence: float, rule: str = "symmetric") -> int:
    """The fewest values whose `median_interval_ranks` (same `rule`) has both bounds.

    Parameters
    ----------
    confidence : float in (0, 1).
    rule : {"symmetric", "shortest"}

    Returns
    -------
    int
        The smallest n in 1..63 with a two-sided interval at `confidence` (64 when none).

    Notes
    -----
    [x_(1), x_(n)] covers the median with probability 1 - 2^(1-n) (see `median_interval_ranks`).
    """
    return minimum_interval_size(check_confidence(confidence), rule)


@functools.lru_cache(maxsize=256)
def minimum_interval_size(confidence: float, rule: str) -> int:
    """`median_interval_minimum_size` of a checked `confidence`, kept per (confidence, rule):
    63 intervals a call, asked by every `compare`."""
    sizes = np.arange(1, 64)
    lower, upper, _ = median_interval_ranks(sizes, confidence, rule)
    ok = (lower > 0) & (upper > 0)
    return int(sizes[np.argmax(ok)]) if ok.any() else 64


def _shortest_median_ranks(n, confidence: float):
    """`median_interval_ranks` with ``rule="shortest"``: per distinct size, the binomial
    probabilities in the order benchstat adds them (distance from n/2, then left first)."""
    confidence = check_confidence(confidence)
    n = np.asarray(n, dtype=np.int64)
    sizes, inverse = np.unique(n, return_inverse=True)
    lower = np.zeros(sizes.shape, dtype=np.int64)
    upper = np.zeros(sizes.shape, dtype=np.int64)
    coverage = np.full(sizes.shape, np.nan)
    for i, size in enumerate(sizes.tolist()):  # once per distinct size, not per group
        if size >= 1:
            lower[i], upper[i], coverage[i] = shortest_median_interval(size, confidence)
    return lower[inverse], upper[inverse], coverage[inverse]


@functools.lru_cache(maxsize=4096)
def shortest_median_interval(size: int, confidence: float) -> tuple[int, int, float]:
    """(lower, upper, coverage) of benchstat's shortest median interval for one sample size,
    kept per (size, confidence) (a table's sizes recur from call to call).

    P(B = k), B ~ Binomial(size, 1/2), is added in order of |2k - size|, the smaller k first
    where two are as far from the middle, until the sum reaches `confidence` (see
    `median_interval_ranks`). The terms are listed in that order directly (the middle one, then
    pairs of equal terms), and summed left to right over a prefix long enough to hold the stop
    (8 standard deviations of B each side), or over all of them where that prefix falls short:
    the sums are the same bits as over the whole sorted list.

    Parameters
    ----------
    size : int
        The sample size n >= 1.
    confidence : float
        The coverage wanted, in (0, 1).

    Returns
    -------
    lower, upper : int
        1-based ranks of the bounds; 0 where that side is unbounded.
    coverage : float
        The binomial probability the interval covers.

    Notes
    -----
    benchstat's rule (go-moremath ``stats.QuantileCI``), exact at every n here. Above
    `EXACT_PMF_MAX_SIZE` values the terms are `half_binomial_pmf`'s series: the same ranks as
    Boost's binomial pmf gives wherever a float64 sum can tell the stop (checked up to
    confidence 1 - 1e-9; beyond, both can miss by one rank).
    """
    half = size // 2
    window = min(size + 1, 2 * (8 * int(np.sqrt(size)) + 8))
    for length in (window, size + 1):
        # the first `length` k in the order added. Even size: half, half - 1, half + 1,
        # half - 2, ...; odd: half, half + 1, half - 1, half + 2, ... (as far from the middle)
        steps = np.arange(1, length)
        outwards = np.where(steps % 2 == 1, (steps + 1) // 2, -(steps // 2))
        ks = np.concatenate(([half], half + (-outwards if size % 2 == 0 else outwards)))
        nearer = np.minimum(ks, size - ks)  # P(B = size - k) = P(B = k)
        lowest = int(nearer.min())
        accumulated = np.cumsum(half_binomial_pmf(size, lowest)[nearer - lowest])
        if accumulated[-1] >= confidence:
            break
    stop = min(int(np.searchsorted(accumulated >= confidence, True)), size)
    taken = ks[: stop + 1]
    low, high = int(taken.min()), int(taken.max()) + 1
    return (low if low >= 1 else 0), (high if high <= size else 0), float(accumulated[stop])


#: Sizes up to which `half_binomial_pmf` divides exact integers (a few ms at the largest).
EXACT_PMF_MAX_SIZE = 2000


def half_binomial_pmf(size: int, lowest: int = 0) -> np.ndarray:
    """P(B = k) for B ~ Binomial(size, 1/2) and k = lowest .. floor(size / 2).

    Each is C(size, k) / 2^size, divided as exact integers (Python rounds the quotient of two
    integers correctly), for sizes up to `EXACT_PMF_MAX_SIZE`. Above it, the largest term
    P(B = floor(size / 2)) from the asymptotic series of the central binomial coefficient,
    C(2m, m) / 4^m = (1 - 1/(8m) + 1/(128m^2) + 5/(1024m^3) - 21/(32768m^4) - 399/(262144m^5)
    + ...) / sqrt(pi m) (Graham, Knuth & Patashnik 1994, *Concrete Mathematics*, exercise 9.60;
    coefficients checked against exact integers in tests/test_intervals.py; m > 1000,
    so the rest is below 1e-17 of it), with m = (size + 1) / 2 for odd sizes (C(2m, m) / 4^m
    is then P(B = m - 1) too), and the others by the ratios P(B = k - 1) / P(B = k) =
    k / (size - k + 1), multiplied outwards from the middle,
    where the intervals are decided: within 1e-12 of Boost's binomial pmf (scipy.stats) up to a
    million values, 1e-11 at ten million (tests/test_intervals.py checks the intervals' ranks
    against it, up to confidence 1 - 1e-6). The products run outwards, so the terms from
    `lowest` up are the same bits whatever `lowest` is; a large sample's interval needs a few
    thousand of its half-million terms.
    """
    half = size // 2
    if size > EXACT_PMF_MAX_SIZE:
        m = (size + 1) // 2
        x = 1.0 / m
        series = 1.0 + x * (-1.0 / 8 + x * (1.0 / 128 + x * (5.0 / 1024 + x * (
            -21.0 / 32768 + x * (-399.0 / 262144)))))
        central = series / np.sqrt(np.pi * m)
        k = np.arange(half, lowest, -1, dtype=np.float64)
        ratios = k / (size - k + 1.0)  # P(B = k - 1) / P(B = k), k = half .. lowest + 1
        return np.concatenate(([central], central * np.cumprod(ratios)))[::-1]
    pmf = np.empty(half + 1)
    denominator = 1 << size
    coefficient = 1
    for k in range(half + 1):
        pmf[k] = coefficient / denominator
        coefficient = coefficient * (size - k) // (k + 1)
    return pmf[lowest:]
