"""Renderings of result tables for people and programs: aligned text, Markdown, JSON records.

Every cell goes through `fastperf.results.cells`, the one conversion of each Arrow type (and of
the Python objects of summaries): see its docstring for the forms (ISO 8601 dates, times,
timestamps and durations, decimals as exact strings, bytes as UTF-8 or ``0x`` hex, NaN and
infinities as JSON null). The JSON text is strict: `json.loads` reads it without NaN literals.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from fastperf.results.cells import (
    column_json, column_strings, column_text, json_value, text_value,
)

__all__ = ["format_cell", "numeric_type", "printable", "render_text", "render_markdown",
           "markdown_text", "markdown_list", "text_lines", "code_span", "json_safe",
           "table_records", "dumps",
           "csv_table"]


def format_cell(value: Any) -> str:
    """One cell for people: floats with 6 significant digits, missing as an empty string, any
    other value in its form of `fastperf.results.cells` (bytes as UTF-8, ISO 8601 dates...)."""
    return text_value(value)


def numeric_type(data_type: pa.DataType) -> bool:
    """Whether a column of `data_type` holds numbers (integers, floats, decimals; dictionaries of
    them): right-aligned in text, sorted as numbers in the HTML report."""
    if pa.types.is_dictionary(data_type):
        data_type = data_type.value_type
    return (pa.types.is_integer(data_type) or pa.types.is_floating(data_type)
            or pa.types.is_decimal(data_type))


def table_cells(table: pa.Table) -> tuple[list[str], list[list[str]]]:
    """The column names and the rows of text cells of `table`."""
    names = [str(n) for n in table.column_names]
    columns = [column_text(table.column(i)) for i in range(len(names))]
    return names, [list(r) for r in zip(*columns)] if columns else []


#: Unicode categories a terminal acts on rather than shows: control characters (line breaks,
#: ESC, DEL and the C1 controls) and the line and paragraph separators.
TERMINAL_CONTROLS = ("Cc", "Zl", "Zp")


def printable(text: str) -> str:
    """`text` with each character of `TERMINAL_CONTROLS` written as its Python escape
    (``\\n``, ``\\x1b``): a benchmark name cannot break a text table's alignment or colour the
    terminal; every other character (a non-breaking space, an emoji's joiner) stays."""
    if text.isprintable():
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in TERMINAL_CONTROLS else c
                   for c in text)


def render_text(table: pa.Table) -> str:
    """An aligned plain-text table: numbers right-aligned, text left-aligned, characters that
    are not printable escaped (`printable`)."""
    names, rows = table_cells(table)
    names = [printable(n) for n in names]
    rows = [[printable(c) for c in r] for r in rows]
    numeric = [numeric_type(t) for t in table.schema.types]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(names)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)
        ).rstrip()

    return "\n".join([line(names), line(["-" * w for w in widths])] + [line(r) for r in rows])


#: The characters Markdown acts on inside a line of text or a table cell (GitHub's cmark-gfm):
#: the backslash, code spans, emphasis, strikethrough, links and images, raw HTML and entities
#: (``BM_Sort<int>`` would lose ``<int>`` as an unknown tag), GitHub's math, the table's pipes;
#: and ``_`` where it can open or close emphasis (not between two letters or digits, as in
#: ``BM_sum_mean``, which stays as it is). ``>`` only closes what an escaped ``<`` no longer
#: opens, and a backslash before it would stay in a web address the renderer links.
MARKDOWN_ACTIVE = re.compile(r"[\\`*~\[\]<&$|]|(?<![^\W_])_|_(?![^\W_])")


def markdown_text(text: str) -> str:
    """`text` as Markdown that renders as the same characters: each character Markdown would act
    on (`MARKDOWN_ACTIVE`) behind a backslash (CommonMark's escape of ASCII punctuation), line
    breaks as ``<br>``."""
    text = MARKDOWN_ACTIVE.sub(lambda match: "\\" + match.group(0), text)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def code_span(text: str) -> str:
    """`text` as a Markdown code span: fenced by one backtick more than its longest run of
    them, padded by a space where it starts or ends with one (CommonMark 0.31, 6.1); line
    breaks as spaces."""
    text = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def text_lines(items: Sequence[str], prefix: str = "- ") -> str:
    """Each item on its own line after `prefix`, written with `printable` (a warning that
    quotes a benchmark name cannot move the terminal's cursor)."""
    return "\n".join(prefix + printable(item) for item in items)


def markdown_list(items: Sequence[str], prefix: str = "") -> str:
    """A Markdown list of the items, each after `prefix`, written with `markdown_text`."""
    return "\n".join(f"- {prefix}{markdown_text(item)}" for item in items)


def render_markdown(table: pa.Table) -> str:
    """A GitHub-flavoured Markdown table, every cell written with `markdown_text` (so it renders
    as the characters of its text cell)."""
    names, rows = table_cells(table)
    numeric = [numeric_type(t) for t in table.schema.types]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(markdown_text(c) for c in cells) + " |"

    rule = "|" + "|".join("---:" if num else ":---" for num in numeric) + "|"
    return "\n".join([line(names), rule] + [line(r) for r in rows])


def json_safe(value: Any) -> Any:
    """`value` (a summary, a list of records) as JSON-ready values: NaN and infinities as None,
    dates, bytes, decimals... in their forms of `fastperf.results.cells`."""
    return json_value(value)


def table_records(table: pa.Table) -> list[dict[str, Any]]:
    """The table as a list of row dicts of JSON-ready values (NaN and infinities as None)."""
    names = [str(n) for n in table.column_names]
    columns = [column_json(table.column(i)) for i in range(len(names))]
    return [dict(zip(names, row)) for row in zip(*columns)] if columns else \
        [{} for _ in range(table.num_rows)]


def dumps(doc: Any, indent: int | None = 2) -> str:
    """`doc` as strict JSON text (no NaN literal): every value in its form of
    `fastperf.results.cells`, non-finite floats as null."""
    return json.dumps(json_safe(doc), indent=indent, allow_nan=False, default=str)



def _csv_unsafe(data_type: pa.DataType) -> bool:
    if pa.types.is_dictionary(data_type):
        data_type = data_type.value_type
    return (pa.types.is_binary(data_type) or pa.types.is_large_binary(data_type)
            or pa.types.is_fixed_size_binary(data_type)
            or getattr(pa.types, "is_binary_view", lambda _: False)(data_type)
            or pa.types.is_duration(data_type) or pa.types.is_interval(data_type)
            or pa.types.is_nested(data_type))


def csv_table(table: pa.Table) -> pa.Table:
    """`table` ready for Arrow's CSV writer: the columns it cannot write, or writes without
    their meaning (bytes that are not UTF-8, durations as bare counts, intervals, lists,
    structs, maps), replaced by string columns of their forms of `fastperf.results.cells`;
    every other column as it is."""
    for i, data_type in enumerate(table.schema.types):
        if _csv_unsafe(data_type):
            table = table.set_column(i, table.schema.field(i).name, column_strings(table.column(i)))
    return table
