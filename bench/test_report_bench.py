"""HTML reports of `compare` for 50 and 10,000 benchmarks (31 runs a side), and for 10,000
benchmarks of a nested design (20 processes x 5 iterations a side, whose runs' iteration traces
the page carries): time to make the page, its size, and the time Chromium takes to load and
render it (and, for the nested page, to open a row's detail panel: strip, violins, ECDFs and
traces). The same for `changepoints` on 1,000 histories of 500 points and 10,000 of 200, whose
page carries every point and draws a series' history chart on demand (issue 41).

Anchors, on the same rows in the same run: the forest plot of the 50 most changed benchmarks
drawn by matplotlib (SVG, the usual Python choice) and by Plotly (a self-contained HTML file,
plotly.js inline: what a report with interactive Plotly charts has to embed). Goals (issue):
the 10,000-benchmark page under about 5 MB and rendered in under 2 s in Chromium; the
50-benchmark page small enough to attach to a CI run. Printed, not asserted (timings depend on
the machine); the sizes are asserted, being deterministic.
"""
from __future__ import annotations

import os
import shutil
import statistics
import time

import numpy as np
import pytest

from conftest import measurement_file, median_time
from fastperf.protocols.compare import compare

CHROMIUM = shutil.which("chromium")


def _render_seconds(path, rounds=3, panel=False):
    """Median time from navigation to a painted page with the table filled (Chromium); with
    `panel`, also the median time from a click on a row to its painted detail panel."""
    from playwright.sync_api import sync_playwright

    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=flags)
        times, clicks = [], []
        for _ in range(rounds):
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("#fp-table tbody tr")
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
            times.append(time.perf_counter() - start)
            if panel:
                start = time.perf_counter()
                page.locator("#fp-table tbody tr").nth(3).click()
                page.wait_for_selector("#fp-runs polyline.fp-trace")
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
                clicks.append(time.perf_counter() - start)
            page.close()
        browser.close()
    return (statistics.median(times), statistics.median(clicks)) if panel else \
        statistics.median(times)


def _matplotlib_forest(result, top, path):
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    t = result.table
    ratio, low, high = (t.column(c).to_numpy() for c in ("ratio", "ci_low", "ci_high"))
    index = np.argsort(-np.abs(np.log(ratio)))[:top]
    index = index[np.argsort(ratio[index])]
    names = np.array(t.column("benchmark").to_pylist(), dtype=object)[index]
    fig, ax = plt.subplots(figsize=(9, 0.18 * top + 1))
    ax.errorbar(ratio[index], np.arange(top), xerr=[ratio[index] - low[index],
                                                     high[index] - ratio[index]], fmt="o")
    ax.set_yticks(np.arange(top), names)
    ax.set_xscale("log")
    ax.axvline(1.0, linestyle="--")
    fig.savefig(path, format="svg")
    plt.close(fig)


def _plotly_forest(result, top, path):
    import plotly.graph_objects as go

    t = result.table
    ratio, low, high = (t.column(c).to_numpy() for c in ("ratio", "ci_low", "ci_high"))
    index = np.argsort(-np.abs(np.log(ratio)))[:top]
    names = t.column("benchmark").to_pylist()
    fig = go.Figure(go.Scatter(x=ratio[index], y=[names[i] for i in index], mode="markers",
                               error_x=dict(type="data", symmetric=False,
                                            array=high[index] - ratio[index],
                                            arrayminus=ratio[index] - low[index])))
    fig.update_xaxes(type="log")
    fig.write_html(path, include_plotlyjs=True, full_html=True)


@pytest.mark.parametrize("benchmarks", [50, 10_000])
def test_report_size_and_speed(benchmarks, tmp_path):
    result = compare(measurement_file(benchmarks, 31), baseline="baseline",
                     candidate="candidate")
    path = tmp_path / "report.html"
    make = median_time(lambda: result.to_html(path))
    size = os.path.getsize(path)
    line = (f"\nreport of {benchmarks} benchmarks: made in {make * 1000:.0f} ms (median of 5), "
            f"{size / 1e6:.2f} MB")
    if CHROMIUM is not None:
        line += f", loaded and rendered by Chromium in {_render_seconds(path):.2f} s (median of 3)"
    print(line)
    anchors = tmp_path / "anchor.svg"
    try:
        mpl = median_time(lambda: _matplotlib_forest(result, 50, anchors), rounds=3)
        print(f"  anchor matplotlib: forest plot of 50 rows only, {mpl * 1000:.0f} ms, "
              f"{os.path.getsize(anchors) / 1e3:.0f} kB of SVG; fastperf's whole page / "
              f"matplotlib's one figure: {make / mpl:.2f}x the time")
    except ImportError:
        print("  anchor matplotlib: not installed")
    try:
        plotly_path = tmp_path / "plotly.html"
        plotly = median_time(lambda: _plotly_forest(result, 50, plotly_path), rounds=3)
        print(f"  anchor Plotly: forest plot of 50 rows only, {plotly * 1000:.0f} ms, "
              f"{os.path.getsize(plotly_path) / 1e6:.2f} MB self-contained")
    except ImportError:
        print("  anchor Plotly: not installed")
    assert size < (5_000_000 if benchmarks > 50 else 200_000)


def test_nested_report_with_traces_size_and_speed(tmp_path):
    """10,000 benchmarks x 2 variants x 20 processes x 5 iterations: each value is sent once, in
    measurement order with its process lengths and warm-up (the page sorts them for the strip,
    the violin and the ECDF), gzip-compressed in base64."""
    import fastperf

    table = fastperf.simulate(10_000, processes=20, iterations=5, seed=0, unit=None).table
    result = compare(table, baseline="baseline", candidate="candidate")
    if result.runs.traces is None:
        pytest.skip("compare keeps no traces")
    path = tmp_path / "report.html"
    make = median_time(lambda: result.to_html(path), rounds=3)
    size = os.path.getsize(path)
    line = (f"\nreport of 10,000 benchmarks x 2 x 20 processes x 5 iterations (2,000,000 values, "
            f"with traces): made in {make:.2f} s (median of 3), {size / 1e6:.2f} MB")
    if CHROMIUM is not None:
        load, click = _render_seconds(path, panel=True)
        line += (f", loaded and rendered by Chromium in {load:.2f} s, a row's detail panel "
                 f"drawn in {click * 1000:.0f} ms (medians of 3)")
    print(line)
    # the values' text (6 significant digits) compresses to about 3 bytes a value: 2 million
    # values and the table of 10,000 rows, in base64
    assert size < 12_000_000


def _histories(series: int, points: int, seed: int = 0):
    """`series` histories of `points` commits, one run each: noise of 1-2 %, and in each series
    up to two steps of 5-20 % and, in one series of three, a drift of 10-30 % over a fifth of it
    (issue 41's history chart)."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    logs = rng.normal(0.0, 1.0, (series, points)) * rng.uniform(0.01, 0.02, (series, 1))
    at = np.arange(points)
    for row in range(series):
        for position in rng.choice(np.arange(points // 10, points - points // 10),
                                   rng.integers(0, 3), replace=False):
            logs[row, position:] += np.log1p(rng.uniform(0.05, 0.2) * rng.choice([-1.0, 1.0]))
        if row % 3 == 0:
            start = rng.integers(points // 5, points // 2)
            logs[row] += np.log1p(rng.uniform(0.1, 0.3)) * np.clip((at - start) / (points // 5),
                                                                   0, 1)
    names = np.array([f"bench_{i:05d}" for i in range(series)])
    return pa.table({"benchmark": np.repeat(names, points),
                     "commit": np.tile(at.astype(np.int64), series),
                     "value": np.exp(logs).ravel()})


def _history_render_seconds(path, rounds=3):
    """Median time from navigation to a painted page with its table and the history charts up
    front, and from a click on a row to its painted history chart (Chromium)."""
    from playwright.sync_api import sync_playwright

    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=flags)
        loads, clicks = [], []
        for _ in range(rounds):
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("#fp-table tbody tr")
            page.wait_for_selector("#fp-history-top svg.fp-history")
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
            loads.append(time.perf_counter() - start)
            start = time.perf_counter()
            page.locator("#fp-table tbody tr").nth(3).click()
            page.wait_for_selector("#fp-runs svg.fp-history")
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
            clicks.append(time.perf_counter() - start)
            page.close()
        browser.close()
    return statistics.median(loads), statistics.median(clicks)


@pytest.mark.parametrize("series,points", [(1_000, 500), (10_000, 200)])
def test_changepoints_report_size_and_speed(series, points, tmp_path):
    """changepoints' page: every series' points sent once (5 significant digits, gzip in base64
    beyond 1 MB of JSON), each history chart drawn by the page on demand (and three up front),
    the changes and segments tables capped at 1,000 rows each."""
    import fastperf

    result = fastperf.changepoints(_histories(series, points), order="commit", unit=None)
    path = tmp_path / "report.html"
    make = median_time(lambda: result.to_html(path), rounds=3)
    size = os.path.getsize(path)
    line = (f"\nchangepoints report of {series:,} series x {points} points "
            f"({result.summary['changes']} changes, {result.summary['drifts']} drifts): made in "
            f"{make:.2f} s (median of 3), {size / 1e6:.2f} MB")
    if CHROMIUM is not None:
        load, click = _history_render_seconds(path)
        line += (f", loaded and rendered by Chromium in {load:.2f} s, a series' history chart "
                 f"drawn in {click * 1000:.0f} ms (medians of 3)")
    print(line)
    # about 3.3 bytes a point (5 digits of noise, compressed, in base64), the series table and
    # its labels, the capped tables of changes and segments
    assert size < 4 * series * points + 1_500_000
