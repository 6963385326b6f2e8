"""Exact order statistics of the pairwise differences x_i - y_k and of the Walsh averages.

The Hodges-Lehmann estimates (Hodges & Lehmann 1963, Ann. Math. Statist. 34, 598-611) are the
median of the m n differences x_i - y_k (two samples) and the median of the n (n + 1) / 2 Walsh
averages (d_i + d_k) / 2, i <= k (one sample: the pseudo-median). Their distribution-free
confidence intervals are two other order statistics of the same sets, at ranks read off the
Mann-Whitney and signed-rank null distributions (Lehmann 1975, *Nonparametrics*, chs. 2 and 4).
These kernels return any requested order statistics of the two sets exactly: the value that
materialising every difference (average) with the same float64 formula and sorting would give.

Both sets are pairwise sums a_i + b_j of two ascending arrays: x_i - y_k is x_i + (-y_k) bit for
bit (IEEE 754 defines subtraction so), with b = -y reversed; a Walsh average is half the sum
d_i + d_k, k >= i, and halving is monotone, so the r-th average is half the r-th sum. Rows and
columns of the matrix a_i + b_j ascend, so #{sums <= v} is a two-pointer walk, O(m + n)
(Johnson & Mizoguchi 1978, SIAM J. Comput. 7, 147-153; Monahan 1984, ACM Trans. Math. Softw.
10, 265-270, for the Walsh averages). Since the count uses the very float sums, it is exact.

Selection keeps, per row, the column range [lo_i, hi_i) of the sums in a value bracket (L, H]
holding the target, and narrows it in rounds: draw a uniform sample of the sums in the bracket
(uniform pairs (i, j) while the bracket holds every sum of a small group, else one sum from each
of equal strata of the bracket's row-by-row numbering: `_draw`), take the two sample order
statistics around the target's expected position (Floyd & Rivest 1975, CACM 18, 165-172), count
the sums at or below each (one walk each), keep the part that holds the target. Sample sizes
(up to SAMPLE_MAX) are planned so that few rounds reach the gathering size: three for 5M x 5M
(2.5e13 sums). Then the bracket's sums are gathered into a buffer and the
target found by quickselect. The lower pivot is counted at the float just below its sampled value,
so a value tied over the whole bracket ends the search: (prev(v), v] holds only v. Small groups
(all sums within the gathering size, the common case) take one such round on a small sample
shared by their ranks (both pivots counted in one walk: two interleaved walks hide each other's
latency) and gather about a quarter of their sums. A bracket still holding thousands of sums
and many times m + n (mid-sized groups after the pre-round, large ones after their rounds)
gets one more round on a stratified sample of about 2 sqrt(size) of its sums before it is
gathered: 4 ranks of a 200 x 200 group took 46 -> 34 us, of 400 x 400 120 -> 67 us. The ranks
of a group are served in ascending order; those in one gathered bracket (the median's middle
pair) by one multi-selection in its buffer.
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange
from fastperf.kernels.order_statistics import partition
from fastperf.kernels.random import GOLDEN, mix64, sample_key

#: A bracket of at most max(SMALL_MAX_PAIRS, (m + n) / 2) sums is gathered and quickselected
#: rather than narrowed further. So a group of up to 256 x 256 values (the common case is 10-100)
#: is one pass over its sums in a 512 KiB buffer that stays in cache, and a large group stops
#: narrowing once gathering the rest costs less than a narrowing round (two walks over m + n).
SMALL_MAX_PAIRS = 65_536

#: Most sums drawn in one narrowing round (8 MiB). Rounds are planned to reach half the gathering
#: size in as few rounds as this allows (three for 5M x 5M), with equal shrink factors.
SAMPLE_MAX = 1 << 20
SAMPLE_MIN = 1 << 10

#: Half-width of the sample rank window around the target, in binomial standard deviations: the
#: target falls outside the window (and the round keeps only one side) about 0.3% of the time.
_WINDOW_SD = 3.0

#: Brackets of at most this many sums are sampled directly (uniform i and j, random access).
DIRECT_MAX = 100_000

#: A group whose sums all fit the gathering size gets one round on a sample of about 2 sqrt(N)
#: of them first (shared by its ranks, window of _PRE_ROUND_SD deviations), if it has at least
#: this many sums and the walks are short (4 (m + n) <= N): a 30 x 30 group then gathers and
#: selects in about a quarter of its 900 differences per rank.
_PRE_ROUND_MIN = 256
_PRE_ROUND_SD = 2.0

#: A bracket left by the earlier rounds (the pre-round of a mid-sized group, the rounds of a
#: large one) with at least this many sums and at least 8 (m + n) gets one more small round, on
#: a stratified sample of it, before it is gathered.
_SECOND_ROUND_MIN = 2048

_INF = np.inf
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_S21 = np.uint64(21)
_S42 = np.uint64(42)
_LOW21 = np.uint64(0x1FFFFF)


@njit(cache=True)
def _negated_reversed(y):
    """-y in reverse order: ascending when y is."""
    n = y.shape[0]
    out = np.empty(n)
    for k in range(n):
        out[k] = -y[n - 1 - k]
    return out


@njit(cache=True)
def _walk(a, b, v, out, first, last, s):
    """out[i] = #{j: a_i + b_j <= v} for rows first <= i < last, starting from column bound s.

    The bound of a row is at most that of the row before (a ascends), so the column pointer only
    moves left from `s`, which must be at least the bound of row `first`.
    """
    for i in range(first, last):
        ai = a[i]
        while s > 0 and ai + b[s - 1] > v:
            s -= 1
        out[i] = s


@njit(cache=True)
def _row_bound(a, b, v, i, left, right):
    """#{j: a_i + b_j <= v} by bisection, knowing it lies in [left, right]."""
    ai = a[i]
    while left < right:
        mid = (left + right) >> 1
        if ai + b[mid] <= v:
            left = mid + 1
        else:
            right = mid
    return left


@njit(cache=True, inline="always")
def _chain_step(a, b, v, out, i, s):
    """One step of a branch-free merge walk: move the pointer left, or finish row i."""
    c = (s > 0) & (a[i] + b[s - 1] > v)
    s -= c
    out[i] = s
    return i + 1 - c, s


@njit(cache=True)
def _count_le(a, b, tri, v, lo, hi, out):
    """#{(i, j): a_i + b_j <= v} (j >= i with `tri`); per row the column bound into `out`.

    `out[i]` becomes t_i(v) = #{j: a_i + b_j <= v}, raised to i with `tri`; v must lie in the
    bracket that `lo` and `hi` bound (lo_i <= t_i(v) <= hi_i). Row bounds do not increase with i
    (a ascends), so one merge-like walk finds them all in O(m + n). Its loop exits are
    unpredictable, so four walks over quarters of the rows (each started by bisection) run
    interleaved and branch-free: 3x faster than one on 5M x 5M. With few rows against many
    columns, each row is bisected within [lo_i, hi_i] instead. With `tri`, the walk stops at the
    first row whose diagonal sum a_i + a_i exceeds v: no later row has a sum <= v right of it.
    """
    m = a.shape[0]
    n = b.shape[0]
    rows = m
    if tri:
        left = 0
        right = m
        while left < right:
            mid = (left + right) >> 1
            if a[mid] + a[mid] <= v:
                left = mid + 1
            else:
                right = mid
        rows = left
        for i in range(rows, m):
            out[i] = i
    m = rows
    if m < 64 or 32 * m < n:
        if 32 * m < n:
            for i in range(m):
                out[i] = _row_bound(a, b, v, i, lo[i], hi[i])
        else:
            _walk(a, b, v, out, np.int64(0), m, n)
    else:
        q = m // 4
        i0 = 0
        i1 = q
        i2 = 2 * q
        i3 = 3 * q
        s0 = n
        zero = np.int64(0)
        s1 = _row_bound(a, b, v, i1, zero, n)
        s2 = _row_bound(a, b, v, i2, zero, n)
        s3 = _row_bound(a, b, v, i3, zero, n)
        while i0 < q and i1 < 2 * q and i2 < 3 * q and i3 < 4 * q:
            i0, s0 = _chain_step(a, b, v, out, i0, s0)
            i1, s1 = _chain_step(a, b, v, out, i1, s1)
            i2, s2 = _chain_step(a, b, v, out, i2, s2)
            i3, s3 = _chain_step(a, b, v, out, i3, s3)
        _walk(a, b, v, out, i0, q, s0)
        _walk(a, b, v, out, i1, 2 * q, s1)
        _walk(a, b, v, out, i2, 3 * q, s2)
        _walk(a, b, v, out, i3, m, s3)
    total = 0
    if tri:  # here every row has a_i + a_i <= v: its bound is past the diagonal
        for i in range(m):
            total += out[i] - i
    else:
        for i in range(m):
            total += out[i]
    return total


@njit(cache=True)
def _count_two(a, b, v1, v2, out1, out2):
    """`_count_le` of v1 and of v2 over all the sums (no `tri`), in one walk: two branch-free
    merge walks interleaved, so that each hides the other's latency. Returns both counts."""
    m = a.shape[0]
    n = b.shape[0]
    i1 = np.int64(0)
    i2 = np.int64(0)
    s1 = n
    s2 = n
    while i1 < m and i2 < m:
        i1, s1 = _chain_step(a, b, v1, out1, i1, s1)
        i2, s2 = _chain_step(a, b, v2, out2, i2, s2)
    _walk(a, b, v1, out1, i1, m, s1)
    _walk(a, b, v2, out2, i2, m, s2)
    c1 = 0
    c2 = 0
    for i in range(m):
        c1 += out1[i]
        c2 += out2[i]
    return c1, c2


@njit(cache=True)
def _gather(a, b, lo, hi, buf):
    """Write the sums a_i + b_j, lo_i <= j < hi_i, into `buf`; return how many."""
    c = 0
    for i in range(a.shape[0]):
        ai = a[i]
        first = lo[i]
        width = hi[i] - first
        for j in range(width):
            buf[c + j] = ai + b[first + j]
        c += width
    return c


@njit(cache=True)
def _draw(a, b, lo, hi, size, key, counter, sample):
    """Fill `sample` with sums drawn from the row ranges, one uniformly from each of s equal
    strata of their numbering (a jittered systematic sample).

    The ranges hold `size` sums, numbered row by row; the q-th draw is the sum numbered
    ``floor((q + U_q) size / s)``, U_q uniform on [0, 1). Each draw is uniform on its stratum
    and the numbers ascend with q, so one walk over the rows maps them to sums. A sample
    proportion of a stratified sample varies no more than that of a simple random one (Cochran
    1977, *Sampling Techniques*, 5.6), so the binomial window stays conservative; the selection
    is exact whatever the sample (only its speed depends on it). No logarithm: one mix per draw.
    Returns the next unused random counter.
    """
    s = sample.shape[0]
    step = size / s
    row = 0
    before = 0  # sums in the rows before `row`
    width = hi[0] - lo[0]
    for q in range(s):
        z = mix64(key + np.uint64(counter) * GOLDEN)
        counter += 1
        jitter = float(z >> np.uint64(11)) * 1.1102230246251565e-16  # uniform on [0, 1)
        u = min(np.int64((q + jitter) * step), size - 1)
        while before + width <= u:
            before += width
            row += 1
            width = hi[row] - lo[row]
        sample[q] = a[row] + b[lo[row] + u - before]
    return counter


@njit(cache=True)
def _select_in(x, k, left, right, key, counter):
    """The value of rank k - left of ``x[left:right]``, moved to x[k] with the slice partitioned
    around it (as `select`). Returns ``(value, counter)``.

    Quickselect (Hoare 1961) with the median of three values at random positions as pivot (the
    gathered sums ascend row by row, which defeats a pivot from fixed positions) and `select`'s
    branch-free three-way partition; one scan for the slice's first or last value.
    """
    while right - left > 1:
        if k == left or k == right - 1:  # a minimum or maximum: one scan
            best = left
            if k == left:
                for i in range(left + 1, right):
                    if x[i] < x[best]:
                        best = i
            else:
                for i in range(left + 1, right):
                    if x[i] >= x[best]:
                        best = i
            v = x[best]
            x[best] = x[k]
            x[k] = v
            return v, counter
        w = np.uint64(right - left)
        z = mix64(key + np.uint64(counter) * GOLDEN)
        counter += 1
        a = x[left + np.int64(((z & _LOW21) * w) >> _S21)]
        b = x[left + np.int64((((z >> _S21) & _LOW21) * w) >> _S21)]
        c = x[left + np.int64((((z >> _S42) & _LOW21) * w) >> _S21)]
        if a < b:
            pivot = b if b < c else (c if a < c else a)
        else:
            pivot = a if a < c else (c if b < c else b)
        below = partition(x, left, right, pivot, False)  # x[left:below] < pivot
        if k < below:
            right = below
        elif below > left:
            left = below
        else:  # the pivot is the slice's least value: split off its copies
            upto = partition(x, left, right, pivot, True)  # x[left:upto] == pivot
            if k < upto:
                return pivot, counter
            left = upto
    return x[k], counter


@njit(cache=True)
def _select_known(x, k, known, n_known, key, counter):
    """`_select_in` of rank k in all of `x`, where the positions ``known[:n_known]`` were
    selected before (each partitions `x`): only the slice between the nearest two is searched.
    Records k among them. Returns ``(n_known, counter)``."""
    left = np.int64(0)
    right = np.int64(x.shape[0])
    for u in range(n_known):
        p = known[u]
        if p == k:
            return n_known, counter
        if p < k:
            left = max(left, p + 1)
        else:
            right = min(right, p)
    _, counter = _select_in(x, k, left, right, key, counter)
    known[n_known] = k
    return n_known + 1, counter


@njit(cache=True)
def _multi_select(x, size, positions, values, q, done, queue, key, counter):
    """values[u] = the value of rank positions[u] (0-based, ascending) in ``x[:size]``, u < q.

    Middle position first, then the middles of the halves, each selected within the slice that
    the positions already selected bound (a selected position partitions the buffer). `done`
    (q flags) and `queue` (2 q + 2 pairs) are scratch. Returns the next unused random counter.
    """
    done[:q] = False
    queue[0, 0] = 0
    queue[0, 1] = q
    head = 0
    tail = 1
    while head < tail:
        first = queue[head, 0]
        last = queue[head, 1]
        head += 1
        if first >= last:
            continue
        mid = (first + last) >> 1
        k = positions[mid]
        left = 0
        for u in range(mid - 1, -1, -1):
            if done[u]:
                left = positions[u] + 1
                break
        right = size
        for u in range(mid + 1, q):
            if done[u]:
                right = positions[u]
                break
        if k < left or k >= right:  # a repeated position, already in place
            values[mid] = x[k]
        else:
            values[mid], counter = _select_in(x, k, left, right, key, counter)
        done[mid] = True
        queue[tail, 0] = first
        queue[tail, 1] = mid
        queue[tail + 1, 0] = mid + 1
        queue[tail + 1, 1] = last
        tail += 2
    return counter


@njit(cache=True)
def _rank_order(ranks):
    """``np.argsort(ranks, kind="stable")``, by insertion for the usual handful of ranks."""
    k = ranks.shape[0]
    if k > 32:
        return np.argsort(ranks, kind="mergesort")
    order = np.empty(k, dtype=np.int64)
    for u in range(k):
        r = ranks[u]
        v = u
        while v > 0 and ranks[order[v - 1]] > r:
            order[v] = order[v - 1]
            v -= 1
        order[v] = u
    return order


@njit(cache=True)
def _draw_full(a, b, tri, key, counter, sample):
    """Fill `sample` with sums drawn uniformly (with replacement) from all of them, by drawing
    (i, j) directly: for small arrays (random access), no walk over the rows. With `tri`, (i, j)
    uniform on m x (m + 1) maps two to one onto j >= i: (i, j - 1) above the diagonal, (j, i)
    on or below. Returns the next unused random counter."""
    m = np.uint64(a.shape[0])
    n = np.uint64(a.shape[0] + 1 if tri else b.shape[0])
    for q in range(sample.shape[0]):
        z = mix64(key + np.uint64(counter) * GOLDEN)
        counter += 1
        i = np.int64(((z >> _S32) * m) >> _S32)
        j = np.int64(((z & _LOW32) * n) >> _S32)
        if tri:
            if j > i:
                j -= 1
            else:
                i, j = j, i
        sample[q] = a[i] + b[j]
    return counter


@njit(cache=True)
def _pair_sum_order_statistics(a, b, tri, ranks, out, halve, materialise_max, key):
    """The ranks[u]-th smallest (1-based) of the sums a_i + b_j into out[u], for every u.

    Parameters
    ----------
    a, b : ascending float64 arrays; with `tri`, b is a and only the sums with j >= i count.
    ranks : int64 ranks; one outside 1..N (N = m n, or m (m + 1) / 2 with `tri`) is skipped.
    out : float64 output, one per rank (preset to NaN by the caller).
    halve : return half of each selected sum (the Walsh averages).
    materialise_max : gather the bracket once it holds at most this many sums; negative for the
        default max(SMALL_MAX_PAIRS, (m + n) / 2). 0 narrows down to a single value (tests).
    key : random stream key of the sampler (results do not depend on it, only the time).
    """
    m = a.shape[0]
    n = b.shape[0]
    big = m * (m + 1) // 2 if tri else m * n
    if big == 0:
        return
    mat_max = materialise_max
    if mat_max < 0:
        mat_max = max(SMALL_MAX_PAIRS, (m + n) // 2)
    direct = m + n <= DIRECT_MAX
    lo = np.empty(m, dtype=np.int64)
    hi = np.empty(m, dtype=np.int64)
    tmp = np.empty(m, dtype=np.int64)
    tmp2 = np.empty(0, dtype=np.int64)  # the second pivot's bounds, in a pre-round
    buf = np.empty(0)
    sample = np.empty(0)
    shared = np.empty(0)  # one small sample of all the sums, for every rank's first round
    counter = np.int64(0)  # not the literal 0: callees would compile for it too
    order = _rank_order(ranks)
    n_ranks = ranks.shape[0]
    positions = np.empty(n_ranks, dtype=np.int64)
    values = np.empty(n_ranks)
    done = np.empty(n_ranks, dtype=np.bool_)
    queue = np.empty((2 * n_ranks + 2, 2), dtype=np.int64)
    known = np.empty(2 * n_ranks, dtype=np.int64)  # positions selected in `shared`
    n_known = 0
    count_lo = 0  # sums <= L (L = -inf while no lower bound is known)
    count_hi = -1  # sums <= H (none yet: the first rank starts from all sums)
    low = -_INF
    have_low = False
    high = _INF
    t = 0
    while t < n_ranks:
        jr = order[t]
        r = ranks[jr]
        if r < 1 or r > big:
            t += 1
            continue
        if r > count_hi:  # start from the bracket of all sums
            for i in range(m):
                lo[i] = i if tri else 0
                hi[i] = n
            count_lo = 0
            count_hi = big
            low = -_INF
            have_low = False
            high = _INF
        full = True  # the bracket holds all the sums
        stagnant = False
        narrowed = False  # a small round on the bracket after the pre-round
        while True:
            if have_low:
                if np.nextafter(low, _INF) == high:  # every sum in (L, H] is H
                    break
            elif high == -_INF:
                break
            size = count_hi - count_lo
            k = r - count_lo - 1
            p = (k + 0.5) / size
            if size <= mat_max and not full:
                # gather now, unless one more cheap round (a sample of about 2 sqrt(size) of
                # the bracket's sums, two walks) can first cut it to a fraction: after the
                # pre-round of a mid-sized group, whose bracket still holds many times m + n
                if narrowed or size < _SECOND_ROUND_MIN or 8 * (m + n) > size:
                    break
                s = max(int(2.0 * np.sqrt(size)), 32)
                if sample.shape[0] != s:
                    sample = np.empty(s)
                counter = _draw(a, b, lo, hi, size, key, counter, sample)
                smp = sample
                window = _PRE_ROUND_SD
                pre_round = False
                narrowed = True
            elif size <= mat_max:
                # gather now, unless one cheap round on a shared sample can first cut the
                # bracket to a fraction: all sums of a small group in the bracket, walks short
                if not (direct and size >= _PRE_ROUND_MIN and 4 * (m + n) <= size):
                    break
                if shared.shape[0] == 0:
                    shared = np.empty(min(max(int(2.0 * np.sqrt(size)), 32), 256))
                    counter = _draw_full(a, b, tri, key, counter, shared)
                smp = shared
                window = _PRE_ROUND_SD
                pre_round = True
            else:
                # rounds needed at the largest sample, then the sample they need
                spread = 2.0 * _WINDOW_SD * np.sqrt(p * (1.0 - p))  # kept fraction * sqrt(s)
                goal = max(mat_max // 2, 1)
                want = float(SAMPLE_MAX)
                per_round = np.sqrt(want) / spread
                if per_round > 1.0:
                    rounds = max(np.ceil(np.log(size / goal) / np.log(per_round)), 1.0)
                    want = min((spread * (size / goal) ** (1.0 / rounds)) ** 2 + 1.0, want)
                s = max(min(int(want), size), min(SAMPLE_MIN, size))
                if sample.shape[0] != s:
                    sample = np.empty(s)
                if full and direct:
                    counter = _draw_full(a, b, tri, key, counter, sample)
                else:
                    counter = _draw(a, b, lo, hi, size, key, counter, sample)
                smp = sample
                window = _WINDOW_SD
                pre_round = False
            # the two sample order statistics around the target's expected position (Floyd &
            # Rivest 1975); the lower one is counted just below its value
            s = smp.shape[0]
            pos = p * s
            half = window * np.sqrt(s * p * (1.0 - p)) + 1.0
            i1 = int(np.floor(pos - half))
            i2 = int(np.ceil(pos + half))
            if stagnant or (i1 < 0 and i2 >= s):  # split at one value: always progresses
                i1 = min(int(pos), s - 1)
                i2 = i1
            if pre_round:
                if i1 >= 0:
                    n_known, counter = _select_known(smp, i1, known, n_known, key, counter)
                if i2 < s:
                    n_known, counter = _select_known(smp, i2, known, n_known, key, counter)
            else:
                if i1 >= 0:
                    _, counter = _select_in(smp, i1, np.int64(0), s, key, counter)
                if i2 < s and i2 != i1:
                    _, counter = _select_in(smp, i2, max(i1 + 1, 0), s, key, counter)
            if pre_round and not tri and i1 >= 0 and i2 < s and i2 != i1:
                # a pre-round from all the sums: both pivots counted in one walk
                if tmp2.shape[0] == 0:
                    tmp2 = np.empty(m, dtype=np.int64)
                v1 = np.nextafter(smp[i1], -_INF)
                v2 = smp[i2]
                c1, c2 = _count_two(a, b, v1, v2, tmp, tmp2)
                if r <= c1:
                    hi, tmp = tmp, hi
                    count_hi = c1
                    high = v1
                elif r <= c2:
                    lo, hi, tmp, tmp2 = tmp, tmp2, lo, hi
                    count_lo = c1
                    low = v1
                    have_low = True
                    count_hi = c2
                    high = v2
                else:
                    lo, tmp2 = tmp2, lo
                    count_lo = c2
                    low = v2
                    have_low = True
                full = False
                stagnant = count_hi - count_lo == size
                continue
            decided = False
            if i1 >= 0:
                v = np.nextafter(smp[i1], -_INF)
                c = _count_le(a, b, tri, v, lo, hi, tmp)
                if r <= c:
                    hi, tmp = tmp, hi
                    count_hi = c
                    high = v
                    decided = True
                else:
                    lo, tmp = tmp, lo
                    count_lo = c
                    low = v
                    have_low = True
            if not decided and i2 < s:
                v = smp[i2]
                c = _count_le(a, b, tri, v, lo, hi, tmp)
                if r <= c:
                    hi, tmp = tmp, hi
                    count_hi = c
                    high = v
                else:
                    lo, tmp = tmp, lo
                    count_lo = c
                    low = v
                    have_low = True
            full = False
            stagnant = count_hi - count_lo == size
        # every rank from t on that the bracket holds: one value, or select in its sums
        last = t
        while last < n_ranks and ranks[order[last]] <= count_hi:
            last += 1
        if have_low and np.nextafter(low, _INF) == high or not have_low and high == -_INF:
            for u in range(t, last):
                out[order[u]] = 0.5 * high if halve else high
        else:
            size = count_hi - count_lo
            if buf.shape[0] < size:
                buf = np.empty(size)
            _gather(a, b, lo, hi, buf)
            for u in range(last - t):
                positions[u] = ranks[order[t + u]] - count_lo - 1
            counter = _multi_select(buf, size, positions, values, last - t, done, queue, key,
                                    counter)
            for u in range(last - t):
                out[order[t + u]] = 0.5 * values[u] if halve else values[u]
        t = last


# ~10 us per 31 x 31 group and 4 ranks serially; the parallel build is disk-cached, so from ~40 ms
# of work (n_rows = max(values, m n / 16), `RankSumState.select`) every core runs.
@group_kernel(min_rows=250_000,
              chunking=Chunking(csr=((0, 1), (2, 3)), per_group=(4,), columns=(4,)))
def difference_order_statistics(x_sorted, x_offsets, y_sorted, y_offsets, ranks,
                                materialise_max=-1) -> np.ndarray:
    """Order statistics of the pairwise differences x_i - y_k of each pair of CSR samples.

    The median of the differences is the two-sample Hodges-Lehmann shift estimate, and two other
    order statistics its distribution-free confidence interval (Hodges & Lehmann 1963; Lehmann
    1975, ch. 2). Exact selection: see the module docstring.

    Parameters
    ----------
    x_sorted, x_offsets, y_sorted, y_offsets : float64 values and int64 CSR offsets of the two
        batches, one pair of samples per group; each segment ascending, without NaN (infinite
        values are fine unless a pair gives inf - inf).
    ranks : int64[n_groups, K], 1-based ranks among the m n differences of each group.
    materialise_max : int, optional. Gather and quickselect a bracket once it holds at most this
        many differences; default (-1): max(SMALL_MAX_PAIRS, (m + n) / 2). Tests pass small
        values (0: narrow down to a single value) to check the large-group path on small data.

    Returns
    -------
    float64[n_groups, K] : out[g, j] is the ranks[g, j]-th smallest of the m n values
        ``x_i - y_k`` (float64 subtraction) of group g, a zero as +0.0; NaN when the rank is
        outside 1..m n (so always for an empty sample), and for a group where some x_i - y_k
        is inf - inf.

    Notes
    -----
    Hodges & Lehmann (1963), "Estimates of location based on rank tests", Ann. Math. Statist. 34,
    598-611; Lehmann (1975), "Nonparametrics: Statistical Methods Based on Ranks" (the
    distribution-free interval).
    """
    n_groups = x_offsets.shape[0] - 1
    out = np.full((n_groups, ranks.shape[1]), np.nan)
    mat_max = np.int64(materialise_max)  # one build of the helpers, whether given or default
    for g in prange(n_groups):
        x = x_sorted[x_offsets[g]:x_offsets[g + 1]]
        y = y_sorted[y_offsets[g]:y_offsets[g + 1]]
        if x.shape[0] == 0 or y.shape[0] == 0:
            continue
        if x[-1] == _INF and y[-1] == _INF or x[0] == -_INF and y[0] == -_INF:
            continue  # inf - inf is NaN: no order (and no selection looping on a NaN pivot)
        key = sample_key(0, g)
        # rows are the shorter sample: a walk costs O(rows) plus the columns it crosses
        if x.shape[0] <= y.shape[0]:
            _pair_sum_order_statistics(x, _negated_reversed(y), False, ranks[g], out[g], False,
                                       mat_max, key)
        else:
            _pair_sum_order_statistics(_negated_reversed(y), x, False, ranks[g], out[g], False,
                                       mat_max, key)
        for j in range(ranks.shape[1]):
            out[g, j] += 0.0  # a zero difference as +0.0, whichever zero the selection met
    return out


@group_kernel(min_rows=2_000_000, chunking=Chunking(csr=((0, 1),), per_group=(2,), columns=(2,)))
def walsh_order_statistics(d_sorted, d_offsets, ranks, materialise_max=-1) -> np.ndarray:
    """Order statistics of the Walsh averages (d_i + d_k) / 2, i <= k, of each CSR sample.

    Their median is the one-sample Hodges-Lehmann estimate (the pseudo-median), and two other
    order statistics its distribution-free confidence interval (Hodges & Lehmann 1963; Lehmann
    1975, ch. 4). Exact selection: see the module docstring.

    Parameters
    ----------
    d_sorted, d_offsets : float64 values and int64 CSR offsets; each segment ascending, without
        NaN (infinite values are fine unless the sample holds both -inf and inf).
    ranks : int64[n_groups, K], 1-based ranks among the n (n + 1) / 2 averages of each group.
    materialise_max : int, optional; as for `difference_order_statistics`.

    Returns
    -------
    float64[n_groups, K] : out[g, j] is the ranks[g, j]-th smallest of the values
        ``(d_i + d_k) / 2`` (float64 sum, then halved: the same bits as ``0.5 * (d_i + d_k)``),
        i <= k, of group g, a zero as +0.0; NaN when the rank is outside 1..n (n + 1) / 2,
        and for a sample holding both -inf and inf.

    Notes
    -----
    Hodges & Lehmann (1963), Ann. Math. Statist. 34, 598-611 (the one-sample estimate is the
    median of the Walsh averages); Lehmann (1975), "Nonparametrics: Statistical Methods Based
    on Ranks" (the distribution-free interval).
    """
    n_groups = d_offsets.shape[0] - 1
    out = np.full((n_groups, ranks.shape[1]), np.nan)
    mat_max = np.int64(materialise_max)
    for g in prange(n_groups):
        d = d_sorted[d_offsets[g]:d_offsets[g + 1]]
        if d.shape[0] == 0 or d[0] == -_INF and d[-1] == _INF:
            continue  # -inf + inf is NaN: no order (and no selection looping on a NaN pivot)
        _pair_sum_order_statistics(d, d, True, ranks[g], out[g], True, mat_max,
                                   sample_key(0, g))
        for j in range(ranks.shape[1]):
            out[g, j] += 0.0  # a zero average as +0.0, whichever zero the selection met
    return out
