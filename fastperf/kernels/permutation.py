"""Permutation tests, batched: per test, the observed statistic and the counts of rearranged
statistics at most / at least as large (scipy's ``permutation_test`` conventions).

Independent samples: the pooled values are reassigned to two samples of the original sizes
(exact: every combination of positions for the first sample, in lexicographic order; sampled: a
partial Fisher-Yates shuffle). Paired samples: the signs of the differences are flipped (exact:
every sign pattern, the bits of 0 .. 2**n - 1; sampled: one fair coin per difference). Sampled
resample ``b`` of test ``t`` is a pure function of ``stream_key(seed, identities[t], b)``, with
``identities[t]`` the test's identity (its group's key values, `fastperf.data.identity`; its
position for arrays), so results depend neither on threads nor on the other tests. Memory is O(n) per test in flight; no null distribution is stored.
"""
import math

import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange
from fastperf.kernels.order_statistics import select
from fastperf.kernels.random import integer_below, stream_key, uniform

#: Statistic codes.
MEAN_DIFF = 0
MEDIAN_DIFF = 1

#: The tie tolerance, in machine epsilons of the values' magnitude: a rearranged statistic within
#: ``gamma = TIE_EPSILONS * eps * M`` of the observed one counts as equal to it, M the largest
#: |value| the statistic is computed from (for paired tests, the largest |x_i| + |y_i|). It
#: bounds, with a margin, how far rounding can set apart two statistics that are equal in exact
#: arithmetic on the (decimal) values the floats stand for: each value rounded, u |v| (u =
#: eps / 2), then each statistic's own arithmetic (compensated sums, `_sum`; a division; a
#: subtraction): at most 11 eps M in all (docs/resampling.md, "Ties"). Statistics truly
#: different by more than (16 + 11) eps M ~ 6e-15 M are never counted as ties. scipy's
#: tolerance, 100 eps |observed|, scales with the statistic instead: it misses these ties
#: where |observed| << M (near 0, as on tied data), and the p-value then depended on the
#: values' order.
TIE_EPSILONS = 16.0
_TIE = np.finfo(np.float64).eps * TIE_EPSILONS


@njit(cache=True)
def _binary_exponent(x, y):
    """``e`` with every finite |value| of x and y below ``2**e`` (0 when all are 0): dividing
    by ``2**e`` is exact (barring subnormals) and keeps sums of values near 1.8e308 finite."""
    largest = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        if a > largest and a < np.inf:
            largest = a
    for i in range(y.shape[0]):
        a = abs(y[i])
        if a > largest and a < np.inf:
            largest = a
    return math.frexp(largest)[1]


@njit(cache=True)
def _largest_magnitude(values):
    """The largest |value| of `values` (0 when empty)."""
    largest = 0.0
    for i in range(values.shape[0]):
        a = abs(values[i])
        if a > largest:
            largest = a
    return largest


@njit(cache=True)
def _sum(values, lo, hi):
    """Sum of ``values[lo:hi]`` with the rounding error of each addition carried exactly
    (Knuth's TwoSum, branch-free) and added at the end: Ogita, Rump & Oishi (2005)'s Sum2,
    error at most u |sum| + (n u)**2 sum |value| whatever the values' order (the tie tolerance
    relies on it)."""
    total = 0.0
    compensation = 0.0
    for i in range(lo, hi):
        v = values[i]
        t = total + v
        back = t - total
        compensation += (total - (t - back)) + (v - back)
        total = t
    return total + compensation


@njit(cache=True)
def _median(buf, lo, hi):
    """Median of ``buf[lo:hi]`` (rearranged in place), as ``np.median``."""
    m = hi - lo
    if m % 2 == 1:
        k = lo + m // 2
        select(buf, k, lo, hi)
        return buf[k]
    k = lo + m // 2 - 1
    select(buf, k, lo, hi)
    upper = buf[k + 1]
    for i in range(k + 2, hi):
        if buf[i] < upper:
            upper = buf[i]
    return (buf[k] + upper) / 2.0


@njit(cache=True)
def _two_sample_statistic(arranged, n1, statistic, work, total):
    """The statistic of x = ``arranged[:n1]``, y = ``arranged[n1:]``; `total` is the sum of
    all the values (`_sum`): a mean difference sums the smaller sample only (the half or less
    of the values a random rearrangement moves to its end of `arranged`), the larger one's sum
    being `total` less it (error at most u (|total| + |sums|), 4u max |value| in its mean)."""
    n = arranged.shape[0]
    n2 = n - n1
    if statistic == MEAN_DIFF:
        if n1 <= n2:
            sx = _sum(arranged, 0, n1)
            return sx / n1 - (total - sx) / n2
        sy = _sum(arranged, n1, n)
        return (total - sy) / n1 - sy / n2
    for i in range(n):
        work[i] = arranged[i]
    return _median(work, 0, n1) - _median(work, n1, n)


@njit(cache=True)
def _signed_statistic(work, statistic):
    """The statistic of the (signed) differences in `work` (rearranged for the median)."""
    n = work.shape[0]
    if statistic == MEAN_DIFF:
        return _sum(work, 0, n) / n
    return _median(work, 0, n)


@njit(cache=True)
def _independent(x, y, statistic, exact, n_resamples, seed, identity):
    """(observed, n_less, n_greater, n_total) of one two-sample test."""
    n1 = x.shape[0]
    n2 = y.shape[0]
    n = n1 + n2
    pooled = np.empty(n)
    e = _binary_exponent(x, y)  # the statistics of the values / 2**e (exact), scaled back
    for i in range(n1):  # element loops: a slice assignment compiles Numba's shape-error text
        pooled[i] = math.ldexp(x[i], -e)
    for i in range(n2):
        pooled[n1 + i] = math.ldexp(y[i], -e)
    arranged = np.empty(n)
    work = np.empty(n)
    total_sum = _sum(pooled, 0, n)
    observed = _two_sample_statistic(pooled, n1, statistic, work, total_sum)
    if statistic == MEAN_DIFF:  # reported: each mean from its own sum, the more accurate
        reported = math.ldexp(_sum(pooled, 0, n1) / n1 - _sum(pooled, n1, n) / n2, e)
    else:
        reported = math.ldexp(observed, e)
    gamma = _TIE * _largest_magnitude(pooled)  # the values' magnitude, not the statistic's
    low = observed + gamma
    high = observed - gamma
    n_less = 0
    n_greater = 0
    total = 0
    if exact:
        idx = np.arange(n1)
        chosen = np.zeros(n, dtype=np.bool_)
        while True:
            chosen[:] = False
            for j in range(n1):
                chosen[idx[j]] = True
            a = 0
            c = n1
            for i in range(n):
                if chosen[i]:
                    arranged[a] = pooled[i]
                    a += 1
                else:
                    arranged[c] = pooled[i]
                    c += 1
            s = _two_sample_statistic(arranged, n1, statistic, work, total_sum)
            n_less += s <= low
            n_greater += s >= high
            total += 1
            i = n1 - 1
            while i >= 0 and idx[i] == n - n1 + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, n1):
                idx[j] = idx[j - 1] + 1
        return reported, n_less, n_greater, total
    for b in range(n_resamples):
        key = stream_key(seed, identity, b)
        for i in range(n):
            arranged[i] = pooled[i]
        if n1 <= n2:  # a uniform random subset of n1 positions at the front
            for i in range(n1):
                j = i + integer_below(key, i, n - i)
                v = arranged[i]
                arranged[i] = arranged[j]
                arranged[j] = v
        else:  # a uniform random subset of n2 positions at the back
            for i in range(n2):
                p = n - 1 - i
                j = integer_below(key, i, p + 1)
                v = arranged[p]
                arranged[p] = arranged[j]
                arranged[j] = v
        s = _two_sample_statistic(arranged, n1, statistic, work, total_sum)
        n_less += s <= low
        n_greater += s >= high
    return reported, n_less, n_greater, n_resamples


@njit(cache=True)
def _paired(d, half_magnitude, statistic, exact, n_resamples, seed, identity):
    """(observed, n_less, n_greater, n_total) of one sign-flip test of the differences `d`,
    `half_magnitude` half the largest |x_i| + |y_i| of the pairs, in the units of `d`."""
    n = d.shape[0]
    e = _binary_exponent(d, d[:0])  # the statistics of d / 2**e (exact), scaled back
    scaled = np.empty(n)
    for i in range(n):
        scaled[i] = math.ldexp(d[i], -e)
    d = scaled
    work = np.empty(n)
    for i in range(n):
        work[i] = d[i]
    observed = _signed_statistic(work, statistic)
    reported = math.ldexp(observed, e)
    # the rounding of x_i - y_i scales with |x_i| + |y_i|, which may dwarf |d_i| (inf when the
    # differences are far below it: then every rearrangement ties, as none can be told apart)
    magnitude = max(_largest_magnitude(d), math.ldexp(half_magnitude, 1 - e))
    gamma = _TIE * magnitude
    low = observed + gamma
    high = observed - gamma
    n_less = 0
    n_greater = 0
    if exact:
        total = 1 << n
        for mask in range(total):
            for i in range(n):
                work[i] = -d[i] if (mask >> i) & 1 else d[i]
            s = _signed_statistic(work, statistic)
            n_less += s <= low
            n_greater += s >= high
        return reported, n_less, n_greater, total
    for b in range(n_resamples):
        key = stream_key(seed, identity, b)
        for i in range(n):
            work[i] = -d[i] if uniform(key, i) < 0.5 else d[i]
        s = _signed_statistic(work, statistic)
        n_less += s <= low
        n_greater += s >= high
    return reported, n_less, n_greater, n_resamples


@group_kernel
def permutation_counts(x_values, x_offsets, y_values, y_offsets, valid, exact, paired,
                       statistic, n_resamples, seed, identities, half_magnitudes
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per test t (CSR segments of x and y): the observed statistic and the counts of
    rearranged statistics ``<= observed + gamma`` and ``>= observed - gamma`` (gamma =
    `TIE_EPSILONS` eps M, M the largest |value| of the test, or for paired tests the largest
    |x_i| + |y_i|: a bound on the rounding of statistics equal in exact arithmetic), with the
    number of rearrangements counted.

    `paired`: x holds the differences (y is unused); else x and y are the two samples.
    `exact[t]`: enumerate every rearrangement (the identity included) instead of drawing
    `n_resamples`. Tests with ``valid[t]`` False get NaN and zero counts.

    Parameters
    ----------
    x_values, y_values : numpy.ndarray
        float64 values of the two batches (y unused when `paired`).
    x_offsets, y_offsets : numpy.ndarray of int64
        Their CSR offsets.
    valid : numpy.ndarray of bool
        Which tests to run.
    exact : numpy.ndarray of bool
        Which tests enumerate every rearrangement.
    paired : bool
        Sign flips of the differences x instead of relabellings of x and y.
    statistic : int
        The statistic code.
    n_resamples : int
        Random rearrangements per test when not exact.
    seed : int
        The 64-bit seed of the counter-based stream.
    identities : numpy.ndarray of uint64
        The identity of each test (`fastperf.data.identity`): test t's streams are keyed by
        ``identities[t]``, so its result does not depend on the other tests, their order or
        the chunk it runs in.
    half_magnitudes : numpy.ndarray of float64
        Paired tests: half the largest |x_i| + |y_i| of the test's pairs, in the units of its
        differences (a quarter where they are halved); the rounding of the differences scales
        with it. Unused for two samples (M is then the largest |value|).

    Returns
    -------
    observed : numpy.ndarray
        The observed statistic per test.
    n_less, n_greater : numpy.ndarray of int64
        The rearranged statistics <= observed + gamma and >= observed - gamma.
    n_total : numpy.ndarray of int64
        The rearrangements counted.

    Notes
    -----
    Fisher (1935) and Pitman (1937) permutation tests; the counting as
    ``scipy.stats.permutation_test``, but scipy's tolerance, 100 eps |observed|, scales with the
    statistic where the rounding scales with the values (ties missed when |observed| << M, as
    near 0; the bounds behind `TIE_EPSILONS` in docs/resampling.md, "Ties"); sums are Ogita,
    Rump & Oishi's (2005) Sum2 (`_sum`); each test's values are divided by one power of 2 (exact)
    before summing and the observed statistic multiplied back, so values near 1.8e308 give a
    finite statistic wherever it is representable (inf where it is not); random rearrangements give p = (count + 1) / (B + 1)
    (Phipson & Smyth 2010) in the caller.
    """
    m = x_offsets.shape[0] - 1
    observed = np.full(m, np.nan)
    n_less = np.zeros(m, dtype=np.int64)
    n_greater = np.zeros(m, dtype=np.int64)
    n_total = np.zeros(m, dtype=np.int64)
    for t in prange(m):
        if not valid[t]:
            continue
        x = x_values[x_offsets[t]:x_offsets[t + 1]]
        if paired:
            o, lo, hi, tot = _paired(x, half_magnitudes[t], statistic, exact[t], n_resamples,
                                     seed, identities[t])
        else:
            y = y_values[y_offsets[t]:y_offsets[t + 1]]
            o, lo, hi, tot = _independent(x, y, statistic, exact[t], n_resamples, seed,
                                          identities[t])
        observed[t] = o
        n_less[t] = lo
        n_greater[t] = hi
        n_total[t] = tot
    return observed, n_less, n_greater, n_total
