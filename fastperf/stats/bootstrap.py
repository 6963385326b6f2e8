"""Bootstrap confidence intervals, batched: percentile, basic, BCa and studentized, for named
statistics, with a note where the sample is too small for the method's coverage.

`bootstrap` works on arrays (samples along `axis`, one interval per sample of the batch, scipy's
definitions: ``scipy.stats.bootstrap``) and on measurement tables (one interval per benchmark for
two-sample statistics, baseline against candidate; one per (benchmark, variant) group for
one-sample statistics). The resampling runs in one compiled kernel
(``fastperf.kernels.bootstrap``) on the counter-based generator of ``fastperf.kernels.random``,
each sample's streams keyed by its identity (its group's key values, ``fastperf.data.identity``;
its position for arrays): the same seed gives a group the same interval whatever the number of
threads, the other groups, their order or the chunk it runs in. `RELIABILITY` holds the
coverage that bench/validity/bootstrap_coverage.py measured on simulated timings, and a result
whose smallest sample lies below its method's threshold carries a note (`reliability_note`).
See docs/resampling.md.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple, Sequence

import numpy as np
from scipy.special import ndtri

from fastperf.data.validation import (check_choice, check_flag, check_seed,
                                      check_unit_interval, check_whole_number)
from fastperf.data.budget import check_budget, concurrent_groups, describe_cost, format_bytes
from fastperf.data.arrays import Samples, one_sample, shaped, two_samples
from fastperf.data.identity import position_identities
from fastperf.engine.sorting import sort_samples
from fastperf.errors import InputError
from fastperf.kernels.bootstrap import bootstrap_intervals

from fastperf.results.base import BenchmarkResult, ConfidenceInterval, GroupResult
from fastperf.progress import check_progress, progress_chunks
from fastperf.stats.forms import TableForm, check_one_form
from fastperf.io.read import is_measurement_table

__all__ = ["bootstrap", "BootstrapResult", "ConfidenceInterval", "ONE_SAMPLE", "TWO_SAMPLE",
           "METHODS", "STUDENTIZED", "Reliability", "RELIABILITY", "COVERAGE_SIZES",
           "COVERAGE_TARGET", "DESCRIBE_COVERAGE", "reliability_note"]


#: Named statistics and their kernel codes (see fastperf.kernels.bootstrap).
ONE_SAMPLE = {"mean": 0, "median": 1, "quantile": 2}
TWO_SAMPLE = {"mean_ratio": 3, "median_ratio": 4, "mean_diff": 5, "median_diff": 6,
              "hodges_lehmann": 7}
METHODS = {"percentile": 0, "basic": 1, "bca": 2, "studentized": 3}
#: The statistics the studentized method accepts (those with a plug-in standard error).
STUDENTIZED = ("mean", "mean_diff", "mean_ratio")

_STATUS = np.array([
    "ok",
    "empty sample",
    "NaN in input",
    "fewer than 2 values in a sample (BCa needs 2)",
    "degenerate bootstrap distribution",
    "non-finite statistic (a zero denominator, an infinite value, or beyond the float64 "
    "range)",
    "BCa interval undefined (the estimate lies outside the bootstrap distribution)",
    "fewer than 2 values in a sample (the studentized interval needs 2 for a standard error)",
    "non-positive mean (studentized mean_ratio works on the log scale)",
    "studentized interval undefined (the t* quantile falls between -inf and +inf)",
    "confidence interval beyond the float64 range",
])


class Reliability(NamedTuple):
    """The measured coverage of one (statistic, method): see `RELIABILITY`.

    Attributes
    ----------
    threshold : int or None
        The smallest n of `COVERAGE_SIZES` from which (there and at every larger size studied)
        the coverage was at least `COVERAGE_TARGET` on every simulated noise shape, up to the
        Monte Carlo error (not more than 2 standard errors, 0.38 points, below it); None when
        it fell short at the largest size studied.
    coverage : tuple of float
        The coverage on the worst noise shape at each of `COVERAGE_SIZES`.
    """

    threshold: int | None
    coverage: tuple[float, ...]


#: The sample sizes (runs per sample) of the coverage study.
COVERAGE_SIZES = (5, 10, 20, 30, 50, 100)
#: Coverage counted as reliable: within 1 point of the nominal 95 % (a measurement within 2
#: Monte Carlo standard errors below it passes: see `Reliability`).
COVERAGE_TARGET = 0.94

#: Coverage of nominal 95 % intervals on simulated timings, per (statistic, method), as
#: ``python bench/validity/bootstrap_coverage.py`` prints it (16,000 replicates x 999
#: resamples per cell; Monte Carlo standard error 0.17 points near 95 %): the four noise shapes of
#: `fastperf.simulate` (lognormal, bimodal, heavy_tail, quantised) with sigma in (0.02, 0.08);
#: two-sample statistics compare samples of the same distribution (true ratio 1, difference
#: 0). Statistics not listed (quantile, hodges_lehmann) were not studied and get no note. The
#: intervals: Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 12-14; their
#: coverage by simulation, as Davison & Hinkley (1997), "Bootstrap Methods and their
#: Application", ch. 5, compare the interval methods empirically.
RELIABILITY: dict[tuple[str, str], Reliability] = {
    ('mean', 'percentile'): Reliability(100, (0.812, 0.893, 0.918, 0.927, 0.936, 0.940)),
    ('mean', 'basic'): Reliability(100, (0.792, 0.873, 0.911, 0.926, 0.936, 0.941)),
    ('mean', 'bca'): Reliability(None, (0.824, 0.886, 0.911, 0.919, 0.928, 0.934)),
    ('mean', 'studentized'): Reliability(10, (0.921, 0.941, 0.941, 0.938, 0.941, 0.941)),
    ('median', 'percentile'): Reliability(20, (0.936, 0.934, 0.938, 0.941, 0.944, 0.943)),
    ('median', 'basic'): Reliability(None, (0.732, 0.801, 0.810, 0.836, 0.862, 0.878)),
    ('median', 'bca'): Reliability(20, (0.936, 0.934, 0.939, 0.941, 0.944, 0.944)),
    ('mean_ratio', 'percentile'): Reliability(50, (0.874, 0.916, 0.934, 0.936, 0.939, 0.943)),
    ('mean_ratio', 'basic'): Reliability(50, (0.865, 0.908, 0.929, 0.936, 0.941, 0.943)),
    ('mean_ratio', 'bca'): Reliability(None, (0.865, 0.904, 0.923, 0.926, 0.928, 0.935)),
    ('mean_ratio', 'studentized'): Reliability(5, (0.953, 0.946, 0.944, 0.941, 0.937, 0.940)),
    ('median_ratio', 'percentile'): Reliability(5, (0.968, 0.962, 0.965, 0.962, 0.960, 0.960)),
    ('median_ratio', 'basic'): Reliability(None, (0.794, 0.804, 0.752, 0.769, 0.808, 0.866)),
    ('median_ratio', 'bca'): Reliability(5, (0.960, 0.947, 0.950, 0.949, 0.949, 0.947)),
    ('mean_diff', 'percentile'): Reliability(50, (0.874, 0.916, 0.934, 0.936, 0.939, 0.943)),
    ('mean_diff', 'basic'): Reliability(30, (0.877, 0.916, 0.932, 0.937, 0.941, 0.943)),
    ('mean_diff', 'bca'): Reliability(None, (0.865, 0.904, 0.922, 0.926, 0.928, 0.935)),
    ('mean_diff', 'studentized'): Reliability(5, (0.952, 0.945, 0.943, 0.941, 0.937, 0.939)),
    ('median_diff', 'percentile'): Reliability(5, (0.968, 0.962, 0.965, 0.962, 0.960, 0.960)),
    ('median_diff', 'basic'): Reliability(None, (0.799, 0.833, 0.782, 0.792, 0.821, 0.875)),
    ('median_diff', 'bca'): Reliability(5, (0.960, 0.948, 0.951, 0.949, 0.948, 0.948)),
}
#: The same study's coverage (worst shape, at `COVERAGE_SIZES`) of `fastperf.describe`'s
#: intervals: the Student interval of the mean (ci_mean_low / ci_mean_high) and the exact
#: order-statistic interval of the median (ci_median_low / ci_median_high; none at n = 5).
DESCRIBE_COVERAGE: dict[str, tuple[float, ...]] = {
    'mean': (0.896, 0.933, 0.943, 0.946, 0.948, 0.948),
    'median': (0.000, 0.977, 0.959, 0.956, 0.967, 0.963),
}

#: How the notes name describe's intervals.
_DESCRIBE = {
    "mean": "the Student interval of fastperf.describe, ci_mean_low / ci_mean_high",
    "median": ("the exact, distribution-free order-statistic interval of fastperf.describe, "
               "ci_median_low / ci_median_high (at least the nominal level for any continuous "
               "distribution; n >= 6 at 95%)"),
}


def reliability_note(statistic: str, method: str, n: int) -> str:
    """The note a bootstrap result carries when its smallest sample is below the method's
    threshold in `RELIABILITY` ("" otherwise, and for statistics not studied).

    Parameters
    ----------
    statistic : str
        A named statistic of `bootstrap`.
    method : str
        A method of `bootstrap` (lower case).
    n : int
        The smallest sample size of the call (for two samples, the smaller side).

    Returns
    -------
    str
        The method, n, the threshold, the coverage measured at the largest size studied not
        above n (the smallest size studied when n is below it) and what to use instead; "".

    Notes
    -----
    The figures come from the simulation of bench/validity/bootstrap_coverage.py (coverage of
    the intervals by simulation, as Davison & Hinkley 1997, "Bootstrap Methods and their
    Application", ch. 5, compare them; Hall 1988, "Theoretical comparison of bootstrap
    confidence intervals", Ann. Statist. 16, 927-953, for why the studentized interval's
    coverage error shrinks faster with n).
    """
    entry = RELIABILITY.get((statistic, method))
    if entry is None or n < 1 or (entry.threshold is not None and n >= entry.threshold):
        return ""
    i = max([0] + [k for k, size in enumerate(COVERAGE_SIZES) if size <= n])
    size = COVERAGE_SIZES[i]
    target = f"{COVERAGE_TARGET:.0%}"
    if entry.threshold is None:
        limit = (f"its coverage stays below {target} on some simulated noise shape up to the "
                 f"largest size studied, n = {COVERAGE_SIZES[-1]}")
    else:
        limit = (f"below n = {entry.threshold}, the size from which its coverage reached "
                 f"{target} on every simulated noise shape")
    if size == n:
        where = f"n = {n}"
    elif size > n:
        where = f"n = {size} (the smallest size studied)"
    else:
        where = f"n = {size} (the largest size studied not above {n})"
    note = (f"bootstrap method={method!r}, statistic={statistic!r}: the smallest sample has "
            f"n = {n}, {limit}; measured coverage of nominal 95% intervals at {where}: "
            f"{entry.coverage[i]:.1%} on the worst shape (docs/resampling.md).")
    others = [(r.coverage[i], f"method={m!r}") for (st, m), r in RELIABILITY.items()
              if st == statistic and m != method]
    if statistic in DESCRIBE_COVERAGE:
        others.append((DESCRIBE_COVERAGE[statistic][i], _DESCRIBE[statistic]))
    better = sorted((c, tool) for c, tool in others if c > entry.coverage[i])[::-1]
    if better:
        return note + " Better measured there: " + "; ".join(
            f"{c:.1%} for {tool}" for c, tool in better[:2]) + "."
    return note + " No interval studied does better at this n: collect more runs."


class BootstrapResult:
    """Result of the array form of `bootstrap`, shaped like the batch (scalars for one sample).

    Attributes
    ----------
    estimate : the statistic on the data.
    confidence_interval : ConfidenceInterval(low, high).
    standard_error : sd (ddof=1) of the bootstrap distribution.
    acceleration : the BCa acceleration (NaN for the other methods).
    status : "ok" or why the interval is NaN / degenerate.
    seed : the seed used (drawn when ``seed=None``): pass it back to reproduce the result.
    bootstrap_distribution : (batch..., n_resamples) array, with ``return_distribution=True``;
        else None. The statistics theta* of the resamples, for every method (the studentized
        method's pivots t* are not returned); NaN rows for samples not resampled (empty, NaN in
        the input, too few values for the method).
    reliability : str, the `reliability_note` when the smallest sample of the batch is below
        the method's threshold (the measured coverage there and what to use instead), else "".
    """

    def __init__(self, estimate, confidence_interval, standard_error, acceleration, status, seed,
                 bootstrap_distribution=None, reliability=""):
        self.estimate = estimate
        self.confidence_interval = confidence_interval
        self.standard_error = standard_error
        self.acceleration = acceleration
        self.status = status
        self.seed = seed
        self.bootstrap_distribution = bootstrap_distribution
        self.reliability = reliability

    def __repr__(self) -> str:
        return (f"BootstrapResult(estimate={self.estimate!r}, "
                f"confidence_interval={self.confidence_interval!r}, "
                f"standard_error={self.standard_error!r}, status={self.status!r}, "
                f"seed={self.seed!r}, reliability={self.reliability!r})")


def _bootstrap_iv(statistic, method, n_resamples, confidence, seed,
                  q) -> tuple[int, int, float, int, float]:
    check_choice(statistic, "statistic", [*ONE_SAMPLE, *TWO_SAMPLE])
    method_key = check_choice(method.lower() if isinstance(method, str) else method, "method",
                              METHODS)
    if method_key == "studentized" and statistic not in STUDENTIZED:
        raise InputError(f"statistic={statistic!r} has no method='studentized' (it needs a "
                         f"plug-in standard error): studentized accepts statistic in "
                         f"{list(STUDENTIZED)}; for {statistic!r} use method in "
                         f"{[k for k in METHODS if k != 'studentized']}")
    check_whole_number(n_resamples, "n_resamples", minimum=1)
    confidence = check_unit_interval(confidence, "confidence")
    if statistic == "quantile":
        if q is None or not 0.0 < float(q) < 1.0:
            raise InputError(f"statistic='quantile' needs q strictly between 0 and 1, got {q!r}")
        q = float(q)
    else:
        q = 0.5
    seed = check_seed(seed)
    return METHODS[method_key], int(n_resamples), confidence, seed, q


def _run(xs: Samples, ys: Samples | None, stat: int, q: float, method: int, confidence: float,
         seed: int, n_resamples: int, keep: bool, identities: np.ndarray, progress=None):
    """Call the kernel, sample i's streams keyed by ``identities[i]``; returns (estimate, low,
    high, se, accel, status strings, distribution)."""
    size = len(xs)
    two = ys is not None
    if ys is None:
        ys = Samples(np.empty(0), np.zeros(size + 1, dtype=np.int64))
    needed, steps = _check_size(xs, ys if two else None, stat, method, n_resamples, keep)
    alpha = (1.0 - confidence) / 2.0
    with np.errstate(divide="ignore"):  # z0 of BCa only: 2 B + 1 values
        z_of_count = (ndtri(np.arange(2 * n_resamples + 1) / (2.0 * n_resamples))
                      if method == METHODS["bca"] else np.zeros(1))
    distribution = np.full((size if keep else 0, n_resamples), np.nan)  # NaN where not drawn
    work = (xs.values.shape[0] + ys.values.shape[0]) * n_resamples
    xo, yo = xs.offsets.astype(np.int64), ys.offsets.astype(np.int64)
    identities = np.ascontiguousarray(identities, dtype=np.uint64)
    parts = []
    for a, b in progress_chunks("bootstrap", size, progress, steps,
                                describe_cost(steps, needed)):
        # chunks of samples, each one kernel call over its samples
        parts.append(bootstrap_intervals(
            xs.values, xo[a:b + 1], ys.values, yo[a:b + 1], two, stat, q, method, alpha,
            float(ndtri(alpha)), z_of_count, np.uint64(seed), n_resamples, keep,
            distribution[a:b] if keep else distribution, identities[a:b], n_rows=work))
    est, low, high, se, accel, code = (np.concatenate(column) for column in zip(*parts))
    return est, low, high, se, accel, _STATUS[code], (distribution if keep else None)


def _check_size(xs: Samples, ys: Samples | None, stat: int, method: int, n_resamples: int,
                keep: bool) -> tuple[int, int]:
    """Refuse, before allocating, a call whose memory or work cannot fit (`check_budget`);
    return the estimate (bytes held at once, elementary steps).

    Held at once: the B statistics theta* of each sample in flight (one per thread; also the B
    pivots t* for "studentized"), the 2B + 1 normal quantiles of BCa, the (samples, B)
    distribution with `keep`, the n m differences of each Hodges-Lehmann sample in flight (twice
    with BCa: the jackknife sorts its own copy) and a few copies of the values.
    """
    size = len(xs)
    n = xs.sizes.astype(np.int64)
    m = ys.sizes.astype(np.int64) if ys is not None else np.zeros(size, dtype=np.int64)
    B = int(n_resamples)
    flight = concurrent_groups(size) if size else 0
    per_sample = 8 * B * (2 if method == METHODS["studentized"] else 1)
    resampling = flight * per_sample + (8 * (2 * B + 1) if method == METHODS["bca"] else 0)
    stored = 8 * size * B if keep else 0
    hl = stat == TWO_SAMPLE["hodges_lehmann"]
    pairs = n.astype(np.float64) * m if hl else np.zeros(0)  # float: no int64 overflow
    largest = int(pairs.max()) if pairs.size else 0
    differences = 8 * flight * largest * (2 if method == METHODS["bca"] else 1)
    values = 8 * 6 * (int(n.sum()) + int(m.sum()))
    needed = resampling + stored + differences + values
    work = B * (int(pairs.sum()) if hl else int(n.sum()) + int(m.sum()))
    remedy = ""
    given: object  # the value of `argument` named in the message
    if differences > max(resampling, stored):
        argument, given = "data", f"<a sample of {largest} pairwise differences>"
        remedy = ("use smaller samples (hodges_lehmann holds the n m pairwise differences of "
                  "each sample) or statistic='median_diff'")
    elif stored > resampling:
        argument, given = "return_distribution", True
    else:
        argument, given = "n_resamples", B
    check_budget("bootstrap", argument, given, bytes_needed=needed, operations=work,
                 detail=f"{format_bytes(resampling)} for n_resamples={B} in {flight} sample(s) "
                        f"at once, {format_bytes(stored)} for return_distribution, "
                        f"{format_bytes(differences)} for pairwise differences, "
                        f"{size} sample(s) with {int(n.sum()) + int(m.sum())} values",
                 remedy=remedy)
    return needed, work


def bootstrap(
    data: Any,
    *,
    statistic: str = "median_ratio",
    method: str = "bca",
    n_resamples: int = 9999,
    confidence: float = 0.95,
    seed: int | np.random.Generator | None = None,
    axis: int = -1,
    q: float | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    return_distribution: bool = False,
    progress: bool | None = None,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "BootstrapResult | BenchmarkResult | GroupResult":
    """Two-sided bootstrap confidence interval of a named statistic, batched.

    Parameters
    ----------
    data : tuple of one or two arrays, or a measurement table
        Arrays: samples along `axis`, batched (and broadcast) over the other axes; two-sample
        statistics take ``(x, y)`` and resample each sample independently.
        Table (or path): two-sample statistics need `baseline` and `candidate` (x = baseline,
        y = candidate, one interval per benchmark); one-sample statistics give one interval per
        (`by`, `variant`) group. Nulls/NaN are dropped and counted.
    statistic : {"mean", "median", "quantile", "mean_ratio", "median_ratio", "mean_diff",
        "median_diff", "hodges_lehmann"}
        Ratios are statistic(x) / statistic(y) (baseline over candidate: the speedup for times);
        differences x - y; "hodges_lehmann" is the median of all pairwise differences x_i - y_j;
        "quantile" needs `q` in (0, 1) (numpy's linear interpolation).
    method : {"percentile", "basic", "bca", "studentized"}
        Case-insensitive. "percentile", "basic", "bca" as scipy's; BCa's acceleration is the
        jackknife one of scipy's ``_bca_interval`` (for two samples, each sample left out one
        observation at a time), set to 0 when every jackknife value is equal. "studentized"
        (bootstrap-t; Efron & Tibshirani 1993, ch. 12.5; Davison & Hinkley 1997, eq. 5.7)
        takes "mean", "mean_diff" and "mean_ratio" only: with t*_b = (theta*_b - theta_hat) /
        se*_b and the plug-in standard errors s_x / sqrt(n), sqrt(s_x^2 / n + s_y^2 / m), the
        interval is [theta_hat - t*_(1-a) se_hat, theta_hat - t*_(a) se_hat], a = (1 -
        confidence) / 2; "mean_ratio" is studentized on the log scale (delta-method se of
        log(xbar / ybar), positive means needed) and exponentiated back. A resample whose
        values are all equal has se* = 0: its t* is 0 when theta* = theta_hat, else +-inf
        (the interval is then unbounded on that side if such resamples reach the quantile).
    n_resamples, confidence : int >= 1, float in (0, 1)
    seed : int, numpy Generator or None
        Key of the counter-based generator; None draws one (reported as ``seed``). A sample's
        streams are keyed by the seed and its identity: on a table its group's key values
        (`fastperf.data.identity.group_identities`), each group's values taken in ascending
        order, so a group's interval is the same alone, among other groups, in any row order,
        or in any chunk; on arrays its position in the batch.
    return_distribution : bool
        Array form: also return the (batch..., n_resamples) bootstrap statistics theta*.
    progress : bool or None
        A progress bar on stderr, with the cost estimate (steps, memory) first: None (default)
        when stderr is a terminal and the estimated work is at least 1e9 steps; True always;
        False never. The batch then runs in up to 50 chunks of samples, with the same results.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`).

    Returns
    -------
    BootstrapResult (arrays), or on a table a BenchmarkResult (two-sample statistics,
    ``.benchmarks``: a row per benchmark) or a GroupResult (one-sample statistics, ``.groups``:
    a row per (benchmark, variant) group), each row the keys, sample sizes, ``estimate``,
    ``ci_low``, ``ci_high``, ``standard_error``, ``status``; the seed is in ``summary``.
    ``standard_error`` is the sd of theta* for every method. When the smallest sample of the
    call (with data) is below the threshold of `RELIABILITY` for (statistic, method), the
    result carries `reliability_note`: ``BootstrapResult.reliability``, or a warning and
    ``summary["reliability"]`` ("" when none).

    Problems local to one sample give NaN and a ``status``: an empty sample, NaN in the input
    (array form), fewer than 2 values for BCa or studentized, a non-finite statistic (a zero
    denominator, an infinite value, or beyond the float64 range), a non-positive mean for
    studentized "mean_ratio", an interval limit beyond the float64 range. A degenerate
    bootstrap distribution (all values equal) gives the interval [estimate, estimate] and the
    status "degenerate bootstrap distribution". Finite values of any magnitude are otherwise
    scale free: sums of squares are taken on values divided by a power of two where they would
    overflow or underflow (docs/resampling.md, "Extreme values").

    References
    ----------
    Efron & Tibshirani (1993), "An Introduction to the Bootstrap", Chapman & Hall, ch. 12-14.
    Efron (1987), "Better bootstrap confidence intervals", J. Amer. Statist. Assoc. 82, 171-185.
    Davison & Hinkley (1997), "Bootstrap Methods and their Application", Cambridge, ch. 5.
    Hall (1988), "Theoretical comparison of bootstrap confidence intervals", Ann. Statist. 16,
    927-953.
    """
    method_code, n_resamples, confidence, seed, q = _bootstrap_iv(
        statistic, method, n_resamples, confidence, seed, q)
    check_progress(progress)
    return_distribution = check_flag(return_distribution, "return_distribution")
    two = statistic in TWO_SAMPLE
    stat = TWO_SAMPLE[statistic] if two else ONE_SAMPLE[statistic]
    table = is_measurement_table(data)
    check_one_form("bootstrap", table, axis=axis, return_distribution=return_distribution,
                   baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
                   levels=levels, block=block)
    if table:
        if not two and (baseline is not None or candidate is not None):
            raise InputError(f"one-sample statistic {statistic!r} gives one interval per "
                             "(benchmark, variant) group: omit baseline= and candidate=")
        method_name = [k for k, v in METHODS.items() if v == method_code][0]
        size_columns = ("n_baseline", "n_candidate") if two else ("n",)

        def reliability(table) -> dict:
            """The summary's ``reliability``: the note for the smallest sample of `table`."""
            sizes = [table.column(c).to_numpy() for c in size_columns]
            return {"reliability": reliability_note(statistic, method_name, _smallest(*sizes))}

        form = replace(TWO_SAMPLE_TABLE if two else ONE_SAMPLE_TABLE, summarize=reliability)
        result = form.run(data, baseline=baseline, candidate=candidate, by=by, variant=variant,
                          value=value, levels=levels, block=block,
                          summary={"statistic": statistic, "method": method_name,
                                   "confidence": confidence, "n_resamples": n_resamples,
                                   "seed": seed},
                          stat=stat, q=q, method_code=method_code, confidence=confidence,
                          seed=seed, n_resamples=n_resamples, progress=progress)
        if result.summary["reliability"]:
            result.warnings.insert(0, result.summary["reliability"])
        return result
    if isinstance(data, np.ndarray) or not isinstance(data, (tuple, list)) or len(data) not in (1, 2):
        raise InputError("data must be a tuple of one or two arrays (samples along axis), "
                         "e.g. (x,) or (x, y), or a measurement table")
    if two != (len(data) == 2):
        need = "two arrays (x, y)" if two else "one array (x,)"
        raise InputError(f"statistic {statistic!r} needs {need}, got {len(data)}")
    if two:
        xs, ys, batch_shape = two_samples(data[0], data[1], axis)
    else:
        (xs, batch_shape), ys = one_sample(data[0], axis), None
    est, low, high, se, accel, status, dist = _run(
        xs, ys, stat, q, method_code, confidence, seed, n_resamples, return_distribution,
        position_identities(len(xs)), progress)
    method_name = [k for k, v in METHODS.items() if v == method_code][0]
    note = reliability_note(statistic, method_name,
                            _smallest(xs.sizes, *([] if ys is None else [ys.sizes])))
    return BootstrapResult(
        shaped(est, batch_shape),
        ConfidenceInterval(shaped(low, batch_shape), shaped(high, batch_shape)),
        shaped(se, batch_shape), shaped(accel, batch_shape), shaped(status, batch_shape), seed,
        None if dist is None else dist.reshape(batch_shape + (n_resamples,)), note,
    )


def _smallest(*sizes: np.ndarray) -> int:
    """The smallest sample size among the samples (pairs) that have values on every side; 0
    when none has."""
    smallest = np.minimum.reduce([np.asarray(s, dtype=np.int64) for s in sizes])
    smallest = smallest[smallest > 0]
    return int(smallest.min()) if smallest.size else 0


def _bootstrap_columns(xs, ys, *, stat, q, method_code, confidence, seed, n_resamples,
                       identities, progress=None):
    # a group's values in ascending order: its interval does not depend on its rows' order
    xs, ys = sort_samples(xs), (None if ys is None else sort_samples(ys))
    est, low, high, se, _, status, _ = _run(xs, ys, stat, q, method_code, confidence, seed,
                                             n_resamples, False, identities, progress)
    return {"estimate": est, "ci_low": low, "ci_high": high, "standard_error": se,
            "status": status}, []


_COLUMNS = ("estimate", "ci_low", "ci_high", "standard_error", "status")
ONE_SAMPLE_TABLE = TableForm("bootstrap", "groups", _COLUMNS, _bootstrap_columns,
                             result=GroupResult, identities=True)
TWO_SAMPLE_TABLE = TableForm("bootstrap", "independent", _COLUMNS, _bootstrap_columns,
                             identities=True)
