"""The branch-free merge of two ascending sequences that tallies rank sums and tie terms
(`merge_tally`), the core of the rank statistics in `fastperf.kernels.ranks`.

Midranks are half-integers; doubled they are exact integers, so rank sums come back doubled
(int64). Σ (t³ − t) over the pooled tie blocks is the tie term of the normal approximation's
variance (Hollander & Wolfe 1999, §3.1, §4.1).
"""
import numpy as np

from fastperf.kernels.builds import njit

__all__ = ["merge_tally", "merge_count_below"]


@njit(cache=True, inline="always")
def _merge_step(ax, x0, dx, sx, m, ay, y0, dy, sy, n, i, j, k, previous, run, x_in_block):
    """One step of `merge_tally`'s branch-free merge; returns the new state and the step's
    contributions (2 × rank of a taken x, x–y tied pairs, growth of Σ (t³ − t))."""
    xv = sx * ax[x0 + dx * min(i, m - 1)]
    yv = sy * ay[y0 + dy * min(j, n - 1)]
    take_x = (i < m) & ((j >= n) | (xv <= yv))
    v = xv if take_x else yv
    same = v == previous
    term = same * 3 * run * (run + 1)  # t³ − t grows by 3r(r + 1) when r becomes r + 1
    run = same * run + 1
    x_in_block = same * x_in_block + take_x
    pairs = (not take_x) * x_in_block
    rank2 = take_x * 2 * (k + 1)
    return i + take_x, j + (not take_x), v, run, x_in_block, rank2, pairs, term


@njit(cache=True)
def _first_at_least(a, o, d, s, n, v):
    """The first index i < n with s·a[o + d·i] >= v (n if none), the sequence ascending."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if s * a[o + d * mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def merge_tally(ax, x0, dx, sx, m, ay, y0, dy, sy, n) -> tuple[int, float]:
    """Rank pieces of two ascending sequences merged without branches.

    x_i = sx·ax[x0 + dx·i] (i < m) and y_j = sy·ay[y0 + dy·j] (j < n) must be ascending (a
    negative step with sx = −1 walks the negative differences outwards as |d|). The merge takes
    x first among equal values and is written with selects only, so random data costs no
    mispredicted branches; it is cut at a value (never inside a block of equal values) into two
    halves walked in the same loop, so the two dependency chains overlap. Returns
    ``(x_ranks2, tie_term)``: 2 × the sum of x's midranks in the pooled sample, and Σ (t³ − t)
    over the pooled tie blocks.

    With x first in a block holding a x's and b y's, x's ranks there are before + 1 .. before + a
    where their midranks sum to a (before + (t + 1)/2): 2 × midrank sum = 2 × (sum of these
    ranks) + a·b, and a·b counts, for each y, the x's of its block already taken.

    Parameters
    ----------
    ax : numpy.ndarray
        The storage of x.
    x0, dx, sx : int
        x_i = sx·ax[x0 + dx·i].
    m : int
        The length of x.
    ay : numpy.ndarray
        The storage of y.
    y0, dy, sy : int
        y_j = sy·ay[y0 + dy·j].
    n : int
        The length of y.

    Returns
    -------
    x_ranks2 : int
        2 × the sum of x's midranks in the pooled sample.
    tie_term : float
        Σ (t³ − t) over the pooled tie blocks.

    Notes
    -----
    The rank sum of x in the pooled sample (Wilcoxon 1945; Mann & Whitney 1947) with midranks for
    ties, and the tie term of Hollander & Wolfe (1999), "Nonparametric Statistical Methods", 2nd ed., §4.1.
    """
    if n == 0:  # x alone: ranks 1..m
        return _sequence_tally(ax, x0, dx, sx, m)
    if m == 0:
        return 0, _sequence_tally(ay, y0, dy, sy, n)[1]
    # cut where x's median value starts: blocks of equal values stay whole
    cut_value = sx * ax[x0 + dx * (m // 2)]
    mi = _first_at_least(ax, x0, dx, sx, m, cut_value)
    nj = _first_at_least(ay, y0, dy, sy, n, cut_value)
    # first half: x[0:mi], y[0:nj]; second half: x[mi:m], y[nj:n], positions from mi + nj
    i1, j1, k1 = 0, 0, 0
    i2, j2, k2 = 0, 0, mi + nj  # indices within the second half, positions in the whole
    x2, y2 = x0 + dx * mi, y0 + dy * nj
    prev1 = np.nan
    prev2 = np.nan
    run1 = run2 = xin1 = xin2 = 0
    rank2 = pairs = term = 0
    len1, len2 = mi + nj, m + n - mi - nj
    for _ in range(min(len1, len2)):
        i1, j1, prev1, run1, xin1, r, p, t = _merge_step(
            ax, x0, dx, sx, mi, ay, y0, dy, sy, nj, i1, j1, k1, prev1, run1, xin1)
        rank2 += r
        pairs += p
        term += t
        k1 += 1
        i2, j2, prev2, run2, xin2, r, p, t = _merge_step(
            ax, x2, dx, sx, m - mi, ay, y2, dy, sy, n - nj, i2, j2, k2, prev2, run2, xin2)
        rank2 += r
        pairs += p
        term += t
        k2 += 1
    while k1 < len1:
        i1, j1, prev1, run1, xin1, r, p, t = _merge_step(
            ax, x0, dx, sx, mi, ay, y0, dy, sy, nj, i1, j1, k1, prev1, run1, xin1)
        rank2 += r
        pairs += p
        term += t
        k1 += 1
    while k2 < m + n:
        i2, j2, prev2, run2, xin2, r, p, t = _merge_step(
            ax, x2, dx, sx, m - mi, ay, y2, dy, sy, n - nj, i2, j2, k2, prev2, run2, xin2)
        rank2 += r
        pairs += p
        term += t
        k2 += 1
    return rank2 + pairs, float(term)


@njit(cache=True)
def _sequence_tally(a, o, d, s, count):
    """`merge_tally` of one ascending sequence alone: (2 × Σ ranks 1..count, its tie term)."""
    term = 0
    run = 0
    previous = np.nan
    for i in range(count):
        v = s * a[o + d * i]
        same = v == previous
        term += same * 3 * run * (run + 1)
        run = same * run + 1
        previous = v
    return count * (count + 1), float(term)


@njit(cache=True, inline="always")
def _count_step(x, y, i, j, i_end, j_end):
    """One step of `merge_count_below`'s merge of x[:i_end] and y[:j_end] (x first among equal
    values): (i, j) moved on, and the step's #{y < x_i} and x_i = y_j when it takes x_i."""
    xv = x[min(i, i_end - 1)]
    yv = y[min(j, j_end - 1)]
    take_x = (i < i_end) & ((j >= j_end) | (xv <= yv))
    below = take_x * j
    tie = take_x & (j < j_end) & (xv == yv)
    return i + take_x, j + (not take_x), below, tie


@njit(cache=True)
def merge_count_below(x, y) -> tuple[int, bool]:
    """(U, crossed) of ascending x and y (no NaN): U = Σ_i #{j: y_j < x_i}, and whether some
    x_i equals some y_j.

    Parameters
    ----------
    x, y : numpy.ndarray
        float64, ascending, without NaN.

    Returns
    -------
    u : int
        Σ_i #{j: y_j < x_i}: the Mann-Whitney U of x where no x_i equals a y_j.
    crossed : bool
        Whether some x_i equals some y_j (U then needs half counts: `merge_tally`).

    The merge takes x first among equal values, so when it takes x_i the y pointer stands at
    #{y < x_i} and x_i = y_j there exactly when x_i is tied with a y. It is written with selects
    only and cut at x's median value into two halves walked in one loop, as `merge_tally`, but
    keeps no tie blocks: without ties it gives the rank sum for a third of `merge_tally`'s time
    (the generic-CPU build of `merge_tally` branches on its selects).

    Notes
    -----
    Mann & Whitney (1947), Ann. Math. Statist. 18, 50-60: without ties U = Σ_i #{y_j < x_i} =
    R_x − m(m + 1)/2. The merge takes x first among equal values, so it tells cross ties.
    """
    m = x.shape[0]
    n = y.shape[0]
    if m == 0 or n == 0:
        return 0, False
    cut = x[m // 2]
    mi = _first_at_least(x, 0, 1, 1.0, m, cut)
    nj = _first_at_least(y, 0, 1, 1.0, n, cut)
    # first half: x[:mi] with y[:nj]; second: x[mi:] with y[nj:] (pointers count from 0)
    x2 = x[mi:]
    y2 = y[nj:]
    i1 = j1 = i2 = j2 = 0
    u = 0
    ties = 0
    len1 = mi + nj
    len2 = m + n - len1
    for _ in range(min(len1, len2)):
        i1, j1, below, tie = _count_step(x, y, i1, j1, mi, nj)
        u += below
        ties += tie
        i2, j2, below, tie = _count_step(x2, y2, i2, j2, m - mi, n - nj)
        u += below
        ties += tie
    while i1 + j1 < len1:
        i1, j1, below, tie = _count_step(x, y, i1, j1, mi, nj)
        u += below
        ties += tie
    while i2 + j2 < len2:
        i2, j2, below, tie = _count_step(x2, y2, i2, j2, m - mi, n - nj)
        u += below
        ties += tie
    # every y of the first half is below every x of the second
    return u + nj * (m - mi), ties > 0
