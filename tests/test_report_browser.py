"""The HTML reports opened in a real headless Chromium (Debian's ``chromium``, driven by
Playwright): no console error, no network request, a screenshot that is not blank, the forest
plot's intervals counted against the result's rows, the table's filter and sort scripted, the
numbers shown equal to the result's columns, a row's runs drawn on a click: the strip with its
violins, the ECDFs, the iteration traces with the warm-up marked (screenshots of the page with
the panel open are saved to the test's tmp_path), the verdict's colour, the flags as badges; a change-point history drawn on a click: its points,
segments, steps and drift, labelled with their ratios (issue 41).

Skipped when Chromium or Playwright is missing, except under FASTPERF_REQUIRE_BROWSER=1
(`.ci/run` installs both and sets it), where a missing browser fails the run.
"""
from __future__ import annotations

import os
import shutil

import pytest

from test_report import (RESULTS, WARM, nested_compare, nested_with_transient, one_sided_result,
                         page_order, percent_of)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = os.environ.get("FASTPERF_REQUIRE_BROWSER") == "1"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def _skip_or_fail(reason: str):
    if REQUIRED:
        pytest.fail(f"FASTPERF_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_or_fail("playwright is not installed (pip install playwright)")
    if CHROMIUM is None:
        _skip_or_fail("no chromium on PATH (Debian: apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def open_report(browser, result, tmp_path, **options):
    path = tmp_path / "report.html"
    result.to_html(path, **options)
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    problems, requests = [], []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]", state="attached")
    return page, problems, requests, path


def shown_columns(page) -> list[str]:
    """The table's column names, as the page shows them (the lead columns first)."""
    return page.eval_on_selector_all("#fp-table thead th", "h => h.map(x => x.textContent)")


def cells(page, column: int) -> list[str]:
    return page.eval_on_selector_all(
        "#fp-table tbody tr", f"rows => rows.map(r => r.children[{column}].textContent)")


@pytest.mark.parametrize("kind", sorted(RESULTS))
def test_report_loads_draws_and_shows_the_numbers(browser, kind, tmp_path):
    result = RESULTS[kind]
    page, problems, requests, path = open_report(browser, result, tmp_path)
    try:
        assert problems == []
        assert requests == [path.as_uri()]  # the file itself, nothing else
        shot = page.screenshot(full_page=False)
        blank = browser.new_page(viewport={"width": 1100, "height": 900})
        blank.set_content("<html><body></body></html>")
        empty = blank.screenshot(full_page=False)
        blank.close()
        assert len(shot) > 4 * len(empty)  # a white page compresses to almost nothing
        # every row in the table, the first page of 200 shown
        shown = page.locator("#fp-table tbody tr").count()
        assert shown == min(result.table.num_rows, 200)
        names = page.eval_on_selector_all("#fp-table thead th", "h => h.map(x => x.textContent)")
        assert names == page_order(kind, result.table.column_names)  # the lead columns first
        for j, name in enumerate(names):
            column = result.table.column(name).to_pylist()[:shown]
            if all(isinstance(v, float) for v in column):
                text = cells(page, j)
                for cell, value in zip(text, column):
                    if value == value and abs(value) != float("inf"):
                        assert float(cell) == pytest.approx(value, rel=6e-6, abs=0)
        for figure, svg in zip(
                [f for f in result.report_view().figures if hasattr(f, "estimate")],
                page.locator("svg.fp-forest").all()):
            assert svg.locator("g.fp-interval").count() == len(figure.labels)
    finally:
        page.close()


def test_filter_sort_and_runs_on_click(browser, tmp_path):
    result = RESULTS["compare"]
    page, problems, _, _ = open_report(browser, result, tmp_path)
    try:
        names = result.table.column("benchmark").to_pylist()
        page.fill("#fp-filter", names[3])
        expected = [n for n in names if names[3] in n]
        assert cells(page, 0) == expected
        page.fill("#fp-filter", "")
        # the verdict filter
        verdicts = result.table.column("verdict").to_pylist()
        common = max(sorted(set(verdicts)), key=verdicts.count)
        page.select_option("#fp-category", common)
        column = shown_columns(page).index("verdict")
        assert cells(page, column) == [common] * verdicts.count(common)
        page.select_option("#fp-category", "")
        # sort by ratio: a click on its header, then another for descending
        ratio = shown_columns(page).index("ratio")
        page.locator("#fp-table thead th").nth(ratio).click()
        shown = [float(c) for c in cells(page, ratio)]
        assert shown == sorted(shown)
        page.locator("#fp-table thead th").nth(ratio).click()
        shown = [float(c) for c in cells(page, ratio)]
        assert shown == sorted(shown, reverse=True)
        # a click on an interval of the forest plot draws that row's runs
        first = page.locator("g.fp-interval").first
        row = int(first.get_attribute("data-row"))
        first.click()
        panel = page.locator("#fp-runs")
        assert panel.is_visible() and int(panel.get_attribute("data-row")) == row
        n = result.table.column("n_baseline")[row].as_py() + \
            result.table.column("n_candidate")[row].as_py()
        assert panel.locator("circle.fp-run").count() == n
        assert panel.locator("path.fp-ecdf").count() == 2
        assert problems == []
    finally:
        page.close()


def test_compressed_data_loads_the_same_table(browser, tmp_path, monkeypatch):
    """A large report's data is gzip in base64, inflated by the page: same table, same runs."""
    import fastperf.results.html as html

    monkeypatch.setattr(html, "COMPRESS_FROM", 0)
    result = RESULTS["compare"]
    page, problems, _, path = open_report(browser, result, tmp_path)
    try:
        assert 'data-encoding="gzip-base64"' in path.read_text()
        ratio = shown_columns(page).index("ratio")
        shown = [float(c) for c in cells(page, ratio)]
        assert shown == pytest.approx(result.table.column("ratio").to_pylist(), rel=6e-6)
        page.locator("#fp-table tbody tr").first.click()
        n = result.table.column("n_baseline")[0].as_py() + \
            result.table.column("n_candidate")[0].as_py()
        assert page.locator("#fp-runs circle.fp-run").count() == n
        assert problems == []
    finally:
        page.close()


def test_speedup_report_draws_qq_plots(browser, tmp_path):
    page, problems, _, _ = open_report(browser, RESULTS["speedup_test"], tmp_path)
    try:
        page.locator("#fp-table tbody tr").first.click()
        n = RESULTS["speedup_test"].table.column("n_baseline")[0].as_py() + \
            RESULTS["speedup_test"].table.column("n_candidate")[0].as_py()
        assert page.locator("#fp-runs circle.fp-qq").count() == n
        assert problems == []
    finally:
        page.close()


def test_large_report_pages_its_table(browser, tmp_path):
    import fastperf

    table = fastperf.simulate(benchmarks=600, runs=5, seed=2,
                              effects=[1.0, 1.1] * 300).table
    result = fastperf.compare(table, baseline="baseline", candidate="candidate")
    page, problems, _, _ = open_report(browser, result, tmp_path, top=30)
    try:
        assert page.locator("#fp-table tbody tr").count() == 200
        assert page.locator("svg.fp-forest g.fp-interval").count() == 30
        assert page.locator("svg.fp-histogram").count() == 1
        page.click("#fp-next")
        page.click("#fp-next")
        assert page.locator("#fp-table tbody tr").count() == 200  # the last page: 401-600
        assert "rows 401\u2013600 of 600" in page.text_content("#fp-count")
        assert page.locator("#fp-next").is_disabled()
        assert problems == []
    finally:
        page.close()


def points(polyline) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in polyline.get_attribute("points").split()]


def test_detail_panel_draws_strip_violin_and_traces(browser, tmp_path):
    """A nested compare whose first WARM iterations are slower: a click on a row draws each
    side's runs with a violin, the ECDFs, and a trace per process with the warm-up shaded."""
    table, result = nested_compare()  # 4 processes x 8 iterations a side
    page, problems, _, _ = open_report(browser, result, tmp_path)
    try:
        row = 1
        page.locator(f'#fp-table tbody tr[data-row="{row}"]').click()
        panel = page.locator("#fp-runs")
        assert panel.is_visible() and int(panel.get_attribute("data-row")) == row
        n = result.table.column("n_baseline")[row].as_py() + \
            result.table.column("n_candidate")[row].as_py()
        assert n == 64
        assert panel.locator("circle.fp-run").count() == n  # every run tested, drawn once
        assert panel.locator("path.fp-violin").count() == 2
        assert panel.locator("path.fp-violin.fp-baseline").count() == 1
        assert panel.locator("path.fp-ecdf").count() == 2
        for side in ("fp-baseline", "fp-candidate"):
            lines = panel.locator(f"polyline.fp-trace.{side}")
            assert lines.count() == 4  # one per process
            for k in range(4):
                assert len(points(lines.nth(k))) == 8  # one point per iteration
        # the warm-up: shaded on each side, its points marked, and drawn slower (higher)
        assert panel.locator("rect.fp-warmup-zone").count() == 2
        assert panel.locator("circle.fp-warmup-point").count() == 2 * 4 * WARM
        assert panel.locator("circle.fp-run.fp-warmup").count() == 2 * 4 * WARM
        zone = panel.locator("rect.fp-warmup-zone").first
        right = float(zone.get_attribute("x")) + float(zone.get_attribute("width"))
        first = points(panel.locator("polyline.fp-trace.fp-baseline").first)
        assert first[WARM - 1][0] < right < first[WARM][0]
        warm_y = [float(c.get_attribute("cy")) for c in
                  panel.locator("circle.fp-warmup-point.fp-baseline").all()]
        steady_y = [y for line in panel.locator("polyline.fp-trace.fp-baseline").all()
                    for _, y in points(line)[WARM:]]
        assert sum(warm_y) / len(warm_y) < min(steady_y)  # 30 % slower: above every steady one
        assert "(log scale)" in panel.text_content()
        page.screenshot(path=str(tmp_path / "report-runs-page.png"), full_page=True)
        panel.screenshot(path=str(tmp_path / "report-runs-panel.png"))
        assert (tmp_path / "report-runs-panel.png").stat().st_size > 10_000
        assert problems == []
    finally:
        page.close()


def test_verdicts_coloured_and_flags_as_badges(browser, tmp_path):
    result = RESULTS["compare"]
    page, problems, _, _ = open_report(browser, result, tmp_path)
    try:
        colours = {"worse": "rgb(198, 40, 40)", "better": "rgb(46, 125, 50)",
                   "no change": "rgb(84, 110, 122)"}
        for verdict in set(result.table.column("verdict").to_pylist()) & set(colours):
            cell = page.locator(f"#fp-table td.fp-cat-{verdict.replace(' ', '-')}").first
            assert cell.text_content() == verdict
            assert cell.evaluate("c => getComputedStyle(c).color") == colours[verdict]
        assert problems == []
    finally:
        page.close()
    page, problems, _, _ = open_report(browser, one_sided_result(), tmp_path)
    try:
        flags = page.locator("#fp-table td.fp-badges")
        assert flags.count() == 2
        assert flags.nth(0).locator("span.fp-badge").all_text_contents() == ["warmup"]
        assert flags.nth(1).locator("span.fp-badge").count() == 0
        assert flags.nth(0).text_content() == "warmup"
        # the flag filter: a flag, or no flag
        page.select_option("#fp-category", "warmup")
        assert cells(page, 0) == ["a"]
        page.select_option("#fp-category", label="no flag (1)")
        assert cells(page, 0) == ["b"]
        page.select_option("#fp-category", "")
        # one side only: its strip and violin, its traces; no second side, no ECDF
        page.locator('#fp-table tbody tr[data-row="0"]').click()
        panel = page.locator("#fp-runs")
        assert panel.locator("path.fp-violin").count() == 1
        assert panel.locator("circle.fp-run").count() == 4
        assert panel.locator(".fp-candidate").count() == 0
        assert panel.locator("path.fp-ecdf").count() == 0
        assert panel.locator("polyline.fp-trace").count() == 2  # two processes of 2
        assert panel.locator("circle.fp-warmup-point").count() == 2  # 1 iteration each
        assert problems == []
    finally:
        page.close()


def test_several_badges_in_a_cell(browser, tmp_path):
    import pyarrow as pa

    from fastperf.results.base import Result

    table = pa.table({"benchmark": ["a", "b"], "flags": ["warmup, bimodal, few runs", ""]})
    page, problems, _, _ = open_report(browser, Result(table, {"function": "x"}, []), tmp_path)
    try:
        cell = page.locator("#fp-table td.fp-badges").first
        assert cell.locator("span.fp-badge").all_text_contents() == ["warmup", "bimodal",
                                                                     "few runs"]
        assert cell.locator("span.fp-flag-few-runs").count() == 1
        assert cell.text_content() == "warmup, bimodal, few runs"  # the cell's text, kept
        assert cell.evaluate("c => c.innerText").replace("\n", "") != cell.text_content()
        assert problems == []
    finally:
        page.close()


def test_check_report_in_chromium(browser, tmp_path):
    import fastperf
    from fastperf.protocols.report_views import check_view

    result = fastperf.check(nested_with_transient(benchmarks=4))
    result.report_view = lambda: check_view(result)  # as CheckResult.report_view
    page, problems, _, _ = open_report(browser, result, tmp_path)
    try:
        page.locator('#fp-table tbody tr[data-row="0"]').click()
        panel = page.locator("#fp-runs")
        assert panel.locator("polyline.fp-trace").count() == 4
        assert panel.locator("path.fp-violin").count() == 1
        assert panel.locator("rect.fp-warmup-zone").count() == \
            (1 if result.runs.traces.warmup_baseline[0] > 0 else 0)
        page.screenshot(path=str(tmp_path / "report-check.png"), full_page=True)
        assert problems == []
    finally:
        page.close()


def test_history_chart_of_a_series_in_chromium(browser, tmp_path):
    """changepoints' page: the series with the largest changes drawn up front; a click on the
    row of "a" (a step up, a drift, a step down) draws its history: a dot per point, a line per
    segment, a marker per step and a band for the drift, coloured by direction, labelled with
    the ratios of the result's changes table."""
    result = RESULTS["changepoints"]
    page, problems, requests, path = open_report(browser, result, tmp_path)
    try:
        assert requests == [path.as_uri()]
        changes = result.changes.to_pandas()
        segments = result.segments.to_pandas()
        with_changes = changes["benchmark"].nunique()
        assert page.locator("#fp-history-top svg.fp-history").count() == min(3, with_changes)
        row = result.series.column("benchmark").to_pylist().index("a")
        page.locator(f'#fp-table tbody tr[data-row="{row}"]').click()
        chart = page.locator("#fp-runs svg.fp-history")
        assert chart.count() == 1 and int(chart.get_attribute("data-row")) == row
        mine = changes[changes["benchmark"] == "a"]
        assert chart.locator("line.fp-step").count() == 2 == (mine["kind"] == "step").sum()
        assert chart.locator("rect.fp-drift-zone").count() == 1 == (mine["kind"] == "drift").sum()
        assert chart.locator("line.fp-segment").count() == (segments["benchmark"] == "a").sum()
        assert chart.locator("line.fp-segment.fp-drift-fit").count() == 1
        assert chart.locator("circle.fp-history-point").count() == \
            result.series.column("points")[row].as_py() == 150
        labels = chart.locator("text.fp-change-label").all_text_contents()
        assert [percent_of(t) for t in labels] == pytest.approx(
            list(100 * (mine["ratio"] - 1)), abs=0.5)
        assert labels[1].startswith("drift ")
        # the step up is worse (red), the step down better (green), as the verdict colours
        steps = chart.locator("line.fp-step")
        assert steps.nth(0).evaluate("e => getComputedStyle(e).stroke") == "rgb(198, 40, 40)"
        assert steps.nth(1).evaluate("e => getComputedStyle(e).stroke") == "rgb(46, 125, 50)"
        # the step markers sit between the points either side of each step
        dots = [float(c.get_attribute("cx")) for c in
                chart.locator("circle.fp-history-point").all()]
        for k, position in enumerate(mine.loc[mine["kind"] == "step", "position"]):
            x = float(steps.nth(k).get_attribute("x1"))
            assert dots[position - 1] < x < dots[position]
        # the x axis is labelled with commits, not point indices
        ticks = chart.locator("text.fp-order-tick").all_text_contents()
        assert ticks[0] == "1000" and all(int(t) % 2 == 0 for t in ticks)
        assert "(log scale)" in chart.text_content()
        panel = page.locator("#fp-runs")
        panel.screenshot(path=str(tmp_path / "report-history.png"))
        assert (tmp_path / "report-history.png").stat().st_size > 10_000
        # a click on a chart up front opens its series
        page.locator("#fp-history-top svg.fp-history").first.click()
        top = int(page.locator("#fp-history-top svg.fp-history").first.get_attribute("data-row"))
        assert int(panel.get_attribute("data-row")) == top
        assert problems == []
    finally:
        page.close()
