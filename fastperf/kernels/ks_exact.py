"""Exact p-values of the two-sample Kolmogorov-Smirnov statistic (continuous data): scipy's
lattice-path counts (Hodges 1958, "The significance probability of the Smirnov two-sample test",
Arkiv för Matematik 3, 469-486; Viehmann 2021, arXiv:2102.08037), ported operation for operation
so that p agrees with ``scipy.stats.ks_2samp(method="exact")`` to rounding; and, for tied
samples, the exact p-value conditional on the tie pattern (Schröer & Trenkler 1995, as R >= 4.2's
``psmirnov``), `tied_exact_pvalue`.
"""
import math

import numpy as np

from fastperf.kernels.builds import njit

__all__ = ["TWO_SIDED", "LESS", "GREATER", "gcd", "factorial_table", "binom",
           "prob_outside_square", "prob_outside_band", "count_paths_outside", "exact_pvalue",
           "tie_block_ends", "tied_exact_pvalue"]

#: `alternative` codes.
TWO_SIDED, LESS, GREATER = 0, 1, 2


@njit(cache=True)
def gcd(a, b) -> int:
    """Greatest common divisor of two nonnegative integers.

    Parameters
    ----------
    a, b : int
        Nonnegative integers (the sample sizes).

    Returns
    -------
    int
        gcd(a, b).

    Notes
    -----
    Euclid's algorithm (Knuth, TAOCP vol. 2, section 4.5.2).
    """
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def factorial_table(n) -> tuple[np.ndarray, np.ndarray]:
    """0!, ..., n! as mantissas in [0.5, 1) and power-of-two exponents (no overflow).

    Parameters
    ----------
    n : int
        The largest factorial.

    Returns
    -------
    mantissa : numpy.ndarray
        float64 in [0.5, 1).
    exponent : numpy.ndarray of int64
        k! = mantissa[k] * 2**exponent[k].

    Notes
    -----
    Exact products rounded once per step (``math.frexp``): k! within ~k ulps relative.
    """
    mantissa = np.empty(n + 1)
    exponent = np.empty(n + 1, dtype=np.int64)
    mantissa[0] = 0.5
    exponent[0] = 1
    for i in range(1, n + 1):
        m, e = math.frexp(mantissa[i - 1] * i)
        mantissa[i] = m
        exponent[i] = exponent[i - 1] + e
    return mantissa, exponent


@njit(cache=True)
def binom(n, k, fact_mantissa, fact_exponent) -> float:
    """C(n, k) as a float for integers 0 <= k <= n (inf when it overflows).

    For min(k, n - k) < 20 this is ``scipy.special.binom``'s multiplication formula, operation
    for operation; beyond, n! / (k! (n - k)!) from `factorial_table` (up to n!), within a few
    ulps.

    Parameters
    ----------
    n, k : int
        The binomial coefficient's arguments.
    fact_mantissa, fact_exponent : numpy.ndarray
        `factorial_table` up to at least n.

    Returns
    -------
    float
        C(n, k); 0 outside 0 <= k <= n; inf when it overflows.

    Notes
    -----
    scipy's ``binom`` (Cephes) multiplication formula for small k, factorials beyond.
    """
    if k < 0 or k > n:
        return 0.0
    nf = float(n)
    kx = float(k)
    if kx > nf / 2 and nf > 0:
        kx = nf - kx
    if kx < 20:
        num = 1.0
        den = 1.0
        for i in range(1, 1 + int(kx)):
            num *= i + nf - kx
            den *= i
            if abs(num) > 1e50:
                num /= den
                den = 1.0
        return num / den
    mantissa = fact_mantissa[n] / (fact_mantissa[k] * fact_mantissa[n - k])
    return math.ldexp(mantissa, fact_exponent[n] - fact_exponent[k] - fact_exponent[n - k])


@njit(cache=True)
def prob_outside_square(n, h) -> float:
    """P(D_{n,n} >= h / n), two-sided, equal sizes (scipy's ``_compute_prob_outside_square``).

    2 sum_k (-1)^(k+1) C(2n, n - kh) / C(2n, n) (Hodges 1958), each term divided by C(2n, n)
    and nested Horner-like to avoid cancellation.

    Parameters
    ----------
    n : int
        The common sample size.
    h : int
        D = h / n.

    Returns
    -------
    float
        The two-sided p-value P(D >= h / n).

    Notes
    -----
    Hodges (1958), "The significance probability of the Smirnov two-sample test", Arkiv för
    Matematik 3, 469-486, the reflection formula for equal sizes.
    """
    p = 0.0
    k = n // h
    while k >= 0:
        p1 = 1.0
        for j in range(h):
            p1 = (n - k * h - j) * p1 / (n + k * h + j + 1)
        p = p1 * (1.0 - p)
        k -= 1
    return 2 * p


@njit(cache=True)
def prob_outside_band(m, n, g, h) -> float:
    """P(D_{m,n} >= h / lcm(m, n)), two-sided (scipy's ``_compute_outer_prob_inside_method``).

    The lattice paths from (0, 0) to (m, n) that stay strictly inside |x/m - y/n| < h / lcm,
    counted column by column on a sliding window (Hodges 1958, the "inside method"), with the
    recursion rewritten for 1 - p directly (Viehmann 2021) so that small p-values keep their
    precision.

    Parameters
    ----------
    m, n : int
        The sample sizes.
    g : int
        gcd(m, n).
    h : int
        D = h / lcm(m, n).

    Returns
    -------
    float
        The two-sided p-value P(D >= h / lcm(m, n)).

    Notes
    -----
    Hodges (1958), "The significance probability of the Smirnov two-sample test", Arkiv för
    Matematik 3, 469-486 (lattice paths inside the band); Viehmann (2021), "Numerically more
    stable computation of the p-values for the two-sample Kolmogorov-Smirnov test",
    arXiv:2102.08037.
    """
    if m < n:
        m, n = n, m
    mg = m // g
    ng = n // g
    minj = 0
    maxj = min(-(-h // mg), n + 1)
    curlen = maxj - minj
    len_a = min(2 * maxj + 2, n + 1)
    a = np.ones(len_a)
    for jj in range(minj, maxj):
        a[jj] = 0.0
    for i in range(1, m + 1):
        lastminj = minj
        lastlen = curlen
        minj = max((ng * i - h) // mg + 1, 0)
        minj = min(minj, n)
        maxj = min(-(-(ng * i + h) // mg), n + 1)
        if maxj <= minj:
            return 1.0
        val = 0.0 if minj == 0 else 1.0
        for jj in range(maxj - minj):
            j = jj + minj
            val = (a[jj + minj - lastminj] * i + val * j) / (i + j)
            a[jj] = val
        curlen = maxj - minj
        if lastlen > curlen:
            for jj in range(maxj - minj, min(maxj - minj + (lastlen - curlen), len_a)):
                a[jj] = 1.0
    return a[maxj - minj - 1]


@njit(cache=True)
def count_paths_outside(m, n, g, h, fact_mantissa, fact_exponent) -> float:
    """The number of lattice paths (0, 0) -> (m, n) reaching the line m y = n x - h g, as a float
    (scipy's ``_count_paths_outside_method``; Hodges 1958).

    B_j, the paths first reaching the line at its j-th lattice point (x_j, j), is C(x_j + j, j)
    minus the paths that reached it earlier; the count is sum_j B_j C(m - x_j + n - j, n - j).
    Inf or NaN when the float computation overflows. The factorial tables (`factorial_table`)
    reach (m + n)!.

    Parameters
    ----------
    m, n : int
        The sample sizes.
    g : int
        gcd(m, n).
    h : int
        D = h / lcm(m, n).
    fact_mantissa, fact_exponent : numpy.ndarray
        `factorial_table` up to (m + n)!.

    Returns
    -------
    float
        The number of paths reaching the line (inf or NaN on overflow).

    Notes
    -----
    Hodges (1958), "The significance probability of the Smirnov two-sample test", Arkiv för
    Matematik 3, 469-486, the first-passage decomposition for the one-sided statistic.
    """
    if m < n:
        m, n = n, m
    mg = m // g
    ng = n // g
    lxj = n + (mg - h) // mg
    if lxj <= 0:
        return binom(m + n, n, fact_mantissa, fact_exponent)
    xj = np.empty(lxj, dtype=np.int64)
    for j in range(lxj):
        xj[j] = (h + mg * j + ng - 1) // ng
    b = np.zeros(lxj)
    b[0] = 1.0
    for j in range(1, lxj):
        bj = binom(xj[j] + j, j, fact_mantissa, fact_exponent)
        for i in range(j):
            bj -= binom(xj[j] - xj[i] + j - i, j - i, fact_mantissa, fact_exponent) * b[i]
        b[j] = bj
    num_paths = 0.0
    for j in range(lxj):
        num_paths += b[j] * binom((m - xj[j]) + (n - j), n - j, fact_mantissa, fact_exponent)
    return num_paths


@njit(cache=True)
def exact_pvalue(n1, n2, g, h, alternative) -> float:
    """Exact P(D >= h / lcm) under H0 (continuous data), or NaN where the floats give out.

    Mirrors scipy's ``_attempt_exact_2kssamp``: NaN stands for its failure (overflow, or a
    probability outside [0, 1]), upon which the caller falls back to the asymptotic p-value.

    Parameters
    ----------
    n1, n2 : int
        The sample sizes.
    g : int
        gcd(n1, n2).
    h : int
        D = h / lcm(n1, n2).
    alternative : int
        `TWO_SIDED`, `LESS` or `GREATER`.

    Returns
    -------
    float
        The exact p-value, or NaN when the floating-point computation fails.

    Notes
    -----
    Hodges (1958), "The significance probability of the Smirnov two-sample test", Arkiv för
    Matematik 3, 469-486; Viehmann (2021), arXiv:2102.08037; as
    ``scipy.stats.ks_2samp(method="exact")``.
    """
    if h == 0:
        return 1.0
    if alternative == TWO_SIDED:
        if n1 == n2:
            prob = prob_outside_square(n1, h)
        else:
            prob = prob_outside_band(n1, n2, g, h)
    elif n1 == n2:
        # C(2n, n - h) / C(2n, n) as a product (Hodges 1958)
        prob = 1.0
        for j in range(h):
            prob *= (n1 - j) / (n1 + j + 1.0)
    else:
        fact_mantissa, fact_exponent = factorial_table(n1 + n2)
        total = binom(n1 + n2, n1, fact_mantissa, fact_exponent)
        if not np.isfinite(total):
            return np.nan
        num_paths = count_paths_outside(n1, n2, g, h, fact_mantissa, fact_exponent)
        if not np.isfinite(num_paths) or num_paths > total:
            return np.nan
        prob = num_paths / total
    if not (0.0 <= prob <= 1.0):
        return np.nan
    return prob


@njit(cache=True)
def tie_block_ends(xs, ys) -> tuple[np.ndarray, bool]:
    """Where the pooled sorted sample changes value: the only points at which D can be attained.

    Parameters
    ----------
    xs, ys : numpy.ndarray
        The two samples, sorted, NaN-free.

    Returns
    -------
    ends : numpy.ndarray of bool, length n1 + n2 + 1
        ``ends[k]`` is True when the k-th and (k + 1)-th smallest pooled values differ (k = 1,
        ..., n1 + n2 - 1), and for k = n1 + n2; ``ends[0]`` is False.
    tied : bool
        Whether two pooled values are equal (within a sample or across).

    Notes
    -----
    The tie pattern on which Schröer & Trenkler (1995), Computational Statistics & Data
    Analysis 20, 185-202, condition the exact distribution.
    """
    n1 = xs.shape[0]
    n2 = ys.shape[0]
    n = n1 + n2
    ends = np.zeros(n + 1, dtype=np.bool_)
    tied = False
    i = 0
    j = 0
    previous = 0.0
    for k in range(n):
        if j >= n2 or (i < n1 and xs[i] <= ys[j]):
            v = xs[i]
            i += 1
        else:
            v = ys[j]
            j += 1
        if k > 0:
            if v == previous:
                tied = True
            else:
                ends[k] = True
        previous = v
    ends[n] = True
    return ends, tied


@njit(cache=True)
def tied_exact_pvalue(ends, n1, n2, h, alternative) -> float:
    """Exact P(D >= h / (n1 n2)) conditional on the tie pattern (permutation distribution).

    Each of the C(n1 + n2, n1) assignments of the pooled sorted sample to x and y is a lattice
    path from (0, 0) to (n1, n2), a step in i for an x, in j for a y, all equally likely under
    H0. At (i, j), n1 n2 (F_x - F_y) = i n2 - j n1, and it is a value of the statistic only
    where ``ends[i + j]`` (the end of a tie block). u(i, j), the share of the paths to (i, j)
    that have reached the boundary by then, is 1 on a boundary point at a block end, else
    (i u(i - 1, j) + j u(i, j - 1)) / (i + j); p = u(n1, n2). Every term is a non-negative
    average, so small p-values keep their relative precision (no 1 - cdf). O(n1 n2) time,
    O(n2) memory.

    Parameters
    ----------
    ends : numpy.ndarray of bool
        `tie_block_ends` of the two samples.
    n1, n2 : int
        The sample sizes.
    h : int
        The observed statistic in units of 1 / (n1 n2): D = h / (n1 n2).
    alternative : int
        `TWO_SIDED` (|i n2 - j n1| >= h), `GREATER` (i n2 - j n1 >= h: D+ = max(F_x - F_y)) or
        `LESS` (j n1 - i n2 >= h: D- = max(F_y - F_x)).

    Returns
    -------
    float
        The exact conditional p-value, in [0, 1].

    Notes
    -----
    Schröer & Trenkler (1995), "Exact and randomization distributions of Kolmogorov-Smirnov
    tests two or three samples", Computational Statistics & Data Analysis 20, 185-202; as R's
    ``psmirnov(exact=TRUE, z=...)`` (R >= 4.2, ``psmirnov_exact_ties_upper`` in
    src/library/stats/src/ks.c), with the boundary tested in integers.
    """
    if h <= 0:
        return 1.0
    inverse = np.empty(n1 + n2 + 1)   # 1 / (i + j): a multiplication per point, not a division
    inverse[0] = 0.0
    for k in range(1, n1 + n2 + 1):
        inverse[k] = 1.0 / k
    u = np.zeros(n2 + 1)
    for j in range(1, n2 + 1):
        if ends[j] and _on_boundary(-j * n1, h, alternative):
            u[j] = 1.0
        else:
            u[j] = u[j - 1]
    for i in range(1, n1 + 1):
        diff = i * n2
        if ends[i] and _on_boundary(diff, h, alternative):
            u[0] = 1.0
        previous = u[0]
        for j in range(1, n2 + 1):
            diff -= n1
            if ends[i + j] and _on_boundary(diff, h, alternative):
                previous = 1.0
            else:
                previous = (i * u[j] + j * previous) * inverse[i + j]
            u[j] = previous
    return min(max(u[n2], 0.0), 1.0)


@njit(cache=True)
def _on_boundary(diff, h, alternative):
    if alternative == GREATER:
        return diff >= h
    if alternative == LESS:
        return -diff >= h
    return diff >= h or -diff >= h
