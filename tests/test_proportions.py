"""proportion_ci and min_benchmarks: the Speedup-Test numbers (seed 002), statsmodels, Newcombe's
formula written out independently, exact binomial tails, and a brute-force sample size."""
import math
import re
import warnings
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps
from statsmodels.stats.proportion import proportion_confint

import fastperf
from fastperf import InputError
from fastperf.stats.proportions import min_benchmarks, proportion_ci
from naive import min_benchmarks_by_search

CONFIDENCES = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]


def grid(max_n=40, extra=(57, 100, 333, 1000)):
    """Every (x, n) with 1 <= n <= max_n and 0 <= x <= n, plus x = 0, 1, n/2, n-1, n of larger n."""
    xs, ns = [], []
    for n in range(1, max_n + 1):
        for x in range(n + 1):
            xs.append(x)
            ns.append(n)
    for n in extra:
        for x in sorted({0, 1, 2, n // 3, n // 2, n - 1, n}):
            xs.append(x)
            ns.append(n)
    return np.array(xs), np.array(ns)


# ---------------------------------------------------------------- seed 002 (Speedup-Test) numbers


def test_seed_prop_test_17_of_30_at_90():
    ci = proportion_ci(17, 30, confidence=0.90)
    assert (round(float(ci.low), 7), round(float(ci.high), 7)) == (0.4027157, 0.7184049)
    assert ci.proportion == pytest.approx(17 / 30)
    assert ci.valid  # 17 - 17^2/30 = 7.37 > 5


def test_seed_34_of_34_at_90_is_invalid():
    ci = proportion_ci(34, 34, confidence=0.90)
    assert round(float(ci.low), 3) == 0.901
    assert ci.high == 1.0  # R's rule: upper bound 1 when x == n
    assert ci.proportion == 1.0
    assert not ci.valid  # a (1 - a/b) = 0


@pytest.mark.parametrize("a, b, expected", [(31, 45, (0.532, 0.814)), (41, 54, (0.621, 0.861))])
def test_seed_tool_outputs_at_95(a, b, expected):
    ci = proportion_ci(a, b, confidence=0.95)
    assert (round(float(ci.low), 3), round(float(ci.high), 3)) == expected
    assert ci.valid


def test_seed_50_percent_interval():
    # The seed prints [49.84%, 64.23%] (truncated percentages); R's prop.test(17, 30,
    # conf.level=0.5) gives [0.4884442, 0.6423572]: the upper bound matches, the lower one is a
    # typo for 48.84%.
    ci = proportion_ci(17, 30, confidence=0.50)
    assert (math.floor(ci.low * 1e4), math.floor(ci.high * 1e4)) == (4884, 6423)


def test_seed_min_benchmarks():
    assert min_benchmarks(17 / 30, 0.05) == 378
    assert min_benchmarks(31 / 45, 0.05) == 330
    assert min_benchmarks(41 / 54, 0.05, 0.95) == 281
    several = min_benchmarks([17 / 30, 31 / 45, 41 / 54], 0.05)
    np.testing.assert_array_equal(several, [378, 330, 281])


# ---------------------------------------------------------------- against statsmodels


@pytest.mark.parametrize("confidence", CONFIDENCES)
@pytest.mark.parametrize(
    "method, sm_method, rtol",
    [("wilson", "wilson", 1e-12), ("normal", "normal", 1e-12), ("clopper-pearson", "beta", 1e-10)],
)
def test_against_statsmodels(method, sm_method, rtol, confidence):
    x, n = grid()
    ci = proportion_ci(x, n, confidence=confidence, method=method)
    low, high = proportion_confint(x, n, alpha=1 - confidence, method=sm_method)
    np.testing.assert_allclose(ci.low, low, rtol=rtol, atol=1e-14)
    np.testing.assert_allclose(ci.high, high, rtol=rtol, atol=1e-14)
    assert ((0 <= ci.low) & (ci.low <= ci.proportion)).all()
    assert ((ci.proportion <= ci.high) & (ci.high <= 1)).all()


def test_method_aliases():
    x, n = grid(12, ())
    for alias, name in [("beta", "clopper-pearson"), ("exact", "clopper-pearson"),
                        ("wald", "normal"), ("prop.test", "wilson-cc"), ("WILSON", "wilson")]:
        a = proportion_ci(x, n, method=alias)
        b = proportion_ci(x, n, method=name)
        assert a.method == name
        np.testing.assert_array_equal(a.low, b.low)
        np.testing.assert_array_equal(a.high, b.high)


# ---------------------------------------------------------------- Clopper-Pearson: exact tails


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_clopper_pearson_bounds_have_exact_binomial_tails(confidence):
    x, n = grid(30, (100,))
    ci = proportion_ci(x, n, confidence=confidence, method="clopper-pearson")
    tail = (1 - confidence) / 2
    inner = x > 0
    # P(X >= x | p = low) = tail and P(X <= x | p = high) = tail
    np.testing.assert_allclose(sps.binom.sf(x[inner] - 1, n[inner], ci.low[inner]), tail, rtol=1e-9)
    inner = x < n
    np.testing.assert_allclose(sps.binom.cdf(x[inner], n[inner], ci.high[inner]), tail, rtol=1e-9)
    assert (ci.low[x == 0] == 0).all() and (ci.high[x == n] == 1).all()


# ---------------------------------------------------------------- wilson-cc: Newcombe's formula


def newcombe_cc(x: int, n: int, confidence: float) -> tuple[float, float]:
    """Newcombe (1998) method 4, written from the paper, with R's prop.test rules.

    L = (2np + z^2 - 1 - z sqrt(z^2 - 2 - 1/n + 4p(n(1-p) + 1))) / (2(n + z^2)),
    U = (2np + z^2 + 1 + z sqrt(z^2 + 2 - 1/n + 4p(n(1-p) - 1))) / (2(n + z^2));
    L = 0 when x = 0, U = 1 when x = n. R corrects by min(0.5, |x - n/2|), so x = n/2 gets the
    plain Wilson interval (2np + z^2 -/+ z sqrt(z^2 + 4np(1-p))) / (2(n + z^2)).
    """
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = x / n
    if 2 * x == n:
        root = z * math.sqrt(z * z + 4 * n * p * (1 - p))
        return ((2 * n * p + z * z - root) / (2 * (n + z * z)),
                (2 * n * p + z * z + root) / (2 * (n + z * z)))
    if x == 0:
        low = 0.0
    else:
        low = (2 * n * p + z * z - 1
               - z * math.sqrt(z * z - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))) / (2 * (n + z * z))
    if x == n:
        high = 1.0
    else:
        high = (2 * n * p + z * z + 1
                + z * math.sqrt(z * z + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))) / (2 * (n + z * z))
    return max(low, 0.0), min(high, 1.0)


@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_wilson_cc_matches_newcombe_formula(confidence):
    x, n = grid()
    ci = proportion_ci(x, n, confidence=confidence)  # default method: wilson-cc
    expected = np.array([newcombe_cc(int(a), int(b), confidence) for a, b in zip(x, n)])
    np.testing.assert_allclose(ci.low, expected[:, 0], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(ci.high, expected[:, 1], rtol=1e-10, atol=1e-13)
    assert ((ci.low <= ci.proportion) & (ci.proportion <= ci.high)).all()


def test_wilson_cc_boundary_rules_and_half():
    # x = 0: lower bound exactly 0; x = n: upper exactly 1 (R's p.c <= 0 / p.c >= 1 rules)
    ci = proportion_ci([0, 5, 10], [10, 10, 10], confidence=0.95)
    assert ci.low[0] == 0.0 and ci.high[2] == 1.0
    # x = n/2: no continuity correction (YATES = min(0.5, |x - n/2|) = 0): the Wilson interval
    half = proportion_ci(5, 10, confidence=0.95)
    wilson = proportion_ci(5, 10, confidence=0.95, method="wilson")
    assert half.low == pytest.approx(wilson.low, rel=1e-14)
    assert half.high == pytest.approx(wilson.high, rel=1e-14)
    # elsewhere the correction widens the Wilson interval
    cc = proportion_ci(4, 10, confidence=0.95)
    w = proportion_ci(4, 10, confidence=0.95, method="wilson")
    assert cc.low < w.low and cc.high > w.high


# ---------------------------------------------------------------- validity flag


def test_validity_flag_is_exact():
    x, n = grid(60, ())
    ci = proportion_ci(x, n, method="clopper-pearson")
    expected = [Fraction(int(a)) * (1 - Fraction(int(a), int(b))) > 5 for a, b in zip(x, n)]
    np.testing.assert_array_equal(ci.valid, expected)
    # a (1 - a/b) == 5 exactly is not > 5
    assert not proportion_ci(10, 20).valid and not proportion_ci(6, 36).valid
    assert not proportion_ci(11, 20).valid  # 4.95
    assert proportion_ci(10, 21).valid  # 5.24


# ---------------------------------------------------------------- shapes and types


def test_vectorised_shapes_and_scalar_types():
    ci = proportion_ci(np.array([[3], [5], [7]]), np.array([[10, 20, 30, 40]]), confidence=0.9)
    for field in (ci.low, ci.high, ci.proportion, ci.valid):
        assert field.shape == (3, 4)
    assert ci.valid.dtype == bool
    one = proportion_ci(7, 20, confidence=0.9)
    assert np.allclose([one.low, one.high], [ci.low[2, 1], ci.high[2, 1]], rtol=0, atol=0)
    assert isinstance(one.low, np.float64) and isinstance(one.high, np.float64)
    assert isinstance(one.valid, np.bool_) and isinstance(one.proportion, np.float64)
    low, high = one  # unpacks like statsmodels' proportion_confint
    assert (low, high) == (one.low, one.high)
    # lists, float counts with whole values, broadcasting a scalar trials
    a = proportion_ci([1.0, 2.0], 4.0)
    b = proportion_ci(np.array([1, 2]), 4)
    np.testing.assert_array_equal(a.low, b.low)
    assert a.low.shape == (2,)


def test_min_benchmarks_shapes_and_edges():
    out = min_benchmarks(np.array([[0.2], [0.5]]), np.array([0.01, 0.05, 0.1]), 0.9)
    assert out.shape == (2, 3) and out.dtype == np.int64
    assert isinstance(min_benchmarks(0.5, 0.05), np.int64)
    assert min_benchmarks(0.0, 0.05) == 1 and min_benchmarks(1.0, 0.05) == 1
    # C = 1/2 at 95%, r = 0.05: 1.959964^2 / 4 / 0.0025 = 384.15 -> 385
    assert min_benchmarks(0.5, 0.05) == 385


def test_min_benchmarks_brute_force():
    rng = np.random.default_rng(20130)
    c = rng.uniform(0.01, 0.99, 300)
    r = rng.uniform(0.02, 0.3, 300)
    for confidence in (0.8, 0.9, 0.95, 0.99):
        got = min_benchmarks(c, r, confidence)
        for ci_, ri, b in zip(c, r, got):
            assert b == min_benchmarks_by_search(ci_, ri, confidence), (ci_, ri, confidence)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "successes, trials, match",
    [
        (31, 30, "exceed trials"),
        ([1, 31], [30, 30], r"index \(1,\)"),
        (-1, 10, "non-negative whole"),
        (2.5, 10, "whole numbers"),
        ([1, np.nan], 10, "whole numbers"),
        (1, np.inf, "whole numbers"),
        (0, 0, "at least 1"),
        ([0, 1], [3, 0], "trials is 0 at index"),
        ("a", 10, "must be a number"),
        ([1, 2, 3], [4, 5], "do not broadcast"),
    ],
)
def test_bad_counts(successes, trials, match):
    with pytest.raises(InputError, match=match):
        proportion_ci(successes, trials)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, float("nan")])
def test_bad_confidence(confidence):
    with pytest.raises(InputError, match="confidence"):
        proportion_ci(3, 10, confidence=confidence)
    with pytest.raises(InputError, match="confidence"):
        min_benchmarks(0.3, 0.05, confidence)


def test_bad_method_and_min_benchmarks_input():
    with pytest.raises(InputError, match="unknown method"):
        proportion_ci(3, 10, method="agresti")
    with pytest.raises(InputError, match="proportion must lie"):
        min_benchmarks(1.2, 0.05)
    with pytest.raises(InputError, match="proportion must lie"):
        min_benchmarks(np.nan, 0.05)
    for r in (0, -0.05, 1.5, np.nan):
        with pytest.raises(InputError, match="precision"):
            min_benchmarks(0.5, r)
    with pytest.raises(InputError, match="do not broadcast"):
        min_benchmarks([0.1, 0.2], [0.1, 0.2, 0.3])


# -----------------------------------------------------------------------------------------------
# min_benchmarks at degenerate proportions and tiny precisions: real numbers in the message,
# never nan
# -----------------------------------------------------------------------------------------------


SPEEDUP_T = pa.table({"benchmark": ["b"] * 6, "variant": ["A"] * 3 + ["B"] * 3,
                      "value": [5.0, 6, 5.5, 7, 8, 7.5]})


# ------------------------------------------------------------------ 2. min_benchmarks / speedup


def test_speedup_test_tiny_precision_reproducer():
    """Reproducer: precision=1e-320 gave 'needs nan benchmarks ... at least about 0' and a
    RuntimeWarning. The proportion here is 0 (no benchmark accelerated at 3 runs): z^2 C (1 - C)
    / r^2 = 0, one benchmark, at any precision."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = fastperf.speedup_test(SPEEDUP_T, baseline="A", candidate="B", precision=1e-320)
    for protocol in ("mean", "median"):
        part = res.summary[protocol]
        assert part["proportion"] in (0.0, 1.0)
        assert part["min_benchmarks"] == 1


@pytest.mark.parametrize("proportion", [0.0, 1.0])
@pytest.mark.parametrize("precision", [5e-324, 1e-320, 1e-200, 0.05, 1.0])
def test_min_benchmarks_degenerate_proportion_is_one(proportion, precision):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(min_benchmarks(proportion, precision)) == 1


def _smallest_precision(c, confidence):
    z = sps.norm.ppf((1 + confidence) / 2)
    return z * math.sqrt(c * (1 - c)) / math.sqrt(2.0**53)


@pytest.mark.parametrize("c", [0.5, 0.3, 17 / 30, 0.999, 1e-300, 5e-324])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999999])
@pytest.mark.parametrize("precision", [1e-320, 1e-200])
def test_min_benchmarks_too_many_message_names_real_numbers(c, confidence, precision):
    # every case of this grid is refused: the smallest precision accepted is above 1e-170
    assert _smallest_precision(c, confidence) > precision
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(fastperf.InputError) as info:
            min_benchmarks(c, precision, confidence)
    msg = str(info.value)
    assert "nan" not in msg and "about 0" not in msg and "\n" not in msg
    suggested = float(re.search(r"at least (\S+)$", msg).group(1))
    exact = _smallest_precision(c, confidence)
    assert exact <= suggested <= exact * 1.01  # rounded up to 3 digits
    assert int(min_benchmarks(c, suggested, confidence)) <= 2**53  # the value named is accepted
    with pytest.raises(fastperf.InputError):
        min_benchmarks(c, exact * 0.99, confidence)


def test_min_benchmarks_message_count_when_finite():
    """r = 1e-10 at C = 0.5: z^2 / 4 / 1e-20 = 9.6e19 benchmarks, named as such."""
    z = sps.norm.ppf(0.975)
    with pytest.raises(fastperf.InputError, match=re.escape(f"about {z * z / 4 / 1e-20:.3g} benchmarks")):
        min_benchmarks(0.5, 1e-10)
