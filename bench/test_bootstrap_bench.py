"""BCa interval of the median ratio, 1,000 benchmarks x 31 runs per side x 9,999 resamples.

Anchor: a loop of ``scipy.stats.bootstrap`` (vectorized statistic, BCa) over the benchmarks.
That loop is slow (about 20 ms per benchmark), so it is timed on the first 20 benchmarks and
scaled per benchmark to 1,000 (``extra_info["scaled_from"]``). Target: fastperf >= 20x faster.
"""
import numpy as np
import pytest
import scipy.stats as sps

from fastperf.stats.bootstrap import bootstrap

N_BENCHMARKS, RUNS, B, SUBSET = 1_000, 31, 9_999, 20
GROUP = "bootstrap BCa median ratio, 1,000 x 31 per side x 9,999 resamples"
SCIPY_GROUP = "bootstrap BCa median ratio: scipy loop on 20 of the 1,000 benchmarks (x50 to scale)"


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(0)
    return (rng.lognormal(0, 0.2, (N_BENCHMARKS, RUNS)),
            rng.lognormal(0.02, 0.2, (N_BENCHMARKS, RUNS)))


def _ratio(a, b, axis):
    return np.median(a, axis=axis) / np.median(b, axis=axis)


def _scipy_loop(x, y):
    for i in range(x.shape[0]):
        sps.bootstrap((x[i], y[i]), statistic=_ratio, vectorized=True, method="BCa",
                      n_resamples=B, rng=i)


_MEDIANS = {}


@pytest.mark.parametrize("side", ["fastperf", "scipy loop"])
def test_bootstrap_bca_median_ratio(benchmark, pairs, side):
    benchmark.group = GROUP if side == "fastperf" else SCIPY_GROUP
    benchmark.extra_info["side"] = side
    x, y = pairs
    if side == "fastperf":
        bootstrap((x[:10], y[:10]), n_resamples=99, seed=0)  # compile outside the timing
        benchmark.pedantic(bootstrap, args=((x, y),), kwargs=dict(
            statistic="median_ratio", method="bca", n_resamples=B, seed=1),
            rounds=3, iterations=1, warmup_rounds=1)
        _MEDIANS["fastperf"] = benchmark.stats.stats.median
    else:
        benchmark.extra_info["scaled_from"] = f"{SUBSET} benchmarks, x{N_BENCHMARKS // SUBSET}"
        benchmark.pedantic(_scipy_loop, args=(x[:SUBSET], y[:SUBSET]), rounds=3, iterations=1)
        estimated = benchmark.stats.stats.median * N_BENCHMARKS / SUBSET
        benchmark.extra_info["scipy_estimated_for_1000_s"] = round(estimated, 3)
        if "fastperf" in _MEDIANS:
            benchmark.extra_info["scipy_scaled/fastperf"] = round(estimated / _MEDIANS["fastperf"], 2)
