"""Arguments of the table-level functions: a non-string candidate, an empty ``by``, no benchmark
column, optional columns given twice, and numeric arguments of the wrong type or range, each
refused with an `InputError` naming the argument or computed as documented.

Oracles: numpy/scipy computed independently on the same values.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats as sps

import fastperf
from fastperf.errors import InputError


def _two_variants(x, y, **extra):
    """A measurement table: baseline values `x` (variant 'x'), candidate values `y` ('y')."""
    columns = {"variant": ["x"] * len(x) + ["y"] * len(y),
               "value": pa.array(list(x) + list(y), pa.float64())}
    columns.update({k: v * (len(x) + len(y)) for k, v in extra.items()})
    return pa.table(columns)


X = [10.0, 11.0, 12.0, 10.5, 11.5, 12.5, 10.2, 11.2]
Y = [15.0, 16.0, 17.0, 15.5, 16.5, 17.5, 15.2, 16.2]


# ---------------------------------------------------------------------------- 1. compare


def test_compare_all_null_side_is_a_row_not_an_index_error():
    table = _two_variants([None, None, None], [1.0, 2.0, 3.0], benchmark=["a"], unit=["ns"])
    row = fastperf.compare(table, baseline="x", candidate="y").benchmarks.to_pylist()[0]
    assert (row["n_baseline"], row["n_candidate"], row["n_dropped_baseline"]) == (0, 3, 3)
    assert row["status"] == "no baseline runs" and row["verdict"] == "too few runs"
    assert math.isnan(row["median_baseline"]) and row["median_candidate"] == np.median([1, 2, 3])


def test_compare_by_empty_list_without_unit_is_one_benchmark():
    res = fastperf.compare(_two_variants(X, Y), baseline="x", candidate="y", by=[])
    rows = res.benchmarks.to_pylist()
    assert len(rows) == 1
    assert rows[0]["median_baseline"] == np.median(X)
    assert rows[0]["median_candidate"] == np.median(Y)
    assert rows[0]["pvalue"] == pytest.approx(sps.mannwhitneyu(Y, X).pvalue, rel=1e-12)
    several = fastperf.compare(_two_variants(X, Y), baseline="x", candidate=["y"], by=[])
    assert several.benchmarks.column("candidate").to_pylist() == ["y"]


def test_compare_without_benchmark_column_is_one_group():
    res = fastperf.compare(_two_variants(X, Y), baseline="x", candidate="y")
    assert res.summary["keys"] == []
    row = res.benchmarks.to_pylist()[0]
    assert res.benchmarks.num_rows == 1 and row["median_candidate"] == np.median(Y)


def test_compare_sparc_hpt_accept_a_non_string_candidate():
    table = pa.table({"benchmark": ["a"] * 16, "variant": [1] * 8 + [2] * 8,
                      "value": X + Y})
    row = fastperf.compare(table, baseline=1, candidate=2).benchmarks.to_pylist()[0]
    assert row["median_baseline"] == np.median(X) and row["median_candidate"] == np.median(Y)
    srow = fastperf.sparc(table, baseline=1, candidate=2, pair=None).benchmarks.to_pylist()[0]
    assert srow["median_candidate"] == pytest.approx(np.median(Y))
    several = fastperf.sparc(table, baseline=1, candidate=[2], pair=None)
    assert several.benchmarks.column("candidate").to_pylist() == [2]
    hrow = fastperf.hpt(table, baseline=1, candidate=2).benchmarks.to_pylist()[0]
    assert hrow["median_candidate"] == pytest.approx(np.median(Y))
    with pytest.raises(InputError, match="one candidate"):
        fastperf.hpt(table, baseline=1, candidate=[2])


@pytest.mark.parametrize("call", [
    lambda t: fastperf.compare(t, baseline="x", candidate="y", value=5),
    lambda t: fastperf.aggregate_score(t, by=None, value=5),
    lambda t: fastperf.factorial(t, factors=["variant"], value=5),
])
def test_value_not_a_string_names_the_argument(call):
    with pytest.raises(InputError, match=r"value must be a column name .*got 5"):
        call(_two_variants(X, Y))


# ---------------------------------------------------------------- 2. optional columns


def _duplicated(name):
    """X/Y with two columns called `name` (an ambiguous optional column)."""
    base = _two_variants(X, Y, benchmark=["a"])
    n = base.num_rows
    return base.append_column(name, pa.array(["ns"] * n)).append_column(name, pa.array(["s"] * n))


@pytest.mark.parametrize("name, call", [
    ("unit", lambda t: fastperf.describe(t)),
    ("unit", lambda t: fastperf.compare(t, baseline="x", candidate="y")),
    ("unit", lambda t: fastperf.aggregate_score(t)),
    ("run", lambda t: fastperf.aggregate_score(t, unit=None)),
    ("unit", lambda t: fastperf.plan_runs(t)),
])
def test_a_repeated_optional_column_is_refused(name, call):
    with pytest.raises(InputError, match=repr(name)):
        call(_duplicated(name))


def test_describe_variant_not_a_string_names_the_argument():
    with pytest.raises(InputError, match=r"variant must be a column name .*got 5"):
        fastperf.describe(_two_variants(X, Y), by=None, variant=5)


# ------------------------------------------------------------- 3. numeric arguments


@pytest.mark.parametrize("bad", ["0.05", True, 0, 1.5, float("nan")])
def test_speedup_precision_is_a_real_in_0_1(bad):
    with pytest.raises(InputError, match="precision"):
        fastperf.speedup_test(_two_variants(X, Y, benchmark=["a"]), baseline="x",
                              candidate="y", precision=bad)


@pytest.mark.parametrize("bad", ["5", True, 0.5, 1001, float("inf")])
def test_hpt_max_speedup_is_a_real_in_1_1000(bad):
    with pytest.raises(InputError, match="max_speedup"):
        fastperf.hpt(_two_variants(X, Y, benchmark=["a"]), baseline="x", candidate="y",
                     max_speedup=bad)


@pytest.mark.parametrize("bad", ["0", 1.0, True, None])
def test_multipletests_axis_is_an_integer(bad):
    with pytest.raises(InputError, match="axis"):
        fastperf.multipletests(np.array([[0.01, 0.2], [0.03, 0.04]]), axis=bad)


@pytest.mark.parametrize("bad", ["0.95", True])
def test_compare_threshold_and_plan_precision_refuse_strings_and_bools(bad):
    table = _two_variants(X, Y, benchmark=["a"])
    with pytest.raises(InputError, match="threshold"):
        fastperf.compare(table, baseline="x", candidate="y", threshold=bad)
    with pytest.raises(InputError, match="precision"):
        fastperf.plan_runs(table, precision=bad)


@pytest.mark.parametrize("test", [
    lambda c: fastperf.mannwhitneyu(X, Y, confidence=c),
    lambda c: fastperf.wilcoxon(X, Y, confidence=c),
    lambda c: fastperf.ttest_ind(X, Y, confidence=c),
    lambda c: fastperf.ttest_rel(X, Y, confidence=c),
])
@pytest.mark.parametrize("bad", [1.5, "0.95", True])
def test_array_forms_check_confidence(test, bad):
    with pytest.raises(InputError, match="confidence"):
        test(bad)
