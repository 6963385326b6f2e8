"""`compare`: the regression detector. Every benchmark (name + configuration) and every unit,
baseline against each candidate: medians with distribution-free intervals, the change with a
Hodges-Lehmann interval of the ratio, a two-sided rank-sum p-value adjusted over the whole run,
and a verdict (worse, better, no change, equivalent, too few runs)."""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.units import unit_directions, unit_names
from fastperf.data.validation import check_key_clash, check_variants, variant_list
from fastperf.engine.intervals import median_interval_minimum_size, median_interval_ranks
from fastperf.engine.pvalues import first_reason
from fastperf.engine.ranks import rank_sum_test, sort_samples
from fastperf.errors import InputError
from fastperf.io.summaries import is_summary_table
from fastperf.io.read import load_table
from fastperf.io.tables import column_name, require_columns
from fastperf.protocols.compare_common import (
    ADJUSTMENTS, COLUMNS, VERDICTS, CompareResult, adjusted_pvalues, benchmark_identity,
    checked_options, largest_regressions, overall_table, verdicts_of,
)
from fastperf.protocols.compare_summaries import compare_summaries
from fastperf.protocols.relevance_common import concat_samples
from fastperf.results.base import dropped_warnings, keyed_table
from fastperf.results.figures import Runs

__all__ = ["compare", "CompareResult", "ADJUSTMENTS", "VERDICTS"]


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
    median = np.where(has, (take(starts + np.maximum(n - 1, 0) // 2) + take(starts + n // 2)) / 2,
                      np.nan)
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


def _smallest_pvalue_reaches(m: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """Whether the two-sided rank-sum test of sizes m, n can reach `alpha` at all: its smallest
    p-value, 2 / C(m + n, m), is at most alpha."""
    from scipy.special import gammaln

    m, n = m.astype(float), n.astype(float)
    with np.errstate(invalid="ignore"):
        log_choose = gammaln(m + n + 1) - gammaln(m + 1) - gammaln(n + 1)
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
) -> CompareResult:
    """Compare each candidate with the baseline, per benchmark, configuration and unit.

    Parameters
    ----------
    data : measurement table (Arrow object, path or paths)
        One row per measurement.
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
    """
    value = column_name(value, "value")
    variant = column_name(variant, "variant")
    unit = column_name(unit, "unit", allow_none=True)
    alpha, confidence, margin, threshold = checked_options(
        alpha, adjust, confidence, margin, threshold, method, higher_is_better)
    check_variants("compare", baseline, candidate)
    candidates = variant_list(candidate, "candidate")
    if not candidates or baseline in candidates or len(set(candidates)) != len(candidates):
        raise InputError(f"candidate must name variant(s) other than the baseline {baseline!r}, "
                         f"each once; got {candidate!r}")
    table = load_table(data)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    if is_summary_table(table):
        return compare_summaries(
            table, baseline=baseline, candidates=candidates,
            several=isinstance(candidate, (list, tuple)), by=by, variant=variant, unit=unit,
            alpha=alpha, adjust=adjust, confidence=confidence, margin=margin,
            threshold=threshold, higher_is_better=higher_is_better)
    require_columns(table, [variant, value])
    keys, variant_keys = benchmark_identity(table, by, variant, unit, [baseline, *candidates])
    check_key_clash(keys, ("candidate",) + COLUMNS, "compare", value)
    from fastperf.data.samples import variant_samples

    vs = variant_samples(table, variants=[baseline, *candidates], by=keys, variant=variant,
                         value=value)
    k, c = len(vs.keys), len(candidates)
    base = sort_samples(vs.samples[baseline])
    xs = concat_samples([base] * c)
    ys = sort_samples(concat_samples([vs.samples[name] for name in candidates]))
    n_x, n_y = xs.sizes, ys.sizes
    med_x, lo_x, hi_x = _medians(xs, confidence)
    med_y, lo_y, hi_y = _medians(ys, confidence)

    first = lambda s: _ends(s, s.offsets[:-1])  # noqa: E731
    last = lambda s: _ends(s, s.offsets[1:] - 1)  # noqa: E731
    positive = (first(xs) > 0) & (first(ys) > 0)
    # the test on the values themselves (a log could merge two close values into a tie), the
    # effect on their logs where positive (the ratio)
    u, p, _, method_used, _, raw_state = rank_sum_test(ys, xs, "two-sided", method, True, "omit")
    state = raw_state.on_logs(positive)
    all_equal = (first(xs) == last(xs)) & (first(ys) == last(ys)) & (first(xs) == first(ys))
    p = np.where(np.isnan(p) & all_equal, 1.0, p)  # one value on both sides: nothing changed
    estimate, low, high = state.effects("two-sided", confidence)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = np.where(positive, np.exp(estimate), np.nan)
        ci_low = np.where(positive, np.exp(low), np.nan)
        ci_high = np.where(positive, np.exp(high), np.nan)
        delta = np.where(med_x != 0, med_y / med_x - 1.0, np.nan)
    equivalent = np.zeros(k * c, dtype=bool)
    if margin is not None:
        _, eq_low, eq_high = state.effects("two-sided", 1.0 - 2.0 * alpha)
        with np.errstate(invalid="ignore", over="ignore"):
            equivalent = positive & (np.exp(eq_low) >= 1 - margin) & (np.exp(eq_high) <= 1 + margin)

    testable = _smallest_pvalue_reaches(n_x, n_y, alpha) & np.isfinite(p)
    p_adjusted = adjusted_pvalues(p, testable, adjust, alpha)
    sign = np.sign(np.nan_to_num(med_y - med_x))
    sign = np.where(sign == 0, np.sign(np.nan_to_num(estimate)), sign)
    # equal medians and no Hodges-Lehmann shift: the side the rank statistic leans to
    sign = np.where(sign == 0, np.sign(np.nan_to_num(u - n_x * n_y / 2.0)), sign)

    units = unit_names(vs.keys.column(unit), unit) if unit in keys else [None] * k
    directions = unit_directions(dict.fromkeys(units), higher_is_better)
    direction = np.array([directions[u] for u in units] * c, dtype=object)
    with np.errstate(invalid="ignore"):
        verdict = verdicts_of(testable, p_adjusted < alpha, sign, delta, threshold, direction,
                            equivalent)

    n_min = median_interval_minimum_size(confidence, rule="shortest")
    no_interval = np.isnan(lo_x) | np.isnan(hi_x) | np.isnan(lo_y) | np.isnan(hi_y)
    status = first_reason(
        [n_x == 0, n_y == 0, ~testable, ~positive, no_interval],
        ["no baseline runs", "no candidate runs",
         f"too few runs: the smallest p-value 2/C(m+n, m) exceeds alpha={alpha:g}",
         "values <= 0: no ratio interval",
         f"fewer than {n_min} runs: no {confidence:g} median interval"], "ok")
    dropped_x = np.tile(vs.n_dropped[baseline], c)
    dropped_y = np.concatenate([vs.n_dropped[name] for name in candidates])
    columns = {
        "n_baseline": n_x, "n_candidate": n_y, "n_dropped_baseline": dropped_x,
        "n_dropped_candidate": dropped_y, "median_baseline": med_x, "ci_baseline_low": lo_x,
        "ci_baseline_high": hi_x, "median_candidate": med_y, "ci_candidate_low": lo_y,
        "ci_candidate_high": hi_y, "delta": delta, "ratio": ratio, "ci_low": ci_low,
        "ci_high": ci_high, "pvalue": p,
        "pvalue_adjusted": p_adjusted, "method": method_used,
        "direction": pa.array([d if d else "unknown" for d in direction], pa.string()),
        "verdict": pa.array(verdict.tolist(), pa.string()), "status": status}
    if vs.keys.num_columns == 0:  # by=[]: one benchmark per candidate, no key column
        key_table = pa.table({"_": pa.nulls(k * c)}).drop_columns(["_"])
    else:
        key_table = pa.concat_tables([vs.keys] * c)
    if isinstance(candidate, (list, tuple)):
        key_table = key_table.add_column(
            0, "candidate", pa.array(np.repeat(np.array(candidates, dtype=object), k).tolist(),
                                     pa.string() if all(isinstance(n, str) for n in candidates)
                                     else None))
    out = keyed_table(key_table, columns)

    overall = _overall(out, xs, ys, positive, testable, candidates, units, k, baseline,
                       confidence, unit if unit in keys else None)
    warnings = dropped_warnings(dropped_x + dropped_y, "comparison(s)",
                                "n_dropped_baseline / n_dropped_candidate")
    unknown = sorted({str(u) for u, d in directions.items() if d is None})
    if unknown:
        warnings.append(f"unit(s) {unknown} have no known direction: a significant change is "
                        "'changed', not better/worse; say which way is better with "
                        "higher_is_better= (CLI: --higher-is-better / --direction UNIT=higher)")
    counts = {v: int(np.sum(verdict == v)) for v in VERDICTS}
    summary = {
        "function": "compare", "baseline": baseline, "candidates": candidates, "keys": keys,
        "variant_keys": variant_keys, "alpha": alpha, "adjust": adjust,
        "comparisons": int(testable.sum()), "confidence": confidence, "margin": margin,
        "threshold": threshold, "method": method, "verdicts": counts,
        "largest_regressions": largest_regressions(out, keys),
    }
    result = CompareResult(out, summary, warnings, overall, keys, unit if unit in keys else None)
    result.runs = Runs(baseline, candidates[0] if c == 1 else "candidate", xs, ys)
    return result


def _overall(out: pa.Table, xs: Samples, ys: Samples, positive, testable, candidates, units,
             k: int, baseline: str, confidence: float, unit: str | None) -> pa.Table:
    """Per (candidate, unit): benchstat's geomean of medians, the aggregate score ratio with its
    interval, and the verdict counts."""
    from fastperf.protocols.aggregate import aggregate_score

    def score(use):
        values = _score_ratio(xs, ys, use & testable & (xs.sizes > 1) & (ys.sizes > 1),
                              baseline, confidence, aggregate_score)
        return dict(zip(("score_ratio", "score_ci_low", "score_ci_high"), values))

    return overall_table(out, candidates, units, k, unit, "median", positive, extra=score)


def _score_ratio(xs: Samples, ys: Samples, use: np.ndarray, baseline: str, confidence: float,
                 aggregate_score) -> tuple[float, float, float]:
    """`aggregate_score` (geometric mean, error propagation) of the chosen benchmarks' runs on
    each side: the candidate's score over the baseline's, with its interval."""
    rows = np.flatnonzero(use)
    if rows.size < 1:
        return math.nan, math.nan, math.nan
    from fastperf.kernels.grouping import take_segments

    parts = []
    for code, samples in enumerate((xs, ys)):
        values, _, _ = take_segments(samples.values, samples.offsets, rows, False)
        sizes = samples.sizes[rows]
        parts.append(pa.table({"benchmark": pa.array(np.repeat(rows, sizes)),
                               "variant": pa.DictionaryArray.from_arrays(
                                   np.full(values.shape[0], code, dtype=np.int8),
                                   pa.array(["baseline", "candidate"])),
                               "value": pa.array(values)}))
    table = pa.concat_tables(parts)
    scores = aggregate_score(table, method="propagation", baseline="baseline", unit=None,
                             run=None, confidence=confidence).groups.to_pylist()
    row = next(r for r in scores if r["variant"] == "candidate")
    return row["ratio"], row["ratio_ci_low"], row["ratio_ci_high"]

