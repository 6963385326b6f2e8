"""The two-sample Kolmogorov-Smirnov test per pair of CSR samples: statistic and p-value.

One kernel, `ks_2samp_pairs`, sorts a copy of each sample (counting ranks when small), merge-walks the two for the
statistic and computes the p-value in place. Exact: scipy's lattice-path counts (Hodges 1958,
Arkiv för Matematik 3, 469-486; Viehmann 2021, arXiv:2102.08037). Asymptotic: Hodges' one-sided
approximation, and for two-sided the one-sample distribution with n = round(n1 n2 / (n1 + n2))
(scipy's ``kstwo.sf``, Simard & L'Ecuyer 2011) except its Smirnov branch, which the API
evaluates in bulk with ``scipy.special.smirnov``. All ported operation for operation, so that p
agrees with ``scipy.stats.ks_2samp`` to rounding.
"""
import math

import numpy as np
from numba import njit, prange

from fastperf.kernels.builds import group_kernel
from fastperf.kernels.order_statistics import sorted_copy

#: `alternative` codes.
TWO_SIDED, LESS, GREATER = 0, 1, 2
#: `method` codes.
AUTO, EXACT, ASYMP = 0, 1, 2

#: Per-pair status codes; ``STATUS_MESSAGES[code]`` is the text the API reports.
OK, NAN_INPUT, EMPTY_SAMPLE, INFINITE_MEDIAN, NO_ASYMP = 0, 1, 2, 3, 4
STATUS_MESSAGES = (
    "ok", "NaN in input", "empty sample", "infinite median: cannot centre",
    "no asymptotic p-value for 1 value against 1",
)

#: How each p-value was obtained; ``PVALUE_SOURCES[code]`` is the text the API reports.
#: ``FROM_SMIRNOV``: asymptotic, left NaN for the caller to set to 2 smirnov(n, D) (with
#: n = round(n1 n2 / (n1 + n2))) by ``scipy.special.smirnov``.
NOT_TESTED, FROM_EXACT, FROM_ASYMP, FROM_SMIRNOV = 0, 1, 2, 3
PVALUE_SOURCES = ("none", "exact", "asymp", "asymp")
#: Why an exact p-value was not used although the method asked for one.
NO_FALLBACK, EXACT_FAILED, EXACT_IMPOSSIBLE = 0, 1, 2

#: method="auto" is exact when max(n1, n2) <= this (scipy's MAX_AUTO_N).
MAX_AUTO_N = 10_000
_INT32_MAX = 2_147_483_647


@njit(cache=True)
def ecdf_extremes(xs, ys):
    """The largest and the (negated) smallest difference F_x(t) - F_y(t) of two sorted samples.

    The ECDFs are compared at every value of the pooled sample, after all the values tied at it
    have been consumed (scipy's ``searchsorted(side="right")``). Returns ``(d_plus, d_minus)``,
    both in [0, 1]: max(F_x - F_y) and max(F_y - F_x). Once one sample is used up the difference
    moves monotonically back to 0, so the walk stops there.
    """
    n1 = xs.shape[0]
    n2 = ys.shape[0]
    i = 0
    j = 0
    high = 0.0
    low = 0.0
    while i < n1 and j < n2:
        v = xs[i] if xs[i] <= ys[j] else ys[j]
        while i < n1 and xs[i] == v:
            i += 1
        while j < n2 and ys[j] == v:
            j += 1
        diff = i / n1 - j / n2
        if diff > high:
            high = diff
        if diff < low:
            low = diff
    return high, min(max(-low, 0.0), 1.0)


@njit(cache=True)
def median_of_sorted(xs):
    """The median of a sorted sample, as ``numpy.median`` computes it."""
    n = xs.shape[0]
    half = n // 2
    if n % 2 == 1:
        return xs[half]
    return (xs[half - 1] + xs[half]) / 2.0


@njit(cache=True)
def _has_nan(a):
    for v in a:
        if v != v:
            return True
    return False


@njit(cache=True)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def factorial_table(n):
    """0!, ..., n! as mantissas in [0.5, 1) and power-of-two exponents (no overflow)."""
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
def binom(n, k, fact_mantissa, fact_exponent):
    """C(n, k) as a float for integers 0 <= k <= n (inf when it overflows).

    For min(k, n - k) < 20 this is ``scipy.special.binom``'s multiplication formula, operation
    for operation; beyond, n! / (k! (n - k)!) from `factorial_table` (up to n!), within a few
    ulps.
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
def prob_outside_square(n, h):
    """P(D_{n,n} >= h / n), two-sided, equal sizes (scipy's ``_compute_prob_outside_square``).

    2 sum_k (-1)^(k+1) C(2n, n - kh) / C(2n, n) (Hodges 1958), each term divided by C(2n, n)
    and nested Horner-like to avoid cancellation.
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
def prob_outside_band(m, n, g, h):
    """P(D_{m,n} >= h / lcm(m, n)), two-sided (scipy's ``_compute_outer_prob_inside_method``).

    The lattice paths from (0, 0) to (m, n) that stay strictly inside |x/m - y/n| < h / lcm,
    counted column by column on a sliding window (Hodges 1958, the "inside method"), with the
    recursion rewritten for 1 - p directly (Viehmann 2021) so that small p-values keep their
    precision.
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
def count_paths_outside(m, n, g, h, fact_mantissa, fact_exponent):
    """The number of lattice paths (0, 0) -> (m, n) reaching the line m y = n x - h g, as a float
    (scipy's ``_count_paths_outside_method``; Hodges 1958).

    B_j, the paths first reaching the line at its j-th lattice point (x_j, j), is C(x_j + j, j)
    minus the paths that reached it earlier; the count is sum_j B_j C(m - x_j + n - j, n - j).
    Inf or NaN when the float computation overflows. The factorial tables (`factorial_table`)
    reach (m + n)!.
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
def exact_pvalue(n1, n2, g, h, alternative):
    """Exact P(D >= h / lcm) under H0 (continuous data), or NaN where the floats give out.

    Mirrors scipy's ``_attempt_exact_2kssamp``: NaN stands for its failure (overflow, or a
    probability outside [0, 1]), upon which the caller falls back to the asymptotic p-value.
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
def asymp_sample_size(n1, n2):
    """n1 n2 / (n1 + n2), the effective sample size of the asymptotic distributions."""
    m = float(max(n1, n2))
    n = float(min(n1, n2))
    return m * n / (m + n)


@njit(cache=True)
def one_sided_asymp_pvalue(n1, n2, d):
    """Hodges' (1958, eq. 5.3) approximation of P(D+ >= d), as scipy: with m >= n the sizes and
    z = d sqrt(mn / (m + n)), exp(-2 z^2 - 2 z (m + 2n) / (3 sqrt(mn (m + n))))."""
    m = float(max(n1, n2))
    n = float(min(n1, n2))
    en = m * n / (m + n)
    z = np.sqrt(en) * d
    expt = -2 * z ** 2 - 2 * z * (m + 2 * n) / np.sqrt(m * n * (m + n)) / 3.0
    return np.exp(expt)


_TWO_128 = 2.0 ** 128
_TWO_M128 = 2.0 ** -128
_LOG_2PI = np.log(2 * np.pi)
_SQRT2PI = np.sqrt(2 * np.pi)
_PI_SQUARED = np.pi ** 2
_PI_FOUR = np.pi ** 4
_PI_SIX = np.pi ** 6
# B_2j / (2j (2j - 1)) for j = 8, ..., 1: Stirling's series for log(n!)
_STIRLING_COEFFS = np.array([
    -2.955065359477124183e-2, 6.4102564102564102564e-3, -1.9175269175269175269e-3,
    8.4175084175084175084e-4, -5.952380952380952381e-4, 7.9365079365079365079e-4,
    -2.7777777777777777778e-3, 8.3333333333333333333e-2,
])


@njit(cache=True)
def _log_nfactorial_div_n_pow_n(n):
    """log(n! / n^n) by Stirling's series, n log n removed up front."""
    rn = 1.0 / n
    y = 0.0
    for c in _STIRLING_COEFFS:
        y = y * (rn / n) + c
    return np.log(n) / 2 - n + _LOG_2PI / 2 + rn * y


@njit(cache=True)
def _matmul(a, b):
    m = a.shape[0]
    out = np.zeros((m, m))
    for i in range(m):
        for k in range(m):
            aik = a[i, k]
            if aik != 0.0:
                for j in range(m):
                    out[i, j] += aik * b[k, j]
    return out


@njit(cache=True)
def kolmogorov_cdf_durbin(n, d):
    """P(D_n <= d), one-sample two-sided, by Durbin's matrix (Durbin 1968; Marsaglia, Tsang &
    Wang 2003): the k-th diagonal entry of (n!/n^n) H^n, H of order 2k - 1, k = ceil(nd)."""
    if d >= 1.0:
        return 1.0
    nd = n * d
    if nd <= 0.5:
        return 0.0
    k = int(np.ceil(nd))
    h = k - nd
    m = 2 * k - 1
    v = np.empty(m)
    w = np.empty(m)
    fac = 1.0
    for j in range(1, m + 1):
        v[j - 1] = 1.0 - h ** float(j)
        w[j - 1] = fac
        fac /= j
        v[j - 1] *= fac
    tt = max(2 * h - 1.0, 0.0) ** float(m) - 2 * h ** float(m)
    v[m - 1] = (1.0 + tt) * fac
    hmat = np.zeros((m, m))
    for i in range(1, m):
        for r in range(i - 1, m):
            hmat[r, i] = w[r - i + 1]
    for r in range(m):
        hmat[r, 0] = v[r]
    for c in range(m):
        hmat[m - 1, c] = v[m - 1 - c]
    power = np.eye(m)
    nn = n
    expnt = 0
    h_expnt = 0
    while nn > 0:
        if nn % 2:
            power = _matmul(power, hmat)
            expnt += h_expnt
        hmat = _matmul(hmat, hmat)
        h_expnt *= 2
        if abs(hmat[k - 1, k - 1]) > _TWO_128:
            hmat /= _TWO_128
            h_expnt += 128
        nn = nn // 2
    p = power[k - 1, k - 1]
    for i in range(1, n + 1):
        p = i * p / n
        if abs(p) < _TWO_M128:
            p *= _TWO_128
            expnt -= 128
    if expnt != 0:
        p = np.ldexp(p, expnt)
    return min(max(p, 0.0), 1.0)


@njit(cache=True)
def _pomeranz_j1j2(i, n, ll, ceilf, roundf):
    if i == 0:
        j1 = -ll - ceilf - 1
        j2 = ll + ceilf - 1
    else:
        half = (i + 1) // 2
        if (i + 1) % 2 == 0:
            if half == n + 1:
                j1 = n - ll - ceilf - 1
                j2 = n + ll + ceilf - 1
            else:
                j1 = half - 1 - ll - roundf - 1
                j2 = half + ll - 1 + ceilf - 1
        else:
            j1 = half - 1 - ll - 1
            j2 = half + ll + roundf - 1
    return max(j1 + 2, 0), min(j2, n)


@njit(cache=True)
def kolmogorov_cdf_pomeranz(n, x):
    """P(D_n <= x), one-sample two-sided, by Pomeranz's recursion (Pomeranz 1974, CACM 17)."""
    t = n * x
    ll = int(np.floor(t))
    f = 1.0 * (t - ll)
    g = min(f, 1.0 - f)
    ceilf = 1 if f > 0 else 0
    roundf = 1 if f > 0.5 else 0
    npwrs = 2 * (ll + 1)
    gpower = np.empty(npwrs)
    twogpower = np.empty(npwrs)
    onem2gpower = np.empty(npwrs)
    gpower[0] = 1.0
    twogpower[0] = 1.0
    onem2gpower[0] = 1.0
    expnt = 0
    g_over_n = g / n
    two_g_over_n = 2 * g / n
    one_minus_two_g_over_n = (1 - 2 * g) / n
    for m in range(1, npwrs):
        gpower[m] = gpower[m - 1] * g_over_n / m
        twogpower[m] = twogpower[m - 1] * two_g_over_n / m
        onem2gpower[m] = onem2gpower[m - 1] * one_minus_two_g_over_n / m
    v0 = np.zeros(npwrs)
    v1 = np.zeros(npwrs)
    v1[0] = 1.0
    v0s = 0
    v1s = 0
    j1, j2 = _pomeranz_j1j2(0, n, ll, ceilf, roundf)
    for i in range(1, 2 * n + 2):
        k1 = j1
        v0, v1 = v1, v0
        v0s, v1s = v1s, v0s
        v1[:] = 0.0
        j1, j2 = _pomeranz_j1j2(i, n, ll, ceilf, roundf)
        if i == 1 or i == 2 * n + 1:
            pwrs = gpower
        elif i % 2:
            pwrs = twogpower
        else:
            pwrs = onem2gpower
        ln2 = j2 - k1 + 1
        if ln2 > 0:
            # entries conv_start .. conv_start + conv_len - 1 of the full convolution
            # of v0[k1 - v0s : k1 - v0s + ln2] (clipped to the row) with pwrs[:ln2]
            conv_start = j1 - k1
            conv_len = j2 - j1 + 1
            base = k1 - v0s
            la = min(ln2, npwrs - base)
            top = 0.0
            for c in range(conv_len):
                q = conv_start + c
                total = 0.0
                for a in range(max(0, q - ln2 + 1), min(q, la - 1) + 1):
                    total += v0[base + a] * pwrs[q - a]
                v1[c] = total
                top = max(top, total)
            if 0 < top < _TWO_M128:
                v1 *= _TWO_128
                expnt -= 128
            v1s = v0s + j1 - k1
    ans = v1[n - v1s]
    for m in range(1, n + 1):
        if abs(ans) > _TWO_128:
            ans *= _TWO_M128
            expnt += 128
        ans *= m
    if expnt != 0:
        ans = np.ldexp(ans, expnt)
    return min(max(ans, 0.0), 1.0)


@njit(cache=True)
def kolmogorov_cdf_pelz_good(n, x):
    """P(D_n <= x), one-sample two-sided, by the Pelz-Good (1976, JRSS B 38) expansion of the
    Li-Chien / Korolyuk series in 1/sqrt(n)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    z = np.sqrt(n) * x
    zsquared = z ** 2.0
    zthree = z ** 3.0
    zfour = z ** 4.0
    zsix = z ** 6.0
    qlog = -_PI_SQUARED / 8 / zsquared
    if qlog < -708:
        return 0.0
    q = np.exp(qlog)
    k1a = -zsquared
    k1b = _PI_SQUARED / 4
    k2a = 6 * zsix + 2 * zfour
    k2b = (2 * zfour - 5 * zsquared) * _PI_SQUARED / 4
    k2c = _PI_FOUR * (1 - 2 * zsquared) / 16
    k3d = _PI_SIX * (5 - 30 * zsquared) / 64
    k3c = _PI_FOUR * (-60 * zsquared + 212 * zfour) / 16
    k3b = _PI_SQUARED * (135 * zfour - 96 * zsix) / 4
    k3a = -30 * zsix - 90 * z ** 8.0
    k0 = 0.0
    k1 = 0.0
    k2 = 0.0
    k3 = 0.0
    maxk = int(np.ceil(16 * z / np.pi))
    for k in range(maxk, 0, -1):
        m = 2 * k - 1
        msquared = float(m ** 2)
        mfour = float(m ** 4)
        msix = float(m ** 6)
        qpower = q ** float(8 * k)
        k0 = k0 * qpower + 1.0
        k1 = k1 * qpower + (k1a + k1b * msquared)
        k2 = k2 * qpower + (k2a + k2b * msquared + k2c * mfour)
        k3 = k3 * qpower + (k3a + k3b * msquared + k3c * mfour + k3d * msix)
    k0 = k0 * q * _SQRT2PI / z
    k1 = k1 * q * _SQRT2PI / (6 * zfour)
    k2 = k2 * q * _SQRT2PI / (72 * z ** 7.0)
    k3 = k3 * q * _SQRT2PI / (6480 * z ** 10.0)
    q = np.exp(-_PI_SQUARED / 2 / zsquared)
    sqrt3z = np.sqrt(3.0) * z
    k2extra = 0.0
    k3extra = 0.0
    for k in range(maxk, 0, -1):
        ksquared = float(k * k)
        kspi = np.pi * k
        qpwer = q ** ksquared
        k2extra += ksquared * qpwer
        k3extra += (sqrt3z + kspi) * (sqrt3z - kspi) * ksquared * qpwer
    k2 += k2extra * (_PI_SQUARED * _SQRT2PI / (-36 * zthree))
    k3 += k3extra * (_PI_SQUARED * _SQRT2PI / (216 * zsix))
    nf = n * 1.0
    return k0 + k1 / nf ** 0.5 + k2 / nf + k3 / nf ** 1.5


@njit(cache=True)
def kolmogorov_sf(n, x):
    """P(D_n >= x) for the one-sample two-sided statistic (scipy's ``kstwo.sf``), by Simard and
    L'Ecuyer's (2011, J. Stat. Softw. 39(11)) choice of method.

    Returns ``(p, smirnov)``: where the method is 2 * (Smirnov's one-sided tail), `smirnov` is
    True and p is NaN, for the caller to evaluate with ``scipy.special.smirnov``.
    """
    if x >= 1.0:
        return 0.0, False
    if x <= 0.0:
        return 1.0, False
    t = n * x
    if t <= 1.0:  # Ruben-Gambino
        if t <= 0.5:
            return 1.0, False
        if n <= 140:
            prob = 1.0
            for i in range(1, n + 1):
                prob *= i * (1.0 / n) * (2 * t - 1)
        else:
            prob = np.exp(_log_nfactorial_div_n_pow_n(n) + n * np.log(2 * t - 1))
        return min(max(1.0 - prob, 0.0), 1.0), False
    if t >= n - 1:  # Ruben-Gambino
        return min(max(2 * (1.0 - x) ** float(n), 0.0), 1.0), False
    if x >= 0.5:
        return np.nan, True
    nxsquared = t * x
    if n <= 140:
        if nxsquared <= 0.754693:
            cdf = kolmogorov_cdf_durbin(n, x)
        elif nxsquared <= 4:
            cdf = kolmogorov_cdf_pomeranz(n, x)
        else:
            return np.nan, True
        return min(max(1.0 - cdf, 0.0), 1.0), False
    if nxsquared >= 370.0:
        return 0.0, False
    if nxsquared >= 2.2:
        return np.nan, True
    if n <= 100000 and n * x ** 1.5 <= 1.4:
        cdf = kolmogorov_cdf_durbin(n, x)
    else:
        cdf = kolmogorov_cdf_pelz_good(n, x)
    return min(max(1.0 - cdf, 0.0), 1.0), False


# The parallel build costs ~5 s of compilation per process and gains at most the core count
# over the serial one (~50 ns per value for samples of 31), so it only pays on large batches.
@group_kernel(min_rows=2_000_000)
def ks_2samp_pairs(x_values, x_offsets, y_values, y_offsets, alternative, method, center_median):
    """The two-sample KS test of every pair (x sample i, y sample i).

    Parameters
    ----------
    x_values, x_offsets, y_values, y_offsets : float64 values and int64 CSR offsets of the two
        batches (same number of samples; read only).
    alternative : TWO_SIDED, LESS or GREATER.
    method : AUTO, EXACT or ASYMP.
    center_median : bool, subtract each sample's median before testing.

    Returns
    -------
    statistic : float64, D (NaN when not tested). Where an exact p-value was attempted D is
        h / lcm(n1, n2) with h = round(D lcm), as scipy.
    pvalue : float64, NaN when not tested or left to the caller (`source` FROM_SMIRNOV).
    sign : int8, +1 when F_x - F_y attains D, -1 when F_y - F_x does (0 when not tested).
    status : int8, an index into `STATUS_MESSAGES`.
    source : int8, an index into `PVALUE_SOURCES`.
    fallback : int8, NO_FALLBACK, or why an exact p-value gave way to the asymptotic one.
    """
    n_pairs = x_offsets.shape[0] - 1
    statistic = np.full(n_pairs, np.nan)
    pvalue = np.full(n_pairs, np.nan)
    sign = np.zeros(n_pairs, dtype=np.int8)
    status = np.zeros(n_pairs, dtype=np.int8)
    source = np.zeros(n_pairs, dtype=np.int8)
    fallback = np.zeros(n_pairs, dtype=np.int8)
    for k in prange(n_pairs):
        x = x_values[x_offsets[k]:x_offsets[k + 1]]
        y = y_values[y_offsets[k]:y_offsets[k + 1]]
        n1 = x.shape[0]
        n2 = y.shape[0]
        if _has_nan(x) or _has_nan(y):
            status[k] = NAN_INPUT
            continue
        if n1 == 0 or n2 == 0:
            status[k] = EMPTY_SAMPLE
            continue
        xs = sorted_copy(x)
        ys = sorted_copy(y)
        if center_median:
            mx = median_of_sorted(xs)
            my = median_of_sorted(ys)
            if not (np.isfinite(mx) and np.isfinite(my)):
                status[k] = INFINITE_MEDIAN
                continue
            for i in range(n1):
                xs[i] = xs[i] - mx
            for j in range(n2):
                ys[j] = ys[j] - my
        d_plus, d_minus = ecdf_extremes(xs, ys)
        if alternative == LESS or (alternative == TWO_SIDED and d_minus > d_plus):
            d = d_minus
            sign[k] = -1
        else:
            d = d_plus
            sign[k] = 1

        g = _gcd(n1, n2)
        n1g = n1 // g
        n2g = n2 // g
        mode = method
        if mode == AUTO:
            mode = EXACT if max(n1, n2) <= MAX_AUTO_N else ASYMP
        elif mode == EXACT and n1g >= _INT32_MAX / n2g:
            mode = ASYMP
            fallback[k] = EXACT_IMPOSSIBLE
        if mode == EXACT:
            lcm = n1g * n2
            h = np.int64(np.floor(d * lcm + 0.5))
            d = h * 1.0 / lcm
            p = exact_pvalue(n1, n2, g, h, alternative)
            if np.isnan(p):
                mode = ASYMP
                fallback[k] = EXACT_FAILED
            else:
                pvalue[k] = p
                source[k] = FROM_EXACT
        if mode == ASYMP:
            source[k] = FROM_ASYMP
            if alternative != TWO_SIDED:
                pvalue[k] = min(max(one_sided_asymp_pvalue(n1, n2, d), 0.0), 1.0)
            else:
                en = np.rint(asymp_sample_size(n1, n2))
                if en < 1:
                    status[k] = NO_ASYMP
                else:
                    p, smirnov = kolmogorov_sf(np.int64(en), d)
                    pvalue[k] = p
                    if smirnov:
                        source[k] = FROM_SMIRNOV
        statistic[k] = d
    return statistic, pvalue, sign, status, source, fallback
