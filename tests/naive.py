"""Slow, obviously correct reference implementations the tests compare fastperf against.

Every function here computes its answer the long way: by enumerating every case (every subset,
every sign vector, every rank pair, every candidate sample size), by exact rational or integer
arithmetic, or by a plain loop over groups, with numpy/scipy only for ranks and distribution
quantiles. None of them calls fastperf. They are meant for small inputs; the docstrings say what
is computed and by which formula. Each exists once: tests import them from here
(``from naive import ...``; tests/ is on ``sys.path`` through its conftest.py).

Sections: grouping; order statistics (median interval, `describe`'s statistics, pairwise
differences, Walsh averages); rank statistics (rank-sum and signed-rank null distributions and
tails, by enumeration and by counting); permutation tests; Kolmogorov-Smirnov; sample sizes and
run planning; aggregate scores.
"""
from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import scipy.stats as sps
from scipy.special import comb

# ================================================================================== grouping


def groups_by_first_appearance(rows):
    """Key tuple -> row indices, in order of first appearance of each key tuple (a dict of
    lists filled by one loop over the rows)."""
    out = {}
    for i, key in enumerate(rows):
        out.setdefault(key, []).append(i)
    return out


def values_by_key(table, keys, column="value"):
    """Key tuple -> the `column` values of its rows (None kept), in row order; key tuples in order
    of first appearance (a dict of lists filled by one loop over the rows)."""
    cols = [table.column(k).to_pylist() for k in keys]
    out = {}
    for i, v in enumerate(table.column(column).to_pylist()):
        out.setdefault(tuple(c[i] for c in cols), []).append(v)
    return out


# ================================================================================== order statistics


def median_ci_ranks(n, confidence):
    """The distribution-free confidence interval of the median as 1-based order-statistic ranks
    ``(lo, hi, coverage)``: the largest j with P(B <= j) <= (1 - c)/2 for B ~ Bin(n, 1/2), so
    ``lo = j + 1``, ``hi = n - j`` and ``coverage = 1 - 2 P(B <= j)`` (a Fraction), by summing
    the binomial terms C(n, i) / 2^n one at a time in exact rational arithmetic. None when no
    pair of order statistics reaches the confidence."""
    tail = (1 - Fraction(confidence)) / 2
    best, cdf = None, Fraction(0)
    for j in range(0, n):
        cdf += Fraction(math.comb(n, j), 2 ** n)
        if cdf <= tail and j + 1 <= n - j:
            best = (j + 1, n - j, 1 - 2 * cdf)
        else:
            break
    return best


def median_ci(x, confidence):
    """`median_ci_ranks` applied to the sorted sample: ``(low value, high value, coverage
    as a float)``, or None."""
    ranks = median_ci_ranks(len(x), confidence)
    if ranks is None:
        return None
    xs = np.sort(x)
    lo, hi, coverage = ranks
    return xs[lo - 1], xs[hi - 1], float(coverage)


def describe_reference(table, keys, confidence):
    """What `describe` reports per group, the slow way: a Python dict grouping
    (`values_by_key`), then per group numpy statistics (n, dropped nulls and NaN, mean, sd, cv,
    min, median, max), scipy's Student interval of the mean and `median_ci`."""
    out = {}
    for key, vals in values_by_key(table, keys).items():
        arr = np.array([np.nan if v is None else v for v in vals], dtype=float)
        x = arr[~np.isnan(arr)]
        r = {"n": len(x), "n_dropped": int(np.isnan(arr).sum())}
        if len(x):
            r.update(mean=x.mean(), min=x.min(), median=np.median(x), max=x.max())
        if len(x) > 1:
            r["sd"] = x.std(ddof=1)
            r["cv"] = r["sd"] / r["mean"]
            lo, hi = sps.t.interval(confidence, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
            r.update(ci_mean_low=lo, ci_mean_high=hi)
        med = median_ci(x, confidence) if len(x) else None
        if med:
            r.update(ci_median_low=med[0], ci_median_high=med[1], ci_median_confidence=med[2])
        out[key] = r
    return out


def pairwise_differences(x, y):
    """Every difference x_i - y_j (m n of them), sorted: the Hodges-Lehmann shift's population."""
    return np.sort(np.subtract.outer(np.asarray(x, float), np.asarray(y, float)).ravel())


def walsh_averages(d):
    """Every Walsh average (d_i + d_j) / 2, i <= j (n (n + 1) / 2 of them), sorted."""
    d = np.sort(np.asarray(d, float))
    i, k = np.triu_indices(len(d))
    return np.sort((d[i] + d[k]) / 2)


# ================================================================================== rank statistics


def doubled_midranks(values):
    """2 x the midranks of `values` (scipy's rankdata, "average"): exact integers."""
    return np.rint(2.0 * sps.rankdata(values)).astype(np.int64)


def _subsets(n, m):
    """Every m-subset of range(n), one per row (C(n, m) rows)."""
    return np.array(list(itertools.combinations(range(n), m)), np.int64)


def _sign_vectors(n):
    """Every 0/1 vector of length n, one per row (2^n rows)."""
    return (np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n)) & 1


def p_from_tails(lower, upper, alternative):
    """The p-value of a test from its two tail probabilities: "less" the lower tail, "greater"
    the upper one, "two-sided" min(1, 2 min(lower, upper))."""
    if alternative == "less":
        return float(lower)
    if alternative == "greater":
        return float(upper)
    return float(min(1.0, 2.0 * min(lower, upper)))


def rank_sum_tails_enumerated(x, y):
    """(P(W <= w), P(W >= w)) of the rank sum W of `x` in the pooled sample, exact and
    conditional on the ties: W is the sum of x's doubled midranks, and the null distribution
    lists every one of the C(N, m) equally likely ways to pick m of the N pooled values."""
    pooled = np.concatenate([np.asarray(x, float), np.asarray(y, float)])
    r2 = doubled_midranks(pooled)
    m = len(x)
    sums = r2[_subsets(pooled.size, m)].sum(axis=1)
    observed = r2[:m].sum()
    return np.mean(sums <= observed), np.mean(sums >= observed)


def signed_rank_tails_enumerated(d, zero_method="wilcox"):
    """(P(T <= t), P(T >= t)) of the signed-rank statistic T+ (the sum of the doubled midranks
    of |d| over the positive d), exact and conditional on the ties, over all 2^n equally likely
    sign vectors of the nonzero d. ``zero_method="wilcox"`` drops the zeros before ranking;
    any other value ("pratt", "zsplit") ranks them with the rest, then leaves their ranks out.
    (1, 1) when no d is nonzero."""
    d = np.asarray(d, float)
    if zero_method == "wilcox":
        d = d[d != 0]
    r2 = doubled_midranks(np.abs(d))
    scores = r2[d != 0]
    sums = _sign_vectors(scores.size) @ scores
    observed = r2[d > 0].sum()
    return np.mean(sums <= observed), np.mean(sums >= observed)


def rank_sum_null_enumerated(scores, counts, m):
    """Exact null distribution of the score sum of a random m-subset of the items (`scores`
    repeated `counts` times): ({sum: count}, C(N, m)), by listing every subset."""
    items = np.repeat(np.asarray(scores, np.int64), counts)
    sums = items[_subsets(items.size, m)].sum(axis=1)
    values, freq = np.unique(sums, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, freq)}, math.comb(items.size, m)


def signed_rank_null_enumerated(scores, counts):
    """Exact null distribution of sum score_i B_i, B_i fair coins (the items: `scores` repeated
    `counts` times): ({sum: count}, 2^n), by listing every sign vector."""
    items = np.repeat(np.asarray(scores, np.int64), counts)
    sums = _sign_vectors(items.size) @ items
    values, freq = np.unique(sums, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, freq)}, 2 ** items.size


def untied_rank_sum_counts(m, n):
    """Counts of U = 0 .. m n (Mann-Whitney U of the first sample, no ties) over the C(m + n, m)
    assignments of the ranks 0 .. m + n - 1: U = (sum of the chosen ranks) - m (m - 1) / 2."""
    u = _subsets(m + n, m).sum(axis=1) - m * (m - 1) // 2
    return np.bincount(u, minlength=m * n + 1)


def untied_rank_sum_cdf(m, n):
    """P(U <= u), u = 0 .. m n, from `untied_rank_sum_counts`."""
    counts = untied_rank_sum_counts(m, n)
    return np.cumsum(counts) / counts.sum()


def untied_signed_rank_counts(n):
    """Counts of T+ = 0 .. n (n + 1) / 2 (ranks 1 .. n, no ties) over the 2^n sign vectors."""
    return np.bincount(_sign_vectors(n) @ np.arange(1, n + 1), minlength=n * (n + 1) // 2 + 1)


def rank_sum_tails_counted(x, y):
    """The tails of `rank_sum_tails_enumerated`, for samples too large to enumerate: the
    m-subsets are counted by doubled-rank sum tie block by tie block (choose j of a block of
    size t in C(t, j) ways), in floating point."""
    pooled = np.concatenate([x, y])
    r2 = np.rint(2 * sps.rankdata(pooled)).astype(np.int64)
    m = len(x)
    top = int(np.sort(r2)[::-1][:m].sum())
    counts = np.zeros((m + 1, top + 1))  # counts[k, s]: k values chosen, doubled-rank sum s
    counts[0, 0] = 1.0
    for rank, size in zip(*np.unique(r2, return_counts=True)):
        new = np.zeros_like(counts)
        for j in range(min(size, m) + 1):
            shift = j * rank
            if shift > top:
                break
            new[j:, shift:] += comb(size, j) * counts[: m + 1 - j, : top + 1 - shift]
        counts = new
    dist = counts[m]
    observed = int(r2[:m].sum())
    total = dist.sum()
    return dist[: observed + 1].sum() / total, dist[observed:].sum() / total


def signed_rank_tails_counted(d):
    """The tails of `signed_rank_tails_enumerated` (d nonzero), for samples too large to
    enumerate: sign vectors counted by doubled rank sum, one rank at a time, in floating point."""
    r2 = doubled_midranks(np.abs(d))
    top = int(r2.sum())
    dist = np.zeros(top + 1)
    dist[0] = 1.0
    for r in r2:
        new = dist.copy()
        new[r:] += dist[: top + 1 - r]
        dist = new
    observed = int(r2[d > 0].sum())
    total = dist.sum()
    return dist[: observed + 1].sum() / total, dist[observed:].sum() / total


def rank_sum_counts_by_blocks(scores, counts, m):
    """Exact counts of the score sum of a random m-subset by a DP over tie blocks in Python ints:
    row t (values chosen) is an object array over sums. Returns (base, rows[m], total)."""
    s0 = int(scores[0])
    sp = [int(s) - s0 for s in scores]
    width = m * max(sp) + 1
    rows = [np.zeros(width, dtype=object) for _ in range(m + 1)]
    for r in rows:
        r[:] = 0
    rows[0][0] = 1
    for s, c in zip(sp, counts):
        new = [np.zeros(width, dtype=object) for _ in range(m + 1)]
        for r in new:
            r[:] = 0
        for t in range(m + 1):
            if not rows[t].any():
                continue
            for k in range(0, min(int(c), m - t) + 1):
                shift = k * s
                new[t + k][shift:] += math.comb(int(c), k) * rows[t][: width - shift]
        rows = new
    return m * s0, rows[m], math.comb(int(np.sum(counts)), m)


# ================================================================================== permutation tests

EPS100 = np.finfo(float).eps * 100


def two_sample_statistic(name, a, b):
    """"mean_diff" or "median_diff" of two samples: mean(a) - mean(b) or median(a) - median(b)."""
    f = np.mean if name == "mean_diff" else np.median
    return f(a) - f(b)


def p_from_null(null, observed, alternative):
    """scipy's exact p-value rule, written out: count / total with the gamma tolerance."""
    null = np.asarray(null)
    gamma = abs(EPS100 * observed)
    p_less = np.mean(null <= observed + gamma)
    p_greater = np.mean(null >= observed - gamma)
    p = {"less": p_less, "greater": p_greater,
         "two-sided": 2 * min(p_less, p_greater)}[alternative]
    return min(p, 1.0)


def permutation_p_enumerated(x, y, statistic, alternative):
    """Exact p of an independent-samples permutation test: the statistic over every one of the
    C(n, n1) ways to split the pooled values into groups of the two sizes."""
    pooled = np.concatenate([x, y])
    n, n1 = pooled.size, x.size
    null = []
    for chosen in itertools.combinations(range(n), n1):
        mask = np.zeros(n, bool)
        mask[list(chosen)] = True
        null.append(two_sample_statistic(statistic, pooled[mask], pooled[~mask]))
    assert len(null) == math.comb(n, n1)
    return p_from_null(null, two_sample_statistic(statistic, x, y), alternative)


def sign_flip_p_enumerated(x, y, statistic, alternative):
    """Exact p of a paired permutation test: mean or median of the differences d = x - y over
    every one of the 2^n sign vectors."""
    d = x - y
    f = np.mean if statistic == "mean_diff" else np.median
    null = [f(np.array(signs) * d) for signs in itertools.product([1.0, -1.0], repeat=d.size)]
    return p_from_null(null, f(d), alternative)


# ================================================================================== Kolmogorov-Smirnov


def ecdf_extremes(x, y):
    """max(F_x - F_y) and max(F_y - F_x) over the pooled values, in Fractions (the empirical
    CDFs evaluated by counting)."""
    diffs = [Fraction(int(np.sum(x <= t)), len(x)) - Fraction(int(np.sum(y <= t)), len(y))
             for t in np.concatenate([x, y])]
    return max(max(diffs), 0), max(-min(diffs), 0)


def ks_null_enumerated(n1, n2):
    """(D+, D-) in units of 1 / (n1 n2) for each of the C(n1 + n2, n1) equally likely
    assignments of the pooled ranks to x."""
    n = n1 + n2
    members = np.zeros((math.comb(n, n1), n), dtype=np.int64)
    for row, chosen in enumerate(itertools.combinations(range(n), n1)):
        members[row, list(chosen)] = 1
    walk = np.cumsum(members, axis=1) * n2 - np.cumsum(1 - members, axis=1) * n1
    return np.maximum(walk.max(axis=1), 0), np.maximum((-walk).max(axis=1), 0)


# ================================================================================== sample sizes


def min_benchmarks_by_search(c, r, confidence):
    """The smallest number of benchmarks n with z sqrt(c (1 - c) / n) <= r, z the normal
    quantile of (1 + confidence) / 2, by trying n = 1, 2, 3, ..."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    n = 1
    while z * math.sqrt(c * (1 - c) / n) > r:
        n += 1
    return n


@functools.lru_cache(maxsize=None)
def t_coefficients_over_n(confidence, start, stop):
    """t(p, N) / sqrt(N) for every N in [start, stop), with scipy.stats.t.ppf."""
    n = np.arange(start, stop, dtype=float)
    return n, sps.t.ppf((1 + confidence) / 2, n - 1) / np.sqrt(n)


def runs_needed_by_search(scale, bound, confidence, strict=False, n_max=2_000_000):
    """Every N from 2 up: the first with t(p, N) * scale / sqrt(N) <= bound (< if strict)."""
    start, block = 2, 1024
    while start <= n_max:
        n, g = t_coefficients_over_n(confidence, start, start + block)
        hw = g * scale
        ok = hw < bound if strict else hw <= bound
        if ok.any():
            return int(n[np.argmax(ok)])
        start, block = start + block, block * 2
    raise AssertionError("n_max too small for this oracle")


# ================================================================================== aggregate scores


def aggregate_score_reference(rows, kind, method, weights=None, confidence=0.95):
    """Per variant (score, sd, ci_low, ci_high) of a suite's weighted geometric or arithmetic
    mean, from (variant, benchmark, run, value) rows, one variant at a time: "per-run" scores
    every run and takes Student's interval of their mean; "propagation" propagates the
    benchmarks' standard errors through the score's gradient with Welch-Satterthwaite degrees
    of freedom."""
    out = {}
    for v in sorted({r[0] for r in rows}):
        benches = sorted({r[1] for r in rows if r[0] == v})
        w = np.array([1.0 if weights is None else weights[b] for b in benches])
        w /= w.sum()
        m = np.array([[val for vv, bb, rr, val in sorted(rows, key=lambda r: r[2]) if vv == v and bb == b]
                      for b in benches])  # benchmarks x runs
        f = (lambda x: np.exp(np.sum(w[:, None] * np.log(x), axis=0))) if kind == "geomean" \
            else (lambda x: np.sum(w[:, None] * x, axis=0))
        if method == "per-run":
            scores = f(m)
            lo, hi = sps.t.interval(confidence, len(scores) - 1, loc=scores.mean(), scale=sps.sem(scores))
            out[v] = (scores.mean(), scores.std(ddof=1), lo, hi)
        else:
            means, sds, n = m.mean(axis=1), m.std(axis=1, ddof=1), m.shape[1]
            score = f(means[:, None])[0]
            grad = w * score / means if kind == "geomean" else w
            sd = np.sqrt(np.sum((grad * sds) ** 2))
            parts = (grad * sds) ** 2 / n
            se = np.sqrt(parts.sum())
            df = se ** 4 / np.sum(parts ** 2 / (n - 1))
            t = sps.t.ppf(0.5 + confidence / 2, df)
            out[v] = (score, sd, score - t * se, score + t * se)
    return out
