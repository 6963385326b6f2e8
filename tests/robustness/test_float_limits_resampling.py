"""Resampling: bootstrap and permutation_test at the float64 limits.

Contract: infinite input gives NaN and the status "infinite value in input"; finite input gives
finite figures wherever they are representable (sums scaled by powers of two), else NaN and a
status naming the overflow; figures of tiny values are those of ordinary values, scaled.

Oracles: exact rational arithmetic (``fractions.Fraction``) for single values; numpy, scipy
and the brute-force enumerations of tests/naive.py on data rescaled by a power of two (exact)
into the ordinary range; and scale equivariance by a power of two, which makes every figure of
these statistics an exact multiple of the unscaled one.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

import fastperf as f
from fastperf.kernels.bootstrap import MEAN, MEAN_DIFF, MEAN_RATIO, acceleration
from fastperf.kernels.resampling_scale import lerp, reflect, safe_mean
from fastperf.kernels.studentized import (
    PIVOT_DIFF,
    PIVOT_LOG_RATIO,
    PIVOT_MEAN,
    pivot_standard_error,
)

from naive import permutation_p_enumerated, sign_flip_p_enumerated


BEYOND = "statistic beyond the float64 range (p-value kept)"
INTERVAL_BEYOND = "confidence interval beyond the float64 range"
X = np.array([1.0, 3.0, 2.0, 5.0, 4.5, 2.2])
Y = np.array([1.5, 2.5, 2.0, 4.0, 3.3, 1.1])


def exact_float(value: Fraction) -> float:
    """The float nearest the rational `value` (correctly rounded), inf beyond the range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# ------------------------------------------------------------------------- permutation_test

@pytest.mark.parametrize("x, y", [
    ([np.inf, 1.0], [1.0, 2.0]),
    ([np.inf], [1e-308]),
    ([1.0, 2.0], [3.0, -np.inf]),
    ([np.inf, 1.0], [np.inf, 2.0]),
])
@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("statistic", ["mean_diff", "median_diff"])
def test_permutation_infinite_input_named(x, y, paired, statistic):
    """Issue 18 reproducer (x = [inf, 1] gave statistic inf, p = 0, status ok): NaN, a status."""
    x, y = np.array(x), np.array(y)
    if paired and x.size != y.size:
        y = np.resize(y, x.size)
    r = f.permutation_test((x, y), statistic=statistic, paired=paired, n_resamples=99, seed=1)
    assert str(r.status) == "infinite value in input", r
    assert np.isnan(r.statistic) and np.isnan(r.pvalue)


def test_permutation_infinite_input_batch_rows_independent():
    """One row with inf: only that row gets the status; the other is scipy's exact p."""
    x = np.array([[np.inf, 1.0, 2.0], [1.0, 2.0, 7.0]])
    y = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
    r = f.permutation_test((x, y), n_resamples=99, seed=1)
    assert list(r.status) == ["infinite value in input", "ok"]
    assert r.pvalue[1] == pytest.approx(permutation_p_enumerated(x[1], y[1], "mean_diff",
                                                                 "two-sided"), rel=1e-12)


def test_permutation_overflowing_statistic_has_status_and_p():
    """Issue 18 reproducer "permutation near max": mean(x) - mean(y) = 3.2e308 is beyond the
    float64 range: NaN and a status naming it; the p-value is scipy's rule by enumeration on the
    values times 2**-1000 (exact), C(6, 3) = 20 splits."""
    x = np.array([1.7e308, 1.6e308, 1.5e308])
    y = -x[::-1]
    assert exact_float(sum(map(Fraction, x)) / 3 - sum(map(Fraction, y)) / 3) == np.inf
    r = f.permutation_test((x, y), n_resamples=99, seed=1)
    assert str(r.status) == BEYOND and np.isnan(r.statistic)
    oracle = permutation_p_enumerated(x * 2.0 ** -1000, y * 2.0 ** -1000, "mean_diff", "two-sided")
    assert r.pvalue == pytest.approx(oracle, rel=1e-12) and oracle == pytest.approx(0.1)
    assert r.pvalue >= 1 / math.comb(6, 3)


def test_permutation_overflow_table_form():
    """The same as a table: the row says why, the warning counts it, renderings work."""
    t = pa.table({"benchmark": ["a"] * 6, "variant": ["b"] * 3 + ["c"] * 3,
                  "value": [1.7e308, 1.6e308, 1.5e308, -1.7e308, -1.6e308, -1.5e308]})
    r = f.permutation_test(t, baseline="b", candidate="c", n_resamples=99, seed=1)
    row = r.table.to_pylist()[0]
    assert row["status"] == BEYOND and math.isnan(row["statistic"])
    assert row["pvalue"] == pytest.approx(0.1)
    assert any(BEYOND in w for w in r.warnings)
    assert BEYOND in r.to_text()


@pytest.mark.parametrize("statistic", ["mean_diff", "median_diff"])
def test_permutation_paired_differences_beyond_range_are_halved(statistic):
    """Finite pairs whose difference overflows (1.7e308 - -1.7e308): the statistic of the
    differences is finite here, (3.4e308 - 3.1e308 - 1) / 3 ~ 1e307 (exact rational oracle);
    its p-value is the sign-flip enumeration of the differences rescaled (2**3 patterns)."""
    x = np.array([1.7e308, -1.6e308, 1.0])
    y = np.array([-1.7e308, 1.5e308, 2.0])
    r = f.permutation_test((x, y), statistic=statistic, paired=True, n_resamples=99, seed=1)
    d = [Fraction(a) - Fraction(b) for a, b in zip(x, y)]
    want = sum(d) / 3 if statistic == "mean_diff" else sorted(d)[1]
    if statistic == "median_diff":  # the median difference, -1, is tiny: finite, ok
        assert want == -1
    assert str(r.status) == "ok", r
    assert r.statistic == pytest.approx(exact_float(want), rel=1e-15)
    oracle = sign_flip_p_enumerated(np.ldexp(x, -10), np.ldexp(y, -10), statistic, "two-sided")
    assert r.pvalue == pytest.approx(oracle, rel=1e-12)


def test_permutation_paired_statistic_beyond_range_named():
    """Differences 3.4e308 and 3.1e308 with median 3.1e308: beyond the range, a status."""
    x = np.array([1.7e308, 1.6e308, 1.0])
    y = np.array([-1.7e308, -1.5e308, 2.0])
    r = f.permutation_test((x, y), statistic="median_diff", paired=True, n_resamples=99, seed=1)
    assert str(r.status) == BEYOND and np.isnan(r.statistic)
    assert r.pvalue == pytest.approx(sign_flip_p_enumerated(
        np.ldexp(x, -10), np.ldexp(y, -10), "median_diff", "two-sided"), rel=1e-12)


MAGNITUDE = st.sampled_from([1.0, 1e-308, 5e-324, 1e300, 1.7e308, 1e-200])


@settings(max_examples=40, deadline=None, database=None)
@given(n1=st.integers(1, 4), n2=st.integers(1, 4), data=st.data())
def test_permutation_exact_p_never_below_one_arrangement(n1, n2, data):
    """Property: finite values of any magnitude give an "ok" test with a finite statistic, or a
    named status; an exact p-value is at least 1 / C(n1 + n2, n1) (the identity arrangement
    always counts), and equals the enumeration of tests/naive.py on the values rescaled."""
    scale = data.draw(MAGNITUDE)
    units = data.draw(st.lists(st.floats(-1, 1), min_size=n1 + n2, max_size=n1 + n2))
    values = np.array(units) * scale
    x, y = values[:n1], values[n1:]
    r = f.permutation_test((x, y), n_resamples=10 ** 6, seed=1)
    assert bool(r.exact)
    if str(r.status) == "ok":
        assert np.isfinite(r.statistic)
    else:
        assert str(r.status) == BEYOND
    assert 1 / math.comb(n1 + n2, n1) <= r.pvalue <= 1.0
    e = math.frexp(max(np.abs(values).max(), 5e-324))[1]
    oracle = permutation_p_enumerated(np.ldexp(x, -e), np.ldexp(y, -e), "mean_diff", "two-sided")
    assert r.pvalue == pytest.approx(oracle, rel=1e-9)


# ------------------------------------------------------------------------------- bootstrap

def test_bootstrap_basic_near_float_max_finite():
    """Issue 18 reproducer: basic = 2 estimate - quantile overflowed (2 x 1e308) although the
    limit is ~1e308. Oracle: numpy's quantiles of the returned distribution, every figure on
    the values times 2**-1000 (exact), scaled back."""
    x, y = np.array([1e308]), np.array([1e-308] * 8 + [1e300])
    r = f.bootstrap((x, y), statistic="mean_diff", method="basic", n_resamples=50, seed=1,
                    return_distribution=True)
    assert str(r.status) == "ok"
    s = 2.0 ** -1000
    dist, est = r.bootstrap_distribution * s, float(r.estimate) * s
    want_low = 2 * est - np.quantile(dist, 0.975)
    want_high = 2 * est - np.quantile(dist, 0.025)
    assert float(r.confidence_interval.low) == pytest.approx(want_low / s, rel=1e-12)
    assert float(r.confidence_interval.high) == pytest.approx(want_high / s, rel=1e-12)
    assert float(r.standard_error) == pytest.approx(np.std(dist, ddof=1) / s, rel=1e-12)
    assert np.isfinite(r.standard_error) and r.standard_error > 0


def test_bootstrap_basic_limit_beyond_range_named():
    """A basic limit truly beyond 1.8e308 (estimate 1.61e308, lower quantile ~1.25e308):
    NaN with a status naming the overflow; the oracle limit, on the rescaled values, is
    beyond the range."""
    x = np.array([1.79e308] * 9 + [1e300])
    r = f.bootstrap((x,), statistic="mean", method="basic", n_resamples=99, seed=3,
                    return_distribution=True)
    s = 2.0 ** -1000
    high = 2 * float(r.estimate) * s - np.quantile(r.bootstrap_distribution * s, 0.025)
    assert high / s == np.inf  # the oracle: beyond the range
    assert str(r.status) == INTERVAL_BEYOND
    assert np.isnan(r.confidence_interval.low) and np.isnan(r.confidence_interval.high)


def test_bootstrap_mean_near_float_max_finite():
    """The mean of values whose sum overflows is finite (exact rational oracle), and so are
    the interval and the standard error."""
    x = np.array([1.7e308, 1.6e308, 1.5e308, 1.65e308])
    r = f.bootstrap((x,), statistic="mean", method="percentile", n_resamples=99, seed=1)
    assert str(r.status) == "ok"
    assert float(r.estimate) == pytest.approx(exact_float(sum(map(Fraction, x)) / 4), rel=1e-15)
    assert np.isfinite(r.confidence_interval.low) and np.isfinite(r.confidence_interval.high)
    assert 1.5e308 <= r.confidence_interval.low <= r.confidence_interval.high <= 1.7e308


CASES = [("mean", "percentile"), ("mean", "bca"), ("mean", "basic"), ("mean", "studentized"),
         ("mean_diff", "percentile"), ("mean_diff", "bca"), ("mean_diff", "basic"),
         ("mean_diff", "studentized"), ("mean_ratio", "bca"), ("mean_ratio", "studentized"),
         ("median", "bca"), ("median_diff", "bca"), ("hodges_lehmann", "bca")]


@pytest.mark.parametrize("power", [-700, -1000, 900])
@pytest.mark.parametrize("statistic, method", CASES)
def test_bootstrap_scale_free_by_powers_of_two(statistic, method, power):
    """Issue 18: values times 2**power (tiny, their squares underflow; huge, their squares
    overflow) give exactly the figures at scale 1 times 2**power (ratios: the same figures),
    the same seed drawing the same resamples. Was: standard error 0 and studentized NaN."""
    data = (X,) if statistic in ("mean", "median") else (X, Y)
    ref = f.bootstrap(data, statistic=statistic, method=method, n_resamples=199, seed=4)
    scaled = tuple(np.ldexp(a, power) for a in data)
    r = f.bootstrap(scaled, statistic=statistic, method=method, n_resamples=199, seed=4)
    assert str(r.status) == str(ref.status) == "ok"
    back = 0 if statistic == "mean_ratio" else power
    got = np.ldexp([r.estimate, r.confidence_interval.low, r.confidence_interval.high,
                    r.standard_error], -back)
    want = [ref.estimate, ref.confidence_interval.low, ref.confidence_interval.high,
            ref.standard_error]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    if method == "bca":
        assert float(r.acceleration) == pytest.approx(float(ref.acceleration), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("method", ["percentile", "bca", "basic", "studentized"])
def test_bootstrap_tiny_decimal_scale(method):
    """The battery's case at 1e-208 (not a power of two: equal up to rounding), and the
    standard error against numpy on the returned distribution rescaled."""
    ref = f.bootstrap((X, Y), statistic="mean_diff", method=method, n_resamples=99, seed=1)
    r = f.bootstrap((X * 1e-208, Y * 1e-208), statistic="mean_diff", method=method,
                    n_resamples=99, seed=1, return_distribution=True)
    assert str(r.status) == "ok"
    got = np.array([r.confidence_interval.low, r.confidence_interval.high, r.standard_error])
    want = np.array([ref.confidence_interval.low, ref.confidence_interval.high, ref.standard_error])
    np.testing.assert_allclose(got / 1e-208, want, rtol=1e-9)
    assert float(r.standard_error) == pytest.approx(
        np.std(r.bootstrap_distribution * 1e208, ddof=1) * 1e-208, rel=1e-12)


# ------------------------------------------------------------------- kernel pieces, direct

@pytest.mark.parametrize("scale", [1.0, 1e-300, 2.0 ** -1050, 1e250, 1e300])
def test_pivot_standard_error_scale_free(scale):
    """s / sqrt(n), sqrt(s_x^2/n + s_y^2/m) and the delta-method se of log(xbar/ybar): numpy on
    the unscaled values, times the scale (the log ratio's se is free of it)."""
    x, y = X * scale, Y * 3.0 * scale
    n, m = X.size, Y.size
    want_mean = np.sqrt(np.var(X, ddof=1) / n) * scale
    want_diff = np.sqrt(np.var(X, ddof=1) / n + np.var(3.0 * Y, ddof=1) / m) * scale
    want_log = np.sqrt(np.var(X, ddof=1) / (n * X.mean() ** 2)
                       + np.var(3.0 * Y, ddof=1) / (m * (3.0 * Y.mean()) ** 2))
    rel = 1e-12 if scale > 1e-305 else 1e-9  # 2**-1050: subnormal values, fewer digits
    assert pivot_standard_error(PIVOT_MEAN, x, n, y, m) == pytest.approx(want_mean, rel=rel)
    assert pivot_standard_error(PIVOT_DIFF, x, n, y, m) == pytest.approx(want_diff, rel=rel)
    assert pivot_standard_error(PIVOT_LOG_RATIO, x, n, y, m) == pytest.approx(want_log, rel=rel)


def _jackknife_acceleration(x, y, statistic):
    """scipy's _bca_interval acceleration, written out: sum U^3 / (6 (sum U^2)^1.5) over each
    sample's leave-one-out statistics, U = (n - 1)(mean - theta_(i))."""
    num = den = 0.0
    for left in ("x", "y") if y is not None else ("x",):
        a = x if left == "x" else y
        vals = []
        for i in range(a.size):
            rest = np.delete(a, i)
            mx, my = (rest.mean(), None if y is None else y.mean()) if left == "x" else (x.mean(), rest.mean())
            vals.append(mx if statistic == "mean" else mx - my if statistic == "mean_diff" else mx / my)
        vals = np.array(vals)
        u = (a.size - 1) * (vals.mean() - vals)
        num += np.sum(u ** 3) / a.size ** 3
        den += np.sum(u ** 2) / a.size ** 2
    return num / 6.0 / den ** 1.5


@pytest.mark.parametrize("power", [0, -800, 950])
@pytest.mark.parametrize("statistic, code", [("mean", MEAN), ("mean_diff", MEAN_DIFF),
                                             ("mean_ratio", MEAN_RATIO)])
def test_acceleration_scale_free(statistic, code, power):
    """The BCa acceleration is dimensionless: at 2**power it is the written-out jackknife
    formula on the unscaled values (was 0: cubes of tiny deviations underflow)."""
    y = None if statistic == "mean" else Y
    want = _jackknife_acceleration(X, y, statistic)
    xs = np.ldexp(X, power)
    ys = np.ldexp(Y, power) if y is not None else np.empty(0)
    got = acceleration(code, xs, ys, y is not None, 0.5)
    assert got == pytest.approx(want, rel=1e-10) and want != 0.0


def test_acceleration_ratio_of_very_different_scales():
    """mean_ratio of x ~ 1e300 over y ~ 1e-300: each sample scaled on its own (a common scale
    would flush y to zero); the acceleration of the ratio is that of the unscaled samples."""
    want = _jackknife_acceleration(X, Y, "mean_ratio")
    got = acceleration(MEAN_RATIO, X * 2.0 ** 990, Y * 2.0 ** -990, True, 0.5)
    assert got == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("a, b, t", [(-1.7e308, 1.7e308, 0.25), (-1.7e308, 1.7e308, 0.75),
                                     (-1.0e308, 1.5e308, 0.5), (1.0, 2.0, 0.3)])
def test_lerp_finite_ends_beyond_range(a, b, t):
    """numpy's linear interpolation a + (b - a) t with b - a beyond the range: finite, and the
    exact rational value up to rounding."""
    want = Fraction(a) + (Fraction(b) - Fraction(a)) * Fraction(t)
    assert lerp(a, b, t) == pytest.approx(exact_float(want), rel=1e-15)


@pytest.mark.parametrize("theta, v", [(1e308, 1e308 - 1e300), (1.7e308, 1.65e308), (2.0, 3.5),
                                      (-1.7e308, -1.65e308)])
def test_reflect_finite_where_representable(theta, v):
    """2 theta - v: the exact rational value (finite) even where 2 theta overflows."""
    assert reflect(theta, v) == pytest.approx(exact_float(2 * Fraction(theta) - Fraction(v)),
                                              rel=1e-15)


def test_reflect_beyond_range_is_inf():
    assert reflect(1.7e308, 1.0e308) == np.inf  # 2.4e308, beyond the range


@pytest.mark.parametrize("values", [[1.7e308, 1.6e308], [1.7e308, -1.0e308, 1.5e308],
                                    [1.0, 2.0, 4.0]])
def test_safe_mean_exact(values):
    """The mean of values whose sum overflows: the exact rational mean, correctly rounded up to
    the scaling's one rounding."""
    a = np.array(values)
    assert safe_mean(a, a.size) == pytest.approx(exact_float(sum(map(Fraction, a)) / a.size),
                                                 rel=1e-15)
