"""Sample moments per CSR segment: the kernel behind the t-tests and the F-test."""
import numpy as np
from numba import prange

from fastperf.kernels.builds import group_kernel


@group_kernel(min_rows=20_000_000, inputs=2)  # memory-bound: threads rarely pay off
def sample_moments(values, offsets) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per sample: the number of non-NaN values, of NaN values, their mean and variance.

    Parameters
    ----------
    values : numpy.ndarray
        float64 values of the CSR samples (NaN: missing).
    offsets : numpy.ndarray of int64
        CSR offsets.

    Returns
    -------
    n : numpy.ndarray of int64
        Non-NaN values per sample.
    n_nan : numpy.ndarray of int64
        NaN values per sample.
    mean : numpy.ndarray
        The mean (NaN for n = 0).
    variance : numpy.ndarray
        The variance with ddof=1 (NaN for n < 2).

    Notes
    -----
    The corrected two-pass algorithm (Chan, Golub & LeVeque 1983, "Algorithms for computing the
    sample variance: analysis and recommendations", The American Statistician 37(3), 242-247;
    R's ``mean`` refines the mean the same way): the mean m of the first pass is refined by the
    mean of the deviations d = x - m, and the variance is (sum d^2 - (sum d)^2 / n) / (n - 1).
    Accurate when the spread is tiny relative to the mean; a constant sample has its value as
    mean and variance exactly 0.
    """
    n_samples = offsets.shape[0] - 1
    n = np.zeros(n_samples, dtype=np.int64)
    n_nan = np.zeros(n_samples, dtype=np.int64)
    mean = np.full(n_samples, np.nan)
    variance = np.full(n_samples, np.nan)
    for i in prange(n_samples):
        count = 0
        total = 0.0
        low = np.inf
        high = -np.inf
        for j in range(offsets[i], offsets[i + 1]):
            v = values[j]
            if v == v:
                count += 1
                total += v
                low = min(low, v)
                high = max(high, v)
        n[i] = count
        n_nan[i] = offsets[i + 1] - offsets[i] - count
        if count == 0:
            continue
        if low == high:  # constant (or one value): exact
            mean[i] = low
            if count > 1:
                variance[i] = 0.0
            continue
        m = total / count
        deviations = 0.0
        squares = 0.0
        for j in range(offsets[i], offsets[i + 1]):
            v = values[j]
            if v == v:
                d = v - m
                deviations += d
                squares += d * d
        mean[i] = m + deviations / count
        if count > 1:
            variance[i] = max(squares - deviations * deviations / count, 0.0) / (count - 1)
    return n, n_nan, mean, variance
