"""The Shapiro-Wilk W test of normality, batched over CSR samples.

A port of Royston's algorithm AS R94 (Applied Statistics 44, 1995, a remark on AS 181) as scipy
runs it (``scipy/stats/statlib/swilk.f``, now ``_ansari_swilk_statistics.pyx``): the same
constants, the same order of operations, so W and p agree with ``scipy.stats.shapiro`` to
rounding. Only the uncensored test is ported (scipy never censors). Samples arrive as
``values[offsets[i]:offsets[i + 1]]``; the coefficients a_i depend only on n, so the kernel
computes them once per distinct sample size before the ``prange`` loop over samples.
"""
from __future__ import annotations

import math

import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange
from fastperf.kernels.order_statistics import sorted_copy

#: The sample sizes Royston's approximations cover.
MIN_N = 3
MAX_N = 5000

#: Status codes returned per sample; ``STATUS_MESSAGES[code]`` is the text the API reports.
OK, TOO_FEW, TOO_MANY, HAS_NAN, ZERO_RANGE, HAS_INFINITE = 0, 1, 2, 3, 4, 5
STATUS_MESSAGES = (
    "ok",
    "n < 3",
    "n > 5000",
    "NaN in input",
    "all values equal (zero range)",
    "infinite value in input",
)

# Polynomial coefficients of AS R94, stored as swilk.f stores them: [c0, c1, c2, ...] is
# c0 + c1 x + c2 x^2 + ... (see `_poly`).
_C1 = np.array([0.0, 0.221157, -0.147981, -0.207119e1, 0.4434685e1, -0.2706056e1])
_C2 = np.array([0.0, 0.42981e-1, -0.293762, -0.1752461e1, 0.5682633e1, -0.3582633e1])
_C3 = np.array([0.5440, -0.39978, 0.25054e-1, -0.6714e-3])
_C4 = np.array([0.13822e1, -0.77857, 0.62767e-1, -0.20322e-2])
_C5 = np.array([-0.15861e1, -0.31082, -0.83751e-1, 0.38915e-2])
_C6 = np.array([-0.4803, -0.82676e-1, 0.30302e-2])
_G = np.array([-0.2273e1, 0.459])
_SQRTH = math.sqrt(2.0) / 2.0
_PI6 = 6.0 / math.pi
_SMALL = 1e-19


@njit(cache=True)
def _poly(c, x):
    """c[0] + c[1] x + ... + c[m-1] x^(m-1), in swilk.f's POLY order of operations."""
    nord = c.shape[0]
    result = c[0]
    if nord == 1:
        return result
    p = x * c[nord - 1]
    if nord == 2:
        return result + p
    for j in range(nord - 2, 0, -1):
        p = (p + c[j]) * x
    return result + p


@njit(cache=True)
def _ppnd7(p):
    """The normal quantile to about 7 digits (Wichura's AS 241 PPND7), as swilk.f uses it."""
    q = p - 0.5
    if abs(q) <= 0.42:
        r = q * q
        num = q * (((-25.44106049637 * r + 41.39119773534) * r + -18.61500062529) * r
                   + 2.50662823884)
        return num / ((((3.13082909833 * r + -21.06224101826) * r + 23.08336743743) * r
                       + -8.47351093090) * r + 1.0)
    r = p
    if q > 0:
        r = 1.0 - p
    if r > 0:
        r = math.sqrt(-math.log(r))
    else:
        return 0.0
    num = ((2.32121276858 * r + 4.85014127135) * r + -2.29796479134) * r + -2.78718931138
    num /= (1.63706781897 * r + 3.54388924762) * r + 1.0
    return -num if q < 0 else num


@njit(cache=True)
def _alnorm_upper(x):
    """P(Z > x) for a standard normal Z (Hill's AS 66 ALNORM, upper tail, as swilk.f)."""
    upper = True
    z = x
    if not z > 0:  # also catches NaN, as swilk.f
        upper = False
        z = -z
    if not (z <= 7.0 or (upper and z <= 38.0)):
        return 0.0 if upper else 1.0
    y = 0.5 * z * z
    if z <= 1.28:
        tail = 0.5 - z * (0.398942280444 - 0.399903438504 * y / (
            y + 5.75885480458 - 29.8213557808 / (y + 2.62433121679 + 48.6959930692 / (
                y + 5.92885724438))))
    else:
        tail = 0.398942280385 * math.exp(-y) / (z - 3.8052e-8 + 1.00000615302 / (
            z + 3.98064794e-4 + 1.98615381364 / (z - 0.151679116635 + 5.29330324926 / (
                z + 4.8385912808 - 15.1508972451 / (z + 0.742380924027 + 30.789933034 / (
                    z + 3.99019417011))))))
    return tail if upper else 1.0 - tail


@njit(cache=True)
def shapiro_coefficients(n, a) -> None:
    """Fill ``a[:n // 2]`` with Royston's approximate coefficients a_i for a sample of n >= 3.

    ``a[i]`` weighs the difference x_(n-i) - x_(i+1) of the sorted sample (0-based i). Royston
    1992: m_i = Phi^-1((i - 3/8) / (n + 1/4)), a_i = -m_i / sqrt(m'm) for i >= 3 (i >= 2 when
    n <= 5) rescaled, and the one or two extreme coefficients from polynomials in 1 / sqrt(n).

    Parameters
    ----------
    n : int
        The sample size (>= 3).
    a : numpy.ndarray
        Written at ``a[:n // 2]``.

    Returns
    -------
    None
        The coefficients are written into `a`.

    Notes
    -----
    Royston (1992), "Approximating the Shapiro-Wilk W-test for non-normality", Statistics and
    Computing 2, 117-119 (algorithm AS R94, as scipy's ``swilk``); Shapiro & Wilk (1965),
    Biometrika 52, 591-611.
    """
    half = n // 2
    if n == 3:
        a[0] = _SQRTH
        return
    an = float(n)
    an25 = an + 0.25
    summ2 = 0.0
    for i in range(half):
        m = _ppnd7((i + 1 - 0.375) / an25)
        a[i] = m
        summ2 += m * m
    summ2 *= 2.0
    ssumm2 = math.sqrt(summ2)
    rsn = 1.0 / math.sqrt(an)
    a1 = _poly(_C1, rsn) - a[0] / ssumm2
    if n > 5:
        first_scaled = 2
        a2 = -a[1] / ssumm2 + _poly(_C2, rsn)
        fac = math.sqrt((summ2 - 2.0 * (a[0] * a[0]) - 2.0 * (a[1] * a[1]))
                        / (1.0 - 2.0 * (a1 * a1) - 2.0 * (a2 * a2)))
        a[1] = a2
    else:
        first_scaled = 1
        fac = math.sqrt((summ2 - 2.0 * (a[0] * a[0])) / (1.0 - 2.0 * (a1 * a1)))
    a[0] = a1
    scale = -1.0 / fac
    for i in range(first_scaled, half):
        a[i] *= scale


@njit(cache=True)
def _sorted_shifted(sample, shift):
    """``np.sort(sample) - shift`` (sample free of NaN)."""
    out = sorted_copy(sample)
    for i in range(out.shape[0]):
        out[i] -= shift
    return out


@njit(cache=True)
def _w_and_p(x, a):
    """W and its p-value for one sorted sample `x` (3 <= n <= 5000, range > 0) and its `a`."""
    n = x.shape[0]
    an = float(n)
    span = x[n - 1] - x[0]
    # means of the signed coefficients and of the scaled values (swilk.f's loop 50)
    sx = x[0] / span
    sa = -a[0]
    mirror = n - 2
    for i in range(1, n):
        sx += x[i] / span
        if i != mirror:
            if i < mirror:
                sa += -a[i]
            else:
                sa += a[mirror]
        mirror -= 1
    sa /= n
    sx /= n
    ssa = 0.0
    ssx = 0.0
    sax = 0.0
    mirror = n - 1
    for i in range(n):
        if i != mirror:
            if i < mirror:
                asa = -a[i] - sa
            else:
                asa = a[mirror] - sa
        else:
            asa = -sa
        xsx = x[i] / span - sx
        ssa += asa * asa
        ssx += xsx * xsx
        sax += asa * xsx
        mirror -= 1
    # W = 1 - w1, w1 written to keep its accuracy when W is near 1
    ssassx = math.sqrt(ssa * ssx)
    w1 = (ssassx - sax) * (ssassx + sax) / (ssa * ssx)
    w = 1.0 - w1

    if n == 3:  # exact: p = 1 - (6 / pi) acos(sqrt(W)), W >= 3/4
        if w < 0.75:
            return 0.75, 0.0
        return w, 1.0 - _PI6 * math.acos(math.sqrt(w))

    y = np.log(w1)  # -inf for a perfect fit, NaN if rounding made w1 < 0 (as swilk.f)
    log_n = math.log(an)
    if n <= 11:
        gamma = _poly(_G, an)
        if y >= gamma:
            return w, _SMALL
        y = -np.log(gamma - y)
        mean = _poly(_C3, an)
        sd = math.exp(_poly(_C4, an))
    else:
        mean = _poly(_C5, log_n)
        sd = math.exp(_poly(_C6, log_n))
    return w, _alnorm_upper((y - mean) / sd)


@group_kernel
def shapiro_wilk(values, offsets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shapiro-Wilk W, its p-value and a status code for every sample.

    Parameters
    ----------
    values : float64 array, the samples one after another (read only).
    offsets : int64 CSR offsets: sample ``i`` is ``values[offsets[i]:offsets[i + 1]]``.

    Returns
    -------
    w, p : float64 arrays, one entry per sample; NaN where the sample is not tested.
    status : int8 array, an index into `STATUS_MESSAGES` (``OK`` when tested).

    Notes
    -----
    The coefficients are computed first, once per distinct size in [3, 5000] present, into one
    flat table (``coef_start[n]`` locates size n's n // 2 values); then each sample is checked,
    sorted into a copy and shifted by its value at position n // 2 (before sorting), as scipy
    does so that a large common offset costs no accuracy.
    """
    n_samples = offsets.shape[0] - 1
    w = np.full(n_samples, np.nan)
    p = np.full(n_samples, np.nan)
    status = np.zeros(n_samples, dtype=np.int8)

    needed = np.zeros(MAX_N + 1, dtype=np.bool_)
    for s in range(n_samples):
        size = offsets[s + 1] - offsets[s]
        if MIN_N <= size <= MAX_N:
            needed[size] = True
    coef_start = np.zeros(MAX_N + 2, dtype=np.int64)
    for size in range(MAX_N + 1):
        coef_start[size + 1] = coef_start[size] + (size // 2 if needed[size] else 0)
    coefficients = np.empty(coef_start[MAX_N + 1])
    for size in range(MIN_N, MAX_N + 1):
        if needed[size]:
            shapiro_coefficients(size, coefficients[coef_start[size]:coef_start[size + 1]])

    for s in prange(n_samples):
        start = offsets[s]
        n = offsets[s + 1] - start
        if n < MIN_N:
            status[s] = TOO_FEW
            continue
        if n > MAX_N:
            status[s] = TOO_MANY
            continue
        code = OK
        for j in range(start, start + n):
            v = values[j]
            if np.isnan(v):
                code = HAS_NAN
                break
            if np.isinf(v):
                code = HAS_INFINITE
        if code != OK:
            status[s] = code
            continue
        sample = values[start:start + n]
        low = sample[0]
        high = sample[0]
        for j in range(1, n):
            low = min(low, sample[j])
            high = max(high, sample[j])
        if low == high:
            status[s] = ZERO_RANGE
            continue
        if np.isfinite(high - low):
            x = _sorted_shifted(sample, sample[n // 2])
        else:  # a range beyond the float64 maximum: halve first (exact; W is scale invariant)
            x = _sorted_shifted(0.5 * sample, 0.5 * sample[n // 2])
        w[s], p[s] = _w_and_p(x, coefficients[coef_start[n]:coef_start[n + 1]])
    return w, p, status
