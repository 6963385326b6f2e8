"""Per-benchmark samples of chosen variants from a measurement table, for the test functions.

`variant_samples` is how every table-level test gets its data: one grouping pass over
(benchmark keys, variant), then for each requested variant the benchmark-aligned samples as CSR
segments (NaN/null dropped and counted), ready for the kernels. A chunk of a table run in
group-complete parts (`fastperf.data.chunked`) may lack a variant: `chunk_variant_samples` and
`chunk_paired_samples` give it empty samples. Below them, the operations on `Samples` batches
the protocols share: joining batches, medians, exact power-of-two scaling, and a batch carried
in an Arrow list column.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.arrays import Samples
from fastperf.data.grouping import Groups, code_of, group_rows, key_codes
from fastperf.errors import InputError
from fastperf.io.read import load_table
from fastperf.io.tables import (
    column_name, describe_group, has_column, key_list, require_columns, value_column,
)
from fastperf.kernels.descriptive import order_statistics
from fastperf.kernels.grouping import pair_by_run, take_segments, take_unit_runs

__all__ = [
    "VariantSamples", "variant_samples", "group_samples", "PairedSamples", "paired_variant_samples",
    "group_constant", "group_weights", "varying_group", "check_single_unit", "check_positive",
    "present_variants", "split_by_variant", "chunk_variant_samples", "chunk_paired_samples",
    "concat_samples",
    "sample_medians", "binary_exponents", "scaled_samples", "samples_column", "column_samples",
]


class _BenchmarkGroups:
    """What per-benchmark samples share: `keys` (one row per benchmark), the measurement
    `table`, its rows' `groups` by (benchmark keys, variant) and the CSR `benchmark_offsets`
    saying which groups each benchmark owns."""

    def per_benchmark(self, per_group: np.ndarray, what: str) -> np.ndarray:
        """One value per benchmark from one value per (benchmark, variant) group of `groups`.

        An `InputError` names the first benchmark whose variants disagree (`what` says what the
        value is, e.g. "weight column 'w'").
        """
        b = self.varying_benchmark(per_group)
        if b >= 0:
            raise InputError(f"{what} differs between the variants of benchmark "
                             f"{describe_group(self.keys, b)}; give one value per benchmark")
        return per_group[self.benchmark_offsets[:-1]]

    def varying_benchmark(self, per_group: np.ndarray) -> int:
        """The first benchmark whose groups disagree on `per_group`, or -1."""
        starts = self.benchmark_offsets[:-1]
        if starts.size == 0:
            return -1
        bad = np.flatnonzero(np.minimum.reduceat(per_group, starts)
                             != np.maximum.reduceat(per_group, starts))
        return int(bad[0]) if bad.size else -1


@dataclass(frozen=True)
class VariantSamples(_BenchmarkGroups):
    """Benchmark-aligned samples of several variants.

    Attributes
    ----------
    keys : pyarrow.Table
        One row per benchmark (the `by` key columns), in the grouper's order. Every benchmark
        of the table is here, even one that lacks some of the variants.
    samples : dict of variant name -> Samples
        Sample ``i`` is benchmark ``i``'s values for that variant (empty when it has none).
    n_dropped : dict of variant name -> int64 array
        Null/NaN values dropped per benchmark.
    table : pyarrow.Table
        The measurement table as loaded.
    groups : Groups
        Its rows grouped by (`by` keys, `variant`): a benchmark's groups are adjacent.
    benchmark_offsets : int64 array
        CSR offsets into `groups`: benchmark ``i`` owns groups
        ``benchmark_offsets[i]:benchmark_offsets[i + 1]``.
    column : numpy.ndarray or None
        The value column of `table` in row order (float64, NaN: missing) where the samples
        were read from it (`chunk_variant_samples`), for a caller that reads it again; else
        None.
    """

    keys: pa.Table
    samples: dict[str, Samples]
    n_dropped: dict[str, np.ndarray]
    table: pa.Table
    groups: Groups
    benchmark_offsets: np.ndarray
    column: np.ndarray | None = None


def varying_group(column: np.ndarray, groups: Groups) -> tuple[int, bool]:
    """The first group in which `column` (one float per table row) varies or is NaN, and
    whether it is NaN there; (-1, False) when it is constant in every group.

    Parameters
    ----------
    column : numpy.ndarray
        One float per table row.
    groups : Groups
        The rows' groups.

    Returns
    -------
    group : int
        The first group where `column` varies or is NaN, or -1.
    is_nan : bool
        Whether it is NaN there.

    Notes
    -----
    Data plumbing: no formula.
    """
    spread = groups.gather(column)
    starts = groups.offsets[:-1]
    low = np.fmin.reduceat(spread, starts)
    high = np.fmax.reduceat(spread, starts)
    bad = np.flatnonzero((low != high) | np.isnan(low))
    if not bad.size:
        return -1, False
    return int(bad[0]), bool(np.isnan(low[bad[0]]))


def group_constant(column: np.ndarray, groups: Groups, what: str) -> np.ndarray:
    """One value per group of `column` (one float per table row), which must not vary within a
    group; an `InputError` names the first group where it does (`what` names the column).

    Parameters
    ----------
    column : numpy.ndarray
        One float per table row.
    groups : Groups
        The rows' groups.
    what : str
        The column in words, for the message.

    Returns
    -------
    numpy.ndarray
        One value per group.

    Raises
    ------
    InputError
        A group in which the column varies or is null.

    Notes
    -----
    Data plumbing: no formula.
    """
    g, null = varying_group(column, groups)
    if g >= 0:
        raise InputError(f"{what} {'is null' if null else 'varies'} within "
                         f"{describe_group(groups.keys, g)}; give one value per benchmark")
    return column[groups.first_row]


def group_weights(table: pa.Table, weights, by: list[str], groups: Groups) -> np.ndarray:
    """One weight per group of `groups` (whose keys include the `by` columns): from a column of
    per-benchmark weights, a mapping benchmark -> weight, or 1 each (`weights` None).

    Weights must be positive and finite; a mapping needs a single `by` column and an entry for
    every benchmark.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table.
    weights : None, str or mapping
        A column of per-benchmark weights, a mapping benchmark -> weight, or None (1 each).
    by : list of str
        The benchmark key columns.
    groups : Groups
        The groups to weigh (their keys include `by`).

    Returns
    -------
    numpy.ndarray
        One positive weight per group.

    Raises
    ------
    InputError
        A missing or varying weight column, a mapping without an entry for some benchmark or with
        several key columns, or weights that are not positive and finite.

    Notes
    -----
    The weights W of the Speedup-Test's overall speedup (Touati, Worms & Briais 2013, eq. 1) and
    of Pakhomov's weighted scores (seed 004); no formula here.
    """
    if weights is None:
        return np.ones(groups.n_groups)
    if isinstance(weights, str):
        require_columns(table, [weights], hint="weights= names a column of per-benchmark weights")
        w = group_constant(value_column(table, weights, "weights"), groups,
                           f"weight column {weights!r}")
    elif isinstance(weights, Mapping):
        if len(by) != 1:
            raise InputError("a weights mapping needs a single benchmark key column (by=...)")
        # look the weights up once per distinct benchmark (the key's dictionary), then take them
        # per group by code
        key = groups.keys.column(by[0]).combine_chunks()
        position = pc.index_in(key.dictionary, value_set=pa.array(list(weights)))
        used = np.unique(key.indices.to_numpy(zero_copy_only=False))
        unknown = used[pc.is_null(position).to_numpy(zero_copy_only=False)[used]]
        if unknown.size:
            raise InputError(f"weights has no entry for benchmark {key.dictionary[int(unknown[0])].as_py()!r} "
                             f"({unknown.size} missing)")
        entries = list(weights.values())
        if not all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                   for v in entries):  # not "2", which numpy would read as 2.0
            raise InputError("weights must map benchmarks to numbers")
        mapped = np.asarray(entries, dtype=np.float64)
        by_entry = mapped[position.fill_null(0).to_numpy(zero_copy_only=False)]
        w = by_entry[key.indices.to_numpy(zero_copy_only=False)]
    else:
        raise InputError("weights must be None, a column name or a mapping benchmark -> weight")
    if not (np.isfinite(w) & (w > 0)).all():
        raise InputError("weights must be positive and finite")
    return w


def grouped_values(data: Any, keys: list[str], value: str,
                   also_required: Sequence[str] = ()) -> tuple[pa.Table, Groups, np.ndarray]:
    """Load `data`, check it, group its rows by `keys`; return the table, groups and values.

    The values come back gathered into group order (NaN kept). An empty table, a missing
    column or an infinite value is an `InputError`.

    Parameters
    ----------
    data : measurement table (Arrow object or path(s))
        The data.
    keys : list of str
        The grouping columns.
    value : str
        The value column.
    also_required : sequence of str
        Further columns that must exist.

    Returns
    -------
    table : pyarrow.Table
        The loaded table.
    groups : Groups
        Its rows grouped by `keys`.
    grouped : numpy.ndarray
        The values in group order (NaN kept).

    Raises
    ------
    InputError
        An empty table, a missing column or an infinite value.

    Notes
    -----
    Data plumbing: no formula.
    """
    table, groups, column, _ = _grouped_column(data, keys, value, also_required)
    return table, groups, groups.gather(column)


def _grouped_column(data: Any, keys: list[str], value: str, also_required: Sequence[str] = ()
                    ) -> tuple[pa.Table, Groups, np.ndarray, np.ndarray]:
    """`grouped_values` without the gather: the table, its groups, the value column in row
    order (float64, NaN: missing) and the rows whose value is NaN."""
    column_name(value, "value")
    table = load_table(data)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, keys + [value, *also_required])
    groups = group_rows(table, keys)
    column = value_column(table, value)
    not_finite = np.flatnonzero(~np.isfinite(column))  # the usual case: none
    if np.isinf(column[not_finite]).any():
        raise InputError(
            f"value column {value!r} holds infinite values; an infinite measurement is a broken "
            "one: remove it or set it to null (nulls and NaN are dropped and counted)"
        )
    return table, groups, column, not_finite


def _run_counts(groups: Groups, nan_rows: np.ndarray) -> np.ndarray:
    """The values of each group that are not NaN, when each group is one run of rows
    (``groups.order`` None) and `nan_rows` are the rows whose value is NaN."""
    counts = groups.sizes
    if nan_rows.size:
        by_start = np.argsort(groups.first_row, kind="stable")
        run = by_start[np.searchsorted(groups.first_row[by_start], nan_rows, side="right") - 1]
        counts = counts - np.bincount(run, minlength=groups.n_groups)
    return counts.astype(np.int64)


def variant_takes(groups, keys: list[str], variant: str, names: Sequence[str]) -> tuple[Groups,
                  dict[Any, np.ndarray]]:
    """For each variant in `names`, the group holding each benchmark's values (-1: none).

    Returns the benchmark groups (one per `keys` value) and a dict name -> int64 array.

    Parameters
    ----------
    groups : Groups
        Rows grouped by (`keys`, `variant`).
    keys : list of str
        The benchmark key columns.
    variant : str
        The variant column.
    names : sequence
        The variants wanted.

    Returns
    -------
    benchmarks : Groups
        The groups' keys grouped by the benchmark keys (one group per benchmark).
    takes : dict
        Variant name -> int64 array: per benchmark the group holding its values, -1 when none.

    Raises
    ------
    InputError
        A variant that no row has (the message lists those present).

    Notes
    -----
    Data plumbing: no formula.
    """
    # groups are ordered by the benchmark keys first, so each benchmark's groups are adjacent
    benchmarks = group_rows(groups.keys, keys)
    benchmark_of_group = np.repeat(np.arange(benchmarks.n_groups), benchmarks.sizes)
    codes, dictionary = key_codes(groups.keys.column(variant), variant)
    takes = {}
    for name in dict.fromkeys(names):
        chosen = np.flatnonzero(codes == code_of(dictionary, name, f"the {variant!r} column"))
        take = np.full(benchmarks.n_groups, -1, dtype=np.int64)
        take[benchmark_of_group[chosen]] = chosen
        takes[name] = take
    return benchmarks, takes


def variant_samples(
    data: Any,
    *,
    variants: Sequence[str],
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
) -> VariantSamples:
    """Split a measurement table into per-benchmark samples of each of `variants`.

    Parameters
    ----------
    data : measurement table (Arrow object or path(s))
        The data.
    variants : sequence of str
        The variants wanted.
    by : str, sequence of str or None
        The benchmark key columns.
    variant, value : str
        The variant and value columns.

    Returns
    -------
    VariantSamples
        Per variant the benchmark-aligned samples (NaN dropped and counted).

    Raises
    ------
    InputError
        Missing columns, an empty table, infinite values, or a variant name that no row has (the
        message lists the variants present).

    Notes
    -----
    Data plumbing: no formula.
    """
    keys = key_list(by)
    table, groups, grouped = grouped_values(data, keys + [variant], value)
    return split_by_variant(groups, lambda take: take_segments(grouped, groups.offsets, take,
                                                               True),
                            table, variants, keys, variant, every_variant=True)


def split_by_variant(groups: Groups, take_groups: Callable[[np.ndarray], tuple],
                     table: pa.Table, variants: Sequence[Any], keys: list[str], variant: str,
                     every_variant: bool = False) -> VariantSamples:
    """Benchmark-aligned samples of each of `variants` from rows already grouped by (`keys`,
    `variant`).

    Parameters
    ----------
    groups : Groups
        The rows grouped by (`keys`, `variant`): a benchmark's groups adjacent.
    take_groups : callable
        ``take_groups(take) -> (values, offsets, n_dropped)``: the values of the groups `take`
        names (-1: none), NaN left out and counted, as `take_segments` gives them.
    table : pyarrow.Table
        The table the groups are of.
    variants : sequence
        The variants wanted.
    keys : list of str
        The benchmark key columns.
    variant : str
        The variant column.
    every_variant : bool
        Whether each variant must have rows (else an `InputError` listing those present); when
        False, a variant without rows has an empty sample in every benchmark, with no value
        dropped (a chunk's view of a benchmark of the whole table without it).

    Returns
    -------
    VariantSamples

    Notes
    -----
    Data plumbing: no formula.
    """
    names = list(dict.fromkeys(variants))
    wanted = names if every_variant else present_variants(groups.keys, variant, names)
    benchmarks, takes = variant_takes(groups, keys, variant, wanted)
    n = benchmarks.n_groups
    samples, dropped = {}, {}
    for name in names:
        if name in takes:
            kept, offsets, n_dropped = take_groups(takes[name])
            samples[name], dropped[name] = Samples(kept, offsets), n_dropped
        else:
            samples[name] = Samples(np.empty(0, dtype=np.float64), np.zeros(n + 1, dtype=np.int64))
            dropped[name] = np.zeros(n, dtype=np.int64)
    return VariantSamples(benchmarks.keys, samples, dropped, table, groups, benchmarks.offsets)


def group_samples(
    data: Any,
    *,
    by: str | Sequence[str] | None = "benchmark",
    variant: str | None = "variant",
    value: str = "value",
) -> tuple[pa.Table, Samples, np.ndarray]:
    """One sample per (`by` keys, `variant`) group of a measurement table, NaN/null dropped.

    Parameters
    ----------
    data : measurement table (Arrow object or path(s))
        The data.
    by : str, sequence of str or None
        The benchmark key columns.
    variant : str or None
        The variant column (None: groups by `by` only).
    value : str
        The value column.

    Returns
    -------
    keys : pyarrow.Table
        One row per group, keys first, in the grouper's order.
    samples : Samples
        One CSR segment per group.
    n_dropped : numpy.ndarray
        The null/NaN values dropped per group.

    Raises
    ------
    InputError
        Missing columns, an empty table or infinite values.

    Notes
    -----
    Data plumbing: no formula.
    """
    keys = key_list(by) + ([variant] if variant is not None else [])
    _, groups, grouped = grouped_values(data, keys, value)
    take = np.arange(groups.n_groups, dtype=np.int64)
    kept, offsets, n_dropped = take_segments(grouped, groups.offsets, take, True)
    return groups.keys, Samples(kept, offsets), n_dropped


@dataclass(frozen=True)
class PairedSamples(_BenchmarkGroups):
    """Per-benchmark pairs (baseline run i, candidate run i) matched by the `run` column.

    Attributes
    ----------
    keys : pyarrow.Table
        One row per benchmark (the `by` columns), every benchmark of the table.
    baseline, candidate : Samples
        Pair j of benchmark i is ``(baseline.values[k], candidate.values[k])`` with
        ``k = baseline.offsets[i] + j``; both share the same offsets.
    n_unmatched : int64 array
        Runs present for only one of the two variants (dropped).
    n_dropped : int64 array
        Pairs dropped because a value was null/NaN.
    n_duplicated : int64 array
        Runs occurring more than once for one variant (ambiguous, dropped).
    table, groups, benchmark_offsets : as `VariantSamples`.
    """

    keys: pa.Table
    baseline: Samples
    candidate: Samples
    n_unmatched: np.ndarray
    n_dropped: np.ndarray
    n_duplicated: np.ndarray
    table: pa.Table
    groups: Groups
    benchmark_offsets: np.ndarray

    def duplicate_warnings(self) -> list[str]:
        """The warning for runs left unpaired because they repeat (none when no run repeats).

        Returns
        -------
        list of str
            One warning when some run value repeats within a variant of a benchmark, else none.

        Notes
        -----
        Data plumbing: no formula.
        """
        if not self.n_duplicated.any():
            return []
        return [f"{int(self.n_duplicated.sum())} run value(s) occur more than once for a variant "
                "of a benchmark: those runs were not paired"]


def paired_variant_samples(
    data: Any,
    *,
    baseline: str,
    candidate: str,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    run: str = "run",
) -> PairedSamples:
    """Per-benchmark baseline/candidate pairs of a measurement table, matched by `run`.

    The run column may hold any groupable type (run numbers, timestamps, labels); a run is
    matched when the same run value occurs once for each variant of a benchmark.

    Parameters
    ----------
    data : measurement table (Arrow object or path(s))
        The data.
    baseline, candidate : str
        The two variants.
    by : str, sequence of str or None
        The benchmark key columns.
    variant, value, run : str
        The variant, value and run columns.

    Returns
    -------
    PairedSamples
        Per benchmark the matched pairs, with the unmatched, dropped and duplicated counts.

    Raises
    ------
    InputError
        A missing column, an empty table, infinite values or a variant that no row has.

    Notes
    -----
    The pairing of SPARC's paired design (Tullos, Graham, Jordan & Patel 2021) and of paired
    tests: runs matched by their run value; no formula.
    """
    keys = key_list(by)
    table, groups, grouped = grouped_values(data, keys + [variant], value, also_required=[run])
    run_codes, _ = key_codes(table.column(run), run)
    grouped_runs = groups.gather(run_codes.astype(np.int64))
    benchmarks, takes = variant_takes(groups, keys, variant, [baseline, candidate])
    sides = []
    for name in (baseline, candidate):
        # NaN values stay (as NaN) so that their runs still match; pair_by_run drops them
        values, offsets, _ = take_segments(grouped, groups.offsets, takes[name], False)
        runs, _, _ = take_segments(grouped_runs, groups.offsets, takes[name], False)
        sides.append((values, runs, offsets))
    (xv, xr, xo), (yv, yr, yo) = sides
    px, py, offsets, unmatched, nan_pairs, duplicated = pair_by_run(xv, xr, xo, yv, yr, yo)
    return PairedSamples(benchmarks.keys, Samples(px, offsets), Samples(py, offsets),
                         unmatched, nan_pairs, duplicated, table, groups, benchmarks.offsets)


def check_single_unit(samples: _BenchmarkGroups, unit: str | None) -> None:
    """A benchmark's values must share one unit (a sample mixing sec/op and B/s is no sample):
    an `InputError` names the first benchmark whose `unit` column varies (no check when `unit`
    is None or not a column).

    Parameters
    ----------
    samples : VariantSamples or PairedSamples
        The per-benchmark samples with their table and groups.
    unit : str or None
        The unit column.

    Returns
    -------
    None

    Raises
    ------
    InputError
        A benchmark whose values are in several units.

    Notes
    -----
    Data plumbing: no formula.
    """
    # a repeated unit column is an error, not ignored; unit= naming a missing column too
    if not has_column(samples.table, unit, argument="unit"):
        return
    codes, _ = key_codes(samples.table.column(unit), unit)
    per_row = codes.astype(np.float64)
    g, _ = varying_group(per_row, samples.groups)
    if g >= 0:
        where = describe_group(samples.groups.keys, g)
    else:
        b = samples.varying_benchmark(per_row[samples.groups.first_row])
        if b < 0:
            return
        where = describe_group(samples.keys, b)
    raise InputError(f"the {unit!r} column mixes units within {where}: keep one unit (filter "
                     f"the table, or --unit on the command line) or add {unit!r} to by=")


def check_positive(samples: Samples, keys: pa.Table, side: str) -> None:
    """Ratios need positive measurements: an `InputError` names the first benchmark (row of
    `keys`) of `samples` holding a value <= 0 (`side` says whose values they are).

    Parameters
    ----------
    samples : Samples
        One sample per benchmark.
    keys : pyarrow.Table
        The benchmarks' keys, aligned with the samples.
    side : str
        Whose values they are, in words.

    Returns
    -------
    None

    Raises
    ------
    InputError
        A value <= 0.

    Notes
    -----
    Speedups are ratios of positive measurements (Touati, Worms & Briais 2013, section 2).
    """
    bad = np.flatnonzero(samples.values <= 0)
    if bad.size:
        b = int(np.searchsorted(samples.offsets, bad[0], side="right") - 1)
        raise InputError(
            f"the {side} of benchmark {describe_group(keys, b)} has the non-positive value "
            f"{float(samples.values[bad[0]])!r} ({bad.size} in all): speedups are ratios of positive "
            "measurements (times, throughputs)")


def present_variants(table: pa.Table, variant: str, names: Sequence[Any]) -> list:
    """The variants of `names` that some row of `table` has, in the order of `names`.

    Parameters
    ----------
    table : pyarrow.Table
        A chunk of a measurement table.
    variant : str
        The variant column.
    names : sequence
        The variants sought.

    Returns
    -------
    list

    Notes
    -----
    Matched as `fastperf.data.grouping.code_of` matches them; no formula.
    """
    _, dictionary = key_codes(table.column(variant), variant)
    present = []
    for name in dict.fromkeys(names):
        try:
            code_of(dictionary, name, variant)
        except InputError:
            continue
        present.append(name)
    return present


def chunk_variant_samples(table: pa.Table, variants: Sequence[Any], keys: list[str],
                          variant: str, value: str) -> VariantSamples:
    """`fastperf.data.samples.variant_samples` of a chunk, which may lack some of `variants`.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    variants : sequence
        The variants wanted (the plan checked that the whole table has each).
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.

    Returns
    -------
    VariantSamples
        A variant the chunk lacks has an empty sample in every benchmark, with no value
        dropped: what `variant_samples` gives a benchmark of the whole table without it.

    Raises
    ------
    InputError
        As `variant_samples` (an infinite value, a missing column).

    Notes
    -----
    Data plumbing: no formula.
    """
    table, groups, column, nan_rows = _grouped_column(table, keys + [variant], value)
    if groups.order is None:
        # each group one run of rows: its values taken from the column where they lie (no
        # gather into group order first)
        counts = _run_counts(groups, nan_rows)
        every_group = np.arange(groups.n_groups + 1, dtype=np.int64)
        samples = split_by_variant(groups, lambda take: take_unit_runs(
            column, groups.first_row, groups.offsets, every_group, counts, take),
            table, variants, keys, variant)
    else:
        grouped = groups.gather(column)
        samples = split_by_variant(groups, lambda take: take_segments(
            grouped, groups.offsets, take, True), table, variants, keys, variant)
    return replace(samples, column=column)


def chunk_paired_samples(table: pa.Table, baseline: Any, candidate: Any, keys: list[str],
                         variant: str, value: str, run: str) -> PairedSamples:
    """`fastperf.data.samples.paired_variant_samples` of a chunk, which may lack one variant
    or both.

    Parameters
    ----------
    table : pyarrow.Table
        Complete benchmarks.
    baseline, candidate : variant names
        The two variants (the plan checked that the whole table has each).
    keys : list of str
        The benchmark key columns.
    variant, value, run : str
        The variant, value and run columns.

    Returns
    -------
    PairedSamples
        A variant the chunk lacks has no run in any benchmark: the other side's runs are
        unmatched, as in a benchmark of the whole table without it.

    Raises
    ------
    InputError
        As `paired_variant_samples`.

    Notes
    -----
    The same pairing (`fastperf.kernels.grouping.pair_by_run`) with an empty side; no formula.
    """
    try:
        return paired_variant_samples(table, baseline=baseline, candidate=candidate, by=keys,
                                      variant=variant, value=value, run=run)
    except InputError:
        present = present_variants(table, variant, [baseline, candidate])
        if len(present) == len(dict.fromkeys([baseline, candidate])):
            raise
    table, groups, grouped = grouped_values(table, keys + [variant], value, also_required=[run])
    run_codes, _ = key_codes(table.column(run), run)
    grouped_runs = groups.gather(run_codes.astype(np.int64))
    benchmarks, takes = variant_takes(groups, keys, variant, present)
    sides = []
    for name in (baseline, candidate):
        take = takes.get(name, np.full(benchmarks.n_groups, -1, dtype=np.int64))
        values, offsets, _ = take_segments(grouped, groups.offsets, take, False)
        runs, _, _ = take_segments(grouped_runs, groups.offsets, take, False)
        sides.append((values, runs, offsets))
    (xv, xr, xo), (yv, yr, yo) = sides
    px, py, offsets, unmatched, nan_pairs, duplicated = pair_by_run(xv, xr, xo, yv, yr, yo)
    return PairedSamples(benchmarks.keys, Samples(px, offsets), Samples(py, offsets),
                         unmatched, nan_pairs, duplicated, table, groups, benchmarks.offsets)


def concat_samples(parts: list[Samples]) -> Samples:
    """Several batches of samples as one, sample order kept.

    Parameters
    ----------
    parts : list of Samples
        The batches, at least one.

    Returns
    -------
    Samples
        The samples of ``parts[0]``, then those of ``parts[1]``, ... (``parts[0]`` itself when
        there is only one batch).

    Notes
    -----
    CSR concatenation: the values are joined and the offsets rebuilt from the sizes.
    """
    if len(parts) == 1:
        return parts[0]
    values = np.concatenate([p.values for p in parts])
    sizes = np.concatenate([p.sizes for p in parts])
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return Samples(values, offsets)


def sample_medians(samples: Samples) -> np.ndarray:
    """The median of every sample.

    Parameters
    ----------
    samples : Samples
        The samples (NaN-free).

    Returns
    -------
    numpy.ndarray
        One float64 per sample (NaN for an empty one).

    Notes
    -----
    The order-statistics kernel that the engine's `min_median` runs (the mean of the two middle
    order statistics for even sizes; the kernel halves before adding where the sum would
    overflow, so a finite sample has a finite median).
    """
    none = np.zeros(samples.sizes.shape[0], dtype=np.int64)
    return order_statistics(samples.values, samples.offsets, samples.sizes, none, none,
                            n_rows=samples.values.shape[0])[:, 1]


def binary_exponents(*parts: Samples) -> np.ndarray:
    """Per sample index, the power of 2 just above the largest |value| of every part.

    Parameters
    ----------
    *parts : Samples
        Batches of the same length (e.g. the baseline's and the candidate's samples).

    Returns
    -------
    numpy.ndarray of int
        ``e`` with ``max |x| < 2**e`` over sample i of every part (``frexp``'s exponent); 0 for
        samples that are empty, all zero or hold a non-finite value.

    Notes
    -----
    Dividing a sample by ``2**e`` (`scaled_samples`) is exact (barring values that become
    subnormal, ~2**-1022 times the largest), and so is multiplying a result back: moments,
    ratios and test statistics computed on the scaled samples equal those of the original
    values bit for bit wherever the latter do not overflow or underflow, and stay finite where
    they would (values near 1.8e308, squares of 1e-200).
    """
    largest = np.zeros(len(parts[0]))
    for part in parts:
        sizes = part.sizes
        nonempty = np.flatnonzero(sizes > 0)
        if nonempty.size:
            start = part.offsets[0]
            values = part.values[start:part.offsets[-1]]
            starts = part.offsets[:-1][nonempty] - start
            # max |x| = max(max x, -min x), read in place (no array of |x|); NaN stays NaN
            top = np.maximum(np.maximum.reduceat(values, starts),
                             -np.minimum.reduceat(values, starts))
            largest[nonempty] = np.fmax(largest[nonempty], top)
    _, exponent = np.frexp(largest)
    return np.where(np.isfinite(largest) & (largest > 0), exponent, 0).astype(np.int64)


def scaled_samples(samples: Samples, exponent: np.ndarray) -> Samples:
    """Sample i divided by ``2**exponent[i]`` (exact: see `binary_exponents`).

    Parameters
    ----------
    samples : Samples
    exponent : numpy.ndarray of int
        One power of 2 per sample.

    Returns
    -------
    Samples
        The scaled values, with offsets starting at 0.
    """
    start = samples.offsets[0]
    values = samples.values[start:samples.offsets[-1]]
    # the powers of 2 as int32 before they are repeated over the values (one pass less)
    return Samples(np.ldexp(values, np.repeat((-exponent).astype(np.int32), samples.sizes)),
                   samples.offsets - start)


def samples_column(samples: Samples) -> pa.Array:
    """A batch of samples as an Arrow list column (one list per sample), for a stage's extra
    column (`fastperf.data.chunked.StageRows`).

    Parameters
    ----------
    samples : Samples

    Returns
    -------
    pyarrow.ListArray
        List i holds sample i's values: a ``list<double>`` (the list type Spark's Arrow
        transfer takes), a ``large_list<double>`` past 2**31 - 1 values.
    """
    offsets = np.asarray(samples.offsets, dtype=np.int64)
    values = pa.array(samples.values[offsets[0]:offsets[-1]], pa.float64())
    offsets = offsets - offsets[0]
    if offsets[-1] < np.iinfo(np.int32).max:
        return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)
    return pa.LargeListArray.from_arrays(pa.array(offsets), values)


def column_samples(column: pa.Array | pa.ChunkedArray) -> Samples:
    """The samples of a list column written by `samples_column` (chunks joined).

    Parameters
    ----------
    column : pyarrow.Array or pyarrow.ChunkedArray
        A list column of float64.

    Returns
    -------
    Samples
        Sample i is list i; offsets start at 0.
    """
    large = pa.large_list(pa.float64())
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    chunks = [c if c.type == large else c.cast(large) for c in chunks]  # 64-bit offsets
    column = chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks) if chunks \
        else pa.array([], large)
    offsets = column.offsets.to_numpy().astype(np.int64)
    values = column.values.to_numpy(zero_copy_only=False)[offsets[0]:offsets[-1]]
    return Samples(np.ascontiguousarray(values, dtype=np.float64), offsets - offsets[0])
