"""Row arithmetic of the rank-sum network algorithm (`fastperf.kernels.rank_sum_ties`).

The network algorithm (Mehta, Patel & Tsiatis 1984, Biometrics 40, 819-825) keeps, per node, a
dense row of partial-sum probabilities; these kernels build its arc weights (sequential
hypergeometric probabilities, `hypergeom_pmf`; the arcs of a stage of several small tie blocks,
`stage_combos`), sum the first or last part of a row from positive terms only (`block_sums`,
`head_sum`, `tail_sum`) and accumulate the arcs into the next stage's rows one cache-sized piece
at a time (`accumulate`).
"""
import numpy as np
from numpy import uint64

from fastperf.kernels.builds import njit

__all__ = ["hypergeom_pmf", "grow", "block_sums", "head_sum", "tail_sum", "accumulate",
           "STAGE_COMBOS", "stage_combos"]


@njit(cache=True)
def _sum(a, start, count):
    """Sum of ``a[start:start + count]`` with four running sums (error ~ count / 4 ulps)."""
    v = a[start:start + count]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    n4 = count - count % 4
    for i in range(0, n4, 4):
        s0 += v[i]
        s1 += v[i + 1]
        s2 += v[i + 2]
        s3 += v[i + 3]
    for i in range(n4, count):
        s0 += v[i]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def hypergeom_pmf(pop, succ, draws, k0, k1, out) -> None:
    """out[k - k0] = P(K = k) for k0 <= k <= k1, K hypergeometric (population `pop` with `succ`
    successes, `draws` drawn); [k0, k1] must be the whole support.

    Built by the ratio recurrence outwards from the mode and normalised by its sum, so each
    entry is within ~2 |k - mode| ulps; entries below ~1e-300 of the mode underflow.

    Parameters
    ----------
    pop, succ, draws : int
        Population size, successes in it, values drawn.
    k0, k1 : int
        The support of K: max(0, draws - (pop - succ)) .. min(succ, draws).
    out : numpy.ndarray
        Written at ``out[0 : k1 - k0 + 1]``.

    Returns
    -------
    None
        The probabilities are written into `out`.

    Notes
    -----
    P(K = k + 1) / P(K = k) = (succ - k)(draws - k) / ((k + 1)(pop - succ - draws + k + 1)),
    the hypergeometric ratio; these are the sequential arc weights of the network algorithm
    (Mehta, Patel & Tsiatis 1984, Biometrics 40, 819-825).
    """
    nk = k1 - k0 + 1
    if nk == 1:
        out[0] = 1.0
        return
    if succ == 1:  # one tied value (no ties): k in {0, 1}
        out[0] = (pop - draws) / pop
        out[1] = draws / pop
        return
    mode = ((draws + 1) * (succ + 1)) // (pop + 2)
    mode = min(max(mode, k0), k1)
    rest = pop - succ - draws
    out[mode - k0] = 1.0
    for k in range(mode, k1):
        out[k + 1 - k0] = out[k - k0] * ((succ - k) * (draws - k)) / ((k + 1) * (rest + k + 1))
    for k in range(mode, k0, -1):
        out[k - 1 - k0] = out[k - k0] * (k * (rest + k)) / ((succ - k + 1) * (draws - k + 1))
    total = _sum(out, 0, nk)
    for i in range(nk):
        out[i] /= total


@njit(cache=True)
def grow(a, need) -> np.ndarray:
    """`a` if it holds `need` elements, else a larger empty array.

    Parameters
    ----------
    a : numpy.ndarray
        A work array.
    need : int
        The elements needed.

    Returns
    -------
    numpy.ndarray
        `a` itself, or a new uninitialised array of max(need, 2 len(a)) elements.

    Notes
    -----
    Amortised doubling: no formula.
    """
    if a.shape[0] >= need:
        return a
    return np.empty(max(need, 2 * a.shape[0]))


@njit(cache=True)
def block_sums(buf, start, count, pre, suf, poff) -> None:
    """Running sums over blocks of 8 of ``buf[start:start + count]``, from each end:
    pre[poff + j] = sum of blocks 0 .. j, suf[poff + j] = sum of blocks j .. last (the last
    block may be short). With `head_sum` / `tail_sum` they give any sum of a first or last
    part from positive terms only, and the block sums are independent, so they pipeline.

    Parameters
    ----------
    buf : numpy.ndarray
        The row storage.
    start, count : int
        The row is ``buf[start:start + count]``.
    pre, suf : numpy.ndarray
        Written at ``[poff : poff + ceil(count / 8)]``.
    poff : int
        Offset into `pre` and `suf`.

    Returns
    -------
    None
        The sums are written into `pre` and `suf`.

    Notes
    -----
    Prefix sums over blocks (a pairwise sum within each block): sums of positive terms, so each
    partial sum is accurate to a few ulps relative.
    """
    nb = (count + 7) // 8
    v = buf[start:start + count]
    for j in range(nb):
        i = 8 * j
        if i + 8 <= count:
            x = (((v[i] + v[i + 1]) + (v[i + 2] + v[i + 3]))
                 + ((v[i + 4] + v[i + 5]) + (v[i + 6] + v[i + 7])))
        else:
            x = 0.0
            for q in range(i, count):
                x += v[q]
        pre[poff + j] = x
        suf[poff + j] = x
    for j in range(1, nb):
        pre[poff + j] += pre[poff + j - 1]
    for j in range(nb - 2, -1, -1):
        suf[poff + j] += suf[poff + j + 1]


@njit(cache=True, inline="always")
def head_sum(buf, start, n, pre, poff) -> float:
    """sum(buf[start : start + n]) for n >= 1, from `block_sums`.

    Parameters
    ----------
    buf : numpy.ndarray
        The row storage.
    start : int
        The row's start in `buf`.
    n : int
        The number of leading elements summed (>= 1).
    pre : numpy.ndarray
        The prefix sums of `block_sums`.
    poff : int
        Their offset.

    Returns
    -------
    float
        The sum of the row's first `n` elements.

    Notes
    -----
    Whole blocks from the prefix sums, the rest element by element: positive terms only.
    """
    j = n // 8
    acc = pre[poff + j - 1] if j > 0 else 0.0
    for i in range(start + 8 * j, start + n):
        acc += buf[i]
    return acc


@njit(cache=True, inline="always")
def tail_sum(buf, start, count, n, suf, poff) -> float:
    """sum of the last n of ``buf[start:start + count]`` (n >= 1), from `block_sums`.

    Parameters
    ----------
    buf : numpy.ndarray
        The row storage.
    start, count : int
        The row is ``buf[start:start + count]``.
    n : int
        The number of trailing elements summed (>= 1).
    suf : numpy.ndarray
        The suffix sums of `block_sums`.
    poff : int
        Their offset.

    Returns
    -------
    float
        The sum of the row's last `n` elements.

    Notes
    -----
    Whole blocks from the suffix sums, the rest element by element: positive terms only.
    """
    first = count - n  # index of the first element summed
    j = (first + 7) // 8  # first whole block
    nb = (count + 7) // 8
    acc = suf[poff + j] if j < nb else 0.0
    for i in range(start + first, start + min(8 * j, count)):
        acc += buf[i]
    return acc


#: Length of the pieces a target row is accumulated in (16 KiB).
_CHUNK = 2048

@njit(cache=True)
def _axpy(y, y0, x, x0, cnt, w):
    """y[y0 : y0 + cnt] += w * x[x0 : x0 + cnt]."""
    a = uint64(y0)
    b = uint64(x0)
    for i in range(uint64(cnt)):
        y[a + i] += w * x[b + i]


@njit(cache=True)
def _axpy4(y, y0, x, x0, x1, x2, x3, cnt, w0, w1, w2, w3):
    """y[y0 + i] += w0 x[x0 + i] + w1 x[x1 + i] + w2 x[x2 + i] + w3 x[x3 + i] (one pass
    over y for four arcs)."""
    a = uint64(y0)
    b0 = uint64(x0)
    b1 = uint64(x1)
    b2 = uint64(x2)
    b3 = uint64(x3)
    for i in range(uint64(cnt)):
        y[a + i] += (w0 * x[b0 + i] + w1 * x[b1 + i]) + (w2 * x[b2 + i] + w3 * x[b3 + i])


@njit(cache=True)
def _axpy2(y, y0, x, x0, x1, cnt, w0, w1):
    """y[y0 + i] += w0 x[x0 + i] + w1 x[x1 + i]."""
    a = uint64(y0)
    b0 = uint64(x0)
    b1 = uint64(x1)
    for i in range(uint64(cnt)):
        y[a + i] += w0 * x[b0 + i] + w1 * x[b1 + i]


@njit(cache=True)
def accumulate(y, base, length, x, q_src, q_dst, q_cnt, q_w, n_q) -> None:
    """Set ``y[base : base + length]`` to the sum of the queued arcs (w * x[src : src + cnt] at
    offset dst), one cache-sized piece of y at a time, four (or two) arcs per pass over the
    part of the piece they share.

    Parameters
    ----------
    y : numpy.ndarray
        The target row storage.
    base, length : int
        The target row is ``y[base:base + length]`` (overwritten).
    x : numpy.ndarray
        The source rows' storage.
    q_src, q_dst, q_cnt : numpy.ndarray of int
        Per queued arc: source start in `x`, destination offset in the row, length.
    q_w : numpy.ndarray
        Per queued arc: its weight.
    n_q : int
        The number of queued arcs.

    Returns
    -------
    None
        The row is written into `y`.

    Notes
    -----
    The node update of the network algorithm (Mehta, Patel & Tsiatis 1984, Biometrics 40,
    819-825): a target row is the weighted sum of its predecessors' rows, each shifted by the
    arc's score.
    """
    qa = np.empty(4, dtype=np.int64)
    for c0 in range(0, length, _CHUNK):
        c1 = min(c0 + _CHUNK, length)
        y[base + c0:base + c1] = 0.0
        q = 0
        while q < n_q:
            # the next (up to) four arcs that touch this piece
            g = 0
            while q < n_q and g < 4:
                d0 = q_dst[q]
                if max(c0, d0) < min(c1, d0 + q_cnt[q]):
                    qa[g] = q
                    g += 1
                q += 1
            n_grp = 4 if g == 4 else (2 if g >= 2 else 0)
            lo = c0
            hi = c1
            for i in range(n_grp):
                d0 = q_dst[qa[i]]
                lo = max(lo, d0)
                hi = min(hi, d0 + q_cnt[qa[i]])
            if lo >= hi:
                n_grp = 0
            if n_grp == 4:
                _axpy4(y, base + lo, x,
                       q_src[qa[0]] + lo - q_dst[qa[0]], q_src[qa[1]] + lo - q_dst[qa[1]],
                       q_src[qa[2]] + lo - q_dst[qa[2]], q_src[qa[3]] + lo - q_dst[qa[3]],
                       hi - lo, q_w[qa[0]], q_w[qa[1]], q_w[qa[2]], q_w[qa[3]])
            elif n_grp == 2:
                _axpy2(y, base + lo, x, q_src[qa[0]] + lo - q_dst[qa[0]],
                       q_src[qa[1]] + lo - q_dst[qa[1]], hi - lo, q_w[qa[0]], q_w[qa[1]])
            for i in range(g):
                qq = qa[i]
                d0 = q_dst[qq]
                a = max(c0, d0)
                z = min(c1, d0 + q_cnt[qq])
                if i >= n_grp:  # not in the shared pass: all of it
                    _axpy(y, base + a, x, q_src[qq] + a - d0, z - a, q_w[qq])
                    continue
                if a < lo:
                    _axpy(y, base + a, x, q_src[qq] + a - d0, lo - a, q_w[qq])
                if z > hi:
                    _axpy(y, base + hi, x, q_src[qq] + hi - d0, z - hi, q_w[qq])


#: Consecutive small tie blocks are processed as one stage while their joint outcomes
#: (products of count + 1) number at most this: fewer passes over the states, more arcs each.
STAGE_COMBOS = 16


@njit(cache=True)
def stage_combos(sp, cn, b0, b1, ck, cs, cm, kst) -> int:
    """The distinct arcs of taking k_i of the c_i values of blocks b0 .. b1 - 1 together:
    K = sum k_i in ``ck``, shift = sum k_i sp_i in ``cs``, multiplicity prod C(c_i, k_i) in
    ``cm``, sorted by (K, shift); ``kst[K] .. kst[K + 1]`` index the arcs with that K.
    Returns the number of arcs.

    Parameters
    ----------
    sp, cn : numpy.ndarray of int
        Per tie block its (shifted) score and its number of values.
    b0, b1 : int
        The stage's blocks.
    ck, cs, cm : numpy.ndarray
        Written: per arc K, shift and multiplicity.
    kst : numpy.ndarray of int
        Written: the arcs of each K, CSR style.

    Returns
    -------
    int
        The number of distinct arcs.

    Notes
    -----
    Several small tie blocks as one stage of the network algorithm (Mehta, Patel & Tsiatis
    1984, Biometrics 40, 819-825); the multiplicities are products of binomial coefficients,
    which the hypergeometric arc weights divide by C(remaining values, remaining draws).
    """
    n_blk = b1 - b0
    n = 0
    digits = np.zeros(n_blk, dtype=np.int64)
    while True:
        kk = 0
        sh = 0
        mult = 1.0
        for i in range(n_blk):
            k = digits[i]
            c = cn[b0 + i]
            kk += k
            sh += k * sp[b0 + i]
            # C(c, k) for small c
            v = 1.0
            for j in range(k):
                v = v * (c - j) / (j + 1)
            mult *= v
        # insert sorted by (K, shift), merging equal arcs
        pos = n
        while pos > 0 and (ck[pos - 1] > kk or (ck[pos - 1] == kk and cs[pos - 1] > sh)):
            pos -= 1
        if pos > 0 and ck[pos - 1] == kk and cs[pos - 1] == sh:
            cm[pos - 1] += mult
        else:
            for q in range(n, pos, -1):
                ck[q] = ck[q - 1]
                cs[q] = cs[q - 1]
                cm[q] = cm[q - 1]
            ck[pos] = kk
            cs[pos] = sh
            cm[pos] = mult
            n += 1
        # next digits (mixed radix)
        i = 0
        while i < n_blk:
            digits[i] += 1
            if digits[i] <= cn[b0 + i]:
                break
            digits[i] = 0
            i += 1
        if i == n_blk:
            break
    c_tot = 0
    for i in range(n_blk):
        c_tot += cn[b0 + i]
    q = 0
    for kk in range(c_tot + 1):
        kst[kk] = q
        while q < n and ck[q] == kk:
            q += 1
    kst[c_tot + 1] = n
    return n
