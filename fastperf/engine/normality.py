"""Shapiro-Wilk engine: W, p and a status per sample of a batch, in one kernel call.

W = (Σ a_i x_(i))² / Σ (x_i − x̄)² (Shapiro & Wilk 1965), with Royston's approximations of the
coefficients and of W's null distribution (Royston 1992; AS R94, 1995). Used by
`fastperf.shapiro` and the Speedup-Test's mean protocol.
"""
from __future__ import annotations

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.kernels.normality import STATUS_MESSAGES, shapiro_wilk

__all__ = ["shapiro_wilk_samples"]


def shapiro_wilk_samples(samples: Samples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W, p and status text per sample (one kernel call for the whole batch)."""
    offsets = np.ascontiguousarray(samples.offsets, dtype=np.int64)
    w, p, codes = shapiro_wilk(samples.values, offsets, n_rows=samples.values.shape[0])
    return w, p, np.asarray(STATUS_MESSAGES)[codes]
