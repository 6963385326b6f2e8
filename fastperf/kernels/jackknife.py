"""Leave-one-out order statistics for the jackknife of the BCa acceleration, without recomputing.

The BCa acceleration (Efron 1987) needs the statistic of every leave-one-out sample. Recomputing a
median from scratch each time costs O(n) per left-out value, O(n^2) in all, and a Hodges-Lehmann
shift O(n m) per left-out value, O(n m (n + m)) in all (88 s at n = m = 2000). Here the sample
(or the n m pairwise differences) is sorted once and every leave-one-out order statistic is read
off the sorted array:

* one sample: without the value at sorted position p, the value of rank r is ``s[r]`` for
  r < p and ``s[r + 1]`` otherwise (O(1) each);
* differences D = {x_a - y_b}: without x_i the m differences x_i - y_b leave D. The value of rank
  r of what remains is the smallest D[p] with ``#{D <= D[p]} - #{b: x_i - y_b <= D[p]} > r``;
  both counts are bisections (the first in sorted D, the second in sorted y, since
  x_i - y_b descends as y_b ascends: IEEE subtraction is monotone), and p lies in [r, r + m]
  (removing m values moves a rank by at most m): O(log(m) log(n m)) per rank. The same with
  the roles of x and y exchanged for leaving out y_j.

Every value is one of the float64 differences themselves (computed as ``x_a - y_b``, as the
statistic does), so the leave-one-out statistics are bit for bit those of recomputing them.
"""
import math

import numpy as np

from fastperf.kernels.builds import njit

from fastperf.kernels.resampling_scale import scale_exponent

__all__ = ["loo_ranks", "loo_difference_ranks", "jackknife_sums"]


@njit(cache=True)
def loo_ranks(x, k1, k2, out1, out2):
    """For each i, the values of rank `k1` and `k2` (0-based) of `x` without ``x[i]``.

    Parameters
    ----------
    x : numpy.ndarray
        The sample (n >= 2 values, not rearranged).
    k1, k2 : int
        Ranks in 0 .. n - 2.
    out1, out2 : numpy.ndarray
        n values each, written in the order of `x`.

    Notes
    -----
    Sorting once, O(n log n): leaving out sorted position p shifts the ranks from p on by one.
    Tied values are interchangeable, so which tied position a value holds does not matter.
    """
    n = x.shape[0]
    order = np.argsort(x)
    s = np.empty(n)
    for p in range(n):
        s[p] = x[order[p]]
    for p in range(n):
        i = order[p]
        out1[i] = s[k1] if k1 < p else s[k1 + 1]
        out2[i] = s[k2] if k2 < p else s[k2 + 1]


@njit(cache=True)
def _upper(d, v, left, right):
    """#{t < right: d[t] <= v} for ascending d, knowing it is at least `left`."""
    while left < right:
        mid = (left + right) >> 1
        if d[mid] <= v:
            left = mid + 1
        else:
            right = mid
    return left


@njit(cache=True)
def _removed_le(v, c, other, leave_x):
    """#{b: c - other[b] <= v} (`leave_x`: c = x_i, other = sorted y) or #{a: other[a] - c <= v}
    (c = y_j, other = sorted x); `other` ascends."""
    k = other.shape[0]
    left = 0
    right = k
    if leave_x:  # c - other[b] descends in b: find the first b with c - other[b] <= v
        while left < right:
            mid = (left + right) >> 1
            if c - other[mid] <= v:
                right = mid
            else:
                left = mid + 1
        return k - left
    while left < right:  # other[a] - c ascends in a: find the first a with other[a] - c > v
        mid = (left + right) >> 1
        if other[mid] - c <= v:
            left = mid + 1
        else:
            right = mid
    return left


@njit(cache=True)
def _rank_without(d, r, c, other, leave_x):
    """The value of rank r of sorted `d` without the differences of c (see `_removed_le`)."""
    total = d.shape[0]
    lo = r
    hi = min(r + other.shape[0], total - 1)
    while lo < hi:  # the smallest p whose remaining count #{remaining <= d[p]} exceeds r
        mid = (lo + hi) >> 1
        v = d[mid]
        if _upper(d, v, mid + 1, total) - _removed_le(v, c, other, leave_x) > r:
            hi = mid
        else:
            lo = mid + 1
    return d[lo]


@njit(cache=True)
def pairwise_differences(x, n, y, m, out) -> None:
    """Write the n m differences x_i - y_j of ``x[:n]`` and ``y[:m]`` into ``out[:n m]``, row by
    row (i outer, j inner): the Walsh-type differences whose median is the two-sample
    Hodges-Lehmann estimator (Hodges & Lehmann 1963, Ann. Math. Statist. 34, 598-611).
    """
    t = 0
    for a in range(n):
        xa = x[a]
        for b in range(m):
            out[t] = xa - y[b]
            t += 1


@njit(cache=True)
def loo_difference_ranks(x, y, leave_x, k1, k2, out1, out2):
    """For each left-out value, ranks `k1` and `k2` of the pairwise differences x_a - y_b left.

    Parameters
    ----------
    x, y : numpy.ndarray
        The samples (n, m >= 1 values, not rearranged).
    leave_x : bool
        Leave out each x_i in turn (the (n - 1) m differences without x_i - y_b), else each y_j
        (the n (m - 1) differences without x_a - y_j).
    k1, k2 : int
        Ranks (0-based) among the differences left.
    out1, out2 : numpy.ndarray
        One value per left-out value, in the order of `x` (`leave_x`) or `y`.

    Notes
    -----
    Holds the n m differences sorted (8 n m bytes); O(n m log(n m)) to sort them, then
    O(log(m) log(n m)) per rank and left-out value (module docstring).
    """
    n = x.shape[0]
    m = y.shape[0]
    d = np.empty(n * m)
    pairwise_differences(x, n, y, m, d)
    d.sort()
    other = np.sort(y) if leave_x else np.sort(x)
    size = n if leave_x else m
    for i in range(size):
        c = x[i] if leave_x else y[i]
        out1[i] = _rank_without(d, k1, c, other, leave_x)
        out2[i] = out1[i] if k2 == k1 else _rank_without(d, k2, c, other, leave_x)


@njit(cache=True)
def jackknife_sums(out, size):
    """(sum U^3 / size^3, sum U^2 / size^2, e) with U_i = (size - 1)(mean - out_i) 2**-e, over
    ``out[:size]`` (the terms of the BCa acceleration, as scipy's ``_bca_interval``).

    e is 0 when the largest finite |out_i| lies within 2**+-200 (the plain sums, bit for bit:
    `fastperf.kernels.resampling_scale.scale_exponent`), else its binary exponent: the values are divided by 2**e (exact) before the mean, the cubes
    and the squares, which would otherwise overflow (values near 1.8e308) or underflow (values
    near 1e-200 and below). The true sums are the first times 8**e, the second times 4**e; the
    acceleration, a ratio of the first to the second to the power 3/2, does not depend on e.
    """
    largest = 0.0
    for i in range(size):
        a = abs(out[i])
        if a > largest and a < np.inf:
            largest = a
    e = scale_exponent(largest)
    mean = 0.0
    for i in range(size):
        mean += math.ldexp(out[i], -e) if e != 0 else out[i]
    mean /= size
    s3 = 0.0
    s2 = 0.0
    for i in range(size):
        u = (size - 1) * (mean - (math.ldexp(out[i], -e) if e != 0 else out[i]))
        s3 += u * u * u
        s2 += u * u
    return s3 / float(size) ** 3, s2 / float(size) ** 2, e
