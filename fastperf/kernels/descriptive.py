"""Descriptive statistics per group: order statistics (the moments are ``kernels.moments``).

Groups arrive as contiguous slices ``grouped[offsets[g]:offsets[g + 1]]`` of one values array
(see ``fastperf.data.grouping``); NaN marks a missing value (a null in the Arrow column).
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, prange
from fastperf.kernels.order_statistics import move_nan_last, select


@group_kernel(min_rows=250_000, chunking=Chunking(csr=((0, 1),), per_group=(2, 3, 4)))
def order_statistics(grouped, offsets, n_valid, lower_rank, upper_rank) -> np.ndarray:
    """Min, median, max and two order statistics per group, by selection (no sort).

    Parameters
    ----------
    grouped : float64 array in group order, NaN for missing values (read only).
    offsets : int64 CSR offsets of the groups.
    n_valid : int64 array, the number of non-NaN values per group (``sample_moments``).
    lower_rank, upper_rank : int64 arrays, 1-based ranks of the order statistics wanted per
        group (0 when none): the bounds of the distribution-free median interval.

    Returns
    -------
    stats : float64 array of shape (n_groups, 5): min, median, max, x_(lower_rank),
        x_(upper_rank); NaN where undefined (no values; rank 0).

    Notes
    -----
    Each group is copied, NaN moved last, then the lower bound, the upper bound above it, and
    the median in the (narrow) band between them are found by branchless quickselect: linear
    in the group size. The mean of the two middle values is halved after the sum, or before it
    where the sum would exceed the float64 range.
    """
    n_groups = offsets.shape[0] - 1
    stats = np.full((n_groups, 5), np.nan)
    for g in prange(n_groups):
        n = n_valid[g]
        if n == 0:
            continue
        x = grouped[offsets[g]:offsets[g + 1]].copy()
        move_nan_last(x)  # the valid values are now x[:n]
        low = x[0]
        high = x[0]
        for i in range(1, n):
            low = min(low, x[i])
            high = max(high, x[i])
        stats[g, 0] = low
        stats[g, 2] = high
        # ranks 0-based; lo <= (n-1)//2 and hi >= n//2 always hold for a median interval
        lo = lower_rank[g] - 1
        hi = upper_rank[g] - 1
        band_start, band_stop = 0, n
        if lo >= 0:
            select(x, lo, np.int64(0), n)  # x[:lo] <= x[lo] <= x[lo+1:]
            select(x, hi, lo + 1, n)  # x[lo+1:hi] <= x[hi] <= x[hi+1:]
            stats[g, 3] = x[lo]
            stats[g, 4] = x[hi]
            band_start, band_stop = lo, hi + 1
        half = n // 2
        select(x, half, band_start, band_stop)
        if n % 2 == 1:
            stats[g, 1] = x[half]
        else:
            below = x[band_start]  # the largest value left of rank `half`
            for i in range(band_start + 1, half):
                below = max(below, x[i])
            middle = 0.5 * (below + x[half])
            if not np.isfinite(middle):  # below + x[half] beyond the float64 range
                middle = 0.5 * below + 0.5 * x[half]
            stats[g, 1] = middle
    return stats
