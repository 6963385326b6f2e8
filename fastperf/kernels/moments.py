"""Sample moments per CSR segment: the kernel behind the t-tests, the F-test, ANOVA and describe.

Values are scaled by a power of two before summing where their magnitude could overflow (or
underflow) a sum of squares, so finite values always give a finite mean and a scaled variance
that is finite; `scaled_moments` returns that scale, `sample_moments` the variance itself.
"""
import math

import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange

#: Values whose largest magnitude lies in [2**-SAFE_EXPONENT, 2**SAFE_EXPONENT] are summed as
#: they are (sums of n squares of deviations cannot overflow or underflow there); others are
#: scaled by a power of two first.
SAFE_EXPONENT = 300

#: From this many values the moments of many samples (`sample_moments`, `scaled_moments`,
#: `segment_means`) run in chunks of samples on threads: the two-pass moments cost about 3.5 ns
#: a value (5M values: 17 ms), their divisions and scaling checks more than the memory traffic.
MOMENTS_THREADED_MIN_ROWS = 1_000_000


@njit(cache=True, inline="always")
def neumaier_add(total, compensation, value):
    """One step of Neumaier's compensated sum: (total + value, the running rounding error)."""
    t = total + value
    if abs(total) >= abs(value):
        compensation += (total - t) + value
    else:
        compensation += (value - t) + total
    return t, compensation


@njit(cache=True, inline="always")
def two_product(a, b):
    """a * b as an unevaluated sum p + e, exactly (Dekker 1971, "A floating-point technique for
    extending the available precision", Numer. Math. 18, 224-242; Veltkamp's splitting)."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    t = split * a
    a_high = t - (t - a)
    a_low = a - a_high
    t = split * b
    b_high = t - (t - b)
    b_low = b - b_high
    return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


@njit(cache=True, inline="always")
def two_sum(a, b):
    """a + b as an unevaluated sum s + e, exactly, whatever their magnitudes (Knuth's TwoSum;
    Knuth 1969, "The Art of Computer Programming" vol. 2, 4.2.2)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True, inline="always")
def compensated_mean(total, compensation, count):
    """(total + compensation) / count as an unevaluated sum mean + error: the rounding of the
    quotient corrected once by its exact residual (`two_product`), so the mean is that of the
    compensated sum to about an ulp, and mean + error to about an ulp of the ulp (`two_sum`)."""
    high = total + compensation
    low = compensation - (high - total)  # high + low == total + compensation exactly
    m = high / count
    p, e = two_product(m, float(count))
    return two_sum(m, (((high - p) - e) + low) / count)


@njit(cache=True)
def segment_moments(values, start, stop):
    """Count, mean, scaled variance and scale exponent of the non-NaN values[start:stop].

    Parameters
    ----------
    values : numpy.ndarray
        float64 values (NaN: missing).
    start, stop : int
        The segment.

    Returns
    -------
    count : int
        Non-NaN values.
    mean : float
        Their mean (NaN for count 0; inf or NaN when a value is infinite).
    scaled_mean : float
        The mean of the values times 2**-exponent (exact where `mean` is subnormal).
    scaled_mean_error : float
        The rounding error of `scaled_mean`: ``scaled_mean + scaled_mean_error`` is the mean of
        the scaled values to about an ulp of the ulp (0 for a constant sample or a mean that is
        not finite). Differences of means far smaller than the means keep their precision with
        it (the between-alternatives sum of squares of `anova`).
    variance : float
        The variance with ddof=1 of the values times 2**-exponent (NaN for count < 2): the
        variance is ``variance * 4.0**exponent``.
    exponent : int
        0 when the values are summed as they are (their largest magnitude within
        2**±`SAFE_EXPONENT`, or a value infinite), else the binary exponent of the largest
        magnitude (scaled values lie in (-1, 1)).

    Notes
    -----
    The mean is the first pass's compensated sum over n (Neumaier 1974, "Rundungsfehleranalyse
    einiger Verfahren zur Summation endlicher Summen", ZAMM 54, 39-51: the rounding error of
    each addition is carried along, so the sum is accurate to about one rounding whatever the
    cancellation). The variance is the corrected two-pass algorithm (Chan, Golub & LeVeque 1983,
    "Algorithms for computing the sample variance: analysis and recommendations", The American
    Statistician 37(3), 242-247): with the deviations d = x - m from that mean,
    (sum d^2 - (sum d)^2 / n) / (n - 1). Accurate when the spread is tiny relative to the mean;
    a constant sample has its value as mean and variance exactly 0. (The mean is not refined by
    the mean deviation, as R's ``mean`` does: where the values cancel, each d carries its own
    rounding, and that refinement moved correctly rounded means by 1e-14.) Scaling by a power
    of two is exact (but for values 2**1074 times smaller than the largest, which vanish
    against it), so the results are those of the unscaled algorithm wherever that one neither
    overflows nor underflows.
    """
    count = 0
    total = 0.0
    compensation = 0.0
    low = np.inf
    high = -np.inf
    for j in range(start, stop):
        v = values[j]
        if v == v:
            count += 1
            total, compensation = neumaier_add(total, compensation, v)
            low = min(low, v)
            high = max(high, v)
    if count == 0:
        return 0, np.nan, np.nan, 0.0, np.nan, 0
    if low == high:  # constant (or one value): exact
        return count, low, low, 0.0, (0.0 if count > 1 else np.nan), 0
    largest = max(abs(low), abs(high))
    exponent = 0
    scale = 1.0
    if largest < np.inf and (largest > 2.0 ** SAFE_EXPONENT
                             or largest < 2.0 ** -SAFE_EXPONENT):
        exponent = math.frexp(largest)[1]
        total = 0.0
        compensation = 0.0
        for j in range(start, stop):
            v = values[j]
            if v == v:
                total, compensation = neumaier_add(total, compensation, math.ldexp(v, -exponent))
        scale = 0.0  # marks the scaled pass below
    m = total / count
    error = 0.0
    if m - m == 0.0:  # finite: the mean of the compensated sum (an infinite one stays as it is)
        m, error = compensated_mean(total, compensation, count)
    deviations = 0.0
    squares = 0.0
    for j in range(start, stop):
        v = values[j]
        if v == v:
            if scale == 0.0:
                v = math.ldexp(v, -exponent)
            d = v - m
            deviations += d
            squares += d * d
    scaled = m
    if exponent != 0:
        # the mean of values within [low, high] lies there: rounding must not push it out
        m = min(max(math.ldexp(scaled, exponent), low), high)
    variance = np.nan
    if count > 1:
        variance = max(squares - deviations * deviations / count, 0.0) / (count - 1)
    return count, m, scaled, error, variance, exponent


@group_kernel(min_rows=MOMENTS_THREADED_MIN_ROWS, inputs=2, chunking=Chunking(csr=((0, 1),)))
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
        The mean (NaN for n = 0); finite whenever the values are.
    variance : numpy.ndarray
        The variance with ddof=1 (NaN for n < 2); inf where it exceeds the float64 range
        (`scaled_moments` gives it scaled, finite).

    Notes
    -----
    `segment_moments` per sample: the corrected two-pass algorithm of Chan, Golub & LeVeque
    (1983) on values scaled by a power of two where they could overflow.
    """
    n_samples = offsets.shape[0] - 1
    n = np.zeros(n_samples, dtype=np.int64)
    n_nan = np.zeros(n_samples, dtype=np.int64)
    mean = np.full(n_samples, np.nan)
    variance = np.full(n_samples, np.nan)
    for i in prange(n_samples):
        count, m, _, _, v, exponent = segment_moments(values, offsets[i], offsets[i + 1])
        n[i] = count
        n_nan[i] = offsets[i + 1] - offsets[i] - count
        mean[i] = m
        variance[i] = math.ldexp(v, 2 * exponent) if exponent != 0 else v
    return n, n_nan, mean, variance


@group_kernel(min_rows=MOMENTS_THREADED_MIN_ROWS, inputs=2, chunking=Chunking(csr=((0, 1),)))
def scaled_moments(values, offsets):
    """`sample_moments` with the variance kept scaled: finite for any finite values.

    Parameters
    ----------
    values : numpy.ndarray
        float64 values of the CSR samples (NaN: missing).
    offsets : numpy.ndarray of int64
        CSR offsets.

    Returns
    -------
    n, n_nan, mean : numpy.ndarray
        As `sample_moments`.
    scaled_mean : numpy.ndarray
        The mean of the values times 2**-exponent (exact where the mean is subnormal).
    variance : numpy.ndarray
        The variance with ddof=1 of the values times 2**-exponent (NaN for n < 2).
    exponent : numpy.ndarray of int64
        Per sample: the variance is ``variance * 4.0**exponent`` and the standard deviation
        ``sqrt(variance) * 2.0**exponent`` (0 for ordinary magnitudes).
    scaled_mean_error : numpy.ndarray
        The rounding error of `scaled_mean` (``segment_moments``): ``scaled_mean +
        scaled_mean_error`` is the scaled mean to about an ulp of the ulp (0 for n = 0, a
        constant sample or a mean that is not finite).

    Notes
    -----
    `segment_moments` per sample (Chan, Golub & LeVeque 1983, with power-of-two scaling).
    """
    n_samples = offsets.shape[0] - 1
    n = np.zeros(n_samples, dtype=np.int64)
    n_nan = np.zeros(n_samples, dtype=np.int64)
    mean = np.full(n_samples, np.nan)
    scaled_mean = np.full(n_samples, np.nan)
    variance = np.full(n_samples, np.nan)
    exponents = np.zeros(n_samples, dtype=np.int64)
    errors = np.zeros(n_samples)
    for i in prange(n_samples):
        count, m, ms, error, v, exponent = segment_moments(values, offsets[i], offsets[i + 1])
        n[i] = count
        n_nan[i] = offsets[i + 1] - offsets[i] - count
        mean[i] = m
        scaled_mean[i] = ms
        variance[i] = v
        exponents[i] = exponent
        errors[i] = error
    return n, n_nan, mean, scaled_mean, variance, exponents, errors


@njit(cache=True)
def welford_mean(values, start, stop):
    """Count, mean and sum of squared deviations of the non-NaN values[start:stop] by Welford's
    updates (0, 0.0, 0.0 for none)."""
    count = 0
    m = 0.0
    m2 = 0.0
    for j in range(start, stop):
        v = values[j]
        if v != v:
            continue
        count += 1
        d = v - m
        m += d / count
        m2 += d * (v - m)
    return count, m, m2


@group_kernel(min_rows=20_000_000, inputs=4)  # memory-bound: threads rarely pay off
def unit_moments(values, starts, offsets, parent_offsets):
    """Per CSR segment (a process, a round): the moments a nested analysis needs, in one pass,
    on the scale of its parent group (a benchmark and variant).

    Parameters
    ----------
    values : numpy.ndarray
        float64 values (NaN: missing): segment ``i`` is ``values[starts[i]:starts[i] +
        offsets[i + 1] - offsets[i]]`` (a table's column read in place where each segment is
        one run of its rows, or the values gathered into segment order).
    starts : numpy.ndarray of int64
        The first value of each segment.
    offsets : numpy.ndarray of int64
        CSR offsets of the segments' sizes.
    parent_offsets : numpy.ndarray of int64
        CSR offsets of the parent groups into the segments (each parent one or more
        consecutive segments).

    Returns
    -------
    n : numpy.ndarray of float64
        Non-NaN values per segment.
    mean : numpy.ndarray
        Their mean (NaN for n = 0).
    scale_mean, scale_squares : numpy.ndarray
        The mean (NaN for n = 0) and sum of squared deviations from it (0 for n < 2) on the
        parent's scale: of the values' logs where every value of the parent is > 0, else of the
        values.
    log_scale : numpy.ndarray of bool
        Per parent: whether its scale is the log scale.

    Notes
    -----
    Welford's updates (Welford 1962, "Note on a method for calculating corrected sums of
    squares and products", Technometrics 4, 419-420): no sum of squares can overflow for
    finite values of one sign. A parent with a value <= 0 has its segments' values summed a
    second time, as values (the same updates, so the same figures).
    """
    n_samples = offsets.shape[0] - 1
    n_parents = parent_offsets.shape[0] - 1
    n = np.zeros(n_samples)
    mean = np.full(n_samples, np.nan)
    scale_mean = np.full(n_samples, np.nan)
    scale_squares = np.zeros(n_samples)
    log_scale = np.ones(n_parents, dtype=np.bool_)
    for p in prange(n_parents):
        every_log = True
        for i in range(parent_offsets[p], parent_offsets[p + 1]):
            count = 0
            count_log = 0
            m = 0.0
            ml = 0.0
            ml2 = 0.0
            start = starts[i]
            for j in range(start, start + offsets[i + 1] - offsets[i]):
                v = values[j]
                if v != v:
                    continue
                count += 1
                m += (v - m) / count
                if v > 0.0:
                    lv = math.log(v)
                    count_log += 1
                    dl = lv - ml
                    ml += dl / count_log
                    ml2 += dl * (lv - ml)
            n[i] = count
            if count > 0:
                mean[i] = m
            if count_log > 0:
                scale_mean[i] = ml
                scale_squares[i] = ml2
            every_log = every_log and count_log == count
        log_scale[p] = every_log
        if not every_log:
            for i in range(parent_offsets[p], parent_offsets[p + 1]):
                count, m, m2 = welford_mean(values, starts[i],
                                            starts[i] + offsets[i + 1] - offsets[i])
                scale_mean[i] = m if count > 0 else np.nan
                scale_squares[i] = m2
    return n, mean, scale_mean, scale_squares, log_scale


@group_kernel(min_rows=MOMENTS_THREADED_MIN_ROWS, inputs=2, chunking=Chunking(csr=((0, 1),)))
def segment_means(values, offsets):
    """Per CSR segment: the number of non-NaN values and their mean, by Welford's updates (the
    figures `unit_moments` gives).

    Parameters
    ----------
    values : numpy.ndarray
        float64 values of the CSR segments (NaN: missing).
    offsets : numpy.ndarray of int64
        CSR offsets.

    Returns
    -------
    n : numpy.ndarray of int64
        Non-NaN values per segment.
    mean : numpy.ndarray
        Their mean (NaN for n = 0).

    Notes
    -----
    Welford (1962), as `unit_moments`.
    """
    n_samples = offsets.shape[0] - 1
    n = np.zeros(n_samples, dtype=np.int64)
    mean = np.full(n_samples, np.nan)
    for i in prange(n_samples):
        count, m, _ = welford_mean(values, offsets[i], offsets[i + 1])
        n[i] = count
        if count > 0:
            mean[i] = m
    return n, mean
