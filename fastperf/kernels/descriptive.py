"""Descriptive statistics per group: counts, moments, order statistics.

Groups arrive as CSR segments of row indices (``order``, ``offsets``) into one values array; NaN
marks a missing value (a null in the Arrow column) and is skipped and counted.
"""
import numpy as np
from numba import prange

from fastperf.kernels._compile import group_kernel


@group_kernel
def count_valid(values, order, offsets):
    """Number of non-NaN values in each group (int64)."""
    n_groups = offsets.shape[0] - 1
    out = np.zeros(n_groups, dtype=np.int64)
    for g in prange(n_groups):
        k = 0
        for j in range(offsets[g], offsets[g + 1]):
            if not np.isnan(values[order[j]]):
                k += 1
        out[g] = k
    return out


@group_kernel
def describe_groups(values, order, offsets, n_valid, lower_rank, upper_rank):
    """Mean, sample standard deviation, min, median, max and two order statistics per group.

    Parameters
    ----------
    values : float64 array, NaN for missing values.
    order, offsets : CSR segments of the groups (see ``fastperf.grouping``).
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
    """
    n_groups = offsets.shape[0] - 1
    stats = np.full((n_groups, 7), np.nan)
    for g in prange(n_groups):
        n = n_valid[g]
        if n == 0:
            continue
        buf = np.empty(n, dtype=np.float64)
        k = 0
        total = 0.0
        for j in range(offsets[g], offsets[g + 1]):
            v = values[order[j]]
            if not np.isnan(v):
                buf[k] = v
                total += v
                k += 1
        mean = total / n
        squares = 0.0
        for i in range(n):
            d = buf[i] - mean
            squares += d * d
        buf.sort()
        stats[g, 0] = mean
        if n > 1:
            stats[g, 1] = np.sqrt(squares / (n - 1))
        stats[g, 2] = buf[0]
        half = n // 2
        stats[g, 3] = buf[half] if n % 2 == 1 else 0.5 * (buf[half - 1] + buf[half])
        stats[g, 4] = buf[n - 1]
        if lower_rank[g] > 0:
            stats[g, 5] = buf[lower_rank[g] - 1]
            stats[g, 6] = buf[upper_rank[g] - 1]
    return stats
