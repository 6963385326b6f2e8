"""Summary tables: what summary-only result files give per benchmark (n, mean, sd, min, max,
median, iqr) instead of the runs, marked in the schema metadata so that `compare` and
`describe` know what they hold."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.io.checked import float_column, int_column
from fastperf.io.tables import SUMMARY_METADATA_KEY, is_summary_table, require_columns

__all__ = ["SUMMARY_METADATA_KEY", "SUMMARY_STATISTICS", "MAX_SUMMARY_N", "summary_table",
           "mark_summary_table", "checked_summary_columns", "is_summary_table"]

#: The statistic columns of a summary table, in order (float64; ``n`` int64), null where the
#: file does not give them.
SUMMARY_STATISTICS = ("n", "mean", "sd", "min", "max", "median", "iqr")
#: The largest run count ``n`` accepted (2**53: every count up to it is exact in float64).
MAX_SUMMARY_N = 1 << 53


def summary_table(
    benchmark: Sequence[str],
    *,
    unit: Sequence[str] | str,
    statistics: dict[str, Sequence[Any]],
    extra: dict[str, pa.Array] | None = None,
    variant: Sequence[str | None] | None = None,
    where: str | Path = "",
    kind: str = "",
) -> pa.Table:
    """Build a *summary table* from what a summary-only result file gives per benchmark.

    Parameters
    ----------
    benchmark : sequence of str
        The benchmark name of each row (one row per benchmark, per variant if given).
    unit : sequence of str or str
        The unit of each row's statistics, or one unit for all.
    statistics : dict of str -> sequence
        Some of `SUMMARY_STATISTICS` (``n``, ``mean``, ``sd``, ``min``, ``max``, ``median``,
        ``iqr``), one entry per row (None: not given); the others are null columns. ``sd`` is
        the sample standard deviation (divisor n - 1).
    extra : dict of str -> pyarrow.Array, optional
        Further columns (configuration, params), appended in order.
    variant : sequence of str or None, optional
        The variant of each row, when the file names them.
    where : str or pathlib.Path
        The file, for messages.
    kind : str
        The file's format, for messages.

    Returns
    -------
    pyarrow.Table
        ``benchmark``, (``variant``), ``unit``, then `SUMMARY_STATISTICS`, then the extra
        columns; its schema metadata holds `SUMMARY_METADATA_KEY` so that `is_summary_table`
        recognises it.

    Raises
    ------
    InputError
        An unknown statistic name, a statistic that is no number, or an ``n`` that is no whole
        number, naming the file, the benchmark and the field.

    Notes
    -----
    The summary-only readers' common output (docs/readers.md): no formula.
    """
    unknown = sorted(set(statistics) - set(SUMMARY_STATISTICS))
    if unknown:
        raise InputError(f"summary statistics {unknown} unknown; known: {SUMMARY_STATISTICS}")
    rows = len(benchmark)
    where = str(where)
    columns: dict[str, pa.Array] = {"benchmark": pa.array(benchmark, pa.string())}
    if variant is not None:
        columns["variant"] = pa.array(variant, pa.string())
    columns["unit"] = pa.array([unit] * rows if isinstance(unit, str) else unit, pa.string())
    for name in SUMMARY_STATISTICS:
        given = statistics.get(name, [None] * rows)
        if name == "n":
            columns[name] = int_column(given, where=where, names=benchmark, field=name, kind=kind)
        else:
            columns[name] = float_column(given, where=where, names=benchmark, field=name,
                                         kind=kind)
    for name, arr in (extra or {}).items():
        columns[name] = arr
    return mark_summary_table(pa.table(columns), where=where)


def mark_summary_table(table: pa.Table, where: str | Path = "") -> pa.Table:
    """`table` marked as a summary table (schema metadata), after checking its columns.

    Parameters
    ----------
    table : pyarrow.Table
        One row per benchmark (and variant): ``n``, ``mean``, ``sd`` and any other of
        `SUMMARY_STATISTICS`.
    where : str or pathlib.Path
        The file, for messages.

    Returns
    -------
    pyarrow.Table
        The same columns, checked (`checked_summary_columns`) and marked so that
        `is_summary_table` recognises it: ``n`` int64, the other statistics float64, NaN
        replaced by null (not given).

    Raises
    ------
    InputError
        A missing ``n``, ``mean`` or ``sd`` column, or a value `checked_summary_columns`
        refuses, naming the column.

    Notes
    -----
    No formula.
    """
    table = checked_summary_columns(table, where)
    return table.replace_schema_metadata({**(table.schema.metadata or {}),
                                          SUMMARY_METADATA_KEY: b"1"})


def checked_summary_columns(table: pa.Table, where: str | Path = "") -> pa.Table:
    """The statistic columns of a summary table, checked and converted once for every reader.

    Parameters
    ----------
    table : pyarrow.Table
        Columns ``n``, ``mean``, ``sd`` and any other of `SUMMARY_STATISTICS`.
    where : str or pathlib.Path
        The file, for messages.

    Returns
    -------
    pyarrow.Table
        ``n`` as int64, the other statistics as float64; NaN is null (the statistic is not
        given, and `compare`/`describe` say so in the row's status).

    Raises
    ------
    InputError
        A missing ``n``, ``mean`` or ``sd`` column; a statistic column that is not numeric;
        an ``n`` that is negative, no whole number or above 2**53 (`MAX_SUMMARY_N`); an ``sd``
        that is negative or infinite; an infinite ``iqr``. The message names the file, the
        column, the benchmark (row) and the value.

    Notes
    -----
    A sample standard deviation is a finite number >= 0 and a run count a whole number >= 0;
    counts up to 2**53 are exact in float64, where the tests compute.
    """
    require_columns(table, ["n", "mean", "sd"],
                    hint="a summary table needs columns n, mean and sd (sample sd)")
    for name in SUMMARY_STATISTICS:
        if name not in table.column_names:
            continue
        column = table.column(name)
        kind = column.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)
                or pa.types.is_decimal(kind) or pa.types.is_null(kind)):
            raise InputError(f"{_place(where)}summary column {name!r} is of type {kind}: "
                             "accepted: numbers (integer or float)")
        if name == "n" and pa.types.is_integer(kind):
            # a uint64 above the int64 range wraps to a negative value here: refused as such
            values = pc.cast(column, pa.int64(), safe=False).fill_null(0).to_numpy(
                zero_copy_only=False)
            null = np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
            bad = ~null & ((values < 0) | (values > MAX_SUMMARY_N))
            _refuse(table, where, name, column, bad, "a run count is a whole number from 0 to "
                    f"2**53 = {MAX_SUMMARY_N:,}")
            converted = pc.cast(column, pa.int64())
        else:
            values = pc.cast(column, pa.float64(), safe=False).to_numpy(zero_copy_only=False)
            values = np.asarray(values, dtype=np.float64)
            null = np.isnan(values)
            if name == "n":
                bad = ~null & ~((values >= 0) & (values <= MAX_SUMMARY_N)
                                & (values == np.floor(values)))
                _refuse(table, where, name, column, bad, "a run count is a whole number from "
                        f"0 to 2**53 = {MAX_SUMMARY_N:,}")
                converted = pa.array(np.where(null, 0, values).astype(np.int64), pa.int64(),
                                     mask=null)
            else:
                if name == "sd":
                    _refuse(table, where, name, column, ~null & ~(values >= 0),
                            "a sample standard deviation is >= 0")
                if name in ("sd", "iqr"):
                    _refuse(table, where, name, column, np.isinf(values),
                            "a spread is a finite number")
                converted = pa.array(values, pa.float64(), mask=null)
        table = table.set_column(table.column_names.index(name), name, converted)
    return table


def _place(where: str | Path) -> str:
    return f"{where}: " if str(where) else ""


def _refuse(table: pa.Table, where: str | Path, name: str, column: pa.ChunkedArray,
            bad: np.ndarray, accepted: str) -> None:
    """An InputError naming the first row of `bad` (if any): its benchmark and value."""
    if not bad.any():
        return
    row = int(np.flatnonzero(bad)[0])
    bench = ""
    if "benchmark" in table.column_names:
        bench = f" of benchmark {table.column('benchmark')[row].as_py()!r}"
    raise InputError(f"{_place(where)}summary column {name!r}{bench} (row {row}) is "
                     f"{column[row].as_py()!r}: {accepted}")
