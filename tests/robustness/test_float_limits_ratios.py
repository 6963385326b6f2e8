"""Ratios and aggregate scores near the float64 limits: zero variance, planner overflow,
argument messages and the all-tied rank z.

Oracles: exact power-of-2 scaling (ratios and p-values are scale-invariant, scores
scale-equivariant), scipy, hand-derived values.
"""
import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import stats

import fastperf as f
from fastperf import InputError


BIG = [1.5e308, 1.6e308, 1.7e308, 1.4e308, 1.45e308, 1.55e308]
SMALL = [1.45e308, 1.55e308, 1.65e308, 1.4e308, 1.5e308, 1.6e308]


def _table(base, cand, scale=1.0):
    n = len(base)
    return pa.table({"benchmark": ["a"] * (2 * n), "variant": ["old"] * n + ["new"] * n,
                     "value": [v * scale for v in list(base) + list(cand)],
                     "run": list(range(n)) * 2})


def _row(result):
    return result.table.to_pylist()[0]


def test_speedup_near_float64_max_equals_scaled_down_result():
    big = _row(f.speedup_test(_table(BIG, SMALL), baseline="old", candidate="new"))
    # the same data divided by 2**1000 (exact): every figure is scale-invariant
    ref = _row(f.speedup_test(_table(BIG, SMALL, 2.0 ** -1000), baseline="old", candidate="new"))
    assert big["status"] == "ok"
    for name in ("speedup_min", "speedup_mean", "speedup_median", "pvalue_ftest", "pvalue_mean",
                 "pvalue_median", "pvalue_ks"):
        assert math.isfinite(big[name]), name
        assert big[name] == pytest.approx(ref[name], rel=1e-12), name
    # the ratio of the means, summed in eighths (no overflow)
    assert big["speedup_mean"] == pytest.approx(
        sum(v / 8 for v in BIG) / sum(v / 8 for v in SMALL), rel=1e-14)
    # scipy's Welch/Student p on the scaled data
    t = stats.ttest_ind(np.array(BIG) * 2.0 ** -1000, np.array(SMALL) * 2.0 ** -1000,
                        equal_var=big["mean_test"] == "student", alternative="greater")
    assert big["pvalue_mean"] == pytest.approx(t.pvalue, rel=1e-9)


@pytest.mark.parametrize("function", [f.sparc, f.hpt])
def test_sparc_hpt_near_float64_max_equal_scaled_result(function):
    kwargs = {"pair": "run"} if function is f.sparc else {}
    big = _row(function(_table(BIG, SMALL), baseline="old", candidate="new", **kwargs))
    ref = _row(function(_table(BIG, SMALL, 2.0 ** -1000), baseline="old", candidate="new",
                        **kwargs))
    assert big["median_baseline"] == ref["median_baseline"] * 2.0 ** 1000
    assert big["median_baseline"] == pytest.approx(np.median(np.array(BIG) / 4) * 4, rel=1e-15)
    assert big["ratio_median"] == pytest.approx(ref["ratio_median"], rel=1e-14)
    assert math.isfinite(big["ratio_median"])


def test_ratio_past_float64_gets_a_status():
    base = [1e308, 1.1e308, 1.2e308, 1.3e308, 1.4e308]
    cand = [1e-300, 2e-300, 3e-300, 4e-300, 5e-300]
    for result in (f.hpt(_table(base, cand), baseline="old", candidate="new"),
                   f.sparc(_table(base, cand), baseline="old", candidate="new", pair=None)):
        row = _row(result)
        assert row["status"] == "median ratio outside the float64 range"
    row = _row(f.speedup_test(_table(base, cand), baseline="old", candidate="new"))
    assert row["status"] == "speedup outside the float64 range"


def test_log_ratios_finite_past_float64():
    from fastperf.protocols.relevance import log_ratios

    got = log_ratios(np.array([1e308, 1e-300]), np.array([1e-300, 1e308]))
    expected = math.log(1e308) - math.log(1e-300)
    assert got == pytest.approx([expected, -expected], rel=1e-15)


def test_aggregate_propagation_zero_variance():
    t = pa.table({"benchmark": ["a", "a", "b", "b"], "variant": ["v"] * 4,
                  "value": [2., 2., 3., 3.]})
    row = _row(f.aggregate_score(t, method="propagation"))
    assert row["status"] == "zero variance: no interval"
    assert row["score"] == pytest.approx(math.sqrt(6.0), rel=1e-15) and row["se"] == 0.0


@pytest.mark.parametrize("method", ["per-run", "propagation"])
@pytest.mark.parametrize("kind", ["geomean", "mean"])
def test_aggregate_tiny_and_huge_values_scale_equivariant(method, kind):
    values = [1.0, 2.0, 3.0, 5.0, 1.5, 2.5, 3.5, 4.5]
    t = pa.table({"benchmark": ["a"] * 4 + ["b"] * 4, "variant": ["v"] * 8, "value": values,
                  "run": [0, 1, 2, 3] * 2})
    ref = _row(f.aggregate_score(t, method=method, kind=kind))
    for power in (-1022 - 2, 1020):  # 1e-308-ish (variance underflows) and 1e307-ish
        scaled = t.set_column(2, "value", pa.array(np.ldexp(values, power)))
        row = _row(f.aggregate_score(scaled, method=method, kind=kind))
        assert row["status"] == "ok"
        for name in ("score", "sd", "se"):
            assert row[name] == pytest.approx(math.ldexp(ref[name], power), rel=1e-12), name
        assert row["df"] == pytest.approx(ref["df"], rel=1e-12)


def test_min_benchmarks_overflow_is_an_input_error():
    with pytest.raises(InputError, match=r"precision=1e-200 .*more than 2\*\*53"):
        f.min_benchmarks(0.5, 1e-200)
    z = stats.norm.ppf(0.975)
    assert f.min_benchmarks(0.5, 1e-7) == math.ceil(z * z * 0.25 / 1e-14)


def test_plan_runs_tiny_precision_caps():
    t = pa.table({"benchmark": ["a"] * 4, "value": [1.0, 2.0, 3.0, 4.0]})
    row = f.plan_runs(t, variant=None, target="halfwidth", precision=1e-200).groups.to_pylist()[0]
    assert row["runs_needed"] == -1 and row["status"] == "needs more than 2**53 runs"


def test_hpt_confidences_scalar_message():
    with pytest.raises(InputError, match=r"confidences must be a sequence .*got 0\.9"):
        f.hpt(_table(BIG, SMALL), baseline="old", candidate="new", confidences=0.9)


def test_aggregate_string_weights_message():
    t = pa.table({"benchmark": ["a", "a"], "variant": ["v"] * 2, "value": [1., 2.],
                  "w": ["x"] * 2})
    with pytest.raises(InputError, match=r"weights column 'w' has type string.*numeric"):
        f.aggregate_score(t, weights="w")


def test_rank_z_all_tied():
    r = f.mannwhitneyu(np.full(4, 2.), np.full(3, 2.), method="asymptotic")
    assert r.zstatistic == 0.0 and r.pvalue == 1.0 and r.status == "ok"
    assert stats.mannwhitneyu(np.full(4, 2.), np.full(3, 2.), method="asymptotic").pvalue == 1.0
    for alternative in ("less", "greater"):
        r = f.mannwhitneyu(np.full(4, 2.), np.full(3, 2.), method="asymptotic",
                           alternative=alternative)
        assert r.zstatistic == 0.0 and r.pvalue == 1.0
    w = f.wilcoxon(np.full(6, 2.), np.full(6, 2.), method="asymptotic")
    assert w.status == "no nonzero differences" and np.isnan(w.zstatistic)
    t = pa.table({"benchmark": ["a"] * 7, "variant": ["x"] * 4 + ["y"] * 3, "value": [2.] * 7})
    row = _row(f.mannwhitneyu(t, baseline="x", candidate="y", method="asymptotic"))
    assert row["pvalue"] == 1.0 and row["status"] == "ok"


magnitudes = st.integers(min_value=-996, max_value=1020)  # 2**-996 ~ 1e-300, 2**1020 ~ 1e307
mantissas = st.lists(st.floats(min_value=1.0, max_value=1.99), min_size=6, max_size=8)


@settings(max_examples=30, deadline=None)
@given(mantissas, mantissas, magnitudes, st.integers(min_value=-3, max_value=3))
def test_property_ratios_finite_and_scale_invariant(xs, ys, power, shift):
    n = min(len(xs), len(ys))
    # HPT ranks logs: two mantissas an ulp or so apart can round to one log at one scale and
    # not at another (log(x 2^k) = log x + k log 2); such draws test rounding, not the scaling
    mantissa = np.sort(np.concatenate([xs[:n], ys[:n]]))
    gaps = np.diff(mantissa)
    assume(not np.any((gaps > 0) & (gaps < 1e-12)))
    base, cand = np.ldexp(xs[:n], power), np.ldexp(ys[:n], power + shift)
    tables = [_table(base, cand), _table(base, cand, 2.0 ** (-power))]
    for name, function, kwargs in (("speedup", f.speedup_test, {}),
                                   ("sparc", f.sparc, {"pair": "run", "min_runs": 5}),
                                   ("hpt", f.hpt, {})):
        got = [_row(function(t, baseline="old", candidate="new", **kwargs)) for t in tables]
        # the Speedup-Test names a test it could not run (two constant samples: no F-test)
        not_run = name == "speedup" and " not run: " in got[0]["status"]
        assert (got[0]["status"] == "ok" or not_run) and got[1]["status"] == got[0]["status"]
        for key, value in got[0].items():
            if key.startswith(("speedup_", "ratio_median", "median_b", "median_c")):
                assert math.isfinite(value), (name, key)
            if key.startswith(("speedup_", "ratio_median", "pvalue")) and value is not None:
                assert value == pytest.approx(got[1][key], rel=1e-12, nan_ok=True), (name, key)


@settings(max_examples=30, deadline=None)
@given(mantissas, magnitudes, st.sampled_from(["per-run", "propagation"]),
       st.sampled_from(["geomean", "mean"]))
def test_property_aggregate_finite_and_equivariant(xs, power, method, kind):
    n = len(xs) // 2 * 2
    values = np.array(xs[:n])
    t = pa.table({"benchmark": ["a", "b"] * (n // 2), "variant": ["v"] * n,
                  "value": np.ldexp(values, power), "run": np.repeat(np.arange(n // 2), 2)})
    row = _row(f.aggregate_score(t, method=method, kind=kind))
    ref = _row(f.aggregate_score(t.set_column(2, "value", pa.array(values)), method=method,
                                 kind=kind))
    assert row["status"] == ref["status"]
    if row["status"] == "ok":
        for key in ("score", "sd", "se", "df", "ci_low", "ci_high"):
            assert math.isfinite(row[key]), key
        for key in ("score", "sd", "se"):
            assert row[key] == pytest.approx(math.ldexp(ref[key], power), rel=1e-9), key


@pytest.mark.parametrize("statistic", ["mean_diff", "median_diff"])
@pytest.mark.parametrize("paired", [False, True])
def test_permutation_statistic_near_float64_max(statistic, paired):
    x, y = np.array(BIG[:5]), np.array(SMALL[:5])
    big = f.permutation_test((x, y), statistic=statistic, paired=paired)
    ref = f.permutation_test((x * 2.0 ** -1000, y * 2.0 ** -1000), statistic=statistic,
                             paired=paired)
    assert big.status == "ok" and math.isfinite(big.statistic)
    assert big.statistic == ref.statistic * 2.0 ** 1000
    assert big.pvalue == ref.pvalue
    # scipy on the scaled data (exact enumeration at these sizes)
    fun = (np.mean if statistic == "mean_diff" else np.median)
    kind = "samples" if paired else "independent"
    if paired:
        oracle = stats.permutation_test(((x - y) * 2.0 ** -1000,), fun, permutation_type=kind)
    else:
        oracle = stats.permutation_test((x * 2.0 ** -1000, y * 2.0 ** -1000),
                                        lambda a, b: fun(a) - fun(b), permutation_type=kind)
    assert ref.statistic == pytest.approx(oracle.statistic, rel=1e-12)
    assert ref.pvalue == pytest.approx(oracle.pvalue, rel=1e-9)


@pytest.mark.parametrize("power", [-1000, 1020])
@pytest.mark.parametrize("target", ["relative_halfwidth", "halfwidth"])
def test_plan_runs_scale_equivariant_near_limits(power, target):
    values = np.array([1.0, 2.0, 3.0, 4.0, 2.5])
    precision = 0.05 if target == "relative_halfwidth" else 1.0

    def plan(scale):
        t = pa.table({"benchmark": ["a"] * 5, "value": np.ldexp(values, scale)})
        p = precision if target == "relative_halfwidth" else math.ldexp(precision, scale)
        return f.plan_runs(t, variant=None, target=target, precision=p).groups.to_pylist()[0]

    ref, got = plan(0), plan(power)
    assert got["status"] == "ok" and got["runs_needed"] == ref["runs_needed"]
    assert got["sd"] == math.ldexp(ref["sd"], power)
    assert ref["sd"] == pytest.approx(np.std(values, ddof=1), rel=1e-14)
    assert got["assurance"] == pytest.approx(ref["assurance"], rel=1e-12)
