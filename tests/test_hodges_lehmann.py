"""Order statistics of pairwise differences and Walsh averages against brute force: every
difference (average) materialised with numpy, sorted and indexed. Hand-computed Hodges-Lehmann
estimates; the narrowing rounds of the large-group path forced on data small enough to sort."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastperf
from fastperf.kernels.hodges_lehmann import difference_order_statistics, walsh_order_statistics
from naive import pairwise_differences, walsh_averages

#: materialise_max values: the default (gather small groups at once), 0 (narrow every bracket
#: down to one value, never gather), a few sums (narrow, then gather a handful).
MATERIALISE = [-1, 0, 7]


def csr(samples):
    """Sorted CSR values and offsets of a list of samples."""
    offsets = np.zeros(len(samples) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in samples])
    values = np.concatenate([np.sort(np.asarray(s, dtype=float)) for s in samples] + [np.zeros(0)])
    return values, offsets


def expected(sorted_values, ranks):
    out = np.full(len(ranks), np.nan)
    for j, r in enumerate(ranks):
        if 1 <= r <= len(sorted_values):
            out[j] = sorted_values[r - 1]
    return out


def assert_same(got, want):
    """Equal values (-0.0 == 0.0) and NaN in the same places."""
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert (got[ok] == want[ok]).all(), (got, want)


def random_sample(rng, n, kind):
    if kind == 0:  # integers: heavy ties
        return rng.integers(-3, 4, n).astype(float)
    if kind == 1:  # continuous, negative values, any scale
        return rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3)
    if kind == 2:  # timer quantisation
        return np.round(rng.lognormal(0.0, 0.5, n), 1)
    if kind == 3:  # constant
        return np.full(n, 2.5)
    return rng.choice([-0.0, 0.0, 5e-324, -1e-300, 1.0, -1.0], n)  # signed zeros, subnormals


def random_ranks(rng, total, k=6):
    """Ranks in and just outside 1..total, the middle pair, repeats, unsorted."""
    r = rng.integers(-1, total + 3, k)
    r[0] = r[1]
    r[2] = (total + 1) // 2
    r[3] = total // 2 + 1
    return r


def random_batch(rng, n_groups, max_n):
    xs, ys = [], []
    for g in range(n_groups):
        m, n = rng.integers(0, max_n + 1, 2)
        if g % 7 == 0:
            m = 1
        if g % 11 == 0:
            n = 0
        kind = g % 5
        xs.append(random_sample(rng, m, kind))
        ys.append(random_sample(rng, n, kind) + rng.choice([0.0, 0.5, -1.0]))
    return xs, ys


@pytest.mark.parametrize("materialise_max", MATERIALISE)
def test_differences_against_brute_force(materialise_max):
    rng = np.random.default_rng(1)
    xs, ys = random_batch(rng, 300, 40)
    ranks = np.array([random_ranks(rng, len(x) * len(y)) for x, y in zip(xs, ys)], dtype=np.int64)
    x, xo = csr(xs)
    y, yo = csr(ys)
    got = difference_order_statistics(x, xo, y, yo, ranks, materialise_max, n_rows=len(x) + len(y))
    assert got.shape == ranks.shape and got.dtype == np.float64
    for g in range(len(xs)):
        assert_same(got[g], expected(pairwise_differences(xs[g], ys[g]), ranks[g]))


@pytest.mark.parametrize("materialise_max", MATERIALISE)
def test_walsh_against_brute_force(materialise_max):
    rng = np.random.default_rng(2)
    ds, _ = random_batch(rng, 300, 45)
    ranks = np.array([random_ranks(rng, len(d) * (len(d) + 1) // 2) for d in ds], dtype=np.int64)
    d, do = csr(ds)
    got = walsh_order_statistics(d, do, ranks, materialise_max, n_rows=len(d))
    for g in range(len(ds)):
        assert_same(got[g], expected(walsh_averages(ds[g]), ranks[g]))


# Shapes that take each counting walk: interleaved chains (>= 64 rows), bisection of each row
# (over 32 columns a row), the plain walk; m + n above DIRECT_MAX (2 x 100,001) samples the
# full bracket by a walk over the rows rather than directly; 200 x 200 and 120 x 400 leave the
# pre-round a bracket of thousands of sums, which a second round on a sample of it narrows.
LARGER = [(70, 90), (100, 100), (3, 500), (500, 3), (1, 300), (64, 2100), (2, 100_001),
          (200, 200), (120, 400)]


@pytest.mark.parametrize("materialise_max", [-1, 0, 50])
def test_larger_groups_through_the_narrowing_rounds(materialise_max):
    rng = np.random.default_rng(3)
    xs, ys = [], []
    for g, (m, n) in enumerate(LARGER * 2):
        kind = g % 5
        xs.append(random_sample(rng, m, kind))
        ys.append(random_sample(rng, n, kind))
    ranks = [random_ranks(rng, len(x) * len(y)) for x, y in zip(xs, ys)]
    ranks = np.array(ranks, dtype=np.int64)
    x, xo = csr(xs)
    y, yo = csr(ys)
    got = difference_order_statistics(x, xo, y, yo, ranks, materialise_max, n_rows=1)
    for g in range(len(xs)):
        assert_same(got[g], expected(pairwise_differences(xs[g], ys[g]), ranks[g]))
    ds = [x for x in xs if len(x) <= 500]
    wranks = np.array([random_ranks(rng, len(d) * (len(d) + 1) // 2) for d in ds], dtype=np.int64)
    d, do = csr(ds)
    got = walsh_order_statistics(d, do, wranks, materialise_max, n_rows=1)
    for g in range(len(ds)):
        assert_same(got[g], expected(walsh_averages(ds[g]), wranks[g]))


@pytest.mark.parametrize("kind", range(5))
def test_mid_sized_groups_through_the_second_round(kind):
    """Groups whose pre-round leaves a bracket of thousands of sums (200 x 200, 120 x 400, 90 x
    700), narrowed by a second round before it is gathered, with every kind of sample (heavy
    ties, any scale, quantised, constant, signed zeros and subnormals): the median pair and
    the 95% interval's ranks, and random ones, against every difference sorted."""
    rng = np.random.default_rng(30 + kind)
    xs, ys, ranks = [], [], []
    for m, n in ((200, 200), (120, 400), (90, 700), (400, 120)):
        x, y = random_sample(rng, m, kind), random_sample(rng, n, kind) + rng.choice([0.0, 0.5])
        total = m * n
        k = int(total / 2 - 1.96 * math.sqrt(m * n * (m + n + 1) / 12))
        xs.append(x)
        ys.append(y)
        ranks.append([total // 2, total // 2 + 1, k, total + 1 - k, *rng.integers(1, total, 2)])
    x, xo = csr(xs)
    y, yo = csr(ys)
    got = difference_order_statistics(x, xo, y, yo, np.array(ranks, dtype=np.int64), n_rows=1)
    for g in range(len(xs)):
        assert_same(got[g], expected(pairwise_differences(xs[g], ys[g]), ranks[g]))
    assert not np.signbit(got[got == 0]).any()  # a zero difference as +0.0


def test_large_group_default_path():
    """2000 x 2000 (4e6 differences, above the gathering size): narrowing rounds, then
    quickselect in the gathered bracket; the confidence-bound and median ranks of a real use."""
    rng = np.random.default_rng(4)
    for x, y in [(rng.lognormal(size=2000), rng.lognormal(size=1900) * 1.1),
                 (rng.integers(0, 40, 2000).astype(float), rng.integers(0, 40, 2100).astype(float))]:
        x = np.sort(x)
        y = np.sort(y)
        total = len(x) * len(y)
        r = np.array([[1, total // 40, total // 2, total // 2 + 1, total - total // 40, total]])
        got = difference_order_statistics(x, np.array([0, len(x)]), y, np.array([0, len(y)]), r,
                                          n_rows=1)
        diffs = np.subtract.outer(x, y).ravel()
        assert_same(got[0], np.partition(diffs, r[0] - 1)[r[0] - 1])
        total = len(x) * (len(x) + 1) // 2
        r = np.array([[1, total // 40, total // 2, total // 2 + 1, total - total // 40, total]])
        got = walsh_order_statistics(x, np.array([0, len(x)]), r, n_rows=1)
        i, k = np.triu_indices(len(x))
        assert_same(got[0], np.partition((x[i] + x[k]) / 2, r[0] - 1)[r[0] - 1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-4, 4) | st.floats(-1e3, 1e3), max_size=25),
       st.lists(st.integers(-4, 4) | st.floats(-1e3, 1e3), max_size=25),
       st.sampled_from(MATERIALISE), st.data())
def test_property_every_rank(xs, ys, materialise_max, data):
    x = np.sort(np.array(xs, dtype=float))
    y = np.sort(np.array(ys, dtype=float))
    diffs = pairwise_differences(x, y)
    ranks = np.arange(0, len(diffs) + 2, dtype=np.int64)[None, :]
    got = difference_order_statistics(x, np.array([0, len(x)]), y, np.array([0, len(y)]), ranks,
                                      materialise_max, n_rows=1)
    assert_same(got[0], expected(diffs, ranks[0]))
    walsh = walsh_averages(x)
    ranks = np.arange(0, len(walsh) + 2, dtype=np.int64)[None, :]
    got = walsh_order_statistics(x, np.array([0, len(x)]), ranks, materialise_max, n_rows=1)
    assert_same(got[0], expected(walsh, ranks[0]))


def test_hodges_lehmann_shift_by_hand():
    # x - y for x = (1, 4, 6), y = (0.5, 2, 3):
    #   1 - (0.5, 2, 3) = 0.5, -1, -2;  4 - ... = 3.5, 2, 1;  6 - ... = 5.5, 4, 3
    #   sorted: -2, -1, 0.5, 1, 2, 3, 3.5, 4, 5.5: the median (5th of 9) is 2
    x = np.array([1.0, 4.0, 6.0])
    y = np.array([0.5, 2.0, 3.0])
    ranks = np.array([[5, 1, 9, 2, 8]], dtype=np.int64)
    got = difference_order_statistics(x, np.array([0, 3]), y, np.array([0, 3]), ranks, n_rows=6)
    assert got[0].tolist() == [2.0, -2.0, 5.5, -1.0, 4.0]


def test_pseudo_median_by_hand():
    # Walsh averages of d = (-1, 2, 3, 7), i <= k:
    #   -1, 0.5, 1, 3 (with -1);  2, 2.5, 4.5 (with 2);  3, 5 (with 3);  7
    #   sorted: -1, 0.5, 1, 2, 2.5, 3, 3, 4.5, 5, 7: the median is (2.5 + 3) / 2 = 2.75
    d = np.array([-1.0, 2.0, 3.0, 7.0])
    ranks = np.array([[5, 6, 1, 10, 7, 0, 11]], dtype=np.int64)
    got = walsh_order_statistics(d, np.array([0, 4]), ranks, n_rows=4)
    assert got[0, :5].tolist() == [2.5, 3.0, -1.0, 7.0, 3.0]
    assert np.isnan(got[0, 5:]).all()
    assert (got[0, 0] + got[0, 1]) / 2 == 2.75


def test_float_formulas():
    """x_i - y_k and (d_i + d_k) / 2 as float64 computes them, not as exact reals."""
    x = np.array([0.1, 0.7])
    y = np.array([0.3, 0.2])  # sorted below
    got = difference_order_statistics(x, np.array([0, 2]), np.sort(y), np.array([0, 2]),
                                      np.array([[1, 2, 3, 4]]), n_rows=4)
    assert got[0].tolist() == sorted([0.1 - 0.3, 0.1 - 0.2, 0.7 - 0.3, 0.7 - 0.2])
    d = np.array([0.1, 0.2, 1e308, 1.7e308])  # 1e308 + 1.7e308 overflows: inf, as numpy
    got = walsh_order_statistics(d, np.array([0, 4]), np.arange(1, 11)[None, :], n_rows=4)
    with np.errstate(over="ignore"):
        assert_same(got[0], walsh_averages(d))
    assert got[0, -2] == np.inf


@pytest.mark.parametrize("materialise_max", [-1, 0])
def test_infinite_values(materialise_max):
    """Infinite sums order like numpy's as long as no pair gives inf - inf."""
    cases = [([1.0, np.inf], [0.0, 2.0]), ([-np.inf, 1.0, 3.0], [0.0, 2.0]),
             ([-np.inf, -np.inf], [1.0]), ([np.inf], [1.0, 2.0])]
    for xs, ys in cases:
        x, y = np.array(xs), np.array(ys)
        diffs = pairwise_differences(x, y)
        ranks = np.arange(len(diffs) + 2)[None, :]
        got = difference_order_statistics(x, np.array([0, len(x)]), y, np.array([0, len(y)]),
                                          ranks, materialise_max, n_rows=1)
        assert_same(got[0], expected(diffs, ranks[0]))
        walsh = walsh_averages(x)
        ranks = np.arange(len(walsh) + 2)[None, :]
        got = walsh_order_statistics(x, np.array([0, len(x)]), ranks, materialise_max, n_rows=1)
        assert_same(got[0], expected(walsh, ranks[0]))


def test_empty_groups_and_no_ranks():
    x, xo = csr([[], [1.0], [2.0, 3.0]])
    y, yo = csr([[1.0], [], [0.0]])
    ranks = np.array([[1, 1], [1, 0], [2, 1]], dtype=np.int64)
    got = difference_order_statistics(x, xo, y, yo, ranks, n_rows=6)
    assert np.isnan(got[:2]).all() and got[2].tolist() == [3.0, 2.0]
    got = walsh_order_statistics(x, xo, ranks, n_rows=3)
    assert np.isnan(got[0]).all() and got[1, 0] == 1.0 and np.isnan(got[1, 1])
    assert got[2].tolist() == [2.5, 2.0]
    none = difference_order_statistics(x, xo, y, yo, np.zeros((3, 0), dtype=np.int64), n_rows=6)
    assert none.shape == (3, 0)


def test_parallel_build_agrees(parallel_always):
    rng = np.random.default_rng(5)
    xs, ys = random_batch(rng, 60, 30)
    ranks = np.array([random_ranks(rng, len(x) * len(y)) for x, y in zip(xs, ys)], dtype=np.int64)
    x, xo = csr(xs)
    y, yo = csr(ys)
    got = difference_order_statistics(x, xo, y, yo, ranks, n_rows=1)
    for g in range(len(xs)):
        assert_same(got[g], expected(pairwise_differences(xs[g], ys[g]), ranks[g]))
    ranks = np.array([random_ranks(rng, len(d) * (len(d) + 1) // 2) for d in xs], dtype=np.int64)
    got = walsh_order_statistics(x, xo, ranks, n_rows=1)
    for g in range(len(xs)):
        assert_same(got[g], expected(walsh_averages(xs[g]), ranks[g]))


@pytest.mark.parametrize("m, n", [(2, 2), (3, 3), (2, 6), (3, 4), (4, 4), (2, 20), (5, 5)])
def test_an_unreachable_interval_is_the_whole_line(m, n):
    """Where even [D_(1), D_(mn)] covers less than `confidence` (2 P(U = 0) > alpha, by
    enumerating the rank-sum null), the interval is the whole line, not R's narrower widest
    interval: a 95 % interval must cover at least 95 %."""
    arrangements = math.comb(m + n, m)
    zero = sum(1 for chosen in itertools.combinations(range(m + n), m)
               if sorted(chosen) == list(range(m)))  # every x below every y: U = 0
    reachable = 2 * zero / arrangements <= 0.05
    x = np.linspace(1.0, 2.0, m)
    y = np.linspace(3.0, 4.5, n)
    table = pa.table({"variant": ["x"] * m + ["y"] * n, "value": np.concatenate([x, y])})
    row = fastperf.mannwhitneyu(table, baseline="x", candidate="y", log=True,
                                by=None).table.to_pylist()[0]
    assert (row["ci_low"] == 0.0 and row["ci_high"] == np.inf) == (not reachable)
    if reachable:
        assert 0 < row["ci_low"] <= row["ratio"] <= row["ci_high"] < np.inf
