"""Ranks and the rank statistics (rank-sum U, signed-rank T+) per CSR sample, by merge-walks.

Every statistic here walks samples that are already sorted (numpy's sort of rectangular
batches, big samples and the padded rows of ragged ones, NaN last:
`fastperf.engine.sorting.sort_samples`), so one test on ten million
values costs little more than the sort; the merge itself is `fastperf.kernels.rank_merge`.
Statistics are returned doubled (2U, 2T+) as int64: midranks are half-integers, doubled they
are exact integers. Tie blocks are summarised by Σ (t³ − t), the term of the normal
approximation's variance (Hollander & Wolfe 1999, §3.1, §4.1; scipy's ``_get_mwu_z`` and
``_wilcoxon_statistic``), and can be listed (doubled midrank score and size per block) for the
exact conditional distributions in `rank_sum_ties` and `signed_rank_ties`.
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange
from fastperf.kernels.rank_merge import merge_count_below, merge_tally

#: Input size from which the statistics kernels run their parallel build. Their work is
#: compute-bound (about 4 ns per value), so threads pay for their start-up (tens of
#: microseconds) from a few hundred thousand values: 10,000 pairs of 30 vs 30 take 2.6 ms serial,
#: 1.1 ms on two idle cores. When another process holds a core, a parallel call can wait for a
#: scheduler slice (about 8 ms), which stays small next to this much work.
STATISTICS_PARALLEL_MIN_ROWS = 250_000

#: How `signed_rank_statistics` treats zero differences (scipy's ``zero_method``), and
#: `tie_blocks`' code for the rank-sum's pooled blocks.
WILCOX, PRATT, ZSPLIT, RANK_SUM = 0, 1, 2, -1


@njit(cache=True, inline="always")
def _valid_length(sorted_sample):
    """Number of values before the NaN tail of a sorted sample."""
    n = sorted_sample.shape[0]
    while n > 0 and sorted_sample[n - 1] != sorted_sample[n - 1]:
        n -= 1
    return n


@group_kernel(min_rows=2_000_000)
def midranks(values, offsets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Average ranks within each segment, and each segment's Σ (t³ − t) over its tie blocks.

    NaN values get rank NaN and are left out of the other values' ranks (the caller decides
    what NaN means). Returns ``(ranks, tie_term, n_nan)``.

    Parameters
    ----------
    values : numpy.ndarray
        float64 values of the CSR samples.
    offsets : numpy.ndarray of int64
        CSR offsets.

    Returns
    -------
    ranks : numpy.ndarray
        float64 midranks within each segment (NaN for NaN values).
    tie_term : numpy.ndarray
        Per segment Σ (t³ − t) over its tie blocks.
    n_nan : numpy.ndarray of int64
        Per segment the NaN values.

    Notes
    -----
    Midranks (average ranks of tied values) and the tie term Σ (t³ − t) of the rank statistics'
    variance (Hollander & Wolfe (1999), "Nonparametric Statistical Methods", 2nd ed., §3.1, §4.1).
    """
    n_groups = offsets.shape[0] - 1
    ranks = np.empty(values.shape[0])
    tie_term = np.zeros(n_groups)
    n_nan = np.zeros(n_groups, dtype=np.int64)
    for g in prange(n_groups):
        lo, hi = offsets[g], offsets[g + 1]
        sample = values[lo:hi]
        order = np.argsort(sample, kind="mergesort")  # NaN sort last
        n = hi - lo
        while n > 0 and sample[order[n - 1]] != sample[order[n - 1]]:
            ranks[lo + order[n - 1]] = np.nan
            n -= 1
        n_nan[g] = hi - lo - n
        i = 0
        term = 0.0
        while i < n:
            j = i + 1
            while j < n and sample[order[j]] == sample[order[i]]:
                j += 1
            rank = (i + j + 1) / 2.0  # ranks i+1 .. j share their mean
            for k in range(i, j):
                ranks[lo + order[k]] = rank
            t = float(j - i)
            term += t * t * t - t
            i = j
        tie_term[g] = term
    return ranks, tie_term, n_nan


#: Samples with at most this many pairs (m·n; positives × negatives for the signed-rank) are
#: tallied by counting over all pairs, a loop the compiler vectorises, instead of a merge (one
#: long dependency chain of data-dependent steps): about 3x faster for 30 vs 30.
SMALL_MAX_PAIRS = 4096


@njit(cache=True)
def _count_below(a, start, n, v, or_equal):
    """#{k < n: a[start + k] < v} (or <= v), a ascending: branch-free binary search with a
    trip count fixed by n (Khuong & Morin 2017, "Array layouts for comparison-based searching")."""
    if n == 0:
        return 0
    base = start
    length = n
    while length > 1:
        half = length >> 1
        probe = a[base + half]
        base = base + half if (probe <= v if or_equal else probe < v) else base
        length -= half
    last = a[base]
    return base - start + np.int64(last <= v if or_equal else last < v)


@njit(cache=True, inline="always")
def _adjacent_ties(a, start, n):
    """Number of k with a[start + k] = a[start + k + 1]."""
    ties = 0
    for k in range(start, start + n - 1):
        ties += np.int64(a[k] == a[k + 1])
    return ties


@njit(cache=True, inline="always")
def small_rank_sum(x, y) -> tuple[int, float]:
    """`merge_tally` for small sorted x and y: ``(x_ranks2, tie_term)``.

    Without ties U = Σ_i #{j: y_j < x_i}, counted over all pairs; a tie shows as a repeated
    value in x or y or as y[#{y < x_i}] = x_i, and tied samples are tallied block by block
    (`_pooled_blocks`).

    Parameters
    ----------
    x, y : numpy.ndarray
        Small sorted samples without NaN.

    Returns
    -------
    x_ranks2 : int
        2 × the sum of x's midranks in the pooled sample.
    tie_term : float
        Σ (t³ − t) over the pooled tie blocks.

    Notes
    -----
    Mann & Whitney (1947): U = Σ_i Σ_j ([x_i > y_j] + ½ [x_i = y_j]) = R_x − m(m + 1)/2.
    """
    m = x.shape[0]
    n = y.shape[0]
    u = 0
    ties = _adjacent_ties(x, 0, m) + _adjacent_ties(y, 0, n)
    last = n - 1
    i = 0
    while i + 1 < m:  # two x's per pass over y: each y value loaded once for both
        a = x[i]
        b = x[i + 1]
        below_a = 0
        below_b = 0
        for j in range(n):
            below_a += np.int64(a > y[j])
            below_b += np.int64(b > y[j])
        u += below_a + below_b
        ties += np.int64(below_a < n) * np.int64(y[min(below_a, last)] == a)
        ties += np.int64(below_b < n) * np.int64(y[min(below_b, last)] == b)
        i += 2
    if i < m:
        a = x[i]
        below_a = 0
        for j in range(n):
            below_a += np.int64(a > y[j])
        u += below_a
        ties += np.int64(below_a < n) * np.int64(y[min(below_a, last)] == a)
    if ties == 0:
        return 2 * u + m * (m + 1), 0.0
    none = np.empty(0, dtype=np.int64)
    _, ranks2, term = _pooled_blocks(x, y, none, none, np.int64(0))  # int64, not literal 0
    return ranks2, term


@group_kernel(min_rows=STATISTICS_PARALLEL_MIN_ROWS, chunking=Chunking(csr=((0, 1), (2, 3))))
def rank_sum_statistics(xs, x_offsets, ys, y_offsets) -> tuple[np.ndarray, ...]:
    """Per pair of sorted CSR samples (NaN last, left out): sizes, 2U, tie term, any ties.

    U = Σ_i Σ_j ([x_i > y_j] + ½ [x_i = y_j]) = R_x − m(m + 1)/2 (Mann & Whitney 1947; scipy's
    U of x). Returns ``(m, n, u2, tie_term, tied)``: m and n count the non-NaN values.

    Parameters
    ----------
    xs, ys : numpy.ndarray
        float64 values of the two batches of sorted samples (NaN last).
    x_offsets, y_offsets : numpy.ndarray of int64
        Their CSR offsets (the same number of samples).

    Returns
    -------
    m, n : numpy.ndarray of int64
        The non-NaN values of each x and y sample.
    u2 : numpy.ndarray of int64
        2U of x.
    tie_term : numpy.ndarray
        Σ (t³ − t) over the pooled tie blocks.
    tied : numpy.ndarray of bool
        Whether the pooled sample has ties.

    Notes
    -----
    Mann & Whitney (1947), Ann. Math. Statist. 18, 50-60; the tie term as Hollander & Wolfe (1999), "Nonparametric Statistical Methods", 2nd ed., §4.1, and
    scipy's ``_get_mwu_z``.
    """
    n_groups = x_offsets.shape[0] - 1
    m = np.empty(n_groups, dtype=np.int64)
    n = np.empty(n_groups, dtype=np.int64)
    u2 = np.empty(n_groups, dtype=np.int64)
    tie_term = np.empty(n_groups)
    tied = np.empty(n_groups, dtype=np.bool_)
    for g in prange(n_groups):
        x0, y0 = x_offsets[g], y_offsets[g]
        mg = _valid_length(xs[x0:x_offsets[g + 1]])
        ng = _valid_length(ys[y0:y_offsets[g + 1]])
        if mg * ng <= SMALL_MAX_PAIRS:
            ranks2, term = small_rank_sum(xs[x0:x0 + mg], ys[y0:y0 + ng])
        else:
            crossed = True  # untied samples: the counting merge; else (or a tie found) tally
            if _adjacent_ties(xs, x0, mg) + _adjacent_ties(ys, y0, ng) == 0:
                u, crossed = merge_count_below(xs[x0:x0 + mg], ys[y0:y0 + ng])
                ranks2, term = 2 * u + mg * (mg + 1), 0.0
            if crossed:
                ranks2, term = merge_tally(xs, x0, 1, 1.0, mg, ys, y0, 1, 1.0, ng)
        m[g] = mg
        n[g] = ng
        u2[g] = ranks2 - mg * (mg + 1)
        tie_term[g] = term
        tied[g] = term > 0
    return m, n, u2, tie_term, tied


@njit(cache=True)
def _pooled_blocks(x, y, scores, counts, start):
    """The tie blocks of sorted x and y pooled, written from `start` when `scores` is not
    empty: doubled midrank 2·(values before) + t + 1 and size t. Returns the number of blocks,
    2 × the sum of x's midranks and Σ (t³ − t)."""
    m = x.shape[0]
    n = y.shape[0]
    write = scores.shape[0] > 0
    i = 0
    j = 0
    blocks = 0
    ranks2 = 0
    term = 0.0
    while i < m or j < n:
        v = x[i] if j == n or (i < m and x[i] <= y[j]) else y[j]
        before = i + j
        while i < m and x[i] == v:
            i += 1
        a = i + j - before
        while j < n and y[j] == v:
            j += 1
        t = i + j - before
        ranks2 += a * (2 * before + t + 1)
        term += float(t) * t * t - t
        if write:
            scores[start + blocks] = 2 * before + t + 1
            counts[start + blocks] = t
        blocks += 1
    return blocks, ranks2, term


@njit(cache=True, inline="always")
def _signed_split(d):
    """For a sorted sample d without NaN: (index of the first zero, index after the last zero)."""
    n = d.shape[0]
    return _count_below(d, 0, n, 0.0, False), _count_below(d, 0, n, 0.0, True)


@njit(cache=True, inline="always")
def small_signed_rank(d, first_zero, after_zero) -> tuple[int, float]:
    """`merge_tally` of the positive d against the |d| of the negatives, d sorted and small:
    ``(positives_ranks2, tie_term)``, ranks among the nonzero |d| from 1.

    Without ties the i-th positive p ranks i + #{negatives q: |q| < p} + 1, counted over all
    (positive, negative) pairs; a tie shows as a repeated value or as a negative equal to −p,
    and tied samples are tallied block by block (`_signed_blocks`).

    Parameters
    ----------
    d : numpy.ndarray
        A small sorted sample of differences without NaN.
    first_zero, after_zero : int
        The zeros are ``d[first_zero:after_zero]``.

    Returns
    -------
    positives_ranks2 : int
        2 × the sum of the positives' midranks among the nonzero |d|.
    tie_term : float
        Σ (t³ − t) over the tie blocks of the nonzero |d|.

    Notes
    -----
    Wilcoxon (1945), Biometrics Bull. 1, 80-83: T+ is the rank sum of the positive differences.
    """
    negatives = first_zero
    positives = d.shape[0] - after_zero
    ties = _adjacent_ties(d, 0, negatives) + _adjacent_ties(d, after_zero, positives)
    ranks2 = 0
    for i in range(positives):
        p = d[after_zero + i]
        at_most = 0  # negatives q <= -p: |q| >= p
        for k in range(negatives):
            at_most += np.int64(d[k] <= -p)
        ranks2 += 2 * (i + negatives - at_most + 1)
        ties += np.int64(at_most > 0) * np.int64(d[max(at_most - 1, 0)] == -p)
    if ties == 0:
        return ranks2, 0.0
    none = np.empty(0, dtype=np.int64)
    _, ranks2, term = _signed_blocks(d, 0, none, none, np.int64(0))
    return ranks2, term


@group_kernel(min_rows=STATISTICS_PARALLEL_MIN_ROWS, chunking=Chunking(csr=((0, 1),)))
def signed_rank_statistics(ds, offsets, zero_method) -> tuple[np.ndarray, ...]:
    """Signed-rank pieces per sorted CSR sample of differences (NaN last, left out).

    |d| is walked in increasing order by `merge_tally`, the positives rightwards from the zeros
    and the negatives leftwards. Zeros are dropped (``WILCOX``) or take the lowest ranks
    (``PRATT``, ``ZSPLIT``), as in scipy's ``wilcoxon``. Returns ``(count, n_zero, plus2,
    minus2, zero2, tie_term, tied, n_nan)``: values ranked, zeros, 2 × the rank sums of the
    positive and negative differences, 2 × the rank sum of the zeros (0 under WILCOX), the tie
    term Σ (t³ − t) as scipy forms it (with the zeros' block only under ZSPLIT), and whether the
    nonzero |d| hold ties.

    Parameters
    ----------
    ds : numpy.ndarray
        float64 values of the sorted samples of differences (NaN last).
    offsets : numpy.ndarray of int64
        CSR offsets.
    zero_method : int
        `WILCOX`, `PRATT` or `ZSPLIT`.

    Returns
    -------
    count, n_zero : numpy.ndarray of int64
        Values ranked and zero differences.
    plus2, minus2, zero2 : numpy.ndarray of int64
        2 × the rank sums of the positive, negative and zero differences.
    tie_term : numpy.ndarray
        Σ (t³ − t) as scipy forms it.
    tied : numpy.ndarray of bool
        Whether the nonzero |d| hold ties.
    n_nan : numpy.ndarray of int64
        NaN values left out.

    Notes
    -----
    Wilcoxon (1945); Pratt (1959), J. Amer. Statist. Assoc. 54, 655-667 (ranked zeros); the tie
    term as Hollander & Wolfe (1999), "Nonparametric Statistical Methods", 2nd ed., §3.1, and scipy's ``_wilcoxon_statistic``.
    """
    n_groups = offsets.shape[0] - 1
    count = np.empty(n_groups, dtype=np.int64)
    n_zero = np.empty(n_groups, dtype=np.int64)
    plus2 = np.empty(n_groups, dtype=np.int64)
    minus2 = np.empty(n_groups, dtype=np.int64)
    zero2 = np.empty(n_groups, dtype=np.int64)
    tie_term = np.empty(n_groups)
    tied = np.empty(n_groups, dtype=np.bool_)
    n_nan = np.empty(n_groups, dtype=np.int64)
    for g in prange(n_groups):
        lo = offsets[g]
        d = ds[lo:offsets[g + 1]]
        valid = _valid_length(d)
        n_nan[g] = d.shape[0] - valid
        first_zero, after_zero = _signed_split(d[:valid])
        zeros = after_zero - first_zero
        positives = valid - after_zero
        nonzero = positives + first_zero
        if first_zero * positives <= SMALL_MAX_PAIRS:
            positives2, term = small_signed_rank(d[:valid], first_zero, after_zero)
        else:
            positives2, term = merge_tally(ds, lo + after_zero, 1, 1.0, positives,
                                           ds, lo + first_zero - 1, -1, -1.0, first_zero)
        ranked_zeros = 0 if zero_method == WILCOX else zeros
        # merged ranks start at 1: shift the positives' ranks past the ranked zeros
        plus2[g] = positives2 + 2 * positives * ranked_zeros
        minus2[g] = nonzero * (nonzero + 1) + 2 * nonzero * ranked_zeros - plus2[g]
        tied[g] = term > 0
        if zero_method == ZSPLIT and zeros > 1:
            term += float(zeros) * zeros * zeros - zeros
        tie_term[g] = term
        count[g] = nonzero + ranked_zeros
        n_zero[g] = zeros
        zero2[g] = ranked_zeros * (ranked_zeros + 1)
    return count, n_zero, plus2, minus2, zero2, tie_term, tied, n_nan


@njit(cache=True)
def _signed_blocks(d, first_rank, scores, counts, start):
    """The tie blocks of the nonzero |d| of a sorted sample d (no NaN), ranks counted after
    `first_rank` lower ones (the ranked zeros), written from `start` when `scores` is not empty:
    doubled midrank and size. Returns the number of blocks, 2 × the rank sum of the positive
    differences, and the blocks' Σ (t³ − t)."""
    n = d.shape[0]
    first_zero, after_zero = _signed_split(d)
    before = first_rank
    write = scores.shape[0] > 0
    i = first_zero - 1  # next negative, moving left
    j = after_zero  # next positive, moving right
    blocks = 0
    plus2 = 0
    term = 0.0
    while i >= 0 or j < n:
        v = -d[i] if j == n or (i >= 0 and -d[i] <= d[j]) else d[j]
        a = 0
        while j < n and d[j] == v:
            j += 1
            a += 1
        t = a
        while i >= 0 and -d[i] == v:
            i -= 1
            t += 1
        plus2 += a * (2 * before + t + 1)
        term += float(t) * t * t - t
        if write:
            scores[start + blocks] = 2 * before + t + 1
            counts[start + blocks] = t
        blocks += 1
        before += t
    return blocks, plus2, term


@njit(cache=True)
def _group_blocks(xs, x_offsets, m, ys, y_offsets, n, g, zero_method, scores, counts, start):
    x = xs[x_offsets[g]:x_offsets[g] + m[g]]
    if zero_method == RANK_SUM:
        return _pooled_blocks(x, ys[y_offsets[g]:y_offsets[g] + n[g]], scores, counts, start)[0]
    first_zero, after_zero = _signed_split(x)
    ranked_zeros = 0 if zero_method == WILCOX else after_zero - first_zero
    return _signed_blocks(x, ranked_zeros, scores, counts, start)[0]


@njit(cache=True)
def tie_blocks(xs, x_offsets, m, ys, y_offsets, n, groups, zero_method) -> tuple[np.ndarray,
               np.ndarray, np.ndarray]:
    """The tie blocks of the chosen groups for the exact kernels: ``(scores, counts,
    block_offsets)``, blocks in ascending order, score = doubled midrank, count = size.

    ``zero_method = RANK_SUM``: the pooled blocks of sorted x (first m[g] values) and y (first
    n[g]). Otherwise the blocks of the nonzero |d| of sorted d = x (first m[g] values; y
    unused), scored after the zeros' ranks unless ``WILCOX``. ``block_offsets`` delimits each
    chosen group's blocks (one counting pass, then one writing pass).

    Parameters
    ----------
    xs, ys : numpy.ndarray
        float64 values of the sorted samples (NaN last).
    x_offsets, y_offsets : numpy.ndarray of int64
        Their CSR offsets.
    m, n : numpy.ndarray of int64
        The non-NaN values of each sample.
    groups : numpy.ndarray of int64
        The groups (sample indices) whose blocks are wanted.
    zero_method : int
        `RANK_SUM`, or the signed-rank `WILCOX`, `PRATT`, `ZSPLIT`.

    Returns
    -------
    scores : numpy.ndarray of int64
        The doubled midrank of each block.
    counts : numpy.ndarray of int64
        The size of each block.
    block_offsets : numpy.ndarray of int64
        CSR offsets of the chosen groups' blocks.

    Notes
    -----
    The tie pattern on which the exact conditional distributions are conditioned (Lehmann 1975,
    "Nonparametrics: Statistical Methods Based on Ranks").
    """
    k = groups.shape[0]
    block_offsets = np.zeros(k + 1, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    for q in range(k):
        block_offsets[q + 1] = block_offsets[q] + _group_blocks(
            xs, x_offsets, m, ys, y_offsets, n, groups[q], zero_method, none, none, np.int64(0))
    scores = np.empty(block_offsets[k], dtype=np.int64)
    counts = np.empty(block_offsets[k], dtype=np.int64)
    for q in range(k):
        _group_blocks(xs, x_offsets, m, ys, y_offsets, n, groups[q], zero_method, scores, counts,
                      block_offsets[q])
    return scores, counts, block_offsets
