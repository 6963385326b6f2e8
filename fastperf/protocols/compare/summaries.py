"""`compare` on a *summary table* (n, mean, sd per benchmark and variant, as summary-only
result files give them): Welch's t-test and Fieller's interval of the ratio of the means.

Rank tests and distribution-free median intervals need the runs themselves; from summaries
only the moments can be compared, and the result says so (``method`` and a warning).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.grouping import group_rows
from fastperf.data.units import direction_warnings, row_directions, unit_strings
from fastperf.data.validation import check_key_clash
from fastperf.engine.intervals import student_halfwidth
from fastperf.engine.parametric import t_from_moments, t_pvalue, t_quantile
from fastperf.engine.pvalues import first_reason
from fastperf.errors import InputError
from fastperf.io.summaries import checked_summary_columns
from fastperf.io.tables import require_columns
from fastperf.protocols.compare.result import (
    VERDICTS, CompareResult, adjusted_pvalues, benchmark_identity, largest_regressions,
    overall_table, verdicts_of,
)
from fastperf.results.base import empty_keys, keyed_table

__all__ = ["compare_from_summaries", "fieller_ratio_interval", "SUMMARY_COMPARE_COLUMNS",
           "SUMMARY_METHOD"]

#: The columns of a comparison from summaries (after the key columns).
SUMMARY_COMPARE_COLUMNS = (
    "n_baseline", "n_candidate", "mean_baseline", "sd_baseline", "ci_baseline_low",
    "ci_baseline_high", "mean_candidate", "sd_candidate", "ci_candidate_low",
    "ci_candidate_high", "delta", "ratio", "ci_low", "ci_high", "pvalue", "pvalue_adjusted",
    "method", "direction", "verdict", "status")
#: The ``method`` of every row compared from summaries.
SUMMARY_METHOD = "welch-t from summaries"


def fieller_ratio_interval(mean_x: np.ndarray, var_mean_x: np.ndarray, mean_y: np.ndarray,
                           var_mean_y: np.ndarray, quantile: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Fieller's interval of the ratio mean_y / mean_x of two independent means.

    Parameters
    ----------
    mean_x, mean_y : numpy.ndarray
        The means (x: the denominator, the baseline).
    var_mean_x, var_mean_y : numpy.ndarray
        The variances of the means (s**2 / n).
    quantile : numpy.ndarray
        The t (or normal) quantile of the two-sided level, e.g. t[(1 + confidence) / 2; df].

    Returns
    -------
    low, high : numpy.ndarray
        The interval; NaN where it is unbounded (the baseline mean is not significantly
        different from zero at that level: g = q**2 var_mean_x / mean_x**2 >= 1).

    Notes
    -----
    The set of ratios R with (mean_y - R mean_x)**2 <= q**2 (var_mean_y + R**2 var_mean_x):
    with a = mean_x**2 - q**2 var_mean_x > 0 it is
    [mean_x mean_y -+ q sqrt(mean_x**2 var_mean_y + mean_y**2 var_mean_x - q**2 var_mean_x
    var_mean_y)] / a. Fieller (1954), "Some problems in interval estimation", J. R. Statist.
    Soc. B 16, 175-185. Computed on both means scaled by the same power of two (the ratio is
    scale-free), so that no square overflows.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        _, exponent = np.frexp(np.where(np.isfinite(mean_x) & (mean_x != 0), mean_x, 1.0))
        mx, my = np.ldexp(mean_x, -exponent), np.ldexp(mean_y, -exponent)
        vx, vy = np.ldexp(var_mean_x, -2 * exponent), np.ldexp(var_mean_y, -2 * exponent)
        q2 = quantile * quantile
        a = mx * mx - q2 * vx
        root = np.sqrt(mx * mx * vy + my * my * vx - q2 * vx * vy)
        low = (mx * my - quantile * root) / a
        high = (mx * my + quantile * root) / a
    bounded = (a > 0) & np.isfinite(low) & np.isfinite(high)
    return np.where(bounded, low, np.nan), np.where(bounded, high, np.nan)


def _row_of_variant(group_of_row: np.ndarray, names: np.ndarray, name: str, n_groups: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the row holding `name`'s summary (-1: none) and how many rows hold one."""
    rows = np.flatnonzero(names == name)
    where = np.full(n_groups, -1, dtype=np.int64)
    where[group_of_row[rows]] = rows
    return where, np.bincount(group_of_row[rows], minlength=n_groups)


def _statistic(table: pa.Table, name: str, rows: np.ndarray) -> np.ndarray:
    """Column `name` at `rows` as float64 (NaN where null or where the row is -1)."""
    values = pc.cast(table.column(name), pa.float64()).fill_null(math.nan).to_numpy()
    return np.where(rows >= 0, values[np.maximum(rows, 0)] if values.size else math.nan, math.nan)


def _exponent(mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Per row, the power-of-two exponent of the larger of |mean| and sd (0 where not finite)."""
    with np.errstate(invalid="ignore"):
        larger = np.fmax(np.abs(mean), sd)
    _, exponent = np.frexp(np.where(np.isfinite(larger) & (larger > 0), larger, 1.0))
    return exponent.astype(np.int64)


def compare_from_summaries(
    table: pa.Table, *, baseline: str, candidates: list[str], several: bool, by: Any,
    variant: str, unit: str | None, alpha: float, adjust: str, confidence: float,
    margin: float | None, threshold: float, higher_is_better: bool | Mapping[str, bool] | None,
) -> CompareResult:
    """`compare` for a summary table (see `fastperf.compare`; arguments checked there).

    Parameters
    ----------
    table : pyarrow.Table
        A summary table (`fastperf.io.common.summary_table`): one row per benchmark, variant
        (and configuration, unit), with ``n``, ``mean`` and ``sd``.
    baseline, candidates, several, by, variant, unit, alpha, adjust, confidence, margin,
    threshold, higher_is_better
        As `fastperf.compare` (``several``: the candidates were given as a list).

    Returns
    -------
    CompareResult
        ``benchmarks`` with `SUMMARY_COMPARE_COLUMNS`: n, mean, sd and the Student interval of
        the mean of each side; delta = mean(candidate) / mean(baseline) - 1 and its ratio with
        Fieller's interval; Welch's two-sided p-value, adjusted over the run; the verdict as
        for runs. ``overall``: per candidate and unit, the geometric means of the means and
        the verdict counts. ``summary["from_summaries"]`` is True.

    Notes
    -----
    Welch (1947) t-test from (mean, sd, n) of each side, df by Welch-Satterthwaite; the ratio
    interval is Fieller's (1954) with the same t quantile; equivalence (``margin``): Fieller's
    (1 - 2 alpha) interval inside [1 - margin, 1 + margin] (two one-sided tests). Mean
    intervals: mean +- t[(1 + confidence) / 2; n - 1] sd / sqrt(n). Each side is scaled by the
    power of two of its larger |mean| or sd before any square (exact, undone after), so finite
    summaries give finite t, p and intervals wherever those are representable; a ratio or mean
    interval beyond the float64 range is a status, never an "ok" infinity.
    """
    require_columns(table, [variant, "n", "mean", "sd"])
    table = checked_summary_columns(table)
    variants = [baseline, *candidates]
    names = pc.cast(table.column(variant), pa.string())
    table = table.filter(pc.is_in(names, pa.array(variants, pa.string())))
    if table.num_rows == 0:
        raise InputError(f"no summary row of variant {baseline!r} or {candidates!r} in column "
                         f"{variant!r}")
    keys, variant_keys = benchmark_identity(table, by, variant, unit, variants)
    check_key_clash(keys, ("candidate",) + SUMMARY_COMPARE_COLUMNS, "compare", "mean")
    groups = group_rows(table, keys)
    k, c = groups.n_groups, len(candidates)
    group_of_row = np.empty(table.num_rows, dtype=np.int64)
    group_of_row[groups.gather(np.arange(table.num_rows))] = np.repeat(np.arange(k), groups.sizes)
    names = pc.cast(table.column(variant), pa.string()).to_numpy(zero_copy_only=False)

    base_rows, base_count = _row_of_variant(group_of_row, names, baseline, k)
    side_rows = [_row_of_variant(group_of_row, names, name, k) for name in candidates]
    rows_x = np.tile(base_rows, c)
    rows_y = np.concatenate([rows for rows, _ in side_rows])
    repeated = np.tile(base_count > 1, c) | np.concatenate([count > 1 for _, count in side_rows])
    n_x, n_y = _statistic(table, "n", rows_x), _statistic(table, "n", rows_y)
    m_x, m_y = _statistic(table, "mean", rows_x), _statistic(table, "mean", rows_y)
    s_x, s_y = _statistic(table, "sd", rows_x), _statistic(table, "sd", rows_y)
    zeros = np.zeros(k * c)

    # Each side scaled by the power of two of its larger |mean| or sd (exact), so that no square
    # overflows; t_from_moments scales back (see its docstring).
    e_x, e_y = _exponent(m_x, s_x), _exponent(m_y, s_y)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        sx_scaled, sy_scaled = np.ldexp(s_x, -e_x), np.ldexp(s_y, -e_y)
        t, df, _, _, t_status = t_from_moments(
            n_y, zeros, np.ldexp(m_y, -e_y), sy_scaled * sy_scaled, n_x, zeros,
            np.ldexp(m_x, -e_x), sx_scaled * sx_scaled, False, e_y, e_x)
        p = np.where(t_status == "ok", t_pvalue(t, df, "two-sided"), np.nan)
        # Fieller's interval is scale-free: both sides scaled by the same (larger) exponent
        common = np.maximum(e_x, e_y)
        fx, fy = np.ldexp(m_x, -common), np.ldexp(m_y, -common)
        gx, gy = np.ldexp(s_x, -common), np.ldexp(s_y, -common)
        var_x, var_y = gx * gx / n_x, gy * gy / n_y
        ci_low, ci_high = fieller_ratio_interval(fx, var_x, fy, var_y,
                                                 t_quantile((1.0 + confidence) / 2.0, df))
        ratio = m_y / m_x
        delta = ratio - 1.0
        half_x = student_halfwidth(np.nan_to_num(n_x), s_x, confidence)
        half_y = student_halfwidth(np.nan_to_num(n_y), s_y, confidence)
        sides = [m_x - half_x, m_x + half_x, m_y - half_y, m_y + half_y]
    sides_overflow = np.zeros(k * c, dtype=bool)
    for side in sides:
        sides_overflow |= np.isinf(side)
    equivalent = np.zeros(k * c, dtype=bool)
    if margin is not None:
        eq_low, eq_high = fieller_ratio_interval(fx, var_x, fy, var_y,
                                                 t_quantile(1.0 - alpha, df))
        with np.errstate(invalid="ignore"):
            equivalent = (eq_low >= 1 - margin) & (eq_high <= 1 + margin)

    before_test = first_reason(
        [rows_x < 0, rows_y < 0, repeated, np.isnan(n_x) | np.isnan(n_y),
         np.isnan(m_x) | np.isnan(m_y), np.isnan(s_x) | np.isnan(s_y)],
        ["no baseline summary", "no candidate summary",
         "several summary rows for one variant: give by= the columns that tell them apart",
         "the file gives no run count n: no test (rank tests need the raw runs)",
         "the file gives no mean", "the file gives no sd: no test (rank tests need the raw runs)"],
        "ok")
    after_test = first_reason(
        [~(m_x > 0) | ~(m_y > 0), ~np.isfinite(ratio), np.isnan(ci_low), sides_overflow],
        ["means <= 0: no ratio interval",
         "ratio of the means beyond the float64 range",
         "Fieller interval unbounded: the baseline mean is not significantly above 0",
         "an interval of a mean beyond the float64 range"], "ok")
    test_failed = np.char.add("no test: ", np.asarray(t_status, dtype=str))
    status = np.where(before_test != "ok", before_test,
                      np.where(t_status != "ok", test_failed, after_test)).astype(object)
    testable = status == "ok"
    p = np.where(testable, p, np.nan)
    p_adjusted = adjusted_pvalues(p, testable, adjust, alpha)
    units = (unit_strings(groups.keys.column(unit), unit) if unit is not None and unit in keys
             else pa.nulls(k, pa.string()))
    benchmark_direction = row_directions(units, higher_is_better)
    direction = np.tile(benchmark_direction, c)
    with np.errstate(invalid="ignore", over="ignore"):
        verdict = verdicts_of(testable, p_adjusted < alpha, np.sign(np.nan_to_num(m_y - m_x)),
                              delta, threshold, direction, equivalent)
    nan_unless_ok = np.where(testable, 1.0, np.nan)
    columns = {
        "n_baseline": pa.array(n_x, pa.float64(), mask=np.isnan(n_x)).cast(pa.int64()),
        "n_candidate": pa.array(n_y, pa.float64(), mask=np.isnan(n_y)).cast(pa.int64()),
        "mean_baseline": m_x, "sd_baseline": s_x, "ci_baseline_low": sides[0],
        "ci_baseline_high": sides[1], "mean_candidate": m_y, "sd_candidate": s_y,
        "ci_candidate_low": sides[2], "ci_candidate_high": sides[3],
        "delta": delta * nan_unless_ok, "ratio": ratio * nan_unless_ok,
        "ci_low": ci_low * nan_unless_ok, "ci_high": ci_high * nan_unless_ok,
        "pvalue": p, "pvalue_adjusted": p_adjusted,
        "method": pa.array([SUMMARY_METHOD] * (k * c), pa.string()),
        "direction": pa.array(direction, pa.string()),
        "verdict": pa.array(verdict.tolist(), pa.string()), "status": status}
    if groups.keys.num_columns == 0:
        key_table = empty_keys(k * c)
    else:
        key_table = pa.concat_tables([groups.keys] * c)
    if several:
        key_table = key_table.add_column(
            0, "candidate", pa.array(np.repeat(np.array(candidates, dtype=object), k).tolist(),
                                     pa.string()))
    out = keyed_table(key_table, columns)
    overall = overall_table(out, candidates, units, k, unit if unit in keys else None, "mean",
                            testable)
    counts = {v: int(np.sum(verdict == v)) for v in VERDICTS}
    warnings = [f"compared from summaries (n, mean, sd): Welch's t-test and Fieller's interval "
                f"of the ratio of means for all {k * c} comparison(s); rank tests and median "
                "intervals need the raw runs (see docs/readers.md for how to keep them)"]
    warnings.extend(direction_warnings(units, benchmark_direction))
    summary = {
        "function": "compare", "from_summaries": True, "baseline": baseline,
        "candidates": candidates, "keys": keys, "variant_keys": variant_keys, "alpha": alpha,
        "adjust": adjust, "comparisons": int(testable.sum()), "confidence": confidence,
        "margin": margin, "threshold": threshold, "method": SUMMARY_METHOD, "verdicts": counts,
        "largest_regressions": largest_regressions(out, keys),
    }
    return CompareResult(out, summary, warnings, overall, keys, unit if unit in keys else None)
