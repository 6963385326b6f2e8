"""Hypothesis strategies and contract checks of the hostile-input battery (issue 18).

Used by tests/robustness/test_battery.py: hostile Arrow tables (key columns of every groupable
type and some that are not, value columns of every numeric type and some that are not,
NaN/inf/null patterns, magnitudes from 1e-308 to 1e308, duplicate column names, empty and
one-row tables, several record batches, per-chunk dictionaries), hostile samples for the array
forms, and the checks of the contract (one row per group, no NaN/inf with status "ok" outside
the documented exceptions, intervals ordered, p-values in [0, 1], every rendering, clean errors).
"""
from __future__ import annotations

import datetime
import decimal
import json
import math
import os

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import fastperf as f

#: FASTPERF_BATTERY_SCALE=k multiplies every test's examples (a longer exploratory run)
SCALE = int(os.environ.get("FASTPERF_BATTERY_SCALE", "1"))
#: FASTPERF_BATTERY_RANDOM=1: fresh random examples (exploration); CI stays derandomized
DERANDOMIZE = os.environ.get("FASTPERF_BATTERY_RANDOM", "0") != "1"
SETTINGS = settings(
    max_examples=20 * SCALE, deadline=None, derandomize=DERANDOMIZE, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
FEW = settings(SETTINGS, max_examples=10 * SCALE)

#: documented errors of the API; pyarrow's exceptions subclass ValueError/TypeError and are not
ALLOWED_ERRORS = (f.InputError, ValueError, TypeError)

#: (function, column) pairs whose value may be infinite on a row with status "ok", and why
INF_OK = {
    # docs/parametric.md: "a constant y alone gives F = inf and p as R's var.test"
    ("ftest", "statistic"),
    # docs/resampling.md: a studentized bootstrap interval is unbounded on a side (status ok)
    ("bootstrap-studentized", "ci_low"), ("bootstrap-studentized", "ci_high"),
    # docs/rank-tests.md: where no interval of order statistics reaches the confidence (3 vs 3
    # values at 95 %), the Hodges-Lehmann interval is the whole line
    ("mannwhitneyu", "ci_low"), ("mannwhitneyu", "ci_high"),
    ("wilcoxon", "ci_low"), ("wilcoxon", "ci_high"), ("compare", "ci_high"),
    # docs/sequential.md: the confidence sequence is the whole line until it can exclude (the
    # 4th unit), and stays so for a benchmark whose evidence is too thin
    ("decide", "ci_high"),
    # docs/check.md: a relative change exp(d) - 1 whose log difference d (a log slope over 10
    # runs, a transient's mean log difference) is beyond log(float max), e.g. 1e-308 to 1e-10
    ("check", "drift_per_10"), ("check", "warmup_change"),
}
#: (function, column) -> predicate on the row (a dict): when that column may be NaN with status
#: "ok", and the documented reason
NAN_OK = {
    # docs/rank-tests.md: an exact rank test has no normal approximation, zstatistic NaN
    ("mannwhitneyu", "zstatistic"): lambda row: True,
    ("wilcoxon", "zstatistic"): lambda row: True,
    # docs/speedup-test.md: "Shapiro-Wilk p of each sample (NaN when not testable)"
    ("speedup_test", "pvalue_shapiro_baseline"): lambda row: True,
    ("speedup_test", "pvalue_shapiro_candidate"): lambda row: True,
    # docs/speedup-test.md: mean_test "none" is "no conclusion on the mean"
    ("speedup_test", "pvalue_mean"): lambda row: row.get("mean_test") == "none",
    # docs/relevance.md: "the z columns are NaN where a test was exact"
    ("sparc", "z_difference"): lambda row: str(row.get("method", "")).startswith("exact"),
    ("sparc", "z_upper"): lambda row: str(row.get("method", "")).startswith("exact"),
    ("sparc", "z_lower"): lambda row: str(row.get("method", "")).startswith("exact"),
    # docs/designs.md: s_e = sqrt(SSE / (n (r - 1))) is undefined without replication (r = 1)
    ("factorial", "s_e"): lambda row: row.get("r") == 1,
}


# --------------------------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------------------------

_TS = [datetime.datetime(2020, 1, 1), datetime.datetime(1970, 1, 1, 0, 0, 1),
       datetime.datetime(2262, 4, 11)]
KEY_POOLS = {
    "string": (pa.string(), ["a", "", "ü|\n`*"]),
    "large_string": (pa.large_string(), ["a", "b b", "x" * 40]),
    "binary": (pa.binary(), [b"a", b"\xff\x00", b""]),
    "large_binary": (pa.large_binary(), [b"k", b"\x80"]),
    "int64": (pa.int64(), [0, -1, 2 ** 62]),
    "int8": (pa.int8(), [1, -128]),
    "uint64": (pa.uint64(), [0, 2 ** 64 - 1]),
    "float64": (pa.float64(), [1.5, 1e308]),
    "bool": (pa.bool_(), [True, False]),
    "timestamp": (pa.timestamp("us"), _TS),
    "timestamp_tz": (pa.timestamp("ns", tz="UTC"),
                     [datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)]),
    "date32": (pa.date32(), [datetime.date(2020, 1, 1), datetime.date(1, 1, 1)]),
    "decimal": (pa.decimal128(12, 3), [decimal.Decimal("1.500"), decimal.Decimal("-2.000")]),
    "dictionary": ("dict", ["a", "b"]),
    "null": (pa.null(), [None]),
    "list": (pa.list_(pa.int64()), [[1, 2], []]),
    "struct": (pa.struct([("a", pa.int64())]), [{"a": 1}, {"a": 2}]),
    "chunked_dictionary": ("chunked_dict", ["a", "b", "c"]),
}


def _hashable(v):
    """A key value as a hashable Python object (lists and structs become tuples)."""
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


@st.composite
def key_column(draw, n, kind=None, nulls=True):
    """A key column of n rows of a hostile Arrow type, and its Python values."""
    kind = kind or draw(st.sampled_from(sorted(KEY_POOLS)))
    typ, pool = KEY_POOLS[kind]
    choices = list(pool) + ([None] if nulls and draw(st.booleans()) else [])
    values = [draw(st.sampled_from(choices)) for _ in range(n)]
    if typ == "dict":
        arr = pa.array(values, pa.string()).dictionary_encode()
    elif typ == "chunked_dict":  # each chunk with its own dictionary (as pa.concat_tables gives)
        cut = draw(st.integers(0, n))
        arr = pa.chunked_array([pa.array(values[:cut], pa.string()).dictionary_encode(),
                                pa.array(values[cut:], pa.string()).dictionary_encode()])
    else:
        arr = pa.array(values, typ)
    return arr, [_hashable(v) for v in values]


MAGNITUDES = [1e-308, 1e-300, 1e-200, 1e-10, 1.0, 1e10, 1e200, 1e300, 1e308]


@st.composite
def float_values(draw, n, positive=False, specials=True):
    """n floats: one magnitude class (or mixed), maybe NaN/inf/None."""
    mode = draw(st.sampled_from(["scale", "mixed", "constant", "near_max", "ints"]))
    if mode == "scale":
        s = draw(st.sampled_from(MAGNITUDES))
        vals = [s * draw(st.floats(1.0, 1.7)) for _ in range(n)]
    elif mode == "mixed":
        vals = [draw(st.sampled_from(MAGNITUDES)) for _ in range(n)]
    elif mode == "constant":
        c = draw(st.sampled_from(MAGNITUDES))
        vals = [c] * n
    elif mode == "near_max":
        vals = [draw(st.floats(1.4e308, 1.7e308)) for _ in range(n)]
    else:
        vals = [float(draw(st.integers(1, 5))) for _ in range(n)]
    if not positive and draw(st.booleans()):
        vals = [-v if draw(st.booleans()) else v for v in vals]
    if specials and n:
        for i in range(n):
            if draw(st.integers(0, 9)) == 0:
                vals[i] = draw(st.sampled_from([math.nan, None, math.inf, -math.inf, 0.0]))
    return vals


@st.composite
def value_column(draw, n, positive=False, specials=True):
    """A value column of a hostile type: float64/float32/int64/uint64/decimal/string."""
    typ = draw(st.sampled_from(["float64", "float64", "float64", "float32", "int64", "uint64",
                                "decimal", "string", "float16", "bool", "duration", "null",
                                "dict_float", "sliced"]))
    if typ == "float16":
        return pa.array(np.array(draw(float_values(n, positive, False)), dtype=np.float64)
                        .clip(-6e4, 6e4).astype(np.float16))
    if typ == "bool":
        return pa.array([draw(st.booleans()) for _ in range(n)], pa.bool_())
    if typ == "duration":
        return pa.array([draw(st.integers(1, 10 ** 12)) for _ in range(n)], pa.duration("ns"))
    if typ == "null":
        return pa.nulls(n, pa.null())
    if typ == "dict_float":
        return pa.array(draw(float_values(n, positive, specials)), pa.float64()).dictionary_encode()
    if typ == "sliced":  # an array with a non-zero offset, its first and last slots hostile
        vals = draw(float_values(n, positive, specials))
        return pa.array([math.inf] + vals + [math.nan], pa.float64()).slice(1, n)
    if typ in ("float64", "float32"):
        vals = draw(float_values(n, positive, specials))
        if typ == "float32":
            vals = [None if v is None else math.copysign(math.inf, v) if abs(v) > 3.4e38
                    else float(np.float32(v)) for v in vals]
        return pa.array(vals, pa.float64() if typ == "float64" else pa.float32())
    if typ == "int64":
        big = draw(st.booleans())
        vals = [draw(st.integers(2 ** 60, 2 ** 63 - 1) if big else st.integers(1, 10 ** 6)) for _ in range(n)]
        if not positive and draw(st.booleans()):
            vals = [-v for v in vals]
        return pa.array(vals, pa.int64())
    if typ == "uint64":
        vals = [draw(st.integers(2 ** 63 - 10, 2 ** 64 - 1)) | 1 for _ in range(n)]
        return pa.array(vals, pa.uint64())
    if typ == "decimal":
        vals = [decimal.Decimal(draw(st.integers(1, 10 ** 30))) / 1000 for _ in range(n)]
        return pa.array(vals, pa.decimal128(38, 3))
    vals = [draw(st.sampled_from(["1.5", "2", "x", ""])) for _ in range(n)]
    return pa.array(vals, pa.string())


@st.composite
def one_sample_table(draw, positive=False):
    """A describe-style table: hostile benchmark and variant keys, hostile values.

    Returns (table, kwargs, key_lists): key_lists are the Python values of the key columns used.
    """
    n = draw(st.integers(0, 9))
    bench, bvals = draw(key_column(n))
    vkind = draw(st.sampled_from(["string", "dictionary", "int64", "binary", "null"]))
    variant, vvals = draw(key_column(n, kind=vkind))
    value = draw(value_column(n, positive))
    names = ["benchmark", "variant", "value"]
    cols = [bench, variant, value]
    dup = draw(st.sampled_from([None, None, None, "value", "benchmark"]))
    if dup:
        cols.append(value if dup == "value" else bench)
        names.append(dup)
    with_unit = draw(st.integers(0, 3)) == 0
    if with_unit:  # a unit column of a hostile type: groups are split by unit (docs/describe.md)
        ukind = draw(st.sampled_from(["string", "dictionary", "binary", "int8"]))
        unit, uvals = draw(key_column(n, kind=ukind))
        cols.append(unit)
        names.append("unit")
    table = pa.table(cols, names=names)
    by = draw(st.sampled_from(["benchmark", None]))
    var = draw(st.sampled_from(["variant", None]))
    kw = {"by": by, "variant": var}
    keys = ([bvals] if by else []) + ([vvals] if var else []) + ([uvals] if with_unit else [])
    kw["_n_unit_keys"] = 1 if with_unit else 0  # popped by the tests
    if dup == "benchmark" and by is None:
        dup = None  # an unused duplicate column may be accepted
    if by is None and var is None and draw(st.booleans()):
        table = pa.table({"value": value})  # issue 18 class 7: no key column at all
        dup = None
        kw["_n_unit_keys"] = 0
        keys = []
    return table, kw, keys, dup


VARIANT_KINDS = ["string", "large_string", "dictionary"]


@st.composite
def two_sample_table(draw, positive=False, paired=False, specials=True):
    """A table with variants 'base'/'cand' per benchmark (hostile benchmark key and values)."""
    n_bench = draw(st.integers(1, 3))
    per = draw(st.integers(0, 7))
    kind = draw(st.sampled_from(sorted(KEY_POOLS)))
    typ, pool = KEY_POOLS[kind]
    if kind in ("null",):
        pool = [None]
    bench_vals, var_vals, runs = [], [], []
    for b in range(n_bench):
        key = pool[b % len(pool)]
        for side in ("base", "cand"):
            m = per if draw(st.integers(0, 5)) else draw(st.integers(0, 2))
            bench_vals += [key] * m
            var_vals += [side] * m
            runs += list(range(m))
    n = len(bench_vals)
    if typ == "dict":
        bench = pa.array(bench_vals, pa.string()).dictionary_encode()
    elif typ == "chunked_dict":
        cut = draw(st.integers(0, n))
        bench = pa.chunked_array([pa.array(bench_vals[:cut], pa.string()).dictionary_encode(),
                                  pa.array(bench_vals[cut:], pa.string()).dictionary_encode()])
    else:
        bench = pa.array(bench_vals, typ)
    vkind = draw(st.sampled_from(VARIANT_KINDS))
    variant = (pa.array(var_vals, pa.string()).dictionary_encode() if vkind == "dictionary"
               else pa.array(var_vals, pa.large_string() if vkind == "large_string" else pa.string()))
    value = draw(value_column(n, positive, specials))
    names = ["benchmark", "variant", "value", "run"]
    run_kind = draw(st.sampled_from(["int64", "int64", "int64", "string", "float64", "dup", "nulls",
                                     "timestamp"]))
    if run_kind == "string":
        run = pa.array([f"r{r}" for r in runs])
    elif run_kind == "float64":
        run = pa.array([r + 0.5 for r in runs], pa.float64())
    elif run_kind == "dup":  # every run id the same: pairs are ambiguous
        run = pa.array([0] * n, pa.int64())
    elif run_kind == "nulls":
        run = pa.array([None if i % 2 else r for i, r in enumerate(runs)], pa.int64())
    elif run_kind == "timestamp":
        run = pa.array([_TS[0] + datetime.timedelta(seconds=r) for r in runs], pa.timestamp("us"))
    else:
        run = pa.array(runs, pa.int64())
    cols = [bench, variant, value, run]
    dup = draw(st.sampled_from([None, None, None, None, "value", "variant"]))
    if dup:
        cols.append(value if dup == "value" else variant)
        names.append(dup)
    table = pa.table(cols, names=names)
    if n > 2 and draw(st.booleans()):  # several record batches
        table = pa.Table.from_batches(table.to_batches(max_chunksize=draw(st.integers(1, n - 1))))
    return table, [[_hashable(v) for v in bench_vals]], dup


# --------------------------------------------------------------------------------------------
# contract checks
# --------------------------------------------------------------------------------------------

def _strict_json(text):
    def bad(token):
        raise AssertionError(f"to_json emitted the non-JSON token {token}")
    return json.loads(text, parse_constant=bad)


def _n_groups(key_lists, n_rows):
    if not key_lists:
        return 1 if n_rows else 0
    return len(set(zip(*key_lists)))


def message_names(exc, names):
    """Whether the message names one of the arguments or columns (or the table, for an empty one)."""
    msg = str(exc)
    return any(str(name) in msg for name in [*names, "table"] if name not in (None, ""))


def check_table_call(label, call, table, key_lists, names, dup=None):
    """Run call(); check the contract for a table function. Returns the result or None."""
    try:
        result = call()
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), f"{label}: raw pyarrow error {exc!r}"
        if dup and table.num_rows:
            assert dup in str(exc) and ("duplicate" in str(exc).lower() or "twice" in str(exc).lower()
                                        or "times" in str(exc).lower()), f"{label}: {exc!r}"
        assert message_names(exc, list(names) + list(table.column_names)), \
            f"{label}: message names no argument or column: {exc!r}"
        return None
    assert dup is None, f"{label}: a table with the duplicate column {dup!r} was accepted"
    expected = _n_groups(key_lists, table.num_rows)
    out = result.table
    assert out.num_rows == expected, f"{label}: {out.num_rows} rows for {expected} groups"
    check_no_silent_nan(label, out)
    check_ok_rows_ordered(label, out)
    check_renderings(label, result)
    return result


def check_no_silent_nan(label, out):
    if "status" not in out.column_names:
        return
    status = out.column("status").to_pylist()
    rows = out.to_pylist() if len(set(out.column_names)) == out.num_columns else None
    for name in out.column_names:
        col = out.column(name)
        if not pa.types.is_floating(col.type):
            continue
        for i, v in enumerate(col.to_pylist()):
            if status[i] != "ok":
                continue
            if v is None or math.isnan(v):
                allowed = NAN_OK.get((label, name))
                assert allowed is not None and rows is not None and allowed(rows[i]), \
                    f"{label}: {name} is {v} with status ok (row {i})"
            elif math.isinf(v):
                assert (label, name) in INF_OK, f"{label}: {name} is {v} with status ok (row {i})"


def check_ok_rows_ordered(label, out):
    """On rows with status "ok": p-values in [0, 1] and every interval low <= high."""
    if "status" not in out.column_names or len(set(out.column_names)) != out.num_columns:
        return
    rows = [r for r in out.to_pylist() if r["status"] == "ok"]
    for row in rows:
        for name, v in row.items():
            if name.startswith("pvalue") and isinstance(v, float) and not math.isnan(v):
                assert 0 <= v <= 1, f"{label}: {name}={v} outside [0, 1] with status ok"
            if name.endswith("_low") or name.startswith("ci_low"):
                high = name[:-4] + "_high" if name.endswith("_low") else name.replace("low", "high")
                hv = row.get(high)
                if isinstance(v, float) and isinstance(hv, float) and not (math.isnan(v) or math.isnan(hv)):
                    assert v <= hv, f"{label}: interval {name}={v} > {high}={hv} with status ok"


def check_renderings(label, result):
    for render in ("to_text", "to_markdown"):
        text = getattr(result, render)()
        assert isinstance(text, str), f"{label}.{render}"
    _strict_json(result.to_json())


def check_error_only(label, call, names):
    """For functions without a grouped table: the call works or raises a documented error."""
    try:
        return call()
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), f"{label}: raw pyarrow error {exc!r}"
        assert message_names(exc, names), f"{label}: message names no argument: {exc!r}"
        return None


class ArrowStream:
    """A foreign object exporting an Arrow stream (as polars and duckdb objects do)."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def as_input(table, how):
    """The table as a Table, a RecordBatchReader or an __arrow_c_stream__ object."""
    if how == "reader":
        return table.to_reader()
    if how == "stream":
        return ArrowStream(table)
    return table


INPUT_KINDS = st.sampled_from(["table", "table", "reader", "stream"])
