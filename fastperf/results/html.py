"""The HTML report of a table-level result: one self-contained file (no network: the styles, the
script and the data are inline), readable offline and printable.

Top to bottom: the title and headline, the warnings, the figures of the result's `ReportView`
(`fastperf.results.figures`), the table of every row (sortable by a click on a column, filtered
by text and by category, paged so that 10,000 rows stay light; the view's lead columns first,
the category cells coloured, a ``flags`` column as badges), the extra tables, and on demand (a
click on a row or an interval) the runs of that row: a strip plot of each side with its median
and violin, their empirical distribution functions, normal Q-Q plots where the protocol tested
normality and, where the runs carry them, the iteration traces with the warm-up marked; or, for
a result with histories (`fastperf.changepoints`), the history chart of that series: its
points, its segments' medians and intervals, its steps and drifts (the series with the largest
changes drawn up front too). The script draws these charts from data sent once, compactly.

Every number in the table is the result's column as `fastperf.results.cells` writes it (six
significant digits), so the page shows what ``to_text`` shows.
"""
from __future__ import annotations

import base64
import gzip
import json
from html import escape
from importlib import resources

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.results.cells import column_text
from fastperf.results.render import dumps, numeric_type
from fastperf.data.arrays import Samples
from fastperf.results.figures import (
    MEANINGS, TOP, Histories, Intervals, ReportView, Shares, css_class, histogram_svg,
    intervals_svg, shares_svg,
)

__all__ = ["render_html", "render_notebook", "row_labels", "table_payload", "column_order",
           "category_styles", "static_table", "histories_payload", "HISTORY_DIGITS"]


def _asset(name: str) -> str:
    return resources.files("fastperf.results").joinpath(name).read_text(encoding="utf-8")


def row_labels(table: pa.Table, keys: list[str] | None = None) -> list[str]:
    """One label per row: the values of the key columns (by default the leading non-numeric
    columns) joined by " / "."""
    if keys is None:
        keys = []
        for field_ in table.schema:
            if numeric_type(field_.type) or pa.types.is_boolean(field_.type):
                break
            keys.append(field_.name)
            if len(keys) == 4:
                break
    keys = [k for k in keys if k in table.column_names]
    if not keys:
        return [f"row {i + 1}" for i in range(table.num_rows)]
    columns = [column_text(table.column(k)) for k in keys]
    return [" / ".join(c for c in cells if c) or "(none)" for cells in zip(*columns)]


def column_order(names: list[str], lead_columns=()) -> list[int]:
    """The page's order of a table's columns, as indices into `names`: those of `lead_columns`
    the table has first, in that order, then the others in the table's order."""
    first = [names.index(c) for c in dict.fromkeys(lead_columns) if c in names]
    taken = set(first)
    return first + [i for i in range(len(names)) if i not in taken]


def table_payload(table: pa.Table, lead_columns=()) -> dict:
    """The table for the page's script: column names (`lead_columns` first, see
    `column_order`), which are numeric (sorted as numbers), and the rows of text cells."""
    names = [str(n) for n in table.column_names]
    order = column_order(names, lead_columns)
    numeric = [numeric_type(table.schema.types[i]) for i in order]
    columns = [column_text(table.column(i)) for i in order]
    return {"columns": [names[i] for i in order], "numeric": numeric,
            "rows": [list(r) for r in zip(*columns)] if columns else []}


def _number_texts(values: np.ndarray, digits: int = 6) -> np.ndarray:
    """`values` as JSON numbers of `digits` significant digits, ``null`` where not finite."""
    values = np.asarray(values, np.float64)
    return np.where(np.isfinite(values), np.char.mod(f"%.{digits}g", values), "null")


def _segment_texts(samples, digits: int = 6) -> list[str]:
    """Per segment of `samples`, its values as JSON array items (`digits` significant digits,
    null where not finite)."""
    text = _number_texts(samples.values, digits)
    offsets = samples.offsets
    return [",".join(text[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)]


def _process_lengths(offsets: np.ndarray, processes: np.ndarray) -> list[str]:
    """Per row (segment of `offsets`), the lengths of its non-empty processes (the segments of
    `processes` that start inside the row) as JSON array items."""
    offsets, processes = np.asarray(offsets, np.int64), np.asarray(processes, np.int64)
    starts, lengths = processes[:-1], np.diff(processes)
    keep = lengths > 0
    starts, lengths = starts[keep], lengths[keep]
    row = np.searchsorted(offsets, starts, side="right") - 1
    bounds = np.searchsorted(row, np.arange(len(offsets)), side="left")
    text = lengths.astype(str)
    return [",".join(text[bounds[i]:bounds[i + 1]]) for i in range(len(offsets) - 1)]


def _runs_payload(runs) -> str:
    """The runs of every row, for the detail panel. Without traces, per row the baseline's and
    the candidate's runs, ``[[x...],[y...]]``. With traces (`Runs.traces`) the values are sent
    once, in measurement order, with each side's process lengths and warm-up iterations:
    ``[[x...],[y...],[len...],[len...],warmup_x,warmup_y]`` (the script sorts them for the strip,
    the violin and the ECDF); ``"dropped"`` says whether the tested runs left the warm-up out
    (the runs counted fewer values than the traces)."""
    traces = runs.traces
    head = (f'{{"baseline":{json.dumps(str(runs.baseline_name))},'
            f'"candidate":{json.dumps(str(runs.candidate_name))},'
            f'"plots":{json.dumps(list(runs.plots))},"traces":{json.dumps(traces is not None)}')
    if traces is None:
        rows = [f"[[{a}],[{b}]]" for a, b in zip(_segment_texts(runs.baseline),
                                                 _segment_texts(runs.candidate))]
        return f'{head},"dropped":false,"rows":[{",".join(rows)}]}}'

    def total(samples) -> int:
        return int(samples.offsets[-1] - samples.offsets[0]) if len(samples.offsets) else 0

    dropped = (total(runs.baseline) + total(runs.candidate)
               != total(traces.baseline) + total(traces.candidate))
    warm_x = np.asarray(traces.warmup_baseline, np.int64).tolist()
    warm_y = np.asarray(traces.warmup_candidate, np.int64).tolist()
    rows = [f"[[{a}],[{b}],[{la}],[{lb}],{wa},{wb}]" for a, b, la, lb, wa, wb in zip(
        _segment_texts(traces.baseline), _segment_texts(traces.candidate),
        _process_lengths(traces.baseline.offsets, traces.baseline_processes),
        _process_lengths(traces.candidate.offsets, traces.candidate_processes), warm_x, warm_y)]
    return f'{head},"dropped":{json.dumps(dropped)},"rows":[{",".join(rows)}]}}'


#: Significant digits of each point sent for the history charts: the chart and its tooltips
#: need no more (a relative error below 5e-5, a hundredth of a pixel), and they keep 1,000
#: series of 500 points under about 4 MB of JSON.
HISTORY_DIGITS = 5


def _grouped_items(rows: np.ndarray, items: list[str], n_rows: int) -> list[str]:
    """Per row 0..n_rows-1, its `items` (item k belongs to row ``rows[k]``) joined by ","."""
    rows = np.asarray(rows, np.int64)
    order = np.argsort(rows, kind="stable")
    bounds = np.searchsorted(rows[order], np.arange(n_rows + 1), side="left")
    ordered = [items[k] for k in order]
    return [",".join(ordered[bounds[g]:bounds[g + 1]]) for g in range(n_rows)]


def _order_runs(order, offsets: np.ndarray) -> tuple[list[str], list[str]]:
    """The distinct order values of every row's points, sorted, as text, and per row its points'
    order values as runs of consecutive distinct values: JSON items ``first,count,...`` (one
    run when a row has a point at every order value of its span, as most histories do)."""
    n_rows = len(offsets) - 1
    if len(order) == 0:
        return [], [""] * n_rows
    distinct = pc.unique(order)
    distinct = distinct.take(pc.array_sort_indices(distinct))
    index = pc.index_in(order, value_set=distinct).to_numpy(zero_copy_only=False).astype(np.int64)
    starts = np.ones(index.size, dtype=bool)
    starts[1:] = index[1:] != index[:-1] + 1
    starts[offsets[:-1][np.diff(offsets) > 0]] = True
    first = np.flatnonzero(starts)
    count = np.diff(np.append(first, index.size))
    row = np.searchsorted(offsets, first, side="right") - 1
    items = [f"{a},{c}" for a, c in zip(index[first].tolist(), count.tolist())]
    return column_text(distinct), _grouped_items(row, items, n_rows)


def histories_payload(histories: Histories) -> str:
    """The histories for the page's script, as JSON text: ``{"orders": [text...], "top": [row...],
    "rows": [...]}``, where ``orders`` holds the distinct order values (sorted, as the table
    writes them) and row g is ``[[point...], [first, count, ...], [segment...], [change...]]``:
    its points (`HISTORY_DIGITS` significant digits), its points' order values as runs of
    consecutive ``orders`` entries, its segments ``[start, end, drift (0/1), median, low, high,
    fit_start, fit_end]`` and its changes ``[drift (0/1), position, end_position, direction,
    label]``."""
    offsets = np.asarray(histories.offsets, np.int64)
    n_rows = len(offsets) - 1
    points = _segment_texts(Samples(np.asarray(histories.values, np.float64), offsets),
                            HISTORY_DIGITS)
    orders, runs = _order_runs(histories.order, offsets)
    s = histories.segments
    numbers = [_number_texts(s.column(c).to_numpy(zero_copy_only=False).astype(np.float64))
               for c in ("median", "median_ci_low", "median_ci_high", "fit_start", "fit_end")]
    drift = [int(k == "drift") for k in s.column("kind").to_pylist()]
    segments = [f"[{a},{b},{d},{m},{lo},{hi},{f0},{f1}]" for a, b, d, m, lo, hi, f0, f1 in zip(
        s.column("start").to_pylist(), s.column("end").to_pylist(), drift, *numbers)]
    c = histories.changes
    changes = [f"[{int(k == 'drift')},{p},{e},{json.dumps(d)},{json.dumps(label)}]"
               for k, p, e, d, label in zip(
                   c.column("kind").to_pylist(), c.column("position").to_pylist(),
                   c.column("end_position").to_pylist(), c.column("direction").to_pylist(),
                   histories.labels)]
    segments = _grouped_items(histories.segment_rows, segments, n_rows)
    changes = _grouped_items(histories.change_rows, changes, n_rows)
    rows = [f"[[{p}],[{r}],[{s_}],[{c_}]]" for p, r, s_, c_ in zip(points, runs, segments,
                                                                     changes)]
    top = np.asarray(histories.top, np.int64).tolist()
    return f'{{"orders":{json.dumps(orders)},"top":{json.dumps(top)},"rows":[{",".join(rows)}]}}'


def category_styles() -> str:
    """The colours of the category cells of the page's table (``td.fp-cat-<value>``) and of the
    history charts' changes: those of the figures (`fastperf.results.figures.MEANINGS`), so a
    verdict reads the same in all."""
    return "".join(f".fp-table td.fp-cat-{css_class(name)}{{color:{colour};font-weight:600}}"
                   f".fp-history .fp-cat-{css_class(name)}{{color:{colour}}}"
                   for name, colour in MEANINGS.items() if name)


def _figures_html(view: ReportView, top: int) -> str:
    out = []
    histories = view.histories
    if histories is not None and len(histories.top):
        out.append(f'<p class="fp-note">The {len(histories.top)} series with the largest '
                   f'changes; a click on a row of the table draws any series\' history.</p>')
        out.append('<div class="fp-figure-box fp-history-top" id="fp-history-top"></div>')
    for figure in view.figures:
        if isinstance(figure, Intervals):
            n = len(figure.labels)
            if n > top:
                out.append(histogram_svg(figure))
                out.append(f'<p class="fp-note">The {top} rows farthest from no change, of '
                           f'{n}; every row is in the table below.</p>')
            out.append(intervals_svg(figure, top))
            missing = int(np.sum(~np.isfinite(np.asarray(figure.estimate, float))))
            if missing:
                out.append(f'<p class="fp-note">{missing} row(s) without an estimate are not '
                           f'drawn (see their status in the table).</p>')
        elif isinstance(figure, Shares):
            out.append(shares_svg(figure, top))
            if len(figure.labels) > top:
                out.append(f'<p class="fp-note">The first {top} rows of {len(figure.labels)}.'
                           f'</p>')
    return "\n".join(f'<div class="fp-figure-box">{f}</div>' if f.startswith("<svg") else f
                     for f in out)


#: The column whose cells the page draws as badges, one per flag (its text: the flags joined
#: by ", "; "" when none).
BADGES = "flags"

#: Data beyond this many characters of JSON goes into the page gzip-compressed (base64): the
#: runs and table of 10,000 benchmarks are about 9 MB of JSON and 2 MB compressed.
COMPRESS_FROM = 1_000_000


def _data_element(doc_text: str) -> str:
    """The page's data element: JSON text safe inside <script>, or when large its gzip
    compression in base64 (``data-encoding="gzip-base64"``; the page's script inflates it
    with the browser's DecompressionStream)."""
    if len(doc_text) < COMPRESS_FROM:
        # "<" only occurs inside JSON strings, where \u003c is the same text: no "</script>"
        # or "<!--" can end or change the element ("<\\!--" was no valid JSON escape)
        safe = doc_text.replace("<", "\\u003c")
        return f'<script type="application/json" id="fp-data">{safe}</script>'
    packed = base64.b64encode(gzip.compress(doc_text.encode("utf-8"), compresslevel=6,
                                            mtime=0)).decode("ascii")
    return (f'<script type="application/octet-stream" id="fp-data" '
            f'data-encoding="gzip-base64">{packed}</script>')


def render_html(result, *, top: int = TOP, title: str | None = None) -> str:
    """The whole report page of `result` (any table-level result) as HTML text.

    Parameters
    ----------
    result : Result
        The result; its ``report_view()`` says what to draw.
    top : int
        The rows drawn one by one in an interval figure (the most changed); beyond, a histogram
        of all rows comes first.
    title : str, optional
        The page title (default: the function's name and the result's size).
    """
    view = result.report_view()
    function = result.summary.get("function", type(result).__name__)
    if title is not None and not isinstance(title, str):
        raise InputError(f"title must be a string, got {title!r}")
    title = title or f"fastperf {function}: {result.table.num_rows} {result.table_name}"
    payload = table_payload(result.table, view.lead_columns)
    category = (payload["columns"].index(view.category_column)
                if view.category_column in payload["columns"] else -1)
    badges = payload["columns"].index(BADGES) if BADGES in payload["columns"] else -1
    labels = row_labels(result.table, result.summary.get("keys"))
    histories = "null" if view.histories is None else histories_payload(view.histories)
    data = (f'{{"table":{json.dumps(payload)},"category":{category},"badges":{badges},'
            f'"labels":{json.dumps(labels)},'
            f'"runs":{_runs_payload(view.runs) if view.runs is not None else "null"},'
            f'"histories":{histories}}}')
    extras = []
    for name, table in result.extra_sections():
        extras.append(f'<h2>{escape(result.extra_title(name))}</h2>'
                      + static_table(table, view.extra_rows))
    warnings = "".join(f"<li>{escape(w)}</li>" for w in result.warnings)
    headline = "".join(f'<p class="fp-headline{" fp-lead" if i == 0 else ""}">{escape(line)}'
                       f'</p>' for i, line in enumerate(view.headline))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="fastperf">
<title>{escape(title)}</title>
<style>{_asset("report.css")}{category_styles()}</style></head>
<body class="fp-page">
<header><h1>{escape(title)}</h1>{headline}</header>
{f'<section class="fp-warnings"><h2>Warnings</h2><ul>{warnings}</ul></section>' if warnings else ''}
<section class="fp-figures">{_figures_html(view, top)}</section>
<section class="fp-runs" id="fp-runs" hidden></section>
<section class="fp-table-box"><h2>Every row</h2>
<div class="fp-controls"><input id="fp-filter" type="search" placeholder="filter rows (text in any cell)" aria-label="filter rows">
<select id="fp-category" aria-label="category"></select>
<span id="fp-count"></span> <button id="fp-prev" type="button">previous</button><button id="fp-next" type="button">next</button></div>
<div class="fp-scroll"><table id="fp-table" class="fp-table"><thead></thead><tbody></tbody></table></div>
</section>
{"".join(extras)}
<footer>Made by fastperf. Summary: <code>{escape(dumps(_short(result.summary), indent=None))}</code></footer>
{_data_element(data)}
<script>{_asset("report.js")}</script>
</body></html>
"""


def _short(summary: dict) -> dict:
    """The summary without its long lists (shown in the page's footer)."""
    return {k: v for k, v in summary.items()
            if not (isinstance(v, (list, tuple)) and len(v) > 20)}


def static_table(table: pa.Table, limit: int | None = None, lead_columns=()) -> str:
    """`table` (its first `limit` rows) as a plain HTML table, numbers right-aligned,
    `lead_columns` first (`column_order`)."""
    payload = table_payload(table if limit is None else table.slice(0, limit), lead_columns)
    head = "".join(f"<th>{escape(c)}</th>" for c in payload["columns"])
    body = "".join("<tr>" + "".join(
        f'<td{" class=num" if num else ""}>{escape(cell)}</td>'
        for cell, num in zip(row, payload["numeric"])) + "</tr>" for row in payload["rows"])
    more = ("" if limit is None or table.num_rows <= limit else
            f"<p class=fp-note>First {limit} of {table.num_rows} rows.</p>")
    return f'<table class="fp-table fp-static"><thead><tr>{head}</tr></thead>' \
           f"<tbody>{body}</tbody></table>{more}"


def render_notebook(result, rows: int = 20) -> str:
    """The compact form for Jupyter (``_repr_html_``): headline, the first figure (its 20 most
    changed rows) and the first `rows` rows of the table; no script."""
    view = result.report_view()
    figure = ""
    if view.figures:
        first = view.figures[0]
        figure = (intervals_svg(first, rows) if isinstance(first, Intervals)
                  else shares_svg(first, rows))
    headline = "".join(f"<div><b>{escape(line)}</b></div>" if i == 0 else
                       f"<div>{escape(line)}</div>" for i, line in enumerate(view.headline))
    return (f'<div class="fastperf-result"><style>{_asset("report.css")}</style>{headline}'
            f"{figure}{static_table(result.table, rows, view.lead_columns)}</div>")
