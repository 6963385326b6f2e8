"""`compare` and `describe` on summary tables (n, mean, sd per benchmark and variant).

Oracles: scipy.stats.ttest_ind_from_stats (Welch) for the p-values; the defining equation of
Fieller's interval, (m_y - R m_x)**2 = q**2 (v_y + R**2 v_x), checked at its ends and by a grid
scan; scipy's t quantile for the mean intervals; hand-made tables for the statuses.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
import scipy.stats as sps

import fastperf as f
from fastperf import InputError
from fastperf.io.summaries import is_summary_table, summary_table
from fastperf.protocols.compare.summaries import fieller_ratio_interval

STATS = {"benchmark": ["a", "a", "b", "b", "c", "c"],
         "variant": ["old", "new"] * 3,
         "unit": ["ns"] * 4 + ["ops/s"] * 2,
         "n": [10, 12, 5, 5, 20, 20],
         "mean": [100.0, 90.0, 50.0, 51.0, 1000.0, 1100.0],
         "sd": [5.0, 6.0, 2.0, 2.5, 30.0, 40.0]}


def summaries(**changes) -> pa.Table:
    columns = {**STATS, **changes}
    return f.read(pa.table(columns), summaries=True)


def test_welch_pvalues_and_verdicts_match_scipy():
    r = f.compare(summaries(), baseline="old", candidate="new", adjust="none")
    rows = {row["benchmark"]: row for row in r.benchmarks.to_pylist()}
    for name, (i, j) in {"a": (0, 1), "b": (2, 3), "c": (4, 5)}.items():
        want = sps.ttest_ind_from_stats(STATS["mean"][j], STATS["sd"][j], STATS["n"][j],
                                        STATS["mean"][i], STATS["sd"][i], STATS["n"][i],
                                        equal_var=False)
        assert rows[name]["pvalue"] == pytest.approx(want.pvalue, rel=1e-10)
        assert rows[name]["delta"] == pytest.approx(STATS["mean"][j] / STATS["mean"][i] - 1)
        assert rows[name]["method"] == "welch-t from summaries"
    # a: 90 vs 100 ns, p ~ 3e-4: faster = better; b: p ~ 0.5: no change; c: ops/s up = better
    assert [rows[n]["verdict"] for n in "abc"] == ["better", "no change", "better"]
    assert r.summary["from_summaries"] and "Welch" in r.warnings[0]


def test_mean_intervals_are_student():
    r = f.compare(summaries(), baseline="old", candidate="new")
    row = r.benchmarks.to_pylist()[0]
    half = sps.t.ppf(0.975, 9) * 5.0 / np.sqrt(10)
    assert row["ci_baseline_low"] == pytest.approx(100 - half)
    assert row["ci_baseline_high"] == pytest.approx(100 + half)


def test_fieller_interval_solves_its_equation():
    rng = np.random.default_rng(3)
    mx, my = rng.uniform(50, 150, 40), rng.uniform(50, 150, 40)
    vx, vy = rng.uniform(0.1, 40, 40), rng.uniform(0.1, 40, 40)
    q = sps.t.ppf(0.975, rng.uniform(3, 40, 40))
    low, high = fieller_ratio_interval(mx, vx, my, vy, q)
    for r in (low, high):
        np.testing.assert_allclose((my - r * mx) ** 2, q ** 2 * (vy + r ** 2 * vx), rtol=1e-9)
    for i in range(5):  # a grid scan: inside the interval exactly where the inequality holds
        grid = np.linspace(low[i] - 0.2, high[i] + 0.2, 2001)
        inside = (my[i] - grid * mx[i]) ** 2 <= q[i] ** 2 * (vy[i] + grid ** 2 * vx[i])
        assert grid[inside].min() == pytest.approx(low[i], abs=5e-4)
        assert grid[inside].max() == pytest.approx(high[i], abs=5e-4)
    # the baseline mean not significantly above 0: unbounded, NaN
    low, high = fieller_ratio_interval(np.array([1.0]), np.array([4.0]), np.array([2.0]),
                                       np.array([0.1]), np.array([2.0]))
    assert np.isnan(low[0]) and np.isnan(high[0])


def test_statuses_when_the_file_lacks_figures():
    table = summaries(n=[10, None, 5, 5, 1, 1], sd=[5.0, 6.0, None, 2.5, 30.0, 40.0])
    rows = f.compare(table, baseline="old", candidate="new").benchmarks.to_pylist()
    assert rows[0]["status"].startswith("the file gives no run count n")
    assert rows[1]["status"].startswith("the file gives no sd")
    assert rows[2]["status"] == "no test: fewer than 2 values in a sample"
    for row in rows:
        assert row["verdict"] == "too few runs" and not row["pvalue"] == row["pvalue"]  # NaN


def test_missing_side_and_duplicate_rows():
    table = pa.table({"benchmark": ["a", "a", "a", "b"], "variant": ["old", "new", "new", "old"],
                      "n": [5, 5, 5, 5], "mean": [1.0, 1.1, 1.2, 2.0], "sd": [0.1] * 4})
    rows = f.compare(f.read(table, summaries=True), baseline="old",
                     candidate="new").benchmarks.to_pylist()
    assert rows[0]["status"].startswith("several summary rows")
    assert rows[1]["status"] == "no candidate summary"


def test_describe_summaries():
    r = f.describe(summaries(n=[10, 12, 5, 5, 20, None]))
    rows = r.groups.to_pylist()
    assert rows[0]["mean"] == 100.0 and rows[0]["n"] == 10
    assert rows[0]["ci_mean_high"] == pytest.approx(100 + sps.t.ppf(0.975, 9) * 5 / np.sqrt(10))
    assert rows[0]["status"] == "the file gives no min"  # the table above gives n, mean, sd only
    assert rows[5]["status"] == "the file gives no run count n: no interval"
    full = f.describe(f.read(pa.table({"benchmark": ["a"], "n": [4], "mean": [2.0], "sd": [0.5],
                                       "min": [1.5], "median": [2.0], "max": [2.6],
                                       "iqr": [0.4]}), summaries=True), variant=None)
    assert full.groups.to_pylist()[0]["status"] == "ok"


def test_read_summaries_from_a_csv_and_refusals(tmp_path):
    path = tmp_path / "s.csv"
    pacsv.write_csv(pa.table(STATS), path)
    table = f.read(path, summaries=True)
    assert is_summary_table(table) and table.num_rows == 6
    assert f.compare(table, baseline="old", candidate="new").summary["from_summaries"]
    with pytest.raises(InputError, match="summary table needs columns n, mean and sd"):
        f.read(pa.table({"benchmark": ["a"], "mean": [1.0]}), summaries=True)
    with pytest.raises(InputError, match="summaries= must be None, True or False"):
        f.read(path, summaries="yes")


def test_summary_table_builder_checks_its_input():
    t = summary_table(["a", "b"], unit="ns", statistics={"n": [3, None], "mean": [1.0, 2.0]})
    assert is_summary_table(t) and t.column("sd").null_count == 2
    with pytest.raises(InputError, match="unknown"):
        summary_table(["a"], unit="ns", statistics={"average": [1.0]})
    with pytest.raises(InputError, match="mean"):
        summary_table(["a"], unit="ns", statistics={"mean": ["x"]})
