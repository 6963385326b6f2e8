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
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.special import stdtr

from fastperf.data.arrays import Samples
from fastperf.data.budget import check_budget
from fastperf.data.grouping import group_rows
from fastperf.data.units import HIGHER, LOWER, unit_directions, unit_names
from fastperf.data.validation import (check_choice, check_confidence, check_seed,
                                      check_unit_interval, check_whole_number)
from fastperf.engine.ranks import rank_sum_effect_state, sort_samples
from fastperf.engine.summaries import min_median
from fastperf.errors import InputError
from fastperf.io.read import load_table
from fastperf.io.tables import column_name, has_column, key_list, require_columns, value_column
from fastperf.kernels.changepoints import next_change
from fastperf.results.base import GroupResult, dropped_warnings, keyed_table

__all__ = ["changepoints", "ChangepointResult", "METHODS"]

#: `method=` names and their kernel codes.
METHODS = {"edivisive": 0, "ttest": 1}
SERIES_COLUMNS = ("points", "runs", "n_dropped", "changes", "status")
CHANGE_COLUMNS = ("position", "order_before", "order_after", "median_before", "median_after",
                  "ratio", "ratio_ci_low", "ratio_ci_high", "pvalue", "direction", "rank",
                  "status")


class ChangepointResult(GroupResult):
    """Result of `changepoints`.

    Attributes
    ----------
    series : pyarrow.Table
        One row per series: the key columns, ``points`` (distinct `order` values), ``runs``
        (values used), ``n_dropped`` (null/NaN values and rows without an order value),
        ``changes`` (found) and ``status`` ("ok", "too short: ...", "constant series",
        "infinite values in input (N): ...", "no values (all missing)").
    changes : pyarrow.Table
        One row per change: the key columns, then ``position`` (0-based index of the first
        point after the change in the ordered series), ``order_before`` / ``order_after`` (the
        order values of the points either side), ``median_before`` / ``median_after`` (medians
        of the runs of the two adjacent segments), ``ratio`` = after / before with its
        Hodges-Lehmann interval ``ratio_ci_low`` / ``ratio_ci_high``, ``pvalue`` (of the test
        that accepted the change), ``direction`` (``worse`` / ``better`` by the unit's direction,
        ``changed`` when it has none), ``rank`` (1 = the largest change of its series) and
        ``status`` ("ok", or why the ratio has no interval).
    summary : dict
        ``function``, ``method``, ``alpha``, ``min_size``, ``permutations``, ``seed``,
        ``series``, ``changes``, ``worse``, ``better``, ``rows``, ``rows_not_ok``.
    warnings : list of str
    """

    extra_tables = ("changes",)

    def __init__(self, table: pa.Table, summary: dict, warnings: list[str], changes: pa.Table):
        super().__init__(table, summary, warnings)
        self.changes = changes

    @property
    def series(self) -> pa.Table:
        """The per-series table (also `table` and `groups`)."""
        return self.table

    def extra_title(self, name: str) -> str:  # noqa: D102
        return "changes"

    def failures(self, since: Any = None) -> pa.Table:
        """The changes for the worse, those after `since` when given (the CI gate).

        Parameters
        ----------
        since : scalar, optional
            An `order` value: only changes whose ``order_after`` is greater count.

        Returns
        -------
        pyarrow.Table
            Those rows of `changes`.
        """
        worse = pc.equal(self.changes.column("direction"), "worse")
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


def _check(method, alpha, min_size, max_changes, permutations, seed, confidence):
    check_choice(method, "method", METHODS)
    if alpha is None:
        alpha = 0.01 if method == "edivisive" else 0.001
    alpha = check_unit_interval(alpha, "alpha")
    for name, v, low, high in (("min_size", min_size, 2, 2 ** 31),
                               ("max_changes", max_changes, 1, 2 ** 31),
                               ("permutations", permutations, 1, MAX_PERMUTATIONS)):
        if v is not None or name == "permutations":
            check_whole_number(v, name, minimum=low, maximum=high)
    return alpha, check_seed(seed), check_confidence(confidence)


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
    order = frame.column("order").to_numpy()
    step = np.diff(series)
    return bool((step >= 0).all() and (order[1:] >= order[:-1])[step == 0].all())


def _slices(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Samples:
    """The slices values[starts[i]:ends[i]] as one batch of samples (one gather, no loop)."""
    sizes = ends - starts
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    index = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])
    return Samples(values[index], offsets)


def _search(point_values, series_offsets, active, min_size, max_changes, method, alpha,
            permutations, seed):
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
    cache_hi = np.full(point_values.shape[0], -1, dtype=np.int64)  # segments scanned, by start
    cache_t = np.full(point_values.shape[0], -1, dtype=np.int64)
    cache_q = np.full(point_values.shape[0], -np.inf)
    round_index = 0
    while active.any():
        position, _, p, t, df = next_change(point_values, series_offsets, cuts, n_cuts, active,
                                            min_size, METHODS[method], permutations, alpha,
                                            seed, round_index, cache_hi, cache_t, cache_q,
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
    method: str = "edivisive",
    alpha: float | None = None,
    min_size: int | None = None,
    max_changes: int | None = None,
    permutations: int = 199,
    seed: int | None = 0,
    higher_is_better: bool | Mapping[str, bool] | None = None,
    confidence: float = 0.95,
) -> ChangepointResult:
    """Change points of every series: where, by how much, how sure.

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
    method : {"edivisive", "ttest"}
        E-Divisive with a permutation test, or Hunter/Otava's deterministic Welch t-test.
    alpha : float or None
        Level of each split's test: a split is a change when its p-value is at most alpha.
        None: 0.01 for ``edivisive`` (then the false-change rate of a stationary series is
        about alpha: the permutation test accounts for the split being the best one) and 0.001
        for ``ttest`` (Otava's default; there the t-test is applied at the split chosen to
        maximise the difference, so a stationary series gets a change far more often than
        alpha: see docs/changepoints.md for the rates measured).
    min_size : int or None
        The fewest points a segment may hold (default 5 for ``edivisive``, 5 for ``ttest``).
    max_changes : int or None
        The most changes per series (None: no limit other than `min_size`).
    permutations : int
        Resamples of the permutation test (``edivisive``), at most `MAX_PERMUTATIONS`; the
        work is estimated up front and refused beyond `MAX_OPERATIONS` steps (about two
        minutes), naming the estimate.
    seed : int or None
        Seed of the permutations (an integer in [0, 2**64)): the same seed, the same result,
        whatever the thread count; None draws a fresh one.
    higher_is_better : None, bool or mapping unit -> bool
        The units' direction; None infers it from the unit (`fastperf.data.units`).
    confidence : float
        Level of the ratio intervals.

    Returns
    -------
    ChangepointResult

    Notes
    -----
    Points are the medians of their runs. For a segment split before point t (m points left,
    n right), q(t) = m n / (m + n) (2 A / (m n) - B / C(m, 2) - C / C(n, 2)), with A, B, C the
    sums of |z_i - z_j| across and within the parts (Matteson & James 2014, JASA 109, 334-345,
    alpha = 1). Each round takes, per series, the best split over its segments; ``edivisive``
    accepts it when the permutation p-value (points permuted within each segment, p = (#{q* >=
    q} + 1) / (R + 1)) is at most `alpha` (Matteson & James; MongoDB's signal-processing-
    algorithms, Daly et al. 2020); ``ttest`` when Welch's two-sided t-test between the two
    sides of the split within its segment gives p <= alpha (Hunter / Apache Otava, Fleming et
    al. 2023). The ratio interval inverts the rank-sum test on the log runs of the two adjacent
    segments (Hodges & Lehmann 1963).
    """
    value = column_name(value, "value")
    order = column_name(order, "order")
    unit = column_name(unit, "unit", allow_none=True)
    alpha, seed, confidence = _check(method, alpha, min_size, max_changes, permutations, seed,
                                     confidence)
    min_size = 5 if min_size is None else int(min_size)
    table = load_table(data)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    keys = key_list(by) if by is not None else []
    if unit is not None and has_column(table, unit) and unit not in keys:
        keys.append(unit)
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
    points = np.bincount(point_series, minlength=n_series)
    runs = np.bincount(series, minlength=n_series)
    series_offsets = np.zeros(n_series + 1, dtype=np.int64)
    np.cumsum(points, out=series_offsets[1:])

    scale, low, high = np.zeros(n_series), np.full(n_series, np.inf), np.full(n_series, -np.inf)
    filled = np.flatnonzero(points)
    if filled.size:  # the points of a series are contiguous: one reduction per series
        starts = series_offsets[filled]
        scale[filled] = np.maximum.reduceat(
            np.where(np.isfinite(point_values), np.abs(point_values), 0.0), starts)
        low[filled] = np.minimum.reduceat(point_values, starts)
        high[filled] = np.maximum.reduceat(point_values, starts)
    _, exponent = np.frexp(np.where(scale > 0, scale, 1.0))
    scaled = np.ldexp(point_values, -exponent[point_series])
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
    check_budget("changepoints", "permutations", permutations,
                 bytes_needed=64 * int(runs.sum()),
                 operations=(permutations if method == "edivisive" else 1) * 8.0 * float(
                     np.sum(points * np.log2(np.maximum(points, 2)))),
                 detail="about 8 n log2(n) steps per series of n points and resample",
                 remedy="use fewer permutations= or method='ttest'",
                 max_operations=MAX_OPERATIONS)
    cuts, pvalues, n_cuts = _search(scaled, series_offsets, status == "ok", min_size,
                                    max_changes, method, alpha, permutations, seed)

    changes = _changes(groups, frame, cuts, pvalues, n_cuts, points, series_offsets,
                       point_offsets, run_values, unit if unit in keys else None,
                       higher_is_better, confidence)
    series_table = keyed_table(groups.keys, {
        "points": points, "runs": runs, "n_dropped": dropped, "changes": n_cuts,
        "status": status})
    direction = changes.column("direction").to_numpy(zero_copy_only=False)
    warnings = dropped_warnings(dropped, "series")
    summary = {"function": "changepoints", "method": method, "alpha": alpha,
               "min_size": min_size, "permutations": permutations if method == "edivisive"
               else None, "seed": seed, "series": n_series, "changes": int(n_cuts.sum()),
               "worse": int((direction == "worse").sum()),
               "better": int((direction == "better").sum())}
    return ChangepointResult(series_table, summary, warnings, changes)


#: Below this many runs on either side, a change's ratio interval takes its ranks from the exact
#: rank-sum null (conditional on ties where cheap); from it on, from the normal approximation:
#: the segments of a history have many different sizes, and an exact null per size pair would
#: cost more than the whole search.
EXACT_BELOW = 20


def _hodges_lehmann_ratios(xs: Samples, ys: Samples, positive: np.ndarray, confidence: float):
    """after / before as the Hodges-Lehmann estimate of the log runs, with its interval; NaN
    where a side holds a value <= 0."""
    ratio, low, high = (np.full(len(xs), np.nan) for _ in range(3))
    small = (xs.sizes < EXACT_BELOW) | (ys.sizes < EXACT_BELOW)
    for rows, method in ((np.flatnonzero(small), "auto"), (np.flatnonzero(~small), "asymptotic")):
        if rows.size == 0:
            continue
        take = lambda s: _slices(s.values, s.offsets[rows], s.offsets[rows + 1])  # noqa: E731, B023
        keep = positive[rows]
        state = rank_sum_effect_state(take(ys), take(xs), method, "omit").on_logs(keep)
        estimate, lo, hi = state.effects("two-sided", confidence)
        with np.errstate(over="ignore", invalid="ignore"):
            ratio[rows] = np.where(keep, np.exp(estimate), np.nan)
            low[rows] = np.where(keep, np.exp(lo), np.nan)
            high[rows] = np.where(keep, np.exp(hi), np.nan)
    return ratio, low, high


def _changes(groups, frame, cuts, pvalues, n_cuts, points, series_offsets, point_offsets,
             run_values, unit, higher_is_better, confidence) -> pa.Table:
    """One row per change: where, the medians and ratio of its adjacent segments, direction."""
    n_series, capacity = cuts.shape
    slot = np.arange(capacity)[None, :]
    present = slot < n_cuts[:, None]
    g, k = np.nonzero(present)
    position = cuts[g, k]
    last = k + 1 >= n_cuts[g]
    base = series_offsets[g]
    point_order = frame.column("order").take(pa.array(point_offsets[:-1]))
    order_before = point_order.take(pa.array(base + position - 1))
    order_after = point_order.take(pa.array(base + position))
    # every segment of a changed series once (a segment is the "after" of one change and the
    # "before" of the next): sorted and summarised once, then taken for both sides
    first_segment = np.zeros(n_series, dtype=np.int64)
    np.cumsum(np.where(n_cuts > 0, n_cuts + 1, 0)[:-1], out=first_segment[1:])
    segment_before = first_segment[g] + k
    n_segments = int(g.size + np.count_nonzero(n_cuts))
    segment_low, segment_high = np.zeros(n_segments, np.int64), np.zeros(n_segments, np.int64)
    segment_base = np.zeros(n_segments, np.int64)
    segment_low[segment_before + 1], segment_high[segment_before] = position, position
    segment_high[segment_before[last] + 1] = points[g[last]]
    segment_base[segment_before], segment_base[segment_before + 1] = base, base
    segments = sort_samples(_slices(run_values, point_offsets[segment_base + segment_low],
                                    point_offsets[segment_base + segment_high]))
    minimum, median = min_median(segments)
    xs, ys = (_slices(segments.values, segments.offsets[i], segments.offsets[i + 1])
              for i in (segment_before, segment_before + 1))
    med_before, med_after = median[segment_before], median[segment_before + 1]
    positive = (minimum[segment_before] > 0) & (minimum[segment_before + 1] > 0)
    ratio, low, high = _hodges_lehmann_ratios(xs, ys, positive, confidence)
    units = (unit_names(groups.keys.column(unit), unit) if unit is not None
             else [None] * n_series)
    directions = unit_directions(dict.fromkeys(units), higher_is_better)
    series_direction = np.array([directions[u] for u in units], dtype=object)
    up = med_after > med_before
    direction = np.where(series_direction[g] == LOWER, np.where(up, "worse", "better"),
                         np.where(series_direction[g] == HIGHER,
                                  np.where(up, "better", "worse"), "changed")) \
        if g.size else np.array([], dtype=object)
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.abs(np.log(ratio))
    size = np.where(np.isfinite(size), size, -1.0)
    by_size = np.lexsort((-size, g))
    rank = np.empty(g.shape[0], dtype=np.int64)
    first_of_series = np.searchsorted(g[by_size], g[by_size])
    rank[by_size] = np.arange(g.shape[0]) - first_of_series + 1
    finite = np.isfinite(ratio) & np.isfinite(low) & np.isfinite(high)
    status = pa.array(np.select([~positive, ~finite], [
        "values <= 0: no ratio interval",
        "ratio or its interval beyond the float64 range"], "ok").tolist(), pa.string())
    columns = {"position": position, "order_before": order_before, "order_after": order_after,
               "median_before": med_before, "median_after": med_after, "ratio": ratio,
               "ratio_ci_low": low, "ratio_ci_high": high, "pvalue": pvalues[g, k],
               "direction": pa.array(direction.tolist(), pa.string()), "rank": rank,
               "status": status}
    keys = groups.keys.take(pa.array(g, pa.int64())) if groups.keys.num_columns else \
        pa.table({"_": pa.nulls(g.shape[0])}).drop_columns(["_"])
    return keyed_table(keys, columns)
