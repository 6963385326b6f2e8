"""Shapiro-Wilk on 10,000 samples of 31 against scipy on the same data in the same run.

Anchors: a Python loop calling ``scipy.stats.shapiro`` once per sample (how a per-benchmark
normality check is written today), and scipy's own ``axis=1`` batching (which loops per sample
inside scipy). Target: at least 20x faster than the loop.
Run: ``pytest bench/test_normality_bench.py -p no:cacheprovider``.
"""
import warnings

import numpy as np
import pytest
import scipy.stats as sps

from fastperf.stats.normality import shapiro

GROUP = "shapiro, 10,000 samples of 31"
FAST_ROUNDS = dict(rounds=15, iterations=1, warmup_rounds=2)
SCIPY_ROUNDS = dict(rounds=5, iterations=1, warmup_rounds=1)


@pytest.fixture(scope="module")
def samples():
    return np.random.default_rng(2024).lognormal(0.0, 0.3, size=(10_000, 31))


def scipy_loop(samples):
    w = np.empty(len(samples))
    p = np.empty(len(samples))
    for i, sample in enumerate(samples):
        w[i], p[i] = sps.shapiro(sample)
    return w, p


def scipy_axis(samples):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sps.shapiro(samples, axis=1)


def test_shapiro_fastperf(benchmark, samples):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "fastperf"
    res = benchmark.pedantic(shapiro, args=(samples,), **FAST_ROUNDS)
    w, p = scipy_loop(samples[:200])
    np.testing.assert_allclose(res.statistic[:200], w, rtol=1e-6, atol=0)
    np.testing.assert_allclose(res.pvalue[:200], p, rtol=1e-6, atol=0)


def test_shapiro_scipy_loop(benchmark, samples):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "scipy loop"
    w, _ = benchmark.pedantic(scipy_loop, args=(samples,), **SCIPY_ROUNDS)
    assert w.shape == (10_000,)


def test_shapiro_scipy_axis(benchmark, samples):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "scipy axis=1"
    res = benchmark.pedantic(scipy_axis, args=(samples,), **SCIPY_ROUNDS)
    assert res.statistic.shape == (10_000,)
