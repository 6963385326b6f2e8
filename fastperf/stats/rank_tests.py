"""Rank tests, batched: `rankdata`, the Mann-Whitney rank-sum test and the Wilcoxon signed-rank test.

The distribution-free tests every protocol uses: the Speedup-Test's median protocol (seed 002:
one-sided Wilcoxon-Mann-Whitney), SPARC's signed-rank and equivalence tests and HPT's per-benchmark
rank-sum (seed 003). scipy's names, arguments and statistics; three differences, all documented
in docs/rank-tests.md:

- ``method="exact"`` is the exact null distribution, and with ties (or zeros ranked by
  ``pratt``/``zsplit``) the exact distribution *conditional on the observed tie pattern*; scipy
  uses the untied distribution there. Small tails are summed, never taken as 1 − cdf. Its cost
  is estimated up front: beyond `EXACT_MAX_OPERATIONS` steps or the machine's memory it raises
  `InputError` before any work (`fastperf.engine.ranks.check_exact_budget`).
- ``method="auto"`` is exact whenever that is cheap (`AUTO_EXACT_MAX_COST`), else the normal
  approximation with the tie and continuity corrections.
- samples are batched along `axis` (default -1) and ragged groups of a measurement table are
  tested in one call, one row per benchmark.

The statistics come from merge-walks over sorted samples (`fastperf.kernels.ranks`), the exact
distributions from `fastperf.kernels.rank_null` and the tie-conditional kernels (`rank_sum_ties`, `signed_rank_ties`), the Hodges-Lehmann effects from
`fastperf.kernels.hodges_lehmann`.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from fastperf.data.validation import (
    check_alternative, check_choice, check_confidence, check_flag,
)
from fastperf.data.arrays import (
    Samples, as_float_array, one_sample, paired_samples, shaped, two_samples,
)
from fastperf.engine.parametric import INFINITE, segment_counts
from fastperf.engine.ranks import (
    AUTO_EXACT_MAX_COST, AUTO_EXACT_MAX_TIED_COST, ZERO_METHODS, kernel_rows, nan_status,
    rank_sum_test, signed_rank_test, sort_samples,
)
from fastperf.kernels.ranks import midranks
from fastperf.progress import check_progress
from fastperf.results.base import BenchmarkResult, ConfidenceInterval, TestResult
from fastperf.stats.forms import TableForm, check_y_given, is_table_call, paired_differences


__all__ = [
    "rankdata", "mannwhitneyu", "wilcoxon", "RankData", "MannWhitneyUResult", "WilcoxonResult",
    "AUTO_EXACT_MAX_COST", "AUTO_EXACT_MAX_TIED_COST",
]

RankData = namedtuple("RankData", ["ranks", "tie_term"])
RankData.__doc__ = """`rankdata(..., return_ties=True)`: the midranks, and Σ (t³ − t) over the tie
blocks of each sample (the tie correction of the rank tests' variances)."""


_NAN_POLICIES = ("propagate", "omit", "raise")
_METHODS = ("auto", "exact", "asymptotic")


# ---------------------------------------------------------------------------------------------
# sorting and NaN


# ---------------------------------------------------------------------------------------------
# rankdata


def rankdata(a: Any, *, axis: int | None = -1, nan_policy: str = "propagate",
             return_ties: bool = False) -> "np.ndarray | RankData":
    """Average ranks (midranks) of the values along `axis`, batched over the other axes.

    Tied values share the mean of the ranks they span (scipy's ``method="average"``). With
    ``return_ties=True`` also returns Σ (t³ − t) over each sample's tie blocks (t the block
    sizes), the term the rank tests' variances subtract. ``axis=None`` ranks the flattened array.

    Parameters
    ----------
    a : array_like
        The values; samples lie along `axis`.
    axis : int or None
        The axis of the samples; None ranks the flattened array.
    nan_policy : {"propagate", "omit", "raise"}
        "propagate": a sample with NaN gets NaN ranks (as scipy); "omit": NaN get rank NaN, the
        other values are ranked among themselves; "raise": an `InputError`.
    return_ties : bool
        Also return the tie term of each sample.

    Returns
    -------
    numpy.ndarray or RankData
        float64 midranks shaped like `a`, or `RankData` ``(ranks, tie_term)`` with
        ``return_ties``.

    Notes
    -----
    Midranks as in Kendall (1945) and scipy's ``rankdata(method="average")``; the tie term
    Σ (t³ − t) is the correction of the rank-sum and signed-rank variances (Lehmann 1975,
    §1.4 and §3.2).
    """
    check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    return_ties = check_flag(return_ties, "return_ties")
    # the one check of array input (`as_float_array`): None, strings, complex numbers, dates
    # are refused naming `a`; axis=None ranks the flattened values (a scalar is one value)
    a = as_float_array(a, "a", scalar=axis is None)
    if axis is None:
        a = a.reshape(-1)
        axis = -1
    samples, batch_shape = one_sample(a, axis, "a")
    ranks, tie_term, n_nan = midranks(samples.values, samples.offsets, n_rows=kernel_rows(samples))
    nan_samples = nan_status(n_nan, nan_policy)
    if nan_samples.any():
        sizes = samples.sizes
        ranks[np.repeat(nan_samples, sizes)] = np.nan
        tie_term[nan_samples] = np.nan
    arr = np.moveaxis(a, axis, -1)
    ranks = np.moveaxis(ranks.reshape(batch_shape + arr.shape[-1:]), -1, axis)
    if return_ties:
        return RankData(ranks, shaped(tie_term, batch_shape))
    return ranks


# ---------------------------------------------------------------------------------------------
# exact null distributions (cached by sample size) and tails


# ---------------------------------------------------------------------------------------------
# Mann-Whitney U


class _EffectResult(TestResult):
    """A rank test's result with its Hodges-Lehmann effect: ``estimate`` (computed on first use)
    and `confidence_interval`, both from the test's `EffectState` (one kernel call)."""

    def __init__(self, statistic, pvalue, status, *, alternative, state, batch_shape, scale=1.0,
                 **fields):
        super().__init__(statistic, pvalue, status, **fields)
        self._alternative, self._state, self._batch_shape = alternative, state, batch_shape
        self._scale = scale  # 2 for the tests of halved differences (`paired_differences`)
        self._estimate = None

    @property
    def estimate(self):
        """The Hodges-Lehmann estimate (Hodges & Lehmann 1963): see the class docstring."""
        if self._estimate is None:
            with np.errstate(over="ignore"):  # a doubled estimate beyond the range: inf
                self._estimate = self._state.effects(self._alternative)[0] * self._scale
        return shaped(self._estimate, self._batch_shape)

    def confidence_interval(self, confidence: float = 0.95) -> ConfidenceInterval:
        """Distribution-free interval of the estimate, matching the test's alternative.

        [V_(k), V_(M+1−k)] of the M sorted differences or Walsh averages V (Lehmann 1975, §2.6
        and §3.2; R's ``wilcox.test(conf.int=TRUE)``): k = the smallest value v with
        P(statistic <= v) >= α/2 (α for a one-sided interval), at least 1, from the exact null
        distribution for untied samples tested exactly, else from the tie-corrected normal
        approximation: k = floor(M/2 + 1/2 − z σ).
        """
        estimate, low, high = self._state.effects(self._alternative, check_confidence(confidence))
        with np.errstate(over="ignore"):  # doubled ends beyond the range: inf
            self._estimate = estimate * self._scale
            return ConfidenceInterval(shaped(low * self._scale, self._batch_shape),
                                      shaped(high * self._scale, self._batch_shape))


class MannWhitneyUResult(_EffectResult):
    """Result of `mannwhitneyu`: ``statistic`` (U of x, as scipy), ``pvalue``, ``status``,
    ``method`` (per test: "exact", "exact (ties)" for the conditional distribution,
    "asymptotic"), ``zstatistic`` (the normal deviate, NaN where not used).

    ``estimate`` is the Hodges-Lehmann shift, the median of the m·n differences x_i − y_j, and
    `confidence_interval` its distribution-free interval [D_(k), D_(mn+1−k)] (computed on first
    use)."""

    # set by TestResult.__init__ (numpy arrays shaped like the batch, numpy scalars for a single
    # test); declared for type checkers
    method: Any
    zstatistic: Any

    def __init__(self, statistic, pvalue, status, *, method, zstatistic, alternative, state,
                 batch_shape):
        super().__init__(statistic, pvalue, status, alternative=alternative, state=state,
                         batch_shape=batch_shape, method=method, zstatistic=zstatistic)


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
    progress: bool | None = None,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "MannWhitneyUResult | BenchmarkResult":
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
    An explicit ``"exact"`` whose distributions would take more than `EXACT_MAX_OPERATIONS`
    steps (about 3100 vs 3100 untied) or the machine's memory raises `InputError` up front.

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
        Checked in both forms (in (0, 1)); the array form's interval
        takes its level from ``confidence_interval(confidence)``.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`).
    progress : bool or None
        A progress bar on stderr over the exact distributions, with their estimated steps:
        None (default) when stderr is a terminal and they take at least 10⁹ steps
        (`fastperf.progress`); True: always; False: never.

    Returns
    -------
    MannWhitneyUResult (arrays; ``estimate`` and ``confidence_interval()`` give the
    Hodges-Lehmann shift) or BenchmarkResult (table form; ``.benchmarks`` has one row per
    benchmark: sizes, ``statistic`` (U of the baseline), ``pvalue``, ``method``,
    ``prob_greater`` = U/(mn) = P(X > Y) + ½ P(X = Y), ``shift`` or ``ratio`` with
    ``ci_low`` / ``ci_high``, ``status``).
    """
    alternative = check_alternative(alternative)
    check_choice(method, "method", _METHODS)
    check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    use_continuity, log = check_flag(use_continuity, "use_continuity"), check_flag(log, "log")
    confidence = check_confidence(confidence)  # both forms: a bad level is never ignored
    check_progress(progress)
    check_y_given(x, y, "mannwhitneyu")
    if is_table_call(x, y, "mannwhitneyu", axis=axis, nan_policy=nan_policy, baseline=baseline,
                     candidate=candidate, by=by, variant=variant, value=value, log=log,
                     confidence=confidence, levels=levels, block=block):
        return RANK_SUM_TABLE.run(
            x, baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
            log=log, levels=levels, block=block,
            summary={"alternative": alternative, "method": method,
                              "effect": "ratio" if log else "shift", "confidence": confidence},
            alternative=alternative, method=method, use_continuity=use_continuity,
            confidence=confidence, progress=progress)
    xs, ys, batch_shape = two_samples(x, y, axis)
    statistic, p, status, method_used, z, state = rank_sum_test(
        xs, ys, alternative, method, use_continuity, nan_policy, progress)
    return MannWhitneyUResult.from_batch(
        batch_shape, statistic, p, status, method=method_used, zstatistic=z,
        alternative=alternative, state=state, batch_shape=batch_shape)


# ---------------------------------------------------------------------------------------------
# Wilcoxon signed-rank


class WilcoxonResult(_EffectResult):
    """Result of `wilcoxon`: ``statistic`` (as scipy: min(T+, T−) two-sided, else T+),
    ``pvalue``, ``status``, ``method`` per test ("exact", "exact (ties)", "asymptotic"),
    ``zstatistic`` (normal deviate where used), ``n_zero``.

    ``estimate`` is the pseudo-median (Hodges-Lehmann one-sample estimate: the median of the
    Walsh averages (d_i + d_j)/2, i <= j, of the differences the test ranks) and
    `confidence_interval` its distribution-free interval [W_(k), W_(M+1−k)], M = n(n+1)/2
    (Tukey)."""

    # set by TestResult.__init__ (numpy arrays shaped like the batch, numpy scalars for a single
    # test); declared for type checkers
    method: Any
    zstatistic: Any
    n_zero: Any

    def __init__(self, statistic, pvalue, status, *, method, zstatistic, n_zero, alternative, state,
                 batch_shape, scale=1.0):
        super().__init__(statistic, pvalue, status, alternative=alternative, state=state,
                         batch_shape=batch_shape, scale=scale, method=method,
                         zstatistic=zstatistic, n_zero=n_zero)


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
    pair: str = "run",
    log: bool = False,
    confidence: float = 0.95,
    progress: bool | None = None,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "WilcoxonResult | BenchmarkResult":
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
    ``"auto"``: exact when cheap (`AUTO_EXACT_MAX_COST`), else asymptotic. An explicit
    ``"exact"`` beyond `EXACT_MAX_OPERATIONS` steps (about n = 7100 untied) or the machine's
    memory raises `InputError` up front.

    Parameters
    ----------
    x, y : array_like
        Differences (y omitted) or paired samples, along `axis`, batched over the other axes;
        x and y must have the same length along `axis`. **Table form**: `x` a measurement
        table, `y` omitted, with `baseline` / `candidate`: per benchmark, measurements of the two
        variants with the same `pair` value are paired, d = baseline − candidate (runs on one
        side only, null pairs and repeated runs are dropped and counted).
    alternative, method, zero_method, correction, axis, nan_policy : as scipy.
    baseline, candidate, by, variant, value, pair : table form only (`pair`: the column
        whose equal values pair a baseline run with a candidate run).
    log : bool
        Table form: d = log(baseline) − log(candidate) (values must be positive); the effect is
        the ratio baseline / candidate (exp of the pseudo-median): the speedup for times.
    confidence : float
        Table form: level of ``ci_low`` / ``ci_high``.
        Checked in both forms (in (0, 1)); the array form's interval
        takes its level from ``confidence_interval(confidence)``.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`);
        a paired test pairs them on the block (nested levels without a block are an error).
    progress : bool or None
        As `mannwhitneyu`: a bar over the exact distributions.

    Returns
    -------
    WilcoxonResult (arrays) or BenchmarkResult (table form; per benchmark ``n``, ``n_zero``,
    the pairing counts, ``statistic`` (T+), ``pvalue``, ``method``, ``shift`` or ``ratio`` with
    ``ci_low`` / ``ci_high``, ``status``).
    """
    alternative = check_alternative(alternative)
    check_choice(method, "method", _METHODS)
    check_choice(zero_method, "zero_method", tuple(ZERO_METHODS))
    check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    correction, log = check_flag(correction, "correction"), check_flag(log, "log")
    confidence = check_confidence(confidence)  # both forms: a bad level is never ignored
    check_progress(progress)
    if is_table_call(x, y, "wilcoxon", axis=axis, nan_policy=nan_policy, baseline=baseline,
                     candidate=candidate, by=by, variant=variant, value=value, pair=pair,
                     log=log, confidence=confidence, levels=levels, block=block):
        return SIGNED_RANK_TABLE.run(
            x, baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
            pair=pair, log=log, levels=levels, block=block,
            summary={"alternative": alternative, "method": method,
                     "effect": "ratio" if log else "shift", "confidence": confidence,
                     "zero_method": zero_method},
            alternative=alternative, method=method, zero_method=zero_method,
            correction=correction, confidence=confidence, progress=progress)
    if y is None:
        ds, batch_shape = one_sample(x, axis, "x")
    else:
        xs, ys, batch_shape = paired_samples(x, y, axis)
        ds, halved = paired_differences(xs, ys)  # halved where x - y overflows: same ranks
        ds = sort_samples(ds, in_place=True)  # the differences are ours: no copy to sort them
        scale = np.where(halved, 2.0, 1.0)
    statistic, p, status, method_used, z, n_zero, _, state = signed_rank_test(
        ds, alternative, method, zero_method, correction, nan_policy, progress)
    if y is not None and (status == "NaN in input").any():
        # x - y of two infinities of one sign is NaN: the input held infinities, not NaN
        status = np.where((status == "NaN in input") & _only_infinities(xs, ys),
                          INFINITE + " (x - y of two infinities)", status)
    return WilcoxonResult.from_batch(
        batch_shape, statistic, p, status, method=method_used, zstatistic=z, n_zero=n_zero,
        alternative=alternative, state=state, batch_shape=batch_shape,
        scale=1.0 if y is None else scale)


# ---------------------------------------------------------------------------------------------
# table forms


def _effect_columns(interval, estimate, log: bool, status: np.ndarray) -> dict[str, np.ndarray]:
    """The effect columns and the status; `interval` comes first so that one selection also
    sets `estimate`. A test whose estimate or interval end lies beyond the float64 range (finite
    values whose differences overflow) says so in its status."""
    low, high = interval
    with np.errstate(over="ignore"):
        columns = ({"ratio": np.exp(estimate), "ci_low": np.exp(low), "ci_high": np.exp(high)}
                   if log else {"shift": estimate, "ci_low": low, "ci_high": high})
    # one-sided intervals have an infinite end by construction: only the estimate and a
    # finite-by-construction end count
    beyond = np.isinf(estimate) | (np.isinf(low) & (low > 0)) | (np.isinf(high) & (high < 0))
    columns["status"] = np.where((status == "ok") & beyond,
                                 "Hodges-Lehmann estimate beyond the float64 range", status)
    return columns


def _only_infinities(xs: Samples, ys: Samples) -> np.ndarray:
    """Per pair of samples: an x and y both infinite at one position, and no NaN in either."""
    both = segment_counts(np.isinf(xs.values) & np.isinf(ys.values), xs.offsets)
    nan = segment_counts(np.isnan(xs.values) | np.isnan(ys.values), xs.offsets)
    return (both > 0) & (nan == 0)


def _rank_sum_columns(xs: Samples, ys: Samples, *, alternative, method, use_continuity, log,
                      confidence, progress=None):
    """`mannwhitneyu` per benchmark: x = the baseline's values, y = the candidate's."""
    statistic, p, status, method_used, _, state = rank_sum_test(
        xs, ys, alternative, method, use_continuity, "omit", progress)
    mn = (state.m * state.n).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob_greater = statistic / mn
    result = MannWhitneyUResult(statistic, p, status, method=method_used, zstatistic=None,
                                alternative=alternative, state=state, batch_shape=(len(xs),))
    return {"statistic": statistic, "pvalue": p, "method": method_used,
            "prob_greater": prob_greater,
            **_effect_columns(result.confidence_interval(confidence), result.estimate, log,
                              status)}, []


def _signed_rank_columns(xs: Samples, ys: Samples, *, alternative, method, zero_method,
                         correction, log, confidence, progress=None):
    """`wilcoxon` per benchmark on d = baseline − candidate of the paired runs."""
    ds, halved = paired_differences(xs, ys)  # halved where x - y overflows: same ranks
    ds = sort_samples(ds, in_place=True)  # the differences are ours: no copy to sort them
    _, p, status, method_used, _, n_zero, statistic, state = signed_rank_test(
        ds, alternative, method, zero_method, correction, "omit", progress)  # reports T+
    result = WilcoxonResult(statistic, p, status, method=method_used, zstatistic=None,
                            n_zero=n_zero, alternative=alternative, state=state,
                            batch_shape=(len(ds),), scale=np.where(halved, 2.0, 1.0))
    return {"n_zero": n_zero, "statistic": statistic, "pvalue": p, "method": method_used,
            **_effect_columns(result.confidence_interval(confidence), result.estimate, log,
                              status)}, []


_EFFECT = ("shift", "ratio", "ci_low", "ci_high")
RANK_SUM_TABLE = TableForm(
    "mannwhitneyu", "independent",
    ("statistic", "pvalue", "method", "prob_greater", *_EFFECT, "status"), _rank_sum_columns,
    log=True)
SIGNED_RANK_TABLE = TableForm(
    "wilcoxon", "paired", ("n_zero", "statistic", "pvalue", "method", *_EFFECT, "status"),
    _signed_rank_columns, log=True)
