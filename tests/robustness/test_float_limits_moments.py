"""Moment-based statistics (describe, t, F, ANOVA) at any magnitude: no silent NaN/inf, finite
results for finite input, from the smallest subnormal to the largest float, and NaN or infinite
input named in the status.

The oracle is exact rational arithmetic (`fractions.Fraction`) on the very values given, so it
holds at every magnitude: its statistic is rounded to float64 once at the end (an OverflowError
there means the true value is beyond the float64 range), and the p-values come from it through
``scipy.special``.
"""
import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import scipy.special as sc
import scipy.stats as sps
from hypothesis import given, settings, strategies as st

import fastperf


INF = "infinite value in input"
MAX = np.finfo(float).max
EPS = np.finfo(float).eps


# ----------------------------------------------------------------------------------------------
# The exact oracle


def frac_sqrt(q: Fraction) -> float:
    """sqrt(q) rounded to float64 (an integer square root of ~120 bits first); OverflowError
    when beyond the float64 range."""
    if q == 0:
        return 0.0
    log2 = q.numerator.bit_length() - q.denominator.bit_length()
    shift = 2 * ((122 - log2) // 2)  # even: q * 2**shift has about 120 bits
    if shift >= 0:
        whole = q.numerator * 2 ** shift // q.denominator
    else:
        whole = q.numerator // (q.denominator * 2 ** -shift)
    return float(Fraction(math.isqrt(whole)) / Fraction(2) ** (shift // 2))


def frac_float(q: Fraction) -> float:
    return float(q)  # correctly rounded; OverflowError beyond the range


def moments(xs):
    """Exact n, mean and variance (ddof=1) of finite floats."""
    q = [Fraction(x) for x in xs]
    n = len(q)
    mean = sum(q) / n
    var = sum((v - mean) ** 2 for v in q) / (n - 1) if n > 1 else None
    return n, mean, var


def oracle_t(x, y, equal_var=True):
    """Exact t statistic and df of `ttest_ind` (or OverflowError/ZeroDivisionError)."""
    n1, m1, v1 = moments(x)
    n2, m2, v2 = moments(y)
    if equal_var:
        df = Fraction(n1 + n2 - 2)
        se2 = ((n1 - 1) * v1 + (n2 - 1) * v2) / df * (Fraction(1, n1) + Fraction(1, n2))
    else:
        a, b = v1 / n1, v2 / n2
        se2 = a + b
        df = se2 ** 2 / (a * a / (n1 - 1) + b * b / (n2 - 1))
    d = m1 - m2
    t = (1 if d >= 0 else -1) * frac_sqrt(d * d / se2)
    return t, float(df), d, se2


def oracle_paired(x, y):
    d = [Fraction(a) - Fraction(b) for a, b in zip(x, y)]
    n = len(d)
    m = sum(d) / n
    var = sum((v - m) ** 2 for v in d) / (n - 1)
    t = (1 if m >= 0 else -1) * frac_sqrt(m * m / (var / n))
    return t, float(n - 1), m, var / n


def oracle_f(x, y):
    _, _, v1 = moments(x)
    _, _, v2 = moments(y)
    return frac_float(v1 / v2)


def oracle_anova(samples, equal_var=True):
    """Exact F and denominator df of the one-way ANOVA (classical or Welch's)."""
    ms = [moments(s) for s in samples]
    k = len(ms)
    big_n = sum(n for n, _, _ in ms)
    if equal_var:
        grand = sum(n * m for n, m, _ in ms) / big_n
        ssa = sum(n * (m - grand) ** 2 for n, m, _ in ms)
        sse = sum((n - 1) * v for n, _, v in ms)
        return frac_float((ssa / (k - 1)) / (sse / (big_n - k))), float(big_n - k), ssa, sse
    w = [Fraction(n) / v for n, _, v in ms]
    total = sum(w)
    mw = sum(wi * m for wi, (_, m, _) in zip(w, ms)) / total
    a = sum(wi * (m - mw) ** 2 for wi, (_, m, _) in zip(w, ms)) / (k - 1)
    lam = sum((1 - wi / total) ** 2 / (n - 1) for wi, (n, _, _) in zip(w, ms))
    f = a / (1 + Fraction(2 * (k - 2), k * k - 1) * lam)
    return frac_float(f), float(Fraction(k * k - 1) / (3 * lam)), None, None


def t_p(t, df):
    return 2 * sc.stdtr(df, -abs(t))


def close(a, b, rel=1e-9, atol=0.0):
    np.testing.assert_allclose(a, b, rtol=rel, atol=atol)


def difference_error_bound(*means):
    """Bound on the rounding error of a computed mean difference, from its condition.

    Each mean is a compensated sum over n: within about one rounding, ``u |m|`` (u = eps / 2,
    docs of `segment_moments`); subtracting two rounded means adds ``u |d|`` (the rtol of the
    callers) and carries their errors whole, so the error is at most ``2 u (|m1| + |m2|)`` plus
    that: relative to ``d`` that is the subtraction's condition ``(|m1| + |m2|) / |d|``, large
    where the means cancel (a 1.03e-12 relative error was seen against a bare ``rtol=1e-12``).
    Twice that bound (a factor 2 for the scaling and the final rounding), plus one subnormal.
    """
    return 2 * EPS * sum(abs(float(m)) for m in means) + 5e-324


# ----------------------------------------------------------------------------------------------
# Regression tests: the reproducers


def test_infinite_values_are_named_in_every_array_form():
    x, y = [1.0, 2.0, 3.0, np.inf], [1.0, 2.0, 4.0]
    for result in (fastperf.ftest(x, y), fastperf.f_oneway(x, y),
                   fastperf.f_oneway(x, y, equal_var=False), fastperf.ttest_ind(x, y),
                   fastperf.ttest_ind(x, y, equal_var=False), fastperf.f_oneway(y, y, x),
                   fastperf.ttest_ind(y, [-np.inf, np.inf, 1.0]),
                   fastperf.ttest_rel([1.0, np.inf, 3.0], [2.0, np.inf, 5.0]),
                   fastperf.ttest_rel([1.0, 2.0, 3.0], [2.0, -np.inf, 5.0])):
        assert result.status == INF, result
        assert np.isnan(result.statistic) and np.isnan(result.pvalue)


def test_an_infinite_value_spoils_only_its_own_test_in_a_batch():
    x = np.array([[1.0, 2.0, 3.0, np.inf], [1.0, 2.0, 3.0, 5.0]])
    y = np.array([[1.0, 2.0, 4.0, 1.0], [1.0, 2.0, 4.0, 7.5]])
    for ours, ref in [(fastperf.ttest_ind(x, y), sps.ttest_ind(x[1], y[1])),
                      (fastperf.ttest_rel(x, y), sps.ttest_rel(x[1], y[1])),
                      (fastperf.f_oneway(x, y), sps.f_oneway(x[1], y[1]))]:
        assert list(ours.status) == [INF, "ok"]
        close(ours.statistic[1], ref.statistic, rel=1e-12)
        close(ours.pvalue[1], ref.pvalue, rel=1e-12)
    f = fastperf.ftest(x, y)
    assert list(f.status) == [INF, "ok"]
    close(f.statistic[1], oracle_f(x[1], y[1]), rel=1e-12)


def test_nan_in_input_keeps_its_reason():
    assert fastperf.ttest_ind([1.0, np.nan, 3.0], [1.0, 2.0, 4.0]).status == "NaN in input"
    assert fastperf.ftest([1.0, np.nan, 3.0], [1.0, 2.0, 4.0]).status == "NaN in input"


def describe_rows(values):
    table = pa.table({"benchmark": ["a"] * len(values), "value": values})
    return fastperf.describe(table, variant=None).groups.to_pylist()[0]


def check_describe(row, values):
    """The row's figures against the exact oracle, wherever the row has them."""
    n, mean, var = moments(values)
    sd = frac_sqrt(var)
    close(row["mean"], float(mean), rel=1e-14)
    close(row["sd"], sd, rel=1e-12)
    close(row["cv"], sd / float(mean), rel=1e-12)
    half = sps.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    # the interval relative to the sd: exact up to the quantile's accuracy
    close((row["ci_mean_high"] - row["mean"]) / sd, half / sd, rel=1e-9)
    close((row["mean"] - row["ci_mean_low"]) / sd, half / sd, rel=1e-9)
    ordered = sorted(Fraction(v) for v in values)
    median = (ordered[(n - 1) // 2] + ordered[n // 2]) / 2
    close(row["median"], float(median), rel=1e-15)


def test_describe_values_alternating_1e300_and_1e_300():
    values = [1e300, 1e-300] * 4
    row = describe_rows(values)
    assert row["status"] == "ok"
    check_describe(row, values)


def test_describe_values_near_the_largest_float():
    values = [1.5e308, 1.6e308, 1.7e308, 1.4e308, 1.65e308, 1.45e308]
    row = describe_rows(values)
    assert row["status"] == "ok"
    check_describe(row, values)
    assert row["median"] == 0.5 * 1.5e308 + 0.5 * 1.6e308
    # four of them: the figures are there, only the median interval is not (too few values)
    row = describe_rows(values[:4])
    assert row["status"].startswith("fewer than 6 values")
    assert math.isfinite(row["sd"]) and math.isfinite(row["ci_mean_low"])


def test_describe_tiny_values_keep_their_spread():
    values = [1e-300, 2e-300, 4e-300, 3e-300, 5e-300, 9e-300]
    row = describe_rows(values)
    assert row["status"] == "ok" and row["sd"] > 0
    check_describe(row, values)


def test_describe_sd_beyond_the_float64_range_is_named():
    values = [-1.7e308, 1.7e308, -1.7e308, 1.7e308, -1.7e308, 1.6e308]
    _, mean, var = moments(values)
    assert var > Fraction(MAX) ** 2  # the oracle: the sd exceeds the largest float
    row = describe_rows(values)
    assert row["status"] == "sd beyond the float64 range: no sd, cv or mean interval"
    assert math.isnan(row["sd"]) and math.isnan(row["ci_mean_low"]) and math.isnan(row["cv"])
    close(row["mean"], float(mean), rel=1e-14)


def test_describe_mean_interval_beyond_the_range_is_named():
    values = [1.7e308, 1.0e308, 1.6e308, 1.65e308, 1.5e308, 1.7e308]
    _, mean, var = moments(values)
    half = Fraction(sps.t.ppf(0.975, 5)) * Fraction(frac_sqrt(var)) / Fraction(math.sqrt(6))
    assert mean + half > Fraction(MAX)  # the oracle: the upper bound is beyond the range
    row = describe_rows(values)
    assert row["status"] == "mean interval beyond the float64 range"
    assert math.isnan(row["ci_mean_high"]) and math.isnan(row["ci_mean_low"])
    close(row["sd"], frac_sqrt(var), rel=1e-12)
    close(row["mean"], float(mean), rel=1e-14)


def test_describe_zero_mean_names_the_missing_cv():
    row = describe_rows([-1.0, 1.0, -2.0, 2.0, -3.0, 3.0])
    assert row["status"] == "mean 0: no cv" and math.isnan(row["cv"])
    close(row["sd"], frac_sqrt(moments([-1.0, 1.0, -2.0, 2.0, -3.0, 3.0])[2]), rel=1e-14)


def test_ttest_ind_huge_values_match_the_exact_oracle():
    x, y = [1e308, 1.5e308, -1e308, 1.2e308], [1.7e308, -1.7e308, 1e300]
    for equal_var in (True, False):
        got = fastperf.ttest_ind(x, y, equal_var=equal_var)
        t, df, d, se2 = oracle_t(x, y, equal_var)
        assert got.status == "ok"
        close(got.statistic, t)
        close(got.df, df)
        close(got.pvalue, t_p(t, df))
        close(got.estimate, float(d), rel=1e-12)
        close(got.standard_error, frac_sqrt(se2), rel=1e-12)


def test_welch_df_of_tiny_variances_matches_the_exact_oracle():
    # the squares of variances near 1e-161 underflow into subnormals (scipy's df is 2.1667 on
    # the first pair; the exact df is 2)
    pairs = [([0.0, 0.0, 8.433758354584419e-81], [0.0, 0.0]),
             ([1e-80, 3e-80, 2e-80], [5e-81, 7e-81, 1.1e-80, 9e-81]),
             ([1.0, 2.0, 4.0], [1e-160, 3e-160])]
    for x, y in pairs:
        got = fastperf.ttest_ind(x, y, equal_var=False)
        t, df, _, _ = oracle_t(x, y, False)
        assert got.status == "ok"
        close(got.df, df, rel=1e-12)
        close(got.statistic, t, rel=1e-12)


def test_table_t_tests_of_huge_values():
    x, y = [1e308, 1.5e308, -1e308, 1.2e308], [1.7e308, -1.7e308, 1e300, 0.0]
    table = pa.table({"benchmark": ["a"] * 8, "variant": ["old"] * 4 + ["new"] * 4,
                      "run": [0, 1, 2, 3] * 2, "value": x + y})
    row = fastperf.ttest_ind(table, baseline="old", candidate="new").benchmarks.to_pylist()[0]
    t, df, d, se2 = oracle_t(x, y)
    # the t-test is there; its 95% interval, d -/+ 2.45 * 1.1e308, is not
    assert d + Fraction(sps.t.ppf(0.975, df)) * Fraction(frac_sqrt(se2)) > Fraction(MAX)
    assert row["status"] == "confidence interval beyond the float64 range"
    close([row["statistic"], row["pvalue"]], [t, t_p(t, df)])
    assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])
    row = fastperf.ttest_rel(table, baseline="old", candidate="new").benchmarks.to_pylist()[0]
    t, df, m, se2 = oracle_paired(x, y)
    close([row["statistic"], row["pvalue"]], [t, t_p(t, df)])
    assert row["status"] == "confidence interval beyond the float64 range"
    small = pa.table({"benchmark": ["a"] * 8, "variant": ["old"] * 4 + ["new"] * 4,
                      "run": [0, 1, 2, 3] * 2, "value": [v / 4 for v in x + y]})
    row = fastperf.ttest_ind(small, baseline="old", candidate="new").benchmarks.to_pylist()[0]
    half = sps.t.ppf(0.975, 6) * frac_sqrt(oracle_t([v / 4 for v in x], [v / 4 for v in y])[3])
    assert row["status"] == "ok"
    close([row["ci_low"], row["ci_high"]], [float(d) / 4 - half, float(d) / 4 + half], rel=1e-12)


def test_ttest_ind_mean_difference_beyond_the_range_is_named():
    x, y = [1.7e308, 1.6e308, 1.5e308], [-1.7e308, -1.6e308, -1.5e308]
    with pytest.raises(OverflowError):
        frac_float(oracle_t(x, y)[2])
    got = fastperf.ttest_ind(x, y)
    assert got.status == "mean difference or its standard error beyond the float64 range"
    assert np.isnan(got.statistic) and np.isnan(got.estimate)


def test_ttest_rel_differences_beyond_the_range_but_mean_within():
    x, y = [1.7e308, 1e308, 0.0, 3e307], [-1e308, 0.0, 1e308, 1e307]
    got = fastperf.ttest_rel(x, y)
    t, df, m, se2 = oracle_paired(x, y)
    assert got.status == "ok"
    close(got.statistic, t)
    close(got.pvalue, t_p(t, df))
    close(got.estimate, float(m), rel=1e-12)
    close(got.standard_error, frac_sqrt(se2), rel=1e-12)


def test_tiny_values_give_the_exact_t():
    x, y = [1e-300, 2e-300, 3e-300], [4e-300, 5e-300, 7e-300]
    got = fastperf.ttest_ind(x, y)
    t, df, _, _ = oracle_t(x, y)
    assert got.status == "ok"
    close(got.statistic, t, rel=1e-12)
    close(got.statistic, sps.ttest_ind([1, 2, 3], [4, 5, 7]).statistic, rel=1e-12)


def test_ftest_ratio_beyond_the_range_is_named():
    x, y = [1e300, 1.5e300, -1e300], [1e-300, 2e-300, 3e-300]
    with pytest.raises(OverflowError):
        oracle_f(x, y)
    got = fastperf.ftest(x, y)
    assert got.status == "F statistic beyond the float64 range" and np.isnan(got.statistic)
    x2 = [1e154, 2e154, 4e154]  # variance ~1e308: F within the range
    got = fastperf.ftest(x2, [1.0, 2.0, 4.0])
    assert got.status == "ok"
    close(got.statistic, oracle_f(x2, [1.0, 2.0, 4.0]), rel=1e-12)


def test_ftest_table_variance_beyond_the_range_is_named():
    table = pa.table({"benchmark": ["a"] * 6, "variant": ["old"] * 3 + ["new"] * 3,
                      "value": [1.7e308, -1.7e308, 1e308, 1.6e308, -1.6e308, 0.0]})
    row = fastperf.ftest(table, baseline="old", candidate="new").benchmarks.to_pylist()[0]
    assert moments([1.7e308, -1.7e308, 1e308])[2] > Fraction(MAX)  # the oracle: beyond
    assert row["status"] == "variance beyond the float64 range"
    assert math.isnan(row["var_baseline"]) and math.isnan(row["statistic"])
    # within the range, F itself is right
    got = fastperf.ftest([1.7e308, -1.7e308, 1e308], [1.6e308, -1.6e308, 0.0])
    assert got.status == "ok"
    close(got.statistic, oracle_f([1.7e308, -1.7e308, 1e308], [1.6e308, -1.6e308, 0.0]),
          rel=1e-12)


def test_f_oneway_and_anova_of_huge_values():
    samples = [[1e308, 1.5e308, -1e308], [1.7e308, -1.7e308, 1e300], [1.2e308, 1.1e308, 0.0]]
    for equal_var in (True, False):
        f_exact, dfd, ssa, _ = oracle_anova(samples, equal_var)
        got = fastperf.f_oneway(*samples, equal_var=equal_var)
        assert got.status == "ok"
        close(got.statistic, f_exact)
        close(got.df_error, dfd)
        close(got.pvalue, sc.fdtrc(2.0, dfd, f_exact))
    table = pa.table({"variant": [v for v in "abc" for _ in range(3)],
                      "value": [v for s in samples for v in s]})
    row = fastperf.anova(table).groups.to_pylist()[0]
    with pytest.raises(OverflowError):
        frac_float(oracle_anova(samples)[2])  # SSA itself is beyond the range
    assert row["status"] == "sums of squares beyond the float64 range: NaN, F and p kept"
    close(row["f"], oracle_anova(samples)[0])
    assert math.isnan(row["ssa"]) and math.isnan(row["msa"])
    close(row["share_alternatives"], float(oracle_anova(samples)[2] / (
        oracle_anova(samples)[2] + oracle_anova(samples)[3])), rel=1e-12)


def test_anova_of_tiny_values_keeps_its_shares():
    samples = [[1e-300, 1.5e-300, -1e-300], [1.7e-300, -1.7e-300, 1e-300]]
    table = pa.table({"variant": ["a"] * 3 + ["b"] * 3, "value": samples[0] + samples[1]})
    result = fastperf.anova(table)
    row = result.groups.to_pylist()[0]
    f_exact, _, ssa, sse = oracle_anova(samples)
    assert row["status"] == "ok"
    close(row["f"], f_exact)
    close(row["share_alternatives"], float(ssa / (ssa + sse)), rel=1e-12)
    contrast = result.contrasts([1, -1]).groups.to_pylist()[0]
    # s_c = sqrt(MSE (1/3 + 1/3)) exactly, though MSE itself underflows
    assert contrast["status"] == "ok"
    close(contrast["s_c"], frac_sqrt(sse / 4 * Fraction(2, 3)), rel=1e-12)


def test_anova_of_large_values_with_representable_sums():
    samples = [[1e150, 1.5e150, -1e150], [1.7e150, -1.7e150, 1e140]]
    table = pa.table({"variant": ["a"] * 3 + ["b"] * 3, "value": samples[0] + samples[1]})
    row = fastperf.anova(table).groups.to_pylist()[0]
    f_exact, _, ssa, sse = oracle_anova(samples)
    assert row["status"] == "ok"
    close([row["f"], row["ssa"], row["sse"]], [f_exact, float(ssa), float(sse)], rel=1e-12)


# ----------------------------------------------------------------------------------------------
# Property tests: any magnitude, exact oracle, or a non-"ok" status


@st.composite
def sample(draw, exponent, min_size=2, max_size=7):
    """Small integers times 2**(exponent + a small offset): exact floats at any magnitude, from
    the subnormals (2**-1074) to about 1e308."""
    n = draw(st.integers(min_size, max_size))
    ints = draw(st.lists(st.integers(-(2 ** 20), 2 ** 20), min_size=n, max_size=n))
    shift = min(max(exponent + draw(st.integers(-8, 8)), -1074), 1000)
    return [math.ldexp(float(i), shift) for i in ints]


exponents = st.one_of(st.integers(-1074, 1000), st.sampled_from([-1074, -1050, 0, 990, 1000]))


@st.composite
def samples(draw, k_min=2, k_max=2):
    """k samples; their scales either near one another or anywhere in the float64 range."""
    k = draw(st.integers(k_min, k_max))
    base = draw(exponents)
    apart = draw(st.booleans())
    return [draw(sample(draw(exponents) if apart else base)) for _ in range(k)]


def spoil(draw, xs):
    """Maybe put one NaN or +-inf into one sample; returns the kind put (None: none)."""
    kind = draw(st.sampled_from([None, None, None, "nan", "inf", "-inf"]))
    if kind is not None:
        s = draw(st.integers(0, len(xs) - 1))
        xs[s][draw(st.integers(0, len(xs[s]) - 1))] = float(kind)
    return kind


def oracle_or_none(fn, *args):
    """The oracle's result, or None where the true statistic is undefined or beyond float64."""
    try:
        out = fn(*args)
    except (ZeroDivisionError, OverflowError, TypeError):
        return None
    first = out[0] if isinstance(out, tuple) else out
    return out if math.isfinite(first) else None


def beyond_float(q: Fraction) -> bool:
    """|q| beyond the largest float64 (it would round to infinity)."""
    return abs(q) > Fraction(MAX)


def moments_beyond_float(ref, difference: int, squared: int) -> bool:
    """Whether an oracle's result `ref` is undefined (None) or one of its exact moments lies
    beyond float64: ``ref[difference]`` (a mean difference), or the square root of
    ``ref[squared]`` (a squared standard error). A result refused with a non-"ok" status must
    be one of these."""
    return (ref is None or beyond_float(ref[difference])
            or ref[squared] > Fraction(MAX) ** 2)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_ttest_ind(data):
    xs = data.draw(samples())
    kind = spoil(data.draw, xs)
    equal_var = data.draw(st.booleans())
    got = fastperf.ttest_ind(*xs, equal_var=equal_var)
    if kind is not None:
        assert got.status == ("NaN in input" if kind == "nan" else INF)
        return
    if got.status != "ok":  # only where the exact statistic is undefined or beyond float64
        assert np.isnan(got.statistic) and np.isnan(got.pvalue)
        assert moments_beyond_float(oracle_or_none(oracle_t, *xs, equal_var), 2, 3), got.status
        return
    fields = [got.statistic, got.pvalue, got.df, got.estimate, got.standard_error]
    assert np.all(np.isfinite(fields))
    ref = oracle_or_none(oracle_t, *xs, equal_var)
    assert ref is not None, "ok with no finite true statistic"
    t, df, d, se2 = ref
    # t = d / se: the error of d carries into t as bound / se, and into p at most as much (the
    # two-sided p moves by 2 f(t) |dt|, the t density f below 0.4)
    bound = difference_error_bound(moments(xs[0])[1], moments(xs[1])[1])
    carried = bound / frac_sqrt(se2)
    close(got.statistic, t, atol=1e-9 + carried)
    close(got.df, df, rel=1e-9)
    close(got.pvalue, t_p(t, df), atol=1e-9 + carried)
    close(got.estimate, float(d), rel=1e-12, atol=bound)
    close(got.standard_error, frac_sqrt(se2), rel=1e-12, atol=5e-324)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_ttest_rel(data):
    exponent = data.draw(exponents)
    n = data.draw(st.integers(2, 7))
    x = data.draw(sample(exponent, n, n))
    y = data.draw(sample(exponent, n, n))
    kind = spoil(data.draw, [x, y])
    got = fastperf.ttest_rel(x, y)
    if kind is not None:
        assert got.status == ("NaN in input" if kind == "nan" else INF)
        return
    if got.status != "ok":  # only where the exact statistic is undefined or beyond float64
        assert np.isnan(got.statistic) and np.isnan(got.pvalue)
        assert moments_beyond_float(oracle_or_none(oracle_paired, x, y), 2, 3), got.status
        return
    assert np.all(np.isfinite([got.statistic, got.pvalue, got.estimate, got.standard_error]))
    ref = oracle_or_none(oracle_paired, x, y)
    assert ref is not None, "ok with no finite true statistic"
    t, df, m, se2 = ref
    # each difference x - y is rounded once (u |x - y|), then averaged as one sample: the mean
    # of the differences is off by at most the mean of those roundings, and by one rounding
    bound = difference_error_bound(*[(Fraction(a) - Fraction(b)) / len(x) for a, b in zip(x, y)])
    carried = bound / frac_sqrt(se2)
    close(got.statistic, t, atol=1e-9 + carried)
    close(got.pvalue, t_p(t, df), atol=1e-9 + carried)
    close(got.estimate, float(m), rel=1e-12, atol=bound)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_ftest(data):
    xs = data.draw(samples())
    kind = spoil(data.draw, xs)
    got = fastperf.ftest(*xs)
    if kind is not None:
        assert got.status == ("NaN in input" if kind == "nan" else INF)
        return
    if got.status != "ok":  # only where F is undefined or a variance is beyond float64
        assert np.isnan(got.statistic) and np.isnan(got.pvalue)
        variances = [moments(sample)[2] for sample in xs]
        assert (oracle_or_none(oracle_f, *xs) is None
                or any(beyond_float(v) for v in variances)), got.status
        return
    ref = oracle_or_none(oracle_f, *xs)
    if ref is None and moments(xs[1])[2] == 0:  # a constant y alone: F = inf, as R's var.test
        assert got.statistic == np.inf
        return
    assert ref is not None and np.isfinite(got.pvalue)
    close(got.statistic, ref, rel=1e-9, atol=5e-324)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_f_oneway_and_anova(data):
    xs = data.draw(samples(2, 4))
    equal_var = data.draw(st.booleans())
    kind = spoil(data.draw, xs)
    got = fastperf.f_oneway(*xs, equal_var=equal_var)
    if kind is not None:
        assert got.status == ("NaN in input" if kind == "nan" else INF)
        return
    table = pa.table({"variant": [str(i) for i, s in enumerate(xs) for _ in s],
                      "value": [v for s in xs for v in s]})
    row = fastperf.anova(table, equal_var=equal_var).groups.to_pylist()[0]
    ref = oracle_or_none(oracle_anova, xs, equal_var)
    for f, p, status in [(got.statistic, got.pvalue, got.status),
                         (row["f"], row["pvalue"], row["status"])]:
        if status == "zero variance within alternatives":
            assert f == np.inf and p == 0
            continue
        if status not in ("ok", "sums of squares beyond the float64 range: NaN, F and p kept"):
            assert np.isnan(f) and np.isnan(p)
            # only where F is undefined or beyond float64, or a group's variance is (or, for
            # Welch's, a group's weight n / variance: a variance that rounds to 0)
            assert ref is None or any(
                beyond_float(v) or not equal_var and v != 0 and beyond_float(n / v)
                for n, _, v in map(moments, xs)), status
            continue
        assert ref is not None and np.isfinite(f) and np.isfinite(p)
        close(f, ref[0], rel=1e-9, atol=1e-9)  # F is dimensionless: 0 gives ~1e-32
        close(p, sc.fdtrc(len(xs) - 1.0, ref[1], ref[0]), atol=1e-9)
    if row["status"] == "ok":
        values = [row[c] for c in ("ssa", "sse", "sst", "msa", "mse", "share_alternatives",
                                   "share_error", "f_critical")]
        assert np.all(np.isfinite(values)), row
        effects = fastperf.anova(table, equal_var=equal_var).effects.column("effect")
        assert np.all(np.isfinite(effects.to_numpy()))


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_describe(data):
    exponent = data.draw(exponents)
    values = data.draw(sample(exponent, 1, 12))
    kind = data.draw(st.sampled_from([None, None, None, "nan", "inf"]))
    if kind is not None:
        values[data.draw(st.integers(0, len(values) - 1))] = float(kind)
    table = pa.table({"benchmark": ["a"] * len(values), "value": values})
    if kind == "inf":
        with pytest.raises(fastperf.InputError, match="infinite"):
            fastperf.describe(table, variant=None)
        return
    row = fastperf.describe(table, variant=None).groups.to_pylist()[0]
    finite = [v for v in values if not math.isnan(v)]
    assert row["n"] == len(finite) and row["n_dropped"] == len(values) - len(finite)
    numbers = {k: v for k, v in row.items() if isinstance(v, float)}
    if row["status"] == "ok":
        assert all(math.isfinite(v) for v in numbers.values()), row
    if not finite:
        return
    n, mean, var = moments(finite)
    close(row["mean"], float(mean), rel=1e-14, atol=5e-324)
    close(row["min"], min(finite), rel=0)
    close(row["max"], max(finite), rel=0)
    if n >= 2:
        try:
            sd = frac_sqrt(var)
        except OverflowError:  # the exact sd is beyond float64: no sd, and a status says so
            assert math.isnan(row["sd"]) and row["status"] != "ok", row
        else:  # a finite exact sd is given (and within the float64 range)
            close(row["sd"], sd, rel=1e-12, atol=5e-324)
