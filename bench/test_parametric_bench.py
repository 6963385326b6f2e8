"""t-tests and the F-test on 10,000 pairs against scipy's vectorised ``axis=1`` on the same data.

Target (issue 4): no slower than scipy's ``axis=1``.
"""
import numpy as np
import pytest
import scipy.stats as sps

import fastperf

ROUNDS = dict(rounds=15, iterations=1, warmup_rounds=2)


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(0)
    return rng.lognormal(0, 0.2, (10_000, 31)), rng.lognormal(0.02, 0.2, (10_000, 31))


@pytest.mark.parametrize("side", ["fastperf", "scipy axis=1"])
def test_ttest_ind(benchmark, pairs, side):
    benchmark.group = "ttest_ind (Welch), 10,000 pairs of 31"
    benchmark.extra_info["side"] = side
    x, y = pairs
    if side == "fastperf":
        benchmark.pedantic(fastperf.ttest_ind, args=(x, y), kwargs={"equal_var": False}, **ROUNDS)
    else:
        benchmark.pedantic(sps.ttest_ind, args=(x, y), kwargs={"axis": 1, "equal_var": False}, **ROUNDS)


@pytest.mark.parametrize("side", ["fastperf", "scipy axis=1"])
def test_ttest_rel(benchmark, pairs, side):
    benchmark.group = "ttest_rel, 10,000 pairs of 31"
    benchmark.extra_info["side"] = side
    x, y = pairs
    if side == "fastperf":
        benchmark.pedantic(fastperf.ttest_rel, args=(x, y), **ROUNDS)
    else:
        benchmark.pedantic(sps.ttest_rel, args=(x, y), kwargs={"axis": 1}, **ROUNDS)
