"""`ks_2samp` against scipy, against brute-force enumeration of the exact null distribution, and
against exact integer path counts; batching, statuses, centring, the table form."""
from __future__ import annotations

import math
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from fastperf import InputError
from fastperf.stats.ks import ks_2samp
from naive import ecdf_extremes, ks_null_enumerated, ks_tied_pvalue_counted

ALTERNATIVES = ["two-sided", "less", "greater"]


def scipy_ks(x, y, **kwargs):
    """scipy's result, its fallback warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return sps.ks_2samp(x, y, **kwargs)


def random_sample(rng, n, kind):
    if kind == "continuous":
        return rng.lognormal(0.0, 0.5, n)
    if kind == "discrete":  # heavy ties
        return rng.integers(0, 6, n).astype(float)
    return np.round(rng.normal(10.0, 1.0, n), 1)  # timer quantisation: some ties


def random_pairs(rng, n_pairs, max_n=60):
    kinds = ["continuous", "discrete", "quantised"]
    pairs = []
    for i in range(n_pairs):
        n1, n2 = rng.integers(1, max_n + 1, 2)
        if i % 5 == 0:
            n2 = n1  # equal sizes take their own exact formulas
        kind = kinds[i % 3]
        shift = rng.choice([0.0, 0.3, 1.0])
        pairs.append((random_sample(rng, n1, kind), random_sample(rng, n2, kind) + shift))
    return pairs


def pairs_table(pairs, null_at=None):
    """A measurement table: benchmark i has pair i as variants "base" (x) and "cand" (y)."""
    bench, variant, value = [], [], []
    for i, (x, y) in enumerate(pairs):
        for name, sample in (("base", x), ("cand", y)):
            bench += [f"b{i:05d}"] * len(sample)
            variant += [name] * len(sample)
            value += [float(v) for v in sample]
    if null_at is not None:
        value[null_at] = None
    return pa.table({"benchmark": bench, "variant": variant, "value": value})


def has_ties(x, y):
    pooled = np.concatenate([x, y])
    return np.unique(pooled).size < pooled.size


def expected_pvalue(x, y, ref, alternative, method):
    """scipy's p-value, except the exact one with ties: conditional on the tie pattern (integer
    path count, tests/naive.py), where scipy's is the continuous-data one."""
    if method != "asymp" and ref is not None and has_ties(x, y):
        return float(ks_tied_pvalue_counted(x, y, alternative))
    return ref.pvalue


def assert_p_close(got, expected, rtol):
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    ok = ~np.isnan(expected)
    err = np.abs(got[ok] - expected[ok])
    assert np.all(err <= rtol * np.abs(expected[ok])), f"worst relative error {np.max(err / np.abs(expected[ok]))}"


# --- against scipy -------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["exact", "asymp"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_thousands_of_ragged_pairs_match_scipy(alternative, method):
    """600 pairs per case (sizes 1..60, unequal, continuous and tied data), one batched call."""
    rng = np.random.default_rng(ALTERNATIVES.index(alternative) * 10 + (method == "exact"))
    pairs = random_pairs(rng, 600)
    res = ks_2samp(pairs_table(pairs), baseline="base", candidate="cand",
                   alternative=alternative, method=method)
    table = res.benchmarks
    refs = [scipy_ks(x, y, alternative=alternative, method=method) for x, y in pairs]
    assert table.column("statistic").to_pylist() == [float(r.statistic) for r in refs]
    assert table.column("statistic_sign").to_pylist() == [int(r.statistic_sign) for r in refs]
    assert table.column("n_baseline").to_pylist() == [len(x) for x, _ in pairs]
    # exact p-values to 1e-12; the asymptotic ones to 1e-10 (two-sided: 1 - cdf from Pomeranz's
    # recursion loses digits in scipy as in fastperf, both in the 12th)
    # with ties the exact p-value is the one conditional on the ties, not scipy's
    assert_p_close(table.column("pvalue").to_numpy(),
                   [expected_pvalue(x, y, r, alternative, method) for (x, y), r in zip(pairs, refs)],
                   1e-12 if method == "exact" else 1e-10)
    assert set(table.column("status").to_pylist()) <= {"ok", "no asymptotic p-value for 1 value against 1"}


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_array_form_matches_scipy_pair_by_pair(alternative):
    """Also the fallbacks: where scipy's exact computation fails (e.g. 2P = 1 + 2**-52 from the
    equal-size formula at small D) both switch to the asymptotic p-value."""
    rng = np.random.default_rng(11)
    for x, y in random_pairs(rng, 150, max_n=40):
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            got = ks_2samp(x, y, alternative=alternative)
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            ref = sps.ks_2samp(x, y, alternative=alternative)
        assert got.statistic == ref.statistic
        assert got.statistic_sign == ref.statistic_sign
        assert got.status == "ok"
        if has_ties(x, y):  # exact, conditional on the ties: no fallback
            expected = float(ks_tied_pvalue_counted(x, y, alternative))
            assert abs(got.pvalue - expected) <= 1e-12 * expected
            assert (got.pvalue_method, len(ours)) == ("exact", 0)
            continue
        assert abs(got.pvalue - ref.pvalue) <= 1e-12 * ref.pvalue
        assert got.pvalue_method == ("asymp" if theirs else "exact")
        assert len(ours) == len(theirs)


def test_asymptotic_two_sided_matches_kstwo_in_every_regime():
    """n = round(n1 n2 / (n1 + n2)) over the Simard-L'Ecuyer regimes of scipy's kstwo.sf:
    Ruben-Gambino, Durbin, Pomeranz, Pelz-Good, Smirnov."""
    rng = np.random.default_rng(12)
    sizes = [(1, 2), (3, 3), (8, 5), (30, 20), (120, 150), (400, 380), (3000, 1000), (12000, 9000)]
    for n1, n2 in sizes:
        for shift in (0.0, 0.15, 0.6, 3.0):
            x, y = rng.normal(size=(5, n1)), rng.normal(shift, size=(5, n2))
            got = ks_2samp(x, y, method="asymp")
            ref = scipy_ks(x, y, method="asymp", axis=-1)
            np.testing.assert_array_equal(got.statistic, ref.statistic)
            assert_p_close(got.pvalue, ref.pvalue, 1e-10)


def test_large_pairs_auto_switches_to_asymp_like_scipy():
    rng = np.random.default_rng(13)
    for n1, n2 in [(10_001, 40), (12_000, 11_000)]:
        x, y = rng.normal(size=n1), rng.normal(0.03, size=n2)
        for alternative in ALTERNATIVES:
            got = ks_2samp(x, y, alternative=alternative)
            ref = scipy_ks(x, y, alternative=alternative)
            assert got.pvalue_method == "asymp"
            assert got.statistic == ref.statistic
            assert_p_close(got.pvalue, ref.pvalue, 1e-12)
    # at 10,000 auto is still exact
    x, y = rng.normal(size=10_000), rng.normal(0.03, size=10_000)
    got, ref = ks_2samp(x, y), scipy_ks(x, y)
    assert got.pvalue_method == "exact" and got.statistic == ref.statistic
    assert_p_close(got.pvalue, ref.pvalue, 1e-12)


def test_exact_overflow_falls_back_to_asymp_with_a_warning_like_scipy():
    """One-sided, unequal sizes: the path count overflows for n1 + n2 beyond about 1030."""
    rng = np.random.default_rng(14)
    x, y = rng.normal(size=600), rng.normal(size=601)
    with pytest.warns(RuntimeWarning, match="exact p-value unsuccessful"):
        got = ks_2samp(x, y, alternative="less")
    with pytest.warns(RuntimeWarning, match="Exact calculation unsuccessful"):
        ref = sps.ks_2samp(x, y, alternative="less")
    assert got.pvalue_method == "asymp"
    assert got.statistic == ref.statistic and got.pvalue == ref.pvalue
    # just below the limit both stay exact
    x, y = rng.normal(size=512), rng.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got, ref = ks_2samp(x, y, alternative="greater"), sps.ks_2samp(x, y, alternative="greater")
    assert got.pvalue_method == "exact"
    assert_p_close(got.pvalue, ref.pvalue, 1e-11)


def test_exact_impossible_for_huge_lcm_uses_asymp_with_a_warning():
    rng = np.random.default_rng(15)
    x, y = rng.normal(size=50_000), rng.normal(size=49_999)  # n1 n2 / gcd**2 > 2**31
    with pytest.warns(RuntimeWarning, match="not possible"):
        got = ks_2samp(x, y, method="exact")
    ref = scipy_ks(x, y, method="exact")
    assert got.pvalue_method == "asymp"
    assert got.statistic == ref.statistic
    assert_p_close(got.pvalue, ref.pvalue, 1e-12)


# --- against scipy-independent oracles (tests/naive.py) ------------------------------------


def test_exact_pvalues_equal_brute_force_enumeration():
    """P(D >= d) by listing every assignment, for all sizes up to 7 x 7 (continuous data)."""
    rng = np.random.default_rng(16)
    for n1 in range(1, 8):
        for n2 in range(1, 8):
            d_plus_null, d_minus_null = ks_null_enumerated(n1, n2)
            two_sided_null = np.maximum(d_plus_null, d_minus_null)
            total = len(d_plus_null)
            for trial in range(3):
                shift = (0.0, 0.8, -1.5)[trial]
                x, y = rng.normal(size=n1), rng.normal(shift, size=n2)
                d_plus, d_minus = ecdf_extremes(x, y)
                for alternative, d, null in (("greater", d_plus, d_plus_null),
                                             ("less", d_minus, d_minus_null),
                                             ("two-sided", max(d_plus, d_minus), two_sided_null)):
                    d_units = int(d * n1 * n2)
                    expected = Fraction(int(np.sum(null >= d_units)), total)
                    got = ks_2samp(x, y, alternative=alternative, method="exact")
                    assert got.statistic == float(d)
                    assert abs(got.pvalue - float(expected)) <= 1e-12 * float(expected), \
                        (n1, n2, alternative, got.pvalue, expected)


def paths_reaching_line_exactly(m, n, h):
    """Integer count of lattice paths (0,0) -> (m,n) reaching m y = n x - h g (Hodges 1958), by
    the first-passage decomposition in Python integers."""
    if m < n:
        m, n = n, m
    g = math.gcd(m, n)
    mg, ng = m // g, n // g
    count = n + (mg - h) // mg
    xj = [(h + mg * j + ng - 1) // ng for j in range(count)]
    first = [1] + [0] * (count - 1)
    for j in range(1, count):
        first[j] = math.comb(xj[j] + j, j) - sum(
            math.comb(xj[j] - xj[i] + j - i, j - i) * first[i] for i in range(j))
    return sum(first[j] * math.comb(m - xj[j] + n - j, n - j) for j in range(count))


@pytest.mark.parametrize("n1, n2", [(90, 400), (200, 300), (500, 499), (10_001, 50)])
def test_one_sided_exact_large_unequal_sizes_against_integer_counts(n1, n2):
    """fastperf's path count keeps ~1e-15 where scipy's (lgamma-based binomials) drifts to 1e-11."""
    rng = np.random.default_rng(n1)
    x, y = rng.normal(size=n1), rng.normal(0.05, size=n2)
    for alternative in ("less", "greater"):
        got = ks_2samp(x, y, alternative=alternative, method="exact")
        lcm = n1 * n2 // math.gcd(n1, n2)
        h = round(got.statistic * lcm)
        expected = Fraction(paths_reaching_line_exactly(n1, n2, h), math.comb(n1 + n2, n1))
        assert got.pvalue_method == "exact"
        assert abs(got.pvalue - float(expected)) <= 1e-13 * float(expected)
        ref = scipy_ks(x, y, alternative=alternative, method="exact")
        assert_p_close(got.pvalue, ref.pvalue, 1e-10)


@pytest.mark.filterwarnings("ignore:ks_2samp:RuntimeWarning")
@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(st.integers(-20, 20), min_size=1, max_size=25),
    y=st.lists(st.integers(-20, 20), min_size=1, max_size=25),
)
def test_symmetry_bounds_and_monotone_invariance(x, y):
    x, y = np.array(x, dtype=float), np.array(y, dtype=float)
    two = ks_2samp(x, y)
    less, greater = ks_2samp(x, y, alternative="less"), ks_2samp(x, y, alternative="greater")
    swapped = ks_2samp(y, x)
    assert (two.statistic, two.pvalue) == (swapped.statistic, swapped.pvalue)
    assert tuple(ks_2samp(y, x, alternative="greater")) == tuple(less)
    assert two.statistic == max(less.statistic, greater.statistic)
    for r in (two, less, greater):
        assert 0.0 <= r.pvalue <= 1.0
    # P(D+ >= d) <= P(D >= d) <= P(D+ >= d) + P(D- >= d), d the two-sided statistic (exact
    # p-values); with ties D+ and D- need not share a null distribution, so the upper bound is
    # 2 P(D+ >= d) only without them
    side = greater if two.statistic_sign == 1 else less
    if two.pvalue_method == side.pvalue_method == "exact":
        assert side.pvalue <= two.pvalue * (1 + 1e-12)
        if not has_ties(x, y):
            assert two.pvalue <= 2 * side.pvalue * (1 + 1e-12)
    transformed = ks_2samp(np.exp(x / 4), np.exp(y / 4))
    assert (transformed.statistic, transformed.pvalue) == (two.statistic, two.pvalue)


# --- batching, statuses, builds -------------------------------------------------------------


def test_axis_broadcasting_and_scalar_output():
    rng = np.random.default_rng(17)
    x, y = rng.normal(size=(3, 1, 20)), rng.normal(0.5, size=(4, 12))
    res = ks_2samp(x, y)
    assert res.statistic.shape == res.pvalue.shape == res.status.shape == (3, 4)
    assert res.statistic_sign.shape == res.pvalue_method.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            ref = scipy_ks(x[i, 0], y[j])
            assert res.statistic[i, j] == ref.statistic
            assert abs(res.pvalue[i, j] - ref.pvalue) <= 1e-12 * ref.pvalue
    along_0 = ks_2samp(np.moveaxis(x, -1, 0), y.T, axis=0)
    np.testing.assert_array_equal(along_0.statistic, res.statistic)
    np.testing.assert_array_equal(along_0.pvalue, res.pvalue)
    single = ks_2samp(x[0, 0], y[0])
    assert np.ndim(single.statistic) == 0 and np.ndim(single.pvalue) == 0
    assert isinstance(single.pvalue, np.floating) and single.status == "ok"
    d, p = single
    assert (d, p) == (res.statistic[0, 0], res.pvalue[0, 0])


def test_nan_and_empty_samples_get_a_status_not_an_exception():
    rng = np.random.default_rng(18)
    x, y = rng.normal(size=(3, 10)), rng.normal(size=(3, 8))
    x[1, 4] = np.nan
    res = ks_2samp(x, y)
    assert res.status.tolist() == ["ok", "NaN in input", "ok"]
    assert np.isnan(res.statistic[1]) and np.isnan(res.pvalue[1])
    assert res.pvalue_method.tolist() == ["exact", "none", "exact"]
    assert res.pvalue[0] == scipy_ks(x[0], y[0]).pvalue
    empty = ks_2samp(np.empty((2, 0)), y[:2])
    assert empty.status.tolist() == ["empty sample", "empty sample"]
    assert np.isnan(empty.statistic).all() and np.isnan(empty.pvalue).all()
    one_each = ks_2samp([1.0], [2.0], method="asymp")  # scipy: NaN (n = round(1/2) = 0)
    assert np.isnan(one_each.pvalue) and one_each.statistic == 1.0
    assert one_each.status == "no asymptotic p-value for 1 value against 1"


def test_bad_arguments_raise_input_error():
    x = [1.0, 2.0, 3.0]
    with pytest.raises(InputError, match="alternative"):
        ks_2samp(x, x, alternative="two_sided")
    with pytest.raises(InputError, match="method"):
        ks_2samp(x, x, method="permutation")
    with pytest.raises(InputError, match="center"):
        ks_2samp(x, x, center="mean")
    with pytest.raises(InputError, match="y is required"):
        ks_2samp(np.array(x))
    with pytest.raises(InputError, match="baseline"):
        ks_2samp(x, x, baseline="old")
    with pytest.raises(InputError, match="do not broadcast"):
        ks_2samp(np.ones((2, 3)), np.ones((3, 3)))


def test_parallel_build_agrees_with_serial(parallel_always):
    from fastperf.kernels.builds import FORCE_PARALLEL

    assert FORCE_PARALLEL
    rng = np.random.default_rng(19)
    pairs = random_pairs(rng, 300)
    for alternative, method, center in [("two-sided", "auto", None), ("less", "exact", "median"),
                                        ("greater", "asymp", None), ("two-sided", "asymp", None)]:
        parallel = ks_2samp(pairs_table(pairs), baseline="base", candidate="cand",
                            alternative=alternative, method=method, center=center).benchmarks
        import fastperf.kernels.builds as builds

        builds.FORCE_PARALLEL = False
        try:
            serial = ks_2samp(pairs_table(pairs), baseline="base", candidate="cand",
                              alternative=alternative, method=method, center=center).benchmarks
        finally:
            builds.FORCE_PARALLEL = True
        assert parallel.column_names == serial.column_names
        for name in parallel.column_names:  # NaN equal to NaN
            np.testing.assert_array_equal(parallel.column(name).to_numpy(zero_copy_only=False),
                                          serial.column(name).to_numpy(zero_copy_only=False))


# --- median centring -----------------------------------------------------------------------


def test_center_median_is_ks_on_median_centred_samples():
    rng = np.random.default_rng(20)
    for x, y in random_pairs(rng, 200, max_n=50):
        for alternative in ALTERNATIVES:
            got = ks_2samp(x, y, alternative=alternative, center="median")
            ref = scipy_ks(x - np.median(x), y - np.median(y), alternative=alternative)
            assert got.statistic == ref.statistic
            assert abs(got.pvalue - ref.pvalue) <= 1e-12 * ref.pvalue


def test_center_median_removes_a_pure_location_shift():
    """Seed 002, 3.2.1: a shifted copy satisfies the location-shift model: D = 0, p = 1."""
    rng = np.random.default_rng(21)
    base = rng.integers(100, 200, size=(4, 31)).astype(float)
    shifted = base[:, rng.permutation(31)] - 40.0  # exact in floats: same centred values
    plain = ks_2samp(base, shifted)
    centred = ks_2samp(base, shifted, center="median")
    assert (plain.pvalue < 0.01).all()
    assert (centred.statistic == 0.0).all() and (centred.pvalue == 1.0).all()
    # a change of spread is what the centred test detects
    wide = (base - 150.0) * 3.0
    assert (ks_2samp(base, wide, center="median").pvalue < 0.05).all()


def test_center_median_with_infinite_median_gets_a_status():
    res = ks_2samp([1.0, np.inf, np.inf], [1.0, 2.0, 3.0], center="median")
    assert res.status == "infinite median: cannot centre" and np.isnan(res.pvalue)


# --- table form ------------------------------------------------------------------------------


def test_table_form_missing_variant_and_null_value():
    rng = np.random.default_rng(22)
    a_old, a_new = rng.lognormal(0, 0.1, 12), rng.lognormal(-0.2, 0.1, 10)
    b_old = rng.lognormal(0, 0.1, 8)
    c_new = rng.lognormal(0, 0.1, 9)
    rows = ([("a", "old", v) for v in a_old] + [("a", "new", v) for v in a_new]
            + [("b", "old", v) for v in b_old] + [("c", "new", v) for v in c_new]
            + [("a", "new", None), ("a", "other", 1.0)])
    table = pa.table({"benchmark": [r[0] for r in rows], "variant": [r[1] for r in rows],
                      "value": [r[2] for r in rows]})
    res = ks_2samp(table, baseline="old", candidate="new", alternative="less")
    t = res.benchmarks
    assert t.column_names == ["benchmark", "n_baseline", "n_candidate", "n_dropped_baseline",
                              "n_dropped_candidate", "statistic", "statistic_sign", "pvalue",
                              "pvalue_method", "status"]
    rows = {r["benchmark"]: r for r in t.to_pylist()}
    assert rows["a"]["status"] == "ok"
    assert (rows["a"]["n_baseline"], rows["a"]["n_candidate"]) == (12, 10)
    assert rows["a"]["n_dropped_candidate"] == 1
    ref = scipy_ks(a_old, a_new, alternative="less")
    assert rows["a"]["statistic"] == ref.statistic
    assert abs(rows["a"]["pvalue"] - ref.pvalue) <= 1e-12 * ref.pvalue
    assert rows["b"]["status"] == "no candidate values" and np.isnan(rows["b"]["pvalue"])
    assert rows["c"]["status"] == "no baseline values" and np.isnan(rows["c"]["statistic"])
    assert res.summary["rows"] == 3 and res.summary["rows_tested"] == 1
    assert res.summary["rows_not_ok"] == 2 and res.summary["dropped"] == 1
    assert res.summary["alternative"] == "less" and res.summary["function"] == "ks_2samp"
    assert any("dropped" in w for w in res.warnings)
    assert any("no baseline values" in w for w in res.warnings)
    assert "ks_2samp" in res.to_json() and "| benchmark |" in res.to_markdown()


def test_table_form_from_files_and_argument_checks(monkeypatch):
    import fastperf

    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # example paths are repo-relative
    paths = ["examples/old.txt", "examples/new.txt"]
    by_path = ks_2samp(paths, baseline="old", candidate="new", center="median")
    table = fastperf.read(paths)
    in_memory = ks_2samp(table, baseline="old", candidate="new", center="median")
    assert in_memory.benchmarks.equals(by_path.benchmarks)
    assert in_memory.summary["center"] == "median"
    assert in_memory.benchmarks.num_rows == 2
    with pytest.raises(InputError, match="baseline= and candidate="):
        ks_2samp(table, baseline="old")
    with pytest.raises(InputError, match="not found"):
        ks_2samp(table, baseline="old", candidate="newer")
    with pytest.raises(InputError, match="axis"):
        ks_2samp(table, baseline="old", candidate="new", axis=0)


def test_centre_of_two_values_near_the_float64_maximum():
    """The median of [1.7e308, 1.7e308] is 1.7e308; numpy's (a + b) / 2 overflows, and the
    test said "infinite median: cannot centre" for finite data. Oracle: scipy on the centred
    samples written out by hand ([0, 0] against [-0.5, 0.5])."""
    got = ks_2samp([1.7e308, 1.7e308], [1.0, 2.0], center="median")
    want = sps.ks_2samp([0.0, 0.0], [-0.5, 0.5])
    assert got.status == "ok" and got.statistic == want.statistic
