"""`fastperf.check` against per-group oracles: a Python loop over the groups that takes numpy's
counts, percentiles (Tukey's fences on the log scale), unique values (the timer's quantum, the
tied share) and standard deviation (the coefficient of variation), scipy's Kendall tau (the
Mann-Kendall S of the runs in order, or of the process means), and flags known by construction
(a group drawn noisy, coarse, short, drifting, with outliers or a warm-up). Then what a group's
row may depend on (other groups: none), chunked and lazy runs against the in-memory run, the
statuses, the option checks, the renderings and the runs kept for the report.
"""
from __future__ import annotations

import json
import math

import diptest
import numpy as np
import pyarrow as pa
import pytest
from scipy import stats
from scipy.stats import kendalltau

import fastperf
from fastperf.engine.diagnostics import FLAGS, Thresholds
from fastperf.errors import InputError
from fastperf.io.summaries import summary_table
from fastperf.protocols.check import (CHECK_COLUMNS, check_finish, check_options, check_plan,
                                      check_stage)
from naive import mann_kendall_brute, warmup_brute
from scale_checks import assert_identical_results, assert_identical_tables, lazy_pair, \
    run_in_parts

#: The thresholds' defaults, written here from docs/check.md (not read from the code).
NOISY_CV, RESOLUTION, MIN_UNITS = 0.10, 0.01, 5
WARMUP_ALPHA = BIMODAL_ALPHA = DRIFT_ALPHA = 0.01
#: Tukey's fences classify groups of at least this many steady values (docs/check.md).
MIN_FENCE_VALUES = 12
#: The fewest values of a dip test (docs/check.md).
DIP_MIN_VALUES = 4


def draw_groups(seed: int = 0) -> dict[tuple[str, str], np.ndarray]:
    """(benchmark, variant) -> its values in measurement order (NaN: missing), each group drawn
    with a known defect or none."""
    rng = np.random.default_rng(seed)

    def clean(n=30, sigma=0.01, scale=1e-3):
        return scale * np.exp(rng.normal(0.0, sigma, n))

    groups = {
        ("steady", "old"): clean(),
        ("steady", "new"): clean(scale=2e-3),
        ("noisy", "old"): clean(sigma=0.5),
        ("outliers", "old"): np.r_[clean(27), 1e-3 * np.array([3.0, 4.0, 5.0])][
            rng.permutation(30)],
        ("coarse", "old"): np.round(clean(sigma=0.05) / 1e-4) * 1e-4,
        ("short", "old"): clean(3),
        ("drifting", "old"): 1e-3 * np.exp(np.linspace(0.0, 0.2, 40)
                                           + rng.normal(0.0, 0.005, 40)),
        ("gaps", "old"): np.r_[clean(20), [np.nan] * 3],
        ("empty", "old"): np.full(4, np.nan),
    }
    groups[("gaps", "old")] = groups[("gaps", "old")][rng.permutation(23)]
    return groups


def as_table(groups: dict, order=None, nulls_for_nan: bool = False) -> pa.Table:
    """One row per value, the groups in `order` (default: as given), each group's values in
    measurement order."""
    rows = {"benchmark": [], "variant": [], "value": []}
    for key in (order or list(groups)):
        values = groups[key]
        rows["benchmark"] += [key[0]] * len(values)
        rows["variant"] += [key[1]] * len(values)
        rows["value"] += [None if nulls_for_nan and math.isnan(v) else float(v)
                          for v in values]
    return pa.table(rows)


def mann_kendall_s(x: np.ndarray) -> float:
    """sum_{i<j} sign(x_j - x_i), from scipy's Kendall tau of the sequence against its index
    (untied values: S = tau n (n - 1) / 2)."""
    n = len(x)
    return kendalltau(np.arange(n), x).statistic * n * (n - 1) / 2


def spread_ties(sorted_values: np.ndarray, quantum: float) -> np.ndarray:
    """Each run of t tied values v spread evenly over one quantum q: v + q ((i + 1/2)/t - 1/2),
    i = 0..t-1 (docs/check.md's rule before the dip test, on the scale the dip reads, q the
    smallest gap there), by a loop over the distinct values."""
    out = []
    for v in np.unique(sorted_values):
        t = int((sorted_values == v).sum())
        out += [v + quantum * ((i + 0.5) / t - 0.5) for i in range(t)] if t > 1 else [v]
    return np.array(out)


def oracle_row(values: np.ndarray) -> dict:
    """The statistics and flags of one group of runs, by numpy, scipy, the ``diptest`` package
    and tests/naive.py: the warm-up by brute-force MSER-5 and scipy's t-test, the rest on the
    steady runs."""
    kept = values[~np.isnan(values)]
    out = {"n": kept.size, "n_dropped": int(np.isnan(values).sum()), "units": kept.size}
    d, _, change, found = warmup_brute([kept])
    out["warmup_iterations"], out["warmup_found"] = d, found
    steady = kept[d:] if found else kept
    n = out["n_steady"] = steady.size
    distinct = np.unique(steady)
    logs = np.log(steady)
    q1, q3 = np.percentile(logs, [25, 75])
    iqr = q3 - q1
    beyond = lambda k: (logs < q1 - k * iqr) | (logs > q3 + k * iqr)  # noqa: E731
    fences = iqr > 0 and n >= MIN_FENCE_VALUES
    out["outliers_severe"] = int(beyond(3.0).sum()) if fences else 0
    out["outliers_mild"] = int((beyond(1.5) & ~beyond(3.0)).sum()) if fences else 0
    out["quantum"] = float(np.diff(distinct).min()) if distinct.size > 1 else math.nan
    out["tied_share"] = 1.0 - distinct.size / n
    out["cv"] = float(np.std(steady, ddof=1) / np.mean(steady)) if n >= 2 else math.nan
    s, _, drift_p = mann_kendall_brute(list(steady))
    out["drift_statistic"] = float(s)
    quantum_share = out["quantum"] / abs(float(np.median(steady)))
    sorted_logs = np.sort(logs)
    log_gaps = np.diff(sorted_logs)
    spread = spread_ties(sorted_logs, log_gaps[log_gaps > 0].min()) if out["tied_share"] > 0 \
        else sorted_logs
    out["dip_pvalue"] = float(diptest.diptest(spread)[1]) if n >= DIP_MIN_VALUES else math.nan
    out["expected_flags"] = {
        "warmup": found,
        "outliers": out["outliers_severe"] > 0,
        "bimodal": out["dip_pvalue"] < BIMODAL_ALPHA,
        "drift": drift_p < DRIFT_ALPHA,
        "resolution": (out["tied_share"] > 0 and quantum_share > RESOLUTION)
        or distinct.size == 1,
        "noisy": out["cv"] > NOISY_CV,
        "few runs": out["units"] < MIN_UNITS,
    }
    return out


GROUPS = draw_groups()
TABLE = as_table(GROUPS)


@pytest.fixture(scope="module")
def result():
    return fastperf.check(TABLE)


def rows_by_key(result) -> dict:
    return {(r["benchmark"], r["variant"]): r for r in result.groups.to_pylist()}


def test_every_group_has_a_row_in_first_appearance_order(result):
    assert [(r["benchmark"], r["variant"]) for r in result.groups.to_pylist()] == \
        sorted(GROUPS, key=lambda k: ([b for b, _ in GROUPS].index(k[0]),
                                      ["old", "new"].index(k[1])))
    names = result.groups.column_names
    assert names[:2] == ["benchmark", "variant"]
    assert names[2:2 + len(CHECK_COLUMNS)] == list(CHECK_COLUMNS)
    assert names[-2:] == ["advice", "status"]


def test_rows_equal_a_loop_over_numpy_and_scipy(result):
    got = rows_by_key(result)
    assert got[("empty", "old")]["n"] == 0  # (its row: test_statuses_of_empty_and_short_groups)
    warm_ups = 0
    for key in [k for k in GROUPS if k != ("empty", "old")]:
        want, row = oracle_row(GROUPS[key]), got[key]
        for name in ("n", "n_dropped", "units", "n_steady", "warmup_iterations", "outliers_mild",
                     "outliers_severe"):
            assert row[name] == want[name], (key, name)
        for name in ("cv", "quantum", "tied_share", "drift_statistic"):
            assert row[name] == pytest.approx(want[name], rel=1e-9, abs=1e-12), (key, name)
        # the dip's p-value is fastperf's own table's, not diptest's: the flag is compared where
        # the two cannot straddle the level
        assert not 0.5 * BIMODAL_ALPHA <= want["dip_pvalue"] <= 2 * BIMODAL_ALPHA, key
        flags = row["flags"].split(", ") if row["flags"] else []
        assert flags == [f for f, expected in want["expected_flags"].items() if expected], key
        assert list(want["expected_flags"]) == list(FLAGS)
        advice = row["advice"].split("; ") if row["advice"] else []
        assert len(advice) == len(flags), key
        warm_ups += want["warmup_found"]
    assert warm_ups == 1  # the drifting group: its first runs differ from the rest


def test_the_defects_drawn_are_flagged(result):
    """Flags known by construction, whatever the statistics' values."""
    got = {k: (r["flags"].split(", ") if r["flags"] else []) for k, r in rows_by_key(result).items()}
    assert got[("steady", "old")] == [] and got[("steady", "new")] == []
    assert "noisy" in got[("noisy", "old")]
    assert "outliers" in got[("outliers", "old")]
    assert "resolution" in got[("coarse", "old")]
    assert "few runs" in got[("short", "old")]
    assert "drift" in got[("drifting", "old")]
    assert result.summary["flagged"] == sum(bool(f) for f in got.values())
    assert result.summary["flags"] == {f: sum(f in v for v in got.values()) for f in FLAGS}


def test_drift_of_process_means_against_kendall_tau():
    """With processes the trend is read on the processes' means, in order (their log means:
    Kendall's S is the same for any increasing transform only of the sequence itself, so the
    oracle takes the log means, the group being positive)."""
    rng = np.random.default_rng(5)
    rows = {"benchmark": [], "variant": [], "process": [], "value": []}
    expected = {}
    for b in range(4):
        values = np.exp(rng.normal(0.0, 0.02, (8, 6)) + 0.01 * b * np.arange(8)[:, None])
        expected[f"b{b}"] = mann_kendall_s(np.log(values).mean(axis=1))
        for p in range(8):
            for v in values[p]:
                rows["benchmark"].append(f"b{b}")
                rows["variant"].append("x")
                rows["process"].append(p)
                rows["value"].append(float(v))
    result = fastperf.check(pa.table(rows))
    assert result.summary["structure"] == "process"
    for row in result.groups.to_pylist():
        assert row["units"] == 8 and row["n"] == 48
        assert row["n_steady"] == 48, "a warm-up was found in i.i.d. processes"
        assert row["drift_statistic"] == pytest.approx(expected[row["benchmark"]], abs=1e-9)


def test_a_warm_up_is_found_and_reported_against_numpy():
    """The first 5 of 40 runs 50 % slower: the warm-up column says 5, its change is the ratio of
    the geometric means of the two parts, the report's traces mark it."""
    rng = np.random.default_rng(2)
    values = np.exp(rng.normal(0.0, 0.01, 40))
    values[:5] *= 1.5
    table = as_table({("warm", "old"): values, ("cold", "old"): np.exp(rng.normal(0, 0.01, 40))})
    result = fastperf.check(table)
    rows = rows_by_key(result)
    warm = rows[("warm", "old")]
    assert warm["flags"].split(", ")[0] == "warmup"
    assert warm["warmup_iterations"] == 5 and warm["n_steady"] == 35
    want = math.expm1(np.log(values[:5]).mean() - np.log(values[5:]).mean())
    assert warm["warmup_change"] == pytest.approx(want, rel=1e-9)
    assert warm["cv"] == pytest.approx(np.std(values[5:], ddof=1) / values[5:].mean(), rel=1e-9)
    assert "warmup" not in rows[("cold", "old")]["flags"]
    traces = result.runs.traces
    order = [(r["benchmark"], r["variant"]) for r in result.groups.to_pylist()]
    assert traces.warmup_baseline.tolist() == [5 if k == ("warm", "old") else 0 for k in order]


def other_columns(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in ("benchmark", "variant")}


def same_rows(got: dict, want: dict) -> None:
    for key, row in got.items():
        a, b = other_columns(row), other_columns(want[key])
        assert a.keys() == b.keys()
        for name in a:
            x, y = a[name], b[name]
            same = (x == y) or (isinstance(x, float) and isinstance(y, float)
                                and math.isnan(x) and math.isnan(y))
            assert same, (key, name, x, y)


def test_a_groups_row_depends_on_its_values_only(result):
    """Shuffled group order, groups removed, groups added: each group's row is unchanged."""
    want = rows_by_key(result)
    keys = list(GROUPS)
    shuffled = [keys[i] for i in np.random.default_rng(3).permutation(len(keys))]
    same_rows(rows_by_key(fastperf.check(as_table(GROUPS, shuffled))), want)
    fewer = keys[::2]
    got = rows_by_key(fastperf.check(as_table(GROUPS, fewer)))
    assert list(got) == fewer
    same_rows(got, want)
    more = dict(GROUPS)
    more.update({(k[0] + "_copy", "old"): v * 3.0 for k, v in draw_groups(9).items()})
    same_rows({k: v for k, v in rows_by_key(fastperf.check(as_table(more))).items()
               if k in GROUPS}, want)


def test_null_and_nan_are_dropped_alike(result):
    with_nulls = fastperf.check(as_table(GROUPS, nulls_for_nan=True))
    assert_identical_tables(with_nulls.groups, result.groups)


def test_statuses_of_empty_and_short_groups(result):
    rows = rows_by_key(result)
    empty = rows[("empty", "old")]
    assert (empty["n"], empty["n_dropped"], empty["units"]) == (0, 4, 0)
    assert empty["status"].startswith("no values")
    assert rows[("gaps", "old")]["n_dropped"] == 3
    assert rows[("short", "old")]["status"] != "ok"  # too short for the trend and dip tests
    assert result.summary["rows_not_ok"] == sum(r["status"] != "ok" for r in rows.values())
    assert result.summary["dropped"] == 3 + 4
    assert any("null/NaN" in w or "dropped" in w for w in result.warnings)


@pytest.mark.parametrize("seed", [0, 1])
def test_group_complete_parts_give_the_in_memory_result(seed):
    table, _ = fastperf.simulate(benchmarks=12, processes=6, iterations=5, seed=seed,
                                 variants=3)
    options = check_options(by=None, variant="variant", value="value", unit="unit",
                            levels=None, block=None, **vars(Thresholds()))
    plan = check_plan(table, options)
    want = fastperf.check(table)
    got = run_in_parts(table, plan, check_stage, check_finish, n_parts=4, seed=seed)
    assert_identical_results(got, want)


def test_a_lazy_dataset_in_chunks_gives_the_in_memory_result(tmp_path):
    table, _ = fastperf.simulate(benchmarks=40, runs=20, seed=4)
    dataset, whole = lazy_pair(table, tmp_path, memory_limit=20_000)
    got = fastperf.check(dataset)
    want = fastperf.check(whole)
    assert_identical_results(got, want)
    assert got.runs is None and want.runs is not None  # the runs are kept in memory only


def test_a_table_without_variants_gives_a_row_per_benchmark():
    table = as_table({k: v for k, v in GROUPS.items() if k[1] == "old"}).drop_columns(["variant"])
    result = fastperf.check(table)
    assert result.groups.column_names[0] == "benchmark"
    assert "variant" not in result.groups.column_names
    assert result.groups.column("benchmark").to_pylist() == [k[0] for k in GROUPS
                                                             if k[1] == "old"]
    with_variant = rows_by_key(fastperf.check(as_table(GROUPS)))
    for row in result.groups.to_pylist():
        key = (row["benchmark"], "old")
        np.testing.assert_equal(row["cv"], with_variant[key]["cv"])  # NaN equals NaN
        want = oracle_row(GROUPS[key])["cv"] if key != ("empty", "old") else math.nan
        assert row["cv"] == pytest.approx(want, rel=1e-9, nan_ok=True), key
    assert fastperf.check(TABLE, variant=None).groups.num_rows == len({k[0] for k in GROUPS})


def test_the_unit_splits_groups_and_by_names_the_benchmark():
    table = fastperf.read(["examples/old.txt", "examples/new.txt"])
    result = fastperf.check(table)
    counted = {(r["benchmark"], r["variant"], r["unit"]) for r in table.select(
        ["benchmark", "variant", "unit"]).to_pylist()}
    assert result.groups.num_rows == len(counted)
    assert result.summary["keys"] == ["benchmark", "goos", "goarch", "pkg", "unit"]
    assert result.groups.column_names[:6] == [*result.summary["keys"][:-1], "variant", "unit"]
    by = fastperf.check(table, by="benchmark")
    assert by.groups.column_names[:3] == ["benchmark", "variant", "unit"]
    assert by.groups.num_rows == len(counted)


@pytest.mark.parametrize("kwargs, match", [
    ({"warmup_alpha": 1.5}, "warmup_alpha"),
    ({"bimodal_alpha": "0.01"}, "bimodal_alpha"),
    ({"drift_alpha": 0.0}, "drift_alpha"),
    ({"noisy_cv": 0.0}, "noisy_cv"),
    ({"noisy_cv": math.nan}, "noisy_cv"),
    ({"resolution": -1.0}, "resolution"),
    ({"min_units": 0}, "min_units"),
    ({"min_units": True}, "min_units"),
    ({"min_units": 2.5}, "min_units"),
    ({"by": "nope"}, "nope"),
    ({"variant": "nope"}, "nope"),
    ({"value": 3}, "value"),
    ({"levels": "nope"}, "nope"),
])
def test_bad_options_are_refused_naming_them(kwargs, match):
    with pytest.raises(InputError, match=match):
        fastperf.check(TABLE, **kwargs)


def test_bad_tables_are_refused():
    with pytest.raises(InputError, match="empty"):
        fastperf.check(TABLE.slice(0, 0))
    with pytest.raises(InputError, match="flags"):
        fastperf.check(TABLE.append_column("flags", pa.array(["x"] * TABLE.num_rows)),
                       by=["benchmark", "flags"])
    with pytest.raises(InputError, match="'cv'"):  # a statistic's column
        fastperf.check(TABLE.append_column("cv", pa.array(["x"] * TABLE.num_rows)),
                       by=["benchmark", "cv"])
    infinite = as_table({("a", "x"): np.array([1.0, 2.0, math.inf]), ("b", "x"): np.ones(3)})
    with pytest.raises(InputError, match="infinite.*'a'"):
        fastperf.check(infinite)


def test_thresholds_reach_the_flags():
    noisy = rows_by_key(fastperf.check(TABLE, noisy_cv=0.9))[("noisy", "old")]
    assert "noisy" not in noisy["flags"]
    short = rows_by_key(fastperf.check(TABLE, min_units=2))[("short", "old")]
    assert "few runs" not in short["flags"]
    assert fastperf.check(TABLE, min_units=2).summary["thresholds"]["min_units"] == 2


def test_flagged_and_the_text_listing(result):
    flagged = result.flagged()
    assert flagged.column("flags").to_pylist() == [f for f in result.groups.column(
        "flags").to_pylist() if f]
    text = result.to_text()
    rows = rows_by_key(result)
    for key, row in rows.items():
        name = f"{key[0]} ({key[1]})"
        assert (f"{name}: " in text) == bool(row["flags"]), name
        for line in (row["advice"].split("; ") if row["advice"] else []):
            assert f"  - {line}" in text
    counts = result.summary["flags"]
    footer = (f"{len(flagged)} of {len(rows)} groups flagged: "
              + ", ".join(f"{f} {counts[f]}" for f in FLAGS if counts[f]))
    assert footer in text


def test_markdown_json_and_html(result):
    markdown = result.to_markdown()
    assert markdown.startswith("| group |")
    assert markdown.count("\n| ") == result.summary["flagged"]  # a line per flagged row
    doc = json.loads(result.to_json())
    assert doc["schema"] == "fastperf.check/1"
    assert len(doc["groups"]) == result.groups.num_rows
    page = result.to_html()
    assert page.startswith("<!DOCTYPE html>") or page.lstrip().startswith("<!doctype html>")
    clean = fastperf.check(as_table({("steady", "old"): GROUPS[("steady", "old")]}))
    assert clean.to_text().startswith("no group flagged")


def test_the_runs_kept_for_the_report(result):
    runs = result.runs
    assert runs.plots == ("strip",) and runs.candidate_name == ""
    order = [(r["benchmark"], r["variant"]) for r in result.groups.to_pylist()]
    assert len(runs.baseline.offsets) == len(order) + 1
    assert runs.candidate.values.size == 0 and (runs.candidate.offsets == 0).all()
    traces = runs.traces
    for i, key in enumerate(order):
        values = GROUPS[key][~np.isnan(GROUPS[key])]
        a, b = runs.baseline.offsets[i], runs.baseline.offsets[i + 1]
        np.testing.assert_array_equal(runs.baseline.values[a:b], np.sort(values))
        a, b = traces.baseline.offsets[i], traces.baseline.offsets[i + 1]
        np.testing.assert_array_equal(traces.baseline.values[a:b], values)
    assert traces.warmup_candidate.tolist() == [0] * len(order)


def table_of_groups(values: np.ndarray, names: list[str]) -> pa.Table:
    """One benchmark per row of `values` (named by `names`), one variant, its values in order."""
    groups, runs = values.shape
    return pa.table({"benchmark": pa.array(names).take(np.repeat(np.arange(groups), runs)),
                     "variant": ["x"] * (groups * runs), "value": values.ravel()})


@pytest.mark.parametrize("median_ticks, runs", [(200, 60), (50, 30)])
def test_the_dip_test_on_values_tied_by_a_timer_tick(median_ticks, runs):
    """2,000 groups of unimodal log-normal runs (log-sd 1 %) rounded to a 1 ns timer tick, their
    median 200 or 50 ticks: heavily tied, yet one mode; ``bimodal`` in at most 5 % of them."""
    rng = np.random.default_rng(median_ticks)
    ticks = np.round(median_ticks * np.exp(rng.normal(0.0, 0.01, (2000, runs))))
    assert all(np.unique(row).size < runs for row in ticks)  # every group has ties
    result = fastperf.check(table_of_groups(ticks * 1e-9, [f"b{i}" for i in range(2000)]))
    flags = result.groups.column("flags").to_pylist()
    assert len(flags) == 2000
    bimodal = np.mean(["bimodal" in f.split(", ") for f in flags])
    assert bimodal <= 0.05, bimodal


def small_clean_groups(sigma: float, n: int, seed: int) -> pa.Table:
    """2,000 groups of n untied log-normal values at log-sd `sigma`."""
    values = 1e-3 * np.exp(np.random.default_rng(seed).normal(0.0, sigma, (2000, n)))
    assert all(np.unique(row).size == n for row in values)  # no ties
    return table_of_groups(values, [f"b{i}" for i in range(2000)])


@pytest.mark.parametrize("sigma", [0.03, 0.05])
def test_small_clean_groups_raise_neither_resolution_nor_outliers(sigma):
    """2,000 clean log-normal groups (log-sd 3 % and 5 %) of 4, 5, 8, 10 and 12 untied values:
    ``resolution`` and ``outliers`` each in at most 5 % of them; below `MIN_FENCE_VALUES` no
    fences, the counts 0."""
    for n in (4, 5, 8, 10, 12):
        rows = fastperf.check(small_clean_groups(sigma, n, seed=n)).groups.to_pylist()
        flags = [r["flags"].split(", ") for r in rows]
        for flag in ("resolution", "outliers"):
            rate = np.mean([flag in f for f in flags])
            assert rate <= 0.05, (n, flag, rate)
        small = n < MIN_FENCE_VALUES
        mild = [r["outliers_mild"] for r in rows if small]
        severe = [r["outliers_severe"] for r in rows if small]
        assert mild == severe == [0] * (2000 if small else 0), n


def test_a_group_too_small_for_fences_counts_no_outlier():
    """Below MIN_FENCE_VALUES steady values no value is classified (counts 0, no flag, and no
    status reason: 0 is a count, not a missing statistic); a far value in a group of that size
    is a severe outlier."""
    for n in (4, MIN_FENCE_VALUES - 1):
        rows = fastperf.check(small_clean_groups(0.03, n, seed=n)).groups.to_pylist()
        assert all(r["outliers_mild"] == 0 and r["outliers_severe"] == 0 for r in rows), n
        assert not any("outliers" in r["flags"] for r in rows), n
        assert not any("outlier fences" in r["status"] for r in rows), n
    far = np.append(np.exp(0.01 * stats.norm.ppf((np.arange(MIN_FENCE_VALUES - 1) + 0.5)
                                                  / (MIN_FENCE_VALUES - 1))), 2.0)
    row = fastperf.check(as_table({("far", "x"): far})).groups.to_pylist()[0]
    assert row["outliers_severe"] == 1 and "outliers" in row["flags"]


def test_linear_groups_with_mean_or_median_zero_say_why_a_share_is_missing():
    """[1, -1, -1, 1] (mean and median 0) and [0, -1, 0, 0] (median 0, mean -1/4): no NaN or
    inf with status "ok"; the reasons named; neither ``noisy`` nor ``resolution`` from a share
    that is not defined (the second's cv, 0.5 / 0.25 = 2, is defined: ``noisy``)."""
    groups = {("zero mean", "x"): np.array([1.0, -1.0, -1.0, 1.0]),
              ("zero median", "x"): np.array([0.0, -1.0, 0.0, 0.0]),
              ("steady", "x"): GROUPS[("steady", "old")]}
    rows = rows_by_key(fastperf.check(as_table(groups)))
    zero_mean, zero_median = rows[("zero mean", "x")], rows[("zero median", "x")]
    for row in (zero_mean, zero_median):
        assert row["status"] != "ok"
        assert "median 0: no quantum share" in row["status"]
        assert math.isnan(row["quantum_share"])
        assert "resolution" not in row["flags"]
    assert "mean 0: no cv" in zero_mean["status"] and math.isnan(zero_mean["cv"])
    assert "mean 0: no relative drift" in zero_mean["status"]
    assert math.isnan(zero_mean["drift_per_10"])
    assert zero_mean["flags"] == "few runs"
    assert zero_median["cv"] == pytest.approx(np.std([0, -1, 0, 0], ddof=1) / 0.25, rel=1e-12)
    assert zero_median["flags"] == "noisy, few runs"
    assert "steady mean 0: no relative warm-up change" in zero_median["status"]
    assert zero_median["warmup_iterations"] == 2  # MSER: [0, 0] after [0, -1] (by hand)
    assert math.isnan(zero_median["warmup_change"])
    for row in (zero_mean, zero_median):  # NaN where undefined, never inf
        assert not any(math.isinf(v) for v in row.values() if isinstance(v, float)), row
    steady = rows[("steady", "x")]
    assert steady["status"] == "ok"
    assert all(math.isfinite(v) for v in steady.values() if isinstance(v, float)), steady


# ------------------------------------------------------------------- summary-only result files


def summaries(n, mean, sd) -> pa.Table:
    """A summary table (`fastperf.io.summaries.summary_table`, as summary-only readers give)."""
    return summary_table([f"b{i}" for i in range(len(mean))], unit="ns",
                         statistics={"n": n, "mean": mean, "sd": sd}, variant=["v"] * len(mean))


def test_a_summary_table_is_checked_for_noise_and_few_runs():
    """cv = sd / |mean| (numpy by hand), ``noisy`` above 10 %, ``few runs`` below 5, a row per
    summary row, the other statistics missing with the status saying why."""
    n, mean, sd = [10, 3, None, 20], [100.0, 50.0, 10.0, 0.0], [5.0, 10.0, 3.0, 1.0]
    result = fastperf.check(summaries(n, mean, sd))
    rows = result.groups.to_pylist()
    assert len(rows) == 4 and result.summary["structure"] == "summaries"
    want_cv = [5 / 100, 10 / 50, 3 / 10, math.nan]
    for row, cv in zip(rows, want_cv):
        assert (math.isnan(row["cv"]) and math.isnan(cv)) or row["cv"] == pytest.approx(cv)
    assert [r["flags"] for r in rows] == ["", "noisy, few runs", "noisy", ""]
    assert [r["n"] for r in rows] == [10, 3, None, 20]
    assert all(r["status"].startswith("summary statistics only") for r in rows)
    assert "n not given" in rows[2]["status"] and "no cv" in rows[3]["status"]
    assert all(r["dip"] is None or math.isnan(r["dip"]) for r in rows)
    assert result.summary["flags"]["noisy"] == 2 and result.summary["flagged"] == 2
    assert "3 runs: take at least 5" in rows[1]["advice"]


def test_values_are_read_in_the_order_of_their_iteration_or_run_column():
    """Rows shuffled (a query result without ORDER BY): with an ``iteration`` column and
    numbered processes (levels) or a ``run`` column (flat), every group's diagnostics equal
    those of the table in order, the warm-up and the drift over the processes included; the
    oracle is the ordered table itself."""
    nested = fastperf.simulate(5, processes=6, iterations=20, icc=0.3, seed=9, sigma=0.02,
                               shapes="lognormal").table
    flat = fastperf.simulate(5, 40, seed=9, sigma=0.02, shapes="lognormal").table
    for table, position in ((nested, "iteration"), (flat, "run")):
        values = table.column("value").to_numpy().copy()
        values[table.column(position).to_numpy() < 10] *= 1.25  # a transient
        table = table.set_column(table.column_names.index("value"), "value", pa.array(values))
        shuffled = table.take(pa.array(np.random.default_rng(2).permutation(table.num_rows)))
        def by_group(result):
            rows = result.groups.to_pylist()
            return sorted(rows, key=lambda r: (r["benchmark"], r["variant"]))

        want, got = by_group(fastperf.check(table)), by_group(fastperf.check(shuffled))
        assert json.dumps(got, default=str) == json.dumps(want, default=str), position
        assert all("warmup" in row["flags"] for row in want), position
