"""Relevance testing (seed 003): SPARC's difference + equivalence tests with family-wise error
control, and the HPT framework it is compared with.

SPARC (Tullos, Graham & Jordan 2021, "SPARC: statistical performance analysis with relevance
conclusions", IEEE Open J. Comput. Soc.): per benchmark, a difference test (H0+: the ratios are
centred on 1) and a TOST equivalence test (H01-: ratio >= 1 + delta, H02-: ratio <= 1 - delta,
both rejected for equivalence), combined by Table I into one of four conclusions; the levels are
corrected for the family of all tests; an optional overall signed-rank test over the median
ratios of the benchmarks with a relevant difference.

HPT (Chen, Chen, Guo, Temam, Wu & Hu 2012, "Statistical performance comparisons of computers",
HPCA): per benchmark a two-sided rank-sum test; the significant benchmarks keep their median
ratio, the others score 0; a one-sided signed-rank test over the scores gives the reliability
that the candidate is better, and the largest speedup r it still holds for.

Every test is the batched one of `fastperf.stats.rank_tests` (`signed_rank_test`, `rank_sum_test`):
one call per hypothesis for all benchmarks; corrections come from `fastperf.stats.multitest`.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.errors import InputError
from fastperf.results.base import (
    BenchmarkResult, benchmark_result, dropped_warnings, format_cell, keyed_table, render_text,
)
from fastperf.io.read import load_table
from fastperf.io.tables import key_list, require_columns

__all__ = ["sparc", "SparcResult", "hpt", "HptResult", "CONCLUSIONS", "CORRECTIONS"]

#: SPARC's four conclusions (Table I), in the order (reject difference?, reject equivalence?) =
#: (yes, no), (yes, yes), (no, yes), (no, no).
CONCLUSIONS = ("relevant difference", "trivial difference", "equivalence", "indeterminate")
CORRECTIONS = ("bonferroni", "holm", "none")

#: Columns of `SparcResult.to_text`'s short table (after the keys).
SPARC_TEXT_COLUMNS = ["n", "ratio_median", "pvalue_difference", "pvalue_equivalence",
                      "conclusion", "status"]
#: Per-benchmark columns whose names a key column may not take.
_SPARC_COLUMNS = {
    "candidate", "n", "n_zero", "n_unmatched", "n_dropped", "n_duplicated", "n_baseline",
    "n_candidate", "n_dropped_baseline", "n_dropped_candidate", "median_baseline",
    "median_candidate", "ratio_median", "statistic", "pvalue_difference", "z_difference",
    "pvalue_upper", "z_upper", "pvalue_lower", "z_lower", "pvalue_equivalence", "method",
    "reject_difference", "reject_equivalence", "conclusion", "status", "pvalue", "significant",
    "score",
}


# ---------------------------------------------------------------------------------------------
# shared pieces


def _check_level(x: Any, name: str) -> float:
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number in (0, 1), got {x!r}") from None
    if not (0.0 < value < 1.0):
        raise InputError(f"{name} must lie in (0, 1), got {x!r}")
    return value


def _check_common(baseline, candidates: list, method: str, by, min_runs) -> None:
    from fastperf.stats.rank_tests import _METHODS

    if baseline is None or not candidates or any(c is None for c in candidates):
        raise InputError("give baseline= and candidate= (variant names)")
    if baseline in candidates:
        raise InputError(f"baseline and candidate are the same variant ({baseline!r})")
    if len(set(candidates)) != len(candidates):
        raise InputError(f"a candidate is listed twice: {candidates}")
    if method not in _METHODS:
        raise InputError(f"method must be one of {list(_METHODS)}, got {method!r}")
    if isinstance(min_runs, bool) or not isinstance(min_runs, (int, np.integer)) or min_runs < 1:
        raise InputError(f"min_runs must be a whole number >= 1, got {min_runs!r}")
    clash = [k for k in key_list(by) if k in _SPARC_COLUMNS]
    if clash:
        raise InputError(f"key column {clash[0]!r} has the name of an output column; rename it "
                         "first")


def _concat(parts: list[Samples]) -> Samples:
    """Several batches of samples as one (sample order kept)."""
    if len(parts) == 1:
        return parts[0]
    values = np.concatenate([p.values for p in parts])
    sizes = np.concatenate([p.sizes for p in parts])
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return Samples(values, offsets)


def _median(samples: Samples) -> np.ndarray:
    from fastperf.engine.summaries import min_median

    return min_median(samples)[1]


def _signed_rank(ds: Samples, alternative: str, method: str):
    """SPARC's signed-rank test of each sample of differences (zeros dropped, continuity
    correction): p (1 where every difference is 0: no evidence against H0), z oriented as
    described by the caller, T+, the method used and the zeros."""
    from fastperf.engine.ranks import signed_rank_test

    _, p, status, method_used, z, n_zero, r_plus, _ = signed_rank_test(
        ds, alternative, method, "wilcox", True, "omit")
    all_zero = status == "no nonzero differences"
    p = np.where(all_zero, 1.0, p)  # T+ = T- = 0 whatever the signs: exactly 1
    method_used = np.where(all_zero, "exact", method_used)
    if alternative == "two-sided":  # the test reports -|z|: sign it by T+ against its mean
        nonzero = (ds.sizes - n_zero).astype(float)
        z = np.abs(z) * np.sign(r_plus - nonzero * (nonzero + 1) / 4)
    elif alternative == "less":  # oriented towards the alternative: large z rejects H0
        z = -z
    return p, z, r_plus, method_used, n_zero


def _rank_sum(a: Samples, b: Samples, shift: float, alternative: str, method: str):
    """Rank-sum test of the samples `a` against `b` + `shift` (logs): p, z (two-sided: positive
    when `a` tends to be larger; one-sided: towards the alternative), U of `a`, the method."""
    from fastperf.engine.ranks import rank_sum_test

    shifted = Samples(b.values + shift, b.offsets) if shift else b
    u, p, _, method_used, z, state = rank_sum_test(a, shifted, alternative, method, True, "omit")
    if alternative == "two-sided":
        with np.errstate(invalid="ignore"):  # all values equal: z = -inf, sign 0 -> NaN
            z = z * np.sign(u - state.m * state.n / 2.0)
    return p, z, u, method_used


def _joined_methods(*methods: np.ndarray) -> np.ndarray:
    """One method per row: the common one, else the distinct ones joined by " / "."""
    first = methods[0]
    same = np.logical_and.reduce([m == first for m in methods[1:]])
    if same.all():
        return first
    out = first.astype(object)
    for i in np.flatnonzero(~same):
        out[i] = " / ".join(dict.fromkeys(m[i] for m in methods))
    return out.astype(str)


def _ratio_name(higher: bool) -> str:
    """The ratio in words: baseline / candidate for times, the other way round when higher is
    better; either way it is > 1 when the candidate is better."""
    return "candidate / baseline" if higher else "baseline / candidate"


def _row_names(keys: pa.Table, rows: np.ndarray, limit: int = 5) -> str:
    names = [", ".join(format_cell(v) for v in row.values())
             for row in keys.take(pa.array(rows[:limit], pa.int64())).to_pylist()]
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    return "; ".join(names) + more


# ---------------------------------------------------------------------------------------------
# SPARC


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

    extra_tables = ("overall",)

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 overall: pa.Table | None):
        super().__init__(table, summary, warnings)
        self.overall = overall

    def extra_title(self, name: str) -> str:
        return "overall test (median ratios of the benchmarks with a relevant difference)"

    def header(self) -> str:
        """The design in words: what was compared, the margin, the family and its level."""
        s = self.summary
        low, high = s["equivalence_bounds"]
        counts = ", ".join(f"{s['conclusions'][c]} {c}" for c in CONCLUSIONS)
        level = {
            "bonferroni": f"Bonferroni over m = {s['tests']} tests: alpha {s['alpha']} -> "
                          f"{s['alpha_corrected']:.6g} per test",
            "holm": f"Holm over m = {s['tests']} tests at alpha {s['alpha']}: first step and "
                    f"overall test at {s['alpha_corrected']:.6g}",
            "none": f"no correction over m = {s['tests']} tests: alpha {s['alpha']} per test",
        }[s["correction"]]
        return "\n".join([
            f"SPARC: {', '.join(map(repr, s['candidates']))} against {s['baseline']!r} "
            f"({s['design']} runs, ratio = {s['ratio']}), equivalence margin "
            f"[{low:g}, {high:g}]",
            f"{level}; family-wise error without correction <= {s['fwer_uncorrected']:.5f}",
            f"Benchmarks: {counts}; {s['benchmarks_not_ok']} not tested",
        ])

    def to_text(self) -> str:
        """The header, a short per-benchmark table, the overall test and the warnings."""
        keys = [c for c in self.benchmarks.column_names
                if c not in _SPARC_COLUMNS or c == "candidate"]
        out = self.header() + "\n\n" + render_text(self.benchmarks.select(keys + SPARC_TEXT_COLUMNS))
        if self.overall is not None:
            out += f"\n\n{self.extra_title('overall')}:\n" + render_text(self.overall)
        if self.warnings:
            out += "\n\nwarnings:\n" + "\n".join(f"- {w}" for w in self.warnings)
        return out

    def to_markdown(self) -> str:
        return "```\n" + self.header() + "\n```\n\n" + super().to_markdown()


def _sparc_iv(margin, alpha, correction) -> tuple[float, float]:
    margin = _check_level(margin, "margin (the equivalence margin delta)")
    alpha = _check_level(alpha, "alpha")
    if correction not in CORRECTIONS:
        raise InputError(f"correction must be one of {list(CORRECTIONS)}, got {correction!r}")
    return margin, alpha


def _paired_design(table, baseline, candidates, keys, variant, value, pair, higher, unit):
    """Per comparison, the pairs matched by `pair`: the ratio samples, the sides' medians, the
    pairing counts and warnings (one pairing pass per candidate, every benchmark at once)."""
    from fastperf.data.samples import check_positive, check_single_unit, paired_variant_samples

    ratios, medians_x, medians_y, counts, keys_parts, warnings = [], [], [], [], [], []
    for name in candidates:
        pairs = paired_variant_samples(table, baseline=baseline, candidate=name, by=keys,
                                       variant=variant, value=value, run=pair)
        check_single_unit(pairs, unit)
        check_positive(pairs.baseline, pairs.keys, f"baseline {baseline!r}")
        check_positive(pairs.candidate, pairs.keys, f"candidate {name!r}")
        num, den = (pairs.candidate, pairs.baseline) if higher else (pairs.baseline, pairs.candidate)
        ratios.append(Samples(num.values / den.values, num.offsets))
        medians_x.append(_median(pairs.baseline))
        medians_y.append(_median(pairs.candidate))
        counts.append({"n_unmatched": pairs.n_unmatched, "n_dropped": pairs.n_dropped,
                       "n_duplicated": pairs.n_duplicated})
        keys_parts.append(pairs.keys)
        unmatched = np.flatnonzero(pairs.n_unmatched)
        if unmatched.size:
            warnings.append(
                f"{int(pairs.n_unmatched.sum())} run(s) present for only one of {baseline!r} "
                f"and {name!r} were excluded in {unmatched.size} benchmark(s) (see n_unmatched): "
                f"{_row_names(pairs.keys, unmatched)}")
        warnings += pairs.duplicate_warnings()
        dropped = int(pairs.n_dropped.sum())
        if dropped:
            warnings.append(f"{dropped} pair(s) with a null/NaN value dropped (see n_dropped)")
    columns = {k: np.concatenate([c[k] for c in counts]) for k in counts[0]}
    return (keys_parts, _concat(ratios), np.concatenate(medians_x), np.concatenate(medians_y),
            columns, warnings)


def _sparc_paired(ratios: Samples, margin: float, method: str):
    """The three signed-rank tests of the ratios: against 1 (two-sided), 1 + delta (less),
    1 - delta (greater)."""
    def shifted(centre):
        return Samples(ratios.values - centre, ratios.offsets)

    p_diff, z_diff, t_plus, method_diff, n_zero = _signed_rank(shifted(1.0), "two-sided", method)
    p_up, z_up, _, method_up, _ = _signed_rank(shifted(1.0 + margin), "less", method)
    p_low, z_low, _, method_low, _ = _signed_rank(shifted(1.0 - margin), "greater", method)
    return (p_diff, z_diff, p_up, z_up, p_low, z_low, t_plus,
            _joined_methods(method_diff, method_up, method_low), n_zero)


def _sparc_unpaired(num: Samples, den: Samples, margin: float, method: str):
    """The three rank-sum tests of the logs: numerator against denominator (two-sided), and
    against the denominator shifted by log(1 + delta) (less) and log(1 - delta) (greater)."""
    from fastperf.engine.ranks import log_values

    a, b = log_values(num, "numerator"), log_values(den, "denominator")
    p_diff, z_diff, u, method_diff = _rank_sum(a, b, 0.0, "two-sided", method)
    p_up, z_up, _, method_up = _rank_sum(a, b, math.log1p(margin), "less", method)
    p_low, z_low, _, method_low = _rank_sum(a, b, math.log1p(-margin), "greater", method)
    return (p_diff, z_diff, p_up, z_up, p_low, z_low, u,
            _joined_methods(method_diff, method_up, method_low))


def _family_levels(p_diff, p_eq, tested, n_overall: int, alpha: float, correction: str):
    """Reject H0+ / the equivalence nulls per benchmark, and the level of each overall test.

    The family holds m = 2 × (benchmarks tested) + `n_overall` tests (SPARC eq. 2 counts the
    difference and the equivalence test of every benchmark plus the overall test). Bonferroni:
    every test at alpha / m. Holm: the overall tests at their Bonferroni share alpha / m, the
    benchmarks' tests by Holm's step-down at the rest, alpha (1 - n_overall / m); the
    family-wise error stays <= alpha either way. "none": every test at alpha.
    """
    from fastperf.stats.multitest import multipletests

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


def _conclusions(reject_diff, reject_eq, tested) -> np.ndarray:
    """Table I of the paper; None where the benchmark was not tested."""
    code = np.where(reject_diff, np.where(reject_eq, 1, 0), np.where(reject_eq, 2, 3))
    out = np.array(CONCLUSIONS, dtype=object)[code]
    out[~tested] = None
    return out


def _overall_tests(ratio_median, relevant, comparison, candidates, method: str, level: float):
    """Per candidate, the two-sided signed-rank test of the relevant benchmarks' median ratios
    against 1 (SPARC section III-C: the others are excluded), exact where cheap."""
    n_comparisons = len(candidates)
    counts = np.bincount(comparison[relevant], minlength=n_comparisons)
    offsets = np.zeros(n_comparisons + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    medians = Samples(ratio_median[relevant] - 1.0, offsets)
    p, z, t_plus, method_used, n_zero = _signed_rank(medians, "two-sided", method)
    centre = _median(Samples(ratio_median[relevant], offsets))
    nonzero = (counts - n_zero).astype(float)
    faster = t_plus > nonzero * (nonzero + 1) / 4  # T+ above its null mean: ratios above 1
    with np.errstate(invalid="ignore"):
        reject = p <= level
    verdict = np.where(counts == 0, "no relevant differences",
                       np.where(~reject, "no significant overall difference",
                                np.where(faster, "candidate faster", "candidate slower")))
    empty = counts == 0
    return pa.table({
        "candidate": pa.array(candidates, pa.string()),
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


def sparc(
    data: Any,
    *,
    baseline: str,
    candidate: str | Sequence[str],
    by: str | Sequence[str] = "benchmark",
    variant: str = "variant",
    value: str = "value",
    pair: str | None = "run",
    margin: float = 0.05,
    alpha: float = 0.05,
    correction: str = "bonferroni",
    method: str = "auto",
    overall: bool = True,
    higher_is_better: bool = False,
    min_runs: int = 5,
    unit: str | None = "unit",
) -> SparcResult:
    """SPARC relevance testing of every benchmark: relevant difference, trivial difference,
    equivalence or indeterminate (Tullos, Graham & Jordan 2021, Table I).

    Per benchmark, with the ratio r = baseline / candidate (times; candidate / baseline when
    `higher_is_better`), so that r > 1 means the candidate is better:

    - paired runs (`pair` names the column matching them): r_i = x_i / y_i per run, and
      Wilcoxon signed-rank tests of the r_i: the difference test, two-sided, against 1; the
      equivalence test (TOST), two one-sided tests rejecting H01: r >= 1 + delta (the r_i - (1 +
      delta) tend to be negative) and H02: r <= 1 - delta;
    - unpaired runs (``pair=None``): Mann-Whitney rank-sum tests on the logs: log x against log
      y for the difference, and against log y + log(1 +/- delta) for the two equivalence nulls.

    Each test is continuity-corrected when asymptotic (the paper's z = (W - n(n+1)/4 -
    1/2) / sqrt(n(n+1)(2n+1)/24): 30 ratios on one side of 1 give z = 4.772) and exact,
    conditional on ties, where `method` says so. The equivalence test's p is the larger of the
    two one-sided ones. The levels are corrected for the family of 2 tests per benchmark plus
    the overall tests (`correction`).

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
    margin : float
        delta in (0, 1): the equivalence interval of the ratio is [1 - delta, 1 + delta].
    alpha : float
        The family's level.
    correction : {"bonferroni", "holm", "none"}
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

    Returns
    -------
    SparcResult
        ``.benchmarks``: keys, then paired: ``n`` (pairs), ``n_zero`` (ratios exactly 1),
        ``n_unmatched``, ``n_dropped``, ``n_duplicated``; unpaired: ``n`` (the smaller side),
        ``n_baseline``, ``n_candidate``, ``n_dropped_baseline``, ``n_dropped_candidate``; then
        ``median_baseline``, ``median_candidate``, ``ratio_median`` (paired: the median of the
        r_i; unpaired: the ratio of the medians), ``statistic`` (T+ of r_i - 1; unpaired: U of
        the ratio's numerator), ``pvalue_difference``, ``z_difference`` (> 0: ratio above 1),
        ``pvalue_upper``, ``z_upper`` (H01), ``pvalue_lower``, ``z_lower`` (H02; the z's are
        oriented towards equivalence and NaN where the test was exact),
        ``pvalue_equivalence``, ``method``, ``reject_difference``, ``reject_equivalence``,
        ``conclusion``, ``status``. ``.overall``, ``.summary``, ``.warnings``.
    """
    margin, alpha = _sparc_iv(margin, alpha, correction)
    candidates = [candidate] if isinstance(candidate, str) else list(candidate)
    _check_common(baseline, candidates, method, by, min_runs)
    keys = key_list(by)
    table = load_table(data)
    if pair is not None:
        require_columns(table, [pair], hint="pass pair=None for unpaired (independent) runs")

    if pair is not None:
        keys_parts, ratios, median_x, median_y, counts, warnings = _paired_design(
            table, baseline, candidates, keys, variant, value, pair, higher_is_better, unit)
        n = ratios.sizes
        p_diff, z_diff, p_up, z_up, p_low, z_low, statistic, method_used, n_zero = \
            _sparc_paired(ratios, margin, method)
        ratio_median = _median(ratios)
        count_columns = {"n": n, "n_zero": n_zero, **counts}
    else:
        keys_parts, num, den, median_x, median_y, count_columns, warnings = _unpaired_design(
            table, baseline, candidates, keys, variant, value, higher_is_better, unit)
        n = count_columns["n"]
        p_diff, z_diff, p_up, z_up, p_low, z_low, statistic, method_used = \
            _sparc_unpaired(num, den, margin, method)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio_median = median_y / median_x if higher_is_better else median_x / median_y

    n_benchmarks = [len(k) for k in keys_parts]
    comparison = np.repeat(np.arange(len(candidates)), n_benchmarks)
    status = np.where(n == 0, "no runs to compare",
                      np.where(n < min_runs, f"too few runs (fewer than {min_runs})", "ok"))
    tested = status == "ok"
    p_eq = np.fmax(p_up, p_low)
    reject_diff, reject_eq, m, per_test = _family_levels(
        p_diff, p_eq, tested, len(candidates) if overall else 0, alpha, correction)
    conclusion = _conclusions(reject_diff, reject_eq, tested)
    tests = {
        "statistic": statistic, "pvalue_difference": p_diff, "z_difference": z_diff,
        "pvalue_upper": p_up, "z_upper": z_up, "pvalue_lower": p_low, "z_lower": z_low,
        "pvalue_equivalence": p_eq,
    }
    tests = {k: np.where(tested, v, np.nan) for k, v in tests.items()}
    result_table = keyed_table(_stack_keys(keys_parts, candidates, candidate), {
        **count_columns, "median_baseline": median_x, "median_candidate": median_y,
        "ratio_median": ratio_median, **tests, "method": np.where(tested, method_used, "none"),
        "reject_difference": reject_diff, "reject_equivalence": reject_eq,
        "conclusion": pa.array(conclusion, pa.string()), "status": status,
    })

    overall_table = None
    if overall:
        overall_table = _overall_tests(ratio_median, conclusion == CONCLUSIONS[0],
                                       comparison, candidates, method, per_test)
    summary = {
        "protocol": "sparc", "design": "paired" if pair is not None else "unpaired",
        "pair": pair, "baseline": baseline, "candidates": candidates,
        "ratio": _ratio_name(higher_is_better), "higher_is_better": higher_is_better,
        "margin": margin, "equivalence_bounds": (1.0 - margin, 1.0 + margin), "alpha": alpha,
        "correction": correction, "method": method, "tests": m, "alpha_corrected": per_test,
        "fwer_uncorrected": float(1.0 - (1.0 - alpha) ** m),
        "conclusions": {c: int(np.sum(conclusion == c)) for c in CONCLUSIONS},
        "min_runs_to_conclude": _min_runs_to_conclude(per_test, pair is not None),
    }
    base = benchmark_result(result_table, summary, warnings)
    return SparcResult(base.benchmarks, base.summary, base.warnings, overall_table)


def _unpaired_design(table, baseline, candidates, keys, variant, value, higher, unit):
    """Per comparison, the two sides' samples (numerator, denominator of the ratio), their
    medians and counts, from one grouping pass over all the variants."""
    from fastperf.data.samples import check_positive, check_single_unit, variant_samples

    vs = variant_samples(table, variants=[baseline, *candidates], by=keys, variant=variant,
                         value=value)
    check_single_unit(vs, unit)
    xs = vs.samples[baseline]
    check_positive(xs, vs.keys, f"baseline {baseline!r}")
    for name in candidates:
        check_positive(vs.samples[name], vs.keys, f"candidate {name!r}")
    ys = _concat([vs.samples[name] for name in candidates])
    median_x = np.tile(_median(xs), len(candidates))  # the baseline's medians, once
    xs = _concat([xs] * len(candidates))
    n_x, n_y = xs.sizes, ys.sizes
    dropped_x = np.tile(vs.n_dropped[baseline], len(candidates))
    dropped_y = np.concatenate([vs.n_dropped[name] for name in candidates])
    counts = {"n": np.minimum(n_x, n_y), "n_baseline": n_x, "n_candidate": n_y,
              "n_dropped_baseline": dropped_x, "n_dropped_candidate": dropped_y}
    num, den = (ys, xs) if higher else (xs, ys)
    warnings = dropped_warnings(dropped_x + dropped_y, "benchmark(s)",
                                "n_dropped_baseline / n_dropped_candidate")
    return ([vs.keys] * len(candidates), num, den, median_x, _median(ys), counts, warnings)


def _stack_keys(keys_parts: list[pa.Table], candidates: list[str], candidate) -> pa.Table:
    """The key tables of the comparisons, one after the other, with a leading ``candidate``
    column when `candidate` was a list."""
    if isinstance(candidate, str):
        return keys_parts[0]
    names = np.repeat(np.array(candidates, dtype=object), [len(k) for k in keys_parts])
    stacked = pa.concat_tables(keys_parts)
    return stacked.add_column(0, "candidate", pa.array(names, pa.string()))


def _min_runs_to_conclude(level: float, paired: bool) -> dict[str, int] | None:
    """The fewest pairs with which an (untied) exact test can reject at `level`: 2/2^n <= level
    for the two-sided difference test, 1/2^n for each one-sided equivalence test (paired runs;
    None for unpaired runs, where it depends on both sides' sizes)."""
    if not paired:
        return None
    return {"difference": int(math.ceil(math.log2(2.0 / level))),
            "equivalence": int(math.ceil(math.log2(1.0 / level)))}


# ---------------------------------------------------------------------------------------------
# HPT


class HptResult(BenchmarkResult):
    """Result of `hpt`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per benchmark: keys, ``n_baseline``, ``n_candidate``, the dropped counts,
        ``median_baseline``, ``median_candidate``, ``ratio_median``, ``statistic`` (U of the
        ratio's numerator), ``pvalue`` (two-sided rank-sum), ``method``, ``significant``,
        ``score`` (ratio_median - 1 when significant, else 0), ``status``.
    speedups : pyarrow.Table
        Per confidence: the largest speedup r (two decimals, capped at `max_speedup`) at which
        the candidate slowed by r is still better with that reliability, ``capped``.
    summary : dict
        Level 2: ``n`` (non-zero scores), ``statistic`` (T+), ``pvalue`` (one-sided),
        ``reliability`` (1 - p), ``method_used``; counts; ``fwer_uncorrected``.
    """

    extra_tables = ("speedups",)

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 speedups: pa.Table):
        super().__init__(table, summary, warnings)
        self.speedups = speedups

    def extra_title(self, name: str) -> str:
        return "largest speedup holding with each reliability"

    def header(self) -> str:
        s = self.summary
        return "\n".join([
            f"HPT: {s['candidate']!r} against {s['baseline']!r} (ratio = {s['ratio']}), "
            f"level 1 at alpha {s['alpha']}: {s['significant']} of {s['benchmarks_tested']} "
            "benchmarks significant",
            f"Level 2: the candidate is better with reliability {s['reliability']:.6g} "
            f"(one-sided signed-rank p = {s['pvalue']:.6g} over {s['n']} non-zero scores); "
            f"family-wise error of the {s['benchmarks_tested']} + 1 uncorrected tests <= "
            f"{s['fwer_uncorrected']:.4f}",
        ])

    def to_text(self) -> str:
        return self.header() + "\n\n" + super().to_text()

    def to_markdown(self) -> str:
        return "```\n" + self.header() + "\n```\n\n" + super().to_markdown()


def _hpt_level2(a: Samples, b: Samples, ratio: np.ndarray, tested: np.ndarray, log_r: float,
                alpha: float, method: str):
    """HPT at speedup r = exp(log_r) (the candidate slowed by r): level 1 per benchmark, the
    scores, and level 2's one-sided signed-rank test over the tested benchmarks' scores."""
    p1, _, u, method1 = _rank_sum(a, b, log_r, "two-sided", method)
    with np.errstate(invalid="ignore"):
        significant = tested & (p1 <= alpha)
    score = np.where(significant, ratio / math.exp(log_r) - 1.0, 0.0)
    scores = score[tested]
    p2, _, t_plus, method2, n_zero = _signed_rank(
        Samples(scores, np.array([0, scores.size], dtype=np.int64)), "greater", method)
    level2 = {"n": int(scores.size - n_zero[0]), "statistic": float(t_plus[0]),
              "pvalue": float(p2[0]), "reliability": float(1.0 - p2[0]),
              "method_used": str(method2[0])}
    return level2, (p1, u, method1, significant, score)


def _largest_speedup(reliability_at, confidence: float, k_max: int) -> tuple[float, bool]:
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
) -> HptResult:
    """Hierarchical Performance Testing (Chen et al. 2012, as summarised in seed 003 II-B).

    Level 1: per benchmark, the two-sided Wilcoxon rank-sum test of the baseline's against the
    candidate's runs (on the logs, so that slowing the candidate by r is a shift); a
    significant benchmark (p <= alpha) scores its median ratio - 1, the others 0. Level 2: the
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
    unit : str or None
        When the table has this column, each benchmark's values must share one unit.

    Returns
    -------
    HptResult (``.benchmarks``, ``.speedups``, ``.summary``, ``.warnings``).
    """
    from fastperf.engine.ranks import log_values
    from fastperf.data.samples import check_positive, check_single_unit, variant_samples

    alpha = _check_level(alpha, "alpha")
    levels = [_check_level(c, "each confidence") for c in confidences]
    if not isinstance(candidate, str):
        raise InputError("hpt compares one candidate with the baseline: candidate= a variant name")
    _check_common(baseline, [candidate], method, by, 1)
    if not (1.0 <= max_speedup <= 1000.0):
        raise InputError(f"max_speedup must lie in [1, 1000], got {max_speedup!r}")
    vs = variant_samples(load_table(data), variants=[baseline, candidate], by=key_list(by),
                         variant=variant, value=value)
    check_single_unit(vs, unit)
    xs, ys = vs.samples[baseline], vs.samples[candidate]
    check_positive(xs, vs.keys, f"baseline {baseline!r}")
    check_positive(ys, vs.keys, f"candidate {candidate!r}")
    num, den = (ys, xs) if higher_is_better else (xs, ys)
    a, b = log_values(num, "numerator"), log_values(den, "denominator")
    median_x, median_y = _median(xs), _median(ys)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = median_y / median_x if higher_is_better else median_x / median_y
    n_x, n_y = xs.sizes, ys.sizes
    status = np.select([(n_x == 0) & (n_y == 0), n_x == 0, n_y == 0],
                       ["missing baseline and candidate", "missing baseline", "missing candidate"],
                       default="ok")
    tested = status == "ok"

    cache: dict[int, float] = {}

    def reliability_at(k: int) -> float:
        if k not in cache:
            cache[k] = _hpt_level2(a, b, ratio, tested, math.log(k / 100.0), alpha,
                                   method)[0]["reliability"]
        return cache[k]

    level2, (p1, u, method1, significant, score) = _hpt_level2(a, b, ratio, tested, 0.0, alpha,
                                                               method)
    cache[100] = level2["reliability"]
    k_max = int(round(max_speedup * 100))
    found = [_largest_speedup(reliability_at, c, k_max) for c in levels]
    speedups = pa.table({"confidence": pa.array(levels, pa.float64()),
                         "speedup": pa.array([r for r, _ in found], pa.float64()),
                         "capped": pa.array([c for _, c in found], pa.bool_())})
    table = keyed_table(vs.keys, {
        "n_baseline": n_x, "n_candidate": n_y, "n_dropped_baseline": vs.n_dropped[baseline],
        "n_dropped_candidate": vs.n_dropped[candidate],
        "median_baseline": median_x, "median_candidate": median_y,
        "ratio_median": np.where(tested, ratio, np.nan),
        "statistic": np.where(tested, u, np.nan), "pvalue": np.where(tested, p1, np.nan),
        "method": np.where(tested, method1, "none"), "significant": significant,
        "score": np.where(tested, score, np.nan), "status": status,
    })
    n_tested = int(tested.sum())
    summary = {
        "protocol": "hpt", "baseline": baseline, "candidate": candidate,
        "ratio": _ratio_name(higher_is_better), "higher_is_better": higher_is_better,
        "alpha": alpha, "method": method, "benchmarks_tested": n_tested,
        "significant": int(significant.sum()), **level2,
        "fwer_uncorrected": float(1.0 - (1.0 - alpha) ** (n_tested + 1)),
    }
    warnings = dropped_warnings(vs.n_dropped[baseline] + vs.n_dropped[candidate], "benchmark(s)",
                                "n_dropped_baseline / n_dropped_candidate")
    base = benchmark_result(table, summary, warnings)
    return HptResult(base.benchmarks, base.summary, base.warnings, speedups)
