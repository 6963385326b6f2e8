"""Summary-statistics inputs (tables of n, mean and sd; summaries read from tool files):
negative/NaN sd and odd run counts refused or named, summary statistics near the float64 limits,
and the cv of a zero mean.

Oracles: scipy's ``ttest_ind_from_stats`` on the same summaries rescaled by a power of ten
(t and p are scale-free), Fieller's interval written out here from its definition on rescaled
values, and hand-derived values.
"""
from __future__ import annotations

import contextlib
import json
import math
import warnings

import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

import fastperf
from fastperf import InputError
from fastperf.io.summaries import MAX_SUMMARY_N, is_summary_table


def _summaries(**columns):
    base = {"benchmark": ["b", "b"], "variant": ["old", "new"], "unit": ["ns", "ns"]}
    return fastperf.read(pa.table({**base, **columns}), summaries=True)


def _no_warnings():
    """A context where any RuntimeWarning is an error (warnings must not leak)."""
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("error", RuntimeWarning)
    return stack


# --- 11: negative and NaN sd -----------------------------------------------------------------

def test_negative_sd_in_a_table_is_refused():
    with pytest.raises(InputError, match=r"summary column 'sd' of benchmark 'b' \(row 0\) is "
                                         r"-6.0: a sample standard deviation is >= 0"):
        _summaries(n=[20, 20], mean=[100.0, 90.0], sd=[-6.0, 5.0])


def test_infinite_sd_is_refused():
    with pytest.raises(InputError, match="summary column 'sd'.*a spread is a finite number"):
        _summaries(n=[20, 20], mean=[100.0, 90.0], sd=[math.inf, 5.0])


def test_nan_sd_is_not_given_and_named_in_the_status():
    s = _summaries(n=[20, 20], mean=[100.0, 90.0], sd=[math.nan, 5.0])
    assert s.column("sd").to_pylist() == [None, 5.0]
    c = fastperf.compare(s, baseline="old", candidate="new").table.to_pylist()[0]
    assert c["status"] == "the file gives no sd: no test (rank tests need the raw runs)"
    assert math.isnan(c["pvalue"])
    d = fastperf.describe(s, variant="variant").table.to_pylist()
    by_variant = {r["variant"]: r for r in d}
    assert by_variant["old"]["status"] == "the file gives no sd: no interval"
    assert math.isnan(by_variant["old"]["ci_mean_low"])


def test_negative_stddev_in_a_pytest_benchmark_save_is_refused(tmp_path):
    doc = {"machine_info": {}, "commit_info": {}, "datetime": "x", "version": "4.0.0",
           "benchmarks": [{"name": "t", "fullname": "m::t", "stats": {
               "min": 1, "max": 2, "mean": 1.5, "stddev": -1, "rounds": 2, "median": 1.5,
               "iqr": 0.5, "q1": 1, "q3": 2}}]}
    path = tmp_path / ".benchmarks" / "m" / "0001_x.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"0001_x.json: summary column 'sd' of benchmark "
                                         r"'m::t' \(row 0\) is -1.0"):
        fastperf.read(path)


def _bdn(mean, sd, allocated=None):
    entry = {"DisplayInfo": "T.M: DefaultJob", "Namespace": "N", "Type": "T", "Method": "M",
             "FullName": "N.T.M",
             "Statistics": {"N": 3, "Mean": mean, "StandardDeviation": sd, "Min": 1.0,
                            "Max": 3.0, "Median": 2.0, "InterquartileRange": 1.0}}
    if allocated is not None:
        entry["Memory"] = {"Gen0Collections": 0, "Gen1Collections": 0, "Gen2Collections": 0,
                           "TotalOperations": 1, "BytesAllocatedPerOperation": allocated}
    return {"Title": "t", "HostEnvironmentInfo": {}, "Benchmarks": [entry]}


def test_negative_standard_deviation_in_benchmarkdotnet_is_refused(tmp_path):
    path = tmp_path / "bdn.json"
    path.write_text(json.dumps(_bdn(2.0, -1.0)))
    with pytest.raises(InputError, match=r"bdn.json: summary column 'sd' of benchmark "
                                         r"'N.T.M' \(row 0\) is -1.0"):
        fastperf.read(path)


CATCH2 = """<?xml version="1.0" encoding="UTF-8"?>
<Catch2TestRun name="bench" rng-seed="1" xml-format-version="3" catch2-version="3.5.2">
  <TestCase name="Fibonacci" tags="[fib]" filename="fib.cpp" line="5">
    <BenchmarkResults name="Fibonacci 20" samples="100" resamples="100000" iterations="2" clockResolution="17.5" estimatedDuration="8371200">
      <mean value="41731.5" lowerBound="41250" upperBound="42622" ci="0.95"/>
      <standardDeviation value="-3256" lowerBound="2163" upperBound="5353" ci="0.95"/>
      <outliers variance="0.7" lowMild="0" lowSevere="0" highMild="3" highSevere="2"/>
    </BenchmarkResults>
    <OverallResult success="true" skips="0"/>
  </TestCase>
</Catch2TestRun>
"""


def test_negative_standard_deviation_in_catch2_is_refused(tmp_path):
    path = tmp_path / "catch2.xml"
    path.write_text(CATCH2)
    with pytest.raises(InputError, match=r"catch2.xml: summary column 'sd' .*is -3"):
        fastperf.read(path)


def test_negative_score_error_in_jmh_is_refused(tmp_path):
    entry = {"jmhVersion": "1.37", "benchmark": "q.R.s", "mode": "avgt", "threads": 1,
             "forks": 1, "measurementIterations": 5,
             "primaryMetric": {"score": 100.0, "scoreError": -4.0,
                               "scoreConfidence": [96.0, 104.0],
                               "scorePercentiles": {"0.0": 90.0, "50.0": 99.0, "100.0": 110.0},
                               "scoreUnit": "ns/op", "rawData": [[]]},
             "secondaryMetrics": {}}
    path = tmp_path / "jmh.json"
    path.write_text(json.dumps([entry]))
    with pytest.raises(InputError, match=r"jmh.json: summary column 'sd' of benchmark "
                                         r"'q.R.s'"):
        fastperf.read(path)


# --- 12: run counts ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [[2 ** 62, 20], [20.0, 20.5], [-1, 20], [20.0, math.inf]])
def test_bad_run_counts_are_refused_naming_n(n):
    with pytest.raises(InputError, match=r"summary column 'n' of benchmark 'b' \(row \d\) is "
                                         r".*: a run count is a whole number from 0 to 2\*\*53"):
        _summaries(n=n, mean=[100.0, 90.0], sd=[6.0, 5.0])


def test_run_counts_as_whole_floats_are_int64_and_compare_like_scipy():
    s = _summaries(n=[20.0, float(MAX_SUMMARY_N)], mean=[100.0, 90.0], sd=[6.0, 5.0])
    assert s.column("n").type == pa.int64()
    assert s.column("n").to_pylist() == [20, 2 ** 53]
    c = fastperf.compare(s, baseline="old", candidate="new").table.to_pylist()[0]
    ref = stats.ttest_ind_from_stats(90.0, 5.0, 2 ** 53, 100.0, 6.0, 20, equal_var=False)
    assert c["status"] == "ok" and c["n_candidate"] == 2 ** 53
    assert c["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    d = fastperf.describe(s, variant="variant").table
    assert sorted(d.column("n").to_pylist()) == [20, 2 ** 53]


def test_nan_run_count_is_not_given():
    s = _summaries(n=[math.nan, 20.0], mean=[100.0, 90.0], sd=[6.0, 5.0])
    assert s.column("n").to_pylist() == [None, 20]
    c = fastperf.compare(s, baseline="old", candidate="new").table.to_pylist()[0]
    assert c["status"].startswith("the file gives no run count n")


def test_a_hand_marked_summary_table_is_checked_in_compare_and_describe():
    """A table marked by its metadata alone (not through read) is checked all the same."""
    marked = fastperf.read(pa.table({"benchmark": ["b", "b"], "variant": ["old", "new"],
                                     "n": [20, 20], "mean": [100.0, 90.0], "sd": [6.0, 5.0]}),
                           summaries=True)
    bad = marked.set_column(marked.column_names.index("n"), "n",
                            pa.array([20.0, 20.5])).replace_schema_metadata(
                                marked.schema.metadata)
    assert is_summary_table(bad)
    with pytest.raises(InputError, match="summary column 'n'"):
        fastperf.compare(bad, baseline="old", candidate="new")
    with pytest.raises(InputError, match="summary column 'n'"):
        fastperf.describe(bad, variant="variant")


# --- 13: near the float64 limits ---------------------------------------------------------------

def _fieller(mx, vx, my, vy, q):
    """Fieller's interval of my / mx from its definition (the roots of a quadratic in R)."""
    a = mx * mx - q * q * vx
    b = mx * my
    c = my * my - q * q * vy
    root = math.sqrt(b * b - a * c)
    return (b - root) / a, (b + root) / a


def test_compare_means_near_the_float64_limit_like_rescaled_scipy():
    with _no_warnings():
        s = _summaries(n=[20, 20], mean=[1e308, 1.7e308], sd=[1e306, 1e306])
        c = fastperf.compare(s, baseline="old", candidate="new").table.to_pylist()[0]
    assert c["status"] == "ok"
    ref = stats.ttest_ind_from_stats(1.7e8, 1e6, 20, 1e8, 1e6, 20, equal_var=False)
    assert ref.statistic == pytest.approx(70 / math.sqrt(0.1), rel=1e-12)  # hand: 0.7e8 / (1e6 sqrt(2 / 20))
    assert c["pvalue"] == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-300)
    df = (2 * 1e12 / 20) ** 2 / (2 * (1e12 / 20) ** 2 / 19)  # Welch df: 38
    q = stats.t.ppf(0.975, df)
    low, high = _fieller(1e8, 1e12 / 20, 1.7e8, 1e12 / 20, q)
    assert c["ci_low"] == pytest.approx(low, rel=1e-9)
    assert c["ci_high"] == pytest.approx(high, rel=1e-9)
    assert c["ratio"] == pytest.approx(1.7, rel=1e-15)


def test_compare_of_a_huge_allocation_row_leaks_no_warning(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_bdn(10.0, 1.0, allocated=1e308)))
    new.write_text(json.dumps(_bdn(12.0, 1.0, allocated=-1.5e308)))
    with _no_warnings():
        s = fastperf.read([old, new])
        r = fastperf.compare(s, baseline="old", candidate="new")
    rows = {row["unit"]: row for row in r.table.to_pylist()}
    ref = stats.ttest_ind_from_stats(12.0, 1.0, 3, 10.0, 1.0, 3, equal_var=False)
    assert rows["ns/op"]["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert rows["B/op"]["status"] != "ok" and math.isnan(rows["B/op"]["pvalue"])


def test_describe_tiny_mean_huge_sd_names_the_cv_overflow():
    with _no_warnings():
        s = _summaries(n=[20, 20], mean=[1e-300, 2e-300], sd=[1e300, 1e300])
        d = fastperf.describe(s, variant="variant").table.to_pylist()
    for row in d:
        assert math.isnan(row["cv"])
        assert row["status"] == "cv = sd / mean beyond the float64 range"
        half = stats.t.ppf(0.975, 19) * 1e300 / math.sqrt(20)
        assert row["ci_mean_high"] == pytest.approx(half, rel=1e-12)


def test_describe_interval_overflow_is_not_ok():
    with _no_warnings():
        s = _summaries(n=[2, 2], mean=[1e308, 1.0], sd=[1e308, 1.0])
        d = {r["variant"]: r for r in fastperf.describe(s, variant="variant").table.to_pylist()}
    # t(0.975; 1) / sqrt(2) * 1e308 = 8.98e308: beyond float64
    assert d["old"]["status"] == "the interval of the mean is beyond the float64 range"
    assert math.isnan(d["old"]["ci_mean_low"]) and math.isnan(d["old"]["ci_mean_high"])
    assert d["old"]["cv"] == 1.0


@settings(max_examples=40, deadline=None)
@given(scale=st.integers(-1000, 960),
       m1=st.floats(50.0, 100.0), m2=st.floats(50.0, 100.0),
       s1=st.floats(0.1, 5.0), s2=st.floats(0.1, 5.0),
       n1=st.integers(3, 50), n2=st.integers(3, 50))
def test_compare_is_scale_free_like_scipy(scale, m1, m2, s1, s2, n1, n2):
    """t, p and the ratio do not depend on a common power-of-two scale, at any representable
    scale (means well above their standard errors: Fieller's interval bounded; with n >= 3
    Welch's df >= 2, t(0.975; 2) * 5 / sqrt(3) < 50)."""
    f = 2.0 ** scale
    with _no_warnings():
        s = _summaries(n=[n1, n2], mean=[m1 * f, m2 * f], sd=[s1 * f, s2 * f])
        c = fastperf.compare(s, baseline="old", candidate="new").table.to_pylist()[0]
    ref = stats.ttest_ind_from_stats(m2, s2, n2, m1, s1, n1, equal_var=False)
    assert c["status"] == "ok"
    assert c["pvalue"] == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-290)
    assert c["ratio"] == pytest.approx(m2 / m1, rel=1e-14)


# --- 14: cv of a zero mean --------------------------------------------------------------------

def test_describe_mean_zero_gives_no_cv(tmp_path):
    path = tmp_path / "bdn.json"
    path.write_text(json.dumps(_bdn(0.0, 1.0)))
    rows = fastperf.describe(fastperf.read(path), variant=None).table.to_pylist()
    assert len(rows) == 1
    assert math.isnan(rows[0]["cv"]) and rows[0]["status"] == "mean 0: no cv"
    # the interval of the mean is still given: 0 -+ t(0.975; 2) * 1 / sqrt(3)
    assert rows[0]["ci_mean_high"] == pytest.approx(stats.t.ppf(0.975, 2) / math.sqrt(3))


def test_describe_negative_mean_cv_is_the_signed_ratio():
    s = _summaries(n=[20, 20], mean=[-4.0, 8.0], sd=[2.0, 2.0])
    d = {r["variant"]: r for r in fastperf.describe(s, variant="variant").table.to_pylist()}
    assert d["old"]["cv"] == -0.5 and d["new"]["cv"] == 0.25  # hand: 2 / -4, 2 / 8
