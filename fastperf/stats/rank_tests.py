"""Rank tests, batched: `rankdata`, the Mann-Whitney rank-sum test and the Wilcoxon signed-rank test.

The distribution-free tests every protocol uses: the Speedup-Test's median protocol (seed 002:
one-sided Wilcoxon-Mann-Whitney), SPARC's signed-rank and equivalence tests and HPT's per-benchmark
rank-sum (seed 003). scipy's names, arguments and statistics; three differences, all documented
in docs/rank-tests.md:

- ``method="exact"`` is the exact null distribution, and with ties (or zeros ranked by
  ``pratt``/``zsplit``) the exact distribution *conditional on the observed tie pattern*; scipy
  uses the untied distribution there. Small tails are summed, never taken as 1 − cdf.
- ``method="auto"`` is exact whenever that is cheap (`AUTO_EXACT_MAX_COST`), else the normal
  approximation with the tie and continuity corrections.
- samples are batched along `axis` (default -1) and ragged groups of a measurement table are
  tested in one call, one row per benchmark.

The statistics come from merge-walks over sorted samples (`fastperf.kernels.ranks`), the exact
distributions from `fastperf.kernels.rank_distributions`, the Hodges-Lehmann effects from
`fastperf.kernels.hodges_lehmann`.
"""
from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from fastperf.data.arrays import Samples, check_alternative, one_sample, paired_samples, shaped, two_samples
from fastperf.errors import InputError
from fastperf.results.base import BenchmarkResult, TestResult, benchmark_result, dropped_warnings, keyed_table
from fastperf.io.tables import is_measurement_table
from fastperf.engine.intervals import _check_confidence

__all__ = [
    "rankdata", "mannwhitneyu", "wilcoxon", "RankData", "MannWhitneyUResult", "WilcoxonResult",
    "AUTO_EXACT_MAX_COST", "AUTO_EXACT_MAX_TIED_COST",
]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
RankData = namedtuple("RankData", ["ranks", "tie_term"])
RankData.__doc__ = """`rankdata(..., return_ties=True)`: the midranks, and Σ (t³ − t) over the tie
blocks of each sample (the tie correction of the rank tests' variances)."""

#: ``method="auto"`` computes an exact p-value for untied samples when the null distribution
#: costs at most this many steps: min(m, n)²·max(m, n)/2 for the rank-sum, n³/4 for the
#: signed-rank (about 25 ms; computed once per sample size and cached, so a batch pays it once).
AUTO_EXACT_MAX_COST = 50_000_000
#: With ties (or ranked zeros) the conditional distribution is computed for each sample, so
#: ``"auto"`` bounds it per sample: the work `tie_tail_costs` estimates from the tie blocks is
#: at most this (about a millisecond: 30 vs 30 or 50 vs 50 with ties, signed-rank n <= ~300).
AUTO_EXACT_MAX_TIED_COST = 2_000_000

_NAN_POLICIES = ("propagate", "omit", "raise")
_METHODS = ("auto", "exact", "asymptotic")
_ZERO_METHODS = {"wilcox": 0, "pratt": 1, "zsplit": 2}


def _check_choice(value: str, name: str, choices) -> str:
    if value not in choices:
        raise InputError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------
# sorting and NaN


def _sorted(samples: Samples) -> Samples:
    """Each sample sorted ascending, NaN last: numpy's sort for a rectangular batch (and so for
    a single big sample), the `sort_segments` kernel for ragged ones."""
    sizes = samples.sizes
    if len(samples) == 0:
        return samples
    if (sizes == sizes[0]).all():
        values = np.sort(samples.values.reshape(len(samples), int(sizes[0])), axis=1).reshape(-1)
        return Samples(values, samples.offsets)
    from fastperf.kernels.ranks import sort_segments

    return Samples(sort_segments(samples.values, samples.offsets, n_rows=samples.values.shape[0]),
                   samples.offsets)


def _work(samples: Samples) -> int:
    """The `n_rows` a group kernel gets: its rows, or 0 (serial) for a single sample."""
    return samples.values.shape[0] if len(samples) > 1 else 0


def _compact(sorted_samples: Samples, keep: np.ndarray) -> Samples:
    """The sorted samples with only the values where `keep` (their order kept)."""
    kept_before = np.zeros(keep.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    return Samples(sorted_samples.values[keep], kept_before[sorted_samples.offsets])


def _nan_status(n_nan: np.ndarray, nan_policy: str) -> np.ndarray:
    """Which samples are NaN by the policy ("propagate"); "raise" raises here."""
    if nan_policy == "raise" and n_nan.any():
        raise InputError("the input contains NaN (nan_policy='raise'); use nan_policy='omit' to "
                         "drop NaN values or 'propagate' to get NaN results")
    return (n_nan > 0) if nan_policy == "propagate" else np.zeros(n_nan.shape, dtype=bool)


class _TieBlocks:
    """The tie blocks of chosen samples (`tie_blocks`), listed once and shared by ``auto``'s
    cost estimate and the exact tails that follow it."""

    def __init__(self, xs: Samples, m, ys: Samples, n, zero_method: int):
        self._args = (xs.values, xs.offsets, m, ys.values, ys.offsets, n)
        self._zero_method = zero_method
        self._groups = None
        self._blocks = None

    def of(self, groups: np.ndarray):
        """``(scores, counts, block_offsets)`` of the samples `groups` (ascending indices)."""
        from fastperf.kernels.grouping import take_segments
        from fastperf.kernels.ranks import tie_blocks

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


# ---------------------------------------------------------------------------------------------
# rankdata


def rankdata(a: Any, *, axis: int | None = -1, nan_policy: str = "propagate",
             return_ties: bool = False):
    """Average ranks (midranks) of the values along `axis`, batched over the other axes.

    Tied values share the mean of the ranks they span (scipy's ``method="average"``). With
    ``return_ties=True`` also returns Σ (t³ − t) over each sample's tie blocks (t the block
    sizes), the term the rank tests' variances subtract. ``axis=None`` ranks the flattened array.

    nan_policy : "propagate" (a sample with NaN gets NaN ranks, as scipy), "omit" (NaN get rank
        NaN, the other values are ranked among themselves), "raise".

    Returns
    -------
    float64 array shaped like `a`, or `RankData` ``(ranks, tie_term)`` with ``return_ties``.
    """
    from fastperf.kernels.ranks import midranks

    _check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    if axis is None:
        a = np.asarray(a, dtype=np.float64).reshape(-1)
        axis = -1
    samples, batch_shape = one_sample(a, axis, "a")
    ranks, tie_term, n_nan = midranks(samples.values, samples.offsets, n_rows=_work(samples))
    nan_samples = _nan_status(n_nan, nan_policy)
    if nan_samples.any():
        sizes = samples.sizes
        ranks[np.repeat(nan_samples, sizes)] = np.nan
        tie_term[nan_samples] = np.nan
    arr = np.moveaxis(np.asarray(a, dtype=np.float64), axis, -1)
    ranks = np.moveaxis(ranks.reshape(batch_shape + arr.shape[-1:]), -1, axis)
    if return_ties:
        return RankData(ranks, shaped(tie_term, batch_shape))
    return ranks


# ---------------------------------------------------------------------------------------------
# exact null distributions (cached by sample size) and tails


@functools.lru_cache(maxsize=256)
def _rank_sum_cdf(m: int, n: int) -> np.ndarray:
    """P(U <= u) for u = 0..floor(mn/2), untied rank-sum (sizes ordered: symmetric in m, n)."""
    from fastperf.kernels.rank_distributions import rank_sum_null_pmf

    cdf = np.cumsum(rank_sum_null_pmf(m, n))  # small tails summed directly, from 0 up
    cdf.flags.writeable = False
    return cdf


@functools.lru_cache(maxsize=256)
def _signed_rank_cdf(n: int) -> np.ndarray:
    """P(T+ <= t) for t = 0..floor(n(n+1)/4), untied signed-rank without zeros."""
    from fastperf.kernels.rank_distributions import signed_rank_null_pmf

    cdf = np.cumsum(signed_rank_null_pmf(n))
    cdf.flags.writeable = False
    return cdf


def _symmetric_tails(cdf_half: np.ndarray, total: int, k: np.ndarray):
    """(P(K <= k), P(K >= k)) of an integer statistic symmetric on 0..total from its lower half.

    A tail below the centre is read from the summed lower half directly; only a tail of at
    least 1/2 is formed as 1 − (a lower-half sum)."""
    def below(v):  # P(K <= v)
        v = np.asarray(v, dtype=np.int64)
        low = cdf_half[np.clip(v, 0, cdf_half.shape[0] - 1)]
        high = 1.0 - cdf_half[np.clip(total - v - 1, 0, cdf_half.shape[0] - 1)]
        out = np.where(2 * v <= total, low, high)
        return np.where(v < 0, 0.0, np.where(v >= total, 1.0, out))

    return below(k), below(total - k)


def _symmetric_quantile(cdf_half: np.ndarray, total: int, p: float) -> int:
    """The smallest k with P(K <= k) >= p (R's ``qwilcox`` / ``qsignrank``), K symmetric."""
    if p <= 0.5:
        return int(np.searchsorted(cdf_half, p * (1 - 1e-12)))
    # P(K <= k) = 1 - P(K <= total - k - 1): the smallest k with P(K <= total-k-1) <= 1 - p
    j = int(np.searchsorted(cdf_half, (1 - p) * (1 + 1e-12), side="right"))  # first cdf > 1-p
    return total - j


def _first_reason(conditions, reasons, default: str) -> np.ndarray:
    """Per test, the reason of the first condition that holds, else `default` (string arrays
    built by one lookup: ``np.where`` on strings is slow on big batches)."""
    code = np.zeros(conditions[0].shape, dtype=np.int8)
    for k in range(len(conditions) - 1, -1, -1):
        code[conditions[k]] = k + 1
    return np.array([default, *reasons])[code]


def _methods_used(valid, exact, conditional) -> np.ndarray:
    """"exact", "exact (ties)" (conditional on ties), "asymptotic", or "none" per test."""
    return _first_reason([~valid, exact & conditional, exact],
                         ["none", "exact (ties)", "exact"], "asymptotic")


def _two_sided(lower, upper):
    return np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def _pick(lower, upper, alternative: str):
    if alternative == "less":
        return lower
    if alternative == "greater":
        return upper
    return _two_sided(lower, upper)


def _normal_p(z, alternative: str):
    """p of a standard normal z for the alternative (each tail computed directly)."""
    from scipy.special import ndtr

    if alternative == "less":
        return ndtr(z)
    if alternative == "greater":
        return ndtr(-z)
    return np.minimum(1.0, 2.0 * ndtr(-np.abs(z)))


# ---------------------------------------------------------------------------------------------
# Mann-Whitney U


class _EffectState:
    """What a result keeps for its Hodges-Lehmann effect: which tests are valid, which were
    exact and untied, and the tie term. Subclasses say how many ordered values M each test has
    (m·n differences or n(n+1)/2 Walsh averages), σ of the statistic, the exact quantile per
    sample size, and how to select order statistics of those values."""

    def __init__(self, tie_term, exact_untied, valid):
        self.tie_term, self.exact_untied, self.valid = tie_term, exact_untied, valid

    def effects(self, alternative: str, confidence: float | None = None):
        """The estimate (median of the M values) and, with `confidence`, the interval
        [V_(k), V_(M+1−k)] (`_interval_ranks`), from one selection of all the ranks."""
        total = self.total()
        lo, hi = (total + 1) // 2, total // 2 + 1  # the lower and upper middle
        columns = [lo, hi]
        if confidence is not None:
            k = _interval_ranks(total, self.exact_untied, self.size_keys(), self.quantile,
                                self.sigma(), alternative, confidence)
            columns += [k, total + 1 - k]
        ranks = np.stack(columns, axis=1).astype(np.int64)
        ranks[~self.valid] = 0
        values = self.select(ranks)
        estimate = (values[:, 0] + values[:, 1]) / 2.0
        if confidence is None:
            return estimate, None, None
        low = np.full(total.shape, -np.inf) if alternative == "less" else values[:, 2]
        high = np.full(total.shape, np.inf) if alternative == "greater" else values[:, 3]
        return estimate, np.where(self.valid, low, np.nan), np.where(self.valid, high, np.nan)


class _RankSumState(_EffectState):
    """The rank-sum's effect: order statistics of the m·n differences x_i − y_j."""

    def __init__(self, xs: Samples, ys: Samples, m, n, tie_term, exact_untied, valid):
        super().__init__(tie_term, exact_untied, valid)
        self.xs, self.ys, self.m, self.n = xs, ys, m, n

    def total(self):
        return (self.m * self.n).astype(np.int64)

    def sigma(self):
        return _rank_sum_sigma(self.m, self.n, self.tie_term)

    def size_keys(self):
        return np.stack([np.minimum(self.m, self.n), np.maximum(self.m, self.n)], axis=1)

    @staticmethod
    def quantile(size, level):
        return _symmetric_quantile(_rank_sum_cdf(*size), size[0] * size[1], level)

    def select(self, ranks):
        from fastperf.kernels.hodges_lehmann import difference_order_statistics

        xs, ys = self.xs, self.ys  # NaN-free: compacted only when some value was NaN
        if (xs.sizes != self.m).any():
            xs = _compact(xs, ~np.isnan(xs.values))
        if (ys.sizes != self.n).any():
            ys = _compact(ys, ~np.isnan(ys.values))
        return difference_order_statistics(xs.values, xs.offsets, ys.values, ys.offsets, ranks,
                                           n_rows=_work(xs) + _work(ys))


class _EffectResult(TestResult):
    """A rank test's result with its Hodges-Lehmann effect: ``estimate`` (computed on first use)
    and `confidence_interval`, both from the test's `_EffectState` (one kernel call)."""

    def __init__(self, statistic, pvalue, status, *, alternative, state, batch_shape, **fields):
        super().__init__(statistic, pvalue, status, **fields)
        self._alternative, self._state, self._batch_shape = alternative, state, batch_shape
        self._estimate = None

    @property
    def estimate(self):
        """The Hodges-Lehmann estimate (Hodges & Lehmann 1963): see the class docstring."""
        if self._estimate is None:
            self._estimate = self._state.effects(self._alternative)[0]
        return shaped(self._estimate, self._batch_shape)

    def confidence_interval(self, confidence: float = 0.95) -> ConfidenceInterval:
        """Distribution-free interval of the estimate, matching the test's alternative.

        [V_(k), V_(M+1−k)] of the M sorted differences or Walsh averages V (Lehmann 1975, §2.6
        and §3.2; R's ``wilcox.test(conf.int=TRUE)``): k = the smallest value v with
        P(statistic <= v) >= α/2 (α for a one-sided interval), at least 1, from the exact null
        distribution for untied samples tested exactly, else from the tie-corrected normal
        approximation: k = floor(M/2 + 1/2 − z σ).
        """
        self._estimate, low, high = self._state.effects(self._alternative,
                                                        _check_confidence(confidence))
        return ConfidenceInterval(shaped(low, self._batch_shape), shaped(high, self._batch_shape))


class MannWhitneyUResult(_EffectResult):
    """Result of `mannwhitneyu`: ``statistic`` (U of x, as scipy), ``pvalue``, ``status``,
    ``method`` (per test: "exact", "exact (ties)" for the conditional distribution,
    "asymptotic"), ``zstatistic`` (the normal deviate, NaN where not used).

    ``estimate`` is the Hodges-Lehmann shift, the median of the m·n differences x_i − y_j, and
    `confidence_interval` its distribution-free interval [D_(k), D_(mn+1−k)] (computed on first
    use)."""

    def __init__(self, statistic, pvalue, status, *, method, zstatistic, alternative, state,
                 batch_shape):
        super().__init__(statistic, pvalue, status, alternative=alternative, state=state,
                         batch_shape=batch_shape, method=method, zstatistic=zstatistic)


def _rank_sum_sigma(m, n, tie_term):
    """σ of U with the tie correction: sqrt(mn/12 ((N+1) − Σ(t³−t)/(N(N−1))))."""
    big_n = (m + n).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(m * n / 12.0 * ((big_n + 1) - tie_term / (big_n * (big_n - 1))))


def _exact_rank_sum(m, n, u2, tied, chosen, blocks: _TieBlocks):
    """Exact (lower, upper) tails of U for the `chosen` tests: cached untied distributions per
    size pair, the conditional distribution given the tie blocks for tied samples."""
    lower = np.full(m.shape, np.nan)
    upper = np.full(m.shape, np.nan)
    untied = chosen & ~tied
    if untied.any():
        pairs = np.stack([np.minimum(m, n), np.maximum(m, n)], axis=1)[untied]
        where = np.flatnonzero(untied)
        distinct, inverse = np.unique(pairs, axis=0, return_inverse=True)
        for k, (a, b) in enumerate(distinct):  # one distribution per distinct size pair
            sel = where[inverse.reshape(-1) == k]
            lower[sel], upper[sel] = _symmetric_tails(_rank_sum_cdf(int(a), int(b)), int(a * b),
                                                      u2[sel] // 2)
    tied_chosen = np.flatnonzero(chosen & tied)
    if tied_chosen.size:
        from fastperf.kernels.rank_distributions import rank_sum_tie_tails

        scores, counts, block_offsets = blocks.of(tied_chosen)
        mc = m[tied_chosen]
        observed = u2[tied_chosen] + mc * (mc + 1)  # 2 × the rank sum of x
        lo, up = rank_sum_tie_tails(scores, counts, block_offsets, mc, observed,
                                    n_rows=int(counts.sum()))
        lower[tied_chosen], upper[tied_chosen] = lo, up
    return lower, upper


def _auto_exact_rank_sum(m, n, tied, candidates, blocks: _TieBlocks):
    """Which tests ``method="auto"`` computes exactly (see `AUTO_EXACT_MAX_COST`)."""
    small, large = np.minimum(m, n).astype(float), np.maximum(m, n).astype(float)
    exact = candidates & ~tied & (small * small * large / 2 <= AUTO_EXACT_MAX_COST)
    tied_candidates = np.flatnonzero(candidates & tied)
    if tied_candidates.size:
        from fastperf.kernels.rank_distributions import tie_tail_costs

        _, counts, block_offsets = blocks.of(tied_candidates)
        cost = tie_tail_costs(counts, block_offsets, m[tied_candidates])
        exact[tied_candidates[cost <= AUTO_EXACT_MAX_TIED_COST]] = True
    return exact


def _rank_sum_test(xs: Samples, ys: Samples, alternative: str, method: str, use_continuity: bool,
                   nan_policy: str):
    """The rank-sum test of each pair of samples: arrays of U, p, status, method, z, state."""
    from fastperf.kernels.ranks import RANK_SUM, rank_sum_statistics

    xs, ys = _sorted(xs), _sorted(ys)
    m, n, u2, tie_term, tied = rank_sum_statistics(xs.values, xs.offsets, ys.values, ys.offsets,
                                                   n_rows=_work(xs) + _work(ys))
    nan_tests = _nan_status((xs.sizes - m) + (ys.sizes - n), nan_policy)
    empty = (m == 0) | (n == 0)
    valid = ~nan_tests & ~empty
    u1 = u2 / 2.0
    blocks = _TieBlocks(xs, m, ys, n, RANK_SUM)
    if method == "exact":
        exact = valid.copy()
    elif method == "asymptotic":
        exact = np.zeros_like(valid)
    else:
        exact = _auto_exact_rank_sum(m, n, tied, valid, blocks)
    asymptotic = valid & ~exact
    mn = (m * n).astype(float)
    u = {"greater": u1, "less": mn - u1}.get(alternative, np.maximum(u1, mn - u1))
    sigma = _rank_sum_sigma(m, n, tie_term)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - mn / 2 - (0.5 if use_continuity else 0.0)) / sigma
    from scipy.special import ndtr

    factor = 2.0 if alternative == "two-sided" else 1.0
    p = np.clip(ndtr(-z) * factor, 0.0, 1.0)  # scipy's formula
    if exact.any():
        lower, upper = _exact_rank_sum(m, n, u2, tied, exact, blocks)
        p = np.where(exact, _pick(lower, upper, alternative), p)
    status = _first_reason([nan_tests, empty], ["NaN in input", "empty sample"], "ok")
    method_used = _methods_used(valid, exact, tied)
    statistic = np.where(valid, u1, np.nan)
    p = np.where(valid, p, np.nan)
    z = np.where(asymptotic, z, np.nan)
    state = _RankSumState(xs, ys, m, n, tie_term, exact & ~tied, valid)
    return statistic, p, status, method_used, z, state


def _interval_ranks(total, exact, size_keys, quantile, sigma, alternative: str, confidence: float):
    """k of the interval [V_(k), V_(total+1−k)] per test: from the exact null distribution where
    `exact` (``quantile(size_key, level)``, once per distinct size), else normal."""
    from scipy.special import ndtri

    alpha = 1.0 - confidence
    level = alpha / 2 if alternative == "two-sided" else alpha
    with np.errstate(invalid="ignore"):
        k_normal = np.floor(total / 2.0 + 0.5 - ndtri(1.0 - level) * sigma)
    k = np.where(np.isfinite(k_normal), k_normal, 1).astype(np.int64)
    if exact.any():
        distinct, inverse = np.unique(size_keys[exact], axis=0, return_inverse=True)
        per_size = np.array([quantile(tuple(int(v) for v in key), level) for key in distinct])
        k[exact] = per_size[inverse.reshape(-1)]
    return np.clip(k, 1, np.maximum(total, 1))


def mannwhitneyu(
    x: Any,
    y: Any = None,
    *,
    alternative: str = "two-sided",
    method: str = "auto",
    use_continuity: bool = True,
    axis: int = -1,
    nan_policy: str = "propagate",
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    log: bool = False,
    confidence: float = 0.95,
):
    """The Mann-Whitney U (Wilcoxon rank-sum) test of two independent samples.

    U = Σ_i Σ_j ([x_i > y_j] + ½[x_i = y_j]) = R_x − m(m+1)/2, R_x the sum of x's midranks in
    the pooled sample (scipy's U of x). "greater": x tends to be larger than y.

    p-values. ``"exact"``: the null distribution of U (Löffler's 1983 recurrence for its
    generating function, cached per size pair) when no value is tied; with ties, the exact distribution conditional
    on the tie blocks (sum of the doubled midranks of a random m-subset). The two-sided p is
    min(1, 2 × the smaller one-sided p). ``"asymptotic"``: normal with σ² = mn/12 ((N+1) −
    Σ(t³−t)/(N(N−1))) and, with `use_continuity`, the ½ continuity correction (scipy's formula).
    ``"auto"``: exact when cheap (`AUTO_EXACT_MAX_COST`: any untied pair up to about 460 vs 460;
    `AUTO_EXACT_MAX_TIED_COST` with ties: about 50 vs 50), else asymptotic. ``.method`` says per test which was used.

    Parameters
    ----------
    x, y : array_like
        Samples along `axis`, batched over (and broadcast along) the other axes. **Table
        form**: `x` a measurement table (or path), `y` omitted, and `baseline` / `candidate`
        naming two variants: one test per benchmark with x = baseline, y = candidate
        (null/NaN dropped and counted).
    alternative : {"two-sided", "less", "greater"}
    method : {"auto", "exact", "asymptotic"}
    use_continuity : bool
    axis : int
    nan_policy : {"propagate", "omit", "raise"}
        Array form: a test whose samples hold NaN gets NaN ("propagate", status "NaN in
        input"), drops them ("omit"), or raises.
    baseline, candidate, by, variant, value : table form only.
    log : bool
        Table form: test log(values) (they must be positive); the effect is then the ratio
        baseline / candidate (exp of the Hodges-Lehmann shift of the logs): the speedup for
        times.
    confidence : float
        Table form: level of the ``ci_low`` / ``ci_high`` columns.

    Returns
    -------
    MannWhitneyUResult (arrays; ``estimate`` and ``confidence_interval()`` give the
    Hodges-Lehmann shift) or BenchmarkResult (table form; ``.benchmarks`` has one row per
    benchmark: sizes, ``statistic`` (U of the baseline), ``pvalue``, ``method``,
    ``prob_greater`` = U/(mn) = P(X > Y) + ½ P(X = Y), ``shift`` or ``ratio`` with
    ``ci_low`` / ``ci_high``, ``status``).
    """
    alternative = check_alternative(alternative)
    _check_choice(method, "method", _METHODS)
    _check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    if y is None:
        return _rank_sum_table(x, baseline=baseline, candidate=candidate, by=by, variant=variant,
                               value=value, alternative=alternative, method=method,
                               use_continuity=use_continuity, log=log, confidence=confidence)
    xs, ys, batch_shape = two_samples(x, y, axis)
    statistic, p, status, method_used, z, state = _rank_sum_test(
        xs, ys, alternative, method, use_continuity, nan_policy)
    return MannWhitneyUResult(
        shaped(statistic, batch_shape), shaped(p, batch_shape), shaped(status, batch_shape),
        method=shaped(method_used, batch_shape), zstatistic=shaped(z, batch_shape),
        alternative=alternative, state=state, batch_shape=batch_shape)


# ---------------------------------------------------------------------------------------------
# Wilcoxon signed-rank


class _SignedRankState(_EffectState):
    """The signed-rank's effect: order statistics of the Walsh averages of the differences the
    test ranks (NaN dropped, zeros too under "wilcox")."""

    def __init__(self, ds: Samples, zero_method: int, tie_term, exact_untied, valid):
        super().__init__(tie_term, exact_untied, valid)
        keep = ~np.isnan(ds.values)
        if zero_method == 0:
            keep &= ds.values != 0.0
        self._ds, self._keep = ds, keep
        kept_before = np.zeros(keep.shape[0] + 1, dtype=np.int64)
        np.cumsum(keep, out=kept_before[1:])
        self.n = np.diff(kept_before[ds.offsets])

    def total(self):
        return self.n * (self.n + 1) // 2

    def sigma(self):
        return _signed_rank_moments(self.n, 0, self.tie_term, "wilcox")[1]

    def size_keys(self):
        return self.n[:, None]

    @staticmethod
    def quantile(size, level):
        return _symmetric_quantile(_signed_rank_cdf(size[0]), size[0] * (size[0] + 1) // 2, level)

    def select(self, ranks):
        from fastperf.kernels.hodges_lehmann import walsh_order_statistics

        ws = self._ds if self._keep.all() else _compact(self._ds, self._keep)
        return walsh_order_statistics(ws.values, ws.offsets, ranks, n_rows=_work(ws))


class WilcoxonResult(_EffectResult):
    """Result of `wilcoxon`: ``statistic`` (as scipy: min(T+, T−) two-sided, else T+),
    ``pvalue``, ``status``, ``method`` per test ("exact", "exact (ties)", "asymptotic"),
    ``zstatistic`` (normal deviate where used), ``n_zero``.

    ``estimate`` is the pseudo-median (Hodges-Lehmann one-sample estimate: the median of the
    Walsh averages (d_i + d_j)/2, i <= j, of the differences the test ranks) and
    `confidence_interval` its distribution-free interval [W_(k), W_(M+1−k)], M = n(n+1)/2
    (Tukey)."""

    def __init__(self, statistic, pvalue, status, *, method, zstatistic, n_zero, alternative, state,
                 batch_shape):
        super().__init__(statistic, pvalue, status, alternative=alternative, state=state,
                         batch_shape=batch_shape, method=method, zstatistic=zstatistic,
                         n_zero=n_zero)


def _signed_rank_moments(count, n_zero, tie_term, zero_method: str):
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


def _exact_signed_rank(count, plus2, standard, chosen, blocks: _TieBlocks):
    """Exact (lower, upper) tails of 2T+ (the nonzero part) for the `chosen` tests: cached
    distributions per sample size for `standard` ones (no ties, no ranked zeros), else the
    distribution conditional on the tie blocks and zeros."""
    lower = np.full(count.shape, np.nan)
    upper = np.full(count.shape, np.nan)
    where = np.flatnonzero(chosen & standard)
    for size in np.unique(count[where]):  # one distribution per distinct sample size
        sel = where[count[where] == size]
        total = int(size * (size + 1) // 2)
        lower[sel], upper[sel] = _symmetric_tails(_signed_rank_cdf(int(size)), total,
                                                  plus2[sel] // 2)
    conditional = np.flatnonzero(chosen & ~standard)
    if conditional.size:
        from fastperf.kernels.rank_distributions import signed_rank_tie_tails

        scores, counts, block_offsets = blocks.of(conditional)
        lo, up = signed_rank_tie_tails(scores, counts, block_offsets, plus2[conditional],
                                       n_rows=int(counts.sum()))
        lower[conditional], upper[conditional] = lo, up
    return lower, upper


def _auto_exact_signed_rank(count, standard, candidates, blocks: _TieBlocks):
    """Which tests ``method="auto"`` computes exactly (see `AUTO_EXACT_MAX_COST`)."""
    exact = candidates & standard & (count.astype(float) ** 3 / 4 <= AUTO_EXACT_MAX_COST)
    others = np.flatnonzero(candidates & ~standard)
    if others.size:
        from fastperf.kernels.rank_distributions import tie_tail_costs

        _, counts, block_offsets = blocks.of(others)
        cost = tie_tail_costs(counts, block_offsets, np.full(others.size, -1, dtype=np.int64))
        exact[others[cost <= AUTO_EXACT_MAX_TIED_COST]] = True
    return exact


def _signed_rank_test(ds: Samples, alternative: str, method: str, zero_method: str,
                      correction: bool, nan_policy: str):
    """The signed-rank test of each sample of differences."""
    from fastperf.kernels.ranks import signed_rank_statistics

    zero_code = _ZERO_METHODS[zero_method]
    ds = _sorted(ds)
    count, n_zero, plus2, minus2, zero2, tie_term, tied, n_nan = signed_rank_statistics(
        ds.values, ds.offsets, zero_code, n_rows=_work(ds))
    valid_len = ds.sizes - n_nan
    nan_tests = _nan_status(n_nan, nan_policy)
    nonzero = count - (n_zero if zero_code != 0 else 0)
    empty = nonzero == 0
    valid = ~nan_tests & ~empty
    standard = ~tied & ((n_zero == 0) | (zero_code == 0))  # the untied null distribution holds
    blocks = _TieBlocks(ds, valid_len, ds, valid_len, zero_code)
    if method == "exact":
        exact = valid.copy()
    elif method == "asymptotic":
        exact = np.zeros_like(valid)
    else:
        exact = _auto_exact_signed_rank(count, standard, valid, blocks)

    half_zero = zero2 / 4.0 if zero_method == "zsplit" else 0.0  # zsplit: half the zeros' ranks
    r_plus = plus2 / 2.0 + half_zero
    r_minus = minus2 / 2.0 + half_zero
    mean, sigma = _signed_rank_moments(count, n_zero, tie_term, zero_method)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / sigma
        if correction:
            sign = {"greater": 1.0, "less": -1.0}.get(alternative, np.sign(z))
            z = z - sign * 0.5 / sigma
    asymptotic = valid & ~exact
    p = _normal_p(z, alternative)
    if exact.any():
        lower, upper = _exact_signed_rank(count, plus2, standard, exact, blocks)
        p = np.where(exact, _pick(lower, upper, alternative), p)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    status = _first_reason([nan_tests, empty], ["NaN in input", "no nonzero differences"], "ok")
    method_used = _methods_used(valid, exact, ~standard)
    if alternative == "two-sided":
        z = -np.abs(z)
    state = _SignedRankState(ds, zero_code, tie_term, exact & standard, valid)
    return (np.where(valid, statistic, np.nan), np.where(valid, p, np.nan), status, method_used,
            np.where(asymptotic, z, np.nan), n_zero, np.where(valid, r_plus, np.nan), state)


def wilcoxon(
    x: Any,
    y: Any = None,
    *,
    alternative: str = "two-sided",
    method: str = "auto",
    zero_method: str = "wilcox",
    correction: bool = False,
    axis: int = -1,
    nan_policy: str = "propagate",
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    run: str = "run",
    log: bool = False,
    confidence: float = 0.95,
):
    """The Wilcoxon signed-rank test of one sample, or of paired differences d = x − y.

    T+ = Σ_{d_i > 0} r_i, r_i the midrank of |d_i| (scipy's statistic: min(T+, T−) two-sided,
    T+ one-sided). Zeros: ``"wilcox"`` drops them, ``"pratt"`` ranks them and drops their ranks,
    ``"zsplit"`` ranks them and gives half of their ranks to each side (scipy's three rules).
    "greater": d tends to be positive (x > y).

    p-values. ``"exact"``: the null distribution of T+ (the count recursion, cached per n)
    without ties or ranked zeros; otherwise the exact distribution conditional on the tie
    blocks and zeros (each nonzero |d| block's doubled midrank with a random sign). Two-sided p =
    min(1, 2 × the smaller one-sided p). ``"asymptotic"``: scipy's normal approximation (tie
    correction, Cureton's zero adjustment under ``"pratt"``, continuity with `correction`).
    ``"auto"``: exact when cheap (`AUTO_EXACT_MAX_COST`), else asymptotic.

    Parameters
    ----------
    x, y : array_like
        Differences (y omitted) or paired samples, along `axis`, batched over the other axes;
        x and y must have the same length along `axis`. **Table form**: `x` a measurement
        table, `y` omitted, with `baseline` / `candidate`: per benchmark, measurements of the two
        variants with the same `run` value are paired, d = baseline − candidate (runs on one
        side only, null pairs and repeated runs are dropped and counted).
    alternative, method, zero_method, correction, axis, nan_policy : as scipy.
    baseline, candidate, by, variant, value, run : table form only.
    log : bool
        Table form: d = log(baseline) − log(candidate) (values must be positive); the effect is
        the ratio baseline / candidate (exp of the pseudo-median): the speedup for times.
    confidence : float
        Table form: level of ``ci_low`` / ``ci_high``.

    Returns
    -------
    WilcoxonResult (arrays) or BenchmarkResult (table form; per benchmark ``n``, ``n_zero``,
    the pairing counts, ``statistic`` (T+), ``pvalue``, ``method``, ``shift`` or ``ratio`` with
    ``ci_low`` / ``ci_high``, ``status``).
    """
    alternative = check_alternative(alternative)
    _check_choice(method, "method", _METHODS)
    _check_choice(zero_method, "zero_method", tuple(_ZERO_METHODS))
    _check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    if y is None and is_measurement_table(x):
        return _signed_rank_table(x, baseline=baseline, candidate=candidate, by=by,
                                  variant=variant, value=value, run=run, alternative=alternative,
                                  method=method, zero_method=zero_method, correction=correction,
                                  log=log, confidence=confidence)
    if y is None:
        ds, batch_shape = one_sample(x, axis, "x")
    else:
        xs, ys, batch_shape = paired_samples(x, y, axis)
        ds = Samples(xs.values - ys.values, xs.offsets)
    statistic, p, status, method_used, z, n_zero, _, state = _signed_rank_test(
        ds, alternative, method, zero_method, correction, nan_policy)
    return WilcoxonResult(
        shaped(statistic, batch_shape), shaped(p, batch_shape), shaped(status, batch_shape),
        method=shaped(method_used, batch_shape), zstatistic=shaped(z, batch_shape),
        n_zero=shaped(n_zero, batch_shape), alternative=alternative, state=state,
        batch_shape=batch_shape)


# ---------------------------------------------------------------------------------------------
# table forms


def _require_variants(test: str, baseline, candidate) -> None:
    if baseline is None or candidate is None:
        raise InputError(f"{test} on a measurement table needs baseline= and candidate= (variant names)")


def _log_values(samples: Samples, what: str) -> Samples:
    """log of positive values, for the ratio effect (an `InputError` otherwise)."""
    values = samples.values
    bad = values <= 0
    if bad.any():
        raise InputError(f"log=True needs positive values; the {what} holds {int(bad.sum())} "
                         f"value(s) <= 0 (e.g. {values[bad][0]!r})")
    return Samples(np.log(values), samples.offsets)


def _effect_columns(interval, estimate, log: bool) -> dict[str, np.ndarray]:
    """The effect columns; `interval` comes first so that one selection also sets `estimate`."""
    low, high = interval
    if log:
        return {"ratio": np.exp(estimate), "ci_low": np.exp(low), "ci_high": np.exp(high)}
    return {"shift": estimate, "ci_low": low, "ci_high": high}


def _summary(test, alternative, method, baseline, candidate, log, confidence):
    return {"test": test, "alternative": alternative, "method": method, "baseline": baseline,
            "candidate": candidate, "effect": "ratio" if log else "shift",
            "confidence": confidence}


def _rank_sum_table(data, *, baseline, candidate, by, variant, value, alternative, method,
                    use_continuity, log, confidence) -> BenchmarkResult:
    """`mannwhitneyu` per benchmark: x = the baseline's values, y = the candidate's."""
    from fastperf.data.samples import variant_samples

    if not is_measurement_table(data):
        raise InputError("mannwhitneyu: y is required unless x is a measurement table")
    _require_variants("mannwhitneyu", baseline, candidate)
    confidence = _check_confidence(confidence)
    vs = variant_samples(data, variants=[baseline, candidate], by=by, variant=variant, value=value)
    xs, ys = vs.samples[baseline], vs.samples[candidate]
    if log:
        xs, ys = _log_values(xs, f"baseline {baseline!r}"), _log_values(ys, f"candidate {candidate!r}")
    statistic, p, status, method_used, _, state = _rank_sum_test(
        xs, ys, alternative, method, use_continuity, "omit")
    status = np.where(xs.sizes == 0, "no baseline values",
                      np.where(ys.sizes == 0, "no candidate values", status))
    mn = (state.m * state.n).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob_greater = statistic / mn
    result = MannWhitneyUResult(statistic, p, status, method=method_used, zstatistic=None,
                                alternative=alternative, state=state, batch_shape=(len(xs),))
    table = keyed_table(vs.keys, {
        "n_baseline": state.m, "n_candidate": state.n,
        "n_dropped_baseline": vs.n_dropped[baseline], "n_dropped_candidate": vs.n_dropped[candidate],
        "statistic": statistic, "pvalue": p, "method": method_used, "prob_greater": prob_greater,
        **_effect_columns(result.confidence_interval(confidence), result.estimate, log),
        "status": status,
    })
    warnings = dropped_warnings(vs.n_dropped[baseline] + vs.n_dropped[candidate], "benchmark(s)",
                                "n_dropped_baseline / n_dropped_candidate")
    return benchmark_result(table, _summary("mannwhitneyu", alternative, method, baseline,
                                            candidate, log, confidence), warnings)


def _signed_rank_table(data, *, baseline, candidate, by, variant, value, run, alternative, method,
                       zero_method, correction, log, confidence) -> BenchmarkResult:
    """`wilcoxon` per benchmark on d = baseline − candidate, runs paired by `run`."""
    from fastperf.data.samples import paired_variant_samples

    _require_variants("wilcoxon", baseline, candidate)
    confidence = _check_confidence(confidence)
    pairs = paired_variant_samples(data, baseline=baseline, candidate=candidate, by=by,
                                   variant=variant, value=value, run=run)
    xs, ys = pairs.baseline, pairs.candidate
    if log:
        xs, ys = _log_values(xs, f"baseline {baseline!r}"), _log_values(ys, f"candidate {candidate!r}")
    ds = Samples(xs.values - ys.values, xs.offsets)
    _, p, status, method_used, _, n_zero, statistic, state = _signed_rank_test(
        ds, alternative, method, zero_method, correction, "omit")  # the table reports T+
    status = np.where(ds.sizes == 0, "no paired runs", status)
    result = WilcoxonResult(statistic, p, status, method=method_used, zstatistic=None,
                            n_zero=n_zero, alternative=alternative, state=state,
                            batch_shape=(len(ds),))
    table = keyed_table(pairs.keys, {
        "n": ds.sizes, "n_zero": n_zero, "n_unmatched": pairs.n_unmatched,
        "n_dropped": pairs.n_dropped, "n_duplicated": pairs.n_duplicated,
        "statistic": statistic, "pvalue": p, "method": method_used,
        **_effect_columns(result.confidence_interval(confidence), result.estimate, log),
        "status": status,
    })
    summary = _summary("wilcoxon", alternative, method, baseline, candidate, log, confidence)
    summary["zero_method"] = zero_method
    return benchmark_result(table, summary, pairs.duplicate_warnings())

