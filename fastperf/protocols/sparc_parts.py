"""The per-benchmark part of `fastperf.protocols.sparc` (its stage, `fastperf.data.chunked`) and
the table-level pieces its finish uses: the two designs' samples and tests, the family's
levels, the overall tests.

A stage row holds every figure of one (candidate, benchmark) that depends on that benchmark
alone: the counts, medians, ratio, the three tests and the status; the family-wise correction
and what follows from it (the rejections, the conclusions, the overall tests) wait for every
row. Hidden columns carry the comparison's index and the median log ratio to the finish.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.samples import PairedSamples
from fastperf.protocols.relevance_chunks import chunk_paired_samples, chunk_variant_samples
from fastperf.protocols.relevance_common import (
    concat_samples, joined_methods, log_ratios, rank_sum_tests, ratio_out_of_range, row_names,
    sample_medians, signed_rank_tests,
)
from fastperf.results.base import dropped_warnings, keyed_table
from fastperf.results.figures import Runs

__all__ = ["sparc_stage", "paired_design", "unpaired_design", "paired_tests", "unpaired_tests",
           "stack_keys", "family_levels", "overall_tests", "min_runs_to_conclude",
           "design_warnings"]


def paired_design(table: pa.Table, plan: dict):
    """Per comparison, the pairs matched by the plan's ``pair`` column.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : dict
        `fastperf.protocols.sparc.sparc_plan`.

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
    higher is better), its log by `fastperf.protocols.relevance_common.log_ratios`.
    """
    from fastperf.data.samples import check_positive, check_single_unit

    baseline, higher = plan["baseline"], plan["higher_is_better"]
    ratios, logs, medians_x, medians_y, counts, keys_parts = [], [], [], [], [], []
    for name in plan["candidates"]:
        pairs = chunk_paired_samples(table, baseline, name, plan["keys"], plan["variant"],
                                     plan["value"], plan["pair"])
        check_single_unit(pairs, plan["unit"])
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


def unpaired_design(table: pa.Table, plan: dict):
    """Per comparison, the two sides' samples (numerator, denominator of the ratio), their
    medians and counts, from one grouping pass over all the variants.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : dict
        `fastperf.protocols.sparc.sparc_plan`.

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
    from fastperf.data.samples import check_positive, check_single_unit

    baseline, candidates = plan["baseline"], plan["candidates"]
    vs = chunk_variant_samples(table, [baseline, *candidates], plan["keys"], plan["variant"],
                               plan["value"])
    check_single_unit(vs, plan["unit"])
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
    num, den = (ys, xs) if plan["higher_is_better"] else (xs, ys)
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
    from fastperf.engine.ranks import log_values

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


def sparc_stage(table: pa.Table, plan: dict, side: dict | None = None) -> pa.Table:
    """The rows of `fastperf.sparc` for the benchmarks of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    plan : dict
        `fastperf.protocols.sparc.sparc_plan`.
    side : dict or None
        Receives ``"runs"`` (unpaired runs, for the report's figures).

    Returns
    -------
    pyarrow.Table
        One row per (candidate, benchmark): every column of `fastperf.sparc`'s table, the
        rejections and conclusion left for the finish, and the hidden ``__comparison`` (the
        candidate's index) and ``__log_median`` (the median log ratio).
    """
    candidates, scale = plan["candidates"], plan["scale"]
    if plan["pair"] is not None:
        keys_parts, ratios, logs, median_x, median_y, counts = paired_design(table, plan)
        n = ratios.sizes
        p_diff, z_diff, p_up, z_up, p_low, z_low, statistic, method_used, n_zero = \
            paired_tests(ratios, logs, plan["bounds"], plan["log_bounds"], scale, plan["method"])
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
            unpaired_tests(num, den, plan["log_bounds"], plan["method"])
        higher = plan["higher_is_better"]
        num_median, den_median = (median_y, median_x) if higher else (median_x, median_y)
        if isinstance(side, dict):
            side["runs"] = Runs(plan["baseline"],
                                candidates[0] if len(candidates) == 1 else "candidate",
                                *((den, num) if higher else (num, den)))
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            ratio_median = num_median / den_median
        log_median = log_ratios(num_median, den_median)

    comparison = np.repeat(np.arange(len(candidates)), [len(k) for k in keys_parts])
    min_runs = plan["min_runs"]
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
    return keyed_table(stack_keys(keys_parts, candidates, plan["listed"]), {
        **count_columns, "median_baseline": median_x, "median_candidate": median_y,
        "ratio_median": ratio_median, **tests, "method": np.where(tested, method_used, "none"),
        "reject_difference": np.zeros(n.shape, dtype=bool),
        "reject_equivalence": np.zeros(n.shape, dtype=bool),
        "conclusion": pa.nulls(n.shape[0], pa.string()), "status": status,
        "__comparison": comparison.astype(np.int64), "__log_median": log_median,
    })


def design_warnings(rows: pa.Table, plan: dict) -> list[str]:
    """The warnings of the design over every benchmark: runs unmatched, duplicated, pairs
    dropped (paired, per candidate) or values dropped (unpaired).

    Parameters
    ----------
    rows : pyarrow.Table
        `sparc_stage` rows of every benchmark, in output order.
    plan : dict
        `fastperf.protocols.sparc.sparc_plan`.

    Returns
    -------
    list of str

    Notes
    -----
    A reporting helper: no formula.
    """
    def column(name):
        return rows.column(name).to_numpy(zero_copy_only=False)

    if plan["pair"] is None:
        return dropped_warnings(column("n_dropped_baseline") + column("n_dropped_candidate"),
                                "benchmark(s)", "n_dropped_baseline / n_dropped_candidate")
    comparison, warnings = column("__comparison"), []
    n_unmatched, n_dropped, n_duplicated = (column(c) for c in
                                            ("n_unmatched", "n_dropped", "n_duplicated"))
    keys = rows.select(plan["keys"])
    for c, name in enumerate(plan["candidates"]):
        mine = np.flatnonzero(comparison == c)
        unmatched = np.flatnonzero(n_unmatched[mine])
        if unmatched.size:
            warnings.append(
                f"{int(n_unmatched[mine].sum())} run(s) present for only one of "
                f"{plan['baseline']!r} and {name!r} were excluded in {unmatched.size} "
                f"benchmark(s) (see n_unmatched): "
                f"{row_names(keys.take(pa.array(mine, pa.int64())), unmatched)}")
        # the message of PairedSamples, from the counts of this candidate's benchmarks
        warnings += PairedSamples.duplicate_warnings(
            SimpleNamespace(n_duplicated=n_duplicated[mine]))
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


def min_runs_to_conclude(level: float, paired: bool) -> dict[str, int] | None:
    """The fewest pairs with which an (untied) exact test can reject at `level`.

    Parameters
    ----------
    level : float
        The per-test level.
    paired : bool

    Returns
    -------
    dict or None
        ``difference``: 2/2^n <= level for the two-sided difference test; ``equivalence``:
        1/2^n <= level for each one-sided equivalence test. None for unpaired runs, where it
        depends on both sides' sizes.
    """
    if not paired:
        return None
    return {"difference": int(math.ceil(math.log2(2.0 / level))),
            "equivalence": int(math.ceil(math.log2(1.0 / level)))}
