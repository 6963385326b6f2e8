"""Exact tails of the signed-rank sum conditional on ties, batched over groups
(`signed_rank_tie_tails`): the pmf of S = sum score_i B_i (B_i fair coins), the product over
blocks of ((1 + q^s) / 2)^c truncated at the smaller tail, which is summed directly.

Everything is float64 probabilities (never counts), so nothing overflows; values below ~1e-300
underflow (to subnormals or 0) and lose their relative accuracy. Small tails are always summed
from positive terms, never taken as 1 - cdf.
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange
from fastperf.kernels.rank_null import coin_product_lower, compensated_sum, gcd

__all__ = ["signed_rank_tie_tails"]


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
    g = np.int64(0)
    for b in range(n_blocks):
        g = gcd(g, sa[b])
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
        a, h_old = coin_product_lower(sa, ca, n_blocks, x)
        # entries above the final middle by symmetry (only when x > top // 2, i.e. x = top / 2)
        for j in range(h_old + 1, x + 1):
            a[j] = a[top - j]
        small = compensated_sum(a) * 2.0 ** -1000
        # the complement point of the other tail: 1 - P(S' <= y), y = the other side's x - ...
        y = (hi_thr - 1) if x == x_lo else (top - lo_thr - 1)
        rest = compensated_sum(a[:y + 1]) * 2.0 ** -1000 if y >= 0 else 0.0
    if x == x_lo:
        return min(small, 1.0), min(max(1.0 - rest, 0.0), 1.0)
    return min(max(1.0 - rest, 0.0), 1.0), min(small, 1.0)


# n_rows is the tie blocks' count: about 0.15 us each (10,000 tied tests of 30 differences
# rounded to 0.01: 146,000 blocks, 22 ms serially), so from 20,000 blocks threads pay
@group_kernel(min_rows=20_000, chunking=Chunking(csr=((0, 2), (1, 2)), per_group=(3,)))
def signed_rank_tie_tails(scores, counts, block_offsets, observed) -> tuple[np.ndarray, np.ndarray]:
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

    Parameters
    ----------
    scores : numpy.ndarray of int64
        The score of each tie block (0: the block does not count).
    counts : numpy.ndarray of int64
        The number of elements in each block.
    block_offsets : numpy.ndarray of int64
        CSR offsets of the groups' blocks.
    observed : numpy.ndarray of int64
        Per group, the observed S.

    Returns
    -------
    lower, upper : numpy.ndarray
        float64 per group: P(S <= observed) and P(S >= observed).

    Notes
    -----
    The signed-rank test conditional on ties (Wilcoxon 1945; Pratt 1959 for ranked zeros;
    Lehmann 1975, "Nonparametrics: Statistical Methods Based on Ranks"): under H0 each
    |difference| carries its sign with probability 1/2 independently, whatever the ties.
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
