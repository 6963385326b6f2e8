"""Exact tie-conditional tails computed once per distinct test (`fastperf.engine.ranks`:
`distinct_tie_tests`, `tie_tails_once`): the shared results are bit for bit each test's own
kernel result, whatever the order of the tests and whatever else is in the batch, and agree with
the brute-force enumeration of tests/naive.py."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import fastperf
import fastperf.engine.ranks as ranks
from fastperf.engine.ranks import distinct_tie_tests, tie_tails_once
from fastperf.kernels.rank_sum_ties import rank_sum_tie_tails
from fastperf.kernels.signed_rank_ties import signed_rank_tie_tails
from naive import (
    doubled_midranks, p_from_tails, rank_sum_null_enumerated, rank_sum_tails_enumerated,
    signed_rank_null_enumerated,
)

RTOL = 1e-12


# --- batches of tests --------------------------------------------------------------------------


def tie_pattern(rng, n_max=9):
    """The tie blocks of a few small integers: doubled midranks and counts."""
    values = np.sort(rng.integers(0, int(rng.integers(1, 4)), int(rng.integers(1, n_max + 1))))
    counts = np.unique(values, return_counts=True)[1]
    scores = doubled_midranks(values)[np.cumsum(counts) - counts]  # each block's first value
    return scores.astype(np.int64), counts.astype(np.int64)


def batch_with_repeats(rng, n_tests, n_patterns=5, shuffle_blocks=False):
    """`n_tests` rank-sum tests drawn (with repeats) from a few (pattern, m, observed) tests;
    with `shuffle_blocks`, some repeats list their blocks in another order (the same multiset,
    a different test for the comparison)."""
    distinct = []
    for _ in range(n_patterns):
        scores, counts = tie_pattern(rng)
        n_total = int(counts.sum())
        for _ in range(3):
            m = int(rng.integers(0, n_total + 1))
            items = np.repeat(scores, counts)
            observed = int(rng.choice(items, m, replace=False).sum()) if m else 0
            distinct.append((scores, counts, m, observed + int(rng.integers(-1, 2))))
    picks = rng.integers(0, len(distinct), n_tests)
    tests = []
    for i in picks:
        scores, counts, m, observed = distinct[i]
        if shuffle_blocks and scores.size > 1 and rng.random() < 0.3:
            perm = rng.permutation(scores.size)
            scores, counts = scores[perm], counts[perm]
        tests.append((scores, counts, m, observed))
    return tests


def as_csr(tests, lead=0):
    """(scores, counts, block_offsets, m, observed) of `tests`; `lead` unused blocks first (the
    offsets then start there)."""
    scores = np.concatenate([np.full(lead, 7, np.int64)] + [t[0] for t in tests])
    counts = np.concatenate([np.full(lead, 3, np.int64)] + [t[1] for t in tests])
    offsets = lead + np.concatenate([[0], np.cumsum([t[0].size for t in tests])]).astype(np.int64)
    m = np.array([t[2] for t in tests], dtype=np.int64)
    observed = np.array([t[3] for t in tests], dtype=np.int64)
    return scores, counts, offsets, m, observed


def one_by_one(kernel, tests, signed=False):
    """Each test alone, in a batch of one: (lower, upper)."""
    lower, upper = [], []
    for scores, counts, m, observed in tests:
        per_test = ((np.array([observed]),) if signed
                    else (np.array([m]), np.array([observed])))
        lo, up = kernel(scores, counts, np.array([0, scores.size], dtype=np.int64), *per_test,
                        n_rows=0)
        lower.append(lo[0])
        upper.append(up[0])
    return np.array(lower), np.array(upper)


def assert_tails_match(lower, upper, dist, total, observed):
    """The tails against the enumerated distribution ({sum: count}, total), relatively."""
    exact_lower = Fraction(sum(c for s, c in dist.items() if s <= observed), total)
    exact_upper = Fraction(sum(c for s, c in dist.items() if s >= observed), total)
    for got, exact in ((lower, exact_lower), (upper, exact_upper)):
        if exact == 0:
            assert got == 0.0
        else:
            assert abs(Fraction(float(got)) - exact) <= RTOL * exact, (got, float(exact))


def key_of(scores, counts, m, observed):
    """A test as a tuple (blocks in order, m, observed)."""
    return tuple(scores.tolist()), tuple(counts.tolist()), m, observed


# --- distinct_tie_tests -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_distinct_tests_match_a_dictionary_of_tuples(seed):
    """The first test of each distinct (blocks in order, m, observed), ascending, as a Python
    dict finds them; empty groups; offsets not at 0."""
    rng = np.random.default_rng(seed)
    tests = batch_with_repeats(rng, 300)
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), 0, 0)
    tests[5:5] = [empty, empty]
    tests.append(empty)
    scores, counts, offsets, m, observed = as_csr(tests, lead=4)
    first, inverse = distinct_tie_tests(scores, counts, offsets, (m, observed))
    seen = {}
    for i, t in enumerate(tests):
        seen.setdefault(key_of(*t), i)
    assert first.tolist() == sorted(seen.values())
    for i, t in enumerate(tests):
        assert first[inverse[i]] == seen[key_of(*t)]


def test_reordered_blocks_are_other_tests():
    """The same blocks in another order hash alike (a sum over the blocks) but compare
    different: such a test shares no result with the first one of its hash; every test's
    representative is equal to it, blocks in order."""
    rng = np.random.default_rng(9)
    tests = batch_with_repeats(rng, 300, shuffle_blocks=True)
    scores, counts, offsets, m, observed = as_csr(tests)
    first, inverse = distinct_tie_tests(scores, counts, offsets, (m, observed))
    assert np.all(np.diff(first) > 0)
    for i, t in enumerate(tests):
        assert key_of(*tests[first[inverse[i]]]) == key_of(*t)
    assert first.size >= len({key_of(*t) for t in tests})


def test_distinct_tests_without_repeats_and_tiny_batches():
    rng = np.random.default_rng(11)
    tests = list({key_of(*t): t for t in batch_with_repeats(rng, 200)}.values())
    first, inverse = distinct_tie_tests(*as_csr(tests)[:3], as_csr(tests)[3:])
    assert first.tolist() == list(range(len(tests))) and inverse.tolist() == first.tolist()
    for n in (0, 1):
        first, inverse = distinct_tie_tests(*as_csr(tests[:n])[:3], as_csr(tests[:n])[3:])
        assert first.tolist() == inverse.tolist() == list(range(n))


def test_hash_collisions_are_compared_away(monkeypatch):
    """With every hash equal, each test is compared with the first: only true repeats of it
    share its result, every other test stands alone; the tails are still each test's own."""
    rng = np.random.default_rng(3)
    tests = batch_with_repeats(rng, 120, shuffle_blocks=True)
    scores, counts, offsets, m, observed = as_csr(tests)
    monkeypatch.setattr(ranks, "tie_test_hashes",
                        lambda *args: np.zeros(offsets.size - 1, dtype=np.uint64))
    first, inverse = distinct_tie_tests(scores, counts, offsets, (m, observed))
    for i, t in enumerate(tests):
        assert key_of(*tests[first[inverse[i]]]) == key_of(*t)
    repeats_of_first = [i for i, t in enumerate(tests) if key_of(*t) == key_of(*tests[0])]
    assert first.size == len(tests) - len(repeats_of_first) + 1
    lower, upper = tie_tails_once(rank_sum_tie_tails, scores, counts, offsets, (m, observed),
                                  n_rows=0)
    alone_lower, alone_upper = one_by_one(rank_sum_tie_tails, tests)
    assert np.array_equal(lower, alone_lower) and np.array_equal(upper, alone_upper)


# --- shared tails -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_shared_rank_sum_tails_are_each_tests_own_and_exact(seed):
    """Many repeats: the shared tails equal each test computed alone, bit for bit, and the
    enumeration of every m-subset."""
    rng = np.random.default_rng(100 + seed)
    tests = batch_with_repeats(rng, 200, shuffle_blocks=seed % 2 == 1)
    scores, counts, offsets, m, observed = as_csr(tests, lead=seed)
    lower, upper = tie_tails_once(rank_sum_tie_tails, scores, counts, offsets, (m, observed),
                                  n_rows=0)
    first, _ = distinct_tie_tests(scores, counts, offsets, (m, observed))
    assert first.size < len(tests) / 2  # the sharing was really exercised
    alone_lower, alone_upper = one_by_one(rank_sum_tie_tails, tests)
    assert np.array_equal(lower, alone_lower) and np.array_equal(upper, alone_upper)
    for i in first:
        t_scores, t_counts, t_m, t_observed = tests[i]
        dist, total = rank_sum_null_enumerated(t_scores, t_counts, t_m)
        assert_tails_match(lower[i], upper[i], dist, total, t_observed)


def test_order_and_company_do_not_change_a_test():
    """Shuffling the batch permutes the answers; a batch's answers do not change when other
    tests (repeats of them and new ones) are added before and after it."""
    rng = np.random.default_rng(21)
    tests = batch_with_repeats(rng, 150)
    lower, upper = tie_tails_once(rank_sum_tie_tails, *as_csr(tests)[:3], as_csr(tests)[3:],
                                  n_rows=0)
    perm = rng.permutation(len(tests))
    shuffled = [tests[i] for i in perm]
    lo2, up2 = tie_tails_once(rank_sum_tie_tails, *as_csr(shuffled)[:3], as_csr(shuffled)[3:],
                              n_rows=0)
    assert np.array_equal(lo2, lower[perm]) and np.array_equal(up2, upper[perm])
    others = batch_with_repeats(np.random.default_rng(22), 80)
    crowd = others[:40] + tests + tests[:30] + others[40:]
    lo3, up3 = tie_tails_once(rank_sum_tie_tails, *as_csr(crowd)[:3], as_csr(crowd)[3:],
                              n_rows=0)
    inside = slice(40, 40 + len(tests))
    assert np.array_equal(lo3[inside], lower) and np.array_equal(up3[inside], upper)


@pytest.mark.parametrize("seed", range(3))
def test_shared_signed_rank_tails_are_each_tests_own_and_exact(seed):
    """The same sharing over `signed_rank_tie_tails` (the engine does not use it there: the
    kernel is about as cheap as the hashing): exact and each test's own."""
    rng = np.random.default_rng(200 + seed)
    tests = [(s + 2 * int(rng.integers(0, 2)), c, 0, int(o)) for s, c, _, o in
             batch_with_repeats(rng, 150)]
    scores, counts, offsets, _, observed = as_csr(tests)
    lower, upper = tie_tails_once(signed_rank_tie_tails, scores, counts, offsets, (observed,),
                                  n_rows=0)
    alone_lower, alone_upper = one_by_one(signed_rank_tie_tails, tests, signed=True)
    assert np.array_equal(lower, alone_lower) and np.array_equal(upper, alone_upper)
    first, _ = distinct_tie_tests(scores, counts, offsets, (observed,))
    for i in first:
        dist, total = signed_rank_null_enumerated(tests[i][0], tests[i][1])
        assert_tails_match(lower[i], upper[i], dist, total, tests[i][3])


def test_shared_tails_on_the_parallel_build(parallel_always):
    rng = np.random.default_rng(31)
    tests = batch_with_repeats(rng, 200)
    scores, counts, offsets, m, observed = as_csr(tests)
    lower, upper = tie_tails_once(rank_sum_tie_tails, scores, counts, offsets, (m, observed),
                                  n_rows=10**6)
    alone_lower, alone_upper = one_by_one(rank_sum_tie_tails, tests)
    assert np.array_equal(lower, alone_lower) and np.array_equal(upper, alone_upper)


# --- through the rank-sum test -----------------------------------------------------------------


def test_mannwhitneyu_with_repeated_tied_rows_is_exact_and_row_independent():
    """A batch whose tied rows repeat (a coarse timer): each p is the enumeration's, equal rows
    get equal p, and a row's p is the one it gets in a batch of the distinct rows alone; with a
    progress bar (the tails in chunks) too."""
    rng = np.random.default_rng(41)
    base_x = rng.integers(0, 3, (6, 7)).astype(float)
    base_y = rng.integers(0, 3, (6, 6)).astype(float)
    rows = rng.integers(0, 6, 240)
    x, y = base_x[rows], base_y[rows]
    for alternative in ("two-sided", "less", "greater"):
        p = fastperf.mannwhitneyu(x, y, alternative=alternative, method="exact").pvalue
        alone = fastperf.mannwhitneyu(base_x, base_y, alternative=alternative,
                                      method="exact").pvalue
        assert np.array_equal(p, alone[rows])
        chunked = fastperf.mannwhitneyu(x, y, alternative=alternative, method="exact",
                                        progress=True).pvalue
        assert np.array_equal(chunked, p)
        for k in range(6):
            expected = p_from_tails(*rank_sum_tails_enumerated(base_x[k], base_y[k]), alternative)
            assert abs(alone[k] - expected) <= RTOL * expected
