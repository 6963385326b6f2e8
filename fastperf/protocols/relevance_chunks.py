"""What the relevance protocols `fastperf.protocols.sparc` and `fastperf.protocols.hpt` share
to run in group-complete chunks (`fastperf.data.chunked`): the checks their plans make on the
whole table, the per-benchmark samples of a chunk, which need not hold every variant, and the
samples carried to a finish in a hidden list column.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.grouping import code_of, key_codes
from fastperf.data.samples import (
    PairedSamples, VariantSamples, grouped_values, paired_variant_samples, variant_samples,
    variant_takes,
)
from fastperf.errors import InputError
from fastperf.io.tables import column_name, require_columns

__all__ = ["check_relevance_table", "present_variants", "chunk_variant_samples",
           "chunk_paired_samples", "samples_column", "column_samples"]


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
    try:
        return variant_samples(table, variants=variants, by=keys, variant=variant, value=value)
    except InputError:
        present = present_variants(table, variant, variants)
        if len(present) == len(dict.fromkeys(variants)):
            raise
    vs = variant_samples(table, variants=present, by=keys, variant=variant, value=value)
    n = vs.keys.num_rows
    empty = Samples(np.empty(0, dtype=np.float64), np.zeros(n + 1, dtype=np.int64))
    samples = {name: vs.samples.get(name, empty) for name in dict.fromkeys(variants)}
    dropped = {name: vs.n_dropped.get(name, np.zeros(n, dtype=np.int64))
               for name in dict.fromkeys(variants)}
    return VariantSamples(vs.keys, samples, dropped, vs.table, vs.groups, vs.benchmark_offsets)


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
    from fastperf.kernels.grouping import pair_by_run, take_segments

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


def samples_column(samples: Samples) -> pa.Array:
    """A batch of samples as an Arrow list column (one list per sample), for a hidden column.

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
