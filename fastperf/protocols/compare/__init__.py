"""`compare`: the regression detector. Every benchmark (name + configuration) and every unit,
baseline against each candidate: medians with distribution-free intervals, the change with a
Hodges-Lehmann interval of the ratio, a two-sided rank-sum p-value adjusted over the whole run,
and a verdict (worse, better, no change, equivalent, too few runs)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.grouping import code_of, key_dictionary
from fastperf.data.levels import Structure, check_structure_arguments, resolve_structure
from fastperf.data.samples import concat_samples
from fastperf.data.units import direction_warnings, row_directions, unit_strings
from fastperf.data.validation import check_key_clash, check_variants, variant_list
from fastperf.engine.intervals import (median_interval_minimum_size, median_interval_ranks,
                                       student_quantile)
from fastperf.engine.pvalues import first_reason
from fastperf.engine.ranks import (NO_RATIO_INTERVAL, RATIO_BEYOND_FLOAT64, distinct_rows,
                                   rank_sum_test)
from fastperf.engine.sorting import sort_samples
from fastperf.engine.summaries import midpoint
from fastperf.errors import InputError
from fastperf.io.dataset import Dataset
from fastperf.io.summaries import is_summary_table
from fastperf.io.read import load_table
from fastperf.io.tables import column_name, require_columns
from fastperf.protocols.aggregate import propagation_from_moments, propagation_moments
from fastperf.protocols.compare.result import (
    ADJUSTMENTS, COLUMNS, VERDICTS, CompareResult, adjusted_pvalues, benchmark_identity,
    checked_options, largest_regressions, overall_table, verdicts_of,
)
from fastperf.protocols.compare.nested import chunk_units, flat_samples, nested_rows
from fastperf.protocols.compare.summaries import compare_from_summaries
from fastperf.protocols.flags import (check_warmup, tested_table, finish_flags, stage_flags,
                                      with_columns_after)
from fastperf.results.base import dropped_warnings, empty_keys, keyed_table
from fastperf.results.figures import Runs

__all__ = ["compare", "CompareResult", "ADJUSTMENTS", "VERDICTS", "CompareOptions",
           "ComparePlan", "compare_options", "compare_plan", "compare_stage", "compare_finish"]


def _medians(samples: Samples, confidence: float):
    """Median and its shortest distribution-free interval of each sorted sample."""
    n = samples.sizes
    starts = samples.offsets[:-1]
    values = samples.values
    if values.size == 0:
        nan = np.full(n.shape, np.nan)
        return nan, nan, nan.copy()
    take = lambda index: np.take(values, index, mode="clip")  # noqa: E731
    has = n > 0
    median = np.where(has, midpoint(take(starts + np.maximum(n - 1, 0) // 2),
                                    take(starts + n // 2)), np.nan)
    lower, upper, _ = median_interval_ranks(n, confidence, rule="shortest")
    low = np.where(has & (lower > 0), take(starts + lower - 1), np.nan)
    high = np.where(has & (upper > 0), take(starts + upper - 1), np.nan)
    return median, low, high


def _ends(samples: Samples, index: np.ndarray) -> np.ndarray:
    """The value at `index` of each sample (its first or last when sorted); NaN where the
    sample is empty (and everywhere when every sample is)."""
    if samples.values.size == 0:
        return np.full(samples.sizes.shape, np.nan)
    return np.where(samples.sizes > 0, np.take(samples.values, index, mode="clip"), np.nan)


def _blanked(samples: Samples, rows: np.ndarray) -> Samples:
    """`samples` with the chosen rows emptied."""
    sizes = np.where(rows, 0, samples.sizes)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return Samples(samples.values[~np.repeat(rows, samples.sizes)], offsets)


def _smallest_pvalue_reaches(m: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """Whether the two-sided rank-sum test of sizes m, n can reach `alpha` at all: its smallest
    p-value, 2 / C(m + n, m), is at most alpha."""
    sizes, inverse = distinct_rows(np.stack([m, n], axis=1))
    # log C(m + n, m) once per distinct pair of sizes, by the C library's lgamma (scipy's
    # gammaln agrees to rounding; the 1e-12 below absorbs it)
    log_choose = np.array([math.lgamma(a + b + 1) - math.lgamma(a + 1) - math.lgamma(b + 1)
                           for a, b in sizes.tolist()], dtype=np.float64)[inverse]
    return (m > 0) & (n > 0) & (math.log(2.0) - log_choose <= math.log(alpha) + 1e-12)


def compare(
    data: Any,
    *,
    baseline: str,
    candidate: str | Sequence[str],
    by: str | Sequence[str] | None = None,
    variant: str = "variant",
    value: str = "value",
    unit: str | None = "unit",
    alpha: float = 0.05,
    adjust: str = "bh",
    confidence: float = 0.95,
    margin: float | None = None,
    threshold: float = 0.0,
    higher_is_better: bool | Mapping[str, bool] | None = None,
    method: str = "auto",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
    warmup: str | None = None,
) -> CompareResult:
    """Compare each candidate with the baseline, per benchmark, configuration and unit.

    Parameters
    ----------
    data : measurement table (Arrow object, path or paths) or lazy `fastperf.io.dataset.Dataset`
        One row per measurement. A lazy dataset (``fastperf.read(..., lazy=True)``) is compared
        in group-complete chunks within its memory limit, with the same result
        (`fastperf.data.chunked`; the runs behind the report's figures are kept in memory only).
    baseline : str
        The reference variant.
    candidate : str or sequence of str
        The variant(s) compared with it (several: one block of rows per candidate).
    by : str, sequence of str or None
        The columns that identify a benchmark. None: ``benchmark`` plus the configuration
        columns the tool files carry (``pkg``, ``goos``, ``cpu``, ...; see `fastperf.read`),
        except those whose values are never shared between the compared variants (a toolchain
        or commit line): those tell the variants apart, not the benchmarks.
    variant, value : str
        The variant and measurement columns. Null/NaN values are dropped and counted.
    unit : str or None
        The unit column: every unit is compared on its own, with its direction.
    alpha : float
        Level of the tests, applied to the adjusted p-values.
    adjust : {"bh", "holm", "bonferroni", "none"}
        Adjustment over every comparison of the run that can reach `alpha`: Benjamini-Hochberg
        false-discovery control (default), Holm or Bonferroni family-wise control, or none
        (benchstat's verdicts).
    confidence : float
        Level of the median and ratio intervals.
    margin : float or None
        Equivalence margin: a comparison whose (1 - 2 alpha) Hodges-Lehmann interval of the
        ratio lies in [1 - margin, 1 + margin] is ``equivalent`` (the two one-sided tests).
    threshold : float
        The smallest |delta| called a change (0.02: 2%); smaller significant changes are
        ``no change``.
    higher_is_better : None, bool or mapping unit -> bool
        The direction of the units; None infers it from the unit (`fastperf.data.units`).
    method : {"auto", "exact", "asymptotic"}
        p-values of the rank-sum test: "auto" is exact (conditional on ties) where cheap.
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        the table has (``build``, ``process``); ``[]`` or ``"none"`` asks for the flat
        analysis, which takes every value as independent (today's numbers, bit for bit).
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block.
    warmup : None or "auto"
        None tests every value. ``"auto"`` drops the initial transient found in each
        benchmark and variant's processes (`fastperf.engine.diagnostics.find_warmup`) before
        testing, says so in a warning, and adds the columns ``warmup_baseline`` /
        ``warmup_candidate`` (the iterations dropped from each process, 0: none) and
        ``summary["warmup"]``.

    Returns
    -------
    CompareResult

    Notes
    -----
    delta = median(candidate) / median(baseline) - 1. Median intervals: the fewest order
    statistics with exact binomial coverage >= `confidence` (benchstat's rule;
    `median_interval_ranks` with rule="shortest"). The test is the two-sided Wilcoxon-Mann-Whitney
    rank-sum test (Mann & Whitney 1947), exact conditional on ties where cheap; the ratio's
    interval inverts it on log values (Hodges & Lehmann 1963). Adjustment: Benjamini & Hochberg
    (1995), Holm (1979). Verdicts: ``too few runs`` where a side is empty or the smallest possible
    p-value 2 / C(m + n, m) exceeds `alpha`; else ``worse`` / ``better`` (``changed`` for a unit
    without direction) when the adjusted p < alpha and |delta| >= threshold; else
    ``equivalent`` when `margin` is given and met; else ``no change``.

    With levels (processes, rounds: docs/nested.md), a benchmark is compared on its
    independent units (`fastperf.protocols.compare.nested`): Welch's t-test on the log means
    of its processes, or the paired t-test on its within-round log ratios (Kalibera & Jones
    2013); its medians and their intervals are those of the unit means, and the table gains
    the columns ``analysis``, ``units_*``, ``icc_*`` and ``n_effective_*``.

    The ``flags`` column names what the run diagnostics found in the runs of either side
    (`fastperf.engine.diagnostics.diagnose`: ``warmup``, ``outliers``, ``bimodal``, ``drift``,
    ``resolution``, ``noisy``, ``few runs``; `fastperf.check` explains them); ``summary["flags"]``
    counts the comparisons raising each.
    """
    options = compare_options(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value, unit=unit,
        alpha=alpha, adjust=adjust, confidence=confidence, margin=margin, threshold=threshold,
        higher_is_better=higher_is_better, method=method, levels=levels, block=block,
        warmup=warmup)
    if not isinstance(data, Dataset):
        data = load_table(data)
        if data.num_rows == 0:
            raise InputError("the measurement table is empty (0 rows)")
        if is_summary_table(data):
            return compare_from_summaries(
                data, baseline=baseline, candidates=options.candidates,
                several=options.several, by=by, variant=options.variant,
                unit=options.unit, alpha=options.alpha, adjust=adjust,
                confidence=options.confidence, margin=options.margin,
                threshold=options.threshold, higher_is_better=higher_is_better)
    side: dict = {}
    result = run_planned(data, partial(compare_plan, options=options), compare_stage,
                         compare_finish, values=[options.value], side=side,
                         keys=[by, variant, unit], function="compare")
    result.runs = side.get("runs")
    return result


@dataclass(frozen=True)
class CompareOptions:
    """The options of `compare`, checked (`compare_options`); see `compare` for each.

    Attributes
    ----------
    candidates : list
        The candidate variant(s), as a list.
    several : bool
        Whether `candidate` was given as a list (the table then has a ``candidate`` column).
    """

    baseline: Any
    candidates: list
    several: bool
    by: Any
    variant: str
    value: str
    unit: str | None
    alpha: float
    adjust: str
    confidence: float
    margin: float | None
    threshold: float
    higher_is_better: Any
    method: str
    levels: tuple[str, ...] | None
    block: str | None
    warmup: str | None = None


@dataclass(frozen=True, kw_only=True)
class ComparePlan(Plan):
    """The plan of `compare` (`compare_plan`): the options and the benchmark's identity.

    Attributes
    ----------
    options : CompareOptions
    keys : list of str
        The columns that identify a benchmark, the unit included (`benchmark_identity`).
    variant_keys : list of str
        The configuration columns that tell the variants apart.
    structure : Structure
        The levels and block the comparison uses (`fastperf.data.levels.resolve_structure`).
    """

    options: CompareOptions
    keys: list[str]
    variant_keys: list[str]
    structure: Structure


def compare_options(*, baseline, candidate, by, variant, value, unit, alpha, adjust, confidence,
                    margin, threshold, higher_is_better, method, levels=None,
                    block=None, warmup=None) -> CompareOptions:
    """The options of `compare`, checked (the errors of a call that reads no table).

    Parameters
    ----------
    baseline, candidate, by, variant, value, unit, alpha, adjust, confidence, margin, threshold,
    higher_is_better, method, levels, block, warmup
        See `compare`.

    Returns
    -------
    CompareOptions
    """
    value = column_name(value, "value")
    variant = column_name(variant, "variant")
    unit = column_name(unit, "unit", allow_none=True)
    alpha, confidence, margin, threshold = checked_options(
        alpha, adjust, confidence, margin, threshold, method, higher_is_better)
    levels, block = check_structure_arguments(levels, block)
    warmup = check_warmup(warmup)
    check_variants("compare", baseline, candidate)
    candidates = variant_list(candidate, "candidate")
    if not candidates or baseline in candidates or len(set(candidates)) != len(candidates):
        raise InputError(f"candidate must name variant(s) other than the baseline {baseline!r}, "
                         f"each once; got {candidate!r}")
    return CompareOptions(
        baseline=baseline, candidates=candidates,
        several=isinstance(candidate, (list, tuple)), by=by, variant=variant, value=value,
        unit=unit, alpha=alpha, adjust=adjust, confidence=confidence, margin=margin,
        threshold=threshold, higher_is_better=higher_is_better, method=method, levels=levels,
        block=block, warmup=warmup)


def compare_plan(table: pa.Table, options: CompareOptions) -> ComparePlan:
    """The plan of `compare` (`fastperf.data.chunked`): the benchmark's key columns and the
    configuration that tells the variants apart.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table: only which key combinations exist
        is looked at (`benchmark_identity` reads the distinct (variant, configuration) pairs).
    options : CompareOptions
        `compare_options`.

    Returns
    -------
    ComparePlan
        ``keys`` and ``variant_keys`` (`benchmark_identity`), ``partition`` (the benchmark's
        key columns, without the unit), ``order`` (``candidate`` with several candidates,
        then the keys) and ``order_values`` (the candidates, with several).

    Raises
    ------
    InputError
        An empty table, missing columns, a key column named like an output column, or a
        variant that no row has.
    """
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    variant, value, unit = options.variant, options.value, options.unit
    names = [options.baseline, *options.candidates]
    require_columns(table, [variant, value])
    keys, variant_keys = benchmark_identity(table, options.by, variant, unit, names)
    check_key_clash(keys, ("candidate",) + COLUMNS, "compare", value, variant)
    dictionary = key_dictionary(table.column(variant), variant)
    for name in dict.fromkeys(names):  # every variant compared must have rows
        code_of(dictionary, name, f"the {variant!r} column")
    several = options.several
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*keys, variant, value, *variant_keys])
    return ComparePlan(
        options=options, keys=keys, variant_keys=variant_keys, structure=structure,
        partition=tuple(k for k in keys if k != unit),
        order=(("candidate",) if several else ()) + tuple(keys),
        order_values={"candidate": tuple(options.candidates)} if several else {})


def compare_stage(table: pa.Table, plan: ComparePlan, side: dict | None = None) -> StageRows:
    """The rows of `compare` for the benchmarks of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Every row of some benchmarks (all their variants and units).
    plan : ComparePlan
        `compare_plan`.
    side : dict or None
        When a dict, receives ``"runs"``: the sorted runs of each row (`Runs`, for the
        report's figures).

    Returns
    -------
    StageRows
        One row per (candidate, benchmark, unit): the key columns and `COLUMNS` (with
        ``pvalue_adjusted`` and ``verdict`` left for `compare_finish`); in ``extra``,
        ``testable``, ``sign``, ``positive``, ``equivalent`` and each side's moments
        ``{n,mean,variance,exponent}_{baseline,candidate}`` (the overall score).
    """
    options = plan.options
    baseline, candidates = options.baseline, options.candidates
    keys, variant, value, unit = plan.keys, options.variant, options.value, options.unit
    alpha, confidence, margin = options.alpha, options.confidence, options.margin
    # one grouping of the rows into units serves the nested analysis and the flat samples;
    # a variant without rows in this chunk: empty samples
    units = chunk_units(table, plan.structure, keys, variant, value)
    steady, measured = tested_table(table, options.warmup, keys, variant, value,
                                    plan.structure, units)
    if steady is not table:  # warmup="auto" dropped transients
        table = steady
        units = chunk_units(table, plan.structure, keys, variant, value)
    vs = flat_samples(units, table, [baseline, *candidates], keys, variant, value)
    k, c = len(vs.keys), len(candidates)
    samples, dropped = vs.samples, vs.n_dropped
    base = sort_samples(samples[baseline])
    xs = concat_samples([base] * c)
    ys = sort_samples(concat_samples([samples[name] for name in candidates]))
    n_x, n_y = xs.sizes, ys.sizes
    med_x, lo_x, hi_x = _medians(xs, confidence)
    med_y, lo_y, hi_y = _medians(ys, confidence)

    first = lambda s: _ends(s, s.offsets[:-1])  # noqa: E731
    last = lambda s: _ends(s, s.offsets[1:] - 1)  # noqa: E731
    positive = (first(xs) > 0) & (first(ys) > 0)
    # the test on the values themselves (a log could merge two close values into a tie), the
    # effect on their logs where positive (the ratio)
    u, p, _, method_used, _, raw_state = rank_sum_test(ys, xs, "two-sided", options.method,
                                                       True, "omit")
    all_equal = (first(xs) == last(xs)) & (first(ys) == last(ys)) & (first(xs) == first(ys))
    p = np.where(np.isnan(p) & all_equal, 1.0, p)  # one value on both sides: nothing changed
    nested = None
    flat_xs, flat_ys = xs, ys  # the runs of the rows compared on their runs
    if not plan.structure.flat:
        nested = nested_rows(table, plan.structure, keys, variant, value, baseline, candidates,
                             k, confidence, alpha, margin is not None, units)
        # the rows compared on their units need no Hodges-Lehmann selection nor moments of
        # their runs: emptied, the kernels skip them
        flat_xs, flat_ys = (_blanked(s, nested.nested) for s in (xs, ys))
        raw_state = raw_state.transformed(flat_ys, flat_xs)  # the test ran as (ys, xs)
    state = raw_state.on_logs(positive)
    estimate, low, high = state.effects("two-sided", confidence)
    # the 1 - 2 alpha interval of the equivalence test (the two one-sided tests)
    eq_low: np.ndarray = np.full(k * c, np.nan)
    eq_high: np.ndarray = np.full(k * c, np.nan)
    if margin is not None:
        _, eq_low, eq_high = state.effects("two-sided", 1.0 - 2.0 * alpha)
    testable = _smallest_pvalue_reaches(n_x, n_y, alpha) & np.isfinite(p)
    if nested is not None:
        use = nested.nested
        with np.errstate(invalid="ignore", divide="ignore"):
            flat_extra = {"pvalue_flat": p, "testable_flat": testable,
                          "delta_flat": np.where(med_x != 0, med_y / med_x - 1.0, np.nan),
                          "unpaired_rounds": np.where(use, nested.unpaired_rounds, 0)}
        p = np.where(use, nested.pvalue, p)
        estimate, low, high = (np.where(use, a, b) for a, b in
                               ((nested.estimate, estimate), (nested.low, low),
                                (nested.high, high)))
        if margin is not None:
            eq_low = np.where(use, nested.eq_low, eq_low)
            eq_high = np.where(use, nested.eq_high, eq_high)
        testable = np.where(use, np.isfinite(p), testable)
        method_used = np.where(use, nested.method, np.asarray(method_used, dtype=object))
        unit_medians = (_medians(nested.baseline_units, confidence),
                        _medians(nested.candidate_units, confidence))
        (med_x, lo_x, hi_x), (med_y, lo_y, hi_y) = (
            tuple(np.where(use, a, b) for a, b in zip(units, flat))
            for units, flat in zip(unit_medians, ((med_x, lo_x, hi_x), (med_y, lo_y, hi_y))))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = np.where(positive, np.exp(estimate), np.nan)
        ci_low = np.where(positive, np.exp(low), np.nan)
        ci_high = np.where(positive, np.exp(high), np.nan)
        delta = np.where(med_x != 0, med_y / med_x - 1.0, np.nan)
    equivalent = np.zeros(k * c, dtype=bool)
    if margin is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            equivalent = positive & (np.exp(eq_low) >= 1 - margin) & (np.exp(eq_high) <= 1 + margin)

    with np.errstate(over="ignore"):  # medians near the float64 limits, of opposite signs
        sign = np.sign(np.nan_to_num(med_y - med_x))
    sign = np.where(sign == 0, np.sign(np.nan_to_num(estimate)), sign)
    # equal medians and no Hodges-Lehmann shift: the side the rank statistic leans to
    sign = np.where(sign == 0, np.sign(np.nan_to_num(u - n_x * n_y / 2.0)), sign)
    if nested is not None:  # the nested test's sign: that of the tested mean log ratio
        sign = np.where(nested.nested & (estimate != 0), np.sign(np.nan_to_num(estimate)), sign)

    unit_of_rows = (unit_strings(vs.keys.column(unit), unit) if unit in keys
                    else pa.nulls(k, pa.string()))
    direction = np.tile(row_directions(unit_of_rows, options.higher_is_better), c)

    n_min = median_interval_minimum_size(confidence, rule="shortest")
    no_interval = np.isnan(lo_x) | np.isnan(hi_x) | np.isnan(lo_y) | np.isnan(hi_y)
    on_units = nested.nested if nested is not None else np.zeros(k * c, dtype=bool)
    # a ratio (of the medians, or Hodges-Lehmann's with its interval) that float64 cannot hold:
    # infinite, or 0 for positive values
    beyond = positive & ((np.isinf(delta) | np.isinf(ratio) | np.isinf(ci_low)
                          | np.isinf(ci_high) | (ratio == 0) | (ci_low == 0)))
    status = first_reason(
        [n_x == 0, n_y == 0, ~testable & ~on_units, ~testable & on_units, ~positive, beyond,
         no_interval & ~on_units, no_interval & on_units],
        ["no baseline runs", "no candidate runs",
         f"too few runs: the smallest p-value 2/C(m+n, m) exceeds alpha={alpha:g}",
         "no test on the units: their spread is beyond the float64 range",
         NO_RATIO_INTERVAL,
         RATIO_BEYOND_FLOAT64,
         f"fewer than {n_min} runs: no {confidence:g} median interval",
         f"fewer than {n_min} units: no {confidence:g} median interval"], "ok")
    # the run diagnostics of the data tested, each row the union of its two sides' flags
    flags = stage_flags(vs.table if plan.structure.flat else table, keys, variant, value,
                        plan.structure, baseline, candidates,
                        vs.keys, options.warmup, measured, units, traces=side is not None,
                        groups=vs.groups, column=vs.column)
    columns = {
        "n_baseline": n_x, "n_candidate": n_y, "n_dropped_baseline": np.tile(dropped[baseline], c),
        "n_dropped_candidate": np.concatenate([dropped[name] for name in candidates]),
        "median_baseline": med_x, "ci_baseline_low": lo_x,
        "ci_baseline_high": hi_x, "median_candidate": med_y, "ci_candidate_low": lo_y,
        "ci_candidate_high": hi_y, "delta": delta, "ratio": ratio, "ci_low": ci_low,
        "ci_high": ci_high, "pvalue": p,
        "pvalue_adjusted": np.full(k * c, np.nan), "method": method_used,  # set by the finish
        "direction": pa.array(direction, pa.string()),
        "verdict": pa.nulls(k * c, pa.string()),
        "flags": flags.text, "status": status}
    columns = with_columns_after(columns, "n_dropped_candidate", flags.warmup_columns)
    extra = {"testable": testable, "sign": sign, "positive": positive,
             "equivalent": equivalent, **flags.extra}
    # what the overall score needs of each side of each row (`aggregate_score`'s propagation):
    # the runs, or the unit means of a row compared on its units
    for name, sides in (("baseline", flat_xs), ("candidate", flat_ys)):
        moments = dict(zip(("n", "mean", "variance", "exponent"), propagation_moments(sides)))
        if nested is not None:
            unit_sides = nested.baseline_units if name == "baseline" else nested.candidate_units
            on_units_moments = propagation_moments(unit_sides)
            moments = {what: np.where(on_units, a, b) for (what, b), a in
                       zip(moments.items(), on_units_moments)}
        for what, values in moments.items():
            extra[f"{what}_{name}"] = values
    if nested is not None:
        columns.update(nested.columns)
        extra.update(flat_extra)
    if vs.keys.num_columns == 0:  # by=[]: one benchmark per candidate, no key column
        key_table = empty_keys(k * c)
    else:
        key_table = pa.concat_tables([vs.keys] * c)
    if options.several:
        key_table = key_table.add_column(
            0, "candidate", pa.array(np.repeat(np.array(candidates, dtype=object), k).tolist(),
                                     pa.string() if all(isinstance(n, str) for n in candidates)
                                     else None))
    if side is not None:
        side["runs"] = Runs(baseline, candidates[0] if c == 1 else "candidate", xs, ys)
        side["runs"].traces = flags.traces
    return StageRows.of(keyed_table(key_table, columns), extra)



def compare_finish(staged: StageRows, plan: ComparePlan, info: dict) -> CompareResult:
    """The result of `compare` from its rows (`fastperf.data.chunked`): the p-values adjusted
    over every comparison of the run, the verdicts, the overall table, the summary.

    Parameters
    ----------
    staged : StageRows
        `compare_stage` rows of every benchmark, in output order (candidate-major).
    plan : ComparePlan
        `compare_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    CompareResult
    """
    options = plan.options
    candidates, keys, unit = options.candidates, plan.keys, options.unit
    alpha, adjust, threshold = options.alpha, options.adjust, options.threshold
    rows, extra = staged.rows, staged.extra
    c = len(candidates)
    k = rows.num_rows // c
    column = lambda name: rows.column(name).to_numpy(zero_copy_only=False)  # noqa: E731
    extra_column = lambda name: extra.column(name).to_numpy(zero_copy_only=False)  # noqa: E731
    testable = extra_column("testable").astype(bool)
    p_adjusted = adjusted_pvalues(column("pvalue"), testable, adjust, alpha)
    direction = column("direction")
    with np.errstate(invalid="ignore"):
        verdict = verdicts_of(testable, p_adjusted < alpha, extra_column("sign"),
                              column("delta"), threshold, direction,
                              extra_column("equivalent").astype(bool))
    names = rows.column_names
    rows = rows.set_column(names.index("pvalue_adjusted"), "pvalue_adjusted",
                           pa.array(p_adjusted))
    rows = rows.set_column(names.index("verdict"), "verdict",
                           pa.array(verdict.tolist(), pa.string()))
    out = rows
    unit_key = unit if unit in keys else None
    units = (unit_strings(out.column(unit_key).slice(0, k), unit_key) if unit_key
             else pa.nulls(k, pa.string()))
    moments = {name: extra_column(name) for name in extra.column_names}
    n_x, n_y = column("n_baseline"), column("n_candidate")

    def score(use):
        values = _score_ratio(moments, use & testable & (n_x > 1) & (n_y > 1),
                              options.confidence)
        return dict(zip(("score_ratio", "score_ci_low", "score_ci_high"), values))

    overall = overall_table(out, candidates, units, k, unit_key, "median",
                            extra_column("positive").astype(bool), extra=score)
    warnings = dropped_warnings(column("n_dropped_baseline") + column("n_dropped_candidate"),
                                "comparison(s)", "n_dropped_baseline / n_dropped_candidate")
    # every candidate's block has the same benchmarks, so the first block's rows say it
    warnings.extend(direction_warnings(units, direction[:k]))
    if "pvalue_flat" in extra.column_names:
        warnings.extend(_flat_would_differ(rows, extra_column, verdict, keys, adjust, alpha,
                                           threshold))
    if plan.structure.block is not None and "analysis" in out.column_names:
        # rounds that pair no or one round of the variants: the documented flat fallback,
        # which gives up the pairing the design was for
        unpaired = ((out.column("analysis").to_numpy(zero_copy_only=False) == "flat")
                    & (column("units_baseline") < 2) & (column("n_baseline") >= 2)
                    & (column("n_candidate") >= 2))
        if unpaired.any():
            warnings.append(f"{int(unpaired.sum())} comparison(s) analysed flat (every value "
                            f"independent): their variants share fewer than 2 "
                            f"{plan.structure.block!r} values to pair (see units_baseline)")
        left_out = extra_column("unpaired_rounds")
        if left_out.any():
            warnings.append(f"{int((left_out > 0).sum())} comparison(s) paired on the "
                            f"{plan.structure.block!r} values both variants measured: "
                            f"{int(left_out.sum())} that measured one variant only left out "
                            "of the test and the medians (see units_baseline)")
    flag_summary, flag_warnings = finish_flags(extra, options.warmup)
    warnings.extend(flag_warnings)
    counts = {v: int(np.sum(verdict == v)) for v in VERDICTS}
    summary = {
        "function": "compare", "baseline": options.baseline, "candidates": candidates,
        "keys": keys, "variant_keys": plan.variant_keys, "alpha": alpha, "adjust": adjust,
        "comparisons": int(testable.sum()), "confidence": options.confidence,
        "margin": options.margin, "threshold": threshold, "method": options.method,
        "verdicts": counts, "largest_regressions": largest_regressions(out, keys),
        "structure": plan.structure.label(), **flag_summary,
    }
    return CompareResult(out, summary, warnings, overall, keys, unit_key)


def _flat_would_differ(rows: pa.Table, extra_column, verdict: np.ndarray, keys: list[str],
                       adjust: str, alpha: float, threshold: float) -> list[str]:
    """The warning naming the comparisons the flat analysis (every value independent) would
    call a change that the analysis on the units does not."""
    testable = extra_column("testable_flat").astype(bool)
    p_flat = adjusted_pvalues(extra_column("pvalue_flat"), testable, adjust, alpha)
    with np.errstate(invalid="ignore"):
        flat_change = testable & (p_flat < alpha) & ~(np.abs(extra_column("delta_flat"))
                                                     < threshold)
    nested = rows.column("analysis").to_numpy(zero_copy_only=False) != "flat"
    changed = np.isin(verdict, ["worse", "better", "changed"])
    differ = np.flatnonzero(flat_change & nested & ~changed)
    if differ.size == 0:
        return []
    shown = keys[:1]
    names = [str(rows.column(shown[0])[int(i)].as_py()) if shown else f"row {int(i)}"
             for i in differ[:5]]
    more = f" and {differ.size - 5} more" if differ.size > 5 else ""
    return [f"{differ.size} comparison(s) would be called a change if every value were taken "
            f"as independent (levels=[]), but not on their processes or rounds: "
            f"{', '.join(names)}{more}; their values are correlated within a unit "
            "(see icc_*, n_effective_*; docs/nested.md)"]


def _score_ratio(moments: dict, use: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """`aggregate_score` (geometric mean, error propagation, ratio to the baseline) of the
    chosen rows' runs on each side, from each side's moments: the candidate's score over the
    baseline's, with its interval, the same figures as ``aggregate_score(method="propagation",
    baseline=...)`` on those runs."""
    rows = np.flatnonzero(use)
    if rows.size < 1:
        return math.nan, math.nan, math.nan
    n, mean, variance, exponent = (
        np.concatenate([moments[f"{what}_baseline"][rows],
                        moments[f"{what}_candidate"][rows]])
        for what in ("n", "mean", "variance", "exponent"))
    # two segments (baseline, candidate) of the same benchmarks, weights 1 / benchmarks
    sizes = np.array([rows.size, rows.size], dtype=np.int64)
    starts = np.array([0, rows.size], dtype=np.int64)
    raw_w = np.ones(2 * rows.size)
    w = raw_w / np.add.reduceat(raw_w, starts)[np.repeat(np.arange(2), sizes)]
    score, sd, se, df = propagation_from_moments(n, mean, variance, exponent, starts, w, True)
    # `aggregate_score`'s statuses: a zero se keeps the score (no df); a score or sd beyond
    # float64 keeps nothing
    zero = se == 0
    beyond = ~zero & ~(np.isfinite(score) & np.isfinite(sd))
    score, se = np.where(~beyond, score, np.nan), np.where(~beyond, se, np.nan)
    df = np.where(zero | beyond, np.nan, df)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = score / score[0]
        rel, rel_b = (se / score) ** 2, (se[0] / score[0]) ** 2
        rel_se = np.sqrt(rel + rel_b)
        df_ratio = (rel + rel_b) ** 2 / (rel ** 2 / df + rel_b ** 2 / df[0])
        half = student_quantile(df_ratio, confidence) * rel_se
        low, high = ratio * np.exp(-half), ratio * np.exp(half)
    return float(ratio[1]), float(low[1]), float(high[1])
