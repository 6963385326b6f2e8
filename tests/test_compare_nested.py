"""`compare` on nested and interleaved measurements (processes, rounds), against scipy's Welch
and paired t-tests on the unit means pandas computes, and the flat analysis bit for bit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy import stats

import fastperf
from fastperf.data.chunked import run_out_of_core  # noqa: F401  (the chunked driver)
from fastperf.io.dataset import Dataset


def nested(rng, benchmarks=20, processes=6, iterations=5, icc=0.5, sigma=0.05, effect=0.0,
           unbalanced=False):
    rows = {"benchmark": [], "variant": [], "process": [], "iteration": [], "value": []}
    for b in range(benchmarks):
        for v, shift in (("old", 0.0), ("new", effect)):
            for p in range(processes):
                a = rng.normal(0, sigma * np.sqrt(icc))
                m = iterations + (int(rng.integers(0, 3)) if unbalanced else 0)
                e = rng.normal(0, sigma * np.sqrt(1 - icc), m)
                rows["benchmark"] += [f"b{b}"] * m
                rows["variant"] += [v] * m
                rows["process"] += [p] * m
                rows["iteration"] += list(range(m))
                rows["value"] += list(np.exp(2.0 + shift + a + e))
    return pa.table(rows)


def rounds(rng, benchmarks=20, count=10, iterations=3, drift=0.05, effect=0.0):
    rows = {"benchmark": [], "variant": [], "round": [], "value": []}
    for b in range(benchmarks):
        walk = np.cumsum(rng.normal(0, drift, count))
        for r in range(count):
            for v, shift in (("old", 0.0), ("new", effect)):
                e = rng.normal(0, 0.02, iterations)
                rows["benchmark"] += [f"b{b}"] * iterations
                rows["variant"] += [v] * iterations
                rows["round"] += [r] * iterations
                rows["value"] += list(np.exp(1.0 + walk[r] + shift + e))
    return pa.table(rows)


def unit_logs(table: pa.Table, unit: str) -> pd.DataFrame:
    frame = table.to_pandas()
    means = frame.groupby(["benchmark", "variant", unit], sort=False)["value"].mean()
    return np.log(means).rename("y").reset_index()


@pytest.mark.parametrize("unbalanced", [False, True])
def test_process_analysis_is_welch_on_log_process_means(unbalanced):
    rng = np.random.default_rng(1)
    table = nested(rng, unbalanced=unbalanced, effect=0.02)
    result = fastperf.compare(table, baseline="old", candidate="new", adjust="none")
    assert result.summary["structure"] == "process"
    rows = result.table.to_pylist()
    logs = unit_logs(table, "process")
    for row in rows:
        b = logs[logs.benchmark == row["benchmark"]]
        x = b[b.variant == "old"]["y"].to_numpy()
        y = b[b.variant == "new"]["y"].to_numpy()
        test = stats.ttest_ind(y, x, equal_var=False)
        interval = test.confidence_interval(0.95)
        assert row["analysis"] == "process" and row["method"] == "welch"
        assert row["pvalue"] == pytest.approx(test.pvalue, rel=1e-9)
        assert row["ratio"] == pytest.approx(np.exp(y.mean() - x.mean()), rel=1e-12)
        assert row["ci_low"] == pytest.approx(np.exp(interval.low), rel=1e-9)
        assert row["ci_high"] == pytest.approx(np.exp(interval.high), rel=1e-9)
        assert row["units_baseline"] == 6 and row["units_candidate"] == 6
        assert row["median_baseline"] == pytest.approx(np.median(np.exp(x)), rel=1e-12)


def test_round_analysis_is_the_paired_t_test_on_log_round_means():
    rng = np.random.default_rng(2)
    table = rounds(rng, effect=0.02)
    result = fastperf.compare(table, baseline="old", candidate="new", adjust="none")
    assert result.summary["structure"] == "round"
    logs = unit_logs(table, "round")
    for row in result.table.to_pylist():
        b = logs[logs.benchmark == row["benchmark"]]
        x = b[b.variant == "old"].sort_values("round")["y"].to_numpy()
        y = b[b.variant == "new"].sort_values("round")["y"].to_numpy()
        test = stats.ttest_rel(y, x)
        interval = test.confidence_interval(0.95)
        assert row["analysis"] == "round" and row["method"] == "paired t"
        assert row["pvalue"] == pytest.approx(test.pvalue, rel=1e-9)
        assert row["ci_low"] == pytest.approx(np.exp(interval.low), rel=1e-9)
        assert row["ci_high"] == pytest.approx(np.exp(interval.high), rel=1e-9)
        assert row["units_baseline"] == 10
    assert "n=10r" in result.to_text()


def test_flat_analysis_reproduces_the_table_without_levels_bit_for_bit():
    rng = np.random.default_rng(3)
    table = nested(rng, effect=0.01)
    flat = fastperf.compare(table, baseline="old", candidate="new", levels=[])
    plain = fastperf.compare(table.drop_columns(["process", "iteration"]), baseline="old",
                             candidate="new")
    assert flat.table.equals(plain.table)
    assert flat.summary["structure"] == "flat"
    cli_flat = fastperf.compare(table, baseline="old", candidate="new", levels="none")
    assert cli_flat.table.equals(plain.table)


def test_one_process_per_side_or_one_value_per_process_keeps_the_flat_analysis():
    rng = np.random.default_rng(4)
    one_process = nested(rng, benchmarks=3, processes=1, iterations=12)
    result = fastperf.compare(one_process, baseline="old", candidate="new")
    plain = fastperf.compare(one_process, baseline="old", candidate="new", levels=[])
    assert set(result.table.column("analysis").to_pylist()) == {"flat"}
    for name in plain.table.column_names:
        if name == "flags":  # the diagnostics count processes here ("few runs"), runs there
            continue
        assert result.table.column(name).equals(plain.table.column(name)), name
    one_value = nested(rng, benchmarks=3, processes=12, iterations=1)
    result = fastperf.compare(one_value, baseline="old", candidate="new")
    assert set(result.table.column("analysis").to_pylist()) == {"flat"}


def test_the_flat_analysis_overstates_certainty_and_a_warning_names_it():
    rng = np.random.default_rng(5)
    table = nested(rng, benchmarks=200, processes=5, iterations=10, icc=0.8)
    flat = fastperf.compare(table, baseline="old", candidate="new", adjust="none", levels=[])
    result = fastperf.compare(table, baseline="old", candidate="new", adjust="none")
    changed = lambda r: np.isin(r.table.column("verdict").to_numpy(zero_copy_only=False),  # noqa: E731
                                ["worse", "better", "changed"]).mean()
    assert changed(flat) > 0.3  # the pooled test on correlated values: far above 5 %
    assert changed(result) < 0.12
    assert any("would be called a change" in w for w in result.warnings)
    assert "compared on independent units (process)" in result.to_text()
    assert "n=5\u00d710" in result.to_text()


def test_explicit_levels_name_any_column():
    rng = np.random.default_rng(6)
    table = nested(rng, benchmarks=4)
    renamed = table.rename_columns(["benchmark", "variant", "fork", "iteration", "value"])
    a = fastperf.compare(table, baseline="old", candidate="new")
    b = fastperf.compare(renamed, baseline="old", candidate="new", levels=["fork", "iteration"])
    assert b.summary["structure"] == "fork"
    assert a.table.column("pvalue").equals(b.table.column("pvalue"))
    with pytest.raises(fastperf.InputError, match="levels names column 'process'"):
        fastperf.compare(renamed, baseline="old", candidate="new", levels=["process"])


def test_chunks_give_the_in_memory_result(tmp_path):
    import pyarrow.parquet as pq

    rng = np.random.default_rng(8)
    table = nested(rng, benchmarks=30)
    path = tmp_path / "nested.parquet"
    pq.write_table(table, path, row_group_size=200)
    whole = fastperf.compare(table, baseline="old", candidate="new")
    lazy = fastperf.read(path, lazy=True, memory_limit=60_000)
    assert isinstance(lazy, Dataset)
    chunked = fastperf.compare(lazy, baseline="old", candidate="new")
    for name in whole.table.column_names:
        got = chunked.table.column(name).to_pylist()
        want = whole.table.column(name).to_pylist()
        if name in ("benchmark", "variant"):
            continue
        assert got == want, name


def test_nan_values_are_dropped_and_counted_per_unit():
    rng = np.random.default_rng(9)
    table = nested(rng, benchmarks=2)
    value = table.column("value").to_numpy().copy()
    value[:5] = np.nan  # all of b0/old process 0
    table = table.set_column(table.column_names.index("value"), "value", pa.array(value))
    row = fastperf.compare(table, baseline="old", candidate="new").table.to_pylist()[0]
    assert row["n_dropped_baseline"] == 5
    assert row["units_baseline"] == 5 and row["n_baseline"] == 25


def test_two_go_files_of_interleaved_invocations_pair_by_block(tmp_path):
    """The CI recipe of docs/compare.md: base and head run in turn, one `go test -count=1` each
    a round, appended to base.txt and head.txt; invocation k of each file is its process k,
    and `block="process"` pairs them: the paired t-test on the log invocation means."""
    rng = np.random.default_rng(10)
    drift = np.cumsum(rng.normal(0, 0.05, 6))
    base, head = [], []
    for k in range(6):
        for lines, shift in ((base, 0.0), (head, 0.03)):
            lines.append("goos: linux\ngoarch: amd64\npkg: example.com/p")
            for _ in range(3):
                ns = 1000 * np.exp(drift[k] + shift + rng.normal(0, 0.01))
                lines.append(f"BenchmarkParse-8   \t 1000\t {ns:.1f} ns/op")
            lines.append("PASS\nok  \texample.com/p\t1.0s")
    (tmp_path / "base.txt").write_text("\n".join(base) + "\n")
    (tmp_path / "head.txt").write_text("\n".join(head) + "\n")
    paths = [tmp_path / "base.txt", tmp_path / "head.txt"]
    result = fastperf.compare(paths, baseline="base", candidate="head", block="process")
    row = result.table.to_pylist()[0]
    assert result.summary["structure"] == "process as rounds"
    assert row["analysis"] == "round" and row["units_baseline"] == 6
    x = [np.log(np.mean([float(line.split()[2]) for line in block.splitlines()
                         if line.startswith("Benchmark")]) * 1e-9)
         for block in "\n".join(base).split("PASS")[:-1]]
    y = [np.log(np.mean([float(line.split()[2]) for line in block.splitlines()
                         if line.startswith("Benchmark")]) * 1e-9)
         for block in "\n".join(head).split("PASS")[:-1]]
    assert row["pvalue"] == pytest.approx(stats.ttest_rel(y, x).pvalue, rel=1e-6)
    unpaired = fastperf.compare(paths, baseline="base", candidate="head")
    assert unpaired.summary["structure"] == "process"
    assert row["pvalue"] < unpaired.table.column("pvalue")[0].as_py()  # the drift cancels


def test_values_at_or_below_zero_are_tested_on_their_units_without_a_ratio():
    """A unit mean <= 0 has no log ratio: the change is tested by Welch's t-test on the process
    means themselves (the paired t-test on the round means' differences), with no ratio nor
    interval, and the status says so. It took the flat analysis, whose pooled test called 43 %
    of null benchmarks changed on nested data. Oracle: scipy's ttest_ind / ttest_rel on the unit
    means."""
    rng = np.random.default_rng(13)
    table = nested(rng, benchmarks=2)
    value = table.column("value").to_numpy().copy()
    value[:30] -= 10.0  # b0's baseline: every value below zero
    table = table.set_column(table.column_names.index("value"), "value", pa.array(value))
    rows = fastperf.compare(table, baseline="old", candidate="new").table.to_pylist()
    means = table.to_pandas().groupby(["benchmark", "variant", "process"])["value"].mean()
    x, y = means["b0", "old"].to_numpy(), means["b0", "new"].to_numpy()
    assert rows[0]["analysis"] == "process" and rows[0]["status"] == "values <= 0: no ratio interval"
    assert rows[0]["pvalue"] == pytest.approx(stats.ttest_ind(y, x, equal_var=False).pvalue,
                                              rel=1e-9)
    assert rows[0]["ratio"] is None or np.isnan(rows[0]["ratio"])
    assert rows[0]["verdict"] == "changed"  # far apart; no unit, so no direction
    assert rows[1]["analysis"] == "process" and rows[1]["status"] == "ok"
    # rounds: the paired t-test on the differences of the round means
    paired = rounds(np.random.default_rng(14), benchmarks=1, effect=0.02)
    value = paired.column("value").to_numpy() - 3.0  # every value below zero
    paired = paired.set_column(paired.column_names.index("value"), "value", pa.array(value))
    row = fastperf.compare(paired, baseline="old", candidate="new").table.to_pylist()[0]
    means = paired.to_pandas().groupby(["variant", "round"])["value"].mean()
    assert row["analysis"] == "round"
    assert row["pvalue"] == pytest.approx(
        stats.ttest_rel(means["new"].to_numpy(), means["old"].to_numpy()).pvalue, rel=1e-9)


def test_values_at_or_below_zero_hold_the_level_on_nested_data():
    """Null benchmarks of 5 processes x 10 values, ICC 0.5, negated: the pooled test called 43 %
    of them changed; on the process means the rate is the test's level (within sampling
    error of 200 benchmarks: at most 10 %)."""
    import pyarrow.compute as pc
    table = fastperf.simulate(benchmarks=200, processes=5, iterations=10, icc=0.5, seed=21,
                              effects=1.0, shapes="lognormal", unit=None).table
    negated = table.set_column(table.column_names.index("value"), "value",
                               pc.negate(table["value"]))
    got = fastperf.compare(negated, baseline="baseline", candidate="candidate", adjust="none")
    pvalues = got.table.column("pvalue").to_numpy()
    assert set(got.table.column("analysis").to_pylist()) == {"process"}
    assert np.mean(pvalues < 0.05) <= 0.10


def test_rounds_that_do_not_pair_are_flat_with_a_warning():
    """Six rounds a side but none shared: no pairing is possible, so the documented flat
    fallback (fewer than 2 units) applies; it said nothing, though the design was for pairing.
    With the rounds shared, the same values are paired and no such warning is given."""
    values = [1, 1.1, 1.2, 1.05, 1.15, 1.1, 1.2, 1.3, 1.3, 1.25, 1.35, 1.3]
    base = {"benchmark": ["d"] * 12, "variant": ["b"] * 6 + ["c"] * 6, "value": values}
    apart = pa.table({**base, "round": list(range(6)) + list(range(10, 16))})
    shared = pa.table({**base, "round": list(range(6)) * 2})
    got = fastperf.compare(apart, baseline="b", candidate="c", unit=None)
    row = got.table.to_pylist()[0]
    assert (row["analysis"], row["units_baseline"]) == ("flat", 0)
    assert any(w.startswith("1 comparison(s) analysed flat") for w in got.warnings)
    paired = fastperf.compare(shared, baseline="b", candidate="c", unit=None)
    assert paired.table.to_pylist()[0]["analysis"] == "round"
    assert not any("analysed flat" in w for w in paired.warnings)


def test_rounds_measured_by_one_variant_are_left_out_of_the_medians_too():
    """The candidate stopped after 10 of 20 rounds while the machine drifted: the test pairs
    the 10 shared rounds, and the medians and the change beside it are those rounds' too (they
    were every round's: -12.8 % beside a ratio of +5 %, and the threshold read the wrong one);
    a warning counts the rounds left out. Oracle: numpy medians and scipy's ttest_rel on the
    shared rounds' means."""
    rng = np.random.default_rng(0)
    rows = {"benchmark": [], "variant": [], "round": [], "value": []}
    for r in range(20):
        for v, f in (("a", 1.0), ("b", 1.05)):
            if v == "b" and r >= 10:
                continue
            for _ in range(3):
                rows["benchmark"].append("x")
                rows["variant"].append(v)
                rows["round"].append(r)
                rows["value"].append((1 + 0.05 * r) * f * np.exp(rng.normal(0, 0.002)))
    table = pa.table(rows)
    got = fastperf.compare(table, baseline="a", candidate="b", higher_is_better=False,
                           threshold=0.03)
    row = got.table.to_pylist()[0]
    means = table.to_pandas().groupby(["variant", "round"])["value"].mean()
    x, y = means["a"].to_numpy()[:10], means["b"].to_numpy()
    assert row["analysis"] == "round" and row["units_baseline"] == 10
    assert row["median_baseline"] == pytest.approx(np.median(x), rel=1e-12)
    assert row["median_candidate"] == pytest.approx(np.median(y), rel=1e-12)
    assert row["delta"] == pytest.approx(np.median(y) / np.median(x) - 1, rel=1e-9)
    test = stats.ttest_rel(np.log(y), np.log(x))
    assert row["pvalue"] == pytest.approx(test.pvalue, rel=1e-9)
    assert row["verdict"] == "worse"  # +5 % over the 3 % threshold
    assert any("10 that measured one variant only left out" in w for w in got.warnings)


@pytest.mark.parametrize("level", ["process", "round"])
def test_units_that_do_not_vary_give_an_exact_answer(level):
    """A deterministic metric (an allocation count, the same in every process): Welch's
    standard error is 0, and the rows said "too few runs" with 8 processes a side. With no
    noise at the unit level the change is exact: p 1 and "no change" where the sides are
    equal, p 0 and the ratio as its own interval where they differ, as `decide` concludes.
    Oracle: the data's construction (every value 100 or 105)."""
    rows = {"benchmark": [], "variant": [], level: [], "value": []}
    for name, (base, cand) in {"same": (100.0, 100.0), "diff": (100.0, 105.0)}.items():
        for variant, value in (("a", base), ("b", cand)):
            for unit in range(8):
                rows["benchmark"] += [name] * 3
                rows["variant"] += [variant] * 3
                rows[level] += [unit] * 3
                rows["value"] += [value] * 3
    table = pa.table(rows)
    got = {r["benchmark"]: r for r in fastperf.compare(table, baseline="a", candidate="b",
                                                       unit=None).table.to_pylist()}
    assert got["same"]["analysis"] == level and got["same"]["status"] == "ok"
    assert (got["same"]["pvalue"], got["same"]["verdict"]) == (1.0, "no change")
    assert (got["diff"]["pvalue"], got["diff"]["verdict"]) == (0.0, "changed")
    assert got["diff"]["ratio"] == pytest.approx(1.05, rel=1e-12)
    assert got["diff"]["ci_low"] == got["diff"]["ratio"] == got["diff"]["ci_high"]
    decided = fastperf.decide(table, baseline="a", candidate="b", margin=0.02, unit=None)
    assert decided.table.column("decision").to_pylist() == ["equivalent", "changed"]
