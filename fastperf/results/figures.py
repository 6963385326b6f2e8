"""The figures of the HTML reports, as inline SVG text: no plotting library, no network.

A result says *what* to draw by returning a `ReportView` (its headline, its figures, its runs);
this module draws it. Three kinds of figure cover every table-level result:

- `Intervals`: one horizontal interval per row (a point and its confidence interval), the
  no-change line and an optional band (a forest plot; with ``sort=False`` and one colour per
  variant, the interval chart of describe, aggregate and plan). Rows beyond `top` are not drawn
  one by one: the figure shows the `top` most changed (farthest from the no-change line on the
  figure's scale) and `histogram_svg` shows the distribution of all of them.
- `Shares`: stacked horizontal bars of fractions per row (ANOVA's allocation of variation).

Per-row figures are drawn by the page's script, on demand, from data sent once: the runs of a
two-variant row (`Runs`, `Traces`) and the history of a series (`Histories`: its points, its
segments' medians and intervals, its steps and drifts).

Why hand-written SVG: see docs/reports.md (measured against matplotlib and Plotly there): a
forest plot of 50 rows is about 12 kB of SVG text, made in milliseconds, with one element per
interval that a browser test can count, and nothing to import for users who never make a report.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples

__all__ = ["Intervals", "Shares", "Runs", "Traces", "Histories", "ReportView", "intervals_svg", "histogram_svg",
           "shares_svg", "most_changed", "colours", "css_class", "MEANINGS", "TOP"]

#: Rows drawn one by one in an interval figure by default; the rest are in its histogram.
TOP = 50

WIDTH = 860
LABEL_WIDTH = 290
ROW_HEIGHT = 16
MARGIN = 36


@dataclass
class Intervals:
    """One interval per row: `estimate` in [`low`, `high`] (NaN: not drawn; the row is counted
    in the caption), coloured by `category` (a CSS class per row: "worse", "better", a variant's
    name...).

    `reference` is the no-change line (1 for ratios, 0 for differences), `band` an optional
    (low, high) zone drawn behind (SPARC's equivalence margin), `log` a logarithmic axis.
    `sort`: draw the rows ordered by estimate (a forest plot) instead of as given.
    """

    title: str
    labels: list[str]
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    axis: str
    category: list[str] | None = None
    reference: float | None = 1.0
    band: tuple[float, float] | None = None
    log: bool = True
    sort: bool = True
    rows: np.ndarray | None = None  # the result-table row of each entry (default 0..n-1)


@dataclass
class Shares:
    """Stacked bars: per row, the fractions `parts` (name -> array) that sum to at most 1."""

    title: str
    labels: list[str]
    parts: dict[str, np.ndarray]
    rows: np.ndarray | None = None


@dataclass
class Traces:
    """Per row of a two-variant result, each side's values in the order they were measured, cut
    into processes, with the warm-up found (`fastperf.engine.diagnostics.find_warmup`): the
    iteration traces of the page's detail panel.

    Row i's baseline values are ``baseline.values[baseline.offsets[i]:baseline.offsets[i+1]]``;
    its processes are the segments of `baseline_processes` (CSR offsets into
    ``baseline.values``) that start inside that slice (without processes: one segment, the runs
    in order); ``warmup_baseline[i]`` iterations of each of its processes are the transient (0:
    none found). The same for the candidate.
    """

    baseline: Samples
    candidate: Samples
    baseline_processes: np.ndarray
    candidate_processes: np.ndarray
    warmup_baseline: np.ndarray
    warmup_candidate: np.ndarray


@dataclass
class Runs:
    """The runs behind each row of a two-variant result, for the per-row plots drawn on demand
    in the page: row i compares ``baseline.values[offsets[i]:offsets[i+1]]`` with the same
    segment of `candidate`. `plots` lists what to draw: "strip" (the runs, their medians),
    "ecdf" (both empirical distribution functions: the KS view), "qq" (normal Q-Q plots: the
    normality view). The strip carries each side's violin (its kernel density outline).

    With `traces`, the page also draws each side's iteration traces, and its runs are the
    traces' values (sent once, in measurement order; the page sorts them). A one-sided `Runs`
    (`candidate_name` ""; the candidate's segments empty: `fastperf.check`) draws the
    baseline side only."""

    baseline_name: str
    candidate_name: str
    baseline: Samples
    candidate: Samples
    plots: tuple[str, ...] = ("strip", "ecdf")
    traces: Traces | None = None


@dataclass
class Histories:
    """The history of each row (a series of `fastperf.changepoints`), for the history chart the
    page draws on demand in the detail panel, and up front for the `top` rows.

    Row g's points (in order) are ``values[offsets[g]:offsets[g + 1]]``, with the order value
    of each point in `order` (same positions). `segments` has the columns ``start``, ``end``
    (point positions within the row, ``end`` exclusive), ``kind`` ("level" or "drift"),
    ``median``, ``median_ci_low``, ``median_ci_high`` (null: no interval) and ``fit_start`` /
    ``fit_end`` (the line drawn: the level, or the drift's fit at its first and last point);
    `segment_rows` gives the row of each. `changes` has the columns ``kind`` ("step" or
    "drift"), ``position``, ``end_position`` and ``direction`` (a category of `MEANINGS`:
    "worse", "drift better", ...), `change_rows` the row of each, `labels` the text written by
    each change ("+9.8 %", "drift +12 % over 80 points"). The chart's x axis is the point's
    index, labelled with order values; its y axis is logarithmic when every point is > 0.
    """

    values: np.ndarray
    offsets: np.ndarray
    order: pa.Array | pa.ChunkedArray
    segments: pa.Table
    segment_rows: np.ndarray
    changes: pa.Table
    change_rows: np.ndarray
    labels: list[str]
    top: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


@dataclass
class ReportView:
    """What a report shows of a result, top to bottom: the `headline` (short lines of text), the
    `figures`, then the table of every row (with `category_column`, the column whose values
    the table can be filtered by and whose cells are coloured by value), the extra tables and,
    on demand per row, its `runs` and its history (`histories`).

    `lead_columns` names the columns the page's table shows first, in that order (those the
    table has; the others follow in the table's order): the benchmark, the change, its
    interval, the p-value, the verdict and the flags, before the configuration and the counts.
    `extra_rows`: the most rows of each extra table the page writes (None: all), for results
    whose extra tables grow with the rows (a change point's history: its changes and segments,
    drawn in each row's history chart anyway).
    """

    headline: list[str]
    figures: list = field(default_factory=list)
    runs: Runs | None = None
    category_column: str | None = None
    lead_columns: tuple[str, ...] = ()
    histories: Histories | None = None
    extra_rows: int | None = None


def _scale(values: np.ndarray, log: bool) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.where(values > 0, values, np.nan)) if log else values


def most_changed(view: Intervals, top: int) -> np.ndarray:
    """Indices of the `top` rows farthest from the reference on the figure's scale (all rows,
    in order, when there are no more than `top`), then ordered as the figure draws them."""
    n = len(view.labels)
    index = np.arange(n)
    if view.sort or n > top:
        ref = 0.0 if view.reference is None else float(_scale(np.array([view.reference]),
                                                               view.log)[0])
        distance = np.abs(_scale(np.asarray(view.estimate, float), view.log) - ref)
        distance = np.where(np.isfinite(distance), distance, -1.0)
        if n > top:
            index = np.sort(np.argsort(-distance, kind="stable")[:top])
        if view.sort:
            key = _scale(np.asarray(view.estimate, float)[index], view.log)
            index = index[np.argsort(np.where(np.isfinite(key), key, np.inf), kind="stable")]
    return index


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    """About five round tick values in [lo, hi] (values on the data scale)."""
    if log:
        a, b = math.exp(lo), math.exp(hi)
        span = math.log10(b / a) if b > a else 1.0
        if span < 2:  # ratios near 1: round percentages apart
            return [v for v in np.unique(np.round(np.exp(np.linspace(lo, hi, 5)),
                                                  max(2, int(2 - math.floor(math.log10(span + 1e-12))))))
                    if a <= v <= b]
        return [10.0 ** k for k in range(math.ceil(math.log10(a)), math.floor(math.log10(b)) + 1)]
    width = hi / 4 - lo / 4  # a quarter of the span, which itself may exceed the float64 range
    if not (math.isfinite(width) and width > 0):
        return [lo] if math.isfinite(lo) and lo == hi else []
    step = 10.0 ** math.floor(math.log10(width))
    for m in (1, 2, 5, 10):
        if width / (step * m) <= 1.5:  # (hi - lo) / step <= 6
            step *= m
            break
    first = math.ceil(lo / step)  # in steps
    # counted, not np.arange(first, hi + step / 2, step): near the float64 maximum hi + step / 2
    # overflows to inf (an endless range)
    count = int(min(math.floor(hi / step - first), 12)) + 1
    return [t for t in ((first + i) * step for i in range(max(count, 0)))
            if math.isfinite(t) and t <= hi]


def _number(v: float) -> str:
    return f"{v:.4g}"


def _axis(lo, hi, log, x, top_y, bottom_y, label) -> list[str]:
    out = [f'<line class="fp-axis" x1="{LABEL_WIDTH}" x2="{WIDTH - 10}" y1="{bottom_y}" '
           f'y2="{bottom_y}"/>']
    for t in _ticks(lo, hi, log):
        px = x(math.log(t) if log else t)
        out.append(f'<line class="fp-grid" x1="{px:.1f}" x2="{px:.1f}" y1="{top_y}" '
                   f'y2="{bottom_y}"/><text class="fp-tick" x="{px:.1f}" y="{bottom_y + 13}" '
                   f'text-anchor="middle">{_number(t)}</text>')
    out.append(f'<text class="fp-axis-label" x="{(LABEL_WIDTH + WIDTH) / 2:.0f}" '
               f'y="{bottom_y + 28}" text-anchor="middle">{escape(label)}</text>')
    return out


def _domain(values: list[np.ndarray], extra: list[float], log: bool) -> tuple[float, float]:
    pooled = np.concatenate([_scale(np.asarray(v, float), log) for v in values]
                            + [_scale(np.asarray(extra, float), log)])
    pooled = pooled[np.isfinite(pooled)]
    if pooled.size == 0:
        return (-1.0, 1.0) if not log else (math.log(0.5), math.log(2.0))
    lo, hi = float(pooled.min()), float(pooled.max())
    pad = (hi * 0.05 - lo * 0.05) or (abs(lo) * 0.05 or 0.05)  # no overflow of hi - lo
    biggest = float(np.finfo(np.float64).max)
    return max(lo - pad, -biggest), min(hi + pad, biggest)


def intervals_svg(view: Intervals, top: int = TOP) -> str:
    """The interval figure of `view` as an SVG element: one ``<g class="fp-interval">`` per row
    drawn (the `top` most changed when there are more), with the row's table index in
    ``data-row`` and its numbers in a tooltip."""
    index = most_changed(view, top)
    est, low, high = (np.asarray(a, float)[index] for a in (view.estimate, view.low, view.high))
    extra = [v for v in ([view.reference] if view.reference is not None else [])
             + list(view.band or ())]
    lo, hi = _domain([est, low, high], extra, view.log)
    span = hi - lo
    x = lambda v: LABEL_WIDTH + (v - lo) / span * (WIDTH - 10 - LABEL_WIDTH)  # noqa: E731
    height = MARGIN + len(index) * ROW_HEIGHT + 44
    bottom = MARGIN + len(index) * ROW_HEIGHT + 4
    rows = np.arange(len(view.labels)) if view.rows is None else np.asarray(view.rows)
    s = lambda a: _scale(np.asarray(a, float), view.log)  # noqa: E731
    est_s, low_s, high_s = s(est), s(low), s(high)
    colour = colours(view.category or [])
    parts = [f'<svg class="fp-figure fp-forest" xmlns="http://www.w3.org/2000/svg" '
             f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img">',
             f'<text class="fp-title" x="4" y="16">{escape(view.title)}</text>']
    if view.band is not None:
        b0, b1 = s(view.band)
        parts.append(f'<rect class="fp-band" x="{x(b0):.1f}" y="{MARGIN - 6}" '
                     f'width="{max(x(b1) - x(b0), 1):.1f}" height="{bottom - MARGIN + 6}">'
                     f'<title>equivalence zone [{_number(view.band[0])}, '
                     f'{_number(view.band[1])}]</title></rect>')
    parts += _axis(lo, hi, view.log, x, MARGIN - 6, bottom, view.axis)
    if view.reference is not None:
        r = x(float(s([view.reference])[0]))
        parts.append(f'<line class="fp-reference" x1="{r:.1f}" x2="{r:.1f}" y1="{MARGIN - 6}" '
                     f'y2="{bottom}"/>')
    for k, i in enumerate(index):
        y = MARGIN + k * ROW_HEIGHT + ROW_HEIGHT / 2
        label = view.labels[i]
        short = label if len(label) <= 44 else label[:41] + "..."
        cat = "" if view.category is None else view.category[i]
        tip = (f"{label}: {_number(est[k])} [{_number(low[k])}, {_number(high[k])}]"
               + (f" ({cat})" if cat else ""))
        item = [f'<g class="fp-interval fp-cat-{css_class(cat)}" data-row="{int(rows[i])}" '
                f'style="color:{colour(cat)}">'
                f'<title>{escape(tip)}</title><rect fill="transparent" x="0" '
                f'y="{y - ROW_HEIGHT / 2:.1f}" width="{WIDTH}" height="{ROW_HEIGHT}"/>'
                f'<text class="fp-label" x="{LABEL_WIDTH - 6}" y="{y + 4:.1f}" '
                f'text-anchor="end">{escape(short)}</text>']
        if np.isfinite(low_s[k]) and np.isfinite(high_s[k]):
            item.append(f'<line class="fp-ci" x1="{x(low_s[k]):.1f}" x2="{x(high_s[k]):.1f}" '
                        f'y1="{y:.1f}" y2="{y:.1f}"/>')
        if np.isfinite(est_s[k]):
            item.append(f'<circle class="fp-point" cx="{x(est_s[k]):.1f}" cy="{y:.1f}" r="3.5"/>')
        parts.append("".join(item) + "</g>")
    parts.append("</svg>")
    return "".join(parts)


def histogram_svg(view: Intervals, bins: int = 40) -> str:
    """The distribution of every row's estimate (on the figure's scale) as a histogram, with
    the no-change line: the overview when there are too many rows to draw one by one."""
    values = _scale(np.asarray(view.estimate, float), view.log)
    values = values[np.isfinite(values)]
    extra = [view.reference] if view.reference is not None else []
    lo, hi = _domain([np.exp(values) if view.log else values], extra, view.log)
    counts, edges = np.histogram(values, bins=bins, range=(lo, hi))
    height, bottom = 180, 140
    x = lambda v: LABEL_WIDTH + (v - lo) / (hi - lo) * (WIDTH - 10 - LABEL_WIDTH)  # noqa: E731
    peak = max(int(counts.max()) if counts.size else 0, 1)
    parts = [f'<svg class="fp-figure fp-histogram" xmlns="http://www.w3.org/2000/svg" '
             f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img">',
             f'<text class="fp-title" x="4" y="16">{escape(view.title)}: all {values.size} '
             f'rows</text>']
    parts += _axis(lo, hi, view.log, x, 24, bottom, view.axis)
    for c, a, b in zip(counts, edges[:-1], edges[1:]):
        if c:
            h = (bottom - 28) * c / peak
            parts.append(f'<rect class="fp-bar" x="{x(a):.1f}" y="{bottom - h:.1f}" '
                         f'width="{max(x(b) - x(a) - 1, 1):.1f}" height="{h:.1f}">'
                         f'<title>{int(c)} rows in [{_number(math.exp(a) if view.log else a)}, '
                         f'{_number(math.exp(b) if view.log else b)})</title></rect>')
    if view.reference is not None:
        r = x(float(_scale(np.array([view.reference]), view.log)[0]))
        parts.append(f'<line class="fp-reference" x1="{r:.1f}" x2="{r:.1f}" y1="24" '
                     f'y2="{bottom}"/>')
    parts.append("</svg>")
    return "".join(parts)


def shares_svg(view: Shares, top: int = TOP) -> str:
    """Stacked bars of the fractions of each row (the first `top` rows), a legend on top."""
    n = min(len(view.labels), top)
    height = MARGIN + n * ROW_HEIGHT + 20
    rows = np.arange(len(view.labels)) if view.rows is None else np.asarray(view.rows)
    scale = WIDTH - 10 - LABEL_WIDTH
    parts = [f'<svg class="fp-figure fp-shares" xmlns="http://www.w3.org/2000/svg" '
             f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img">',
             f'<text class="fp-title" x="4" y="16">{escape(view.title)}</text>']
    for j, name in enumerate(view.parts):
        parts.append(f'<rect fill="{_part_colour(j, name)}" x="{LABEL_WIDTH + 110 * j}" y="20" '
                     f'width="10" height="10"/><text class="fp-tick" '
                     f'x="{LABEL_WIDTH + 110 * j + 14}" y="29">{escape(name)}</text>')
    for i in range(n):
        y = MARGIN + i * ROW_HEIGHT
        label = view.labels[i]
        item = [f'<g class="fp-share" data-row="{int(rows[i])}"><text class="fp-label" '
                f'x="{LABEL_WIDTH - 6}" y="{y + 11}" text-anchor="end">'
                f'{escape(label if len(label) <= 44 else label[:41] + "...")}</text>']
        start = 0.0
        for j, (name, values) in enumerate(view.parts.items()):
            v = float(values[i])
            if np.isfinite(v) and v > 0:
                item.append(f'<rect fill="{_part_colour(j, name)}" '
                            f'x="{LABEL_WIDTH + start * scale:.1f}" '
                            f'y="{y + 2}" width="{v * scale:.1f}" height="{ROW_HEIGHT - 4}">'
                            f'<title>{escape(label)}: {escape(name)} {v:.1%}</title></rect>')
                start += v
        parts.append("".join(item) + "</g>")
    parts.append("</svg>")
    return "".join(parts)


#: Colours of the categories that mean something (verdicts, conclusions); others (variants)
#: take `PALETTE` in order of appearance.
MEANINGS = {"worse": "#c62828", "better": "#2e7d32", "changed": "#ef6c00",
            "relevant difference": "#c62828", "relevant improvement": "#2e7d32",
            "relevant regression": "#c62828", "trivial difference": "#8d6e63",
            "equivalence": "#1565c0", "equivalent": "#1565c0", "indeterminate": "#757575",
            "no change": "#546e7a", "accelerated": "#2e7d32", "not accelerated": "#546e7a",
            "significant": "#2e7d32", "not significant": "#546e7a", "too few runs": "#9e9e9e",
            "drift worse": "#c62828", "drift better": "#2e7d32", "drift": "#ef6c00",
            "": "#37474f"}
PALETTE = ["#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#558b2f", "#4e342e",
           "#283593"]


def colours(categories) -> Callable[[str], str]:
    """category -> colour: `MEANINGS` for known ones, else `PALETTE` in order of first
    appearance."""
    others = [c for c in dict.fromkeys(categories) if c not in MEANINGS]
    assigned = {c: PALETTE[k % len(PALETTE)] for k, c in enumerate(others)}
    return lambda c: MEANINGS.get(c) or assigned.get(c, "#37474f")


def _part_colour(j: int, name: str) -> str:
    """The colour of part `j` of stacked bars: grey for the error, else the palette."""
    return "#b0bec5" if name == "error" else PALETTE[j % len(PALETTE)]


def css_class(name: str) -> str:
    """`name` as a CSS class fragment: lower case, every character but letters and digits a
    dash (the page's script names a table cell's class by the same rule)."""
    return "".join(ch if ch.isalnum() else "-" for ch in str(name).lower())
