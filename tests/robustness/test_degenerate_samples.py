"""Degenerate samples give a status, never a silent NaN: one value a side, constant samples and
every paired ratio equal to 1 in the protocols (speedup_test, sparc, hpt), Speedup-Test p-values
of tests not run, and a factorial design without replications.

Oracles: scipy (``wilcoxon``, ``mannwhitneyu``, ``shapiro``, the F distribution), exact rational
arithmetic (``fractions.Fraction``), numpy, and values derived by hand in the docstrings.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st
from hypothesis import HealthCheck, given, settings, strategies as hs
from scipy import stats as sps

import fastperf as f
import fastperf
from fastperf.designs.factorial import NO_REPLICATIONS


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


X = [10.0, 11.0, 12.0, 10.5, 11.5, 12.5, 10.2, 11.2]
Y = [15.0, 16.0, 17.0, 15.5, 16.5, 17.5, 15.2, 16.2]


# ----------------------------------------------- 4. speedup_test: tests not run are null


def test_speedup_tests_not_run_are_null_and_ok_rows_hold_no_nan():
    constant = [2.0] * 6
    skewed = [1.0, 1.0, 1.0, 1.0, 1.0, 50.0]
    table = pa.table({
        "benchmark": ["norm"] * 16 + ["skew"] * 12 + ["const"] * 12 + ["tiny"] * 4,
        "variant": (["x"] * 8 + ["y"] * 8 + ["x"] * 6 + ["y"] * 6 + ["x"] * 6 + ["y"] * 6
                    + ["x", "x", "y", "y"]),
        "value": (Y + X + skewed + [1.5, 1.6, 1.7, 1.8, 1.9, 2.0] + constant + constant
                  + [3.0, 3.1, 1.0, 1.1]),
    })
    rows = {r["benchmark"]: r for r in
            fastperf.speedup_test(table, baseline="x", candidate="y").benchmarks.to_pylist()}
    for name, row in rows.items():  # two constant samples: the F-test cannot run, and says so
        want = "F-test not run: zero variance in both samples" if name == "const" else "ok"
        assert row["status"] == want, name
        for column, v in row.items():  # no NaN with status "ok"
            assert not (isinstance(v, float) and math.isnan(v)), (name, column)
    # skewed baseline: Shapiro-Wilk rejects, mean_test "none", the t-test not run
    skew = rows["skew"]
    assert skew["mean_test"] == "none" and skew["pvalue_mean"] is None
    assert skew["pvalue_shapiro_baseline"] == pytest.approx(sps.shapiro(skewed).pvalue, rel=1e-6)
    # constant samples: Shapiro-Wilk and the F-test cannot run
    const = rows["const"]
    assert const["pvalue_shapiro_baseline"] is None and const["pvalue_ftest"] is None
    assert const["pvalue_mean"] is None
    # two values: no Shapiro-Wilk (n < 3)
    assert rows["tiny"]["pvalue_shapiro_baseline"] is None
    # a test that ran keeps its p-value (scipy's)
    norm = rows["norm"]
    assert norm["pvalue_shapiro_candidate"] == pytest.approx(sps.shapiro(X).pvalue, rel=1e-6)
    assert norm["pvalue_median"] == pytest.approx(
        sps.mannwhitneyu(Y, X, alternative="greater").pvalue, rel=1e-9)


# ---------------------------------------------------- 5. factorial without replications


def test_factorial_without_replications_has_a_status():
    # Feitelson's 2^2 example (seed 001): q0 = 40, qA = 20, qB = 10, qAB = 5
    table = pa.table({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1], "value": [15.0, 45.0, 25.0, 75.0]})
    res = fastperf.factorial(table, factors=["a", "b"])
    np.testing.assert_allclose(res.effects.column("q").to_numpy(), [40, 20, 10, 5])
    g = res.groups.to_pylist()[0]
    assert g["status"] == NO_REPLICATIONS and g["r"] == 1 and math.isnan(g["s_e"])
    # replicated (each cell twice, +/-1 around the same means): an error estimate, status ok
    rep = pa.table({"a": [0, 1, 0, 1] * 2, "b": [0, 0, 1, 1] * 2,
                    "value": [14.0, 44.0, 24.0, 74.0, 16.0, 46.0, 26.0, 76.0]})
    g2 = fastperf.factorial(rep, factors=["a", "b"]).groups.to_pylist()[0]
    assert g2["status"] == "ok" and g2["s_e"] == pytest.approx(math.sqrt(8 / 4))
