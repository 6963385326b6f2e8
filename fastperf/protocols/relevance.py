"""What the relevance protocols share (`fastperf.protocols.sparc`, `fastperf.protocols.hpt`
and, for its checks and ratios, `fastperf.protocols.speedup`): argument checks, the whole-table
checks of their plans, ratios of medians and their logs, and the rank tests as they use them
(oriented z, exact p of 1 for all-zero differences).

The protocols run the batched rank tests of `fastperf.engine.ranks` (Wilcoxon signed-rank,
Mann-Whitney rank-sum): one engine call per hypothesis for all benchmarks. The `Samples`
plumbing they share (a chunk's samples, joining batches, medians, exact scaling, list columns)
is in `fastperf.data.samples`.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.grouping import code_of, key_codes
from fastperf.data.levels import Structure, resolve_structure
from fastperf.data.validation import (
    check_choice, check_key_clash, check_unit_interval, check_variants, check_whole_number,
)
from fastperf.engine.ranks import rank_sum_test, signed_rank_test
from fastperf.errors import InputError
from fastperf.io.tables import column_name, key_list, require_columns
from fastperf.results.render import format_cell
from fastperf.stats.forms import paired_column

__all__ = [
    "RANK_METHODS", "SCALES", "RATIO_OUT_OF_RANGE", "check_relevance_table", "check_comparison",
    "relevance_structure",
    "not_tested_warnings", "log_ratios", "equivalence_bounds", "ratio_out_of_range",
    "signed_rank_tests", "rank_sum_tests", "joined_methods", "ratio_name", "row_names",
    "min_runs_to_conclude",
]

#: The status of a benchmark whose median ratio is not a positive finite float64 (e.g. 1e308
#: against 1e-300: the true ratio, 1e608, overflows); its tests are not run.
RATIO_OUT_OF_RANGE = "median ratio outside the float64 range"

#: The `method` values of the rank tests (as `fastperf.mannwhitneyu` / `fastperf.wilcoxon`).
RANK_METHODS = ("auto", "exact", "asymptotic")
#: The scales of SPARC's paired tests and HPT's level-2 scores: "log" works on log r (tests
#: against log 1 = 0 and the logs of the equivalence bounds), "ratio" on r - 1 as the papers do.
SCALES = ("log", "ratio")


def check_relevance_table(table: pa.Table, keys: list[str], variant: str, value: str,
                          variants: Sequence[Any], also_required: Sequence[str] = ()) -> None:
    """The whole-table checks of a relevance protocol's plan: the value column's name, a
    non-empty table, the columns, and every variant of `variants` present.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table, or a dataset's key table (`fastperf.data.chunked`).
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.
    variants : sequence
        The variants compared, in the order their absence is reported.
    also_required : sequence of str
        Further columns that must exist (the ``run`` column of paired runs).

    Raises
    ------
    InputError
        The messages of `fastperf.data.samples.variant_samples`: an empty table, a missing
        column, a variant that no row has (listing those present).

    Notes
    -----
    The checks `fastperf.data.samples.grouped_values` and `variant_takes` make, in that order,
    moved before the per-chunk work. A key table lists no numeric label column (its values are
    null there), so a numeric variant column that is entirely null is not checked.
    """
    column_name(value, "value")
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, keys + [variant, value, *also_required])
    column = table.column(variant)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    numeric = pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)
    if numeric and column.null_count == len(column):
        return
    _, dictionary = key_codes(column, variant)
    for name in dict.fromkeys(variants):
        code_of(dictionary, name, f"the {variant!r} column")


def relevance_structure(table: pa.Table, keys: list[str], variant: str, value: str,
                        unit: str | None, pair: str | None, levels: Any,
                        block: Any) -> tuple[Structure, str | None]:
    """The structure a relevance protocol's plan uses, and the column its paired design pairs
    on.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table, or a dataset's key table.
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.
    unit, pair : str or None
        The unit column and the pairing column (None: independent runs).
    levels, block
        As `fastperf.data.levels.resolve_structure`.

    Returns
    -------
    structure : Structure
    pair : str or None
        `pair` for a flat structure; else the block (`fastperf.stats.forms.paired_column`: a
        paired design of nested data without a block is an `InputError`).

    Notes
    -----
    Argument plumbing: no formula.
    """
    roles = {column: role for column, role in (
        *((key, "a benchmark key column") for key in keys), (variant, "the variant column"),
        (value, "the value column"), (unit, "the unit column")) if isinstance(column, str)}
    if isinstance(pair, str) and pair in roles:  # the runs' pairing is a column of its own
        raise InputError(f"pair={pair!r} is {roles[pair]}: pair= names the column "
                         "that numbers the runs paired across the variants (pass pair=None "
                         "for independent runs)")
    taken = [*keys, variant, value, *(c for c in (unit, pair) if isinstance(c, str))]
    structure = resolve_structure(table.column_names, levels, block, taken=taken)
    if pair is not None and not structure.flat:
        pair = paired_column(structure)
    return structure, pair


def check_comparison(function: str, baseline: Any, candidates: list, method: str,
                     by: str | Sequence[str] | None, min_runs: Any,
                     output_columns: Sequence[str], value: str, variant: str,
                     unit: str | None) -> int:
    """Check the arguments every relevance protocol shares.

    Parameters
    ----------
    function : str
        The protocol's name, for the messages ("sparc", "hpt").
    baseline : variant name
        The reference variant.
    candidates : list
        The candidate variants (one for HPT).
    method : str
        One of `RANK_METHODS`.
    by : str, sequence of str or None
        The benchmark key columns.
    min_runs : int
        The fewest runs (pairs) for a benchmark to be tested, a whole number >= 1.
    output_columns : sequence of str
        The protocol's per-benchmark columns, which a key column may not be named like.
    value, variant : str
        The value and variant columns, which may not be key columns.
    unit : str or None
        The unit column (one unit per benchmark), which may be neither of them.

    Returns
    -------
    int
        `min_runs` as an int.

    Raises
    ------
    InputError
        A missing variant name, a candidate equal to the baseline or listed twice, an unknown
        method, a bad `min_runs`, or a key column named like an output column or being the
        value or the variant column.

    Notes
    -----
    The checks themselves are those of `fastperf.data.validation` (`check_variants`,
    `check_choice`, `check_whole_number`, `check_key_clash`).
    """
    missing = not candidates or any(c is None for c in candidates)
    check_variants(function, baseline, None if missing else candidates)
    if baseline in candidates:
        raise InputError(f"baseline and candidate are the same variant ({baseline!r})")
    if len(set(candidates)) != len(candidates):
        raise InputError(f"a candidate is listed twice: {candidates}")
    check_choice(method, "method", RANK_METHODS)
    min_runs = check_whole_number(min_runs, "min_runs", minimum=1)
    check_key_clash(key_list(by), output_columns, function, value, variant, unit)
    return min_runs


def not_tested_warnings(status: np.ndarray) -> list[str]:
    """The warning for the benchmarks not tested (the summary's ``rows_not_ok`` counts them).

    Parameters
    ----------
    status : numpy.ndarray of str
        The per-benchmark ``status`` column ("ok" when tested).

    Returns
    -------
    list of str
        "N benchmark(s) could not be tested (see status)", or none.

    Notes
    -----
    A reporting helper: no formula.
    """
    not_ok = int((np.asarray(status) != "ok").sum())
    return [f"{not_ok} benchmark(s) could not be tested (see status)"] if not_ok else []


def equivalence_bounds(margin: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """The equivalence interval of the ratio, and its logs, from a margin.

    Parameters
    ----------
    margin : float or (float, float)
        delta in (0, 1), for the interval [1 - delta, 1 + delta]; or the interval's bounds
        (low, high) themselves, 0 < low < 1 < high (an asymmetric margin, e.g. the mirror
        image (1 / (1 + delta), 1 / (1 - delta)) of delta's interval when the variants swap).

    Returns
    -------
    bounds : (float, float)
        (low, high) on the ratio scale.
    log_bounds : (float, float)
        (log low, log high); ``log1p(-delta)``, ``log1p(delta)`` for a delta.

    Raises
    ------
    InputError
        A delta outside (0, 1), or bounds that are not two numbers with 0 < low < 1 < high.

    Notes
    -----
    The TOST equivalence interval (Schuirmann 1987) as SPARC states it (Tullos, Graham, Jordan
    & Patel 2021, section III-B: H01: r >= 1 + delta, H02: r <= 1 - delta).
    """
    if isinstance(margin, (tuple, list)):
        if len(margin) != 2 or any(isinstance(b, (bool, str, bytes)) for b in margin):
            raise InputError(f"margin must be a delta in (0, 1) or two bounds (low, high) with "
                             f"0 < low < 1 < high, got {margin!r}")
        try:
            low, high = float(margin[0]), float(margin[1])
        except (TypeError, ValueError):
            raise InputError(f"margin bounds must be numbers, got {margin!r}") from None
        if not 0.0 < low < 1.0 < high < math.inf:
            raise InputError(f"margin bounds must satisfy 0 < low < 1 < high, got {margin!r}")
        return (low, high), (math.log(low), math.log(high))
    delta = check_unit_interval(margin, "margin (the equivalence margin delta)")
    return (1.0 - delta, 1.0 + delta), (math.log1p(-delta), math.log1p(delta))


def log_ratios(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """log(numerator / denominator), elementwise, antisymmetric and tie-preserving.

    Parameters
    ----------
    numerator, denominator : numpy.ndarray
        Positive values, paired elementwise.

    Returns
    -------
    numpy.ndarray
        ``sign * log(max / min)`` with the sign of numerator - denominator (0 where equal).

    Notes
    -----
    Where the quotient overflows (finite values more than ~1.8e308 apart in ratio) the log is
    ``log(max) - log(min)``, finite. Computed from the larger over the smaller value so that
    swapping the two sides negates
    every value exactly (``log(y / x)`` is not always ``-log(x / y)`` in floating point, as
    ``y / x`` and ``x / y`` round separately), and pairs whose ratios (or inverse ratios)
    round to the same quotient get the same ``|log r|``: the ties of the signed-rank test do
    not depend on which side is the baseline.
    """
    high = np.maximum(numerator, denominator)
    low = np.minimum(numerator, denominator)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        quotient = high / low
        magnitude = np.log(quotient)
        # a quotient past float64 (1e308 / 1e-300): the difference of the logs, still finite
        over = np.isinf(quotient) & np.isfinite(high) & (low > 0)
        if over.any():
            magnitude = np.where(over, np.log(high) - np.log(low), magnitude)
    return np.where(numerator >= denominator, magnitude, -magnitude)


def ratio_out_of_range(ratio: np.ndarray, status: np.ndarray) -> np.ndarray:
    """`status` with `RATIO_OUT_OF_RANGE` where it is "ok" but `ratio` is 0, infinite or NaN.

    Parameters
    ----------
    ratio : numpy.ndarray
        The median ratio of each benchmark.
    status : numpy.ndarray of str
        The status so far.

    Returns
    -------
    numpy.ndarray of str
        The new status: no benchmark is "ok" with a ratio that float64 cannot hold.
    """
    bad = ~((ratio > 0) & np.isfinite(ratio))
    return np.where((status == "ok") & bad, RATIO_OUT_OF_RANGE, status)


def signed_rank_tests(ds: Samples, alternative: str,
                      method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                            np.ndarray]:
    """SPARC's Wilcoxon signed-rank test of each sample of differences.

    Parameters
    ----------
    ds : Samples
        The differences (ratios minus the null centre), one sample per test.
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis about the differences' centre.
    method : {"auto", "exact", "asymptotic"}
        As `fastperf.wilcoxon`.

    Returns
    -------
    p : numpy.ndarray
        The p-values; 1 where every difference is 0 (no evidence against H0).
    z : numpy.ndarray
        The normal score oriented towards the alternative (two-sided: positive when T+ exceeds
        its null mean); NaN where the test was exact.
    t_plus : numpy.ndarray
        The signed-rank statistic T+; 0 where every difference is 0 (a sum over no nonzero
        difference, as scipy's exact ``wilcoxon`` gives).
    method_used : numpy.ndarray of str
        "exact", "exact (ties)" or "asymptotic" per test.
    n_zero : numpy.ndarray
        The zero differences dropped per test.

    Notes
    -----
    Wilcoxon (1945), zeros dropped (Wilcoxon's treatment), with the continuity correction of
    the asymptotic z = (T+ - n(n+1)/4 - 1/2) / sqrt(n(n+1)(2n+1)/24) as Tullos, Graham, Jordan
    & Patel (2021), SPARC, eq. 1, and exact tails conditional on ties where `method` says so.
    """
    _, p, status, method_used, z, n_zero, r_plus, _ = signed_rank_test(
        ds, alternative, method, "wilcox", True, "omit")
    all_zero = status == "no nonzero differences"
    p = np.where(all_zero, 1.0, p)  # T+ = T- = 0 whatever the signs: exactly 1
    r_plus = np.where(all_zero, 0.0, r_plus)  # the sum over no nonzero difference (scipy: 0)
    method_used = np.where(all_zero, "exact", method_used)
    if alternative == "two-sided":  # the test reports -|z|: sign it by T+ against its mean
        nonzero = (ds.sizes - n_zero).astype(float)
        z = np.abs(z) * np.sign(r_plus - nonzero * (nonzero + 1) / 4)
    elif alternative == "less":  # oriented towards the alternative: large z rejects H0
        z = -z
    return p, z, r_plus, method_used, n_zero


def rank_sum_tests(a: Samples, b: Samples, shift: float, alternative: str,
                   method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mann-Whitney rank-sum test of each sample of `a` against `b` + `shift`.

    Parameters
    ----------
    a, b : Samples
        The two sides (logs of the values), sample i of `a` against sample i of `b`.
    shift : float
        Added to every value of `b` (a log-ratio: the candidate slowed or sped up).
    alternative : {"two-sided", "less", "greater"}
        The alternative about `a` against the shifted `b`.
    method : {"auto", "exact", "asymptotic"}
        As `fastperf.mannwhitneyu`.

    Returns
    -------
    p : numpy.ndarray
        The p-values.
    z : numpy.ndarray
        The normal score: two-sided, positive when `a` tends to be larger; one-sided, oriented
        towards the alternative. NaN where the test was exact.
    u : numpy.ndarray
        U of `a`.
    method_used : numpy.ndarray of str
        The method used per test.

    Notes
    -----
    Mann & Whitney (1947) with the continuity correction; exact tails conditional on ties by
    the network algorithm (Mehta, Patel & Tsiatis 1984) where `method` says so.
    """
    shifted = Samples(b.values + shift, b.offsets) if shift else b
    u, p, _, method_used, z, state = rank_sum_test(a, shifted, alternative, method, True, "omit")
    if alternative == "two-sided":  # every value tied: z = 0 (zero null variance), p = 1
        z = z * np.sign(u - state.m * state.n / 2.0)
    return p, z, u, method_used


def joined_methods(*methods: np.ndarray) -> np.ndarray:
    """One method per row: the common one, else the distinct ones joined by " / ".

    Parameters
    ----------
    *methods : numpy.ndarray of str
        The method used by each test, one array per hypothesis, aligned by row.

    Returns
    -------
    numpy.ndarray of str
        Per row the method, or e.g. "exact / asymptotic" where the tests differ.

    Notes
    -----
    A reporting helper: no formula.
    """
    first = methods[0]
    same = np.logical_and.reduce([m == first for m in methods[1:]])
    if same.all():
        return first
    out = first.astype(object)
    for i in np.flatnonzero(~same):
        out[i] = " / ".join(dict.fromkeys(m[i] for m in methods))
    return out.astype(str)


def ratio_name(higher: bool) -> str:
    """The ratio in words, > 1 when the candidate is better.

    Parameters
    ----------
    higher : bool
        Whether higher values are better (throughputs).

    Returns
    -------
    str
        "baseline / candidate" for times, "candidate / baseline" when higher is better.

    Notes
    -----
    SPARC and HPT orient the ratio so that a speedup is above 1 (Tullos, Graham, Jordan & Patel
    2021; Chen et al., HPT, 2012).
    """
    return "candidate / baseline" if higher else "baseline / candidate"


def row_names(keys: pa.Table, rows: np.ndarray, limit: int = 5) -> str:
    """Some rows of a key table in words, for a message.

    Parameters
    ----------
    keys : pyarrow.Table
        The key columns, one row per benchmark.
    rows : numpy.ndarray of int
        The rows to name.
    limit : int
        At most this many are named; the rest are counted.

    Returns
    -------
    str
        The rows' key values, comma-separated within a row and "; " between rows, then
        "and N more" when `rows` holds more than `limit`.

    Notes
    -----
    A reporting helper: no formula.
    """
    names = [", ".join(format_cell(v) for v in row.values())
             for row in keys.take(pa.array(rows[:limit], pa.int64())).to_pylist()]
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    return "; ".join(names) + more


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
