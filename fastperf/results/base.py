"""The one result family.

- Table-level results derive from `Result`: the per-row table under ``.table`` and under one
  documented attribute name per kind (``.benchmarks`` for a row per benchmark, ``.groups`` for a
  row per (benchmark, variant) group), ``.summary`` (a dict; every summary starts with
  ``function`` and ends with ``rows`` and ``rows_not_ok`` when the table has a ``status``
  column), ``.warnings`` and the renderings ``to_text`` / ``to_markdown`` / ``to_json``.
- Array-level results derive from `TestResult`: unpackable as ``statistic, pvalue`` like
  scipy's, with further fields as attributes, shaped like the batch.
- `ConfidenceInterval` is the one interval type of both.

A table-level result leaves fastperf in the ecosystem's idiom: it implements the Arrow PyCapsule
interface (``__arrow_c_stream__``, the stream of ``.table``), so ``pyarrow.table(result)``,
``polars.DataFrame(result)`` and ``duckdb.sql("from result")`` read it directly, and
``to_pandas()`` / ``to_polars()`` convert it (each dependency imported on use). Its JSON
document names its layout, ``"schema": "fastperf.<function>/1"`` (docs/cli.md, "JSON output").
"""
from __future__ import annotations

import importlib
import os
from collections import namedtuple
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.arrays import shaped
from fastperf.data.validation import check_whole_number
from fastperf.results.figures import TOP, Intervals, ReportView
from fastperf.results.html import render_html, render_notebook, row_labels
from fastperf.results.render import (
    dumps, markdown_list, render_markdown, render_text, table_records, text_lines,
)

if TYPE_CHECKING:  # optional dependencies, for the return types of to_pandas and to_polars only
    import pandas
    import polars

__all__ = ["Result", "GroupResult", "BenchmarkResult", "TestResult", "ConfidenceInterval",
           "keyed_table", "empty_keys", "dropped_warnings", "null_keys_as_entries", "nan_as_null",
           "optional_package", "JSON_SCHEMA_VERSION"]

#: A confidence interval: arrays (or scalars) of lower and upper bounds, unpackable as
#: ``low, high`` (scipy's ``ConfidenceInterval``).
ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])

#: The version of the JSON documents' layout, the ``/1`` of ``"schema": "fastperf.<function>/1"``:
#: raised when a key or a column of a function's document is removed, renamed or changes
#: meaning (adding one keeps it).
JSON_SCHEMA_VERSION = 1


class Result:
    """Base of table-level results: a per-group table, a summary dict and warnings.

    The table is ``.table``; `GroupResult` and `BenchmarkResult` also name it by its kind
    (``.groups``, ``.benchmarks``), and `table_name` is that name (the key of the table in
    `to_json`).
    """

    table_name = "groups"

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 **extra: pa.Table | None):
        if set(extra) != set(self.extra_tables):
            raise TypeError(f"{type(self).__name__} takes the extra tables {self.extra_tables}, "
                            f"got {tuple(extra)}")
        self._table = null_keys_as_entries(table)
        for name, extra_table in extra.items():
            setattr(self, name, None if extra_table is None else null_keys_as_entries(extra_table))
        summary = dict(summary)
        if "status" in table.column_names:
            status = table.column("status").to_numpy(zero_copy_only=False)
            summary["rows"] = table.num_rows
            summary["rows_not_ok"] = int((status != "ok").sum())
        self.summary = summary
        self.warnings = list(warnings)

    @property
    def table(self) -> pa.Table:
        """The per-group table, whatever its attribute name."""
        return self._table

    #: Names of further tables (attributes, possibly None) that the renderings show after the
    #: main one, e.g. ("effects",); `__init__` takes each by name and folds its null keys as
    #: it does the main table's.
    extra_tables: tuple[str, ...] = ()

    def extra_title(self, name: str) -> str:
        """The heading of extra table `name` in the text and Markdown renderings."""
        return name

    #: The runs behind each row (`fastperf.results.figures.Runs`), kept by the two-variant
    #: protocols for the per-row plots of the HTML report; None: not kept.
    runs = None

    def extra_sections(self) -> Iterator[tuple[str, pa.Table]]:
        """(name, table) of each extra table that is present, in order."""
        for name in self.extra_tables:
            table = getattr(self, name, None)
            if table is not None:
                yield name, table

    def report_view(self) -> ReportView:
        """What the HTML report shows (`fastperf.results.figures.ReportView`): here the summary's
        leading scalar facts and, when the table has one of the usual (estimate, low, high)
        column triples, its interval chart; the result kinds override it with their own."""
        facts = [f"{k}: {v:.6g}" if isinstance(v, float) else f"{k}: {v}"
                 for k, v in self.summary.items()
                 if k != "function" and isinstance(v, (str, int, float)) and not isinstance(v, bool)]
        headline = [f"{self.table.num_rows} {self.table_name}"] + ["; ".join(facts[:8])]
        figures = []
        names = self.table.column_names
        for est, low, high in (("ratio", "ci_low", "ci_high"), ("estimate", "ci_low", "ci_high"),
                               ("statistic", "ci_low", "ci_high"), ("score", "ci_low", "ci_high"),
                               ("median", "ci_median_low", "ci_median_high")):
            if {est, low, high} <= set(names):
                estimate, lower, upper = (
                    self.table.column(c).to_numpy(zero_copy_only=False).astype(float)
                    for c in (est, low, high))
                figures.append(Intervals(f"{est} and its interval, per row", row_labels(self.table),
                                         estimate, lower, upper, axis=est, reference=None,
                                         log=False, sort=False))
                break
        return ReportView(headline, figures, self.runs,
                          "status" if "status" in names else None)

    def to_html(self, path: str | os.PathLike | None = None, *, top: int | None = None,
                title: str | None = None) -> str:
        """The HTML report: one self-contained page (styles, script and data inline; no network
        when opened), with the headline, the figures, every row in a sortable, filterable
        table and, where the result kept them, each row's runs on demand (docs/reports.md).

        Parameters
        ----------
        path : str or path-like, optional
            Also write the page there (UTF-8).
        top : int, optional
            Rows drawn one by one in an interval figure (default 50, the most changed); all
            rows stay in the table.
        title : str, optional
            The page's title.

        Returns
        -------
        str
            The page.
        """
        top = TOP if top is None else check_whole_number(top, "top", minimum=1)
        page = render_html(self, top=top, title=title)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(page)
        return page

    def _repr_html_(self) -> str:
        return render_notebook(self)

    def to_text(self) -> str:
        """Aligned plain text: the table, the extra tables, then the warnings."""
        out = render_text(self.table)
        for name, table in self.extra_sections():
            out += f"\n\n{self.extra_title(name)}:\n" + render_text(table)
        if self.warnings:
            out += "\n\nwarnings:\n" + text_lines(self.warnings)
        return out

    def to_markdown(self) -> str:
        """Markdown: the table, the extra tables, then the warnings as a list."""
        out = render_markdown(self.table)
        for name, table in self.extra_sections():
            out += f"\n\n**{self.extra_title(name)}**\n\n" + render_markdown(table)
        if self.warnings:
            out += "\n\n**Warnings**\n\n" + markdown_list(self.warnings)
        return out

    @property
    def json_schema(self) -> str | None:
        """The name and version of this result's JSON layout, ``"fastperf.<function>/1"``
        (``<function>`` is ``summary["function"]``), the ``schema`` key of `to_json`; None for a
        result whose summary names no function."""
        function = self.summary.get("function")
        return None if function is None else f"fastperf.{function}/{JSON_SCHEMA_VERSION}"

    def to_json(self, indent: int | None = 2) -> str:
        """JSON object with ``schema`` (`json_schema`, when the summary names its function),
        ``summary``, ``warnings``, the table and each extra table (rows, or null when absent);
        docs/cli.md, "JSON output", describes each function's document."""
        schema = self.json_schema
        doc: dict[str, Any] = {} if schema is None else {"schema": schema}
        doc |= {
            "summary": self.summary,
            "warnings": self.warnings,
            self.table_name: table_records(self.table),
        }
        for name in self.extra_tables:
            table = getattr(self, name, None)
            doc[name] = None if table is None else table_records(table)
        return dumps(doc, indent=indent)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of `table`, so that Arrow consumers read the result as
        they read a table: ``pyarrow.table(result)``, ``polars.DataFrame(result)``,
        ``duckdb.sql("from result")``, ``pandas.DataFrame.from_arrow(result)`` (pandas >= 3).

        Parameters
        ----------
        requested_schema : PyCapsule, optional
            A schema the consumer asks for, passed on to `pyarrow.Table.__arrow_c_stream__`
            (which casts to it where it can).

        Returns
        -------
        PyCapsule
            An ``arrow_array_stream`` capsule of the main table (the extra tables and the
            summary are not in it).
        """
        return self.table.__arrow_c_stream__(requested_schema)

    def to_pandas(self) -> pandas.DataFrame:
        """The main table as a `pandas.DataFrame` (`pyarrow.Table.to_pandas`'s conversion).

        Returns
        -------
        pandas.DataFrame
            One row per row of `table`, its columns in order.

        Raises
        ------
        ModuleNotFoundError
            When pandas is not installed (an optional dependency), naming it.
        """
        optional_package("pandas", "to_pandas")
        return self.table.to_pandas()

    def to_polars(self) -> polars.DataFrame:
        """The main table as a `polars.DataFrame` (polars' conversion of a `pyarrow.Table`).

        Returns
        -------
        polars.DataFrame
            One row per row of `table`, its columns in order.

        Raises
        ------
        ModuleNotFoundError
            When polars is not installed (an optional dependency), naming it.
        """
        return optional_package("polars", "to_polars").DataFrame(self.table)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.table.num_rows} {self.table_name}>"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


class GroupResult(Result):
    """A table-level result with one row per (benchmark keys, variant) group: ``.groups``."""

    table_name = "groups"

    @property
    def groups(self) -> pa.Table:
        """One row per group: the key columns first, then the function's columns."""
        return self._table


class BenchmarkResult(Result):
    """Result of a table-level test: ``.benchmarks`` has one row per benchmark, keys first, then
    the test's columns and ``status``."""

    table_name = "benchmarks"

    @property
    def benchmarks(self) -> pa.Table:
        """One row per benchmark: the key columns first, then the test's columns."""
        return self._table


def empty_keys(rows: int) -> pa.Table:
    """A table of `rows` rows and no column: the keys of results without key columns."""
    return pa.table({"_": pa.nulls(rows)}).drop_columns(["_"])


def nan_as_null(values: np.ndarray) -> pa.Array:
    """A float64 column whose NaN entries are null: a figure the group cannot give (a variance
    component of units of one value each, say), which a result shows as missing rather than
    as a NaN beside status "ok"."""
    values = np.asarray(values, dtype=np.float64)
    return pa.array(values, pa.float64(), mask=np.isnan(values))


def keyed_table(keys: pa.Table, columns: dict[str, Any]) -> pa.Table:
    """The key table with `columns` (name -> array, one entry per row) appended in order."""
    out = keys
    for name, column in columns.items():
        # Arrow columns keep their type (an empty one too); others are converted
        out = out.append_column(name, column if isinstance(column, (pa.Array, pa.ChunkedArray))
                                else pa.array(column))
    return out


def optional_package(package: str, method: str) -> ModuleType:
    """Optional dependency `package`, imported on use by `method`.

    Raises
    ------
    ModuleNotFoundError
        When `package` is not installed, naming it and how to install it (an import error from
        inside an installed `package` is raised as it is).
    """
    try:
        return importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name != package:
            raise
        raise ModuleNotFoundError(f"{method}() needs {package}, an optional dependency that is "
                                  f"not installed: pip install {package}", name=package) from exc


def null_keys_as_entries(table: pa.Table) -> pa.Table:
    """`table` with each dictionary-encoded column's null key as a null entry, not a null in
    its dictionary (the grouping's codes give a null key a code of its own; pandas refuses a
    null among a categorical's categories, so ``to_pandas()`` failed on such a result).

    Parameters
    ----------
    table : pyarrow.Table

    Returns
    -------
    pyarrow.Table
        The same table where no dictionary holds a null (the same values, row for row). A
        floating-point key column with a NaN key is decoded to plain floats instead: NaN is a
        key of its own, apart from null, which a null entry would not keep, and pandas refuses
        NaN among a categorical's categories too.

    Notes
    -----
    Data plumbing: no formula.
    """
    for i, field in enumerate(table.schema):
        if not pa.types.is_dictionary(field.type):
            continue
        column = table.column(i)
        if pa.types.is_floating(field.type.value_type) and any(
                pc.any(pc.is_nan(chunk.dictionary)).as_py() for chunk in column.chunks):
            table = table.set_column(i, field.with_type(field.type.value_type),
                                     column.cast(field.type.value_type))
            continue
        if not any(chunk.dictionary.null_count for chunk in column.chunks):
            continue
        chunks = []
        for chunk in column.chunks:
            valid = chunk.dictionary.is_valid().to_numpy(zero_copy_only=False)
            renumbered = np.cumsum(valid) - 1
            # the indices' own nulls (not chunk.is_null(), which crashes pyarrow on a
            # dictionary of type null)
            is_null = chunk.indices.is_null().to_numpy(zero_copy_only=False)
            codes = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
            chunks.append(pa.DictionaryArray.from_arrays(
                pa.array(renumbered[codes], field.type.index_type, mask=is_null | ~valid[codes]),
                chunk.dictionary.filter(valid)))
        table = table.set_column(i, field, pa.chunked_array(chunks, field.type))
    return table


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

    @classmethod
    def from_batch(cls, batch_shape: tuple[int, ...], statistic, pvalue, status, /, **fields):
        """The result with every array field reshaped to `batch_shape` (numpy scalars for a
        single test); other fields as given."""
        def shape(value):
            return shaped(value, batch_shape) if isinstance(value, np.ndarray) else value

        return cls(shape(statistic), shape(pvalue), shape(status),
                   **{name: shape(value) for name, value in fields.items()})

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __getitem__(self, index):
        return (self.statistic, self.pvalue)[index]

    def __len__(self) -> int:
        return 2

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({parts})"
