"""Interval helpers against exact enumeration (median; tests/naive.py) and scipy (Student)."""
import numpy as np
import pytest
import scipy.stats as sps

from fastperf import InputError
from fastperf.engine.intervals import median_interval_ranks, student_halfwidth
from naive import median_ci_ranks


@pytest.mark.parametrize("confidence", [0.5, 0.75, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_median_ranks_match_exact_enumeration(confidence):
    sizes = np.arange(0, 121)
    lower, upper, coverage = median_interval_ranks(sizes, confidence)
    for n, lo, hi, cov in zip(sizes, lower, upper, coverage):
        expected = median_ci_ranks(int(n), confidence) if n else None
        if expected is None:
            assert lo == 0 and hi == 0 and np.isnan(cov), n
        else:
            assert (lo, hi) == expected[:2], n
            assert cov == pytest.approx(float(expected[2]), rel=1e-12)
            assert cov >= confidence


def test_median_ranks_large_n_exact():
    for n in (999, 1000, 2500):
        lo, hi, cov = median_interval_ranks(np.array([n]), 0.95)
        assert (lo[0], hi[0]) == median_ci_ranks(n, 0.95)[:2]


def test_median_ranks_textbook_values():
    # n = 10 at 95%: [x_(2), x_(9)], coverage 1 - 2 * 11/1024 (classic sign-test table)
    lo, hi, cov = median_interval_ranks(np.array([10, 6, 5]), 0.95)
    assert lo.tolist() == [2, 1, 0] and hi.tolist() == [9, 6, 0]
    assert cov[0] == 1 - 2 * 11 / 1024 and cov[1] == 1 - 2 / 64 and np.isnan(cov[2])


def test_student_halfwidth_matches_scipy():
    rng = np.random.default_rng(0)
    n = np.array([2, 3, 10, 31, 500])
    sd = rng.uniform(0.1, 2, n.size)
    for c in (0.9, 0.95, 0.99):
        got = student_halfwidth(n, sd, c)
        lo, hi = sps.t.interval(c, n - 1, loc=0, scale=sd / np.sqrt(n))
        np.testing.assert_allclose(got, hi, rtol=1e-12)
    assert np.isnan(student_halfwidth(np.array([1, 0]), np.array([1.0, 1.0]), 0.95)).all()


@pytest.mark.parametrize("bad", [0, 1, -0.5, 1.5])
def test_confidence_outside_unit_interval(bad):
    with pytest.raises(InputError, match="confidence"):
        median_interval_ranks(np.array([10]), bad)


def boost_shortest_median_ranks(size: int, confidence: float) -> tuple[int, int, float]:
    """benchstat's shortest median interval from Boost's binomial pmf (scipy.stats) over every
    k, sorted by distance from the middle, the left first: the rule written out plainly."""
    k = np.arange(size + 1)
    pmf = sps.binom.pmf(np.minimum(k, size - k), size, 0.5)
    order = np.lexsort((k, np.abs(2 * k - size)))
    accumulated = np.cumsum(pmf[order])
    stop = min(int(np.argmax(accumulated >= confidence)) if accumulated[-1] >= confidence
               else size, size)
    taken = k[order[:stop + 1]]
    low, high = int(taken.min()), int(taken.max()) + 1
    return (low if low >= 1 else 0), (high if high <= size else 0), float(accumulated[stop])


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 0.999999])
def test_shortest_median_ranks_above_the_exact_pmf_match_boost(confidence):
    """Above EXACT_PMF_MAX_SIZE the shortest rule's binomial terms come from the central
    binomial coefficient's series and ratios, not scipy.stats: the same ranks as Boost's pmf
    gives, at every size from 2,001 to 2,600 and at sizes up to 3 million; coverage within
    1e-12."""
    rng = np.random.default_rng(int(confidence * 1e6))
    sizes = np.concatenate([np.arange(2001, 2601), rng.integers(2601, 3_000_000, 12)])
    lower, upper, coverage = median_interval_ranks(sizes, confidence, rule="shortest")
    for size, lo, hi, cov in zip(sizes.tolist(), lower, upper, coverage):
        want = boost_shortest_median_ranks(size, confidence)
        assert (lo, hi) == want[:2], size
        assert cov == pytest.approx(want[2], rel=1e-12), size


@pytest.mark.parametrize("size", [2001, 2002, 3001, 5000, 12345])
def test_half_binomial_pmf_series_against_exact_integers(size):
    """The series for the middle term and the ratios outwards, against C(size, k) / 2^size
    divided as exact integers (correctly rounded), over 8 standard deviations each side."""
    from fractions import Fraction
    from math import comb

    from fastperf.engine.intervals import half_binomial_pmf

    pmf = half_binomial_pmf(size)
    half = size // 2
    for k in range(half - int(4 * size ** 0.5), half + 1, 7):
        exact = float(Fraction(comb(size, k), 2 ** size))
        assert pmf[k] == pytest.approx(exact, rel=1e-13), k


@pytest.mark.parametrize("size", [7, 2000, 2001, 12345])
def test_half_binomial_pmf_from_a_lowest_term_against_exact_integers(size):
    """The terms from `lowest` up (what a large sample's interval reads), against
    C(size, k) / 2^size divided as exact integers, and against the whole half's same terms:
    the outward products give the same bits however far they run."""
    from fractions import Fraction
    from math import comb

    from fastperf.engine.intervals import half_binomial_pmf

    half = size // 2
    whole = half_binomial_pmf(size)
    for lowest in sorted({0, max(half - 3 * int(size ** 0.5), 0), half - 1, half}):
        part = half_binomial_pmf(size, lowest)
        assert part.shape == (half - lowest + 1,)
        assert np.array_equal(part, whole[lowest:])
        for k in (lowest, (lowest + half) // 2, half):
            exact = float(Fraction(comb(size, k), 2 ** size))
            assert part[k - lowest] == pytest.approx(exact, rel=1e-13), (lowest, k)
