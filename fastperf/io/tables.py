"""Arrow input handling shared by every table-level function: accept, check, convert.

Everything here runs once per call on whole columns; nothing loops over groups.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError

__all__ = [
    "as_table", "is_in_memory_table", "is_measurement_table", "require_columns", "key_list", "as_float64",
    "value_column",
    "describe_group",
]


def is_in_memory_table(source: Any) -> bool:
    """Whether `source` is an in-memory table `as_table` accepts.

    Parameters
    ----------
    source : object
        Anything.

    Returns
    -------
    bool
        True for a `pyarrow.Table`, `pyarrow.RecordBatch`, `pyarrow.RecordBatchReader` or an
        object with ``__arrow_c_stream__``.

    Notes
    -----
    The Arrow PyCapsule interface (``__arrow_c_stream__``) is the Arrow C stream protocol, as the
    Arrow specification ("The Arrow PyCapsule Interface") defines it.
    """
    return isinstance(source, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)) or hasattr(
        source, "__arrow_c_stream__"
    )


def is_measurement_table(x: Any) -> bool:
    """Whether `x` is a measurement table (or path(s) to one) rather than array-like data.

    One-dimensional objects that also speak the Arrow stream protocol (pandas and polars Series,
    pyarrow ChunkedArray) are samples, not tables.

    Parameters
    ----------
    x : object
        The first argument of a test function.

    Returns
    -------
    bool
        True for a path, a non-empty list of paths or an in-memory table; False for arrays,
        Arrow arrays and one-dimensional objects.

    Notes
    -----
    Decides between a test's table form and its array form (scipy's signature); no formula.
    """
    if isinstance(x, (str, os.PathLike)):
        return True
    if isinstance(x, (list, tuple)):
        return len(x) > 0 and all(isinstance(item, (str, os.PathLike)) for item in x)
    if isinstance(x, (np.ndarray, pa.Array, pa.ChunkedArray)):
        return False
    shape = getattr(x, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 1:
        return False
    return is_in_memory_table(x)


def as_table(source: Any) -> pa.Table:
    """Return `source` as a `pyarrow.Table`.

    Parameters
    ----------
    source : pyarrow.Table, RecordBatch, RecordBatchReader or object with ``__arrow_c_stream__``
        polars, pandas >= 2.2, duckdb relations, ... A reader or stream is consumed.

    Returns
    -------
    pyarrow.Table
        The table, string_view / binary_view columns cast to large_string / large_binary.

    Raises
    ------
    InputError
        Any other type.

    Notes
    -----
    The Arrow C stream protocol (Arrow PyCapsule interface); view types are cast because several
    Arrow compute kernels (take, dictionary_encode) do not support them.
    """
    if isinstance(source, pa.Table):
        return _without_view_types(source)
    if isinstance(source, pa.RecordBatch):
        return _without_view_types(pa.Table.from_batches([source]))
    if isinstance(source, pa.RecordBatchReader):
        return _without_view_types(source.read_all())
    if hasattr(source, "__arrow_c_stream__"):
        return _without_view_types(pa.RecordBatchReader.from_stream(source).read_all())
    raise InputError(
        f"cannot use a {type(source).__name__} as a measurement table: pass a pyarrow.Table, a "
        "RecordBatchReader, an object with __arrow_c_stream__ (polars, pandas >= 2.2, duckdb) "
        "or a file path (see fastperf.read)"
    )


def _without_view_types(table: pa.Table) -> pa.Table:
    """Cast string_view / binary_view columns (polars exports them) to string / binary.

    Several Arrow compute kernels (take, dictionary_encode) do not support the view types yet.
    """
    views = {pa.string_view(): pa.large_string(), pa.binary_view(): pa.large_binary()}
    if not any(f.type in views for f in table.schema):
        return table
    schema = pa.schema([f.with_type(views.get(f.type, f.type)) for f in table.schema])
    return table.cast(schema)


def key_list(keys: str | Sequence[str] | None) -> list[str]:
    """Normalise a key argument (`None`, one name, or several) to a list of column names.

    Parameters
    ----------
    keys : str, sequence of str or None
        The key column(s).

    Returns
    -------
    list of str
        ``[]`` for None, ``[keys]`` for one name, else the names.

    Raises
    ------
    InputError
        A name that is not a string.

    Notes
    -----
    Argument plumbing: no formula.
    """
    if keys is None:
        return []
    if isinstance(keys, str):
        return [keys]
    out = list(keys)
    if not all(isinstance(k, str) for k in out):
        raise InputError(f"column names must be strings, got {out!r}")
    return out


def require_columns(table: pa.Table, names: Iterable[str], *, hint: str = "") -> None:
    """Raise `InputError` naming the first missing column and listing the table's columns.

    Parameters
    ----------
    table : pyarrow.Table
        The table.
    names : iterable of str
        The columns it must have.
    hint : str
        Appended to the message (what to do instead).

    Returns
    -------
    None

    Raises
    ------
    InputError
        A column of `names` that the table lacks.

    Notes
    -----
    Argument plumbing: no formula.
    """
    present = table.column_names
    for name in names:
        if name not in present:
            msg = f"column {name!r} not found; the table has columns {present}"
            raise InputError(msg + (f"; {hint}" if hint else ""))


def as_float64(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """The measurement column `column` cast to float64 (nulls kept).

    Parameters
    ----------
    column : pyarrow.ChunkedArray
        The column (dictionary-encoded allowed).
    name : str
        Its name, for the message.

    Returns
    -------
    pyarrow.ChunkedArray
        float64, nulls kept.

    Raises
    ------
    InputError
        A type other than floats, integers, decimals or null (strings, booleans, timestamps).

    Notes
    -----
    Arrow's ``cast``; integers beyond 2**53 round to the nearest float64.
    """
    t = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    numeric = (pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_decimal(t)
               or pa.types.is_null(t))
    if not numeric:
        raise InputError(
            f"value column {name!r} has type {column.type}, not a number; pass value= the column "
            "holding the measurements, or convert it to a numeric type first"
        )
    return column if column.type == pa.float64() else pc.cast(column, pa.float64())


def value_column(table: pa.Table, name: str) -> np.ndarray:
    """The measurement column `name` as a float64 numpy array, nulls as NaN.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table.
    name : str
        The value column.

    Returns
    -------
    numpy.ndarray
        float64, one entry per row, nulls as NaN. Zero-copy when the column is a single float64
        chunk without nulls.

    Raises
    ------
    InputError
        A missing column or one that is not numeric (see `as_float64`).

    Notes
    -----
    Conversion only: no formula.
    """
    require_columns(table, [name])
    col = as_float64(table.column(name), name)
    if col.num_chunks == 0:
        return np.empty(0, dtype=np.float64)
    if col.num_chunks == 1 and col.null_count == 0:
        return col.chunk(0).to_numpy(zero_copy_only=False)
    if col.null_count:
        col = col.fill_null(np.nan)
    return col.to_numpy()


def describe_group(keys: pa.Table, group: int) -> str:
    """``name=value, ...`` for one row of a group-key table, for error messages.

    Parameters
    ----------
    keys : pyarrow.Table
        One row per group.
    group : int
        The row.

    Returns
    -------
    str
        e.g. ``benchmark='sort', variant='new'``; "the whole table" when there are no keys.

    Notes
    -----
    A message helper: no formula.
    """
    row = keys.slice(group, 1).to_pylist()[0]
    return ", ".join(f"{k}={v!r}" for k, v in row.items()) or "the whole table"
