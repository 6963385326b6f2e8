"""Issue 18, protocols: no silent NaN in speedup_test, sparc and hpt on degenerate samples.

Regression tests of the reproducers (one value a side in the Speedup-Test, every paired ratio
equal to 1 in SPARC, values near the float64 limits) and a property test over hostile
magnitudes. Oracles: scipy (``wilcoxon``, ``mannwhitneyu``, the F distribution), exact
rational arithmetic (``fractions.Fraction``) and values derived by hand in the docstrings.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import fastperf as f


def two_sides(x, y, run=False):
    """A measurement table of one benchmark "a": baseline x, candidate y (runs 0.. per side)."""
    cols = {"benchmark": ["a"] * (len(x) + len(y)), "variant": ["base"] * len(x) + ["cand"] * len(y),
            "value": [float(v) for v in list(x) + list(y)]}
    if run:
        cols["run"] = list(range(len(x))) + list(range(len(y)))
    return pa.table(cols)


def row_of(result):
    rows = result.benchmarks.to_pylist()
    assert len(rows) == 1
    return rows[0]


def is_missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


# ------------------------------------------------------------------ speedup_test: the F-test


def test_speedup_one_value_per_side_names_the_f_test():
    """The issue's reproducer: X = [2], Y = [1]. No variance, so no F-test: the status says
    so instead of a null under "ok". The rest is hand-derived: the speedups are 2/1 = 2; the
    exact one-sided WMW p with m = n = 1 and x > y is P[U >= 1] = 1/2 (scipy agrees); the
    benchmark is still compared (it counts in the summary) and is not an error."""
    r = f.speedup_test(two_sides([2.0], [1.0]), baseline="base", candidate="cand")
    row = row_of(r)
    assert row["status"] == "F-test not run: fewer than 2 values in a sample"
    assert row["pvalue_ftest"] is None
    assert (row["speedup_min"], row["speedup_mean"], row["speedup_median"]) == (2.0, 2.0, 2.0)
    want = st.mannwhitneyu([2.0], [1.0], alternative="greater", method="exact").pvalue
    assert row["pvalue_median"] == want == 0.5
    assert row["prob_candidate_faster"] == 1.0
    assert row["mean_test"] == "none" and row["pvalue_mean"] is None
    assert r.summary["benchmarks_compared"] == 1 and r.summary["median"]["compared"] == 1
    assert r.summary["overall_speedup"]["mean"] == 2.0
    assert r.errors == [] and r.summary["rows_not_ok"] == 1


def test_speedup_two_constant_samples_name_the_f_test():
    """X = [2, 2], Y = [1, 1]: s_X^2 = s_Y^2 = 0, F = 0/0. The status names it; the median
    test still runs: of the C(4, 2) = 6 ways to give X two of {1, 1, 2, 2}, only {2, 2} reaches
    U = 4, so the exact p conditional on the ties is 1/6."""
    r = f.speedup_test(two_sides([2.0, 2.0], [1.0, 1.0]), baseline="base", candidate="cand")
    row = row_of(r)
    assert row["status"] == "F-test not run: zero variance in both samples"
    assert row["pvalue_ftest"] is None and row["speedup_mean"] == 2.0
    assert row["pvalue_median"] == pytest.approx(1 / 6, rel=1e-12)
    assert r.errors == []


def test_speedup_large_constant_samples_name_the_f_test_and_keep_the_t_note():
    """Two constant samples of 40 (large: the t-test is chosen): no F-test, no t-test (R's
    t.test: "data are essentially constant"); the status names the F-test, the warning the
    t-test, and the speedup is 3/1."""
    r = f.speedup_test(two_sides([3.0] * 40, [1.0] * 40), baseline="base", candidate="cand")
    row = row_of(r)
    assert row["status"] == "F-test not run: zero variance in both samples"
    assert row["mean_test"] == "welch" and row["pvalue_mean"] is None
    assert "t-test not possible: zero variance in both samples" in row["warnings"]
    assert row["speedup_mean"] == 3.0


def test_speedup_large_sample_zero_one_value_names_the_f_test():
    """large_sample=0 makes n = 1 "large": Welch is chosen and cannot run either; the F-test,
    checked first, names the row."""
    r = f.speedup_test(two_sides([2.0], [1.0]), baseline="base", candidate="cand", large_sample=0)
    row = row_of(r)
    assert row["status"] == "F-test not run: fewer than 2 values in a sample"
    assert row["mean_test"] == "welch" and row["pvalue_mean"] is None


def test_speedup_ordinary_rows_stay_ok_with_scipy_f_test():
    """Ordinary samples keep status "ok" and R's var.test p (two-sided F, scipy's F law)."""
    x = np.array([10.0, 11.0, 12.5, 9.5, 10.2])
    y = np.array([8.0, 8.3, 7.9, 8.8, 8.1, 8.4])
    row = row_of(f.speedup_test(two_sides(x, y), baseline="base", candidate="cand"))
    fstat = np.var(x, ddof=1) / np.var(y, ddof=1)
    lower = st.f.cdf(fstat, len(x) - 1, len(y) - 1)
    want = 2 * min(lower, 1 - lower)
    assert row["status"] == "ok"
    assert row["pvalue_ftest"] == pytest.approx(want, rel=1e-9)


def test_speedup_errors_list_only_benchmarks_not_compared():
    """A benchmark lacking a side is "not compared" in .errors; one whose F-test could not
    run is compared and is not an error."""
    t = pa.table({"benchmark": ["a", "a", "b", "b", "b"],
                  "variant": ["base", "cand", "base", "base", "base"],
                  "value": [2.0, 1.0, 1.0, 2.0, 3.0]})
    r = f.speedup_test(t, baseline="base", candidate="cand")
    status = r.benchmarks.column("status").to_pylist()
    assert status == ["F-test not run: fewer than 2 values in a sample", "missing candidate"]
    assert r.errors == ["b: missing candidate: not compared"]
    assert r.summary["benchmarks_compared"] == 1


@pytest.mark.parametrize("x, y", [([1.4e308, 1.7e308], [1.5e308]),
                                  ([1.7e308, 1.7e308, 1.4e308], [1.6e308, 1.5e308])])
def test_speedup_mean_near_float_max_is_finite(x, y):
    """Sums of values near 1.8e308 overflow; the speedup of the means is exact rational
    arithmetic rounded once (Fraction), to a few ulps."""
    row = row_of(f.speedup_test(two_sides(x, y), baseline="base", candidate="cand"))
    want = float((sum(map(Fraction, x)) / len(x)) / (sum(map(Fraction, y)) / len(y)))
    assert row["speedup_mean"] == pytest.approx(want, rel=1e-15)
    assert row["status"] in ("ok", "F-test not run: fewer than 2 values in a sample")


# ------------------------------------------------------------------ sparc / hpt: all ratios 1


ALL_ONE = two_sides([1.0] * 5, [1.0] * 5, run=True)


@pytest.mark.parametrize("scale", ["log", "ratio"])
def test_sparc_paired_all_ratios_one_statistic_zero(scale):
    """The issue's reproducer: every paired ratio is 1, so every difference is dropped. scipy's
    exact signed-rank test of five zeros gives statistic 0 and p 1; SPARC's T+ is that sum over
    no difference, 0, with p = 1 and status "ok" (z NaN: the test is exact)."""
    want = st.wilcoxon(np.zeros(5), zero_method="wilcox", method="exact")
    row = row_of(f.sparc(ALL_ONE, baseline="base", candidate="cand", scale=scale))
    assert row["status"] == "ok" and row["n_zero"] == 5
    assert row["statistic"] == want.statistic == 0.0
    assert row["pvalue_difference"] == want.pvalue == 1.0
    assert row["method"].startswith("exact") and math.isnan(row["z_difference"])
    # the equivalence tests: ratios 1 against 1.05 and 0.95, five differences of one sign
    assert row["pvalue_upper"] == row["pvalue_lower"] == 1 / 32


def test_hpt_all_ratios_one_level_two_statistic_zero():
    """HPT on the same input: level 1 is the rank-sum test, U = mn/2 = 12.5 and p = 1 (all tied,
    scipy's statistic); every score is 0, so level 2's T+ is 0 (scipy) and p = 1."""
    r = f.hpt(ALL_ONE, baseline="base", candidate="cand")
    row = row_of(r)
    u = st.mannwhitneyu([1.0] * 5, [1.0] * 5, alternative="two-sided").statistic
    assert row["status"] == "ok" and row["statistic"] == u == 12.5 and row["pvalue"] == 1.0
    want = st.wilcoxon(np.zeros(1), zero_method="wilcox", method="exact")
    assert r.summary["statistic"] == want.statistic == 0.0 and r.summary["pvalue"] == 1.0


# ------------------------------------------------------------------ property: hostile values

#: The documented nulls under status "ok" (docs/speedup-test.md, docs/relevance.md).
DOCUMENTED_NULL = {
    ("speedup_test", "pvalue_shapiro_baseline"): lambda row: True,
    ("speedup_test", "pvalue_shapiro_candidate"): lambda row: True,
    ("speedup_test", "pvalue_mean"): lambda row: row["mean_test"] == "none",
    ("sparc", "z_difference"): lambda row: row["method"].startswith("exact"),
    ("sparc", "z_upper"): lambda row: row["method"].startswith("exact"),
    ("sparc", "z_lower"): lambda row: row["method"].startswith("exact"),
}

HOSTILE = hs.lists(hs.sampled_from([1e-308, 3e-308, 1e-300, 1e-200, 1.0, 1.5, 1e200, 1e300,
                                    1.4e308, 1.7e308]) | hs.floats(1e-308, 1e308),
                   min_size=1, max_size=3)


def assert_no_silent_nan(label, result):
    table = result.benchmarks
    for row in table.to_pylist():
        if row["status"] != "ok":
            continue
        for name in table.column_names:
            if not pa.types.is_floating(table.schema.field(name).type):
                continue
            v = row[name]
            if is_missing(v):
                allowed = DOCUMENTED_NULL.get((label, name))
                assert allowed is not None and allowed(row), f"{label}: {name} is {v} under ok: {row}"
            else:
                assert math.isfinite(v), f"{label}: {name} is {v} under ok: {row}"
            if name.startswith("pvalue") and not is_missing(v):
                assert 0.0 <= v <= 1.0, f"{label}: {name} = {v}"


@settings(max_examples=50, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE, HOSTILE, hs.booleans())
def test_protocols_hostile_magnitudes_no_nan_under_ok(x, y, higher):
    """One to three values a side from 1e-308 to 1.7e308: every float of an "ok" row is finite
    or a documented null, for speedup_test, sparc (paired, unpaired) and hpt."""
    table = two_sides(x, y, run=True)
    calls = {
        "speedup_test": lambda: f.speedup_test(table, baseline="base", candidate="cand",
                                               higher_is_better=higher),
        "sparc": lambda: f.sparc(table, baseline="base", candidate="cand", min_runs=1,
                                 higher_is_better=higher),
        "sparc-unpaired": lambda: f.sparc(table, baseline="base", candidate="cand", min_runs=1,
                                          pair=None, higher_is_better=higher),
        "hpt": lambda: f.hpt(table, baseline="base", candidate="cand", higher_is_better=higher),
    }
    for label, call in calls.items():
        assert_no_silent_nan(label.split("-")[0], call())
