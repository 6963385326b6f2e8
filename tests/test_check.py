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

import numpy as np
import pyarrow as pa
import pytest
from scipy.stats import kendalltau

import fastperf
from fastperf.engine.diagnostics import FLAGS, Thresholds
from fastperf.errors import InputError
from fastperf.protocols.check import (CHECK_COLUMNS, check_finish, check_options, check_plan,
                                      check_stage)
from scale_checks import assert_identical_results, assert_identical_tables, lazy_pair, \
    run_in_parts

#: The thresholds' defaults, written here from docs/check.md (not read from the code).
NOISY_CV, RESOLUTION, MIN_UNITS = 0.10, 0.01, 5


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


def oracle_row(values: np.ndarray) -> dict:
    """The statistics of one group of independent runs (no warm-up), by numpy and scipy."""
    kept = values[~np.isnan(values)]
    n = kept.size
    out = {"n": n, "n_dropped": int(np.isnan(values).sum()), "units": n}
    if n == 0:
        return out
    distinct = np.unique(kept)
    logs = np.log(kept)
    q1, q3 = np.percentile(logs, [25, 75])
    iqr = q3 - q1
    beyond = lambda k: (logs < q1 - k * iqr) | (logs > q3 + k * iqr)  # noqa: E731
    out["outliers_severe"] = int(beyond(3.0).sum()) if iqr > 0 else 0
    out["outliers_mild"] = int((beyond(1.5) & ~beyond(3.0)).sum()) if iqr > 0 else 0
    out["quantum"] = float(np.diff(distinct).min()) if distinct.size > 1 else math.nan
    out["tied_share"] = 1.0 - distinct.size / n
    if n >= 2:
        out["cv"] = float(np.std(kept, ddof=1) / np.mean(kept))
    if n >= 3 and distinct.size == n:
        out["drift_statistic"] = mann_kendall_s(kept)
    quantum_share = out["quantum"] / abs(float(np.median(kept)))
    out["expected_flags"] = {
        "outliers": out["outliers_severe"] > 0,
        "resolution": quantum_share > RESOLUTION or distinct.size == 1,
        "noisy": out.get("cv", 0.0) > NOISY_CV,
        "few runs": n < MIN_UNITS,
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
    for key, values in GROUPS.items():
        want, row = oracle_row(values), got[key]
        assert row["n"] == want["n"] and row["n_dropped"] == want["n_dropped"], key
        assert row["units"] == want["units"], key
        if want["n"] == 0:
            continue
        if "warmup" in row["flags"]:  # found in the drifting group: the rest read the steady runs
            assert key == ("drifting", "old"), f"{key}: a warm-up was found in i.i.d. runs"
            want = oracle_row(values[row["warmup_iterations"]:])
        assert row["n_steady"] == want["n"], key
        for name in ("outliers_mild", "outliers_severe"):
            assert row[name] == want[name], (key, name)
        for name in ("cv", "quantum", "tied_share", "drift_statistic"):
            if name in want:
                assert row[name] == pytest.approx(want[name], rel=1e-9, nan_ok=True), \
                    (key, name)
        flags = row["flags"].split(", ") if row["flags"] else []
        for flag, expected in want["expected_flags"].items():
            assert (flag in flags) == expected, (key, flag, row["flags"])
        assert flags == [f for f in FLAGS if f in flags], "flags out of FLAGS order"
        assert len(row["advice"].split("; ")) == len(flags) if flags else row["advice"] == ""


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
        assert row["cv"] == with_variant[(row["benchmark"], "old")]["cv"] or math.isnan(row["cv"])
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
