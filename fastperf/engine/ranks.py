"""Rank-test engine: the Mann-Whitney rank-sum and Wilcoxon signed-rank tests of batches of samples.

Samples in (CSR segments), per-test columns out (statistic, p, status, method, z and the state of
the Hodges-Lehmann effect). Used by `fastperf.mannwhitneyu` / `fastperf.wilcoxon` and by every
protocol that needs a rank test (Speedup-Test median protocol, SPARC, HPT).

- exact null distributions: Löffler's recurrence for the untied U (Löffler 1983), the count
  recursion for the untied T+, and with ties the exact distribution conditional on the tie
  blocks (network algorithm; Mehta, Patel & Tsiatis 1984); small tails are summed, never
  formed as 1 − cdf;
- asymptotic: the normal approximation with the tie and continuity corrections (scipy's);
- effects: Hodges-Lehmann estimates (Hodges & Lehmann 1963) with distribution-free intervals
  (Lehmann 1975, §2.6 and §3.2);
- what the exact tests would cost before they start (at the end of this module): the steps and
  memory of their null distributions, the refusal of a ``method="exact"`` call beyond the
  budget (`check_exact_budget`), the chunks of the work behind a progress bar.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr, ndtri

from fastperf.data.arrays import Samples
from fastperf.data.budget import check_budget, format_bytes, physical_memory
from fastperf.engine.null_distributions import (rank_sum_cdf, signed_rank_cdf,
                                                symmetric_quantile, symmetric_tails)
from fastperf.engine.pvalues import first_reason, normal_pvalue, pick_tail
from fastperf.engine.sorting import sort_sample_pairs, sort_samples
from fastperf.engine.summaries import midpoint
from fastperf.errors import InputError
from fastperf.kernels.grouping import take_segments
from fastperf.kernels.hodges_lehmann import difference_order_statistics, walsh_order_statistics
from fastperf.kernels.rank_sum_ties import rank_sum_tie_tails
from fastperf.kernels.ranks import RANK_SUM, rank_sum_statistics, signed_rank_statistics, tie_blocks
from fastperf.kernels.signed_rank_ties import signed_rank_tie_tails
from fastperf.kernels.tie_costs import tie_tail_costs
from fastperf.progress import progress_chunks, wants_progress

__all__ = [
    "AUTO_EXACT_MAX_COST", "AUTO_EXACT_MAX_TIED_COST", "ZERO_METHODS", "kernel_rows",
    "rank_sum_test", "rank_sum_effect_state", "signed_rank_test",
    "signed_rank_moments", "log_values", "logs_where", "NO_RATIO_INTERVAL",
    "RATIO_BEYOND_FLOAT64", "EffectState", "RankSumState", "SignedRankState",
    "nan_status", "EXACT_MAX_OPERATIONS", "rank_sum_exact_cost", "signed_rank_exact_cost",
    "check_exact_budget", "exact_chunks", "csr_slice", "tie_tails_once", "distinct_tie_tests",
    "tie_test_hashes", "segments_at",
]


#: ``method="auto"`` computes an exact p-value for untied samples when the null distribution
#: costs at most this many steps: min(m, n)²·max(m, n)/2 for the rank-sum, n³/4 for the
#: signed-rank (about 25 ms; computed once per sample size and cached, so a batch pays it once).
AUTO_EXACT_MAX_COST = 50_000_000


#: With ties (or ranked zeros) the conditional distribution is computed for each sample, so
#: ``"auto"`` bounds it per sample: the work `tie_tail_costs` estimates from the tie blocks is
#: at most this (about a millisecond: 30 vs 30 or 50 vs 50 with ties, signed-rank n <= ~300).
AUTO_EXACT_MAX_TIED_COST = 2_000_000


ZERO_METHODS = {"wilcox": 0, "pratt": 1, "zsplit": 2}


def distinct_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a (k, 1) or (k, 2) array of sample sizes, ascending, and the index of
    each row among them: ``np.unique(keys, axis=0, return_inverse=True)``, by a sort of one
    integer key per row instead of numpy's row-wise sort (~20x slower on 10,000 rows)."""
    keys = np.asarray(keys, dtype=np.int64)
    keys = keys.reshape(-1, 1) if keys.ndim == 1 else keys
    if keys.shape[0] == 0 or keys.shape[1] > 2:
        distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
        return distinct, inverse.reshape(-1)
    if (keys == keys[0]).all():  # one distinct row (a batch of equal sizes): no sort
        return keys[:1], np.zeros(keys.shape[0], dtype=np.intp)
    low = keys.min(axis=0)
    span = int(keys[:, -1].max() - low[-1]) + 1
    key = keys[:, -1] - low[-1]
    if keys.shape[1] == 2:  # lexicographic order of the pairs; sizes far below sqrt(2**63)
        key = key + (keys[:, 0] - low[0]) * span
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return keys[first], inverse.reshape(-1)


def kernel_rows(samples: Samples) -> int:
    """The `n_rows` a group kernel gets: its rows, or 0 (serial) for a single sample."""
    return samples.values.shape[0] if len(samples) > 1 else 0


#: Pairs (differences, Walsh averages) of a Hodges-Lehmann selection that count as one row of
#: its kernel's `n_rows`: the work grows with the pairs, not the values, so large groups (long
#: segments of a history) go to the threads sooner than many small ones (benchmarks of 30 runs).
PAIRS_PER_ROW = 16


def selection_rows(value_rows: int, pairs: float) -> int:
    """The `n_rows` of a Hodges-Lehmann selection over `pairs` pairs of values that the kernel
    would otherwise count as `value_rows` (`kernel_rows`)."""
    return max(value_rows, int(pairs) // PAIRS_PER_ROW)


def compact(sorted_samples: Samples, keep: np.ndarray) -> Samples:
    """The sorted samples with only the values where `keep` (their order kept)."""
    kept_before = np.zeros(keep.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    return Samples(sorted_samples.values[keep], kept_before[sorted_samples.offsets])


def nan_status(n_nan: np.ndarray, nan_policy: str) -> np.ndarray:
    """Which samples are NaN by the policy ("propagate"); "raise" raises here."""
    if nan_policy == "raise" and n_nan.any():
        raise InputError("the input contains NaN (nan_policy='raise'); use nan_policy='omit' to "
                         "drop NaN values or 'propagate' to get NaN results")
    return (n_nan > 0) if nan_policy == "propagate" else np.zeros(n_nan.shape, dtype=bool)


class TieBlocks:
    """The tie blocks of chosen samples (`tie_blocks`), listed once and shared by ``auto``'s
    cost estimate and the exact tails that follow it."""

    def __init__(self, xs: Samples, m, ys: Samples, n, zero_method: int):
        self._args = (xs.values, xs.offsets, m, ys.values, ys.offsets, n)
        self._zero_method = zero_method
        self._groups = None
        self._blocks = None

    def of(self, groups: np.ndarray):
        """``(scores, counts, block_offsets)`` of the samples `groups` (ascending indices)."""
        if self._groups is not None and np.array_equal(groups, self._groups):
            return self._blocks
        if self._groups is not None and np.isin(groups, self._groups).all():
            scores, counts, offsets = self._blocks
            at = np.searchsorted(self._groups, groups)
            chosen_scores, chosen_offsets, _ = take_segments(scores, offsets, at, False)
            return chosen_scores, take_segments(counts, offsets, at, False)[0], chosen_offsets
        self._groups = groups
        self._blocks = tie_blocks(*self._args, groups, self._zero_method)
        return self._blocks


def methods_used(valid, exact, conditional) -> np.ndarray:
    """"exact", "exact (ties)" (conditional on ties), "asymptotic", or "none" per test."""
    return first_reason([~valid, exact & conditional, exact],
                         ["none", "exact (ties)", "exact"], "asymptotic")


class EffectState:
    """What a result keeps for its Hodges-Lehmann effect: which tests are valid, which were
    exact and untied, and the tie term. Subclasses say how many ordered values M each test has
    (m·n differences or n(n+1)/2 Walsh averages), σ of the statistic, the exact quantile per
    sample size, and how to select order statistics of those values."""

    def __init__(self, tie_term, exact_untied, valid):
        self.tie_term, self.exact_untied, self.valid = tie_term, exact_untied, valid

    def effects(self, alternative: str, confidence: float | None = None):
        """The estimate (median of the M values) and, with `confidence`, the interval
        [V_(k), V_(M+1−k)] (`interval_ranks`), from one selection of all the ranks."""
        total = self.total()
        lo, hi = (total + 1) // 2, total // 2 + 1  # the lower and upper middle
        columns = [lo, hi]
        if confidence is not None:
            k = interval_ranks(total, self.exact_untied, self.size_keys(), self.quantile,
                               self.sigma(), alternative, confidence)
            within = np.clip(k, 1, np.maximum(total, 1))
            columns += [within, total + 1 - within]
        ranks = np.stack(columns, axis=1).astype(np.int64)
        ranks[~self.valid] = 0
        values = self.select(ranks)
        estimate = midpoint(values[:, 0], values[:, 1])
        if confidence is None:
            return estimate, None, None
        low = np.full(total.shape, -np.inf) if alternative == "less" else values[:, 2]
        high = np.full(total.shape, np.inf) if alternative == "greater" else values[:, 3]
        # No interval of order statistics reaches `confidence` where k is below 1 (the exact
        # untied null's, or the normal approximation's, tied samples included): the widest
        # one, [V_(1), V_(M)], covers with probability 1 - 2 P(K = 0) (two-sided), below the
        # level. R's wilcox.test widens to the extreme values with a warning, below the level;
        # here the whole line, which does. (A confidence of 1, which the callers' checks
        # refuse, keeps [V_(1), V_(M)].)
        unreachable = (k < 1) & (confidence < 1.0)
        low = np.where(unreachable, -np.inf, low)
        high = np.where(unreachable, np.inf, high)
        return estimate, np.where(self.valid, low, np.nan), np.where(self.valid, high, np.nan)


class RankSumState(EffectState):
    """The rank-sum's effect: order statistics of the m·n differences x_i − y_j."""

    def __init__(self, xs: Samples, ys: Samples, m, n, tie_term, exact_untied, valid):
        super().__init__(tie_term, exact_untied, valid)
        self.xs, self.ys, self.m, self.n = xs, ys, m, n

    def total(self):
        return (self.m * self.n).astype(np.int64)

    def transformed(self, xs: Samples, ys: Samples) -> "RankSumState":
        """The same tests' effects measured on other values in the same order (the log of
        positive values: the effect becomes a log ratio). The ranks, ties and exactness stay
        those of the values tested, so a transform that merges two close values into one
        cannot change which interval is chosen."""
        return RankSumState(xs, ys, self.m, self.n, self.tie_term, self.exact_untied, self.valid)

    def on_logs(self, positive: np.ndarray) -> "RankSumState":
        """`transformed` to the log of the values in the tests where `positive` (every value of
        both samples > 0): there the effect is the log of the ratio x / y."""
        return self.transformed(logs_where(self.xs, positive), logs_where(self.ys, positive))

    def sigma(self):
        return rank_sum_sigma(self.m, self.n, self.tie_term)

    def size_keys(self):
        return np.stack([np.minimum(self.m, self.n), np.maximum(self.m, self.n)], axis=1)

    @staticmethod
    def quantile(size, level):
        return symmetric_quantile(rank_sum_cdf(*size), size[0] * size[1], level)

    def select(self, ranks):
        xs, ys = self.xs, self.ys  # NaN-free: compacted only when some value was NaN
        if (xs.sizes != self.m).any():
            xs = compact(xs, ~np.isnan(xs.values))
        if (ys.sizes != self.n).any():
            ys = compact(ys, ~np.isnan(ys.values))
        pairs = np.dot(xs.sizes.astype(np.float64), ys.sizes.astype(np.float64))  # the m n
        return difference_order_statistics(
            xs.values, xs.offsets, ys.values, ys.offsets, ranks, -1,
            n_rows=selection_rows(kernel_rows(xs) + kernel_rows(ys), pairs))


def rank_sum_sigma(m, n, tie_term):
    """σ of U with the tie correction: sqrt(mn/12 ((N+1) − Σ(t³−t)/(N(N−1))))."""
    big_n = (m + n).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(m * n / 12.0 * ((big_n + 1) - tie_term / (big_n * (big_n - 1))))


def exact_rank_sum_tails(m, n, u2, tied, chosen, blocks: TieBlocks, progress=None):
    """Exact (lower, upper) tails of U for the `chosen` tests: cached untied distributions per
    size pair, the conditional distribution given the tie blocks for tied samples (once per
    distinct tie blocks, m and statistic: `tie_tails_once`); in chunks with a progress bar when
    wanted (`exact_chunks`)."""
    lower = np.full(m.shape, np.nan)
    upper = np.full(m.shape, np.nan)
    untied = chosen & ~tied
    pairs = np.stack([np.minimum(m, n), np.maximum(m, n)], axis=1)[untied]
    where = np.flatnonzero(untied)
    distinct, inverse = distinct_rows(pairs)
    tied_chosen = np.flatnonzero(chosen & tied)
    if tied_chosen.size:
        scores, counts, block_offsets = blocks.of(tied_chosen)
        mc = m[tied_chosen]
        observed = u2[tied_chosen] + mc * (mc + 1)  # 2 × the rank sum of x

    def costs():
        return rank_sum_exact_work(distinct, tied_chosen, m, blocks)[0]

    for (a, b), (c, d) in exact_chunks("exact rank-sum", len(distinct), tied_chosen.size,
                                       progress, costs):
        for k in range(a, b):  # one distribution per distinct size pair
            small, large = distinct[k]
            sel = where[inverse.reshape(-1) == k]
            lower[sel], upper[sel] = symmetric_tails(rank_sum_cdf(int(small), int(large)),
                                                      int(small * large), u2[sel] // 2)
        if d > c:
            chunk_scores, chunk_offsets = csr_slice(scores, block_offsets, c, d)
            chunk_counts, _ = csr_slice(counts, block_offsets, c, d)
            # n_rows of the whole batch: every chunk runs the build the whole call would
            lo, up = tie_tails_once(rank_sum_tie_tails, chunk_scores, chunk_counts,
                                    chunk_offsets, (mc[c:d], observed[c:d]),
                                    n_rows=int(block_offsets[-1]))  # the batch's tie blocks
            lower[tied_chosen[c:d]], upper[tied_chosen[c:d]] = lo, up
    return lower, upper


def rank_sum_exact_work(pairs, tied_chosen, m, blocks: TieBlocks):
    """(steps, bytes) of each exact rank-sum distribution: the untied ones of the distinct size
    `pairs` (`rank_sum_exact_cost`), then one network-algorithm tail per tied test
    `tied_chosen` (its work estimated by `tie_tail_costs`, whose model also bounds the rows it
    holds)."""
    untied_steps, untied_memory = rank_sum_exact_cost(pairs[:, 0], pairs[:, 1])
    tie_steps = np.zeros(0)
    if tied_chosen.size:
        _, counts, block_offsets = blocks.of(tied_chosen)
        tie_steps = tie_tail_costs(counts, block_offsets, m[tied_chosen])
    return (np.concatenate([untied_steps, tie_steps]),
            np.concatenate([untied_memory, np.zeros(tied_chosen.size)]))


def check_rank_sum_exact(m, n, tied, chosen, blocks: TieBlocks) -> None:
    """`check_exact_budget` of the `chosen` rank-sum tests (`rank_sum_exact_work`)."""
    size_pairs = np.stack([np.minimum(m, n), np.maximum(m, n)], axis=1)
    pairs = distinct_rows(size_pairs[chosen & ~tied])[0]
    small, large = pairs[:, 0], pairs[:, 1]
    tied_chosen = np.flatnonzero(chosen & tied)
    steps, memory = rank_sum_exact_work(pairs, tied_chosen, m, blocks)

    def describe(i):
        if i < small.size:
            return f"samples of {int(small[i])} and {int(large[i])} values without ties"
        g = tied_chosen[i - small.size]
        return f"samples of {int(m[g])} and {int(n[g])} values with ties"

    check_exact_budget("the exact rank-sum test", steps, memory, describe)


def auto_exact_rank_sum(m, n, tied, candidates, blocks: TieBlocks):
    """Which tests ``method="auto"`` computes exactly (see `AUTO_EXACT_MAX_COST`)."""
    small, large = np.minimum(m, n).astype(float), np.maximum(m, n).astype(float)
    exact = candidates & ~tied & (small * small * large / 2 <= AUTO_EXACT_MAX_COST)
    tied_candidates = np.flatnonzero(candidates & tied)
    if tied_candidates.size:
        _, counts, block_offsets = blocks.of(tied_candidates)
        cost = tie_tail_costs(counts, block_offsets, m[tied_candidates])
        exact[tied_candidates[cost <= AUTO_EXACT_MAX_TIED_COST]] = True
    return exact


def rank_sum_effect_state(xs: Samples, ys: Samples, method: str,
                          nan_policy: str) -> RankSumState:
    """The Hodges-Lehmann effect state of the rank-sum tests of each pair, without their
    p-values: the samples sorted, their sizes and tie term, and which intervals take their
    ranks from the exact null (`method` chooses as in `rank_sum_test`)."""
    return _rank_sum_setup(xs, ys, method, nan_policy)[0]


def _rank_sum_setup(xs: Samples, ys: Samples, method: str, nan_policy: str):
    """(state, 2U, tied, NaN tests, empty tests, exact tests, tie blocks) of the pairs."""
    xs, ys = sort_sample_pairs(xs, ys)
    m, n, u2, tie_term, tied = rank_sum_statistics(xs.values, xs.offsets, ys.values, ys.offsets,
                                                   n_rows=kernel_rows(xs) + kernel_rows(ys))
    nan_tests = nan_status((xs.sizes - m) + (ys.sizes - n), nan_policy)
    empty = (m == 0) | (n == 0)
    valid = ~nan_tests & ~empty
    blocks = TieBlocks(xs, m, ys, n, RANK_SUM)
    if method == "exact":
        exact = valid.copy()
        check_rank_sum_exact(m, n, tied, exact, blocks)
    elif method == "asymptotic":
        exact = np.zeros_like(valid)
    else:
        exact = auto_exact_rank_sum(m, n, tied, valid, blocks)
    state = RankSumState(xs, ys, m, n, tie_term, exact & ~tied, valid)
    return state, u2, tied, nan_tests, empty, exact, blocks


def rank_sum_test(xs: Samples, ys: Samples, alternative: str, method: str, use_continuity: bool,
                   nan_policy: str, progress=None):
    """The rank-sum test of each pair of samples: arrays of U, p, status, method, z, state
    (`progress`: a bar over the exact distributions, `fastperf.progress`)."""
    state, u2, tied, nan_tests, empty, exact, blocks = _rank_sum_setup(xs, ys, method,
                                                                       nan_policy)
    m, n, tie_term, valid = state.m, state.n, state.tie_term, state.valid
    u1 = u2 / 2.0
    asymptotic = valid & ~exact
    mn = (m * n).astype(float)
    u = {"greater": u1, "less": mn - u1}.get(alternative, np.maximum(u1, mn - u1))
    sigma = rank_sum_sigma(m, n, tie_term)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - mn / 2 - (0.5 if use_continuity else 0.0)) / sigma
    factor = 2.0 if alternative == "two-sided" else 1.0
    if asymptotic.any():
        p = np.clip(ndtr(-z) * factor, 0.0, 1.0)  # scipy's formula
    else:  # every p is exact or NaN (below): no normal tail
        p = np.full(z.shape, np.nan)
    # every value tied: sigma 0 and U = mn/2, its null mean; the null distribution is that one
    # point, so p = 1 (as above) and z is reported as 0 (not the -inf of 0.5 / 0)
    z = np.where(sigma == 0, 0.0, z)
    if exact.any():
        lower, upper = exact_rank_sum_tails(m, n, u2, tied, exact, blocks, progress)
        p = np.where(exact, pick_tail(lower, upper, alternative), p)
    status = first_reason([nan_tests, empty], ["NaN in input", "empty sample"], "ok")
    method_used = methods_used(valid, exact, tied)
    statistic = np.where(valid, u1, np.nan)
    p = np.where(valid, p, np.nan)
    z = np.where(asymptotic, z, np.nan)
    return statistic, p, status, method_used, z, state


def interval_ranks(total, exact, size_keys, quantile, sigma, alternative: str, confidence: float):
    """k of the interval [V_(k), V_(total+1−k)] per test: from the exact null distribution where
    `exact` (``quantile(size_key, level)``, once per distinct size), else normal. Not clipped
    to 1..total: a k below 1 says that no interval of order statistics reaches `confidence`."""
    alpha = 1.0 - confidence
    level = alpha / 2 if alternative == "two-sided" else alpha
    k = np.ones(np.broadcast(total, sigma).shape, dtype=np.int64)
    if not exact.all():  # the normal rank
        with np.errstate(invalid="ignore"):
            k_normal = np.floor(total / 2.0 + 0.5 - ndtri(1.0 - level) * sigma)
        k = np.where(np.isfinite(k_normal), k_normal, 1).astype(np.int64)
    if exact.any():
        distinct, inverse = distinct_rows(size_keys[exact])
        per_size = np.array([quantile(tuple(int(v) for v in key), level) for key in distinct])
        k[exact] = per_size[inverse.reshape(-1)]
    return k


class SignedRankState(EffectState):
    """The signed-rank's effect: order statistics of the Walsh averages of the differences the
    test ranks (NaN dropped, zeros too under "wilcox")."""

    def __init__(self, ds: Samples, zero_method: int, count, tie_term, exact_untied, valid):
        super().__init__(tie_term, exact_untied, valid)
        # count: the values the test ranks (`signed_rank_statistics`), which are those kept
        self._ds, self._zero_method, self.n = ds, zero_method, count

    def total(self):
        return self.n * (self.n + 1) // 2

    def sigma(self):
        return signed_rank_moments(self.n, 0, self.tie_term, "wilcox")[1]

    def size_keys(self):
        return self.n[:, None]

    @staticmethod
    def quantile(size, level):
        return symmetric_quantile(signed_rank_cdf(size[0]), size[0] * (size[0] + 1) // 2, level)

    def select(self, ranks):
        ws = self._ds
        if int(self.n.sum()) != ws.values.shape[0]:  # NaN or dropped zeros: the kept values
            keep = ~np.isnan(ws.values)
            if self._zero_method == 0:
                keep &= ws.values != 0.0
            ws = compact(ws, keep)
        # materialise_max given: the signature of the native build (a call without it would
        # compile one)
        sizes = ws.sizes.astype(np.float64)
        pairs = np.dot(sizes, sizes + 1.0) / 2.0  # the n (n + 1) / 2 Walsh averages
        return walsh_order_statistics(ws.values, ws.offsets, ranks, -1,
                                      n_rows=selection_rows(kernel_rows(ws), pairs))


def signed_rank_moments(count, n_zero, tie_term, zero_method: str):
    """Mean and σ of T+ under H0 as scipy forms them (Pratt's zeros: Cureton 1967)."""
    c = count.astype(float)
    mean = c * (c + 1) * 0.25
    var = c * (c + 1) * (2 * c + 1)
    if zero_method == "pratt":
        z = n_zero.astype(float)
        mean = mean - z * (z + 1) * 0.25
        var = var - z * (z + 1) * (2 * z + 1)
    with np.errstate(invalid="ignore"):
        return mean, np.sqrt((var - tie_term / 2) / 24)


def exact_signed_rank_tails(count, plus2, standard, chosen, blocks: TieBlocks, progress=None):
    """Exact (lower, upper) tails of 2T+ (the nonzero part) for the `chosen` tests: cached
    distributions per sample size for `standard` ones (no ties, no ranked zeros), else the
    distribution conditional on the tie blocks and zeros; in chunks with a progress bar when
    wanted (`exact_chunks`)."""
    lower = np.full(count.shape, np.nan)
    upper = np.full(count.shape, np.nan)
    where = np.flatnonzero(chosen & standard)
    sizes = distinct_rows(count[where])[0].reshape(-1)
    conditional = np.flatnonzero(chosen & ~standard)
    if conditional.size:
        scores, counts, block_offsets = blocks.of(conditional)

    def costs():
        return signed_rank_exact_work(sizes, count[conditional], conditional, blocks)[0]

    for (a, b), (c, d) in exact_chunks("exact signed-rank", sizes.size, conditional.size,
                                       progress, costs):
        for size in sizes[a:b]:  # one distribution per distinct sample size
            sel = where[count[where] == size]
            total = int(size * (size + 1) // 2)
            lower[sel], upper[sel] = symmetric_tails(signed_rank_cdf(int(size)), total,
                                                      plus2[sel] // 2)
        if d > c:
            chunk_scores, chunk_offsets = csr_slice(scores, block_offsets, c, d)
            chunk_counts, _ = csr_slice(counts, block_offsets, c, d)
            # each test computed, repeats too: this kernel takes ~2 us a test, `tie_tails_once`
            # ~0.1 us, and only tables of 2-4 distinct values per benchmark repeat enough to pay
            lo, up = signed_rank_tie_tails(chunk_scores, chunk_counts, chunk_offsets,
                                           plus2[conditional[c:d]],
                                           n_rows=int(block_offsets[-1]))  # tie blocks
            lower[conditional[c:d]], upper[conditional[c:d]] = lo, up
    return lower, upper


def signed_rank_exact_work(sizes, tied_sizes, others, blocks: TieBlocks):
    """(steps, bytes) of each exact signed-rank distribution: the untied ones of the distinct
    `sizes` (`signed_rank_exact_cost`, and its cdf), then one conditional tail per test
    `others` with ties or ranked zeros, of `tied_sizes` values (its work estimated by
    `tie_tail_costs`, its memory at most `signed_rank_exact_cost`'s)."""
    untied_steps, untied_memory = signed_rank_exact_cost(sizes)
    tie_steps = np.zeros(0)
    if others.size:
        _, counts, block_offsets = blocks.of(others)
        tie_steps = tie_tail_costs(counts, block_offsets, np.full(others.size, -1, dtype=np.int64))
    return (np.concatenate([untied_steps, tie_steps]),
            np.concatenate([1.5 * untied_memory, signed_rank_exact_cost(tied_sizes)[1]]))


def check_signed_rank_exact(count, standard, chosen, blocks: TieBlocks) -> None:
    """`check_exact_budget` of the `chosen` signed-rank tests (`signed_rank_exact_work`)."""
    sizes = np.unique(count[chosen & standard])
    others = np.flatnonzero(chosen & ~standard)
    tied_sizes = count[others]
    steps, memory = signed_rank_exact_work(sizes, tied_sizes, others, blocks)

    def describe(i):
        if i < sizes.size:
            return f"{int(sizes[i])} nonzero differences without ties"
        return f"{int(tied_sizes[i - sizes.size])} differences with ties or ranked zeros"

    check_exact_budget("the exact signed-rank test", steps, memory, describe)


def auto_exact_signed_rank(count, standard, candidates, blocks: TieBlocks):
    """Which tests ``method="auto"`` computes exactly (see `AUTO_EXACT_MAX_COST`)."""
    exact = candidates & standard & (count.astype(float) ** 3 / 4 <= AUTO_EXACT_MAX_COST)
    others = np.flatnonzero(candidates & ~standard)
    if others.size:
        _, counts, block_offsets = blocks.of(others)
        cost = tie_tail_costs(counts, block_offsets, np.full(others.size, -1, dtype=np.int64))
        exact[others[cost <= AUTO_EXACT_MAX_TIED_COST]] = True
    return exact


def signed_rank_test(ds: Samples, alternative: str, method: str, zero_method: str,
                      correction: bool, nan_policy: str, progress=None):
    """The signed-rank test of each sample of differences (`progress`: a bar over the exact
    distributions, `fastperf.progress`)."""
    zero_code = ZERO_METHODS[zero_method]
    ds = sort_samples(ds)
    count, n_zero, plus2, minus2, zero2, tie_term, tied, n_nan = signed_rank_statistics(
        ds.values, ds.offsets, zero_code, n_rows=kernel_rows(ds))
    valid_len = ds.sizes - n_nan
    nan_tests = nan_status(n_nan, nan_policy)
    nonzero = count - (n_zero if zero_code != 0 else 0)
    empty = nonzero == 0
    valid = ~nan_tests & ~empty
    standard = ~tied & ((n_zero == 0) | (zero_code == 0))  # the untied null distribution holds
    blocks = TieBlocks(ds, valid_len, ds, valid_len, zero_code)
    if method == "exact":
        exact = valid.copy()
        check_signed_rank_exact(count, standard, exact, blocks)
    elif method == "asymptotic":
        exact = np.zeros_like(valid)
    else:
        exact = auto_exact_signed_rank(count, standard, valid, blocks)

    half_zero = zero2 / 4.0 if zero_method == "zsplit" else 0.0  # zsplit: half the zeros' ranks
    r_plus = plus2 / 2.0 + half_zero
    r_minus = minus2 / 2.0 + half_zero
    mean, sigma = signed_rank_moments(count, n_zero, tie_term, zero_method)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / sigma
        if correction:
            sign = {"greater": 1.0, "less": -1.0}.get(alternative, np.sign(z))
            z = z - sign * 0.5 / sigma
    asymptotic = valid & ~exact
    p = normal_pvalue(z, alternative)
    z = np.where(sigma == 0, 0.0, z)  # no spread under H0 (as in the rank-sum test): z 0
    if exact.any():
        lower, upper = exact_signed_rank_tails(count, plus2, standard, exact, blocks, progress)
        p = np.where(exact, pick_tail(lower, upper, alternative), p)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    status = first_reason([nan_tests, empty], ["NaN in input", "no nonzero differences"], "ok")
    method_used = methods_used(valid, exact, ~standard)
    if alternative == "two-sided":
        z = -np.abs(z)
    state = SignedRankState(ds, zero_code, count, tie_term, exact & standard, valid)
    return (np.where(valid, statistic, np.nan), np.where(valid, p, np.nan), status, method_used,
            np.where(asymptotic, z, np.nan), n_zero, np.where(valid, r_plus, np.nan), state)


#: The status of a row whose ratio effect cannot be had: a value <= 0 has no log.
NO_RATIO_INTERVAL = "values <= 0: no ratio interval"
#: The status of a row whose ratio or an end of its interval, the exp of a finite log, is 0 or
#: infinite (e.g. runs of 1e-300 against 1e300): compare, changepoints and decide.
RATIO_BEYOND_FLOAT64 = "ratio or its interval beyond the float64 range"


def logs_where(samples: Samples, positive: np.ndarray) -> Samples:
    """The samples with the log of their values in the groups where `positive` (all values > 0
    there), the values as they are elsewhere."""
    if positive.all():  # every group: the log of every value, with no mask to build
        return Samples(np.log(samples.values), samples.offsets)
    mask = np.repeat(positive, samples.sizes)
    values = samples.values.copy()
    values[mask] = np.log(values[mask])
    return Samples(values, samples.offsets)


def log_values(samples: Samples, what: str) -> Samples:
    """log of positive values, for the ratio effect (an `InputError` otherwise)."""
    values = samples.values
    bad = values <= 0
    if bad.any():
        raise InputError(f"log=True needs positive values; the {what} holds {int(bad.sum())} "
                         f"value(s) <= 0 (e.g. {float(values[bad][0])!r})")
    return Samples(np.log(values), samples.offsets)


# ----------------------------------------------------------------------------------------------
# What the exact tests would cost before they start


#: ``method="exact"`` refuses, before any work, a call whose exact distributions would take
#: more than this many elementary steps (`check_exact_budget`): about 30 s at ~1 ns a step.
#: Measured on one core: the untied rank-sum 1000 vs 1000 (1e9 steps) 0.8 s, 2000 vs 2000
#: (8e9) 7 s; the signed-rank n = 4000 (5.3e9) 2.9 s. So the untied rank-sum runs exactly up to
#: about 3100 vs 3100, the signed-rank up to n of about 7100; ``method="auto"`` stays far below
#: (`AUTO_EXACT_MAX_COST` and ``AUTO_EXACT_MAX_TIED_COST``).
EXACT_MAX_OPERATIONS = 3 * 10 ** 10


def rank_sum_exact_cost(m, n) -> tuple[np.ndarray, np.ndarray]:
    """(steps, bytes) of the untied rank-sum null distributions of sizes m and n (arrays;
    `rank_sum_null_pmf` and its cdf): about min(m, n)·m·n ring updates; four float64 arrays of
    floor(mn/2) + 1 entries (counts, partial sums, due lists, the cdf) and the rings, about
    min(m, n)·(m + n) floats. In float: no overflow."""
    a = np.minimum(m, n).astype(float)
    b = np.maximum(m, n).astype(float)
    return a * a * b, 32.0 * (np.floor(a * b / 2) + 1) + 8.0 * a * (a + b)


def signed_rank_exact_cost(n) -> tuple[np.ndarray, np.ndarray]:
    """(steps, bytes) of the signed-rank null distributions of n values (arrays): about n³/12
    steps untied (the product of n coin factors on the lower half of its range); at most
    floor(n(n+1)/2) + 1 float64 entries, untied or with ties (the cdf of an untied one adds
    half that again)."""
    n = np.asarray(n).astype(float)
    return n ** 3 / 12.0, 8.0 * (np.floor(n * (n + 1) / 2) + 1)


def check_exact_budget(test: str, steps: np.ndarray, memory: np.ndarray, describe) -> None:
    """Refuse ``method="exact"`` (an `InputError` from `check_budget`, before any work) when the
    exact distributions it needs take more than `EXACT_MAX_OPERATIONS` steps in all, or more
    memory at once than the machine has.

    Parameters
    ----------
    test : str
        The test, named in the message (``"the exact rank-sum test"``).
    steps, memory : numpy.ndarray
        The estimated steps and bytes of each distribution the call computes.
    describe : callable
        ``describe(i)``: what distribution i is (its sample sizes, ties), named in the message
        for the costliest one.
    """
    if steps.size == 0:
        return
    total_memory = physical_memory()
    over_memory = total_memory is not None and memory.max() > total_memory
    worst = int(np.argmax(memory if over_memory else steps))
    detail = (f"the costliest: {describe(worst)}, about {steps[worst]:.3g} steps"
              + (f" and {format_bytes(memory[worst])}" if memory[worst] > 0 else ""))
    if steps.size > 1:
        detail += f"; {steps.size} exact distributions in all"
    check_budget(test, "method", "exact", bytes_needed=int(memory.max()),
                 operations=float(steps.sum()), max_operations=EXACT_MAX_OPERATIONS,
                 detail=detail,
                 remedy="use method='asymptotic' (the normal approximation with the tie "
                        "correction) or method='auto' (exact only where it is cheap)")


def exact_chunks(label: str, n_untied: int, n_tied: int, progress, costs):
    """The exact tails' work in chunks, with a progress bar (`fastperf.progress`) when wanted.

    The work is `n_untied` distinct untied distributions then `n_tied` tie-conditional tails;
    without a bar it is one chunk (every tied tail in one kernel call). With one, the chunks
    hold near-equal estimated steps (`costs()`, called only then: an array of the steps of each
    item, untied first), so a few large distributions do not stall the bar between chunks.

    Yields
    ------
    (int, int), (int, int)
        The chunk's untied distributions [start, stop) and tied tails [start, stop).
    """
    weights = costs() if n_untied + n_tied and wants_progress(progress, math.inf) else None
    steps = float(np.sum(weights)) if weights is not None else 0.0
    for a, b in progress_chunks(label, n_untied + n_tied, progress if weights is not None
                                else False, steps, unit="distributions", weights=weights):
        yield (min(a, n_untied), min(b, n_untied)), (max(a - n_untied, 0),
                                                     max(b - n_untied, 0))


def tie_tails_once(kernel, scores, counts, block_offsets, per_test, n_rows: int):
    """``kernel(scores, counts, block_offsets, *per_test, n_rows=n_rows)`` (a tie-tail kernel:
    `rank_sum_tie_tails` or `signed_rank_tie_tails`), with each distinct test computed once.

    A test's tails depend only on its own tie blocks and its `per_test` values (m, the observed
    statistic), so tests equal in all of them (`distinct_tie_tests`) share one kernel result, bit
    for bit the one each would get alone; `n_rows` stays the whole batch's, so the kernel runs
    the same build as on every test. Realistic tables share little (31 vs 31 values in ~8 tie
    blocks: under 1% of the tests repeat one another), coarse timers more (2-4 distinct values
    per benchmark: 20-70%). The hashing costs ~0.1 us a test, the rank-sum kernel 20-80 us.

    Parameters
    ----------
    kernel : callable
        The tie-tail group kernel.
    scores, counts, block_offsets : numpy.ndarray
        The tests' tie blocks (doubled midranks, sizes) as CSR segments.
    per_test : tuple of numpy.ndarray
        The kernel's other per-test arguments.
    n_rows : int
        The whole batch's size, for the kernel's choice of build.

    Returns
    -------
    lower, upper : numpy.ndarray
        The kernel's tails of every test.

    Notes
    -----
    No formula: the kernel's own (the network algorithm, `rank_sum_tie_tails`).
    """
    first, inverse = distinct_tie_tests(scores, counts, block_offsets, per_test)
    if first.size == inverse.size:
        return kernel(scores, counts, block_offsets, *per_test, n_rows=n_rows)
    taken, taken_offsets = segments_at(block_offsets, first)
    lower, upper = kernel(scores[taken], counts[taken], taken_offsets,
                          *(np.ascontiguousarray(v[first]) for v in per_test), n_rows=n_rows)
    return lower[inverse], upper[inverse]


#: Odd 64-bit multipliers of `distinct_tie_tests`'s hash (the golden ratio's and splitmix64's).
HASH_MULTIPLIERS = np.array([0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB],
                            dtype=np.uint64)


def distinct_tie_tests(scores, counts, block_offsets, per_test) -> tuple[np.ndarray, np.ndarray]:
    """The distinct tests of a batch of tie-block groups (CSR `block_offsets`): two tests are the
    same when their blocks (`scores` and `counts`, in order) and every array of `per_test` agree.

    Returns ``(first, inverse)``: the first test of each distinct one, ascending, and for each
    test the position of its distinct test in `first` (``first[inverse]`` is a test equal to
    each). The hashes of `tie_test_hashes` propose the repeats: one sort says whether there are
    any, an argsort then gives each test its model, the first test of the same hash. Each repeat
    is compared with its model value by value, and one that differs (a hash collision, or the
    same blocks in another order) is kept as a distinct test of its own, not merged with its own
    repeats: never a wrong merge, whatever the hash; at worst (collisions, which tie blocks in
    value order do not produce) a test computed more than once.

    Parameters
    ----------
    scores, counts, block_offsets : numpy.ndarray
        The tests' tie blocks as CSR segments.
    per_test : tuple of numpy.ndarray
        Other per-test values that must agree.

    Returns
    -------
    first, inverse : numpy.ndarray of int64

    Notes
    -----
    No formula: hashing (`tie_test_hashes`) and a value-by-value check.
    """
    n_tests = block_offsets.shape[0] - 1
    everyone = np.arange(n_tests)
    if n_tests < 2:
        return everyone, everyone
    key = tie_test_hashes(scores, counts, block_offsets, per_test)
    ordered = np.sort(key)
    if (ordered[1:] != ordered[:-1]).all():
        return everyone, everyone
    order = np.argsort(key)  # numpy's stable argsort is 5x slower: the first by reduceat
    starts = np.ones(n_tests, dtype=bool)
    starts[1:] = key[order[1:]] != key[order[:-1]]
    model = np.empty(n_tests, dtype=np.int64)
    model[order] = np.minimum.reduceat(order, np.flatnonzero(starts))[np.cumsum(starts) - 1]
    # the repeats, each against its model: lengths, per_test, then the blocks value by value
    lengths = np.diff(block_offsets)
    repeats = np.flatnonzero(model != everyone)
    same = lengths[repeats] == lengths[model[repeats]]
    for value in per_test:
        same &= value[repeats] == value[model[repeats]]
    checked = repeats[same]
    mine, _ = segments_at(block_offsets, checked)
    theirs, _ = segments_at(block_offsets, model[checked])
    differs = (scores[mine] != scores[theirs]) | (counts[mine] != counts[theirs])
    differ_before = np.zeros(differs.shape[0] + 1, dtype=np.int64)
    np.cumsum(differs, out=differ_before[1:])
    ends = np.cumsum(lengths[checked])
    same[same] = differ_before[ends] == differ_before[ends - lengths[checked]]
    model[repeats[~same]] = repeats[~same]  # a collision stands for itself
    own = model == everyone
    return np.flatnonzero(own), (np.cumsum(own) - 1)[model]


def tie_test_hashes(scores, counts, block_offsets, per_test) -> np.ndarray:
    """A 64-bit hash (uint64) of each test of `distinct_tie_tests`: a mix of each block's score
    and count, summed over the test's blocks (a wrapping cumulative sum; the order of the
    blocks is left to the comparison that follows), then mixed with its number of blocks and
    each `per_test` value. About 30 ns a test of 8 blocks.

    Parameters
    ----------
    scores, counts, block_offsets, per_test
        As `distinct_tie_tests`.

    Returns
    -------
    numpy.ndarray of uint64
        One hash per test.

    Notes
    -----
    Multiply-xorshift mixing with the golden ratio's and splitmix64's odd constants (Steele,
    Lea & Flood 2014, "Fast splittable pseudorandom number generators", OOPSLA).
    """
    start, stop = int(block_offsets[0]), int(block_offsets[-1])
    k1, k2, k3 = HASH_MULTIPLIERS
    words = [np.asarray(v[start:stop], dtype=np.int64).view(np.uint64) for v in (scores, counts)]
    block_hash = words[0] * k1
    block_hash += words[1]
    block_hash ^= block_hash >> np.uint64(29)
    block_hash *= k2
    running = np.zeros(stop - start + 1, dtype=np.int64)  # int64: the same wrapping sums, faster
    np.cumsum(block_hash.view(np.int64), out=running[1:])
    key = (running[block_offsets[1:] - start] - running[block_offsets[:-1] - start]).view(np.uint64)
    for value in (np.diff(block_offsets), *per_test):
        key *= k3
        key += np.asarray(value, dtype=np.int64).view(np.uint64)
        key ^= key >> np.uint64(31)
    return key


def segments_at(offsets: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the values of CSR segments `at` (in that order) and their new offsets.

    Parameters
    ----------
    offsets : numpy.ndarray of int64
        CSR offsets.
    at : numpy.ndarray of int64
        The segments to take.

    Returns
    -------
    positions, new_offsets : numpy.ndarray of int64

    Notes
    -----
    CSR bookkeeping: no formula.
    """
    lengths = offsets[at + 1] - offsets[at]
    new_offsets = np.zeros(at.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    positions = (np.arange(int(new_offsets[-1]), dtype=np.int64)
                 + np.repeat(offsets[at] - new_offsets[:-1], lengths))
    return positions, new_offsets


def csr_slice(values: np.ndarray, offsets: np.ndarray, start: int, stop: int):
    """Segments [start, stop) of a CSR batch: their values and offsets rebased to 0."""
    return values[offsets[start]:offsets[stop]], offsets[start:stop + 1] - offsets[start]
