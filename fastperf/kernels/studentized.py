"""The pieces of the studentized (bootstrap-t) interval: standard errors and the pivot t*.

`fastperf.kernels.bootstrap` draws the resamples and takes the quantiles; this module computes,
for one (re)sample, the plug-in standard error of a mean-type statistic on the scale where it is
studentized, and the pivot t* = (phi* - phi_hat) / se* of a resample, with the rule for a resample
whose standard error is 0.
"""
import math

import numpy as np

from fastperf.kernels.builds import njit

from fastperf.kernels.resampling_scale import scaled_variance

#: Pivot kinds: the mean of x, the difference of means, the log of the ratio of means.
PIVOT_MEAN, PIVOT_DIFF, PIVOT_LOG_RATIO = range(3)


@njit(cache=True)
def pivot_standard_error(kind, x, n, y, m) -> float:
    """The plug-in standard error of the statistic on its studentized scale.

    Parameters
    ----------
    kind : int
        `PIVOT_MEAN`, `PIVOT_DIFF` or `PIVOT_LOG_RATIO`.
    x, y : numpy.ndarray
        The (re)samples, ``x[:n]`` and ``y[:m]`` used (y unused for `PIVOT_MEAN`).
    n, m : int
        Their sizes, at least 2 each.

    Returns
    -------
    float
        s_x / sqrt(n) for the mean; sqrt(s_x^2 / n + s_y^2 / m) for the difference of means;
        sqrt(s_x^2 / (n xbar^2) + s_y^2 / (m ybar^2)), the delta-method standard error of
        log(xbar / ybar), for the ratio (NaN unless both means are positive). Exactly 0 when
        every sample's values are equal. Scale-equivariant and finite for finite values: a
        sample whose largest magnitude lies outside 2**+-200 is scaled by a power of two first
        (`fastperf.kernels.resampling_scale.scaled_variance`; ordinary values bit for bit as
        the plain formulas).

    Notes
    -----
    Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 12.5 (the bootstrap-t
    with a plug-in standard error) and ch. 12.6 (a transformation, here the log, for a
    ratio); Davison & Hinkley (1997), "Bootstrap Methods and their Application", eq. 5.7; the
    log ratio's standard error by the delta method (first-order Taylor expansion of
    log xbar - log ybar).
    """
    mx, vx, ex = scaled_variance(x, n)  # scaled by 2**-ex (ex = 0 for ordinary values)
    if kind == PIVOT_MEAN:
        return math.ldexp(math.sqrt(vx / n), ex)
    my, vy, ey = scaled_variance(y, m)
    if kind == PIVOT_DIFF:  # on the larger sample's scale, e: the other's term times 4**(. - e)
        e = max(ex, ey)
        return math.ldexp(math.sqrt(math.ldexp(vx / n, 2 * (ex - e))
                                    + math.ldexp(vy / m, 2 * (ey - e))), e)
    if not (mx > 0.0 and my > 0.0):
        return np.nan
    return math.sqrt(vx / (n * mx * mx) + vy / (m * my * my))  # free of each sample's scale


@njit(cache=True)
def pivot(phi, phi_hat, se) -> float:
    """t* = (phi* - phi_hat) / se* of one resample, with the zero-standard-error rule.

    Parameters
    ----------
    phi : float
        The resample's statistic on the studentized scale.
    phi_hat : float
        The data's statistic on that scale.
    se : float
        The resample's standard error (`pivot_standard_error`), >= 0.

    Returns
    -------
    float
        (phi - phi_hat) / se; when se == 0 (every value drawn equal): 0 if phi == phi_hat,
        else +inf or -inf with the sign of phi - phi_hat, the limit of the ratio as se -> 0+.
        Such a resample then sits in a tail of the t* distribution, and when it reaches the
        quantile used the interval is unbounded on that side.

    Notes
    -----
    Efron & Tibshirani (1993), ch. 12.5, define t* = (theta* - theta_hat) / se*; a resample
    with se* = 0 carries no scale information, and its limit keeps its sign (no NaN, no
    resample dropped, so B stays the number of resamples drawn).
    """
    d = phi - phi_hat
    if se == 0.0:
        if d == 0.0:
            return 0.0
        return np.inf if d > 0.0 else -np.inf
    return d / se
