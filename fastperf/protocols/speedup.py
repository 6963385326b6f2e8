"""The Speedup-Test protocol (Touati, Worms & Briais 2013, seed 002), for every benchmark at once.

Per benchmark, with X the baseline's values and Y the candidate's (times: lower is better):

- the observed speedups of the min, the mean and the median (section 2);
- the mean protocol (section 3.1, Figure 1): Shapiro-Wilk on each sample, Fisher's F-test, then
  the one-sided Student or Welch t-test of H0: mu_X <= mu_Y;
- the median protocol (section 3.2, Figure 2): Kolmogorov-Smirnov on the median-centred samples
  (does the location-shift model hold?), then the one-sided Wilcoxon-Mann-Whitney test of
  H0: F_X >= F_Y, whose U/(mn) estimates P[X > Y];

and over the benchmarks the overall speedup and gain (equations 1 and 2) and, for each protocol,
the proportion of significantly accelerated benchmarks with R's ``prop.test`` interval and the
number of benchmarks needed for a precision (section 4). Every test is the batched one of its
module (`fastperf.stats.normality`, `fastperf.stats.parametric`, `fastperf.stats.ks`,
`fastperf.stats.rank_tests`, `fastperf.stats.proportions`): one kernel call per test for all benchmarks.

It runs as plan, stage and finish (`fastperf.data.chunked`): `speedup_plan` checks the options
and what the table's key combinations tell, `speedup_stage` tests each benchmark of a chunk on
its own, `speedup_finish` (at the end of this module) computes the figures over the
benchmarks; so a lazy dataset is tested in chunks with the in-memory result.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.grouping import code_of, group_rows, key_codes
from fastperf.data.levels import Structure, check_structure_arguments, resolve_structure
from fastperf.data.samples import (
    VariantSamples, binary_exponents, check_positive, check_single_unit, group_constant,
    group_weights, grouped_values, sample_medians, scaled_samples,
)
from fastperf.data.validation import (
    check_choice, check_flag, check_key_clash, check_real, check_unit_interval, check_variants,
    check_whole_number,
)
from fastperf.engine.ks import ks_pairs
from fastperf.engine.normality import shapiro_wilk_samples as shapiro_wilk
from fastperf.engine.parametric import f_from_moments, sample_moments_of, t_from_moments, t_pvalue
from fastperf.engine.ranks import rank_sum_test
from fastperf.engine.summaries import min_median
from fastperf.errors import InputError
from fastperf.io.tables import (
    column_name, describe_group, key_list, require_columns, value_column,
)
from fastperf.kernels.grouping import take_segments
from fastperf.protocols.aggregate import check_weight_column
from fastperf.protocols.flags import (check_warmup, tested_table, finish_flags, stage_flags,
                                      with_columns_after)
from fastperf.protocols.relevance import RANK_METHODS
from fastperf.protocols.speedup_report import EXECUTION_TIMES, RESULT_COLUMNS, SpeedupTestResult
from fastperf.results.base import keyed_table
from fastperf.results.figures import Runs
from fastperf.results.render import format_cell
from fastperf.stats.forms import unit_means
from fastperf.stats.proportions import min_benchmarks, proportion_ci

__all__ = ["speedup_test", "SpeedupOptions", "SpeedupPlan", "speedup_options", "speedup_plan",
           "speedup_stage", "speedup_finish", "SIDES"]

#: The two sides, as the stage's ``extra`` columns name them: ``mean_<side>`` (the mean
#: divided by ``2**exponent``), ``median_<side>``, ``min_<side>``; with ``weight`` (W),
#: ``compared``, ``ks_messages`` (the Kolmogorov-Smirnov fallback messages of the stage's
#: chunk, on its first row) and ``variants`` (the variants the chunk holds, on its first row,
#: when the plan could not look for them).
SIDES = ("baseline", "candidate")


# ---------------------------------------------------------------------------------------------
# input validation


def _speedup_iv(baseline, candidate, alpha, large_sample, precision, proportion_confidence,
                median_method, by, value, variant,
                unit) -> tuple[float | str, int, float, float | None]:
    """Check `speedup_test`'s arguments; return alpha, large_sample, precision and
    proportion_confidence normalised (alpha stays a column name when it is one)."""
    check_variants("speedup_test", baseline, candidate)
    if baseline == candidate:
        raise InputError(f"baseline and candidate are the same variant ({baseline!r})")
    if not isinstance(alpha, str):
        alpha = check_unit_interval(alpha, "alpha (the risk level)")
    large_sample = check_whole_number(large_sample, "large_sample", minimum=0)
    precision = check_real(precision, "precision (the half-width r)", low=0, high=1,
                           low_open=True)
    if proportion_confidence is not None:
        proportion_confidence = check_unit_interval(proportion_confidence,
                                                    "proportion_confidence")
    check_choice(median_method, "median_method", RANK_METHODS)
    check_key_clash(key_list(by), RESULT_COLUMNS, "speedup_test", value, variant, unit)
    return alpha, large_sample, precision, proportion_confidence


#: The columns holding a test's p-value (or 1 - p): null where the test was not run (a sample
#: it cannot test, ``mean_test="none"``, a benchmark not compared), never NaN.
TEST_COLUMNS = ("pvalue_shapiro_baseline", "pvalue_shapiro_candidate", "pvalue_ftest",
                "pvalue_mean", "pvalue_ks", "pvalue_median", "max_confidence_median")


def _null_where_not_run(name: str, column: np.ndarray):
    """A test's column as Arrow, null where the test was not run (NaN p-value)."""
    if name not in TEST_COLUMNS:
        return column
    return pa.array(column, pa.float64(), mask=np.isnan(column))


def _benchmark_alpha(vs, alpha) -> np.ndarray:
    """The risk level of each benchmark: `alpha` itself, or a column of per-benchmark levels."""
    n = len(vs.keys)
    if not isinstance(alpha, str):
        return np.full(n, float(alpha))
    if alpha not in vs.table.column_names:
        raise InputError(f"alpha={alpha!r} names no column; the table has {vs.table.column_names}")
    per_group = group_constant(value_column(vs.table, alpha), vs.groups, f"alpha column {alpha!r}")
    levels = vs.per_benchmark(per_group, f"alpha column {alpha!r}")
    bad = np.flatnonzero(~((levels > 0) & (levels < 1)))
    if bad.size:
        raise InputError(f"alpha column {alpha!r} holds {levels[bad[0]]!r} for benchmark "
                         f"{describe_group(vs.keys, int(bad[0]))}; risk levels lie in (0, 1)")
    return levels


# ---------------------------------------------------------------------------------------------
# the two protocols


def _max_confidence_mean(p_student, p_welch, p_f, p_sw, large):
    """The highest confidence 1 - a' at which the mean protocol declares the speedup.

    At risk level a' the protocol concludes when the samples are large or both Shapiro-Wilk p's
    exceed a'; it takes Student's test when the F-test's p exceeds a', else Welch's; and
    declares the speedup when that test's p <= a'. The levels a' where it does so are
    {p_student <= a' < min(p_f, p_sw)} and {max(p_welch, p_f) <= a' < p_sw} (p_sw the smaller
    Shapiro-Wilk p, +inf for large samples): the smallest such a' is min(p_student,
    max(p_welch, p_f)) over the non-empty sets. 0 when no level declares it (the set can be
    non-monotone in a': normality that passes only at small a' makes small-sample speedups
    significant only there).
    """
    with np.errstate(invalid="ignore"):
        limit = np.where(large, np.inf, np.nan_to_num(p_sw, nan=0.0))
        p_f = np.nan_to_num(p_f, nan=0.0)  # no F-test (zero variance): Welch at every level
        student = np.where(p_student < np.minimum(p_f, limit), p_student, np.inf)
        welch_from = np.maximum(p_welch, p_f)
        welch = np.where(welch_from < limit, welch_from, np.inf)
        smallest = np.fmin(student, welch)  # NaN p's (no t-test) never declare
        return np.where(np.isfinite(smallest) & (smallest < 1), 1.0 - smallest, 0.0)


def _mean_protocol(xs: Samples, ys: Samples, moments_x, moments_y, alpha, large, better: str):
    """Figure 1: per benchmark the test used, the p-values, the warnings (`moments_*`:
    ``parametric._moments`` of each side) and the status of the tests that could not run
    ("F-test not run: ..." or "t-test not run: ..." with the engine's reason, else "ok")."""
    (n1, nan1, m1, v1), (n2, nan2, m2, v2) = moments_x, moments_y
    _, p_sw_x, _ = shapiro_wilk(xs)
    _, p_sw_y, _ = shapiro_wilk(ys)
    _, p_f, _, _, f_status = f_from_moments(n1, nan1, v1, n2, nan2, v2, "two-sided")
    p_t, t_status = {}, {}
    for name, equal_var in (("student", True), ("welch", False)):
        t, df, _, _, status = t_from_moments(n1, nan1, m1, v1, n2, nan2, m2, v2, equal_var)
        p_t[name] = np.where(status == "ok", t_pvalue(t, df, better), np.nan)
        t_status[name] = status
    with np.errstate(invalid="ignore"):
        normal = (p_sw_x > alpha) & (p_sw_y > alpha)  # NaN (not testable) is not normal
        equal_variances = p_f > alpha
    test = np.where(~large & ~normal, "none", np.where(equal_variances, "student", "welch"))
    p_mean = np.where(test == "student", p_t["student"],
                      np.where(test == "welch", p_t["welch"], np.nan))
    with np.errstate(invalid="ignore"):
        significant = p_mean <= alpha
    p_sw_min = np.minimum(p_sw_x, p_sw_y)  # NaN when either sample is not testable
    max_confidence = _max_confidence_mean(p_t["student"], p_t["welch"], p_f, p_sw_min, large)
    with np.errstate(invalid="ignore"):
        rejected = p_sw_min <= alpha
    chosen_status = np.where(test == "student", t_status["student"], t_status["welch"])
    notes = [
        (test == "none",
         "cannot conclude on the mean: small samples not both normal (Shapiro-Wilk)"),
        (large & rejected,
         "risk level of the mean test not exact: large samples, normality rejected "
         "(Shapiro-Wilk)"),
        ((test != "none") & (chosen_status != "ok"), "t-test not possible: " + chosen_status),
    ]
    columns = {"mean_test": test, "pvalue_shapiro_baseline": p_sw_x,
               "pvalue_shapiro_candidate": p_sw_y, "pvalue_ftest": p_f, "pvalue_mean": p_mean,
               "mean_significant": significant, "max_confidence_mean": max_confidence}
    # a test of the protocol that could not run leaves its p-value null: the row says why
    not_run = np.where(f_status != "ok", np.char.add("F-test not run: ", f_status.astype(str)),
                       np.where((test != "none") & (chosen_status != "ok"),
                                np.char.add("t-test not run: ", chosen_status.astype(str)),
                                "ok"))
    return columns, notes, not_run


def _median_protocol(xs: Samples, ys: Samples, alpha, large, better: str, method: str):
    """Figure 2: KS on the median-centred samples, then the one-sided Wilcoxon-Mann-Whitney."""
    ks, ks_messages = ks_pairs(xs, ys, "two-sided", "auto", "median")
    p_ks = ks["pvalue"]
    u, p, _, method_used, _, state = rank_sum_test(xs, ys, better, method, True, "omit")
    mn = (state.m * state.n).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob_x_greater = u / mn  # P[X > Y] + P[X = Y] / 2
        significant = p <= alpha
        shifted = p_ks <= alpha
    faster = prob_x_greater if better == "greater" else 1.0 - prob_x_greater
    notes = [
        (~large & shifted,
         "risk level of the median test not guaranteed: small samples and Kolmogorov-Smirnov "
         "rejects the location-shift model"),
        (large & shifted,
         "risk level of the median test not exact: Kolmogorov-Smirnov rejects the "
         "location-shift model (large samples)"),
    ]
    columns = {"pvalue_ks": p_ks, "pvalue_median": p, "median_method": method_used,
               "median_significant": significant, "prob_candidate_faster": faster,
               "max_confidence_median": np.where(np.isnan(p), np.nan, 1.0 - p)}
    return columns, notes, ks_messages


def _join_notes(notes: list[tuple[np.ndarray, str | np.ndarray]], n: int) -> np.ndarray:
    """Per benchmark the notes whose condition holds, joined by "; " ("" when none)."""
    out = np.full(n, "", dtype=object)
    for condition, message in notes:
        message = np.broadcast_to(np.asarray(message, dtype=object), (n,))
        add = np.flatnonzero(condition)
        if add.size:
            sep = np.where(out[add] == "", "", "; ")
            out[add] = out[add] + sep + message[add]
    return out.astype(str)


# ---------------------------------------------------------------------------------------------
# the overall figures


def _ratio(numerator, denominator) -> np.ndarray:
    """numerator / denominator, each an array or (scaled array, power of 2) as `_times` says."""
    if isinstance(numerator, tuple):  # the same power of 2 on both sides: it cancels
        return numerator[0] / denominator[0]
    return numerator / denominator


# ---------------------------------------------------------------------------------------------
# the protocol


def speedup_test(
    data: Any,
    *,
    baseline: str,
    candidate: str,
    by: str | Sequence[str] = "benchmark",
    variant: str = "variant",
    value: str = "value",
    alpha: float | str = 0.05,
    weights: str | Mapping[Any, float] | None = None,
    higher_is_better: bool = False,
    large_sample: int = 30,
    precision: float = 0.05,
    proportion_confidence: float | None = None,
    median_method: str = "auto",
    unit: str | None = "unit",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
    warmup: str | None = None,
) -> SpeedupTestResult:
    """The Speedup-Test of every benchmark: is the candidate's mean, and its median, better?

    Parameters
    ----------
    data : measurement table (Arrow object, ``__arrow_c_stream__`` object, or path(s)); also
        what `read_speedup_config` returns; or a lazy `fastperf.io.dataset.Dataset`
        (``fastperf.read(..., lazy=True)``), tested benchmark by benchmark in chunks, with the
        same result (`fastperf.data.chunked`).
    baseline, candidate : str
        The variants compared: X = baseline (the initial code), Y = candidate (the optimised
        one). A name that no row has is an error listing the variants present.
    by, variant, value : column names (benchmark key(s), the variant, the measurement). Values
        must be positive (speedups are ratios); null/NaN values are dropped and counted.
    alpha : float or str
        The risk level of every test (Shapiro-Wilk, F, t, KS, Wilcoxon-Mann-Whitney), or the
        name of a column holding one risk level per benchmark (the tool's per-benchmark
        confidence levels; `read_speedup_config` writes them as column "alpha").
    weights : None, a column name or a mapping benchmark -> weight
        W of equation (1); equal weights by default.
    higher_is_better : bool
        Throughput-like metrics: speedups become candidate / baseline and the one-sided tests
        ask whether the candidate's values are larger.
    large_sample : int
        Samples with more than this many values are "large" (the paper's n > 30): the t-test
        then runs whatever Shapiro-Wilk says (with a warning when it rejects normality).
    precision : float
        r, the half-width for which ``min_benchmarks`` is computed.
    proportion_confidence : float or None
        Level of the proportion intervals; None: 1 - alpha (0.95 when alpha is a column).
    median_method : {"auto", "exact", "asymptotic"}
        p-value of the Wilcoxon-Mann-Whitney test (`fastperf.mannwhitneyu`): "auto" is exact,
        conditional on ties, where cheap.
    unit : str or None
        When the table has this column, each benchmark's values must share one unit.
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        the table has (``build``, ``process``); ``[]`` or ``"none"`` asks for the flat
        analysis, which takes every value as independent (today's numbers, bit for bit). With
        levels, each benchmark's variants are first collapsed to the means of their independent
        units (`fastperf.stats.forms.unit_means`) and both protocols run on them: ``n_*`` count
        units.
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block.
    warmup : None or "auto"
        None tests every value; ``"auto"`` first drops the initial transient found in each
        benchmark and variant's processes (`fastperf.compare`'s ``warmup``), adds the columns
        ``warmup_baseline`` / ``warmup_candidate`` and ``summary["warmup"]``, and warns.

    Returns
    -------
    SpeedupTestResult
        ``.benchmarks``: one row per benchmark, keys first, then ``n_baseline``,
        ``n_candidate``, ``n_dropped_baseline``, ``n_dropped_candidate``, ``alpha``,
        ``speedup_min``, ``speedup_mean``, ``speedup_median``; the mean protocol:
        ``mean_test`` ("student", "welch", or "none" when small samples are not both normal),
        ``pvalue_shapiro_baseline``, ``pvalue_shapiro_candidate``, ``pvalue_ftest`` (two-sided),
        ``pvalue_mean`` (one-sided t-test), ``mean_significant``, ``max_confidence_mean``; the
        median protocol: ``pvalue_ks``, ``pvalue_median`` (one-sided), ``median_method``,
        ``median_significant``, ``prob_candidate_faster`` (U/(mn): P[X > Y] + P[X = Y]/2 for
        lower-is-better), ``max_confidence_median``; ``flags`` (the run diagnostics of either
        side, `fastperf.compare`'s); ``status`` and ``warnings`` (text).
        ``status`` is "ok", or for a benchmark not compared "missing baseline", "missing
        candidate", "missing baseline and candidate" or "speedup outside the float64 range",
        or for a benchmark compared whose F- or t-test could not run (its p-value null: one
        value a side, two constant samples) "F-test not run: <why>" / "t-test not run: <why>".
        Under "ok" the only nulls are the Shapiro-Wilk p of an untestable sample and
        ``pvalue_mean`` when ``mean_test`` is "none".
        ``.summary``, ``.warnings``, ``.errors``; ``to_markdown()``, ``to_json()``,
        ``write_reports(directory)``.

    Notes
    -----
    ``max_confidence_*`` is the highest confidence level 1 - a' at which the protocol declares
    the speedup (0 when no level does): 1 - p for the median; for the mean the protocol's
    branches move with a' too (see `_max_confidence_mean`).

    S. A. A. Touati, J. Worms and S. Briais (2013), "The Speedup-Test: a statistical methodology
    for programme speedup analysis and computation", Concurrency and Computation: Practice and
    Experience 25(10), 1410-1426 (seed 002): speedups (section 2), equations (1) and (2) for
    the overall speedup and gain, Figures 1 and 2 for the two protocols, section 4 for the
    proportion of accelerated benchmarks. The protocols' tests: Shapiro & Wilk (1965), Fisher's
    F-test, Student's and Welch's (1947) t-tests; Kolmogorov-Smirnov (Smirnov 1939) and
    Wilcoxon-Mann-Whitney (Mann & Whitney 1947). The proportion interval is R's ``prop.test``
    (Wilson's 1927 score interval with continuity correction, Newcombe 1998).
    """
    options = speedup_options(  # the options first, before any data is read
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
        alpha=alpha, weights=weights, higher_is_better=higher_is_better,
        large_sample=large_sample, precision=precision,
        proportion_confidence=proportion_confidence, median_method=median_method, unit=unit,
        levels=levels, block=block, warmup=warmup)
    side: dict = {}
    result = run_planned(data, partial(speedup_plan, options=options), speedup_stage,
                         speedup_finish, values=[value], side=side, function="speedup_test",
                         keys=[by, variant, unit])
    result.runs = side.get("runs")
    return result


# ---------------------------------------------------------------------------------------------
# plan and stage (`fastperf.data.chunked`); the finish is at the end of this module


def _nulled(column: pa.ChunkedArray) -> bool:
    """Whether every value of `column` is null, as a dataset's key table has a column that is
    not a label there (a numeric one): its values are then only seen by the stage."""
    return len(column) > 0 and column.null_count == len(column)


def _find_variants(table: pa.Table, variant: str, names: Sequence[str]) -> bool:
    """An `InputError` (listing the variants present) for a variant of `names` that no row has;
    False when the column is all null (a dataset's numeric variant column): the finish looks
    for them then."""
    column = table.column(variant)
    if _nulled(column):
        return False
    _, dictionary = key_codes(column, variant)
    for name in dict.fromkeys(names):
        code_of(dictionary, name, f"the {variant!r} column")
    return True


def _plan_weights(table: pa.Table, weights, keys: list[str]):
    """`weights` as the stage takes them (a mapping as a dict), checked as far as the table's
    key combinations allow: the column exists; the mapping has an entry, a positive finite
    number, for every benchmark."""
    if weights is None:
        return None
    if isinstance(weights, str):
        require_columns(table, [weights], hint="weights= names a column of per-benchmark weights")
        return weights
    if not isinstance(weights, Mapping) or len(keys) != 1:
        # raises (no mapping, or several key columns) before it reads the groups
        group_weights(table, weights, keys, None)  # type: ignore[arg-type]
    weights = dict(weights)
    column = table.column(keys[0])
    if not _nulled(column):
        codes, dictionary = key_codes(column, keys[0])
        present = pa.DictionaryArray.from_arrays(pa.array(np.unique(codes), pa.int32()),
                                                 dictionary)
        # checks every benchmark's weight: a stand-in for the groups, of which it reads keys
        present_keys = SimpleNamespace(keys=pa.table({keys[0]: present}))
        group_weights(table, weights, keys, present_keys)  # type: ignore[arg-type]
    return weights


@dataclass(frozen=True)
class SpeedupOptions:
    """The options of `speedup_test`, checked (`speedup_options`); see `speedup_test` for
    each. ``alpha`` stays a column name when it is one; ``proportion_confidence`` is set
    (1 - alpha, or 0.95 with an alpha column, when not given)."""

    baseline: Any
    candidate: Any
    by: Any
    variant: str
    value: str
    alpha: float | str
    weights: Any
    higher_is_better: bool
    large_sample: int
    precision: float
    proportion_confidence: float
    median_method: str
    unit: str | None
    levels: tuple[str, ...] | None = None
    block: str | None = None
    warmup: str | None = None


@dataclass(frozen=True, kw_only=True)
class SpeedupPlan(Plan):
    """The plan of `speedup_test` (`speedup_plan`).

    Attributes
    ----------
    options : SpeedupOptions
    keys : list of str
        The benchmark key columns (the ``partition`` and the ``order``).
    weights : None, str or dict
        The weights as the stage takes them: a column name or a dict.
    variants_checked : bool
        Whether the plan found both variants (False when the key table's variant column is
        all null: the finish looks for them then).
    structure : Structure
        The levels and block the test uses (`fastperf.data.levels.resolve_structure`).
    """

    options: SpeedupOptions
    keys: list[str]
    weights: Any
    variants_checked: bool
    structure: Structure = Structure()


def speedup_options(*, baseline, candidate, by, variant, value, alpha, weights,
                    higher_is_better, large_sample, precision, proportion_confidence,
                    median_method, unit, levels=None, block=None,
                    warmup=None) -> SpeedupOptions:
    """The options of `speedup_test`, checked (those that need no table).

    Parameters
    ----------
    baseline, candidate, by, variant, value, alpha, weights, higher_is_better, large_sample,
    precision, proportion_confidence, median_method, unit, levels, block, warmup
        See `speedup_test`.

    Returns
    -------
    SpeedupOptions
    """
    alpha, large_sample, precision, proportion_confidence = _speedup_iv(
        baseline, candidate, alpha, large_sample, precision, proportion_confidence,
        median_method, by, value, variant, unit)
    column_name(value, "value")
    levels, block = check_structure_arguments(levels, block)
    warmup = check_warmup(warmup)
    if proportion_confidence is None:
        proportion_confidence = round(1.0 - alpha, 12) if not isinstance(alpha, str) else 0.95
    return SpeedupOptions(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
        alpha=alpha, weights=weights,
        higher_is_better=check_flag(higher_is_better, "higher_is_better"),
        large_sample=large_sample, precision=precision,
        proportion_confidence=proportion_confidence, median_method=median_method, unit=unit,
        levels=levels, block=block, warmup=warmup)


def speedup_plan(table: pa.Table, options: SpeedupOptions) -> SpeedupPlan:
    """The plan of `speedup_test` (`fastperf.data.chunked`): the table checked against the
    options.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : SpeedupOptions
        `speedup_options`.

    Returns
    -------
    SpeedupPlan
        ``weights`` (None, a column name or a dict), and the partition and order: the
        benchmark key columns.

    Raises
    ------
    InputError
        An empty table, a missing column, a variant that no row has, an alpha or weights
        column that is missing or not numeric, a weights mapping without an entry for some
        benchmark.
    """
    baseline, candidate, variant, value = (options.baseline, options.candidate,
                                           options.variant, options.value)
    alpha, weights = options.alpha, options.weights
    keys = key_list(options.by)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, keys + [variant, value])
    variants_checked = _find_variants(table, variant, [baseline, candidate])
    if isinstance(alpha, str) and alpha not in table.column_names:
        raise InputError(f"alpha={alpha!r} names no column; the table has {table.column_names}")
    check_weight_column(table, weights)
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*keys, variant, value, *_per_benchmark(options)])
    return SpeedupPlan(options=options, keys=keys, weights=_plan_weights(table, weights, keys),
                       variants_checked=variants_checked, structure=structure,
                       partition=tuple(keys), order=tuple(keys))


def _per_benchmark(options: SpeedupOptions) -> list[str]:
    """The columns that hold one value per benchmark: the unit, an alpha or weights column."""
    return [c for c in (options.unit, options.alpha, options.weights) if isinstance(c, str)]


def _chunk_samples(table: pa.Table, keys: list[str], variant: str, value: str,
                   names: Sequence[str]) -> tuple[VariantSamples, pa.Array]:
    """`fastperf.data.samples.variant_samples` of `table`, where a variant of `names` may be
    absent (its samples are then empty: the plan has found it in the whole table); and the
    variant column's distinct values."""
    table, groups, grouped = grouped_values(table, keys + [variant], value)
    benchmarks = group_rows(groups.keys, keys)
    benchmark_of_group = np.repeat(np.arange(benchmarks.n_groups), benchmarks.sizes)
    codes, dictionary = key_codes(groups.keys.column(variant), variant)
    samples, dropped = {}, {}
    for name in names:
        take = np.full(benchmarks.n_groups, -1, dtype=np.int64)
        try:
            chosen = np.flatnonzero(codes == code_of(dictionary, name, f"the {variant!r} column"))
            take[benchmark_of_group[chosen]] = chosen
        except InputError:  # no row of this chunk has it
            pass
        kept, offsets, n_dropped = take_segments(grouped, groups.offsets, take, True)
        samples[name], dropped[name] = Samples(kept, offsets), n_dropped
    return (VariantSamples(benchmarks.keys, samples, dropped, table, groups, benchmarks.offsets),
            dictionary)


def speedup_stage(table: pa.Table, plan: SpeedupPlan, side: dict | None = None) -> StageRows:
    """The per-benchmark rows of `speedup_test` for the benchmarks of `table`
    (`fastperf.data.chunked`): speedups and both protocols, with what the overall figures
    need.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks (every row of each).
    plan : SpeedupPlan
        `speedup_plan`.
    side : dict or None
        When a dict, receives ``"runs"``: the samples for the report's figures.

    Returns
    -------
    StageRows
        The keys and the columns listed in `speedup_test`; in ``extra``, ``mean_<side>``
        (divided by ``2**exponent``), ``median_<side>``, ``min_<side>``, ``exponent``,
        ``weight``, ``compared``, ``ks_messages`` and ``variants`` (`speedup_finish`).

    Raises
    ------
    InputError
        Mixed units within a benchmark, a value <= 0 or infinite, an alpha or weight column
        that varies within a benchmark or is out of range.

    Notes
    -----
    Sections 2 and 3 of Touati, Worms & Briais (2013), seed 002: the observed speedups, the
    mean protocol (Figure 1) and the median protocol (Figure 2), each benchmark on its own.
    """
    options = plan.options
    keys, baseline, candidate = plan.keys, options.baseline, options.candidate
    table, measured = tested_table(table, options.warmup, keys, options.variant,
                                   options.value, plan.structure)
    tested = table
    table = unit_means(table, keys, options.variant, options.value, plan.structure,
                       _per_benchmark(options))
    vs, variants = _chunk_samples(table, keys, options.variant, options.value,
                                  (baseline, candidate))
    check_single_unit(vs, options.unit)
    xs, ys = vs.samples[baseline], vs.samples[candidate]
    check_positive(xs, vs.keys, f"baseline {baseline!r}")
    check_positive(ys, vs.keys, f"candidate {candidate!r}")
    levels = _benchmark_alpha(vs, options.alpha)
    weights = plan.weights
    what = "weight column" if isinstance(weights, str) else "weight"
    w = vs.per_benchmark(group_weights(vs.table, weights, keys, vs.groups), what)
    large_sample, higher_is_better = options.large_sample, options.higher_is_better

    n1, n2 = xs.sizes, ys.sizes
    compared = (n1 > 0) & (n2 > 0)
    status = np.select([(n1 == 0) & (n2 == 0), n1 == 0, n2 == 0],
                       ["missing baseline and candidate", "missing baseline", "missing candidate"],
                       default="ok")
    large = (n1 > large_sample) & (n2 > large_sample)
    better = "less" if higher_is_better else "greater"

    min_x, min_y = min_median(xs)[0], min_median(ys)[0]
    median_x, median_y = sample_medians(xs), sample_medians(ys)
    # every benchmark's two samples divided by one power of 2 (exact): the moments and tests of
    # values near 1.8e308 (or of squares of 1e-200) stay finite, and equal bit for bit elsewhere
    exponent = binary_exponents(xs, ys)
    xs_scaled, ys_scaled = scaled_samples(xs, exponent), scaled_samples(ys, exponent)
    moments_x, moments_y = sample_moments_of(xs_scaled), sample_moments_of(ys_scaled)
    time_x = {"mean": (moments_x[2], exponent), "median": median_x, "min": min_x}
    time_y = {"mean": (moments_y[2], exponent), "median": median_y, "min": min_y}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        speedups = {f"speedup_{t}": _ratio(time_y[t], time_x[t]) if higher_is_better
                    else _ratio(time_x[t], time_y[t]) for t in ("min", "mean", "median")}
    out_of_range = compared & ~np.logical_and.reduce(
        [(s > 0) & np.isfinite(s) for s in speedups.values()])
    status = np.where(out_of_range, "speedup outside the float64 range", status)
    compared = compared & ~out_of_range

    mean_columns, mean_notes, not_run = _mean_protocol(xs_scaled, ys_scaled, moments_x,
                                                       moments_y, levels, large, better)
    median_columns, median_notes, ks_messages = _median_protocol(
        xs_scaled, ys_scaled, levels, large, better, options.median_method)
    columns = {**speedups, **mean_columns, **median_columns}
    for name in ("mean_significant", "median_significant"):
        columns[name] = columns[name] & compared
    columns["mean_test"] = np.where(compared, columns["mean_test"], "none")
    for name, column in columns.items():  # no figures for a benchmark not compared
        if column.dtype.kind == "f":
            columns[name] = np.where(compared, column, np.nan)
    notes = _join_notes([(c & compared, m) for c, m in mean_notes + median_notes], len(n1))
    # compared, but a test of the mean protocol could not run (one value a side, two constant
    # samples): its p-value is null, so the status names the test and why; still compared
    status = np.where(compared & (not_run != "ok"), not_run, status)
    # the variants seen, for the finish's message when the plan could not look for them
    seen = [] if plan.variants_checked else [repr(v) for v in variants.to_pylist()
                                               if v is not None]
    # the run diagnostics of the measurements tested (before the unit means)
    # without levels the runs tested are the samples' table, already grouped by (keys, variant)
    flags = stage_flags(vs.table if plan.structure.flat else tested, keys, options.variant,
                        options.value, plan.structure, baseline, [candidate], vs.keys,
                        options.warmup, measured, traces=side is not None, groups=vs.groups)
    if side is not None:
        side["runs"] = Runs(baseline, candidate, xs, ys, ("strip", "ecdf", "qq"), flags.traces)
    rows = keyed_table(vs.keys, with_columns_after({
        "n_baseline": n1, "n_candidate": n2, "n_dropped_baseline": vs.n_dropped[baseline],
        "n_dropped_candidate": vs.n_dropped[candidate], "alpha": levels,
        **{name: _null_where_not_run(name, columns[name])
           for name in RESULT_COLUMNS[5:RESULT_COLUMNS.index("flags")]},
        "flags": flags.text, "status": status, "warnings": notes,
    }, "n_dropped_candidate", flags.warmup_columns))
    return StageRows.of(rows, {
        **{f"{time}_{name}": values for time, pair in (("mean", (moments_x[2], moments_y[2])),
                                                        ("median", (median_x, median_y)),
                                                        ("min", (min_x, min_y)))
           for name, values in zip(SIDES, pair)},
        "exponent": exponent, "weight": w, "compared": compared,
        "ks_messages": pa.array(["\n".join(ks_messages)] + [""] * (len(n1) - 1), pa.string()),
        "variants": pa.array([seen] + [[]] * (len(n1) - 1), pa.list_(pa.string())),
        **flags.extra,
    })


# ---------------------------------------------------------------------------------------------
# over the benchmarks (the finish): the overall speedup and gain (equations 1 and 2), the
# proportion of accelerated benchmarks with its interval (section 4), the warning and error
# files, and `speedup_finish`, which makes the result from the per-benchmark rows


#: The count in a `fastperf.engine.ks.ks_pairs` fallback message ("... for 3 pair(s) ...").
_COUNT = re.compile(r"(?<=for )\d+(?= )")


def _weighted_times(time_x, time_y, compared: np.ndarray, w: np.ndarray):
    """W ET(C) and W ET(C') of the compared benchmarks, all divided by the same powers of 2
    (exact) so that the sums of equation (1) do not overflow; a time is an array, or
    (mean / 2**e, e) per benchmark."""
    parts = [t if isinstance(t, tuple) else (t, np.zeros(t.shape, np.int64))
             for t in (time_x, time_y)]
    parts = [(scaled[compared], exponent[compared]) for scaled, exponent in parts]
    w = w[compared]
    with np.errstate(invalid="ignore"):  # the exponent of the largest |W| and |ET|
        w_top = int(np.frexp(np.max(np.abs(w), initial=0.0))[1])
        top = max(int(np.max(np.frexp(scaled)[1] + exponent, initial=0))
                  for scaled, exponent in parts)
    with np.errstate(under="ignore"):
        return [np.ldexp(w, -w_top) * np.ldexp(scaled, (exponent - top).astype(np.int32))
                for scaled, exponent in parts]


def _overall(time_x: dict, time_y: dict, w: np.ndarray, compared: np.ndarray, higher: bool):
    """Equations (1) and (2): S = sum W ET(C) / sum W ET(C'), G = 1 - 1/S (flipped to
    candidate / baseline when higher is better). Both sums are divided by the same powers of
    2 (exact), so that values near the float64 maximum do not overflow them."""
    speedup, gain = {}, {}
    for time in EXECUTION_TIMES:
        wx, wy = _weighted_times(time_x[time], time_y[time], compared, w)
        num, den = float(np.sum(wx)), float(np.sum(wy))
        if higher:
            num, den = den, num
        s = num / den if compared.any() and den > 0 else float("nan")
        speedup[time] = s
        gain[time] = 1.0 - 1.0 / s if np.isfinite(s) else float("nan")
    return speedup, gain


def _proportion(significant: np.ndarray, compared: np.ndarray, confidence: float,
                precision: float) -> dict[str, Any]:
    """a of b accelerated, with R's prop.test interval and the benchmarks for precision r."""
    a, b = int(np.sum(significant & compared)), int(np.sum(compared))
    if b == 0:
        return {"accelerated": 0, "compared": 0, "proportion": float("nan"),
                "ci_low": float("nan"), "ci_high": float("nan"), "ci_valid": False,
                "min_benchmarks": None}
    ci = proportion_ci(a, b, confidence=confidence, method="prop.test")
    return {"accelerated": a, "compared": b, "proportion": a / b, "ci_low": float(ci.low),
            "ci_high": float(ci.high), "ci_valid": bool(ci.valid),
            "min_benchmarks": int(min_benchmarks(a / b, precision, confidence))}


def _messages(keys: pa.Table, notes: np.ndarray, status: np.ndarray, compared: np.ndarray,
              ks_messages: list[str], summary: dict) -> tuple[list[str], list[str]]:
    """The warning and error files: one line per benchmark with a note / not compared."""
    noted, failed = np.flatnonzero(notes != ""), np.flatnonzero(~compared)

    def names(rows: np.ndarray) -> list[str]:  # only the benchmarks reported
        return [", ".join(format_cell(v) for v in row.values())
                for row in keys.take(pa.array(rows, pa.int64())).to_pylist()]

    warnings = [f"{name}: {note}" for name, note in zip(names(noted), notes[noted])]
    warnings += ks_messages
    if summary["dropped"]:
        warnings.append(f"{summary['dropped']} null/NaN values dropped (see n_dropped_baseline, "
                        "n_dropped_candidate)")
    for protocol in ("mean", "median"):
        p = summary[protocol]
        if p["compared"] and not p["ci_valid"]:
            warnings.append(f"the proportion interval of the {protocol} may not be accurate: "
                            "the validity condition a(1 - a/b) > 5 is not satisfied")
    errors = [f"{name}: {reason}: not compared" for name, reason in zip(names(failed), status[failed])]
    return warnings, errors


def _ks_messages(per_chunk: list[str]) -> list[str]:
    """The Kolmogorov-Smirnov fallback messages of every chunk, one per kind with the counts of
    pairs added up (each chunk's messages are on its first row, one per line)."""
    templates: dict[str, int] = {}
    for text in per_chunk:
        for line in text.split("\n") if text else ():
            match = _COUNT.search(line)
            template = line if match is None else line[:match.start()] + "{}" + line[match.end():]
            templates[template] = templates.get(template, 0) + (int(match.group()) if match else 0)
    # one chunk (in memory): its messages as they are; several: each kind once, in the order
    # its first benchmark comes (with the protocol's centred "auto" test only the "exact
    # p-value unsuccessful" kind can occur)
    return [t.replace("{}", str(n), 1) if "{}" in t else t for t, n in templates.items()]


def _check_variants_found(staged: StageRows, options: SpeedupOptions) -> None:
    """When the plan could not look for the variants (a column all null in a dataset's key
    table), a variant that no row has is an error here, listing the variants seen."""
    rows = staged.rows
    for side in SIDES:
        seen = (rows.column(f"n_{side}").to_numpy().sum()
                + rows.column(f"n_dropped_{side}").to_numpy().sum())
        if not seen:
            present = dict.fromkeys(v for chunk in staged.extra.column("variants").to_pylist()
                                    for v in chunk)
            raise InputError(f"variant {getattr(options, side)!r} not found; the "
                             f"{options.variant!r} column holds [{', '.join(present)}]")


def speedup_finish(staged: StageRows, plan: SpeedupPlan, info: dict) -> SpeedupTestResult:
    """The result of `speedup_test` from its per-benchmark rows (`fastperf.data.chunked`).

    Parameters
    ----------
    staged : StageRows
        `speedup_stage` rows of every benchmark, in output order.
    plan : SpeedupPlan
        `speedup_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    SpeedupTestResult
        The per-benchmark table, the summary (overall speedups and gains, proportions of
        accelerated benchmarks), the warnings and the errors.

    Notes
    -----
    Equations (1) and (2) and section 4 of Touati, Worms & Briais (2013), seed 002: the
    overall speedup S = sum W ET(C) / sum W ET(C') and gain G = 1 - 1/S over the compared
    benchmarks, and a/b accelerated with R's ``prop.test`` interval.
    """
    options = plan.options
    if not plan.variants_checked:
        _check_variants_found(staged, options)
    rows = staged.rows

    def column(name: str) -> np.ndarray:
        return rows.column(name).to_numpy(zero_copy_only=False)

    def extra(name: str) -> np.ndarray:
        return staged.extra.column(name).to_numpy(zero_copy_only=False)

    n1, n2 = column("n_baseline"), column("n_candidate")
    compared = extra("compared")
    exponent = extra("exponent")
    time_x, time_y = ({"mean": (extra(f"mean_{side}"), exponent),
                       "median": extra(f"median_{side}"), "min": extra(f"min_{side}")}
                      for side in SIDES)
    overall_speedup, overall_gain = _overall(time_x, time_y, extra("weight"), compared,
                                             options.higher_is_better)
    confidence, precision = options.proportion_confidence, options.precision
    weights = options.weights
    summary = {
        "function": "speedup_test", "baseline": options.baseline,
        "candidate": options.candidate, "alpha": options.alpha,
        "higher_is_better": options.higher_is_better, "large_sample": options.large_sample,
        "median_method": options.median_method, "benchmarks": len(n1),
        "benchmarks_compared": int(compared.sum()),
        "missing_baseline": int((n1 == 0).sum()), "missing_candidate": int((n2 == 0).sum()),
        "dropped": int(column("n_dropped_baseline").sum() + column("n_dropped_candidate").sum()),
        "weights": weights if isinstance(weights, str) or weights is None else "mapping",
        "overall_speedup": overall_speedup, "overall_gain": overall_gain,
        "proportion_confidence": confidence, "precision": precision,
        "mean": _proportion(column("mean_significant"), compared, confidence, precision),
        "median": _proportion(column("median_significant"), compared, confidence, precision),
        "structure": plan.structure.label(),
    }
    flag_summary, flag_warnings = finish_flags(staged.extra, options.warmup)
    summary.update(flag_summary)
    ks_messages = _ks_messages([m for m in extra("ks_messages") if m])
    warnings, errors = _messages(rows.select(plan.keys), column("warnings"),
                                 column("status"), compared, ks_messages, summary)
    warnings.extend(flag_warnings)
    return SpeedupTestResult(rows, summary, warnings, errors)
