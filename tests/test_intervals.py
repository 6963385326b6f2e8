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
