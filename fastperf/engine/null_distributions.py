"""The untied null distributions of the rank-sum and signed-rank statistics, as cached
lower-half cdfs, and their tails and quantiles read by symmetry.

Used by the rank-test engine (`fastperf.engine.ranks`) for exact p-values and the
distribution-free intervals of the Hodges-Lehmann effects. The distributions are Mann & Whitney's
(1947) U, by Löffler's (1983) recurrence (`fastperf.kernels.rank_null.rank_sum_null_pmf`), and
Wilcoxon's (1945) T+ (`fastperf.kernels.rank_null.signed_rank_null_pmf`); small tails are summed
from the lower half, never formed as 1 - cdf.
"""
from __future__ import annotations

import functools

import numpy as np

from fastperf.kernels.rank_null import rank_sum_null_pmf, signed_rank_null_pmf, symmetric_tail_pairs

__all__ = ["rank_sum_cdf", "signed_rank_cdf", "symmetric_tails", "symmetric_quantile"]


@functools.lru_cache(maxsize=256)
def rank_sum_cdf(m: int, n: int) -> np.ndarray:
    """P(U <= u) for u = 0..floor(mn/2), untied rank-sum (sizes ordered: symmetric in m, n)."""
    cdf = np.cumsum(rank_sum_null_pmf(m, n))  # small tails summed directly, from 0 up
    cdf.flags.writeable = False
    return cdf


@functools.lru_cache(maxsize=256)
def signed_rank_cdf(n: int) -> np.ndarray:
    """P(T+ <= t) for t = 0..floor(n(n+1)/4), untied signed-rank without zeros."""
    cdf = np.cumsum(signed_rank_null_pmf(n))
    cdf.flags.writeable = False
    return cdf


def symmetric_tails(cdf_half: np.ndarray, total: int, k: np.ndarray):
    """(P(K <= k), P(K >= k)) of an integer statistic symmetric on 0..total from its lower half
    (`fastperf.kernels.rank_null.symmetric_tail_pairs`).

    A tail below the centre is read from the summed lower half directly; only a tail of at
    least 1/2 is formed as 1 − (a lower-half sum)."""
    k = np.asarray(k, dtype=np.int64)
    lower, upper = symmetric_tail_pairs(cdf_half, int(total), np.ascontiguousarray(k.reshape(-1)))
    return lower.reshape(k.shape), upper.reshape(k.shape)


def symmetric_quantile(cdf_half: np.ndarray, total: int, p: float) -> int:
    """The smallest k with P(K <= k) >= p (R's ``qwilcox`` / ``qsignrank``), K symmetric."""
    if p <= 0.5:
        return int(np.searchsorted(cdf_half, p * (1 - 1e-12)))
    # P(K <= k) = 1 - P(K <= total - k - 1): the smallest k with P(K <= total-k-1) <= 1 - p
    j = int(np.searchsorted(cdf_half, (1 - p) * (1 + 1e-12), side="right"))  # first cdf > 1-p
    return total - j
