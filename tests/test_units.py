"""fastperf.data.units: unit directions, binary units, benchstat's number scaling and the ±
percent of an interval.

Oracles: the expectations of golang.org/x/perf's own tests (quoted below with their source), and
values computed by hand in the comments.
"""
import math

import numpy as np
import pyarrow as pa
import pytest

from fastperf.data.units import (HIGHER, LOWER, common_scale, is_binary_unit, percent_range,
                                 row_directions, unit_direction, unit_directions, unit_strings,
                                 units_without_direction)


# --------------------------------------------------------------------------- directions

@pytest.mark.parametrize("unit", [
    "sec/op", "ns/op", "ns", "s", "second", "seconds", "ms", "us", "µs", "B/op", "allocs/op",
    "text-bytes", "bytes", "cycles/op", "L1-miss-sec/op", "MiB", " sec/op ",
])
def test_lower_is_better(unit):
    assert unit_direction(unit) == LOWER == "lower"


@pytest.mark.parametrize("unit", [
    "B/s", "MB/s", "ops/s", "items_per_second", "bytes_per_second", "req/sec", "Hz", "qps",
    "ops",
])
def test_higher_is_better(unit):
    assert unit_direction(unit) == HIGHER == "higher"


@pytest.mark.parametrize("unit", [None, "", "   ", "widgets", "ratio", "score", "%"])
def test_unknown_direction(unit):
    assert unit_direction(unit) is None


def test_unit_directions_overrides():
    units = ["sec/op", "B/s", "widgets"]
    assert unit_directions(units, None) == {"sec/op": "lower", "B/s": "higher", "widgets": None}
    assert unit_directions(units, True) == dict.fromkeys(units, "higher")
    assert unit_directions(units, False) == dict.fromkeys(units, "lower")
    assert unit_directions(units, {"widgets": True, "B/s": False}) == {
        "sec/op": "lower", "B/s": "lower", "widgets": "higher"}


ROW_UNITS = ["sec/op", None, "B/s", "widgets", "sec/op", "widgets", None, "B/s", "sec/op"]
# the rows' directions written out, by the rules tested above (None: unknown)
BY_HAND = {
    None: ["lower", "unknown", "higher", "unknown", "lower", "unknown", "unknown", "higher",
           "lower"],
    True: ["higher"] * 9,
    "mapping": ["lower", "unknown", "lower", "higher", "lower", "higher", "unknown", "lower",
                "lower"],
}


@pytest.mark.parametrize("encoding", ["string", "binary", "dictionary", "chunked"])
@pytest.mark.parametrize("flag", [None, True, "mapping"])
def test_row_directions_are_each_rows_units(encoding, flag):
    """Each row gets its unit's direction ("unknown" for none, and for rows without a unit),
    whatever the column's encoding; the units without one are listed once each."""
    column = {"string": pa.array(ROW_UNITS),
              "binary": pa.array([u and u.encode() for u in ROW_UNITS], pa.binary()),
              "dictionary": pa.array(ROW_UNITS).dictionary_encode(),
              "chunked": pa.chunked_array([ROW_UNITS[:4], ROW_UNITS[4:]])}[encoding]
    higher_is_better = {"widgets": True, "B/s": False} if flag == "mapping" else flag
    units = unit_strings(column)
    direction = row_directions(units, higher_is_better)
    assert direction.tolist() == BY_HAND[flag]
    unknown = units_without_direction(units, direction)
    assert sorted(unknown, key=str) == {None: [None, "widgets"], True: [],
                                        "mapping": [None]}[flag]


def test_row_directions_of_no_rows_and_of_no_units():
    assert row_directions(pa.array([], pa.string()), None).shape == (0,)
    assert row_directions(pa.nulls(3, pa.string()), False).tolist() == ["lower"] * 3
    direction = row_directions(pa.nulls(2, pa.string()), None)
    assert direction.tolist() == ["unknown"] * 2
    assert units_without_direction(pa.nulls(2, pa.string()), direction) == [None]
    assert isinstance(direction, np.ndarray)


# --------------------------------------------------------------------------- binary units

@pytest.mark.parametrize("unit, binary", [
    ("B/s", True), ("B/op", True), ("text-bytes", True), ("bytes", True), ("B", True),
    ("sec/op", False), ("allocs/op", False), ("ns/op", False), (None, False), ("", False),
    ("MB/s", False),  # benchstat classes by the unit's last word: "MB" is not "B"
])
def test_is_binary_unit(unit, binary):
    assert is_binary_unit(unit) is binary


# --------------------------------------------------------------------------- common_scale
# golang.org/x/perf benchunit/scale_test.go (commit ecd6f900f93034f56d2bd74bd4b0a37514f2b7df),
# TestScale: test(num, want, wantPred) checks Scale(num) == want and
# Scale(math.Nextafter(num, 0)) == wantPred. Scale(num, cls) is
# CommonScale([num], cls).Format(num); the values below are copied from that file.

DECIMAL = [
    (0, "0.000", "0.000"),
    (1, "1.000", "1.000"),
    (-1, "-1.000", "-1.000"),
    (9999500000000000, "9999.5T", "9999.5T"),
    (999950000000000, "1000.0T", "999.9T"),
    (99995000000000, "100.0T", "99.99T"),
    (9999500000000, "10.00T", "9.999T"),
    (999950000000, "1.000T", "999.9G"),
    (99995000000, "100.0G", "99.99G"),
    (9999500000, "10.00G", "9.999G"),
    (999950000, "1.000G", "999.9M"),
    (99995000, "100.0M", "99.99M"),
    (9999500, "10.00M", "9.999M"),
    (999950, "1.000M", "999.9k"),
    (99995, "100.0k", "99.99k"),
    (9999.5, "10.00k", "9.999k"),
    (999.95, "1.000k", "999.9"),
    (99.995, "100.0", "99.99"),
    (9.9995, "10.00", "9.999"),
    (.99995, "1.000", "999.9m"),
    (.099995, "100.0m", "99.99m"),
    (.0099995, "10.00m", "9.999m"),
    (.00099995, "1.000m", "999.9µ"),
    (.000099995, "100.0µ", "99.99µ"),
    (.0000099995, "10.00µ", "9.999µ"),
    (.00000099995, "1.000µ", "999.9n"),
    (.000000099995, "100.0n", "99.99n"),
    (.0000000099995, "10.00n", "9.999n"),
    (.00000000099995, "1.000n", "0.9999n"),  # "First pred we won't up-scale"
    (math.nextafter(.000000000099995, 1), "0.1000n", "0.09999n"),
    (.0000000000099995, "0.01000n", "0.009999n"),
    (math.nextafter(.00000000000099995, 1), "0.001000n", "0.0009999n"),
    (.000000000000099995, "0.0001000n", "0.00009999n"),
    (.0000000000000099995, "0.00001000n", "0.000009999n"),
    (math.nextafter(.00000000000000099995, 1), "0.000001000n", "0.0000009999n"),
    (-99995000000000, "-100.0T", "-99.99T"),
    (-.0000000099995, "-10.00n", "-9.999n"),
]

BINARY = [
    (0, "0.000", "0.000"),
    (1, "1.000", "1.000"),
    (-1, "-1.000", "-1.000"),
    (.99995 * (1 << 50), "1023.9Ti", "1023.9Ti"),
    (99.995 * (1 << 40), "100.0Ti", "99.99Ti"),
    (9.9995 * (1 << 40), "10.00Ti", "9.999Ti"),
    (.99995 * (1 << 40), "1.000Ti", "1023.9Gi"),
    (99.995 * (1 << 30), "100.0Gi", "99.99Gi"),
    (9.9995 * (1 << 30), "10.00Gi", "9.999Gi"),
    (.99995 * (1 << 30), "1.000Gi", "1023.9Mi"),
    (99.995 * (1 << 20), "100.0Mi", "99.99Mi"),
    (9.9995 * (1 << 20), "10.00Mi", "9.999Mi"),
    (.99995 * (1 << 20), "1.000Mi", "1023.9Ki"),
    (99.995 * (1 << 10), "100.0Ki", "99.99Ki"),
    (9.9995 * (1 << 10), "10.00Ki", "9.999Ki"),
    (.99995 * (1 << 10), "1.000Ki", "1023.9"),
    (99.995, "100.0", "99.99"),
    (9.9995, "10.00", "9.999"),
    (.99995, "1.000", "0.9999"),
    (.099995, "0.1000", "0.09999"),
    (.0099995, "0.01000", "0.009999"),
    (.00099995, "0.001000", "0.0009999"),
    (.000099995, "0.0001000", "0.00009999"),
    (.0000099995, "0.00001000", "0.000009999"),
    (.00000099995, "0.000001000", "0.0000009999"),
    # "We stop at 10 digits after the decimal. Again, rounding gets a little weird."
    (.00000009995, "0.0000001000", "0.0000000999"),
    (math.nextafter(.00000000995, 1), "0.0000000100", "0.0000000099"),
    (.00000000095, "0.0000000010", "0.0000000009"),
    (.00000000005, "0.0000000001", "0.0000000000"),
    (.000000000009, "0.0000000000", "0.0000000000"),
]


def scale(num: float, binary: bool) -> str:
    return common_scale([num], binary).format(num)


@pytest.mark.parametrize("num, want, want_pred", DECIMAL)
def test_common_scale_decimal_matches_benchunit(num, want, want_pred):
    assert scale(num, False) == want
    assert scale(math.nextafter(num, 0), False) == want_pred


@pytest.mark.parametrize("num, want, want_pred", BINARY)
def test_common_scale_binary_matches_benchunit(num, want, want_pred):
    assert scale(num, True) == want
    assert scale(math.nextafter(num, 0), True) == want_pred


def test_common_scale_is_chosen_by_the_smallest_value():
    # the row 46.55e-9 and 1.5e-6: the smallest (46.55n) sets "n" with two decimals
    s = common_scale([1.5e-6, 46.55e-9])
    assert (s.format(46.55e-9), s.format(1.5e-6)) == ("46.55n", "1500.00n")
    # zeros and non-finite values do not choose the scale
    s = common_scale([0.0, float("nan"), float("inf"), 1718e-9])
    assert s.format(1718e-9) == "1.718µ"
    assert s.format(float("nan")) == "?" and s.format(float("inf")) == "∞"
    assert s.format(float("-inf")) == "-∞"
    assert common_scale([], False).format(2.0) == "2.000"
    assert common_scale([2.001 * 2 ** 30, 3 * 2 ** 30], True).format(2.001 * 2 ** 30) == "2.001Gi"


# --------------------------------------------------------------------------- percent_range
# benchmath Summary.PctRangeString: max(hi/center - 1, 1 - lo/center) as a whole percent;
# "∞" for an infinite (here: missing) bound, "?" when a bound's sign differs from the center's,
# "0%" for a zero center (with zero bounds).

@pytest.mark.parametrize("center, low, high, want", [
    (100.0, 95.0, 103.0, "5%"),        # max(0.03, 0.05)
    (100.0, 99.0, 102.4, "2%"),        # max(0.024, 0.01) -> 2.4 -> "2"
    (1718e-9, 1700e-9, 1735e-9, "1%"),  # max(0.0099, 0.0105)
    (10.0, 9.0, 10.5, "10%"),
    (10.0, 10.0, 10.0, "0%"),
    (100.0, 80.0, 300.0, "200%"),
    (100.0, float("nan"), 103.0, "∞"),
    (100.0, 95.0, float("nan"), "∞"),
    (100.0, float("-inf"), float("inf"), "∞"),
    (0.0, 0.0, 0.0, "0%"),
    (-10.0, -11.0, 1.0, "?"),
    (10.0, -1.0, 11.0, "?"),
])
def test_percent_range(center, low, high, want):
    assert percent_range(center, low, high) == want


@pytest.mark.parametrize("unit, direction", [
    ("ops/ms", "higher"), ("ops/us", "higher"), ("ops/ns", "higher"), ("ops/min", "higher"),
    ("ops/hr", "higher"), ("ops/day", "higher"), ("day/op", "lower"), ("#/op", "lower"),
    ("counts", None),
])
def test_jmh_units(unit, direction):
    """JMH's score units (jmh-core TimeValue / Mode): throughput per any time unit is a rate;
    time per operation and perfnorm's events per operation are lower-is-better."""
    from fastperf.data.units import unit_direction

    assert unit_direction(unit) == direction


# --------------------------------------------------------------------------- the unit column

def _unit_column_calls():
    import fastperf as fp

    pair = {"baseline": "baseline", "candidate": "candidate"}
    return {
        "compare": lambda t, **kw: fp.compare(t, **pair, **kw),
        "decide": lambda t, **kw: fp.decide(t, **pair, margin=0.05, **kw),
        "speedup_test": lambda t, **kw: fp.speedup_test(t, **pair, **kw),
        "sparc": lambda t, **kw: fp.sparc(t, **pair, **kw),
        "hpt": lambda t, **kw: fp.hpt(t, **pair, **kw),
        "check": lambda t, **kw: fp.check(t, **kw),
        "plan_runs": lambda t, **kw: fp.plan_runs(t, **pair, **kw),
        "describe": lambda t, **kw: fp.describe(t, **kw),
        "aggregate_score": lambda t, **kw: fp.aggregate_score(t, **kw),
        "changepoints": lambda t, **kw: fp.changepoints(
            t.filter(pa.compute.equal(t["variant"], "baseline")), order="run", **kw),
    }


@pytest.mark.parametrize("name", sorted(_unit_column_calls()))
def test_a_unit_column_named_but_absent_is_refused(name):
    """The default `unit="unit"` may be absent (the table has no units); any other name was asked
    for, and a typo must not silently merge every unit (it did, in every function)."""
    import fastperf as fp
    from fastperf.errors import InputError

    call = _unit_column_calls()[name]
    table = fp.simulate(benchmarks=3, runs=6, seed=4).table
    with pytest.raises(InputError, match=r"column 'unit_name' not found.*pass unit=None"):
        call(table, unit="unit_name")
    without = table.drop_columns(["unit"])
    assert call(without).table.num_rows == call(without, unit=None).table.num_rows > 0
    renamed = table.rename_columns(["unit_name" if c == "unit" else c for c in table.column_names])
    named = call(renamed, unit="unit_name").table
    assert named.num_rows == call(table).table.num_rows
    if "unit_name" in named.column_names:
        assert set(named.column("unit_name").to_pylist()) == {"s"}


def test_a_run_column_named_but_absent_is_refused():
    """aggregate_score's `run=` the same way: the default may be absent, another name may not."""
    import fastperf as fp
    from fastperf.errors import InputError

    table = fp.simulate(benchmarks=3, runs=6, seed=4).table
    with pytest.raises(InputError, match=r"column 'runs' not found.*pass run=None"):
        fp.aggregate_score(table, run="runs")
    assert fp.aggregate_score(table.drop_columns(["run"])).table.num_rows == 2


def test_direction_warnings_name_units_and_unitless_values():
    """Rows without a unit were named as a unit 'None' (compare) or not at all (decide)."""
    from fastperf.data.units import direction_warnings

    units = pa.array(["sec/op", "widgets", None, "widgets"], pa.string())
    direction = np.array(["lower", "unknown", "unknown", "unknown"])
    (text,) = direction_warnings(units, direction)
    assert text.startswith("unit(s) ['widgets'] and values without a unit have no known direction")
    (text,) = direction_warnings(pa.nulls(2, pa.string()), np.array(["unknown"] * 2))
    assert text.startswith("values without a unit have no known direction")
    assert direction_warnings(units, np.array(["lower", "higher", "lower", "higher"])) == []
