"""rankdata, mannwhitneyu, wilcoxon: against R values quoted in scipy's tests, scipy itself where it
is right, and brute-force enumeration of every assignment / sign vector for the exact p-values
(with ties: the distribution conditional on the tie pattern, which scipy does not compute)."""
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st
from hypothesis import given, settings, strategies as hs

import fastperf
from fastperf import InputError
from fastperf.data.arrays import Samples
from fastperf.data.budget import check_budget
from fastperf.engine.null_distributions import rank_sum_cdf, symmetric_tails
from fastperf.engine.ranks import (EXACT_MAX_OPERATIONS, check_exact_budget,
                                   rank_sum_exact_cost, signed_rank_exact_cost)
from fastperf.engine import sorting
from fastperf.engine.sorting import (PADDED_SORT_MAX_WIDTH, sort_sample_batches,
                                     sort_sample_pairs, sort_samples, sorted_slices)
from fastperf.stats.rank_tests import mannwhitneyu, rankdata, wilcoxon
from naive import (
    p_from_tails, pairwise_differences, rank_sum_tails_enumerated, signed_rank_tails_enumerated,
    untied_rank_sum_cdf, untied_signed_rank_counts, walsh_averages,
)

ALTERNATIVES = ["two-sided", "less", "greater"]


def rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300), initial=0.0)


# --------------------------------------------------------------------------- rankdata


def test_rankdata_matches_scipy_with_ties_and_axes():
    rng = np.random.default_rng(0)
    a = np.round(rng.normal(size=(4, 7, 30)) * 2)
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(rankdata(a, axis=axis), st.rankdata(a, axis=axis))
    np.testing.assert_array_equal(rankdata(a, axis=None), st.rankdata(a, axis=None))


def test_rankdata_tie_term_and_nan_policies():
    a = np.array([[1.0, 2.0, 2.0, 3.0, 3.0, 3.0], [5.0, np.nan, 1.0, 1.0, 2.0, 0.0]])
    ranks, ties = rankdata(a, return_ties=True)
    np.testing.assert_array_equal(ranks[0], [1, 2.5, 2.5, 5, 5, 5])
    assert ties[0] == (8 - 2) + (27 - 3)
    assert np.isnan(ranks[1]).all() and np.isnan(ties[1])  # propagate, as scipy
    omitted, ties = rankdata(a, nan_policy="omit", return_ties=True)
    np.testing.assert_array_equal(omitted[1], st.rankdata(a[1], nan_policy="omit"))
    assert ties[1] == 6
    with pytest.raises(InputError, match="NaN"):
        rankdata(a, nan_policy="raise")


# --------------------------------------------------------------------------- Mann-Whitney: R values

X_R = [210.052110, 110.190630, 307.918612]
Y_R = [436.08811482466416, 416.37397329768191, 179.96975939463582, 197.8118754228619,
       34.038757281225756, 138.54220550921517, 128.7769351470246, 265.92721427951852,
       275.6617533155341, 592.34083395416258, 448.73177590617018, 300.61495185038905,
       187.97508449019588]


@pytest.mark.parametrize("alternative, method, expected", [
    ("two-sided", "asymptotic", 0.6865041817876), ("less", "asymptotic", 0.3432520908938),
    ("greater", "asymptotic", 0.7047591913255), ("two-sided", "exact", 0.7035714285714),
    ("less", "exact", 0.3517857142857), ("greater", "exact", 0.6946428571429)])
def test_mannwhitneyu_r_values(alternative, method, expected):
    # R: wilcox.test(x, y, alternative=..., exact=...) as quoted in scipy's test_hypotests.py
    res = mannwhitneyu(X_R, Y_R, alternative=alternative, method=method)
    assert res.statistic == 16.0
    assert res.pvalue == pytest.approx(expected, rel=1e-11)
    assert res.method == method


@pytest.mark.parametrize("continuity, alternative, expected", [
    (True, "two-sided", 0.6865041817876), (True, "less", 0.7047591913255),
    (True, "greater", 0.3432520908938), (False, "two-sided", 0.6377328900502),
    (False, "less", 0.6811335549749), (False, "greater", 0.3188664450251)])
def test_mannwhitneyu_r_continuity(continuity, alternative, expected):
    res = mannwhitneyu(Y_R, X_R, method="asymptotic", alternative=alternative,
                       use_continuity=continuity)
    assert res.statistic == 23.0
    assert res.pvalue == pytest.approx(expected, rel=1e-11)


def test_mannwhitneyu_r_tie_correction():
    x = np.array([1., 2., 3., 4.])
    y0 = np.array([1., 2., 3., 4., 5.])
    dy = np.array([0., 1., 0., 1., 0.]) * 0.01
    dy2 = np.array([0., 0., 1., 0., 0.]) * 0.01
    y = np.stack([y0 - 0.01, y0 - dy, y0 - dy2, y0, y0 + dy2, y0 + dy, y0 + 0.01])
    res = mannwhitneyu(x, y, method="asymptotic")
    np.testing.assert_array_equal(res.statistic, [10, 9, 8.5, 8, 7.5, 7, 6])
    np.testing.assert_allclose(res.pvalue, [1, 0.9017048037317, 0.804080657472, 0.7086240584439,
                                            0.6197963884941, 0.5368784563079, 0.3912672792826],
                               rtol=1e-11)


@pytest.mark.parametrize("continuity, alternative, method, expected", [
    (True, "less", "asymptotic", 0.900775348204), (True, "greater", "asymptotic", 0.1223118025635),
    (True, "two-sided", "asymptotic", 0.244623605127),
    (False, "less", "asymptotic", 0.8896643190401),
    (False, "greater", "asymptotic", 0.1103356809599),
    (False, "two-sided", "asymptotic", 0.2206713619198),
    (True, "less", "exact", 0.8967698967699), (True, "greater", "exact", 0.1272061272061),
    (True, "two-sided", "exact", 0.2544122544123)])
def test_mannwhitneyu_r_gh9184(continuity, alternative, method, expected):
    x = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]
    y = [1.15, 0.88, 0.90, 0.74, 1.21]
    res = mannwhitneyu(x, y, use_continuity=continuity, alternative=alternative, method=method)
    assert res.statistic == 35.0
    assert res.pvalue == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("x, y, alternative, expected", [
    ([1., 2., 3.], [1.5, 2.5], "greater", (3., 0.6135850036578)),
    ([1., 2., 3.], [1.5, 2.5], "two-sided", (3., 1.0)),
    ([1, 2, 3], [2], "less", (1.5, 0.681324055883)),
    ([1, 2], [1, 2], "greater", (2., 0.667497228949)),
    ([1, 2], [1, 2], "two-sided", (2., 1.))])
def test_mannwhitneyu_r_gh2118(x, y, alternative, expected):
    res = mannwhitneyu(x, y, alternative=alternative, method="asymptotic")
    assert res.statistic == expected[0]
    assert res.pvalue == pytest.approx(expected[1], rel=1e-11)


# --------------------------------------------------------------------------- Mann-Whitney vs scipy


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("continuity", [True, False])
def test_mannwhitneyu_asymptotic_matches_scipy_in_bulk(ties, alternative, continuity):
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(2000, 17)), rng.normal(0.4, size=(2000, 11))
    if ties:
        x, y = np.round(x * 2), np.round(y * 2)
    res = mannwhitneyu(x, y, alternative=alternative, method="asymptotic", use_continuity=continuity)
    ref = st.mannwhitneyu(x, y, alternative=alternative, method="asymptotic",
                          use_continuity=continuity, axis=1)
    np.testing.assert_array_equal(res.statistic, ref.statistic)
    assert rel_err(res.pvalue, ref.pvalue) < 1e-12
    assert (res.method == "asymptotic").all()


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_mannwhitneyu_exact_untied_matches_scipy(alternative):
    rng = np.random.default_rng(3)
    for m, n in [(1, 1), (1, 7), (3, 13), (8, 8), (12, 5), (20, 25), (40, 33)]:
        x, y = rng.normal(size=(50, m)), rng.normal(0.5, size=(50, n))
        res = mannwhitneyu(x, y, alternative=alternative, method="exact")
        ref = st.mannwhitneyu(x, y, alternative=alternative, method="exact", axis=1)
        np.testing.assert_array_equal(res.statistic, ref.statistic)
        assert rel_err(res.pvalue, ref.pvalue) < 1e-12, (m, n)


def test_mannwhitneyu_exact_tail_that_scipy_loses():
    # 60 vs 60 fully separated: P(U >= 3600) = 1 / C(120, 60); scipy forms sf as 1 - cdf
    from math import comb

    x, y = np.arange(60.0) + 100, np.arange(60.0)
    res = mannwhitneyu(x, y, alternative="greater", method="exact")
    assert res.pvalue == pytest.approx(1 / comb(120, 60), rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_mannwhitneyu_exact_with_ties_equals_enumeration(alternative):
    rng = np.random.default_rng(11)
    cases = 0
    for _ in range(60):
        m, n = rng.integers(1, 8), rng.integers(1, 8)
        x = rng.integers(0, 4, m).astype(float)
        y = rng.integers(0, 5, n).astype(float)
        res = mannwhitneyu(x, y, alternative=alternative, method="exact")
        lower, upper = rank_sum_tails_enumerated(x, y)
        expected = p_from_tails(lower, upper, alternative)
        assert res.pvalue == pytest.approx(expected, rel=1e-12, abs=0), (x, y)
        cases += res.method == "exact (ties)"
    assert cases > 30


def test_mannwhitneyu_auto_is_exact_when_cheap():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=30), rng.normal(size=30)
    assert mannwhitneyu(x, y).method == "exact"
    assert mannwhitneyu(x, y).pvalue == mannwhitneyu(x, y, method="exact").pvalue
    big_x, big_y = rng.normal(size=3000), rng.normal(size=3000)
    assert mannwhitneyu(big_x, big_y).method == "asymptotic"
    tied = mannwhitneyu(np.round(x), np.round(y))
    assert tied.method == "exact (ties)"
    lower, upper = rank_sum_tails_enumerated(np.round(x[:6]), np.round(y[:6]))
    assert mannwhitneyu(np.round(x[:6]), np.round(y[:6])).pvalue == pytest.approx(
        p_from_tails(lower, upper, "two-sided"), rel=1e-12)


def test_mannwhitneyu_large_sample_matches_scipy():
    rng = np.random.default_rng(2)
    x, y = rng.lognormal(size=300_000), rng.lognormal(0.002, size=200_000)
    x[:1000] = y[:1000]  # some ties across the samples
    res = mannwhitneyu(x, y)
    ref = st.mannwhitneyu(x, y, method="asymptotic")
    assert res.statistic == ref.statistic and res.method == "asymptotic"
    assert rel_err(res.pvalue, ref.pvalue) < 1e-12


def test_mannwhitneyu_nan_and_empty():
    x = np.array([[1.0, 2.0, np.nan, 4.0], [1.0, 2.0, 3.0, 4.0]])
    y = np.array([[0.5, 2.5, 3.5], [0.5, 2.5, 3.5]])
    res = mannwhitneyu(x, y)
    assert np.isnan(res.pvalue[0]) and res.status[0] == "NaN in input"
    omitted = mannwhitneyu(x, y, nan_policy="omit")
    ref = mannwhitneyu([1.0, 2.0, 4.0], [0.5, 2.5, 3.5])
    assert omitted.statistic[0] == ref.statistic and omitted.pvalue[0] == ref.pvalue
    assert omitted.estimate[0] == ref.estimate
    with pytest.raises(InputError, match="NaN"):
        mannwhitneyu(x, y, nan_policy="raise")
    empty = mannwhitneyu(np.empty((2, 0)), y)
    assert np.isnan(empty.pvalue).all() and (empty.status == "empty sample").all()
    with pytest.raises(InputError, match="method"):
        mannwhitneyu([1, 2], [3, 4], method="permutation")


# --------------------------------------------------------------------------- Wilcoxon


def test_wilcoxon_r_values():
    # R values quoted in scipy's test_morestats.py
    freq = [1, 4, 16, 15, 8, 4, 5, 1, 2]
    x = np.concatenate([[u] * v for u, v in zip(range(-4, 5), freq)]).astype(float)
    for zero_method, t, p in [("pratt", 423.0, 0.0031724568006762576),
                              ("zsplit", 441.0, 0.0032145343172473055),
                              ("wilcox", 327.0, 0.00641346115861)]:
        res = wilcoxon(x, np.zeros_like(x), zero_method=zero_method, method="asymptotic")
        assert res.statistic == t and res.pvalue == pytest.approx(p, rel=1e-11)
    x = [120, 114, 181, 188, 180, 146, 121, 191, 132, 113, 127, 112]
    y = [133, 143, 119, 189, 112, 199, 198, 113, 115, 121, 142, 187]
    assert wilcoxon(x, y, method="asymptotic").pvalue == pytest.approx(0.6948866023724735, rel=1e-11)
    assert wilcoxon(x, y, correction=True, method="asymptotic").pvalue == pytest.approx(
        0.7240816609153895, rel=1e-11)
    d = np.full(10, 0.1)
    assert wilcoxon(d, method="asymptotic").pvalue == pytest.approx(0.001565402258002551, rel=1e-11)
    x = [125, 115, 130, 140, 140, 115, 140, 125, 140, 135]
    y = [110, 122, 125, 120, 140, 124, 123, 137, 135, 145]
    for alternative, correction, p in [("less", False, 0.7031847042787),
                                       ("less", True, 0.72336564289),
                                       ("greater", False, 0.2968152957213),
                                       ("greater", True, 0.3176446594176)]:
        res = wilcoxon(x, y, alternative=alternative, correction=correction, method="asymptotic")
        assert res.statistic == 27.0 and res.pvalue == pytest.approx(p, rel=1e-10)
    x = [1.81, 0.82, 1.56, -0.48, 0.81, 1.28, -1.04, 0.23, -0.75, 0.14]
    y = [0.71, 0.65, -0.2, 0.85, -1.1, -0.45, -0.84, -0.24, -0.68, -0.76]
    for alternative, p in [("two-sided", 0.10546875), ("less", 0.95800781256),
                           ("greater", 0.052734375)]:
        assert wilcoxon(x, y, alternative=alternative, method="exact").pvalue == pytest.approx(
            p, rel=1e-10)


def test_sparc_worked_example():
    # seed 003: 30 paired observations all on one side: z = 4.772, two-sided p = 1.825e-6 with
    # the continuity correction; exact two-sided p = 2 / 2^30 = 1.863e-9 (the HPT table's value)
    rng = np.random.default_rng(0)
    d = rng.uniform(0.01, 1.0, 30)
    approx = wilcoxon(d, method="asymptotic", correction=True)
    assert abs(approx.zstatistic) == pytest.approx(4.772, abs=5e-4)
    assert approx.pvalue == pytest.approx(1.825e-6, rel=1e-3)
    exact = wilcoxon(d, method="exact")
    assert exact.pvalue == 2 / 2 ** 30 and exact.method == "exact"


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_asymptotic_matches_scipy_in_bulk(ties, zero_method, alternative):
    rng = np.random.default_rng(8)
    d = rng.normal(0.2, size=(1500, 23))
    if ties:
        d = np.round(d * 2)  # ties and zeros
    for correction in (False, True):
        res = wilcoxon(d, alternative=alternative, zero_method=zero_method, correction=correction,
                       method="asymptotic")
        ref = st.wilcoxon(d, alternative=alternative, zero_method=zero_method,
                          correction=correction, method="asymptotic", axis=1)
        ok = np.isfinite(ref.pvalue)
        np.testing.assert_array_equal(res.statistic[ok], ref.statistic[ok])
        assert rel_err(res.pvalue[ok], ref.pvalue[ok]) < 1e-12
        assert rel_err(res.zstatistic[ok], ref.zstatistic[ok]) < 1e-12


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_exact_untied_matches_scipy(alternative):
    rng = np.random.default_rng(4)
    for n in (1, 2, 5, 10, 25, 50):
        x, y = rng.normal(0.3, size=(100, n)), rng.normal(size=(100, n))
        res = wilcoxon(x, y, alternative=alternative, method="exact")
        ref = st.wilcoxon(x, y, alternative=alternative, method="exact", axis=1)
        np.testing.assert_array_equal(res.statistic, ref.statistic)
        assert rel_err(res.pvalue, ref.pvalue) < 1e-12, n


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_exact_with_ties_and_zeros_equals_enumeration(zero_method, alternative):
    rng = np.random.default_rng(12)
    for _ in range(40):
        d = rng.integers(-3, 4, rng.integers(1, 13)).astype(float)
        res = wilcoxon(d, alternative=alternative, zero_method=zero_method, method="exact")
        if (d != 0).sum() == 0:
            assert np.isnan(res.pvalue) and res.status == "no nonzero differences"
            continue
        lower, upper = signed_rank_tails_enumerated(d, zero_method)
        assert res.pvalue == pytest.approx(p_from_tails(lower, upper, alternative), rel=1e-12), d


def test_wilcoxon_paired_errors_and_nan():
    with pytest.raises(InputError, match="same length"):
        wilcoxon([1.0, 2.0, 3.0], [1.0, 2.0])
    res = wilcoxon(np.array([[1.0, -2.0, np.nan, 4.0], [1.0, -2.0, 3.0, 4.0]]))
    assert res.status[0] == "NaN in input" and np.isnan(res.pvalue[0])
    omitted = wilcoxon(np.array([1.0, -2.0, np.nan, 4.0]), nan_policy="omit")
    assert omitted.pvalue == wilcoxon([1.0, -2.0, 4.0]).pvalue
    zeros = wilcoxon(np.zeros((3, 5)))
    assert (zeros.status == "no nonzero differences").all()


def test_wilcoxon_large_sample_matches_scipy():
    rng = np.random.default_rng(9)
    d = np.round(rng.normal(0.001, 1, 400_000), 2)  # ties and zeros
    for zero_method in ("wilcox", "pratt", "zsplit"):
        res = wilcoxon(d, zero_method=zero_method)
        ref = st.wilcoxon(d, zero_method=zero_method, method="asymptotic")
        assert res.method == "asymptotic" and res.statistic == ref.statistic
        assert rel_err(res.pvalue, ref.pvalue) < 1e-12


# --------------------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.integers(-5, 5), min_size=1, max_size=9),
       hs.lists(hs.integers(-5, 5), min_size=1, max_size=9))
def test_rank_sum_properties(xs, ys):
    x, y = np.array(xs, float), np.array(ys, float)
    less = mannwhitneyu(x, y, alternative="less", method="exact")
    greater = mannwhitneyu(x, y, alternative="greater", method="exact")
    two = mannwhitneyu(x, y, method="exact")
    assert 0 <= less.pvalue <= 1 and 0 <= greater.pvalue <= 1
    assert two.pvalue == pytest.approx(min(1.0, 2 * min(less.pvalue, greater.pvalue)), rel=1e-12)
    swapped = mannwhitneyu(y, x, alternative="less", method="exact")
    assert swapped.statistic == len(x) * len(y) - greater.statistic
    assert swapped.pvalue == pytest.approx(greater.pvalue, rel=1e-12)
    # invariant under a strictly increasing transform
    moved = mannwhitneyu(np.exp(x / 3), np.exp(y / 3), alternative="less", method="exact")
    assert moved.statistic == less.statistic and moved.pvalue == pytest.approx(less.pvalue,
                                                                               rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.integers(-4, 4), min_size=1, max_size=12))
def test_signed_rank_properties(ds):
    d = np.array(ds, float)
    if not (d != 0).any():
        return
    less = wilcoxon(d, alternative="less", method="exact")
    greater = wilcoxon(d, alternative="greater", method="exact")
    two = wilcoxon(d, method="exact")
    assert two.pvalue == pytest.approx(min(1.0, 2 * min(less.pvalue, greater.pvalue)), rel=1e-12)
    flipped = wilcoxon(-d, alternative="greater", method="exact")
    assert flipped.pvalue == pytest.approx(less.pvalue, rel=1e-12)
    scaled = wilcoxon(d * 3.5, alternative="less", method="exact")
    assert scaled.pvalue == pytest.approx(less.pvalue, rel=1e-12)


# --------------------------------------------------------------------------- effect sizes


def test_hodges_lehmann_shift_and_exact_interval_match_brute_force():
    rng = np.random.default_rng(21)
    for m, n in [(5, 7), (9, 4), (8, 8)]:
        x, y = rng.normal(1, size=m), rng.normal(size=n)
        res = mannwhitneyu(x, y, method="exact")
        diffs = pairwise_differences(x, y)
        assert res.estimate == np.median(diffs)
        cdf = untied_rank_sum_cdf(m, n)
        for confidence in (0.9, 0.95):
            k = max(1, int(np.searchsorted(cdf, (1 - confidence) / 2 - 1e-15)))  # qwilcox
            low, high = res.confidence_interval(confidence)
            assert (low, high) == (diffs[k - 1], diffs[m * n - k])
        k = max(1, int(np.searchsorted(cdf, 0.05 - 1e-15)))
        low, high = mannwhitneyu(x, y, alternative="greater", method="exact").confidence_interval()
        assert low == diffs[k - 1] and high == np.inf


def test_pseudomedian_and_exact_interval_match_brute_force():
    rng = np.random.default_rng(22)
    for n in (6, 11):
        d = rng.normal(0.5, size=n)
        res = wilcoxon(d, method="exact")
        walsh = walsh_averages(d)
        assert res.estimate == np.median(walsh)
        counts = untied_signed_rank_counts(n)
        cdf = np.cumsum(counts) / counts.sum()
        k = max(1, int(np.searchsorted(cdf, 0.025 - 1e-15)))
        low, high = res.confidence_interval(0.95)
        assert (low, high) == (walsh[k - 1], walsh[len(walsh) - k])


def test_effect_intervals_are_batched_and_normal_for_large_samples():
    rng = np.random.default_rng(23)
    x, y = rng.normal(0.3, size=(3, 2000)), rng.normal(size=(3, 1500))
    res = mannwhitneyu(x, y)
    low, high = res.confidence_interval()
    assert low.shape == (3,) and (low < res.estimate).all() and (res.estimate < high).all()
    diffs = np.subtract.outer(x[0], y[0]).ravel()
    assert res.estimate[0] == np.median(diffs)
    # the normal-approximation rank: floor(mn/2 + 1/2 - z sigma)
    mn = 2000 * 1500
    k = int(np.floor(mn / 2 + 0.5 - st.norm.ppf(0.975) * np.sqrt(mn * 3501 / 12)))
    assert low[0] == np.partition(diffs, k - 1)[k - 1]


# --------------------------------------------------------------------------- table forms


def measurement_table(rng, benchmarks=40, runs=15, ties=False):
    names, variants, run_ids, values = [], [], [], []
    for b in range(benchmarks):
        for variant, scale in (("base", 1.0), ("cand", 0.97 if b % 2 else 1.0)):
            v = rng.lognormal(0.0, 0.05, runs) * scale * (b + 1)
            if ties:
                v = np.round(v, 1)
            names += [f"b{b:02d}"] * runs
            variants += [variant] * runs
            run_ids += list(range(runs))
            values += list(v)
    values = np.array(values)
    values[5] = np.nan
    return pa.table({"benchmark": names, "variant": variants, "run": run_ids, "value": values})


@pytest.mark.parametrize("ties", [False, True])
def test_mannwhitneyu_table_matches_per_benchmark_arrays(ties):
    rng = np.random.default_rng(31)
    table = measurement_table(rng, ties=ties)
    res = fastperf.mannwhitneyu(table, baseline="base", candidate="cand", alternative="greater")
    rows = res.benchmarks.to_pylist()
    assert len(rows) == 40 and rows[0]["n_dropped_baseline"] == 1
    values = table.column("value").to_numpy()
    for i, row in enumerate(rows):
        base = values[(i * 30):(i * 30 + 15)]
        cand = values[(i * 30 + 15):(i * 30 + 30)]
        ref = mannwhitneyu(base[~np.isnan(base)], cand, alternative="greater")
        assert row["statistic"] == ref.statistic and row["pvalue"] == ref.pvalue
        assert row["method"] == ref.method
        assert row["shift"] == ref.estimate
        assert (row["ci_low"], row["ci_high"]) == tuple(ref.confidence_interval())
        assert row["prob_greater"] == ref.statistic / (len(cand) * (~np.isnan(base)).sum())
    assert res.summary["rows"] == 40 and any("dropped" in w for w in res.warnings)


def test_wilcoxon_table_pairs_runs_and_reports_ratio():
    rng = np.random.default_rng(32)
    table = measurement_table(rng)
    res = fastperf.wilcoxon(table, baseline="base", candidate="cand", log=True,
                            alternative="greater")
    rows = res.benchmarks.to_pylist()
    values = table.column("value").to_numpy()
    for i, row in enumerate(rows):
        base, cand = values[(i * 30):(i * 30 + 15)], values[(i * 30 + 15):(i * 30 + 30)]
        keep = ~np.isnan(base)
        d = np.log(base[keep]) - np.log(cand[keep])
        ref = wilcoxon(d, alternative="greater")
        assert row["n"] == keep.sum() and row["pvalue"] == ref.pvalue
        assert row["statistic"] == ref.statistic
        assert row["ratio"] == pytest.approx(np.exp(ref.estimate), rel=1e-15)
        assert row["ci_low"] == pytest.approx(np.exp(ref.confidence_interval()[0]), rel=1e-15)
    faster = [r for r in rows if int(r["benchmark"][1:]) % 2 == 1]
    assert np.median([r["ratio"] for r in faster]) == pytest.approx(1 / 0.97, rel=0.02)


def test_table_forms_reject_bad_input():
    rng = np.random.default_rng(33)
    table = measurement_table(rng, benchmarks=3)
    with pytest.raises(InputError, match="baseline"):
        fastperf.mannwhitneyu(table)
    with pytest.raises(InputError, match="not found"):
        fastperf.wilcoxon(table, baseline="base", candidate="nope")
    negative = table.set_column(3, "value", pa.array(-np.ones(table.num_rows)))
    with pytest.raises(InputError, match="positive"):
        fastperf.mannwhitneyu(negative, baseline="base", candidate="cand", log=True)
    missing = table.filter(pa.compute.not_equal(table.column("benchmark"), "x"))
    only_base = missing.filter(pa.compute.or_(
        pa.compute.equal(missing.column("variant"), "base"),
        pa.compute.not_equal(missing.column("benchmark"), "b01")))
    res = fastperf.mannwhitneyu(only_base, baseline="base", candidate="cand")
    assert res.benchmarks.column("status").to_pylist()[1] == "no candidate values"


# --------------------------------------------------------------------------- kernel paths


def test_merge_and_small_tallies_agree_with_midranks():
    from fastperf.kernels.rank_merge import merge_tally
    from fastperf.kernels.ranks import _signed_blocks, small_rank_sum, small_signed_rank

    rng = np.random.default_rng(41)
    for _ in range(300):
        m, n = rng.integers(0, 40, 2)
        x = np.sort(rng.integers(0, 12, m).astype(float))
        y = np.sort(rng.integers(0, 15, n).astype(float))
        pooled = np.concatenate([x, y])
        ranks = st.rankdata(pooled) if len(pooled) else pooled
        _, counts = np.unique(pooled, return_counts=True)
        expected = (int(round(2 * ranks[:m].sum())), float((counts ** 3 - counts).sum()))
        assert merge_tally(x, 0, 1, 1.0, m, y, 0, 1, 1.0, n) == expected
        if m and n:
            assert small_rank_sum(x, y) == expected
        d = np.sort(np.concatenate([x - 6, [0.0] * rng.integers(0, 3)]))
        first_zero, after_zero = np.searchsorted(d, 0.0), np.searchsorted(d, 0.0, side="right")
        nonzero = d[d != 0]
        r = st.rankdata(np.abs(nonzero)) if len(nonzero) else nonzero
        _, c = np.unique(np.abs(nonzero), return_counts=True)
        expected = (int(round(2 * r[nonzero > 0].sum())), float((c ** 3 - c).sum()))
        walked = merge_tally(d, after_zero, 1, 1.0, len(d) - after_zero,
                             d, first_zero - 1, -1, -1.0, first_zero)
        assert walked == expected
        assert small_signed_rank(d, first_zero, after_zero) == expected
        assert _signed_blocks(d, 0, np.empty(0, np.int64), np.empty(0, np.int64), 0)[1:] == expected


@pytest.mark.parametrize("kind, seed", [("untied", 1), ("cross ties only", 2), ("ties within", 3),
                                        ("apart", 4), ("apart, y above", 5), ("lopsided", 6)])
def test_large_rank_sums_by_the_counting_merge_match_midranks(kind, seed):
    """Above SMALL_MAX_PAIRS untied samples take `merge_count_below` (falling back to
    `merge_tally` where it meets a tie between the samples): 2U and the tie term against
    scipy's midranks, on sizes whose halves cut unevenly."""
    from fastperf.kernels.ranks import SMALL_MAX_PAIRS, rank_sum_statistics

    rng = np.random.default_rng(seed)
    for _ in range(40):
        m, n = rng.integers(70, 900, 2)
        if kind == "lopsided":
            m, n = (1, int(rng.integers(5_000, 20_000))) if rng.random() < 0.5 else (
                int(rng.integers(5_000, 20_000)), 1)
        x, y = rng.normal(size=m), rng.normal(0.3, 1.5, size=n)
        if kind == "cross ties only":
            y[rng.integers(0, n, 3)] = x[rng.integers(0, m, 3)]
            y = np.unique(y)
        elif kind == "ties within":
            x = np.round(x, 1)
        elif kind == "apart":
            x = x + 100.0
        elif kind == "apart, y above":
            y = y + 100.0
        x, y = np.sort(x), np.sort(y)
        m, n = x.size, y.size
        assert m * n > SMALL_MAX_PAIRS
        pooled = np.concatenate([x, y])
        _, counts = np.unique(pooled, return_counts=True)
        got_m, got_n, u2, term, tied = rank_sum_statistics(
            x, np.array([0, m]), y, np.array([0, n]), n_rows=m + n)
        assert u2[0] == int(round(2 * st.rankdata(pooled)[:m].sum())) - m * (m + 1)
        assert term[0] == float((counts ** 3 - counts).sum()) and tied[0] == (term[0] > 0)


def test_effects_with_nan_omitted_and_empty_samples():
    x = np.array([[1.0, np.nan, 3.0, 7.0], [2.0, 4.0, 6.0, 8.0], [1.0, 2.0, 3.0, 4.0]])
    y = np.array([[0.5, 2.5, np.nan], [1.0, np.nan, 5.0], [np.nan, np.nan, np.nan]])
    res = mannwhitneyu(x, y, nan_policy="omit")
    for row in range(2):
        xr, yr = x[row][~np.isnan(x[row])], y[row][~np.isnan(y[row])]
        ref = mannwhitneyu(xr, yr)
        assert res.estimate[row] == ref.estimate == np.median(np.subtract.outer(xr, yr))
        assert res.confidence_interval()[0][row] == ref.confidence_interval()[0]
    assert res.status[2] == "empty sample" and np.isnan(res.estimate[2])
    d = np.array([[0.0, 1.5, -0.5, 2.0, 0.0, 3.0], [np.nan, 1.0, 2.0, 0.0, -1.0, 4.0]])
    res = wilcoxon(d, nan_policy="omit")
    for row in range(2):
        kept = d[row][~np.isnan(d[row]) & (d[row] != 0)]
        assert res.estimate[row] == np.median(walsh_averages(kept))


def test_parallel_builds_agree(parallel_always):
    rng = np.random.default_rng(51)
    x, y = np.round(rng.normal(size=(60, 25)), 1), np.round(rng.normal(0.2, size=(60, 33)), 1)
    x[3, 4] = np.nan
    serial = mannwhitneyu(x, y, nan_policy="omit", method="asymptotic")
    d = np.round(rng.normal(size=(60, 41)), 1)
    signed = wilcoxon(d, method="asymptotic", zero_method="pratt")
    ragged = st.rankdata(d[0, :17])
    import fastperf.kernels.builds as builds

    builds.FORCE_PARALLEL = False
    np.testing.assert_array_equal(mannwhitneyu(x, y, nan_policy="omit", method="asymptotic").pvalue,
                                  serial.pvalue)
    np.testing.assert_array_equal(wilcoxon(d, method="asymptotic", zero_method="pratt").pvalue,
                                  signed.pvalue)
    builds.FORCE_PARALLEL = True
    np.testing.assert_array_equal(rankdata(d[0, :17]), ragged)
    ragged_x = [rng.normal(size=k) for k in (3, 8, 5)]
    values = np.concatenate(ragged_x)
    from fastperf.data.arrays import Samples

    offsets = np.array([0, 3, 11, 16])
    np.testing.assert_array_equal(sort_samples(Samples(values, offsets)).values,
                                  np.concatenate([np.sort(v) for v in ragged_x]))


def test_sort_samples_of_sorted_unsorted_empty_and_nan_samples():
    """numpy's sort of each segment (NaN last) is the oracle, whether the batch is already
    sorted (then returned as is) or not: empty samples anywhere, NaN inside or at the end."""
    from fastperf.data.arrays import Samples

    rng = np.random.default_rng(17)
    for trial in range(60):
        sizes = rng.integers(0, 6, int(rng.integers(1, 8)))
        parts = [np.round(rng.normal(size=k), 1) for k in sizes]
        for part in parts:
            if part.size and rng.random() < 0.2:
                part[rng.integers(part.size)] = np.nan
            if trial % 2:
                part.sort()
        offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        values = np.concatenate(parts) if parts else np.zeros(0)
        got = sort_samples(Samples(values, offsets))
        np.testing.assert_array_equal(got.values, np.concatenate([np.sort(p) for p in parts]))
        np.testing.assert_array_equal(got.offsets, offsets)


@pytest.mark.parametrize("columns", [1, 2])
def test_distinct_rows_is_numpys_row_unique(columns):
    from fastperf.engine.ranks import distinct_rows

    rng = np.random.default_rng(columns)
    for rows in (0, 1, 7, 500):
        keys = rng.integers(1, 40, (rows, columns)) * rng.choice([1, 10 ** 6], (rows, columns))
        want, want_inverse = np.unique(keys, axis=0, return_inverse=True)
        got, inverse = distinct_rows(keys)
        np.testing.assert_array_equal(got, want.reshape(-1, columns))
        np.testing.assert_array_equal(inverse, want_inverse.reshape(-1))


def test_auto_mixes_exact_and_asymptotic_by_tie_pattern():
    # 60 vs 60: six distinct values are cheap to test exactly, a hundred are not
    rng = np.random.default_rng(61)
    x = rng.normal(size=(6, 60))
    y = rng.normal(0.3, size=(6, 60))
    x[::2], y[::2] = np.round(x[::2]), np.round(y[::2])
    x[1::2], y[1::2] = np.round(x[1::2], 2), np.round(y[1::2], 2)
    auto, exact = mannwhitneyu(x, y), mannwhitneyu(x, y, method="exact")
    assert (auto.method[::2] == "exact (ties)").all() and (auto.method[1::2] == "asymptotic").all()
    np.testing.assert_array_equal(auto.pvalue[::2], exact.pvalue[::2])


def test_auto_signed_rank_by_size_with_ties():
    rng = np.random.default_rng(62)
    rows = {"benchmark": [], "variant": [], "run": [], "value": []}
    for name, runs in (("small", 20), ("large", 800), ("mid", 40)):
        for variant in ("base", "cand"):
            rows["benchmark"] += [name] * runs
            rows["variant"] += [variant] * runs
            rows["run"] += list(range(runs))
            rows["value"] += list(np.round(rng.normal(10, 1, runs), 1))
    table = pa.table(rows)
    auto = fastperf.wilcoxon(table, baseline="base", candidate="cand").benchmarks.to_pylist()
    exact = fastperf.wilcoxon(table, baseline="base", candidate="cand",
                              method="exact").benchmarks.to_pylist()
    methods = {row["benchmark"]: row["method"] for row in auto}
    assert methods == {"small": "exact (ties)", "large": "asymptotic", "mid": "exact (ties)"}
    for got, want in zip(auto, exact):
        if got["method"] != "asymptotic":
            assert got["pvalue"] == want["pvalue"]


# -----------------------------------------------------------------------------------------------
# The exact distributions' cost refused up front; rankdata refuses None and complex input; the
# signed-rank test of paired differences that overflow float64
# -----------------------------------------------------------------------------------------------


REMEDY = "method='asymptotic'"


def _assert_refused(exc: pytest.ExceptionInfo, *fragments):
    text = str(exc.value)
    assert "method='exact'" in text, text
    assert REMEDY in text and "method='auto'" in text, text
    for fragment in fragments:
        assert fragment in text, text


def _table(sizes, seed=0, ties=False):
    """benchmarks b0, b1, ... with sizes[i] runs of variants old and new."""
    rng = np.random.default_rng(seed)
    bench, variant, value, run = [], [], [], []
    for i, n in enumerate(sizes):
        for v, shift in (("old", 0.0), ("new", 0.01)):
            x = rng.random(n) + 1.0 + shift
            if ties:
                x = np.round(x * 20) / 20
            bench += [f"b{i}"] * n
            variant += [v] * n
            value += list(x)
            run += list(range(n))
    return pa.table({"benchmark": bench, "variant": variant, "value": value, "run": run})


# --- the cost model (hand-derived) ----------------------------------------------------------

def test_rank_sum_cost_hand_values():
    # 3 vs 5: min^2 * max = 45 steps; 4 arrays of floor(15/2)+1 = 8 floats (256 bytes) and
    # rings of 3 * (3 + 5) = 24 floats (192 bytes)
    steps, memory = rank_sum_exact_cost(np.array([5]), np.array([3]))
    assert steps.tolist() == [45.0] and memory.tolist() == [448.0]
    steps, _ = rank_sum_exact_cost(np.array([10_000]), np.array([10_000]))
    assert steps.tolist() == [1e12]


def test_signed_rank_cost_hand_values():
    # n = 6: 216 / 12 = 18 steps; floor(42 / 2) + 1 = 22 floats = 176 bytes
    steps, memory = signed_rank_exact_cost(np.array([6]))
    assert steps.tolist() == [18.0] and memory.tolist() == [176.0]


def test_exact_budget_boundary():
    describe = ["a distribution"].__getitem__
    check_exact_budget("t", np.array([float(EXACT_MAX_OPERATIONS)]), np.array([0.0]), describe)
    with pytest.raises(fastperf.InputError) as exc:
        check_exact_budget("t", np.array([EXACT_MAX_OPERATIONS / 2 + 1.0] * 2),
                           np.array([0.0, 0.0]), lambda i: "a distribution")
    _assert_refused(exc, "2 exact distributions in all", "a distribution")


def test_check_budget_tighter_limit_names_its_duration():
    check_budget("g", "k", 1, bytes_needed=0, operations=100, max_operations=100)
    with pytest.raises(fastperf.InputError, match=r"more than the 3e\+10 .*about 30 seconds"):
        check_budget("g", "k", 1, bytes_needed=0, operations=3e10 + 1, max_operations=3e10)
    with pytest.raises(fastperf.InputError, match=r"1e\+14 .*over a day"):  # the default is unchanged
        check_budget("g", "k", 1, bytes_needed=0, operations=1e15)


# --- the reproducers --------------------------------------------------------------------------

def test_mannwhitneyu_exact_10000_refused_up_front():
    x = np.random.default_rng(0).random(10000)
    with pytest.raises(fastperf.InputError) as exc:
        fastperf.mannwhitneyu(x, x + 0.01, method="exact")
    _assert_refused(exc, "10000 and 10000 values", "1e+12")  # 10000^3 steps


def test_wilcoxon_exact_200k_refused_not_memory_error():
    rng = np.random.default_rng(0)
    x, y = rng.random(200_000), rng.random(200_000) + 0.001
    with pytest.raises(fastperf.InputError) as exc:
        fastperf.wilcoxon(x, y, method="exact")
    _assert_refused(exc, "200000 nonzero differences")
    with pytest.raises(fastperf.InputError) as exc:
        fastperf.mannwhitneyu(x, y, method="exact")
    _assert_refused(exc, "200000 and 200000 values")


def test_exact_with_ties_refused():
    rng = np.random.default_rng(1)
    x, y = np.round(rng.random(20_000) * 100), np.round(rng.random(20_000) * 100)
    with pytest.raises(fastperf.InputError) as exc:
        fastperf.mannwhitneyu(x, y, method="exact")
    _assert_refused(exc, "with ties")
    with pytest.raises(fastperf.InputError) as exc:
        fastperf.wilcoxon(x - y, method="exact")
    _assert_refused(exc, "with ties or ranked zeros")


def test_exact_batch_sums_its_distributions():
    # 2700^3 = 1.97e10 and 2710^3 = 1.99e10: each alone fits, together they do not
    with pytest.raises(fastperf.InputError) as exc:
        fastperf.mannwhitneyu(_table([2700, 2710]), baseline="old", candidate="new", method="exact")
    _assert_refused(exc, "2 exact distributions in all", "2710 and 2710 values")


# --- every public function with an exact rank path ---------------------------------------------

@pytest.mark.parametrize("call", [
    lambda t: fastperf.mannwhitneyu(t, baseline="old", candidate="new", method="exact"),
    lambda t: fastperf.wilcoxon(t, baseline="old", candidate="new", method="exact"),
    lambda t: fastperf.compare(t, baseline="old", candidate="new", by="benchmark", method="exact"),
    lambda t: fastperf.hpt(t, baseline="old", candidate="new", method="exact"),
    lambda t: fastperf.sparc(t, baseline="old", candidate="new", method="exact"),
    lambda t: fastperf.speedup_test(t, baseline="old", candidate="new", median_method="exact"),
], ids=["mannwhitneyu", "wilcoxon", "compare", "hpt", "sparc", "speedup_test"])
def test_every_exact_path_refused(call):
    with pytest.raises(fastperf.InputError) as exc:
        call(_table([12_000]))
    _assert_refused(exc, "12000")


def test_auto_goes_asymptotic_at_large_n_as_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.random(10_000), rng.random(10_000) + 0.01
    r = fastperf.mannwhitneyu(x, y)
    assert r.method == "asymptotic"
    assert r.pvalue == pytest.approx(st.mannwhitneyu(x, y, method="asymptotic").pvalue,
                                     rel=1e-9)
    w = fastperf.wilcoxon(x, y)
    assert w.method == "asymptotic"
    assert w.pvalue == pytest.approx(st.wilcoxon(x, y, method="asymptotic").pvalue, rel=1e-9)
    t = fastperf.mannwhitneyu(_table([10_000], ties=True), baseline="old", candidate="new")
    assert t.benchmarks.column("method").to_pylist() == ["asymptotic"]


def test_exact_within_budget_still_exact_as_scipy():
    rng = np.random.default_rng(4)
    x, y = rng.random(40), rng.random(55) + 0.1
    r = fastperf.mannwhitneyu(x, y, method="exact")
    assert r.method == "exact"
    assert r.pvalue == pytest.approx(st.mannwhitneyu(x, y, method="exact").pvalue, rel=1e-9)
    w = fastperf.wilcoxon(x[:30], y[:30], method="exact")
    assert w.pvalue == pytest.approx(st.wilcoxon(x[:30], y[:30], method="exact").pvalue,
                                     rel=1e-9)


# --- rankdata and the array forms: None and complex input -------------------------------------

class _no_warning:
    """Fails on any warning (the ComplexWarning of a silent cast)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


@pytest.mark.parametrize("axis", [None, -1])
@pytest.mark.parametrize("bad, what", [
    (None, "got None"),
    (np.array([1 + 2j, 3 + 0j, 1 + 0j]), "complex"),
    ([1 + 1j, 2.0], "complex"),
    (np.array(["2020-01-01"], dtype="M8[D]"), "dates"),
])
def test_rankdata_refuses_none_and_complex(bad, what, axis):
    with _no_warning():
        with pytest.raises(fastperf.InputError, match=rf"^a must be numeric.*{what}"):
            fastperf.rankdata(bad, axis=axis)


@pytest.mark.parametrize("call, name", [
    (lambda bad: fastperf.mannwhitneyu(bad, [1.0, 2.0]), "x"),
    (lambda bad: fastperf.mannwhitneyu([1.0, 2.0], bad), "y"),
    (lambda bad: fastperf.wilcoxon(bad), "x"),
    (lambda bad: fastperf.ttest_ind(bad, [1.0, 2.0, 3.0]), "x"),
    (lambda bad: fastperf.ks_2samp([1.0, 2.0, 3.0], bad), "y"),
])
@pytest.mark.parametrize("bad", [None, np.array([1 + 2j, 3 + 0j, 1 + 0j])], ids=["None", "complex"])
def test_array_forms_refuse_none_and_complex(call, name, bad):
    with _no_warning():
        with pytest.raises(fastperf.InputError, match=rf"\b{name}\b (must be numeric|is required)"):
            call(bad)


@pytest.mark.parametrize("a", [5.0, [[3, 1], [2, 2]], [1.0, np.nan, 1.0, 0.5], [True, False]])
def test_rankdata_axis_none_as_scipy(a):
    expected = st.rankdata(a, axis=None, nan_policy="propagate")
    np.testing.assert_array_equal(fastperf.rankdata(a, axis=None), expected)


def test_signed_rank_of_overflowing_differences_is_that_of_the_halves():
    x = np.array([1e308, 1.5e308, 1.2e308, 1.7e308, 1.1e308, 1.3e308])
    y = np.array([-9e307, -2e307, -1.6e308, 1e307, -4e307, -1.25e308])
    got, want = fastperf.wilcoxon(x, y), fastperf.wilcoxon(x / 4, y / 4)
    assert (got.statistic, got.pvalue, str(got.method)) == (want.statistic, want.pvalue,
                                                             str(want.method))
    assert str(got.method) == "exact"  # distinct differences: no artificial ties
    # the pseudo-median in exact rationals: the median of the 21 Walsh averages lies beyond
    # float64, so the estimate is +inf (and a quarter of it is not)
    d = [Fraction(a) - Fraction(b) for a, b in zip(x.tolist(), y.tolist())]
    walsh = sorted((d[i] + d[j]) / 2 for i in range(6) for j in range(i, 6))
    median = walsh[10]
    assert median > Fraction(np.finfo(float).max)
    assert got.estimate == np.inf
    assert want.estimate == float(median / 4)


def test_estimate_doubled_back_where_representable():
    x = np.array([1e308, -1e308, 5e307, -7e307, 9e307, 3e307])
    y = np.array([-1e308, 1e308, -6e307, 8e307, -9e307, -2e307])
    got, want = fastperf.wilcoxon(x, y), fastperf.wilcoxon(x / 4, y / 4)
    assert got.pvalue == want.pvalue
    assert got.estimate == 4 * want.estimate and np.isfinite(got.estimate)
    low, high = got.confidence_interval(0.8)
    wlow, whigh = want.confidence_interval(0.8)
    assert (low, high) == (4 * wlow, 4 * whigh)


def test_table_form_names_an_estimate_beyond_the_range():
    x = np.array([1e308, 1.5e308, 1.2e308, 1.7e308, 1.1e308, 1.3e308])
    t = pa.table({"benchmark": ["a"] * 12, "variant": ["b"] * 6 + ["c"] * 6,
                  "run": list(range(6)) * 2, "value": list(0.9 * x) + list(-x)})
    row = fastperf.wilcoxon(t, baseline="b", candidate="c").table.to_pylist()[0]
    assert row["statistic"] == 21.0 and row["pvalue"] == pytest.approx(1 / 32)
    assert row["status"] == "Hodges-Lehmann estimate beyond the float64 range"


def test_hodges_lehmann_zeros_are_positive_and_inf_minus_inf_gives_nan():
    """A zero difference (or Walsh average) comes back as +0.0 whichever signed zero the
    selection met, and a sample pair where some difference is inf - inf has no order statistics
    (NaN) instead of a selection that never ends."""
    from fastperf.kernels.hodges_lehmann import difference_order_statistics, walsh_order_statistics

    zeros = np.array([-0.0, 0.0, -0.0, 0.0, -0.0])
    ranks = np.array([[1, 13, 25]], dtype=np.int64)
    five = np.array([0, 5])
    out = difference_order_statistics(zeros, five, np.sort(-zeros), five, ranks, -1, n_rows=10)
    assert (out == 0).all() and not np.signbit(out).any()
    walsh = walsh_order_statistics(zeros, five, np.array([[1, 8, 15]], dtype=np.int64), -1,
                                   n_rows=5)
    assert (walsh == 0).all() and not np.signbit(walsh).any()
    x = np.r_[np.linspace(-1, 1, 70), np.full(10, np.inf)]
    y = np.r_[np.linspace(-1.1, 0.9, 70), np.full(10, np.inf)]
    offsets = np.array([0, 80])
    both = difference_order_statistics(x, offsets, y, offsets, np.array([[1, 3200, 6400]]), -1,
                                       n_rows=160)
    assert np.isnan(both).all()
    d = np.r_[np.full(7, -np.inf), np.linspace(-1, 1, 59), np.full(14, np.inf)]
    assert np.isnan(walsh_order_statistics(d, offsets, np.array([[1, 1620, 3240]]), -1,
                                           n_rows=80)).all()


def test_rank_tests_leave_their_inputs_as_they_are():
    """The tests sort copies (x and y in one buffer, the paired differences in place): the
    caller's arrays keep their values and order, sorted or not, and the answers are scipy's."""
    rng = np.random.default_rng(31)
    x, y = rng.normal(size=(2, 40, 9))
    x[0].sort()  # one row already sorted, the others not
    before = x.copy(), y.copy()
    res = mannwhitneyu(x, y, axis=-1, method="asymptotic")
    assert np.array_equal(x, before[0]) and np.array_equal(y, before[1])
    ref = st.mannwhitneyu(x, y, axis=-1, method="asymptotic")
    np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-12)
    res = wilcoxon(x, y, axis=-1, method="asymptotic")
    assert np.array_equal(x, before[0]) and np.array_equal(y, before[1])
    np.testing.assert_allclose(res.pvalue, st.wilcoxon(x, y, axis=-1, method="asymptotic").pvalue,
                               rtol=1e-12)
    ordered = np.sort(x, axis=-1)  # both samples already sorted: no copy needed
    res = mannwhitneyu(ordered, np.sort(y, axis=-1), axis=-1, method="asymptotic")
    np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-12)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_pseudomedian_with_zeros_and_nan_uses_the_values_ranked(zero_method):
    """With NaN omitted and zero differences (dropped by "wilcox", ranked by "pratt") the
    Hodges-Lehmann estimate is the median of the Walsh averages of the values the test ranks,
    sample by sample: a brute-force oracle over each kept sample."""
    rng = np.random.default_rng(32)
    d = np.round(rng.normal(0.3, 1.0, size=(6, 15)), 1)
    d[1, :4] = 0.0
    d[2, 3] = np.nan
    d[3, [0, 5]] = [np.nan, 0.0]
    res = wilcoxon(d, axis=-1, zero_method=zero_method, nan_policy="omit")
    for row, estimate in zip(d, res.estimate):
        kept = row[~np.isnan(row)]
        if zero_method == "wilcox":
            kept = kept[kept != 0]
        assert estimate == np.median(walsh_averages(kept))


def test_symmetric_tails_sum_the_lower_half_of_the_enumerated_null():
    """Both tails of an untied rank-sum statistic, statistics inside and outside 0..mn, against
    the enumerated null's sums (never 1 - cdf where the tail is small)."""
    for m, n in ((3, 4), (5, 5), (6, 2)):
        total = m * n
        cdf = untied_rank_sum_cdf(m, n)
        k = np.arange(-2, total + 3)
        lower, upper = symmetric_tails(rank_sum_cdf(m, n), total, k)
        expected_lower = np.where(k < 0, 0.0, cdf[np.clip(k, 0, total)])
        expected_upper = np.where(k <= 0, 1.0,
                                  np.where(k > total, 0.0, 1.0 - cdf[np.clip(k - 1, 0, total)]))
        np.testing.assert_allclose(lower, expected_lower, rtol=1e-12, atol=0)
        np.testing.assert_allclose(upper, expected_upper, rtol=1e-12, atol=1e-15)
    lower, upper = symmetric_tails(rank_sum_cdf(5, 5), 25, 3)  # a scalar statistic: 0-d tails
    assert lower.shape == upper.shape == () and lower == untied_rank_sum_cdf(5, 5)[3]


@pytest.mark.parametrize("threads", ["1", "3"])
def test_ragged_samples_sort_in_width_classes_with_nan_last(monkeypatch, threads):
    """`sort_samples` of ragged batches (few and many sizes, empty samples, ties, NaN) and
    `sorted_slices` of overlapping slices in any order: numpy's sort of each sample alone, on
    one thread and on three (the largest batch, 450,000 values, sorts its width classes in
    parts on threads)."""
    monkeypatch.setenv("FASTPERF_THREADS", threads)
    rng = np.random.default_rng(12)
    for most in (3, 70, 3000):
        sizes = rng.integers(0, most, 300)
        offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        values = np.round(rng.normal(size=offsets[-1]), 2)
        values[rng.random(values.shape[0]) < 0.05] = np.nan
        expected = np.concatenate([np.sort(values[a:b]) for a, b in zip(offsets, offsets[1:])])
        ordered = sort_samples(Samples(values, offsets))
        np.testing.assert_array_equal(ordered.values, expected)
        np.testing.assert_array_equal(ordered.offsets, offsets)
    starts = rng.integers(0, 500, 60)
    ends = starts + rng.integers(0, 200, 60)
    ends[7] = starts[7] + PADDED_SORT_MAX_WIDTH + 3  # one long slice, sorted on its own
    runs = sorted_slices(values, starts, ends)
    for i, (a, b) in enumerate(zip(starts, ends)):
        np.testing.assert_array_equal(runs.values[runs.offsets[i]:runs.offsets[i + 1]],
                                      np.sort(values[a:b]))


@pytest.mark.parametrize("threads", ["1", "3"])
@pytest.mark.parametrize("x_sorted, y_ragged", [(False, False), (True, False), (False, True)])
def test_sample_pairs_sort_alike_in_one_buffer_or_apart(monkeypatch, threads, x_sorted, y_ragged):
    """`sort_sample_pairs` (one buffer for two unsorted rectangular batches, else each apart)
    and `sort_samples` in place: numpy's sort of each sample, whichever path, on one thread
    and on three (from 200,000 values: rows in parts, and two single samples at once)."""
    monkeypatch.setenv("FASTPERF_THREADS", threads)
    rng = np.random.default_rng(13)
    for samples, width in ((50, 8), (40_000, 9), (1, 150_001)):
        x, y = np.round(rng.normal(size=(2, samples, width)), 3)
        x[rng.random(x.shape) < 0.01] = np.nan
        if x_sorted:
            x.sort(axis=1)
        y_sizes = rng.integers(1, 2 * width, samples) if y_ragged else np.full(samples, width)
        y_values = rng.normal(size=int(y_sizes.sum()))
        xs = Samples(x.reshape(-1), np.arange(0, x.size + 1, width, dtype=np.int64))
        ys = Samples(y_values, np.concatenate(([0], np.cumsum(y_sizes))).astype(np.int64))
        sorted_x, sorted_y = sort_sample_pairs(xs, ys)
        np.testing.assert_array_equal(sorted_x.values, np.sort(x, axis=1).reshape(-1))
        np.testing.assert_array_equal(sorted_y.values, np.concatenate(
            [np.sort(y_values[a:b]) for a, b in zip(ys.offsets, ys.offsets[1:])]))
        mine = x.reshape(-1).copy()
        assert sort_samples(Samples(mine, xs.offsets), in_place=True).values is mine
        np.testing.assert_array_equal(mine, np.sort(x, axis=1).reshape(-1))


@pytest.mark.parametrize("threads", ["1", "2", "3"])
@pytest.mark.parametrize("in_place", [False, True])
def test_sample_batches_sort_their_rows_at_once(monkeypatch, threads, in_place):
    """`sort_sample_batches` (the variants' samples of a `compare` chunk): each batch as
    numpy sorts each of its samples alone (NaN last), sorted or empty ones as they are, ragged
    ones in width classes, and the rows of every batch of one size in one `sort_rows` call:
    two single samples of 300,000 values sort at once, on two threads when there are two;
    in place, the rows are sorted where they lie."""
    monkeypatch.setenv("FASTPERF_THREADS", threads)
    rng = np.random.default_rng(14)
    big = [np.round(rng.normal(size=300_000), 3) for _ in range(2)]
    big[0][::97] = np.nan
    rows = np.round(rng.normal(size=(500, 31)), 1)
    ragged_sizes = rng.integers(0, 40, 200)
    ragged = rng.normal(size=int(ragged_sizes.sum()))
    done = np.sort(rng.normal(size=50))
    batches = [Samples(big[0].copy(), np.array([0, big[0].size])),
               Samples(rows.reshape(-1).copy(), np.arange(0, rows.size + 1, 31)),
               Samples(ragged, np.concatenate(([0], np.cumsum(ragged_sizes)))),
               Samples(done, np.array([0, 50])),
               Samples(np.zeros(0), np.zeros(1, dtype=np.int64)),
               Samples(big[1].copy(), np.array([0, big[1].size]))]
    calls = []
    real = sorting.sort_rows
    monkeypatch.setattr(sorting, "sort_rows",
                        lambda *blocks: calls.append([b.shape for b in blocks]) or real(*blocks))
    before = [batch.values for batch in batches]
    expected = [np.concatenate([np.zeros(0)] + [np.sort(batch.values[a:b]) for a, b in
                                                zip(batch.offsets, batch.offsets[1:])])
                for batch in batches]  # before any sort in place
    out = sort_sample_batches(batches, in_place=in_place)
    assert calls == [[(1, 300_000), (500, 31), (1, 300_000)]]
    for batch, got, wanted in zip(batches, out, expected):
        np.testing.assert_array_equal(got.values, wanted)
        np.testing.assert_array_equal(got.offsets, batch.offsets)
    assert out[3] is batches[3] and out[4] is batches[4]  # sorted, empty: as they are
    for k in (0, 1, 5):
        assert (out[k].values is before[k]) == in_place
    if not in_place:  # the sorted copies of the rectangular batches: one buffer
        assert out[0].values.base is out[1].values.base is out[5].values.base is not None
    # samples of one size that do not fill their values (offsets from 2): sorted as ragged
    inner = Samples(np.array([9.0, 8.0, 3.0, 1.0, 2.0, 7.0, 5.0, 4.0]), np.array([2, 5, 8]))
    np.testing.assert_array_equal(sort_sample_batches([inner])[0].values,
                                  [1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
    # one buffer given twice to sort in place: the second is copied, not sorted at once twice
    again = big[1].copy()
    twice = sort_sample_batches([Samples(again, np.array([0, again.size]))] * 2, in_place=True)
    assert twice[0].values is again and twice[1].values is not again
    for batch in twice:
        np.testing.assert_array_equal(batch.values, expected[5])


def test_the_signed_rank_effect_sizes_its_threads_by_its_walsh_averages(monkeypatch):
    """`SignedRankState.select` passes the Walsh averages' kernel n_rows = max(values,
    averages / 16), as the rank-sum's effect counts its differences: one sample of 20,000
    pairs (200,010,000 averages) reaches the kernel's threshold for threads (2,000,000), which
    its values alone would not."""
    import fastperf.engine.ranks as ranks_module

    seen = []
    real = ranks_module.walsh_order_statistics

    def spy(*args, n_rows):
        seen.append(n_rows)
        return real(*args, n_rows=n_rows)

    monkeypatch.setattr(ranks_module, "walsh_order_statistics", spy)
    rng = np.random.default_rng(15)
    x = rng.normal(size=20_000)
    result = wilcoxon(x, x + rng.normal(0.1, 1.0, x.size))
    result.confidence_interval()
    assert seen and set(seen) == {20_000 * 20_001 // 2 // 16}
    assert seen[0] >= real.min_rows > x.size


def test_differences_of_two_infinities_are_named_as_infinities():
    """x - y of two infinities of one sign is NaN, and the status said "NaN in input" for an
    input without NaN (ttest_rel says "infinite value in input"); a real NaN keeps its status."""
    got = wilcoxon(np.array([[1.0, np.inf, 3, 4, 5], [1.0, 2, 3, 4, 5], [1.0, np.nan, 3, 4, 5]]),
                   np.array([[0.0, np.inf, 2, 1, 1], [0.0, 1, 2, 1, 1], [0.0, 1, 2, 1, 1]]))
    assert list(got.status) == ["infinite value in input (x - y of two infinities)", "ok",
                                "NaN in input"]
