"""BenchmarkDotNet CSV summaries (``--exporters csv``: ``results/<Type>-report.csv``).

Layout: the summary table as CSV, one row per benchmark case::

    Method,Job,<job characteristics ...>,<params ...>,Mean,Error,StdDev,[Median,...],Gen0,Allocated
    Fib10,DefaultJob,...,"1,234.56 ns",3.685 ns,3.077 ns,0.0153,584 B

Cells carry their units (``631.84 ns``, ``"398,232.31 ns"``, ``1.234 μs``, ``12.3 KB``) or,
with units printed in the header, the header does (``Mean [ns]`` over plain numbers). Numbers
use ``,`` as the thousands separator and ``.`` as the decimal point; the delimiter is ``,`` or,
in cultures whose list separator it is, ``;``. Only summaries: the runs are not in this file.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.common import add_config
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_benchmarkdotnet_csv", "read_benchmarkdotnet_csv", "TIME_UNITS_NS",
           "SIZE_UNITS_B"]

#: BenchmarkDotNet's time unit names -> nanoseconds (``μs`` is U+03BC; U+00B5 and ``us`` too).
TIME_UNITS_NS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "μs": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9,
                 "m": 60e9, "min": 60e9, "h": 3600e9, "d": 86400e9}
#: BenchmarkDotNet's size unit names -> bytes (binary: 1 KB = 1024 B).
SIZE_UNITS_B = {"B": 1.0, "KB": 1024.0, "MB": 1024.0 ** 2, "GB": 1024.0 ** 3,
                "TB": 1024.0 ** 4}
#: Time statistic columns -> summary statistic.
_TIME_COLUMNS = {"Mean": "mean", "StdDev": "sd", "Median": "median", "Min": "min", "Max": "max",
                 "Q1": "q1", "Q3": "q3"}
#: Count columns (the number of result iterations: ``StatisticColumn.Iterations``; an ``N``
#: column is a benchmark parameter, as ``[Params] int N`` often is, not a count).
_COUNT_COLUMNS = ("Iterations",)
#: Columns that are statistics or metrics, not configuration (the first one seen ends the
#: configuration columns, which BenchmarkDotNet writes before them).
_STAT_COLUMNS = frozenset(set(_TIME_COLUMNS) | set(_COUNT_COLUMNS) | {
    "Error", "StdErr", "Skewness", "Kurtosis", "MValue", "Op/s", "Ratio", "RatioSD", "Rank",
    "Gen0", "Gen1", "Gen2", "Gen 0", "Gen 1", "Gen 2", "Allocated", "Alloc Ratio",
    "Code Size", "Completed Work Items", "Lock Contentions", "Exceptions",
    "P0", "P25", "P50", "P67", "P80", "P85", "P90", "P95", "P100"})
_HEADER_UNIT = re.compile(r"^(.*?)\s*\[([^\]]+)\]$")
_CELL = re.compile(r"^([-+]?[0-9][0-9,]*(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(\S*)$")
_MISSING = frozenset({"", "NA", "N/A", "?", "-", "NaN"})
_TIME_UNIT, _MEMORY_UNIT = "ns/op", "B/op"


def _split_header(text: str) -> tuple[list[str], str]:
    """The header fields of the first line and the delimiter (``,`` or ``;``)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    delimiter = ";" if first.count(";") > first.count(",") else ","
    try:
        fields = next(csv.reader([first], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return [], delimiter
    return [f.strip() for f in fields], delimiter


def _base(column: str) -> str:
    match = _HEADER_UNIT.match(column)
    return match.group(1) if match else column


def looks_like_benchmarkdotnet_csv(text: str) -> bool:
    """True when the first line, split on ``,`` or ``;``, has a ``Method`` column, a ``Mean`` column
    (``Mean`` or ``Mean [unit]``) and an ``Error`` or ``StdDev`` column.

    Format: BenchmarkDotNet's CSV exporter (github.com/dotnet/BenchmarkDotNet,
    src/BenchmarkDotNet/Exporters/Csv/CsvExporter.cs).
    """
    fields, _ = _split_header(text)
    bases = {_base(f) for f in fields}
    return "Method" in bases and "Mean" in bases and bool({"Error", "StdDev"} & bases)


def read_benchmarkdotnet_csv(path: Path, text: str) -> pa.Table:
    """A BenchmarkDotNet CSV summary as a *summary table*, times in nanoseconds per operation.

    One row per line of the file in unit ``ns/op``: ``benchmark`` is ``Method`` (``Type.Method``
    when the file has a ``Type`` column); ``mean``, ``sd`` (``StdDev``: BenchmarkDotNet's is the
    sample standard deviation), ``median``, ``min``, ``max`` where the file has those columns,
    ``iqr`` = ``Q3 - Q1`` where it has both, ``n`` from an ``Iterations`` column, else null (``Error``, the half-width of a 99.9% interval, is not used: it gives no sd without n).
    Times are converted from the unit in the cell (``ns``, ``μs``/``us``, ``ms``, ``s``, ...) or
    in the header (``Mean [us]``). An ``Allocated`` column gives one further row per line in
    unit ``B/op`` (``mean`` only; ``KB`` = 1024 B). Cells ``NA``, ``?``, ``-`` or empty are null.
    Configuration columns (strings, declared): ``job`` (the ``Job`` column) and every other
    column written before the statistics (job characteristics and parameters, named as in the
    header) whose value differs between lines.

    Refuses (InputError) no BenchmarkDotNet header, no rows, a line with another number of fields
    than the header, a cell that is no number with a known unit.

    Format: BenchmarkDotNet's CSV exporter (github.com/dotnet/BenchmarkDotNet,
    src/BenchmarkDotNet/Exporters/Csv/CsvExporter.cs) and its statistics
    (src/BenchmarkDotNet/Mathematics/Statistics.cs: variance with divisor N - 1).
    """
    header, delimiter = _split_header(text)
    if not looks_like_benchmarkdotnet_csv(text):
        raise InputError(f"{path}: not a BenchmarkDotNet CSV summary (a header with Method, "
                         "Mean and Error/StdDev columns)")
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter)
    try:
        lines = [row for row in list(reader)[1:] if any(cell.strip() for cell in row)]
    except csv.Error as exc:
        raise InputError(f"{path}: malformed BenchmarkDotNet CSV ({exc})") from None
    if not lines:
        raise InputError(f"{path}: the BenchmarkDotNet CSV summary holds no benchmarks")
    for number, row in enumerate(lines, 2):
        if len(row) != len(header):
            raise InputError(f"{path}: line {number} has {len(row)} fields, the header "
                             f"{len(header)}")
    bases = [_base(c) for c in header]
    columns = {base: i for i, base in reversed(list(enumerate(bases)))}
    first_stat = min((i for i, b in enumerate(bases) if b in _STAT_COLUMNS), default=len(bases))
    names = []
    for row in lines:
        method = row[columns["Method"]].strip()
        kind = row[columns["Type"]].strip() if "Type" in columns else ""
        names.append(f"{kind}.{method}" if kind else method)
    stats: dict[str, list[Any]] = {s: [] for s in ("n", "mean", "sd", "min", "max", "median",
                                                   "iqr")}
    allocated: list[Any] = []
    for row, name in zip(lines, names):
        found = {}
        for column, stat in _TIME_COLUMNS.items():
            if column in columns:
                i = columns[column]
                found[stat] = _value(path, name, header[i], row[i], TIME_UNITS_NS)
        for stat in ("mean", "sd", "median", "min", "max"):
            stats[stat].append(found.get(stat))
        q1, q3 = found.get("q1"), found.get("q3")
        stats["iqr"].append(None if q1 is None or q3 is None else q3 - q1)
        count = next((row[columns[c]] for c in _COUNT_COLUMNS if c in columns), None)
        stats["n"].append(_count(path, name, count))
        if "Allocated" in columns:
            i = columns["Allocated"]
            allocated.append(_value(path, name, header[i], row[i], SIZE_UNITS_B))
    config = _config(header, lines, first_stat, columns)
    out_names, units = list(names), [_TIME_UNIT] * len(names)
    index = list(range(len(lines)))
    if "Allocated" in columns:
        out_names += names
        units += [_MEMORY_UNIT] * len(names)
        index += list(range(len(lines)))
        for stat, values in stats.items():
            values.extend(allocated if stat == "mean" else [None] * len(names))
    table = summary_table(out_names, unit=units, statistics=stats, where=path,
                          kind="BenchmarkDotNet CSV")
    indices = pa.array(index, pa.int32())
    return add_config(table, {key: column.take(indices) for key, column in config.items()})


def _value(path: Path, name: str, column: str, cell: str, units: dict[str, float]) -> float | None:
    """A cell as a number in the base unit (ns or B): the unit from the cell or the header."""
    cell = cell.strip()
    if cell in _MISSING:
        return None
    match = _CELL.match(cell)
    header = _HEADER_UNIT.match(column)
    unit = match.group(2) if match else ""
    if not unit and header:
        unit = header.group(2).strip()
    if match is None or (unit and unit not in units):
        raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: {shown(column)} "
                         f"{shown(cell)} is not a number with a unit in {sorted(units)}")
    number = float(match.group(1).replace(",", ""))
    return number * units[unit] if unit else number


def _count(path: Path, name: str, cell: str | None) -> int | None:
    if cell is None or cell.strip() in _MISSING:
        return None
    text = cell.strip().replace(",", "")
    if not text.isdigit():
        raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: the iteration count "
                         f"{shown(cell)} is not a whole number")
    return int(text)


def _config(header: list[str], lines: list[list[str]], first_stat: int,
            columns: dict[str, int]) -> dict[str, pa.Array]:
    """``job`` and the other configuration columns (before the statistics) that differ."""
    out: dict[str, pa.Array] = {}
    if "Job" in columns:
        out["job"] = pa.array([row[columns["Job"]].strip() for row in lines], pa.string())
    for i in range(first_stat):
        name = header[i]
        if name in ("Method", "Type", "Job") or name in out:
            continue
        values = [row[i].strip() for row in lines]
        if len(set(values)) > 1:
            out[name] = pa.array(values, pa.string())
    return out
