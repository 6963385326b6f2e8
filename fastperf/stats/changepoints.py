"""`changepoints`: where in each performance history did the performance change, by how much,
and how sure is that.

Every series (a benchmark, and unit, measured on every commit, night or build) is searched at
once: the points are the medians of the runs at each `order` value; E-Divisive's energy
statistic finds the best split of the current segments, a permutation test (``edivisive``) or
Welch's t-test (``ttest``, Hunter / Apache Otava's deterministic variant) decides whether it is
a change, and the search bisects until no split is significant. Each change gets the medians of
the runs of its two adjacent segments and the Hodges-Lehmann interval of their ratio.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.special import ndtri, stdtr

from fastperf.data.arrays import Samples
from fastperf.data.budget import check_budget
from fastperf.data.grouping import group_rows
from fastperf.data.units import HIGHER, LOWER, row_directions, unit_strings
from fastperf.data.validation import (check_choice, check_confidence, check_flag,
                                      check_higher_is_better, check_real, check_seed,
                                      check_unit_interval, check_whole_number)
from fastperf.engine.ranks import NO_RATIO_INTERVAL, RATIO_BEYOND_FLOAT64, rank_sum_effect_state
from fastperf.engine.sorting import sorted_slices
from fastperf.engine.summaries import min_median
from fastperf.errors import InputError
from fastperf.io.read import load_table
from fastperf.io.tables import (column_name, key_list, require_columns, value_column,
                                 with_unit)
from fastperf.data.identity import group_identities
from fastperf.engine.intervals import median_interval_ranks
from fastperf.engine.segmentation import segment_series
from fastperf.kernels.changepoints import EDIVISIVE, TTEST, next_change
from fastperf.kernels.descriptive import order_statistics
from fastperf.results.base import GroupResult, dropped_warnings, empty_keys, keyed_table
from fastperf.results.figures import ReportView
from fastperf.stats.changepoints_report import changepoints_view

__all__ = ["changepoints", "ChangepointResult", "History", "METHODS"]

#: `method=` names and their kernel codes.
METHODS = {"pelt": -1, "edivisive": EDIVISIVE, "ttest": TTEST}
SERIES_COLUMNS = ("points", "runs", "n_dropped", "changes", "drifts", "noise_autocorrelation",
                  "noise_inflation", "status")
CHANGE_COLUMNS = ("kind", "position", "end_position", "order_before", "order_after",
                  "median_before", "median_after", "ratio", "ratio_ci_low", "ratio_ci_high",
                  "slope", "slope_ci_low", "slope_ci_high", "pvalue", "evidence", "direction",
                  "rank", "status")
SEGMENT_COLUMNS = ("segment", "start", "end", "order_start", "order_end", "kind", "runs",
                   "median", "median_ci_low", "median_ci_high", "fit_start", "fit_end", "status")


class ChangepointResult(GroupResult):
    """Result of `changepoints`.

    Attributes
    ----------
    series : pyarrow.Table
        One row per series: the key columns, ``points`` (distinct `order` values), ``runs``
        (values used), ``n_dropped`` (null/NaN values and rows without an order value),
        ``changes`` (rows of `changes`: steps and drifts), ``drifts`` (of them),
        ``noise_autocorrelation`` and ``noise_inflation`` (``pelt``: the lag-1 autocorrelation
        of the residuals about the final segments' fits, and the factor the noise variance was
        multiplied by for serial dependence, 1 for none; null where no search ran and for the
        other methods) and ``status`` ("ok", "too short: ...", "constant series", "infinite
        values in input (N): ...", "no values (all missing)").
    changes : pyarrow.Table
        One row per change, by series and position: the key columns, then ``kind`` (``step``:
        the level moves between two points; ``drift``: a segment along which it moves
        steadily), ``position`` (0-based index of the first point after a step, of the first
        point of a drift), ``end_position`` (a drift's last point; a step's `position`),
        ``order_before`` / ``order_after`` (a step: the order values of the points either side;
        a drift: of its first and last point), ``median_before`` / ``median_after`` (a step: the
        medians of the runs of its two adjacent segments, or beside a drift the two fits at the
        boundary; a drift: the ends of its ramp, the level it leaves and the level it joins),
        ``ratio`` = after / before with its interval ``ratio_ci_low`` / ``ratio_ci_high`` (a
        step: Hodges-Lehmann, or exp(jump +- z se) beside a drift; a drift: from its ramp's
        standard error; null where a value <= 0 allows no ratio), ``slope`` (a drift's
        relative change per point, with ``slope_ci_low`` / ``slope_ci_high``; null for a step),
        ``pvalue`` (``edivisive`` / ``ttest``: of the test that accepted the change; null for
        ``pelt``), ``evidence`` (``pelt``: by how much the change lowers the cost, on the
        chi-square scale of a likelihood ratio: a step's merge cost saved, a drift's (slope /
        se)^2; null otherwise), ``direction`` (``worse`` / ``better`` by the unit's direction,
        ``changed`` when it has none; ``drift worse`` / ``drift better`` / ``drift``), ``rank``
        (1 = the largest change of its series, by |log ratio|) and ``status`` ("ok", or why the
        ratio has no interval).
    segments : pyarrow.Table
        One row per segment of every series with values (the whole series when nothing
        changed): the key columns, ``segment`` (0-based), ``start`` / ``end`` (its points,
        ``end`` exclusive), ``order_start`` / ``order_end`` (the order values of its first and
        last point), ``kind`` (``level`` or ``drift``), ``runs``, ``median`` of the runs with its
        distribution-free interval ``median_ci_low`` / ``median_ci_high`` (null with too few
        runs), ``fit_start`` / ``fit_end`` (the level, or the drift's line at its first and last
        point) and ``status``.
    history : History
        Every series' points (the medians of their runs) and order values: what the report's
        history chart draws.
    summary : dict
        ``function``, ``method``, ``penalty``, ``drift``, ``alpha``, ``min_size``,
        ``permutations``, ``seed`` (the options that apply to the method; None otherwise),
        ``series``, ``changes``, ``steps``, ``drifts``, ``worse``, ``better``, ``drift_worse``,
        ``drift_better``, ``rows``, ``rows_not_ok``.
    warnings : list of str
    """

    extra_tables = ("changes", "segments")
    changes: pa.Table
    segments: pa.Table

    def __init__(self, table: pa.Table, summary: dict, warnings: list[str], changes: pa.Table,
                 segments: pa.Table, history: "History"):
        super().__init__(table, summary, warnings, changes=changes, segments=segments)
        self.history = history

    @property
    def series(self) -> pa.Table:
        """The per-series table (also `table` and `groups`)."""
        return self.table

    def extra_title(self, name: str) -> str:  # noqa: D102
        return name

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return changepoints_view(self)

    def failures(self, since: Any = None) -> pa.Table:
        """The changes for the worse (steps and drifts), those after `since` when given (the
        CI gate).

        Parameters
        ----------
        since : scalar, optional
            An `order` value: only changes whose ``order_after`` is greater count (for a
            drift, the order value of its last point).

        Returns
        -------
        pyarrow.Table
            Those rows of `changes`.
        """
        worse = pc.is_in(self.changes.column("direction"),
                         pa.array(["worse", "drift worse"]))
        if since is not None:
            after = self.changes.column("order_after")
            try:
                bound = pa.scalar(since).cast(after.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError,
                    OverflowError):
                raise InputError(f"since={since!r} cannot be compared with the order column of "
                                 f"type {after.type}") from None
            if not bound.is_valid or (pa.types.is_floating(bound.type)
                                      and math.isnan(bound.as_py())):
                raise InputError(f"since={since!r} is no order value: give a number, date or "
                                 "name of the order column")
            worse = pc.and_(worse, pc.greater(after, bound))
        return self.changes.filter(worse)


#: The most permutations accepted (a p-value resolution of 1e-7); the work is budgeted too.
MAX_PERMUTATIONS = 10 ** 7
#: The most work one call may do (`check_budget`): about two minutes at 1e9 steps per second.
MAX_OPERATIONS = 10 ** 11


def _check(method, alpha, min_size, max_changes, permutations, seed, confidence, penalty,
           drift, serial_dependence):
    check_choice(method, "method", METHODS)
    if isinstance(penalty, str):
        check_choice(penalty, "penalty", ("mbic",))
    else:
        penalty = check_real(penalty, "penalty", low=0.0, low_open=True)
    check_flag(drift, "drift")
    check_flag(serial_dependence, "serial_dependence")
    if method != "pelt":
        for name, changed in (("penalty", penalty != "mbic"), ("drift", not drift),
                              ("serial_dependence", not serial_dependence)):
            if changed:
                raise InputError(f"{name} applies to method='pelt', not {method!r}")
    if method == "pelt":  # (ttest has always taken and ignored permutations and seed)
        for name, given in (("max_changes", max_changes is not None),
                            ("alpha", alpha is not None)):
            if given:
                raise InputError(f"{name} applies to method='edivisive' or 'ttest'; "
                                 "method='pelt' takes penalty= (a larger one, fewer changes)")
        if permutations != 199:
            raise InputError("permutations applies to method='edivisive', not 'pelt'")
        if seed is not None and not (isinstance(seed, (int, np.integer))
                                     and not isinstance(seed, (bool, np.bool_)) and seed == 0):
            raise InputError("seed applies to method='edivisive' (pelt draws no random "
                             "numbers)")
    if alpha is None:
        alpha = 0.01 if method == "edivisive" else 0.001
    alpha = check_unit_interval(alpha, "alpha")
    for name, v, low, high in (("min_size", min_size, 2, 2 ** 31),
                               ("max_changes", max_changes, 1, 2 ** 31),
                               ("permutations", permutations, 1, MAX_PERMUTATIONS)):
        if v is not None or name == "permutations":
            check_whole_number(v, name, minimum=low, maximum=high)
    return alpha, check_seed(seed), check_confidence(confidence), penalty


def _ordered_points(table: pa.Table, keys: list[str], order: str, values: np.ndarray):
    """Rows ordered by (series, order) and the point each row belongs to (the runs of a point
    stay in any order: their median is a selection)."""
    groups = group_rows(table, keys)
    series_of_row = np.empty(table.num_rows, dtype=np.int64)
    series_of_row[groups.gather(np.arange(table.num_rows))] = np.repeat(
        np.arange(groups.n_groups), groups.sizes)
    order_column = table.column(order)
    present = pc.is_valid(order_column)
    if pa.types.is_floating(order_column.type):  # a NaN order value is a missing one
        present = pc.and_(present, pc.invert(pc.is_nan(order_column)))
    usable = ~np.isnan(values) & present.to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(usable)
    every_row = rows.size == table.num_rows
    frame = pa.table({"series": series_of_row if every_row else series_of_row[rows],
                      "order": order_column if every_row else order_column.take(rows),
                      "value": values if every_row else values[rows]})
    try:
        if not _ordered(frame):
            frame = frame.sort_by([("series", "ascending"), ("order", "ascending")])
        series = frame.column("series").to_numpy()
        new_point = np.ones(frame.num_rows, dtype=bool)
        if frame.num_rows > 1:
            same_order = pc.equal(frame.column("order").slice(1),
                                  frame.column("order").slice(0, frame.num_rows - 1))
            new_point[1:] = ((series[1:] != series[:-1])
                             | ~same_order.to_numpy(zero_copy_only=False))
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        raise InputError(f"order column {order!r} of type {table.column(order).type} cannot be "
                         "sorted and compared: use numbers, timestamps, dates or strings") from None
    dropped = np.bincount(series_of_row[~usable], minlength=groups.n_groups)
    infinite = np.bincount(series_of_row[usable & np.isinf(values)], minlength=groups.n_groups)
    return groups, frame, series, new_point, dropped, infinite


def _ordered(frame: pa.Table) -> bool:
    """Whether the rows already come by series, then by a numeric or temporal order value (a
    history as tools write it): then no sort is needed."""
    order_type = frame.column("order").type
    if frame.num_rows < 2:
        return True
    if not any(test(order_type) for test in (pa.types.is_integer, pa.types.is_floating,
                                             pa.types.is_timestamp, pa.types.is_date,
                                             pa.types.is_duration)):
        return False  # text, decimals, times of day...: Arrow sorts them (or names the type)
    series = frame.column("series").to_numpy()
    if not (series[1:] >= series[:-1]).all():
        return False
    order = frame.column("order").to_numpy()
    backwards = order[1:] >= order[:-1]  # boolean temporaries, an eighth of a diff's bytes
    np.logical_not(backwards, out=backwards)
    backwards &= series[1:] == series[:-1]
    return not backwards.any()


def _slices(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Samples:
    """The slices values[starts[i]:ends[i]] as one batch of samples (one gather, no loop)."""
    sizes = ends - starts
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    index = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])
    return Samples(values[index], offsets)


def _scaled(point_values, exponent, point_series):
    """The points of every series times 2 ** -exponent[series] (exact): at most 1 in size."""
    return np.ldexp(point_values, -exponent[point_series])


def _search(point_values, series_offsets, active, min_size, max_changes, method, alpha,
            permutations, seed, identity):
    """The bisection rounds: change positions (relative, ascending) and their p-values."""
    n_series = series_offsets.shape[0] - 1
    sizes = np.diff(series_offsets)
    capacity = int(max(1, (sizes.max(initial=0) // min_size)))
    if max_changes is not None:
        capacity = min(capacity, int(max_changes))
    sentinel = np.iinfo(np.int64).max
    cuts = np.full((n_series, capacity), sentinel, dtype=np.int64)
    pvalues = np.full((n_series, capacity), np.nan)
    n_cuts = np.zeros(n_series, dtype=np.int64)
    active = active.copy()
    # the segments scanned, by start: the series' start, then each cut's column
    cache_hi = np.full((n_series, capacity + 1), -1, dtype=np.int64)
    cache_t = np.full((n_series, capacity + 1), -1, dtype=np.int64)
    cache_q = np.full((n_series, capacity + 1), -np.inf)
    round_index = 0
    while active.any():
        position, _, p, t, df = next_change(point_values, series_offsets, cuts, n_cuts, active,
                                            min_size, METHODS[method], permutations, alpha,
                                            seed, identity, round_index, cache_hi, cache_t,
                                            cache_q,
                                            n_rows=point_values.shape[0])
        if method == "ttest":
            with np.errstate(invalid="ignore"):
                p = np.where(np.isnan(df), np.where(t == 0, 1.0, 0.0),
                             2.0 * stdtr(df, -np.abs(t)))
        accept = active & (position >= 0) & (p <= alpha)
        rows = np.flatnonzero(accept)
        cuts[rows, n_cuts[rows]] = position[rows]
        pvalues[rows, n_cuts[rows]] = p[rows]
        n_cuts[rows] += 1
        active = accept & (n_cuts < capacity)
        round_index += 1
    order = np.argsort(cuts, axis=1, kind="stable")  # by position (found in rounds)
    return (np.take_along_axis(cuts, order, axis=1), np.take_along_axis(pvalues, order, axis=1),
            n_cuts)


def changepoints(
    data: Any,
    *,
    order: str,
    by: str | Sequence[str] | None = "benchmark",
    value: str = "value",
    unit: str | None = "unit",
    method: str = "pelt",
    penalty: str | float = "mbic",
    drift: bool = True,
    serial_dependence: bool = True,
    alpha: float | None = None,
    min_size: int | None = None,
    max_changes: int | None = None,
    permutations: int = 199,
    seed: int | None = 0,
    higher_is_better: bool | Mapping[str, bool] | None = None,
    confidence: float = 0.95,
) -> ChangepointResult:
    """Change points of every series: where, by how much, how sure; and drifts.

    Parameters
    ----------
    data : measurement table (Arrow object, path or paths)
        One row per measurement.
    order : str
        The column that orders a series (commit index, timestamp, build number); several rows
        with one order value are several runs of one point.
    by : str, sequence of str or None
        The columns naming a series (plus `unit` when the table has it). None: one series.
    value : str
        The measurements; null/NaN values (and rows without an order value) are dropped and
        counted.
    unit : str or None
        The unit column: each unit is a series of its own, and its direction says whether a
        change is for the worse.
    method : {"pelt", "edivisive", "ttest"}
        ``pelt`` (the default): the penalised optimal segmentation into levels and drifts
        (`fastperf.engine.segmentation`); ``edivisive``: E-Divisive's bisection with a
        permutation test; ``ttest``: the bisection with Hunter/Otava's Welch t-test.
    penalty : "mbic" or float
        ``pelt``'s price of a change: "mbic" (Zhang & Siegmund 2007: 3 log n per change plus
        log of each segment's length), or a number (per change, in units of the points' noise
        variance: a chi-square scale).
    drift : bool
        ``pelt``: whether a segment may be a drift (a line) rather than a level.
    serial_dependence : bool
        ``pelt``: whether the noise variance is inflated to the AR(1) long-run variance, and
        the search re-run, when the residuals about the fitted segments are autocorrelated
        beyond white noise (a history whose load wanders is then not cut at each excursion;
        the series table's ``noise_autocorrelation`` and ``noise_inflation`` show it). False
        takes the noise as independent.
    alpha : float or None
        ``edivisive`` / ``ttest``: level of each split's test: a split is a change when its
        p-value is at most alpha. None: 0.01 for ``edivisive`` (then the false-change rate of a
        stationary series is about alpha: the permutation test accounts for the split being the
        best one) and 0.001 for ``ttest`` (Otava's default; there the t-test is applied at the
        split chosen to maximise the difference, so a stationary series gets a change far more
        often than alpha: see docs/changepoints.md for the rates measured).
    min_size : int or None
        The fewest points a segment may hold (default 5).
    max_changes : int or None
        ``edivisive`` / ``ttest``: the most changes per series (None: no limit other than
        `min_size`). ``pelt`` takes `penalty` instead.
    permutations : int
        Resamples of the permutation test (``edivisive``), at most `MAX_PERMUTATIONS`; the
        work is estimated up front and refused beyond `MAX_OPERATIONS` steps (about two
        minutes), naming the estimate.
    seed : int or None
        Seed of the permutations (an integer in [0, 2**64)): the same seed, the same result,
        whatever the thread count, the table's order or the other series (each series' stream
        is keyed by its key values); None draws a fresh one.
    higher_is_better : None, bool or mapping unit -> bool
        The units' direction; None infers it from the unit (`fastperf.data.units`).
    confidence : float
        Level of the ratio, slope and median intervals.

    Returns
    -------
    ChangepointResult

    Notes
    -----
    Points are the medians of their runs. ``pelt`` minimises, over all segmentations with
    segments of at least `min_size` points, the sum of the segments' costs (the residual sum of
    squares of the log points, scaled by a robust noise estimate and clipped against a running
    median, about the segment's mean, or about its least-squares line plus a price for the
    slope) plus the penalty per change, exactly, by PELT (Killick, Fearnhead & Eckley 2012,
    JASA 107, 1590-1598); see docs/changepoints.md. ``edivisive``: for a segment split before
    point t (m points left, n right), q(t) = m n / (m + n) (2 A / (m n) - B / C(m, 2) -
    C / C(n, 2)), with A, B, C the sums of |z_i - z_j| across and within the parts (Matteson &
    James 2014, JASA 109, 334-345, alpha = 1). Each round takes, per series, the best split
    over its segments; ``edivisive`` accepts it when the permutation p-value (points permuted
    within each segment, p = (#{q* >= q} + 1) / (R + 1)) is at most `alpha` (Matteson & James;
    MongoDB's signal-processing-algorithms, Daly et al. 2020); ``ttest`` when Welch's two-sided
    t-test between the two sides of the split within its segment gives p <= alpha (Hunter /
    Apache Otava, Fleming et al. 2023). A step's ratio interval inverts the rank-sum test on
    the log runs of the two adjacent segments (Hodges & Lehmann 1963); a drift's comes from
    its slope's standard error.
    """
    value = column_name(value, "value")
    order = column_name(order, "order")
    unit = column_name(unit, "unit", allow_none=True)
    alpha, seed, confidence, penalty = _check(method, alpha, min_size, max_changes, permutations,
                                              seed, confidence, penalty, drift, serial_dependence)
    higher_is_better = check_higher_is_better(higher_is_better)
    min_size = 5 if min_size is None else int(min_size)
    table = load_table(data)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    keys = with_unit(key_list(by) if by is not None else [], table, unit)
    require_columns(table, keys + [order, value])
    if order in keys or value in keys or order == value:
        raise InputError(f"order={order!r}, value={value!r} and the key columns {keys} must be "
                         "different columns")
    values = value_column(table, value)
    groups, frame, series, new_point, dropped, infinite = _ordered_points(table, keys, order,
                                                                          values)
    n_series = groups.n_groups
    run_values = frame.column("value").to_numpy()
    point_starts = np.flatnonzero(new_point)
    point_offsets = np.append(point_starts, run_values.shape[0]).astype(np.int64)
    point_values = (run_values if point_starts.size == run_values.shape[0]  # one run per point
                    else min_median(Samples(run_values, point_offsets))[1])
    point_series = series[point_starts]
    point_order = (frame.column("order") if point_starts.size == frame.num_rows
                   else frame.column("order").take(pa.array(point_starts)))
    every_series = np.arange(n_series + 1)  # both are sorted: counts by binary search
    points = np.diff(np.searchsorted(point_series, every_series))
    runs = np.diff(np.searchsorted(series, every_series))
    series_offsets = np.zeros(n_series + 1, dtype=np.int64)
    np.cumsum(points, out=series_offsets[1:])

    scale, low, high = np.zeros(n_series), np.full(n_series, np.inf), np.full(n_series, -np.inf)
    filled = np.flatnonzero(points)
    if filled.size:  # the points of a series are contiguous: one reduction per series
        starts = series_offsets[filled]
        low[filled] = np.minimum.reduceat(point_values, starts)
        high[filled] = np.maximum.reduceat(point_values, starts)
        if infinite.any():  # the largest finite |value|
            scale[filled] = np.maximum.reduceat(
                np.where(np.isfinite(point_values), np.abs(point_values), 0.0), starts)
        else:
            scale[filled] = np.maximum(np.abs(low[filled]), np.abs(high[filled]))
    _, exponent = np.frexp(np.where(scale > 0, scale, 1.0))
    too_short = points < 2 * min_size
    constant = ~too_short & (low == high)
    status = np.select(
        [points == 0, infinite > 0, too_short, constant],
        ["no values (all missing)",
         np.char.add(np.char.add("infinite values in input (", infinite.astype(str)),
                     "): an infinite measurement is a broken one; remove it or set it to null"),
         np.char.add(np.char.add("too short: ", points.astype(str)),
                     f" points, fewer than 2 x min_size = {2 * min_size}"),
         "constant series"], "ok").astype(object)
    searched = status == "ok"
    with_segments = (points > 0) & (infinite == 0)
    # every point > 0: the search works on logs (a change is a ratio, a drift a rate)
    logged = with_segments & (low > 0) if method == "pelt" else np.zeros(n_series, dtype=bool)
    if method == "pelt":
        # one search per series; a series whose noise is serially dependent runs up to six
        # (`fastperf.kernels.segmentation.MAX_REFITS` re-runs), not charged: most run one
        check_budget("changepoints", "the series' length", int(points.max(initial=0)),
                     bytes_needed=64 * int(runs.sum()),
                     operations=20.0 * float(np.sum(points.astype(np.float64) ** 2)),
                     detail="at most about 20 n^2 steps per series of n points (PELT's worst "
                            "case, a history without changes)",
                     remedy="cut long histories into windows, or use method='ttest'",
                     max_operations=MAX_OPERATIONS)
        with np.errstate(divide="ignore", invalid="ignore"):
            search_values = (np.log(point_values) if logged.all() else
                             np.where(logged[point_series], np.log(point_values),
                                      _scaled(point_values, exponent, point_series)))
        found = segment_series(search_values, series_offsets, with_segments, min_size=min_size,
                               penalty=penalty, drift=drift, serial_dependence=serial_dependence)
        noise_autocorrelation, noise_inflation = found.autocorrelation, found.inflation
        segments = _segments_from_segmentation(found, logged, exponent)
    else:
        check_budget("changepoints", "permutations", permutations,
                     bytes_needed=64 * int(runs.sum()),
                     operations=(permutations if method == "edivisive" else 1) * 8.0 * float(
                         np.sum(points * np.log2(np.maximum(points, 2)))),
                     detail="about 8 n log2(n) steps per series of n points and resample",
                     remedy="use fewer permutations= or method='ttest'",
                     max_operations=MAX_OPERATIONS)
        identity = group_identities(groups.keys) if method == "edivisive" else \
            np.zeros(n_series, dtype=np.uint64)
        cuts, pvalues, n_cuts = _search(_scaled(point_values, exponent, point_series),
                                        series_offsets, searched, min_size, max_changes, method,
                                        alpha, permutations, seed, identity)
        segments = _segments_from_cuts(cuts, pvalues, n_cuts, points, with_segments)
        noise_autocorrelation = noise_inflation = np.full(n_series, np.nan)

    segment_table, segment_runs, minimum, median = _segment_table(
        groups, segments, point_order, series_offsets, point_offsets, run_values, logged,
        confidence)
    changes, change_series = _changes(groups, segments, segment_runs, minimum, median, point_order,
                       series_offsets, logged, unit if unit in keys else None, higher_is_better,
                       confidence)
    kind = changes.column("kind").to_numpy(zero_copy_only=False)
    direction = changes.column("direction").to_numpy(zero_copy_only=False)
    series_table = keyed_table(groups.keys, {
        "points": points, "runs": runs, "n_dropped": dropped,
        "changes": np.bincount(change_series, minlength=n_series),
        "drifts": np.bincount(change_series[kind == "drift"], minlength=n_series),
        "noise_autocorrelation": _nulls_where(noise_autocorrelation,
                                              np.isnan(noise_autocorrelation)),
        "noise_inflation": _nulls_where(noise_inflation, np.isnan(noise_inflation)),
        "status": status})
    warnings = dropped_warnings(dropped, "series")
    summary = {"function": "changepoints", "method": method,
               "penalty": penalty if method == "pelt" else None,
               "drift": drift if method == "pelt" else None,
               "serial_dependence": serial_dependence if method == "pelt" else None,
               "alpha": alpha if method != "pelt" else None,
               "min_size": min_size, "permutations": permutations if method == "edivisive"
               else None, "seed": seed if method == "edivisive" else None,
               "series": n_series, "changes": int(kind.size),
               "steps": int((kind == "step").sum()), "drifts": int((kind == "drift").sum()),
               "worse": int((direction == "worse").sum()),
               "better": int((direction == "better").sum()),
               "drift_worse": int((direction == "drift worse").sum()),
               "drift_better": int((direction == "drift better").sum())}
    history = History(point_values, series_offsets, point_order, segments.series,
                      change_series)
    return ChangepointResult(series_table, summary, warnings, changes, segment_table, history)


#: Below this many runs on either side, a change's ratio interval takes its ranks from the exact
#: rank-sum null (conditional on ties where cheap); from it on, from the normal approximation:
#: the segments of a history have many different sizes, and an exact null per size pair would
#: cost more than the whole search.
EXACT_BELOW = 20


def _hodges_lehmann_ratios(runs: Samples, before: np.ndarray, after: np.ndarray,
                          positive: np.ndarray, confidence: float):
    """after / before as the Hodges-Lehmann estimate of the log runs, with its interval, of
    each pair of samples (before[j], after[j]) of `runs`; NaN where a side holds a value <= 0.
    """
    ratio, low, high = (np.full(before.shape[0], np.nan) for _ in range(3))
    sizes = runs.sizes
    small = (sizes[before] < EXACT_BELOW) | (sizes[after] < EXACT_BELOW)
    take = lambda i: _slices(runs.values, runs.offsets[i], runs.offsets[i + 1])  # noqa: E731
    for rows, method in ((np.flatnonzero(small), "auto"), (np.flatnonzero(~small), "asymptotic")):
        if rows.size == 0:
            continue
        keep = positive[rows]
        state = rank_sum_effect_state(take(after[rows]), take(before[rows]), method,
                                      "omit").on_logs(keep)
        estimate, lo, hi = state.effects("two-sided", confidence)
        with np.errstate(over="ignore", invalid="ignore"):
            ratio[rows] = np.where(keep, np.exp(estimate), np.nan)
            low[rows] = np.where(keep, np.exp(lo), np.nan)
            high[rows] = np.where(keep, np.exp(hi), np.nan)
    return ratio, low, high


@dataclass(frozen=True)
class Segments:
    """The segments of every series, as one batch (the search's answer, before the tables).

    Row j is a segment of series ``series[j]``: points ``start[j]:end[j]`` of it (0-based,
    relative to the series' first point), a drift (a line) or a level; rows of a series are
    contiguous and in order. ``level`` / ``slope`` are the fit in the search's scale (the logs of
    the points when `logged`), at the segment's first point and per point; a drift's ramp
    rises from ``ramp_start`` to ``ramp_end`` (standard error ``ramp_se``), the levels where
    it leaves and joins its neighbours. The boundary before a segment (every one but its
    series' first) carries ``evidence`` (penalised search) or ``pvalue`` (bisection search),
    the ``jump`` of the fits across it with its ``jump_se``, and whether it is a step.
    """

    series: np.ndarray
    start: np.ndarray
    end: np.ndarray
    drift: np.ndarray
    level: np.ndarray
    slope: np.ndarray
    slope_se: np.ndarray
    evidence: np.ndarray
    pvalue: np.ndarray
    step: np.ndarray
    ramp_start: np.ndarray
    ramp_end: np.ndarray
    ramp_se: np.ndarray
    jump: np.ndarray
    jump_se: np.ndarray


@dataclass(frozen=True)
class History:
    """The points of every series, for the chart: series g (row g of ``result.series``) has the
    point values (the medians of their runs) ``values[offsets[g]:offsets[g + 1]]``, in order;
    ``order`` holds the order value of every point; ``segment_series`` / ``change_series`` give
    the series (row of ``result.series``) of each row of ``result.segments`` /
    ``result.changes``."""

    values: np.ndarray
    offsets: np.ndarray
    order: pa.Array
    segment_series: np.ndarray
    change_series: np.ndarray


def _nulls_where(values: np.ndarray, missing: np.ndarray) -> pa.Array:
    """`values` as an Arrow float64 array, null where `missing` (a column that does not apply to
    a row is null, never NaN)."""
    return pa.array(values, pa.float64(), mask=missing)


def _segments_from_cuts(cuts, pvalues, n_cuts, points, with_segments) -> Segments:
    """The level segments between the cuts of the bisection search (``edivisive`` /
    ``ttest``): every boundary a step with its p-value."""
    series_ids = np.flatnonzero(with_segments)
    count = n_cuts[series_ids] + 1
    series = np.repeat(series_ids, count)
    first = np.zeros(series_ids.size + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:])
    k = np.arange(series.size) - np.repeat(first[:-1], count)  # index within the series
    is_first = k == 0
    start = np.zeros(series.size, dtype=np.int64)
    start[~is_first] = cuts[series[~is_first], k[~is_first] - 1]
    end = np.empty(series.size, dtype=np.int64)
    end[:-1] = start[1:]
    end[first[1:] - 1] = points[series_ids]
    pvalue = np.full(series.size, np.nan)
    pvalue[~is_first] = pvalues[series[~is_first], k[~is_first] - 1]
    nan = np.full(series.size, np.nan)
    return Segments(series, start, end, np.zeros(series.size, dtype=bool), nan,
                    np.zeros(series.size), nan, nan, pvalue, ~is_first, nan, nan, nan, nan, nan)


def _segments_from_segmentation(found, logged, exponent) -> Segments:
    """`Segments` from the penalised search (`segment_series`), its fits back in the points'
    scale (logs where `logged`, else the values: the search ran on them scaled by a power of
    two)."""
    counts = np.diff(found.offsets)
    series = np.repeat(np.arange(counts.size), counts)
    # x 2**exponent by ldexp (exact, and no 2**1024 overflow near the float64 maximum)
    power = np.where(logged[series], 0, exponent[series])
    back = lambda x: np.ldexp(x, power)  # noqa: E731
    return Segments(series, found.start, found.end, found.drift, back(found.level),
                    back(found.slope), back(found.slope_se), found.evidence,
                    np.full(series.size, np.nan), found.step, back(found.ramp_start),
                    back(found.ramp_end), back(found.ramp_se), back(found.jump),
                    back(found.jump_se))


def _segment_table(groups, segments: Segments, point_order, series_offsets, point_offsets,
                   run_values, logged, confidence):
    """The segments table and each segment's sorted runs, minimum and median."""
    base = series_offsets[segments.series]
    runs = sorted_slices(run_values, point_offsets[base + segments.start],
                          point_offsets[base + segments.end])
    sizes = runs.sizes
    lower, upper, _ = median_interval_ranks(sizes, confidence)
    bounded = lower > 0
    stats = order_statistics(runs.values, runs.offsets, sizes, lower, upper,
                             n_rows=runs.values.shape[0])  # min, median, max, the two bounds
    minimum, median, ci_low, ci_high = stats[:, 0], stats[:, 1], stats[:, 3], stats[:, 4]
    length = (segments.end - segments.start).astype(np.float64)
    fit_start = np.where(segments.drift, segments.level, np.nan)
    fit_end = np.where(segments.drift, segments.level + segments.slope * (length - 1), np.nan)
    if logged is not None:
        with np.errstate(over="ignore"):
            fit_start = np.where(logged[segments.series], np.exp(fit_start), fit_start)
            fit_end = np.where(logged[segments.series], np.exp(fit_end), fit_end)
    fit_start = np.where(segments.drift, fit_start, median)
    fit_end = np.where(segments.drift, fit_end, median)
    k = np.arange(segments.series.size) - np.searchsorted(segments.series, segments.series)
    status = np.where(bounded, "ok", np.char.add(np.char.add("too few runs (", sizes.astype(str)),
                                                  ") for a median interval")).astype(object)
    status[~(np.isfinite(fit_start) & np.isfinite(fit_end))] = "fit beyond the float64 range"
    order_start = point_order.take(pa.array(base + segments.start))
    order_end = point_order.take(pa.array(base + segments.end - 1))
    table = keyed_table(_key_rows(groups, segments.series), {
        "segment": k, "start": segments.start, "end": segments.end,
        "order_start": order_start, "order_end": order_end,
        "kind": pa.array(np.where(segments.drift, "drift", "level").tolist(), pa.string()),
        "runs": sizes, "median": median,
        "median_ci_low": _nulls_where(ci_low, ~bounded),
        "median_ci_high": _nulls_where(ci_high, ~bounded),
        "fit_start": fit_start, "fit_end": fit_end,
        "status": pa.array(status.tolist(), pa.string())})
    return table, runs, minimum, median


def _key_rows(groups, rows: np.ndarray) -> pa.Table:
    """The key columns of the series `rows` (a table without columns when there are no keys)."""
    if groups.keys.num_columns:
        return groups.keys.take(pa.array(rows, pa.int64()))
    return empty_keys(rows.shape[0])


def _changes(groups, segments: Segments, segment_runs, minimum, median, point_order,
             series_offsets, logged, unit, higher_is_better, confidence):
    """One row per change: each step (a boundary between two segments) and each drift segment,
    the direction by the unit, the rank by size within the series. A step between two levels
    gets the medians and Hodges-Lehmann ratio of the runs of its adjacent segments; a step
    beside a drift the two fits at the boundary and exp(jump +- z se); a drift its ramp, from the
    level it leaves to the level it joins, exp(ramp +- z se), and its slope. Returns the table
    (by series, then position) and the series of each row."""
    z = ndtri(0.5 + confidence / 2.0)
    step_after = np.flatnonzero(segments.step)  # the segment after each step
    before = step_after - 1
    drifts = np.flatnonzero(segments.drift)
    positive = (minimum[before] > 0) & (minimum[step_after] > 0)
    step_ratio, step_low, step_high = _hodges_lehmann_ratios(segment_runs, before, step_after,
                                                             positive, confidence)
    step_before, step_after_value = median[before], median[step_after]
    beside = segments.drift[before] | segments.drift[step_after]  # a step beside a drift
    step_logged = logged[segments.series[step_after]]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # the two final fits at the boundary: the segment after at its first point, the one
        # before extrapolated to it (a level: its mean)
        after_fit = segments.level[step_after]
        before_fit = segments.level[before] + segments.slope[before] * (
            segments.start[step_after] - segments.start[before])
        jump, jump_se = after_fit - before_fit, segments.jump_se[step_after]
        step_before = np.where(beside, np.where(step_logged, np.exp(before_fit), before_fit),
                               step_before)
        step_after_value = np.where(beside, np.where(step_logged, np.exp(after_fit), after_fit),
                                    step_after_value)
        step_ratio = np.where(beside, np.where(step_logged, np.exp(jump), np.nan), step_ratio)
        step_low = np.where(beside, np.where(step_logged, np.exp(jump - z * jump_se), np.nan),
                            step_low)
        step_high = np.where(beside, np.where(step_logged, np.exp(jump + z * jump_se), np.nan),
                             step_high)
    positive = np.where(beside, step_logged, positive)
    # a drift: its ramp, exp(ramp_end - ramp_start +- z ramp_se) on logs; its slope exp(b) - 1
    b, se = segments.slope[drifts], segments.slope_se[drifts]
    drift_logged = logged[segments.series[drifts]]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        first_fit, last_fit = segments.ramp_start[drifts], segments.ramp_end[drifts]
        rise, rise_se = last_fit - first_fit, segments.ramp_se[drifts]
        drift_ratio = np.where(drift_logged, np.exp(rise), np.nan)
        drift_low = np.where(drift_logged, np.exp(rise - z * rise_se), np.nan)
        drift_high = np.where(drift_logged, np.exp(rise + z * rise_se), np.nan)
        slope = np.where(drift_logged, np.expm1(b), np.nan)
        slope_low = np.where(drift_logged, np.expm1(b - z * se), np.nan)
        slope_high = np.where(drift_logged, np.expm1(b + z * se), np.nan)
        first_fit = np.where(drift_logged, np.exp(first_fit), first_fit)
        last_fit = np.where(drift_logged, np.exp(last_fit), last_fit)
    n_steps, n_drifts = step_after.size, drifts.size
    g = np.concatenate([segments.series[step_after], segments.series[drifts]])
    base = series_offsets[g]
    position = np.concatenate([segments.start[step_after], segments.start[drifts]])
    end_position = np.concatenate([segments.start[step_after], segments.end[drifts] - 1])
    before_point = np.concatenate([segments.start[step_after] - 1, segments.start[drifts]])
    ratio = np.concatenate([step_ratio, drift_ratio])
    low = np.concatenate([step_low, drift_low])
    high = np.concatenate([step_high, drift_high])
    is_drift = np.arange(g.size) >= n_steps
    units = (unit_strings(groups.keys.column(unit), unit) if unit is not None
             else pa.nulls(groups.n_groups, pa.string()))
    series_direction = row_directions(units, higher_is_better)
    up = np.concatenate([step_after_value > step_before, b > 0])
    direction = np.where(series_direction[g] == LOWER, np.where(up, "worse", "better"),
                         np.where(series_direction[g] == HIGHER,
                                  np.where(up, "better", "worse"), "changed")) \
        if g.size else np.array([], dtype=object)
    direction = np.where(is_drift, np.char.add("drift ", direction.astype(str)), direction) \
        if g.size else direction
    direction = np.where(direction == "drift changed", "drift", direction)
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.abs(np.log(ratio))
    size = np.where(np.isfinite(size), size, -1.0)
    by_size = np.lexsort((-size, g))
    rank = np.empty(g.shape[0], dtype=np.int64)
    first_of_series = np.searchsorted(g[by_size], g[by_size])
    rank[by_size] = np.arange(g.shape[0]) - first_of_series + 1
    finite = np.isfinite(ratio) & np.isfinite(low) & np.isfinite(high) & (low > 0)
    valid = np.concatenate([positive, drift_logged])
    status = pa.array(np.select([~valid, ~finite], [
        NO_RATIO_INTERVAL, RATIO_BEYOND_FLOAT64], "ok").tolist(), pa.string())
    evidence = np.concatenate([segments.evidence[step_after], (b / se) ** 2 if n_drifts else b])
    pvalue = np.concatenate([segments.pvalue[step_after], np.full(n_drifts, np.nan)])
    columns = {
        "kind": pa.array(np.where(is_drift, "drift", "step").tolist(), pa.string()),
        "position": position, "end_position": end_position,
        "order_before": point_order.take(pa.array(base + before_point)),
        "order_after": point_order.take(pa.array(base + end_position)),
        "median_before": np.concatenate([step_before, first_fit]),
        "median_after": np.concatenate([step_after_value, last_fit]),
        "ratio": _nulls_where(ratio, np.isnan(ratio)),
        "ratio_ci_low": _nulls_where(low, np.isnan(low)),
        "ratio_ci_high": _nulls_where(high, np.isnan(high)),
        "slope": _nulls_where(np.concatenate([np.zeros(n_steps), slope]), ~is_drift | ~valid),
        "slope_ci_low": _nulls_where(np.concatenate([np.zeros(n_steps), slope_low]),
                                     ~is_drift | ~valid),
        "slope_ci_high": _nulls_where(np.concatenate([np.zeros(n_steps), slope_high]),
                                      ~is_drift | ~valid),
        "pvalue": _nulls_where(pvalue, np.isnan(pvalue)),
        "evidence": _nulls_where(evidence, np.isnan(evidence)),
        "direction": pa.array(direction.tolist(), pa.string()), "rank": rank,
        "status": status}
    table = keyed_table(_key_rows(groups, g), columns)
    by_place = np.lexsort((position, g))  # by series, then position
    return table.take(pa.array(by_place, pa.int64())), g[by_place]
