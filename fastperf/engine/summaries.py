"""Per-sample order summaries of a batch (one kernel call): the minimum and the median, the
execution times the Speedup-Test and SPARC compare (Touati, Worms & Briais 2013; seed 002)."""
from __future__ import annotations

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.kernels.descriptive import order_statistics

__all__ = ["min_median", "midpoint"]


def min_median(samples: Samples) -> tuple[np.ndarray, np.ndarray]:
    sizes = samples.sizes
    none = np.zeros(sizes.shape[0], dtype=np.int64)
    stats = order_statistics(samples.values, samples.offsets, sizes, none, none,
                             n_rows=samples.values.shape[0])
    return stats[:, 0], stats[:, 1]


def midpoint(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """(low + high) / 2 of each pair, halved before adding where the sum overflows: the median
    of an even count from its two middle values, finite whenever both are.

    Parameters
    ----------
    low, high : numpy.ndarray of float64
        The two middle values (NaN passes through).

    Returns
    -------
    numpy.ndarray of float64

    Notes
    -----
    No formula beyond the mean of two: (a + b) / 2 is correctly rounded when a + b is finite;
    where it overflows with a and b finite, 0.5 a + 0.5 b (exact halvings above the subnormals,
    so within one rounding).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # inf + -inf: NaN, as float arithmetic
        total = low + high
        overflowed = np.isinf(total) & np.isfinite(low) & np.isfinite(high)
        return np.where(overflowed, 0.5 * low + 0.5 * high, total / 2.0)
