"""Sample moments per CSR segment: the kernel behind the t-tests and the F-test."""
import numpy as np
from numba import prange

from fastperf.kernels._compile import group_kernel


@group_kernel(min_rows=20_000_000)  # memory-bound: threads rarely pay off
def sample_moments(values, offsets):
    """Per sample: the number of non-NaN values, of NaN values, their mean and variance.

    Returns ``n`` (int64), ``n_nan`` (int64), ``mean`` and ``variance`` (ddof=1; NaN for
    n < 2; mean NaN for n = 0). Two passes (the mean, then the squared deviations) keep the
    variance accurate when the spread is tiny relative to the mean.
    """
    n_samples = offsets.shape[0] - 1
    n = np.zeros(n_samples, dtype=np.int64)
    n_nan = np.zeros(n_samples, dtype=np.int64)
    mean = np.full(n_samples, np.nan)
    variance = np.full(n_samples, np.nan)
    for i in prange(n_samples):
        count = 0
        total = 0.0
        for j in range(offsets[i], offsets[i + 1]):
            v = values[j]
            if v == v:
                count += 1
                total += v
        n[i] = count
        n_nan[i] = offsets[i + 1] - offsets[i] - count
        if count == 0:
            continue
        m = total / count
        mean[i] = m
        if count < 2:
            continue
        squares = 0.0
        for j in range(offsets[i], offsets[i + 1]):
            v = values[j]
            if v == v:
                squares += (v - m) * (v - m)
        variance[i] = squares / (count - 1)
    return n, n_nan, mean, variance
