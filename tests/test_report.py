"""HTML reports (docs/reports.md), checked on the page's text: self-contained, every row in the
table with the result's numbers, the forest plot's intervals counted against the rows, the runs
equal to the input's, the CLI. tests/test_report_browser.py opens them in Chromium.

Oracles: the result's own columns read back as numbers from the page (parsed, not re-formatted
by the code under test), the input table grouped by pandas, numpy's ordering of |log ratio|.
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf.cli import main

pd = pytest.importorskip("pandas")


def page_data(page: str) -> dict:
    """The page's data element decoded (plain JSON, or gzip in base64 for large pages)."""
    match = re.search(r'<script type="application/(json|octet-stream)" id="fp-data"'
                      r'( data-encoding="gzip-base64")?>(.*?)</script>', page, re.S)
    if match.group(2):
        import base64
        import gzip

        return json.loads(gzip.decompress(base64.b64decode(match.group(3))))
    return json.loads(match.group(3).replace("<\\/", "</"))


def simulated(benchmarks=12, runs=9, seed=3):
    rng = np.random.default_rng(seed)
    effects = np.exp(rng.normal(0, 0.15, benchmarks))
    return fastperf.simulate(benchmarks=benchmarks, runs=runs, seed=seed,
                             effects=effects.tolist()).table


def all_results():
    table = simulated()
    factorial_rows = []
    rng = np.random.default_rng(7)
    for b in ("b1", "b2"):
        for a in (0, 1):
            for c in (0, 1):
                for _ in range(3):
                    factorial_rows.append((b, a, c, 10 + 2 * a + c + rng.normal()))
    design = pa.table({"benchmark": [r[0] for r in factorial_rows],
                       "A": [r[1] for r in factorial_rows], "B": [r[2] for r in factorial_rows],
                       "value": [r[3] for r in factorial_rows]})
    two = dict(baseline="baseline", candidate="candidate")
    return {
        "compare": fastperf.compare(table, **two, margin=0.05),
        "speedup_test": fastperf.speedup_test(table, **two),
        "sparc": fastperf.sparc(table, **two, pair=None),
        "sparc_paired": fastperf.sparc(table, **two, pair="run"),
        "hpt": fastperf.hpt(table, **two),
        "describe": fastperf.describe(table),
        "aggregate_score": fastperf.aggregate_score(table, baseline="baseline"),
        "plan_runs": fastperf.plan_runs(table, precision=0.01),
        "anova": fastperf.anova(table, factor="variant", by="benchmark"),
        "factorial": fastperf.factorial(design, factors=["A", "B"], by="benchmark"),
        "bootstrap": fastperf.bootstrap(table, **two, n_resamples=199, seed=1),
        "permutation_test": fastperf.permutation_test(table, **two, n_resamples=199, seed=1),
        "shapiro": fastperf.shapiro(table),
    }


RESULTS = all_results()


@pytest.mark.parametrize("kind", sorted(RESULTS))
def test_page_is_self_contained_and_holds_every_row(kind, tmp_path):
    result = RESULTS[kind]
    path = tmp_path / "r.html"
    page = result.to_html(path)
    assert path.read_text(encoding="utf-8") == page
    # nothing fetched: no external script, style, image, font or frame
    assert not re.search(r"<(link|iframe|img)\b", page)
    assert not re.search(r"\b(src|href)\s*=", page)
    assert "@import" not in page and "url(" not in page
    assert not [u for u in re.findall(r"https?://[^\s\"'<>]+", page)
                if u != "http://www.w3.org/2000/svg"]
    data = page_data(page)
    table = result.table
    assert data["table"]["columns"] == table.column_names
    assert len(data["table"]["rows"]) == table.num_rows
    for j, name in enumerate(table.column_names):
        column = table.column(name)
        if pa.types.is_floating(column.type):
            shown = [row[j] for row in data["table"]["rows"]]
            for cell, value in zip(shown, column.to_pylist()):
                if value is None:
                    assert cell == ""
                elif math.isnan(value):
                    assert cell == "nan"
                elif math.isinf(value):
                    assert cell in ("inf", "-inf")
                else:
                    assert float(cell) == pytest.approx(value, rel=6e-6, abs=0)
    for warning in result.warnings:
        assert warning.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")[:40] \
            in page


@pytest.mark.parametrize("kind", ["compare", "speedup_test", "sparc", "hpt", "describe",
                                  "aggregate_score", "plan_runs", "factorial"])
def test_interval_figure_draws_one_element_per_row(kind):
    from fastperf.results.figures import Intervals

    result = RESULTS[kind]
    page = result.to_html()
    forests = re.findall(r'<svg class="fp-figure fp-forest".*?</svg>', page, re.S)
    figures = [f for f in result.report_view().figures if isinstance(f, Intervals)]
    assert len(forests) == len(figures) >= 1
    for svg, figure in zip(forests, figures):
        drawn = re.findall(r'<g class="fp-interval[^"]*" data-row="(\d+)"', svg)
        assert len(drawn) == len(figure.labels)
        # every row of the result is drawn (the factorial's effects: each group's effects)
        assert {int(i) for i in drawn} == set(range(result.table.num_rows))


def test_forest_plot_keeps_the_most_changed_beyond_top():
    table = simulated(benchmarks=80, runs=7, seed=11)
    result = fastperf.compare(table, baseline="baseline", candidate="candidate")
    page = result.to_html(top=10)
    drawn = [int(i) for i in re.findall(r'<g class="fp-interval[^"]*" data-row="(\d+)"', page)]
    distance = np.abs(np.log(result.table.column("ratio").to_numpy()))
    expected = set(np.argsort(-distance, kind="stable")[:10].tolist())
    assert set(drawn) == expected
    # drawn in order of the ratio (a forest plot)
    ratios = result.table.column("ratio").to_numpy()[drawn]
    assert np.all(np.diff(ratios) >= 0)
    assert 'class="fp-figure fp-histogram"' in page
    bars = [int(n) for n in re.findall(r"<title>(\d+) rows in", page)]
    assert sum(bars) == 80


@pytest.mark.parametrize("kind", ["compare", "speedup_test", "sparc", "hpt"])
def test_runs_in_the_page_are_the_input_runs(kind):
    table = simulated()
    result = RESULTS[kind]
    data = page_data(result.to_html())
    frame = table.to_pandas()
    runs = {(b, v): sorted(g["value"]) for (b, v), g in frame.groupby(["benchmark", "variant"])}
    names = result.table.column("benchmark").to_pylist()
    for name, (xs, ys) in zip(names, data["runs"]["rows"]):
        assert sorted(xs) == pytest.approx(runs[(name, "baseline")], rel=6e-6)
        assert sorted(ys) == pytest.approx(runs[(name, "candidate")], rel=6e-6)


def test_paired_sparc_keeps_no_runs_and_draws_points():
    data = page_data(RESULTS["sparc_paired"].to_html())
    assert data["runs"] is None


def test_report_intervals_of_protocols_equal_compare_intervals():
    """The Hodges-Lehmann interval drawn for the Speedup-Test is the inverse of compare's."""
    figure = RESULTS["speedup_test"].report_view().figures[0]
    cmp = RESULTS["compare"].table
    np.testing.assert_allclose(figure.low, 1 / cmp.column("ci_high").to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(figure.high, 1 / cmp.column("ci_low").to_numpy(), rtol=1e-12)


def test_headline_counts_the_verdicts():
    result = RESULTS["compare"]
    verdicts = result.table.column("verdict").to_pylist()
    line = result.report_view().headline[0]
    assert line.startswith(f"{verdicts.count('worse')} worse, {verdicts.count('better')} better")


def test_notebook_form_has_no_script():
    for result in RESULTS.values():
        html = result._repr_html_()
        assert "<script" not in html and "<table" in html


def test_top_is_checked():
    with pytest.raises(fastperf.InputError, match="top"):
        RESULTS["compare"].to_html(top=0)


def test_cli_report_and_html_format(tmp_path, capsys):
    old, new = "examples/old.txt", "examples/new.txt"
    out = tmp_path / "report.html"
    assert main(["report", old, new, "-o", str(out)]) == 0
    assert page_data(out.read_text())["table"]["columns"][0] == "benchmark"
    assert main(["report", old, new, "--protocol", "sparc", "--unit", "sec/op", "-o",
                 str(out)]) == 0
    assert "conclusion" in page_data(out.read_text())["table"]["columns"]
    assert main(["describe", old, new, "--format", "html"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")
    assert main(["report", old, new, "--top", "0"]) == 2
    assert "--top must be >= 1" in capsys.readouterr().err
    assert main(["describe", old, new, "--top", "5"]) == 2
    assert "--top is used only with --format html" in capsys.readouterr().err


def test_demo_writes_its_report(capsys):
    from fastperf.cli import DEMO_REPORT

    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    path = out.strip().splitlines()[-1].split(": ", 1)[1]
    assert path.endswith(DEMO_REPORT)
    with open(path, encoding="utf-8") as f:
        assert len(page_data(f.read())["table"]["rows"]) == 2
