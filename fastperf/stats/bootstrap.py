"""Bootstrap confidence intervals, batched: percentile, basic and BCa, for named statistics.

`bootstrap` works on arrays (samples along `axis`, one interval per sample of the batch, scipy's
definitions: ``scipy.stats.bootstrap``) and on measurement tables (one interval per benchmark for
two-sample statistics, baseline against candidate; one per (benchmark, variant) group for
one-sample statistics). The resampling runs in one compiled kernel
(``fastperf.kernels.bootstrap``) on the counter-based generator of ``fastperf.kernels.random``:
the same seed gives the same intervals whatever the number of threads. See docs/resampling.md.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fastperf.data.validation import check_seed, check_unit_interval, check_whole_number
from fastperf.data.arrays import Samples, one_sample, shaped, two_samples
from fastperf.errors import InputError

from fastperf.results.base import BenchmarkResult, ConfidenceInterval, Result
from fastperf.stats.forms import TableForm, check_array_call
from fastperf.io.tables import is_measurement_table

__all__ = ["bootstrap", "BootstrapResult", "ConfidenceInterval", "ONE_SAMPLE", "TWO_SAMPLE",
           "METHODS"]


#: Named statistics and their kernel codes (see fastperf.kernels.bootstrap).
ONE_SAMPLE = {"mean": 0, "median": 1, "quantile": 2}
TWO_SAMPLE = {"mean_ratio": 3, "median_ratio": 4, "mean_diff": 5, "median_diff": 6,
              "hodges_lehmann": 7}
METHODS = {"percentile": 0, "basic": 1, "bca": 2}

_STATUS = np.array([
    "ok",
    "empty sample",
    "NaN in input",
    "fewer than 2 values in a sample (BCa needs 2)",
    "degenerate bootstrap distribution",
    "non-finite statistic (e.g. a zero denominator)",
    "BCa interval undefined (the estimate lies outside the bootstrap distribution)",
])


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
        else None.
    """

    def __init__(self, estimate, confidence_interval, standard_error, acceleration, status, seed,
                 bootstrap_distribution=None):
        self.estimate = estimate
        self.confidence_interval = confidence_interval
        self.standard_error = standard_error
        self.acceleration = acceleration
        self.status = status
        self.seed = seed
        self.bootstrap_distribution = bootstrap_distribution

    def __repr__(self) -> str:
        return (f"BootstrapResult(estimate={self.estimate!r}, "
                f"confidence_interval={self.confidence_interval!r}, "
                f"standard_error={self.standard_error!r}, status={self.status!r}, "
                f"seed={self.seed!r})")


def _bootstrap_iv(statistic, method, n_resamples, confidence, seed, q):
    if not isinstance(statistic, str) or (statistic not in ONE_SAMPLE and statistic not in TWO_SAMPLE):
        raise InputError(f"statistic must be one of {list(ONE_SAMPLE) + list(TWO_SAMPLE)}, "
                         f"got {statistic!r}")
    method_key = method.lower() if isinstance(method, str) else method
    if method_key not in METHODS:
        raise InputError(f"method must be one of {list(METHODS)}, got {method!r}")
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
         seed: int, n_resamples: int, keep: bool):
    """Call the kernel; returns (estimate, low, high, se, accel, status strings, distribution)."""
    from scipy.special import ndtri

    from fastperf.kernels.bootstrap import bootstrap_intervals

    size = len(xs)
    two = ys is not None
    if not two:
        ys = Samples(np.empty(0), np.zeros(size + 1, dtype=np.int64))
    alpha = (1.0 - confidence) / 2.0
    with np.errstate(divide="ignore"):
        z_of_count = ndtri(np.arange(2 * n_resamples + 1) / (2.0 * n_resamples))
    distribution = np.empty((size if keep else 0, n_resamples))
    work = (xs.values.shape[0] + ys.values.shape[0]) * n_resamples
    est, low, high, se, accel, code = bootstrap_intervals(
        xs.values, xs.offsets.astype(np.int64), ys.values, ys.offsets.astype(np.int64), two,
        stat, q, method, alpha, float(ndtri(alpha)), z_of_count, np.uint64(seed), n_resamples,
        keep, distribution, n_rows=work)
    return est, low, high, se, accel, _STATUS[code], (distribution if keep else None)


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
) -> "BootstrapResult | BenchmarkResult | Result":
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
    method : {"percentile", "basic", "bca"}
        As scipy's (case-insensitive). BCa's acceleration is the jackknife one of scipy's
        ``_bca_interval`` (for two samples, each sample left out one observation at a time), set
        to 0 when every jackknife value is equal.
    n_resamples, confidence : int >= 1, float in (0, 1)
    seed : int, numpy Generator or None
        Key of the counter-based generator; None draws one (reported as ``seed``).
    return_distribution : bool
        Array form: also return the (batch..., n_resamples) bootstrap statistics.

    Returns
    -------
    BootstrapResult (arrays) or BenchmarkResult (table form: keys, sample sizes, ``estimate``,
    ``ci_low``, ``ci_high``, ``standard_error``, ``status``; the seed is in ``summary``).

    Problems local to one sample give NaN and a ``status``: an empty sample, NaN in the input
    (array form), fewer than 2 values for BCa, a non-finite statistic. A degenerate bootstrap
    distribution (all values equal) gives the interval [estimate, estimate] and the status
    "degenerate bootstrap distribution".
    """
    method_code, n_resamples, confidence, seed, q = _bootstrap_iv(
        statistic, method, n_resamples, confidence, seed, q)
    two = statistic in TWO_SAMPLE
    stat = TWO_SAMPLE[statistic] if two else ONE_SAMPLE[statistic]
    if is_measurement_table(data):
        if axis != -1:
            raise InputError("bootstrap: axis= applies to arrays; a measurement table is "
                             "resampled per benchmark (`by`)")
        if not two and (baseline is not None or candidate is not None):
            raise InputError(f"one-sample statistic {statistic!r} gives one interval per "
                             "(benchmark, variant) group: omit baseline= and candidate=")
        method_name = [k for k, v in METHODS.items() if v == method_code][0]
        form = TWO_SAMPLE_TABLE if two else ONE_SAMPLE_TABLE
        return form.run(data, baseline=baseline, candidate=candidate, by=by, variant=variant,
                        value=value,
                        summary={"statistic": statistic, "method": method_name,
                                 "confidence": confidence, "n_resamples": n_resamples,
                                 "seed": seed},
                        stat=stat, q=q, method_code=method_code, confidence=confidence,
                        seed=seed, n_resamples=n_resamples)
    check_array_call(data, "bootstrap", {"baseline": baseline, "candidate": candidate})
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
        xs, ys, stat, q, method_code, confidence, seed, n_resamples, return_distribution)
    return BootstrapResult(
        shaped(est, batch_shape),
        ConfidenceInterval(shaped(low, batch_shape), shaped(high, batch_shape)),
        shaped(se, batch_shape), shaped(accel, batch_shape), shaped(status, batch_shape), seed,
        None if dist is None else dist.reshape(batch_shape + (n_resamples,)),
    )


def _bootstrap_columns(xs, ys, *, stat, q, method_code, confidence, seed, n_resamples):
    est, low, high, se, _, status, _ = _run(xs, ys, stat, q, method_code, confidence, seed,
                                             n_resamples, False)
    return {"estimate": est, "ci_low": low, "ci_high": high, "standard_error": se,
            "status": status}, []


_COLUMNS = ("estimate", "ci_low", "ci_high", "standard_error", "status")
ONE_SAMPLE_TABLE = TableForm("bootstrap", "groups", _COLUMNS, _bootstrap_columns)
TWO_SAMPLE_TABLE = TableForm("bootstrap", "independent", _COLUMNS, _bootstrap_columns)
