"""Per-sample order summaries of a batch (one kernel call): the minimum and the median, the
execution times the Speedup-Test and SPARC compare (Touati, Worms & Briais 2013; seed 002)."""
from __future__ import annotations

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.kernels.descriptive import order_statistics

__all__ = ["min_median"]


def min_median(samples: Samples) -> tuple[np.ndarray, np.ndarray]:
    sizes = samples.sizes
    none = np.zeros(sizes.shape[0], dtype=np.int64)
    stats = order_statistics(samples.values, samples.offsets, sizes, none, none,
                             n_rows=samples.values.shape[0])
    return stats[:, 0], stats[:, 1]
