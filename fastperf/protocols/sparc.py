"""SPARC relevance testing (seed 003): per benchmark a difference test and a TOST equivalence
test, combined into one of four conclusions, with family-wise error control.

SPARC (Tullos, Graham, Jordan & Patel 2021, "SPARC: statistical performance analysis with
relevance conclusions", IEEE Open J. Comput. Soc. 2, 117-129): per benchmark, a difference test
(H0+: the ratios are centred on 1) and a TOST equivalence test (H01-: ratio >= 1 + delta,
H02-: ratio <= 1 - delta, both rejected for equivalence), combined by Table I into one of four
conclusions; the levels are corrected for the family of all tests; an optional overall
signed-rank test over the median ratios of the benchmarks with a relevant difference.

Every test is the batched one of `fastperf.engine.ranks` (signed-rank, rank-sum), through
`fastperf.protocols.relevance`: one call per hypothesis for all benchmarks; Holm's
correction comes from `fastperf.stats.multitest`.

The module reads as the call runs (`fastperf.data.chunked`): `sparc` and its plan; the stage,
whose row holds every figure of one (candidate, benchmark) that depends on that benchmark alone
(the counts, medians, ratio, the three tests and the status) with the two designs' samples and
tests; the finish, which waits for every row for the family-wise correction and what follows
from it (the rejections, the conclusions, the overall tests). Hidden columns carry the
comparison's index and the median log ratio to the finish.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.levels import Structure, check_structure_arguments
from fastperf.data.samples import (
    PairedSamples, check_positive, check_single_unit, chunk_paired_samples,
    chunk_variant_samples, concat_samples, sample_medians,
)
from fastperf.data.validation import check_choice, check_flag, check_unit_interval
from fastperf.engine.ranks import log_values
from fastperf.io.tables import key_list, require_columns
from fastperf.protocols.relevance import (
    SCALES, check_comparison, check_relevance_table, equivalence_bounds, joined_methods,
    relevance_structure,
    log_ratios, min_runs_to_conclude, not_tested_warnings, rank_sum_tests, ratio_name,
    ratio_out_of_range, row_names, signed_rank_tests,
)
from fastperf.protocols.flags import (check_warmup, tested_table, finish_flags, flags_footer,
                                      stage_flags, with_columns_after)
from fastperf.protocols.report_views import sparc_view
from fastperf.results.base import BenchmarkResult, dropped_warnings, keyed_table
from fastperf.results.figures import ReportView, Runs
from fastperf.results.render import render_text, text_lines
from fastperf.stats.forms import unit_means
from fastperf.stats.multitest import fwer_bound, multipletests

__all__ = ["sparc", "SparcResult", "CONCLUSIONS", "CORRECTIONS", "SCALES", "SPARC_COLUMNS",
           "SPARC_TEXT_COLUMNS", "SparcOptions", "SparcPlan", "sparc_options", "sparc_plan",
           "sparc_stage", "sparc_finish"]

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
    "reject_difference", "reject_equivalence", "conclusion", "flags", "status",
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

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return sparc_view(self)

    extra_tables = ("overall",)
    overall: pa.Table | None

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 overall: pa.Table | None):
        super().__init__(table, summary, warnings, overall=overall)

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
        footer = flags_footer(self.summary, "benchmarks")
        if footer:
            out += "\n\n" + footer
        if self.warnings:
            out += "\n\nwarnings:\n" + text_lines(self.warnings)
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
        footer = flags_footer(self.summary, "benchmarks")
        return ("```\n" + self.header() + "\n```\n\n" + super().to_markdown()
                + (f"\n\n{footer}\n" if footer else ""))


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
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
    warmup: str | None = None,
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
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        the table has (``build``, ``process``); ``[]`` or ``"none"`` asks for the flat
        analysis, which takes every value as independent (today's numbers, bit for bit). With
        levels, each benchmark's variants are first collapsed to the means of their independent
        units (`fastperf.stats.forms.unit_means`), and the tests run on them.
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block. The paired design of nested data
        pairs the variants' unit means of each block value (not `pair`); nested levels
        without a block are an `InputError`.
    warmup : None or "auto"
        None tests every value; ``"auto"`` first drops the initial transient found in each
        benchmark and variant's processes (`fastperf.compare`'s ``warmup``), adds the columns
        ``warmup_baseline`` / ``warmup_candidate`` and ``summary["warmup"]``, and warns.

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
        ``conclusion``, ``flags`` (the run diagnostics of either side, `fastperf.compare`'s),
        ``status``. ``.overall``, ``.summary``, ``.warnings``.

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
    options = sparc_options(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value, pair=pair,
        margin=margin, alpha=alpha, adjust=adjust, method=method, overall=overall,
        higher_is_better=higher_is_better, min_runs=min_runs, unit=unit, scale=scale,
        levels=levels, block=block, warmup=warmup)
    side: dict[str, Any] = {}
    result = run_planned(data, partial(sparc_plan, options=options), sparc_stage, sparc_finish,
                         values=[value], side=side, function="sparc", keys=[by, variant, unit])
    result.runs = side.get("runs")
    return result


@dataclass(frozen=True)
class SparcOptions:
    """The options of `sparc`, checked (`sparc_options`); see `sparc` for each.

    Attributes
    ----------
    candidates : list
        The candidate variant(s), as a list.
    listed : bool
        Whether `candidate` was given as a list (the table then has a ``candidate`` column).
    bounds, log_bounds : tuple of float
        The equivalence bounds of the margin, on the ratio and on its log.
    """

    baseline: Any
    candidates: list
    listed: bool
    by: Any
    variant: str
    value: str
    pair: str | None
    margin: Any
    bounds: tuple
    log_bounds: tuple
    alpha: float
    adjust: str
    method: str
    overall: bool
    higher_is_better: bool
    min_runs: int
    unit: str | None
    scale: str
    levels: tuple[str, ...] | None = None
    block: str | None = None
    warmup: str | None = None


@dataclass(frozen=True, kw_only=True)
class SparcPlan(Plan):
    """The plan of `sparc` (`sparc_plan`): the options, the benchmark's key columns (also the
    ``partition``), the `Structure` used (`fastperf.protocols.relevance.relevance_structure`)
    and the column the paired design pairs on (the options' `pair`, or the block of nested
    data; None unpaired)."""

    options: SparcOptions
    keys: list[str]
    structure: Structure = Structure()
    pair: str | None = None


def sparc_options(*, baseline, candidate, by, variant, value, pair, margin, alpha, adjust,
                  method, overall, higher_is_better, min_runs, unit, scale, levels=None,
                  block=None, warmup=None) -> SparcOptions:
    """The options of `sparc`, checked (those that need no table).

    Parameters
    ----------
    baseline, candidate, by, variant, value, pair, margin, alpha, adjust, method, overall, \
higher_is_better, min_runs, unit, scale, levels, block, warmup
        See `sparc`.

    Returns
    -------
    SparcOptions
    """
    bounds, log_bounds, alpha = _sparc_iv(margin, alpha, adjust, scale)
    levels, block = check_structure_arguments(levels, block)
    warmup = check_warmup(warmup)
    # one name of any type (a string, a number, a date) or a list of names; check_comparison
    # names a missing or repeated one
    listed = isinstance(candidate, (list, tuple))
    candidates = list(candidate) if listed else [candidate]
    min_runs = check_comparison("sparc", baseline, candidates, method, by, min_runs,
                                SPARC_COLUMNS, value, variant, unit)
    return SparcOptions(
        baseline=baseline, candidates=candidates, listed=listed, by=by, variant=variant,
        value=value, pair=pair, margin=margin, bounds=bounds, log_bounds=log_bounds,
        alpha=alpha, adjust=adjust, method=method, overall=check_flag(overall, "overall"),
        higher_is_better=check_flag(higher_is_better, "higher_is_better"), min_runs=min_runs,
        unit=unit, scale=scale,
        levels=levels, block=block, warmup=warmup)


def sparc_plan(table: pa.Table, options: SparcOptions) -> SparcPlan:
    """The plan of `sparc` (`fastperf.data.chunked`): the table checked, its key columns.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : SparcOptions
        `sparc_options`.

    Returns
    -------
    SparcPlan
        ``keys`` (the benchmark key columns, also the ``partition``), and the ``order``: the
        keys, after a ``candidate`` column (in the order given) when the candidates were
        given as a list.
    """
    keys = key_list(options.by)
    structure, pair = relevance_structure(table, keys, options.variant, options.value,
                                          options.unit, options.pair, options.levels,
                                          options.block)
    if pair is not None and structure.flat:
        require_columns(table, [pair], hint="pass pair=None for unpaired (independent) runs")
    check_relevance_table(table, keys, options.variant, options.value,
                          [options.baseline, *options.candidates],
                          [pair] if pair is not None else [])
    listed = options.listed
    return SparcPlan(options=options, keys=keys, structure=structure, pair=pair,
                     partition=tuple(keys),
                     order=(("candidate",) if listed else ()) + tuple(keys),
                     order_values={"candidate": tuple(options.candidates)} if listed else {})


def paired_design(table: pa.Table, plan: SparcPlan):
    """Per comparison, the pairs matched by the plan's ``pair`` column.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : SparcPlan
        `sparc_plan`.

    Returns
    -------
    keys_parts : list of pyarrow.Table
        The benchmarks' keys, once per candidate.
    ratios, logs : Samples
        The ratios r_i of the pairs and their logs, every comparison one after the other.
    median_x, median_y : numpy.ndarray
        The medians of the baseline's and the candidate's paired values.
    counts : dict
        ``n_unmatched``, ``n_dropped``, ``n_duplicated`` per row.

    Notes
    -----
    One pairing pass per candidate, every benchmark at once; r_i = x_i / y_i (y_i / x_i when
    higher is better), its log by `fastperf.protocols.relevance.log_ratios`.
    """
    options = plan.options
    baseline, higher = options.baseline, options.higher_is_better
    assert plan.pair is not None  # the paired design: its caller checked
    ratios, logs, medians_x, medians_y, counts, keys_parts = [], [], [], [], [], []
    for name in options.candidates:
        pairs = chunk_paired_samples(table, baseline, name, plan.keys, options.variant,
                                     options.value, plan.pair)
        check_single_unit(pairs, options.unit)
        check_positive(pairs.baseline, pairs.keys, f"baseline {baseline!r}")
        check_positive(pairs.candidate, pairs.keys, f"candidate {name!r}")
        num, den = (pairs.candidate, pairs.baseline) if higher else (pairs.baseline, pairs.candidate)
        with np.errstate(over="ignore", under="ignore"):  # a ratio past float64: its log is kept
            ratios.append(Samples(num.values / den.values, num.offsets))
        logs.append(Samples(log_ratios(num.values, den.values), num.offsets))
        medians_x.append(sample_medians(pairs.baseline))
        medians_y.append(sample_medians(pairs.candidate))
        counts.append({"n_unmatched": pairs.n_unmatched, "n_dropped": pairs.n_dropped,
                       "n_duplicated": pairs.n_duplicated})
        keys_parts.append(pairs.keys)
    columns = {k: np.concatenate([c[k] for c in counts]) for k in counts[0]}
    return (keys_parts, concat_samples(ratios), concat_samples(logs), np.concatenate(medians_x),
            np.concatenate(medians_y), columns)


def unpaired_design(table: pa.Table, plan: SparcPlan):
    """Per comparison, the two sides' samples (numerator, denominator of the ratio), their
    medians and counts, from one grouping pass over all the variants.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : SparcPlan
        `sparc_plan`.

    Returns
    -------
    keys_parts : list of pyarrow.Table
        The benchmarks' keys, once per candidate.
    num, den : Samples
        The ratio's numerator and denominator samples, every comparison one after the other.
    median_x, median_y : numpy.ndarray
        The baseline's and the candidates' medians.
    counts : dict
        ``n`` (the smaller side), ``n_baseline``, ``n_candidate``, ``n_dropped_baseline``,
        ``n_dropped_candidate``.

    Notes
    -----
    Data plumbing: no formula.
    """
    options = plan.options
    baseline, candidates = options.baseline, options.candidates
    vs = chunk_variant_samples(table, [baseline, *candidates], plan.keys, options.variant,
                               options.value)
    check_single_unit(vs, options.unit)
    xs = vs.samples[baseline]
    check_positive(xs, vs.keys, f"baseline {baseline!r}")
    for name in candidates:
        check_positive(vs.samples[name], vs.keys, f"candidate {name!r}")
    ys = concat_samples([vs.samples[name] for name in candidates])
    median_x = np.tile(sample_medians(xs), len(candidates))  # the baseline's medians, once
    xs = concat_samples([xs] * len(candidates))
    n_x, n_y = xs.sizes, ys.sizes
    dropped_x = np.tile(vs.n_dropped[baseline], len(candidates))
    dropped_y = np.concatenate([vs.n_dropped[name] for name in candidates])
    counts = {"n": np.minimum(n_x, n_y), "n_baseline": n_x, "n_candidate": n_y,
              "n_dropped_baseline": dropped_x, "n_dropped_candidate": dropped_y}
    num, den = (ys, xs) if options.higher_is_better else (xs, ys)
    return [vs.keys] * len(candidates), num, den, median_x, sample_medians(ys), counts


def paired_tests(ratios: Samples, logs: Samples, bounds, log_bounds, scale: str, method: str):
    """The three signed-rank tests of the ratios: against 1 (two-sided), the upper bound
    (less), the lower bound (greater); on the logs (`logs`, against 0 and the bounds' logs)
    when `scale` is "log".

    Parameters
    ----------
    ratios, logs : Samples
        The ratios of the pairs and their logs.
    bounds, log_bounds : (float, float)
        The equivalence interval and its logs.
    scale : {"log", "ratio"}
    method : {"auto", "exact", "asymptotic"}

    Returns
    -------
    tuple
        p and z of the difference, upper and lower tests, T+ of the difference test, the
        methods used, the zero differences dropped.

    Notes
    -----
    Wilcoxon signed-rank tests as SPARC (Tullos, Graham, Jordan & Patel 2021, eq. 1 and
    section III-B: the TOST nulls H01: r >= 1 + delta, H02: r <= 1 - delta).
    """
    if scale == "log":
        values = logs.values
        centres = (0.0, log_bounds[1], log_bounds[0])
    else:
        values = ratios.values
        centres = (1.0, bounds[1], bounds[0])

    def shifted(centre):
        return Samples(values - centre, ratios.offsets)

    p_diff, z_diff, t_plus, method_diff, n_zero = signed_rank_tests(shifted(centres[0]),
                                                                    "two-sided", method)
    p_up, z_up, _, method_up, _ = signed_rank_tests(shifted(centres[1]), "less", method)
    p_low, z_low, _, method_low, _ = signed_rank_tests(shifted(centres[2]), "greater", method)
    return (p_diff, z_diff, p_up, z_up, p_low, z_low, t_plus,
            joined_methods(method_diff, method_up, method_low), n_zero)


def unpaired_tests(num: Samples, den: Samples, log_bounds, method: str):
    """The three rank-sum tests of the logs: numerator against denominator (two-sided), and
    against the denominator shifted by log(high) (less) and log(low) (greater); ranks do not
    depend on the scale.

    Parameters
    ----------
    num, den : Samples
        The ratio's numerator and denominator samples.
    log_bounds : (float, float)
        The logs of the equivalence interval.
    method : {"auto", "exact", "asymptotic"}

    Returns
    -------
    tuple
        p and z of the difference, upper and lower tests, U of the numerator, the methods.

    Notes
    -----
    Mann & Whitney (1947) rank-sum tests with the continuity correction, as SPARC's unpaired
    design (Tullos, Graham, Jordan & Patel 2021).
    """
    a, b = log_values(num, "numerator"), log_values(den, "denominator")
    p_diff, z_diff, u, method_diff = rank_sum_tests(a, b, 0.0, "two-sided", method)
    p_up, z_up, _, method_up = rank_sum_tests(a, b, log_bounds[1], "less", method)
    p_low, z_low, _, method_low = rank_sum_tests(a, b, log_bounds[0], "greater", method)
    return (p_diff, z_diff, p_up, z_up, p_low, z_low, u,
            joined_methods(method_diff, method_up, method_low))


def stack_keys(keys_parts: list[pa.Table], candidates: list, listed: bool) -> pa.Table:
    """The key tables of the comparisons, one after the other, with a leading ``candidate``
    column when the candidates were given as a list (`listed`).

    Parameters
    ----------
    keys_parts : list of pyarrow.Table
    candidates : list
    listed : bool

    Returns
    -------
    pyarrow.Table
    """
    if not listed:
        return keys_parts[0]
    names = np.repeat(np.array(candidates, dtype=object), [len(k) for k in keys_parts]).tolist()
    stacked = pa.concat_tables(keys_parts)
    text = all(isinstance(n, str) for n in candidates)
    return stacked.add_column(0, "candidate", pa.array(names, pa.string() if text else None))


def sparc_stage(table: pa.Table, plan: SparcPlan, side: dict | None = None) -> StageRows:
    """The rows of `fastperf.sparc` for the benchmarks of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : SparcPlan
        `sparc_plan`.
    side : dict or None
        Receives ``"runs"`` (unpaired runs, for the report's figures).

    Returns
    -------
    StageRows
        One row per (candidate, benchmark): every column of `fastperf.sparc`'s table, the
        rejections and conclusion left for the finish; in ``extra``, ``comparison`` (the
        candidate's index) and ``log_median`` (the median log ratio).
    """
    options = plan.options
    candidates, scale = options.candidates, options.scale
    table, measured = tested_table(table, options.warmup, plan.keys, options.variant,
                                   options.value, plan.structure)
    tested_measurements = table
    table = unit_means(table, plan.keys, options.variant, options.value, plan.structure,
                       [options.unit])
    if options.pair is not None:
        keys_parts, ratios, logs, median_x, median_y, counts = paired_design(table, plan)
        n = ratios.sizes
        p_diff, z_diff, p_up, z_up, p_low, z_low, statistic, method_used, n_zero = \
            paired_tests(ratios, logs, options.bounds, options.log_bounds, scale, options.method)
        if scale == "log":  # the median on the test's scale: symmetric under swapping the sides
            log_median = sample_medians(logs)
            with np.errstate(over="ignore"):
                ratio_median = np.exp(log_median)
        else:
            ratio_median = sample_medians(ratios)
            log_median = np.full(n.shape, np.nan)
        count_columns = {"n": n, "n_zero": n_zero, **counts}
    else:
        keys_parts, num, den, median_x, median_y, count_columns = unpaired_design(table, plan)
        n = count_columns["n"]
        p_diff, z_diff, p_up, z_up, p_low, z_low, statistic, method_used = \
            unpaired_tests(num, den, options.log_bounds, options.method)
        higher = options.higher_is_better
        num_median, den_median = (median_y, median_x) if higher else (median_x, median_y)
        if isinstance(side, dict):
            side["runs"] = Runs(options.baseline,
                                candidates[0] if len(candidates) == 1 else "candidate",
                                *((den, num) if higher else (num, den)))
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            ratio_median = num_median / den_median
        log_median = log_ratios(num_median, den_median)

    comparison = np.repeat(np.arange(len(candidates)), [len(k) for k in keys_parts])
    min_runs = options.min_runs
    status = np.where(n == 0, "no runs to compare",
                      np.where(n < min_runs, f"too few runs (fewer than {min_runs})", "ok"))
    status = ratio_out_of_range(ratio_median, status)  # e.g. 1e308 against 1e-300
    tested = status == "ok"
    tests = {
        "statistic": statistic, "pvalue_difference": p_diff, "z_difference": z_diff,
        "pvalue_upper": p_up, "z_upper": z_up, "pvalue_lower": p_low, "z_lower": z_low,
        "pvalue_equivalence": np.fmax(p_up, p_low),
    }
    tests = {k: np.where(tested, v, np.nan) for k, v in tests.items()}
    # the run diagnostics of the measurements tested, per candidate (its benchmarks); with one
    # candidate, the report's traces from the same diagnostics
    traces = side is not None and "runs" in side and len(candidates) == 1
    flags = [stage_flags(tested_measurements, plan.keys, options.variant, options.value,
                         plan.structure, options.baseline, [name], part, options.warmup,
                         measured, traces=traces)
             for name, part in zip(candidates, keys_parts)]
    if side is not None and traces:
        side["runs"].traces = flags[0].traces
    count_columns = with_columns_after(
        count_columns, "n_dropped_candidate" if "n_dropped_candidate" in count_columns
        else "n_dropped", {name: np.concatenate([f.warmup_columns[name] for f in flags])
                           for name in flags[0].warmup_columns})
    rows = keyed_table(stack_keys(keys_parts, candidates, options.listed), {
        **count_columns, "median_baseline": median_x, "median_candidate": median_y,
        "ratio_median": ratio_median, **tests, "method": np.where(tested, method_used, "none"),
        "reject_difference": np.zeros(n.shape, dtype=bool),
        "reject_equivalence": np.zeros(n.shape, dtype=bool),
        "conclusion": pa.nulls(n.shape[0], pa.string()),
        "flags": pa.concat_arrays([f.text for f in flags]), "status": status,
    })
    return StageRows.of(rows, {"comparison": comparison.astype(np.int64),
                               "log_median": log_median,
                               **{name: np.concatenate([f.extra[name] for f in flags])
                                  for name in flags[0].extra}})


def sparc_finish(staged: StageRows, plan: SparcPlan, info: dict) -> SparcResult:
    """The result of `sparc` from its rows (`fastperf.data.chunked`): the family-wise
    correction over every benchmark's tests, the conclusions, the overall tests, the summary.

    Parameters
    ----------
    staged : StageRows
        `sparc_stage` rows of every benchmark, in output order.
    plan : SparcPlan
        `sparc_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    SparcResult
    """
    rows, extra = staged.rows, staged.extra

    def column(name):
        return rows.column(name).to_numpy(zero_copy_only=False)

    options = plan.options
    candidates, paired = options.candidates, options.pair is not None
    status = column("status")
    tested = status == "ok"
    reject_diff, reject_eq, m, per_test = family_levels(
        column("pvalue_difference"), column("pvalue_equivalence"), tested,
        len(candidates) if options.overall else 0, options.alpha, options.adjust)
    conclusion = _conclusions(reject_diff, reject_eq, tested)
    table = rows
    for name, values in (("reject_difference", pa.array(reject_diff)),
                         ("reject_equivalence", pa.array(reject_eq)),
                         ("conclusion", pa.array(conclusion, pa.string()))):
        table = table.set_column(table.column_names.index(name), name, values)
    overall_table = None
    comparison = extra.column("comparison").to_numpy()
    if options.overall:
        log_median = extra.column("log_median").to_numpy(zero_copy_only=False)
        overall_table = overall_tests(column("ratio_median"), log_median,
                                      conclusion == CONCLUSIONS[0], comparison,
                                      candidates, options.method, per_test, options.scale)
    alpha = options.alpha
    summary = {
        "function": "sparc", "design": "paired" if paired else "unpaired",
        "pair": plan.pair, "baseline": options.baseline, "candidates": candidates,
        "ratio": ratio_name(options.higher_is_better),
        "higher_is_better": options.higher_is_better, "scale": options.scale,
        "margin": options.margin, "equivalence_bounds": options.bounds, "alpha": alpha,
        "adjust": options.adjust, "method": options.method, "tests": m,
        "alpha_corrected": per_test, "fwer_uncorrected": float(fwer_bound(alpha, m)) if m >= 1 else 0.0,
        "conclusions": {c: int(np.sum(conclusion == c)) for c in CONCLUSIONS},
        "min_runs_to_conclude": min_runs_to_conclude(per_test, paired),
        "structure": plan.structure.label(),
    }
    flag_summary, flag_warnings = finish_flags(extra, options.warmup)
    summary.update(flag_summary)
    warnings = (design_warnings(rows, comparison, plan) + not_tested_warnings(status)
                + flag_warnings)
    return SparcResult(table, summary, warnings, overall_table)


def design_warnings(rows: pa.Table, comparison: np.ndarray, plan: SparcPlan) -> list[str]:
    """The warnings of the design over every benchmark: runs unmatched, duplicated, pairs
    dropped (paired, per candidate) or values dropped (unpaired).

    Parameters
    ----------
    rows : pyarrow.Table
        `sparc_stage` rows of every benchmark, in output order.
    comparison : numpy.ndarray of int
        Each row's candidate index.
    plan : SparcPlan
        `sparc_plan`.

    Returns
    -------
    list of str

    Notes
    -----
    A reporting helper: no formula.
    """
    def column(name):
        return rows.column(name).to_numpy(zero_copy_only=False)

    options = plan.options
    if options.pair is None:
        return dropped_warnings(column("n_dropped_baseline") + column("n_dropped_candidate"),
                                "benchmark(s)", "n_dropped_baseline / n_dropped_candidate")
    warnings = []
    n_unmatched, n_dropped, n_duplicated = (column(c) for c in
                                            ("n_unmatched", "n_dropped", "n_duplicated"))
    keys = rows.select(plan.keys)
    for c, name in enumerate(options.candidates):
        mine = np.flatnonzero(comparison == c)
        unmatched = np.flatnonzero(n_unmatched[mine])
        if unmatched.size:
            warnings.append(
                f"{int(n_unmatched[mine].sum())} run(s) present for only one of "
                f"{options.baseline!r} and {name!r} were excluded in {unmatched.size} "
                f"benchmark(s) (see n_unmatched): "
                f"{row_names(keys.take(pa.array(mine, pa.int64())), unmatched)}")
        # the message of PairedSamples, from the counts of this candidate's benchmarks (a
        # stand-in for the PairedSamples: duplicate_warnings reads only n_duplicated)
        counts_only = SimpleNamespace(n_duplicated=n_duplicated[mine])
        warnings += PairedSamples.duplicate_warnings(counts_only)  # type: ignore[arg-type]
        dropped = int(n_dropped[mine].sum())
        if dropped:
            warnings.append(f"{dropped} pair(s) with a null/NaN value dropped (see n_dropped)")
    return warnings


def family_levels(p_diff, p_eq, tested, n_overall: int, alpha: float, correction: str):
    """Reject H0+ / the equivalence nulls per benchmark, and the level of each overall test.

    Parameters
    ----------
    p_diff, p_eq : numpy.ndarray
        The difference and equivalence p-values (used where `tested`).
    tested : numpy.ndarray of bool
    n_overall : int
        The overall tests counted in the family.
    alpha : float
    correction : {"bonferroni", "holm", "none"}

    Returns
    -------
    reject_diff, reject_eq : numpy.ndarray of bool
    m : int
        The family's size.
    per_test : float
        The level of each (overall) test.

    Notes
    -----
    The family holds m = 2 × (benchmarks tested) + `n_overall` tests (SPARC eq. 2 counts the
    difference and the equivalence test of every benchmark plus the overall test). Bonferroni:
    every test at alpha / m. Holm: the overall tests at their Bonferroni share alpha / m, the
    benchmarks' tests by Holm's step-down at the rest, alpha (1 - n_overall / m); the
    family-wise error stays <= alpha either way. "none": every test at alpha.
    """
    m = 2 * int(tested.sum()) + n_overall
    reject_diff = np.zeros(p_diff.shape, dtype=bool)
    reject_eq = np.zeros(p_diff.shape, dtype=bool)
    if correction == "none":
        per_test = alpha
    else:
        per_test = alpha / m if m else alpha
    if correction == "holm" and tested.any():
        k = int(tested.sum())
        result = multipletests(np.concatenate([p_diff[tested], p_eq[tested]]),
                               alpha=alpha * (1.0 - n_overall / m), method="holm")
        reject_diff[tested], reject_eq[tested] = result.reject[:k], result.reject[k:]
    else:
        with np.errstate(invalid="ignore"):
            reject_diff = tested & (p_diff <= per_test)
            reject_eq = tested & (p_eq <= per_test)
    return reject_diff, reject_eq, m, per_test


def overall_tests(ratio_median, log_median, relevant, comparison, candidates, method: str,
                  level: float, scale: str) -> pa.Table:
    """Per candidate, the two-sided signed-rank test of the relevant benchmarks' median ratios.

    Parameters
    ----------
    ratio_median, log_median : numpy.ndarray
        Each row's median ratio and median log ratio.
    relevant : numpy.ndarray of bool
        The rows concluded "relevant difference".
    comparison : numpy.ndarray of int
        Each row's candidate (index into `candidates`).
    candidates : list
    method : {"auto", "exact", "asymptotic"}
    level : float
        The level of each overall test.
    scale : {"log", "ratio"}

    Returns
    -------
    pyarrow.Table
        One row per candidate.

    Notes
    -----
    SPARC section III-C: the median ratios against 1 (their logs against 0 on the log scale;
    the other benchmarks are excluded), exact where cheap; the centre is their median (on the
    log scale, exp of the median log).
    """
    n_comparisons = len(candidates)
    counts = np.bincount(comparison[relevant], minlength=n_comparisons)
    offsets = np.zeros(n_comparisons + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    if scale == "log":
        medians = Samples(log_median[relevant], offsets)
        centre = np.exp(sample_medians(medians))
    else:
        medians = Samples(ratio_median[relevant] - 1.0, offsets)
        centre = sample_medians(Samples(ratio_median[relevant], offsets))
    p, z, t_plus, method_used, n_zero = signed_rank_tests(medians, "two-sided", method)
    nonzero = (counts - n_zero).astype(float)
    faster = t_plus > nonzero * (nonzero + 1) / 4  # T+ above its null mean: ratios above 1
    with np.errstate(invalid="ignore"):
        reject = p <= level
    verdict = np.where(counts == 0, "no relevant differences",
                       np.where(~reject, "no significant overall difference",
                                np.where(faster, "candidate faster", "candidate slower")))
    empty = counts == 0
    return pa.table({
        "candidate": pa.array(list(candidates),
                              pa.string() if all(isinstance(c, str) for c in candidates) else None),
        "n": counts,
        "ratio_median": np.where(empty, np.nan, centre),
        "statistic": np.where(empty, np.nan, t_plus),
        "pvalue": np.where(empty, np.nan, p),
        "z": np.where(empty, np.nan, z),
        "method": np.where(empty, "none", method_used),
        "alpha": np.full(n_comparisons, level),
        "reject": reject & ~empty,
        "verdict": verdict,
    })

