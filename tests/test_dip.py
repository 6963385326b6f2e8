"""Hartigan's dip test (`fastperf.engine.dip`, `fastperf.kernels.dip`) against independent oracles.

Oracles: the ``diptest`` package (R. Urlus' C++ port of AS 217 with R diptest's corrections) for
the statistic, to 1e-12; its p-value, read off R diptest's ``qDiptab`` (Maechler, 1,000,001
uniform samples per n), for fastperf's p-value read off its own table (made by
``bench/dip_table.py`` with fastperf's kernel), to 0.01; quantiles of ``qDiptab`` quoted below
as published critical values; and, under the uniform null, the rejection rate at 0.05 against
its binomial Monte Carlo error.
"""
import math
import warnings

import diptest
import numpy as np
import pytest

from fastperf.data.arrays import Samples
from fastperf.engine.dip import MIN_N, dip_pvalues, dip_test, dip_test_status
from fastperf.kernels.dip import dip_statistics


def batch(samples) -> Samples:
    """The sorted samples as one CSR batch."""
    sorted_samples = [np.sort(np.asarray(s, dtype=np.float64)) for s in samples]
    sizes = [s.size for s in sorted_samples]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    values = np.concatenate(sorted_samples) if sorted_samples else np.empty(0)
    return Samples(values, offsets)


def reference_dip(x) -> float:
    return diptest.dipstat(np.asarray(x, dtype=np.float64))


def data_sets(seed: int = 0) -> list[np.ndarray]:
    """Random, tied, bimodal, tiny and extreme-magnitude samples of many sizes."""
    rng = np.random.default_rng(seed)
    out = []
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 23, 50, 99, 250, 1000, 4000]:
        out.append(rng.uniform(size=n))
        out.append(rng.normal(size=n))
        out.append(np.round(rng.normal(size=n), 1))  # ties
        out.append(rng.integers(0, 3, n).astype(float))  # heavy ties
        half = n // 2
        out.append(np.concatenate([rng.normal(0, 1, half), rng.normal(5, 1, n - half)]))
        out.append(rng.lognormal(size=n) * 1e200)  # huge
        out.append(rng.lognormal(size=n) * 1e-200)  # tiny
        out.append(1e9 + rng.integers(0, 50, n))  # a large offset, quantised (timer ticks)
    out.append(np.full(7, 3.5))  # all equal
    out.append(np.array([0.0, 0.0, 1.0, 1.0]))  # "perfectly bimodal for n = 4" (R's example)
    out.append(np.arange(20.0))  # evenly spaced
    return out


def test_dip_equals_diptest_one_sample_at_a_time():
    for x in data_sets(1):
        dip, _ = dip_test(batch([x]))
        assert abs(dip[0] - reference_dip(x)) <= 1e-12, (x.size, dip[0], reference_dip(x))


def test_batched_equals_one_by_one_and_diptest():
    samples = data_sets(2)
    rng = np.random.default_rng(3)
    order = rng.permutation(len(samples))
    samples = [samples[i] for i in order]
    together, p_together = dip_test(batch(samples))
    alone = np.array([dip_test(batch([x]))[0][0] for x in samples])
    p_alone = np.array([dip_test(batch([x]))[1][0] for x in samples])
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(p_together, p_alone)
    reference = np.array([reference_dip(x) for x in samples])
    np.testing.assert_allclose(together, reference, rtol=0, atol=1e-12)


def test_dip_is_affine_invariant_and_in_range():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.normal(0, 1, 40), rng.normal(3, 0.5, 25)])
    dips = dip_test(batch([x, 7.0 + 3.0 * x, -x]))[0]
    np.testing.assert_allclose(dips, dips[0], rtol=1e-12)
    all_dips = dip_test(batch(data_sets(5)))[0]
    assert np.all((all_dips >= 0) & (all_dips <= 0.25))


def test_known_dips():
    # R diptest's example: c(0, 0, 1, 1) is perfectly bimodal for n = 4, its dip the maximum 1/4
    dip, p, status = dip_test_status(batch([[0.0, 0.0, 1.0, 1.0]]))
    assert dip[0] == 0.25 and status[0] == "ok"
    assert p[0] == pytest.approx(0.001)  # beyond the table: reported as its smallest p, 0.001
    # a point mass is unimodal: dip 0, p 1
    dip, p = dip_test(batch([np.full(9, 2.0)]))
    assert dip[0] == 0.0 and p[0] == 1.0


def test_tiny_and_invalid_segments():
    samples = Samples(np.array([1.0, 1.0, 2.0, 5.0, 3.0, 1.0, np.nan, 1.0, 2.0, 3.0, 4.0]),
                      np.array([0, 0, 1, 3, 5, 7, 11], dtype=np.int64))
    dip, p, status = dip_test_status(samples)
    assert list(status) == ["no values", "n < 4", "n < 4", "values not sorted",
                            "NaN or infinite value in input", "ok"]
    # n = 1 and n = 2: the dip diptest gives, no p-value (diptest warns and says 1.0)
    assert dip[1] == reference_dip([1.0]) and dip[2] == reference_dip([1.0, 2.0])
    assert np.isnan(dip[[0, 3, 4]]).all()
    assert np.isnan(p[:5]).all() and not np.isnan(p[5])
    assert MIN_N == 4
    dip3, p3 = dip_test(batch([[0.0, 1.0, 5.0]]))
    assert dip3[0] == reference_dip([0.0, 1.0, 5.0]) and np.isnan(p3[0])


def test_infinite_values_are_refused():
    dip, p, status = dip_test_status(batch([[-np.inf, 1.0, 2.0, 3.0, 4.0]]))
    assert np.isnan(dip[0]) and np.isnan(p[0]) and status[0] == "NaN or infinite value in input"


def test_empty_batch():
    dip, p = dip_test(Samples(np.empty(0), np.zeros(1, dtype=np.int64)))
    assert dip.shape == p.shape == (0,)


@pytest.mark.parametrize("n", [10, 15, 25, 50, 80, 100, 150, 300, 700, 1500, 3000])
def test_pvalue_close_to_diptest(n):
    """Both read a simulated table by the same interpolation; the tables' Monte Carlo error
    and fastperf's extra n = 70 row keep them within 0.01 of each other."""
    rng = np.random.default_rng(n)
    samples = []
    for shift in np.linspace(0.0, 4.0, 9):  # p-values from about 1 down to the table's floor
        samples.append(np.concatenate([rng.normal(0, 1, n // 2), rng.normal(shift, 1, n - n // 2)]))
    samples += [rng.uniform(size=n) for _ in range(4)]
    _, p = dip_test(batch(samples))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = np.array([diptest.diptest(np.asarray(x))[1] for x in samples])
    floor = 0.001  # fastperf's smallest reportable p ("at most 0.001"); diptest goes to 0
    np.testing.assert_allclose(np.maximum(p, floor), np.maximum(reference, floor), rtol=0,
                               atol=0.01)


#: Published critical values: quantiles of the dip for uniform samples from R diptest's table
#: ``qDiptab`` (Maechler; 1,000,001 samples per n; ``data(qDiptab)``, columns "0.95" and "0.99";
#: the R help page calls it Hartigan & Hartigan's (1985) Table 1, more accurate).
QDIPTAB = {  # n: (0.95 quantile, 0.99 quantile)
    15: (0.118760769203664, 0.13598356863636),
    20: (0.105130218270636, 0.120624043335821),
    50: (0.0702737877191269, 0.0811998415355918),
    100: (0.0511279442868827, 0.059024132304226),
    200: (0.0368418413878307, 0.0426864799777448),
    1000: (0.0169343970067564, 0.0196080260483234),
    5000: (0.0076506368153935, 0.00886357892854914),
}


@pytest.mark.parametrize("n", sorted(QDIPTAB))
def test_published_critical_values(n):
    """At R's 0.95 and 0.99 quantiles of D_n, fastperf's table gives p = 0.05 and 0.01 up to
    the Monte Carlo error of both tables (400,000 and 1,000,001 samples)."""
    q95, q99 = QDIPTAB[n]
    p = dip_pvalues(np.array([q95, q99]), np.array([n, n]))
    assert p[0] == pytest.approx(0.05, abs=0.002)
    assert p[1] == pytest.approx(0.01, abs=0.001)


@pytest.mark.parametrize("n", [12, 37, 150, 2500])
def test_uniform_null_rejects_at_nominal_rate(n):
    """Uniform samples (the null's least favourable case), sizes in between the table's rows:
    the share with p < 0.05 is 0.05 within 4 binomial standard errors."""
    replicates = 4000
    rng = np.random.default_rng(1000 + n)  # not the table's seed
    values = np.sort(rng.uniform(size=(replicates, n)), axis=1)
    _, p = dip_test(Samples.rectangular(values))
    rate = np.mean(p < 0.05)
    assert abs(rate - 0.05) <= 4 * math.sqrt(0.05 * 0.95 / replicates), rate


def test_pvalue_is_monotone_and_bounded():
    for n in (4, 5, 8, 13, 70, 120, 5000, 20000):
        dips = np.linspace(0, 0.25, 2001)
        p = dip_pvalues(dips, np.full(dips.size, n))
        assert np.all(np.diff(p) <= 0)
        assert p[0] == 1.0 and p.min() == pytest.approx(0.001)


def test_kernel_flags_unsorted_without_computing():
    dip, status = dip_statistics(np.array([3.0, 1.0, 2.0, 4.0]), np.array([0, 4], dtype=np.int64),
                                 n_rows=4)
    assert np.isnan(dip[0]) and status[0] == 3


def test_parallel_build_equals_serial(parallel_always):
    samples = batch(data_sets(6))
    parallel_dip, parallel_p = dip_test(samples)
    reference = np.array([reference_dip(samples.values[a:b])
                          for a, b in zip(samples.offsets[:-1], samples.offsets[1:])])
    np.testing.assert_allclose(parallel_dip, reference, rtol=0, atol=1e-12)
    assert np.isfinite(parallel_p).sum() > 0
