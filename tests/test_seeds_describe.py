"""The seeds' worked examples that `describe` and its intervals reproduce."""
import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf.engine.intervals import student_halfwidth


def test_lilja_paired_difference_interval():
    """Seed 000: before/after differences -1 -5 4 -5 -3 4; 95% CI of the mean of differences.

    The slide prints [-5.36, 3.36] from s_d rounded to 4.15; the data give [-5.3523, 3.3523].
    """
    before = np.array([85, 83, 94, 90, 88, 87.0])
    after = np.array([86, 88, 90, 95, 91, 83.0])
    t = pa.table({"benchmark": ["paired"] * 6, "value": before - after})
    row = fastperf.describe(t, variant=None).groups.to_pylist()[0]
    assert row["mean"] == -1
    assert row["sd"] == pytest.approx(4.15, abs=0.005)
    assert round(row["ci_mean_low"], 4) == -5.3523 and round(row["ci_mean_high"], 4) == 3.3523


# Seed 004, Table 1: Student coefficients t[p; n-1] for n measurements and confidence p.
PAKHOMOV_TABLE_1 = {
    2: [1.37638, 1.96261, 3.07768, 6.31375, 12.70620, 63.65674],
    3: [1.06066, 1.38621, 1.88562, 2.91999, 4.30265, 9.92484],
    4: [0.97847, 1.24978, 1.63774, 2.35336, 3.18245, 5.84091],
    5: [0.94096, 1.18957, 1.53321, 2.13185, 2.77645, 4.60409],
    6: [0.91954, 1.15577, 1.47588, 2.01505, 2.57058, 4.03214],
    7: [0.90570, 1.13416, 1.43976, 1.94318, 2.44691, 3.70743],
    8: [0.89603, 1.11916, 1.41492, 1.89458, 2.36462, 3.49948],
    9: [0.88889, 1.10815, 1.39682, 1.85955, 2.30600, 3.35539],
    10: [0.88340, 1.09972, 1.38303, 1.83311, 2.26216, 3.24984],
}
CONFIDENCES = [0.6, 0.7, 0.8, 0.9, 0.95, 0.99]


@pytest.mark.parametrize("n", sorted(PAKHOMOV_TABLE_1))
def test_pakhomov_student_coefficients(n):
    # the half-width with sd = sqrt(n) is the coefficient itself
    got = [student_halfwidth(np.array([n]), np.array([np.sqrt(n)]), p)[0] for p in CONFIDENCES]
    np.testing.assert_allclose(got, PAKHOMOV_TABLE_1[n], atol=5e-6)


def test_pakhomov_two_run_interval():
    """Seed 004, Table 2: runs 22.7 and 22.6 give 22.65 +/- 0.64 at 95%.

    (The table's second row, 22.5 and 22.6 -> 22.55 +/- 0.4, contradicts its own data: the same
    spread gives +/- 0.64 there too.)
    """
    t = pa.table({"benchmark": ["winstone"] * 4, "variant": ["EE 840"] * 2 + ["D 840"] * 2,
                  "value": [22.7, 22.6, 22.5, 22.6]})
    rows = fastperf.describe(t).groups.to_pylist()
    for row, mean in zip(rows, [22.65, 22.55]):
        assert row["mean"] == pytest.approx(mean)
        assert round((row["ci_mean_high"] - row["ci_mean_low"]) / 2, 2) == 0.64
