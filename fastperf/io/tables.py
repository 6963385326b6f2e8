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
    """True for the in-memory sources `as_table` accepts (Arrow objects and the C stream protocol)."""
    return isinstance(source, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)) or hasattr(
        source, "__arrow_c_stream__"
    )


def is_measurement_table(x: Any) -> bool:
    """Whether `x` is a measurement table (or path(s) to one) rather than array-like data.

    One-dimensional objects that also speak the Arrow stream protocol (pandas and polars Series,
    pyarrow ChunkedArray) are samples, not tables.
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

    Accepts a `pyarrow.Table`, a `pyarrow.RecordBatch`, a `pyarrow.RecordBatchReader`, or any
    object exporting the Arrow C stream interface (``__arrow_c_stream__``: polars, pandas >= 2.2,
    duckdb relations, ...). A reader or stream is consumed.
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
    """Normalise a key argument (`None`, one name, or several) to a list of column names."""
    if keys is None:
        return []
    if isinstance(keys, str):
        return [keys]
    out = list(keys)
    if not all(isinstance(k, str) for k in out):
        raise InputError(f"column names must be strings, got {out!r}")
    return out


def require_columns(table: pa.Table, names: Iterable[str], *, hint: str = "") -> None:
    """Raise `InputError` naming the first missing column and listing the table's columns."""
    present = table.column_names
    for name in names:
        if name not in present:
            msg = f"column {name!r} not found; the table has columns {present}"
            raise InputError(msg + (f"; {hint}" if hint else ""))


def as_float64(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """The measurement column `column` cast to float64 (nulls kept).

    Floats, integers, decimals and all-null columns convert; any other type (strings,
    booleans, timestamps) is an `InputError` naming the column `name`.
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

    Zero-copy when the column is a single float64 chunk without nulls (see `as_float64` for the
    types accepted).
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
    """``name=value, ...`` for one row of a group-key table, for error messages."""
    row = keys.slice(group, 1).to_pylist()[0]
    return ", ".join(f"{k}={v!r}" for k, v in row.items()) or "the whole table"
