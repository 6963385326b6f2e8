"""Make the screenshots of docs/reports.md: each report kind on data of fastperf.simulate (and
the shipped Go data), opened in headless Chromium by Playwright. Run from the repository root:

    python docs/screenshots.py          # every one
    python docs/screenshots.py runs     # only those named

It needs playwright (pip) and Chromium (Debian: apt-get install chromium).
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

import fastperf

OUT = Path(__file__).resolve().parent / "img"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def results() -> dict:
    rng = np.random.default_rng(5)
    table = fastperf.simulate(benchmarks=30, runs=15, seed=5,
                              effects=np.exp(rng.normal(0, 0.1, 30)).tolist()).table
    two = dict(baseline="baseline", candidate="candidate")
    rows = [(b, a, c, 10 + 2 * a + c + rng.normal()) for b in ("b1", "b2") for a in (0, 1)
            for c in (0, 1) for _ in range(3)]
    design = pa.table({k: [r[i] for r in rows] for i, k in enumerate(["benchmark", "A", "B",
                                                                      "value"])})
    return {
        "compare": fastperf.compare(table, **two, margin=0.02),
        "speedup-test": fastperf.speedup_test(table, **two),
        "sparc": fastperf.sparc(table, **two, pair=None, margin=0.05),
        "describe": fastperf.describe(table.filter(pa.compute.is_in(
            table.column("benchmark"), pa.array([f"bench_{i:05d}" for i in range(8)])))),
        "anova": fastperf.anova(table, factor="variant", by="benchmark"),
        "factorial": fastperf.factorial(design, factors=["A", "B"], by="benchmark"),
        "runs": runs_with_transient(),
        "history": history_with_step_and_drift(),
    }


def history_with_step_and_drift():
    """changepoints on a nightly history of 120 nights, 3 runs each, 1.5 % noise: 20 % slower
    from the 31st night, a drift of +25 % over nights 61 to 90, 25 % faster from the 101st."""
    rng = np.random.default_rng(2)
    level = np.full(120, 100.0)
    level[30:] *= 1.2
    level *= 1 + 0.25 * np.clip((np.arange(120) - 60) / 30, 0, 1)
    level[100:] /= 1.25
    nights = np.datetime64("2025-01-01") + np.arange(120)
    return fastperf.changepoints(pa.table({
        "benchmark": ["parse/json"] * 360, "night": np.repeat(nights, 3),
        "value": np.repeat(level, 3) * np.exp(rng.normal(0, 0.015, 360)),
        "unit": ["ns"] * 360}), order="night")


def runs_with_transient():
    """compare on a nested table (8 processes x 12 iterations a side) whose first 3 iterations
    of every process are 25 % slower: its detail panel shows the traces with the warm-up."""
    table = fastperf.simulate(benchmarks=6, processes=8, iterations=12, seed=7,
                              shapes="lognormal", sigma=0.03, effects=[1.15] * 6).table
    slower = np.where(table.column("iteration").to_numpy() < 3, 1.25, 1.0)
    table = table.set_column(table.column_names.index("value"), "value",
                             pa.array(table.column("value").to_numpy() * slower))
    return fastperf.compare(table, baseline="baseline", candidate="candidate")


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    chromium = shutil.which("chromium")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        for name, result in results().items():
            if sys.argv[1:] and name not in sys.argv[1:]:
                continue
            path = Path(tmp) / f"{name}.html"
            result.to_html(path, top=30)
            page = browser.new_page(viewport={"width": 1000, "height": 760})
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready]", state="attached")
            if name == "history":  # the detail panel alone: the history chart of a series
                page.set_viewport_size({"width": 1100, "height": 900})
                page.locator("#fp-table tbody tr").first.click()
                page.locator("#fp-runs").screenshot(path=str(OUT / f"report-{name}.png"))
                page.close()
                continue
            if name == "runs":  # the detail panel alone: strip, violins, ECDFs, traces
                page.set_viewport_size({"width": 1100, "height": 900})  # two figures a line
                page.locator("#fp-table tbody tr").first.click()
                page.locator("#fp-runs").screenshot(path=str(OUT / f"report-{name}.png"))
                page.close()
                continue
            if result.runs is not None:
                page.locator("g.fp-interval").first.click()
                page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(path=str(OUT / f"report-{name}.png"))
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
