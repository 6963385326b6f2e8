"""Rank tests against scipy on the same data in the same run (targets from issue 3).

- 10,000 pairs of 30 vs 30, asymptotic: >= 10x ``scipy.stats.mannwhitneyu(axis=1)``
- 10,000 paired samples of 30 (default method: exact on both sides): >= 10x ``scipy.stats.wilcoxon``
- 5,000,000 vs 5,000,000: >= 8x scipy, and within 2x of ``numpy.sort`` of the 10M pooled values
- exact rank-sum 400 vs 400 without ties: >= 50x scipy ``method="exact"``; with ties: < 1 s
- exact signed-rank, n = 1,000: >= 10x scipy ``method="exact"``

Exact null distributions are cached by sample size on both sides (scipy keeps its last one), so
the exact benchmarks clear both caches before every round: they time computing the distribution.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps

from fastperf.engine import ranks as ranks_engine
from fastperf.stats.rank_tests import mannwhitneyu, wilcoxon

FAST = dict(rounds=15, iterations=1, warmup_rounds=2)
SLOW = dict(rounds=3, iterations=1, warmup_rounds=1)


def clear_caches():
    ranks_engine.rank_sum_cdf.cache_clear()
    ranks_engine.signed_rank_cdf.cache_clear()
    state = getattr(sps._mannwhitneyu._mwu_state, "s", None)
    if state is not None:
        state.reset()


@pytest.fixture(scope="module")
def pairs_30():
    rng = np.random.default_rng(0)
    return rng.lognormal(0, 0.05, (10_000, 30)), rng.lognormal(0.01, 0.05, (10_000, 30))


@pytest.mark.parametrize("side", ["fastperf", "scipy"])
def test_rank_sum_batch_asymptotic(benchmark, pairs_30, side):
    benchmark.group = "mannwhitneyu asymptotic, 10,000 pairs of 30 vs 30"
    benchmark.extra_info["side"] = side
    x, y = pairs_30
    if side == "fastperf":
        res = benchmark.pedantic(mannwhitneyu, args=(x, y), kwargs={"method": "asymptotic"}, **FAST)
        ref = sps.mannwhitneyu(x, y, axis=1, method="asymptotic")
        np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-12)
    else:
        benchmark.pedantic(sps.mannwhitneyu, args=(x, y), kwargs={"axis": 1, "method": "asymptotic"},
                           **FAST)


@pytest.mark.parametrize("side", ["fastperf", "scipy"])
def test_signed_rank_batch(benchmark, pairs_30, side):
    benchmark.group = "wilcoxon (default method), 10,000 paired samples of 30"
    benchmark.extra_info["side"] = side
    x, y = pairs_30
    if side == "fastperf":
        res = benchmark.pedantic(wilcoxon, args=(x, y), **FAST)
        assert (res.method == "exact").all()
        np.testing.assert_allclose(res.pvalue, sps.wilcoxon(x, y, axis=1).pvalue, rtol=1e-12)
    else:
        benchmark.pedantic(sps.wilcoxon, args=(x, y), kwargs={"axis": 1}, **FAST)


@pytest.fixture(scope="module")
def big_pair():
    rng = np.random.default_rng(1)
    return rng.lognormal(0, 0.1, 5_000_000), rng.lognormal(0.0001, 0.1, 5_000_000)


@pytest.mark.parametrize("side", ["fastperf", "scipy", "numpy.sort"])
def test_rank_sum_10m(benchmark, big_pair, side):
    benchmark.group = "mannwhitneyu, 5,000,000 vs 5,000,000"
    benchmark.extra_info["side"] = side
    x, y = big_pair
    if side == "fastperf":
        res = benchmark.pedantic(mannwhitneyu, args=(x, y), **SLOW)
        assert res.method == "asymptotic"
    elif side == "scipy":
        benchmark.pedantic(sps.mannwhitneyu, args=(x, y), **dict(SLOW, rounds=2))
    else:
        pooled = np.concatenate([x, y])
        benchmark.pedantic(np.sort, args=(pooled,), **SLOW)


@pytest.mark.parametrize("side", ["fastperf", "scipy"])
def test_rank_sum_exact_400(benchmark, side):
    benchmark.group = "mannwhitneyu exact, 400 vs 400 without ties (distribution not cached)"
    benchmark.extra_info["side"] = side
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=400), rng.normal(0.1, size=400)

    def run():
        clear_caches()
        if side == "fastperf":
            return mannwhitneyu(x, y, method="exact")
        return sps.mannwhitneyu(x, y, method="exact")

    res = benchmark.pedantic(run, **(FAST if side == "fastperf" else SLOW))
    if side == "fastperf":
        assert res.pvalue == pytest.approx(sps.mannwhitneyu(x, y, method="exact").pvalue, rel=1e-10)


def quantised_pair(step: float, shift: float, seed: int = 3):
    """400 vs 400 timings rounded to a timer step: ties as benchmark data has them."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.lognormal(0, 0.05, 400) / step) * step
    y = np.round(rng.lognormal(shift, 0.05, 400) / step) * step
    return x, y


TIE_PATTERNS = {
    # name: (step, shift): about 14, 60 and 340 distinct values among the 800 (the count is
    # printed); no difference (p ~ 0.7-0.8) and a 1% one (p ~ 0.003)
    "~14 values, no difference": (0.025, 0.0),
    "~14 values, 1% slower": (0.025, 0.01),
    "~60 values, no difference": (0.005, 0.0),
    "~60 values, 1% slower": (0.005, 0.01),
    "~340 values, no difference": (0.0005, 0.0),
    "~340 values, 1% slower": (0.0005, 0.01),
}


@pytest.mark.parametrize("pattern", list(TIE_PATTERNS))
def test_rank_sum_exact_400_ties(benchmark, pattern):
    benchmark.group = f"mannwhitneyu exact with ties, 400 vs 400, {pattern}"
    benchmark.extra_info["side"] = "fastperf"
    x, y = quantised_pair(*TIE_PATTERNS[pattern])
    res = benchmark.pedantic(mannwhitneyu, args=(x, y), kwargs={"method": "exact"},
                             **dict(SLOW, rounds=5))
    assert res.method == "exact (ties)"
    benchmark.extra_info["distinct values"] = int(np.unique(np.concatenate([x, y])).size)
    benchmark.extra_info["pvalue"] = float(res.pvalue)


@pytest.mark.parametrize("side", ["fastperf", "scipy"])
def test_signed_rank_exact_1000(benchmark, side):
    benchmark.group = "wilcoxon exact, n = 1,000 (distribution not cached)"
    benchmark.extra_info["side"] = side
    rng = np.random.default_rng(4)
    d = rng.normal(0.05, 1, 1000)

    def run():
        clear_caches()
        if side == "fastperf":
            return wilcoxon(d, method="exact")
        return sps.wilcoxon(d, method="exact")

    res = benchmark.pedantic(run, **(FAST if side == "fastperf" else SLOW))
    if side == "fastperf":
        assert res.pvalue == pytest.approx(sps.wilcoxon(d, method="exact").pvalue, rel=1e-10)
