"""Aggregate scores over a suite of benchmarks, with confidence intervals (seed 004, Pakhomov).

A suite's score is f(x_1, ..., x_n) over its n benchmarks: the geometric or arithmetic mean,
weighted or not. Two ways to give it an interval, as the article does:

- ``method="per-run"``: score run i of every benchmark together, then take the Student interval
  of the per-run scores (Table 5: per-run geometric means 26.63 ... 26.91 give 26.827 +/- 0.156);
- ``method="propagation"``: combine each benchmark's mean and standard deviation by error
  propagation, S = sqrt(sum((df/dx_i * S_i)^2)) (Table 6: S = 0.104), with Table 7's closed forms.

Everything is whole-array arithmetic over the grouper's segments; no Python loop over variants or
benchmarks. Out of core or on Spark (`fastperf.data.chunked`), a chunk holds whole variants
(`aggregate_score_plan`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.validation import check_choice, check_confidence, check_key_clash
from fastperf.data.arrays import Samples
from fastperf.errors import InputError
from fastperf.results.base import GroupResult, keyed_table
from fastperf.results.figures import ReportView
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.levels import Structure, check_structure_arguments, resolve_structure
from fastperf.io.tables import (column_name, describe_group, has_column, key_list,
                                require_columns, value_column)
from fastperf.data.grouping import key_codes, group_rows
from fastperf.engine.intervals import student_quantile
from fastperf.data.samples import binary_exponents, group_weights, scaled_samples
from fastperf.kernels.aggregate import per_run_totals
from fastperf.kernels.moments import sample_moments
from fastperf.protocols.group_order import distinct_keys, in_key_order
from fastperf.protocols.report_views import aggregate_view
from fastperf.stats.forms import unit_means

__all__ = ["aggregate_score", "AggregateResult", "score_gradient", "propagation_from_moments", "propagation_moments",
           "AggregateOptions", "AggregatePlan", "aggregate_score_options", "aggregate_score_plan",
           "aggregate_score_stage", "aggregate_score_finish"]

KINDS = ("geomean", "mean", "weighted")
#: The status of a propagated score whose every benchmark has zero variance: the score and its
#: sd (0) stand, but the Welch-Satterthwaite df is 0 / 0 and there is no interval.
ZERO_VARIANCE = "zero variance: no interval"
METHODS = ("per-run", "propagation")
#: The status of a score whose interval reaches beyond the float64 range: score, sd, se and df
#: stand, the interval's end past 1.8e308 is inf.
INTERVAL_OVERFLOW = "confidence interval beyond the float64 range"
#: The status of a variant whose ratio to the baseline, or its interval, is beyond float64.
RATIO_OVERFLOW = "ratio to the baseline beyond the float64 range"
#: The status of a variant with no ratio because the baseline has no score (see its status).
NO_BASELINE_SCORE = "no ratio: the baseline has no score"


class AggregateResult(GroupResult):
    """Result of `aggregate_score`.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per variant: ``n_benchmarks``, ``n_runs`` (per-run: runs scored; propagation:
        measurements used), ``n_runs_dropped`` (per-run: incomplete runs left out), ``score``,
        ``sd``, ``se``, ``df``, ``ci_low``, ``ci_high``, and with `baseline`: ``ratio`` (score /
        baseline score), ``ratio_ci_low``, ``ratio_ci_high``; ``status``.
    summary : dict
        ``kind``, ``method``, ``confidence``, ``benchmarks``, ``variants``, ``baseline``.
    warnings : list of str
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return aggregate_view(self)


def score_gradient(kind: str, means: np.ndarray, weights: np.ndarray,
                   segment_starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The score f and its partial derivatives df/dx_i, for segments of benchmarks.

    Parameters
    ----------
    kind : {"geomean", "mean"}
        The geometric or the arithmetic (weighted) mean.
    means : numpy.ndarray
        One value x_i per benchmark (the benchmark's mean), segments one after the other.
    weights : numpy.ndarray
        One weight w_i per benchmark, normalised to sum 1 within each segment.
    segment_starts : numpy.ndarray of int
        Segment k (a variant) starts at ``segment_starts[k]``.

    Returns
    -------
    score : numpy.ndarray
        f, one per segment.
    gradient : numpy.ndarray
        df/dx_i, one per benchmark.

    Notes
    -----
    Closed forms of Pakhomov (seed 004, Table 7), generalised to weights: geometric mean
    f = prod x_i^w_i, df/dx_i = w_i f / x_i; arithmetic mean f = sum w_i x_i, df/dx_i = w_i.
    They feed the error propagation S = sqrt(sum (df/dx_i S_i)^2).
    """
    segment_of = np.repeat(np.arange(segment_starts.shape[0]),
                           np.diff(np.append(segment_starts, means.shape[0])))
    if kind == "geomean":
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.exp(np.add.reduceat(weights * np.log(means), segment_starts))
            gradient = weights * score[segment_of] / means
    else:
        score = np.add.reduceat(weights * means, segment_starts)
        gradient = weights.copy()
    return score, gradient


def aggregate_score(
    data: Any,
    *,
    variant: str = "variant",
    by: str | Sequence[str] = "benchmark",
    value: str = "value",
    kind: str = "geomean",
    weights: str | Mapping[str, float] | None = None,
    method: str = "per-run",
    confidence: float = 0.95,
    run: str | None = "run",
    baseline: str | None = None,
    unit: str | None = "unit",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> AggregateResult:
    """The aggregate score of every variant over the benchmarks, with its confidence interval.

    Parameters
    ----------
    data : measurement table (or path): one row per measurement.
    variant, by, value : column names (the system, the benchmark key(s), the measurement).
    kind : {"geomean", "mean", "weighted"}
        Geometric mean, arithmetic mean, or weighted arithmetic mean (which needs `weights`).
        With `weights`, "geomean" and "mean" are weighted too. Weights are normalised to sum 1.
    weights : None, a column name (one weight per benchmark) or a mapping benchmark -> weight.
    method : {"per-run", "propagation"}
        "per-run": the score of run i is f over every benchmark's run i; the result is the mean
        of the per-run scores and its Student interval, mean +/- t[(1+c)/2; R-1] s/sqrt(R) over
        the R complete runs. Runs are matched by the `run` column when the table has it, else
        by position (every benchmark of a variant must then have the same number of runs). A
        run missing for some benchmark (no value, or a NaN/null value) is left out and counted
        in ``n_runs_dropped``. A measurement whose run is null (or NaN) matches no run: it is
        left out (counted in a warning), and the run it would have completed is then missing
        for its benchmark; a run column of nulls only leaves no complete run (status "fewer
        than 2 complete runs").
        "propagation": f at the benchmarks' means; ``sd`` = sqrt(sum((df/dx_i S_i)^2)) with S_i
        the benchmark's standard deviation (the article's S, Table 6); the interval uses the
        propagated standard errors S_i/sqrt(n_i), se = sqrt(sum((df/dx_i S_i/sqrt(n_i))^2)), and
        t with Welch-Satterthwaite degrees of freedom df = se^4 / sum((df/dx_i S_i/sqrt(n_i))^4
        / (n_i - 1)). Runs need not match; benchmarks may have different run counts.
    confidence : float
    run : str or None
        The run column for "per-run" (used when present; None: match by position).
    unit : str or None
        When the table has this column, it must hold a single unit: a score over benchmarks
        measured in different units (time and throughput) has no meaning, so a mixed table is an
        error (filter it to one unit first).
    baseline : str or None
        A variant: adds each variant's ``ratio`` = score / baseline score, with the interval
        exp(log ratio -/+ t * sqrt((se/score)^2 + (se_b/score_b)^2)) (independent variants,
        delta method on the log scale, Welch-Satterthwaite df). For times, the speedup of a
        variant over the baseline is 1 / ratio. The baseline's own row has ratio 1 and
        interval [1, 1]: its ratio to itself is a definition, not an estimate (NaN, with a
        status, only when its score is 0 or has none).
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        the table has (``build``, ``process``); ``[]`` or ``"none"`` asks for the flat
        analysis, which takes every value as independent (today's numbers, bit for bit). With
        levels, each (benchmark, variant) is first collapsed to the means of its independent
        units (`fastperf.stats.forms.unit_means`) and the score runs on them: "per-run"
        matches the units by their column (the outermost level, or the block) instead of
        `run`, and ``n_runs`` counts units.
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block.

    Returns
    -------
    AggregateResult
        ``.groups``: one row per variant (score, sd, se, df, interval, ratio to the baseline,
        status); ``.summary``; ``.warnings``. An interval end beyond the float64 range is inf
        with status "confidence interval beyond the float64 range" (score, sd, se, df kept); a
        ratio or ratio interval beyond it, "ratio to the baseline beyond the float64 range"; a
        baseline without a score leaves every ratio NaN, "no ratio: the baseline has no score".

    Raises
    ------
    InputError
        Unknown columns or options; non-positive values with "geomean" (naming the benchmark);
        unequal run counts under "per-run" without a run column (use "propagation").

    Notes
    -----
    Pakhomov (seed 004), "measurement error when benchmarking computers": Table 5 (the Student
    interval of the per-run scores, mean +/- t[(1+c)/2; R-1] s / sqrt(R)), Tables 6 and 7 (error
    propagation S = sqrt(sum (df/dx_i S_i)^2) with the closed-form derivatives); the
    Welch-Satterthwaite degrees of freedom are Satterthwaite (1946) and Welch (1947).
    """
    options = aggregate_score_options(  # before the table is read
        variant=variant, by=by, value=value, kind=kind, weights=weights, method=method,
        confidence=confidence, run=run, baseline=baseline, unit=unit, levels=levels,
        block=block)
    return run_planned(data, partial(aggregate_score_plan, options=options),
                       aggregate_score_stage, aggregate_score_finish, function="aggregate_score",
                       keys=[by, variant],
                       values=[value] + [c for c in (run, weights) if isinstance(c, str)])


@dataclass(frozen=True)
class AggregateOptions:
    """The options of `aggregate_score`, checked (`aggregate_score_options`); see
    `aggregate_score` for each."""

    variant: str
    by: Any
    value: str
    kind: str
    weights: Any
    method: str
    confidence: float
    run: str | None
    baseline: str | None
    unit: str | None
    levels: tuple[str, ...] | None = None
    block: str | None = None


@dataclass(frozen=True, kw_only=True)
class AggregatePlan(Plan):
    """The plan of `aggregate_score` (`aggregate_score_plan`).

    Attributes
    ----------
    options : AggregateOptions
    keys : list of str
        The benchmark's key columns.
    benchmarks : int
        The number of benchmarks of the whole table.
    key_order : dict
        Each benchmark key's values in the whole table's order
        (`fastperf.protocols.group_order.distinct_keys`).
    structure : Structure
        The levels and block the score uses (`fastperf.data.levels.resolve_structure`).
    """

    options: AggregateOptions
    keys: list[str]
    benchmarks: int
    key_order: dict
    structure: Structure = Structure()


def aggregate_score_options(*, variant, by, value, kind, weights, method, confidence, run,
                            baseline, unit, levels=None, block=None) -> AggregateOptions:
    """The options of `aggregate_score`, checked (those that need no table).

    Parameters
    ----------
    variant, by, value, kind, weights, method, confidence, run, baseline, unit, levels, block
        See `aggregate_score`.

    Returns
    -------
    AggregateOptions
    """
    value = column_name(value, "value")
    variant = column_name(variant, "variant")
    unit = column_name(unit, "unit", allow_none=True)
    run = column_name(run, "run", allow_none=True)
    check_choice(kind, "kind", KINDS)
    check_choice(method, "method", METHODS)
    if kind == "weighted" and weights is None:
        raise InputError('kind="weighted" needs weights= (a column name or a mapping)')
    levels, block = check_structure_arguments(levels, block)
    return AggregateOptions(variant, by, value, kind, weights, method,
                            check_confidence(confidence), run, baseline, unit, levels,
                            block)


def aggregate_score_plan(table: pa.Table, options: AggregateOptions) -> AggregatePlan:
    """The plan of `aggregate_score` (`fastperf.data.chunked`).

    Every variant is scored over its own benchmarks, so a chunk holds whole variants
    (``"partition"`` is the variant column, with both methods: a score's sums over the
    benchmarks then run within one chunk, in the whole table's order of the benchmarks, and
    give the in-memory figures bit for bit; out of core, a variant's rows must fit the memory
    limit). The plan holds the number of benchmarks of the whole table (for the status
    "missing benchmarks") and the order of each benchmark key's values
    (`fastperf.protocols.group_order`).

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : AggregateOptions
        `aggregate_score_options`.

    Returns
    -------
    AggregatePlan
    """
    value, variant, unit = options.value, options.variant, options.unit
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    keys = key_list(options.by)
    check_key_clash(keys, (), "aggregate_score", value, variant)
    require_columns(table, keys + [variant, value])
    if has_column(table, unit, argument="unit"):
        units = table.column(unit).unique().to_pylist()
        if len(units) > 1:
            raise InputError(
                f"the table mixes units {units}: a score over different units has no meaning; "
                f"keep one (e.g. table.filter(pyarrow.compute.equal(table[{unit!r}], {units[0]!r}))"
                ", or --unit on the command line)"
            )
    benchmarks, key_order = distinct_keys(table, keys)
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*keys, variant, value, *_per_benchmark(options)])
    return AggregatePlan(options=options, keys=keys, benchmarks=benchmarks,
                         key_order=key_order, structure=structure, partition=(variant,),
                         order=(variant,))


def _per_benchmark(options: AggregateOptions) -> list[str]:
    """The columns other than the keys that the score reads: the run, weights and unit."""
    return [c for c in (options.run, options.weights, options.unit) if isinstance(c, str)]


def aggregate_score_stage(table: pa.Table, plan: AggregatePlan,
                          side: dict | None = None) -> StageRows:
    """The rows of `aggregate_score` for the variants of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Every row of its variants.
    plan : AggregatePlan
        `aggregate_score_plan`.
    side : dict or None
        Unused.

    Returns
    -------
    StageRows
        One row per variant, every column but the ratio to the baseline; in ``extra``,
        ``unmatched`` (measurements with a null run).
    """
    options = plan.options
    variant, keys, value, weights = options.variant, plan.keys, options.value, options.weights
    run = options.run
    if not plan.structure.flat:  # the units' means, matched by the unit column
        table = unit_means(table, keys, variant, value, plan.structure,
                           [c for c in (weights, options.unit) if isinstance(c, str)])
        run = plan.structure.unit
    geometric = options.kind == "geomean"
    # one group per (variant, benchmark); a variant's groups are adjacent, its benchmarks in
    # the whole table's order
    groups, _ = in_key_order(group_rows(table, [variant] + keys), [variant], keys,
                             plan.key_order)
    values = value_column(table, value)
    grouped = groups.gather(values)
    if np.isinf(grouped).any():
        raise InputError(f"value column {value!r} holds infinite values; remove them or set them to null")
    if geometric:
        bad = np.flatnonzero(grouped <= 0)
        if bad.size:
            g = int(np.searchsorted(groups.offsets, bad[0], side="right") - 1)
            raise InputError(
                f"kind='geomean' needs positive values, but {describe_group(groups.keys, g)} has "
                f"{float(grouped[bad[0]])!r}; use kind='mean' or remove the non-positive "
                "measurements"
            )
    variants = group_rows(groups.keys, [variant])
    starts = variants.offsets[:-1]
    variant_of_group = np.repeat(np.arange(variants.n_groups), variants.sizes)
    n_benchmarks = variants.sizes
    check_weight_column(table, weights)
    raw_w = group_weights(table, weights, keys, groups)
    w = raw_w / np.add.reduceat(raw_w, starts)[variant_of_group]
    missing = plan.benchmarks - n_benchmarks
    status = np.where(missing > 0, "missing benchmarks: " + missing.astype(str), "ok").astype(object)

    # measurements whose run is null (per-run), per variant: they match no run
    unmatched = np.zeros(variants.n_groups, dtype=np.int64)
    if options.method == "propagation":
        score, sd, se, df, n = _propagation(grouped, groups, starts, w, geometric)
        n_runs = np.add.reduceat(n, starts)
        n_dropped = np.zeros(variants.n_groups, dtype=np.int64)
        few = np.add.reduceat((n < 2).astype(np.int64), starts)
        status = np.where((few > 0) & (status == "ok"),
                          "benchmarks with fewer than 2 values: " + few.astype(str), status)
    else:
        score, sd, se, df, n_runs, n_dropped, status, unmatched = _per_run(
            table, groups, variants, grouped, n_benchmarks, w, geometric, run, status)

    status = np.where((status == "ok") & (se == 0), ZERO_VARIANCE, status)
    status = np.where((status == "ok") & ~(np.isfinite(score) & np.isfinite(sd)),
                      "score or sd outside the float64 range", status)
    with np.errstate(over="ignore", invalid="ignore"):
        half = student_quantile(df, options.confidence) * se
        low, high = score - half, score + half
    # an interval end beyond float64 (score + t se > 1.8e308): the score, sd, se and df stand,
    # the end is shown as inf
    status = np.where((status == "ok") & ~(np.isfinite(low) & np.isfinite(high)),
                      INTERVAL_OVERFLOW, status)
    # a score with zero variance stands (only its interval is missing)
    failed = (status != "ok") & (status != INTERVAL_OVERFLOW) & (status != ZERO_VARIANCE)
    kept = ~failed | (status == ZERO_VARIANCE)  # the score and its sd 0 stand; no interval
    columns = {
        "n_benchmarks": n_benchmarks, "n_runs": n_runs, "n_runs_dropped": n_dropped,
        "score": np.where(kept, score, np.nan), "sd": np.where(kept, sd, np.nan),
        "se": np.where(kept, se, np.nan), "df": np.where(failed, np.nan, df),
        "ci_low": np.where(failed, np.nan, low), "ci_high": np.where(failed, np.nan, high),
        "status": status.astype(str),
    }
    return StageRows.of(keyed_table(variants.keys, columns), {"unmatched": unmatched})


def aggregate_score_finish(staged: StageRows, plan: AggregatePlan,
                           info: dict) -> AggregateResult:
    """The result of `aggregate_score` from its rows (`fastperf.data.chunked`): the ratio to
    the baseline, the summary and the warnings.

    Parameters
    ----------
    staged : StageRows
        `aggregate_score_stage` rows of every variant, in output order.
    plan : AggregatePlan
        `aggregate_score_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    AggregateResult
    """
    options = plan.options
    baseline = options.baseline
    out = staged.rows
    status = out.column("status").to_numpy(zero_copy_only=False)
    # a score with zero variance stands (only its interval is missing)
    failed = (status != "ok") & (status != INTERVAL_OVERFLOW) & (status != ZERO_VARIANCE)
    n_dropped = out.column("n_runs_dropped").to_numpy()
    unmatched = int(staged.extra.column("unmatched").to_numpy().sum())
    if baseline is not None:
        columns = {name: out.column(name).to_numpy() for name in ("score", "se", "df")}
        ratio = _ratio_to_baseline(out.column(options.variant), baseline, columns,
                                   options.confidence)
        shown = np.isfinite(ratio["ratio"]) & ~np.isinf(ratio["ratio_ci_low"]) \
            & ~np.isinf(ratio["ratio_ci_high"])
        b = out.column(options.variant).to_pylist().index(baseline)
        unscored = failed[b] or not np.isfinite(columns["score"][b])
        status = np.where((status == "ok") & ~shown,
                          NO_BASELINE_SCORE if unscored else RATIO_OVERFLOW, status)
        out = keyed_table(out.drop_columns(["status"]), {**ratio, "status": status.astype(str)})
    warnings = []
    if unmatched:
        warnings.append(f"{unmatched} measurement(s) with a null run left out: they match no "
                        f"run (the runs they leave incomplete count in n_runs_dropped)")
    if n_dropped.sum():
        warnings.append(f"{int(n_dropped.sum())} incomplete run(s) left out (see n_runs_dropped)")
    if failed.any():
        warnings.append(f"{int(failed.sum())} variant(s) have no score (see status)")
    beyond = int(((status == INTERVAL_OVERFLOW) | (status == RATIO_OVERFLOW)).sum())
    if beyond:
        warnings.append(f"{beyond} variant(s) with an interval or ratio beyond the float64 range "
                        "(shown as inf; see status)")
    summary = {"function": "aggregate_score", "kind": options.kind, "method": options.method,
               "confidence": options.confidence,
               "benchmarks": plan.benchmarks, "variants": out.num_rows, "baseline": baseline,
               "structure": plan.structure.label()}
    return AggregateResult(out, summary, warnings)


def _run_positions(table: pa.Table, run: str, groups) -> np.ndarray:
    """The run index (int32) of each value, in group order, in the order of the run values:
    an integer run column shifted to start at 0 (when its range is compact), any other run
    column by the rank of its value among the column's distinct values; -1 for a null (or NaN)
    run, which matches no run. The order of the values, not of their first appearance, so that
    a chunk of the table (`fastperf.data.chunked`) sums each variant's run scores in the same
    order as the whole table."""
    column = table.column(run)
    if pa.types.is_integer(column.type) and column.null_count == 0 and table.num_rows:
        runs = column.to_numpy()
        low, high = int(runs.min()), int(runs.max())
        if high - low <= 4 * groups.n_groups + runs.size // 8 and high - low < 2**31:
            return groups.gather((runs - low).astype(np.int32, copy=False))
    unknown = pc.is_null(column, nan_is_null=True)
    if not pc.any(unknown).as_py():
        return groups.gather(_value_ranks(*key_codes(column, run)))
    known = pc.invert(unknown)
    codes = np.full(table.num_rows, -1, dtype=np.int32)
    mask = np.asarray(known.to_numpy(zero_copy_only=False), dtype=bool)
    if mask.any():
        codes[mask] = _value_ranks(*key_codes(column.filter(known), run))
    return groups.gather(codes)


def _value_ranks(codes: np.ndarray, dictionary: pa.Array) -> np.ndarray:
    """`codes` (int32) renumbered in the order of their values in `dictionary` (as they are
    where Arrow cannot sort the type)."""
    try:
        order = pc.sort_indices(dictionary).to_numpy(zero_copy_only=False)
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowInvalid):
        return codes
    rank = np.empty(len(dictionary), dtype=np.int32)
    rank[order] = np.arange(len(dictionary), dtype=np.int32)
    return rank[codes]


def _per_run(table, groups, variants, grouped, n_benchmarks, w, geometric, run, status):
    """Per-run scores of every variant, then their moments (the article's Table 5 procedure);
    the measurements with a null run per variant."""
    sizes = groups.sizes
    variant_of_group = np.repeat(np.arange(variants.n_groups), variants.sizes)
    if has_column(table, run, argument="run"):
        positions = _run_positions(table, run, groups)
        n_positions = int(positions.max()) + 1 if positions.size else 0
        unmatched = np.add.reduceat((positions < 0).astype(np.int64),
                                    groups.offsets[variants.offsets[:-1]])
        matched_by = "run"
    else:
        first_of_variant = variants.offsets[:-1][variant_of_group]
        unequal = sizes != sizes[first_of_variant]
        if unequal.any():
            g = int(np.argmax(unequal))
            raise InputError(
                f"method='per-run' matches runs by position, but {describe_group(groups.keys, g)} "
                f"has {sizes[g]} values and another benchmark of that variant "
                f"{sizes[first_of_variant[g]]}; add a run column, or use method='propagation'"
            )
        positions = np.empty(0, dtype=np.int32)
        unmatched = np.zeros(variants.n_groups, dtype=np.int64)
        n_positions = int(sizes.max()) if sizes.size else 0
        matched_by = "position"
    total, count, seen = per_run_totals(grouped, groups.offsets, variants.offsets, positions, w,
                                        n_positions, geometric, n_rows=grouped.shape[0])
    expected = np.repeat(n_benchmarks, n_positions)
    if (seen > expected).any():
        raise InputError(f"a {matched_by} value occurs more than once for a benchmark and variant; "
                         "runs must identify one measurement each")
    complete = count == expected
    scores = np.where(complete, np.exp(total) if geometric else total, np.nan)
    n_dropped = ((seen > 0) & ~complete).reshape(-1, n_positions).sum(axis=1) if n_positions \
        else np.zeros(variants.n_groups, dtype=np.int64)
    runs = Samples.rectangular(scores.reshape(variants.n_groups, n_positions))
    # each variant's run scores divided by a power of 2 (exact) before their moments
    exponent = binary_exponents(Samples(np.nan_to_num(runs.values), runs.offsets))
    runs = scaled_samples(runs, exponent)
    n, _, mean, var = sample_moments(runs.values, runs.offsets, n_rows=scores.size)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        sd = np.ldexp(np.sqrt(var), exponent)
        se = np.ldexp(np.sqrt(var) / np.sqrt(n), exponent)
        mean = np.ldexp(mean, exponent)
    status = np.where((n < 2) & (status == "ok"), "fewer than 2 complete runs", status)
    return mean, sd, se, (n - 1).astype(float), n, n_dropped, status, unmatched


def _ratio_to_baseline(variant_names: pa.ChunkedArray, baseline: str, columns: dict, confidence):
    """score / baseline score, with a log-scale delta-method interval (Welch-Satterthwaite df)."""
    names = variant_names.to_pylist()
    if baseline not in names:
        raise InputError(f"baseline {baseline!r} is not a variant; the variants are {names}")
    b = names.index(baseline)
    score, se, df = columns["score"], columns["se"], columns["df"]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = score / score[b]
        rel, rel_b = (se / score) ** 2, (se[b] / score[b]) ** 2
        rel_se = np.sqrt(rel + rel_b)
        # a side without variance adds nothing to the Satterthwaite sum (its df is undefined:
        # ZERO_VARIANCE); with neither side varying, 0 / 0 leaves no interval
        spread = np.where(rel == 0, 0.0, rel ** 2 / df)
        spread_b = 0.0 if rel_b == 0 else rel_b ** 2 / df[b]
        df_ratio = (rel + rel_b) ** 2 / (spread + spread_b)
        half = student_quantile(df_ratio, confidence) * rel_se
        low, high = ratio * np.exp(-half), ratio * np.exp(half)
    # the baseline's ratio to itself is 1 by definition, not an estimate: its interval is
    # [1, 1] (score / score is exactly 1 in floating point; NaN when its score is 0 or NaN)
    is_base = np.arange(len(names)) == b
    return {"ratio": ratio, "ratio_ci_low": np.where(is_base, ratio, low),
            "ratio_ci_high": np.where(is_base, ratio, high)}


def check_weight_column(table: pa.Table, weights: Any) -> None:
    """An `InputError` naming the weights column when it is not numeric.

    Parameters
    ----------
    table : pyarrow.Table
    weights : None, str or mapping
        Only a column name is checked (a missing column is `group_weights`' error).
    """
    if not isinstance(weights, str) or weights not in table.column_names:
        return
    kind = table.schema.field(weights).type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_decimal(kind) or pa.types.is_null(kind)):
        raise InputError(f"weights column {weights!r} has type {kind}, not a number: weights= "
                         "must name a numeric column (one positive weight per benchmark), or be "
                         "a mapping benchmark -> weight")


def _segment_norm(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """sqrt(sum x^2) per segment, each segment divided by a power of 2 near its largest |x|
    first (exact), so that squares of 1e200 or 1e-200 neither overflow nor underflow."""
    with np.errstate(invalid="ignore"):
        top = np.maximum.reduceat(np.abs(x), starts)
    _, e = np.frexp(np.where(np.isfinite(top), top, 0.0))
    segment_of = np.repeat(np.arange(starts.shape[0]), np.diff(np.append(starts, x.shape[0])))
    scaled = np.ldexp(x, -e[segment_of])
    with np.errstate(invalid="ignore", over="ignore"):
        return np.ldexp(np.sqrt(np.add.reduceat(scaled * scaled, starts)), e)


def _propagation(grouped, groups, starts, w, geometric):
    """Error propagation (Pakhomov, Tables 6 and 7): score, sd, se, Welch-Satterthwaite df and
    the counts, from `propagation_moments`."""
    n, means, variances, exponent = propagation_moments(Samples(grouped, groups.offsets))
    score, sd, se, df = propagation_from_moments(n, means, variances, exponent, starts, w,
                                                 geometric)
    return score, sd, se, df, n


def propagation_moments(samples: Samples):
    """n, mean, variance and power of 2 of each of `samples` (`Samples`) for the error
    propagation: the values divided by 2**exponent (exact) first, so that values near 1.8e308
    or 1e-308 give finite moments; means and variances are in units of 2**exponent, 4**exponent.
    """
    exponent = binary_exponents(samples)
    scaled = scaled_samples(samples, exponent)
    n, _, means, variances = sample_moments(scaled.values, scaled.offsets,
                                            n_rows=scaled.values.shape[0])
    return n, means, variances, exponent


def propagation_from_moments(n, means, variances, exponent, starts, w, geometric):
    """Error propagation (Pakhomov, Tables 6 and 7) from each benchmark's moments.

    Parameters
    ----------
    n : numpy.ndarray of int
        Values per benchmark (segments of benchmarks one variant after the other).
    means, variances : numpy.ndarray
        Each benchmark's mean and variance (ddof=1) of its values divided by
        ``2**exponent`` (`fastperf.data.samples.scaled_samples`).
    exponent : numpy.ndarray of int
        Each benchmark's power of 2 (`fastperf.data.samples.binary_exponents`).
    starts : numpy.ndarray of int
        Segment k (a variant) starts at ``starts[k]``.
    w : numpy.ndarray
        Each benchmark's weight, normalised to sum 1 within its segment.
    geometric : bool
        The geometric mean (else the arithmetic mean).

    Returns
    -------
    score, sd, se, df : numpy.ndarray
        One per segment: f at the means, the propagated sd and se, the Welch-Satterthwaite df.

    Notes
    -----
    S = sqrt(sum (df/dx_i S_i)^2) with the closed forms of `score_gradient`; se the same with
    S_i / sqrt(n_i); df = se^4 / sum((df/dx_i S_i / sqrt(n_i))^4 / (n_i - 1)) (Satterthwaite
    1946, Welch 1947). Moments computed chunk by chunk with the same kernels give the same
    figures as `aggregate_score`, bit for bit.
    """
    sd_i = np.sqrt(variances)  # in units of 2**exponent, as the means
    root_n = np.sqrt(n)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        if geometric:  # df/dx_i S_i = w_i f S_i / x_i: f times a scale-free part
            score, _ = score_gradient("geomean", np.ldexp(means, exponent), w, starts)
            part_sd = w * sd_i / means
            part_se = part_sd / root_n
            sd = score * _segment_norm(part_sd, starts)
            se = score * _segment_norm(part_se, starts)
        else:  # df/dx_i = w_i
            score = np.add.reduceat(w * np.ldexp(means, exponent), starts)
            part_sd = w * np.ldexp(sd_i, exponent)
            part_se = w * np.ldexp(sd_i / root_n, exponent)
            sd = _segment_norm(part_sd, starts)
            se = _segment_norm(part_se, starts)
        # df = (sum p_i)^2 / sum(p_i^2 / (n_i - 1)), p_i = part_se_i^2, on the shares p_i / sum p
        norm = _segment_norm(part_se, starts)
        segment_of = np.repeat(np.arange(starts.shape[0]), np.diff(np.append(starts, n.shape[0])))
        share = (part_se / norm[segment_of]) ** 2
        df = 1.0 / np.add.reduceat(share * share / (n - 1), starts)
    return score, sd, se, df
