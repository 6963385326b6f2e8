"""SPARC relevance testing (seed 003): per benchmark a difference test and a TOST equivalence
test, combined into one of four conclusions, with family-wise error control.

SPARC (Tullos, Graham, Jordan & Patel 2021, "SPARC: statistical performance analysis with
relevance conclusions", IEEE Open J. Comput. Soc. 2, 117-129): per benchmark, a difference test
(H0+: the ratios are centred on 1) and a TOST equivalence test (H01-: ratio >= 1 + delta,
H02-: ratio <= 1 - delta, both rejected for equivalence), combined by Table I into one of four
conclusions; the levels are corrected for the family of all tests; an optional overall
signed-rank test over the median ratios of the benchmarks with a relevant difference.

Every test is the batched one of `fastperf.engine.ranks` (signed-rank, rank-sum), through
`fastperf.protocols.relevance_common`: one call per hypothesis for all benchmarks; Holm's
correction comes from `fastperf.stats.multitest`.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.chunked import run_planned, visible
from fastperf.data.validation import check_choice, check_unit_interval
from fastperf.io.tables import key_list, require_columns
from fastperf.protocols.relevance_chunks import check_relevance_table
from fastperf.protocols.relevance_common import (
    SCALES, not_tested_warnings, check_comparison, equivalence_bounds, ratio_name,
)
from fastperf.protocols.sparc_parts import (
    design_warnings, family_levels, min_runs_to_conclude, overall_tests, sparc_stage,
)
from fastperf.stats.multitest import fwer_bound
from fastperf.results.base import BenchmarkResult
from fastperf.results.render import render_text

__all__ = ["sparc", "SparcResult", "CONCLUSIONS", "CORRECTIONS", "SCALES", "SPARC_COLUMNS",
           "SPARC_TEXT_COLUMNS", "sparc_plan", "sparc_stage", "sparc_finish"]

#: SPARC's four conclusions (Table I), in the order (reject difference?, reject equivalence?) =
#: (yes, no), (yes, yes), (no, yes), (no, no).
CONCLUSIONS = ("relevant difference", "trivial difference", "equivalence", "indeterminate")
#: The family-wise corrections of `sparc`.
CORRECTIONS = ("bonferroni", "holm", "none")

#: Columns of `SparcResult.to_text`'s short table (after the keys).
SPARC_TEXT_COLUMNS = ["n", "ratio_median", "pvalue_difference", "pvalue_equivalence",
                      "conclusion", "status"]
#: Per-benchmark columns of `sparc` (after the keys); a key column may not take one of these names.
SPARC_COLUMNS = [
    "candidate", "n", "n_zero", "n_unmatched", "n_dropped", "n_duplicated", "n_baseline",
    "n_candidate", "n_dropped_baseline", "n_dropped_candidate", "median_baseline",
    "median_candidate", "ratio_median", "statistic", "pvalue_difference", "z_difference",
    "pvalue_upper", "z_upper", "pvalue_lower", "z_lower", "pvalue_equivalence", "method",
    "reject_difference", "reject_equivalence", "conclusion", "status",
]


class SparcResult(BenchmarkResult):
    """Result of `sparc`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per benchmark (per candidate and benchmark when several candidates are given),
        keys first; the columns are listed in `sparc`.
    overall : pyarrow.Table or None
        One row per candidate: the overall signed-rank test over the median ratios of the
        benchmarks concluded "relevant difference" (None with ``overall=False``).
    summary : dict
        The design ("paired" or "unpaired"), margin and equivalence bounds, alpha, correction,
        ``tests`` (m, the size of the family), ``alpha_corrected``, ``fwer_uncorrected``
        (1 - (1 - alpha)^m), counts per conclusion and ``min_runs_to_conclude``.
    warnings : list of str
    """

    def report_view(self):  # noqa: D102 (see Result.report_view)
        from fastperf.protocols.report_views import sparc_view

        return sparc_view(self)

    extra_tables = ("overall",)

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 overall: pa.Table | None):
        super().__init__(table, summary, warnings)
        self.overall = overall

    def extra_title(self, name: str) -> str:
        """The heading of the extra table `name` in the renderings.

        Parameters
        ----------
        name : str
            The extra table's attribute name ("overall").

        Returns
        -------
        str
            What the overall table tests.

        Notes
        -----
        The overall test is SPARC's section III-C (Tullos, Graham, Jordan & Patel 2021).
        """
        return "overall test (median ratios of the benchmarks with a relevant difference)"

    def header(self) -> str:
        """The design in words: what was compared, the margin, the family and its level.

        Returns
        -------
        str
            Three lines: the comparison and the equivalence margin; the correction with the
            per-test level and the uncorrected family-wise error bound 1 - (1 - alpha)^m; the
            counts of each conclusion.

        Notes
        -----
        Tullos, Graham, Jordan & Patel (2021), SPARC, eq. 2 (the family-wise error of m
        uncorrected tests) and Table I (the conclusions).
        """
        s = self.summary
        low, high = s["equivalence_bounds"]
        counts = ", ".join(f"{s['conclusions'][c]} {c}" for c in CONCLUSIONS)
        level = {
            "bonferroni": f"Bonferroni over m = {s['tests']} tests: alpha {s['alpha']} -> "
                          f"{s['alpha_corrected']:.6g} per test",
            "holm": f"Holm over m = {s['tests']} tests at alpha {s['alpha']}: first step and "
                    f"overall test at {s['alpha_corrected']:.6g}",
            "none": f"no correction over m = {s['tests']} tests: alpha {s['alpha']} per test",
        }[s["adjust"]]
        return "\n".join([
            f"SPARC: {', '.join(map(repr, s['candidates']))} against {s['baseline']!r} "
            f"({s['design']} runs, ratio = {s['ratio']}, tests on the {s['scale']} scale), "
            f"equivalence margin [{low:g}, {high:g}]",
            f"{level}; family-wise error without correction <= {s['fwer_uncorrected']:.5f}",
            f"Benchmarks: {counts}; {s['rows_not_ok']} not tested",
        ])

    def to_text(self) -> str:
        """The header, a short per-benchmark table, the overall test and the warnings.

        Returns
        -------
        str
            Aligned plain text; the per-benchmark table shows the keys and
            `SPARC_TEXT_COLUMNS` (``.benchmarks`` has every column).

        Notes
        -----
        A rendering: no formula.
        """
        keys = [c for c in self.benchmarks.column_names
                if c not in SPARC_COLUMNS or c == "candidate"]
        out = self.header() + "\n\n" + render_text(self.benchmarks.select(keys + SPARC_TEXT_COLUMNS))
        if self.overall is not None:
            out += f"\n\n{self.extra_title('overall')}:\n" + render_text(self.overall)
        if self.warnings:
            out += "\n\nwarnings:\n" + "\n".join(f"- {w}" for w in self.warnings)
        return out

    def to_markdown(self) -> str:
        """Markdown: the header as a code block, then the tables and the warnings.

        Returns
        -------
        str
            The header in a fenced block followed by `Result.to_markdown`'s rendering.

        Notes
        -----
        A rendering: no formula.
        """
        return "```\n" + self.header() + "\n```\n\n" + super().to_markdown()


def _sparc_iv(margin, alpha, adjust, scale):
    """The equivalence bounds and alpha; an `InputError` for a bad value, correction or scale."""
    bounds, log_bounds = equivalence_bounds(margin)
    alpha = check_unit_interval(alpha, "alpha")
    check_choice(adjust, "adjust", CORRECTIONS)
    check_choice(scale, "scale", SCALES)
    return bounds, log_bounds, alpha


def _conclusions(reject_diff, reject_eq, tested) -> np.ndarray:
    """Table I of the paper; None where the benchmark was not tested."""
    code = np.where(reject_diff, np.where(reject_eq, 1, 0), np.where(reject_eq, 2, 3))
    out = np.array(CONCLUSIONS, dtype=object)[code]
    out[~tested] = None
    return out


def sparc(
    data: Any,
    *,
    baseline: str,
    candidate: str | Sequence[str],
    by: str | Sequence[str] = "benchmark",
    variant: str = "variant",
    value: str = "value",
    pair: str | None = "run",
    margin: float | tuple[float, float] = 0.05,
    alpha: float = 0.05,
    adjust: str = "bonferroni",
    method: str = "auto",
    overall: bool = True,
    higher_is_better: bool = False,
    min_runs: int = 5,
    unit: str | None = "unit",
    scale: str = "log",
) -> SparcResult:
    """SPARC relevance testing of every benchmark: relevant difference, trivial difference,
    equivalence or indeterminate (Tullos, Graham, Jordan & Patel 2021, Table I).

    Per benchmark, with the ratio r = baseline / candidate (times; candidate / baseline when
    `higher_is_better`), so that r > 1 means the candidate is better:

    - paired runs (`pair` names the column matching them): r_i = x_i / y_i per run, and
      Wilcoxon signed-rank tests of the log r_i (``scale="log"``, the default): the
      difference test, two-sided, against log 1 = 0; the equivalence test (TOST), two
      one-sided tests rejecting H01: r >= 1 + delta (the log r_i - log(1 + delta) tend to be
      negative) and H02: r <= 1 - delta. ``scale="ratio"`` tests r_i - 1, r_i - (1 + delta) and
      r_i - (1 - delta) instead, the paper's arithmetic: under no change r - 1 is right-skewed
      (a run twice as fast gives +1, twice as slow -0.5), so the signed-rank test, which
      assumes differences symmetric about their centre, rejects a true null too often (type I
      error up to 23% at a nominal 5% with timer ties; see docs/relevance.md); log r is
      symmetric whenever the two variants' noise is the same;
    - unpaired runs (``pair=None``): Mann-Whitney rank-sum tests on the logs: log x against log
      y for the difference, and against log y + log(1 +/- delta) for the two equivalence nulls.

    Each test is continuity-corrected when asymptotic (the paper's z = (W - n(n+1)/4 -
    1/2) / sqrt(n(n+1)(2n+1)/24): 30 ratios on one side of 1 give z = 4.772) and exact,
    conditional on ties, where `method` says so. The equivalence test's p is the larger of the
    two one-sided ones. The levels are corrected for the family of 2 tests per benchmark plus
    the overall tests (`adjust`).

    Parameters
    ----------
    data : measurement table (Arrow object or path(s)).
    baseline : str
        The reference variant (X).
    candidate : str or sequence of str
        The variant compared (Y), or several, each compared with the baseline in one family of
        tests (the paper's two comparisons of 8 benchmarks: m = 34); the table then starts with
        a ``candidate`` column.
    by, variant, value : column names. Values must be positive.
    pair : str or None
        The column matching a baseline run with a candidate run (runs on one side only are
        excluded and counted; null pairs dropped); None for independent runs.
    margin : float or (float, float)
        delta in (0, 1): the equivalence interval of the ratio is [1 - delta, 1 + delta]; or
        the bounds (low, high) themselves, 0 < low < 1 < high.
    alpha : float
        The family's level.
    adjust : {"bonferroni", "holm", "none"}
        See `_family_levels`: Bonferroni tests each at alpha / m; Holm steps down over the
        benchmarks' tests (the overall tests keep alpha / m); "none" tests each at alpha.
    method : {"auto", "exact", "asymptotic"}
        As `fastperf.wilcoxon` / `fastperf.mannwhitneyu`: "auto" is exact (conditional on ties)
        where cheap.
    overall : bool
        Run (and count in m) the overall test of each candidate.
    higher_is_better : bool
        Throughput-like metrics: r = candidate / baseline.
    min_runs : int
        Fewest pairs (paired) or runs on each side (unpaired) for a benchmark to be tested;
        fewer gets status "too few runs" and no conclusion. The default 5 is the fewest with
        which an exact one-sided test can reach p < 0.05.
    unit : str or None
        When the table has this column, each benchmark's values must share one unit.
    scale : {"log", "ratio"}
        The scale of the paired tests and of the overall test: "log" (default) tests the logs
        of the ratios (and of the relevant benchmarks' median ratios) against 0 and the logs of
        the equivalence bounds; "ratio" tests r - 1, r - (1 +/- delta) as the paper does (its
        figures reproduce with it). Unpaired rank-sum tests are the same on both scales
        (ranks do not change under the log).

    Returns
    -------
    SparcResult
        ``.benchmarks``: keys, then paired: ``n`` (pairs), ``n_zero`` (ratios exactly 1),
        ``n_unmatched``, ``n_dropped``, ``n_duplicated``; unpaired: ``n`` (the smaller side),
        ``n_baseline``, ``n_candidate``, ``n_dropped_baseline``, ``n_dropped_candidate``; then
        ``median_baseline``, ``median_candidate``, ``ratio_median`` (paired: exp of the median
        log r_i on the log scale, which is the median r_i for an odd n and the geometric mean of
        the two middle ones for an even n; with ``scale="ratio"`` the median of the
        r_i; unpaired: the ratio of the medians), ``statistic`` (T+ of log r_i, or of r_i - 1
        on the ratio scale; unpaired: U of
        the ratio's numerator), ``pvalue_difference``, ``z_difference`` (> 0: ratio above 1),
        ``pvalue_upper``, ``z_upper`` (H01), ``pvalue_lower``, ``z_lower`` (H02; the z's are
        oriented towards equivalence and NaN where the test was exact),
        ``pvalue_equivalence``, ``method``, ``reject_difference``, ``reject_equivalence``,
        ``conclusion``, ``status``. ``.overall``, ``.summary``, ``.warnings``.

    Raises
    ------
    InputError
        A margin or alpha outside (0, 1), an unknown correction, scale or method, a missing or
        repeated variant, a bad `min_runs`, a key column named like an output column, a missing
        `pair` column, non-positive values or mixed units.

    Notes
    -----
    J. C. Tullos, S. R. Graham, J. D. Jordan and P. R. Patel, "SPARC: Statistical Performance
    Analysis With Relevance Conclusions", IEEE Open Journal of the Computer Society 2 (2021),
    117-129, doi:10.1109/OJCS.2021.3060658 (seed 003): the signed-rank z with continuity
    correction (eq. 1), the family of m = 2 (benchmarks tested) + (overall tests) and its
    uncorrected family-wise error 1 - (1 - alpha)^m (eq. 2), Bonferroni's alpha / m, the TOST
    equivalence test (Schuirmann 1987) and Table I's four conclusions. Holm's step-down is
    Holm (1979), Scand. J. Statist. 6, 65-70. The signed-rank test assumes differences
    symmetric about their centre (Wilcoxon 1945; Hollander, Wolfe & Chicken 2014, ch. 3.1),
    which log ratios satisfy under no change and r - 1 does not: hence ``scale="log"``.
    """
    side: dict[str, Any] = {}
    result = run_planned(
        data, lambda t: sparc_plan(
            t, baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
            pair=pair, margin=margin, alpha=alpha, adjust=adjust, method=method,
            overall=overall, higher_is_better=higher_is_better, min_runs=min_runs, unit=unit,
            scale=scale),
        sparc_stage, sparc_finish, values=[value], side=side, function="sparc",
        keys=[by, variant, unit])
    result.runs = side.get("runs")
    return result


def sparc_plan(table: pa.Table, *, baseline, candidate, by, variant, value, pair, margin, alpha,
               adjust, method, overall, higher_is_better, min_runs, unit, scale) -> dict:
    """The plan of `sparc` (`fastperf.data.chunked`): its checked options and key columns.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    baseline, candidate, by, variant, value, pair, margin, alpha, adjust, method, overall, \
higher_is_better, min_runs, unit, scale
        See `sparc`.

    Returns
    -------
    dict
        The options, ``keys`` (the benchmark key columns, also the ``partition``), and the
        ``order``: the keys, after a ``candidate`` column (in the order given) when the
        candidates were given as a list.
    """
    bounds, log_bounds, alpha = _sparc_iv(margin, alpha, adjust, scale)
    # one name of any type (a string, a number, a date) or a list of names; check_comparison
    # names a missing or repeated one
    listed = isinstance(candidate, (list, tuple))
    candidates = list(candidate) if listed else [candidate]
    min_runs = check_comparison("sparc", baseline, candidates, method, by, min_runs,
                                SPARC_COLUMNS)
    keys = key_list(by)
    if pair is not None:
        require_columns(table, [pair], hint="pass pair=None for unpaired (independent) runs")
    check_relevance_table(table, keys, variant, value, [baseline, *candidates],
                          [pair] if pair is not None else [])
    plan = {
        "baseline": baseline, "candidates": candidates, "listed": listed, "keys": keys,
        "variant": variant, "value": value, "pair": pair, "margin": margin, "bounds": bounds,
        "log_bounds": log_bounds, "alpha": alpha, "adjust": adjust, "method": method,
        "overall": bool(overall), "higher_is_better": higher_is_better, "min_runs": min_runs,
        "unit": unit, "scale": scale, "partition": keys,
        "order": (["candidate"] if listed else []) + keys,
    }
    if listed:
        plan["order_values"] = {"candidate": candidates}
    return plan


def sparc_finish(rows: pa.Table, plan: dict, info: dict) -> SparcResult:
    """The result of `sparc` from its rows (`fastperf.data.chunked`): the family-wise
    correction over every benchmark's tests, the conclusions, the overall tests, the summary.

    Parameters
    ----------
    rows : pyarrow.Table
        `sparc_stage` rows of every benchmark, in output order.
    plan : dict
        `sparc_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    SparcResult
    """
    def column(name):
        return rows.column(name).to_numpy(zero_copy_only=False)

    candidates, paired = plan["candidates"], plan["pair"] is not None
    status = column("status")
    tested = status == "ok"
    reject_diff, reject_eq, m, per_test = family_levels(
        column("pvalue_difference"), column("pvalue_equivalence"), tested,
        len(candidates) if plan["overall"] else 0, plan["alpha"], plan["adjust"])
    conclusion = _conclusions(reject_diff, reject_eq, tested)
    table = visible(rows)
    for name, values in (("reject_difference", pa.array(reject_diff)),
                         ("reject_equivalence", pa.array(reject_eq)),
                         ("conclusion", pa.array(conclusion, pa.string()))):
        table = table.set_column(table.column_names.index(name), name, values)
    overall_table = None
    if plan["overall"]:
        overall_table = overall_tests(column("ratio_median"), column("__log_median"),
                                      conclusion == CONCLUSIONS[0], column("__comparison"),
                                      candidates, plan["method"], per_test, plan["scale"])
    alpha = plan["alpha"]
    summary = {
        "function": "sparc", "design": "paired" if paired else "unpaired",
        "pair": plan["pair"], "baseline": plan["baseline"], "candidates": candidates,
        "ratio": ratio_name(plan["higher_is_better"]),
        "higher_is_better": plan["higher_is_better"], "scale": plan["scale"],
        "margin": plan["margin"], "equivalence_bounds": plan["bounds"], "alpha": alpha,
        "adjust": plan["adjust"], "method": plan["method"], "tests": m,
        "alpha_corrected": per_test, "fwer_uncorrected": float(fwer_bound(alpha, m)),
        "conclusions": {c: int(np.sum(conclusion == c)) for c in CONCLUSIONS},
        "min_runs_to_conclude": min_runs_to_conclude(per_test, paired),
    }
    return SparcResult(table, summary, design_warnings(rows, plan) + not_tested_warnings(status),
                       overall_table)
