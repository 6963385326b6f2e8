"""multipletests against statsmodels family by family (1-d, N-d along axis, ragged families),
the NaN policy, properties of the corrections (hypothesis), and SPARC's numbers (seed 003)."""
import gc
import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests as sm_multipletests

import fastperf
from fastperf import InputError
from fastperf.stats.multitest import bonferroni_alpha, fwer_bound, multipletests, sidak_alpha

METHODS = ["bonferroni", "holm", "hochberg", "fdr_bh", "fdr_by"]
#: statsmodels' name for each method ("hochberg" is "simes-hochberg" there; its "ho" is Hommel)
SM_NAME = {"bonferroni": "bonferroni", "holm": "holm", "hochberg": "simes-hochberg",
           "fdr_bh": "fdr_bh", "fdr_by": "fdr_by"}
ALPHAS = [0.01, 0.05, 0.1, 0.25]


@pytest.fixture(autouse=True)
def no_gc_in_statsmodels(monkeypatch):
    """statsmodels' Holm branch calls gc.collect() on every call, which makes thousands of
    reference calls take minutes; the collection has no effect on the results."""
    monkeypatch.setattr(gc, "collect", lambda *args: 0)


def reference(p, alpha, method):
    return sm_multipletests(np.asarray(p, dtype=np.float64), alpha=alpha, method=SM_NAME[method])


def random_family(rng, size):
    """p-values of one family: continuous, on a coarse grid (ties, exact threshold hits), tiny,
    or with 0 and 1 mixed in."""
    kind = rng.integers(5)
    if kind == 0:
        p = rng.random(size)
    elif kind == 1:
        p = rng.integers(0, 21, size) / 20 * rng.choice([1.0, 0.1, 0.01])
    elif kind == 2:
        p = rng.random(size) ** 8
    elif kind == 3:
        p = rng.choice([0.0, 0.001, 0.01, 0.0125, 0.025, 0.05, 0.5, 1.0], size)
    else:
        p = rng.random(size)
        p[rng.random(size) < 0.2] = 0.0
        p[rng.random(size) < 0.2] = 1.0
        if size > 1:
            p[1] = p[0]
    return p


def random_families(seed, count, max_size=50):
    rng = np.random.default_rng(seed)
    return [random_family(rng, int(rng.integers(1, max_size + 1))) for _ in range(count)]


FAMILIES = random_families(1979, 2000)


def assert_family(got_reject, got_corrected, expected, exact=False):
    np.testing.assert_array_equal(got_reject, expected[0])
    if exact:
        np.testing.assert_array_equal(got_corrected, expected[1])
    else:
        np.testing.assert_allclose(got_corrected, expected[1], rtol=0, atol=1e-12)


# ---------------------------------------------------------------- one family at a time


@pytest.mark.parametrize("method", METHODS)
def test_single_families_match_statsmodels(method):
    for i, p in enumerate(FAMILIES[:600]):
        alpha = ALPHAS[i % len(ALPHAS)]
        got = multipletests(p, alpha=alpha, method=method)
        expected = reference(p, alpha, method)
        assert_family(got.reject, got.pvalues_corrected, expected)
        assert got.alpha_sidak == pytest.approx(expected[2], rel=1e-15)
        assert got.alpha_bonferroni == expected[3]
        assert got.n_tests == len(p)
        assert got.reject.dtype == bool and got.pvalues_corrected.shape == p.shape


def threshold_family(rng, m, alpha):
    """m p-values on or one ulp beside the rejection thresholds of a family of size m (alpha/m,
    alpha/(m-k), (k/m) alpha, their products computed other ways), where any change in the
    arithmetic of a comparison changes a rejection."""
    k = np.arange(1, m + 1)
    edges = np.concatenate([
        [alpha / m], alpha / k, k / m * alpha, alpha * k / m, (k / m) / np.sum(1.0 / k) * alpha,
    ])
    edges = np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, 1)])
    return np.clip(rng.choice(edges, m), 0, 1)


@pytest.mark.parametrize("method", METHODS)
def test_threshold_edges_match_statsmodels_exactly(method):
    rng = np.random.default_rng(1995)
    for m in range(1, 51):
        for alpha in ALPHAS:
            for _ in range(3):
                p = threshold_family(rng, m, alpha)
                got = multipletests(p, alpha=alpha, method=method)
                assert_family(got.reject, got.pvalues_corrected, reference(p, alpha, method),
                              exact=True)


def test_unpacks_like_statsmodels():
    p = np.array([0.01, 0.04, 0.03, 0.2])
    reject, corrected, a_sidak, a_bonf = multipletests(p, method="holm")
    e = reference(p, 0.05, "holm")
    np.testing.assert_array_equal(reject, e[0])
    np.testing.assert_array_equal(corrected, e[1])
    assert (a_sidak, a_bonf) == pytest.approx((e[2], e[3]), rel=1e-15)
    assert isinstance(a_bonf, np.float64) and isinstance(multipletests(p).n_tests, np.int64)


# ---------------------------------------------------------------- ragged families


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("method", METHODS)
def test_ragged_families_by_labels_match_statsmodels(method, alpha):
    rng = np.random.default_rng(2001)
    labels_of_family = rng.permutation(np.arange(len(FAMILIES)) * 7 - 5000)  # any integers
    flat = np.concatenate(FAMILIES)
    labels = np.concatenate([np.full(len(p), lab) for p, lab in zip(FAMILIES, labels_of_family)])
    shuffle = rng.permutation(flat.shape[0])  # families interleaved, in no order
    got = multipletests(flat[shuffle], alpha=alpha, method=method, groups=labels[shuffle])
    reject = np.empty_like(got.reject)
    corrected = np.empty_like(got.pvalues_corrected)
    reject[shuffle] = got.reject
    corrected[shuffle] = got.pvalues_corrected
    np.testing.assert_array_equal(got.groups, np.sort(labels_of_family))
    start = 0
    for p, lab in zip(FAMILIES, labels_of_family):
        stop = start + len(p)
        # the order within a family is kept by the shuffle's inverse
        expected = reference(p, alpha, method)
        assert_family(reject[start:stop], corrected[start:stop], expected, exact=True)
        g = np.searchsorted(got.groups, lab)
        assert got.n_tests[g] == len(p)
        assert got.alpha_bonferroni[g] == expected[3]
        assert got.alpha_sidak[g] == pytest.approx(expected[2], rel=1e-15)
        start = stop


@pytest.mark.parametrize("method", METHODS)
def test_ragged_families_by_offsets_match_statsmodels(method):
    families = FAMILIES[:500] + [np.array([])] + FAMILIES[500:800]  # an empty family too
    flat = np.concatenate(families)
    offsets = np.concatenate(([0], np.cumsum([len(p) for p in families])))
    got = multipletests(flat, alpha=0.05, method=method, offsets=offsets)
    assert got.groups is None and got.n_tests.shape == (len(families),)
    for g, p in enumerate(families):
        part = slice(offsets[g], offsets[g + 1])
        if len(p) == 0:
            assert got.n_tests[g] == 0 and np.isnan(got.alpha_bonferroni[g])
            continue
        assert_family(got.reject[part], got.pvalues_corrected[part], reference(p, 0.05, method))


def test_string_labels():
    p = np.array([0.01, 0.02, 0.5, 0.001, 0.04])
    groups = np.array(["b", "a", "b", "a", "a"])
    got = multipletests(p, method="fdr_bh", groups=groups)
    np.testing.assert_array_equal(got.groups, ["a", "b"])
    for label in ("a", "b"):
        sel = groups == label
        e = reference(p[sel], 0.05, "fdr_bh")
        assert_family(got.reject[sel], got.pvalues_corrected[sel], e)
    np.testing.assert_array_equal(got.n_tests, [3, 2])


def test_parallel_build_gives_the_same_results(parallel_always):
    flat = np.concatenate(FAMILIES[:300])
    offsets = np.concatenate(([0], np.cumsum([len(p) for p in FAMILIES[:300]])))
    for method in METHODS:
        got = multipletests(flat, method=method, offsets=offsets)
        for g in range(300):
            part = slice(offsets[g], offsets[g + 1])
            assert_family(got.reject[part], got.pvalues_corrected[part],
                          reference(flat[part], 0.05, method), exact=True)


# ---------------------------------------------------------------- N-d batches along axis


@pytest.mark.parametrize("method", METHODS)
def test_2d_batches_along_either_axis(method):
    rng = np.random.default_rng(1988)
    block = np.stack([random_family(rng, 17) for _ in range(40)])  # 40 families of 17
    rows = multipletests(block, alpha=0.1, method=method)  # axis=-1: one family per row
    cols = multipletests(block.T, alpha=0.1, method=method, axis=0)  # one family per column
    assert rows.pvalues_corrected.shape == (40, 17) and rows.alpha_bonferroni.shape == (40,)
    assert cols.pvalues_corrected.shape == (17, 40) and cols.n_tests.shape == (40,)
    for i in range(40):
        e = reference(block[i], 0.1, method)
        assert_family(rows.reject[i], rows.pvalues_corrected[i], e, exact=True)
        assert_family(cols.reject[:, i], cols.pvalues_corrected[:, i], e, exact=True)
        assert rows.alpha_bonferroni[i] == e[3] == cols.alpha_bonferroni[i]
    np.testing.assert_array_equal(rows.n_tests, 17)


def test_3d_batch_along_middle_axis():
    rng = np.random.default_rng(3)
    p = rng.random((4, 9, 5)) ** 3
    got = multipletests(p, method="hochberg", axis=1)
    assert got.reject.shape == p.shape and got.alpha_sidak.shape == (4, 5)
    for i in range(4):
        for j in range(5):
            e = reference(p[i, :, j], 0.05, "hochberg")
            assert_family(got.reject[i, :, j], got.pvalues_corrected[i, :, j], e)


# ---------------------------------------------------------------- NaN policy


@pytest.mark.parametrize("method", METHODS)
def test_nan_is_left_out_of_its_family(method):
    rng = np.random.default_rng(5)
    for p in FAMILIES[:300]:
        q = p.copy()
        q[rng.random(len(q)) < 0.3] = np.nan
        got = multipletests(q, method=method)
        missing = np.isnan(q)
        assert np.isnan(got.pvalues_corrected[missing]).all()
        assert not got.reject[missing].any()
        assert got.n_tests == (~missing).sum()
        if missing.all():
            assert np.isnan(got.alpha_bonferroni) and np.isnan(got.alpha_sidak)
            continue
        e = reference(q[~missing], 0.05, method)  # the family without its NaN
        assert_family(got.reject[~missing], got.pvalues_corrected[~missing], e)
        assert got.alpha_bonferroni == e[3]


def test_nan_in_2d_and_all_nan_rows():
    p = np.array([[0.01, np.nan, 0.02, 0.9], [np.nan] * 4, [0.001, 0.04, 0.03, 0.02]])
    got = multipletests(p, method="holm")
    np.testing.assert_array_equal(got.n_tests, [3, 0, 4])
    assert np.isnan(got.alpha_bonferroni[1]) and got.alpha_bonferroni[0] == 0.05 / 3
    assert np.isnan(got.pvalues_corrected[1]).all() and not got.reject[1].any()
    np.testing.assert_array_equal(got.pvalues_corrected[0], [0.03, np.nan, 0.04, 0.9])
    e = reference(p[2], 0.05, "holm")
    assert_family(got.reject[2], got.pvalues_corrected[2], e)


def test_empty_input():
    got = multipletests(np.array([]), method="fdr_by")
    assert got.reject.shape == (0,) and got.n_tests == 0 and np.isnan(got.alpha_bonferroni)
    got = multipletests(np.zeros((3, 0)))
    assert got.reject.shape == (3, 0) and (got.n_tests == 0).all()
    got = multipletests(np.zeros((0, 5)))
    assert got.pvalues_corrected.shape == (0, 5) and got.n_tests.shape == (0,)


# ---------------------------------------------------------------- properties


family_strategy = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 0.05, 0.01])), min_size=1, max_size=30
)


@settings(max_examples=150, deadline=None)
@given(family_strategy, st.sampled_from(METHODS), st.sampled_from(ALPHAS))
def test_properties_of_a_correction(raw, method, alpha):
    p = np.array(raw)
    got = multipletests(p, alpha=alpha, method=method)
    c = got.pvalues_corrected
    assert ((c >= p) & (c <= 1)).all()  # never below the raw p-value, within [0, 1]
    order = np.argsort(p, kind="stable")
    assert (np.diff(c[order]) >= 0).all()  # monotone in the raw p-value
    r = got.reject[order]
    assert not (r[1:] & ~r[:-1] & (np.diff(p[order]) > 0)).any()  # rejections a prefix
    assert (c[p == p.min()] == c[p == p.min()][0]).all()  # ties get the same correction


@settings(max_examples=150, deadline=None)
@given(family_strategy, st.sampled_from(ALPHAS))
def test_rejections_nest_by_power(raw, alpha):
    p = np.array(raw)
    rej = {m: multipletests(p, alpha=alpha, method=m).reject for m in METHODS}
    # Bonferroni <= Holm <= Hochberg <= BH, and BY <= BH
    assert not (rej["bonferroni"] & ~rej["holm"]).any()
    assert not (rej["holm"] & ~rej["hochberg"]).any()
    assert not (rej["hochberg"] & ~rej["fdr_bh"]).any()
    assert not (rej["fdr_by"] & ~rej["fdr_bh"]).any()


@settings(max_examples=60, deadline=None)
@given(st.lists(family_strategy, min_size=1, max_size=8), st.sampled_from(METHODS))
def test_ragged_equals_one_call_per_family(families, method):
    flat = np.concatenate([np.array(f) for f in families])
    labels = np.concatenate([np.full(len(f), i) for i, f in enumerate(families)])
    got = multipletests(flat, method=method, groups=labels)
    for i, f in enumerate(families):
        one = multipletests(np.array(f), method=method)
        np.testing.assert_array_equal(got.pvalues_corrected[labels == i], one.pvalues_corrected)
        np.testing.assert_array_equal(got.reject[labels == i], one.reject)


# ---------------------------------------------------------------- SPARC (seed 003)


def test_sparc_bonferroni_alpha_and_fwer_bound():
    # 2 comparisons x (8 difference + 8 equivalence + 1 overall) = 34 tests at alpha = 0.05
    assert round(float(bonferroni_alpha(0.05, 34)), 7) == 0.0014706
    assert round(float(fwer_bound(0.05, 34)), 5) == 0.82518
    # HPT: 8 benchmarks + 1 overall test, uncorrected: FWER 36.98%
    assert round(float(fwer_bound(0.05, 9)) * 100, 2) == 36.98
    # the same alpha from multipletests' per-family output
    p = np.full(34, 1.825e-6)  # SPARC's signed-rank p-value, every test significant
    got = multipletests(p, alpha=0.05, method="bonferroni")
    assert round(float(got.alpha_bonferroni), 7) == 0.0014706 and got.reject.all()
    assert got.alpha_sidak == pytest.approx(sidak_alpha(0.05, 34), rel=1e-15)
    # Šidák's level makes the bound exactly alpha
    assert fwer_bound(sidak_alpha(0.05, 34), 34) == pytest.approx(0.05, rel=1e-12)


def test_helpers_vectorise_and_validate():
    np.testing.assert_allclose(bonferroni_alpha(0.05, [1, 2, 34]), [0.05, 0.025, 0.05 / 34])
    assert fwer_bound([0.01, 0.05], [[1], [34]]).shape == (2, 2)
    with pytest.raises(InputError, match="at least 1"):
        bonferroni_alpha(0.05, 0)
    with pytest.raises(InputError, match="whole number"):
        fwer_bound(0.05, 2.5)
    with pytest.raises(InputError, match="alpha"):
        sidak_alpha(1.5, 3)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(pvalues=[0.1, 1.2]), r"\[0, 1\]"),
        (dict(pvalues=[-0.1, 0.2]), r"\[0, 1\]"),
        (dict(pvalues=[0.1, np.inf]), r"\[0, 1\]"),
        (dict(pvalues=0.1), "scalar"),
        (dict(pvalues=["a"]), "must be a number"),
        (dict(pvalues=[0.1], alpha=0), "alpha"),
        (dict(pvalues=[0.1], alpha=1.0), "alpha"),
        (dict(pvalues=[0.1], method="hommel"), "unknown method"),
        (dict(pvalues=[0.1], method="ho"), "unknown method"),
        (dict(pvalues=[[0.1, 0.2]], axis=2), "axis"),
        (dict(pvalues=[[0.1, 0.2]], groups=[0, 1]), "1-d"),
        (dict(pvalues=[0.1, 0.2], groups=[0]), "one label per p-value"),
        (dict(pvalues=[0.1, 0.2], groups=[0.0, 1.0]), "not floats"),
        (dict(pvalues=[0.1, 0.2], groups=[0, 0], offsets=[0, 2]), "not both"),
        (dict(pvalues=[0.1, 0.2], offsets=[0, 1]), "end at len"),
        (dict(pvalues=[0.1, 0.2], offsets=[0, 2, 1, 2]), "never decrease"),
        (dict(pvalues=[0.1, 0.2], offsets=[0.0, 2.0]), "integer"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(InputError, match=match):
        multipletests(**kwargs)


# -----------------------------------------------------------------------------------------------
# Sidak level and family-wise bound at extreme alpha and m, against exact rational and 60-digit
# decimal arithmetic
# -----------------------------------------------------------------------------------------------


# ------------------------------------------------------------------ oracles


def _dec_log1p_neg(a: Decimal) -> Decimal:
    """ln(1 - a) to ~60 digits: the series -sum a^k / k for tiny a, Decimal.ln otherwise."""
    if a > Decimal("1e-10"):
        return (1 - a).ln()
    total, term, k = Decimal(0), a, 1
    while term > Decimal("1e-400") * a:
        total -= term / k
        k += 1
        term *= a
    return total


def _dec_expm1(y: Decimal) -> Decimal:
    """exp(y) - 1 to ~60 digits relative."""
    if abs(y) > Decimal("1e-10"):
        return y.exp() - 1
    total, term, k = Decimal(0), y, 1
    while abs(term) > Decimal("1e-400") * abs(y):
        total += term
        k += 1
        term = term * y / k
    return total


def decimal_sidak(alpha: float, m: int) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emin = -999999
        return float(-_dec_expm1(_dec_log1p_neg(Decimal(alpha)) / Decimal(m)))


def decimal_fwer(alpha: float, m: int) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emin = -999999
        return float(-_dec_expm1(_dec_log1p_neg(Decimal(alpha)) * Decimal(m)))


def fraction_fwer(alpha: float, m: int) -> Fraction:
    """1 - (1 - alpha)^m exactly (alpha's exact binary value)."""
    return 1 - (1 - Fraction(alpha)) ** m


# ------------------------------------------------------------------ 1. Šidák / FWER cancellation


def test_sidak_and_fwer_reproducers():
    """Reproducers: each of these was 0.0 (1 - alpha rounded to 1)."""
    assert fastperf.sidak_alpha(1e-300, 1) == 1e-300
    assert fastperf.fwer_bound(1e-300, 1) == 1e-300
    got = fastperf.sidak_alpha(0.05, 10**18)
    assert got == pytest.approx(decimal_sidak(0.05, 10**18), rel=1e-14)
    assert got == pytest.approx(5.129329438755e-20, rel=1e-12)  # -ln(0.95) / 1e18
    got = fastperf.fwer_bound(1e-20, 1000)
    assert got == pytest.approx(float(fraction_fwer(1e-20, 1000)), rel=1e-14)
    assert got == pytest.approx(1e-17, rel=1e-12)


@pytest.mark.parametrize("alpha", [1e-300, 1e-200, 1e-20, 1e-16, 1e-9, 0.01, 0.05, 0.5, 0.99])
@pytest.mark.parametrize("m", [1, 2, 9, 34, 1000])
def test_fwer_bound_matches_exact_fraction(alpha, m):
    assert fastperf.fwer_bound(alpha, m) == pytest.approx(float(fraction_fwer(alpha, m)), rel=1e-13)


@pytest.mark.parametrize("alpha", [1e-300, 1e-20, 1e-16, 0.01, 0.05, 0.5, 0.99])
@pytest.mark.parametrize("m", [1, 2, 34, 1000])
def test_sidak_alpha_inverts_fwer_bound_exactly(alpha, m):
    """Exact check of the Šidák level: (1 - alpha')^m computed in rationals gives alpha back."""
    level = float(fastperf.sidak_alpha(alpha, m))
    assert level > 0
    assert float(fraction_fwer(level, m)) == pytest.approx(alpha, rel=1e-13)


@settings(max_examples=50, deadline=None)
@given(exponent=st.floats(-300, -0.01), m=st.integers(1, 10**18))
def test_sidak_and_fwer_match_60_digit_decimal(exponent, m):
    alpha = 10.0 ** exponent
    assert fastperf.sidak_alpha(alpha, m) == pytest.approx(decimal_sidak(alpha, m), rel=1e-13)
    expected = decimal_fwer(alpha, m)
    assert fastperf.fwer_bound(alpha, m) == pytest.approx(expected, rel=1e-13, abs=0)


def test_multipletests_alpha_sidak_keeps_small_levels():
    got = fastperf.multipletests(np.array([0.1, 0.2, 0.3]), alpha=1e-300, method="bonferroni")
    assert got.alpha_sidak == pytest.approx(decimal_sidak(1e-300, 3), rel=1e-14)
    assert got.alpha_sidak > 0


def test_multitest_helpers_huge_m_no_cast_warning():
    """m beyond int64 (a Python int, a float): float arithmetic, no invalid-cast warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fastperf.sidak_alpha(0.05, 10**30) == pytest.approx(decimal_sidak(0.05, 10**30), rel=1e-13)
        assert fastperf.bonferroni_alpha(0.05, 1e300) == pytest.approx(5e-302, rel=1e-15)
        assert fastperf.fwer_bound(1e-300, 1e300) == pytest.approx(1 - math.exp(-1), rel=1e-14)


@pytest.mark.parametrize("name", ["sidak_alpha", "fwer_bound", "bonferroni_alpha"])
@pytest.mark.parametrize("alpha, m, word", [
    (0.05, True, "number of tests m"), (0.05, "3", "number of tests m"),
    (0.05, [2, "3"], "number of tests m"), ("0.05", 3, "alpha"), (True, 3, "alpha"),
    (0.05, 10**400, "float range"),
])
def test_multitest_helpers_refuse_strings_bools_and_huge_ints(name, alpha, m, word):
    with pytest.raises(fastperf.InputError, match=word):
        getattr(fastperf, name)(alpha, m)


@pytest.mark.parametrize("call, message", [
    (lambda: fastperf.multipletests(["0.01", "0.5"]), "pvalues must be a number"),
    (lambda: fastperf.multipletests([True, False]), "pvalues must be a number"),
    (lambda: fastperf.e_bh(["abc"], 0.05), "evalues must be a number"),
    (lambda: fastperf.e_bh([-1.0, 3.0], 0.05), r"e-values are >= 0 .* got -1\.0"),
    (lambda: fastperf.e_bh([[1.0, 3.0], [2.0, 1.0]], 0.05), "evalues must be one-dimensional"),
    (lambda: fastperf.sidak_alpha([0.05, 0.1], [1, 2, 3]), r"alpha \(2,\) and m \(3,\)"),
    (lambda: fastperf.bonferroni_alpha([0.05, 0.1], [1, 2, 3]), "do not broadcast"),
    (lambda: fastperf.fwer_bound([0.05, 0.1], [1, 2, 3]), "do not broadcast"),
    (lambda: fastperf.proportion_ci("17", "30"), "successes must be a number"),
    (lambda: fastperf.proportion_ci(True, True), "successes must be a number"),
    (lambda: fastperf.min_benchmarks("0.5", 0.05), "proportion must be a number"),
    (lambda: fastperf.min_benchmarks(None, 0.05), "proportion must be a number .* got None"),
])
def test_strings_bools_and_bad_shapes_are_refused(call, message):
    """A string is never a number here, a bool never a count; e-values are >= 0 and one per
    test; levels and counts must broadcast. Each was taken ("0.01" parsed, True a count of 1,
    -inf an e-value, a 2-d array flattened) or raised numpy's ValueError."""
    with pytest.raises(InputError, match=message):
        call()


@pytest.mark.parametrize("args", [("3", "0.9"), (None, 0.9), (3, None), (True, 0.9)])
def test_student_coefficients_take_numbers_only(args):
    """student_coefficients("3", "0.9") parsed the strings, and None was reported as "got nan";
    the one `real_array` check refuses them, naming the argument."""
    with pytest.raises(InputError, match=r"(ns|confidences) must be a number"):
        fastperf.student_coefficients(*args)


def test_none_is_a_missing_test_and_one_evalue_is_a_family_of_one():
    """None inside the p-values or e-values is a test not made (NaN), as numpy's conversion
    had it; a scalar e-value is K = 1."""
    got = fastperf.multipletests([0.01, None, 0.5])
    assert np.isnan(got.pvalues_corrected[1]) and got.pvalues_corrected[0] == pytest.approx(0.02)
    assert list(fastperf.e_bh([30.0, None], 0.05)) == [False, False]
    assert list(fastperf.e_bh(25.0, 0.05)) == [True]
