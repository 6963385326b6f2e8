"""Selection kernels against numpy's sort."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastperf.kernels.order_statistics import move_nan_last, select


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-5, 5) | st.floats(-1e6, 1e6), min_size=1, max_size=80), st.data())
def test_select_gives_the_sorted_value_and_partitions(values, data):
    x = np.array(values, dtype=float)
    left = data.draw(st.integers(0, len(x) - 1))
    right = data.draw(st.integers(left + 1, len(x)))
    k = data.draw(st.integers(left, right - 1))
    expected = np.sort(x[left:right])[k - left]
    before = x.copy()
    select(x, k, left, right)
    assert x[k] == expected
    assert (x[left:k] <= x[k]).all() and (x[k + 1:right] >= x[k]).all()
    assert sorted(x[left:right]) == sorted(before[left:right])  # a permutation of the slice
    assert (x[:left] == before[:left]).all() and (x[right:] == before[right:]).all()


def test_select_many_ties_and_sorted_inputs():
    rng = np.random.default_rng(0)
    for x in (np.zeros(1001), np.arange(1000.0), np.arange(1000.0)[::-1].copy(),
              rng.integers(0, 3, 5000).astype(float)):
        for k in (0, 1, len(x) // 2, len(x) - 1):
            y = x.copy()
            select(y, k, 0, len(y))
            assert y[k] == np.sort(x)[k]


def test_move_nan_last():
    x = np.array([np.nan, 1.0, np.nan, 3.0, 2.0])
    assert move_nan_last(x) == 3
    assert x[:3].tolist() == [1.0, 3.0, 2.0] and np.isnan(x[3:]).all()


def test_sorted_copy_matches_numpy_on_both_sides_of_the_rank_sort_limit():
    from fastperf.kernels.order_statistics import RANK_SORT_MAX_N, sorted_copy

    rng = np.random.default_rng(1)
    for n in (0, 1, 2, 31, RANK_SORT_MAX_N, RANK_SORT_MAX_N + 1, 500):
        for x in (rng.normal(size=n), rng.integers(0, 4, n).astype(float)):  # with ties
            before = x.copy()
            assert np.array_equal(sorted_copy(x), np.sort(x))
            assert np.array_equal(x, before)  # the input is not touched


def test_stable_order_is_numpys_stable_argsort():
    """Against ``np.argsort(kind="stable")``: both sides of the rank-count limit, ties, both
    zeros (equal, so in the order they come), infinities, subnormals, magnitudes far apart,
    and a sample whose high bytes never change (the radix passes skipped)."""
    from fastperf.kernels.order_statistics import RANK_SORT_MAX_N, stable_order

    rng = np.random.default_rng(2)
    odd = np.array([-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, 5e-324, -5e-324, 1e308, -1e308])
    for n in (0, 1, 2, 31, RANK_SORT_MAX_N, RANK_SORT_MAX_N + 1, 500, 20_000):
        for x in (rng.lognormal(0, 0.02, n), np.round(rng.lognormal(0, 0.02, n), 2),
                  rng.choice(odd, n), rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n),
                  np.full(n, 3.25), 1.0 + rng.integers(0, 4, n) * 2.0 ** -52):
            before = x.copy()
            assert np.array_equal(stable_order(x), np.argsort(x, kind="stable")), n
            assert np.array_equal(x.view(np.int64), before.view(np.int64))  # not touched
