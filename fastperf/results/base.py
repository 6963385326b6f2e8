"""The result object of table-level functions, and its renderings (text, Markdown, JSON).

Every table-level result holds its per-group table (``.groups`` or ``.benchmarks``), a ``summary``
dict of overall figures and a ``warnings`` list; the renderings are shared here.
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["Result", "BenchmarkResult", "TestResult", "keyed_table", "benchmark_result", "dropped_warnings", "format_cell", "render_text", "render_markdown", "table_records"]


def format_cell(value: Any) -> str:
    """One cell for people: floats with 6 significant digits, missing as an empty string."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.6g}"
    return str(value)


def _rows(table: pa.Table) -> tuple[list[str], list[list[str]]]:
    names = table.column_names
    columns = [[format_cell(v) for v in table.column(i).to_pylist()] for i in range(len(names))]
    return names, [list(r) for r in zip(*columns)] if columns else []


def render_text(table: pa.Table) -> str:
    """An aligned plain-text table: numbers right-aligned, text left-aligned."""
    names, rows = _rows(table)
    numeric = [
        pa.types.is_integer(t) or pa.types.is_floating(t) for t in table.schema.types
    ]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(names)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)
        ).rstrip()

    return "\n".join([line(names), line(["-" * w for w in widths])] + [line(r) for r in rows])


def render_markdown(table: pa.Table) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    names, rows = _rows(table)
    numeric = [
        pa.types.is_integer(t) or pa.types.is_floating(t) for t in table.schema.types
    ]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if num else ":---" for num in numeric) + "|"
    return "\n".join([line(names), rule] + [line(r) for r in rows])


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def table_records(table: pa.Table) -> list[dict[str, Any]]:
    """The table as a list of row dicts, NaN and infinities as None (JSON null)."""
    return [_json_safe(r) for r in table.to_pylist()]


class Result:
    """Base of table-level results: a per-group table, a summary dict and warnings.

    Subclasses set `table_name` ("groups" or "benchmarks"), the attribute holding the table.
    """

    table_name = "groups"

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str]):
        setattr(self, self.table_name, table)
        self.summary = summary
        self.warnings = warnings

    @property
    def table(self) -> pa.Table:
        """The per-group table, whatever its attribute name."""
        return getattr(self, self.table_name)

    #: Names of further tables (attributes, possibly None) that the renderings show after the
    #: main one, e.g. ("effects",).
    extra_tables: tuple[str, ...] = ()

    def extra_title(self, name: str) -> str:
        """The heading of extra table `name` in the text and Markdown renderings."""
        return name

    def _extras(self):
        for name in self.extra_tables:
            table = getattr(self, name, None)
            if table is not None:
                yield name, table

    def to_text(self) -> str:
        """Aligned plain text: the table, the extra tables, then the warnings."""
        out = render_text(self.table)
        for name, table in self._extras():
            out += f"\n\n{self.extra_title(name)}:\n" + render_text(table)
        if self.warnings:
            out += "\n\nwarnings:\n" + "\n".join(f"- {w}" for w in self.warnings)
        return out

    def to_markdown(self) -> str:
        """Markdown: the table, the extra tables, then the warnings as a list."""
        out = render_markdown(self.table)
        for name, table in self._extras():
            out += f"\n\n**{self.extra_title(name)}**\n\n" + render_markdown(table)
        if self.warnings:
            out += "\n\n**Warnings**\n\n" + "\n".join(f"- {w}" for w in self.warnings)
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """JSON object with ``summary``, ``warnings``, the table and each extra table (rows, or
        null when absent)."""
        doc = {
            "summary": _json_safe(self.summary),
            "warnings": self.warnings,
            self.table_name: table_records(self.table),
        }
        for name in self.extra_tables:
            table = getattr(self, name, None)
            doc[name] = None if table is None else table_records(table)
        return json.dumps(doc, indent=indent)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.table.num_rows} {self.table_name}>"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


class BenchmarkResult(Result):
    """Result of a table-level test: ``.benchmarks`` has one row per benchmark (or group), keys
    first, then the test's columns and ``status``."""

    table_name = "benchmarks"


def benchmark_result(table: pa.Table, summary: dict[str, Any], warnings: list[str]) -> BenchmarkResult:
    """A `BenchmarkResult` whose summary also counts the benchmarks and those not tested, with a
    warning when some could not be tested (their ``status`` is not "ok")."""
    status = table.column("status").to_numpy(zero_copy_only=False)
    not_ok = int((status != "ok").sum())
    if not_ok:
        warnings = [*warnings, f"{not_ok} benchmark(s) could not be tested (see status)"]
    return BenchmarkResult(table, {**summary, "benchmarks": table.num_rows,
                                   "benchmarks_not_ok": not_ok}, warnings)


def keyed_table(keys: pa.Table, columns: dict[str, Any]) -> pa.Table:
    """The key table with `columns` (name -> array, one entry per row) appended in order."""
    out = keys
    for name, column in columns.items():
        out = out.append_column(name, pa.array(column))
    return out


def dropped_warnings(n_dropped, unit: str = "group(s)", column: str = "n_dropped") -> list[str]:
    """The warning for null/NaN values dropped per group (none when nothing was dropped)."""
    n_dropped = np.asarray(n_dropped)
    total = int(n_dropped.sum())
    if not total:
        return []
    return [f"{total} null/NaN values dropped in {int((n_dropped > 0).sum())} {unit} "
            f"(see {column})"]


class TestResult:
    """Result of an array-level test, as scipy's: unpacks as ``statistic, pvalue``.

    Attributes
    ----------
    statistic, pvalue : numpy arrays shaped like the batch (the input without `axis`), or numpy
        scalars for a single test. NaN where a sample could not be tested.
    status : numpy array of str (or a str): "ok", or why the sample could not be tested
        ("n < 3", "NaN in input", "zero variance", ...).
    Further fields (``df``, ...) are set per test and listed in its docstring.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, statistic, pvalue, status, **fields):
        self.statistic = statistic
        self.pvalue = pvalue
        self.status = status
        self._fields = ["statistic", "pvalue", "status", *fields]
        for name, value in fields.items():
            setattr(self, name, value)

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __getitem__(self, index):
        return (self.statistic, self.pvalue)[index]

    def __len__(self) -> int:
        return 2

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({parts})"
