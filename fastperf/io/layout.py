"""How a lazy dataset's rows split into group-complete chunks (`fastperf.io.dataset`): the
chunk of each row, from its partition key's rank among the keys in first-appearance order."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.io.common import config_columns

__all__ = ["Layout", "combined_ids", "key_ranks", "plain_array", "key_text", "merge_counts",
           "first_appearance_dictionary", "label_columns", "named_keys", "distinct_in_order"]


@dataclass(frozen=True)
class Layout:
    """How a dataset's rows split into group-complete chunks.

    Attributes
    ----------
    rows : int
        Rows in the dataset.
    first_appearance : dict column -> pyarrow.Array
        Each planned order column's distinct values in first-appearance order.
    partition : list of str
        The columns that split the rows.
    key_values : list of pyarrow.Array
        Each partition column's distinct values, in first-appearance order.
    chunk_of_key : numpy.ndarray of int64
        The chunk of each combined partition key (mixed radix of the ranks in `key_values`).
    n_chunks : int
    """

    rows: int
    first_appearance: dict
    partition: list
    key_values: list
    chunk_of_key: np.ndarray
    n_chunks: int

    def chunk_ids(self, batch: pa.RecordBatch | pa.Table) -> np.ndarray:
        """The chunk of every row of `batch`.

        Parameters
        ----------
        batch : pyarrow.RecordBatch or Table
            With the partition columns.

        Returns
        -------
        numpy.ndarray of int64
        """
        return self.chunk_of_key[combined_ids(self, batch)]


def merge_counts(parts: list[pa.Table], columns: list[str]) -> pa.Table:
    """Partial (combination, rows, first row) tables as one."""
    table = pa.concat_tables(parts)
    merged = table.group_by(columns, use_threads=False).aggregate(
        [("count_all", "sum"), ("first_row", "min")])
    return merged.rename_columns(columns + ["count_all", "first_row"])


def combined_ids(layout: Layout, table) -> np.ndarray:
    """Each row's combined partition key: the mixed-radix number of its ranks."""
    combined = np.zeros(table.num_rows, dtype=np.int64)
    for name, values in zip(layout.partition, layout.key_values):
        rank = key_ranks(table.column(name), values)
        if (rank < 0).any():  # the layout's values come from a scan of the same rows: never
            raise AssertionError(f"a value of {name!r} missing from the dataset's layout")
        combined = combined * len(values) + rank
    return combined


def key_ranks(column, values: pa.Array) -> np.ndarray:
    """The position in `values` of each item of `column`, -1 for an item `values` lacks.

    Parameters
    ----------
    column : pyarrow.Array or ChunkedArray
        Plain or dictionary-encoded; a dictionary-encoded chunk without nulls is looked up by
        its dictionary (whose unused entries may be missing from `values`), then its indices,
        without decoding.
    values : pyarrow.Array
        Distinct values, plain (a null among them matches a null).

    Returns
    -------
    numpy.ndarray of int64

    Notes
    -----
    Arrow's ``index_in`` (hash lookup): no formula.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if pa.types.is_float16(values.type):  # Arrow's hash lookup has no half-float kernel
        values = values.cast(pa.float32())
    out = []
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type) and chunk.null_count == 0:
            by_code = key_ranks(chunk.dictionary, values)
            out.append(by_code[chunk.indices.to_numpy(zero_copy_only=False)])
            continue
        chunk = plain_array(chunk)
        if values.type != chunk.type:
            chunk = chunk.cast(values.type)
        if chunk.equals(values):  # already the listed values, in order
            out.append(np.arange(len(chunk), dtype=np.int64))
            continue
        rank = pc.index_in(chunk, value_set=values, skip_nulls=False)
        out.append(rank.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64))
    return out[0] if len(out) == 1 else np.concatenate(out) if out else np.zeros(0, np.int64)


def distinct_in_order(column) -> pa.Array:
    """The distinct values of a column (a null included), in their order in it, plain: a
    column of key combinations sorted by first row gives each value's first appearance.

    Parameters
    ----------
    column : pyarrow.Array or ChunkedArray

    Returns
    -------
    pyarrow.Array
    """
    return plain_array(pc.unique(plain_array(column)))


def plain_array(column):
    """A column or array without dictionary encoding, as one array."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column


def key_text(layout: Layout, key: int) -> str:
    """The partition key `key` as ``column=value, ...`` (the whole table when no column)."""
    if not layout.partition:
        return "the whole table (no key column to split it by)"
    parts = []
    for name, values in reversed(list(zip(layout.partition, layout.key_values))):
        key, rank = divmod(key, len(values))
        parts.append(f"{name}={values[rank].as_py()!r}")
    return ", ".join(reversed(parts))


def first_appearance_dictionary(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary-encoded column re-encoded so that its dictionary lists the values used, in
    the order they first appear (what dictionary-encoding a plain column gives), whatever
    dictionaries its chunks had (a Parquet file may store its writer's whole dictionary).

    Parameters
    ----------
    column : pyarrow.ChunkedArray
        Dictionary-encoded.

    Returns
    -------
    pyarrow.ChunkedArray
        One chunk; nulls stay null.

    Notes
    -----
    Arrow's ``unify_dictionaries``, then the codes renumbered by their first row (one
    scattered write, in reverse, O(n)): no string is built.
    """
    unified = pa.table({"k": column}).unify_dictionaries().column(0)
    kind = column.type
    if unified.num_chunks == 0:
        return unified
    dictionary = unified.chunk(0).dictionary
    indices = pa.chunked_array([c.indices for c in unified.chunks], kind.index_type)
    codes = indices.combine_chunks()
    valid = codes.is_valid().to_numpy(zero_copy_only=False)
    raw = codes.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    kept = raw[valid]
    first = np.full(max(len(dictionary), 1), kept.size, dtype=np.int64)
    first[kept[::-1]] = np.arange(kept.size - 1, -1, -1)  # the last write is the first row
    used = np.flatnonzero(first < kept.size)
    order = used[np.argsort(first[used], kind="stable")]
    renumber = np.zeros(max(len(dictionary), 1), dtype=np.int64)
    renumber[order] = np.arange(order.size)
    new_codes = pa.array(renumber[raw], kind.index_type, mask=~valid)
    return pa.chunked_array([pa.DictionaryArray.from_arrays(
        new_codes, dictionary.take(pa.array(order, pa.int64())))], kind)


def named_keys(keys) -> list[str]:
    """The column names in `keys`: strings, sequences of strings or None, flattened.

    Parameters
    ----------
    keys : iterable

    Returns
    -------
    list of str
    """
    return [k for item in keys for k in ([item] if isinstance(item, str) else (item or []))
            if isinstance(k, str)]


def label_columns(schema: pa.Schema, values, keys=()) -> list[str]:
    """The columns whose distinct combinations make a key table (`fastperf.data.chunked`):
    the `keys` a function groups by and the configuration columns the schema declares
    (`fastperf.io.common.config_columns`), whatever their type, and every other column but the
    value columns, ``run``, numeric and temporal columns (a per-row number or timestamp would
    make the key table as large as the data) and nested ones (lists, structs and maps, which
    cannot be grouped and are no label).

    Parameters
    ----------
    schema : pyarrow.Schema
    values : sequence of str
    keys : iterable of str, sequences of str or None

    Returns
    -------
    list of str
    """
    keys = set(named_keys(keys)) | set(config_columns(schema.empty_table()))
    out = []
    for field in schema:
        kind = field.type
        numeric = (pa.types.is_floating(kind) or pa.types.is_integer(kind)
                   or pa.types.is_decimal(kind) or pa.types.is_temporal(kind))
        if field.name in values:
            continue
        if field.name in keys or not (numeric or pa.types.is_nested(kind)
                                      or field.name == "run"):
            out.append(field.name)
    return out
