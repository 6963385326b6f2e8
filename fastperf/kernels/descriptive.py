"""Descriptive statistics per group: counts, moments, order statistics.

Groups arrive as contiguous slices ``grouped[offsets[g]:offsets[g + 1]]`` of one values array
(see ``fastperf.grouping``); NaN marks a missing value (a null in the Arrow column).
"""
import numpy as np
from numba import prange

from fastperf.kernels._compile import group_kernel
from fastperf.kernels.order_statistics import move_nan_last, select


@group_kernel
def count_valid(grouped, offsets):
    """Per group, the number of non-NaN values and the number of infinite ones (int64 each)."""
    n_groups = offsets.shape[0] - 1
    n_valid = np.zeros(n_groups, dtype=np.int64)
    n_infinite = np.zeros(n_groups, dtype=np.int64)
    for g in prange(n_groups):
        valid = 0
        infinite = 0
        for j in range(offsets[g], offsets[g + 1]):
            v = grouped[j]
            if not np.isnan(v):
                valid += 1
                if np.isinf(v):
                    infinite += 1
        n_valid[g] = valid
        n_infinite[g] = infinite
    return n_valid, n_infinite


@group_kernel
def describe_groups(grouped, offsets, n_valid, lower_rank, upper_rank):
    """Mean, sample standard deviation, min, median, max and two order statistics per group.

    Parameters
    ----------
    grouped : float64 array in group order, NaN for missing values (read only).
    offsets : int64 CSR offsets of the groups.
    n_valid : int64 array, the number of non-NaN values per group (``count_valid``).
    lower_rank, upper_rank : int64 arrays, 1-based ranks of the order statistics wanted per
        group (0 when none): the bounds of the distribution-free median interval.

    Returns
    -------
    stats : float64 array of shape (n_groups, 7): mean, sd (ddof=1), min, median, max,
        x_(lower_rank), x_(upper_rank). NaN where undefined (no values; sd of one value; rank 0).

    Notes
    -----
    The mean and deviation use two passes (mean, then the sum of squared deviations), which
    keeps the variance accurate when the spread is tiny relative to the mean (timer data).
    The median and interval bounds come from selection on a copy of the group, linear in the
    group size: the lower bound first, then the upper bound above it, then the median in the
    (narrow) band between them.
    """
    n_groups = offsets.shape[0] - 1
    stats = np.full((n_groups, 7), np.nan)
    for g in prange(n_groups):
        n = n_valid[g]
        if n == 0:
            continue
        x = grouped[offsets[g]:offsets[g + 1]].copy()
        move_nan_last(x)  # the valid values are now x[:n]
        total = 0.0
        low = x[0]
        high = x[0]
        for i in range(n):
            total += x[i]
            low = min(low, x[i])
            high = max(high, x[i])
        mean = total / n
        squares = 0.0
        for i in range(n):
            d = x[i] - mean
            squares += d * d
        stats[g, 0] = mean
        if n > 1:
            stats[g, 1] = np.sqrt(squares / (n - 1))
        stats[g, 2] = low
        stats[g, 4] = high
        # ranks 0-based; lo <= (n-1)//2 and hi >= n//2 always hold for a median interval
        lo = lower_rank[g] - 1
        hi = upper_rank[g] - 1
        band_start, band_stop = 0, n
        if lo >= 0:
            select(x, lo, 0, n)  # x[:lo] <= x[lo] <= x[lo+1:]
            select(x, hi, lo + 1, n)  # x[lo+1:hi] <= x[hi] <= x[hi+1:]
            stats[g, 5] = x[lo]
            stats[g, 6] = x[hi]
            band_start, band_stop = lo, hi + 1
        half = n // 2
        select(x, half, band_start, band_stop)
        if n % 2 == 1:
            stats[g, 3] = x[half]
        else:
            below = x[band_start]  # the largest value left of rank `half`
            for i in range(band_start + 1, half):
                below = max(below, x[i])
            stats[g, 3] = 0.5 * (below + x[half])
    return stats
