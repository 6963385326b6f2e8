"""fastperf.bootstrap: R and scipy reference values, scipy agreement, determinism, coverage; the
studentized interval against a naive implementation; the reliability notes."""
import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps
from scipy.special import ndtr, ndtri

import fastperf
import fastperf.stats.bootstrap
from fastperf.data.identity import group_identities
from fastperf.errors import InputError
from fastperf.kernels.random import fill_indices, resample_key, sample_key
from fastperf.stats.bootstrap import COVERAGE_SIZES, DESCRIBE_COVERAGE, RELIABILITY, bootstrap
from naive import pairwise_differences, studentized_interval

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
    dict(method="studentized", statistic="median"), dict(statistic="quantile"),
    dict(statistic="quantile", q=1.5),
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


def keyed_like_table(monkeypatch, names):
    """Make the array form key sample g by the identity of benchmark ``names[g]`` (as the
    table form does) instead of its position g."""
    keys = group_identities(pa.table({"benchmark": list(names)}))
    monkeypatch.setattr(fastperf.stats.bootstrap, "position_identities", lambda count: keys)


def test_table_form_per_benchmark(monkeypatch):
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
    # the same numbers as the array form on benchmark a's values in ascending order, keyed by
    # a's identity (the table form keys a group's streams by its key values, issue 41)
    df = table.to_pandas()
    x = np.sort(df[(df.benchmark == "a") & (df.variant == "base")].value.dropna().to_numpy())
    y = np.sort(df[(df.benchmark == "a") & (df.variant == "new")].value.to_numpy())
    keyed_like_table(monkeypatch, ["a"])
    ref = bootstrap((x, y), statistic="median_ratio", n_resamples=400, seed=3)
    assert out.column("estimate")[0].as_py() == ref.estimate
    assert out.column("ci_low")[0].as_py() == ref.confidence_interval.low
    assert out.column("ci_high")[0].as_py() == ref.confidence_interval.high


def test_table_form_one_sample_groups():
    res = bootstrap(_table(), statistic="mean", method="percentile", n_resamples=200, seed=1)
    out = res.groups  # one-sample statistics: a row per (benchmark, variant) group
    assert out.num_rows == 5
    assert out.column_names[:4] == ["benchmark", "variant", "n", "n_dropped"]
    assert out.column("n").to_pylist() == [10, 11, 9, 9, 7]
    with pytest.raises(InputError):
        bootstrap(_table(), statistic="median_ratio", n_resamples=10)


# ---------------------------------------------------------------- studentized (bootstrap-t)

def kernel_resamples(seed, index, n, m, n_resamples):
    """The index arrays the kernel draws for sample `index`: stream (seed, index, b), x's n
    indices from counter 0, then y's from the next unused counter. (Numba returns the uint64
    keys as Python ints: they are passed back as numpy.uint64, as the kernel holds them.)"""
    group = np.uint64(sample_key(np.uint64(seed), np.int64(index)))
    out = []
    for b in range(n_resamples):
        key = np.uint64(resample_key(group, np.int64(b)))
        ix = np.empty(n, dtype=np.int64)
        following = fill_indices(key, 0, n, ix)
        iy = None
        if m:
            iy = np.empty(m, dtype=np.int64)
            fill_indices(key, following, m, iy)
        out.append((ix, iy))
    return out


def _check_against_naive(data, statistic, confidence, n_resamples=499, seed=13):
    res = bootstrap(data, statistic=statistic, method="studentized", n_resamples=n_resamples,
                    seed=seed, confidence=confidence, return_distribution=True)
    x = np.atleast_2d(data[0])
    y = np.atleast_2d(data[1]) if len(data) == 2 else None
    low, high = (np.atleast_1d(v) for v in res.confidence_interval)
    dist = res.bootstrap_distribution.reshape(x.shape[0], n_resamples)
    all_t = []
    for i in range(x.shape[0]):
        resamples = kernel_resamples(seed, i, x.shape[1], 0 if y is None else y.shape[1],
                                     n_resamples)
        # the same resamples: theta* of the kernel from the naive indices
        theta = [x[i][ix].mean() if y is None else
                 (x[i][ix].mean() / y[i][iy].mean() if statistic == "mean_ratio"
                  else x[i][ix].mean() - y[i][iy].mean()) for ix, iy in resamples]
        np.testing.assert_allclose(dist[i], theta, rtol=1e-12, atol=1e-15)
        ref_low, ref_high, t = studentized_interval(x[i], None if y is None else y[i],
                                                    statistic, resamples, confidence)
        np.testing.assert_allclose([low[i], high[i]], [ref_low, ref_high], rtol=1e-12)
        np.testing.assert_allclose(np.atleast_1d(res.standard_error)[i],
                                   np.std(theta, ddof=1), rtol=1e-12)
        all_t.append(t)
    assert np.all(np.atleast_1d(res.status) == "ok")
    return res, all_t


@pytest.mark.parametrize("statistic", ["mean", "mean_diff", "mean_ratio"])
@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_studentized_matches_naive(statistic, confidence):
    rng = np.random.default_rng(21)
    x = rng.lognormal(0, 0.5, (3, 9))
    data = (x,) if statistic == "mean" else (x, rng.lognormal(0.2, 0.5, (3, 7)))
    res, t = _check_against_naive(data, statistic, confidence)
    assert all(np.isfinite(ti).all() for ti in t)  # no resample of 9 or 7 drawn all-equal here
    assert np.all(res.confidence_interval.low < res.estimate)
    assert np.all(res.estimate < res.confidence_interval.high)


@pytest.mark.parametrize("data, statistic, confidence, bounded", [
    # n = 3: 3 of the 27 resamples are constant (se* = 0): 1/27 gives t* = +inf (x* = 4 > mean),
    # 2/27 give -inf; at 90 % the 5 % quantile is -inf (high = +inf), the 95 % one finite
    ((np.array([1.0, 2.0, 4.0]),), "mean", 0.9, (True, False)),
    # a ratio: se* = 0 when both resamples are constant (1/9 x 0.32 of them here)
    ((np.array([1.0, 2.0, 4.0]), np.array([3.0, 3.0, 3.0, 5.0])), "mean_ratio", 0.8, None),
    # n = 2: resamples {0, 0}, {1, 1} (t* = -inf, +inf) and {0, 1}, {1, 0} (t* = 0: theta* equals
    # theta_hat with se* > 0), a quarter each: both ends unbounded
    ((np.array([0.0, 1.0]),), "mean", 0.95, (False, False)),
    # equal values on both sides of a difference: se* = 0 only when both resamples are constant
    ((np.array([0.0, 1.0]), np.array([2.0, 2.0, 2.0])), "mean_diff", 0.95, (False, False)),
])
def test_studentized_zero_standard_error_rule(data, statistic, confidence, bounded):
    res, (t,) = _check_against_naive(data, statistic, confidence, n_resamples=999)
    assert np.isinf(t).any() and not np.isnan(t).any()
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    assert not (np.isnan(low) or np.isnan(high))
    if bounded is not None:
        assert np.isfinite(low) == bounded[0] and np.isfinite(high) == bounded[1]
    if statistic == "mean_ratio":
        assert low >= 0.0  # exp(-inf) = 0 at worst: the log scale keeps the ratio positive


def test_studentized_quantile_between_infinities_is_a_status_not_a_nan_ok():
    # B = 2 resamples of (0, 1) drawn as {0, 0} and {1, 1}: t* = (-inf, +inf), and the 2.5 %
    # quantile interpolates between them: no interval, and the status says why
    x = np.array([0.0, 1.0])
    found = 0
    for seed in range(200):
        pair = [sorted(x[ix]) for ix, _ in kernel_resamples(seed, 0, 2, 0, 2)]
        if sorted(map(tuple, pair)) != [(0.0, 0.0), (1.0, 1.0)]:
            continue
        res = bootstrap((x,), statistic="mean", method="studentized", n_resamples=2, seed=seed)
        assert res.status.startswith("studentized interval undefined")
        assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)
        found += 1
    assert found > 0


def test_studentized_statuses():
    one = bootstrap((np.array([2.0]),), statistic="mean", method="studentized", n_resamples=50,
                    seed=0)
    assert one.status.startswith("fewer than 2") and np.isnan(one.confidence_interval.low)
    assert one.estimate == 2.0
    short = bootstrap((np.arange(1.0, 6.0), np.array([3.0])), statistic="mean_diff",
                      method="studentized", n_resamples=50, seed=0)
    assert short.status.startswith("fewer than 2")
    negative = bootstrap((np.array([-1.0, -2.0, -3.0]), np.array([1.0, 2.0])),
                         statistic="mean_ratio", method="studentized", n_resamples=50, seed=0)
    assert negative.status.startswith("non-positive mean")
    assert np.isnan(negative.confidence_interval.low)
    # a resample mean <= 0 (values of both signs): the log scale is undefined there too
    mixed = bootstrap((np.array([-5.0, 1.0, 6.0]), np.array([1.0, 2.0])), statistic="mean_ratio",
                      method="studentized", n_resamples=200, seed=0)
    assert mixed.status.startswith("non-positive mean")
    constant = bootstrap((np.full(6, 3.0),), statistic="mean", method="studentized",
                         n_resamples=50, seed=0)
    assert constant.status == "degenerate bootstrap distribution"
    assert constant.confidence_interval.low == constant.confidence_interval.high == 3.0


@pytest.mark.parametrize("statistic", ["median", "quantile", "median_ratio", "median_diff",
                                       "hodges_lehmann"])
def test_studentized_rejects_other_statistics(statistic):
    data = (np.arange(1.0, 9.0),) if statistic in ("median", "quantile") else \
        (np.arange(1.0, 9.0), np.arange(2.0, 9.0))
    with pytest.raises(InputError) as err:
        bootstrap(data, statistic=statistic, method="studentized", q=0.3, n_resamples=10)
    message = str(err.value)
    assert repr(statistic) in message and "studentized" in message
    assert all(name in message for name in ("'mean'", "'mean_diff'", "'mean_ratio'"))


def test_studentized_covers_better_than_percentile_on_small_lognormal_samples():
    # log-normal(0, 1) samples of 10: true mean e^(1/2); the percentile interval of the mean
    # under-covers badly (about 85 %), the studentized one much less
    x = np.random.default_rng(31).lognormal(0.0, 1.0, (3000, 10))
    truth = np.exp(0.5)
    covered = {}
    for method in ("percentile", "studentized"):
        res = bootstrap((x,), statistic="mean", method=method, n_resamples=499, seed=4)
        ci = res.confidence_interval
        covered[method] = np.mean((ci.low <= truth) & (truth <= ci.high))
    assert covered["percentile"] < 0.89
    assert covered["studentized"] > covered["percentile"] + 0.04


def test_studentized_parallel_build_matches_serial(request):
    rng = np.random.default_rng(6)
    data = (rng.lognormal(size=(9, 6)), rng.lognormal(size=(9, 5)))
    kw = dict(statistic="mean_ratio", method="studentized", n_resamples=300, seed=5)
    serial = bootstrap(data, **kw)
    request.getfixturevalue("parallel_always")
    parallel = bootstrap(data, **kw)
    np.testing.assert_array_equal(serial.confidence_interval, parallel.confidence_interval)


# ---------------------------------------------------------------------- reliability notes

@pytest.mark.parametrize("key", sorted(RELIABILITY))
def test_reliability_note_below_the_threshold_only(key):
    statistic, method = key
    threshold, coverage = RELIABILITY[key]
    rng = np.random.default_rng(8)
    two = statistic not in ("mean", "median")

    def note(n):
        data = (rng.lognormal(size=(2, n)),) + ((rng.lognormal(size=(2, n + 3)),) if two else ())
        return bootstrap(data, statistic=statistic, method=method, n_resamples=20,
                         seed=0).reliability

    if threshold is not None:
        assert note(threshold) == ""
        assert note(threshold + 7) == ""
    below = (threshold - 1) if threshold not in (None, COVERAGE_SIZES[0]) else None
    if threshold is None:
        below = 12
    if below is not None:
        text = note(below)
        size = max([s for s in COVERAGE_SIZES if s <= below] or [COVERAGE_SIZES[0]])
        expected = f"{coverage[COVERAGE_SIZES.index(size)]:.1%}"
        assert f"method={method!r}" in text and f"n = {below}" in text and expected in text
        assert (f"n = {threshold}" in text) if threshold else "largest size studied" in text


def test_reliability_note_names_the_better_tool():
    # at n = 10 (index 1 of the sizes studied) the note names the interval with the highest
    # measured coverage there, from the table of measurements
    x = np.random.default_rng(9).lognormal(size=10)
    for statistic, method in (("mean", "percentile"), ("median", "basic")):
        entry = RELIABILITY[statistic, method]
        if entry.threshold is not None and entry.threshold <= 10:
            continue
        note = bootstrap((x,), statistic=statistic, method=method, n_resamples=20,
                         seed=0).reliability
        candidates = {f"method={m!r}": r.coverage[1] for (st, m), r in RELIABILITY.items()
                      if st == statistic and m != method}
        candidates["ci_" + statistic + "_low"] = DESCRIBE_COVERAGE[statistic][1]
        best = max(candidates, key=candidates.get)
        if candidates[best] > entry.coverage[1]:
            assert best in note and f"{candidates[best]:.1%}" in note
    # describe's median interval does not exist at n = 5: never suggested there
    five = bootstrap((x[:5],), statistic="median", method="basic", n_resamples=20,
                     seed=0).reliability
    assert "ci_median_low" not in five
    # statistics the study did not cover get no note
    assert bootstrap((x,), statistic="quantile", q=0.3, method="percentile",
                     n_resamples=20, seed=0).reliability == ""


def test_reliability_in_the_table_form():
    table, _ = fastperf.simulate(benchmarks=4, runs=8, seed=3, unit=None)
    res = bootstrap(table, statistic="mean", method="percentile", n_resamples=50, seed=1)
    note = res.summary["reliability"]
    assert "n = 8" in note and res.warnings[0] == note
    ratio = bootstrap(table, statistic="mean_ratio", method="studentized", baseline="baseline",
                      candidate="candidate", n_resamples=50, seed=1)
    threshold = RELIABILITY["mean_ratio", "studentized"].threshold
    if threshold is None or threshold > 8:
        assert "method='studentized'" in ratio.summary["reliability"]
    else:
        assert ratio.summary["reliability"] == "" and not any("coverage" in w for w in ratio.warnings)
    big, _ = fastperf.simulate(benchmarks=2, runs=200, seed=3, unit=None)
    quiet = bootstrap(big, statistic="median_ratio", method="bca", baseline="baseline",
                      candidate="candidate", n_resamples=50, seed=1)
    assert quiet.summary["reliability"] == "" and not any("coverage" in w for w in quiet.warnings)


def test_studentized_table_form_equals_array_form(monkeypatch):
    table, _ = fastperf.simulate(benchmarks=3, runs=12, seed=5, unit=None)
    res = bootstrap(table, statistic="mean_ratio", method="studentized", baseline="baseline",
                    candidate="candidate", n_resamples=300, seed=2)
    # the array form on each group's values in ascending order, keyed by its benchmark's
    # identity, as the table form takes them (issue 41)
    values = np.sort(table.column("value").to_numpy().reshape(2, 3, 12), axis=-1)
    keyed_like_table(monkeypatch, res.benchmarks.column("benchmark").to_pylist())
    ref = bootstrap((values[0], values[1]), statistic="mean_ratio", method="studentized",
                    n_resamples=300, seed=2)
    out = res.benchmarks
    assert out.column("status").to_pylist() == ["ok"] * 3
    np.testing.assert_array_equal(out.column("ci_low").to_numpy(), ref.confidence_interval.low)
    np.testing.assert_array_equal(out.column("ci_high").to_numpy(), ref.confidence_interval.high)
    assert res.summary["method"] == "studentized"
