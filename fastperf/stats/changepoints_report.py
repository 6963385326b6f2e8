"""What the HTML report of `fastperf.changepoints` shows: the headline (the changes found, by
direction), a history chart per series (its points, its segments' medians and intervals, its
steps and drifts; drawn on demand by the page, and up front for the series with the largest
changes) and the forest plot of every change's ratio.

It lives beside `fastperf.stats.changepoints` rather than in `fastperf.protocols.report_views`
(the protocols' views) because a function of the stats layer may not import the protocols'.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from fastperf.results.cells import column_text
from fastperf.results.figures import Histories, Intervals, ReportView
from fastperf.results.html import row_labels

__all__ = ["changepoints_view", "change_labels", "largest_changes", "HISTORIES_TOP", "EXTRA_ROWS"]

#: The series whose history charts the page draws up front: those with the largest changes.
HISTORIES_TOP = 3

#: The directions of a change, in the order the headline counts them.
DIRECTIONS = ("worse", "better", "changed", "drift worse", "drift better", "drift")

#: The most rows of the changes and segments tables the page writes (every series' changes
#: are in its history chart and under it; the result holds them all).
EXTRA_ROWS = 1000


def _floats(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy(zero_copy_only=False).astype(np.float64)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _percent(ratio: float) -> str:
    """ratio - 1 in percent: one decimal below 10 %, none from there ("+9.8 %", "+12 %"); from
    a doubling on, the factor ("×3.06")."""
    change = 100.0 * (ratio - 1.0)
    if ratio >= 2.0:
        return f"×{ratio:.3g}"
    return f"{change:+.1f} %" if abs(change) < 9.95 else f"{change:+.0f} %"


def change_labels(changes: pa.Table) -> list[str]:
    """The text the history chart writes by each change: a step's ratio after / before in
    percent ("+9.8 %"; from a doubling on, as a factor: "×3.06"), a drift's over its points
    ("drift +12 % over 80 points"); without a ratio (values <= 0), the difference of the medians
    (a drift's fit) either side."""
    labels = []
    for kind, ratio, before, after, first, last in zip(
            changes.column("kind").to_pylist(), _floats(changes, "ratio"),
            _floats(changes, "median_before"), _floats(changes, "median_after"),
            changes.column("position").to_pylist(), changes.column("end_position").to_pylist()):
        size = _percent(ratio) if np.isfinite(ratio) and ratio > 0 else f"{after - before:+.4g}"
        labels.append(size if kind == "step" else
                      f"drift {size} over {last - first + 1} points")
    return labels


def largest_changes(changes: pa.Table, change_series: np.ndarray, n_series: int,
                    top: int) -> np.ndarray:
    """The (at most) `top` series with changes, by their largest change (|log ratio|; a change
    without a ratio counts as the smallest), largest first (ties: in table order)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.abs(np.log(_floats(changes, "ratio")))
    size = np.where(np.isfinite(size), size, -1.0)
    largest = np.full(n_series, -np.inf)
    np.maximum.at(largest, np.asarray(change_series, np.int64), size)
    with_changes = np.flatnonzero(np.isfinite(largest))
    ranked = with_changes[np.argsort(-largest[with_changes], kind="stable")]
    return ranked[:top]


def _change_places(changes: pa.Table) -> list[str]:
    """Where each change is, in order values: "at X" (a step: its first point after) or
    "X to Y" (a drift: its first and last point)."""
    before, after = column_text(changes.column("order_before")), \
        column_text(changes.column("order_after"))
    return [f"at {b}" if kind == "step" else f"{a} to {b}" for kind, a, b in zip(
        changes.column("kind").to_pylist(), before, after)]


def changepoints_view(result) -> ReportView:
    """`changepoints`: the changes by direction and the series with one; a history chart per
    series (drawn by the page on demand, and up front for the `HISTORIES_TOP` series with the
    largest changes); the forest plot of every change's ratio after / before (click: its
    series' history)."""
    s, t, changes = result.summary, result.table, result.changes
    history = result.history
    keys = t.column_names[:t.column_names.index("points")]
    n_series = t.num_rows
    with_changes = int(np.count_nonzero(t.column("changes").to_numpy(zero_copy_only=False)))
    how = (f"penalty {s['penalty']}" if s.get("method") == "pelt" else f"alpha {s['alpha']:g}")
    directions = changes.column("direction").to_pylist()
    counts = [f"{directions.count(name)} {name}" for name in DIRECTIONS
              if name in ("worse", "better") or name in directions]
    kinds = changes.column("kind").to_pylist()
    headline = [f"{_count(changes.num_rows, 'change')} in {with_changes} of {n_series} series: "
                + ", ".join(counts) + f" (method {s['method']}, {how}, min_size {s['min_size']})",
                f"{_count(kinds.count('step'), 'step')}, {_count(kinds.count('drift'), 'drift')}; "
                "a click on a series draws its history: points, segments' medians and "
                "intervals, steps and drifts"]
    labels = change_labels(changes)
    histories = Histories(
        history.values, history.offsets, history.order, result.segments,
        history.segment_series, changes, history.change_series, labels,
        largest_changes(changes, history.change_series, n_series, HISTORIES_TOP))
    figures = []
    if changes.num_rows:
        series_labels = row_labels(t, keys)
        places = _change_places(changes)
        figures.append(Intervals(
            "ratio after / before of every change (step: Hodges-Lehmann interval, or the jump "
            "of the fits beside a drift; drift: its ramp, from the level it leaves to the level "
            "it joins)",
            [f"{series_labels[g]} {place}" for g, place in zip(history.change_series, places)],
            _floats(changes, "ratio"), _floats(changes, "ratio_ci_low"),
            _floats(changes, "ratio_ci_high"), axis="ratio after / before (log scale; 1 = no "
            "change)", category=changes.column("direction").to_pylist(),
            rows=np.asarray(history.change_series, np.int64)))
    lead = (*keys, "changes", "drifts", "points", "runs", "status")
    return ReportView(headline, figures, None, "status", lead, histories, EXTRA_ROWS)
