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
"""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from fastperf.engine.summaries import min_median
from fastperf.data.arrays import Samples
from fastperf.errors import InputError
from fastperf.results.base import (
    BenchmarkResult, _json_safe, format_cell, keyed_table, render_markdown, render_text,
    table_records,
)
from fastperf.io.tables import describe_group, key_list, value_column

__all__ = ["speedup_test", "SpeedupTestResult", "read_speedup_config"]

#: The execution-time summaries of equation (1), in report order.
EXECUTION_TIMES = ("mean", "median", "min")

#: Per-benchmark output columns (after the keys); a key column may not take one of these names.
RESULT_COLUMNS = [
    "n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate", "alpha",
    "speedup_min", "speedup_mean", "speedup_median",
    "mean_test", "pvalue_shapiro_baseline", "pvalue_shapiro_candidate", "pvalue_ftest",
    "pvalue_mean", "mean_significant", "max_confidence_mean",
    "pvalue_ks", "pvalue_median", "median_method", "median_significant", "prob_candidate_faster",
    "max_confidence_median", "status", "warnings",
]

#: The columns of the short per-benchmark table printed by `SpeedupTestResult.to_text`.
TEXT_COLUMNS = ["speedup_mean", "speedup_median", "mean_significant", "median_significant",
                "pvalue_mean", "pvalue_median", "status"]

REPORT_FILES = {"global": "speedup-test-global.txt", "benchmarks": "speedup-test-benchmarks.txt",
                "warnings": "speedup-test-warnings.txt", "errors": "speedup-test-errors.txt"}


def _r3(x: float) -> str:
    """A number as the Speedup-Test tool prints it: three decimals, trailing zeros dropped."""
    if x is None or not np.isfinite(x):
        return "NA"
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class SpeedupTestResult(BenchmarkResult):
    """Result of `speedup_test`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per benchmark, keys first; the columns are listed in `speedup_test`.
    summary : dict
        Overall figures: ``overall_speedup`` and ``overall_gain`` (dicts keyed by the execution
        time "mean", "median", "min"), and ``mean`` / ``median`` dicts with ``accelerated`` (a),
        ``compared`` (b), ``proportion``, ``ci_low``, ``ci_high``, ``ci_valid``
        (a(1 - a/b) > 5) and ``min_benchmarks``; the counts of benchmarks and of missing sides.
    warnings, errors : list of str
        The tool's warning and error files: why a speedup could not be concluded or its risk
        level is not guaranteed; which benchmarks could not be compared at all.
    """

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 errors: list[str]):
        super().__init__(table, summary, warnings)
        self.errors = errors

    def global_report(self) -> str:
        """The tool's global report: overall speedups and gains, then the proportions of
        accelerated benchmarks with their intervals (the lines of the paper's section 6)."""
        s = self.summary
        direction = "higher is better" if s["higher_is_better"] else "lower is better"
        alpha = s["alpha"]
        risk = f"alpha = {alpha}" if not isinstance(alpha, str) else f"alpha from column {alpha!r}"
        lines = [
            f"Speedup-Test: candidate {s['candidate']!r} against baseline {s['baseline']!r} "
            f"({direction}), risk level {risk}",
            f"Benchmarks: {s['benchmarks_compared']} compared of {s['benchmarks']} "
            f"({s['missing_baseline']} missing baseline, {s['missing_candidate']} missing "
            "candidate)",
            "",
        ]
        for time in EXECUTION_TIMES:
            lines.append(f"Overall gain (ExecutionTime={time}) = {_r3(s['overall_gain'][time])}")
            lines.append(f"Overall speedup (ExecutionTime={time}) = "
                         f"{_r3(s['overall_speedup'][time])}")
        for protocol in ("mean", "median"):
            p = s[protocol]
            what = f"speedup of the {protocol}"
            lines += ["", f"The observed proportion of accelerated benchmarks ({what})",
                      f"a/b = {p['accelerated']}/{p['compared']} = {_r3(p['proportion'])}"]
            if p["compared"] == 0:
                continue
            lines += [
                "The confidence level for computing proportion confidence interval is "
                f"{s['proportion_confidence']}.",
                f"Proportion confidence interval ({what}) = [{_r3(p['ci_low'])}; "
                f"{_r3(p['ci_high'])}]",
            ]
            if not p["ci_valid"]:
                lines.append("Warning: this confidence interval of the proportion may not be "
                             "accurate because the validity condition {a(1-a/b) > 5} is not "
                             "satisfied.")
            lines.append(f"The minimal needed number of randomly selected benchmarks is "
                         f"{p['min_benchmarks']} (in order to have a precision "
                         f"r={s['precision']}).")
        return "\n".join(lines)

    def detail_report(self) -> str:
        """The per-benchmark report: every column of `benchmarks`, aligned."""
        return render_text(self.benchmarks)

    def to_text(self) -> str:
        """A readable table (one line per benchmark: speedups, verdicts, p-values), then the
        global report and the counts of warnings and errors."""
        keys = [c for c in self.benchmarks.column_names if c not in RESULT_COLUMNS]
        out = render_text(self.benchmarks.select(keys + TEXT_COLUMNS)) + "\n\n" + self.global_report()
        if self.warnings:
            out += f"\n\n{len(self.warnings)} warning(s):\n" + "\n".join(f"- {w}" for w in self.warnings)
        if self.errors:
            out += f"\n\n{len(self.errors)} error(s):\n" + "\n".join(f"- {e}" for e in self.errors)
        return out

    def to_markdown(self) -> str:
        """Markdown: the global report, the per-benchmark table, the warnings and the errors."""
        out = "```\n" + self.global_report() + "\n```\n\n" + render_markdown(self.benchmarks)
        for title, items in (("Warnings", self.warnings), ("Errors", self.errors)):
            if items:
                out += f"\n\n**{title}**\n\n" + "\n".join(f"- {item}" for item in items)
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """JSON object with ``summary``, ``warnings``, ``errors`` and ``benchmarks`` (rows)."""
        return json.dumps({"summary": _json_safe(self.summary), "warnings": self.warnings,
                           "errors": self.errors, "benchmarks": table_records(self.benchmarks)},
                          indent=indent)

    def write_reports(self, directory: str | os.PathLike) -> dict[str, Path]:
        """Write the tool's four reports as text files in `directory` (created if needed).

        Returns the paths by report: "global" (overall speedups and proportions), "benchmarks"
        (the per-benchmark detail), "warnings" and "errors" (one line each; empty files when
        there are none). File names are `REPORT_FILES`.
        """
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        texts = {"global": self.global_report(), "benchmarks": self.detail_report(),
                 "warnings": "\n".join(self.warnings), "errors": "\n".join(self.errors)}
        paths = {}
        for name, text in texts.items():
            path = folder / REPORT_FILES[name]
            path.write_text(text + "\n" if text else "", encoding="utf-8")
            paths[name] = path
        return paths


# ---------------------------------------------------------------------------------------------
# input validation


def _speedup_iv(baseline, candidate, alpha, large_sample, precision, proportion_confidence,
                median_method, by) -> None:
    from fastperf.stats.rank_tests import _METHODS

    if baseline is None or candidate is None:
        raise InputError("speedup_test needs baseline= and candidate= (variant names)")
    if baseline == candidate:
        raise InputError(f"baseline and candidate are the same variant ({baseline!r})")
    if not isinstance(alpha, str) and not (0 < alpha < 1):
        raise InputError(f"alpha (the risk level) must lie in (0, 1), got {alpha!r}")
    if isinstance(large_sample, bool) or not isinstance(large_sample, (int, np.integer)) \
            or large_sample < 0:
        raise InputError(f"large_sample must be a whole number >= 0, got {large_sample!r}")
    if not (0 < precision <= 1):
        raise InputError(f"precision (the half-width r) must lie in (0, 1], got {precision!r}")
    if proportion_confidence is not None and not (0 < proportion_confidence < 1):
        raise InputError(f"proportion_confidence must lie in (0, 1), got {proportion_confidence!r}")
    if median_method not in _METHODS:
        raise InputError(f"median_method must be one of {list(_METHODS)}, got {median_method!r}")
    clash = [k for k in key_list(by) if k in RESULT_COLUMNS]
    if clash:
        raise InputError(f"key column {clash[0]!r} has the name of an output column of "
                         "speedup_test; rename it first")


def _benchmark_alpha(vs, alpha) -> np.ndarray:
    """The risk level of each benchmark: `alpha` itself, or a column of per-benchmark levels."""
    from fastperf.data.samples import group_constant

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
    """Figure 1: per benchmark the test used, the p-values and the warnings (`moments_*`:
    ``parametric._moments`` of each side)."""
    from fastperf.engine.normality import shapiro_wilk_samples as shapiro_wilk
    from fastperf.engine.parametric import f_from_moments, t_pvalue, t_from_moments

    (n1, nan1, m1, v1), (n2, nan2, m2, v2) = moments_x, moments_y
    _, p_sw_x, _ = shapiro_wilk(xs)
    _, p_sw_y, _ = shapiro_wilk(ys)
    _, p_f, _, _, _ = f_from_moments(n1, nan1, v1, n2, nan2, v2, "two-sided")
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
    return columns, notes


def _median_protocol(xs: Samples, ys: Samples, alpha, large, better: str, method: str):
    """Figure 2: KS on the median-centred samples, then the one-sided Wilcoxon-Mann-Whitney."""
    from fastperf.engine.ks import ks_pairs
    from fastperf.engine.ranks import rank_sum_test

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


def _overall(time_x: dict, time_y: dict, w: np.ndarray, compared: np.ndarray, higher: bool):
    """Equations (1) and (2): S = sum W ET(C) / sum W ET(C'), G = 1 - 1/S (flipped to
    candidate / baseline when higher is better)."""
    speedup, gain = {}, {}
    for time in EXECUTION_TIMES:
        num = float(np.sum(w[compared] * time_x[time][compared]))
        den = float(np.sum(w[compared] * time_y[time][compared]))
        if higher:
            num, den = den, num
        s = num / den if compared.any() and den > 0 else float("nan")
        speedup[time] = s
        gain[time] = 1.0 - 1.0 / s if np.isfinite(s) else float("nan")
    return speedup, gain


def _proportion(significant: np.ndarray, compared: np.ndarray, confidence: float,
                precision: float) -> dict[str, Any]:
    """a of b accelerated, with R's prop.test interval and the benchmarks for precision r."""
    from fastperf.stats.proportions import min_benchmarks, proportion_ci

    a, b = int(np.sum(significant & compared)), int(np.sum(compared))
    if b == 0:
        return {"accelerated": 0, "compared": 0, "proportion": float("nan"),
                "ci_low": float("nan"), "ci_high": float("nan"), "ci_valid": False,
                "min_benchmarks": None}
    ci = proportion_ci(a, b, confidence=confidence, method="prop.test")
    return {"accelerated": a, "compared": b, "proportion": a / b, "ci_low": float(ci.low),
            "ci_high": float(ci.high), "ci_valid": bool(ci.valid),
            "min_benchmarks": int(min_benchmarks(a / b, precision, confidence))}


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
) -> SpeedupTestResult:
    """The Speedup-Test of every benchmark: is the candidate's mean, and its median, better?

    Parameters
    ----------
    data : measurement table (Arrow object, ``__arrow_c_stream__`` object, or path(s)); also
        what `read_speedup_config` returns.
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
        lower-is-better), ``max_confidence_median``; ``status`` ("ok", "missing baseline",
        "missing candidate", "missing baseline and candidate") and ``warnings`` (text).
        ``.summary``, ``.warnings``, ``.errors``; ``to_markdown()``, ``to_json()``,
        ``write_reports(directory)``.

    Notes
    -----
    ``max_confidence_*`` is the highest confidence level 1 - a' at which the protocol declares
    the speedup (0 when no level does): 1 - p for the median; for the mean the protocol's
    branches move with a' too (see `_max_confidence_mean`). Touati, Worms & Briais (2013),
    The Speedup-Test, Concurrency and Computation: Practice and Experience 25(10).
    """
    from fastperf.engine.parametric import sample_moments_of
    from fastperf.data.samples import check_positive, check_single_unit, group_weights, variant_samples

    _speedup_iv(baseline, candidate, alpha, large_sample, precision, proportion_confidence,
                median_method, by)
    keys = key_list(by)
    vs = variant_samples(data, variants=[baseline, candidate], by=keys, variant=variant,
                         value=value)
    check_single_unit(vs, unit)
    xs, ys = vs.samples[baseline], vs.samples[candidate]
    check_positive(xs, vs.keys, f"baseline {baseline!r}")
    check_positive(ys, vs.keys, f"candidate {candidate!r}")
    levels = _benchmark_alpha(vs, alpha)
    what = "weight column" if isinstance(weights, str) else "weight"
    w = vs.per_benchmark(group_weights(vs.table, weights, keys, vs.groups), what)
    if proportion_confidence is None:
        proportion_confidence = round(1.0 - alpha, 12) if not isinstance(alpha, str) else 0.95

    n1, n2 = xs.sizes, ys.sizes
    compared = (n1 > 0) & (n2 > 0)
    status = np.select([(n1 == 0) & (n2 == 0), n1 == 0, n2 == 0],
                       ["missing baseline and candidate", "missing baseline", "missing candidate"],
                       default="ok")
    large = (n1 > large_sample) & (n2 > large_sample)
    better = "less" if higher_is_better else "greater"

    min_x, median_x = min_median(xs)
    min_y, median_y = min_median(ys)
    moments_x, moments_y = sample_moments_of(xs), sample_moments_of(ys)
    time_x = {"mean": moments_x[2], "median": median_x, "min": min_x}
    time_y = {"mean": moments_y[2], "median": median_y, "min": min_y}
    with np.errstate(invalid="ignore", divide="ignore"):
        speedups = {f"speedup_{t}": (time_y[t] / time_x[t] if higher_is_better
                                     else time_x[t] / time_y[t]) for t in ("min", "mean", "median")}

    mean_columns, mean_notes = _mean_protocol(xs, ys, moments_x, moments_y, levels, large, better)
    median_columns, median_notes, ks_messages = _median_protocol(xs, ys, levels, large, better,
                                                                 median_method)
    columns = {**speedups, **mean_columns, **median_columns}
    for name in ("mean_significant", "median_significant"):
        columns[name] = columns[name] & compared
    columns["mean_test"] = np.where(compared, columns["mean_test"], "none")
    for name, column in columns.items():  # no figures for a benchmark not compared
        if column.dtype.kind == "f":
            columns[name] = np.where(compared, column, np.nan)
    notes = _join_notes([(c & compared, m) for c, m in mean_notes + median_notes], len(n1))
    table = keyed_table(vs.keys, {
        "n_baseline": n1, "n_candidate": n2, "n_dropped_baseline": vs.n_dropped[baseline],
        "n_dropped_candidate": vs.n_dropped[candidate], "alpha": levels,
        **{name: columns[name] for name in RESULT_COLUMNS[5:-2]},
        "status": status, "warnings": notes,
    })

    overall_speedup, overall_gain = _overall(time_x, time_y, w, compared, higher_is_better)
    summary = {
        "protocol": "speedup-test", "baseline": baseline, "candidate": candidate,
        "alpha": alpha, "higher_is_better": higher_is_better, "large_sample": large_sample,
        "median_method": median_method, "benchmarks": len(n1),
        "benchmarks_compared": int(compared.sum()),
        "missing_baseline": int((n1 == 0).sum()), "missing_candidate": int((n2 == 0).sum()),
        "dropped": int(vs.n_dropped[baseline].sum() + vs.n_dropped[candidate].sum()),
        "weights": weights if isinstance(weights, str) or weights is None else "mapping",
        "overall_speedup": overall_speedup, "overall_gain": overall_gain,
        "proportion_confidence": proportion_confidence, "precision": precision,
        "mean": _proportion(columns["mean_significant"], compared, proportion_confidence,
                            precision),
        "median": _proportion(columns["median_significant"], compared, proportion_confidence,
                              precision),
    }
    return SpeedupTestResult(table, summary, *_messages(vs.keys, notes, status,
                                                        ks_messages, summary))


def _messages(keys: pa.Table, notes: np.ndarray, status: np.ndarray,
              ks_messages: list[str], summary: dict) -> tuple[list[str], list[str]]:
    """The warning and error files: one line per benchmark with a note / not compared."""
    noted, failed = np.flatnonzero(notes != ""), np.flatnonzero(status != "ok")

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


# ---------------------------------------------------------------------------------------------
# the tool's configuration file


def _read_sample(path: Path, config: Path, line_no: int) -> np.ndarray:
    """A sample file: one value per line (blank lines and '#' comments skipped)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"{config}:{line_no}: cannot read sample file {str(path)!r}: "
                         f"{exc.strerror or exc}") from None
    values = []
    for number, line in enumerate(text.splitlines(), 1):
        item = line.split("#", 1)[0].strip()
        if not item:
            continue
        try:
            values.append(float(item))
        except ValueError:
            raise InputError(f"{path}:{number}: not a number: {item!r} (sample files hold one "
                             "value per line)") from None
    return np.asarray(values, dtype=np.float64)


def _optional_number(field: str, what: str, config: Path, line_no: int) -> float | None:
    field = field.strip()
    if not field:
        return None
    try:
        return float(field)
    except ValueError:
        raise InputError(f"{config}:{line_no}: the {what} must be a number, got {field!r}") from None


def read_speedup_config(
    path: str | os.PathLike,
    *,
    baseline: str = "initial",
    candidate: str = "optimised",
    weight: float = 1.0,
    confidence: float | None = None,
) -> pa.Table:
    """Read the Speedup-Test tool's configuration CSV into a measurement table.

    Each line names a benchmark, the file of its initial sample (X), the file of its optimised
    sample (Y), then optionally a weight and a confidence level; the sample files are plain
    text, one value per line. Fields are separated by commas (or semicolons, or tabs); lines
    starting with '#' and blank lines are skipped; a first line whose weight or sample-file
    fields are not what a data line holds is taken as a header. Relative file names are relative
    to the configuration file's folder.

    Parameters
    ----------
    path : the configuration file.
    baseline, candidate : str
        Variant names given to the initial and optimised samples.
    weight : float
        The weight of a benchmark whose line gives none.
    confidence : float or None
        The confidence level of a benchmark whose line gives none (the tool's global level).

    Returns
    -------
    pyarrow.Table
        ``benchmark``, ``variant``, ``run`` (0, 1, ... within each sample), ``value``,
        ``weight``; and ``alpha`` (1 - the confidence level) when some line gives a level or
        `confidence` is set, so that ``speedup_test(table, ..., alpha="alpha",
        weights="weight")`` uses the tool's per-benchmark settings. A line without a level then
        needs `confidence`.
    """
    config = Path(path)
    try:
        text = config.read_text(encoding="utf-8-sig")  # a byte-order mark (Excel) is no name
    except OSError as exc:
        raise InputError(f"cannot read the configuration file {str(config)!r}: "
                         f"{exc.strerror or exc}") from None
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{config}: no benchmark lines")
    delimiter = max(",;\t", key=lambda d: lines[0][1].count(d))
    rows = [(n, [f.strip() for f in fields])
            for n, fields in zip((n for n, _ in lines),
                                 csv.reader([line for _, line in lines], delimiter=delimiter))]
    folder = config.parent

    def looks_like_header(fields: list[str]) -> bool:
        """A header names its columns: a weight or level that is no number, or sample-file
        fields that are neither files nor look like file names (a typo stays an error)."""
        for field in fields[3:5]:
            if field:
                try:
                    float(field)
                except ValueError:
                    return True
        files = fields[1:3]
        return len(files) == 2 and not any((folder / f).is_file() for f in files) and not any(
            "." in f or "/" in f or "\\" in f for f in files)

    if looks_like_header(rows[0][1]):
        rows = rows[1:]
    if not rows:
        raise InputError(f"{config}: no benchmark lines after the header")
    names, variants, runs, values, weights, alphas = [], [], [], [], [], []
    seen = set()
    for line_no, fields in rows:
        if len(fields) < 3 or not all(fields[:3]):
            raise InputError(f"{config}:{line_no}: expected 'name, initial sample file, optimised "
                             f"sample file[, weight[, confidence level]]', got {fields!r}")
        name = fields[0]
        if name in seen:
            raise InputError(f"{config}:{line_no}: benchmark {name!r} is listed twice")
        seen.add(name)
        w = _optional_number(fields[3] if len(fields) > 3 else "", "weight", config, line_no)
        c = _optional_number(fields[4] if len(fields) > 4 else "", "confidence level", config,
                             line_no)
        w = weight if w is None else w
        if not (np.isfinite(w) and w > 0):
            raise InputError(f"{config}:{line_no}: the weight must be positive, got {w!r}")
        if c is not None and not (0 < c < 1):
            raise InputError(f"{config}:{line_no}: the confidence level must lie in (0, 1), "
                             f"got {c!r}")
        for variant_name, file in ((baseline, fields[1]), (candidate, fields[2])):
            sample = _read_sample(folder / file, config, line_no)
            names += [name] * sample.size
            variants += [variant_name] * sample.size
            runs.append(np.arange(sample.size, dtype=np.int64))
            values.append(sample)
            weights += [w] * sample.size
            alphas += [None if c is None else round(1.0 - c, 12)] * sample.size
    columns = {
        "benchmark": pa.array(names, pa.string()).dictionary_encode(),
        "variant": pa.array(variants, pa.string()).dictionary_encode(),
        "run": pa.array(np.concatenate(runs)),
        "value": pa.array(np.concatenate(values)),
        "weight": pa.array(weights, pa.float64()),
    }
    if confidence is not None or any(a is not None for a in alphas):
        if confidence is not None and not (0 < confidence < 1):
            raise InputError(f"confidence must lie in (0, 1), got {confidence!r}")
        default = None if confidence is None else round(1.0 - confidence, 12)
        filled = [default if a is None else a for a in alphas]
        if any(a is None for a in filled):
            raise InputError(f"{config}: some lines give a confidence level and others do not; "
                             "pass confidence= for the lines without one")
        columns["alpha"] = pa.array(filled, pa.float64())
    return pa.table(columns)
