"""permutation_test: brute-force enumeration, scipy's permutation_test, determinism, batching,
the table form and bad input."""
import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps

from fastperf import InputError
from fastperf.stats.permutation import permutation_test
from naive import (
    p_from_counts,
    permutation_counts_fractions,
    permutation_p_enumerated,
    sign_flip_counts_fractions,
    sign_flip_p_enumerated,
    two_sample_statistic,
)

ALTERNATIVES = ["two-sided", "less", "greater"]
STATISTICS = ["mean_diff", "median_diff"]
def scipy_statistic(statistic, paired):
    f = np.mean if statistic == "mean_diff" else np.median
    if paired:
        return lambda a, b, axis: f(a - b, axis=axis)
    return lambda a, b, axis: f(a, axis=axis) - f(b, axis=axis)


# ---------------------------------------------------------------- exact: brute force, with ties

@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n1, n2", [(1, 1), (1, 4), (3, 3), (4, 5), (6, 2)])
def test_exact_independent_matches_brute_force(statistic, alternative, n1, n2):
    rng = np.random.default_rng(10 * n1 + n2)
    x = rng.integers(0, 4, (6, n1)).astype(float)  # small integers: many ties
    y = rng.integers(1, 5, (6, n2)).astype(float)
    res = permutation_test((x, y), statistic=statistic, alternative=alternative, seed=0)
    assert res.exact.all()
    ref = [permutation_p_enumerated(a, b, statistic, alternative) for a, b in zip(x, y)]
    np.testing.assert_allclose(res.pvalue, ref, rtol=1e-12)
    np.testing.assert_array_equal(res.n_resamples, math.comb(n1 + n2, n1))
    np.testing.assert_allclose(res.statistic, [two_sample_statistic(statistic, a, b) for a, b in zip(x, y)],
                               rtol=1e-12)


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_exact_paired_matches_brute_force(statistic, alternative, n):
    rng = np.random.default_rng(n)
    x = rng.integers(0, 4, (6, n)).astype(float)
    y = rng.integers(0, 3, (6, n)).astype(float)  # ties and zero differences
    res = permutation_test((x, y), statistic=statistic, alternative=alternative, paired=True,
                           seed=0)
    assert res.exact.all()
    ref = [sign_flip_p_enumerated(a, b, statistic, alternative) for a, b in zip(x, y)]
    np.testing.assert_allclose(res.pvalue, ref, rtol=1e-12)
    np.testing.assert_array_equal(res.n_resamples, 2**n)


def test_exact_threshold_is_scipys():
    x, y = np.arange(5.0), np.arange(4.0) + 0.5
    assert permutation_test((x, y), n_resamples=math.comb(9, 5)).exact
    assert not permutation_test((x, y), n_resamples=math.comb(9, 5) - 1).exact
    assert permutation_test((x[:5], x[:5] + 1), n_resamples=32, paired=True).exact
    assert not permutation_test((x[:5], x[:5] + 1), n_resamples=31, paired=True).exact


# ---------------------------------------------------------------- exact on tied decimal data
# The oracle: every rearrangement in exact rational arithmetic on the decimal values
# (Fraction("1.3"), not the float nearest 1.3), ties compared exactly. The tie tolerance once
# was scipy's, 100 eps |observed|: it scales with the statistic where the rounding scales with
# the values, so ties of statistics near 0 were missed, p depending on the input order.

def _decimals(rng, size, quantum, offset):
    """Decimal strings offset + k quantum, k in 0..4 (many ties), e.g. "1000.03"."""
    digits = max(0, -int(math.floor(math.log10(quantum))))
    return [f"{offset + k * quantum:.{digits}f}" for k in rng.integers(0, 5, size)]


def _floats(strings):
    return np.array([float(v) for v in strings])


def _exact_p(x, y, statistic, alternative, paired):
    counts = (sign_flip_counts_fractions if paired else permutation_counts_fractions)(
        [Fraction(v) for v in x], [Fraction(v) for v in y], statistic)
    return float(p_from_counts(*counts, alternative))


def test_tied_decimal_reproducers():
    """The reported cases: the exact p-values 9/14 (a tester's 0.444 with x, y ~1, 0.643 times
    10) and 3/4 (paired; 0.5 before), whatever the scale or the order of the values."""
    x, y = ["1.3", "1.4", "1.3", "1.3", "1.3"], ["1.3", "1.4", "1.2", "1.4"]
    assert _exact_p(x, y, "mean_diff", "less", False) == 9 / 14
    for scale in (1.0, 10.0, 1000.0):
        r = permutation_test((_floats(x) * scale, _floats(y) * scale), alternative="less",
                             seed=1)
        assert bool(r.exact) and str(r.status) == "ok"
        assert r.pvalue == pytest.approx(9 / 14, rel=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(20):
        r = permutation_test((rng.permutation(_floats(x)), rng.permutation(_floats(y))),
                             alternative="less", seed=1)
        assert r.pvalue == pytest.approx(9 / 14, rel=1e-12)
    table = pa.table({"benchmark": ["b"] * 9, "variant": ["x"] * 5 + ["y"] * 4,
                      "value": _floats(x + y)})
    t = permutation_test(table, baseline="x", candidate="y", alternative="less", seed=1)
    assert t.benchmarks.column("pvalue")[0].as_py() == pytest.approx(9 / 14, rel=1e-12)
    px, py = ["1.2", "1.2"], ["1.3", "1.1"]
    assert _exact_p(px, py, "mean_diff", "less", True) == 3 / 4
    r = permutation_test((_floats(px), _floats(py)), paired=True, alternative="less")
    assert bool(r.exact) and r.pvalue == pytest.approx(3 / 4, rel=1e-12)


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("quantum, offset", [(0.1, 1), (0.01, 1), (0.1, 1000), (0.01, 1000),
                                             (1e-9, 1000)])
def test_exact_independent_tied_decimals_match_rational_enumeration(statistic, alternative,
                                                                    quantum, offset):
    """Random data quantised to `quantum` near `offset`: fastperf's exact p is the rational
    enumeration's, for every test (ties equal in exact arithmetic are ties; values 1e-9 apart
    at 1000 are not)."""
    rng = np.random.default_rng(int(quantum * 1e9) % 1000 + offset)
    sizes = [(3, 3), (4, 5), (5, 4), (2, 7), (6, 3)] * 4
    for n1, n2 in sizes:
        x, y = _decimals(rng, n1, quantum, offset), _decimals(rng, n2, quantum, offset)
        r = permutation_test((_floats(x), _floats(y)), statistic=statistic,
                             alternative=alternative, seed=1)
        assert bool(r.exact)
        assert r.pvalue == pytest.approx(_exact_p(x, y, statistic, alternative, False),
                                         rel=1e-12), (x, y)


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("quantum, offset", [(0.1, 1), (0.01, 1), (0.1, 1000), (0.01, 1000),
                                             (1e-9, 1000)])
def test_exact_paired_tied_decimals_match_rational_enumeration(statistic, alternative,
                                                              quantum, offset):
    """Paired: the differences of decimals near `offset` are tiny beside the values, whose
    rounding they carry; the sign-flip p is the rational enumeration's."""
    rng = np.random.default_rng(int(quantum * 1e9) % 1000 + offset + 1)
    for n in [1, 2, 3, 5, 7, 8] * 3:
        x, y = _decimals(rng, n, quantum, offset), _decimals(rng, n, quantum, offset)
        r = permutation_test((_floats(x), _floats(y)), statistic=statistic,
                             alternative=alternative, paired=True, seed=1)
        assert bool(r.exact)
        assert r.pvalue == pytest.approx(_exact_p(x, y, statistic, alternative, True),
                                         rel=1e-12), (x, y)


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("offset", [1, 1000])
def test_exact_tied_decimals_do_not_depend_on_input_order(paired, statistic, offset):
    """The same values in any order (pairs kept together) give the same exact p-values,
    bit for bit, the table form's included (it sorts the values first)."""
    rng = np.random.default_rng(offset)
    n1, n2 = (6, 6) if paired else (5, 6)
    x = np.array([_floats(_decimals(rng, n1, 0.1, offset)) for _ in range(12)])
    y = np.array([_floats(_decimals(rng, n2, 0.1, offset)) for _ in range(12)])
    for alternative in ALTERNATIVES:
        first = permutation_test((x, y), statistic=statistic, alternative=alternative,
                                 paired=paired, seed=1)
        assert first.exact.all()
        for _ in range(5):
            if paired:
                order = rng.permutation(n1)
                xs, ys = x[:, order], y[:, order]
            else:
                xs, ys = rng.permuted(x, axis=1), rng.permuted(y, axis=1)
            again = permutation_test((xs, ys), statistic=statistic, alternative=alternative,
                                     paired=paired, seed=1)
            np.testing.assert_array_equal(again.pvalue, first.pvalue)
        rows = [(f"b{t:02d}", variant, run, float(v)) for t in range(12)
                for variant, sample in (("x", x[t]), ("y", y[t])) for run, v in enumerate(sample)]
        table = pa.table({k: [r[i] for r in rows]
                          for i, k in enumerate(["benchmark", "variant", "run", "value"])})
        t = permutation_test(table, baseline="x", candidate="y", statistic=statistic,
                             alternative=alternative, paired=paired, seed=1)
        b = _by_name(t.benchmarks)
        np.testing.assert_array_equal(b.column("pvalue").to_numpy(zero_copy_only=False),
                                      first.pvalue)


# ---------------------------------------------------------------- against scipy

@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n1, n2", [(2, 3), (5, 6), (7, 3)])
def test_exact_independent_matches_scipy(statistic, alternative, n1, n2):
    rng = np.random.default_rng(n1 * 7 + n2)
    x = rng.lognormal(0, 0.3, (8, n1))
    y = rng.lognormal(0.2, 0.3, (8, n2))
    res = permutation_test((x, y), statistic=statistic, alternative=alternative)
    ref = sps.permutation_test((x, y), scipy_statistic(statistic, False), vectorized=True,
                               alternative=alternative, axis=-1, n_resamples=9999)
    assert res.exact.all()
    np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-12)
    np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n", [3, 9, 13])
def test_exact_paired_matches_scipy(statistic, alternative, n):
    rng = np.random.default_rng(n)
    x = rng.lognormal(0, 0.3, (5, n))
    y = rng.lognormal(0.1, 0.3, (5, n))
    res = permutation_test((x, y), statistic=statistic, alternative=alternative, paired=True)
    ref = sps.permutation_test((x, y), scipy_statistic(statistic, True), vectorized=True,
                               permutation_type="samples", alternative=alternative, axis=-1,
                               n_resamples=9999)
    assert res.exact.all()
    np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-12)
    np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)


def _mc_bound(p, b, alternative):
    """4 standard errors + 1/B of a sampled p estimating `p`; two-sided p = 2 x a one-sided
    proportion (clipped to 1), so its error is twice that of a proportion min(p / 2, 0.5)."""
    if alternative == "two-sided":
        p1 = np.minimum(p / 2, 0.5)
        return 2 * (4 * np.sqrt(p1 * (1 - p1) / b) + 1 / b)
    return 4 * np.sqrt(p * (1 - p) / b) + 1 / b


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("paired", [False, True])
def test_sampled_within_monte_carlo_error_of_exact(statistic, alternative, paired):
    """Sampled p (B = 2,000) against scipy's exact p on the same data (C(16, 8) = 12,870 and
    2**15 = 32,768 rearrangements)."""
    rng = np.random.default_rng(5)
    n = 15 if paired else 8
    x = rng.normal(0, 1, (12, n))
    y = rng.normal(0.3, 1, (12, n))
    b = 2000
    res = permutation_test((x, y), statistic=statistic, alternative=alternative, paired=paired,
                           n_resamples=b, seed=11)
    assert not res.exact.any()
    ref = sps.permutation_test((x, y), scipy_statistic(statistic, paired), vectorized=True,
                               alternative=alternative, axis=-1, n_resamples=100_000,
                               permutation_type="samples" if paired else "independent")
    assert np.all(np.abs(res.pvalue - ref.pvalue) < _mc_bound(ref.pvalue, b, alternative))
    # and against scipy's own sampled p: two Monte Carlo errors
    ref_b = sps.permutation_test((x, y), scipy_statistic(statistic, paired), vectorized=True,
                                 alternative=alternative, axis=-1, n_resamples=b, rng=3,
                                 permutation_type="samples" if paired else "independent")
    assert np.all(np.abs(res.pvalue - ref_b.pvalue) < 2 * _mc_bound(ref.pvalue, b, alternative))


def test_sampled_p_has_plus_one_rule():
    """Far apart samples: no rearrangement is as extreme, p = 1 / (B + 1) exactly."""
    x, y = np.arange(20.0), np.arange(20.0) + 100
    res = permutation_test((x, y), alternative="less", n_resamples=999, seed=1)
    assert not res.exact
    assert res.pvalue == 1 / 1000
    assert permutation_test((x, y), alternative="greater", n_resamples=999, seed=1).pvalue == 1.0
    assert permutation_test((x, y), n_resamples=999, seed=1).pvalue == 2 / 1000


# ---------------------------------------------------------------- determinism, ranges, batching

def _sampled_batch():
    rng = np.random.default_rng(2)
    return rng.normal(0, 1, (40, 20)), rng.normal(0.2, 1, (40, 20))


@pytest.mark.parametrize("paired", [False, True])
def test_same_seed_same_result_and_seed_matters(paired):
    x, y = _sampled_batch()
    a = permutation_test((x, y), seed=123, n_resamples=500, paired=paired)
    b = permutation_test((x, y), seed=123, n_resamples=500, paired=paired)
    c = permutation_test((x, y), seed=124, n_resamples=500, paired=paired)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
    assert not np.array_equal(a.pvalue, c.pvalue)
    assert a.seed == 123


def test_seed_none_is_drawn_and_reported():
    x, y = _sampled_batch()
    a = permutation_test((x, y), n_resamples=300)
    assert isinstance(a.seed, int)
    b = permutation_test((x, y), n_resamples=300, seed=a.seed)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("paired", [False, True])
def test_parallel_build_identical(request, statistic, paired):
    x, y = _sampled_batch()
    x[:3, :] = x[:3, :].round()  # exact ones too
    serial = permutation_test((x, y), statistic=statistic, paired=paired, seed=7, n_resamples=700)
    request.getfixturevalue("parallel_always")
    parallel = permutation_test((x, y), statistic=statistic, paired=paired, seed=7,
                                n_resamples=700)
    np.testing.assert_array_equal(serial.pvalue, parallel.pvalue)
    np.testing.assert_array_equal(serial.statistic, parallel.statistic)
    small = permutation_test((x[:, :4], y[:, :4]), statistic=statistic, paired=paired)
    assert small.exact.all()


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_p_in_open_closed_unit_interval(alternative):
    x, y = _sampled_batch()
    for n in (1, 3, 20):
        for paired in (False, True):
            p = permutation_test((x[:, :n], y[:, :n]), alternative=alternative, paired=paired,
                                 n_resamples=200, seed=0).pvalue
            assert np.all((p > 0) & (p <= 1))


def test_test_order_within_batch_does_not_matter():
    """Each test's stream depends on its index only: a test alone at index 0 equals test 0."""
    x, y = _sampled_batch()
    full = permutation_test((x, y), seed=9, n_resamples=400)
    first = permutation_test((x[0], y[0]), seed=9, n_resamples=400)
    assert first.pvalue == full.pvalue[0]


def test_batched_shapes_and_axis():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 3))
    y = rng.normal(size=(2, 4, 3))
    res = permutation_test((x, y), axis=1, seed=0)
    assert res.pvalue.shape == res.statistic.shape == res.exact.shape == res.status.shape == (2, 3)
    moved = permutation_test((np.moveaxis(x, 1, -1), np.moveaxis(y, 1, -1)), seed=0)
    np.testing.assert_array_equal(res.pvalue, moved.pvalue)
    for i in range(2):
        for j in range(3):
            assert res.pvalue[i, j] == pytest.approx(
                permutation_p_enumerated(x[i, :, j], y[i, :, j], "mean_diff", "two-sided"), rel=1e-12)
    # broadcasting: one y for every x
    res_b = permutation_test((x, y[:1]), axis=1, seed=0)
    assert res_b.pvalue.shape == (2, 3)
    # one test: scalars
    one = permutation_test((x[0, :, 0], y[0, :, 0]))
    assert np.ndim(one.pvalue) == 0 and one.status == "ok"
    stat, p = one
    assert p == one.pvalue


# ---------------------------------------------------------------- statuses and bad input

def test_nan_and_empty_get_status():
    x = np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0]])
    y = np.array([[2.0, 5.0, 4.0], [2.0, 5.0, 4.0]])
    res = permutation_test((x, y))
    assert list(res.status) == ["ok", "NaN in input"]
    assert np.isnan(res.pvalue[1]) and np.isnan(res.statistic[1]) and not res.exact[1]
    res_p = permutation_test((x, y), paired=True)
    assert list(res_p.status) == ["ok", "NaN in input"]
    empty = permutation_test((np.empty(0), np.array([1.0, 2.0])))
    assert empty.status == "empty sample" and np.isnan(empty.pvalue)
    assert permutation_test((np.empty(0), np.empty(0)), paired=True).status == "no pairs"


@pytest.mark.parametrize("kwargs", [
    dict(n_resamples=0), dict(n_resamples=-5), dict(n_resamples=2.5), dict(n_resamples=True),
    dict(statistic="mean"), dict(alternative="two_sided"), dict(seed="abc"), dict(seed=1.5),
])
def test_bad_options(kwargs):
    with pytest.raises(InputError):
        permutation_test((np.arange(5.0), np.arange(4.0)), **kwargs)


def test_bad_samples():
    with pytest.raises(InputError, match="same length"):
        permutation_test((np.arange(5.0), np.arange(4.0)), paired=True)
    with pytest.raises(InputError):
        permutation_test(np.arange(5.0))
    with pytest.raises(InputError):
        permutation_test((np.arange(5.0), ["a", "b"]))
    with pytest.raises(InputError, match="baseline"):
        permutation_test(_table(np.random.default_rng(0)))


# ---------------------------------------------------------------- table form

def _table(rng, runs=6, shuffle=True):
    rows = []
    for bench, shift in (("a", 0.0), ("b", 0.5), ("c", -0.2)):
        for variant, extra in (("base", 0.0), ("new", shift)):
            for r in range(runs):
                rows.append((bench, variant, r, float(rng.normal(10 + extra, 1))))
    rows.append(("d", "base", 0, 1.0))  # no candidate values
    order = rng.permutation(len(rows)) if shuffle else np.arange(len(rows))
    rows = [rows[i] for i in order]
    return pa.table({k: [r[i] for r in rows] for i, k in
                     enumerate(["benchmark", "variant", "run", "value"])})


def _by_name(benchmarks):
    """Result rows in benchmark-name order (the grouper's order is its own)."""
    return benchmarks.take(np.argsort(benchmarks.column("benchmark").to_pylist()))


def _sample(table, bench, variant, by_run=True):
    t = table.to_pylist()
    items = sorted((r["run"], r["value"]) for r in t
                   if r["benchmark"] == bench and r["variant"] == variant)
    return np.array([v for _, v in items])


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_table_independent(alternative):
    table = _table(np.random.default_rng(4))
    res = permutation_test(table, baseline="base", candidate="new", alternative=alternative)
    b = _by_name(res.benchmarks)
    assert b.column("benchmark").to_pylist() == ["a", "b", "c", "d"]
    assert b.column("status").to_pylist() == ["ok", "ok", "ok", "no candidate values"]
    assert b.column("exact").to_pylist() == [True, True, True, False]  # C(12, 6) = 924
    assert b.column("n_baseline").to_pylist() == [6, 6, 6, 1]
    assert b.column("n_candidate").to_pylist() == [6, 6, 6, 0]
    p = b.column("pvalue").to_numpy(zero_copy_only=False)
    stat = b.column("statistic").to_numpy(zero_copy_only=False)
    for i, bench in enumerate("abc"):
        x, y = _sample(table, bench, "base"), _sample(table, bench, "new")
        assert p[i] == pytest.approx(permutation_p_enumerated(x, y, "mean_diff", alternative), rel=1e-12)
        assert stat[i] == pytest.approx(np.mean(x) - np.mean(y), rel=1e-12)
    assert np.isnan(p[3])
    assert res.summary["seed"] is not None and res.summary["rows_not_ok"] == 1


@pytest.mark.parametrize("statistic", STATISTICS)
def test_table_paired_by_run(statistic):
    table = _table(np.random.default_rng(5))  # rows shuffled: pairing must use the run column
    res = permutation_test(table, baseline="base", candidate="new", paired=True,
                           statistic=statistic, alternative="greater")
    b = _by_name(res.benchmarks)
    assert b.column("status").to_pylist() == ["ok", "ok", "ok", "no paired runs"]
    assert b.column("n").to_pylist() == [6, 6, 6, 0]
    assert b.column("exact").to_pylist() == [True, True, True, False]
    p = b.column("pvalue").to_numpy(zero_copy_only=False)
    for i, bench in enumerate("abc"):
        x, y = _sample(table, bench, "base"), _sample(table, bench, "new")
        assert p[i] == pytest.approx(sign_flip_p_enumerated(x, y, statistic, "greater"), rel=1e-12)
    # independent pairing would give another answer
    ind = permutation_test(table, baseline="base", candidate="new", alternative="greater",
                           statistic=statistic)
    assert not np.array_equal(_by_name(ind.benchmarks).column("pvalue").to_numpy(zero_copy_only=False)[:3],
                              p[:3])


@pytest.mark.parametrize("paired", [False, True])
def test_table_sampled_deterministic(paired):
    table = _table(np.random.default_rng(6), runs=20)
    kw = dict(baseline="base", candidate="new", paired=paired, n_resamples=500, seed=42)
    a = _by_name(permutation_test(table, **kw).benchmarks)
    b = _by_name(permutation_test(table, **kw).benchmarks)
    p = a.column("pvalue").to_numpy(zero_copy_only=False)
    np.testing.assert_array_equal(p, b.column("pvalue").to_numpy(zero_copy_only=False))
    assert a.column("exact").to_pylist() == [False] * 4
    assert np.isnan(p[3])
    p = p[:3]
    assert np.all((p > 0) & (p <= 1))
    assert (p * 501).round(9).tolist() == np.round(p * 501).tolist()  # (count + 1) / (B + 1)
