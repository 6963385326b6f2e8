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


def step_drift_history(seed=2, noise=0.02, runs=3):
    """Hand-built histories, `runs` runs per commit, lognormal noise of sd `noise`: "a" (150
    commits) steps up 20 % at its 31st, drifts +25 % from its 61st to its 101st and steps down
    by 1 / 1.3 at its 126th; "b" is flat, measured on two commits of every three; "c" steps up
    5 % at its 26th. The order values are commit numbers 1000, 1002, ... (not the points'
    indices)."""
    rng = np.random.default_rng(seed)
    level = np.full(150, 100.0)
    level[30:] *= 1.2
    level *= 1 + 0.25 * np.clip((np.arange(150) - 60) / 40, 0, 1)
    level[125:] /= 1.3
    series = {"a": level, "b": np.full(90, 50.0), "c": np.where(np.arange(60) < 25, 20.0, 21.0)}
    commits = {"a": np.arange(150), "b": np.flatnonzero(np.arange(90) % 3 != 0),
               "c": np.arange(60)}
    names, order, values = [], [], []
    for name, level in series.items():
        for i, commit in enumerate(commits[name]):
            for _ in range(runs):
                names.append(name)
                order.append(1000 + 2 * int(commit))
                values.append(level[min(i, level.size - 1)] * math.exp(rng.normal(0, noise)))
    return pa.table({"benchmark": names, "commit": order, "value": values,
                     "unit": ["ns"] * len(names)})


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
        "changepoints": fastperf.changepoints(step_drift_history(), order="commit"),
    }


RESULTS = all_results()

#: The columns each report's table shows first (issue 45: the benchmark, the change, its
#: interval, the p-value, the verdict, the flags), written out here as the issue lists them.
LEAD = {
    "compare": ["benchmark", "unit", "delta", "ratio", "ci_low", "ci_high", "pvalue_adjusted",
                "verdict", "flags"],
    "speedup_test": ["benchmark", "speedup_median", "pvalue_median", "median_significant",
                     "flags"],
    "sparc": ["benchmark", "ratio_median", "pvalue_difference", "pvalue_equivalence",
              "conclusion", "flags"],
    "hpt": ["benchmark", "ratio_median", "pvalue", "significant", "flags"],
}
LEAD["sparc_paired"] = LEAD["sparc"]
#: issue 41: a series' keys, then its changes and drifts, before its sizes and status
LEAD["changepoints"] = ["benchmark", "unit", "changes", "drifts", "points", "runs", "status"]


def page_order(kind: str, names: list[str]) -> list[str]:
    """The expected column order of the page: `LEAD`'s columns the table has, then the rest."""
    first = [c for c in LEAD.get(kind, []) if c in names]
    return first + [c for c in names if c not in first]


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
    assert data["table"]["columns"] == page_order(kind, table.column_names)
    assert len(data["table"]["rows"]) == table.num_rows
    for j, name in enumerate(data["table"]["columns"]):
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
    for name, row in zip(names, data["runs"]["rows"]):
        xs, ys = row[:2]  # with traces, then the process lengths and the warm-up
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


# ---- issue 45: the lead columns, the coloured verdict, the flags as badges, the runs drawn ----

WARM = 3  # the transient's iterations in `nested_with_transient`


def nested_with_transient(benchmarks=6, processes=4, iterations=8, slower=1.3, seed=4):
    """A nested table (processes x iterations a side) whose first `WARM` iterations of every
    process are `slower` times slower."""
    sim = fastperf.simulate(benchmarks=benchmarks, processes=processes, iterations=iterations,
                            seed=seed, shapes="lognormal", sigma=0.02,
                            effects=[1.0, 1.2] * (benchmarks // 2))
    table = sim.table
    iteration = table.column("iteration").to_numpy()
    value = table.column("value").to_numpy() * np.where(iteration < WARM, slower, 1.0)
    return table.set_column(table.column_names.index("value"), "value", pa.array(value))


def traces_by_hand(table, names, warm, candidate="candidate"):
    """`Traces` of the rows named `names` (benchmarks), built by a pandas loop: each side's values
    in row order, one process per `process` value (in order of appearance)."""
    from fastperf.data.arrays import Samples
    from fastperf.results.figures import Traces

    frame = table.to_pandas()
    sides = []
    for variant in ("baseline", candidate):
        values, offsets, processes = [], [0], [0]
        for name in names:
            rows = frame[(frame["benchmark"] == name) & (frame["variant"] == variant)]
            for _, process in rows.groupby("process", sort=False):
                values += process["value"].tolist()
                processes.append(len(values))
            offsets.append(len(values))
        sides.append((Samples(np.array(values, float), np.array(offsets, np.int64)),
                      np.array(processes, np.int64)))
    n = len(names)
    return Traces(sides[0][0], sides[1][0], sides[0][1], sides[1][1],
                  np.full(n, warm, np.int64), np.full(n, warm, np.int64))


def nested_compare(**options):
    """compare on `nested_with_transient`, its runs' traces set by hand (the test's oracle of
    what the page receives)."""
    table = nested_with_transient(**options)
    result = fastperf.compare(table, baseline="baseline", candidate="candidate")
    names = result.table.column("benchmark").to_pylist()
    result.runs.traces = traces_by_hand(table, names, WARM)
    return table, result


@pytest.mark.parametrize("kind", sorted(LEAD))
def test_lead_columns_come_first(kind):
    """The page's table (and the notebook's) starts with the benchmark, the change, its
    interval, the p-value and the verdict; the counts and the configuration follow."""
    result = RESULTS[kind]
    names = page_data(result.to_html())["table"]["columns"]
    assert sorted(names) == sorted(result.table.column_names)  # every column, once
    expected = [c for c in LEAD[kind] if c in result.table.column_names]
    assert names[:len(expected)] == expected
    assert names[len(expected):] == [c for c in result.table.column_names if c not in expected]
    head = re.search(r"<thead><tr>(.*?)</tr>", result._repr_html_()).group(1)
    assert re.findall(r"<th>(.*?)</th>", head)[:len(expected)] == expected


def test_lead_columns_of_compare_in_words():
    names = page_data(RESULTS["compare"].to_html())["table"]["columns"]
    assert names.index("verdict") < names.index("n_baseline")
    assert names.index("pvalue_adjusted") < names.index("median_baseline")
    assert names[0] == "benchmark"


def test_results_without_lead_columns_keep_their_order():
    for kind in ("describe", "anova", "plan_runs", "bootstrap"):
        names = page_data(RESULTS[kind].to_html())["table"]["columns"]
        assert names == RESULTS[kind].table.column_names


def test_verdict_cells_take_the_colours_of_the_forest_plot():
    """Each verdict's table colour (the page's CSS, ``td.fp-cat-<verdict>``) is the colour its
    intervals take in the forest plot of the same page."""
    table = simulated(benchmarks=40, runs=9, seed=5)
    page = fastperf.compare(table, baseline="baseline", candidate="candidate").to_html()
    drawn = dict(re.findall(r'<g class="fp-interval fp-cat-([a-z-]+)" data-row="\d+" '
                            r'style="color:(#[0-9a-f]{6})"', page))
    assert {"worse", "better", "no-change"} <= set(drawn)
    for verdict, colour in drawn.items():
        assert f".fp-table td.fp-cat-{verdict}{{color:{colour};" in page
    assert drawn["worse"] == "#c62828" and drawn["better"] == "#2e7d32"  # red, green
    data = page_data(page)
    assert data["table"]["columns"][data["category"]] == "verdict"


def test_flags_column_is_named_for_badges():
    """The page names the ``flags`` column for the script, which draws its cells as badges
    (tests/test_report_browser.py checks the markup)."""
    from fastperf.results.base import Result

    table = pa.table({"benchmark": ["a", "b", "c"], "n": [5, 6, 7],
                      "flags": ["warmup, bimodal", "", "few runs"]})
    data = page_data(Result(table, {"function": "x"}, []).to_html())
    assert data["table"]["columns"][data["badges"]] == "flags"
    assert [r[data["badges"]] for r in data["table"]["rows"]] == ["warmup, bimodal", "",
                                                                  "few runs"]
    assert page_data(RESULTS["describe"].to_html())["badges"] == -1 or \
        "flags" in RESULTS["describe"].table.column_names


def test_traces_payload_sends_each_value_once_in_measurement_order():
    table, result = nested_compare()
    data = page_data(result.to_html())
    runs = data["runs"]
    assert runs["traces"] is True and runs["dropped"] is False
    frame = table.to_pandas()
    names = result.table.column("benchmark").to_pylist()
    sent = 0
    for name, row in zip(names, runs["rows"]):
        assert len(row) == 6  # values a side, process lengths a side, warm-up a side
        for k, variant in enumerate(("baseline", "candidate")):
            rows = frame[(frame["benchmark"] == name) & (frame["variant"] == variant)]
            assert row[k] == pytest.approx(rows["value"].tolist(), rel=6e-6)  # row order
            assert row[2 + k] == rows.groupby("process", sort=False).size().tolist()
            assert row[4 + k] == WARM
            sent += len(row[k])
    assert sent == table.num_rows  # every value once: no second, sorted copy


def test_traces_of_runs_without_processes_are_one_segment():
    from fastperf.data.arrays import Samples
    from fastperf.results.figures import Traces

    table = simulated(benchmarks=3, runs=7, seed=2)
    result = fastperf.compare(table, baseline="baseline", candidate="candidate")
    frame = table.to_pandas()
    names = result.table.column("benchmark").to_pylist()
    sides = []
    for variant in ("baseline", "candidate"):
        values = [frame[(frame["benchmark"] == n) & (frame["variant"] == variant)]["value"]
                  .tolist() for n in names]
        offsets = np.cumsum([0] + [len(v) for v in values])
        sides.append(Samples(np.concatenate(values), offsets))
    result.runs.traces = Traces(sides[0], sides[1], sides[0].offsets, sides[1].offsets,
                                np.zeros(3, np.int64), np.array([2, 0, 1]))
    rows = page_data(result.to_html())["runs"]["rows"]
    assert [r[2] for r in rows] == [[7]] * 3 and [r[3] for r in rows] == [[7]] * 3
    assert [r[5] for r in rows] == [2, 0, 1]


def test_dropped_warmup_is_said_when_the_runs_left_it_out():
    """When the tested runs hold fewer values than the traces (warmup="auto" dropped the
    transient), the page says so: its strip draws those values apart, untested."""
    from fastperf.data.arrays import Samples

    table, result = nested_compare()
    traces = result.runs.traces

    def steady(samples, processes):
        keep = np.ones(samples.values.size, bool)
        for start in processes[:-1]:
            keep[start:start + WARM] = False
        kept_before = np.concatenate(([0], np.cumsum(keep)))
        return Samples(samples.values[keep], kept_before[samples.offsets])

    result.runs.baseline = steady(traces.baseline, traces.baseline_processes)
    result.runs.candidate = steady(traces.candidate, traces.candidate_processes)
    assert page_data(result.to_html())["runs"]["dropped"] is True


def one_sided_result():
    """A result whose runs have one side (as `fastperf.check`'s): candidate "" and empty."""
    from fastperf.data.arrays import Samples
    from fastperf.results.base import Result
    from fastperf.results.figures import ReportView, Runs, Traces

    values = np.array([3.0, 2.0, 2.1, 1.9, 5.0, 4.0, 4.1, 4.2, 4.0])
    offsets = np.array([0, 4, 9])
    none = Samples(np.zeros(0), np.zeros(3, np.int64))
    traces = Traces(Samples(values, offsets), none, np.array([0, 2, 4, 6, 9]),
                    np.zeros(1, np.int64), np.array([1, 0]), np.zeros(2, np.int64))
    in_order = Samples(np.concatenate([np.sort(values[:4]), np.sort(values[4:])]), offsets)
    runs = Runs("runs", "", in_order, none, ("strip",), traces)

    class OneSided(Result):
        def report_view(self):
            return ReportView(["two groups"], [], runs, "flags", ("benchmark", "flags"))

    table = pa.table({"benchmark": ["a", "b"], "n": [4, 5], "flags": ["warmup", ""]})
    return OneSided(table, {"function": "check"}, [])


def test_one_sided_runs_payload():
    runs = page_data(one_sided_result().to_html())["runs"]
    assert runs["candidate"] == "" and runs["plots"] == ["strip"]
    assert [r[1] for r in runs["rows"]] == [[], []] and [r[3] for r in runs["rows"]] == [[], []]
    assert runs["rows"][0][0] == [3.0, 2.0, 2.1, 1.9] and runs["rows"][0][2] == [2, 2]
    assert runs["rows"][1][2] == [2, 3] and [r[4] for r in runs["rows"]] == [1, 0]


def test_check_report():
    """fastperf.check's page: the headline counts the flags of its table, the keys, the
    variant, the flags and the advice come first, one-sided runs with their traces."""
    from fastperf.protocols.report_views import check_view

    table = nested_with_transient(benchmarks=4)
    result = fastperf.check(table)
    result.report_view = lambda: check_view(result)  # as CheckResult.report_view
    data = page_data(result.to_html())
    flags = [f.split(", ") if f else [] for f in result.table.column("flags").to_pylist()]
    counts = {}
    for row in flags:
        for f in row:
            counts[f] = counts.get(f, 0) + 1
    line = result.report_view().headline[0]
    assert line.startswith(f"{sum(map(bool, flags))} of {result.table.num_rows} groups flagged")
    for name, n in counts.items():
        assert f"{name} {n}" in line
    names = data["table"]["columns"]
    assert names[:5] == ["benchmark", "variant", "unit", "flags", "advice"]
    assert data["runs"]["candidate"] == "" and data["runs"]["traces"] is True
    assert names[data["category"]] == "flags" and data["badges"] == data["category"]


# ---- issue 41: the history chart of changepoints ----

def history_frames(result):
    """The changepoints result's tables as pandas frames, with each row's series (its index in
    `result.series`, found by its benchmark name)."""
    index = {name: i for i, name in enumerate(result.series.column("benchmark").to_pylist())}
    changes, segments = result.changes.to_pandas(), result.segments.to_pandas()
    changes["series"] = changes["benchmark"].map(index)
    segments["series"] = segments["benchmark"].map(index)
    return index, changes, segments


def percent_of(label: str) -> float:
    """The signed percentage a chart label states ("+9.8 %", "drift -12 % over 80 points")."""
    return float(re.search(r"([+-]\d+(?:\.\d+)?) %", label).group(1))


def test_history_payload_holds_each_series_points_and_order_values():
    """Each series' points are the medians of its runs at each commit (pandas), in commit
    order, to 5 significant digits; the order runs spell out its commits."""
    result = RESULTS["changepoints"]
    histories = page_data(result.to_html())["histories"]
    frame = step_drift_history().to_pandas()
    index, _, _ = history_frames(result)
    for name, g in index.items():
        medians = frame[frame["benchmark"] == name].groupby("commit")["value"].median()
        points, runs = histories["rows"][g][:2]
        assert points == pytest.approx(medians.to_numpy(), rel=5e-5, abs=0)
        commits = [histories["orders"][first + k] for first, count in zip(runs[::2], runs[1::2])
                   for k in range(count)]
        assert commits == [str(c) for c in medians.index]
    assert histories["orders"] == [str(c) for c in sorted(set(frame["commit"]))]
    # "b" skips every third commit: one run of consecutive commits per two points
    assert len(histories["rows"][index["b"]][1]) == 2 * 30


def test_history_payload_segments_and_changes_are_the_result_tables():
    result = RESULTS["changepoints"]
    histories = page_data(result.to_html())["histories"]
    index, changes, segments = history_frames(result)
    for g in index.values():
        _, _, drawn_segments, drawn_changes = histories["rows"][g]
        mine = segments[segments["series"] == g]
        assert [s[:3] for s in drawn_segments] == [
            [int(a), int(b), int(k == "drift")] for a, b, k in zip(mine["start"], mine["end"],
                                                                   mine["kind"])]
        for column, k in (("median", 3), ("median_ci_low", 4), ("median_ci_high", 5),
                          ("fit_start", 6), ("fit_end", 7)):
            for s, value in zip(drawn_segments, mine[column]):
                assert (s[k] is None) if value != value else \
                    s[k] == pytest.approx(value, rel=6e-6)
        mine = changes[changes["series"] == g]
        assert [c[:4] for c in drawn_changes] == [
            [int(k == "drift"), int(p), int(e), d] for k, p, e, d in zip(
                mine["kind"], mine["position"], mine["end_position"], mine["direction"])]
    # the hand-built history "a": a step up, a drift, a step down
    a = changes[changes["benchmark"] == "a"]
    assert list(a["kind"]) == ["step", "drift", "step"]
    assert list(a["direction"]) == ["worse", "drift worse", "better"]


def test_history_labels_state_the_ratios():
    """A step's label is its ratio after / before in percent (one decimal below 10 %), a
    drift's also says over how many points it runs."""
    result = RESULTS["changepoints"]
    histories = page_data(result.to_html())["histories"]
    _, changes, _ = history_frames(result)
    labels = [c[4] for row in histories["rows"] for c in row[3]]
    assert len(labels) == len(changes)
    for label, (_, change) in zip(labels, changes.sort_values(["series", "position"]).iterrows()):
        change_percent = 100 * (change["ratio"] - 1)
        decimals = 1 if abs(change_percent) < 9.95 else 0
        assert percent_of(label) == pytest.approx(change_percent, abs=0.5 * 10 ** -decimals)
        if change["kind"] == "drift":
            points = change["end_position"] - change["position"] + 1
            assert label.startswith("drift ") and label.endswith(f" over {points} points")
    assert any("." in label for label in labels)  # "+4.9 %": a change below 10 %


def test_history_top_series_are_those_with_the_largest_changes():
    result = RESULTS["changepoints"]
    histories = page_data(result.to_html())["histories"]
    _, changes, _ = history_frames(result)
    largest = changes.assign(size=np.abs(np.log(changes["ratio"]))).groupby("series")["size"].max()
    assert histories["top"] == largest.sort_values(ascending=False).index.tolist()[:3]
    page = result.to_html()
    assert 'id="fp-history-top"' in page  # drawn there by the script
    assert 'id="fp-history-top"' not in RESULTS["compare"].to_html()


def test_changepoints_headline_counts_the_directions():
    result = RESULTS["changepoints"]
    directions = result.changes.to_pandas()["direction"].value_counts()
    line = result.report_view().headline[0]
    with_changes = int((result.series.to_pandas()["changes"] > 0).sum())
    assert line.startswith(f"{directions.sum()} changes in {with_changes} of "
                           f"{result.series.num_rows} series: ")
    for direction, n in directions.items():
        assert f"{n} {direction}" in line


def test_changes_forest_plot_draws_each_change_at_its_series():
    """One interval per change; a click on it opens its series (data-row: the series' row)."""
    result = RESULTS["changepoints"]
    _, changes, _ = history_frames(result)
    page = result.to_html()
    forest = re.search(r'<svg class="fp-figure fp-forest".*?</svg>', page, re.S).group(0)
    drawn = re.findall(r'<g class="fp-interval fp-cat-([a-z-]+)" data-row="(\d+)"', forest)
    assert sorted((int(g), d) for d, g in drawn) == sorted(
        zip(changes["series"], changes["direction"].str.replace(" ", "-")))


def test_changepoints_extra_tables_are_capped(monkeypatch):
    import fastperf.stats.changepoints_report as report

    result = RESULTS["changepoints"]
    page = result.to_html()
    assert "First " not in page  # 4 changes and 8 segments: all written
    monkeypatch.setattr(report, "EXTRA_ROWS", 3)
    page = result.to_html()
    assert f"First 3 of {result.changes.num_rows} rows." in page
    assert f"First 3 of {result.segments.num_rows} rows." in page
    assert len(page_data(page)["table"]["rows"]) == result.series.num_rows  # the main table: all


def test_history_of_a_series_without_values_or_with_values_not_positive():
    """A series of values around 0 (no ratio: labels give the difference of the medians) and
    one with no value at all: the payload holds both, the page draws without error."""
    rng = np.random.default_rng(0)
    level = np.where(np.arange(40) < 20, -1.0, 1.0)
    table = pa.table({"benchmark": ["z"] * 40 + ["none"] * 3, "commit": list(range(40)) * 1
                      + [0, 1, 2], "value": (level + rng.normal(0, 0.05, 40)).tolist()
                      + [None, None, None]})
    result = fastperf.changepoints(table, order="commit", by="benchmark", unit=None)
    histories = page_data(result.to_html())["histories"]
    names = result.series.column("benchmark").to_pylist()
    empty = histories["rows"][names.index("none")]
    assert empty == [[], [], [], []]
    row = histories["rows"][names.index("z")]
    changes = result.changes.to_pandas()
    assert [c[4] for c in row[3]] == [f"{d:+.4g}" for d in
                                      changes["median_after"] - changes["median_before"]]


def test_cli_changepoints_writes_the_history_report(tmp_path):
    source = tmp_path / "history.csv"
    import pyarrow.csv as pacsv

    pacsv.write_csv(step_drift_history(), source)
    out = tmp_path / "report.html"
    assert main(["changepoints", str(source), "--order", "commit", "--format", "html", "-o",
                 str(out)]) == 0
    data = page_data(out.read_text())
    assert len(data["histories"]["rows"]) == 3 and data["table"]["columns"][0] == "benchmark"


def test_change_labels_written_out():
    from fastperf.stats.changepoints_report import change_labels

    changes = pa.table({
        "kind": ["step", "step", "step", "drift", "step", "drift"],
        "ratio": [1.098, 0.8, 3.064, 1.1249, float("nan"), 0.9],
        "median_before": [1.0, 1.0, 1.0, 1.0, -1.0, 2.0],
        "median_after": [1.1, 0.8, 3.0, 1.1, 0.975, 1.8],
        "position": [10, 20, 30, 40, 120, 200], "end_position": [10, 20, 30, 119, 120, 209]})
    assert change_labels(changes) == ["+9.8 %", "-20 %", "×3.06", "drift +12 % over 80 points",
                                      "+1.975", "drift -10 % over 10 points"]


def test_a_name_holding_html_comment_or_script_text_keeps_the_data_valid_json():
    """"<!--" in a benchmark name was written "<\\!--", no JSON escape: the page's data did not
    parse and its table stayed empty. Oracle: json.loads of the data element (strict)."""
    names = ["parse<!--x", "a</script><script>alert(1)</script>", "plain"]
    table = pa.table({"benchmark": [n for n in names for _ in range(6)],
                      "variant": (["old"] * 3 + ["new"] * 3) * 3,
                      "value": [1.0, 1.1, 1.2, 1.3, 1.4, 1.5] * 3})
    page = fastperf.compare(table, baseline="old", candidate="new", unit=None).to_html()
    element = re.search(r'<script type="application/json" id="fp-data">(.*?)</script>', page,
                        re.S).group(1)
    assert "<!--" not in element and "</" not in element
    doc = json.loads(element)  # raises on "\!"
    shown = json.dumps(doc, ensure_ascii=False)
    for name in names:
        assert name in shown or json.dumps(name, ensure_ascii=False)[1:-1] in shown, name


def test_values_near_the_float64_maximum_draw_a_figure():
    """1.7e308 against 1e308: the axis padding and ticks overflowed (np.arange to inf, an
    internal error, exit 3). Oracle: the figure has finite tick labels."""
    values = list(1.7e308 * np.linspace(0.9, 1.0, 10)) + list(1e308 * np.linspace(1.0, 1.1, 10))
    table = pa.table({"benchmark": ["a"] * 20, "variant": ["old"] * 10 + ["new"] * 10,
                      "value": values})
    for result in (fastperf.describe(table, unit=None),
                   fastperf.compare(table, baseline="old", candidate="new", unit=None)):
        page = result.to_html()
        assert "nan" not in re.findall(r'<svg.*?</svg>', page, re.S)[0].lower()


def test_the_title_and_the_footer():
    """title= must be text (an int raised AttributeError); the footer's summary is strict
    JSON (a NaN in the summary was written NaN)."""
    result = fastperf.describe(simulated())
    with pytest.raises(fastperf.InputError, match="title must be a string"):
        result.to_html(title=123)
    result.summary["spread"] = math.nan
    footer = re.search(r"<footer>.*?<code>(.*?)</code>", result.to_html(), re.S).group(1)
    assert "NaN" not in footer and '&quot;spread&quot;: null' in footer
