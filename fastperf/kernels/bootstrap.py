"""Bootstrap confidence intervals, batched over samples: one kernel, ``prange`` over samples.

Per sample i and resample b, the resample's indices are drawn from the counter-based stream
``stream_key(seed, identities[i], b)`` (two indices per 64-bit draw: x's n indices from the
first ceil(n/2) counters, then y's), with ``identities[i]`` the sample's identity (its group's
key values, `fastperf.data.identity`; its position for arrays), so the result depends on
(seed, identity, b) only: not on the thread count, on the other samples or on the order the
samples are processed in. Memory
in flight per sample is O(n + m) for the resample buffers (O(n m) for Hodges-Lehmann) plus the
B bootstrap statistics of that sample; no B x n index matrix is ever built.
"""
import math

import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange
from fastperf.kernels.jackknife import (
    jackknife_sums, loo_difference_ranks, loo_ranks, pairwise_differences,
)
from fastperf.kernels.order_statistics import select, sorted_copy
from fastperf.kernels.random import draw_indices, fill_indices, resample_key, sample_key
from fastperf.kernels.resampling_scale import (
    largest_magnitude, lerp as _lerp, reflect, safe_mean as _mean, scale_exponent, spread,
)
from fastperf.kernels.studentized import (
    PIVOT_DIFF, PIVOT_LOG_RATIO, PIVOT_MEAN, pivot, pivot_standard_error,
)

#: Statistic codes (the API maps names to these).
MEAN, MEDIAN, QUANTILE, MEAN_RATIO, MEDIAN_RATIO, MEAN_DIFF, MEDIAN_DIFF, HODGES_LEHMANN = range(8)
#: Method codes.
PERCENTILE, BASIC, BCA, STUDENTIZED = range(4)
#: Relative tolerance of the BCa count's ties (scipy's permutation_test: 100 eps).
_EPS100 = np.finfo(np.float64).eps * 100
#: Status codes (the API maps them to messages).
(OK, EMPTY, NAN_INPUT, TOO_FEW_BCA, DEGENERATE, NONFINITE, BCA_UNDEFINED, TOO_FEW_STUDENTIZED,
 NOT_POSITIVE, STUDENTIZED_UNDEFINED, OVERFLOW) = range(11)


@njit(cache=True)
def _ratio(a, b):
    """a / b, with IEEE results for b == 0 (Numba's default raises ZeroDivisionError)."""
    if b == 0.0:
        if a == 0.0 or a != a:
            return np.nan
        return np.inf if (a > 0) == (math.copysign(1.0, b) > 0) else -np.inf
    return a / b


@njit(cache=True)
def quantile_in_place(a, n, p, start) -> tuple[float, int]:
    """``np.quantile(a[:n], p)`` (linear), rearranging ``a[:n]``; returns (value, floor index).

    ``a[start:n]`` must hold the values of rank ``start..n-1`` (``start = 0`` in general; a
    previous call's floor index when asking a higher quantile of the same buffer).

    Parameters
    ----------
    a : numpy.ndarray
        The buffer (rearranged).
    n : int
        The values used, ``a[:n]``.
    p : float
        The probability, in [0, 1].
    start : int
        The rank from which ``a[start:n]`` holds the larger values.

    Returns
    -------
    value : float
        The quantile.
    floor : int
        floor((n - 1) p), the rank of the lower value interpolated.

    Notes
    -----
    The linear (type 7) quantile of Hyndman & Fan (1996), The American Statistician 50, 361-365,
    numpy's default; the order statistics by quickselect (Hoare 1961).
    """
    h = (n - 1) * p
    k = int(math.floor(h))
    if k > n - 1:
        k = n - 1
    g = h - k
    select(a, k, start, n)
    v = a[k]
    if k + 1 < n:
        w = a[k + 1]
        for j in range(k + 2, n):
            if a[j] < w:
                w = a[j]
        v = _lerp(v, w, g)
    return v, k


@njit(cache=True)
def _median(a, n):
    """``np.median(a[:n])``, rearranging ``a[:n]``."""
    k = n >> 1
    select(a, k, np.int64(0), n)
    if n & 1:
        return a[k]
    lo = a[0]
    for j in range(1, k):
        if a[j] > lo:
            lo = a[j]
    return (lo + a[k]) / 2.0


@njit(cache=True)
def statistic(stat, x, n, y, m, q, work) -> float:
    """The statistic of ``x[:n]`` (and ``y[:m]``); may rearrange x, y; `work` holds n*m for HL.

    Parameters
    ----------
    stat : int
        A statistic code (`MEAN`, `MEDIAN`, ...).
    x : numpy.ndarray
        The (re)sample, ``x[:n]`` used.
    n : int
        Its size.
    y : numpy.ndarray
        The second (re)sample for two-sample statistics, ``y[:m]`` used.
    m : int
        Its size.
    q : float
        The probability of `QUANTILE`.
    work : numpy.ndarray
        n m doubles for `HODGES_LEHMANN`, else unused.

    Returns
    -------
    float
        The statistic.

    Notes
    -----
    Means, medians, linear quantiles (Hyndman & Fan 1996, type 7), their ratios and differences,
    and the Hodges-Lehmann shift (Hodges & Lehmann 1963), as the API documents them.
    """
    if stat == MEAN:
        return _mean(x, n)
    if stat == MEDIAN:
        return _median(x, n)
    if stat == QUANTILE:
        return quantile_in_place(x, n, q, 0)[0]
    if stat == MEAN_RATIO:
        return _ratio(_mean(x, n), _mean(y, m))
    if stat == MEDIAN_RATIO:
        return _ratio(_median(x, n), _median(y, m))
    if stat == MEAN_DIFF:
        return _mean(x, n) - _mean(y, m)
    if stat == MEDIAN_DIFF:
        return _median(x, n) - _median(y, m)
    # HODGES_LEHMANN: median of all pairwise differences x_i - y_j
    pairwise_differences(x, n, y, m, work)
    return _median(work, n * m)


@njit(cache=True)
def _ranks_from_counts(sorted_values, counts, n, k):
    """Values of rank k and k + 1 (k + 1 clipped to n - 1) of the resample that takes
    ``sorted_values[t]`` ``counts[t]`` times.

    The value of rank r is ``sorted_values[#{t : cumsum(counts)[t] <= r}]``; one branchless pass
    over the counts gives both (no data-dependent exit to mispredict).
    """
    k2 = min(k + 1, n - 1)
    c = 0
    t1 = 0
    t2 = 0
    for t in range(counts.shape[0]):
        c += counts[t]
        t1 += c <= k
        t2 += c <= k2
    return sorted_values[t1], sorted_values[t2]


@njit(cache=True)
def _rank_from_counts(sorted_values, counts, k):
    """The value of rank k alone (see `_ranks_from_counts`)."""
    c = 0
    t1 = 0
    for t in range(counts.shape[0]):
        c += counts[t]
        t1 += c <= k
    return sorted_values[t1]


@njit(cache=True)
def _median_from_counts(sorted_values, counts, n):
    k = n >> 1
    if n & 1:
        return _rank_from_counts(sorted_values, counts, k)
    a, b = _ranks_from_counts(sorted_values, counts, n, k - 1)
    return (a + b) / 2.0


@njit(cache=True)
def counts_statistic(stat, xs, cx, n, ys, cy, m, q) -> float:
    """A median-type statistic of the resample given by counts over sorted samples.

    Parameters
    ----------
    stat : int
        `MEDIAN`, `QUANTILE`, `MEDIAN_RATIO` or `MEDIAN_DIFF`.
    xs : numpy.ndarray
        The sorted sample.
    cx : numpy.ndarray of int
        How many times the resample takes each of its values.
    n : int
        The sample size.
    ys, cy, m : as `xs`, `cx`, `n`
        The second sample, for the two-sample statistics.
    q : float
        The probability of `QUANTILE`.

    Returns
    -------
    float
        The statistic of the resample.

    Notes
    -----
    Order statistics of a resample read from the counts over the sorted sample (no copy, no
    sort); the quantile is Hyndman & Fan's (1996) type 7.
    """
    if stat == MEDIAN:
        return _median_from_counts(xs, cx, n)
    if stat == QUANTILE:
        h = (n - 1) * q
        k = int(math.floor(h))
        a, b = _ranks_from_counts(xs, cx, n, k)
        return _lerp(a, b, h - k)
    if stat == MEDIAN_RATIO:
        return _ratio(_median_from_counts(xs, cx, n), _median_from_counts(ys, cy, m))
    return _median_from_counts(xs, cx, n) - _median_from_counts(ys, cy, m)


@njit(cache=True)
def _ndtr(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@njit(cache=True)
def _jackknife_terms(stat, x, n, y, m, q, leave_x, out):
    """(Σ U³ / n³, Σ U² / n², e) over the leave-one-out values of x (`leave_x`) or y (scipy),
    the sums of values divided by 2**e (`jackknife_sums`)."""
    size = n if leave_x else m
    if stat == MEAN or stat == MEAN_RATIO or stat == MEAN_DIFF:
        # leave-one-out means from the sums: O(n), not n means of n - 1 values; huge or tiny
        # values divided by a power of two first (exact; the acceleration is free of scale)
        lx = largest_magnitude(x, n)
        ly = largest_magnitude(y, m)
        ex = scale_exponent(lx if stat == MEAN_RATIO else max(lx, ly))
        ey = scale_exponent(ly) if stat == MEAN_RATIO else ex
        sx = 0.0
        for j in range(n):
            sx += math.ldexp(x[j], -ex)
        sy = 0.0
        for j in range(m):
            sy += math.ldexp(y[j], -ey)
        for i in range(size):
            mx = (sx - math.ldexp(x[i], -ex)) / (n - 1) if leave_x else sx / n
            my = (sy / m if m > 0 else 0.0) if leave_x else (sy - math.ldexp(y[i], -ey)) / (m - 1)
            out[i] = mx if stat == MEAN else (mx - my if stat == MEAN_DIFF else _ratio(mx, my))
    else:
        leave_one_out_values(stat, x, n, y, m, q, leave_x, out)
    return jackknife_sums(out, size)


@njit(cache=True)
def leave_one_out_values(stat, x, n, y, m, q, leave_x, out):
    """``out[i]``: `statistic` of the samples without x_i (`leave_x`) or y_i, for `MEDIAN`,
    `QUANTILE`, `MEDIAN_RATIO`, `MEDIAN_DIFF`, `HODGES_LEHMANN`.

    The same values as recomputing `statistic` on each leave-one-out sample, read off sorted
    arrays by `fastperf.kernels.jackknife`: O(n log n), O(n m log(n m)) for Hodges-Lehmann
    (n, m >= 2; x, y are not rearranged).
    """
    size = n if leave_x else m
    r1 = np.empty(size)
    r2 = np.empty(size)
    if stat == HODGES_LEHMANN:
        left = (n - 1) * m if leave_x else n * (m - 1)
        k = left >> 1
        loo_difference_ranks(x, y, leave_x, k if left & 1 else k - 1, k, r1, r2)
        for i in range(size):
            out[i] = r1[i] if left & 1 else (r1[i] + r2[i]) / 2.0
        return
    if stat == QUANTILE:
        h = (n - 2) * q
        k = min(int(math.floor(h)), n - 2)
        loo_ranks(x, k, min(k + 1, n - 2), r1, r2)
        for i in range(size):
            out[i] = _lerp(r1[i], r2[i], h - k) if k + 1 < n - 1 else r1[i]
        return
    left = size - 1  # MEDIAN, MEDIAN_RATIO, MEDIAN_DIFF: the median of the sample left
    k = left >> 1
    loo_ranks(x if leave_x else y, k if left & 1 else k - 1, k, r1, r2)
    other = sorted_copy(y if leave_x else x) if stat != MEDIAN else r1
    fixed = _median(other, m if leave_x else n) if stat != MEDIAN else 0.0
    for i in range(size):
        med = r1[i] if left & 1 else (r1[i] + r2[i]) / 2.0
        if stat == MEDIAN:
            out[i] = med
        elif stat == MEDIAN_RATIO:
            out[i] = _ratio(med, fixed) if leave_x else _ratio(fixed, med)
        else:
            out[i] = med - fixed if leave_x else fixed - med


@njit(cache=True)
def acceleration(stat, x, y, two, q) -> float:
    """BCa acceleration by the jackknife, as scipy's ``_bca_interval`` (each sample in turn).

    Parameters
    ----------
    stat : int
        A statistic code.
    x, y : numpy.ndarray
        The sample(s).
    two : bool
        Whether `y` is used.
    q : float
        The probability of `QUANTILE`.

    Returns
    -------
    float
        The acceleration a = sum (mean - theta_(i))^3 / (6 (sum (mean - theta_(i))^2)^(3/2)).

    Notes
    -----
    Efron (1987), "Better bootstrap confidence intervals", J. Amer. Statist. Assoc. 82, 171-185
    (the BCa interval's acceleration by the jackknife), as scipy's ``_bca_interval``.
    """
    n = x.shape[0]
    m = y.shape[0] if two else 0
    out = np.empty(max(n, m))
    num, den, e = _jackknife_terms(stat, x, n, y, m, q, True, out)
    if two:  # the two samples' sums on the larger scale, e (the other's times 2**(. - e))
        num2, den2, e2 = _jackknife_terms(stat, x, n, y, m, q, False, out)
        top = max(e, e2)
        num = math.ldexp(num, 3 * (e - top)) + math.ldexp(num2, 3 * (e2 - top))
        den = math.ldexp(den, 2 * (e - top)) + math.ldexp(den2, 2 * (e2 - top))
    if den == 0.0:
        return 0.0  # constant jackknife values: no skewness information
    return num / 6.0 / den ** 1.5


@group_kernel
def bootstrap_intervals(xv, xo, yv, yo, two, stat, q, method, alpha, z_alpha, z_of_count, seed,
                        n_resamples, keep, distribution, identities) -> tuple[np.ndarray, ...]:
    """Bootstrap estimate, interval, standard error and BCa acceleration per sample.

    Sample i is ``xv[xo[i]:xo[i+1]]`` (and ``yv[yo[i]:yo[i+1]]`` when `two`). `alpha` is
    (1 - confidence) / 2 and `z_alpha` ``ndtri(alpha)``; `z_of_count[k]` is ``ndtri(k / (2 B))`` (z0 of the BCa interval from
    the count ``#(θ* < θ) + #(θ* <= θ)``), computed by the caller with scipy. When `keep`,
    `distribution[i]` receives the B bootstrap statistics of sample i.
    Returns (estimate, low, high, standard_error, acceleration, status code) arrays.

    Parameters
    ----------
    xv, yv : numpy.ndarray
        float64 values of the samples (and second samples).
    xo, yo : numpy.ndarray of int64
        Their CSR offsets.
    two : bool
        Two-sample statistic.
    stat : int
        A statistic code.
    q : float
        The probability of `QUANTILE`.
    method : int
        `PERCENTILE`, `BASIC`, `BCA` or `STUDENTIZED` (for `MEAN`, `MEAN_DIFF` and `MEAN_RATIO`
        only; another statistic gets the status `STUDENTIZED_UNDEFINED`).
    alpha : float
        (1 - confidence) / 2.
    z_alpha : float
        ``ndtri(alpha)``.
    z_of_count : numpy.ndarray
        ``ndtri(k / (2 B))`` for k = 0 .. 2B.
    seed : int
        The 64-bit seed of the counter-based stream.
    n_resamples : int
        B.
    keep : bool
        Whether to store the bootstrap distributions.
    distribution : numpy.ndarray
        (samples, B), written when `keep`: the statistics theta* (also for `STUDENTIZED`).
    identities : numpy.ndarray of uint64
        The identity of each sample (`fastperf.data.identity`): sample i's streams are keyed by
        ``identities[i]``, so its result does not depend on the other samples, their order or
        the chunk it runs in.

    Returns
    -------
    estimate, low, high, standard_error, acceleration : numpy.ndarray
        float64 per sample (NaN where the status is not `OK`).
    status : numpy.ndarray of int8
        A status code per sample (`OVERFLOW`: a basic or studentized limit beyond the float64
        range, computed from finite quantiles).

    Notes
    -----
    Scale free for finite values: the standard error (`resampling_scale.spread`), the
    acceleration (`jackknife_sums`) and the studentized standard errors
    (`pivot_standard_error`) are computed on values divided by a power of two where their
    largest magnitude lies outside 2**+-200; means of values near 1.8e308 are finite
    (`resampling_scale.safe_mean`); the basic limit is `resampling_scale.reflect`.
    Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13-14 (percentile, basic
    and BCa intervals); Efron (1987) for BCa; the arithmetic as ``scipy.stats.bootstrap``. The
    studentized interval (Efron & Tibshirani 1993, ch. 12.5; Davison & Hinkley 1997, eq. 5.7;
    second-order accurate, Hall 1988, Ann. Statist. 16, 927-953) is
    [phi_hat - t*_(1-alpha) se_hat, phi_hat - t*_(alpha) se_hat] with t*_b = (phi*_b - phi_hat) /
    se*_b (`fastperf.kernels.studentized.pivot`: t* = 0 or +-inf when se*_b = 0), the quantiles
    by `quantile_in_place`; phi = log theta for `MEAN_RATIO`, the interval exponentiated back.
    """
    size = xo.shape[0] - 1
    B = n_resamples
    estimate = np.full(size, np.nan)
    low = np.full(size, np.nan)
    high = np.full(size, np.nan)
    se = np.full(size, np.nan)
    accel = np.full(size, np.nan)
    status = np.zeros(size, dtype=np.int8)
    for i in prange(size):
        x = xv[xo[i]:xo[i + 1]]
        y = yv[yo[i]:yo[i + 1]] if two else yv[0:0]
        n = x.shape[0]
        m = y.shape[0] if two else 0
        if n == 0 or (two and m == 0):
            status[i] = EMPTY
            continue
        has_nan = False
        for j in range(n):
            if x[j] != x[j]:
                has_nan = True
        for j in range(m):
            if y[j] != y[j]:
                has_nan = True
        if has_nan:
            status[i] = NAN_INPUT
            continue
        bx = np.empty(n)
        by = np.empty(m)
        work = np.empty(n * m if stat == HODGES_LEHMANN else 0)
        for j in range(n):
            bx[j] = x[j]
        for j in range(m):
            by[j] = y[j]
        theta_hat = statistic(stat, bx, n, by, m, q, work)
        estimate[i] = theta_hat
        if method == BCA and (n < 2 or (two and m < 2)):
            status[i] = TOO_FEW_BCA
            continue
        student = method == STUDENTIZED
        kind = PIVOT_MEAN if stat == MEAN else (PIVOT_DIFF if stat == MEAN_DIFF else PIVOT_LOG_RATIO)
        se_hat = 0.0
        if student:
            if not (stat == MEAN or stat == MEAN_DIFF or stat == MEAN_RATIO):
                status[i] = STUDENTIZED_UNDEFINED
                continue
            if n < 2 or (two and m < 2):
                status[i] = TOO_FEW_STUDENTIZED
                continue
            se_hat = pivot_standard_error(kind, x, n, y, m)
            if not (se_hat == se_hat):
                status[i] = NOT_POSITIVE
                continue
        phi_hat = math.log(theta_hat) if student and kind == PIVOT_LOG_RATIO else theta_hat
        tstar = np.empty(B if student else 0)
        positive = True
        theta = np.empty(B)
        finite = True
        # median-type statistics: count how often each value of the sorted sample is drawn,
        # then walk the counts to the order statistics (linear, no selection)
        by_counts = stat == MEDIAN or stat == QUANTILE or stat == MEDIAN_RATIO or stat == MEDIAN_DIFF
        xs = sorted_copy(x) if by_counts else x
        ys = sorted_copy(y) if by_counts and two else y
        cx = np.zeros(n if by_counts else 0, dtype=np.int64)
        cy = np.zeros(m if by_counts else 0, dtype=np.int64)
        ix = np.empty(n, dtype=np.int64)
        iy = np.empty(m, dtype=np.int64)
        group_key = sample_key(seed, identities[i])
        for b in range(B):
            key = resample_key(group_key, b)  # = stream_key(seed, identities[i], b)
            # x's draws, then y's from the next counter
            if by_counts:
                cx[:] = 0
                following = draw_indices(key, 0, n, n, cx, True)
                if two:
                    cy[:] = 0
                    draw_indices(key, following, m, m, cy, True)
                t = counts_statistic(stat, xs, cx, n, ys, cy, m, q)
            else:
                following = fill_indices(key, 0, n, ix)
                if two:
                    fill_indices(key, following, m, iy)
                for j in range(n):
                    bx[j] = x[ix[j]]
                for j in range(m):
                    by[j] = y[iy[j]]
                t = statistic(stat, bx, n, by, m, q, work)
                if student:  # the mean-type statistics leave bx, by in place
                    se_b = pivot_standard_error(kind, bx, n, by, m)
                    if not (se_b == se_b and t > 0.0) and kind == PIVOT_LOG_RATIO:
                        positive = False  # a resample mean <= 0: no log scale
                    phi = math.log(t) if kind == PIVOT_LOG_RATIO and t > 0.0 else t
                    tstar[b] = pivot(phi, phi_hat, se_b)
            theta[b] = t
            if not (t - t == 0.0):
                finite = False
        if keep:
            for b in range(B):
                distribution[i, b] = theta[b]
        if not finite or not (theta_hat - theta_hat == 0.0):
            status[i] = NONFINITE
            continue
        if not positive:
            status[i] = NOT_POSITIVE
            continue
        # range and the BCa count in one pass (theta* within 100 eps |theta_hat| of it, equal
        # but for rounding, count as ties: scipy's permutation_test tolerance); the standard
        # error (ddof = 1), scaled if need be
        lo_t = theta[0]
        hi_t = theta[0]
        count = 0
        gamma = abs(theta_hat) * _EPS100
        for b in range(B):
            t = theta[b]
            lo_t = min(lo_t, t)
            hi_t = max(hi_t, t)
            count += (t < theta_hat - gamma) + (t <= theta_hat + gamma)
        se[i] = spread(theta, B, lo_t, hi_t)
        if method == BCA:
            accel[i] = acceleration(stat, x, y, two, q)
        if lo_t == hi_t:
            status[i] = DEGENERATE
            low[i] = theta_hat
            high[i] = theta_hat
            continue
        p1 = alpha
        p2 = 1.0 - alpha
        if student:
            t1, k1 = quantile_in_place(tstar, B, p1, 0)
            t2, _ = quantile_in_place(tstar, B, p2, k1)
            if not (t1 == t1 and t2 == t2):
                status[i] = STUDENTIZED_UNDEFINED
                continue
            lo_phi = phi_hat - t2 * se_hat
            hi_phi = phi_hat - t1 * se_hat
            lo_v = math.exp(lo_phi) if kind == PIVOT_LOG_RATIO else lo_phi
            hi_v = math.exp(hi_phi) if kind == PIVOT_LOG_RATIO else hi_phi
            if (abs(t2) < np.inf and not (lo_v - lo_v == 0.0)) or (
                    abs(t1) < np.inf and not (hi_v - hi_v == 0.0)):
                status[i] = OVERFLOW  # a finite t* quantile, a limit beyond the float64 range
                continue
            low[i] = lo_v
            high[i] = hi_v
            continue
        if method == BCA:
            z0 = z_of_count[count]
            a = accel[i]
            num1 = z0 + z_alpha
            p1 = _ndtr(z0 + num1 / (1.0 - a * num1))
            num2 = z0 - z_alpha
            p2 = _ndtr(z0 + num2 / (1.0 - a * num2))
            if not (p1 == p1 and p2 == p2):
                status[i] = BCA_UNDEFINED
                continue
        if p1 <= p2:
            v1, k1 = quantile_in_place(theta, B, p1, 0)
            v2, _ = quantile_in_place(theta, B, p2, k1)
        else:
            v2, k2 = quantile_in_place(theta, B, p2, 0)
            v1, _ = quantile_in_place(theta, B, p1, k2)
        if method == BASIC:  # 2 theta_hat - v, finite wherever representable
            lo_v = reflect(theta_hat, v2)
            hi_v = reflect(theta_hat, v1)
            if not (lo_v - lo_v == 0.0 and hi_v - hi_v == 0.0):
                status[i] = OVERFLOW
                continue
            low[i] = lo_v
            high[i] = hi_v
        else:
            low[i] = v1
            high[i] = v2
    return estimate, low, high, se, accel, status
