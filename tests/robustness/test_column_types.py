"""Value and unit columns of awkward types: 64-bit integers beyond 2**53 (exact or refused, never
rounded silently), pandas object columns of mixed types, and unit columns that are not strings.

Oracles: Python's own int -> float conversion (correctly rounded: ``int(float(v)) == v`` is the
definition of "exact in float64"), numpy on small integers for spreads (shift invariance: the sd
of ``offset + small`` is the sd of ``small``), hand-derived ulps (the float64 spacing is
``2**(e - 52)`` on ``[2**e, 2**(e+1))``), and the string form of the same table.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings, strategies as st

import fastperf as f
from fastperf import InputError
from fastperf.cli import main
from fastperf.data.units import (
    is_binary_unit,
    unit_direction,
    unit_directions,
    unit_strings,
    unit_text,
)
from fastperf.io.tables import as_float64


def exact_in_float64(v: int) -> bool:
    """Python's correctly rounded conversion, then back: the oracle of exactness."""
    try:
        return int(float(v)) == v
    except OverflowError:
        return False


def one_group(values, arrow_type=pa.int64()):
    return pa.table({"benchmark": ["a"] * len(values), "value": pa.array(values, arrow_type)})


# --------------------------------------------------------------------------------------------
# 1. 64-bit integers beyond 2**53
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("offset", [2**53, 2**60, 2**62])
def test_issue_reproducer_int64_spread_beyond_2_53_refused(offset):
    """offset + [0, 1000, 3, 7]: some value has no exact float64 (odd beyond 2**53, 1000 not a
    multiple of the ulp 256 at 2**60): refused, naming the column and one inexact value."""
    values = [offset + v for v in (0, 1000, 3, 7)]
    assert not all(exact_in_float64(v) for v in values)  # the oracle agrees it must be refused
    with pytest.raises(InputError) as info:
        f.describe(one_group(values), variant=None)
    msg = str(info.value)
    assert "'value'" in msg and "2**53 = 9007199254740992" in msg
    assert "offset" in msg and "unit" in msg
    shown = [v for v in values if not exact_in_float64(v) and str(v) in msg]
    assert shown, msg


def test_issue_reproducer_distinct_int64_not_called_constant():
    """2**62 and 2**62 + 1 differ: refused (they would round to one float64); the remedy the
    message gives (subtract the offset) yields the exact sd sqrt(1/2)."""
    with pytest.raises(InputError, match=r"'value'.*4611686018427387905"):
        f.describe(one_group([2**62, 2**62 + 1]), variant=None)
    row = f.describe(one_group([0, 1]), variant=None).groups.to_pylist()[0]
    assert "constant" not in row["status"] and "equal" not in row["status"]
    assert row["sd"] == pytest.approx(math.sqrt(0.5), rel=1e-15)


@pytest.mark.parametrize("exponent", [53, 60, 62])
def test_exact_int64_beyond_2_53_accepted_with_exact_spread(exponent):
    """Multiples of the ulp 2**(e - 52) above 2**e are exact: accepted, and the sd is the ulp
    times numpy's sd of the small multipliers (shift invariance)."""
    ulp = 2 ** (exponent - 52)
    small = np.array([0, 4, 8, 12, 1000, 6])
    values = [2**exponent + ulp * int(k) for k in small]
    assert all(exact_in_float64(v) for v in values)
    row = f.describe(one_group(values), variant=None).groups.to_pylist()[0]
    assert row["status"] == "ok" and row["n"] == 6
    assert row["sd"] == pytest.approx(ulp * np.std(small, ddof=1), rel=1e-12)
    assert row["mean"] == pytest.approx(2**exponent + ulp * small.mean(), rel=1e-15)


@pytest.mark.parametrize("arrow_type, value, exact", [
    (pa.int64(), 2**63 - 1, False),        # its float64 is 2**63, which int64 cannot hold
    (pa.int64(), 2**63 - 1024, True),      # ulp 1024 on [2**62, 2**63)
    (pa.int64(), 2**63 - 512, False),
    (pa.int64(), -(2**63), True),          # the smallest int64 is a power of two
    (pa.int64(), -(2**63) + 1, False),
    (pa.int64(), -(2**53) - 1, False),
    (pa.int64(), -(2**53), True),
    (pa.int64(), 2**53 + 1, False),
    (pa.uint64(), 2**64 - 1, False),       # its float64 is 2**64, which uint64 cannot hold
    (pa.uint64(), 2**64 - 2048, True),     # ulp 2048 on [2**63, 2**64)
    (pa.uint64(), 2**63, True),
    (pa.uint64(), 2**63 + 1024, False),
])
def test_int64_uint64_edges_of_the_range(arrow_type, value, exact):
    assert exact_in_float64(value) == exact  # the hand-derived expectation agrees with Python
    column = pa.chunked_array([pa.array([value, 0], arrow_type)])
    if exact:
        assert as_float64(column, "t_ns").to_pylist() == [float(value), 0.0]
    else:
        with pytest.raises(InputError, match=rf"column 't_ns' .*e\.g\. {value} "):
            as_float64(column, "t_ns")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1),
                                   st.integers(-(2**53), 2**53).map(lambda v: v * 2**10)
                                   .filter(lambda v: -(2**63) <= v < 2**63)),
                         max_size=6), min_size=1, max_size=3),
       st.sampled_from(["int64", "uint64"]), st.booleans())
def test_exactness_matches_python_per_value(chunks, kind, dictionary):
    """Several chunks, nulls, dictionary encoding: accepted exactly when Python converts every
    value exactly, and then the floats are Python's."""
    arrow_type = pa.int64() if kind == "int64" else pa.uint64()
    if kind == "uint64":
        chunks = [[None if v is None else v + 2**63 for v in c] for c in chunks]
    arrays = [pa.array(c, arrow_type) for c in chunks]
    if dictionary:
        arrays = [a.dictionary_encode() for a in arrays]
    column = pa.chunked_array(arrays, arrays[0].type)
    flat = [v for c in chunks for v in c]
    if all(v is None or exact_in_float64(v) for v in flat):
        assert as_float64(column, "value").to_pylist() == [None if v is None else float(v)
                                                          for v in flat]
    else:
        with pytest.raises(InputError, match=r"'value'.*2\*\*53"):
            as_float64(column, "value")


def test_unused_dictionary_entry_does_not_refuse():
    """Only the values the column holds count, not the dictionary's unused entries."""
    arr = pa.DictionaryArray.from_arrays(pa.array([0, 0, 2], pa.int32()),
                                         pa.array([5, 2**62 + 1, 7], pa.int64()))
    assert as_float64(pa.chunked_array([arr]), "value").to_pylist() == [5.0, 5.0, 7.0]


def test_small_integer_types_and_decimals_unaffected():
    """8- to 32-bit integers are always exact; decimals keep rounding to the nearest float64
    (documented): 2**60 + 1000 as a decimal becomes float(2**60 + 1000), Python's rounding."""
    col = pa.chunked_array([pa.array([2**31 - 1, -(2**31)], pa.int32())])
    assert as_float64(col, "value").to_pylist() == [2**31 - 1, -(2**31)]
    import decimal
    col = pa.chunked_array([pa.array([decimal.Decimal(2**60 + 1000)], pa.decimal128(38, 0))])
    assert as_float64(col, "value").to_pylist() == [float(2**60 + 1000)]


def test_reader_file_with_big_integers_names_the_column(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("benchmark,value\na,4611686018427387905\na,1\n")
    with pytest.raises(InputError, match=r"'value'.*4611686018427387905.*2\*\*53"):
        f.read(path)
    path.write_text("benchmark,value\na,4611686018427387904\na,1\n")  # 2**62: exact
    assert f.read(path).column("value").to_pylist() == [float(2**62), 1.0]


def test_weights_column_checked_too():
    t = pa.table({"benchmark": ["a", "a", "b", "b"], "variant": ["x", "y", "x", "y"],
                  "value": [1.0, 2.0, 3.0, 4.0], "w": pa.array([2**62 + 1] * 4, pa.int64())})
    with pytest.raises(InputError, match=r"weights column 'w'"):
        f.aggregate_score(t, baseline="x", weights="w")


# --------------------------------------------------------------------------------------------
# 2. pandas object columns of mixed types
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, column, found", [
    ({"benchmark": ["a", 1, None], "value": [1., 2., 3.]}, "benchmark", "int"),
    ({"benchmark": ["a", "a", "b"], "value": [1., "x", 3.]}, "value", "'x'"),
    ({"benchmark": ["a", "b"], "value": [{"k": 1}, 3.0]}, "value", "struct"),
], ids=["mixed-key", "mixed-value", "dict-and-float"])
def test_issue_reproducer_pandas_mixed_object_columns(data, column, found):
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError) as info:
        f.describe(pd.DataFrame(data), variant=None)
    assert not isinstance(info.value, pa.ArrowException)
    msg = str(info.value)
    assert f"column {column!r}" in msg and found in msg and "one type" in msg, msg


def test_pandas_huge_python_int_in_object_column():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"benchmark": ["a", "a"], "value": pd.Series([1, 2**70], dtype=object)})
    with pytest.raises(InputError, match=r"DataFrame.*one type"):
        f.describe(df, variant=None)


def test_pandas_clean_frame_still_works():
    """The oracle: numpy's mean and sd of the same values."""
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"benchmark": ["a", "a", "a"], "value": [1.0, 2.0, 4.0]})
    row = f.describe(df, variant=None).groups.to_pylist()[0]
    assert row["mean"] == pytest.approx(np.mean([1, 2, 4]))
    assert row["sd"] == pytest.approx(np.std([1, 2, 4], ddof=1))


# --------------------------------------------------------------------------------------------
# 3. unit columns that are not strings
# --------------------------------------------------------------------------------------------

def test_unit_text_and_direction_of_bytes():
    assert unit_text(b"sec/op") == "sec/op" and unit_text(None) is None
    assert unit_direction(b"ns") == unit_direction("ns") == "lower"
    assert unit_direction(b"B/s") == "higher"
    assert is_binary_unit(b"B/op") and not is_binary_unit(b"sec/op")
    assert unit_directions([b"ns", None], None) == {b"ns": "lower", None: None}


@pytest.mark.parametrize("bad, match", [
    (b"\xffns", r"unit column holds bytes that are not valid UTF-8"),
    (1, r"unit column holds 1 of type int"),
    (True, r"unit column holds True of type bool"),
    (1.5, r"unit column holds 1.5 of type float"),
])
def test_unit_that_is_not_a_name_refused(bad, match):
    with pytest.raises(InputError, match=match):
        unit_direction(bad)
    with pytest.raises(InputError, match=match):  # even when the direction is given
        unit_directions([bad], True)


@pytest.mark.parametrize("column, names", [
    (pa.chunked_array([pa.array([b"ns", None, b"B/s"], pa.binary())]), ["ns", None, "B/s"]),
    (pa.array([b"sec/op"], pa.large_binary()), ["sec/op"]),
    (pa.array([b"ns"], pa.binary(2)), ["ns"]),
    (pa.array(["ns", "ns", "B/op"]).dictionary_encode(), ["ns", "ns", "B/op"]),
    (pa.nulls(2), [None, None]),
])
def test_unit_names_of_a_column(column, names):
    got = unit_strings(column)
    assert got.type == pa.string() and got.to_pylist() == names


@pytest.mark.parametrize("column, match", [
    (pa.array([b"\xff"], pa.binary()), r"unit column 'u' \(type binary\) holds bytes that are "
                                        r"not valid UTF-8"),
    (pa.array([1], pa.int8()), r"unit column 'u' has type int8, not unit names"),
    (pa.array([1.5]), r"unit column 'u' has type double"),
    (pa.array([[1]]), r"unit column 'u' has type list"),
])
def test_unit_names_refuses_what_is_not_a_name(column, match):
    with pytest.raises(InputError, match=match):
        unit_strings(column, "u")


def _compare_table(unit):
    return pa.table({"benchmark": ["a"] * 10, "variant": ["base"] * 5 + ["cand"] * 5,
                     "value": [1.0, 1.1, 1.2, 1.05, 1.15, 2.0, 2.1, 2.2, 2.05, 2.15],
                     "unit": unit})


def test_issue_reproducer_compare_binary_unit_as_its_string():
    """A binary unit column gives the result of the same table with a string unit column."""
    as_bytes = f.compare(_compare_table(pa.array([b"ns"] * 10, pa.binary())),
                         baseline="base", candidate="cand", by="benchmark")
    as_text = f.compare(_compare_table(pa.array(["ns"] * 10)),
                        baseline="base", candidate="cand", by="benchmark")
    for name in ["direction", "verdict", "pvalue", "delta"]:
        if name in as_text.table.column_names:
            assert as_bytes.table.column(name).to_pylist() == as_text.table.column(name).to_pylist()
    assert as_bytes.table.column("direction").to_pylist() == ["lower"]  # ns: lower is better
    assert as_bytes.to_text() == as_text.to_text()
    assert as_bytes.warnings == as_text.warnings


@pytest.mark.parametrize("unit, match", [
    (pa.array([1] * 10, pa.int8()), r"unit column 'unit' has type int8, not unit names"),
    (pa.array([b"\xff"] * 10, pa.binary()),
     r"unit column 'unit' \(type binary\) holds bytes that are not valid UTF-8"),
], ids=["int8", "binary-not-utf8"])
def test_issue_reproducer_compare_unit_not_a_name(unit, match):
    with pytest.raises(InputError, match=match):
        f.compare(_compare_table(unit), baseline="base", candidate="cand", by="benchmark")


def test_cli_compare_binary_unit_parquet(tmp_path, capsys):
    path = tmp_path / "u.parquet"
    pq.write_table(_compare_table(pa.array([b"ns"] * 10, pa.binary())), path)
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert " ns " in out or "ns\n" in out
