"""t-tests and the F-test against scipy (random batches), the seeds, and bad input."""
import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps

import fastperf
from fastperf import InputError
from fastperf.stats.parametric import ftest, ttest_ind, ttest_rel

ALTERNATIVES = ["two-sided", "less", "greater"]


def close(a, b, rel=1e-12, atol=0.0):
    np.testing.assert_allclose(a, b, rtol=rel, atol=atol)


def close_interval(ci, ref_ci):
    """Interval bounds: relative 1e-12, plus 1e-13 absolute for bounds that cancel to near 0."""
    close(ci.low, ref_ci.low, atol=1e-13)
    close(ci.high, ref_ci.high, atol=1e-13)


@pytest.mark.parametrize("equal_var", [True, False])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n1, n2", [(2, 2), (3, 7), (10, 13), (31, 31), (500, 200)])
def test_ttest_ind_matches_scipy(equal_var, alternative, n1, n2):
    rng = np.random.default_rng(n1 * 100 + n2)
    x = rng.lognormal(0, 0.3, (200, n1))
    y = rng.lognormal(0.05, 0.5, (200, n2))
    got = ttest_ind(x, y, equal_var=equal_var, alternative=alternative)
    ref = sps.ttest_ind(x, y, axis=1, equal_var=equal_var, alternative=alternative)
    close(got.statistic, ref.statistic)
    close(got.pvalue, ref.pvalue)
    close(got.df, ref.df)
    for c in (0.9, 0.95):
        close_interval(got.confidence_interval(c), ref.confidence_interval(c))


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n", [2, 5, 30, 1000])
def test_ttest_rel_matches_scipy(alternative, n):
    rng = np.random.default_rng(n)
    x = rng.normal(10, 1, (100, n))
    y = x + rng.normal(0.1, 0.5, (100, n))
    got = ttest_rel(x, y, alternative=alternative)
    ref = sps.ttest_rel(x, y, axis=1, alternative=alternative)
    close(got.statistic, ref.statistic)
    close(got.pvalue, ref.pvalue)
    close_interval(got.confidence_interval(0.95), ref.confidence_interval(0.95))


def test_axis_broadcast_and_scalars():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 9, 3))
    y = rng.normal(size=(1, 12, 3))
    got = ttest_ind(x, y, axis=1)
    ref = sps.ttest_ind(x, y, axis=1)
    assert got.statistic.shape == (4, 3)
    close(got.pvalue, ref.pvalue)
    one = ttest_ind(x[0, :, 0], y[0, :, 0])
    assert np.ndim(one.statistic) == 0 and one.status == "ok"
    t, p = one  # unpacks like scipy's result
    assert p == one.pvalue


def test_lilja_paired_interval():
    before = np.array([85, 83, 94, 90, 88, 87.0])
    after = np.array([86, 88, 90, 95, 91, 83.0])
    ci = ttest_rel(before, after).confidence_interval(0.95)
    assert round(float(ci.low), 4) == -5.3523 and round(float(ci.high), 4) == 3.3523


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_ftest_matches_f_distribution(alternative):
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1.0, (300, 8))
    y = rng.normal(0, 1.6, (300, 15))
    got = ftest(x, y, alternative=alternative)
    f = x.var(axis=1, ddof=1) / y.var(axis=1, ddof=1)
    close(got.statistic, f)
    lower, upper = sps.f.cdf(f, 7, 14), sps.f.sf(f, 7, 14)
    expected = {"less": lower, "greater": upper,
                "two-sided": np.minimum(1, 2 * np.minimum(lower, upper))}[alternative]
    close(got.pvalue, expected, rel=1e-10)
    ci = got.confidence_interval(0.95)
    close(ci.low, f / sps.f.ppf(0.975, 7, 14), rel=1e-10)
    close(ci.high, f / sps.f.ppf(0.025, 7, 14), rel=1e-10)


def test_ftest_tiny_tail_is_not_one_minus_cdf():
    # variances 1e6 apart: the upper tail is ~1e-30, which 1 - cdf would round to 0
    rng = np.random.default_rng(3)
    x, y = rng.normal(0, 1000, 40), rng.normal(0, 1, 40)
    p = ftest(x, y, alternative="greater").pvalue
    f = x.var(ddof=1) / y.var(ddof=1)
    assert 0 < p == pytest.approx(sps.f.sf(f, 39, 39), rel=1e-9)


def test_bad_samples_give_nan_with_a_reason_inside_a_batch():
    x = np.array([[1.0, 2, 3], [1, 2, np.nan], [1, 1, 1], [4, 5, 6]])
    y = np.array([[2.0, 3, 5], [2, 3, 5], [1, 1, 1], [1, 2, np.inf]])
    got = ttest_ind(x, y)
    assert got.status.tolist()[:3] == ["ok", "NaN in input", "zero variance in both samples"]
    assert np.isfinite(got.pvalue[0]) and np.isnan(got.pvalue[1:3]).all()
    assert ttest_ind([1.0], [2.0, 3.0]).status == "fewer than 2 values in a sample"
    assert ftest([1.0, 2.0], [3.0, 3.0]).status == "ok"  # F = inf: R's var.test gives p = 0
    assert ftest([1.0, 2.0], [3.0, 3.0]).statistic == np.inf
    assert ftest([1.0, 2.0], [3.0, 3.0]).pvalue == 0.0
    assert ftest([1.0, 2.0], [3.0, 3.0], alternative="less").pvalue == 1.0
    assert ftest([2.0, 2.0], [3.0, 3.0]).status == "zero variance in both samples"
    with pytest.raises(InputError, match="same length"):
        ttest_rel([1.0, 2, 3], [1.0, 2])
    with pytest.raises(InputError, match="alternative"):
        ttest_ind([1.0, 2], [3.0, 4], alternative="bigger")


def measurement_table(rng):
    rows = []
    for b in range(6):
        for variant, shift in (("base", 0.0), ("cand", -0.1)):
            if b == 5 and variant == "cand":
                continue  # a benchmark without candidate runs
            for v in rng.normal(1 + shift, 0.05, 8 + b):
                rows.append((f"b{b}", variant, None if (b == 2 and v > 1.04) else float(v)))
    bench, var, val = zip(*rows)
    return pa.table({"benchmark": bench, "variant": var, "value": pa.array(val, pa.float64())})


def test_table_form_matches_scipy_per_benchmark():
    t = measurement_table(np.random.default_rng(4))
    res = fastperf.ttest_ind(t, baseline="base", candidate="cand", equal_var=False, alternative="greater")
    rows = {r["benchmark"]: r for r in res.benchmarks.to_pylist()}
    assert list(rows) == [f"b{i}" for i in range(6)]
    for name, row in rows.items():
        sel = lambda v: [r["value"] for r in t.to_pylist() if r["benchmark"] == name  # noqa: E731, B023
                         and r["variant"] == v and r["value"] is not None]
        x, y = sel("base"), sel("cand")
        assert (row["n_baseline"], row["n_candidate"]) == (len(x), len(y))
        if not y:
            assert row["status"] == "no candidate values"
            assert np.isnan(row["pvalue"])
            continue
        ref = sps.ttest_ind(x, y, equal_var=False, alternative="greater")
        assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
        ci = ref.confidence_interval(0.95)
        assert row["ci_low"] == pytest.approx(ci.low, rel=1e-12)
    assert rows["b2"]["n_dropped_baseline"] + rows["b2"]["n_dropped_candidate"] > 0
    f = fastperf.ftest(t, baseline="base", candidate="cand")
    assert f.benchmarks.num_rows == 6 and f.summary["rows_not_ok"] == 1


def test_table_form_needs_variants():
    t = measurement_table(np.random.default_rng(5))
    with pytest.raises(InputError, match="baseline= and candidate="):
        fastperf.ttest_ind(t)
    with pytest.raises(InputError, match="'nope' not found"):
        fastperf.ttest_ind(t, baseline="base", candidate="nope")


def test_parallel_build_agrees(parallel_always):
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(50, 20)), rng.normal(size=(50, 20))
    close(ttest_ind(x, y).pvalue, sps.ttest_ind(x, y, axis=1).pvalue)


def test_ttest_rel_table_form_pairs_by_run():
    rng = np.random.default_rng(7)
    rows = []
    for b in range(4):
        base = rng.normal(1.0, 0.05, 12)
        cand = base * rng.normal(0.97, 0.01, 12)
        for r in range(12):
            rows.append((f"b{b}", "base", r, float(base[r])))
            if not (b == 1 and r >= 9):  # b1: three baseline runs without a candidate run
                rows.append((f"b{b}", "cand", r, None if (b == 2 and r == 0) else float(cand[r])))
    rows.append(("b3", "base", 5, 1.0))  # run 5 twice for b3's baseline: ambiguous
    rows.append(("b4", "base", 0, 1.0))  # no candidate at all
    rng.shuffle(rows)
    t = pa.table(dict(zip(["benchmark", "variant", "run", "value"], map(list, zip(*rows)))))
    res = fastperf.ttest_rel(t, baseline="base", candidate="cand", alternative="greater")
    got = {r["benchmark"]: r for r in res.benchmarks.to_pylist()}
    for name in ("b0", "b1", "b2", "b3"):
        base = {r: v for bb, var, r, v in rows if bb == name and var == "base"}
        cand = {r: v for bb, var, r, v in rows if bb == name and var == "cand"}
        dup = {r for r in base if sum(1 for bb, var, rr, _ in rows if bb == name and var == "base" and rr == r) > 1}
        runs = sorted(r for r in base if r in cand and r not in dup and cand[r] is not None)
        ref = sps.ttest_rel([base[r] for r in runs], [cand[r] for r in runs], alternative="greater")
        assert got[name]["n"] == len(runs)
        assert got[name]["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert got["b1"]["n_unmatched"] == 3 and got["b2"]["n_dropped"] == 1 and got["b3"]["n_duplicated"] == 1
    assert got["b4"]["status"] == "no paired runs"
    assert any("more than once" in w for w in res.warnings)


def test_empty_samples_give_a_status_not_an_exception():
    res = ttest_ind(np.empty((2, 0)), np.ones((2, 3)))
    assert res.status.tolist() == ["fewer than 2 values in a sample"] * 2
    assert np.isnan(ftest(np.empty(0), np.ones(3)).pvalue)
