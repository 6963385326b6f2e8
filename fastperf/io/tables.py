"""Arrow input handling shared by every table-level function: accept, check, convert.

Everything here runs once per call on whole columns; nothing loops over groups.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Iterable, Literal, Mapping, Sequence, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError

__all__ = [
    "as_table", "is_in_memory_table", "require_columns", "has_column",
    "duplicated_columns", "key_list", "column_name", "as_float64", "value_column",
    "describe_group", "with_unit",
]

#: Schema metadata key under which `as_table` records the names it found more than once.
DUPLICATES_KEY = b"fastperf.duplicated_columns"

#: What a measurement (value) column may hold, for messages.
NUMERIC_TYPES = "integers, floating-point numbers or decimals (or all null)"


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
        Columns whose name occurs more than once are left out (which of them a call means is
        ambiguous) and their names recorded in the schema metadata: `require_columns` then
        refuses a call that uses one, naming it; a call that uses none of them works.

    Raises
    ------
    InputError
        Any other type; or an object whose Arrow export fails, e.g. a pandas ``object`` column
        holding values of several types (``["a", 1, None]``, ``[1.0, "x", 3.0]``): the message
        names the column (as pyarrow reports it), what was found, and the remedy (convert the
        column to one type).

    Notes
    -----
    The Arrow C stream protocol (Arrow PyCapsule interface); view types are cast because several
    Arrow compute kernels (take, dictionary_encode) do not support them.
    """
    if isinstance(source, pa.Table):
        return _without_duplicates(_without_view_types(source))
    if isinstance(source, pa.RecordBatch):
        return _without_duplicates(_without_view_types(pa.Table.from_batches([source])))
    if isinstance(source, pa.RecordBatchReader):
        return _without_duplicates(_without_view_types(source.read_all()))
    if hasattr(source, "__arrow_c_stream__"):
        try:
            table = pa.RecordBatchReader.from_stream(source).read_all()
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError,
                OverflowError) as exc:
            raise InputError(_stream_error_message(source, exc)) from None
        return _without_duplicates(_without_view_types(table))
    raise InputError(
        f"cannot use a {type(source).__name__} as a measurement table: pass a pyarrow.Table, a "
        "RecordBatchReader, an object with __arrow_c_stream__ (polars, pandas >= 2.2, duckdb) "
        "or a file path (see fastperf.read)"
    )


def _stream_error_message(source: Any, exc: BaseException) -> str:
    """The message of an `InputError` for an Arrow export of `source` that failed with `exc`.

    pyarrow's conversion of a pandas column reports ``(what, 'Conversion failed for column X
    with type T')``; the column named there leads the message.
    """
    parts = [str(a) for a in exc.args] or [str(exc)]
    found = next((re.search(r"Conversion failed for column (.+) with type (\S+)", p)
                  for p in parts if "Conversion failed for column" in p), None)
    what = "; ".join(p for p in parts if "Conversion failed for column" not in p) or str(exc)
    kind = type(source).__name__
    if found is not None:
        return (f"column {found.group(1)!r} (type {found.group(2)}) of the {kind} cannot be "
                f"converted to Arrow: {what}; a column must hold values of one type: convert "
                "it to one type first (e.g. .astype(str) for a key column, pandas.to_numeric "
                "for a value column)")
    return (f"the {kind} cannot be converted to an Arrow table: {what}; convert each column to "
            "one type first (strings for keys, numbers for values)")


def _without_view_types(table: pa.Table) -> pa.Table:
    """Cast string_view / binary_view columns (polars exports them) to string / binary.

    Several Arrow compute kernels (take, dictionary_encode) do not support the view types yet.
    """
    views = {pa.string_view(): pa.large_string(), pa.binary_view(): pa.large_binary()}
    if not any(f.type in views for f in table.schema):
        return table
    schema = pa.schema([f.with_type(views.get(f.type, f.type)) for f in table.schema])
    return table.cast(schema)


def _without_duplicates(table: pa.Table) -> pa.Table:
    """`table` without the columns whose name occurs more than once, their names recorded in
    the schema metadata (key `DUPLICATES_KEY`, a JSON object name -> count)."""
    counts = Counter(table.column_names)
    duplicated = {name: n for name, n in counts.items() if n > 1}
    if not duplicated:
        return table
    kept = table.select([i for i, name in enumerate(table.column_names) if counts[name] == 1])
    metadata = dict(table.schema.metadata or {})
    metadata[DUPLICATES_KEY] = json.dumps(duplicated).encode()
    return kept.replace_schema_metadata(metadata)


def duplicated_columns(table: pa.Table) -> dict[str, int]:
    """The column names that occur more than once in `table` (or in the table `as_table` left
    them out of), with their counts.

    Parameters
    ----------
    table : pyarrow.Table
        The table.

    Returns
    -------
    dict of str -> int
        Name -> number of columns of that name; empty when every name is unique.

    Notes
    -----
    Argument plumbing: no formula.
    """
    counts = {name: n for name, n in Counter(table.column_names).items() if n > 1}
    recorded = (table.schema.metadata or {}).get(DUPLICATES_KEY)
    if recorded:
        counts.update(json.loads(recorded))
    return counts


def _duplicate_message(name: str, count: int) -> str:
    return (f"column {name!r} occurs {count} times in the table, so which one to use is "
            "ambiguous; rename or drop the duplicates (columns used by no argument may repeat)")


def key_list(keys: str | Sequence[str] | None, argument: str = "by") -> list[str]:
    """Normalise a key argument (`None`, one name, or several) to a list of column names.

    Parameters
    ----------
    keys : str, sequence of str or None
        The key column(s).
    argument : str
        The argument's name, for the message.

    Returns
    -------
    list of str
        ``[]`` for None (no key: all rows form one group), ``[keys]`` for one name, else the
        names, each once (in the order first given).

    Raises
    ------
    InputError
        Anything other than None, a string or a sequence of strings (the message names
        `argument`, the value given and what is accepted).

    Notes
    -----
    Argument plumbing: no formula.
    """
    if keys is None:
        return []
    if isinstance(keys, str):
        return [keys]
    accepted = "a column name, a list of column names, or None (all rows one group)"
    if (isinstance(keys, (bytes, bytearray, Mapping, set, frozenset))
            or not isinstance(keys, Iterable)):
        raise InputError(f"{argument} must be {accepted}, got {keys!r}")
    out = list(keys)
    if not all(isinstance(k, str) for k in out):
        raise InputError(f"{argument} must be {accepted}; got {out!r}, which holds a "
                         "name that is not a string")
    return list(dict.fromkeys(out))  # a name given twice is one key


@overload
def column_name(name: Any, argument: str, allow_none: Literal[False] = ...) -> str: ...
@overload
def column_name(name: Any, argument: str, allow_none: bool = ...) -> str | None: ...


def column_name(name: Any, argument: str, allow_none: bool = False) -> str | None:
    """`name` itself when it is a column name (a string; None too when `allow_none`), else an
    `InputError` naming `argument`, the value given and what is accepted.

    Parameters
    ----------
    name : object
        The argument's value.
    argument : str
        The argument (``value``, ``variant``, ``pair``, ...), for the message.
    allow_none : bool
        Whether None (no such column) is accepted.

    Returns
    -------
    str or None
        `name`.

    Raises
    ------
    InputError
        Anything else.

    Notes
    -----
    Argument plumbing: no formula.
    """
    if isinstance(name, str) or (name is None and allow_none):
        return name
    accepted = "a column name (a string)" + (" or None" if allow_none else "")
    raise InputError(f"{argument} must be {accepted}, got {name!r}")


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
        A column of `names` that the table lacks, or whose name occurs more than once.

    Notes
    -----
    Argument plumbing: no formula.
    """
    present = table.column_names
    duplicated = duplicated_columns(table)
    for name in names:
        if not isinstance(name, str):
            raise InputError(f"column names must be strings, got {name!r}; the table has "
                             f"columns {present}")
        if name in duplicated:
            raise InputError(_duplicate_message(name, duplicated[name]))
        if name not in present:
            msg = f"column {name!r} not found; the table has columns {present}"
            if is_summary_table(table):
                hint = ("it holds summary statistics only (n, mean, sd per benchmark), not the "
                        "runs: compare and describe accept it (Welch's t-test from the "
                        "summaries); the other tests need the runs (docs/readers.md says how "
                        "each tool keeps them)")
            raise InputError(msg + (f"; {hint}" if hint else ""))


#: Schema metadata key marking a *summary table* (`fastperf.io.summaries`).
SUMMARY_METADATA_KEY = b"fastperf:summaries"


def is_summary_table(table: pa.Table) -> bool:
    """True for a summary table (summary statistics per benchmark, not runs).

    Parameters
    ----------
    table : pyarrow.Table
        Any table.

    Returns
    -------
    bool
        Whether its schema metadata holds `SUMMARY_METADATA_KEY`
        (`fastperf.io.summaries.summary_table` and ``read(..., summaries=True)`` set it).

    Notes
    -----
    No formula.
    """
    return bool(table.schema.metadata) and SUMMARY_METADATA_KEY in table.schema.metadata


def has_column(table: pa.Table, name: str | None, *, argument: str | None = None) -> bool:
    """Whether the optional column `name` is in `table` (False for None).

    Parameters
    ----------
    table : pyarrow.Table
        The table.
    name : str or None
        The column (e.g. ``unit``), or None for none.
    argument : str or None
        The keyword that named the column (``unit``, ``run``), whose default is a column of the
        same name. That default may be absent (the table then has none); any other name was
        asked for and must be present. None: any name may be absent.

    Returns
    -------
    bool
        Whether the table has exactly one column `name`.

    Raises
    ------
    InputError
        `name` occurs more than once (an optional column that is ambiguous is not ignored), or
        `name` is not `argument`'s default and the table lacks it.

    Notes
    -----
    Argument plumbing: no formula.
    """
    if name is None:
        return False
    duplicated = duplicated_columns(table)
    if name in duplicated:
        raise InputError(_duplicate_message(name, duplicated[name]))
    if argument is not None and name != argument:
        require_columns(table, [name], hint=f"{argument}= names it; pass {argument}=None "
                                            "when the table has none")
    return name in table.column_names


def with_unit(keys: list[str], table: pa.Table, unit: str | None) -> list[str]:
    """The key columns and the unit column, when the table has one (each unit is a group of its
    own: values in different units are never pooled).

    Parameters
    ----------
    keys : list of str
        The key columns.
    table : pyarrow.Table
        The table (or a plan's key table).
    unit : str or None
        The ``unit=`` argument: its default ``"unit"`` may be absent, another name must exist
        (`has_column`).

    Returns
    -------
    list of str
        `keys`, with `unit` appended when present and not already a key.

    Notes
    -----
    Argument plumbing: no formula.
    """
    if unit is not None and has_column(table, unit, argument="unit") and unit not in keys:
        return [*keys, unit]
    return keys


def as_float64(column: pa.ChunkedArray, name: str, role: str = "value") -> pa.ChunkedArray:
    """The measurement column `column` cast to float64 (nulls kept).

    Parameters
    ----------
    column : pyarrow.ChunkedArray
        The column (dictionary-encoded allowed).
    name : str
        Its name, for the message.
    role : str
        The argument that names the column (``value``, ``weights``, ...), for the message.

    Returns
    -------
    pyarrow.ChunkedArray
        float64, nulls kept.

    Raises
    ------
    InputError
        A type other than floats, integers, decimals or null (strings, booleans, timestamps,
        durations, nested types): the message names the column, its type and the types accepted.
        A 64-bit integer column (int64, uint64) holding a value that has no exact float64: the
        message names the column, shows one such value and the float64 it would become, and the
        remedy (subtract an offset, or change the unit).

    Notes
    -----
    Arrow's ``cast``. Every 8-, 16- and 32-bit integer and every integer of magnitude up to
    2**53 = 9007199254740992 is exact in float64. Beyond 2**53 only some integers are (2**60
    is, 2**60 + 1000 is not: it would become 2**60 + 1024); rounding them silently would change
    spreads (the sd of 2**60 + [0, 1000, 3, 7] would be 512, not 498.34) and call distinct
    values equal (2**62 and 2**62 + 1), so an int64/uint64 column is accepted only when every
    value converts exactly, checked on whole arrays: the float64 converted back to the integer
    type must give the value again (a float64 of 2**63, or 2**64 for uint64, which the cast of
    values near the top of the range gives, does not fit the type and counts as inexact).
    Decimals round to the nearest float64 (relative error at most 2**-53, about 1.1e-16), far
    below the resolution of any timer; a decimal holds fractions, which float64 rarely holds
    exactly anyway.
    """
    t = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    numeric = (pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_decimal(t)
               or pa.types.is_null(t))
    if not numeric:
        hint = (f"; pass {role}= the column holding the measurements, or convert it first"
                if role == "value" else "; convert it to numbers first")
        raise InputError(
            f"{role} column {name!r} has type {column.type}, not a number: a {role} column must "
            f"hold {NUMERIC_TYPES}{hint}"
        )
    if column.type == pa.float64():
        return column
    if t in (pa.int64(), pa.uint64()):
        _check_exact_in_float64(column, name, role)
    try:
        # decimals round to the nearest float64 (documented); 64-bit integers are exact here
        return pc.cast(column, pa.float64(), safe=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise InputError(f"{role} column {name!r} of type {column.type} cannot be converted to "
                         f"float64: {exc}") from None


#: Every integer of magnitude up to this is exact in float64 (the 53-bit significand).
EXACT_INTEGER_LIMIT = 2 ** 53


def _check_exact_in_float64(column: pa.ChunkedArray, name: str, role: str) -> None:
    """Raise `InputError` when a value of the int64 / uint64 `column` has no exact float64.

    Vectorised per chunk: a chunk within +-2**53 (Arrow's min_max) is exact; otherwise the
    values are cast to float64 and back, a float64 at or above 2**63 (int64) or 2**64 (uint64)
    not fitting the type being inexact by itself.
    """
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_decode()
        if len(chunk) == chunk.null_count:
            continue
        bounds = pc.min_max(chunk)
        low, high = bounds["min"].as_py(), bounds["max"].as_py()
        if -EXACT_INTEGER_LIMIT <= low and high <= EXACT_INTEGER_LIMIT:
            continue
        ints = chunk.fill_null(0).to_numpy(zero_copy_only=False)
        floats = ints.astype(np.float64)
        top = 2.0 ** 64 if ints.dtype == np.uint64 else 2.0 ** 63
        fits = floats < top
        back = np.where(fits, floats, 0.0).astype(ints.dtype)
        inexact = ~fits | (back != ints)
        if not inexact.any():
            continue
        bad = int(ints[int(np.flatnonzero(inexact)[0])])
        raise InputError(
            f"{role} column {name!r} holds integers that float64 cannot represent exactly, e.g. "
            f"{bad} (it would become {int(np.float64(bad))}): integers beyond 2**53 = "
            f"{EXACT_INTEGER_LIMIT} have no exact float64 in general, and rounding them would "
            "change spreads and make distinct values equal; subtract an offset (e.g. the "
            "column's minimum) or change the unit (e.g. ns to us) first"
        )


def value_column(table: pa.Table, name: str, role: str = "value") -> np.ndarray:
    """The measurement column `name` as a float64 numpy array, nulls as NaN.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table.
    name : str
        The value column.
    role : str
        The argument naming the column, for messages (see `as_float64`).

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
    column_name(name, role)
    require_columns(table, [name])
    col = as_float64(table.column(name), name, role)
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
