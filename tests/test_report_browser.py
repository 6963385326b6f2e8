"""The HTML reports opened in a real headless Chromium (Debian's ``chromium``, driven by
Playwright): no console error, no network request, a screenshot that is not blank, the forest
plot's intervals counted against the result's rows, the table's filter and sort scripted, the
numbers shown equal to the result's columns, a row's runs drawn on a click.

Skipped when Chromium or Playwright is missing, except under FASTPERF_REQUIRE_BROWSER=1
(`.ci/run` installs both and sets it), where a missing browser fails the run.
"""
from __future__ import annotations

import os
import shutil

import pytest

from test_report import RESULTS

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
        assert names == result.table.column_names
        for j, name in enumerate(result.table.column_names):
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
        column = result.table.column_names.index("verdict")
        assert cells(page, column) == [common] * verdicts.count(common)
        page.select_option("#fp-category", "")
        # sort by ratio: a click on its header, then another for descending
        ratio = result.table.column_names.index("ratio")
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
        ratio = result.table.column_names.index("ratio")
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
