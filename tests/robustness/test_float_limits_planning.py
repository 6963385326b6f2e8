"""Planning, aggregate scores and designs at the float64 limits.

Oracles: scipy.stats.t.isf and the closed forms of the Student quantile at 1 and 2 degrees of
freedom; the same design rescaled (by a power of 2, exact, or into the ordinary range); Jain's
sign-table allocation of variation computed by hand in numpy; hand-derived contrasts.
"""
import math

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps
from hypothesis import given, settings, strategies as st

import fastperf as f


MAX = np.finfo(np.float64).max


# ------------------------------------------------------------------ student_coefficients


def test_student_coefficient_largest_confidence_below_one_is_finite():
    """Reproducer: t(1 - 2**-53, 2 runs) was inf; it is 1 / tan(pi 2**-54) ~ 5.7e15."""
    c = 0.9999999999999999
    got = float(f.student_coefficients(2, c))
    q = (1 - c) / 2  # exact: 2**-54
    assert q == 2.0 ** -54
    assert got == pytest.approx(1 / math.tan(math.pi * q), rel=1e-12)  # Cauchy: t = cot(pi q)
    assert got == pytest.approx(sps.t.isf(q, 1), rel=1e-14)


@settings(max_examples=40, deadline=None)
@given(k=st.integers(1, 2 ** 20), n=st.sampled_from([2, 3, 4, 10, 1000, 10 ** 9]))
def test_student_coefficients_near_one_finite_and_accurate(k, n):
    """Confidence c = 1 - k 2**-53 (every float just below 1): finite, as scipy's isf."""
    c = 1.0 - k * 2.0 ** -53
    got = float(f.student_coefficients(n, c))
    q = (1 - c) / 2
    assert np.isfinite(got)
    assert got == pytest.approx(sps.t.isf(q, n - 1), rel=1e-12)
    if n == 2:
        assert got == pytest.approx(1 / math.tan(math.pi * q), rel=1e-10)
    if n == 3:  # two degrees of freedom: t = (2p - 1) / sqrt(2 p (1 - p)), p = 1 - q
        p = 1 - q
        assert got == pytest.approx((1 - 2 * q) / math.sqrt(2 * p * q), rel=1e-10)


def test_student_coefficients_table_matches_scipy_isf():
    ns, cs = np.arange(2, 40), np.array([0.5, 0.9, 0.95, 0.99, 0.999, 1 - 1e-12, 1e-300])
    got = f.student_coefficients(ns, cs)
    want = sps.t.isf((1 - cs[None, :]) / 2, ns[:, None] - 1)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert np.all(got >= 0) and not np.signbit(got).any()  # no -0.0 at confidence ~0


# ------------------------------------------------------------------ plan_runs


PLAN_OVERFLOW = "sd or half-width beyond the float64 range (the run counts hold)"


def test_plan_runs_halfwidth_overflow_reproducer():
    """Values 1e-308 and 1e308: sd 7.07e307, half-width t(0.975, 1) sd / sqrt(2) ~ 6.4e308 > max.
    The run count is the one of the same design divided by 4 (a power of 2: exact), where the
    half-width is finite."""
    t = pa.table({"benchmark": ["a", "a"], "value": [1e-308, 1e308]})
    row = f.plan_runs(t, variant=None, assurance=None).table.to_pylist()[0]
    assert row["status"] == PLAN_OVERFLOW
    assert row["halfwidth"] == math.inf
    sd = (1e308 - 1e-308) / math.sqrt(2)  # ddof = 1, n = 2: |x1 - x2| / sqrt(2)
    # hand check, on logs: t(0.975, 1) sd / sqrt(2) is beyond float64
    assert math.log(sps.t.ppf(0.975, 1)) + math.log(sd) - math.log(2) / 2 > math.log(MAX)
    small = pa.table({"benchmark": ["a", "a"], "value": [1e-308 / 4, 1e308 / 4]})
    ref = f.plan_runs(small, variant=None, assurance=None).table.to_pylist()[0]
    assert ref["status"] == "ok" and np.isfinite(ref["halfwidth"])
    assert row["runs_needed"] == ref["runs_needed"] and row["runs_more"] == ref["runs_more"]
    assert row["sd"] == ref["sd"] * 4 and row["mean"] == ref["mean"] * 4


@settings(max_examples=30, deadline=None)
@given(e=st.integers(-1000, 1000), assurance=st.sampled_from([None, 0.8]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_plan_runs_scale_free_or_named_overflow(e, assurance, seed):
    """A design times 2**e plans as the design itself (the same run counts); any figure that
    float64 cannot hold is inf with the overflow status, never with "ok"."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(1.0, 8.0, size=10)
    variants = ["b"] * 5 + ["c"] * 5

    def table(values):
        return pa.table({"benchmark": ["x"] * 10, "variant": variants, "value": values})

    ref = f.plan_runs(table(base), assurance=assurance)
    got = f.plan_runs(table(np.ldexp(base, e)), assurance=assurance)
    for tab_ref, tab in ((ref.table, got.table), (ref.separation, got.separation)):
        for r_row, g_row in zip(tab_ref.to_pylist(), tab.to_pylist()):
            for name in ("runs_needed", "runs_to_separate", "separated_now"):
                if name in r_row:
                    assert g_row[name] == r_row[name], (name, g_row, r_row)
            bad = [k for k, v in g_row.items() if isinstance(v, float) and math.isinf(v)
                   and k != "runs_to_separate"]
            assert g_row["status"] == (PLAN_OVERFLOW if bad else r_row["status"]), g_row


def test_plan_runs_separation_near_float_max():
    """Means +-1.6e308: the distance 3.2e308 is beyond float64, yet the two variants separate
    exactly as the same design divided by 2**8 does (was: an infinite distance)."""
    vals = [1.7e308, 1.6e308, 1.5e308, -1.7e308, -1.6e308, -1.5e308]
    t = pa.table({"benchmark": ["a"] * 6, "variant": ["b"] * 3 + ["c"] * 3, "value": vals})
    ref_t = t.set_column(2, "value", pa.array([v / 256 for v in vals]))
    got, ref = f.plan_runs(t).separation.to_pylist()[0], f.plan_runs(ref_t).separation.to_pylist()[0]
    assert got["status"] == ref["status"] == "ok"
    assert got["runs_to_separate"] == ref["runs_to_separate"] == 2.0
    assert got["separated_now"] is True and ref["separated_now"] is True
    assert got["halfwidth_baseline"] == ref["halfwidth_baseline"] * 256


# ------------------------------------------------------------------ aggregate_score


GEO_NEAR_MAX = [1.7e308, 1.6e308, 1.5e308, 1.7e308]


@pytest.mark.parametrize("method", ["per-run", "propagation"])
def test_aggregate_geomean_interval_overflow_has_status(method):
    """Reproducer: ci_high = score + t se > 1.8e308 was inf with status ok. The figures that
    float64 holds match the same design scaled by 2**-8 (times 2**8), and the hand check shows
    the upper end of the interval is beyond float64."""
    t = pa.table({"benchmark": ["a", "b", "a", "b"], "variant": ["v"] * 4, "value": GEO_NEAR_MAX})
    row = f.aggregate_score(t, method=method).table.to_pylist()[0]
    small = t.set_column(2, "value", pa.array([v / 256 for v in GEO_NEAR_MAX]))
    ref = f.aggregate_score(small, method=method).table.to_pylist()[0]
    assert ref["status"] == "ok"
    assert row["status"] == "confidence interval beyond the float64 range"
    for name in ("score", "sd", "se", "ci_low"):
        assert row[name] == pytest.approx(ref[name] * 256, rel=1e-12), name
    assert row["df"] == pytest.approx(ref["df"], rel=1e-12)
    assert ref["ci_high"] * 256 > MAX and row["ci_high"] == math.inf


def test_aggregate_ratio_overflow_has_status():
    """A variant 1e600 times the baseline's score: the ratio is beyond float64; its status says
    so (the scores themselves stand); the ratio the other way round underflows to 0."""
    t = pa.table({"benchmark": ["a", "b", "a", "b"] * 2, "variant": ["v"] * 4 + ["w"] * 4,
                  "value": [1e300, 2e300, 1.1e300, 2.1e300, 1e-300, 2e-300, 1.2e-300, 2.2e-300]})
    rows = {r["variant"]: r for r in f.aggregate_score(t, baseline="w").table.to_pylist()}
    assert rows["v"]["status"] == "ratio to the baseline beyond the float64 range"
    assert rows["v"]["ratio"] == math.inf
    assert rows["w"]["status"] == "ok" and rows["w"]["ratio"] == 1.0
    # the scores: geometric means of the per-run geometric means, by hand
    run_scores = [math.sqrt(1e300) * math.sqrt(2e300), math.sqrt(1.1e300) * math.sqrt(2.1e300)]
    assert rows["v"]["score"] == pytest.approx(sum(run_scores) / 2, rel=1e-12)


# ------------------------------------------------------------------ factorial


def jain_allocation(values, r):
    """Jain's 2^2 r allocation of variation, by hand: (q_I, q_A, q_B, q_AB), shares, share_error.
    Rows in the order A fastest (lo, hi), then B; replications follow one another."""
    y = np.asarray(values, dtype=float).reshape(r, 4)  # replication x cell
    ybar = y.mean(axis=0)
    signs = np.array([[1, -1, -1, 1], [1, 1, -1, -1], [1, -1, 1, -1], [1, 1, 1, 1]], float)
    q = signs.T @ ybar / 4
    ss = 4 * r * q[1:] ** 2
    sse = ((y - ybar) ** 2).sum()
    sst = ss.sum() + sse
    return q, ss / sst, sse / sst


TINY = [1e-308, 3e-308, 2e-308, 5e-308, 1.5e-308, 2.5e-308, 2e-308, 4e-308]


def factorial_table(vals):
    return pa.table({"A": ["lo", "hi"] * 4, "B": ["lo", "lo", "hi", "hi"] * 2, "value": vals})


def jain_of_table(vals):
    """`jain_allocation` of `factorial_table(vals)`: levels sort "hi" < "lo", so "hi" is -1 and
    each replication's rows (A, B) = (lo, lo), (hi, lo), (lo, hi), (hi, hi) are the standard
    order's cells 3, 2, 1, 0."""
    y = np.asarray(vals, dtype=float).reshape(2, 4)[:, ::-1]
    return jain_allocation(y.ravel(), 2)


def test_factorial_tiny_values_reproducer():
    """Values 1e-308 .. 5e-308 differ: the allocation of variation is that of the same values
    times 1e300 (hand-computed), not "all values equal" (squares underflowed)."""
    r = f.factorial(factorial_table(TINY), factors=["A", "B"])
    assert r.table.column("status")[0].as_py() == "ok"
    effects = {row["effect"]: row for row in r.effects.to_pylist()}
    q, shares, share_error = jain_of_table(np.array(TINY) * 1e300)  # the oracle at scale 1
    for j, name in enumerate(["I", "A", "B", "AB"]):
        assert effects[name]["q"] == pytest.approx(q[j] * 1e-300, rel=1e-9), name
    for j, name in enumerate(["A", "B", "AB"]):
        assert effects[name]["share"] == pytest.approx(shares[j], rel=1e-9), name
    assert r.table.column("share_error")[0].as_py() == pytest.approx(share_error, rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(e=st.integers(-1000, 1000), seed=st.integers(0, 2 ** 32 - 1), log=st.booleans())
def test_factorial_shares_scale_free(e, seed, log):
    """A 2^2 3 design times 2**e: the same shares of variation (scale-free), the effects times
    2**e, and never "all values equal"; a group whose sums of squares leave float64 says so."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(1.0, 16.0, size=12)
    t = pa.table({"A": ["lo", "hi"] * 6, "B": ["lo", "lo", "hi", "hi"] * 3, "value": base})
    ref = f.factorial(t, factors=["A", "B"])
    got = f.factorial(t.set_column(2, "value", pa.array(np.ldexp(base, e))), factors=["A", "B"])
    status = got.table.column("status")[0].as_py()
    assert status in ("ok", "sums of squares beyond the float64 range"), status
    np.testing.assert_allclose(got.effects.column("share").to_numpy(zero_copy_only=False),
                               ref.effects.column("share").to_numpy(zero_copy_only=False),
                               rtol=1e-12)
    np.testing.assert_allclose(got.effects.column("q").to_numpy(),
                               np.ldexp(ref.effects.column("q").to_numpy(), e), rtol=1e-12)
    if status == "ok":
        for name in ("ci_low", "ci_high"):
            np.testing.assert_allclose(got.effects.column(name).to_numpy(),
                                       np.ldexp(ref.effects.column(name).to_numpy(), e),
                                       rtol=1e-12)
    else:
        assert not np.isfinite(got.table.column("sst")[0].as_py())


def test_factorial_huge_values_keep_shares():
    """Values ~1e307: sums of squares overflow (status says so) but the shares, scale-free, are
    Jain's shares of the same design at ordinary scale (hand-computed)."""
    base = np.array([1., 3., 2., 5., 1.5, 2.5, 2., 4.])
    r = f.factorial(factorial_table(list(base * 2.0 ** 1020)), factors=["A", "B"])
    assert r.table.column("status")[0].as_py() == "sums of squares beyond the float64 range"
    ref = f.factorial(factorial_table(list(base)), factors=["A", "B"])
    np.testing.assert_allclose(r.effects.column("share").to_numpy(zero_copy_only=False),
                               ref.effects.column("share").to_numpy(zero_copy_only=False),
                               rtol=1e-14)
    _, shares, _ = jain_of_table(base)
    np.testing.assert_allclose(r.effects.column("share").to_numpy(zero_copy_only=False)[1:],
                               shares, rtol=1e-12)


# ------------------------------------------------------------------ anova contrasts


BASE = [1., 3., 2., 5., 1.5, 2.5, 2., 4., 3.3]
VARIANTS = ["a"] * 3 + ["b"] * 3 + ["c"] * 3


def hand_contrast(values, w):
    """c = sum w_j mean_j and s_c = sqrt(MSE sum w_j^2 / n_j), by hand."""
    x = np.asarray(values, dtype=float).reshape(3, 3)
    means = x.mean(axis=1)
    mse = ((x - means[:, None]) ** 2).sum() / 6
    return float(np.dot(w, means)), math.sqrt(mse * sum(v * v / 3 for v in w))


@pytest.mark.parametrize("scale", [1.0, 2.0 ** 1019, -(2.0 ** 1019), 2.0 ** -1000])
def test_anova_contrast_at_the_float64_limits(scale):
    """Values ~5e306: the MSE overflows, but c = mean_a - mean_b and s_c are finite: they are
    given, with status ok (was NaN and "no error variance")."""
    t = pa.table({"variant": VARIANTS, "value": [v * scale for v in BASE]})
    row = f.anova(t).contrasts({"a": 1, "b": -1}).table.to_pylist()[0]
    c, s_c = hand_contrast(BASE, [1, -1, 0])
    assert row["status"] == "ok"
    assert row["contrast"] == pytest.approx(c * scale, rel=1e-12)
    assert row["s_c"] == pytest.approx(s_c * abs(scale), rel=1e-12)
    half = sps.t.ppf(0.95, 6) * s_c
    assert row["ci_low"] == pytest.approx(min((c - half) * scale, (c + half) * scale), rel=1e-12)


def test_anova_contrast_huge_weights():
    """Weights 2**1000 are scaled before their squares: c = 2**1000 (mean_a - mean_b) is finite;
    weights 1e308, 1e308 do not sum to zero (was accepted: their sum overflowed)."""
    res = f.anova(pa.table({"variant": VARIANTS, "value": BASE}))
    w = 2.0 ** 1000
    row = res.contrasts([w, -w, 0]).table.to_pylist()[0]
    c, s_c = hand_contrast(BASE, [1, -1, 0])
    assert row["status"] == "ok"
    assert row["contrast"] == pytest.approx(c * w, rel=1e-12)
    assert row["s_c"] == pytest.approx(s_c * w, rel=1e-12)
    assert res.contrasts([w, -w, 0]).summary["weights"] == {"a": w, "b": -w, "c": 0.0}
    with pytest.raises(f.InputError, match="sum to zero"):
        res.contrasts([1e308, 1e308, 0])
