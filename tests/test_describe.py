"""`describe` against a slow per-group reference built on numpy and scipy (tests/naive.py)."""
import json
import math

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError
from naive import describe_reference, median_ci


def random_table(rng, n_bench=40, nan_fraction=0.05):
    sizes = rng.integers(0, 25, size=(n_bench, 2))
    bench, var, val = [], [], []
    for b in range(n_bench):
        for v, name in enumerate(["base", "cand"]):
            k = sizes[b, v] + (1 if b % 7 else 0)
            x = rng.lognormal(np.log(1 + b), 0.1, k)
            x = np.round(x, 2 if b % 3 == 0 else 9)  # ties in some groups
            bench += [f"b{b}"] * k
            var += [name] * k
            val += [None if rng.random() < nan_fraction else float(t) for t in x]
    perm = rng.permutation(len(val))  # rows in random order: the grouper must sort them
    return pa.table({
        "benchmark": [bench[i] for i in perm], "variant": [var[i] for i in perm],
        "value": pa.array([val[i] for i in perm], pa.float64()),
    })


def check_against_reference(result, table, keys, confidence):
    expected = describe_reference(table, keys, confidence)
    got = result.groups.to_pylist()
    assert len(got) == len(expected)  # every input group has a row
    for row in got:
        ref = expected[tuple(row[k] for k in keys)]
        for col in ["n", "n_dropped"]:
            assert row[col] == ref[col]
        for col in ["mean", "sd", "min", "median", "max", "cv", "ci_mean_low", "ci_mean_high",
                    "ci_median_low", "ci_median_high", "ci_median_confidence"]:
            if col in ref:
                assert row[col] == pytest.approx(ref[col], rel=1e-12, abs=1e-300), (row, col)
            else:
                assert np.isnan(row[col]), (row, col)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_describe_matches_reference(confidence):
    table = random_table(np.random.default_rng(7))
    result = fastperf.describe(table, confidence=confidence)
    check_against_reference(result, table, ["benchmark", "variant"], confidence)


def test_parallel_build_agrees(parallel_always):
    table = random_table(np.random.default_rng(8))
    check_against_reference(fastperf.describe(table), table, ["benchmark", "variant"], 0.95)


def test_status_and_dropped_counts():
    t = pa.table({
        "benchmark": ["a"] * 3 + ["b"] + ["c"] * 5 + ["d"] * 6,
        "variant": ["x"] * 15,
        "value": pa.array([None, float("nan"), None, 1.0] + [1.0, 2, 3, 4, 5] + [1.0] * 6),
    })
    r = fastperf.describe(t)
    status = dict(zip(r.groups.column("benchmark").to_pylist(), r.groups.column("status").to_pylist()))
    assert status["a"].startswith("no values")
    assert status["b"].startswith("1 value")
    assert "median interval" in status["c"]
    # a constant sample: sd 0 and no Student interval (a zero-width one is no confidence
    # interval); its order-statistic median interval is [c, c] (every order statistic is c), at
    # the coverage of [x_(1), x_(6)] by definition: 1 - 2 P(Bin(6, 1/2) = 0) = 1 - 2 / 2**6
    assert status["d"] == "constant sample: every value equal, no mean interval"
    d = r.groups.filter(pa.compute.equal(r.groups.column("benchmark"), "d")).to_pylist()[0]
    assert d["sd"] == 0 and d["mean"] == d["median"] == d["min"] == d["max"] == 1.0
    for column in ("ci_mean_low", "ci_mean_high"):
        assert math.isnan(d[column]), column
    assert d["ci_median_low"] == d["ci_median_high"] == 1.0
    assert d["ci_median_confidence"] == 1 - 2 / 2**6
    assert r.groups.column("n_dropped").to_pylist() == [3, 0, 0, 0]
    assert r.summary["dropped"] == 3 and r.summary["rows"] == 4
    assert any("dropped" in w for w in r.warnings)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_constant_sample_median_interval_is_the_order_statistic_one(confidence):
    """A constant sample c: every order statistic is c, so the order-statistic interval of the
    median is [c, c] at the binomial coverage of its ranks (R's order-statistic interval gives
    it too); the oracle is `naive.median_ci`, the binomial ranks applied to the sorted sample,
    and None (no interval) below the fewest values that reach `confidence`."""
    sizes = list(range(2, 41))
    t = pa.table({"benchmark": [f"b{n}" for n in sizes for _ in range(n)],
                  "variant": ["x"] * sum(sizes),
                  "value": [2.5] * sum(sizes)})
    rows = fastperf.describe(t, confidence=confidence).groups.to_pylist()
    for n, row in zip(sizes, rows):
        want = median_ci(np.full(n, 2.5), confidence)
        assert math.isnan(row["ci_mean_low"]) and math.isnan(row["ci_mean_high"])
        assert row["status"].startswith("constant sample: every value equal, no mean interval")
        if want is None:
            assert math.isnan(row["ci_median_low"]) and math.isnan(row["ci_median_high"])
            assert "median interval" in row["status"].split("; ")[1]
        else:
            assert (row["ci_median_low"], row["ci_median_high"]) == (2.5, 2.5) == want[:2]
            assert row["ci_median_confidence"] == pytest.approx(want[2], rel=1e-12)
            assert row["ci_median_confidence"] >= confidence


def test_unit_splits_groups_and_by_variants():
    t = pa.table({
        "benchmark": ["a"] * 4, "variant": ["x"] * 4, "unit": ["s", "B", "s", "B"],
        "value": [1.0, 100.0, 2.0, 200.0],
    })
    r = fastperf.describe(t)
    assert r.groups.column_names[:3] == ["benchmark", "variant", "unit"]
    assert r.groups.column("mean").to_pylist() == [1.5, 150.0]
    assert fastperf.describe(t, unit=None).groups.num_rows == 1
    by_none = fastperf.describe(t, by=None, unit=None)
    assert by_none.groups.column_names[0] == "variant" and by_none.groups.num_rows == 1


def test_several_by_columns_and_no_variant():
    rng = np.random.default_rng(3)
    t = pa.table({"suite": rng.choice(["s1", "s2"], 300), "case": rng.choice(["c1", "c2", "c3"], 300),
                  "value": rng.normal(5, 1, 300)})
    r = fastperf.describe(t, by=["suite", "case"], variant=None)
    check_against_reference(r, t, ["suite", "case"], 0.95)


def test_in_memory_sources():
    import polars as pl
    import duckdb
    table = random_table(np.random.default_rng(11), n_bench=5, nan_fraction=0)
    expected = fastperf.describe(table).groups
    for source in (pl.from_arrow(table), table.to_pandas(), duckdb.from_arrow(table),
                   table.to_reader()):
        got = fastperf.describe(source).groups
        assert got.column("mean").to_pylist() == expected.column("mean").to_pylist()


def test_integer_values_are_converted():
    t = pa.table({"benchmark": ["a", "a", "a"], "variant": ["x"] * 3, "value": pa.array([1, 2, 4], pa.int32())})
    assert fastperf.describe(t).groups.column("mean").to_pylist() == [7 / 3]


@pytest.mark.parametrize("kwargs, pattern", [
    ({"value": "time"}, r"'time' not found.*\['benchmark', 'variant', 'value'\]"),
    ({"by": "bench"}, r"'bench' not found"),
    ({"variant": "system"}, r"'system' not found.*variant=None"),
])
def test_unknown_columns(kwargs, pattern):
    t = pa.table({"benchmark": ["a"], "variant": ["x"], "value": [1.0]})
    with pytest.raises(InputError, match=pattern):
        fastperf.describe(t, **kwargs)


def test_bad_values():
    t = pa.table({"benchmark": ["a", "b"], "variant": ["x", "x"], "value": ["1", "2"]})
    with pytest.raises(InputError, match="not a number"):
        fastperf.describe(t)
    t = pa.table({"benchmark": ["a", "b", "b"], "variant": ["x"] * 3, "value": [1.0, 2.0, -np.inf]})
    with pytest.raises(InputError, match=r"infinite.*benchmark='b', variant='x'"):
        fastperf.describe(t)
    with pytest.raises(InputError, match="empty"):
        fastperf.describe(t.slice(0, 0))
    with pytest.raises(InputError, match="confidence"):
        fastperf.describe(t.slice(0, 1), confidence=95)
    with pytest.raises(InputError, match="cannot read a int"):
        fastperf.describe(42)


def test_renderings():
    t = random_table(np.random.default_rng(5), n_bench=3, nan_fraction=0.2)
    r = fastperf.describe(t)
    doc = json.loads(r.to_json())
    assert doc["summary"]["rows"] == r.groups.num_rows == len(doc["groups"])
    assert doc["groups"][0]["benchmark"] == r.groups.column("benchmark")[0].as_py()
    md = r.to_markdown().splitlines()
    assert md[0].startswith("| benchmark | variant | n |") and md[1].startswith("|:---|:---|---:|")
    assert len(md) >= 2 + r.groups.num_rows
    text = r.to_text().splitlines()
    assert text[0].split()[:3] == ["benchmark", "variant", "n"]


def test_components_of_units_of_one_value_and_of_one_unit():
    """Units of one value each (hyperfine: every run a process): the design effect is 1 exactly
    (Kish 1965: 1 + (sum n_i^2 / N - 1) icc, and sum n_i^2 = N), so n_effective = n; the ICC
    and the variances between and within cannot be told apart and are null, not NaN beside
    status "ok". One unit of several values: no component can be estimated, all null."""
    values = [1.0, 1.2, 0.9, 1.1, 1.3, 1.05, 0.95, 1.15]
    table = pa.table({"benchmark": ["a"] * 8 + ["b"] * 8, "variant": ["x"] * 16,
                      "value": values * 2,
                      "process": list(range(8)) + [0] * 8})
    rows = fastperf.describe(table, unit=None, levels=["process"]).table.to_pylist()
    single, one_unit = rows
    assert single["n_units"] == 8 and single["design_effect"] == 1.0
    assert single["n_effective"] == 8.0 and single["status"] == "ok"
    assert single["icc"] is None and single["sigma2_between"] is None
    assert one_unit["n_units"] == 1
    for name in ("icc", "design_effect", "n_effective", "sigma2_between"):
        assert one_unit[name] is None, name
    # within one unit the variance of its (log) values is still there
    assert one_unit["sigma2_within"] == pytest.approx(np.var(np.log(values), ddof=1), rel=1e-12)
    # compare's figures of the same units: n_effective = n, the ICC null
    two = pa.table({"benchmark": ["a"] * 16, "variant": ["x"] * 8 + ["y"] * 8,
                    "value": values * 2, "process": list(range(8)) * 2})
    row = fastperf.compare(two, baseline="x", candidate="y", unit=None,
                           levels=["process"]).table.to_pylist()[0]
    assert row["n_effective_baseline"] == row["n_effective_candidate"] == 8.0
    assert row["icc_baseline"] is None and row["icc_candidate"] is None
