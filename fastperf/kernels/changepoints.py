"""Change points of many series at once: the E-Divisive energy statistic, computed incrementally.

For a segment z_0..z_{L-1} split before position t (left m = t points, right n = L - t), the
E-Divisive statistic with means (Matteson & James 2014, alpha = 1) is

    q(t) = m n / (m + n) * (2 A / (m n) - B / C(m, 2) - C / C(n, 2))

with A the sum of |z_i - z_j| over pairs across the split, B and C the sums over pairs within
the left and the right part. All splits of a segment are scanned in O(L log L): every point's
distance sum to all points comes from the sorted values' prefix sums, and its sum to the points
before it from a Fenwick tree over their ranks; B, C and A follow by updating, never by
recomputing a split from scratch. A permutation of a segment's points leaves its sorted values
alone and only permutes the ranks of the positions, so the permutation test sorts nothing.

`next_change` runs one round of the hierarchical (bisection) search for every series: the best
split over all current segments, and its significance, by a permutation test (points permuted
within each segment, as Matteson & James and MongoDB's signal-processing-algorithms do) or by
Welch's t-test between the two sides (Hunter / Apache Otava, Fleming et al. 2023).
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange
from fastperf.kernels.order_statistics import stable_order
from fastperf.kernels.random import integer_below, resample_key, sample_key

#: The method codes of `next_change`.
EDIVISIVE, TTEST = 0, 1


@njit(cache=True)
def _rank_segment(z, lo, hi, sorted_values, ranks):
    """The segment [lo, hi): its values sorted (into `sorted_values`, at the segment's place)
    and the rank of each position's value within the segment (into `ranks`): the number of
    the segment's values below it, so tied values share the lowest rank of their block.

    Tied values then enter the scan's sums the same way whatever order a sort gives them, and
    the statistic does not depend on the sort's handling of ties."""
    order = stable_order(z[lo:hi])
    block = 0
    for j in range(hi - lo):
        value = z[lo + order[j]]
        sorted_values[lo + j] = value
        if j > 0 and value != sorted_values[lo + j - 1]:
            block = j
        ranks[lo + order[j]] = block


@njit(cache=True)
def _segment_best_split(sorted_values, ranks, lo, hi, min_size, prefix, fen_count, fen_sum):
    """The split t (absolute index, lo + min_size <= t <= hi - min_size) of the segment
    [lo, hi) with the largest q, and that q; (-1, -inf) when the segment is too short.

    The segment is given by its sorted values and the rank of each position's value: a
    permutation of the positions only permutes `ranks`, so resamples need no sorting."""
    size = hi - lo
    if size < 2 * min_size:
        return -1, -np.inf
    values = sorted_values[lo:hi]
    prefix[0] = 0.0
    for k in range(size):
        prefix[k + 1] = prefix[k] + values[k]
    grand = prefix[size]
    total = 0.0
    for k in range(size):  # sum over all ordered pairs, halved below
        v = values[k]
        total += v * k - prefix[k] + (grand - prefix[k + 1]) - v * (size - k - 1)
    total *= 0.5
    for k in range(size + 1):
        fen_count[k] = 0
        fen_sum[k] = 0.0
    within_left = 0.0
    within_right = total
    inserted_count = 0
    inserted_sum = 0.0
    best_t = -1
    best_q = -np.inf
    for t in range(size):
        if min_size <= t <= size - min_size:
            m = float(t)
            n = float(size - t)
            across = total - within_left - within_right
            q = (m * n / (m + n)) * (2.0 * across / (m * n) - 2.0 * within_left / (m * (m - 1.0))
                                     - 2.0 * within_right / (n * (n - 1.0)))
            if q > best_q:
                best_q = q
                best_t = lo + t
        r = ranks[lo + t]
        v = values[r]
        # count and sum of the points before t with a smaller rank (Fenwick prefix query)
        less_count = 0
        less_sum = 0.0
        i = r
        while i > 0:
            less_count += fen_count[i]
            less_sum += fen_sum[i]
            i -= i & (-i)
        to_earlier = (v * less_count - less_sum
                      + (inserted_sum - less_sum) - v * (inserted_count - less_count))
        row = v * r - prefix[r] + (grand - prefix[r + 1]) - v * (size - r - 1)
        within_left += to_earlier
        within_right -= row - to_earlier
        i = r + 1
        while i <= size:
            fen_count[i] += 1
            fen_sum[i] += v
            i += i & (-i)
        inserted_count += 1
        inserted_sum += v
    return best_t, best_q


@njit(cache=True)
def _best_over_segments(z, sorted_values, ranks, bounds, slots, n_bounds, min_size, prefix,
                        fen_count, fen_sum, cache_hi, cache_t, cache_q):
    """The best split over the segments [bounds[k], bounds[k + 1]): (t, q, segment index).

    ``cache_hi[s]``, ``cache_t[s]``, ``cache_q[s]``, s = ``slots[k]``, remember the best split
    of the segment that starts at bounds[k] and ends at cache_hi[s], of the observed series z,
    from an earlier round (a segment that no change has cut since keeps its best split); a
    segment scanned anew is ranked first. Permuted series pass an empty cache and their
    (permuted) ranks."""
    best_t, best_q, best_k = -1, -np.inf, -1
    use_cache = cache_hi.shape[0] > 0
    for k in range(n_bounds - 1):
        lo, hi, slot = bounds[k], bounds[k + 1], slots[k]
        if use_cache and cache_hi[slot] == hi:
            t, q = cache_t[slot], cache_q[slot]
        else:
            if use_cache:  # the observed series: rank the segment first (permutations: ranked)
                _rank_segment(z, lo, hi, sorted_values, ranks)
            t, q = _segment_best_split(sorted_values, ranks, lo, hi, min_size, prefix,
                                       fen_count, fen_sum)
            if use_cache:
                cache_hi[slot], cache_t[slot], cache_q[slot] = hi, t, q
        if t >= 0 and q > best_q:
            best_t, best_q, best_k = t, q, k
    return best_t, best_q, best_k


@njit(cache=True)
def _welch(z, lo, t, hi):
    """Welch's t statistic and degrees of freedom of z[t:hi] against z[lo:t] (two-pass moments)."""
    m = t - lo
    n = hi - t
    mean_left = 0.0
    for i in range(lo, t):
        mean_left += z[i]
    mean_left /= m
    mean_right = 0.0
    for i in range(t, hi):
        mean_right += z[i]
    mean_right /= n
    var_left = 0.0
    for i in range(lo, t):
        var_left += (z[i] - mean_left) ** 2
    var_left /= m - 1
    var_right = 0.0
    for i in range(t, hi):
        var_right += (z[i] - mean_right) ** 2
    var_right /= n - 1
    a = var_left / m
    b = var_right / n
    se2 = a + b
    if se2 == 0.0:
        if mean_right == mean_left:
            return 0.0, np.nan
        return np.inf if mean_right > mean_left else -np.inf, np.nan
    df = se2 * se2 / (a * a / (m - 1) + b * b / (n - 1))
    return (mean_right - mean_left) / np.sqrt(se2), df


# On threads from this many points on, in chunks of whole series (`Chunking`): each chunk's
# cache rows are views of the call's, so what a chunk scans is kept for the next round.
@group_kernel(min_rows=200_000,
              chunking=Chunking(csr=((0, 1),), per_group=(2, 3, 4, 10, 12, 13, 14)))
def next_change(values, offsets, cuts, n_cuts, active, min_size, method, permutations, alpha,
                seed, identity, round_index, cache_hi, cache_t, cache_q):
    """One round of the bisection search, for every active series.

    Parameters
    ----------
    values, offsets : float64 values and int64 CSR offsets, one ordered series per group
        (finite; scaled so that no sum overflows).
    cuts : int64[n_series, K]; the first ``n_cuts[g]`` entries of row g are the series'
        change positions so far (relative to the series' start, in any order).
    n_cuts : int64[n_series].
    active : bool[n_series]; inactive series are skipped (their outputs stay -1 / NaN).
    min_size : int, the fewest points of a segment.
    method : int, `EDIVISIVE` (permutation test) or `TTEST` (Welch between the two sides).
    permutations : int, resamples of the permutation test.
    alpha : float, its level: resampling stops once the p-value cannot reach it.
    seed : int, identity : uint64[n_series], round_index : int; the permutations of series g in
        round r come from the stream (seed, identity[g], r): identity is the series' key values
        hashed (`fastperf.data.identity`), so results depend neither on the thread count nor on
        the other series, their order or the chunk.
    cache_hi, cache_t, cache_q : int64, int64 and float64 arrays[n_series, K + 1], -1 / any
        at first: the best split of each segment already scanned, by its start (column 0: the
        segment from the series' start; column k + 1: the one from ``cuts[g, k]``), kept from
        one round to the next so that only the two parts of a new change are scanned again.

    Returns
    -------
    position : int64[n_series], the best split (relative), -1 when no segment can be split.
    q : float64[n_series], its energy statistic.
    pvalue : float64[n_series], its permutation p-value, (exceed + 1) / (done + 1) (`EDIVISIVE`;
        NaN for `TTEST`).
    t_statistic, df : float64[n_series], Welch's t of the right side against the left side of
        the split within its segment, and its degrees of freedom (`TTEST`; NaN otherwise).

    Notes
    -----
    Matteson & James (2014), "A nonparametric approach for multiple change point analysis of
    multivariate data", JASA 109, 334-345 (E-Divisive, its permutation test); Fleming et al.
    (2023), "Hunter: using change point detection to hunt for performance regressions", ICPE
    (the t-test variant). A permutation counts as exceeding when its best q is at least the
    observed q minus 1e-12 of it (rounding in a different summation order must not decide).
    """
    n_series = offsets.shape[0] - 1
    position = np.full(n_series, -1, dtype=np.int64)
    q_out = np.full(n_series, np.nan)
    p_out = np.full(n_series, np.nan)
    t_out = np.full(n_series, np.nan)
    df_out = np.full(n_series, np.nan)
    for g in prange(n_series):
        if not active[g]:
            continue
        z = values[offsets[g]:offsets[g + 1]]
        size = z.shape[0]
        bounds = np.empty(n_cuts[g] + 2, dtype=np.int64)
        slots = np.empty(n_cuts[g] + 2, dtype=np.int64)  # each bound's cache column
        bounds[0], slots[0] = 0, 0
        for k in range(n_cuts[g]):  # insertion sort: the cuts come in the order found
            cut = cuts[g, k]
            j = k
            while bounds[j] > cut:  # bounds[0] = 0 < every cut stops it
                bounds[j + 1], slots[j + 1] = bounds[j], slots[j]
                j -= 1
            bounds[j + 1], slots[j + 1] = cut, k + 1
        bounds[n_cuts[g] + 1] = size
        sorted_values = np.empty(size)
        ranks = np.empty(size, dtype=np.int64)
        prefix = np.empty(size + 1)
        fen_count = np.empty(size + 1, dtype=np.int64)
        fen_sum = np.empty(size + 1)
        t, q, k = _best_over_segments(z, sorted_values, ranks, bounds, slots, bounds.shape[0],
                                      min_size, prefix, fen_count, fen_sum, cache_hi[g],
                                      cache_t[g], cache_q[g])
        if t < 0:
            continue
        position[g] = t
        q_out[g] = q
        if method == TTEST:
            t_out[g], df_out[g] = _welch(z, bounds[k], t, bounds[k + 1])
            continue
        for b in range(bounds.shape[0] - 1):  # every segment ranked (cached ones were not)
            _rank_segment(z, bounds[b], bounds[b + 1], sorted_values, ranks)
        key = resample_key(sample_key(seed, identity[g]), round_index)
        no_cache_hi = np.empty(0, dtype=np.int64)
        no_cache_t = np.empty(0, dtype=np.int64)
        no_cache_q = np.empty(0)
        counter = 0
        exceed = 0
        done = 0
        limit = alpha * (permutations + 1.0)
        for r in range(permutations):
            for b in range(bounds.shape[0] - 1):  # Fisher-Yates within each segment
                lo = bounds[b]
                for i in range(bounds[b + 1] - 1, lo, -1):
                    j = lo + integer_below(key, counter, i - lo + 1)
                    counter += 1
                    ranks[i], ranks[j] = ranks[j], ranks[i]
            _, q_perm, _ = _best_over_segments(z, sorted_values, ranks, bounds, slots,
                                               bounds.shape[0], min_size, prefix, fen_count,
                                               fen_sum, no_cache_hi, no_cache_t, no_cache_q)
            done += 1
            if q_perm >= q - 1e-12 * abs(q):
                exceed += 1
                if exceed + 1.0 > limit:  # the p-value can no longer reach alpha
                    break
        p_out[g] = (exceed + 1.0) / (done + 1.0)
    return position, q_out, p_out, t_out, df_out
