"""The two-sample Kolmogorov-Smirnov test per pair of CSR samples: statistic and p-value.

One kernel, `ks_2samp_pairs`, sorts a copy of each sample (counting ranks when small),
merge-walks the two for the statistic and computes the p-value in place. Exact: scipy's
lattice-path counts (Hodges 1958, Arkiv för Matematik 3, 469-486; Viehmann 2021,
arXiv:2102.08037), in `fastperf.kernels.ks_exact`; with ties, the exact p-value conditional on
the tie pattern instead (Schröer & Trenkler 1995, Computational Statistics & Data Analysis 20,
185-202; R's ``psmirnov``), `fastperf.kernels.ks_exact.tied_exact_pvalue`. Asymptotic: Hodges'
one-sided approximation, and for two-sided the one-sample distribution with
n = round(n1 n2 / (n1 + n2)) (scipy's ``kstwo.sf``, Simard & L'Ecuyer 2011) except its Smirnov
branch, which the API evaluates in bulk with ``scipy.special.smirnov``, in
`fastperf.kernels.ks_asymptotic`. All but the tied exact p-value ported operation for operation,
so that p agrees with ``scipy.stats.ks_2samp`` to rounding.
"""
import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange
from fastperf.kernels.ks_asymptotic import asymp_sample_size, kolmogorov_sf, one_sided_asymp_pvalue
from fastperf.kernels.ks_exact import (GREATER, LESS, TWO_SIDED, exact_pvalue, gcd, tie_block_ends,
                                       tied_exact_pvalue)
from fastperf.kernels.order_statistics import sorted_copy

__all__ = [
    "ks_2samp_pairs", "ecdf_extremes", "median_of_sorted", "TWO_SIDED", "LESS", "GREATER", "AUTO",
    "EXACT", "ASYMP", "STATUS_MESSAGES", "PVALUE_SOURCES", "FROM_EXACT", "FROM_ASYMP",
    "FROM_SMIRNOV", "NO_FALLBACK", "EXACT_FAILED", "EXACT_IMPOSSIBLE", "TIES_TOO_LARGE",
    "MAX_AUTO_N", "MAX_TIED_CELLS",
]

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
#: ``TIES_TOO_LARGE``: tied samples with n1 n2 > `MAX_TIED_CELLS`, given the continuous-data
#: exact p-value (conservative) instead of the one conditional on the ties.
NO_FALLBACK, EXACT_FAILED, EXACT_IMPOSSIBLE, TIES_TOO_LARGE = 0, 1, 2, 3

#: method="auto" is exact when max(n1, n2) <= this (scipy's MAX_AUTO_N).
MAX_AUTO_N = 10_000
_INT32_MAX = 2_147_483_647
#: The exact p-value conditional on ties visits n1 n2 lattice points (a few ns each): it is
#: computed up to n1 n2 = 10**8, which covers every pair that method="auto" makes exact.
MAX_TIED_CELLS = 100_000_000


@njit(cache=True)
def ecdf_extremes(xs, ys) -> tuple[float, float]:
    """The largest and the (negated) smallest difference F_x(t) - F_y(t) of two sorted samples.

    The ECDFs are compared at every value of the pooled sample, after all the values tied at it
    have been consumed (scipy's ``searchsorted(side="right")``). Returns ``(d_plus, d_minus)``,
    both in [0, 1]: max(F_x - F_y) and max(F_y - F_x). Once one sample is used up the difference
    moves monotonically back to 0, so the walk stops there.

    Parameters
    ----------
    xs, ys : numpy.ndarray
        The two samples, sorted, NaN-free.

    Returns
    -------
    d_plus, d_minus : float
        max(F_x - F_y) and max(F_y - F_x), in [0, 1].

    Notes
    -----
    The two-sample statistics D+ and D- of Smirnov (1939), Bull. Moscow Univ. 2(2), 3-14.
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
def median_of_sorted(xs) -> float:
    """The median of a sorted sample, as ``numpy.median`` computes it, but finite wherever the
    two middle values are (their half-sum, where their sum passes the float64 maximum).

    Parameters
    ----------
    xs : numpy.ndarray
        A sorted, non-empty sample.

    Returns
    -------
    float
        The middle value, or the mean of the two middle values.

    Notes
    -----
    The median as ``numpy.median`` defines it: no further formula.
    """
    n = xs.shape[0]
    half = n // 2
    if n % 2 == 1:
        return xs[half]
    middle = (xs[half - 1] + xs[half]) / 2.0
    if np.isinf(middle) and np.isfinite(xs[half - 1]) and np.isfinite(xs[half]):
        return xs[half - 1] / 2.0 + xs[half] / 2.0
    return middle


@njit(cache=True)
def _has_nan(a):
    for v in a:
        if v != v:
            return True
    return False


# The parallel build costs ~5 s of compilation per process and gains at most the core count
# over the serial one (~50 ns per value for samples of 31), so it only pays on large batches.
@group_kernel(min_rows=2_000_000)
def ks_2samp_pairs(x_values, x_offsets, y_values, y_offsets, alternative, method,
                   center_median) -> tuple[np.ndarray, ...]:
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
    fallback : int8, NO_FALLBACK, or why an exact p-value gave way to the asymptotic one
        (EXACT_FAILED, EXACT_IMPOSSIBLE), or to the continuous-data one (TIES_TOO_LARGE).

    Notes
    -----
    Smirnov (1939) for the statistic; exact p-values by `fastperf.kernels.ks_exact` (Hodges 1958;
    Viehmann 2021), asymptotic ones by `fastperf.kernels.ks_asymptotic` (Hodges 1958; Simard &
    L'Ecuyer 2011), as ``scipy.stats.ks_2samp``. With ties in the pooled sample (and no
    centring) the exact p-value is the one conditional on the tie pattern (Schröer & Trenkler
    1995; R >= 4.2's ``ks.test(exact=TRUE)``), for n1 n2 <= `MAX_TIED_CELLS`.
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

        g = gcd(n1, n2)
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
            # centred samples tie by construction (both medians at 0): the continuous p, as the
            # Speedup-Test protocol has it
            ends, tied = tie_block_ends(xs, ys)
            tied = tied and not center_median
            if tied and n1 * n2 <= MAX_TIED_CELLS:
                p = tied_exact_pvalue(ends, n1, n2, h * g, alternative)
            else:
                if tied:
                    fallback[k] = TIES_TOO_LARGE
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
