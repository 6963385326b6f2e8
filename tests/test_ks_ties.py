"""`ks_2samp` with ties: the exact p-value conditional on the tie pattern (issue 18, "Also found by
the R cross-check"), against brute-force enumeration of every assignment of the pooled tied
sample, against integer path counts, against R's published values (Schröer & Trenkler 1995's
tied example), and unchanged against scipy on untied data."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from fastperf.stats.ks import ks_2samp
from naive import ks_tied_pvalue_counted, ks_tied_pvalues_enumerated

ALTERNATIVES = ["two-sided", "less", "greater"]


def scipy_ks(x, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return sps.ks_2samp(x, y, **kwargs)


def test_schroer_trenkler_tied_example_as_r():
    """Schröer & Trenkler (1995)'s tied example, as R's psmirnov prints it (r-forge coin project,
    pkg/smirnov/tests/psmirnov.Rout.save): z = (1, 2, 2, 3, 3 | 1, 2, 3, 3, 4, 5, 6), m = 5,
    q = 3/7: P(D >= 3/7) = 0.2424242 two-sided, P(D+ >= 3/7) = 0.1780303 one-sided."""
    x, y = [1.0, 2, 2, 3, 3], [1.0, 2, 3, 3, 4, 5, 6]
    two = ks_2samp(x, y)
    assert two.statistic == pytest.approx(3 / 7, rel=1e-15)
    assert two.pvalue == pytest.approx(192 / 792, rel=1e-13)   # R: 0.2424242
    assert round(float(two.pvalue), 7) == 0.2424242
    greater = ks_2samp(x, y, alternative="greater")
    assert greater.pvalue == pytest.approx(141 / 792, rel=1e-13)   # R: 0.1780303
    assert round(float(greater.pvalue), 7) == 0.1780303
    less = ks_2samp(x, y, alternative="less")   # D- = 0: every assignment reaches it
    assert (less.statistic, less.pvalue) == (0.0, 1.0)
    for res in (two, greater, less):
        assert (res.status, res.pvalue_method) == ("ok", "exact")
    # the report: before, the continuous-data (conservative) p-value
    assert scipy_ks(x, y, method="exact").pvalue > two.pvalue + 0.05


@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(st.integers(0, 4), min_size=1, max_size=8),
    y=st.lists(st.integers(0, 4), min_size=1, max_size=8),
    method=st.sampled_from(["auto", "exact"]),
)
def test_tied_pvalues_equal_brute_force_enumeration(x, y, method):
    """Every assignment of the pooled tied sample to x and y, for n1, n2 <= 8 and values in 0..4
    (nearly always tied), all three alternatives; the integer path count agrees too."""
    x, y = np.array(x, dtype=float), np.array(y, dtype=float)
    expected = ks_tied_pvalues_enumerated(x, y)
    for alternative in ALTERNATIVES:
        statistic, p = expected[alternative]
        got = ks_2samp(x, y, alternative=alternative, method=method)
        assert got.statistic == pytest.approx(float(statistic), rel=1e-15, abs=1e-15)
        assert got.statistic == scipy_ks(x, y, alternative=alternative).statistic
        assert abs(got.pvalue - float(p)) <= 1e-12 * float(p), (alternative, got.pvalue, p)
        assert (got.status, got.pvalue_method) == ("ok", "exact")
        assert ks_tied_pvalue_counted(x, y, alternative) == p


@settings(max_examples=40, deadline=None)
@given(
    pooled=st.lists(st.floats(-10, 10), min_size=2, max_size=24, unique=True),
    split=st.integers(1, 23),
    alternative=st.sampled_from(ALTERNATIVES),
)
def test_untied_data_unchanged_scipy_exact(pooled, split, alternative):
    """No value shared and none repeated: scipy's continuous-data exact p-value, as before."""
    split = min(split, len(pooled) - 1)
    x, y = np.array(pooled[:split]), np.array(pooled[split:])
    got = ks_2samp(x, y, alternative=alternative, method="exact")
    ref = scipy_ks(x, y, alternative=alternative, method="exact")
    assert got.statistic == ref.statistic
    assert abs(got.pvalue - ref.pvalue) <= 1e-12 * ref.pvalue


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_batch_of_tied_and_untied_pairs_in_one_call(alternative):
    """A ragged batch (sizes 1..30, rounded values: ties within and across samples, or none):
    each tied pair equals the integer path count, each untied pair scipy's exact p-value."""
    rng = np.random.default_rng(ALTERNATIVES.index(alternative) + 40)
    x = rng.normal(size=(60, 30))
    y = rng.normal(0.4, size=(60, 30))
    x[::2], y[::2] = np.round(x[::2], 1), np.round(y[::2], 1)
    got = ks_2samp(x, y, alternative=alternative)
    for k in range(60):
        pooled = np.concatenate([x[k], y[k]])
        if np.unique(pooled).size < pooled.size:
            expected = float(ks_tied_pvalue_counted(x[k], y[k], alternative))
        else:
            expected = scipy_ks(x[k], y[k], alternative=alternative, method="exact").pvalue
        assert abs(got.pvalue[k] - expected) <= 1e-12 * expected, (k, got.pvalue[k], expected)
        assert got.statistic[k] == scipy_ks(x[k], y[k], alternative=alternative).statistic
    assert (got.status == "ok").all() and (got.pvalue_method == "exact").all()


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_small_tied_pvalues_keep_relative_precision(alternative):
    """300 against 520 values rounded to integers (R's psmirnov test sizes), shifted so that p is
    tiny: the float recursion against the exact integer count, to 1e-12 relative."""
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(0.0, 1.0, 300))
    y = np.round(rng.normal(-0.6 if alternative == "less" else 0.6, 1.0, 520))
    got = ks_2samp(x, y, alternative=alternative)
    expected = float(ks_tied_pvalue_counted(x, y, alternative))
    assert expected < 1e-8
    assert got.pvalue_method == "exact"
    assert abs(got.pvalue - expected) <= 1e-12 * expected


def test_far_tail_tied_pvalue_keeps_relative_precision():
    """p about 1.7e-34 (300 against 400 rounded values, shifted by 1.2 sd): no 1 - cdf."""
    rng = np.random.default_rng(8)
    x, y = np.round(rng.normal(0.0, 1.0, 300)), np.round(rng.normal(1.2, 1.0, 400))
    got = ks_2samp(x, y)
    expected = float(ks_tied_pvalue_counted(x, y, "two-sided"))
    assert 0 < expected < 1e-30
    assert abs(got.pvalue - expected) <= 1e-12 * expected


def test_heavy_ties_all_equal_and_two_valued():
    """All-equal samples: D = 0 and p = 1; two-valued data: the enumeration's p, below scipy's
    continuous-data (conservative) one."""
    same = ks_2samp(np.full(5, 2.0), np.full(4, 2.0))
    assert (same.statistic, same.pvalue, same.status) == (0.0, 1.0, "ok")
    x, y = np.array([0.0] * 6 + [1.0] * 2), np.array([0.0] * 2 + [1.0] * 6)
    got = ks_2samp(x, y)
    expected = float(ks_tied_pvalues_enumerated(x, y)["two-sided"][1])
    assert abs(got.pvalue - expected) <= 1e-12 * expected
    assert got.pvalue < scipy_ks(x, y, method="exact").pvalue


def test_tied_pairs_too_large_keep_the_continuous_exact_pvalue_with_a_warning():
    """n1 n2 > 10**8 with ties (method="exact" only: "auto" is asymptotic there): the
    continuous-data exact p-value as before (scipy's), with a RuntimeWarning naming why."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 200, 10_001).astype(float)
    y = rng.integers(0, 200, 10_001).astype(float) + 3
    with pytest.warns(RuntimeWarning, match="conditional on the ties not computed"):
        got = ks_2samp(x, y, method="exact")
    ref = scipy_ks(x, y, method="exact")
    assert got.statistic == ref.statistic
    assert got.pvalue_method == "exact"
    assert abs(got.pvalue - ref.pvalue) <= 1e-12 * ref.pvalue


def test_center_median_keeps_the_continuous_pvalue():
    """Centred samples tie at 0 by construction (odd sizes): the Speedup-Test protocol's p-value,
    scipy's on the centred samples, is kept."""
    rng = np.random.default_rng(5)
    x, y = rng.lognormal(size=11), rng.lognormal(size=9)
    got = ks_2samp(x, y, center="median")
    ref = scipy_ks(x - np.median(x), y - np.median(y))
    assert got.statistic == ref.statistic
    assert abs(got.pvalue - ref.pvalue) <= 1e-12 * ref.pvalue
