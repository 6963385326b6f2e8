"""Asymptotic p-values of the two-sample Kolmogorov-Smirnov statistic, as scipy: Hodges' (1958)
one-sided approximation, and for two-sided the one-sample Kolmogorov distribution with
n = round(n1 n2 / (n1 + n2)) (scipy's ``kstwo.sf``; Simard & L'Ecuyer 2011, J. Stat. Softw.
39(11)) by Durbin's matrix, Pomeranz's recursion or the Pelz-Good series, except its Smirnov
branch, which the engine evaluates in bulk with ``scipy.special.smirnov``.
"""
import numpy as np

from fastperf.kernels.builds import njit

__all__ = ["asymp_sample_size", "one_sided_asymp_pvalue", "kolmogorov_cdf_durbin",
           "kolmogorov_cdf_pomeranz", "kolmogorov_cdf_pelz_good", "kolmogorov_sf"]


@njit(cache=True)
def asymp_sample_size(n1, n2) -> float:
    """n1 n2 / (n1 + n2), the effective sample size of the asymptotic distributions.

    Parameters
    ----------
    n1, n2 : int
        The sample sizes.

    Returns
    -------
    float
        n1 n2 / (n1 + n2).

    Notes
    -----
    Smirnov (1939): sqrt(n1 n2 / (n1 + n2)) D has the limiting Kolmogorov distribution.
    """
    m = float(max(n1, n2))
    n = float(min(n1, n2))
    return m * n / (m + n)


@njit(cache=True)
def one_sided_asymp_pvalue(n1, n2, d) -> float:
    """Hodges' (1958, eq. 5.3) approximation of P(D+ >= d), as scipy: with m >= n the sizes and
    z = d sqrt(mn / (m + n)), exp(-2 z^2 - 2 z (m + 2n) / (3 sqrt(mn (m + n)))).

    Parameters
    ----------
    n1, n2 : int
        The sample sizes.
    d : float
        The observed one-sided statistic.

    Returns
    -------
    float
        The approximate p-value.

    Notes
    -----
    Hodges (1958), "The significance probability of the Smirnov two-sample test", Arkiv för
    Matematik 3, 469-486, eq. 5.3.
    """
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
def kolmogorov_cdf_durbin(n, d) -> float:
    """P(D_n <= d), one-sample two-sided, by Durbin's matrix (Durbin 1968; Marsaglia, Tsang &
    Wang 2003): the k-th diagonal entry of (n!/n^n) H^n, H of order 2k - 1, k = ceil(nd).

    Parameters
    ----------
    n : int
        The sample size.
    d : float
        The statistic.

    Returns
    -------
    float
        P(D_n <= d).

    Notes
    -----
    Durbin (1968), Ann. Math. Statist. 39, 398-411; Marsaglia, Tsang & Wang (2003), "Evaluating
    Kolmogorov's distribution", J. Stat. Softw. 8(18).
    """
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
def kolmogorov_cdf_pomeranz(n, x) -> float:
    """P(D_n <= x), one-sample two-sided, by Pomeranz's recursion (Pomeranz 1974, CACM 17).

    Parameters
    ----------
    n : int
        The sample size.
    x : float
        The statistic.

    Returns
    -------
    float
        P(D_n <= x).

    Notes
    -----
    Pomeranz (1974), "Exact cumulative distribution of the Kolmogorov-Smirnov statistic for small
    samples", Comm. ACM 17, 703-704, as Simard & L'Ecuyer (2011) implement it.
    """
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
def kolmogorov_cdf_pelz_good(n, x) -> float:
    """P(D_n <= x), one-sample two-sided, by the Pelz-Good (1976, JRSS B 38) expansion of the
    Li-Chien / Korolyuk series in 1/sqrt(n).

    Parameters
    ----------
    n : int
        The sample size.
    x : float
        The statistic.

    Returns
    -------
    float
        P(D_n <= x), approximately.

    Notes
    -----
    Pelz & Good (1976), "Approximating the lower tail-areas of the Kolmogorov-Smirnov one-sample
    statistic", J. R. Stat. Soc. B 38, 152-156 (the asymptotic series), as Simard & L'Ecuyer
    (2011) use it.
    """
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
def kolmogorov_sf(n, x) -> tuple[float, bool]:
    """P(D_n >= x) for the one-sample two-sided statistic (scipy's ``kstwo.sf``), by Simard and
    L'Ecuyer's (2011, J. Stat. Softw. 39(11)) choice of method.

    Returns ``(p, smirnov)``: where the method is 2 * (Smirnov's one-sided tail), `smirnov` is
    True and p is NaN, for the caller to evaluate with ``scipy.special.smirnov``.

    Parameters
    ----------
    n : int
        The sample size.
    x : float
        The statistic.

    Returns
    -------
    p : float
        P(D_n >= x) (NaN when `smirnov`).
    smirnov : bool
        Whether the caller must set p = 2 smirnov(n, x).

    Notes
    -----
    Simard & L'Ecuyer (2011), "Computing the two-sided Kolmogorov-Smirnov distribution",
    J. Stat. Softw. 39(11), as ``scipy.stats.kstwo.sf``.
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
