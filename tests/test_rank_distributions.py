"""Exact rank-statistic null distributions (`fastperf.kernels.rank_null`, `rank_sum_ties`,
`signed_rank_ties`, `tie_costs`) against independent oracles: enumeration of every subset / sign
vector and block DPs in Python ints (tests/naive.py), exact big-integer generating functions,
scipy's exact distributions; properties by hypothesis."""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats._hypotests import _get_wilcoxon_distr
from scipy.stats._mannwhitneyu import _MWU

from fastperf.kernels.rank_null import rank_sum_null_pmf, signed_rank_null_pmf
from fastperf.kernels.rank_sum_ties import rank_sum_network, rank_sum_tie_tails
from fastperf.kernels.signed_rank_ties import signed_rank_tie_tails
from fastperf.kernels.tie_costs import estimated_tie_tail_cost, tie_tail_costs
from naive import (
    rank_sum_counts_by_blocks, rank_sum_null_enumerated, signed_rank_null_enumerated, untied_rank_sum_counts,
)

RTOL = 1e-12  # the target for every pmf entry and tail (achieved: ~1e-13 or better)
TINY = Fraction(1, 10**290)  # exact values below this may underflow; not compared relatively


# --- oracles ---------------------------------------------------------------------------------


def gaussian_binomial_half(m, n, k_max=None):
    """Exact counts of U = u for u = 0 .. k_max (default floor(mn/2)): the coefficients of
    prod_{i<=m} (1 - q^(n+i)) / (1 - q^i), by exact polynomial steps in Python ints."""
    m, n = min(m, n), max(m, n)
    top = (m * n) // 2 if k_max is None else k_max
    c = np.zeros(top + 1, dtype=object)
    c[:] = 0
    c[0] = 1
    for i in range(1, m + 1):
        lag = n + i
        if lag <= top:  # multiply by 1 - q^(n+i) (descending: uses the old values)
            c[lag:] = c[lag:] - c[: top + 1 - lag]
        for j0 in range(i, top + 1, i):  # divide by 1 - q^i (ascending)
            j1 = min(j0 + i, top + 1)
            c[j0:j1] += c[j0 - i : j1 - i]
    return c


def wilcoxon_half(n, k_max=None):
    """Exact counts of T+ = t for t = 0 .. k_max (default floor(n(n+1)/4)): prod (1 + q^i)."""
    top = (n * (n + 1)) // 4 if k_max is None else k_max
    c = np.zeros(top + 1, dtype=object)
    c[:] = 0
    c[0] = 1
    for i in range(1, n + 1):
        if i <= top:
            c[i:] = c[i:] + c[: top + 1 - i]
    return c


def assert_rel(got, counts, total, rtol=RTOL):
    """Every float in `got` within rtol of counts / total (exact), entries below TINY skipped."""
    worst = 0.0
    for g, c in zip(got, counts):
        exact = Fraction(int(c), total)
        if exact < TINY:
            continue
        err = abs(Fraction(float(g)) - exact) / exact
        worst = max(worst, float(err))
    assert worst <= rtol, f"worst relative error {worst:.3e}"
    return worst


def midrank_blocks(values):
    """Doubled midranks and counts of the tie blocks of `values`."""
    u, c = np.unique(values, return_counts=True)
    before = np.concatenate([[0], np.cumsum(c)[:-1]])
    return (2 * before + c + 1).astype(np.int64), c.astype(np.int64)


@functools.lru_cache(maxsize=None)
def lognormal_case(seed, m, step):
    """A 2m-value tie pattern (rounded lognormal values) and its exact rank-sum counts."""
    rng = np.random.default_rng(seed)
    scores, counts = midrank_blocks(np.round(rng.lognormal(0, 0.1, 2 * m) / step))
    return (scores, counts) + rank_sum_counts_by_blocks(scores, counts, m)


def exact_tails(dist, total, observed):
    lower = Fraction(sum(v for k, v in dist.items() if k <= observed), total)
    upper = Fraction(sum(v for k, v in dist.items() if k >= observed), total)
    return lower, upper


def check_tails(got_lower, got_upper, expected, rtol=RTOL):
    worst = 0.0
    for got, exp in zip((got_lower, got_upper), expected):
        if exp == 0:
            assert got == 0.0
        elif exp >= TINY:
            err = float(abs(Fraction(float(got)) - exp) / exp)
            assert err <= rtol, (float(got), float(exp), err)
            worst = max(worst, err)
    return worst


def batched_rank_sum(scores, counts, m, observed, **kw):
    """One group per observed value (same tie pattern)."""
    g = len(observed)
    offsets = np.arange(g + 1, dtype=np.int64) * len(scores)
    return rank_sum_tie_tails(np.tile(scores, g), np.tile(counts, g), offsets,
                              np.full(g, m, dtype=np.int64), np.asarray(observed, dtype=np.int64),
                              n_rows=kw.get("n_rows", 0))


def batched_signed_rank(scores, counts, observed, **kw):
    g = len(observed)
    offsets = np.arange(g + 1, dtype=np.int64) * len(scores)
    return signed_rank_tie_tails(np.tile(scores, g), np.tile(counts, g), offsets,
                                 np.asarray(observed, dtype=np.int64), n_rows=kw.get("n_rows", 0))


# --- untied rank sum ---------------------------------------------------------------------------


@pytest.mark.parametrize("m,n", [(0, 0), (0, 4), (3, 0), (1, 1), (1, 6), (2, 3), (3, 3), (4, 6),
                                 (5, 8), (7, 7), (6, 9)])
def test_rank_sum_pmf_matches_enumeration(m, n):
    pmf = rank_sum_null_pmf(m, n)
    assert pmf.shape == ((m * n) // 2 + 1,)
    counts = untied_rank_sum_counts(m, n)
    assert_rel(pmf, counts[: pmf.size], math.comb(m + n, m), rtol=1e-14)


@pytest.mark.parametrize("m,n", [(60, 80), (13, 300), (150, 150), (31, 32)])
def test_rank_sum_pmf_every_entry_matches_big_integers(m, n):
    pmf = rank_sum_null_pmf(m, n)
    assert np.array_equal(pmf, rank_sum_null_pmf(n, m))
    assert_rel(pmf, gaussian_binomial_half(m, n), math.comb(m + n, m))


def test_rank_sum_pmf_400_by_400_every_entry_and_tail_sums():
    """The size where Harding's float recursion loses 1e-7 near the centre: every entry (lower
    tail down to 5e-240 included) and cumulative sums against exact Gaussian-binomial counts."""
    m = n = 400
    pmf = rank_sum_null_pmf(m, n)
    exact = gaussian_binomial_half(m, n)
    total = math.comb(m + n, m)
    assert_rel(pmf, exact, total)
    cum = np.cumsum(exact)
    for k in (0, 100, 3000, 20000, 50000, 70000, 80000):
        tail = Fraction(int(cum[k]), total)
        got = math.fsum(pmf[: k + 1])
        assert abs(Fraction(got) - tail) / tail <= RTOL


def test_rank_sum_pmf_lower_tail_of_large_unbalanced_sizes():
    """1000 x 1000 (counts beyond float range: exercises the rescaling) and 50 x 5000: the first
    3000 entries against the exact truncated generating function."""
    for m, n in [(1000, 1000), (50, 5000)]:
        pmf = rank_sum_null_pmf(m, n)
        assert_rel(pmf[:3001], gaussian_binomial_half(m, n, 3000), math.comb(m + n, m))


def test_rank_sum_pmf_matches_scipy_in_the_bulk():
    m, n = 40, 55
    pmf = rank_sum_null_pmf(m, n)
    ref = _MWU(m, n).pmf(np.arange(pmf.size))
    np.testing.assert_allclose(pmf, ref, rtol=1e-11, atol=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_rank_sum_pmf_is_a_symmetric_distribution(m, n):
    pmf = rank_sum_null_pmf(m, n)
    total = 2 * math.fsum(pmf) - (pmf[-1] if (m * n) % 2 == 0 else 0.0)
    assert abs(total - 1.0) < 1e-13
    assert np.all(pmf > 0) and np.all(pmf <= 1)
    assert np.all(np.diff(pmf) >= -1e-16 * pmf[1:])  # unimodal: increasing up to the middle


# --- untied signed rank ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13])
def test_signed_rank_pmf_matches_enumeration(n):
    pmf = signed_rank_null_pmf(n)
    assert pmf.shape == ((n * (n + 1)) // 4 + 1,)
    dist, total = signed_rank_null_enumerated(np.arange(1, n + 1), np.ones(n, dtype=np.int64))
    assert_rel(pmf, [dist.get(t, 0) for t in range(pmf.size)], total, rtol=1e-15)


def test_signed_rank_pmf_matches_big_integers():
    assert_rel(signed_rank_null_pmf(300), wilcoxon_half(300), 2**300)
    n = 1000  # lower tail (down to 1e-301) and tail sums
    pmf = signed_rank_null_pmf(n)
    exact = wilcoxon_half(n, 20000)
    assert_rel(pmf[:20001], exact, 2**n)
    cum = np.cumsum(exact)
    for k in (5000, 20000):
        tail = Fraction(int(cum[k]), 2**n)
        assert abs(Fraction(math.fsum(pmf[: k + 1])) - tail) / tail <= RTOL


def test_signed_rank_pmf_matches_scipy():
    n = 60
    ref = _get_wilcoxon_distr(n)
    ref = ref / ref.sum()
    pmf = signed_rank_null_pmf(n)
    np.testing.assert_allclose(pmf, ref[: pmf.size], rtol=1e-13, atol=0)


# --- tails with ties ---------------------------------------------------------------------------


def random_tie_pattern(rng, n_max):
    n = int(rng.integers(0, n_max + 1))
    values = rng.integers(0, max(1, int(rng.integers(1, n + 2))), n)
    return midrank_blocks(values)


@pytest.mark.parametrize("seed", range(4))
def test_rank_sum_tie_tails_match_enumeration(seed):
    """Random tie patterns (N <= 14), every value of the support and beyond it, all m."""
    rng = np.random.default_rng(seed)
    for trial in range(12):
        scores, counts = random_tie_pattern(rng, 14)
        n_total = int(counts.sum())
        m = int(rng.integers(0, n_total + 1))
        if trial % 4 == 3 and scores.size:  # arbitrary (nondecreasing) integer scores
            scores = np.sort(rng.integers(-9, 10, scores.size)).astype(np.int64)
        dist, total = rank_sum_null_enumerated(scores, counts, m)
        lo_s, hi_s = min(dist), max(dist)
        observed = list(range(lo_s - 3, hi_s + 4))
        lower, upper = batched_rank_sum(scores, counts, m, observed)
        for i, obs in enumerate(observed):
            check_tails(lower[i], upper[i], exact_tails(dist, total, obs))


@pytest.mark.parametrize("seed", range(4))
def test_signed_rank_tie_tails_match_enumeration(seed):
    """Random ties and zeros (doubled midranks need not start at 2), N <= 14; also arbitrary
    integer scores, negative and zero ones included."""
    rng = np.random.default_rng(100 + seed)
    for trial in range(12):
        d = rng.integers(-4, 5, int(rng.integers(0, 15)))
        zeros = int(np.sum(d == 0))
        scores, counts = midrank_blocks(np.abs(d[d != 0]))
        scores = scores + 2 * zeros
        if trial % 4 == 3:
            scores = rng.integers(-6, 7, scores.size).astype(np.int64)
        dist, total = signed_rank_null_enumerated(scores, counts)
        observed = list(range(min(dist) - 3, max(dist) + 4))
        lower, upper = batched_signed_rank(scores, counts, observed)
        for i, obs in enumerate(observed):
            check_tails(lower[i], upper[i], exact_tails(dist, total, obs))


def test_tie_tails_parallel_build_agrees(parallel_always):
    rng = np.random.default_rng(7)
    scores, counts = midrank_blocks(rng.integers(0, 6, 12))
    dist, total = rank_sum_null_enumerated(scores, counts, 5)
    observed = list(range(min(dist) - 1, max(dist) + 2))
    lower, upper = batched_rank_sum(scores, counts, 5, observed)
    for i, obs in enumerate(observed):
        check_tails(lower[i], upper[i], exact_tails(dist, total, obs))
    sdist, stotal = signed_rank_null_enumerated(scores, counts)
    observed = list(range(min(sdist) - 1, max(sdist) + 2))
    lower, upper = batched_signed_rank(scores, counts, observed)
    for i, obs in enumerate(observed):
        check_tails(lower[i], upper[i], exact_tails(sdist, stotal, obs))


@pytest.mark.parametrize("kind", ["few", "many"])
def test_rank_sum_tie_tails_match_exact_block_dp(kind):
    """60 vs 60 with 6 or ~40 distinct values: tails from the far lower tail (~1e-23) through
    the centre to the far upper tail and the support ends, against exact integer counts."""
    m = 60
    case = (11, m, 0.1) if kind == "few" else (12, m, 0.015)
    scores, counts, base, row, total = lognormal_case(*case)
    support = np.flatnonzero(row != 0) + base
    cum = np.cumsum(row)
    n_sup = support.size
    picks = sorted({0, 1, 2, n_sup // 50, n_sup // 8, n_sup // 3, n_sup // 2, 2 * n_sup // 3,
                    7 * n_sup // 8, n_sup - n_sup // 50, n_sup - 3, n_sup - 1})
    observed = [int(support[i]) for i in picks] + [int(support[n_sup // 2]) + 1]
    lower, upper = batched_rank_sum(scores, counts, m, observed)
    worst = 0.0
    for i, obs in enumerate(observed):
        k = obs - base
        exp_lower = Fraction(int(cum[k]), total)
        exp_upper = Fraction(int(total - (cum[k - 1] if k > 0 else 0)), total)
        worst = max(worst, check_tails(lower[i], upper[i], (exp_lower, exp_upper)))
    assert min(lower.min(), upper.min()) < 1e-20  # the far tails were really exercised


def test_untied_tails_agree_with_the_untied_pmfs():
    """All counts 1: the tails are sums of the untied pmfs (every U, and beyond the support)."""
    m, n = 35, 48
    pmf = rank_sum_null_pmf(m, n)
    full = np.concatenate([pmf, pmf[: m * n + 1 - pmf.size][::-1]])
    scores = 2 * np.arange(1, m + n + 1, dtype=np.int64)  # doubled ranks, no ties
    u = np.arange(-2, m * n + 3)
    observed = 2 * u + m * (m + 1)  # doubled rank sum of x = 2 U + m (m + 1)
    lower, upper = batched_rank_sum(scores, np.ones(m + n, dtype=np.int64), m, observed)
    for i, uu in enumerate(u):
        exp_lower = math.fsum(full[: max(uu + 1, 0)])
        exp_upper = math.fsum(full[max(uu, 0):])
        for got, exp in ((lower[i], exp_lower), (upper[i], exp_upper)):
            assert abs(got - exp) <= 1e-12 * exp if exp > 0 else got == 0.0
    nn = 40
    spmf = signed_rank_null_pmf(nn)
    top = nn * (nn + 1) // 2
    sfull = np.concatenate([spmf, spmf[: top + 1 - spmf.size][::-1]])
    t = np.arange(-2, top + 3)
    lower, upper = batched_signed_rank(2 * np.arange(1, nn + 1), np.ones(nn, dtype=np.int64), 2 * t)
    for i, tt in enumerate(t):
        exp_lower = math.fsum(sfull[: max(tt + 1, 0)])
        exp_upper = math.fsum(sfull[max(tt, 0):])
        for got, exp in ((lower[i], exp_lower), (upper[i], exp_upper)):
            assert abs(got - exp) <= 1e-12 * exp if exp > 0 else got == 0.0


def test_degenerate_groups():
    """N = 0, m = 0, m = N, one tie block, equal scores in separate blocks (S constant in all
    of them); m outside [0, N] gives NaN. Signed rank: no element, only zero scores."""
    groups = [  # (scores, counts, m, observed, expected lower, expected upper)
        ([], [], 0, 0, 1.0, 1.0),
        ([], [], 0, -1, 0.0, 1.0),
        ([3, 7, 9], [1, 2, 1], 0, 0, 1.0, 1.0),
        ([3, 7, 9], [1, 2, 1], 4, 26, 1.0, 1.0),
        ([3, 7, 9], [1, 2, 1], 4, 27, 1.0, 0.0),
        ([3], [4], 2, 6, 1.0, 1.0),
        ([3], [4], 2, 5, 0.0, 1.0),
        ([5, 5], [2, 1], 2, 10, 1.0, 1.0),
        ([], [], 1, 0, np.nan, np.nan),
        ([3, 7, 9], [1, 2, 1], 5, 0, np.nan, np.nan),
        ([3, 7, 9], [1, 2, 1], -1, 0, np.nan, np.nan),
    ]
    scores = np.array([s for g in groups for s in g[0]], dtype=np.int64)
    counts = np.array([c for g in groups for c in g[1]], dtype=np.int64)
    offsets = np.cumsum([0] + [len(g[0]) for g in groups]).astype(np.int64)
    m = np.array([g[2] for g in groups], dtype=np.int64)
    observed = np.array([g[3] for g in groups], dtype=np.int64)
    lower, upper = rank_sum_tie_tails(scores, counts, offsets, m, observed, n_rows=0)
    np.testing.assert_array_equal(lower, [g[4] for g in groups])
    np.testing.assert_array_equal(upper, [g[5] for g in groups])
    lower, upper = signed_rank_tie_tails(np.array([0, 4, 0], dtype=np.int64),
                                         np.array([3, 0, 2], dtype=np.int64),
                                         np.array([0, 0, 3, 3], dtype=np.int64),
                                         np.array([0, 1, 0], dtype=np.int64), n_rows=0)
    assert lower.tolist() == [1.0, 1.0, 1.0] and upper.tolist() == [1.0, 0.0, 1.0]


def test_tails_near_the_ends_of_the_support():
    """Near the ends of the support the tail is ~1e9 times below its normal approximation (on
    whose scale negligible states are dropped): still exact."""
    m = 45
    scores, counts, base, row, total = lognormal_case(5, m, 0.02)
    support = np.flatnonzero(row != 0)
    cum = np.cumsum(row)
    n_total = 2 * m
    mean = m * np.sum(scores * counts) / n_total
    sd = math.sqrt(m * m / (n_total * (n_total - 1.0))
                   * np.sum(counts * (scores - np.sum(scores * counts) / n_total) ** 2))
    ks = [int(support[i]) for i in (0, 1, 4, 12)]
    lower, upper = batched_rank_sum(scores, counts, m, [k + base for k in ks])
    for i, k in enumerate(ks):
        exp_lower = Fraction(int(cum[k]), total)
        normal = 0.5 * math.erfc(-(k + base + 0.5 - mean) / sd / math.sqrt(2))
        assert normal > 1e6 * exp_lower
        check_tails(lower[i], upper[i], (exp_lower, 1 - exp_lower + Fraction(int(row[k]), total)))


@pytest.mark.parametrize("theta", [1e-6, 1e-10, 1e-14, 1e-18])
def test_dropped_mass_bounds_the_error(theta):
    """The network algorithm's third result bounds what dropping states of probability <=
    theta cost each tail (the kernel relies on it to decide when to recompute)."""
    m = 60
    scores, counts, base, row, total = lognormal_case(12, m, 0.015)
    cum = np.cumsum(row)
    g = 0
    for s in scores[1:] - scores[0]:
        g = math.gcd(g, int(s))
    sp = ((scores - scores[0]) // g).astype(np.int64)
    for k in (int(np.flatnonzero(row)[5]), len(row) // 3, len(row) // 2):
        if row[k] == 0:
            continue
        thr = (k + base - m * int(scores[0])) // g  # an observed value on the lattice
        lower, upper, dropped = rank_sum_network(sp, counts, sp.size, 2 * m, m, thr, thr, theta)
        exp_lower = Fraction(int(cum[k]), total)
        exp_upper = 1 - exp_lower + Fraction(int(row[k]), total)
        for got, exp in ((lower, exp_lower), (upper, exp_upper)):
            assert float(abs(Fraction(got) - exp)) <= dropped + 1e-14 * float(exp)
        if theta >= 1e-10:
            assert dropped > 0.0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=25), st.data())
def test_tail_properties(counts, data):
    """Tails in [0, 1], monotone in the observed value, P(S <= s) + P(S >= s + 1) = 1, and the
    two tails add up to 1 + P(S = s)."""
    counts = np.array(counts, dtype=np.int64)
    before = np.concatenate([[0], np.cumsum(counts)[:-1]])
    scores = 2 * before + counts + 1
    n_total = int(counts.sum())
    m = data.draw(st.integers(0, n_total))
    s_min = int(np.sort(np.repeat(scores, counts))[:m].sum())
    s_max = int(np.sort(np.repeat(scores, counts))[n_total - m:].sum())
    observed = np.linspace(s_min - 2, s_max + 2, 25).astype(np.int64)
    lower, upper = batched_rank_sum(scores, counts, m, observed)
    nxt_lower, nxt_upper = batched_rank_sum(scores, counts, m, observed + 1)
    for lo, up, nlo, nup in zip(lower, upper, nxt_lower, nxt_upper):
        assert 0.0 <= lo <= 1.0 and 0.0 <= up <= 1.0
        assert nlo >= lo * (1 - 1e-14) and nup <= up * (1 + 1e-14)  # monotone up to rounding
        assert abs(lo + nup - 1.0) <= 1e-12
        assert lo + up >= 1.0 - 1e-12
    lower, upper = batched_signed_rank(scores, counts, observed // 3)
    nxt_lower, nxt_upper = batched_signed_rank(scores, counts, observed // 3 + 1)
    for lo, up, _, nup in zip(lower, upper, nxt_lower, nxt_upper):
        assert 0.0 <= lo <= 1.0 and 0.0 <= up <= 1.0
        assert abs(lo + nup - 1.0) <= 1e-12


def test_estimated_costs():
    few = np.array([100, 300, 300, 100], dtype=np.int64)
    many = np.full(400, 2, dtype=np.int64)
    small = np.full(20, 3, dtype=np.int64)
    assert 0 < estimated_tie_tail_cost(small, 30) < estimated_tie_tail_cost(many, 400)
    assert estimated_tie_tail_cost(few, 400) < estimated_tie_tail_cost(many, 400)
    assert estimated_tie_tail_cost(many, 0) == 800.0
    assert 0 < estimated_tie_tail_cost(small, -1) < estimated_tie_tail_cost(many, -1)
    counts = np.concatenate([few, many, small])
    offsets = np.array([0, 4, 404, 424], dtype=np.int64)
    m = np.array([400, 400, -1], dtype=np.int64)
    got = tie_tail_costs(counts, offsets, m)
    assert got.tolist() == [estimated_tie_tail_cost(few, 400), estimated_tie_tail_cost(many, 400),
                            estimated_tie_tail_cost(small, -1)]


# --- timings (not a test: ``python tests/test_rank_distributions.py``) -------------------------
