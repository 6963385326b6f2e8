"""Scale-free arithmetic for the resampling kernels: sums of squares that neither overflow nor
underflow, means of values near the float64 maximum, and the basic interval's reflection.

Values whose largest magnitude lies in [2**-`SAFE_EXPONENT`, 2**`SAFE_EXPONENT`] are summed as
they are, so ordinary data give bit for bit the results of the plain formulas; others are first
multiplied by 2**-e (e the binary exponent of the largest magnitude, so they lie in (-1, 1)),
which is exact but for values 2**1074 times smaller than the largest (they vanish against it), and
the result is scaled back. So a sample times 1e-208 gives a standard error times 1e-208, not 0
(squares of 1e-208 underflow), and values near 1.8e308 give a finite standard error.
"""
import math

import numpy as np

from fastperf.kernels.builds import njit

__all__ = ["SAFE_EXPONENT", "scale_exponent", "largest_magnitude", "spread", "scaled_variance",
           "safe_mean", "reflect", "lerp"]

#: Largest magnitudes within 2**+-SAFE_EXPONENT are used as they are: cubes of n deviations
#: (the jackknife's third moment) neither overflow nor underflow there.
SAFE_EXPONENT = 200


@njit(cache=True)
def scale_exponent(largest) -> int:
    """The power of two to divide by: 0 when `largest` (a magnitude >= 0) is 0, not finite or
    within 2**+-`SAFE_EXPONENT`, else its binary exponent (``math.frexp(largest)[1]``).

    Parameters
    ----------
    largest : float
        The largest magnitude of the values to be summed.

    Returns
    -------
    int
        e such that the values times 2**-e lie in (-1, 1) (or 0: use them as they are).
    """
    if largest > 0.0 and largest < np.inf and (largest > 2.0 ** SAFE_EXPONENT
                                               or largest < 2.0 ** -SAFE_EXPONENT):
        return math.frexp(largest)[1]
    return 0


@njit(cache=True)
def largest_magnitude(a, n) -> float:
    """max |a[:n]| over the finite values (0.0 when none)."""
    largest = 0.0
    for j in range(n):
        v = abs(a[j])
        if v > largest and v < np.inf:
            largest = v
    return largest


@njit(cache=True)
def spread(theta, count, lo, hi) -> float:
    """The standard deviation (ddof = 1) of ``theta[:count]``, finite values in [lo, hi].

    Parameters
    ----------
    theta : numpy.ndarray
        The values (the bootstrap statistics), all finite.
    count : int
        How many are used (NaN is returned for fewer than 2).
    lo, hi : float
        Their minimum and maximum.

    Returns
    -------
    float
        sqrt(sum (theta_b - mean)^2 / (count - 1)), two passes in index order; computed on the
        values times 2**-e and multiplied back by 2**e when the largest magnitude lies outside
        2**+-`SAFE_EXPONENT` (`scale_exponent`), so that it is finite and scale-equivariant
        (values near 1.8e308, or whose squares underflow).

    Notes
    -----
    The two-pass algorithm (Chan, Golub & LeVeque 1983, The American Statistician 37, 242-247);
    scaling by a power of two is exact, so the plain and the scaled computations agree wherever
    the plain one neither overflows nor underflows.
    """
    if count < 2:
        return np.nan
    e = scale_exponent(max(abs(lo), abs(hi)))
    mean = 0.0
    for b in range(count):
        mean += math.ldexp(theta[b], -e) if e != 0 else theta[b]
    mean /= count
    ss = 0.0
    for b in range(count):
        d = (math.ldexp(theta[b], -e) if e != 0 else theta[b]) - mean
        ss += d * d
    sd = math.sqrt(ss / (count - 1))
    return math.ldexp(sd, e) if e != 0 else sd


@njit(cache=True)
def scaled_variance(a, n) -> tuple[float, float, int]:
    """Mean and variance (ddof = 1) of ``a[:n]`` times 2**-e, and e; n >= 2.

    Parameters
    ----------
    a : numpy.ndarray
        The (re)sample, ``a[:n]`` used, finite values.
    n : int
        Its size, at least 2.

    Returns
    -------
    mean : float
        The mean of the scaled values (the sum in index order divided by n).
    variance : float
        sum (a_j 2**-e - mean)^2 / (n - 1), two passes; exactly 0.0 when every value is equal.
    e : int
        0 when the largest magnitude lies within 2**+-`SAFE_EXPONENT` (then mean and variance
        are the plain ones, bit for bit), else its binary exponent: the mean is ``mean * 2**e``
        and the variance ``variance * 4**e``.

    Notes
    -----
    The two-pass algorithm (Chan, Golub & LeVeque 1983, "Algorithms for computing the sample
    variance", The American Statistician 37, 242-247) on values scaled by a power of two.
    """
    s = 0.0
    lo = a[0]
    hi = a[0]
    for j in range(n):
        v = a[j]
        s += v
        lo = min(lo, v)
        hi = max(hi, v)
    e = scale_exponent(max(abs(lo), abs(hi)))
    if e != 0:
        s = 0.0
        for j in range(n):
            s += math.ldexp(a[j], -e)
    mean = s / n
    if lo == hi:
        return mean, 0.0, e
    ss = 0.0
    for j in range(n):
        d = (math.ldexp(a[j], -e) if e != 0 else a[j]) - mean
        ss += d * d
    return mean, ss / (n - 1), e


@njit(cache=True)
def safe_mean(a, n) -> float:
    """The mean of ``a[:n]``: the sum in index order divided by n, or, when that sum overflows
    with finite values, the mean of the values times 2**-e times 2**e (finite wherever the
    mean is representable)."""
    s = 0.0
    for j in range(n):
        s += a[j]
    mean = s / n
    if mean - mean == 0.0:
        return mean
    largest = 0.0
    for j in range(n):
        v = abs(a[j])
        if not v < np.inf:  # an infinite (or NaN) value: the plain mean is the answer
            return mean
        largest = max(largest, v)
    e = math.frexp(largest)[1]
    s = 0.0
    for j in range(n):
        s += math.ldexp(a[j], -e)
    return math.ldexp(s / n, e)


@njit(cache=True)
def reflect(theta_hat, v) -> float:
    """2 theta_hat - v, the basic interval's limit from the quantile v: as written (one
    rounding) where finite, else theta_hat + (theta_hat - v), finite wherever the limit is
    representable (inf only when it lies beyond the float64 range)."""
    r = 2.0 * theta_hat - v
    if r - r == 0.0:
        return r
    return theta_hat + (theta_hat - v)


@njit(cache=True)
def lerp(a, b, t) -> float:
    """numpy's ``_lerp`` (used by ``np.quantile``'s linear method), a <= b, t in [0, 1).

    With an infinite end (the studentized method's t* of a zero-standard-error resample) the
    limit of a + (b - a) t: a when t == 0 or a == b, else the infinite end (NaN for -inf, +inf),
    where numpy's arithmetic would give NaN. With finite ends whose difference overflows (about
    -1.8e308 and 1.8e308), the same formula on the halves, doubled (exact): a finite value.
    """
    d = b - a
    if not (d - d == 0.0):
        if a - a == 0.0 and b - b == 0.0:  # finite ends, b - a beyond the float64 range
            h = math.ldexp(a, -1)
            d = math.ldexp(b, -1) - h
            return math.ldexp(math.ldexp(b, -1) - d * (1.0 - t) if t >= 0.5 else h + d * t, 1)
        if t == 0.0 or a == b:  # an infinite end: the values are never NaN here
            return a
        if a == -np.inf:
            return a if b != np.inf else np.nan
        return b
    if t >= 0.5:
        return b - d * (1.0 - t)
    return a + d * t
