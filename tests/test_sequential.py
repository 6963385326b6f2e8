"""The anytime-valid engine (`fastperf.engine.sequential`) and e-BH, against references that
share no code with them: the Bayes factor integrated numerically over its prior, the interval
found by root-finding on the textbook formula, e-BH by its definition, and Ville's inequality
checked by simulation."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fastperf.data.arrays import Samples
from fastperf.engine.sequential import (MIXTURE_VARIANCE, confidence_sequence,
                                        half_width_factor, log_evalue, observations_needed)
from fastperf.errors import InputError
from fastperf.stats.multitest import e_bh
from naive import (e_bh_by_definition, t_mixture_bayes_factor,
                   t_mixture_bayes_factor_integrated, t_mixture_interval_by_root)


def samples_of(*arrays) -> Samples:
    sizes = [len(a) for a in arrays]
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    values = np.concatenate([np.asarray(a, dtype=float) for a in arrays]) if arrays else []
    return Samples(np.asarray(values, dtype=float), offsets)


CASES = [
    [0.03, -0.01, 0.02, 0.05, 0.01],
    [0.1, 0.12, 0.08, 0.11],
    [-0.02, 0.01, 0.0, -0.03, 0.02, 0.01, -0.01, 0.0],
    list(np.random.default_rng(3).normal(0.02, 0.03, 17)),
]


@pytest.mark.parametrize("y", CASES)
@pytest.mark.parametrize("g", [1.0, MIXTURE_VARIANCE])
def test_evalue_is_the_bayes_factor_integrated_over_its_prior(y, g):
    got = confidence_sequence(samples_of(y), 0.05, g).evalue[0]
    want = t_mixture_bayes_factor_integrated(y, 0.0, g)
    assert got == pytest.approx(want, rel=1e-6)
    assert got == pytest.approx(t_mixture_bayes_factor(y, 0.0, g), rel=1e-12)


@pytest.mark.parametrize("y", CASES)
@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2])
def test_interval_is_where_the_bayes_factor_crosses_one_over_alpha(y, alpha):
    cs = confidence_sequence(samples_of(y), alpha)
    low, high = t_mixture_interval_by_root(y, alpha, MIXTURE_VARIANCE)
    if math.isinf(low):
        assert np.isinf(cs.low[0]) and np.isinf(cs.high[0])
        return
    assert cs.low[0] == pytest.approx(low, rel=1e-9, abs=1e-12)
    assert cs.high[0] == pytest.approx(high, rel=1e-9, abs=1e-12)
    # and it excludes 0 exactly when the e-value reaches 1 / alpha
    assert (cs.low[0] > 0 or cs.high[0] < 0) == (cs.evalue[0] >= 1 / alpha)


def test_too_few_observations_exclude_nothing():
    # g = 4: K < G first at n = 4 (K = G^(1/n) alpha^(-2/n), G = 1 + n g)
    for n, finite in ((2, False), (3, False), (4, True)):
        assert np.isfinite(half_width_factor(np.array([n]), 0.05)[0]) == finite
    cs = confidence_sequence(samples_of([0.1], [], [0.5, 0.7, 0.6]), 0.05)
    assert list(cs.status[:2]) == ["fewer than 2 pairs"] * 2
    assert list(cs.evalue[:2]) == [1.0, 1.0] and np.isinf(cs.low[:3]).all()


def test_equal_observations():
    # no spread: the interval is the mean alone once anything can be excluded, and the e-value
    # is the Bayes factor's limit as |t| -> inf, G^((n - 1) / 2)
    cs = confidence_sequence(samples_of([0.02] * 5, [0.0] * 5, [0.02] * 3), 0.05)
    assert list(cs.status) == ["ok"] * 3
    g5 = 1 + 5 * MIXTURE_VARIANCE
    assert cs.evalue[0] == pytest.approx(g5 ** 2, rel=1e-12)
    assert cs.evalue[1] == pytest.approx(g5 ** -0.5, rel=1e-12)
    assert cs.low[0] == cs.high[0] == pytest.approx(0.02)
    assert np.isinf(cs.low[2])  # n = 3: still the whole line
    big_t = log_evalue(np.array([1e12]), np.array([5]))[0]
    assert big_t == pytest.approx(math.log(g5 ** 2), rel=1e-9)


def test_nan_and_infinite_observations_are_named():
    cs = confidence_sequence(samples_of([0.1, np.nan, 0.2], [0.1, np.inf, 0.3]), 0.05)
    assert cs.status[0] == "NaN in input"
    assert cs.status[1] != "ok"
    assert (cs.evalue == 1.0).all() and np.isnan(cs.mean).all()


def test_ville_inequality_holds_under_the_null():
    """A test martingale: over 1,000 normal null sequences of 200 observations, the share
    whose e-value ever reaches 20 stays at most 0.05 (+3 SE), and the running interval misses
    the mean in at most that share; with a non-zero mean it is reached in most."""
    rng = np.random.default_rng(11)
    b, length = 1000, 200
    y = rng.normal(0.0, 0.03, (b, length))
    ever = np.zeros(b, dtype=bool)
    for n in range(2, length + 1):
        cs = confidence_sequence(Samples(y[:, :n].ravel(), np.arange(b + 1) * n), 0.05)
        ever |= cs.evalue >= 20
    se = math.sqrt(0.05 * 0.95 / b)
    assert ever.mean() <= 0.05 + 3 * se
    shifted = y[:, :40] + 0.03
    cs = confidence_sequence(Samples(shifted.ravel(), np.arange(b + 1) * 40), 0.05)
    assert (cs.evalue >= 20).mean() > 0.9


def test_observations_needed_by_search():
    rng = np.random.default_rng(5)
    n = rng.integers(2, 40, 50)
    se = rng.uniform(0.001, 0.02, 50)
    target = rng.uniform(0.001, 0.05, 50)
    got = observations_needed(n, se, target, 0.05)
    for i in range(50):
        s = se[i] * math.sqrt(n[i])
        want = -1
        for count in range(n[i] + 1, 100_001):
            if s * half_width_factor(np.array([count]), 0.05)[0] / math.sqrt(count) <= target[i]:
                want = count
                break
        assert got[i] == want, i
    # zero spread: the first count that can exclude anything (4 at g = 4)
    assert observations_needed(np.array([2]), np.array([0.0]), np.array([0.01]), 0.05)[0] == 4
    assert observations_needed(np.array([5]), np.array([0.01]), np.array([0.0]), 0.05)[0] == -1


@pytest.mark.parametrize("seed", range(6))
def test_e_bh_by_its_definition(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 30))
    e = np.exp(rng.normal(1.0, 2.5, k))
    e[rng.random(k) < 0.2] = 1.0  # ties
    for alpha in (0.05, 0.1, 0.5):
        assert e_bh(e, alpha).tolist() == e_bh_by_definition(e, alpha)


def test_e_bh_edges():
    assert e_bh([], 0.05).tolist() == []
    assert e_bh([20.0], 0.05).tolist() == [True]  # one hypothesis: e >= 1 / alpha
    assert e_bh([19.99], 0.05).tolist() == [False]
    assert e_bh([np.nan, 1e9], 0.05).tolist() == [False, True]
    with pytest.raises(InputError, match="alpha"):
        e_bh([1.0], 1.5)
