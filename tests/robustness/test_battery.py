"""Hostile-input battery (issue 18): every public function and CLI command, hypothesis-driven.

The contract checked for every call:

* table functions: either a result whose table has exactly one row per input group (the groups
  are counted here independently, in Python, from the key values the strategy generated: a null
  key is a group of its own, docs/data-model.md), with no NaN/inf in a float column of a row whose
  status is "ok" (exceptions listed in ``INF_OK`` with their documented reason), and every
  rendering (``to_text``, ``to_markdown``, ``to_json`` parsed by a strict ``json.loads``) works;
  or ``InputError`` / ``ValueError`` / ``TypeError`` (not a pyarrow exception) whose message names
  the argument or a column.
* array functions: no NaN statistic or p-value with status "ok", p-values in [0, 1], intervals
  ordered; or the documented error.
* CLI commands: exit status 0 or 2 (1 only for ``compare --fail-on``), no traceback, one line on
  standard error for an error.

The oracle of the group count is the set of key tuples built from the strategy's own Python
values; the oracle of "no silent NaN" is the documented status vocabulary ("ok" means computed).
The strategies and the contract checks are in tests/strategies.py. The settings are small and
derandomized (reproducible in CI); ``FASTPERF_BATTERY_SCALE=k`` multiplies the examples and
``FASTPERF_BATTERY_RANDOM=1`` draws fresh ones, for longer exploratory runs.
"""
from __future__ import annotations

import copy
import json
import math
import os
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, strategies as st

import fastperf as f
from fastperf.cli import main as cli_main

from strategies import (
    ALLOWED_ERRORS,
    FEW,
    INF_OK,
    INPUT_KINDS,
    KEY_POOLS,
    MAGNITUDES,
    NAN_OK,
    SETTINGS,
    as_input,
    check_error_only,
    check_no_silent_nan,
    check_ok_rows_ordered,
    check_renderings,
    check_table_call,
    float_values,
    key_column,
    message_names,
    one_sample_table,
    two_sample_table,
    value_column,
)


# --------------------------------------------------------------------------------------------
# table functions
# --------------------------------------------------------------------------------------------

@SETTINGS
@given(one_sample_table(), INPUT_KINDS)
def test_describe_hostile_tables(case, how):
    table, kw, keys, dup = case
    kw = dict(kw)
    kw.pop("_n_unit_keys")
    check_table_call("describe", lambda: f.describe(as_input(table, how), **kw), table, keys,
                     ["value", "by", "variant"] + [v for v in kw.values() if v], dup)


@SETTINGS
@given(one_sample_table(), INPUT_KINDS)
def test_check_hostile_tables(case, how):
    table, kw, keys, dup = case
    kw = dict(kw)
    kw.pop("_n_unit_keys")
    by = kw["by"] if kw["by"] is not None else []  # check's None: benchmark when present
    check_table_call("check", lambda: f.check(as_input(table, how), by=by,
                                              variant=kw["variant"]), table, keys,
                     ["value", "by", "variant"] + [v for v in kw.values() if v], dup)


@SETTINGS
@given(one_sample_table())
def test_plan_runs_hostile_tables(case):
    table, kw, keys, dup = case
    kw = dict(kw)
    kw.pop("_n_unit_keys")
    check_table_call("plan_runs", lambda: f.plan_runs(table, assurance=None, **kw), table, keys,
                     ["value", "by", "variant"], dup)


@SETTINGS
@given(one_sample_table())
def test_shapiro_table_hostile(case):
    table, kw, keys, dup = case
    kw = dict(kw)
    if kw.pop("_n_unit_keys"):  # docs/normality.md: shapiro does not split by unit
        keys = keys[:-1]
    check_table_call("shapiro", lambda: f.shapiro(table, **kw), table, keys,
                     ["value", "by", "variant"], dup)




@SETTINGS
@given(two_sample_table(), st.sampled_from(["bh", "holm", "none"]), INPUT_KINDS)
def test_compare_hostile_tables(case, adjust, how):
    table, keys, dup = case
    check_table_call("compare", lambda: f.compare(as_input(table, how), baseline="base",
                                                  candidate="cand", by="benchmark", adjust=adjust),
                     table, keys, ["value", "variant", "benchmark", "base", "cand"], dup)


@SETTINGS
@given(two_sample_table(), st.sampled_from(["e-bh", "none"]), INPUT_KINDS)
def test_decide_hostile_tables(case, adjust, how):
    table, keys, dup = case
    check_table_call("decide", lambda: f.decide(as_input(table, how), baseline="base",
                                                candidate="cand", by="benchmark", margin=0.02,
                                                adjust=adjust),
                     table, keys, ["value", "variant", "benchmark", "base", "cand"], dup)


@SETTINGS
@given(two_sample_table(positive=True))
def test_speedup_test_hostile_tables(case):
    table, keys, dup = case
    check_table_call("speedup_test", lambda: f.speedup_test(table, baseline="base", candidate="cand"),
                     table, keys, ["value", "variant", "benchmark", "base", "cand"], dup)


@SETTINGS
@given(two_sample_table(positive=True), st.sampled_from([None, "run"]))
def test_sparc_hostile_tables(case, pair):
    table, keys, dup = case
    check_table_call("sparc", lambda: f.sparc(table, baseline="base", candidate="cand", pair=pair,
                                              min_runs=2),
                     table, keys, ["value", "variant", "benchmark", "run", "base", "cand"], dup)


@SETTINGS
@given(two_sample_table(positive=True))
def test_hpt_hostile_tables(case):
    table, keys, dup = case
    check_table_call("hpt", lambda: f.hpt(table, baseline="base", candidate="cand"),
                     table, keys, ["value", "variant", "benchmark", "base", "cand"], dup)


TWO_SAMPLE_TABLE_FUNCS = {
    "mannwhitneyu": lambda t: f.mannwhitneyu(t, baseline="base", candidate="cand"),
    "wilcoxon": lambda t: f.wilcoxon(t, baseline="base", candidate="cand"),
    "ttest_ind": lambda t: f.ttest_ind(t, baseline="base", candidate="cand"),
    "ttest_rel": lambda t: f.ttest_rel(t, baseline="base", candidate="cand"),
    "ftest": lambda t: f.ftest(t, baseline="base", candidate="cand"),
    "ks_2samp": lambda t: f.ks_2samp(t, baseline="base", candidate="cand"),
    "permutation_test": lambda t: f.permutation_test(t, baseline="base", candidate="cand",
                                                     n_resamples=99, seed=1),
    "bootstrap": lambda t: f.bootstrap(t, baseline="base", candidate="cand", n_resamples=99,
                                       seed=1, method="percentile"),
}


@pytest.mark.parametrize("name", sorted(TWO_SAMPLE_TABLE_FUNCS))
@FEW
@given(case=two_sample_table(positive=True), how=INPUT_KINDS)
def test_two_sample_table_forms_hostile(name, case, how):
    table, keys, dup = case
    check_table_call(name, lambda: TWO_SAMPLE_TABLE_FUNCS[name](as_input(table, how)), table, keys,
                     ["value", "variant", "benchmark", "run", "base", "cand"], dup)


@SETTINGS
@given(two_sample_table(positive=True), st.sampled_from(["geomean", "mean"]),
       st.sampled_from(["per-run", "propagation"]))
def test_aggregate_score_hostile_tables(case, kind, method):
    table, keys, dup = case
    variants = [v for v in set(table.column(1).to_pylist())] if table.num_rows else []
    check_table_call("aggregate_score",
                     lambda: f.aggregate_score(table, kind=kind, method=method, run=None),
                     table, [variants and [str(v) for v in table.column(1).to_pylist()]] if variants else [],
                     ["value", "variant", "benchmark", "run"], dup)


@SETTINGS
@given(two_sample_table(), st.sampled_from([None, "benchmark"]), st.booleans())
def test_anova_hostile_tables(case, by, welch):
    table, keys, dup = case
    check_table_call("anova", lambda: f.anova(table, by=by, equal_var=not welch), table,
                     keys if by else [], ["value", "variant", "benchmark"], dup)


@FEW
@given(st.integers(1, 3), value_column(16, positive=True), st.booleans())
def test_factorial_hostile_values(reps, values, log):
    levels = [("lo", "hi")[i & 1] for i in range(4)], [("lo", "hi")[(i >> 1) & 1] for i in range(4)]
    n = 4 * reps
    a = pa.array((levels[0] * reps)[:n])
    b = pa.array((levels[1] * reps)[:n])
    table = pa.table({"A": a, "B": b, "value": values.slice(0, n)})
    result = check_error_only("factorial", lambda: f.factorial(table, factors=["A", "B"], log=log),
                              ["value", "A", "B", "log", "factors"])
    if result is not None:
        check_no_silent_nan("factorial", result.table)
        check_renderings("factorial", result)
        status = result.table.column("status")[0].as_py()
        distinct = len(set(v for v in values.slice(0, n).to_pylist()
                           if v is not None and not (isinstance(v, float) and math.isnan(v))))
        assert not (status.startswith("all values equal") and distinct > 1), \
            f"factorial: status {status!r} for {distinct} distinct values"
        if status == "ok":  # the effects of an ok group are finite (I's ss is NaN, docs/designs.md)
            for name in ("q", "s_q") + (("ci_low", "ci_high") if reps > 1 else ()):
                col = np.asarray(result.effects.column(name).to_numpy(zero_copy_only=False), float)
                assert np.isfinite(col).all(), f"factorial: effects {name} {col} with status ok"


def test_duplicate_value_column_named_in_message():
    """Issue 18 class 1, exactly."""
    t = pa.table([["a", "a"], [1., 2.], [3., 4.]], names=["benchmark", "value", "value"])
    with pytest.raises(f.InputError, match="value"):
        f.describe(t, variant=None)


@pytest.mark.parametrize("typ", ["binary", "timestamp", "date32", "decimal", "int64", "bool",
                                 "large_binary", "uint64", "timestamp_tz", "null", "float64"])
def test_every_key_type_renders(typ):
    """Issue 18 class 2: every rendering handles every Arrow key type (one group per key)."""
    arrow_type, pool = KEY_POOLS[typ]
    keys = [pool[0]] * 3 + [pool[-1]] * 3
    table = pa.table({"benchmark": pa.array(keys, arrow_type), "value": [1., 2., 3., 4., 5., 7.]})
    check_table_call("describe", lambda: f.describe(table, variant=None), table, [keys], ["value"])


def test_large_int64_values_exact_or_named():
    """Issue 18 class 3: int64 values beyond 2**53."""
    t = pa.table({"benchmark": ["a", "a"], "value": pa.array([2 ** 60, 2 ** 60 + 1000], pa.int64())})
    check_table_call("describe", lambda: f.describe(t, variant=None), t, [["a", "a"]], ["value"])


def test_no_key_column_by_none():
    """Issue 18 class 7: one group, the whole table."""
    t = pa.table({"value": [1., 2., 3.]})
    r = check_table_call("describe", lambda: f.describe(t, by=None, variant=None), t, [], ["value"])
    assert r is not None and r.table.column("n").to_pylist() == [3]


# --------------------------------------------------------------------------------------------
# array functions
# --------------------------------------------------------------------------------------------

@st.composite
def sample(draw, min_size=0, max_size=12, positive=False):
    n = draw(st.integers(min_size, max_size))
    vals = draw(float_values(n, positive=positive))
    return np.array([math.nan if v is None else v for v in vals], dtype=float)


def _as_arrays(result, fields):
    return {k: np.atleast_1d(np.asarray(getattr(result, k))) for k in fields}


def check_test_result(label, result, extra_float=()):
    fields = ["statistic", "pvalue", "status"] + list(extra_float)
    a = _as_arrays(result, fields)
    ok = a["status"] == "ok"
    p = a["pvalue"]
    assert np.all(np.isnan(p) | ((p >= 0) & (p <= 1))), f"{label}: p-value outside [0, 1]: {p}"
    for name in ["statistic", "pvalue"] + list(extra_float):
        v = a[name].astype(float)
        nan_ok = (label, name) in NAN_OK  # array forms: the zstatistic of exact tests
        inf_ok = (label, name) in INF_OK
        bad = ok & ((np.isnan(v) & (not nan_ok)) | (np.isinf(v) & (not inf_ok)))
        assert not bad.any(), f"{label}: {name}={v[bad]} with status ok"


def call_array(label, call, names, extra_float=()):
    try:
        result = call()
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), f"{label}: raw pyarrow error {exc!r}"
        assert message_names(exc, names), f"{label}: message names no argument: {exc!r}"
        return None
    check_test_result(label, result, extra_float)
    return result


ARRAY_TWO_SAMPLE = {
    "ttest_ind": (lambda x, y: f.ttest_ind(x, y), ()),
    "ttest_ind_welch": (lambda x, y: f.ttest_ind(x, y, equal_var=False), ()),
    "ftest": (lambda x, y: f.ftest(x, y), ()),
    "mannwhitneyu": (lambda x, y: f.mannwhitneyu(x, y), ("zstatistic",)),
    "mannwhitneyu_asym": (lambda x, y: f.mannwhitneyu(x, y, method="asymptotic"), ("zstatistic",)),
    "ks_2samp": (lambda x, y: f.ks_2samp(x, y), ()),
    "f_oneway": (lambda x, y: f.f_oneway(x, y), ()),
    "permutation_test": (lambda x, y: f.permutation_test((x, y), n_resamples=99, seed=1), ()),
}


@pytest.mark.parametrize("name", sorted(ARRAY_TWO_SAMPLE))
@FEW
@given(x=sample(), y=sample())
def test_two_sample_arrays_hostile(name, x, y):
    call, extra = ARRAY_TWO_SAMPLE[name]
    label = name.split("_asym")[0].replace("_welch", "")
    call_array(label, lambda: call(x, y), ["x", "y", "sample", "samples", "input"], extra)


PAIRED = {
    "ttest_rel": (lambda x, y: f.ttest_rel(x, y), ()),
    "wilcoxon": (lambda x, y: f.wilcoxon(x, y), ("zstatistic",)),
    "wilcoxon_asym": (lambda x, y: f.wilcoxon(x, y, method="asymptotic"), ("zstatistic",)),
}


@pytest.mark.parametrize("name", sorted(PAIRED))
@FEW
@given(x=sample(), data=st.data())
def test_paired_arrays_hostile(name, x, data):
    y = data.draw(float_values(len(x)))
    y = np.array([math.nan if v is None else v for v in y], dtype=float)
    call, extra = PAIRED[name]
    call_array(name.split("_asym")[0], lambda: call(x, y), ["x", "y", "pair", "length"], extra)


@FEW
@given(x=sample())
def test_shapiro_array_hostile(x):
    call_array("shapiro", lambda: f.shapiro(x), ["x", "sample", "input"])


@FEW
@given(st.integers(1, 4), st.integers(0, 8), st.sampled_from(MAGNITUDES), st.booleans())
def test_batched_2d_hostile(rows, cols, scale, with_nan):
    rng = np.random.default_rng(rows * 10 + cols)
    x = rng.lognormal(size=(rows, cols)) * scale
    y = rng.lognormal(size=(rows, cols + 1)) * scale
    if with_nan and cols:
        x[0, 0] = np.nan
    for label, call, extra in [
        ("ttest_ind", lambda: f.ttest_ind(x, y, axis=-1), ()),
        ("ftest", lambda: f.ftest(x, y, axis=-1), ()),
        ("mannwhitneyu", lambda: f.mannwhitneyu(x, y, axis=-1), ("zstatistic",)),
        ("ks_2samp", lambda: f.ks_2samp(x, y, axis=-1), ()),
        ("f_oneway", lambda: f.f_oneway(x, y, axis=-1), ()),
        ("shapiro", lambda: f.shapiro(y, axis=-1), ()),
        ("ttest_rel", lambda: f.ttest_rel(x, x * 1.5 + 1e-3 * scale, axis=-1), ()),
        ("wilcoxon", lambda: f.wilcoxon(x, x * 1.5, axis=-1), ("zstatistic",)),
    ]:
        call_array(label, call, ["x", "y", "axis", "sample", "input"], extra)


@FEW
@given(x=sample(positive=True), y=sample(positive=True),
       statistic=st.sampled_from(["median_ratio", "mean_ratio", "mean_diff", "median_diff",
                                  "hodges_lehmann"]),
       method=st.sampled_from(["bca", "percentile", "basic", "studentized"]))
def test_bootstrap_arrays_hostile(x, y, statistic, method):
    label = "bootstrap-studentized" if method == "studentized" else "bootstrap"
    try:
        r = f.bootstrap((x, y), statistic=statistic, method=method, n_resamples=50, seed=1)
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), repr(exc)
        assert message_names(exc, ["statistic", "method", "data", "sample", "x", "y", "value"]), repr(exc)
        return
    low, high = float(r.confidence_interval.low), float(r.confidence_interval.high)
    if str(r.status) == "ok":
        assert np.isfinite(r.estimate), f"{label}: estimate {r.estimate} with status ok"
        for name, v in (("ci_low", low), ("ci_high", high)):
            assert not np.isnan(v), f"{label}: {name} NaN with status ok"
            assert np.isfinite(v) or (label, name) in INF_OK, f"{label}: {name}={v} with status ok"
        assert low <= high, f"{label}: interval [{low}, {high}] not ordered"
        se = float(r.standard_error)
        assert not np.isnan(se) and (se > 0 or not low < high), \
            f"{label}: standard_error {se} for the interval [{low}, {high}] with status ok"


def test_bootstrap_impossible_size_says_so():
    """Issue 18 class 8: a documented error up front, not MemoryError."""
    with pytest.raises(f.InputError, match="n_resamples"):
        f.bootstrap((np.ones(10),), statistic="mean", n_resamples=10 ** 12)


@FEW
@given(p=st.lists(st.sampled_from([0.0, 1.0, 0.5, 1e-300, 0.05, math.nan, 1.5, -0.1]), max_size=8),
       method=st.sampled_from(["holm", "bonferroni", "fdr_bh", "fdr_by", "hochberg", "bh"]))
def test_multipletests_hostile(p, method):
    r = check_error_only("multipletests", lambda: f.multipletests(np.array(p, dtype=float), method=method),
                         ["pvalues", "method", "p-value"])
    if r is not None:
        pc = np.asarray(r.pvalues_corrected, dtype=float)
        assert np.all(np.isnan(pc) | ((pc >= 0) & (pc <= 1))), pc


@FEW
@given(alpha=st.sampled_from([0.05, 0.0, 1.0, 1e-300, -1.0, math.nan, 2.0]),
       m=st.sampled_from([1, 0, 10 ** 12, -3, 2.5]))
def test_alpha_corrections_hostile(alpha, m):
    for name in ("bonferroni_alpha", "sidak_alpha", "fwer_bound"):
        r = check_error_only(name, lambda: getattr(f, name)(alpha, m), ["alpha", "m"])  # noqa: B023
        if r is not None:
            v = float(np.asarray(r))
            assert 0 <= v <= 1, f"{name}({alpha}, {m}) = {v}"


@FEW
@given(prop=st.sampled_from([0.5, 0.0, 1.0, 1e-300, -0.1, math.nan]),
       prec=st.sampled_from([0.05, 1e-200, 1e-10, 0.0, 2.0, -1.0, math.inf]),
       conf=st.sampled_from([0.95, 0.5, 1.0, 0.0, 0.9999999]))
def test_min_benchmarks_hostile(prop, prec, conf):
    r = check_error_only("min_benchmarks", lambda: f.min_benchmarks(prop, prec, conf),
                         ["proportion", "precision", "confidence"])
    if r is not None:
        v = np.asarray(r)
        assert np.all(v >= 1), f"min_benchmarks({prop}, {prec}, {conf}) = {v}"


@FEW
@given(s=st.sampled_from([0, 3, 10, -1, 11, 2 ** 62]), n=st.sampled_from([0, 10, 1, 2 ** 62]),
       conf=st.sampled_from([0.95, 0.0, 1.0, 0.5]),
       method=st.sampled_from(["wilson-cc", "wilson", "clopper-pearson", "normal", "wald"]))
def test_proportion_ci_hostile(s, n, conf, method):
    r = check_error_only("proportion_ci", lambda: f.proportion_ci(s, n, confidence=conf, method=method),
                         ["successes", "trials", "confidence", "method"])
    if r is not None:
        lo, hi = float(r.low), float(r.high)
        assert 0 <= lo <= hi <= 1, f"proportion_ci({s}, {n}) = [{lo}, {hi}]"


@FEW
@given(ns=st.sampled_from([1, 2, 5, 10 ** 9, 0, -1, 2.5]),
       c=st.sampled_from([0.95, 0.5, 0.0, 1.0, 1 - 1e-16]))
def test_student_coefficients_hostile(ns, c):
    r = check_error_only("student_coefficients", lambda: f.student_coefficients(ns, c),
                         ["ns", "confidences", "confidence"])
    if r is not None:
        assert np.all(np.isfinite(np.asarray(r))), f"student_coefficients({ns}, {c}) = {r}"


@FEW
@given(x=sample(), method=st.sampled_from(["average", None]))
def test_rankdata_hostile(x, method):
    r = check_error_only("rankdata", lambda: f.rankdata(x), ["a", "nan_policy"])
    if r is not None and not np.isnan(x).any():
        assert np.isclose(np.sum(r), len(x) * (len(x) + 1) / 2)


@FEW
@given(k=st.sampled_from([0, 1, 3, 7, 31, -1]), p=st.sampled_from([0, 1, 2, 5, -1]),
       gens=st.sampled_from([None, 5, ["D=AB"], {"D": "ABC"}, ["X=Y"], "D=AB", [""]]))
def test_fractional_design_hostile(k, p, gens):
    check_error_only("fractional_design", lambda: f.fractional_design(k, p, generators=gens),
                     ["k", "p", "generators", "generator"])


@FEW
@given(w=st.sampled_from([[1, -1], [1, 1], [0, 0], [1, -1, 0], {"base": 1, "zzz": -1}, "ab",
                          [math.nan, 1], [1e308, -1e308]]),
       conf=st.sampled_from([0.9, 0.0, 1.5]))
def test_contrasts_hostile(w, conf):
    t = pa.table({"variant": ["base"] * 3 + ["cand"] * 3, "value": [1., 2., 3., 4., 5., 6.]})
    res = f.anova(t)
    r = check_error_only("contrasts", lambda: f.contrasts(res, w, confidence=conf),
                         ["weights", "confidence", "alternative", "zzz"])
    if r is not None:
        check_renderings("contrasts", r)


@FEW
@given(benchmarks=st.sampled_from([0, 1, 3, -1]), runs=st.sampled_from([0, 1, 5, -2]),
       seed=st.sampled_from([0, -1, None]), paired=st.booleans())
def test_simulate_hostile(benchmarks, runs, seed, paired):
    r = check_error_only("simulate", lambda: f.simulate(benchmarks, runs, seed=seed, paired=paired),
                         ["benchmarks", "runs", "seed"])
    if r is not None:
        assert r.table.num_rows == benchmarks * runs * 2


@FEW
@given(src=st.sampled_from([5, [1, 2], {"a": 1}, "", "no/such/file.json", b"\x00\x01", None,
                            ["a", 5], object()]))
def test_read_hostile_sources(src):
    check_error_only("read", lambda: f.read(src), ["source", "file", "path", "no/such", "int", "object"])


# --------------------------------------------------------------------------------------------
# files and the CLI
# --------------------------------------------------------------------------------------------

def _gbench(n, times):
    return json.dumps({"context": {"date": "x"}, "benchmarks": [
        {"name": f"BM_{i % 2}", "run_type": "iteration", "iterations": 10, "real_time": t,
         "cpu_time": t, "time_unit": "ns"} for i, t in enumerate(times[:n])]})


@st.composite
def hostile_file(draw):
    """(suffix, bytes) of a random hostile input file."""
    kind = draw(st.sampled_from(["bytes", "truncated_json", "nested_json", "csv", "go", "parquet",
                                 "good_json"]))
    if kind == "bytes":
        return ".bin", draw(st.binary(min_size=0, max_size=200))
    if kind in ("truncated_json", "good_json"):
        text = _gbench(6, [draw(st.sampled_from([1.0, 1e308, 1e-308, -1.0, 0.0, 2.5])) for _ in range(6)])
        if kind == "truncated_json":
            text = text[: draw(st.integers(0, len(text) - 1))]
        return ".json", text.encode()
    if kind == "nested_json":
        depth = draw(st.sampled_from([50, 2000, 100_000]))
        return ".json", ('{"benchmarks": ' + "[" * depth + "]" * depth + "}").encode()
    if kind == "csv":
        header = draw(st.lists(st.sampled_from(["benchmark", "value", "variant", "", " name ", "ü",
                                                '"q"', "value", "run", "unit"]), min_size=1, max_size=5))
        rows = draw(st.lists(st.lists(st.sampled_from(["1", "1e308", "1e400", "-0", "nan", "x", "",
                                                       "99999999999999999999"]),
                                      min_size=len(header), max_size=len(header)), max_size=6))
        text = ",".join(header) + "\n" + "\n".join(",".join(r) for r in rows) + "\n"
        return ".csv", text.encode()
    if kind == "go":
        lines = []
        for i in range(draw(st.integers(1, 6))):
            iters = draw(st.sampled_from(["1", "1000", "99999999999999999999", "-5", "0"]))
            val = draw(st.sampled_from(["5", "1e308", "1e400", "99999999999999999999", "NaN",
                                        "-3", "0.5"]))
            unit = draw(st.sampled_from(["ns/op", "B/op", "MB/s", "x/op"]))
            lines.append(f"BenchmarkX{i % 2}-8 {iters} {val} {unit}")
        return ".txt", ("goos: linux\n" + "\n".join(lines) + "\n").encode()
    # parquet with hostile columns
    n = draw(st.integers(0, 6))
    bench, _ = draw(key_column(n))
    value = draw(value_column(n))
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"benchmark": bench, "variant": pa.array(["base"] * n), "value": value}), sink)
    return ".parquet", sink.getvalue().to_pybytes()


def run_cli(argv, capsys):
    """Exit status and stderr of fastperf.cli.main(argv); any escaping exception is a failure."""
    try:
        code = cli_main(argv)
    except SystemExit as exc:  # argparse: bad option values
        code = exc.code
        err = capsys.readouterr().err
        assert code == 2, f"argparse exit {code} for {argv}"
        assert "Traceback" not in err
        return code, err, True
    except BaseException as exc:  # noqa: BLE001 - a traceback on the CLI
        pytest.fail(f"fastperf {' '.join(map(str, argv))}: escaped {type(exc).__name__}: "
                    f"{str(exc)[:200]}")
    err = capsys.readouterr().err
    assert "Traceback" not in err, f"traceback on stderr for {argv}: {err[:500]}"
    return code, err, False


def check_cli(argv, capsys, gate=False):
    code, err, from_argparse = run_cli(argv, capsys)
    allowed = {0, 1, 2} if gate else {0, 2}
    assert code in allowed, f"exit {code} for {argv}: {err[:300]}"
    if code == 2 and not from_argparse:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1, f"{len(lines)} lines on stderr for {argv}: {err[:500]}"
        assert lines[0].startswith("fastperf: error:"), lines[0]
    return code


COMMON_FLAGS = st.lists(st.sampled_from([
    ["--format", "json"], ["--format", "markdown"], ["--format", "csv"], ["--confidence", "0.9"],
    ["--confidence", "2"], ["--confidence", "abc"], ["--by", "benchmark"], ["--by", "nope"],
    ["--variant", "none"], ["--unit", "none"], ["--benchmark", "name"], ["--value", "value"],
    ["--input-format", "csv"], ["--input-format", "json"], ["--metric", "cpu_time"],
    ["--variants", "a,b,c"],
]), max_size=3)


@SETTINGS
@given(files=st.lists(hostile_file(), min_size=1, max_size=2),
       command=st.sampled_from(["describe", "aggregate", "plan", "anova", "factorial", "compare"]),
       flags=COMMON_FLAGS)
def test_cli_hostile_files(files, command, flags, capsys):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, (suffix, data) in enumerate(files):
            p = os.path.join(d, f"in{i}{suffix}")
            with open(p, "wb") as fh:
                fh.write(data)
            paths.append(p)
        extra = ["--factors", "variant"] if command == "factorial" else []
        check_cli([command, *paths, *extra, *[x for fl in flags for x in fl]], capsys)


COMPARE_FLAGS = st.lists(st.sampled_from([
    ["--protocol", "speedup-test"], ["--protocol", "sparc"], ["--protocol", "hpt"],
    ["--adjust", "holm"], ["--adjust", "none"], ["--threshold", "5"], ["--threshold", "-1"],
    ["--margin", "0.05"], ["--higher-is-better"], ["--sort", "delta"], ["--method", "exact"],
    ["--fail-on", "worse"], ["--fail-threshold", "2%"], ["--alpha", "0"], ["--alpha", "0.05"],
    ["--pair", "run"], ["--confidences", "0.9,1.5"], ["--weights", "w"], ["--large-sample", "0"],
    ["--baseline", "nope"], ["--candidate", "old,new"], ["--direction", "ns/op=higher"],
    ["--benchmark", "name"], ["--format", "json"], ["--format", "markdown"],
]), max_size=4)

OLD = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples", "old.txt")
NEW = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples", "new.txt")


@SETTINGS
@given(flags=COMPARE_FLAGS)
def test_cli_compare_flag_combinations(flags, capsys):
    argv = ["compare", OLD, NEW, *[x for fl in flags for x in fl]]
    check_cli(argv, capsys, gate=["--fail-on", "worse"] in flags)


@FEW
@given(config=hostile_file())
def test_cli_compare_config_hostile(config, capsys):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "config" + config[0])
        with open(p, "wb") as fh:
            fh.write(config[1])
        check_cli(["compare", "--config", p], capsys)
        check_error_only("read_speedup_config", lambda: f.read_speedup_config(p),
                         ["config", p, os.path.basename(p), "path", "column", "line", "row"])


@FEW
@given(fmt=st.sampled_from(["text", "markdown", "json", "csv"]))
def test_cli_demo(fmt, capsys):
    assert check_cli(["demo", "--format", fmt], capsys) == 0


def test_cli_nested_json_is_exit_2(capsys):
    """Issue 18 class 4, exactly."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "deep.json")
        with open(p, "w") as fh:
            fh.write('{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + "}")
        assert check_cli(["describe", p], capsys) == 2


def test_cli_go_huge_iterations_is_exit_2_or_0(capsys):
    """Issue 18 class 5, exactly."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "go.txt")
        with open(p, "w") as fh:
            fh.write("BenchmarkX 99999999999999999999 5 ns/op\n")
        check_cli(["describe", p], capsys)


def test_cli_binary_config_is_exit_2(capsys):
    """Issue 18 class 6, exactly."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "config.csv")
        with open(p, "wb") as fh:
            fh.write(b"\xff\xfe\x00\x81binary\x00")
        assert check_cli(["compare", "--config", p], capsys) == 2
        with pytest.raises(f.InputError):
            f.read_speedup_config(p)


# --------------------------------------------------------------------------------------------
# hostile arguments, stream inputs, exactness of large integers, internal errors on the CLI
# --------------------------------------------------------------------------------------------

BASE_TABLE = pa.table({"benchmark": ["a"] * 6 + ["b"] * 6,
                       "variant": (["base"] * 3 + ["cand"] * 3) * 2,
                       "run": [0, 1, 2] * 4,
                       "value": [1., 1.1, 1.2, 1.3, 1.5, 1.4, 2., 2.2, 2.1, 2.3, 2.6, 2.5]})
HOSTILE_NUMBERS = ["0.95", 0, 1, math.nan, math.inf, 2, -1, True, None, [0.9], 1e-300, 10 ** 30]
HOSTILE_COLUMNS = [5, ["benchmark", "benchmark"], "value", "", [], ("benchmark",), "nope", None,
                   b"benchmark"]


@SETTINGS
@given(confidence=st.sampled_from(HOSTILE_NUMBERS + [0.9]),
       by=st.sampled_from(HOSTILE_COLUMNS + ["benchmark"]),
       value=st.sampled_from(["value", "benchmark", "nope", 5, None, "run"]),
       variant=st.sampled_from(["variant", None, "benchmark", "value", 7]),
       stream=st.booleans())
def test_describe_hostile_arguments(confidence, by, value, variant, stream):
    data = BASE_TABLE.to_reader() if stream else BASE_TABLE
    names = ["confidence", "by", "value", "variant", "unit", "column", "benchmark", "nope"]
    try:
        r = f.describe(data, by=by, value=value, variant=variant, confidence=confidence)
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), f"raw pyarrow error {exc!r}"
        assert message_names(exc, names), f"message names no argument: {exc!r}"
        return
    check_no_silent_nan("describe", r.table)
    check_ok_rows_ordered("describe", r.table)
    check_renderings("describe", r)


@SETTINGS
@given(baseline=st.sampled_from(["base", "cand", "nope", "", 5, None]),
       candidate=st.sampled_from(["cand", "base", ["cand", "cand"], [], "nope", 5]),
       alpha=st.sampled_from([0.05, 0, 1, math.nan, -0.1, "0.05"]),
       extra=st.sampled_from([{}, {"threshold": -1.0}, {"threshold": math.nan}, {"margin": -0.1},
                              {"margin": math.inf}, {"higher_is_better": "yes"},
                              {"higher_is_better": {"zz": True}}, {"method": "bogus"},
                              {"adjust": "bogus"}, {"by": "value"}, {"by": "variant"},
                              {"confidence": 1.0}]))
def test_compare_hostile_arguments(baseline, candidate, alpha, extra):
    names = ["baseline", "candidate", "alpha", "threshold", "margin", "higher_is_better", "method",
             "adjust", "by", "confidence", "variant", "nope", "base", "cand",
             *[str(v) for v in extra.values()], str(candidate), str(baseline), str(alpha)]
    try:
        r = f.compare(BASE_TABLE, baseline=baseline, candidate=candidate, alpha=alpha,
                      **{"by": "benchmark", **extra})
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), f"raw pyarrow error {exc!r}"
        assert message_names(exc, names), f"message names no argument: {exc!r}"
        return
    check_no_silent_nan("compare", r.table)
    check_ok_rows_ordered("compare", r.table)
    check_renderings("compare", r)


PROTOCOL_CALLS = {
    "speedup_test": lambda kw: f.speedup_test(BASE_TABLE, baseline="base", candidate="cand", **kw),
    "sparc": lambda kw: f.sparc(BASE_TABLE, baseline="base", candidate="cand", min_runs=2, **kw),
    "hpt": lambda kw: f.hpt(BASE_TABLE, baseline="base", candidate="cand", **kw),
    "aggregate_score": lambda kw: f.aggregate_score(BASE_TABLE, **kw),
    "plan_runs": lambda kw: f.plan_runs(BASE_TABLE, **kw),
    "anova": lambda kw: f.anova(BASE_TABLE, by="benchmark", **kw),
}
PROTOCOL_ARGS = {
    "speedup_test": [{"alpha": "x"}, {"alpha": 2}, {"weights": "nope"}, {"weights": {"a": -1}},
                     {"large_sample": -1}, {"precision": 0}, {"proportion_confidence": 1.5},
                     {"median_method": "bogus"}, {"weights": {"a": math.nan}}],
    "sparc": [{"margin": -1}, {"margin": (0.1, -0.1)}, {"margin": math.nan}, {"alpha": 0},
              {"adjust": "x"}, {"pair": "nope"}, {"scale": "x"}, {"min_runs": -5}],
    "hpt": [{"confidences": 0.9}, {"confidences": [1.5]}, {"confidences": []}, {"max_speedup": 0},
            {"max_speedup": math.inf}, {"scale": "bogus"}, {"alpha": -1}],
    "aggregate_score": [{"kind": "x"}, {"method": "x"}, {"weights": "nope"}, {"weights": {"a": -1}},
                        {"weights": {"a": 0, "b": 0}}, {"baseline": "nope"}, {"confidence": 0},
                        {"run": "nope"}, {"weights": "value"}],
    "plan_runs": [{"precision": 0}, {"precision": -1}, {"precision": math.inf}, {"target": "x"},
                  {"assurance": 1.0}, {"assurance": 0.3}, {"baseline": "nope", "candidate": "cand"},
                  {"confidence": 1.0}, {"precision": 1e-300}],
    "anova": [{"alpha": 0}, {"factor": "nope"}, {"factor": "value"}, {"factor": "benchmark"},
              {"equal_var": "no"}],
}


@pytest.mark.parametrize("name", sorted(PROTOCOL_CALLS))
def test_protocol_hostile_arguments(name):
    for kw in PROTOCOL_ARGS[name]:
        names = list(kw) + [str(v) for v in kw.values()] + ["column", "variant", "benchmark", "a"]
        try:
            r = PROTOCOL_CALLS[name](kw)
        except ALLOWED_ERRORS as exc:
            assert not isinstance(exc, pa.ArrowException), f"{name}({kw}): raw pyarrow {exc!r}"
            assert message_names(exc, names), f"{name}({kw}): message names no argument: {exc!r}"
            continue
        check_no_silent_nan(name, r.table)
        check_ok_rows_ordered(name, r.table)
        check_renderings(name, r)


@pytest.mark.parametrize("offset", [2 ** 53, 2 ** 60, 2 ** 62])
def test_large_int64_spread_exact_or_refused(offset):
    """Issue 18 class 3: int64 values beyond 2**53 converted exactly, or refused naming the column.

    Oracle: the exact sample sd of offset + [0, 1000, 3, 7] is that of [0, 1000, 3, 7] (shift
    invariance), computed by numpy on the small integers.
    """
    small = np.array([0, 1000, 3, 7])
    t = pa.table({"benchmark": ["a"] * 4, "value": pa.array([offset + int(v) for v in small], pa.int64())})
    try:
        r = f.describe(t, variant=None)
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException) and "value" in str(exc), repr(exc)
        return
    sd = r.table.column("sd")[0].as_py()
    warned = any("value" in w and ("exact" in w or "precision" in w or "2**53" in w)
                 for w in r.warnings)
    assert warned or sd == pytest.approx(np.std(small, ddof=1), rel=1e-9), \
        f"sd {sd} of int64 values near {offset}: exact {np.std(small, ddof=1)}, no warning"


def test_cli_internal_error_one_line_exit_3(monkeypatch, capsys):
    """An internal error (a bug): exit 3, one line asking for a report, no traceback."""
    import fastperf.cli as describe_module  # where the command looks `describe` up

    def boom(*args, **kwargs):
        raise RuntimeError("simulated bug")
    monkeypatch.setattr(describe_module, "describe", boom)
    code, err, _ = run_cli(["describe", OLD], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 3 and len(lines) == 1 and "report" in lines[0], (code, err)


COMMAND_FLAGS = {
    "describe": [["--by", "benchmark,benchmark"], ["--variant", "none"], ["--unit", "none"],
                 ["--confidence", "1"], ["--confidence", "nan"], ["--variants", "a"],
                 ["--variants", "a,a"], ["--metric", "cpu_time"], ["--value", "nope"]],
    "aggregate": [["--kind", "weighted"], ["--kind", "mean"], ["--method", "propagation"],
                  ["--weights", "nope"], ["--baseline", "nope"], ["--unit", "B/op"],
                  ["--unit", "nope"], ["--confidence", "0"]],
    "plan": [["--precision", "0"], ["--precision", "1e-300"], ["--precision", "-1"],
             ["--target", "halfwidth"], ["--assurance", "none"], ["--assurance", "1"],
             ["--baseline", "old", "--candidate", "new"], ["--baseline", "nope", "--candidate", "new"]],
    "anova": [["--factor", "nope"], ["--factor", "benchmark"], ["--by", "benchmark"], ["--welch"],
              ["--alpha", "1"], ["--alpha", "-1"]],
    "factorial": [["--factors", "variant"], ["--factors", "variant,benchmark"], ["--factors", "nope"],
                  ["--log"], ["--confidence", "2"], ["--by", "benchmark"]],
}
OUTPUTS = [[], ["--format", "json"], ["--format", "markdown"], ["--format", "csv"],
           ["--format", "parquet", "-o", "{d}/out.parquet"], ["-o", "/nonexistent/dir/out.txt"]]


@pytest.mark.parametrize("command", sorted(COMMAND_FLAGS))
@FEW
@given(data=st.data())
def test_cli_flag_combinations_on_good_files(command, data, capsys):
    flags = data.draw(st.lists(st.sampled_from(COMMAND_FLAGS[command]), max_size=3))
    out = data.draw(st.sampled_from(OUTPUTS))
    with tempfile.TemporaryDirectory() as d:
        argv = [command, OLD, NEW, *[x for fl in flags for x in fl], *[o.format(d=d) for o in out]]
        if command == "factorial" and not any(fl[0] == "--factors" for fl in flags):
            argv += ["--factors", "variant"]
        check_cli(argv, capsys)


# --------------------------------------------------------------------------------------------
# the battery's own findings, each as a regression test (hand-derived expectations)
# --------------------------------------------------------------------------------------------

def test_compare_all_values_missing_gets_its_row():
    """All values of a benchmark null/NaN: a row with a non-ok status (was IndexError)."""
    t = pa.table({"benchmark": ["a", "a"], "variant": ["base", "cand"],
                  "value": pa.array([None, math.nan], pa.float64())})
    r = check_table_call("compare", lambda: f.compare(t, baseline="base", candidate="cand",
                                                      by="benchmark"), t, [["a", "a"]], ["value"])
    if r is not None:
        assert r.table.column("status")[0].as_py() != "ok"


def test_speedup_one_value_per_side_no_silent_nan():
    """n = 1 per side: pvalue_ftest is NaN (no variance), so status must not be "ok" unless documented."""
    t = pa.table({"benchmark": ["a", "a"], "variant": ["base", "cand"], "value": [2., 1.]})
    check_table_call("speedup_test", lambda: f.speedup_test(t, baseline="base", candidate="cand"),
                     t, [["a", "a"]], ["value"])


def test_sparc_paired_all_ratios_one_no_silent_nan():
    """Every paired ratio equal to 1: p = 1 (documented), statistic NaN with status ok (not)."""
    t = pa.table({"benchmark": ["a"] * 10, "variant": ["base"] * 5 + ["cand"] * 5,
                  "run": list(range(5)) * 2, "value": [1.] * 10})
    check_table_call("sparc", lambda: f.sparc(t, baseline="base", candidate="cand"), t,
                     [["a"] * 10], ["value"])


def test_permutation_test_infinite_input_not_ok():
    """x = [inf]: the exact permutation p-value of 2 arrangements cannot be 0; inf is not "ok"."""
    r = f.permutation_test((np.array([np.inf, 1.0]), np.array([1.0, 2.0])), n_resamples=99, seed=1)
    assert str(r.status) != "ok" or (np.isfinite(r.statistic) and r.pvalue >= 1 / 6), r


def test_bootstrap_basic_near_float_max_not_silent_inf():
    """Finite input (1e308, 1e-308): an infinite interval needs a status naming the overflow."""
    r = f.bootstrap((np.array([1e308]), np.array([1e-308] * 8 + [1e300])), statistic="mean_diff",
                    method="basic", n_resamples=50, seed=1)
    low, high = float(r.confidence_interval.low), float(r.confidence_interval.high)
    assert str(r.status) != "ok" or (np.isfinite(low) and np.isfinite(high) and low <= high), r


def test_student_coefficients_extreme_confidence_finite():
    """t(1 - 5e-17, 1 df) = tan(pi (0.5 - 5e-17)) ~ 6.4e15 is finite: no inf (or an error)."""
    c = 0.9999999999999999
    r = check_error_only("student_coefficients", lambda: f.student_coefficients(2, c), ["confidences"])
    if r is not None:
        assert np.isfinite(r), r


def test_compare_candidate_not_a_name_message():
    """compare(candidate=5): an InputError naming `candidate` or the variant column (was "'int'
    object is not iterable")."""
    with pytest.raises(f.InputError, match="candidate|variant"):
        f.compare(BASE_TABLE, baseline="base", candidate=5, by="benchmark")


ISSUE_TABLE_CASES = {
    "describe alternating 1e300/1e-300": (
        lambda: f.describe(pa.table({"benchmark": ["a"] * 8, "value": [1e300, 1e-300] * 4}),
                           variant=None), 1),
    "describe 1.5e308": (
        lambda: f.describe(pa.table({"benchmark": ["a"] * 3, "value": [1.5e308, 1.6e308, 1.55e308]}),
                           variant=None), 1),
    "speedup_test 1.4e308..1.7e308": (
        lambda: f.speedup_test(pa.table({"benchmark": ["a"] * 10, "variant": ["b"] * 5 + ["c"] * 5,
                                         "value": list(np.linspace(1.4e308, 1.7e308, 5)) * 2}),
                               baseline="b", candidate="c"), 1),
    "aggregate propagation zero variance": (
        lambda: f.aggregate_score(pa.table({"benchmark": ["a", "a", "b", "b"], "variant": ["v"] * 4,
                                            "value": [2., 2., 3., 3.]}), method="propagation"), 1),
    "aggregate propagation 1e-308": (
        lambda: f.aggregate_score(pa.table({"benchmark": ["a", "a", "b", "b"], "variant": ["v"] * 4,
                                            "value": [1e-308, 2e-308, 3e-308, 1e-308]}),
                                  method="propagation"), 1),
    "sparc near max": (
        lambda: f.sparc(pa.table({"benchmark": ["a"] * 10, "variant": ["b"] * 5 + ["c"] * 5,
                                  "run": list(range(5)) * 2,
                                  "value": list(np.linspace(1.4e308, 1.7e308, 5)) + [1e-300] * 5}),
                        baseline="b", candidate="c"), 1),
    "hpt near max": (
        lambda: f.hpt(pa.table({"benchmark": ["a"] * 10, "variant": ["b"] * 5 + ["c"] * 5,
                                "value": list(np.linspace(1.4e308, 1.7e308, 5)) + [1e-300] * 5}),
                      baseline="b", candidate="c"), 1),
    "anova near max": (
        lambda: f.anova(pa.table({"variant": ["b"] * 3 + ["c"] * 3,
                                  "value": [1.7e308, 1.6e308, 1.5e308, -1.7e308, -1.6e308, -1.5e308]})), 1),
    "aggregate geomean near max": (
        lambda: f.aggregate_score(pa.table({"benchmark": ["a", "b", "a", "b"], "variant": ["v"] * 4,
                                            "value": [1.7e308, 1.6e308, 1.5e308, 1.7e308]})), 1),
    "permutation near max": (
        lambda: f.permutation_test(pa.table({"benchmark": ["a"] * 6, "variant": ["b"] * 3 + ["c"] * 3,
                                             "value": [1.7e308, 1.6e308, 1.5e308,
                                                       -1.7e308, -1.6e308, -1.5e308]}),
                                   baseline="b", candidate="c", n_resamples=99, seed=1), 1),
}


@pytest.mark.parametrize("case", sorted(ISSUE_TABLE_CASES))
def test_issue_silent_results_reproducers(case):
    """Issue 18's "silent wrong results" at the float64 limits: finite figures, or a status."""
    call, groups = ISSUE_TABLE_CASES[case]
    try:
        r = call()
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException), repr(exc)
        return
    label = case.split()[0]
    assert r.table.num_rows == groups
    check_no_silent_nan(label, r.table)
    check_ok_rows_ordered(label, r.table)
    check_renderings(label, r)


def test_mannwhitneyu_constant_asymptotic_z_finite():
    """Issue 18 (R cross-check): all values tied, asymptotic: z 0 or NaN with a status, not -inf."""
    r = f.mannwhitneyu(np.full(4, 2.), np.full(3, 2.), method="asymptotic")
    assert float(r.pvalue) == 1.0
    assert float(r.zstatistic) == 0.0 or (np.isnan(r.zstatistic) and str(r.status) != "ok"), r


@pytest.mark.parametrize("call, argument", [
    (lambda: f.shapiro(["a"] * 10), "x"),
    (lambda: f.hpt(BASE_TABLE, baseline="base", candidate="cand", confidences=0.9), "confidences"),
    (lambda: f.fractional_design(4, 1, generators=5), "generators"),
    (lambda: f.describe(BASE_TABLE, by=5), "by"),
    (lambda: f.describe(BASE_TABLE, confidence="0.95"), "confidence"),
    (lambda: f.aggregate_score(BASE_TABLE, kind="weighted", weights="benchmark"), "weights"),
    (lambda: f.speedup_test(BASE_TABLE, baseline="base", candidate="cand", weights="benchmark"),
     "weights"),
])
def test_issue_unclear_messages(call, argument):
    """Issue 18 "Unclear messages": an InputError naming the argument (and not a file error)."""
    with pytest.raises(f.InputError) as info:
        call()
    message = str(info.value)
    assert argument in message and "no such file" not in message and "value=" not in message, message


def test_cli_compare_renamed_benchmark_column(capsys):
    """Issue 18: `fastperf compare name.parquet --benchmark name` works as `describe` does."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "name.parquet")
        pq.write_table(pa.table({"name": ["a"] * 6, "variant": ["b"] * 3 + ["c"] * 3,
                                 "value": [1., 1.1, 1.2, 1.5, 1.6, 1.7]}), p)
        assert check_cli(["describe", p, "--benchmark", "name"], capsys) == 0
        assert check_cli(["compare", p, "--benchmark", "name"], capsys) == 0
        assert check_cli(["compare", p, "--benchmark", "name", "--protocol", "speedup-test"], capsys) == 0


def test_mannwhitneyu_shift_near_float_max_finite():
    """The Hodges-Lehmann shift of 1e-308 vs 1e308 is -1e308 (finite): not -inf with status ok.

    Oracle: with one value per side the shift is the single difference, x - y = -1e308, and it
    must lie in its own interval (the table gives ci [-1e308, -1e308]).
    """
    t = pa.table({"benchmark": ["c", "c"], "variant": ["base", "cand"], "value": [1e-308, 1e308]})
    row = f.mannwhitneyu(t, baseline="base", candidate="cand").table.to_pylist()[0]
    assert row["status"] != "ok" or row["shift"] == pytest.approx(1e-308 - 1e308), row


ARRAY_OPTIONS = {
    "mannwhitneyu": (lambda x, y, kw: f.mannwhitneyu(x, y, **kw), ("zstatistic",), [
        {"alternative": "less"}, {"alternative": "greater"}, {"use_continuity": False},
        {"method": "exact"}, {"method": "asymptotic", "alternative": "greater"},
        {"nan_policy": "omit"}, {"nan_policy": "raise"}]),
    "wilcoxon": (lambda x, y, kw: f.wilcoxon(x, y[: len(x)] if len(y) >= len(x) else y, **kw),
                 ("zstatistic",), [
        {"zero_method": "pratt"}, {"zero_method": "zsplit"}, {"correction": True},
        {"method": "asymptotic", "zero_method": "zsplit"}, {"alternative": "less"},
        {"nan_policy": "omit"}, {"method": "exact", "zero_method": "pratt"}]),
    "ks_2samp": (lambda x, y, kw: f.ks_2samp(x, y, **kw), (), [
        {"alternative": "less"}, {"alternative": "greater"}, {"method": "exact"},
        {"method": "asymp"}, {"center": "median"}, {"center": "median", "method": "exact"}]),
    "ttest_ind": (lambda x, y, kw: f.ttest_ind(x, y, **kw), ("df", "estimate", "standard_error"), [
        {"equal_var": False}, {"alternative": "less"}, {"alternative": "greater", "equal_var": False}]),
    "ftest": (lambda x, y, kw: f.ftest(x, y, **kw), ("df_x", "df_y"), [
        {"alternative": "less"}, {"alternative": "greater"}]),
    "permutation_test": (lambda x, y, kw: f.permutation_test((x, y), n_resamples=60, seed=2, **kw), (), [
        {"statistic": "median_diff"}, {"alternative": "less"}, {"paired": True},
        {"statistic": "median_diff", "alternative": "greater"}]),
    "f_oneway": (lambda x, y, kw: f.f_oneway(x, y, x, **kw), ("df_alternatives", "df_error"), [
        {"equal_var": False}]),
}


@pytest.mark.parametrize("name", sorted(ARRAY_OPTIONS))
@FEW
@given(x=sample(), y=sample(), data=st.data())
def test_array_options_hostile(name, x, y, data):
    """Every option of the array forms on hostile samples: the contract or a documented error."""
    call, extra, options = ARRAY_OPTIONS[name]
    kw = data.draw(st.sampled_from(options))
    if name == "permutation_test" and kw.get("paired"):
        y = y[: len(x)] if len(y) >= len(x) else np.resize(y, len(x)) if len(y) else y
    call_array(name, lambda: call(x, y, kw), ["x", "y", "sample", "samples", "input", "pair",
                                              "length", *kw, *map(str, kw.values())], extra)


@FEW
@given(rows=st.lists(st.sampled_from(["normal", "nan", "inf", "constant", "tiny", "huge", "mixed"]),
                     min_size=1, max_size=4),
       n=st.integers(0, 7), axis0=st.booleans())
def test_batches_with_hostile_rows(rows, n, axis0):
    """2-D batches whose rows are hostile: each row is its own test, NaN only with a status."""
    rng = np.random.default_rng(n)
    make = {"normal": lambda: rng.normal(5, 1, n), "nan": lambda: np.full(n, np.nan),
            "inf": lambda: np.r_[np.inf, rng.normal(5, 1, max(n - 1, 0))][:n],
            "constant": lambda: np.full(n, 3.0), "tiny": lambda: rng.lognormal(size=n) * 1e-308,
            "huge": lambda: rng.lognormal(size=n) * 1e307,
            "mixed": lambda: np.resize([1e-300, 1e300], n)}
    x = np.array([make[r]() for r in rows]).reshape(len(rows), n)
    y = np.array([make[r]() for r in reversed(rows)]).reshape(len(rows), n)
    if axis0:
        x, y, axis = x.T, y.T, 0
    else:
        axis = -1
    for label, call, extra in [
        ("ttest_ind", lambda: f.ttest_ind(x, y, axis=axis), ()),
        ("ttest_rel", lambda: f.ttest_rel(x, y, axis=axis), ()),
        ("ftest", lambda: f.ftest(x, y, axis=axis), ()),
        ("mannwhitneyu", lambda: f.mannwhitneyu(x, y, axis=axis), ("zstatistic",)),
        ("wilcoxon", lambda: f.wilcoxon(x, y, axis=axis), ("zstatistic",)),
        ("ks_2samp", lambda: f.ks_2samp(x, y, axis=axis), ()),
        ("f_oneway", lambda: f.f_oneway(x, y, axis=axis), ()),
        ("shapiro", lambda: f.shapiro(x, axis=axis), ()),
    ]:
        call_array(label, call, ["x", "y", "axis", "sample", "input", "inf", "NaN", "empty"], extra)
    r = check_error_only("rankdata", lambda: f.rankdata(x, axis=axis, nan_policy="omit"),
                         ["a", "axis", "nan_policy"])
    if r is not None:
        r = np.asarray(r, dtype=float)
        assert not np.isinf(r).any(), r


def test_factorial_tiny_distinct_values_not_all_equal():
    """Values 1e-308..5e-308 differ: the status must not say "all values equal" (SS underflow)."""
    vals = [1e-308, 3e-308, 2e-308, 5e-308, 1.5e-308, 2.5e-308, 2e-308, 4e-308]
    t = pa.table({"A": ["lo", "hi"] * 4, "B": ["lo", "lo", "hi", "hi"] * 2, "value": vals})
    r = f.factorial(t, factors=["A", "B"])
    status = r.table.column("status")[0].as_py()
    assert status == "ok", status  # distinct finite values: the allocation is defined
    # oracle: the same design scaled by 1e300 (the allocation is scale-free)
    ref = f.factorial(t.set_column(2, "value", pa.array([v * 1e300 for v in vals])),
                      factors=["A", "B"])
    np.testing.assert_allclose(r.effects.column("share").to_numpy(zero_copy_only=False),
                               ref.effects.column("share").to_numpy(zero_copy_only=False),
                               rtol=1e-9)


@pytest.mark.parametrize("method", ["percentile", "bca", "basic", "studentized"])
def test_bootstrap_tiny_values_scale_free(method):
    """Bootstrap of values ~1e-208: the same interval and standard error as at ~1, times 1e-208.

    Oracle: every bootstrap figure of these statistics is scale-equivariant, and the same seed
    draws the same resamples; so the result at scale 1e-208 is the result at scale 1 times 1e-208
    (was: standard_error 0.0, and NaN studentized intervals, with status ok).
    """
    x = np.array([1., 3., 2., 5., 4.5, 2.2])
    y = np.array([1.5, 2.5, 2., 4., 3.3, 1.1])
    ref = f.bootstrap((x, y), statistic="mean_diff", method=method, n_resamples=99, seed=1)
    r = f.bootstrap((x * 1e-208, y * 1e-208), statistic="mean_diff", method=method,
                    n_resamples=99, seed=1)
    assert str(ref.status) == "ok" and str(r.status) == "ok", (ref.status, r.status)
    got = np.array([r.confidence_interval.low, r.confidence_interval.high, r.standard_error]) / 1e-208
    want = np.array([ref.confidence_interval.low, ref.confidence_interval.high, ref.standard_error])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_plan_runs_halfwidth_overflow_has_status():
    """Values 1e-308 and 1e308: halfwidth t(0.975, 1) * sd / sqrt(2) ~ 6.4e308 overflows float64,
    so the row needs a status naming the overflow, not inf with status ok."""
    t = pa.table({"benchmark": ["a", "a"], "value": [1e-308, 1e308]})
    check_table_call("plan_runs", lambda: f.plan_runs(t, variant=None, assurance=None), t,
                     [["a", "a"]], ["value"])


def test_large_int64_distinct_values_not_called_constant():
    """int64 values 2**62 and 2**62 + 1 differ: never "every value equal" (float64 rounding).

    Oracle: the exact sd of [0, 1] shifted is sqrt(1/2); either the figures are exact, or an
    InputError / warning names the column `value` and the precision loss.
    """
    t = pa.table({"benchmark": ["a", "a"], "value": pa.array([2 ** 62, 2 ** 62 + 1], pa.int64())})
    try:
        r = f.describe(t, variant=None)
    except ALLOWED_ERRORS as exc:
        assert not isinstance(exc, pa.ArrowException) and "value" in str(exc), repr(exc)
        return
    row = r.table.to_pylist()[0]
    warned = any("value" in w and ("exact" in w or "precision" in w or "2**53" in w) for w in r.warnings)
    assert warned or row["sd"] == pytest.approx(math.sqrt(0.5)), row
    assert not row["status"].startswith("constant"), row


@pytest.mark.parametrize("make", [
    lambda pd: pd.DataFrame({"benchmark": ["a", 1, None], "value": [1., 2., 3.]}),
    lambda pd: pd.DataFrame({"benchmark": ["a", "a", "b"], "value": [1., "x", 3.]}),
], ids=["mixed-object-key", "mixed-object-value"])
def test_pandas_object_columns_clean_error(make):
    """A pandas object column that Arrow cannot convert: an InputError naming the column, not
    pyarrow's ArrowTypeError."""
    pd = pytest.importorskip("pandas")
    df = make(pd)
    check_error_only("describe", lambda: f.describe(df, variant=None), ["benchmark", "value"])


@SETTINGS
@given(two_sample_table(positive=True), st.sampled_from(["per-run", "propagation"]))
def test_hostile_key_types_as_variant_and_factor(case, method):
    """The hostile key column as the *variant* of aggregate_score and the *factor* of anova: one
    row per variant / group, and every rendering (with its extra tables) of those key types."""
    table, keys, dup = case
    if dup:
        return
    bench = keys[0]
    check_table_call("aggregate_score",
                     lambda: f.aggregate_score(table, variant="benchmark", by="variant", run=None,
                                               method=method),
                     table, [bench] if table.num_rows else [], ["value", "variant", "benchmark"])
    check_table_call("anova", lambda: f.anova(table, factor="benchmark", by="variant"), table,
                     [[str(v) for v in table.column("variant").to_pylist()]],
                     ["value", "variant", "benchmark"])


@st.composite
def factorial_table(draw):
    """A 2^2 design with hostile factor types, replications, dropped rows and hostile values."""
    ka = draw(st.sampled_from(["string", "binary", "int64", "bool", "timestamp", "decimal", "date32",
                               "dictionary"]))
    kb = draw(st.sampled_from(["string", "int8", "uint64", "float64", "dictionary"]))
    la, lb = KEY_POOLS[ka][1][:2], KEY_POOLS[kb][1][:2]
    reps = draw(st.integers(1, 3))
    a_vals = [la[i & 1] for i in range(4)] * reps
    b_vals = [lb[(i >> 1) & 1] for i in range(4)] * reps
    values = draw(float_values(4 * reps, positive=True, specials=False))
    keep = [i for i in range(4 * reps) if draw(st.integers(0, 12))]
    mk = lambda vals, kind: (pa.array(vals, pa.string()).dictionary_encode() if kind == "dictionary"  # noqa: E731
                             else pa.array(vals, KEY_POOLS[kind][0]))
    table = pa.table({"A": mk([a_vals[i] for i in keep], ka), "B": mk([b_vals[i] for i in keep], kb),
                      "value": pa.array([values[i] for i in keep], pa.float64())})
    return table, reps


@SETTINGS
@given(factorial_table(), st.booleans())
def test_factorial_hostile_designs(case, log):
    table, reps = case
    result = check_error_only("factorial", lambda: f.factorial(table, factors=["A", "B"], log=log),
                              ["value", "A", "B", "log", "factors", "cell", "run", "level"])
    if result is not None:
        assert result.table.num_rows == 1
        check_no_silent_nan("factorial", result.table)
        check_renderings("factorial", result)


def _paths(doc, path=()):
    """Every path into a JSON document (containers and leaves)."""
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, path + (i,))


def _set(doc, path, value):
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


HOSTILE_JSON_VALUES = [None, "x", "", 10 ** 30, -1, 0, [], {}, True, math.nan, 1e308, [[[]]],
                       {"a": None}, "1e400", 2 ** 63]


@SETTINGS
@given(tool=st.sampled_from(["pyperf", "gbench", "pytest_benchmark", "hyperfine"]),
       data=st.data())
def test_tool_json_mutations(tool, data, capsys):
    """A valid result file of each tool with 1-3 values replaced by hostile ones: `read` returns
    a table or raises a documented error; the CLI exits 0 or 2 with one line."""
    import tool_files
    table = f.simulate(2, 3, seed=0).table
    make = {"pyperf": tool_files.pyperf_doc, "gbench": tool_files.gbench_doc,
            "pytest_benchmark": tool_files.pytest_benchmark_doc,
            "hyperfine": tool_files.hyperfine_doc}[tool]
    doc = make(table, "baseline")
    paths = list(_paths(doc))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        try:
            # a copy: a later mutation inside an inserted list or dict must not change the
            # shared hostile value (hypothesis replays a case and needs the same draws)
            doc = _set(doc, path, copy.deepcopy(data.draw(st.sampled_from(HOSTILE_JSON_VALUES))))
        except (KeyError, IndexError, TypeError):
            pass  # the path went away with an earlier mutation
        paths = list(_paths(doc))
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, f"{tool}.json")
        with open(p, "w") as fh:
            json.dump(doc, fh)
        try:
            f.read(p)
        except (*ALLOWED_ERRORS, OSError) as exc:
            assert not isinstance(exc, pa.ArrowException), f"read: raw pyarrow error {exc!r}"
            assert "json" in str(exc).lower() or p in str(exc) or os.path.basename(p) in str(exc) \
                or message_names(exc, ["benchmark", "value", "unit", "run", "key", "field"]), repr(exc)
        check_cli(["describe", p], capsys)


@SETTINGS
@given(case=two_sample_table(positive=True), data=st.data(),
       protocol=st.sampled_from(["compare", "speedup_test", "sparc", "hpt"]))
def test_hostile_unit_column_splits_groups(case, data, protocol):
    """A unit column of a hostile type: the protocols split every benchmark by unit, one row per
    (benchmark, unit) (docs/compare.md, docs/speedup-test.md, docs/relevance.md)."""
    table, keys, dup = case
    if dup:
        return
    n = table.num_rows
    unit, uvals = data.draw(key_column(n, kind=data.draw(st.sampled_from(
        ["string", "dictionary", "binary", "large_string", "int8"])), nulls=False))
    table = table.append_column("unit", unit)
    calls = {
        "compare": lambda: f.compare(table, baseline="base", candidate="cand", by="benchmark"),
        "speedup_test": lambda: f.speedup_test(table, baseline="base", candidate="cand"),
        "sparc": lambda: f.sparc(table, baseline="base", candidate="cand", min_runs=2),
        "hpt": lambda: f.hpt(table, baseline="base", candidate="cand"),
    }
    check_table_call(protocol, calls[protocol], table, [keys[0], uvals],
                     ["value", "variant", "benchmark", "unit", "run", "base", "cand"])


@pytest.mark.parametrize("unit", [pa.array([b"ns"] * 4, pa.binary()), pa.array([1] * 4, pa.int8())],
                         ids=["binary", "int8"])
def test_compare_non_string_unit_column(unit):
    """compare with a binary / integer `unit` column: a row per benchmark and unit, or an
    InputError naming `unit` (was TypeError "a bytes-like object is required" / AttributeError
    "'int' object has no attribute 'strip'" from fastperf/data/units.py)."""
    t = pa.table({"benchmark": ["a"] * 4, "variant": ["base", "base", "cand", "cand"],
                  "value": [1., 2., 3., 4.], "unit": unit})
    check_table_call("compare", lambda: f.compare(t, baseline="base", candidate="cand", by="benchmark"),
                     t, [["a"] * 4], ["unit"])


def test_cli_compare_binary_unit_parquet_exit_2(capsys):
    """A Parquet file whose `unit` column is binary: compare exits 0 or 2, never 1 (internal)."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "u.parquet")
        pq.write_table(pa.table({"benchmark": ["a"] * 6, "variant": ["b"] * 3 + ["c"] * 3,
                                 "value": [1., 1.1, 1.2, 1.5, 1.6, 1.7],
                                 "unit": pa.array([b"ns"] * 6, pa.binary())}), p)
        check_cli(["compare", p], capsys)
