"""Hostile Arrow tables and argument types through every table-level function.

Every reproducer of the input classes duplicate column names, large integers and other value
types, no key column with ``by=None``, and unclear messages is a regression test here; a
hypothesis battery then builds hostile Arrow tables (every key type, every value type, duplicate
names, empty and one-row tables, null/NaN patterns) and runs every table-level public function on
them, asserting the contract: a result with one row per group and no NaN where the status is
"ok", or an `InputError` whose message names the offending column or argument.

Oracles: exact Python arithmetic (integers, `fractions`), numpy/scipy on the same values, and a
brute-force count of the distinct keys in Python.
"""
import datetime
import decimal
import math
from fractions import Fraction
from statistics import mean as exact_mean

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import scipy.stats
from hypothesis import HealthCheck, given, settings, strategies as st

import fastperf as f
from fastperf import InputError
from fastperf.data.grouping import group_rows
from fastperf.io.read import is_measurement_table
from fastperf.io.tables import as_table, key_list


# --------------------------------------------------------------------------- the functions

BC = {"baseline": "b", "candidate": "c"}


def table_calls(by="benchmark", value="value"):
    """Every table-level public function, called on a (benchmark, variant, run, value) table
    with variants "b" and "c"; name -> (call, how its rows are keyed)."""
    kw = {"by": by, "value": value}
    return {
        "describe": (lambda t: f.describe(t, **kw), "group"),
        "shapiro": (lambda t: f.shapiro(t, **kw), "group"),
        "plan_runs": (lambda t: f.plan_runs(t, **kw), "group"),
        "aggregate_score": (lambda t: f.aggregate_score(t, **kw), "variant"),
        "compare": (lambda t: f.compare(t, **BC, **kw), "benchmark"),
        "speedup_test": (lambda t: f.speedup_test(t, **BC, **kw), "benchmark"),
        "sparc": (lambda t: f.sparc(t, **BC, **kw), "benchmark"),
        "hpt": (lambda t: f.hpt(t, **BC, **kw), "benchmark"),
        "mannwhitneyu": (lambda t: f.mannwhitneyu(t, **BC, **kw), "benchmark"),
        "wilcoxon": (lambda t: f.wilcoxon(t, **BC, **kw), "benchmark"),
        "ttest_ind": (lambda t: f.ttest_ind(t, **BC, **kw), "benchmark"),
        "ttest_rel": (lambda t: f.ttest_rel(t, **BC, **kw), "benchmark"),
        "ftest": (lambda t: f.ftest(t, **BC, **kw), "benchmark"),
        "ks_2samp": (lambda t: f.ks_2samp(t, **BC, **kw), "benchmark"),
        "anova": (lambda t: f.anova(t, **kw), "benchmark"),
        "factorial": (lambda t: f.factorial(t, factors="variant", **kw), "benchmark"),
        "permutation_test": (lambda t: f.permutation_test(t, n_resamples=99, seed=1, **BC, **kw),
                             "benchmark"),
        "bootstrap": (lambda t: f.bootstrap(t, n_resamples=99, seed=1, **BC, **kw), "benchmark"),
    }


FUNCTIONS = sorted(table_calls())


def measurement_table(keys=("x", "y"), runs=6, seed=0):
    """benchmark x variant (b, c) x runs, positive lognormal values, runs numbered per pair."""
    rng = np.random.default_rng(seed)
    k = len(keys)
    benchmark = np.repeat(np.array(keys, dtype=object), 2 * runs)
    variant = np.tile(np.repeat(["b", "c"], runs), k)
    run = np.tile(np.arange(runs), 2 * k)
    return pa.table({"benchmark": benchmark.tolist(), "variant": variant.tolist(),
                     "run": run, "value": rng.lognormal(size=2 * k * runs)})


def result_table(result):
    return result.table


# --------------------------------------------------------------------------- class 1: duplicates

def test_issue_reproducer_duplicate_value_column_names_it():
    table = pa.table([["a", "a"], [1.0, 2.0], [3.0, 4.0]], names=["benchmark", "value", "value"])
    with pytest.raises(InputError, match=r"column 'value' occurs 2 times"):
        f.describe(table, variant=None)


def test_duplicate_column_that_no_argument_uses_is_ignored():
    table = pa.table([["a", "a", "a"], [1.0, 2.0, 6.0], [7, 8, 9], [0, 0, 0]],
                     names=["benchmark", "value", "extra", "extra"])
    res = f.describe(table, variant=None)
    assert res.table.num_rows == 1
    assert res.table.column("mean")[0].as_py() == pytest.approx(3.0)  # (1 + 2 + 6) / 3


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("column", ["benchmark", "variant", "value"])
def test_every_function_names_a_used_duplicated_column(name, column):
    t = measurement_table()
    t = pa.table(t.columns + [t.column(column)], names=t.column_names + [column])
    call, _ = table_calls()[name]
    with pytest.raises(InputError, match=rf"column '{column}' occurs 2 times"):
        call(t)


@pytest.mark.parametrize("name", ["wilcoxon", "ttest_rel", "sparc"])
def test_a_duplicated_run_column_is_named_by_the_paired_functions(name):
    t = measurement_table()
    t = pa.table(t.columns + [t.column("run")], names=t.column_names + ["run"])
    with pytest.raises(InputError, match=r"column 'run' occurs 2 times"):
        table_calls()[name][0](t)


def test_a_duplicated_unit_column_is_ambiguous_for_the_unit_check():
    t = measurement_table()
    t = pa.table(t.columns + [pa.array(["s"] * t.num_rows), pa.array(["ms"] * t.num_rows)],
                 names=t.column_names + ["unit", "unit"])
    with pytest.raises(InputError, match=r"column 'unit' occurs 2 times"):
        f.speedup_test(t, **BC)


def test_as_table_records_the_left_out_names():
    t = as_table(pa.table([[1], [2], [3]], names=["a", "b", "a"]))
    assert t.column_names == ["b"]
    # a table built by as_table keeps working with every Arrow operation
    assert t.filter(pa.array([True])).num_rows == 1


# --------------------------------------------------------------------------- class 3: value types

def test_issue_reproducer_large_int64_values_are_converted():
    """Integers beyond 2**53 without an exact float64 are refused naming the column; exact
    ones (multiples of the float64 spacing there) are read, and their mean is exact."""
    t = pa.table({"benchmark": ["a", "a"], "value": pa.array([2**60, 2**60 + 1000], pa.int64())})
    with pytest.raises(InputError, match="'value'.*2\\*\\*53"):
        f.describe(t, variant=None)
    values = [2**60 + 1024 * i for i in range(7)]
    t = pa.table({"benchmark": ["a"] * 7, "value": pa.array(values, pa.int64())})
    res = f.describe(t, variant=None)
    exact = exact_mean(values)  # Python integers: 2**60 + 3000 exactly
    got = res.table.column("mean")[0].as_py()
    # documented: the values round to the nearest float64 (relative error <= 2**-53 each)
    assert abs(Fraction(got) - Fraction(exact)) / exact <= Fraction(2, 2**53)
    assert res.table.column("status")[0].as_py() == "ok"


@pytest.mark.parametrize("arrow_type, values", [
    (pa.uint64(), [2**64 - 2048, 2**63, 2**63 + 4096]),
    (pa.int64(), [-(2**63), -(2**62), 2**53 + 2]),
    (pa.int8(), [-128, 0, 127]),
    (pa.uint32(), [0, 2**32 - 1, 7]),
    (pa.float16(), [0.5, 1.5, 2.0]),
    (pa.float32(), [0.25, 1e30, 3.0]),
    (pa.decimal128(38, 3), [decimal.Decimal("1.125"), decimal.Decimal("-7.5"),
                            decimal.Decimal("99999999999999999999999999999999999.999")]),
    (pa.decimal256(60, 0), [decimal.Decimal(10**50), decimal.Decimal(3), decimal.Decimal(-1)]),
])
def test_numeric_value_types_convert_to_the_nearest_float(arrow_type, values):
    column = pa.array(np.array(values, np.float16) if arrow_type == pa.float16() else values,
                      arrow_type)
    t = pa.table({"benchmark": ["a"] * len(values), "value": column})
    res = f.describe(t, variant=None)
    if arrow_type in (pa.float16(), pa.float32()):  # the column holds the rounded values
        values = np.array(values, arrow_type.to_pandas_dtype()).astype(float).tolist()
    exact = sum(Fraction(v) for v in values) / len(values)
    got = Fraction(res.table.column("mean")[0].as_py())
    scale = max(abs(Fraction(v)) for v in values)
    assert abs(got - exact) <= scale * Fraction(4, 2**53)
    assert res.table.column("n")[0].as_py() == len(values)


def test_dictionary_encoded_and_all_null_value_columns():
    t = pa.table({"benchmark": ["a"] * 4,
                  "value": pa.array([1.0, 2.0, 2.0, 5.0]).dictionary_encode()})
    assert f.describe(t, variant=None).table.column("mean")[0].as_py() == pytest.approx(2.5)
    t = pa.table({"benchmark": ["a", "a"], "value": pa.nulls(2)})
    res = f.describe(t, variant=None)
    assert res.table.column("n_dropped")[0].as_py() == 2
    assert res.table.column("status")[0].as_py() != "ok"


@pytest.mark.parametrize("column", [
    pa.array([True, False]), pa.array(["1", "2"]), pa.array([b"1", b"2"]),
    pa.array([datetime.datetime(2020, 1, 1)] * 2), pa.array([1, 2], pa.duration("ns")),
    pa.array([[1.0], [2.0]]), pa.array([{"a": 1.0}, {"a": 2.0}]),
])
@pytest.mark.parametrize("name", ["describe", "mannwhitneyu", "sparc", "aggregate_score"])
def test_non_numeric_value_columns_name_the_column_and_the_types_accepted(column, name):
    t = pa.table({"benchmark": ["a", "a"], "variant": ["b", "c"], "run": [0, 0],
                  "value": column})
    with pytest.raises(InputError, match=r"value column 'value' has type .*integers, "
                                         r"floating-point numbers or decimals"):
        table_calls()[name][0](t)


# --------------------------------------------------------------------------- class 7: no key

def test_issue_reproducer_no_key_column_and_by_none_is_one_group():
    res = f.describe(pa.table({"value": [1.0, 2.0, 3.0]}), by=None, variant=None)
    assert res.table.num_rows == 1
    assert res.table.column("n")[0].as_py() == 3
    assert res.table.column("mean")[0].as_py() == pytest.approx(2.0)
    assert res.table.column("median")[0].as_py() == pytest.approx(2.0)


@pytest.mark.parametrize("name", [n for n in FUNCTIONS if n != "compare"])
def test_by_none_without_key_column_is_one_row_per_variant_group(name):
    t = measurement_table(keys=("only",)).drop_columns(["benchmark"])
    call, keyed = table_calls(by=None)[name]
    res = call(t)
    assert res.table.num_rows == (2 if keyed in ("group", "variant") else 1)


def test_by_none_two_sample_test_equals_the_test_on_all_rows():
    t = measurement_table(keys=("x", "y", "z"))
    res = f.mannwhitneyu(t, **BC, by=None)
    v = t.column("value").to_numpy()
    is_b = pc.equal(t.column("variant"), "b").to_numpy(zero_copy_only=False)
    oracle = scipy.stats.mannwhitneyu(v[is_b], v[~is_b], method="exact")
    assert res.table.num_rows == 1
    assert res.table.column("pvalue")[0].as_py() == pytest.approx(oracle.pvalue, rel=1e-9)


def test_by_empty_list_is_one_group_too():
    res = f.describe(pa.table({"benchmark": ["a", "b"], "value": [1.0, 3.0]}), by=[],
                     variant=None)
    assert res.table.num_rows == 1
    assert res.table.column("mean")[0].as_py() == pytest.approx(2.0)


def test_group_rows_without_keys_on_an_empty_table():
    groups = group_rows(pa.table({"value": pa.array([], pa.float64())}), [])
    assert groups.n_groups == 0 and groups.keys.num_rows == 0


# --------------------------------------------------------------------------- unclear messages

@pytest.mark.parametrize("by", [5, 2.5, {"benchmark": 1}, {"benchmark"}, b"benchmark", [1],
                                ["benchmark", None]])
def test_by_of_the_wrong_type_names_by(by):
    with pytest.raises(InputError, match=r"^by must be a column name, a list of column names, "
                                         r"or None"):
        f.describe(measurement_table(), by=by)


def test_key_list_keeps_each_name_once():
    assert key_list(["a", "b", "a"]) == ["a", "b"]
    assert key_list(None) == [] and key_list("a") == ["a"]


@pytest.mark.parametrize("value", [5, None, ["value"]])
@pytest.mark.parametrize("name", ["describe", "mannwhitneyu", "wilcoxon", "shapiro", "sparc",
                                  "speedup_test", "plan_runs", "anova"])
def test_value_of_the_wrong_type_names_value(value, name):
    with pytest.raises(InputError, match=r"^value must be a column name \(a string\)"):
        table_calls(value=value)[name][0](measurement_table())


@pytest.mark.parametrize("call", [
    lambda: f.describe(measurement_table(), confidence="0.95"),
    lambda: f.mannwhitneyu(measurement_table(), **BC, confidence="0.95"),
    lambda: f.ttest_ind(measurement_table(), **BC, confidence="0.95"),
    lambda: f.compare(measurement_table(), **BC, confidence="0.95"),
    lambda: f.plan_runs(measurement_table(), confidence="0.95"),
    lambda: f.bootstrap(measurement_table(), **BC, confidence="0.95"),
    lambda: f.aggregate_score(measurement_table(), confidence="0.95"),
])
def test_confidence_as_a_string_gets_the_validation_message(call):
    with pytest.raises(InputError, match=r"confidence must be a number in \(0, 1\), got '0.95'"):
        call()


@pytest.mark.parametrize("axis", ["0", None, 0.5, True, [0]])
@pytest.mark.parametrize("call", [
    lambda axis: f.mannwhitneyu([1.0, 2.0, 3.0], [4.0, 5.0], axis=axis),
    lambda axis: f.ttest_ind([1.0, 2.0, 3.0], [4.0, 5.0, 7.0], axis=axis),
    lambda axis: f.shapiro([1.0, 2.0, 4.0, 8.0], axis=axis),
    lambda axis: f.ks_2samp([1.0, 2.0, 3.0], [4.0, 5.0], axis=axis),
])
def test_axis_of_the_wrong_type_names_axis(call, axis):
    with pytest.raises(InputError, match=r"^axis must be an integer"):
        call(axis)


@pytest.mark.parametrize("generators, match", [
    (5, r"^generators must be a dict .* got 5$"),
    ([5], r"^generators must be .*holds a word that is not a string"),
    ({1: "AB"}, r"^generators must be .*keys and words must be strings"),
])
def test_fractional_design_generators_of_the_wrong_type(generators, match):
    with pytest.raises(InputError, match=match):
        f.fractional_design(3, 1, generators=generators)


def test_fractional_design_valid_generators_still_work():
    # C = AB: in every run of the sign table C's sign is the product of A's and B's
    for generators in (["C=AB"], "C=AB", {"C": "AB"}, ("AB",)):
        design = f.fractional_design(3, 1, generators=generators)
        a, b, c = (np.array(design.table.column(x).to_pylist()) for x in "ABC")
        assert len(a) == 4 and (a * b == c).all()


def test_issue_reproducer_shapiro_of_strings_says_numbers_not_files():
    with pytest.raises(InputError, match=r"^x must be numeric .*got strings such as 'a'"):
        f.shapiro(["a"] * 10)


def test_a_list_of_strings_naming_existing_files_is_still_a_list_of_paths(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("benchmark,value\na,1\n")
    assert is_measurement_table([str(path)])
    assert is_measurement_table([str(path), str(tmp_path / "missing.csv")])
    assert not is_measurement_table(["a", "b"])
    assert is_measurement_table("a")  # a single string is always a path


@pytest.mark.parametrize("x, what", [
    ([1 + 2j, 3.0, 4.0], "complex numbers"),
    (np.array(["2020-01-01"] * 3, "datetime64[D]"), "dates/times"),
    ([b"a", b"b", b"c"], "bytes"),
])
def test_array_forms_refuse_what_is_not_a_number(x, what):
    with pytest.raises(InputError, match=rf"^x must be numeric .*{what}"):
        f.shapiro(x)


def test_empty_and_one_row_tables():
    empty = pa.table({"benchmark": pa.array([], pa.string()), "variant": pa.array([], pa.string()),
                      "value": pa.array([], pa.float64())})
    with pytest.raises(InputError, match="empty"):
        f.describe(empty)
    one = pa.table({"benchmark": ["a"], "variant": ["b"], "value": [2.5]})
    res = f.describe(one)
    assert res.table.num_rows == 1 and res.table.column("mean")[0].as_py() == 2.5
    with pytest.raises(InputError, match=r"variant 'c' not found; the 'variant' column holds"):
        f.mannwhitneyu(one, **BC)
    two = pa.table({"benchmark": ["a", "z"], "variant": ["b", "c"], "value": [2.5, 1.0]})
    res = f.mannwhitneyu(two, **BC)
    assert res.table.column("status").to_pylist() == ["no candidate values",
                                                      "no baseline values"]


# --------------------------------------------------------------------------- key types

def key_column(kind, labels):
    """A key column of Arrow type `kind` holding one distinct value per distinct label."""
    codes = [int(x) for x in labels]
    makers = {
        "string": lambda: pa.array([f"k{c}" for c in codes]),
        "large_string": lambda: pa.array([f"k{c}" for c in codes], pa.large_string()),
        "string_view": lambda: pa.array([f"k{c}" for c in codes], pa.string_view()),
        "binary": lambda: pa.array([bytes([65 + c]) for c in codes]),
        "fixed_binary": lambda: pa.array([bytes([65 + c, 66]) for c in codes], pa.binary(2)),
        "int8": lambda: pa.array(codes, pa.int8()),
        "uint64": lambda: pa.array([2**64 - 1 - c for c in codes], pa.uint64()),
        "float16": lambda: pa.array(np.array(codes, np.float16)),
        "float64_nan": lambda: pa.array([math.nan if c == 0 else float(c) for c in codes]),
        "decimal": lambda: pa.array([decimal.Decimal(c) / 4 for c in codes], pa.decimal128(9, 2)),
        "bool": lambda: pa.array([c % 2 == 0 for c in codes]),
        "date": lambda: pa.array([datetime.date(2020, 1, 1 + c) for c in codes]),
        "timestamp_tz": lambda: pa.array([datetime.datetime(2020, 1, 1, c) for c in codes],
                                         pa.timestamp("ns", tz="UTC")),
        "time": lambda: pa.array([datetime.time(c) for c in codes], pa.time64("us")),
        "duration": lambda: pa.array(codes, pa.duration("ms")),
        "interval": lambda: pa.array([pa.MonthDayNano([c, 0, 0]) for c in codes],
                                     pa.month_day_nano_interval()),
        "dictionary": lambda: pa.array([f"k{c}" for c in codes]).dictionary_encode(),
        "run_end_encoded": lambda: pc.run_end_encode(pa.array([f"k{c}" for c in codes])),
        "null_type": lambda: pa.nulls(len(codes)),
        "nullable": lambda: pa.array([None if c == 0 else f"k{c}" for c in codes]),
    }
    return makers[kind]()


GROUPABLE_KINDS = ["string", "large_string", "string_view", "binary", "fixed_binary", "int8",
                   "uint64", "float16", "float64_nan", "decimal", "bool", "date", "timestamp_tz",
                   "time", "duration", "interval", "dictionary", "run_end_encoded", "null_type",
                   "nullable"]
NESTED = {
    "list": lambda n: pa.array([[i % 2] for i in range(n)]),
    "struct": lambda n: pa.array([{"a": i % 2} for i in range(n)]),
    "map": lambda n: pa.array([[("a", i % 2)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
    "union": lambda n: pa.UnionArray.from_sparse(pa.array([0] * n, pa.int8()),
                                                 [pa.array(list(range(n)))]),
}


def distinct(values):
    """Distinct Python values, NaN counted once (the grouper's rule)."""
    return {("nan",) if isinstance(v, float) and math.isnan(v) else (v,) for v in values}


@pytest.mark.parametrize("kind", GROUPABLE_KINDS)
def test_every_scalar_key_type_groups(kind):
    labels = [0, 0, 1, 1, 2, 2, 1, 0]
    t = pa.table({"benchmark": key_column(kind, labels), "value": np.arange(1.0, 9.0)})
    res = f.describe(t, variant=None)
    expected = distinct(t.column("benchmark").to_pylist()) if kind != "run_end_encoded" else {0, 1, 2}
    assert res.table.num_rows == len(expected)
    assert res.table.column("n").to_pylist() and sum(res.table.column("n").to_pylist()) == 8


@pytest.mark.parametrize("kind", GROUPABLE_KINDS)
def test_every_scalar_type_works_as_the_variant_column(kind):
    if kind in ("null_type",):
        pytest.skip("a null-typed column holds one value, null: no two variants")
    labels = [1, 2] * 6
    variants = key_column(kind, labels)
    names = [v for v in dict.fromkeys(pc.unique(
        variants if not pa.types.is_run_end_encoded(variants.type)
        else pc.run_end_decode(variants)).to_pylist())]
    if kind == "nullable":
        names = [v for v in names if v is not None]
    if len(names) < 2:
        pytest.skip("fewer than two distinct values")
    values = np.arange(1.0, 13.0)
    t = pa.table({"benchmark": ["a"] * 12, "variant": variants, "value": values})
    res = f.mannwhitneyu(t, baseline=names[0], candidate=names[1])
    oracle = scipy.stats.mannwhitneyu(values[0::2], values[1::2], method="exact")
    assert res.table.column("pvalue")[0].as_py() == pytest.approx(oracle.pvalue, rel=1e-9)


@pytest.mark.parametrize("kind", sorted(NESTED))
@pytest.mark.parametrize("name", FUNCTIONS)
def test_nested_key_types_are_refused_naming_the_column(kind, name):
    t = measurement_table()
    t = t.set_column(0, "benchmark", NESTED[kind](t.num_rows))
    with pytest.raises(InputError, match=r"key column 'benchmark' has type .*cannot be grouped"):
        table_calls()[name][0](t)


def test_unknown_variant_of_another_type_lists_the_variants_present():
    t = pa.table({"benchmark": ["a"] * 4, "variant": pa.array([1, 2, 1, 2], pa.int8()),
                  "value": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InputError, match=r"variant 'b' not found; the 'variant' column holds "
                                         r"\[1, 2\]"):
        f.mannwhitneyu(t, **BC)
    with pytest.raises(InputError, match="not found"):  # a bool is no integer here
        f.mannwhitneyu(t, baseline=True, candidate=2)


# --------------------------------------------------------------------------- the battery

VALUE_KINDS = ["float64", "int64_large", "uint64", "decimal", "float32", "bool", "string"]


@st.composite
def hostile_tables(draw):
    """A (benchmark, variant, run, value) table with hostile key and value types, duplicate
    names, nulls/NaN, and 0 to 14 rows; returns (table, by, what the call may use)."""
    n = draw(st.integers(0, 14))
    key_kind = draw(st.sampled_from(GROUPABLE_KINDS + ["list"]))
    labels = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    if key_kind == "list":
        keys = pa.array([[c] for c in labels], pa.list_(pa.int64()))
    else:
        keys = key_column(key_kind, labels)
    variant = pa.array(draw(st.lists(st.sampled_from(["b", "c", None]), min_size=n, max_size=n)),
                       pa.string())
    run = pa.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), pa.int64())
    magnitudes = draw(st.lists(st.one_of(st.floats(0.5, 100.0), st.just(math.nan), st.none()),
                               min_size=n, max_size=n))
    value_kind = draw(st.sampled_from(VALUE_KINDS))
    finite = [1.0 if v is None or math.isnan(v) else v for v in magnitudes]
    if value_kind == "float64":
        value = pa.array(magnitudes, pa.float64(), from_pandas=True)
    elif value_kind == "int64_large":
        value = pa.array([None if m is None else 2**60 + int(v * 1000)
                          for m, v in zip(magnitudes, finite)], pa.int64())
    elif value_kind == "uint64":
        value = pa.array([None if m is None else 2**63 + int(v * 4096)
                          for m, v in zip(magnitudes, finite)], pa.uint64())
    elif value_kind == "decimal":
        value = pa.array([None if m is None else decimal.Decimal(round(v, 3)).quantize(
            decimal.Decimal("0.001")) for m, v in zip(magnitudes, finite)], pa.decimal128(12, 3))
    elif value_kind == "float32":
        value = pa.array(np.array(finite, np.float32))
    elif value_kind == "bool":
        value = pa.array([v > 50 for v in finite])
    else:
        value = pa.array([str(v) for v in finite])
    names = ["benchmark", "variant", "run", "value"]
    columns = [keys, variant, run, value]
    duplicate = draw(st.sampled_from([None, None, None, "benchmark", "value", "extra"]))
    if duplicate == "extra":
        columns += [run, run]
        names += ["extra", "extra"]
    elif duplicate is not None:
        columns.append(columns[names.index(duplicate)])
        names.append(duplicate)
    by = draw(st.sampled_from(["benchmark", None]))
    return pa.table(columns, names=names), by, {"key_kind": key_kind, "value_kind": value_kind,
                                                "duplicate": duplicate}


ARGUMENT_WORDS = ("value", "variant", "benchmark", "run", "by", "baseline", "candidate", "table",
                  "factor", "level", "cell", "measurement", "column")


def expected_rows(table, by, keyed):
    """The number of result rows by brute force over the table's Python values."""
    keys = table.column("benchmark").to_pylist() if by else [None] * table.num_rows
    variants = table.column("variant").to_pylist()
    if keyed == "benchmark":
        return len(distinct(keys)) if table.num_rows else 0
    if keyed == "variant":
        return len(set(variants))
    return len({(k, v) for k, v in zip(distinct_labels(keys), variants)})


def distinct_labels(values):
    return ["nan" if isinstance(v, float) and math.isnan(v) else repr(v) for v in values]


#: Columns where an infinite value with status "ok" is a documented answer, not an overflow:
#: (function, column) -> why. NaN is never allowed with "ok"; null means "not computed".
DOCUMENTED_INFINITE = {
    ("ftest", "statistic"): "a constant candidate alone gives F = inf (p as R's var.test), "
                            "docs/parametric.md",
}


def check_contract(name, table, by, info):
    call, keyed = table_calls(by=by)[name]
    try:
        result = call(table)
    except InputError as exc:
        message = str(exc)
        assert message and any(word in message for word in ARGUMENT_WORDS), message
        return
    out = result_table(result)
    if name == "compare" and by is None:
        by = "benchmark"  # compare's by=None: the benchmark column (and configuration columns)
    if keyed in ("benchmark", "group"):
        assert out.num_rows == expected_rows(table, by, keyed), (name, info)
    assert info["duplicate"] not in ("benchmark", "value") or (
        info["duplicate"] == "benchmark" and not by), (name, info)  # a used duplicate is refused
    assert info["value_kind"] not in ("bool", "string"), (name, info)
    assert info["key_kind"] != "list" or not by, (name, info)
    if "status" not in out.column_names:
        return
    ok = np.asarray(out.column("status").to_pylist()) == "ok"
    for column_name, column in zip(out.column_names, out.columns):
        if pa.types.is_floating(column.type):
            v = column.to_numpy(zero_copy_only=False).astype(float)
            valid = np.asarray(column.is_valid())  # null: a test not run, not a result
            allowed = np.isposinf(v) if (name, column_name) in DOCUMENTED_INFINITE else False
            bad = ok & valid & ~np.isfinite(v) & ~allowed
            assert not bad.any(), (name, column_name, info, out.filter(pa.array(bad)).to_pylist())


@pytest.mark.parametrize("name", FUNCTIONS)
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=hostile_tables())
def test_hostile_tables_meet_the_contract(name, case):
    table, by, info = case
    check_contract(name, table, by, info)
