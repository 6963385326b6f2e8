"""`describe`: per-group summary statistics of a measurement table, with intervals."""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.errors import InputError
from fastperf.results.base import GroupResult, dropped_warnings, keyed_table, nan_as_null
from fastperf.results.figures import Intervals, ReportView
from fastperf.results.html import row_labels
from fastperf.io.summaries import is_summary_table
from fastperf.io.read import load_table
from fastperf.io.tables import (column_name, describe_group, key_list, require_columns,
                                value_column, with_unit)
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.levels import (Structure, check_structure_arguments, resolve_structure,
                                  units_of)
from fastperf.kernels.descriptive import order_statistics
from fastperf.kernels.moments import scaled_moments
from fastperf.data.grouping import group_rows
from fastperf.io.dataset import Dataset
from fastperf.data.validation import check_confidence, check_key_clash
from fastperf.stats.describe_summaries import describe_summaries
from fastperf.engine.intervals import (median_interval_minimum_size, median_interval_ranks,
                                      student_halfwidth, student_quantile)

__all__ = ["describe", "DescribeResult", "COMPONENT_COLUMNS", "DescribeOptions", "DescribePlan", "describe_options",
           "describe_plan", "describe_stage", "describe_finish"]

#: The variance components `describe` adds per group when the table has levels
#: (`fastperf.data.levels.variance_components`).
COMPONENT_COLUMNS = ("n_units", "icc", "design_effect", "n_effective", "sigma2_between",
                     "sigma2_within")

#: The fewest independent units behind a median interval of nested values (Woodruff's).
MEDIAN_MIN_UNITS = 5

STATS_COLUMNS = [
    "n", "n_dropped", "mean", "sd", "min", "median", "max", "cv", "ci_mean_low", "ci_mean_high",
    "ci_median_low", "ci_median_high", "ci_median_confidence", "status",
]


class DescribeResult(GroupResult):
    """Result of `describe`.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per (keys, variant[, unit]) group: the key columns, then ``n``, ``n_dropped``,
        ``mean``, ``sd``, ``min``, ``median``, ``max``, ``cv``, ``ci_mean_low``, ``ci_mean_high``,
        ``ci_median_low``, ``ci_median_high``, ``ci_median_confidence``, ``status``; with
        levels, then `COMPONENT_COLUMNS`.
    summary : dict
        ``function``, ``input_rows``, ``values`` (used), ``dropped`` (null/NaN),
        ``confidence``, ``structure``, ``rows`` (groups) and ``rows_not_ok``.
    warnings : list of str
    """

    def report_view(self) -> ReportView:
        """The report: the median of each group with its distribution-free interval, one
        colour per variant (`Result.report_view`)."""
        t, s = self.groups, self.summary
        keys = t.column_names[:t.column_names.index("n")]
        column = lambda name: t.column(name).to_numpy(zero_copy_only=False).astype(float)  # noqa: E731
        variant = next((k for k in ("variant",) if k in keys), None)
        headline = [f"{t.num_rows} groups, {s['values']} values"
                    + (f", {s['dropped']} null/NaN dropped" if s.get("dropped") else "")]
        figure = Intervals("median per group with its distribution-free interval",
                           row_labels(t, keys), column("median"), column("ci_median_low"),
                           column("ci_median_high"), axis="median", reference=None, log=False,
                           sort=False, category=None if variant is None else
                           ["" if v is None else str(v) for v in t.column(variant).to_pylist()])
        return ReportView(headline, [figure], None, variant or "status")


def _describe_iv(table: pa.Table, by, variant, value, unit) -> tuple[list[str], str]:
    """Check the arguments against the table; return the key columns and the value column."""
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    keys = key_list(by)
    require_columns(table, keys)
    variant = column_name(variant, "variant", allow_none=True)
    unit = column_name(unit, "unit", allow_none=True)
    if variant is not None:
        require_columns(table, [variant], hint="pass variant=None to describe without variants")
        keys.append(variant)
    keys = with_unit(keys, table, unit)
    if value in keys:
        raise InputError(f"column {value!r} cannot be both the value and a key")
    check_key_clash(keys, STATS_COLUMNS, "describe")
    return list(dict.fromkeys(keys)), value


def _spread(n, mean, scaled_mean, variance, exponent, confidence):
    """sd, cv, the Student interval of the mean, and why any is missing ("" when none; an
    object array of str).

    The mean is ``scaled_mean * 2**exponent``, the variance ``variance * 4**exponent``
    (``scaled_moments``): each figure is computed
    on the scaled values and scaled back, so it is NaN, with its reason, only where it lies
    beyond the float64 range (or the mean is 0, for the cv).
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        sd_scaled = np.sqrt(variance)
        sd = np.ldexp(sd_scaled, exponent)
        halfwidth = student_halfwidth(n, sd_scaled, confidence)
        ci_low = np.ldexp(scaled_mean - halfwidth, exponent)
        ci_high = np.ldexp(scaled_mean + halfwidth, exponent)
        cv = np.where(scaled_mean != 0, sd_scaled / scaled_mean, np.nan)
    spread = n >= 2
    sd_over = spread & np.isinf(sd)
    ci_over = spread & ~sd_over & ~(np.isfinite(ci_low) & np.isfinite(ci_high))
    cv_over = spread & ~sd_over & (scaled_mean != 0) & np.isinf(cv)
    zero_mean = spread & (scaled_mean == 0)
    beyond = np.full(n.shape, "", dtype=object)
    flagged = np.flatnonzero(sd_over | ci_over | cv_over | zero_mean)  # usually none
    for condition, message in [
        (sd_over, "sd beyond the float64 range: no sd, cv or mean interval"),
        (ci_over, "mean interval beyond the float64 range"),
        (cv_over, "cv beyond the float64 range"),
        (zero_mean, "mean 0: no cv"),
    ]:
        some, sofar = condition[flagged], beyond[flagged]
        beyond[flagged] = np.where(some, np.where(sofar == "", message, sofar + "; " + message),
                                   sofar)
    sd = np.where(sd_over, np.nan, sd)
    cv = np.where(sd_over | cv_over, np.nan, cv)
    ci_low, ci_high = (np.where(sd_over | ci_over, np.nan, a) for a in (ci_low, ci_high))
    return sd, cv, ci_low, ci_high, beyond


def describe(
    data: Any,
    *,
    by: str | Sequence[str] | None = "benchmark",
    variant: str | None = "variant",
    value: str = "value",
    unit: str | None = "unit",
    confidence: float = 0.95,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> DescribeResult:
    """Summary statistics with confidence intervals for every (benchmark, variant) group.

    Parameters
    ----------
    data : pyarrow.Table, RecordBatchReader, object with ``__arrow_c_stream__``, or path(s)
        A measurement table (one row per measurement); paths are read with `fastperf.read`.
    by : str or list of str or None
        Key column(s) naming the benchmark. None: group by variant only.
    variant : str or None
        Column naming the system/version measured; None when the table has none.
    value : str
        The measurement column (numeric). Null and NaN values are dropped and counted in
        ``n_dropped``; an infinite value is an error naming its group.
    unit : str or None
        When the table has this column, groups are also split by unit (a benchmark reporting
        time and bytes gives one row per unit). None to ignore it.
    confidence : float
        Confidence level of both intervals.
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        the table has (``build``, ``process``); ``[]`` or ``"none"`` asks for the flat
        analysis, which takes every value as independent (today's table, bit for bit).
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block.

    Returns
    -------
    DescribeResult
        ``.groups`` has one row per group, keys first (in the grouper's order: first
        appearance), then the statistics. ``sd`` has ddof=1; ``cv = sd / mean``.
        ``ci_mean_*``: Student t interval, mean +/- t[(1+c)/2; n-1] sd / sqrt(n) (seed 000).
        ``ci_median_*``: order statistics x_(j+1), x_(n-j), the narrowest pair symmetric in rank
        with exact binomial coverage >= `confidence`; ``ci_median_confidence`` is that
        coverage. ``status`` is "ok" or says which figures a group lacks: a small group, or a
        "constant sample" (n >= 2 equal values c: sd 0 and a NaN mean interval, since a
        zero-width Student interval would state a certainty that the sample cannot give; the
        median interval is [c, c], as every order statistic is c).
        With levels (or a block), each group also gets its variance components
        (`fastperf.data.levels.variance_components`, on the log scale when its values are
        positive): ``n_units`` (independent units), ``icc`` (the share of the variance between
        units), ``design_effect``, ``n_effective`` (values / design effect),
        ``sigma2_between`` and ``sigma2_within``; and a group whose values are nested in two
        units or more takes its intervals from them (docs/nested.md): the mean's is the
        Student interval of the mean of its unit means (``n_units - 1`` degrees of freedom),
        the median's by Woodruff's method (1952) with the design-based standard error of the
        share below the median (Hansen, Hurwitz & Madow 1953), from 5 effective units (Kish
        1965) on (``ci_median_confidence`` is then the nominal level).
    """
    table = data if isinstance(data, Dataset) else load_table(data)
    if not isinstance(table, Dataset) and is_summary_table(table):
        keys, value = _describe_iv(table, by, variant, value, unit)
        return DescribeResult(*describe_summaries(table, keys, check_confidence(confidence)))
    options = describe_options(by=by, variant=variant, value=value, unit=unit,
                               confidence=confidence, levels=levels, block=block)
    return run_planned(table, partial(describe_plan, options=options), describe_stage,
                       describe_finish, values=[value], function="describe",
                       keys=[by, variant, unit])


@dataclass(frozen=True)
class DescribeOptions:
    """The options of `describe`, as given: its columns are checked against the table by
    `describe_plan`."""

    by: Any
    variant: Any
    value: Any
    unit: Any
    confidence: Any
    levels: tuple[str, ...] | None = None
    block: str | None = None


@dataclass(frozen=True, kw_only=True)
class DescribePlan(Plan):
    """The plan of `describe` (`fastperf.data.chunked`).

    Attributes
    ----------
    keys : list of str
        The group's key columns: `by`, the variant and the unit (those the table has).
    value : str
        The measurement column.
    confidence : float
        The level of both intervals, checked.
    structure : Structure
        The levels and block of the variance components (`resolve_structure`).
    variant : str or None
        The variant column among the keys.
    """

    keys: list[str]
    value: str
    confidence: float
    structure: Structure = Structure()
    variant: str | None = None


def describe_options(*, by, variant, value, unit, confidence, levels=None,
                     block=None) -> DescribeOptions:
    """The options of `describe` in one record (`describe_plan` checks them).

    Parameters
    ----------
    by, variant, value, unit, confidence, levels, block
        See `describe` (`levels` and `block` are checked here).

    Returns
    -------
    DescribeOptions
    """
    levels, block = check_structure_arguments(levels, block)
    return DescribeOptions(by, variant, value, unit, confidence, levels,
                           block)


def describe_plan(table: pa.Table, options: DescribeOptions) -> DescribePlan:
    """The plan of `describe` (`fastperf.data.chunked`): its key columns and options.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : DescribeOptions
        `describe_options`.

    Returns
    -------
    DescribePlan
    """
    keys, value = _describe_iv(table, options.by, options.variant, options.value, options.unit)
    confidence = check_confidence(options.confidence)
    partition = [k for k in keys if k not in (options.variant, options.unit)] or keys
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*keys, value])
    variant = options.variant if options.variant in keys else None
    return DescribePlan(keys=keys, value=value, confidence=confidence, structure=structure,
                        variant=variant, partition=tuple(partition), order=tuple(keys))


def describe_stage(table: pa.Table, plan: DescribePlan, side: dict | None = None) -> StageRows:
    """The rows of `describe` for the groups of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete groups.
    plan : DescribePlan
        `describe_plan`.
    side : dict or None
        Unused.

    Returns
    -------
    StageRows
        The output rows; no extra column.
    """
    keys, value, confidence = plan.keys, plan.value, plan.confidence
    values = value_column(table, value)
    groups = group_rows(table, keys)
    grouped = groups.gather(values)
    del values
    n_rows = table.num_rows
    n, n_dropped, mean, scaled_mean, variance, exponent, _ = scaled_moments(
        grouped, groups.offsets, n_rows=n_rows)
    infinite = (n > 0) & ~np.isfinite(mean)  # an infinite value makes the mean inf or NaN
    if infinite.any():
        where = describe_group(groups.keys, int(np.argmax(infinite)))
        raise InputError(
            f"value column {value!r} holds infinite values in {int(infinite.sum())} group(s), the "
            f"first {where}; an infinite measurement is a broken one: remove it or set it to "
            "null (nulls and NaN are dropped and counted)"
        )
    lower, upper, coverage = median_interval_ranks(n, confidence)
    stats = order_statistics(grouped, groups.offsets, n, lower, upper, n_rows=n_rows)
    n_min = median_interval_minimum_size(confidence)
    constant = (n >= 2) & (stats[:, 0] == stats[:, 2])
    sd, cv, ci_low, ci_high, beyond = _spread(n, mean, scaled_mean, variance, exponent,
                                              confidence)
    too_few = f"fewer than {n_min} values: no {confidence:.4g} median interval"
    # the first reason that applies, else "ok"; written only where one applies (most groups
    # are "ok"); the constant sample's and the out-of-range reasons note a missing median interval
    status = np.full(n.shape, "ok", dtype=object)
    for condition, reason, noted in reversed([
        (n == 0, np.array(["no values (all missing)"], dtype=object), False),
        (n == 1, np.array(["1 value: no sd or intervals"], dtype=object), False),
        (constant, np.array(["constant sample: every value equal, no mean interval"],
                            dtype=object), True),
        (beyond != "", beyond, True),
        (lower == 0, np.array([too_few], dtype=object), False),
    ]):
        rows = np.flatnonzero(condition)
        if rows.size:
            text = reason if reason.size == 1 else reason[rows]
            if noted:
                text = text + np.where(lower[rows] == 0, "; " + too_few, "").astype(object)
            status[rows] = text
    # a constant sample has sd 0: its Student interval would have width 0 whatever n and the
    # confidence, a statement about the spread's estimate, not a confidence interval. Its
    # order-statistic median interval is [c, c]: every order statistic is c, so it covers the
    # median c with probability 1 >= the nominal coverage (R's order-statistic interval too)
    no_interval = np.where(constant, np.nan, 1.0)
    columns = {
        "n": n, "n_dropped": n_dropped, "mean": mean, "sd": sd, "min": stats[:, 0],
        "median": stats[:, 1], "max": stats[:, 2], "cv": cv,
        "ci_mean_low": ci_low * no_interval,
        "ci_mean_high": ci_high * no_interval,
        "ci_median_low": stats[:, 3], "ci_median_high": stats[:, 4],
        "ci_median_confidence": coverage, "status": status,
    }
    if not plan.structure.flat:
        _nested_columns(columns, table, groups, grouped, plan)
    return StageRows.of(keyed_table(groups.keys, columns))


@dataclass(frozen=True)
class UnitSpread:
    """Per group, from its units' means m_i of n_i values (a units, N values).

    Attributes
    ----------
    units : numpy.ndarray
        a, the units with a value.
    kish_units : numpy.ndarray
        Kish's effective number of units N^2 / sum n_i^2 (Kish 1965, Survey Sampling, 8.2):
        a on balanced units, near 1 where one unit holds most values.
    unit_mean, unit_se : numpy.ndarray
        The mean of the unit means, sum_i m_i / a, and its standard error s_m / sqrt(a), s_m
        the units' standard deviation: unbiased for the variance of that mean whatever the
        n_i, since the m_i are independent.
    cluster_se : numpy.ndarray
        The design-based standard error of the mean of the values, sum_i (n_i / N) m_i: the
        ultimate-cluster estimator a / (a - 1) sum_i (n_i / N)^2 (m_i - m)^2 (Hansen, Hurwitz
        & Madow 1953, Sample Survey Methods and Theory, I, ch. 6). On balanced units it is
        `unit_se`; where a few units hold most values it understates (few units decide).
    """

    units: np.ndarray
    kish_units: np.ndarray
    unit_mean: np.ndarray
    unit_se: np.ndarray
    cluster_se: np.ndarray


def _unit_spread(units: pa.Table, parents, mean: str) -> UnitSpread:
    """`UnitSpread` of each group (`parents`: the units grouped by the keys, contiguous) from
    its units' means (column `mean`) and sizes."""
    n_i = units.column("n_values").to_numpy().astype(np.float64)
    m_i = np.nan_to_num(units.column(mean).to_numpy(zero_copy_only=False))
    starts = parents.offsets[:-1]
    if n_i.size == 0:
        return UnitSpread(*(np.zeros(0) for _ in range(5)))
    sizes = parents.sizes
    total = np.add.reduceat(n_i, starts)
    has = (n_i > 0).astype(np.float64)
    a = np.add.reduceat(has, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = n_i / np.repeat(total, sizes)
        m = np.add.reduceat(w * m_i, starts)
        spread = np.add.reduceat(w * w * (m_i - np.repeat(m, sizes)) ** 2, starts)
        unit_mean = np.add.reduceat(has * m_i, starts) / a
        squares = np.add.reduceat(has * (m_i - np.repeat(unit_mean, sizes)) ** 2, starts)
        return UnitSpread(a, total * total / np.add.reduceat(n_i * n_i, starts), unit_mean,
                          np.sqrt(squares / (a - 1) / a), np.sqrt(a / (a - 1) * spread))


def _nested_columns(columns: dict[str, Any], table: pa.Table, groups, grouped: np.ndarray,
                    plan: DescribePlan) -> None:
    """With levels, `COMPONENT_COLUMNS` of each group, and the intervals of a group whose
    values are nested in units (two units or more, some holding several values) from those
    units, in place of the independent-values ones: the mean of the unit means +/-
    t[(1+c)/2; a-1] times its standard error (`UnitSpread`), and Woodruff's median interval:
    the sample quantiles at 1/2 -/+ t[(1+c)/2; a_eff-1] times the design-based standard error
    of the share of values at or below the median, a_eff Kish's effective units (Woodruff
    1952, "Confidence intervals for medians and other position measures", JASA 47, 635-646).
    One grouping into units serves all
    (`fastperf.data.levels.units_of`); the variant is one more key there, so its groups come
    in the statistics' order (checked).
    """
    value = plan.value
    # the share at or below the group's median, per unit: its indicator averaged by the units
    group_of_row = np.empty(table.num_rows, dtype=np.int64)
    group_of_row[groups.row_order()] = np.repeat(np.arange(groups.n_groups), groups.sizes)
    values = value_column(table, value)
    with np.errstate(invalid="ignore"):
        below = np.where(np.isnan(values), np.nan,
                         (values <= columns["median"][group_of_row]).astype(np.float64))
    units = units_of(table, plan.keys, None, value, plan.structure, also={"below": below})
    components = units.components
    if not components.select(groups.keys.column_names).equals(groups.keys):
        raise AssertionError("describe: the variance components' groups are not the "
                             "statistics' groups")  # an internal error, never the input's
    columns.update({name: components.column(name).to_numpy(zero_copy_only=False)
                    for name in COMPONENT_COLUMNS})
    for name in COMPONENT_COLUMNS[1:]:  # a component the group cannot estimate: null, not NaN
        columns[name] = nan_as_null(columns[name])
    parents = group_rows(units.table, plan.keys)  # contiguous: the units come in group order
    means = _unit_spread(units.table, parents, value)
    share = _unit_spread(units.table, parents, "below")
    a, kish = means.units, means.kish_units
    n = columns["n"]
    nested = (a >= 2) & (columns["n_units"] < n) & (n >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = student_quantile(a - 1, plan.confidence)
        ci_low = means.unit_mean - t * means.unit_se
        ci_high = means.unit_mean + t * means.unit_se
        # the share's design-based se, on Kish's effective units (few when a unit dominates)
        t_share = student_quantile(kish - 1, plan.confidence)
        low_share = 0.5 - t_share * share.cluster_se
        high_share = 0.5 + t_share * share.cluster_se
        lower = np.where(low_share > 0, np.ceil(n * low_share), 0)
        upper = np.where(high_share < 1, np.ceil(n * high_share), 0)
    lower = np.where(nested & np.isfinite(lower), lower, 0).astype(np.int64)
    upper = np.where(nested & np.isfinite(upper), np.minimum(upper, n), 0).astype(np.int64)
    quantiles = order_statistics(grouped, groups.offsets, n, np.maximum(lower, 1),
                                 np.maximum(upper, 1), n_rows=grouped.shape[0])
    constant = np.isnan(columns["ci_mean_low"]) & (columns["sd"] == 0)
    columns["ci_mean_low"] = np.where(nested & ~constant, ci_low, columns["ci_mean_low"])
    columns["ci_mean_high"] = np.where(nested & ~constant, ci_high, columns["ci_mean_high"])
    # below 5 units, Woodruff's interval is liberal (bench/validity: 64-93 % at 3 units): 5
    # effective units, so that one unit holding most values cannot pass for many
    reached = nested & (kish >= MEDIAN_MIN_UNITS) & (lower > 0) & (upper > 0)
    columns["ci_median_low"] = np.where(reached, quantiles[:, 3],
                                        np.where(nested, np.nan, columns["ci_median_low"]))
    columns["ci_median_high"] = np.where(reached, quantiles[:, 4],
                                         np.where(nested, np.nan, columns["ci_median_high"]))
    columns["ci_median_confidence"] = np.where(nested, plan.confidence,
                                               columns["ci_median_confidence"])
    short = nested & ~reached & (columns["status"] == "ok")
    columns["status"] = np.where(
        short, np.where(a < MEDIAN_MIN_UNITS,
                        f"fewer than {MEDIAN_MIN_UNITS} units: no {plan.confidence:.4g} median "
                        "interval",
                        np.where(kish < MEDIAN_MIN_UNITS,
                                 f"units too unequal for a {plan.confidence:.4g} median "
                                 f"interval (fewer than {MEDIAN_MIN_UNITS} effective units)",
                                 f"too few units for a {plan.confidence:.4g} median interval")),
        columns["status"])


def describe_finish(staged: StageRows, plan: DescribePlan, info: dict) -> DescribeResult:
    """The result of `describe` from its rows (`fastperf.data.chunked`).

    Parameters
    ----------
    staged : StageRows
        `describe_stage` rows of every group, in output order.
    plan : DescribePlan
        `describe_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    DescribeResult
    """
    rows = staged.rows
    n = rows.column("n").to_numpy()
    n_dropped = rows.column("n_dropped").to_numpy()
    status = rows.column("status").to_numpy(zero_copy_only=False)
    warnings = dropped_warnings(n_dropped)
    not_ok = int((status != "ok").sum())
    if not_ok:
        warnings.append(f"{not_ok} group(s) too small or constant for some statistics (see "
                        "status)")
    summary = {
        "function": "describe", "input_rows": info["input_rows"], "values": int(n.sum()),
        "dropped": int(n_dropped.sum()), "confidence": plan.confidence,
        "structure": plan.structure.label(),
    }
    return DescribeResult(rows, summary, warnings)
