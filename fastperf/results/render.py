"""Renderings of result tables for people and programs: aligned text, Markdown, JSON records."""
from __future__ import annotations

import json
import math
from typing import Any

import pyarrow as pa

__all__ = ["format_cell", "render_text", "render_markdown", "json_safe", "table_records", "dumps"]


def format_cell(value: Any) -> str:
    """One cell for people: floats with 6 significant digits, missing as an empty string."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.6g}"
    return str(value)


def table_cells(table: pa.Table) -> tuple[list[str], list[list[str]]]:
    names = table.column_names
    columns = [[format_cell(v) for v in table.column(i).to_pylist()] for i in range(len(names))]
    return names, [list(r) for r in zip(*columns)] if columns else []


def render_text(table: pa.Table) -> str:
    """An aligned plain-text table: numbers right-aligned, text left-aligned."""
    names, rows = table_cells(table)
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
    names, rows = table_cells(table)
    numeric = [
        pa.types.is_integer(t) or pa.types.is_floating(t) for t in table.schema.types
    ]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if num else ":---" for num in numeric) + "|"
    return "\n".join([line(names), rule] + [line(r) for r in rows])


def json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def table_records(table: pa.Table) -> list[dict[str, Any]]:
    """The table as a list of row dicts, NaN and infinities as None (JSON null)."""
    return [json_safe(r) for r in table.to_pylist()]


def dumps(doc: Any, indent: int | None = 2) -> str:
    """`doc` as JSON text, non-finite floats as null."""
    return json.dumps(json_safe(doc), indent=indent)
