"""The penalised segmentation of many series into level and drift segments: the default search
of `fastperf.changepoints`.

`segment_series` takes every series' points (CSR, already on the scale searched: logs of
positive data) and gives each active series its optimal segmentation under the MBIC (or a
given penalty per change), each segment a level (constant) or a drift (a line), with its fit,
the evidence for each boundary and the jump across it. The method, its robust noise scale and
clipping, the costs, the objective and PELT's exact pruning are in
`fastperf.kernels.segmentation`; docs/changepoints.md explains them to users.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fastperf.data.validation import check_choice, check_real, check_whole_number
from fastperf.kernels.segmentation import segment

__all__ = ["Segmentation", "segment_series", "DRIFT_MIN_FACTOR"]

#: A drift segment holds at least DRIFT_MIN_FACTOR * min_size points (a line needs more points
#: than a level to be told from one).
DRIFT_MIN_FACTOR = 3


@dataclass(frozen=True)
class Segmentation:
    """The segments of every series: series g's are rows ``offsets[g]:offsets[g + 1]``.

    Attributes
    ----------
    offsets : numpy.ndarray of int64
        ``n_series + 1`` CSR offsets of each series' segments (none for an inactive series).
    start, end : numpy.ndarray of int64
        The segment's first point and one past its last, relative to the series' start.
    drift : numpy.ndarray of bool
        Whether the segment is a drift (a line) rather than a level.
    level : numpy.ndarray of float64
        The fit at the segment's first point, in the units of the input values (of the
        clipped values): a level's mean, a drift's ramp (see `ramp_start`).
    slope : numpy.ndarray of float64
        The fit's change per point (0.0 for a level).
    slope_se : numpy.ndarray of float64
        Its standard error, scale / sqrt(sum (u - mean u)^2) over the points of the ramp's fit
        (NaN for a level).
    evidence : numpy.ndarray of float64
        For the boundary before the segment: cost(merged) - cost(left) - cost(right) in units
        of the noise variance (a -2 log-likelihood ratio, the drift prices included); NaN for
        a series' first segment.
    jump : numpy.ndarray of float64
        The segment's fit at its first point minus the previous segment's fit extrapolated to
        that point (NaN for the first).
    jump_se : numpy.ndarray of float64
        Its standard error from the two fits' prediction variances (NaN for the first).
    step : numpy.ndarray of bool
        Whether the boundary before the segment is a step (False for a series' first segment):
        always between two levels; beside a drift only when |jump| > max(3.29 jump_se,
        3 scale), since a drift's ends are estimated and a fit that bends a little off its
        true end leaves a jump of several standard errors; otherwise the boundary is a kink.
    ramp_start, ramp_end : numpy.ndarray of float64
        A drift's ramp: the level where it starts and where it ends (NaN for a level). A drift
        [s, e) of L points is refitted as y = a + b u, u = clip(i - (s - 1/2), 0, L), over its
        points and those of each level neighbour whose boundary with it is a kink (flat before,
        a line along the drift, flat after: continuous, as a gradual change usually is);
        ``ramp_start`` = a and ``ramp_end`` = a + b L, the change a user sees from the level
        before to the level after. Without such neighbours the ramp is the drift's own line.
    ramp_se : numpy.ndarray of float64
        The standard error of ``ramp_end - ramp_start``, L `slope_se` (NaN for a level).
    scale : numpy.ndarray of float64
        Per series, the robust noise scale sigma (0 for a constant series, NaN when inactive),
        inflated for serial dependence where that applied (`autocorrelation`).
    penalty : numpy.ndarray of float64
        Per series, the penalty per change used (NaN when inactive).
    autocorrelation : numpy.ndarray of float64
        Per series, the lag-1 autocorrelation phi of the residuals about the fits of its
        final segments (NaN where no search ran: inactive, constant, or shorter than
        2 min_size).
    inflation : numpy.ndarray of float64
        Per series, the factor the noise variance was multiplied by for serial dependence (1:
        none; NaN where no search ran): where the residuals' phi exceeded 2 / sqrt(n) (with
        `serial_dependence`), (1 + phi) / (1 - phi)^2 for the phi of the fit before the last
        search (phi capped at 0.99), which turns the difference-based sigma^2 into the AR(1)
        long-run variance. `scale` includes it, and so do every standard error, the step rule
        and `evidence`. Where sigma is the quantum floor (a coarse timer) rather than the
        differences' scale, the factor over-states the long-run variance.
    """

    offsets: np.ndarray
    start: np.ndarray
    end: np.ndarray
    drift: np.ndarray
    level: np.ndarray
    slope: np.ndarray
    slope_se: np.ndarray
    evidence: np.ndarray
    jump: np.ndarray
    jump_se: np.ndarray
    step: np.ndarray
    ramp_start: np.ndarray
    ramp_end: np.ndarray
    ramp_se: np.ndarray
    scale: np.ndarray
    penalty: np.ndarray
    autocorrelation: np.ndarray
    inflation: np.ndarray


def segment_series(values, offsets, active, *, min_size: int = 5, penalty: str | float = "mbic",
                   drift: bool = True, drift_penalty: float | None = None,
                   robust: bool = True, refine_kinks: bool = True,
                   serial_dependence: bool = True) -> Segmentation:
    """The penalised optimal segmentation of every active series into levels and drifts.

    Parameters
    ----------
    values : array_like of float64
        The points of every series, series after series, in order (finite in active series).
    offsets : array_like of int64
        ``n_series + 1`` CSR offsets of the series into `values`.
    active : array_like of bool
        The series to segment: the others get no segment and NaN scale and penalty.
    min_size : int
        The fewest points of a segment (>= 1); a drift holds at least 3 `min_size`. An active
        series shorter than 2 `min_size` gets one level segment.
    penalty : "mbic" or float
        "mbic": 3 log n per change and log L per segment of L points (Zhang & Siegmund 2007,
        as R's changepoint package implements it);
        a number > 0: that penalty per change (in units of the noise variance), no log L term.
    drift : bool
        Whether a segment may be a drift.
    drift_penalty : float or None
        The price of a drift's slope (>= 0, in units of the noise variance); None: the price of
        a change (3 log n with "mbic", else `penalty`): a larger penalty silences drifts too.
    robust : bool
        Whether points are first clipped to 2.5 noise scales around their running median over
        2 `min_size` + 1 points (which removes up to `min_size` clustered spikes).
    refine_kinks : bool
        Whether each drift's kinks (its boundaries with level neighbours that are not steps)
        move to where the continuous ramp fits best (least squares over their positions):
        the search places a gradual change's ends several points off, and a ramp fitted there
        has too narrow an interval. False: the boundaries of the exact optimum.
    serial_dependence : bool
        Whether the noise variance is inflated to the AR(1) long-run variance, and the search
        re-run, when the residuals about the fitted segments are autocorrelated beyond white
        noise (`inflation`; `fastperf.kernels.segmentation.dependent_search`): a series that
        wanders (seasonality, a slowly varying load) is then not cut at each excursion. False:
        the noise is taken as independent.

    Returns
    -------
    Segmentation

    Raises
    ------
    ValueError
        On arguments no segmentation can take (shapes, offsets, non-finite values in an active
        series, min_size < 1, a penalty <= 0 or a negative drift_penalty).

    Notes
    -----
    Minimises sum over segments (cost + log L) + beta (changes), exactly (optimal partitioning
    with PELT pruning: Killick, Fearnhead & Eckley 2012, JASA 107, 1590-1598); the cost of a
    segment is the residual sum of squares of the clipped points over sigma^2 about its mean
    (a level) or about its least-squares line plus `drift_penalty` (a drift), whichever is
    smaller; sigma is the root mean square of the first differences without their largest
    tenth, made consistent for normal noise, and at least one quantum / sqrt(12)
    (`fastperf.kernels.segmentation.noise_scale`), inflated to the AR(1) long-run variance
    when the fit's residuals are serially dependent (`serial_dependence`). After the search,
    each boundary is classed as a step or a kink and each drift refitted as a ramp joined to
    its level neighbours across kinks (`Segmentation.step`, `Segmentation.ramp_start`); the
    refit does not change the segmentation. `fastperf.kernels.segmentation` gives every step
    and its sources.
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    active = np.ascontiguousarray(active, dtype=np.bool_)
    mbic, beta, price = _checked(values, offsets, active, min_size, penalty, drift_penalty)
    (slots, counts, start, end, is_drift, level, slope, slope_se, evidence, jump, jump_se, step,
     ramp_start, ramp_end, ramp_se, scale, beta_used, autocorrelation, inflation) = segment(
        values, offsets, active, int(min_size), DRIFT_MIN_FACTOR * int(min_size), mbic, beta,
        bool(drift), price, bool(robust), bool(refine_kinks), bool(serial_dependence),
        n_rows=values.shape[0])
    segment_offsets = np.zeros(offsets.shape[0], dtype=np.int64)
    np.cumsum(counts, out=segment_offsets[1:])
    rows = (np.repeat(slots[:-1] - segment_offsets[:-1], counts)
            + np.arange(segment_offsets[-1], dtype=np.int64))
    return Segmentation(segment_offsets, start[rows], end[rows], is_drift[rows], level[rows],
                        slope[rows], slope_se[rows], evidence[rows], jump[rows], jump_se[rows],
                        step[rows], ramp_start[rows], ramp_end[rows], ramp_se[rows], scale,
                        beta_used, autocorrelation, inflation)


def _checked(values, offsets, active, min_size, penalty, drift_penalty):
    """(mbic, beta, drift price) for the kernel, or a ValueError naming what no segmentation
    can take."""
    if values.ndim != 1 or offsets.ndim != 1 or active.ndim != 1:
        raise ValueError("values, offsets and active must be one-dimensional")
    if offsets.shape[0] != active.shape[0] + 1:
        raise ValueError(f"offsets must hold one more entry than active ({active.shape[0] + 1}),"
                         f" got {offsets.shape[0]}")
    if offsets[0] != 0 or offsets[-1] != values.shape[0] or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must rise from 0 to len(values)")
    # the options by the shared checks (an InputError is a ValueError)
    check_whole_number(min_size, "min_size", 1)
    if isinstance(penalty, str):
        check_choice(penalty, "penalty", ("mbic",))
        mbic, beta = True, math.nan
    else:
        mbic, beta = False, check_real(penalty, "penalty", low=0.0, low_open=True)
    price = (math.nan if drift_penalty is None
             else check_real(drift_penalty, "drift_penalty", low=0.0))
    # every value finite (the common case) settles it in one pass; otherwise look only at the
    # active series' values
    if not np.isfinite(values).all() and not np.isfinite(
            values[np.repeat(active, np.diff(offsets))]).all():
        raise ValueError("values of active series must be finite")
    return mbic, beta, price
