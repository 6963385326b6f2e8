"""Paired differences that overflow float64: the signed-rank test ranks (x - y) / 2 instead.

Oracle: the signed-rank statistic and p-value are scale-free, and halving is exact, so the
result on x, y equals the result on x / 4, y / 4 (computed where nothing overflows); the
Hodges-Lehmann estimate is 4 times that one where representable, and named beyond the range
where not (before: every difference was inf, so the test ranked ties, "exact (ties)").
"""
import numpy as np
import pyarrow as pa
import pytest

import fastperf as f


def test_signed_rank_of_overflowing_differences_is_that_of_the_halves():
    x = np.array([1e308, 1.5e308, 1.2e308, 1.7e308, 1.1e308, 1.3e308])
    y = np.array([-9e307, -2e307, -1.6e308, 1e307, -4e307, -1.25e308])
    got, want = f.wilcoxon(x, y), f.wilcoxon(x / 4, y / 4)
    assert (got.statistic, got.pvalue, str(got.method)) == (want.statistic, want.pvalue,
                                                             str(want.method))
    assert str(got.method) == "exact"  # distinct differences: no artificial ties
    assert not np.isfinite(got.estimate) or got.estimate == pytest.approx(4 * want.estimate)


def test_estimate_doubled_back_where_representable():
    x = np.array([1e308, -1e308, 5e307, -7e307, 9e307, 3e307])
    y = np.array([-1e308, 1e308, -6e307, 8e307, -9e307, -2e307])
    got, want = f.wilcoxon(x, y), f.wilcoxon(x / 4, y / 4)
    assert got.pvalue == want.pvalue
    assert got.estimate == 4 * want.estimate and np.isfinite(got.estimate)
    low, high = got.confidence_interval(0.8)
    wlow, whigh = want.confidence_interval(0.8)
    assert (low, high) == (4 * wlow, 4 * whigh)


def test_table_form_names_an_estimate_beyond_the_range():
    x = np.array([1e308, 1.5e308, 1.2e308, 1.7e308, 1.1e308, 1.3e308])
    t = pa.table({"benchmark": ["a"] * 12, "variant": ["b"] * 6 + ["c"] * 6,
                  "run": list(range(6)) * 2, "value": list(0.9 * x) + list(-x)})
    row = f.wilcoxon(t, baseline="b", candidate="c").table.to_pylist()[0]
    assert row["statistic"] == 21.0 and row["pvalue"] == pytest.approx(1 / 32)
    assert row["status"] == "Hodges-Lehmann estimate beyond the float64 range"
