"""Impossible sizes and the Hodges-Lehmann jackknife: calls that cannot fit are refused up front
(InputError naming the argument and the bytes or steps), and the BCa jackknife of the order
statistics reads its leave-one-out values off sorted arrays: bit for bit the brute-force
leave-one-out statistics of tests/naive.py.
"""
import os
import re

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings, strategies as st

import fastperf
from fastperf.errors import InputError
from fastperf.kernels import bootstrap as kb
from fastperf.kernels.jackknife import loo_difference_ranks, loo_ranks

from naive import jackknife_acceleration, leave_one_out_statistics


def _quoted_bytes(message):
    """The byte counts quoted in a refusal, e.g. '14.6 TiB (16000000000016 bytes)'."""
    return [int(b) for b in re.findall(r"\((\d+) bytes\)", message)]


def _physical():
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


# --- impossible sizes -------------------------------------------------------------------------

def test_bootstrap_trillion_resamples_refused_up_front():
    # the reproducer: MemoryError "Unable to allocate 14.6 TiB" before the fix
    with pytest.raises(InputError) as info:
        fastperf.bootstrap((np.ones(10),), statistic="mean", n_resamples=10**12)
    message = str(info.value)
    assert "n_resamples=1000000000000" in message
    quoted = _quoted_bytes(message)
    # hand-derived: at least the 2B + 1 BCa quantiles and the B statistics, 8 bytes each
    assert quoted[0] >= 8 * (3 * 10**12 + 1)
    assert _physical() in quoted  # the physical memory it is compared with


def test_bootstrap_return_distribution_refused():
    # percentile: no BCa quantiles; 100 samples x 1e9 stored statistics = 800 GB
    with pytest.raises(InputError) as info:
        fastperf.bootstrap((np.ones((100, 10)),), statistic="mean", method="percentile",
                           n_resamples=10**9, return_distribution=True)
    message = str(info.value)
    assert message.startswith("bootstrap: return_distribution=True")
    assert _quoted_bytes(message)[0] >= 8 * 100 * 10**9


def test_bootstrap_hodges_lehmann_differences_refused():
    # 1e5 x 1e5 values: 1e10 pairwise differences (80 GB) per sample
    x = np.arange(100_000.0)
    with pytest.raises(InputError) as info:
        fastperf.bootstrap((x, x), statistic="hodges_lehmann", n_resamples=10)
    message = str(info.value)
    assert "10000000000 pairwise differences" in message
    assert _quoted_bytes(message)[0] >= 8 * 10**10


def test_bootstrap_within_budget_unchanged():
    x = np.random.default_rng(3).lognormal(size=30)
    res = fastperf.bootstrap((x,), statistic="mean", method="percentile", n_resamples=200,
                             seed=1, return_distribution=True)
    dist = res.bootstrap_distribution
    assert dist.shape == (200,)
    np.testing.assert_allclose(res.confidence_interval, np.quantile(dist, [0.025, 0.975]),
                               rtol=1e-12)


def test_permutation_trillion_resamples_refused():
    x = np.arange(1000.0)
    with pytest.raises(InputError) as info:
        fastperf.permutation_test((x, x + 1), n_resamples=10**12)
    message = str(info.value)
    assert "n_resamples=1000000000000" in message and "2e+15 elementary steps" in message
    with pytest.raises(InputError, match="n_resamples=1000000000000"):
        fastperf.permutation_test((x, x + 1), n_resamples=10**12, paired=True)


def test_permutation_exact_enumeration_counted_not_n_resamples():
    # C(12, 6) = 924 rearrangements are enumerated exactly, however large n_resamples is
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=6), rng.normal(size=6) + 1
    res = fastperf.permutation_test((x, y), n_resamples=10**14)
    ref = sps.permutation_test((x, y), lambda a, b: np.mean(a) - np.mean(b), n_resamples=10**6,
                               permutation_type="independent")
    assert res.exact and res.n_resamples == 924
    np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-12)


def test_simulate_refused():
    with pytest.raises(InputError) as info:
        fastperf.simulate(benchmarks=10**6, runs=10**6)
    message = str(info.value)
    assert "benchmarks x runs='1000000 x 1000000'" in message
    # 2e12 measurements of at least 8 bytes each
    assert _quoted_bytes(message)[0] >= 8 * 2 * 10**12


# --- the jackknife --------------------------------------------------------------------------

_values = st.one_of(
    st.lists(st.integers(1, 4).map(float), min_size=2, max_size=9),  # many ties
    st.lists(st.floats(0.5, 100.0, allow_nan=False, allow_infinity=False), min_size=2,
             max_size=9),
)


@settings(max_examples=60, deadline=None)
@given(_values, _values)
def test_leave_one_out_differences_equal_brute_force(x, y):
    x, y = np.array(x), np.array(y)
    n, m = x.size, y.size
    for leave_x, size, left in ((True, n, (n - 1) * m), (False, m, n * (m - 1))):
        brute = [np.sort(np.subtract.outer(np.delete(x, i), y).ravel()) if leave_x else
                 np.sort(np.subtract.outer(x, np.delete(y, i)).ravel()) for i in range(size)]
        for k1, k2 in ((0, left - 1), (left // 2 - (1 - left % 2), left // 2)):
            r1, r2 = np.empty(size), np.empty(size)
            loo_difference_ranks(x, y, leave_x, k1, k2, r1, r2)
            np.testing.assert_array_equal(r1, [d[k1] for d in brute])
            np.testing.assert_array_equal(r2, [d[k2] for d in brute])


@settings(max_examples=40, deadline=None)
@given(_values)
def test_leave_one_out_ranks_equal_brute_force(x):
    x = np.array(x)
    n = x.size
    for k1 in range(n - 1):
        r1, r2 = np.empty(n), np.empty(n)
        loo_ranks(x, k1, n - 2, r1, r2)
        np.testing.assert_array_equal(r1, [np.sort(np.delete(x, i))[k1] for i in range(n)])
        np.testing.assert_array_equal(r2, [np.sort(np.delete(x, i))[n - 2] for i in range(n)])


_CODES = {"median": kb.MEDIAN, "quantile": kb.QUANTILE, "median_ratio": kb.MEDIAN_RATIO,
          "median_diff": kb.MEDIAN_DIFF, "hodges_lehmann": kb.HODGES_LEHMANN}


@settings(max_examples=50, deadline=None)
@given(_values, _values, st.sampled_from(sorted(_CODES)), st.sampled_from([0.1, 0.3, 0.5, 0.9]))
def test_leave_one_out_statistics_equal_brute_force(x, y, statistic, q):
    # np.median / np.quantile of each leave-one-out sample: the values, bit for bit
    x, y = np.array(x), np.array(y)
    two = statistic not in ("median", "quantile")
    expect_x, expect_y = leave_one_out_statistics(x, y, statistic, q)
    for leave_x, expect in ((True, expect_x), (False, expect_y)):
        if not two and not leave_x:
            continue
        out = np.empty(max(x.size, y.size))
        kb.leave_one_out_values(_CODES[statistic], x, x.size, y if two else y[:0],
                                y.size if two else 0, q, leave_x, out)
        np.testing.assert_array_equal(out[:len(expect)], expect)


@pytest.mark.parametrize("statistic", sorted(_CODES))
@pytest.mark.parametrize("n, m", [(7, 8), (8, 8), (9, 5), (2, 2), (2, 3)])
def test_bca_acceleration_equals_brute_force_jackknife(statistic, n, m):
    rng = np.random.default_rng(n * 10 + m)
    x, y = rng.lognormal(size=n), rng.lognormal(size=m)
    two = statistic not in ("median", "quantile")
    data = (x, y) if two else (x,)
    res = fastperf.bootstrap(data, statistic=statistic, method="bca", n_resamples=50, seed=2,
                             q=0.3 if statistic == "quantile" else None)
    expected = jackknife_acceleration(*leave_one_out_statistics(x, y, statistic, 0.3))
    np.testing.assert_allclose(res.acceleration, expected, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("statistic", ["mean", "mean_diff", "mean_ratio"])
@pytest.mark.parametrize("n, m", [(7, 8), (2, 2), (9, 3)])
def test_bca_acceleration_of_means_equals_brute_force(statistic, n, m):
    rng = np.random.default_rng(n * 10 + m)
    x, y = rng.lognormal(size=n), rng.lognormal(size=m)
    data = (x, y) if statistic != "mean" else (x,)
    res = fastperf.bootstrap(data, statistic=statistic, method="bca", n_resamples=50, seed=2)
    expected = jackknife_acceleration(*leave_one_out_statistics(x, y, statistic))
    np.testing.assert_allclose(res.acceleration, expected, rtol=1e-9, atol=1e-15)


def test_bca_mean_large_sample_acceleration():
    # hand-derived: for the mean, U_i = (n - 1)(mean - theta_(i)) = x_i - xbar, so
    # a = sum u^3 / (6 (sum u^2)^1.5); 300,000 values (an O(n^2) jackknife: minutes)
    x = np.random.default_rng(9).lognormal(size=300_000)
    u = x - x.mean()
    expected = (u ** 3).sum() / (6 * ((u ** 2).sum()) ** 1.5)
    res = fastperf.bootstrap((x,), statistic="mean", method="bca", n_resamples=5, seed=1)
    np.testing.assert_allclose(res.acceleration, expected, rtol=1e-6)


def test_bca_acceleration_tied_hodges_lehmann():
    # ties everywhere: many leave-one-out medians equal, and even/odd counts of differences
    x = np.array([1.0, 2, 2, 3, 3, 3, 4])
    y = np.array([2.0, 2, 3, 5])
    res = fastperf.bootstrap((x, y), statistic="hodges_lehmann", method="bca", n_resamples=50,
                             seed=2)
    expected = jackknife_acceleration(*leave_one_out_statistics(x, y, "hodges_lehmann"))
    np.testing.assert_allclose(res.acceleration, expected, rtol=1e-9, atol=1e-15)


def test_bca_hodges_lehmann_large_samples_finish():
    # 1500 x 1500: the jackknife recomputed 3000 medians of 2.25M differences before the fix
    # (O(n^3)); now it sorts them once. A regression makes this test visibly slow.
    rng = np.random.default_rng(8)
    x, y = rng.lognormal(size=1500), rng.lognormal(size=1500) * 1.1
    res = fastperf.bootstrap((x, y), statistic="hodges_lehmann", method="bca", n_resamples=20,
                             seed=3)
    assert res.status == "ok"
    assert res.estimate == np.median(np.subtract.outer(x, y))
    assert np.isfinite(res.acceleration)
    low, high = res.confidence_interval
    assert low <= high


# --- progress bar and chunking ----------------------------------------------------------------

@pytest.mark.parametrize("chunks", [1, 2, 3, 50])
def test_bootstrap_chunked_equals_one_call(chunks, monkeypatch, capsys):
    import fastperf.progress as progress

    rng = np.random.default_rng(11)
    x, y = rng.lognormal(size=(7, 12)), rng.lognormal(size=(7, 9))
    x[4, 2] = np.nan
    for statistic, method in (("median_ratio", "bca"), ("hodges_lehmann", "bca"),
                              ("mean", "studentized"), ("median_diff", "percentile")):
        data = (x,) if statistic == "mean" else (x, y)
        one = fastperf.bootstrap(data, statistic=statistic, method=method, n_resamples=99,
                                 seed=5, progress=False, return_distribution=True)
        monkeypatch.setattr(progress, "CHUNKS", chunks)
        monkeypatch.setattr(progress, "CHUNK_SECONDS", 0)  # 1/chunks of the work per chunk
        many = fastperf.bootstrap(data, statistic=statistic, method=method, n_resamples=99,
                                  seed=5, progress=True, return_distribution=True)
        monkeypatch.undo()
        for field in ("estimate", "standard_error", "acceleration", "bootstrap_distribution"):
            np.testing.assert_array_equal(getattr(many, field), getattr(one, field))
        np.testing.assert_array_equal(many.confidence_interval, one.confidence_interval)
        assert list(many.status) == list(one.status)
    err = capsys.readouterr().err
    assert "bootstrap: about" in err and "7/7 groups" in err


@pytest.mark.parametrize("paired", [False, True])
def test_permutation_chunked_equals_one_call(paired, monkeypatch, capsys):
    import fastperf.progress as progress

    rng = np.random.default_rng(12)
    x, y = rng.lognormal(size=(9, 8)), rng.lognormal(size=(9, 8))
    x[3, 1] = np.nan
    one = fastperf.permutation_test((x, y), paired=paired, n_resamples=500, seed=6,
                                    progress=False)
    monkeypatch.setattr(progress, "CHUNKS", 4)
    monkeypatch.setattr(progress, "CHUNK_SECONDS", 0)
    many = fastperf.permutation_test((x, y), paired=paired, n_resamples=500, seed=6,
                                     progress=True)
    np.testing.assert_array_equal(many.pvalue, one.pvalue)
    np.testing.assert_array_equal(many.statistic, one.statistic)
    np.testing.assert_array_equal(many.n_resamples, one.n_resamples)
    assert "9/9 groups" in capsys.readouterr().err


def test_progress_off_by_default_when_not_a_terminal(capsys):
    x = np.random.default_rng(13).lognormal(size=(3, 10))
    fastperf.bootstrap((x,), statistic="median", n_resamples=50, seed=1)
    fastperf.permutation_test((x, x + 1), n_resamples=50, seed=1)
    assert capsys.readouterr().err == ""


def test_wants_progress_rule():
    from fastperf.progress import AUTO_MIN_STEPS, wants_progress

    class Terminal:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

    assert wants_progress(None, AUTO_MIN_STEPS, Terminal(True))
    assert not wants_progress(None, AUTO_MIN_STEPS - 1, Terminal(True))
    assert not wants_progress(None, AUTO_MIN_STEPS, Terminal(False))
    assert wants_progress(True, 0) and not wants_progress(False, 10**15)
    with pytest.raises(InputError, match="progress must be"):
        fastperf.bootstrap((np.ones(5),), statistic="mean", progress="yes")
    with pytest.raises(InputError, match="progress must be"):
        fastperf.permutation_test((np.ones(5), np.ones(5)), progress=1)


def test_distribution_rows_of_unresampled_samples_are_nan():
    # a sample with NaN input (or an empty one) is not resampled: its row of the returned
    # distribution was uninitialised memory (numbers like 1e+83), now NaN
    x = np.random.default_rng(14).lognormal(size=(3, 10))
    x[1, 4] = np.nan
    res = fastperf.bootstrap((x,), statistic="median", n_resamples=40, seed=2,
                             return_distribution=True)
    assert list(res.status) == ["ok", "NaN in input", "ok"]
    assert np.isnan(res.bootstrap_distribution[1]).all()
    assert np.isfinite(res.bootstrap_distribution[[0, 2]]).all()
