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
run planning; aggregate scores; benchstat (its median summary and Mann-Whitney comparison,
transcribed from golang.org/x/perf/benchmath and github.com/aclements/go-moremath/stats).
"""
from __future__ import annotations

import functools
import itertools
import math
import struct
from decimal import Decimal
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

#: fastperf's tie tolerance, gamma = TIE_EPSILONS eps M, M the values' magnitude (the largest
#: |value|; paired, the largest |x_i| + |y_i|): a bound on the rounding of statistics equal in
#: exact arithmetic (scipy's, 100 eps |observed|, misses such ties where |observed| << M).
TIE_EPSILONS = 16


def two_sample_statistic(name, a, b):
    """"mean_diff" or "median_diff" of two samples: mean(a) - mean(b) or median(a) - median(b)."""
    f = np.mean if name == "mean_diff" else np.median
    return f(a) - f(b)


def p_from_counts(n_less, n_greater, total, alternative):
    """scipy's exact p-value rule: count / total, "two-sided" 2 min(p_less, p_greater) <= 1.
    Exact (Fractions) from integer counts."""
    p_less, p_greater = Fraction(n_less, total), Fraction(n_greater, total)
    p = {"less": p_less, "greater": p_greater,
         "two-sided": 2 * min(p_less, p_greater)}[alternative]
    return min(p, Fraction(1))


def p_from_null(null, observed, alternative, magnitude):
    """scipy's exact p-value rule, written out: count / total, the rearranged statistics within
    gamma = TIE_EPSILONS eps `magnitude` of the observed one counting as equal to it."""
    null = np.asarray(null)
    gamma = TIE_EPSILONS * np.finfo(float).eps * magnitude
    return float(p_from_counts(int(np.sum(null <= observed + gamma)),
                               int(np.sum(null >= observed - gamma)), null.size, alternative))


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
    return p_from_null(null, two_sample_statistic(statistic, x, y), alternative,
                       np.max(np.abs(pooled)))


def sign_flip_p_enumerated(x, y, statistic, alternative):
    """Exact p of a paired permutation test: mean or median of the differences d = x - y over
    every one of the 2^n sign vectors."""
    d = x - y
    f = np.mean if statistic == "mean_diff" else np.median
    null = [f(np.array(signs) * d) for signs in itertools.product([1.0, -1.0], repeat=d.size)]
    return p_from_null(null, f(d), alternative, np.max(np.abs(x) + np.abs(y)))


def _fraction_statistic(statistic, values):
    """Mean or median (the mean of the two middle values for an even count) of Fractions."""
    if statistic == "mean_diff":
        return sum(values, Fraction(0)) / len(values)
    s = sorted(values)
    m = len(s)
    return s[m // 2] if m % 2 else (s[m // 2 - 1] + s[m // 2]) / 2


def permutation_counts_fractions(x, y, statistic):
    """(n_less, n_greater, total) of the independent-samples permutation test in exact
    rational arithmetic: `x`, `y` Fractions (e.g. ``Fraction("1.3")``, the decimal value, not
    the float nearest it), every one of the C(n, n1) splits, ties compared exactly."""
    pooled = list(x) + list(y)
    n, n1 = len(pooled), len(x)

    def stat(a, b):
        return _fraction_statistic(statistic, a) - _fraction_statistic(statistic, b)

    observed = stat(pooled[:n1], pooled[n1:])
    n_less = n_greater = total = 0
    for chosen in itertools.combinations(range(n), n1):
        inside = set(chosen)
        s = stat([pooled[i] for i in chosen], [pooled[i] for i in range(n) if i not in inside])
        n_less += s <= observed
        n_greater += s >= observed
        total += 1
    return n_less, n_greater, total


def sign_flip_counts_fractions(x, y, statistic):
    """(n_less, n_greater, 2^n) of the paired (sign-flip) permutation test in exact rational
    arithmetic: the differences x_i - y_i of the Fractions `x`, `y`, every sign vector."""
    d = [a - b for a, b in zip(x, y)]
    observed = _fraction_statistic(statistic, d)
    n_less = n_greater = total = 0
    for signs in itertools.product([1, -1], repeat=len(d)):
        s = _fraction_statistic(statistic, [sign * v for sign, v in zip(signs, d)])
        n_less += s <= observed
        n_greater += s >= observed
        total += 1
    return n_less, n_greater, total


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


@functools.lru_cache(maxsize=None)
def f_quantiles_over_n(assurance, pilot_runs, start, stop):
    """F_gamma(N - 1, m - 1) for every N in [start, stop), with scipy.stats.f.ppf (gamma the
    assurance, m the pilot's runs)."""
    n = np.arange(start, stop, dtype=float)
    return sps.f.ppf(assurance, n - 1, pilot_runs - 1)


def runs_needed_by_search(scale, bound, confidence, strict=False, n_max=2_000_000,
                          pilot_runs=None, assurance=None):
    """Every N from 2 up: the first with t(p, N) * scale / sqrt(N) <= bound (< if strict).

    With a pilot of `pilot_runs` runs and an `assurance` gamma, the scale is multiplied by
    sqrt(F_gamma(N - 1, pilot_runs - 1)) (Harris, Horvitz & Mood 1948): the first N with
    t(p, N) * scale * sqrt(F_gamma(N - 1, m - 1)) / sqrt(N) <= bound. No monotonicity in N is
    assumed: every N is tried in turn."""
    start, block = 2, 1024
    while start <= n_max:
        n, g = t_coefficients_over_n(confidence, start, start + block)
        hw = g * scale
        if assurance is not None:
            hw = hw * np.sqrt(f_quantiles_over_n(assurance, int(pilot_runs), start, start + block))
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


# ================================================================================== benchstat
#
# A plain-Python transcription of what benchstat (golang.org/x/perf/cmd/benchstat) computes per
# benchmark with its default assumption, benchmath.AssumeNothing: the median with the
# confidence interval of go-moremath's stats.QuantileCI, and the two-sided Mann-Whitney U test of
# go-moremath's stats.MannWhitneyUTest; plus the strings benchstat prints from them
# (Summary.PctRangeString, Comparison.FormatDelta, Comparison.String). Sources, read for this:
#   golang/perf benchmath/anone.go and benchmath/sample.go (commit af31a767...);
#   aclements/go-moremath stats/quantileci.go (222cfcba...), stats/binomdist.go (1e207af8...),
#   stats/utest.go (e3fa721a...: MannWhitneyUTest, tieCorrection).
# The tie-aware exact U distribution (go-moremath's UDist, Klotz's algorithm) is replaced by a
# count of the C(n1 + n2, n1) splits by rank sum, tie block by tie block.

BENCHSTAT_ALPHA = 0.05  # benchmath.DefaultThresholds.CompareAlpha
BENCHSTAT_CONFIDENCE = 0.95  # benchstat's -confidence default
QUANTILE_CI_APPROX_THRESHOLD = 30  # stats.quantileCIApproxThreshold
MANN_WHITNEY_EXACT_LIMIT = 50  # stats.MannWhitneyExactLimit (no ties)
MANN_WHITNEY_TIES_EXACT_LIMIT = 25  # stats.MannWhitneyTiesExactLimit


def _go_normal_cdf(x, mu=0.0, sigma=1.0):
    """go-moremath NormalDist.CDF: (1/2) erfc(-(x - mu) / (sigma sqrt 2))."""
    return 0.5 * math.erfc(-(x - mu) / (sigma * math.sqrt(2)))


def benchstat_quantile_ci(n, q=0.5, confidence=BENCHSTAT_CONFIDENCE):
    """stats.QuantileCI(n, q, confidence): (LoOrder, HiOrder, Confidence), the 1-based order
    statistics bounding the interval (0 or n + 1: -inf or +inf).

    n <= 30: from the mode x = ceil((n + 1) q) - 1 of Binomial(n, q), add the larger neighbouring
    PMF (the left one when equal) until the sum reaches `confidence`; [l, r) is the band of k
    summed, and the interval is x_(l) .. x_(r). n > 30: the normal approximation with the
    continuity correction, then the left-biased band r - 1 when it still reaches `confidence`
    with less coverage."""
    if confidence >= 1:
        return 0, n + 1, 1.0

    def pmf(k):
        if k < 0 or k > n:
            return 0.0
        return math.comb(n, k) * q ** k * (1 - q) ** (n - k)

    if n <= QUANTILE_CI_APPROX_THRESHOLD:
        x = 0 if q == 0 else int(math.ceil((n + 1) * q) - 1)
        accum = pmf(x)
        l, r = x, x + 1
        lp, rp = pmf(l - 1), pmf(r)
        while accum < confidence and (lp > 0 or rp > 0):
            if lp >= rp:  # left bias
                accum += lp
                l -= 1
                lp = pmf(l - 1)
            else:
                accum += rp
                r += 1
                rp = pmf(r)
        coverage = accum
    else:
        mu, sigma = n * q, math.sqrt(n * q * (1 - q))
        alpha = (1 - confidence) / 2
        l1 = NormalDist(mu, sigma).inv_cdf(alpha)
        r1 = 2 * mu - l1
        l = int(math.floor(math.floor(l1 - 0.5) + 0.5)) + 1
        r = int(math.floor(math.ceil(r1 - 0.5) + 0.5)) + 1

        def cdf(lo, hi):
            return _go_normal_cdf(hi - 0.5, mu, sigma) - _go_normal_cdf(lo - 0.5, mu, sigma)

        coverage = cdf(l, r)
        biased = cdf(l, r - 1)
        if biased >= confidence and biased < coverage:
            coverage, r = biased, r - 1
        if l <= 0 and r >= n + 1:
            coverage = 1.0
    return max(l, 0), min(r, n + 1), coverage


def benchstat_summary(values, confidence=BENCHSTAT_CONFIDENCE):
    """benchmath AssumeNothing.Summary: (median, lo, hi), lo/hi the order statistics of
    `benchstat_quantile_ci` (-inf / +inf outside the sample). The median is the sample median
    (the mean of the two middle values when n is even)."""
    xs = sorted(float(v) for v in values)
    n = len(xs)
    lo_order, hi_order, _ = benchstat_quantile_ci(n, 0.5, confidence)
    lo = -math.inf if lo_order < 1 else xs[lo_order - 1]
    hi = math.inf if hi_order - 1 >= n else xs[hi_order - 1]
    median = xs[(n - 1) // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    return median, lo, hi


def rank_sum_cdf_by_tie_blocks(tie_sizes, m, doubled_w):
    """P(2 W <= doubled_w) for W the midrank sum of a random m-subset of N = sum(tie_sizes) values
    whose tie blocks, in increasing order, have the given sizes: the C(N, m) subsets counted by
    doubled rank sum, block by block (j of a block of size t in C(t, j) ways), in floating point.
    A block starting at 0-based position s has doubled midrank 2 s + t + 1."""
    sizes = [int(t) for t in tie_sizes]
    total_n = sum(sizes)
    top = 2 * sum(range(total_n - m + 1, total_n + 1)) + 1  # largest doubled sum, inclusive
    counts = np.zeros((m + 1, top + 1))  # counts[k, s]: k values chosen, doubled sum s
    counts[0, 0] = 1.0
    start = 0
    for t in sizes:
        score = 2 * start + t + 1
        new = np.zeros_like(counts)
        for j in range(min(t, m) + 1):
            shift = j * score
            if shift > top:
                break
            new[j:, shift:] += math.comb(t, j) * counts[: m + 1 - j, : top + 1 - shift]
        counts = new
        start += t
    dist = counts[m]
    if doubled_w < 0:
        return 0.0
    return float(dist[: min(top, int(math.floor(doubled_w))) + 1].sum() / dist.sum())


def benchstat_u_test(x1, x2):
    """stats.MannWhitneyUTest(x1, x2, LocationDiffers): (U1, p, "exact" | "normal"), or None
    where go-moremath returns ErrSamplesEqual (every value equal, or a zero variance).

    U1 = R1 - n1 (n1 + 1) / 2 from x1's midranks; exact (the tie-aware U distribution) when no
    value is tied and n1, n2 <= 50, or when some are and n1, n2 <= 25: p = 1 when U1 = U2, else
    2 CDF(min(U1, U2)); otherwise the normal approximation with the tie correction
    sum(t^3 - t) and the continuity correction, p = 2 min(Phi(z), 1 - Phi(z))."""
    a, b = sorted(float(v) for v in x1), sorted(float(v) for v in x2)
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("ErrSampleSize")
    merged = sorted([(v, 1) for v in a] + [(v, 2) for v in b], key=lambda p: p[0])
    r1, ties, has_ties = 0.0, [], False
    i = 0
    while i < len(merged):
        rank1, nx1, v1 = i + 1, 0, merged[i][0]
        while i < len(merged) and merged[i][0] == v1:
            nx1 += merged[i][1] == 1
            i += 1
        if nx1:
            r1 += (i + rank1) / 2 * nx1
        ties.append(i - rank1 + 1)
        has_ties = has_ties or i > rank1
    u1 = r1 - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    usmall = min(u1, u2)
    exact = (not has_ties and n1 <= MANN_WHITNEY_EXACT_LIMIT and n2 <= MANN_WHITNEY_EXACT_LIMIT) or \
        (has_ties and n1 <= MANN_WHITNEY_TIES_EXACT_LIMIT and n2 <= MANN_WHITNEY_TIES_EXACT_LIMIT)
    if exact:
        if len(ties) == 1:
            return None
        if u1 == u2:
            return u1, 1.0, "exact"
        # CDF(Usmall) = P(U1 <= Usmall) = P(2 W1 <= 2 Usmall + n1 (n1 + 1))
        cdf = rank_sum_cdf_by_tie_blocks(ties, n1, 2 * usmall + n1 * (n1 + 1))
        return u1, cdf * 2, "exact"
    t = float(sum(k ** 3 - k for k in ties))
    big_n = float(n1 + n2)
    mu = n1 * n2 / 2
    sigma = math.sqrt(n1 * n2 * ((big_n + 1) - t / (big_n * (big_n - 1))) / 12)
    if sigma == 0:
        return None
    numer = u1 - mu
    numer -= (0.0 if numer == 0 else math.copysign(1.0, numer)) * 0.5
    z = numer / sigma
    return u1, 2 * min(_go_normal_cdf(z), 1 - _go_normal_cdf(z)), "normal"


def benchstat_pct_range(center, lo, hi):
    """benchmath Summary.PctRangeString: the interval after ``±``."""
    if math.isinf(lo) or math.isinf(hi):
        return "∞"

    def sign(v):
        return (v > 0) - (v < 0)

    if sign(center) != sign(lo) or sign(center) != sign(hi):
        return "?"
    if center == 0:
        return "0%"
    return "%.0f%%" % (100 * max(hi / center - 1, 1 - lo / center))


def benchstat_format_delta(p, alpha, old, new):
    """benchmath Comparison.FormatDelta: ``~`` when p > alpha, else the change of the centers."""
    if p > alpha:
        return "~"
    if old == new:
        return "0.00%"
    if old == 0:
        return "?"
    return "%+.2f%%" % (((new / old) - 1.0) * 100.0)


def benchstat_test_string(p, n1, n2):
    """benchmath Comparison.String inside benchstat's parentheses: ``p=0.446 n=10`` (no p= when
    p is exactly 0; ``n=N1+N2`` when the sizes differ)."""
    s = "p=%0.3f " % p if p != 0 else ""
    return s + ("n=%d" % n1 if n1 == n2 else "n=%d+%d" % (n1, n2))


def benchstat_reference(old, new, alpha=BENCHSTAT_ALPHA, confidence=BENCHSTAT_CONFIDENCE):
    """What benchstat prints and computes for one benchmark and unit, old vs new (assume
    nothing): the summaries (median, lo, hi, pct) of each side, the comparison's p (1 where the
    U test fails, as benchmath's Compare reports it), the U test's method, the delta cell and
    the ``p=... n=...`` cell, and whether it is a change (p <= alpha: not ``~``)."""
    med_old, lo_old, hi_old = benchstat_summary(old, confidence)
    med_new, lo_new, hi_new = benchstat_summary(new, confidence)
    test = benchstat_u_test(old, new)
    p, method = (1.0, "failed") if test is None else (test[1], test[2])
    return {
        "median_old": med_old, "lo_old": lo_old, "hi_old": hi_old,
        "pct_old": benchstat_pct_range(med_old, lo_old, hi_old),
        "median_new": med_new, "lo_new": lo_new, "hi_new": hi_new,
        "pct_new": benchstat_pct_range(med_new, lo_new, hi_new),
        "p": p, "method": method, "delta": benchstat_format_delta(p, alpha, med_old, med_new),
        "test": benchstat_test_string(p, len(old), len(new)), "change": not p > alpha,
    }


# ================================================================================== bootstrap


def linear_quantile_extended(values, p):
    """``np.quantile(values, p)`` (linear, type 7), extended to infinite values by the limit of
    the interpolation a + (b - a) g: the lower value when g == 0 or both are equal, the
    infinite end otherwise (NaN between -inf and +inf), where numpy's arithmetic gives NaN."""
    s = np.sort(np.asarray(values, dtype=float))
    h = (s.size - 1) * p
    k = min(int(math.floor(h)), s.size - 1)
    g = h - k
    a = s[k]
    b = s[min(k + 1, s.size - 1)]
    if np.isfinite(a) and np.isfinite(b):
        return float(np.quantile(s, p))
    if g == 0 or a == b:
        return float(a)
    if a == -np.inf:
        return -np.inf if b != np.inf else np.nan
    return float(b)


def studentized_interval(x, y, statistic, resamples, confidence):
    """The bootstrap-t interval (Efron & Tibshirani 1993, ch. 12.5), one resample at a time.

    `resamples` lists the index arrays ``(ix, iy)`` of each resample (iy None for one sample).
    phi is the mean, the difference of means or the log of the ratio of means; se the plug-in
    standard error s/sqrt(n), sqrt(s_x^2/n + s_y^2/m) or the delta-method
    sqrt(s_x^2/(n xbar^2) + s_y^2/(m ybar^2)), s the sd with ddof 1, taken as exactly 0 when a
    sample's values are all equal. t*_b = (phi*_b - phi_hat) / se*_b; with se*_b = 0: 0 when
    phi*_b == phi_hat, else +-inf. Returns (low, high, t*) with the interval
    [phi_hat - t*_(1-a) se_hat, phi_hat - t*_(a) se_hat], a = (1 - confidence) / 2,
    exponentiated for the ratio.
    """
    def var(a):
        return 0.0 if np.ptp(a) == 0 else float(np.var(a, ddof=1))

    def phi_se(a, b):
        if statistic == "mean":
            return np.mean(a), math.sqrt(var(a) / a.size)
        if statistic == "mean_diff":
            return np.mean(a) - np.mean(b), math.sqrt(var(a) / a.size + var(b) / b.size)
        ma, mb = np.mean(a), np.mean(b)
        return (math.log(ma / mb),
                math.sqrt(var(a) / (a.size * ma ** 2) + var(b) / (b.size * mb ** 2)))

    x = np.asarray(x, dtype=float)
    y = None if y is None else np.asarray(y, dtype=float)
    phi_hat, se_hat = phi_se(x, y)
    t = []
    for ix, iy in resamples:
        phi, se = phi_se(x[ix], None if y is None else y[iy])
        if se == 0:
            t.append(0.0 if phi == phi_hat else math.copysign(math.inf, phi - phi_hat))
        else:
            t.append((phi - phi_hat) / se)
    alpha = (1 - confidence) / 2
    t_low, t_high = linear_quantile_extended(t, alpha), linear_quantile_extended(t, 1 - alpha)
    low, high = phi_hat - t_high * se_hat, phi_hat - t_low * se_hat
    if statistic == "mean_ratio":
        low, high = math.exp(low), math.exp(high)
    return low, high, np.array(t)


# ================================================================================== Kolmogorov-Smirnov with ties


def ks_tied_pvalues_enumerated(x, y):
    """{alternative: (D, p)} in Fractions for the two-sample KS test conditional on the ties: every
    one of the C(n1 + n2, n1) assignments of the pooled values (ties and all) to x and y, the
    ECDFs compared at each distinct pooled value, p = the share of assignments with D >= the
    observed D."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n1, n2 = len(x), len(y)
    pooled = np.concatenate([x, y])
    n = n1 + n2
    distinct = np.unique(pooled)
    at_or_below = (pooled[:, None] <= distinct[None, :]).astype(np.int64)
    members = np.zeros((math.comb(n, n1), n), dtype=np.int64)
    for row, chosen in enumerate(itertools.combinations(range(n), n1)):
        members[row, list(chosen)] = 1
    walk = (members @ at_or_below) * n2 - ((1 - members) @ at_or_below) * n1  # n1 n2 (F_x - F_y)
    d_plus = np.maximum(walk.max(axis=1), 0)
    d_minus = np.maximum((-walk).max(axis=1), 0)
    observed = 0  # combinations() lists (0, ..., n1 - 1) first: x as given
    out = {}
    for alternative, null in (("greater", d_plus), ("less", d_minus),
                              ("two-sided", np.maximum(d_plus, d_minus))):
        count = int(np.sum(null >= null[observed]))
        out[alternative] = (Fraction(int(null[observed]), n1 * n2), Fraction(count, len(null)))
    return out


def ks_tied_pvalue_counted(x, y, alternative):
    """The KS p-value conditional on the ties as a Fraction, by counting in Python integers the
    lattice paths (0, 0) -> (n1, n2) that stay off the boundary |i/n1 - j/n2| >= D (one-sided:
    i/n1 - j/n2 >= D, or j/n2 - i/n1 >= D) at every end of a tie block of the pooled sorted
    sample: p = 1 - inside / C(n1 + n2, n1)."""
    x, y = np.sort(np.asarray(x, dtype=float)), np.sort(np.asarray(y, dtype=float))
    n1, n2 = len(x), len(y)
    pooled = np.sort(np.concatenate([x, y]))
    n = n1 + n2
    ends = [False] + [bool(pooled[k - 1] != pooled[k]) for k in range(1, n)] + [True]
    d_plus, d_minus = ecdf_extremes(x, y)
    d = {"greater": d_plus, "less": d_minus, "two-sided": max(d_plus, d_minus)}[alternative]
    h = d * n1 * n2
    inside = [[0] * (n2 + 1) for _ in range(n1 + 1)]
    inside[0][0] = 1
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            if i == j == 0:
                continue
            diff = i * n2 - j * n1
            reached = {"greater": diff >= h, "less": -diff >= h,
                       "two-sided": abs(diff) >= h}[alternative]
            if ends[i + j] and reached:
                continue
            inside[i][j] = (inside[i - 1][j] if i else 0) + (inside[i][j - 1] if j else 0)
    total = math.comb(n, n1)
    return Fraction(total - inside[n1][n2], total)


def leave_one_out_statistics(x, y, statistic, q=0.5):
    """The jackknife values of a bootstrap statistic by brute force with numpy: the statistic
    recomputed on every sample with one value left out, x's values first, then y's (two-sample
    statistics), as the BCa acceleration uses them. Medians and quantiles by np.median /
    np.quantile (linear), Hodges-Lehmann by np.median of every difference x_a - y_b left."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    one = {"median": np.median, "quantile": lambda a: np.quantile(a, q), "mean": np.mean}

    def two(a, b):
        if statistic == "hodges_lehmann":
            return np.median(np.subtract.outer(a, b).ravel())
        if statistic == "median_ratio":
            return np.median(a) / np.median(b)
        if statistic == "median_diff":
            return np.median(a) - np.median(b)
        if statistic == "mean_ratio":
            return np.mean(a) / np.mean(b)
        if statistic == "mean_diff":
            return np.mean(a) - np.mean(b)
        raise ValueError(statistic)

    if statistic in one:
        return [one[statistic](np.delete(x, i)) for i in range(x.size)], []
    return ([two(np.delete(x, i), y) for i in range(x.size)],
            [two(x, np.delete(y, j)) for j in range(y.size)])


def jackknife_acceleration(*values):
    """BCa acceleration from the leave-one-out values of each sample (scipy's
    ``_bca_interval``): sum over the samples of sum U^3 / n^3, over 6 (sum of sum U^2 / n^2)
    ** 1.5, U = (n - 1)(mean - theta_(i)); 0 when every U is 0."""
    num = den = 0.0
    for theta in values:
        theta = np.asarray(theta, dtype=float)
        if theta.size == 0:
            continue
        n = theta.size
        u = (n - 1) * (theta.mean() - theta)
        num += (u ** 3).sum() / n ** 3
        den += (u ** 2).sum() / n ** 2
    return 0.0 if den == 0 else num / 6.0 / den ** 1.5


def energy_best_split(z, min_size):
    """E-Divisive's best split of the whole series z by brute force (Matteson & James 2014,
    alpha = 1): q(t) = m n / (m + n) (2 A / (m n) - B / C(m, 2) - C / C(n, 2)) from the full
    distance matrices of every split, O(L^3). Returns (t, q) with t the first index after the
    split."""
    z = np.asarray(z, dtype=float)
    best = (-1, -np.inf)
    for t in range(min_size, len(z) - min_size + 1):
        x, y = z[:t], z[t:]
        m, n = len(x), len(y)
        across = np.abs(x[:, None] - y[None, :]).sum()
        left = np.abs(x[:, None] - x[None, :]).sum() / 2
        right = np.abs(y[:, None] - y[None, :]).sum() / 2
        q = m * n / (m + n) * (2 * across / (m * n) - left / (m * (m - 1) / 2)
                               - right / (n * (n - 1) / 2))
        if q > best[1]:
            best = (t, q)
    return best


def one_way_anova(groups):
    """The textbook unbalanced one-way random-effects ANOVA estimators (Searle, Casella &
    McCulloch 1992, section 3.5) of a list of samples (one array per unit): (between, within),
    the between-unit variance truncated at 0."""
    n = np.array([len(g) for g in groups], dtype=float)
    big_n, a = n.sum(), len(groups)
    grand = np.concatenate(groups).mean()
    msb = sum(len(g) * (g.mean() - grand) ** 2 for g in groups) / (a - 1)
    msw = sum(((g - g.mean()) ** 2).sum() for g in groups) / (big_n - a)
    n0 = (big_n - (n ** 2).sum() / big_n) / (a - 1)
    return max((msb - msw) / n0, 0.0), msw


# ================================================================================== sequential


def t_mixture_bayes_factor(y, mu, g):
    """Rouder, Speckman, Sun, Morey & Iverson (2009), eq. 1 at a fixed g: the Bayes factor of
    N(mu + delta sigma, sigma^2) with delta ~ N(0, g) and p(sigma) = 1 / sigma against
    delta = 0, written from the t statistic of ``y - mu`` (scipy's one-sample t-test)."""
    y = np.asarray(y, dtype=float)
    n = y.size
    t = sps.ttest_1samp(y - mu, 0.0).statistic
    nu = n - 1
    return (1 + n * g) ** -0.5 * ((1 + t * t / nu) / (1 + t * t / (nu * (1 + n * g)))) ** (n / 2)


def t_mixture_bayes_factor_integrated(y, mu, g):
    """The same Bayes factor by numerical integration of the likelihood over the prior (no
    formula): sigma = e^u (so dsigma / sigma = du) and delta ~ N(0, g) in the numerator,
    delta = 0 in the denominator."""
    from scipy.integrate import dblquad, quad

    z = np.asarray(y, dtype=float) - mu
    z = z / np.sqrt(np.mean(z * z))  # the right-Haar prior makes it scale-free
    n = z.size

    def log_lik(delta, u):
        s = math.exp(u)
        return -n * u - 0.5 * float(np.sum((z - delta * s) ** 2)) / (s * s)

    top = log_lik(0.0, 0.0)
    sd = math.sqrt(g)
    num, _ = dblquad(lambda delta, u: math.exp(log_lik(delta, u) - top)
                     * sps.norm.pdf(delta, 0.0, sd), -6.0, 6.0, -12 * sd, 12 * sd,
                     epsabs=1e-13, epsrel=1e-10)
    den, _ = quad(lambda u: math.exp(log_lik(0.0, u) - top), -6.0, 6.0, epsabs=1e-13,
                  epsrel=1e-10)
    return num / den


def t_mixture_interval_by_root(y, alpha, g):
    """The confidence sequence's interval at n by root-finding: the mu on each side of the
    mean where `t_mixture_bayes_factor` crosses 1 / alpha (the whole line when it never
    does)."""
    from scipy.optimize import brentq

    y = np.asarray(y, dtype=float)
    mean, sd = y.mean(), y.std(ddof=1)
    excess = lambda mu: math.log(t_mixture_bayes_factor(y, mu, g)) + math.log(alpha)  # noqa: E731
    far = mean + 1e6 * sd
    if excess(far) < 0:
        return -math.inf, math.inf
    high = brentq(excess, mean, far, xtol=1e-14, rtol=1e-13, maxiter=500)
    low = brentq(excess, mean - (far - mean), mean, xtol=1e-14, rtol=1e-13, maxiter=500)
    return low, high


def e_bh_by_definition(evalues, alpha):
    """Wang & Ramdas (2022): reject the k* hypotheses with the largest e-values, k* the largest
    k with k e_(k) / K >= 1 / alpha, by trying every k from K down."""
    e = [float(v) for v in evalues]
    big_k = len(e)
    order = sorted(range(big_k), key=lambda i: -e[i])
    reject = [False] * big_k
    for k in range(big_k, 0, -1):
        if k * e[order[k - 1]] / big_k >= 1 / alpha:
            for i in order[:k]:
                reject[i] = True
            break
    return reject


# ============================================================================ run diagnostics


def iteration_profile(processes):
    """The mean of the values at each iteration position, over the processes (lists of
    values) that reach it, by a loop over positions."""
    longest = max(len(p) for p in processes)
    return np.array([np.mean([p[i] for p in processes if len(p) > i]) for i in range(longest)])


def mser_truncation_brute(profile):
    """MSER-5 (White 1997; batches of 5 from 100 positions on, else of 1): the truncation in
    positions, by computing MSER(d) = sum_{j >= d} (Z_j - mean Z[d:])^2 / (n_b - d)^2 afresh
    for every d in 0..min(n_b // 2, n_b - 2) and taking the first minimum, then moving the
    cut back over each last transient position within 2 standard deviations (ddof 1) of the
    steady positions' mean."""
    profile = np.asarray(profile, dtype=float)
    batch = 5 if profile.size >= 100 else 1
    n_batches = profile.size // batch
    if n_batches < 2:
        return 0
    z = [float(np.mean(profile[j * batch:(j + 1) * batch])) for j in range(n_batches)]
    scores = []
    for d in range(min(n_batches // 2, n_batches - 2) + 1):
        rest = z[d:]
        mean = sum(rest) / len(rest)
        scores.append(sum((v - mean) ** 2 for v in rest) / len(rest) ** 2)
    cut = scores.index(min(scores)) * batch
    if cut == 0:
        return 0
    steady = profile[cut:]
    mean, sd = float(np.mean(steady)), float(np.std(steady, ddof=1))
    while cut > 0 and abs(profile[cut - 1] - mean) <= 2.0 * sd:  # back over steady positions
        cut -= 1
    return cut


def mann_kendall_brute(y):
    """Mann-Kendall S (sum over i < j of sign(y_j - y_i), a double loop), its variance with
    the tie correction (n(n-1)(2n+5) - sum t(t-1)(2t+5)) / 18, and the two-sided p of the
    normal approximation with continuity correction, z = (S - sign(S)) / sqrt(Var S)."""
    n = len(y)
    s = sum(int(np.sign(y[j] - y[i])) for i in range(n) for j in range(i + 1, n))
    ties = [list(y).count(v) for v in set(y)]
    variance = (n * (n - 1) * (2 * n + 5) - sum(t * (t - 1) * (2 * t + 5) for t in ties)) / 18
    z = (s - np.sign(s)) / math.sqrt(variance) if variance > 0 else 0.0
    return s, variance, 2 * sps.norm.sf(abs(z))


def tukey_outliers(values):
    """Tukey's mild (beyond 1.5 IQR, within 3 IQR) and severe (beyond 3 IQR) outlier counts,
    quartiles from numpy's default percentile; (0, 0) when the IQR is 0."""
    x = np.asarray(values, dtype=float)
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    if iqr == 0:
        return 0, 0
    severe = int(np.sum((x < q1 - 3 * iqr) | (x > q3 + 3 * iqr)))
    mild = int(np.sum((x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr))) - severe
    return mild, severe


def quantum_and_ties(values):
    """The smallest positive gap between distinct values (NaN with fewer than two) and the
    share of tied values 1 - distinct / n, by a loop over every pair."""
    x = [float(v) for v in values]
    gaps = [abs(a - b) for a in x for b in x if a != b]
    return (min(gaps) if gaps else math.nan), 1 - len(set(x)) / len(x)


def warmup_brute(processes, alpha=0.01):
    """The warm-up of one group (a list of processes, each a list of values in order) by
    MSER-5 (`mser_truncation_brute` of `iteration_profile`) and scipy's t-tests: with one
    process, ``ttest_ind`` of the first d values against the rest (Welch; Student's pooled test
    when d = 1); with several, ``ttest_1samp`` over the processes with values after the
    transient of their (mean of the first d) - (mean of the rest). The values are read on the
    log scale when every one is > 0. Returns (d, pvalue, change, found): pvalue 1.0 and change
    0.0 when d = 0, pvalue NaN when too few values or processes are left to test; change is
    exp(mean difference) - 1 on the log scale, the mean difference over |steady mean| on the
    linear one (the steady mean: of the values after the transient, or, with several processes,
    the mean of their steady means)."""
    processes = [np.asarray(p, dtype=float) for p in processes]
    log = all((p > 0).all() for p in processes)
    scaled = [np.log(p) if log else p for p in processes]
    d = mser_truncation_brute(iteration_profile(scaled))
    if d == 0:
        return 0, 1.0, 0.0, False
    if len(scaled) == 1:
        x = scaled[0]
        first, rest = x[:d], x[d:]
        pvalue = (sps.ttest_ind(first, rest, equal_var=d == 1).pvalue if rest.size >= 2
                  else math.nan)
        difference, steady = first.mean() - rest.mean(), rest.mean()
    else:
        long_enough = [p for p in scaled if p.size > d]
        differences = [p[:d].mean() - p[d:].mean() for p in long_enough]
        pvalue = sps.ttest_1samp(differences, 0.0).pvalue if len(differences) >= 2 else math.nan
        difference = float(np.mean(differences))
        steady = float(np.mean([p[d:].mean() for p in long_enough]))
    change = math.expm1(difference) if log else difference / abs(steady)
    return d, float(pvalue), change, bool(pvalue < alpha)


# ================================================================================== group identity

IDENTITY_MASK = (1 << 64) - 1
IDENTITY_GOLDEN = 0x9E3779B97F4A7C15
IDENTITY_ROW_START = 0x13198A2E03707344
IDENTITY_STRING_START = 0x243F6A8885A308D3
IDENTITY_TAGS = {"null": 1, "boolean": 2, "integer": 3, "negative integer": 4, "float": 5,
                 "string": 6, "binary": 7, "decimal": 8}


def splitmix64_finaliser(z):
    """SplitMix64's finaliser on a Python int, modulo 2**64 (Steele, Lea & Flood 2014)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & IDENTITY_MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & IDENTITY_MASK
    return z ^ (z >> 31)


def identity_step(state, word):
    """One step of the identity chain: finaliser((state ^ word) + golden) modulo 2**64."""
    return splitmix64_finaliser(((state ^ word) + IDENTITY_GOLDEN) & IDENTITY_MASK)


def identity_of_bytes(data):
    """The chain of a byte string: its length, then 8-byte little-endian words, zero-padded."""
    state = identity_step(IDENTITY_STRING_START, len(data))
    for start in range(0, len(data), 8):
        state = identity_step(state, int.from_bytes(data[start:start + 8].ljust(8, b"\0"),
                                                    "little"))
    return state


def identity_words(value):
    """(tag, payload) of one Python key value: None, bool, int, float, str, bytes, Decimal.

    Integers by value (a negative one by its 64-bit two's complement, under its own tag); a
    float with an integral value in [-2**63, 2**64) is that integer, any other float its IEEE
    754 bits (every NaN one NaN); a Decimal by its value (trailing zeros dropped; integral with
    at most 18 digits: that integer)."""
    if value is None:
        return IDENTITY_TAGS["null"], 0
    if isinstance(value, bool):
        return IDENTITY_TAGS["boolean"], int(value)
    if isinstance(value, int):
        if value < 0:
            return IDENTITY_TAGS["negative integer"], value & IDENTITY_MASK
        return IDENTITY_TAGS["integer"], value
    if isinstance(value, float):
        if math.isnan(value):
            return IDENTITY_TAGS["float"], 0x7FF8000000000000
        if math.isfinite(value) and value == math.floor(value) and -2.0**63 <= value < 2.0**64:
            return identity_words(int(value))
        return IDENTITY_TAGS["float"], struct.unpack("<Q", struct.pack("<d", value))[0]
    if isinstance(value, str):
        return IDENTITY_TAGS["string"], identity_of_bytes(value.encode("utf-8"))
    if isinstance(value, bytes):
        return IDENTITY_TAGS["binary"], identity_of_bytes(value)
    if isinstance(value, Decimal):
        if value == value.to_integral_value() and abs(value) < 10**18:
            return identity_words(int(value))
        text = format(value.normalize(), "f")
        return IDENTITY_TAGS["decimal"], identity_of_bytes(text.encode())
    raise TypeError(f"no identity for {value!r}")


def identity_of_row(values):
    """The identity of one row of key values (in column order): the chain over each value's
    tag and payload from the row start."""
    state = IDENTITY_ROW_START
    for value in values:
        tag, payload = identity_words(value)
        state = identity_step(identity_step(state, tag), payload)
    return state


# ================================================================================== penalised segmentation

#: The tie rule of the segmentation search: objective values within this much of (n + the sum
#: of squares of z about its mean) of the minimum count as equal, and the earliest start wins.
SEGMENTATION_TIE = 1e-11


def segmentation_noise_scale(y):
    """The root mean square of the first differences without their largest tenth (numpy's
    sort), over sqrt(2 E[X | X <= q]) for X ~ chi-square(1) and q its 90 % quantile (scipy), at
    least the smallest positive |y_i - y_j| over every pair / sqrt(12); 0 without one."""
    from scipy.stats import chi2

    y = np.asarray(y, dtype=float)
    if y.size < 2:
        return 0.0
    gaps = [abs(a - b) for a in y for b in y if a != b]
    if not gaps:
        return 0.0
    squares = np.sort(np.diff(y) ** 2)
    kept = squares[:max(1, squares.size - math.ceil(0.1 * squares.size))]
    trimmed_mean = chi2.cdf(chi2.ppf(0.9, 1), 3) / 0.9
    return max(math.sqrt(float(np.mean(kept)) / (2.0 * trimmed_mean)), min(gaps) / math.sqrt(12.0))


def running_median_by_numpy(y, half_window):
    """w_i = numpy's median of y[i - h:i + h + 1] (truncated at the ends)."""
    y = np.asarray(y, dtype=float)
    return np.array([np.median(y[max(0, i - half_window):i + half_window + 1])
                     for i in range(y.size)])


def running_median_clipped(y, sigma, half_window):
    """y_i clipped to [w_i - 2.5 sigma, w_i + 2.5 sigma], w_i = `running_median_by_numpy`."""
    w = running_median_by_numpy(y, half_window)
    return np.clip(np.asarray(y, dtype=float), w - 2.5 * sigma, w + 2.5 * sigma)


class BruteSegmentation:
    """The segmentation problem of one series, computed the long way: the noise scale and the
    clipping by `segmentation_noise_scale` / `running_median_clipped`, z = (clipped - its
    median) / sigma (a shift changes no cost), and each segment's costs from its own points:
    the RSS about the mean, and about numpy.polyfit's line on the positions 0..L-1.

    With `serial_dependence`, `optimal_partitioning` re-runs the programme with the noise
    variance sigma^2 inflated to the AR(1) long-run variance: sigma is difference-based, so it
    estimates gamma_0 (1 - phi) of AR(1) noise with marginal variance gamma_0, whose long-run
    variance gamma_0 (1 + phi) / (1 - phi) is then sigma^2 (1 + phi) / (1 - phi)^2. It does so
    while the lag-1 autocorrelation phi of the residuals about the optimum's fits (the sum of
    products of neighbours within a segment over the sum of squares; 0 for an exact fit, every
    residual within 1e-9 of 0 relative to the data) exceeds 2 / sqrt(n) and the factor grows
    (phi capped at 0.99), until a re-run keeps the boundaries, at most 5 re-runs.
    `inflation`, `phi` (of the final fit) and `exit` (why the loop ended: "white" (phi at most
    2 / sqrt(n)), "shrinking" (the factor would not grow), "fixed point" (a re-run kept the
    boundaries) or "cap") keep the last values, and the costs stay at the last scale."""

    def __init__(self, y, min_size=5, penalty="mbic", drift=True, drift_penalty=None,
                 robust=True, serial_dependence=True):
        self.y = np.asarray(y, dtype=float)
        self.n = n = self.y.size
        self.min_size, self.min_drift, self.drift = min_size, 3 * min_size, drift
        self.mbic = penalty == "mbic"
        self.beta = 3.0 * math.log(n) if self.mbic else float(penalty)
        self.price = self.beta if drift_penalty is None else float(drift_penalty)
        self.serial_dependence = serial_dependence
        self.sigma = segmentation_noise_scale(self.y)
        self.clipped = (running_median_clipped(self.y, self.sigma, min_size)
                        if robust and self.sigma > 0 else self.y.copy())
        self.inflation, self.phi, self.exit = 1.0, math.nan, None
        if self.sigma > 0:
            self.base_z = (self.clipped - np.median(self.clipped)) / self.sigma
            self.rescale(1.0)
        self._costs = {}

    def rescale(self, inflation):
        """Costs with the noise variance sigma^2 times `inflation`."""
        self.inflation = inflation
        self.z = self.base_z / math.sqrt(inflation)
        spread = float(np.sum((self.z - self.z.mean()) ** 2))
        self.tolerance = SEGMENTATION_TIE * (self.n + spread)
        self._costs = {}

    def residual_autocorrelation(self, bounds):
        """phi: neighbours' products of the residuals of z about each segment's fit (its mean,
        or numpy.polyfit's line where its cost is a drift's), within segments, over the sum of
        the squared residuals."""
        products = squares = 0.0
        largest = 0.0
        for s, t in zip(bounds[:-1], bounds[1:]):
            seg = self.z[s:t]
            if self.cost(s, t)[1]:
                x = np.arange(t - s, dtype=float)
                residual = seg - np.polyval(np.polyfit(x, seg, 1), x)
            else:
                residual = seg - seg.mean()
            products += float(np.sum(residual[1:] * residual[:-1]))
            squares += float(np.sum(residual ** 2))
            largest = max(largest, float(np.max(np.abs(residual))))
        if largest <= 1e-9 * (1.0 + float(np.max(np.abs(self.z)))):
            return 0.0  # an exact fit: rounding, not dependence
        return products / squares

    def cost(self, s, t):
        """(cost without the log L term, is_drift) of the segment [s, t): the level RSS, or the
        line's RSS + the drift price when drifts are on, L >= 3 min_size and that is lower by
        more than the tie tolerance."""
        if (s, t) not in self._costs:
            seg = self.z[s:t]
            level = float(np.sum((seg - seg.mean()) ** 2))
            result = (level, False)
            if self.drift and t - s >= self.min_drift:
                x = np.arange(t - s, dtype=float)
                line = float(np.sum((seg - np.polyval(np.polyfit(x, seg, 1), x)) ** 2))
                if level - (line + self.price) > self.tolerance:
                    result = (line + self.price, True)
            self._costs[(s, t)] = result
        return self._costs[(s, t)]

    def segment_term(self, s, t):
        """A segment's part of the objective: its cost plus log L under the MBIC."""
        return self.cost(s, t)[0] + (math.log(t - s) if self.mbic else 0.0)

    def objective(self, bounds):
        """sum over segments (cost + log L) + beta * changes of the segmentation `bounds`."""
        return (sum(self.segment_term(s, t) for s, t in zip(bounds[:-1], bounds[1:]))
                + self.beta * (len(bounds) - 2))

    def optimal_partitioning(self):
        """(bounds, objective) of `partitioning`, re-run for serial dependence (see the class)."""
        bounds, objective = self.partitioning()
        if objective is None:
            return bounds, objective
        for refit in range(6):
            self.phi = self.residual_autocorrelation(bounds)
            if not self.serial_dependence:
                break
            if self.phi <= 2.0 / math.sqrt(self.n):
                self.exit = "white"
                break
            if refit == 5:
                self.exit = "cap"
                break
            capped = min(self.phi, 0.99)
            factor = (1.0 + capped) / (1.0 - capped) ** 2
            if factor <= self.inflation:
                self.exit = "shrinking"
                break
            self.rescale(factor)
            refitted, objective = self.partitioning()
            if refitted == bounds:
                self.phi = self.residual_autocorrelation(bounds)
                self.exit = "fixed point"
                break
            bounds = refitted
        return bounds, objective

    def partitioning(self):
        """(bounds, objective) by the O(n^2) dynamic programme without pruning: F(0) = -beta,
        F(t) = min over s in {0} and [min_size, t - min_size] of F(s) + term(s, t) + beta, the
        earliest s among values within the tie tolerance of the minimum."""
        n, m = self.n, self.min_size
        if self.sigma == 0 or n < 2 * m:
            return [0, n], None
        best, previous = {0: -self.beta}, {}
        for t in range(m, n + 1):
            starts = [0] + list(range(m, t - m + 1))
            values = [best[s] + self.segment_term(s, t) + self.beta for s in starts]
            lowest = min(values)
            chosen = next(j for j, v in enumerate(values) if v <= lowest + self.tolerance)
            best[t], previous[t] = values[chosen], starts[chosen]
        bounds = [n]
        while bounds[-1] > 0:
            bounds.append(previous[bounds[-1]])
        return bounds[::-1], best[n]

    def enumerated(self):
        """Every segmentation with segments of at least min_size points, by itertools over the
        sets of change positions: a list of (objective, bounds), lowest first."""
        n, m = self.n, self.min_size
        found = []
        for k in range(n // m):
            for cuts in itertools.combinations(range(m, n - m + 1), k):
                bounds = [0, *cuts, n]
                if all(b - a >= m for a, b in zip(bounds[:-1], bounds[1:])):
                    found.append((self.objective(bounds), bounds))
        return sorted(found, key=lambda item: item[0])

    def fit(self, s, t):
        """(value at the first point, slope) of the segment's fit to the clipped values: the
        mean and 0 for a level, numpy.polyfit's line for a drift."""
        seg = self.clipped[s:t]
        if not self.cost(s, t)[1]:
            return float(seg.mean()), 0.0
        slope, intercept = np.polyfit(np.arange(t - s, dtype=float), seg, 1)
        return float(intercept), float(slope)


def boundary_steps_by_rule(drift, jump, jump_se, scale):
    """Per segment of one series, whether the boundary before it is a step: False for the
    first; True between two levels; beside a drift, |jump| > max(3.29 jump_se, 3 scale)."""
    steps = [False]
    for k in range(1, len(drift)):
        if not drift[k - 1] and not drift[k]:
            steps.append(True)
        else:
            steps.append(bool(abs(jump[k]) > max(3.29 * jump_se[k], 3.0 * scale)))
    return steps


def ramp_design(first, last, s, e):
    """u = clip(i - (s - 1/2), 0, e - s) for i in [first, last)."""
    return np.clip(np.arange(first, last) - (s - 0.5), 0.0, e - s)


def ramp_by_least_squares(y, first, last, s, e, sigma, left_kink, right_kink):
    """(a, b, se of b, se of b (e - s)) of y[first:last] = a + b u by numpy.linalg.lstsq, the
    standard errors by the delta method from sigma^2 inv(J'J), J = [1, u, -b 1{i >= s} (when
    `left_kink`), b 1{i >= e} (when `right_kink`)], numpy.linalg.inv."""
    u = ramp_design(first, last, s, e)
    (a, b), *_ = np.linalg.lstsq(np.column_stack([np.ones_like(u), u]), y[first:last], rcond=None)
    i = np.arange(first, last)
    columns, gradient = [np.ones_like(u), u], [0.0, e - s]
    if left_kink:
        columns.append(-b * (i >= s))
        gradient.append(-b)
    if right_kink:
        columns.append(b * (i >= e))
        gradient.append(b)
    jacobian = np.column_stack(columns)
    covariance = sigma ** 2 * np.linalg.inv(jacobian.T @ jacobian)
    gradient = np.array(gradient)
    return (float(a), float(b), math.sqrt(covariance[1, 1]),
            math.sqrt(float(gradient @ covariance @ gradient)))


def refined_kinks_by_search(y, bounds, drift, steps, min_size, min_drift):
    """The boundaries after each drift's kinks move to where the continuous ramp's residual
    sum of squares (numpy.linalg.lstsq over the points from its left level's start to its
    right level's end, across kinks) is least: per drift in order, alternately the kink
    before it over every position keeping min_size points in the level and min_drift in the
    drift, then the one after it, until neither moves (20 rounds at most); the first position
    of least RSS (up to 1e-9 relative) wins."""
    bounds = list(bounds)
    last_segment = len(drift) - 1

    def rss(first, last, s, e):
        u = ramp_design(first, last, s, e)
        design = np.column_stack([np.ones_like(u), u])
        coefficients, *_ = np.linalg.lstsq(design, y[first:last], rcond=None)
        residual = y[first:last] - design @ coefficients
        return float(residual @ residual)

    def first_least(values):
        lowest = min(v for v, _ in values)
        return next(p for v, p in values if v <= lowest + 1e-9 * (1.0 + abs(lowest)))

    for k in range(last_segment + 1):
        if not drift[k]:
            continue
        left = k > 0 and not drift[k - 1] and not steps[k]
        right = k < last_segment and not drift[k + 1] and not steps[k + 1]
        if not (left or right):
            continue
        first = bounds[k - 1] if left else bounds[k]
        last = bounds[k + 2] if right else bounds[k + 1]
        s, e = bounds[k], bounds[k + 1]
        for _ in range(20):
            before = (s, e)
            if left:
                s = first_least([(rss(first, last, c, e), c)
                                 for c in range(first + min_size, e - min_drift + 1)])
            if right:
                e = first_least([(rss(first, last, s, c), c)
                                 for c in range(s + min_drift, last - min_size + 1)])
            if (s, e) == before:
                break
        bounds[k], bounds[k + 1] = s, e
    return bounds


# ============================================== Hodges-Lehmann intervals (normal approximation)


def tie_block_sizes(values):
    """The sizes t of the blocks of equal values (-0.0 and 0.0 are one value)."""
    _, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    return [int(t) for t in counts]


def normal_interval_rank(total, sigma, confidence, alternative, continuity=0.5):
    """k = floor(M/2 + 1/2 - z sigma), at most M, of the interval [V_(k), V_(M+1-k)]; 0 where
    it is below 1 (no interval of order statistics reaches the level: the whole line).

    z is the standard normal quantile at 1 - alpha/2 (two-sided) or 1 - alpha (one-sided),
    alpha = 1 - confidence (Lehmann 1975, ch. 2, the normal approximation of the rank of the
    bound; Hollander & Wolfe 1999, §4.3). Returns ``(k, margin)``, margin the distance of
    M/2 + 1/2 - z sigma to the nearest integer (a floor that small rounding could flip).
    `continuity` replaces the 1/2 (0 gives the formula without it: used to pick test cases).
    """
    alpha = 1.0 - confidence
    level = alpha / 2 if alternative == "two-sided" else alpha
    z = NormalDist().inv_cdf(1.0 - level)
    position = total / 2 + continuity - z * sigma
    k = min(max(math.floor(position), 0), max(total, 1))
    return k, abs(position - round(position))


def rank_sum_sigma_naive(x, y, tie_correction=True):
    """σ of U: sqrt(m n / 12 ((N + 1) - Σ (t³ - t) / (N (N - 1)))), the tie blocks t those of
    the pooled sample (Hollander & Wolfe 1999, §4.1); without the tie term if not
    `tie_correction`."""
    m, n = len(x), len(y)
    big_n = m + n
    ties = sum(t ** 3 - t for t in tie_block_sizes(np.concatenate([x, y]))) if tie_correction else 0
    return math.sqrt(m * n / 12 * ((big_n + 1) - ties / (big_n * (big_n - 1))))


def signed_rank_sigma_naive(d, tie_correction=True):
    """σ of T+ for the values `d` all ranked by |d|: sqrt(n (n + 1) (2 n + 1) / 24 - Σ (t³ - t)
    / 48), the tie blocks t those of |d| (a block of zeros counts as one)."""
    n = len(d)
    ties = sum(t ** 3 - t for t in tie_block_sizes(np.abs(d))) if tie_correction else 0
    return math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - ties / 48)


def _interval_of(sorted_values, k, alternative):
    total = len(sorted_values)
    if k < 1:  # the level is out of reach of every order statistic
        return -math.inf, math.inf
    low = -math.inf if alternative == "less" else float(sorted_values[k - 1])
    high = math.inf if alternative == "greater" else float(sorted_values[total - k])
    return low, high


def hodges_lehmann_shift_interval(x, y, confidence=0.95, alternative="two-sided",
                                  continuity=0.5, tie_correction=True):
    """The two-sample Hodges-Lehmann estimate of the shift of x against y and its interval on
    the normal approximation: every difference x_i - y_j materialised and sorted, the estimate
    their median, the interval [D_(k), D_(mn+1-k)] with k of `normal_interval_rank` and σ of
    `rank_sum_sigma_naive` (one-sided: the other end infinite). Returns ``(estimate, low, high,
    margin)`` (margin: see `normal_interval_rank`). `continuity` and `tie_correction` change the
    formula (tests use them to pick sizes where each term decides the interval)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    diffs = pairwise_differences(x, y)
    sigma = rank_sum_sigma_naive(x, y, tie_correction)
    k, margin = normal_interval_rank(len(diffs), sigma, confidence, alternative, continuity)
    low, high = _interval_of(diffs, k, alternative)
    return float(np.median(diffs)), low, high, margin


def pseudo_median_interval(d, confidence=0.95, alternative="two-sided", zero_method="wilcox",
                           continuity=0.5, tie_correction=True):
    """The one-sample Hodges-Lehmann estimate (median of the Walsh averages) and its interval
    on the normal approximation, [W_(k), W_(M+1-k)], M = n (n + 1) / 2, k of
    `normal_interval_rank` and σ of `signed_rank_sigma_naive`. "wilcox" drops the zero
    differences first; "zsplit" keeps them (in the averages and as a tie block of |d|). Returns
    ``(estimate, low, high, margin)``."""
    d = np.asarray(d, float)
    if zero_method == "wilcox":
        d = d[d != 0]
    elif zero_method != "zsplit":
        raise ValueError(zero_method)
    walsh = walsh_averages(d)
    sigma = signed_rank_sigma_naive(d, tie_correction)
    k, margin = normal_interval_rank(len(walsh), sigma, confidence, alternative, continuity)
    low, high = _interval_of(walsh, k, alternative)
    return float(np.median(walsh)), low, high, margin
