"""Every Arrow type of the key column through every rendering of every table-level result.

Oracles: Python's own forms of the key values (``isoformat`` of dates, times and timestamps, the
bytes decoded as UTF-8 or their ``hex()``, ``Decimal`` equality, the duration's exact
microsecond count), strict ``json.loads`` (no NaN/Infinity literal), and GitHub's Markdown
renderer (`markdown_oracle`) for the Markdown.
"""
import datetime
import decimal
import json
import math
import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastperf as f
from fastperf import InputError
from fastperf.results.base import Result
from fastperf.results.render import format_cell
from markdown_oracle import table_cells


UTC = datetime.timezone.utc
PARIS = datetime.timezone(datetime.timedelta(hours=1))


def strict_loads(text):
    """`json.loads` that refuses NaN, Infinity and -Infinity."""
    def refuse(literal):
        raise ValueError(f"non-strict JSON literal {literal}")
    return json.loads(text, parse_constant=refuse)


# --- the expected JSON form of each key value, from Python's own forms ----------------------

def same_text(value, got):
    return got == value


def same_bytes(value, got):
    try:
        expected = value.decode("utf-8")
    except UnicodeDecodeError:
        expected = "0x" + value.hex()
    return got == expected


def same_number(value, got):
    return got == value and type(got) is type(value)


def same_decimal(scale):
    def check(value, got):
        return (isinstance(got, str) and decimal.Decimal(got) == value
                and decimal.Decimal(got).as_tuple().exponent == -scale)
    return check


def same_iso(kind):
    def check(value, got):
        return isinstance(got, str) and kind.fromisoformat(got) == value
    return check


def same_date(value, got):
    return got == value.isoformat()


def same_duration(value, got):
    micro = value // datetime.timedelta(microseconds=1)
    sign = "-" if micro < 0 else ""
    return (isinstance(got, str) and got.startswith(sign + "PT") and got.endswith("S")
            and decimal.Decimal(got[len(sign) + 2:-1]) * 10 ** 6 == abs(micro))


def same_none(value, got):
    return got is None


def text_of(value):
    """The text cell a key value should show (independent of fastperf.results.cells)."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return "0x" + value.hex()
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, decimal.Decimal):
        return None  # digits checked in JSON; the text keeps the scale
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        return None  # the ISO form is checked in JSON
    return str(value)


names = st.text(alphabet="ab|é\n z\x00", max_size=4)
blobs = st.binary(max_size=4)
micro_datetimes = st.datetimes(min_value=datetime.datetime(1, 1, 2),
                               max_value=datetime.datetime(9999, 12, 30))
times = st.times()
durations = st.timedeltas(min_value=datetime.timedelta(days=-10 ** 5),
                          max_value=datetime.timedelta(days=10 ** 5))


def floats32():
    return st.floats(width=32, allow_nan=False, allow_infinity=False)


def ms(value):
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def seconds(value):
    return value.replace(microsecond=0)


def aware(value):
    return value.replace(tzinfo=UTC).astimezone(PARIS)


# name -> (Arrow type, value strategy, check(python value, JSON value))
KEY_TYPES = {
    "string": (pa.string(), names, same_text),
    "large_string": (pa.large_string(), names, same_text),
    "binary": (pa.binary(), blobs, same_bytes),
    "large_binary": (pa.large_binary(), blobs, same_bytes),
    "fixed_size_binary": (pa.binary(2), st.binary(min_size=2, max_size=2), same_bytes),
    "bool": (pa.bool_(), st.booleans(), same_number),
    **{f"int{w}": (getattr(pa, f"int{w}")(), st.integers(-2 ** (w - 1), 2 ** (w - 1) - 1),
                   same_number) for w in (8, 16, 32, 64)},
    **{f"uint{w}": (getattr(pa, f"uint{w}")(), st.integers(0, 2 ** w - 1), same_number)
       for w in (8, 16, 32, 64)},
    "float32": (pa.float32(), floats32(), same_number),
    "float64": (pa.float64(), st.floats(allow_nan=False, allow_infinity=False), same_number),
    "decimal128": (pa.decimal128(12, 3),
                   st.decimals(min_value=-10 ** 8, max_value=10 ** 8, places=3), same_decimal(3)),
    "decimal256": (pa.decimal256(60, 20),
                   st.decimals(min_value=-10 ** 30, max_value=10 ** 30, places=20),
                   same_decimal(20)),
    "date32": (pa.date32(), st.dates(), same_date),
    "date64": (pa.date64(), st.dates(), same_date),
    "timestamp_s": (pa.timestamp("s"), micro_datetimes.map(seconds),
                    same_iso(datetime.datetime)),
    "timestamp_ms": (pa.timestamp("ms"), micro_datetimes.map(ms), same_iso(datetime.datetime)),
    "timestamp_us": (pa.timestamp("us"), micro_datetimes, same_iso(datetime.datetime)),
    "timestamp_ns": (pa.timestamp("ns"),
                     st.datetimes(min_value=datetime.datetime(1970, 1, 1),
                                  max_value=datetime.datetime(2200, 1, 1)),
                     same_iso(datetime.datetime)),
    "timestamp_s_utc": (pa.timestamp("s", tz="UTC"),
                        micro_datetimes.map(seconds).map(lambda v: v.replace(tzinfo=UTC)),
                        same_iso(datetime.datetime)),
    "timestamp_ms_tz": (pa.timestamp("ms", tz="+01:00"), micro_datetimes.map(ms).map(aware),
                        same_iso(datetime.datetime)),
    "timestamp_us_zone": (pa.timestamp("us", tz="Europe/Paris"),
                          st.datetimes(min_value=datetime.datetime(1900, 1, 1),
                                       max_value=datetime.datetime(2100, 1, 1)).map(aware),
                          same_iso(datetime.datetime)),
    "timestamp_ns_utc": (pa.timestamp("ns", tz="UTC"),
                         st.datetimes(min_value=datetime.datetime(1970, 1, 1),
                                      max_value=datetime.datetime(2200, 1, 1))
                         .map(lambda v: v.replace(tzinfo=UTC)), same_iso(datetime.datetime)),
    "time32_s": (pa.time32("s"), times.map(seconds), same_iso(datetime.time)),
    "time32_ms": (pa.time32("ms"), times.map(ms), same_iso(datetime.time)),
    "time64_us": (pa.time64("us"), times, same_iso(datetime.time)),
    "time64_ns": (pa.time64("ns"), times, same_iso(datetime.time)),
    **{f"duration_{u}": (pa.duration(u), durations.map(
        lambda v, u=u: v if u in ("us", "ns") else datetime.timedelta(
            microseconds=v // datetime.timedelta(microseconds=1)
            // (1000 if u == "ms" else 10 ** 6) * (1000 if u == "ms" else 10 ** 6))),
        same_duration) for u in ("s", "ms", "us", "ns")},
    "dictionary": (pa.dictionary(pa.int32(), pa.string()), names, same_text),
    "null": (pa.null(), st.none(), same_none),
}


def run_table(key_type, keys, n=5):
    """`n` runs of variants "old" and "new" per key, the new one slower by 20%."""
    rng = np.random.default_rng(7)
    bench, variant, run, value = [], [], [], []
    for key in keys:
        for name, factor in (("old", 1.0), ("new", 1.2)):
            for r in range(n):
                bench.append(key)
                variant.append(name)
                run.append(r)
                value.append(float(rng.uniform(1.0, 2.0) * factor))
    column = pa.nulls(len(bench)) if key_type == pa.null() else pa.array(bench, key_type)
    return pa.table({"benchmark": column, "variant": variant, "run": run, "value": value})


PRODUCERS = {
    "describe": lambda t: f.describe(t),
    "compare": lambda t: f.compare(t, baseline="old", candidate="new", by="benchmark"),
    "speedup_test": lambda t: f.speedup_test(t, baseline="old", candidate="new"),
    "sparc": lambda t: f.sparc(t, baseline="old", candidate="new", min_runs=3),
    "hpt": lambda t: f.hpt(t, baseline="old", candidate="new"),
    "aggregate_score": lambda t: f.aggregate_score(t, baseline="old"),
    "plan_runs": lambda t: f.plan_runs(t),
    "anova": lambda t: f.anova(t, by="benchmark"),
    "factorial": lambda t: f.factorial(t, factors="variant", by="benchmark"),
    "bootstrap": lambda t: f.bootstrap(t, baseline="old", candidate="new", n_resamples=30,
                                       seed=1, method="percentile"),
    "permutation_test": lambda t: f.permutation_test(t, baseline="old", candidate="new",
                                                     n_resamples=30, seed=1),
    "mannwhitneyu": lambda t: f.mannwhitneyu(t, baseline="old", candidate="new"),
    "wilcoxon": lambda t: f.wilcoxon(t, baseline="old", candidate="new"),
    "ttest_ind": lambda t: f.ttest_ind(t, baseline="old", candidate="new"),
    "ttest_rel": lambda t: f.ttest_rel(t, baseline="old", candidate="new"),
    "ftest": lambda t: f.ftest(t, baseline="old", candidate="new"),
    "ks_2samp": lambda t: f.ks_2samp(t, baseline="old", candidate="new"),
    "shapiro": lambda t: f.shapiro(t),
}

#: Producers whose tables have no benchmark column (scores over all benchmarks).
NO_KEY_COLUMN = {"aggregate_score"}


def renderings(result):
    """Every rendering method the result has, called with its defaults."""
    names = ["to_text", "to_markdown", "to_json", "global_report", "detail_report"]
    out = {name: getattr(result, name)() for name in names if hasattr(result, name)}
    if hasattr(result, "_sections"):  # compare: the other orders of its reports too
        out["to_text_name"] = result.to_text(sort="name")
        out["to_text_delta"] = result.to_text(sort="delta")
        out["to_markdown_name"] = result.to_markdown(sort="name")
    return out


def check_result(result, keys, check, producer):
    out = renderings(result)
    assert all(isinstance(text, str) for text in out.values())
    doc = strict_loads(out["to_json"])
    if producer in NO_KEY_COLUMN:
        return
    tables = [doc[name] for name in doc if isinstance(doc[name], list) and doc[name]
              and isinstance(doc[name][0], dict) and "benchmark" in doc[name][0]]
    assert tables, "no table with the key column in the JSON"
    shown = [row["benchmark"] for row in tables[0]]
    for key in keys:
        assert any(check(key, got) for got in shown), (key, shown)
    for key in keys:
        text = text_of(key)
        if text:
            if producer == "compare" and text.startswith("Benchmark") and len(text) > 9:
                text = text[len("Benchmark"):]
            # the text table writes a control character as its escape (docs/cli.md): each run
            # of the key between control characters is shown as it is, and no control but the
            # line breaks between rows reaches the text
            for part in re.split(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", text):
                assert part in out["to_text"], (key, part)
            assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]",
                                 out["to_text"]), key
            # the Markdown, rendered by GitHub's renderer, shows the key in a cell as it is
            # (a cell's outer spaces trimmed; NUL replaced, as CommonMark requires)
            shown = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
            cells, _ = table_cells(out["to_markdown"])
            assert any(shown.strip(" \t") in cell for cell in cells), (key, shown, cells)


def key_values(key_type, draw_values):
    """Distinct key values as Arrow keeps them (one value for the null type)."""
    if key_type == pa.null():
        return [None]
    return list(dict.fromkeys(pa.array(draw_values, key_type).to_pylist()))


def produce(producer, table):
    try:
        return PRODUCERS[producer](table)
    except InputError as exc:  # a clear refusal is accepted: it must name the key column
        assert "benchmark" in str(exc), str(exc)
        return None


# --- the reproducers --------------------------------------------------------------------------

def test_reproducer_bytes_keys_to_json():
    result = f.describe(pa.table({"benchmark": [b"a", b"a"], "value": [1., 2.]}), variant=None)
    doc = strict_loads(result.to_json())
    assert [row["benchmark"] for row in doc["groups"]] == ["a"]
    assert doc["groups"][0]["mean"] == 1.5
    assert "b'a'" not in result.to_text() and "a" in result.to_text()


def test_reproducer_timestamp_keys_to_json():
    when = datetime.datetime(2020, 1, 1)
    result = f.describe(pa.table({"benchmark": pa.array([when] * 2), "value": [1., 2.]}),
                        variant=None)
    doc = strict_loads(result.to_json())
    assert datetime.datetime.fromisoformat(doc["groups"][0]["benchmark"]) == when
    assert doc["groups"][0]["benchmark"].startswith(when.isoformat())


# --- the forms, one by one ----------------------------------------------------------------------

def test_forms_of_each_type_in_json():
    keys = {
        "b": pa.array([b"\xff\x00", "é".encode()], pa.binary()),
        "d": pa.array([decimal.Decimal("1.10000"), decimal.Decimal("-0.00001")],
                      pa.decimal128(20, 5)),
        "t": pa.array([1577836800_000000001, None], pa.timestamp("ns", tz="Europe/Paris")),
        "u": pa.array([0, 1], pa.timestamp("ms", tz="UTC")),
        "du": pa.array([-1500, 172800000], pa.duration("ms")),
        "tm": pa.array([3723_000000007, 0], pa.time64("ns")),
        "x": pa.array([math.nan, math.inf], pa.float64()),
        "y": pa.array([-math.inf, 2.5], pa.float32()),
    }
    doc = strict_loads(Result(pa.table(keys), {"nan": math.nan, b"k": np.int64(3)}, []).to_json())
    rows = doc["groups"]
    assert [r["b"] for r in rows] == ["0x" + b"\xff\x00".hex(), "é"]
    assert [r["d"] for r in rows] == ["1.10000", "-0.00001"]
    assert rows[0]["t"] == "2020-01-01T01:00:00.000000001+01:00" and rows[1]["t"] is None
    assert [r["u"] for r in rows] == ["1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00.001Z"]
    assert [r["du"] for r in rows] == ["-PT1.5S", "PT172800S"]
    assert [r["tm"] for r in rows] == ["01:02:03.000000007", "00:00:00.000000000"]
    assert [r["x"] for r in rows] == [None, None] and [r["y"] for r in rows] == [None, 2.5]
    assert doc["summary"] == {"nan": None, "k": 3}


def test_text_and_markdown_cells():
    table = pa.table({"k": pa.array([b"a|b", b"\xfe"], pa.large_binary()),
                      "d": pa.array([decimal.Decimal("12.50"), None], pa.decimal128(6, 2)),
                      "x": [math.nan, -math.inf], "s": ["line\nbreak", None]})
    result = Result(table, {}, [])
    text = result.to_text()
    for cell in ["a|b", "0xfe", "12.50", "nan", "-inf"]:
        assert cell in text
    md = result.to_markdown()
    assert "a\\|b" in md and "line<br>break" in md and "| ---:|" not in md
    assert md.splitlines()[1] == "|:---|---:|---:|:---|"
    assert format_cell(datetime.date(2020, 2, 29)) == "2020-02-29"
    assert format_cell(b"\x00\xff") == "0x00ff" and format_cell(None) == ""


# --- every type, every producer ---------------------------------------------------------------

DT = datetime.datetime
#: Awkward values of each key type, for the deterministic sweep.
FIXED = {
    "string": ["Benchmark|x", "é\n"], "large_string": ["a", ""],
    "binary": [b"a", b"\xff\x00"], "large_binary": [b"", b"\x80"],
    "fixed_size_binary": [b"ab", b"\xfe\xff"], "bool": [True, False],
    **{f"int{w}": [-2 ** (w - 1), 2 ** (w - 1) - 1] for w in (8, 16, 32, 64)},
    **{f"uint{w}": [0, 2 ** w - 1] for w in (8, 16, 32, 64)},
    "float32": [1.5, -3.0e38], "float64": [1e300, -0.1],
    "decimal128": [decimal.Decimal("99999999.999"), decimal.Decimal("-0.001")],
    "decimal256": [decimal.Decimal("1" * 30 + "." + "2" * 20), decimal.Decimal("0E-20")],
    "date32": [datetime.date(1, 1, 1), datetime.date(9999, 12, 31)],
    "date64": [datetime.date(1969, 12, 31), datetime.date(2020, 2, 29)],
    "timestamp_s": [DT(1, 1, 2), DT(9999, 12, 30, 23, 59, 59)],
    "timestamp_ms": [DT(1969, 12, 31, 23, 59, 59, 999000), DT(2020, 1, 1)],
    "timestamp_us": [DT(2020, 1, 1, 0, 0, 0, 1), DT(1900, 3, 1)],
    "timestamp_ns": [DT(1970, 1, 1), DT(2199, 12, 31, 23, 59, 59, 999999)],
    "timestamp_s_utc": [DT(2020, 1, 1, tzinfo=UTC), DT(1960, 6, 1, 12, tzinfo=UTC)],
    "timestamp_ms_tz": [aware(DT(2020, 1, 1)), aware(DT(2020, 1, 1, 0, 0, 0, 5000))],
    "timestamp_us_zone": [aware(DT(2020, 7, 1)), aware(DT(2020, 12, 1, 0, 0, 0, 1)),
                          aware(DT(1911, 1, 1))],  # Paris local mean time: +00:09:21
    "timestamp_ns_utc": [DT(2020, 1, 1, tzinfo=UTC), DT(1970, 1, 1, tzinfo=UTC)],
    "time32_s": [datetime.time(0), datetime.time(23, 59, 59)],
    "time32_ms": [datetime.time(1, 2, 3, 4000), datetime.time(12)],
    "time64_us": [datetime.time(1, 2, 3, 4), datetime.time(0)],
    "time64_ns": [datetime.time(23, 59, 59, 999999), datetime.time(0, 0, 1)],
    "duration_s": [datetime.timedelta(days=-2), datetime.timedelta(seconds=1)],
    "duration_ms": [datetime.timedelta(milliseconds=-1500), datetime.timedelta(0)],
    "duration_us": [datetime.timedelta(microseconds=1), datetime.timedelta(days=10 ** 5)],
    "duration_ns": [datetime.timedelta(microseconds=-1), datetime.timedelta(hours=5)],
    "dictionary": ["x", "Benchmarky"], "null": [None],
}


def test_fixed_values_cover_every_type():
    assert sorted(FIXED) == sorted(KEY_TYPES)


@pytest.mark.parametrize("type_name", sorted(KEY_TYPES))
def test_describe_and_compare_render_every_key_type(type_name):
    key_type, _, check = KEY_TYPES[type_name]
    keys = key_values(key_type, FIXED[type_name])
    table = run_table(key_type, keys)
    for producer in ("describe", "compare", "speedup_test"):
        result = produce(producer, table)
        if result is not None:
            check_result(result, keys, check, producer)


@pytest.mark.parametrize("producer", sorted(PRODUCERS))
def test_every_producer_renders_awkward_keys(producer):
    for key_type, keys, check in [
        (pa.binary(), [b"Benchmarka", b"\xff\x00"], same_bytes),
        (pa.timestamp("ns", tz="Europe/Paris"),
         [aware(datetime.datetime(2020, 1, 1, 12)), aware(datetime.datetime(2021, 6, 1))],
         same_iso(datetime.datetime)),
        (pa.decimal256(40, 4), [decimal.Decimal("1.0000"), decimal.Decimal("-2.5000")],
         same_decimal(4)),
    ]:
        result = produce(producer, run_table(key_type, keys))
        if result is not None:
            check_result(result, keys, check, producer)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), type_name=st.sampled_from(sorted(KEY_TYPES)),
       producer=st.sampled_from(sorted(PRODUCERS)))
def test_renderings_of_any_key_type_property(data, type_name, producer):
    key_type, strategy, check = KEY_TYPES[type_name]
    drawn = data.draw(st.lists(strategy, min_size=1, max_size=3), label="keys")
    keys = key_values(key_type, drawn)
    result = produce(producer, run_table(key_type, keys))
    if result is not None:
        check_result(result, keys, check, producer)


def test_csv_table_writes_every_type():
    import io

    import pyarrow.csv as pacsv

    from fastperf.results.render import csv_table

    table = pa.table({
        "b": pa.array([b"\xff\x01", b"ok", None]),
        "du": pa.array([datetime.timedelta(days=1), None, datetime.timedelta(milliseconds=-5)]),
        "l": pa.array([[1, 2], None, []]),
        "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
        "x": [1.5, -math.inf, 3.0],
        "s": ["a", None, "c"],
    })
    sink = io.BytesIO()
    pacsv.write_csv(csv_table(table), sink)
    back = pacsv.read_csv(io.BytesIO(sink.getvalue()),
                          convert_options=pacsv.ConvertOptions(
                              strings_can_be_null=True,
                              column_types={n: pa.string() for n in ["b", "du", "l", "m", "s"]}))
    assert back.column("b").to_pylist() == ["0x" + b"\xff\x01".hex(), "ok", None]
    assert back.column("du").to_pylist() == ["PT86400S", None, "-PT0.005S"]
    assert [None if v is None else json.loads(v) for v in back.column("l").to_pylist()] == \
        [[1, 2], None, []]
    assert [None if v is None else json.loads(v) for v in back.column("m").to_pylist()] == \
        [{"k": 1}, None, {}]
    assert back.column("s").to_pylist() == ["a", None, "c"]
    assert csv_table(table).column("x").equals(table.column("x"))  # numbers untouched
