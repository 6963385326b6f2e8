"""fastperf.bootstrap: R and scipy reference values, scipy agreement, determinism, coverage."""
import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps
from scipy.special import ndtr, ndtri

from fastperf.errors import InputError
from fastperf.stats.bootstrap import bootstrap
from naive import pairwise_differences

# R's boot values quoted in scipy's test_bootstrap_against_R
X_R = np.array([10, 12, 12.5, 12.5, 13.9, 15, 21, 22, 23, 34, 50, 81, 89, 121, 134, 213])


@pytest.mark.parametrize("method, low, high", [
    ("basic", 23.77, 79.12), ("percentile", 28.86, 84.21), ("bca", 32.31, 91.43)])
def test_against_r_boot(method, low, high):
    res = bootstrap((X_R,), statistic="mean", method=method, n_resamples=10**6, seed=12345)
    assert res.status == "ok"
    np.testing.assert_allclose(res.confidence_interval, (low, high), rtol=0.005)


def test_bca_acceleration_reference():
    # scipy's test_BCa_acceleration_against_reference: statistic mean(z) - mean(y), data (z, y)
    y = np.array([10., 27., 31., 40., 46., 50., 52., 104., 146.])
    z = np.array([16., 23., 38., 94., 99., 141., 197.])
    res = bootstrap((z, y), statistic="mean_diff", method="bca", n_resamples=100, seed=0)
    np.testing.assert_allclose(res.acceleration, 0.011008228344026734, rtol=1e-12)


def test_one_sample_acceleration_formula():
    x = np.random.default_rng(5).lognormal(size=12)
    theta = np.array([np.quantile(np.delete(x, i), 0.3) for i in range(x.size)])
    d = theta.mean() - theta
    expected = (d ** 3).sum() / (6 * ((d ** 2).sum()) ** 1.5)
    res = bootstrap((x,), statistic="quantile", q=0.3, method="bca", n_resamples=10, seed=0)
    assert abs(expected) > 1e-3
    np.testing.assert_allclose(res.acceleration, expected, rtol=1e-12)


def _hl(x, y, axis=-1):
    return np.median(x[..., :, None] - y[..., None, :], axis=(-2, -1))


SCIPY_STATS = {
    "mean": lambda a, axis: np.mean(a, axis=axis),
    "median": lambda a, axis: np.median(a, axis=axis),
    "quantile": lambda a, axis: np.quantile(a, 0.3, axis=axis),
    "mean_ratio": lambda a, b, axis: np.mean(a, axis=axis) / np.mean(b, axis=axis),
    "median_ratio": lambda a, b, axis: np.median(a, axis=axis) / np.median(b, axis=axis),
    "mean_diff": lambda a, b, axis: np.mean(a, axis=axis) - np.mean(b, axis=axis),
    "median_diff": lambda a, b, axis: np.median(a, axis=axis) - np.median(b, axis=axis),
    "hodges_lehmann": _hl,
}


@pytest.mark.parametrize("statistic, method, tol", [
    ("mean", "percentile", 0.15), ("mean", "basic", 0.15), ("mean", "bca", 0.2),
    ("mean_ratio", "bca", 0.2), ("mean_diff", "percentile", 0.15),
    ("hodges_lehmann", "bca", 0.3), ("median_ratio", "percentile", 0.4),
    ("median", "bca", 0.5), ("quantile", "percentile", 0.5), ("median_diff", "basic", 0.5),
])
def test_agrees_with_scipy(statistic, method, tol):
    rng = np.random.default_rng(1)
    two = statistic in ("mean_ratio", "median_ratio", "mean_diff", "median_diff", "hodges_lehmann")
    x = rng.lognormal(0, 0.3, (4, 25))
    data = (x, rng.lognormal(0.1, 0.3, (4, 21))) if two else (x,)
    B = 20_000
    ours = bootstrap(data, statistic=statistic, method=method, n_resamples=B, seed=3,
                     q=0.3 if statistic == "quantile" else None)
    assert (ours.status == "ok").all()
    ours_ci = np.array(ours.confidence_interval)
    for i in range(x.shape[0]):
        ref = sps.bootstrap(tuple(d[i] for d in data), SCIPY_STATS[statistic], vectorized=True,
                            method=method, n_resamples=B, rng=i)
        se = ref.standard_error
        np.testing.assert_allclose(ours.estimate[i], SCIPY_STATS[statistic](*(d[i] for d in data), axis=-1), rtol=1e-12)
        assert abs(ours.standard_error[i] - se) < 0.05 * se
        assert np.all(np.abs(ours_ci[:, i] - np.array(ref.confidence_interval)) < tol * se), (
            ours_ci[:, i], ref.confidence_interval, se)


def test_distribution_consistency():
    rng = np.random.default_rng(2)
    x, y = rng.lognormal(size=(3, 17)), rng.lognormal(size=(3, 13))
    for method in ("percentile", "basic", "bca"):
        res = bootstrap((x, y), statistic="median_ratio", method=method, n_resamples=999, seed=9,
                        return_distribution=True)
        dist = res.bootstrap_distribution
        assert dist.shape == (3, 999)
        np.testing.assert_allclose(res.standard_error, dist.std(axis=1, ddof=1), rtol=1e-12)
        if method == "bca":
            score = ((dist < res.estimate[:, None]).sum(1) + (dist <= res.estimate[:, None]).sum(1)) / (2 * 999)
            z0, a, za = ndtri(score), res.acceleration, ndtri(0.025)
            p = [ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (za, -za)]
        else:
            p = [np.full(3, 0.025), np.full(3, 0.975)]
        q = np.array([[np.quantile(dist[i], p[k][i]) for i in range(3)] for k in range(2)])
        if method == "basic":
            q = 2 * res.estimate - q[::-1]
        np.testing.assert_allclose(np.array(res.confidence_interval), q, rtol=1e-12)


def test_statistics_on_the_data_equal_numpy():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(5, 20)), rng.normal(size=(5, 14))
    cases = {
        "mean": ((x,), x.mean(1)), "median": ((x,), np.median(x, 1)),
        "mean_ratio": ((x + 5, y + 5), (x + 5).mean(1) / (y + 5).mean(1)),
        "median_diff": ((x, y), np.median(x, 1) - np.median(y, 1)),
        "mean_diff": ((x, y), x.mean(1) - y.mean(1)),
    }
    for name, (data, expected) in cases.items():
        res = bootstrap(data, statistic=name, method="percentile", n_resamples=5, seed=0)
        np.testing.assert_allclose(res.estimate, expected, rtol=1e-13, atol=1e-15)
    for q in (0.1, 0.25, 0.5, 0.77, 0.9):
        res = bootstrap((x,), statistic="quantile", q=q, n_resamples=5, seed=0)
        np.testing.assert_array_equal(res.estimate, np.quantile(x, q, axis=1))
    res = bootstrap((x, y), statistic="hodges_lehmann", n_resamples=5, seed=0)
    brute = [np.median(pairwise_differences(x[i], y[i])) for i in range(5)]
    np.testing.assert_array_equal(res.estimate, brute)


def test_same_seed_same_result_and_seed_reported():
    rng = np.random.default_rng(4)
    x, y = rng.lognormal(size=(6, 15)), rng.lognormal(size=(6, 15))
    a = bootstrap((x, y), n_resamples=500, seed=11, return_distribution=True)
    b = bootstrap((x, y), n_resamples=500, seed=11, return_distribution=True)
    c = bootstrap((x, y), n_resamples=500, seed=12, return_distribution=True)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    np.testing.assert_array_equal(a.confidence_interval, b.confidence_interval)
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    d = bootstrap((x, y), n_resamples=500, seed=None)
    e = bootstrap((x, y), n_resamples=500, seed=d.seed)
    np.testing.assert_array_equal(d.confidence_interval, e.confidence_interval)


@pytest.mark.parametrize("statistic", ["mean", "median", "median_ratio", "hodges_lehmann"])
def test_parallel_build_matches_serial(statistic, request):
    rng = np.random.default_rng(6)
    data = (rng.lognormal(size=(9, 12)),)
    if statistic in ("median_ratio", "hodges_lehmann"):
        data += (rng.lognormal(size=(9, 10)),)
    kw = dict(statistic=statistic, method="bca", n_resamples=300, seed=5, return_distribution=True)
    serial = bootstrap(data, **kw)
    request.getfixturevalue("parallel_always")
    parallel = bootstrap(data, **kw)
    np.testing.assert_array_equal(serial.bootstrap_distribution, parallel.bootstrap_distribution)
    np.testing.assert_array_equal(serial.confidence_interval, parallel.confidence_interval)


def test_sample_result_depends_only_on_its_index():
    # a sample's stream is keyed by (seed, index, resample): the other samples do not matter
    rng = np.random.default_rng(7)
    x = rng.lognormal(size=(5, 14))
    full = bootstrap((x,), statistic="median", n_resamples=200, seed=1, return_distribution=True)
    other = x.copy()
    other[1:] = rng.lognormal(size=(4, 14))
    part = bootstrap((other,), statistic="median", n_resamples=200, seed=1, return_distribution=True)
    np.testing.assert_array_equal(full.bootstrap_distribution[0], part.bootstrap_distribution[0])


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_coverage(method):
    x = np.random.default_rng(8).normal(size=(1000, 30))
    res = bootstrap((x,), statistic="mean", method=method, n_resamples=2000, seed=2)
    covered = (res.confidence_interval.low < 0) & (0 < res.confidence_interval.high)
    assert 0.92 <= covered.mean() <= 0.97


def test_degenerate_and_bad_samples():
    res = bootstrap((np.array([[3.0] * 8, [1.0, np.nan, 2.0, 3, 4, 5, 6, 7]]),),
                    statistic="median", n_resamples=50, seed=0)
    assert list(res.status) == ["degenerate bootstrap distribution", "NaN in input"]
    assert res.confidence_interval.low[0] == res.confidence_interval.high[0] == 3.0
    assert res.standard_error[0] == 0
    assert np.isnan(res.confidence_interval.low[1]) and np.isnan(res.estimate[1])
    one = bootstrap((np.array([2.0]),), statistic="mean", method="bca", n_resamples=50, seed=0)
    assert one.status.startswith("fewer than 2") and np.isnan(one.confidence_interval.low)
    assert one.estimate == 2.0
    empty = bootstrap((np.empty((2, 0)),), statistic="mean", n_resamples=50, seed=0)
    assert list(empty.status) == ["empty sample"] * 2
    zero = bootstrap((np.array([1.0, 2, 3]), np.array([0.0, 0, 0])), statistic="mean_ratio",
                     n_resamples=50, seed=0)
    assert zero.status.startswith("non-finite") and np.isnan(zero.confidence_interval.high)


@pytest.mark.parametrize("kwargs", [
    dict(n_resamples=0), dict(confidence=1.0), dict(confidence=0.0), dict(statistic="max"),
    dict(method="studentized"), dict(statistic="quantile"), dict(statistic="quantile", q=1.5),
    dict(seed=-1), dict(statistic="median_ratio"),
])
def test_bad_input(kwargs):
    kwargs = {"statistic": "mean", **kwargs}
    with pytest.raises(InputError):
        bootstrap((np.arange(10.0),), **kwargs)


def test_bad_data_shape():
    with pytest.raises(InputError):
        bootstrap(np.arange(10.0), statistic="mean")
    with pytest.raises(InputError):
        bootstrap((np.arange(5.0), np.arange(5.0)), statistic="mean")


def _table():
    rng = np.random.default_rng(10)
    rows = {"benchmark": [], "variant": [], "value": []}
    for name, n in (("a", 11), ("b", 9), ("c", 7)):
        for variant, shift in (("base", 1.0), ("new", 0.8)):
            if name == "c" and variant == "new":
                continue
            values = (shift * rng.lognormal(size=n)).tolist()
            if name == "a" and variant == "base":
                values[0] = None
            rows["benchmark"] += [name] * n
            rows["variant"] += [variant] * n
            rows["value"] += values
    return pa.table(rows)


def test_table_form_per_benchmark():
    table = _table()
    res = bootstrap(table, statistic="median_ratio", baseline="base", candidate="new",
                    n_resamples=400, seed=3)
    out = res.benchmarks
    assert out.column_names == ["benchmark", "n_baseline", "n_candidate", "n_dropped_baseline",
                                "n_dropped_candidate", "estimate", "ci_low", "ci_high",
                                "standard_error", "status"]
    assert out.column("benchmark").to_pylist() == ["a", "b", "c"]
    assert out.column("n_baseline").to_pylist() == [10, 9, 7]
    assert out.column("status").to_pylist() == ["ok", "ok", "no candidate values"]
    assert res.summary["seed"] == 3 and res.warnings
    # the same numbers as the array form on benchmark a (sample index 0)
    df = table.to_pandas()
    x = df[(df.benchmark == "a") & (df.variant == "base")].value.dropna().to_numpy()
    y = df[(df.benchmark == "a") & (df.variant == "new")].value.to_numpy()
    ref = bootstrap((x, y), statistic="median_ratio", n_resamples=400, seed=3)
    assert out.column("estimate")[0].as_py() == ref.estimate
    assert out.column("ci_low")[0].as_py() == ref.confidence_interval.low
    assert out.column("ci_high")[0].as_py() == ref.confidence_interval.high


def test_table_form_one_sample_groups():
    res = bootstrap(_table(), statistic="mean", method="percentile", n_resamples=200, seed=1)
    out = res.benchmarks
    assert out.num_rows == 5
    assert out.column_names[:4] == ["benchmark", "variant", "n", "n_dropped"]
    assert out.column("n").to_pylist() == [10, 11, 9, 9, 7]
    with pytest.raises(InputError):
        bootstrap(_table(), statistic="median_ratio", n_resamples=10)
