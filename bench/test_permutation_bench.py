"""Permutation test of the mean difference, 1,000 benchmarks of 31 vs 31 values, 9,999 resamples,
against a loop of ``scipy.stats.permutation_test`` (vectorized statistic).

scipy takes about 0.1 s per benchmark, so it is timed on the first 20 benchmarks only: its figure
in the ratio line is for 20 benchmarks, and ``extra_info`` gives it scaled to 1,000 (x 50) with
the per-benchmark speedup. Target: at least 20x per benchmark.
"""
import numpy as np
import pytest
import scipy.stats as sps

from fastperf.stats.permutation import permutation_test

N_BENCHMARKS, N_SCIPY, N, B = 1_000, 20, 31, 9_999
GROUP = (f"permutation_test mean_diff, {N} vs {N} x {B:,} resamples: fastperf on {N_BENCHMARKS:,} "
         f"benchmarks, scipy loop on {N_SCIPY} (ratio x {N_BENCHMARKS // N_SCIPY} = per-benchmark "
         "speedup, see extra_info)")
_medians = {}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.lognormal(0, 0.2, (N_BENCHMARKS, N)), rng.lognormal(0.02, 0.2, (N_BENCHMARKS, N))


def _diff_of_means(a, b, axis):
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def _scipy_loop(x, y):
    return [sps.permutation_test((a, b), _diff_of_means, vectorized=True, n_resamples=B,
                                 rng=i).pvalue for i, (a, b) in enumerate(zip(x, y))]


@pytest.mark.parametrize("side", ["fastperf", "scipy loop"])
def test_permutation_mean_diff(benchmark, data, side):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = side
    x, y = data
    if side == "fastperf":
        result = benchmark.pedantic(permutation_test, args=((x, y),),
                                    kwargs={"n_resamples": B, "seed": 1},
                                    rounds=5, iterations=1, warmup_rounds=1)
        assert not result.exact.any()
        _medians["fastperf"] = benchmark.stats.stats.median
        benchmark.extra_info["per_benchmark_s"] = _medians["fastperf"] / N_BENCHMARKS
    else:
        benchmark.pedantic(_scipy_loop, args=(x[:N_SCIPY], y[:N_SCIPY]), rounds=3, iterations=1,
                           warmup_rounds=0)
        per_benchmark = benchmark.stats.stats.median / N_SCIPY
        benchmark.extra_info["per_benchmark_s"] = per_benchmark
        benchmark.extra_info[f"scaled_to_{N_BENCHMARKS}_benchmarks_s"] = per_benchmark * N_BENCHMARKS
        if "fastperf" in _medians:
            benchmark.extra_info["per_benchmark_speedup"] = (
                per_benchmark * N_BENCHMARKS / _medians["fastperf"])
