"""The grouper every table-level function uses: factorise key columns once, counting-sort rows.

Key columns are dictionary-encoded by Arrow (a column that is already dictionary-encoded, as
Parquet often gives, is used as it is), their codes are combined into dense group ids by a kernel,
and a counting-sort kernel turns the ids into CSR segments. No Python loop over groups.

Group order: lexicographic in the key columns' dictionary order. For plain (not yet encoded)
columns that is the order in which each key value first appears in the table, so a table listed
benchmark by benchmark comes out in the same order. A null key value is a group of its own.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.kernels.builds import read_only
from fastperf.kernels.grouping import counting_sort, dense_group_ids, gather_rows, gather_runs
from fastperf.io.tables import require_columns

__all__ = ["Groups", "group_rows", "key_codes", "key_dictionary", "code_of", "GROUPABLE"]

#: What a key column may hold, for messages: every type Arrow can dictionary-encode.
GROUPABLE = ("scalar values (strings, binary, integers, floats, decimals, booleans, dates, "
             "times, timestamps, durations, intervals, nulls; dictionary- or run-end-encoded "
             "or not), not lists, structs, maps or unions")


@dataclass(frozen=True)
class Groups:
    """Rows of a table split into groups by key columns.

    Attributes
    ----------
    keys : pyarrow.Table
        One row per group with the key columns' values, dictionary-encoded (the columns'
        dictionaries with each group's code).
    offsets : numpy.ndarray (int64)
        CSR offsets, length ``n_groups + 1``: after `gather`, group ``g`` is the slice
        ``offsets[g]:offsets[g + 1]``, its rows in input order.
    first_row : numpy.ndarray (int64)
        The index of each group's first row.
    order : numpy.ndarray (int64) or None
        Row indices in group order; None when the rows of every group already form one
        contiguous run of the table (then group ``g`` is rows ``first_row[g]`` onwards).
    """

    keys: pa.Table
    offsets: np.ndarray
    first_row: np.ndarray
    order: np.ndarray | None

    @property
    def n_groups(self) -> int:
        """The number of groups.

        Returns
        -------
        int
            ``len(offsets) - 1``.

        Notes
        -----
        CSR bookkeeping: no formula.
        """
        return self.offsets.shape[0] - 1

    @property
    def sizes(self) -> np.ndarray:
        """Number of rows in each group (int64).

        Returns
        -------
        numpy.ndarray
            ``diff(offsets)``.

        Notes
        -----
        CSR bookkeeping: no formula.
        """
        return np.diff(self.offsets)

    def row_order(self) -> np.ndarray:
        """The table's row indices in group order (int64): `order`, or, when every group's
        rows are one run of the table, those runs.

        Returns
        -------
        numpy.ndarray
            Group ``g``'s rows are ``row_order()[offsets[g]:offsets[g + 1]]``.

        Notes
        -----
        CSR bookkeeping: no formula.
        """
        if self.order is not None:
            return self.order
        return np.repeat(self.first_row - self.offsets[:-1], self.sizes) + np.arange(
            self.offsets[-1], dtype=np.int64)

    def gather(self, column: np.ndarray) -> np.ndarray:
        """`column` (one entry per table row) in group order, to be treated as read-only.

        A view of `column` itself when its rows are already in group order, else a copy.

        Parameters
        ----------
        column : numpy.ndarray
            One entry per row of the grouped table.

        Returns
        -------
        numpy.ndarray
            The entries in group order: group ``g`` is ``[offsets[g]:offsets[g + 1]]``.

        Notes
        -----
        A gather by the counting sort's row order (kernels ``gather_rows`` / ``gather_runs``).
        """
        column = np.ascontiguousarray(column)
        if self.order is None:
            if np.array_equal(self.first_row, self.offsets[:-1]):
                return column
            return gather_runs(column, self.first_row, self.offsets, n_rows=column.shape[0])
        return gather_rows(column, self.order, self.offsets, n_rows=column.shape[0])


def key_codes(column: pa.ChunkedArray, name: str) -> tuple[np.ndarray, pa.Array]:
    """Dictionary codes (int32, nulls as their own code) and the dictionary of one column.

    Parameters
    ----------
    column : pyarrow.ChunkedArray
        A key column (dictionary-encoded or not).
    name : str
        Its name, for the message.

    Returns
    -------
    codes : numpy.ndarray of int32
        One code per row; a null is a code of its own.
    dictionary : pyarrow.Array
        The distinct values, in first-appearance order for a plain column.

    Raises
    ------
    InputError
        A column type Arrow cannot dictionary-encode (nested types: list, struct, map, union);
        the message names the column and the types accepted.

    Notes
    -----
    Arrow's ``dictionary_encode`` (hash-based factorisation): no formula.
    """
    column = _encoded(column, name)
    if column.num_chunks == 0:
        return np.empty(0, dtype=np.int32), pa.array([], column.type.value_type)
    chunks = [c.indices.to_numpy(zero_copy_only=False) for c in column.chunks]
    codes = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
    return codes.astype(np.int32, copy=False), column.chunk(0).dictionary


def key_dictionary(column: pa.ChunkedArray, name: str) -> pa.Array:
    """The dictionary `key_codes` gives for a column, without its codes.

    Parameters
    ----------
    column : pyarrow.ChunkedArray
        A key column (dictionary-encoded or not).
    name : str
        Its name, for the message.

    Returns
    -------
    pyarrow.Array
        The distinct values, as `key_codes` orders them.

    Raises
    ------
    InputError
        As `key_codes`.

    Notes
    -----
    No formula; the codes of every row are not gathered into one array.
    """
    column = _encoded(column, name)
    if column.num_chunks == 0:
        return pa.array([], column.type.value_type)
    return column.chunk(0).dictionary


def _encoded(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """`column` dictionary-encoded, every chunk with one dictionary (`key_codes`)."""
    if pa.types.is_dictionary(column.type):
        if column.null_count:  # null indices: decode so that null gets a code of its own
            column = column.cast(column.type.value_type)
        elif column.num_chunks > 1 and not _one_dictionary(column):
            column = pa.table({"k": column}).unify_dictionaries().column(0)
    if pa.types.is_run_end_encoded(column.type):
        column = pc.run_end_decode(column)
    if not pa.types.is_dictionary(column.type):
        try:
            column = pc.dictionary_encode(column, null_encoding="encode")
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
            raise InputError(
                f"key column {name!r} has type {column.type}, which cannot be grouped: a key "
                f"column must hold {GROUPABLE}; convert it first (e.g. cast it to string), or "
                "name other key columns"
            ) from None
    return column


def _one_dictionary(column: pa.ChunkedArray) -> bool:
    """Whether every chunk of a dictionary-encoded column has the same dictionary (as Parquet
    gives when each row group stores the whole dictionary): its codes are then those of the
    unified column as they are when that dictionary holds each value once and no null (unifying
    keeps its distinct values in their order; it refuses a null), and unifying would hash every
    chunk's dictionary again."""
    first = column.chunk(0).dictionary
    if first.null_count or not all(chunk.dictionary.equals(first)
                                   for chunk in column.chunks[1:]):
        return False
    return pc.count_distinct(first).as_py() == len(first)


def code_of(dictionary: pa.Array, name, where: str) -> int:
    """The code of the value `name` in a key column's `dictionary`, or an `InputError` naming
    `where` (e.g. "the 'variant' column") and listing the values present.

    Parameters
    ----------
    dictionary : pyarrow.Array
        The distinct values of a key column (from `key_codes`).
    name : object
        The value sought, as a Python value (a str, bytes, int, date, ...).
    where : str
        The column in words, for the message.

    Returns
    -------
    int
        Its position in `dictionary`.

    Raises
    ------
    InputError
        No value of the column equals `name`.

    Notes
    -----
    Matched as Python values, not with an Arrow comparison kernel, so that every key type
    works (binary, dates, decimals, float16, intervals, ...); a bool matches only a bool.
    No formula.
    """
    present = dictionary.to_pylist()
    for code, value in enumerate(present):
        if value is None or isinstance(value, bool) != isinstance(name, (bool, np.bool_)):
            continue
        try:
            if bool(value == name):
                return code
        except (TypeError, ValueError):  # an incomparable or ambiguous comparison: no match
            continue
    raise InputError(f"variant {name!r} not found; {where} holds "
                     f"{[v for v in present if v is not None]}")


def _combine(left, n_left, right, n_right, always_ids):
    """Dense ids of the code pairs: a lookup-table kernel when the pair space is small, else sort.

    Returns ids (int32; may be empty when the groups are contiguous runs, unless `always_ids`),
    first_row, counts (int64) and whether every group is one contiguous run.
    """
    n_rows = left.shape[0]
    if n_left * n_right <= max(n_rows // 2, 1 << 16):
        return dense_group_ids(read_only(left), read_only(right), n_left, n_right, always_ids)
    pairs = left.astype(np.int64) * n_right + (right if right.size else 0)
    _, first_row, ids, counts = np.unique(
        pairs, return_index=True, return_inverse=True, return_counts=True
    )
    ids = ids.astype(np.int32)
    contiguous = np.count_nonzero(np.diff(ids)) + 1 == counts.shape[0]
    return ids, first_row.astype(np.int64), counts.astype(np.int64), bool(contiguous)


def group_rows(table: pa.Table, keys: Sequence[str]) -> Groups:
    """Split the rows of `table` into groups by the columns `keys` (none: one group of all rows).

    Parameters
    ----------
    table : pyarrow.Table
        The table.
    keys : sequence of str
        The key columns (duplicates ignored).

    Returns
    -------
    Groups
        The group keys, CSR offsets, first rows and the row order.

    Raises
    ------
    InputError
        A missing key column or one that cannot be grouped.

    Notes
    -----
    Factorisation of each key column, dense ids of the code tuples, then a counting sort
    (Knuth, TAOCP vol. 3, section 5.2, "distribution counting"): O(rows + groups).
    """
    keys = list(dict.fromkeys(keys))
    require_columns(table, keys)
    n_rows = table.num_rows
    codes_of_keys = [key_codes(table.column(name), name) for name in keys]
    if not keys or n_rows == 0:
        first_row = np.zeros(1 if n_rows else 0, dtype=np.int64)
        counts = np.full(first_row.shape[0], n_rows, dtype=np.int64)
        ids, contiguous = None, True
    else:
        # combine the columns pairwise: the first pair straight from their codes, then the
        # dense ids of the pair so far with the next column's codes
        no_right = (np.empty(0, dtype=np.int32), None)
        ids, n_ids = codes_of_keys[0][0], len(codes_of_keys[0][1])
        rest = codes_of_keys[1:] or [no_right]
        for position, (codes, dictionary) in enumerate(rest):
            n_codes = 1 if dictionary is None else len(dictionary)
            more_to_come = position < len(rest) - 1
            ids, first_row, counts, contiguous = _combine(ids, n_ids, codes, n_codes, more_to_come)
            n_ids = first_row.shape[0]
    offsets = np.zeros(first_row.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    order = None if contiguous else counting_sort(ids, offsets)
    # each group's key values: its first row's code into the column's dictionary (kept
    # dictionary-encoded: no string is copied, and regrouping the keys costs no hashing)
    key_columns = [pa.DictionaryArray.from_arrays(pa.array(codes[first_row], pa.int32()), dictionary)
                   for codes, dictionary in codes_of_keys]
    if not keys:  # no key column: a key table of no columns with one row per group (0 or 1)
        return Groups(table.select([]).slice(0, first_row.shape[0]), offsets, first_row, order)
    return Groups(pa.table(key_columns, names=keys), offsets, first_row, order)
