"""Exact null distributions of the rank-sum (Mann-Whitney) and signed-rank (Wilcoxon) statistics.

Without ties (whole distributions, lower half; both are symmetric):

- `rank_sum_null_pmf`: P(U = u) from the log-derivative recurrence of the Gaussian binomial
  prod_{i<=m} (1 - q^(n+i)) / (1 - q^i) (Löffler 1983, "Über eine Partition der nat. Zahlen und
  ihr Anwendung beim U-Test", Wiss. Z. Univ. Halle XXXII'83 M, 87-89; scipy's ``_MWU`` evaluates
  it in O((mn)^2)), here in O(m * mn) with one ring buffer of stride sums per divisor. Harding's
  multiply-and-divide steps (1984, Appl. Stat. 33, 1-6) would be faster but are unstable in
  floating point: near the centre they lose relative accuracy as the sizes grow (1e-7 at
  400 x 400; 1e-9 at 350 x 1200 even in the best order of steps), while this recurrence stays
  within ~1e-13 of the exact big-integer counts.
- `signed_rank_null_pmf`: P(T+ = t), the product prod_i (1 + q^i) / 2 built in place.

With ties (exact tails conditional on the tie pattern, batched over groups):

- `rank_sum_tie_tails`: P(S <= s) and P(S >= s), S the score sum of a random m-subset of the
  pooled values, by the network algorithm (Mehta, Patel & Tsiatis 1984, Biometrics 40, 819-825):
  stage = tie block, node = number of x so far, hypergeometric arc weights, per node a dense row
  of partial-sum probabilities over the band whose outcome is still open (a partial sum whose
  every completion is <= or >= the observed value goes to that tail at once).
- `signed_rank_tie_tails`: the pmf of S = sum score_i B_i (B_i fair coins), the product over
  blocks of ((1 + q^s) / 2)^c truncated at the smaller tail, which is summed directly.
- `estimated_tie_tail_cost` / `tie_tail_costs`: their work, for choosing exact vs asymptotic.

Everything is float64 probabilities (never counts), so nothing overflows; values below ~1e-300
underflow (to subnormals or 0) and lose their relative accuracy. Small tails are always summed
from positive terms, never taken as 1 - cdf.
"""
import math

import numpy as np
from numba import njit, prange, uint64

from fastperf.kernels.builds import group_kernel

#: The mass the rank-sum network algorithm drops (states of negligible probability) never
#: exceeds this times the smaller tail found, or the group is recomputed with less dropped.
DROP_RTOL = 1e-14
#: Scale of the dropping threshold: states, arcs and row ends of probability below
#: ``DROP_SCALE * (normal approximation of the smaller tail) / ((m + 1) * blocks)`` are dropped
#: (and the threshold lowered 1e8-fold until the mass actually dropped passes `DROP_RTOL`).
DROP_SCALE = 1e-15


# --- small helpers ---------------------------------------------------------------------------


@njit(cache=True)
def _gcd(a, b):
    a = abs(a)
    b = abs(b)
    while b:
        a, b = b, a % b
    return a


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
def _kahan_sum(a):
    """Compensated (Neumaier) sum of an array."""
    s = 0.0
    comp = 0.0
    for x in a:
        t = s + x
        if abs(s) >= abs(x):
            comp += (s - t) + x
        else:
            comp += (x - t) + s
        s = t
    return s + comp


@njit(cache=True)
def _normal_sf(z):
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


# --- untied null distributions ---------------------------------------------------------------


@njit(cache=True)
def rank_sum_null_pmf(m, n):
    """P(U = u) for u = 0 .. floor(mn/2): the Mann-Whitney U of samples of sizes m and n, no ties.

    U is symmetric (P(U = u) = P(U = mn - u)), so only the lower half is returned; m or n = 0
    gives ``[1.0]``.

    The counts c_u (coefficients of the Gaussian binomial prod_{i=1..m} (1 - q^(n+i)) /
    (1 - q^i), m <= n) satisfy u c_u = sum_k sigma_k c_(u-k), sigma_k = sum of the divisors d
    of k with d <= m minus those with n < d <= n + m (Löffler 1983; scipy's ``_MWU``). Written
    as sum_d (+-d) S_d(u - d) with S_d(v) = c_v + S_d(v - d), each S_d lives in a ring buffer of
    length d that is updated and read in one contiguous pass every d steps (small d per step):
    O(m * mn) time, O(m (m + n)) memory. Near the centre the two sums cancel by a factor of
    about sigma(U) / n, which costs a few ulps; the result is normalised by its exact-in-float
    total. Relative error against exact big-integer counts: ~1e-13 at 400 x 400 (every entry).

    Entries below ~1e-300 underflow (the recursion starts at the smallest normal number and
    rescales by 2**-1000 when the counts approach overflow).
    """
    if m > n:
        m, n = n, m
    half = (m * n) // 2
    if m == 0:
        return np.ones(1)
    n_small = min(16, m)  # d = 1 .. n_small: per step; larger d: ring passes every d steps
    n_rings = (m - n_small) + m
    dval = np.empty(n_rings, dtype=np.int64)
    wval = np.empty(n_rings)
    t = 0
    for d in range(n_small + 1, m + 1):
        dval[t] = d
        wval[t] = d
        t += 1
    for d in range(n + 1, n + m + 1):
        dval[t] = d
        wval[t] = -d
        t += 1
    off = np.empty(n_rings + 1, dtype=np.int64)
    off[0] = 0
    for t in range(n_rings):
        off[t + 1] = off[t] + dval[t]
    ring = np.zeros(off[n_rings])
    # ring t is due at the multiples of its d: bucketed linked lists of due rings
    head = np.full(half + 2, -1, dtype=np.int64)
    nxt = np.full(n_rings, -1, dtype=np.int64)
    for t in range(n_rings):
        d = dval[t]
        if d <= half:
            nxt[t] = head[d]
            head[d] = t
    soff = np.zeros(n_small + 2, dtype=np.int64)
    for d in range(1, n_small + 1):
        soff[d + 1] = soff[d] + d
    sring = np.zeros(soff[n_small + 1])
    spos = np.zeros(n_small + 1, dtype=np.int64)
    c = np.zeros(half + 1)
    p = np.zeros(half + 1)  # sum over the ring divisors of (+-d) S_d(u - d), filled ahead
    tiny = 2.0 ** -1022
    for u in range(half + 1):
        t = head[u]
        while t >= 0:
            tn = nxt[t]
            d = dval[t]
            w = wval[t]
            base = uint64(off[t])
            cb = uint64(u - d)
            pb = uint64(u)
            cnt = min(d, half + 1 - u)
            # S_d(v) += c_v for v in [u - d, u) (ring slot v mod d = i), then read S_d(u + i - d);
            # when cnt < d the ring is never due again, so its tail needs no update
            for i in range(uint64(cnt)):
                r = ring[base + i] + c[cb + i]
                ring[base + i] = r
                p[pb + i] += w * r
            if u + d <= half:
                nxt[t] = head[u + d]
                head[u + d] = t
            t = tn
        acc = p[u]
        for d in range(1, n_small + 1):
            acc += d * sring[soff[d] + spos[d]]
        cu = tiny if u == 0 else acc / u
        c[u] = cu
        for d in range(1, n_small + 1):
            ps = spos[d]
            sring[soff[d] + ps] += cu
            ps += 1
            if ps == d:
                ps = 0
            spos[d] = ps
        if cu > 2.0 ** 1000:  # rescale everything still in use
            f = 2.0 ** -1000
            for i in range(u + 1):
                c[i] *= f
            for i in range(u + 1, half + 1):
                p[i] *= f
            for i in range(ring.shape[0]):
                ring[i] *= f
            for i in range(sring.shape[0]):
                sring[i] *= f
    total = 2.0 * _kahan_sum(c)
    if (m * n) % 2 == 0:
        total -= c[half]
    for u in range(half + 1):
        c[u] /= total
    return c


@njit(cache=True)
def signed_rank_null_pmf(n):
    """P(T+ = t) for t = 0 .. floor(n(n+1)/4): the Wilcoxon signed-rank statistic, no ties/zeros.

    T+ is symmetric about n(n+1)/4, so only the lower half is returned; n = 0 gives ``[1.0]``.
    The generating function prod_{i=1..n} (1 + q^i) / 2 is built in place on the lower half
    (a[j] = (a[j] + a[j - i]) / 2, descending, in chunks of length i so each chunk vectorises);
    entries of a partial product above its middle are read back by symmetry. Every operation
    adds nonnegative numbers, so each entry is within ~n ulps (in practice a few) of exact.
    O(n^3 / 12) operations. Entries below ~1e-300 underflow (computed at scale 2**1000).
    """
    half = (n * (n + 1)) // 4
    if n == 0:
        return np.ones(1)
    a, _ = _coin_product_lower(np.arange(1, n + 1), np.ones(n, dtype=np.int64), n, half)
    f = 2.0 ** -1000
    for j in range(half + 1):
        a[j] *= f
    return a


@njit(cache=True)
def _coin_product_lower(scores, counts, n_blocks, x):
    """2**1000 P(S = j) for j = 0 .. x (as far as built), S = Σ_b scores[b] · (sum of counts[b]
    fair coins), scores positive: the product of ((1 + q^s) / 2)^c built in place (a[j] = (a[j]
    + a[j - s]) / 2 by `_halve_shift_add`), each partial product only up to min(x, its middle),
    entries above a partial product's middle read back by symmetry. Returns the array and the
    last index built (the final product's middle, or x)."""
    a = np.zeros(x + 1)
    a[0] = 2.0 ** 1000
    h_old = 0
    d_old = 0
    for b in range(n_blocks):
        s = scores[b]
        for _ in range(counts[b]):
            d = d_old + s
            h = min(x, d // 2)
            for j in range(h_old + 1, h + 1):
                r = d_old - j
                a[j] = a[r] if r >= 0 else 0.0
            _halve_shift_add(a, s, h)
            h_old = h
            d_old = d
    return a, h_old


@njit(cache=True)
def _halve_shift_add(a, s, h):
    """In place, a[j] = (a[j] + a[j - s]) / 2 for s <= j <= h and a[j] /= 2 below s (s >= 1)."""
    hi = h + 1
    while hi > s:
        lo = max(s, hi - s)
        cnt = uint64(hi - lo)
        p = uint64(lo)
        q = uint64(lo - s)
        for k in range(cnt):
            a[p + k] = 0.5 * (a[p + k] + a[q + k])
        hi = lo
    for j in range(min(s, h + 1)):
        a[j] *= 0.5


# --- exact tails with ties: rank sum -----------------------------------------------------------


@njit(cache=True)
def _hypergeom_pmf(pop, succ, draws, k0, k1, out):
    """out[k - k0] = P(K = k) for k0 <= k <= k1, K hypergeometric (population `pop` with `succ`
    successes, `draws` drawn); [k0, k1] must be the whole support.

    Built by the ratio recurrence outwards from the mode and normalised by its sum, so each
    entry is within ~2 |k - mode| ulps; entries below ~1e-300 of the mode underflow.
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
def _grow(a, need):
    """`a` if it holds `need` elements, else a larger empty array."""
    if a.shape[0] >= need:
        return a
    return np.empty(max(need, 2 * a.shape[0]))


@njit(cache=True)
def _block_sums(buf, start, count, pre, suf, poff):
    """Running sums over blocks of 8 of ``buf[start:start + count]``, from each end:
    pre[poff + j] = sum of blocks 0 .. j, suf[poff + j] = sum of blocks j .. last (the last
    block may be short). With `_head_sum` / `_tail_sum` they give any sum of a first or last
    part from positive terms only, and the block sums are independent, so they pipeline."""
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
def _head_sum(buf, start, n, pre, poff):
    """sum(buf[start : start + n]) for n >= 1, from `_block_sums`."""
    j = n // 8
    acc = pre[poff + j - 1] if j > 0 else 0.0
    for i in range(start + 8 * j, start + n):
        acc += buf[i]
    return acc


@njit(cache=True, inline="always")
def _tail_sum(buf, start, count, n, suf, poff):
    """sum of the last n of ``buf[start:start + count]`` (n >= 1), from `_block_sums`."""
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
def _accumulate(y, base, length, x, q_src, q_dst, q_cnt, q_w, n_q):
    """Set ``y[base : base + length]`` to the sum of the queued arcs (w * x[src : src + cnt] at
    offset dst), one cache-sized piece of y at a time, four (or two) arcs per pass over the
    part of the piece they share."""
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
def _stage_combos(sp, cn, b0, b1, ck, cs, cm, kst):
    """The distinct arcs of taking k_i of the c_i values of blocks b0 .. b1 - 1 together:
    K = sum k_i in ``ck``, shift = sum k_i sp_i in ``cs``, multiplicity prod C(c_i, k_i) in
    ``cm``, sorted by (K, shift); ``kst[K] .. kst[K + 1]`` index the arcs with that K.
    Returns the number of arcs."""
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


@njit(cache=True)
def _rank_sum_network(sp, cn, n_blocks, n_total, m, lo_thr, hi_thr, theta):
    """Network algorithm for P(S' <= lo_thr), P(S' >= hi_thr) and the mass dropped.

    S' = sum of the chosen scores `sp` (nonnegative, ascending, one per tie block of `cn`
    values), m of `n_total` values chosen. States: node t (values chosen so far) x partial sum,
    one dense row of partial sums per node, carried only inside the band of sums whose fate is
    still open. A stage is one tie block, or a run of small blocks taken together
    (`STAGE_COMBOS`). States, arcs and row ends of probability <= `theta` are dropped and their
    mass returned as the third value (an upper bound of the error in each tail); theta = 0 is
    exact.
    """
    cap = 256
    buf = np.empty(cap)
    nbuf = np.empty(cap)
    pre = np.empty(cap)
    suf = np.empty(cap)
    lo = np.zeros(m + 1, dtype=np.int64)
    ln = np.zeros(m + 1, dtype=np.int64)
    st = np.zeros(m + 1, dtype=np.int64)
    nlo = np.zeros(m + 1, dtype=np.int64)
    nln = np.zeros(m + 1, dtype=np.int64)
    nst = np.zeros(m + 1, dtype=np.int64)
    has_ps = np.zeros(m + 1, dtype=np.bool_)
    pr = np.zeros(m + 1)  # P(T = t) at the current stage (a bound on row t's mass)
    npr = np.zeros(m + 1)
    cmin = np.zeros(m + 1, dtype=np.int64)
    cmax = np.zeros(m + 1, dtype=np.int64)
    wst = np.zeros(m + 1, dtype=np.int64)
    c_big = 0
    for b in range(n_blocks):
        c_big = max(c_big, cn[b])
    n_arc_max = max(c_big + 1, STAGE_COMBOS)
    ck = np.zeros(n_arc_max, dtype=np.int64)
    cs = np.zeros(n_arc_max, dtype=np.int64)
    cm = np.zeros(n_arc_max)
    kst = np.zeros(n_arc_max + 1, dtype=np.int64)
    wbuf = np.empty(256)
    n_q_max = n_arc_max  # arcs into one target row: at most all arcs of the stage
    q_src = np.empty(n_q_max, dtype=np.int64)
    q_dst = np.empty(n_q_max, dtype=np.int64)
    q_cnt = np.empty(n_q_max, dtype=np.int64)
    q_w = np.empty(n_q_max)
    lower = 0.0
    upper = 0.0
    dropped = 0.0
    tlo = 0
    thi = 0
    ln[0] = 1
    buf[0] = 1.0
    pr[0] = 1.0
    used = 1
    before = 0
    b = 0
    while b < n_blocks:
        # the stage: block b alone, or b .. b_end - 1 with few joint outcomes
        b_end = b + 1
        combos = cn[b] + 1
        while b_end < n_blocks and combos * (cn[b_end] + 1) <= STAGE_COMBOS:
            combos *= cn[b_end] + 1
            b_end += 1
        c = 0
        for i in range(b, b_end):
            c += cn[i]
        single = b_end == b + 1
        if single:
            n_arc = c + 1
            for k in range(c + 1):
                ck[k] = k
                cs[k] = k * sp[b]
                kst[k] = k
            kst[c + 1] = c + 1
        else:
            n_arc = _stage_combos(sp, cn, b, b_end, ck, cs, cm, kst)
        rem = n_total - before  # values not yet placed, this stage included
        rem_after = rem - c
        # smallest / largest completions by the blocks after this stage, r = 0 .. r_top
        r_top = min(m, rem_after)
        cmin[0] = 0
        cmax[0] = 0
        blk = b_end
        left = cn[blk] if blk < n_blocks else 0
        for r in range(1, r_top + 1):
            while left == 0:
                blk += 1
                left = cn[blk]
            cmin[r] = cmin[r - 1] + sp[blk]
            left -= 1
        blk = n_blocks - 1
        left = cn[blk]
        for r in range(1, r_top + 1):
            while left == 0:
                blk -= 1
                left = cn[blk]
            cmax[r] = cmax[r - 1] + sp[blk]
            left -= 1
        # arc weights per source row: P(this stage's K values are a given K-subset) * mult
        pos = 0
        for t in range(tlo, thi + 1):
            if ln[t] > 0:
                wst[t] = pos
                pos += n_arc
        if wbuf.shape[0] < pos:
            wbuf = np.empty(max(pos, 2 * wbuf.shape[0]))
        for t in range(tlo, thi + 1):
            if ln[t] == 0:
                continue
            r = m - t
            k0 = max(0, r - rem_after)
            k1 = min(c, r)
            w0 = wst[t]
            for j in range(n_arc):
                wbuf[w0 + j] = 0.0
            if single:
                _hypergeom_pmf(rem, c, r, k0, k1, wbuf[w0 + k0:])
            else:
                # p_K = [r]_K [rem - r]_(c - K) / [rem]_c, from K = k0 up by ratios
                p = 1.0
                for j in range(k0):
                    p *= (r - j) / (rem - j)
                for j in range(c - k0):
                    p *= (rem - r - j) / (rem - k0 - j)
                for kk in range(k0, k1 + 1):
                    for j in range(kst[kk], kst[kk + 1]):
                        wbuf[w0 + j] = cm[j] * p
                    p *= (r - kk) / (rem - r - c + kk + 1)
        tn_lo = max(tlo, m - rem_after)
        tn_hi = min(thi + c, m)
        # P(T = tn) after this stage: hypergeometric(n_total, before + c, m)
        g0 = max(0, m - (n_total - before - c))
        g1 = min(m, before + c)
        _hypergeom_pmf(n_total, before + c, m, g0, g1, npr[g0:])
        # pass 1: the carried range of each new row
        total_len = 0
        for tn in range(tn_lo, tn_hi + 1):
            nln[tn] = 0
            r = m - tn
            if npr[tn] <= theta or cmax[r] == cmin[r]:
                continue
            blo = hi_thr - cmax[r]
            bhi = lo_thr - cmin[r]
            a = bhi + 1
            z = blo - 1
            for kk in range(max(0, tn - thi), min(c, tn - tlo) + 1):
                t = tn - kk
                if ln[t] == 0:
                    continue
                for j in range(kst[kk], kst[kk + 1]):
                    if pr[t] * wbuf[wst[t] + j] <= theta:
                        continue
                    x = lo[t] + cs[j]
                    y = x + ln[t] - 1
                    if x < blo:
                        x = blo
                    if y > bhi:
                        y = bhi
                    if x <= y:
                        a = min(a, x)
                        z = max(z, y)
            if a <= z:
                nlo[tn] = a
                nln[tn] = z - a + 1
                nst[tn] = total_len
                total_len += z - a + 1
        nbuf = _grow(nbuf, total_len)
        pre = _grow(pre, used // 8 + m + 2)
        suf = _grow(suf, used // 8 + m + 2)
        for t in range(tlo, thi + 1):
            has_ps[t] = False
        # pass 2: resolve what leaves the band, accumulate what stays
        for tn in range(tn_lo, tn_hi + 1):
            r = m - tn
            if npr[tn] <= theta:
                dropped += npr[tn]
                continue
            carried = cmax[r] > cmin[r]
            blo = hi_thr - cmax[r]
            bhi = lo_thr - cmin[r]
            n_q = 0
            for kk in range(max(0, tn - thi), min(c, tn - tlo) + 1):
                t = tn - kk
                if ln[t] == 0:
                    continue
                n_t = ln[t]
                for j in range(kst[kk], kst[kk + 1]):
                    w = wbuf[wst[t] + j]
                    if pr[t] * w <= theta:
                        dropped += pr[t] * w
                        continue
                    x = lo[t] + cs[j]
                    if carried:
                        n_below = min(max(blo - x, 0), n_t)
                        n_above = min(max(x + n_t - 1 - bhi, 0), n_t)
                    else:
                        # every completion adds cmin[r]: resolve each sum against both ends
                        n_below = min(max(bhi - x + 1, 0), n_t)
                        n_above = min(max(x + n_t - blo, 0), n_t)
                    if n_below > 0 or n_above > 0:
                        poff = st[t] // 8 + t  # row t's block sums (rows in order of t)
                        if not has_ps[t]:
                            _block_sums(buf, st[t], n_t, pre, suf, poff)
                            has_ps[t] = True
                        if n_below > 0:
                            lower += w * _head_sum(buf, st[t], n_below, pre, poff)
                        if n_above > 0:
                            upper += w * _tail_sum(buf, st[t], n_t, n_above, suf, poff)
                    if carried and n_below + n_above < n_t:
                        q_src[n_q] = st[t] + n_below
                        q_dst[n_q] = x + n_below - nlo[tn]
                        q_cnt[n_q] = n_t - n_below - n_above
                        q_w[n_q] = w
                        n_q += 1
            _accumulate(nbuf, nst[tn], nln[tn], buf, q_src, q_dst, q_cnt, q_w, n_q)
        # drop negligible row ends, find the live rows
        new_lo = m + 1
        new_hi = -1
        for tn in range(tn_lo, tn_hi + 1):
            n_t = nln[tn]
            if n_t == 0:
                continue
            i0 = nst[tn]
            i1 = i0 + n_t
            if theta > 0.0:
                acc = 0.0
                while i0 < i1 and acc + nbuf[i0] <= theta:
                    acc += nbuf[i0]
                    i0 += 1
                dropped += acc
                acc = 0.0
                while i1 > i0 and acc + nbuf[i1 - 1] <= theta:
                    acc += nbuf[i1 - 1]
                    i1 -= 1
                dropped += acc
            nlo[tn] += i0 - nst[tn]
            nst[tn] = i0
            nln[tn] = i1 - i0
            if i1 > i0:
                new_lo = min(new_lo, tn)
                new_hi = max(new_hi, tn)
        # next stage
        for t in range(tlo, thi + 1):
            ln[t] = 0
        buf, nbuf = nbuf, buf
        lo, nlo = nlo, lo
        ln, nln = nln, ln
        st, nst = nst, st
        pr, npr = npr, pr
        used = total_len
        before += c
        b = b_end
        if new_hi < 0:
            break
        tlo = new_lo
        thi = new_hi
        for t in range(tlo, thi + 1):
            if t < tn_lo or t > tn_hi:
                ln[t] = 0
    return lower, upper, dropped


@njit(cache=True)
def _merged_blocks(scores, counts, b0, b1):
    """The group's blocks with positive counts, sorted by score, equal scores merged."""
    nb = b1 - b0
    sc = np.empty(nb, dtype=np.int64)
    cn = np.empty(nb, dtype=np.int64)
    k = 0
    for b in range(b0, b1):
        if counts[b] > 0:
            sc[k] = scores[b]
            cn[k] = counts[b]
            k += 1
    ordered = True
    for i in range(1, k):
        if sc[i] < sc[i - 1]:
            ordered = False
    if not ordered:
        idx = np.argsort(sc[:k], kind="mergesort")
        sc2 = sc[:k][idx]
        cn2 = cn[:k][idx]
        sc[:k] = sc2
        cn[:k] = cn2
    n_blocks = 0
    for i in range(k):
        if n_blocks > 0 and sc[n_blocks - 1] == sc[i]:
            cn[n_blocks - 1] += cn[i]
        else:
            sc[n_blocks] = sc[i]
            cn[n_blocks] = cn[i]
            n_blocks += 1
    return sc, cn, n_blocks


@njit(cache=True)
def _rank_sum_tails_one(scores, counts, b0, b1, m, observed):
    """(P(S <= observed), P(S >= observed)) for one group of `rank_sum_tie_tails`."""
    sc, cn, n_blocks = _merged_blocks(scores, counts, b0, b1)
    n_total = 0
    for b in range(n_blocks):
        n_total += cn[b]
    if m < 0 or m > n_total:
        return np.nan, np.nan
    if n_blocks <= 1 or m == 0 or m == n_total:
        s0 = 0
        if m > 0:
            for b in range(n_blocks):
                s0 += cn[b] * sc[b]
            if m < n_total:
                s0 = m * sc[0]
        return (1.0 if s0 <= observed else 0.0), (1.0 if s0 >= observed else 0.0)
    base = sc[0]
    g = 0
    for b in range(1, n_blocks):
        g = _gcd(g, sc[b] - base)
    sp = np.empty(n_blocks, dtype=np.int64)
    for b in range(n_blocks):
        sp[b] = (sc[b] - base) // g
    num = observed - m * base
    lo_thr = num // g            # S <= observed  <=>  S' <= lo_thr
    hi_thr = -((-num) // g)      # S >= observed  <=>  S' >= hi_thr
    # support of S': the m smallest / largest shifted scores
    s_min = 0
    s_max = 0
    left = m
    for b in range(n_blocks):
        take = min(left, cn[b])
        s_min += take * sp[b]
        left -= take
    left = m
    for b in range(n_blocks - 1, -1, -1):
        take = min(left, cn[b])
        s_max += take * sp[b]
        left -= take
    if lo_thr < s_min or hi_thr > s_max or lo_thr >= s_max or hi_thr <= s_min:
        lower = 0.0 if lo_thr < s_min else (1.0 if lo_thr >= s_max else -1.0)
        upper = 0.0 if hi_thr > s_max else (1.0 if hi_thr <= s_min else -1.0)
        if lower >= 0.0 and upper >= 0.0:
            return lower, upper
    # normal approximation of the smaller tail, to scale what may be dropped
    mean = 0.0
    for b in range(n_blocks):
        mean += cn[b] * sp[b]
    mean /= n_total
    ss = 0.0
    for b in range(n_blocks):
        ss += cn[b] * (sp[b] - mean) ** 2
    var = m * (n_total - m) / (n_total * (n_total - 1.0)) * ss
    sd = math.sqrt(var) if var > 0 else 1.0
    p_lo = _normal_sf((m * mean - lo_thr - 0.5) / sd)
    p_hi = _normal_sf((hi_thr - 0.5 - m * mean) / sd)
    p_small = max(min(p_lo, p_hi), 1e-300)
    # Work on the small tail as an upper tail (scores mirrored when it is the lower one): the
    # high-score blocks then come last, when few completions remain (0-15% faster measured).
    mirror = p_lo < p_hi
    if mirror:
        top = sp[n_blocks - 1]
        sp2 = np.empty(n_blocks, dtype=np.int64)
        cn2 = np.empty(n_blocks, dtype=np.int64)
        for b in range(n_blocks):
            sp2[b] = top - sp[n_blocks - 1 - b]
            cn2[b] = cn[n_blocks - 1 - b]
        sp = sp2
        cn = cn2
        lo_thr, hi_thr = m * top - hi_thr, m * top - lo_thr
    theta = DROP_SCALE * p_small / ((m + 1.0) * n_blocks)
    lower, upper, dropped = _rank_sum_network(sp, cn, n_blocks, n_total, m, lo_thr, hi_thr, theta)
    while dropped > DROP_RTOL * min(lower, upper) and theta > 0.0:
        # too much dropped for the tail found (the approximation was off): scale to that tail
        theta = min(theta * 1e-8, 1e-2 * DROP_SCALE * min(lower, upper) / ((m + 1.0) * n_blocks))
        if theta < 1e-300:
            theta = 0.0
        lower, upper, dropped = _rank_sum_network(sp, cn, n_blocks, n_total, m, lo_thr, hi_thr,
                                                  theta)
    if mirror:
        lower, upper = upper, lower
    return min(lower, 1.0), min(upper, 1.0)


@group_kernel(min_rows=200_000)
def rank_sum_tie_tails(scores, counts, block_offsets, m, observed):
    """Exact tails of the rank sum conditional on ties, per group: (P(S <= obs), P(S >= obs)).

    Group g owns the tie blocks ``block_offsets[g] .. block_offsets[g+1] - 1``: block b holds
    ``counts[b]`` equal pooled values, all scored ``scores[b]`` (any integers, e.g. doubled
    midranks 2 * (values before the block) + counts[b] + 1). A uniformly random ``m[g]``-subset
    of the group's N values is "x"; S = the sum of its scores. Returns float64 arrays
    ``(lower, upper)`` with lower[g] = P(S <= observed[g]) and upper[g] = P(S >= observed[g]).
    N = 0, m = 0 and m = N give the point mass of the constant S; m outside [0, N] gives NaN.

    Network algorithm (Mehta, Patel & Tsiatis 1984) over the tie blocks in score order: stage =
    a block (or a run of small blocks, `STAGE_COMBOS`), node = number of x so far, arc weights
    the sequential hypergeometric probabilities C(c, k) C(R - c, r - k) / C(R, r), per node a
    dense row of partial-sum probabilities. A partial sum whose every completion (the r
    smallest / largest remaining scores) is <= or >= the observed value is added to that tail
    at once, so only the band of undecided sums is carried and both tails are sums of positive
    terms. States, arcs and row ends of negligible probability (a threshold scaled to a normal
    approximation of the smaller tail) are dropped too, their mass counted; if it exceeds
    ``DROP_RTOL`` times the smaller tail found, the group is recomputed with a threshold scaled
    to that tail (down to none). Both tails are thus within ~1e-14 relative of exact (values
    below ~1e-300 underflow). Work and memory: about `estimated_tie_tail_cost` operations on
    rows of a few million doubles for 400 vs 400 (0.02-0.9 s); ~0.1 ms for 30 vs 30.
    """
    n_groups = block_offsets.shape[0] - 1
    lower = np.empty(n_groups)
    upper = np.empty(n_groups)
    for g in prange(n_groups):
        lo, up = _rank_sum_tails_one(scores, counts, block_offsets[g], block_offsets[g + 1],
                                     m[g], observed[g])
        lower[g] = lo
        upper[g] = up
    return lower, upper


# --- exact tails with ties: signed rank --------------------------------------------------------


@njit(cache=True)
def _signed_rank_tails_one(scores, counts, b0, b1, observed):
    """(P(S <= observed), P(S >= observed)) for one group of `signed_rank_tie_tails`."""
    nb = b1 - b0
    # S = const + sum |s| B' (a negative score s contributes s + |s| (1 - B), 1 - B a fair coin)
    sc = np.empty(nb, dtype=np.int64)
    cn = np.empty(nb, dtype=np.int64)
    const = 0
    k = 0
    for b in range(b0, b1):
        c = counts[b]
        s = scores[b]
        if c <= 0 or s == 0:
            continue
        if s < 0:
            const += c * s
            s = -s
        sc[k] = s
        cn[k] = c
        k += 1
    if k == 0:
        return (1.0 if const <= observed else 0.0), (1.0 if const >= observed else 0.0)
    # ascending by |score|, equal scores merged (keeps the partial products short)
    idx = np.argsort(sc[:k], kind="mergesort")
    sa = np.empty(k, dtype=np.int64)
    ca = np.empty(k, dtype=np.int64)
    n_blocks = 0
    for i in range(k):
        s = sc[idx[i]]
        if n_blocks > 0 and sa[n_blocks - 1] == s:
            ca[n_blocks - 1] += cn[idx[i]]
        else:
            sa[n_blocks] = s
            ca[n_blocks] = cn[idx[i]]
            n_blocks += 1
    g = 0
    for b in range(n_blocks):
        g = _gcd(g, sa[b])
    top = 0  # T' = largest value of S' = (S - const) / g
    for b in range(n_blocks):
        sa[b] //= g
        top += sa[b] * ca[b]
    num = observed - const
    lo_thr = num // g          # S <= observed  <=>  S' <= lo_thr
    hi_thr = -((-num) // g)    # S >= observed  <=>  S' >= hi_thr  <=>  S' <= top - hi_thr
    x_lo = lo_thr
    x_hi = top - hi_thr
    if x_lo < 0 or x_lo >= top or x_hi < 0 or x_hi >= top:
        lower = 0.0 if x_lo < 0 else (1.0 if x_lo >= top else -1.0)
        upper = 0.0 if x_hi < 0 else (1.0 if x_hi >= top else -1.0)
        if lower >= 0.0 and upper >= 0.0:
            return lower, upper
    # the smaller tail is P(S' <= x) for x = min(x_lo, x_hi) <= top / 2
    x = min(x_lo, x_hi)
    if x < 0:
        small = 0.0
        rest = 0.0  # P(S' <= the other side's complement point) is 0 too
    else:
        a, h_old = _coin_product_lower(sa, ca, n_blocks, x)
        # entries above the final middle by symmetry (only when x > top // 2, i.e. x = top / 2)
        for j in range(h_old + 1, x + 1):
            a[j] = a[top - j]
        small = _kahan_sum(a) * 2.0 ** -1000
        # the complement point of the other tail: 1 - P(S' <= y), y = the other side's x - ...
        y = (hi_thr - 1) if x == x_lo else (top - lo_thr - 1)
        rest = _kahan_sum(a[:y + 1]) * 2.0 ** -1000 if y >= 0 else 0.0
    if x == x_lo:
        return min(small, 1.0), min(max(1.0 - rest, 0.0), 1.0)
    return min(max(1.0 - rest, 0.0), 1.0), min(small, 1.0)


@group_kernel(min_rows=200_000)
def signed_rank_tie_tails(scores, counts, block_offsets, observed):
    """Exact tails of the signed-rank sum conditional on ties, per group: (P(S <= obs),
    P(S >= obs)).

    Group g owns the tie blocks ``block_offsets[g] .. block_offsets[g+1] - 1``: block b holds
    ``counts[b]`` elements scored ``scores[b]`` (any integers, e.g. the doubled midranks of
    |d| among the nonzero differences, which need not start at 2 when zeros took the lowest
    ranks). S = sum over the elements of score * B with B independent fair coins (each sign
    random). Returns float64 arrays ``(lower, upper)``, lower[g] = P(S <= observed[g]),
    upper[g] = P(S >= observed[g]); a group with no nonzero score has the point mass of S = 0.

    S' = (S - const) / gcd is the sum of independent c-fold binomials on a lattice; its pmf is
    the product over blocks of ((1 + q^s) / 2)^c, built in place as in `signed_rank_null_pmf`
    but only up to the point x of the smaller tail (an entry of a partial product depends only
    on lower entries; entries above the middle of a partial product are read back by symmetry).
    The smaller tail is the sum of those entries (positive terms); the larger one (>= 1/2) is
    1 minus the sum below its complement point. O(sum over elements of min(x, partial range / 2))
    operations, a few ulps of error; values below ~1e-300 underflow.
    """
    n_groups = block_offsets.shape[0] - 1
    lower = np.empty(n_groups)
    upper = np.empty(n_groups)
    for g in prange(n_groups):
        lo, up = _signed_rank_tails_one(scores, counts, block_offsets[g], block_offsets[g + 1],
                                        observed[g])
        lower[g] = lo
        upper[g] = up
    return lower, upper


# --- cost estimates ------------------------------------------------------------------------------


@njit(cache=True)
def estimated_tie_tail_cost(counts, m):
    """Estimated work of an exact tie-conditional tail for one group, in inner-loop operations.

    `counts`: the group's tie-block sizes in value order (scores taken to be the doubled
    midranks they imply). ``m >= 0``: `rank_sum_tie_tails` with m of the values in "x";
    ``m < 0``: `signed_rank_tie_tails` (block sizes of the nonzero |differences|). The estimate
    is for an observed value at the centre, the most expensive case (tails cost about the same
    or less). Measured on one core: ~0.3-0.6 ns per operation for rank sums, ~0.2-0.3 ns for
    signed ranks (small groups pay a fixed ~5 us on top), so e.g. a 1-second budget is ~2e9.
    Examples: 400 vs 400 untied 1.3e9 (0.55 s), ~300 distinct values 1.6e9 (0.8 s), ~40 distinct
    1.2e9 (0.35 s), ~8 distinct 3e8 (an overestimate: 15 ms); 30 vs 30 with ties ~2e5 (0.1 ms);
    signed rank n = 1000 with ties 1.7e8 (45 ms), untied 8e7 (18 ms).

    Rank sum: the network algorithm's states per stage are modelled as (live nodes, +-9.5 sd of
    the hypergeometric count) x (row width, +-9.5 sd of the partial sum given the count, capped
    by the ranges of partial sums and of completions), times the arcs per state (the block
    sizes k within +-9.5 sd of their hypergeometric distribution). Signed rank: the sum over
    elements, in score order, of half the range of the partial product.
    """
    n_blocks = counts.shape[0]
    n_total = 0
    for b in range(n_blocks):
        n_total += max(counts[b], 0)
    if n_total == 0:
        return 0.0
    sc = np.empty(n_blocks, dtype=np.int64)
    before = 0
    for b in range(n_blocks):
        c = max(counts[b], 0)
        sc[b] = 2 * before + c + 1
        before += c
    g = 0
    for b in range(1, n_blocks):
        if counts[b] > 0:
            g = _gcd(g, sc[b] - sc[0])
    if g == 0:
        g = 1
    if m < 0:
        # signed rank: sum over elements (ascending) of half the partial product's range
        gs = 0
        for b in range(n_blocks):
            if counts[b] > 0:
                gs = _gcd(gs, sc[b])
        cost = 0.0
        part = 0
        for b in range(n_blocks):
            for _ in range(max(counts[b], 0)):
                part += sc[b]
                cost += part / (2.0 * gs)
        return cost + n_total
    if m == 0 or m >= n_total or n_blocks <= 1:
        return float(n_total)
    z = 9.5
    # population moments of the shifted scores, for the prefix and the remainder
    s_all = 0.0
    q_all = 0.0
    for b in range(n_blocks):
        v = (sc[b] - sc[0]) / g
        s_all += counts[b] * v
        q_all += counts[b] * v * v
    cost = 0.0
    p_cnt = 0
    p_sum = 0.0
    p_sq = 0.0
    for b in range(n_blocks):
        c = max(counts[b], 0)
        if c == 0:
            continue
        # states entering this block: prefix of p_cnt values
        if p_cnt > 0:
            P = float(p_cnt)
            N = float(n_total)
            mu = m * P / N
            var_t = m * (N - m) * P * (N - P) / (N * N * (N - 1.0))
            t_lo = max(0.0, m - (N - P))
            t_hi = min(float(m), P)
            rows = min(2.0 * z * math.sqrt(var_t) + 1.0, t_hi - t_lo + 1.0)
            mean_p = p_sum / P
            var_pop = max(p_sq / P - mean_p * mean_p, 0.0)
            t_mid = min(max(mu, t_lo), t_hi)
            var_s = t_mid * (P - t_mid) / max(P - 1.0, 1.0) * var_pop
            # ranges of partial sums and of completions at the middle node (scores ~ 2 per value)
            span_prefix = 2.0 * t_mid * (P - t_mid) / g
            r = m - t_mid
            span_rest = 2.0 * r * (N - P - r) / g
            width = min(2.0 * z * math.sqrt(var_s) + 1.0, span_prefix + 1.0, span_rest + 1.0)
            # arcs per state: the block sizes k of non-negligible hypergeometric probability
            rem = N - P
            var_k = c * (r / rem) * (1.0 - r / rem) * (rem - c) / max(rem - 1.0, 1.0)
            arcs = min(c + 1.0, 2.0 * z * math.sqrt(max(var_k, 0.0)) + 1.0)
            cost += 0.6 * arcs * rows * width
        v = (sc[b] - sc[0]) / g
        p_cnt += c
        p_sum += c * v
        p_sq += c * v * v
    return cost + n_total


@njit(cache=True)
def tie_tail_costs(counts, block_offsets, m):
    """`estimated_tie_tail_cost` per group (groups as in the tie kernels; m[g] < 0 for signed
    rank)."""
    n_groups = block_offsets.shape[0] - 1
    out = np.empty(n_groups)
    for g in range(n_groups):
        out[g] = estimated_tie_tail_cost(counts[block_offsets[g]:block_offsets[g + 1]], m[g])
    return out
