"""Hierarchical performance testing (HPT; Chen, Chen, Guo, Temam, Wu & Hu 2012, "Statistical
performance comparisons of computers", HPCA), as seed 003 (SPARC, section II-B) summarises it.

Per benchmark a two-sided rank-sum test; the significant benchmarks keep their median ratio,
the others score 0; a one-sided signed-rank test over the scores gives the reliability that the
candidate is better, and the largest speedup r it still holds for. The rank tests are the
batched ones of `fastperf.engine.ranks`, through `fastperf.protocols.relevance`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.validation import (
    check_choice, check_flag, check_levels, check_real, check_unit_interval,
)
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.levels import Structure, check_structure_arguments
from fastperf.errors import InputError
from fastperf.stats.multitest import fwer_bound
from fastperf.io.tables import key_list
from fastperf.data.samples import (
    check_positive, check_single_unit, chunk_variant_samples, column_samples, sample_medians,
    samples_column,
)
from fastperf.engine.ranks import log_values
from fastperf.protocols.relevance import (
    SCALES, check_comparison, check_relevance_table, not_tested_warnings, rank_sum_tests,
    ratio_name, ratio_out_of_range, relevance_structure, signed_rank_tests,
)
from fastperf.results.base import BenchmarkResult, dropped_warnings, keyed_table
from fastperf.protocols.report_views import hpt_view
from fastperf.results.figures import ReportView, Runs
from fastperf.stats.forms import unit_means

__all__ = ["hpt", "HptResult", "HPT_COLUMNS", "HptOptions", "HptPlan", "hpt_options", "hpt_plan",
           "hpt_stage", "hpt_finish"]

#: Per-benchmark columns of `hpt` (after the keys); a key column may not take one of these names.
HPT_COLUMNS = [
    "n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate", "median_baseline",
    "median_candidate", "ratio_median", "statistic", "pvalue", "method", "significant", "score",
    "status",
]


class HptResult(BenchmarkResult):
    """Result of `hpt`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per benchmark: keys, ``n_baseline``, ``n_candidate``, the dropped counts,
        ``median_baseline``, ``median_candidate``, ``ratio_median``, ``statistic`` (U of the
        ratio's numerator), ``pvalue`` (two-sided rank-sum), ``method``, ``significant``,
        ``score`` (log(ratio_median), or ratio_median - 1 with ``scale="ratio"``, when
        significant, else 0), ``status``.
    speedups : pyarrow.Table
        Per confidence: the largest speedup r (two decimals, capped at `max_speedup`) at which
        the candidate slowed by r is still better with that reliability, ``capped``.
    summary : dict
        Level 2: ``n`` (non-zero scores), ``statistic`` (T+), ``pvalue`` (one-sided),
        ``reliability`` (1 - p), ``method_used``; counts; ``fwer_uncorrected``.
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return hpt_view(self)

    extra_tables = ("speedups",)
    speedups: pa.Table

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 speedups: pa.Table):
        super().__init__(table, summary, warnings, speedups=speedups)

    def extra_title(self, name: str) -> str:
        """The heading of the extra table `name` in the renderings.

        Parameters
        ----------
        name : str
            The extra table's attribute name ("speedups").

        Returns
        -------
        str
            What the speedups table holds.

        Notes
        -----
        HPT's speedup-under-reliability search (Chen et al., HPT, 2012).
        """
        return "largest speedup holding with each reliability"

    def header(self) -> str:
        """Both levels in words: the significant benchmarks, the reliability and its p-value.

        Returns
        -------
        str
            Two lines: level 1 (benchmarks significant at alpha) and level 2 (the reliability
            1 - p that the candidate is better, with the uncorrected family-wise error bound
            1 - (1 - alpha)^(benchmarks + 1)).

        Notes
        -----
        Chen, Chen, Guo, Temam, Wu & Hu (2012), "Statistical performance comparisons of
        computers", HPCA, 399-410; the error bound as SPARC (Tullos, Graham, Jordan & Patel
        2021, eq. 2) computes it for HPT.
        """
        s = self.summary
        return "\n".join([
            f"HPT: {s['candidate']!r} against {s['baseline']!r} (ratio = {s['ratio']}), "
            f"level 1 at alpha {s['alpha']}: {s['significant']} of {s['benchmarks_tested']} "
            "benchmarks significant",
            f"Level 2 ({s['scale']} scores): the candidate is better with reliability "
            f"{s['reliability']:.6g} "
            f"(one-sided signed-rank p = {s['pvalue']:.6g} over {s['n']} non-zero scores); "
            f"family-wise error of the {s['benchmarks_tested']} + 1 uncorrected tests <= "
            f"{s['fwer_uncorrected']:.4f}",
        ])

    def to_text(self) -> str:
        """The header, then the tables and the warnings as plain text.

        Returns
        -------
        str
            `header` followed by `Result.to_text`'s rendering.

        Notes
        -----
        A rendering: no formula.
        """
        return self.header() + "\n\n" + super().to_text()

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


def _hpt_level1(a: Samples, b: Samples, ratio: np.ndarray, log_ratio: np.ndarray,
                tested: np.ndarray, log_r: float, alpha: float, method: str, scale: str) -> tuple:
    """HPT's level 1 at speedup r = exp(log_r) (the candidate slowed by r): per benchmark the
    two-sided rank-sum test, and the score (log_ratio - log r, or ratio / r - 1 on the ratio
    scale) of the significant ones, 0 for the others."""
    p1, _, u, method1 = rank_sum_tests(a, b, log_r, "two-sided", method)
    with np.errstate(invalid="ignore"):
        significant = tested & (p1 <= alpha)
    change = log_ratio - log_r if scale == "log" else ratio / math.exp(log_r) - 1.0
    score = np.where(significant, change, 0.0)
    return p1, u, method1, significant, score


def _hpt_level2(score: np.ndarray, tested: np.ndarray, method: str) -> dict[str, Any]:
    """HPT's level 2: the one-sided signed-rank test over the tested benchmarks' scores."""
    scores = score[tested]
    p2, _, t_plus, method2, n_zero = signed_rank_tests(
        Samples(scores, np.array([0, scores.size], dtype=np.int64)), "greater", method)
    return {"n": int(scores.size - n_zero[0]), "statistic": float(t_plus[0]),
            "pvalue": float(p2[0]), "reliability": float(1.0 - p2[0]),
            "method_used": str(method2[0])}


def _largest_speedup(reliability_at: Callable[[int], float], confidence: float,
                     k_max: int) -> tuple[float, bool]:
    """r = k / 100 (k = 1 .. k_max) where the reliability crosses `confidence`, by bisection:
    reliability_at(k) >= confidence > reliability_at(k + 1). The reliability falls as r grows
    except for small steps (a benchmark's level-1 test moving in and out of significance, ties);
    where it is not monotone, the crossing found need not be the largest one. (k_max, capped)
    when r = k_max / 100 still holds; (NaN, False) if even r = 0.01 falls short."""
    if reliability_at(k_max) >= confidence:
        return k_max / 100.0, True
    if reliability_at(1) < confidence:
        return float("nan"), False
    low, high = 1, k_max  # reliability(low) >= confidence > reliability(high)
    while high - low > 1:
        mid = (low + high) // 2
        if reliability_at(mid) >= confidence:
            low = mid
        else:
            high = mid
    return low / 100.0, False


def hpt(
    data: Any,
    *,
    baseline: str,
    candidate: str,
    by: str | Sequence[str] = "benchmark",
    variant: str = "variant",
    value: str = "value",
    alpha: float = 0.05,
    confidences: Sequence[float] = (0.9, 0.95, 0.99),
    method: str = "auto",
    higher_is_better: bool = False,
    max_speedup: float = 10.0,
    unit: str | None = "unit",
    scale: str = "log",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> HptResult:
    """Hierarchical Performance Testing (Chen et al. 2012, as summarised in seed 003 II-B).

    Level 1: per benchmark, the two-sided Wilcoxon rank-sum test of the baseline's against the
    candidate's runs (on the logs, so that slowing the candidate by r is a shift); a
    significant benchmark (p <= alpha) scores the log of its median ratio (``scale="log"``,
    the default) or its median ratio - 1 (``scale="ratio"``, HPT's arithmetic), the others 0.
    Ratio - 1 is skewed (a benchmark twice as fast scores +1, twice as slow -0.5), which the
    signed-rank test of level 2 does not allow for: over null benchmarks its false "candidate
    better" rate reached 8.8% at a nominal 5%, the log scores hold it (docs/relevance.md). Level 2: the
    one-sided Wilcoxon signed-rank test (zeros dropped) of the scores against 0, H1: the
    candidate is better; the reliability is 1 - p. For each confidence c, the largest speedup r
    (two decimals, by bisection over 0.01 .. `max_speedup`) such that the candidate slowed by r
    (times multiplied by r) is still better with reliability >= c: NaN when even r = 0.01 is
    not reached, `max_speedup` (``capped``) when r = `max_speedup` still is. The bisection
    returns an r where the reliability crosses c (>= c at r, < c at r + 0.01); the reliability
    is not always monotone in r (level-1 significance can come and go with ties or small
    samples), and then a larger crossing may exist.

    Parameters
    ----------
    data, baseline, candidate, by, variant, value : as `sparc` (independent runs).
    alpha : float
        Level of the per-benchmark tests (HPT does not correct it; ``fwer_uncorrected`` in the
        summary says what that costs).
    confidences : sequence of float
        Reliabilities for which the speedup is searched.
    method : {"auto", "exact", "asymptotic"}
        p-values of both levels, as `fastperf.mannwhitneyu` / `fastperf.wilcoxon`.
    higher_is_better : bool
        Throughputs: the ratio is candidate / baseline, and "slowed by r" divides the
        candidate's values by r.
    max_speedup : float
        The cap of the search (10 in HPT).
    scale : {"log", "ratio"}
        The scores of level 2: log(median ratio / r) (default) or median ratio / r - 1.
    unit : str or None
        When the table has this column, each benchmark's values must share one unit.
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        the table has (``build``, ``process``); ``[]`` or ``"none"`` asks for the flat
        analysis, which takes every value as independent (today's numbers, bit for bit). With
        levels, each benchmark's variants are first collapsed to the means of their independent
        units (`fastperf.stats.forms.unit_means`), and level 1 runs on them.
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block.

    Returns
    -------
    HptResult
        ``.benchmarks`` (level 1 per benchmark), ``.speedups`` (the largest speedup per
        confidence), ``.summary`` (level 2: ``reliability``, ``pvalue``, ...), ``.warnings``.

    Raises
    ------
    InputError
        alpha or a confidence outside (0, 1), several candidates, an unknown method or scale, a
        missing variant, a key column named like an output column, `max_speedup` outside
        [1, 1000], non-positive values or mixed units.

    Notes
    -----
    T. Chen, Y. Chen, Q. Guo, O. Temam, Y. Wu and W. Hu, "Statistical performance comparisons
    of computers", Proc. HPCA 2012, 399-410 (a journal version appeared in IEEE Transactions on
    Computers, 2015), as summarised by SPARC (Tullos, Graham, Jordan & Patel 2021, section
    II-B; seed 003): Wilcoxon rank-sum tests per benchmark (Mann & Whitney 1947) with the
    continuity correction, then the one-sided Wilcoxon signed-rank test of the scores; the
    reliability is 1 - p of that test.
    """
    options = hpt_options(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
        alpha=alpha, confidences=confidences, method=method, higher_is_better=higher_is_better,
        max_speedup=max_speedup, unit=unit, scale=scale, levels=levels, block=block)
    side: dict[str, Any] = {}
    result = run_planned(data, partial(hpt_plan, options=options), hpt_stage, hpt_finish,
                         values=[value], side=side, function="hpt", keys=[by, variant, unit])
    result.runs = side.get("runs")
    return result


@dataclass(frozen=True)
class HptOptions:
    """The options of `hpt`, checked (`hpt_options`); see `hpt` for each (``levels``: the
    checked `confidences`)."""

    baseline: Any
    candidate: Any
    by: Any
    variant: str
    value: str
    alpha: float
    levels: Sequence[float]
    method: str
    higher_is_better: bool
    max_speedup: float
    unit: str | None
    scale: str
    structure_levels: tuple[str, ...] | None = None
    block: str | None = None


@dataclass(frozen=True, kw_only=True)
class HptPlan(Plan):
    """The plan of `hpt` (`hpt_plan`): the options, the benchmark key columns (the
    ``partition`` and the ``order``) and the `Structure` used
    (`fastperf.protocols.relevance.relevance_structure`)."""

    options: HptOptions
    keys: list[str]
    structure: Structure = Structure()


def hpt_options(*, baseline, candidate, by, variant, value, alpha, confidences, method,
                higher_is_better, max_speedup, unit, scale, levels=None,
                block=None) -> HptOptions:
    """The options of `hpt`, checked (those that need no table).

    Parameters
    ----------
    baseline, candidate, by, variant, value, alpha, confidences, method, higher_is_better, \
max_speedup, unit, scale, levels, block
        See `hpt` (the checked `levels` are ``structure_levels``: ``levels`` holds the
        confidences).

    Returns
    -------
    HptOptions
    """
    alpha = check_unit_interval(alpha, "alpha")
    checked_confidences = check_levels(confidences, "confidences")
    if isinstance(candidate, (list, tuple)) or candidate is None:
        raise InputError("hpt compares one candidate with the baseline: candidate= a variant "
                         f"name, got {candidate!r}")
    check_comparison("hpt", baseline, [candidate], method, by, 1, HPT_COLUMNS, value, variant,
                     unit)
    check_choice(scale, "scale", SCALES)
    max_speedup = check_real(max_speedup, "max_speedup", low=1.0, high=1000.0)
    structure_levels, block = check_structure_arguments(levels, block)
    return HptOptions(baseline=baseline, candidate=candidate, by=by, variant=variant,
                      value=value, alpha=alpha, levels=checked_confidences, method=method,
                      higher_is_better=check_flag(higher_is_better, "higher_is_better"),
                      max_speedup=max_speedup, unit=unit,
                      scale=scale, structure_levels=structure_levels,
                      block=block)


def hpt_plan(table: pa.Table, options: HptOptions) -> HptPlan:
    """The plan of `hpt` (`fastperf.data.chunked`): the table checked, its key columns.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : HptOptions
        `hpt_options`.

    Returns
    -------
    HptPlan
    """
    keys = key_list(options.by)
    check_relevance_table(table, keys, options.variant, options.value,
                          [options.baseline, options.candidate])
    structure, _ = relevance_structure(table, keys, options.variant, options.value,
                                       options.unit, None, options.structure_levels,
                                       options.block)
    return HptPlan(options=options, keys=keys, structure=structure, partition=tuple(keys),
                   order=tuple(keys))


def hpt_stage(table: pa.Table, plan: HptPlan, side: dict | None = None) -> StageRows:
    """HPT's level 1 for the benchmarks of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : HptPlan
        `hpt_plan`.
    side : dict or None
        Receives ``"runs"`` (the runs, for the report's figures).

    Returns
    -------
    StageRows
        One row per benchmark: every column of `hpt`'s table; in ``extra``, ``a`` and ``b``,
        the logs of the ratio's numerator and denominator runs, which the speedup search
        tests again at each speedup.
    """
    options = plan.options
    baseline, candidate, higher = options.baseline, options.candidate, options.higher_is_better
    table = unit_means(table, plan.keys, options.variant, options.value, plan.structure,
                       [options.unit])
    vs = chunk_variant_samples(table, [baseline, candidate], plan.keys, options.variant,
                               options.value)
    check_single_unit(vs, options.unit)
    xs, ys = vs.samples[baseline], vs.samples[candidate]
    check_positive(xs, vs.keys, f"baseline {baseline!r}")
    check_positive(ys, vs.keys, f"candidate {candidate!r}")
    num, den = (ys, xs) if higher else (xs, ys)
    a, b = log_values(num, "numerator"), log_values(den, "denominator")
    median_x, median_y = sample_medians(xs), sample_medians(ys)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = median_y / median_x if higher else median_x / median_y
        log_ratio = np.log(ratio)
    n_x, n_y = xs.sizes, ys.sizes
    status = np.select([(n_x == 0) & (n_y == 0), n_x == 0, n_y == 0],
                       ["missing baseline and candidate", "missing baseline", "missing candidate"],
                       default="ok")
    status = ratio_out_of_range(ratio, status)  # 1e308 against 1e-300: no ratio to score
    tested = status == "ok"
    p1, u, method1, significant, score = _hpt_level1(a, b, ratio, log_ratio, tested, 0.0,
                                                     options.alpha, options.method,
                                                     options.scale)
    if isinstance(side, dict):
        side["runs"] = Runs(baseline, candidate, xs, ys)
    rows = keyed_table(vs.keys, {
        "n_baseline": n_x, "n_candidate": n_y, "n_dropped_baseline": vs.n_dropped[baseline],
        "n_dropped_candidate": vs.n_dropped[candidate],
        "median_baseline": median_x, "median_candidate": median_y,
        "ratio_median": np.where(tested, ratio, np.nan),
        "statistic": np.where(tested, u, np.nan), "pvalue": np.where(tested, p1, np.nan),
        "method": np.where(tested, method1, "none"), "significant": significant,
        "score": np.where(tested, score, np.nan), "status": status,
    })
    return StageRows.of(rows, {"a": samples_column(a), "b": samples_column(b)})


def hpt_finish(staged: StageRows, plan: HptPlan, info: dict) -> HptResult:
    """HPT's level 2 from the rows of every benchmark (`fastperf.data.chunked`): the
    reliability, the largest speedup per confidence, the summary.

    Parameters
    ----------
    staged : StageRows
        `hpt_stage` rows of every benchmark, in output order.
    plan : HptPlan
        `hpt_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    HptResult
    """
    rows = staged.rows

    def column(name):
        return rows.column(name).to_numpy(zero_copy_only=False)

    options = plan.options
    alpha, method, scale = options.alpha, options.method, options.scale
    status = column("status")
    tested = status == "ok"
    level2 = _hpt_level2(column("score"), tested, method)
    a, b = column_samples(staged.extra.column("a")), column_samples(staged.extra.column("b"))
    ratio = column("ratio_median")  # NaN where not tested, which scores 0
    with np.errstate(invalid="ignore", divide="ignore"):
        log_ratio = np.log(ratio)  # once: every step of the speedup search shifts it

    cache: dict[int, float] = {100: level2["reliability"]}

    def reliability_at(k: int) -> float:
        if k not in cache:
            score = _hpt_level1(a, b, ratio, log_ratio, tested, math.log(k / 100.0), alpha,
                                method, scale)[4]
            cache[k] = _hpt_level2(score, tested, method)["reliability"]
        return cache[k]

    k_max = int(round(options.max_speedup * 100))
    levels = options.levels
    found = [_largest_speedup(reliability_at, c, k_max) for c in levels]
    speedups = pa.table({"confidence": pa.array(levels, pa.float64()),
                         "speedup": pa.array([r for r, _ in found], pa.float64()),
                         "capped": pa.array([c for _, c in found], pa.bool_())})
    n_tested = int(tested.sum())
    higher = options.higher_is_better
    summary = {
        "function": "hpt", "baseline": options.baseline, "candidate": options.candidate,
        "ratio": ratio_name(higher), "higher_is_better": higher,
        "alpha": alpha, "method": method, "scale": scale, "benchmarks_tested": n_tested,
        "significant": int(column("significant").sum()), **level2,
        "fwer_uncorrected": float(fwer_bound(alpha, n_tested + 1)),
        "structure": plan.structure.label(),
    }
    warnings = dropped_warnings(column("n_dropped_baseline") + column("n_dropped_candidate"),
                                "benchmark(s)", "n_dropped_baseline / n_dropped_candidate")
    return HptResult(rows, summary, warnings + not_tested_warnings(status), speedups)
