"""Per-benchmark samples of chosen variants from a measurement table, for the test functions.

`variant_samples` is how every table-level test gets its data: one grouping pass over
(benchmark keys, variant), then for each requested variant the benchmark-aligned samples as CSR
segments (NaN/null dropped and counted), ready for the kernels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.arrays import Samples
from fastperf.errors import InputError
from fastperf.io.read import load_table
from fastperf.io.tables import (
    column_name, describe_group, has_column, key_list, require_columns, value_column,
)
from fastperf.data.grouping import Groups, code_of, group_rows, key_codes

__all__ = [
    "VariantSamples", "variant_samples", "group_samples", "PairedSamples", "paired_variant_samples",
    "group_constant", "group_weights", "varying_group", "check_single_unit", "check_positive",
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
    """

    keys: pa.Table
    samples: dict[str, Samples]
    n_dropped: dict[str, np.ndarray]
    table: pa.Table
    groups: Groups
    benchmark_offsets: np.ndarray


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
        try:
            mapped = np.asarray(list(weights.values()), dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("weights must map benchmarks to numbers") from None
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
    column_name(value, "value")
    table = load_table(data)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, keys + [value, *also_required])
    groups = group_rows(table, keys)
    grouped = groups.gather(value_column(table, value))
    if np.isinf(grouped).any():
        raise InputError(
            f"value column {value!r} holds infinite values; an infinite measurement is a broken "
            "one: remove it or set it to null (nulls and NaN are dropped and counted)"
        )
    return table, groups, grouped


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
    from fastperf.kernels.grouping import take_segments

    keys = key_list(by)
    table, groups, grouped = grouped_values(data, keys + [variant], value)
    benchmarks, takes = variant_takes(groups, keys, variant, variants)
    samples, dropped = {}, {}
    for name, take in takes.items():
        kept, offsets, n_dropped = take_segments(grouped, groups.offsets, take, True)
        samples[name] = Samples(kept, offsets)
        dropped[name] = n_dropped
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
    from fastperf.kernels.grouping import take_segments

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
    from fastperf.data.grouping import key_codes
    from fastperf.kernels.grouping import pair_by_run, take_segments

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
    from fastperf.data.grouping import key_codes

    if not has_column(samples.table, unit):  # a repeated unit column is an error, not ignored
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
