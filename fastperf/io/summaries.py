"""Summary tables: what summary-only result files give per benchmark (n, mean, sd, min, max,
median, iqr) instead of the runs, marked in the schema metadata so that `compare` and
`describe` know what they hold."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import float_column, int_column
from fastperf.io.tables import SUMMARY_METADATA_KEY, is_summary_table, require_columns

__all__ = ["SUMMARY_METADATA_KEY", "SUMMARY_STATISTICS", "summary_table", "mark_summary_table",
           "is_summary_table"]

#: The statistic columns of a summary table, in order (float64; ``n`` int64), null where the
#: file does not give them.
SUMMARY_STATISTICS = ("n", "mean", "sd", "min", "max", "median", "iqr")


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
    return mark_summary_table(pa.table(columns))


def mark_summary_table(table: pa.Table) -> pa.Table:
    """`table` marked as a summary table (schema metadata), after checking its columns.

    Parameters
    ----------
    table : pyarrow.Table
        One row per benchmark (and variant): ``n``, ``mean``, ``sd`` and any other of
        `SUMMARY_STATISTICS`.

    Returns
    -------
    pyarrow.Table
        The same columns, marked so that `is_summary_table` recognises it.

    Raises
    ------
    InputError
        A missing ``n``, ``mean`` or ``sd`` column, naming it.

    Notes
    -----
    No formula.
    """
    require_columns(table, ["n", "mean", "sd"],
                    hint="a summary table needs columns n, mean and sd (sample sd)")
    return table.replace_schema_metadata({**(table.schema.metadata or {}),
                                          SUMMARY_METADATA_KEY: b"1"})
