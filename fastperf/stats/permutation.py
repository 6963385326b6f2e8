"""Permutation tests, batched: the difference of means or medians of two samples, independent
(values reassigned between the samples) or paired (signs of the differences flipped).

Exact when the number of distinct rearrangements (C(n1 + n2, n1) independent, 2**n paired) is at
most `n_resamples`, as scipy's ``permutation_test``; otherwise `n_resamples` random
rearrangements from the counter-based generator of ``fastperf.kernels.random`` (reproducible
whatever the thread count). One kernel call runs every test of the batch.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from fastperf.data.validation import check_alternative, check_choice, check_seed, check_whole_number
from fastperf.data.arrays import Samples, paired_samples, two_samples
from fastperf.errors import InputError
from fastperf.results.base import BenchmarkResult, TestResult
from fastperf.stats.forms import TableForm, check_array_call, differences
from fastperf.io.tables import is_measurement_table

__all__ = ["permutation_test", "PermutationTestResult", "STATISTICS"]

#: The statistics, by name: x - y for independent samples, of the differences x - y if paired.
STATISTICS = ("mean_diff", "median_diff")


class PermutationTestResult(TestResult):
    """Result of `permutation_test` on arrays: ``statistic``, ``pvalue``, ``status`` shaped like
    the batch; ``exact`` (bool per test: the full enumeration was used); ``n_resamples`` (per
    test: the number of rearrangements in the null distribution); ``seed`` (the seed used)."""


def _check_options(statistic, alternative, n_resamples, seed) -> int:
    """Validate the options; return the seed to use (one drawn when `seed` is None)."""
    check_choice(statistic, "statistic", STATISTICS)
    check_alternative(alternative)
    check_whole_number(n_resamples, "n_resamples", minimum=1)
    return check_seed(seed)


def _segment_nans(samples: Samples) -> np.ndarray:
    """The number of NaN values per CSR segment."""
    counts = np.concatenate([[0], np.cumsum(np.isnan(samples.values), dtype=np.int64)])
    return counts[samples.offsets[1:]] - counts[samples.offsets[:-1]]


def _exact_independent(n1: np.ndarray, n2: np.ndarray, n_resamples: int) -> np.ndarray:
    """Whether C(n1 + n2, n1) <= n_resamples, computed once per distinct pair of sizes."""
    pairs, inverse = np.unique(np.stack([n1, n2], axis=1), axis=0, return_inverse=True)
    fits = np.array([math.comb(int(a) + int(b), int(a)) <= n_resamples for a, b in pairs],
                    dtype=np.bool_)
    return fits[inverse.reshape(-1)] if fits.size else np.zeros(n1.shape[0], dtype=np.bool_)


def _exact_paired(n: np.ndarray, n_resamples: int) -> np.ndarray:
    # 2**n <= n_resamples  <=>  n <= floor(log2(n_resamples)), computed in integers
    return n <= min(int(n_resamples).bit_length() - 1, 62)


def _run(xs: Samples, ys: Samples | None, valid, exact, statistic, alternative, n_resamples,
         seed):
    """Kernel call and p-values; invalid tests get NaN."""
    from fastperf.kernels.permutation import MEAN_DIFF, MEDIAN_DIFF, permutation_counts

    paired = ys is None
    if paired:
        ys = Samples(np.empty(0), np.zeros(len(xs) + 1, dtype=np.int64))
    code = MEAN_DIFF if statistic == "mean_diff" else MEDIAN_DIFF
    n_rows = (xs.values.shape[0] + ys.values.shape[0]) * min(n_resamples, 1 << 20)
    observed, n_less, n_greater, n_total = permutation_counts(
        np.ascontiguousarray(xs.values, dtype=np.float64), xs.offsets.astype(np.int64),
        np.ascontiguousarray(ys.values, dtype=np.float64), ys.offsets.astype(np.int64),
        np.ascontiguousarray(valid, dtype=np.bool_), np.ascontiguousarray(exact, dtype=np.bool_),
        paired, code, int(n_resamples), np.uint64(seed), n_rows=n_rows)
    adjustment = np.where(exact, 0, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = (n_total + adjustment).astype(float)
        p_less = (n_less + adjustment) / denominator
        p_greater = (n_greater + adjustment) / denominator
    if alternative == "less":
        p = p_less
    elif alternative == "greater":
        p = p_greater
    else:
        p = np.minimum(p_less, p_greater) * 2
    p = np.clip(p, 0.0, 1.0)
    p = np.where(valid, p, np.nan)
    observed = np.where(valid, observed, np.nan)
    return observed, p, np.where(valid, n_total, 0)


def permutation_test(
    data: Any,
    *,
    statistic: str = "mean_diff",
    alternative: str = "two-sided",
    n_resamples: int = 9999,
    seed: int | None = None,
    axis: int = -1,
    paired: bool = False,
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    pair: str = "run",
) -> PermutationTestResult | BenchmarkResult:
    """Permutation test of a difference in location between x and y, batched.

    Statistics: ``"mean_diff"`` (mean(x) − mean(y)) and ``"median_diff"`` (median(x) −
    median(y)); with ``paired=True`` the statistic is of the differences d = x − y
    (``"mean_diff"``: mean(d), the same as mean(x) − mean(y); ``"median_diff"``: median(d)).

    Null distribution: independent samples, the pooled values reassigned to samples of the same
    sizes; paired, the sign of each difference flipped (x_i and y_i swapped). Exact when the
    number of distinct rearrangements (C(n1 + n2, n1), or 2**n) is at most `n_resamples`: the
    full enumeration, p = count / total. Otherwise `n_resamples` random rearrangements and
    p = (count + 1) / (n_resamples + 1). count: rearranged statistics <= observed ("less"),
    >= observed ("greater"), with scipy's tolerance gamma = 100 eps |observed|; "two-sided" is
    min(1, 2 min(p_less, p_greater)), as ``scipy.stats.permutation_test``.

    Parameters
    ----------
    samples : (x, y) tuple of array_like, or a measurement table
        Arrays: samples along `axis`, the other axes batched (and broadcast). A test with NaN or
        an empty sample gets NaN and its reason in ``status``. Paired arrays must have the same
        length along `axis`. **Table form**: a measurement table (or path) with `baseline` and
        `candidate` variant names: one test per benchmark, x = baseline, y = candidate (nulls
        dropped and counted); ``paired=True`` pairs the runs by the `run` column.
    statistic : {"mean_diff", "median_diff"}
    alternative : {"two-sided", "less", "greater"}
        "greater": the statistic of x - y is larger than chance (for times with x = baseline:
        the candidate is faster).
    n_resamples : int
        Random rearrangements per test, and the largest enumeration done exactly.
    seed : int or None
        Seed of the counter-based generator; None draws one (reported as ``seed``). The same seed
        gives the same p-values whatever the number of threads.
    axis, paired, baseline, candidate, by, variant, value, run : as for ``ttest_ind`` /
        ``ttest_rel``.

    Returns
    -------
    PermutationTestResult (arrays) or BenchmarkResult (table form, ``.benchmarks`` one row per
    benchmark: keys, sample sizes, dropped counts, ``statistic``, ``pvalue``, ``exact``,
    ``status``; ``summary`` holds the seed).
    """
    seed = _check_options(statistic, alternative, n_resamples, seed)
    options = dict(statistic=statistic, alternative=alternative, n_resamples=n_resamples,
                   seed=seed)
    if is_measurement_table(data):
        if axis != -1:
            raise InputError("permutation_test: axis= applies to arrays; a measurement table is "
                             "tested per benchmark (`by`)")
        form = PAIRED_TABLE if paired else INDEPENDENT_TABLE
        return form.run(data, baseline=baseline, candidate=candidate, by=by, variant=variant,
                        value=value, pair=pair, summary={**options, "paired": bool(paired)},
                        **options)
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise InputError("data must be a tuple (x, y) of arrays, or a measurement table "
                         "with baseline= and candidate=")
    check_array_call(data[0], "permutation_test", {"baseline": baseline, "candidate": candidate})
    x, y = data
    if paired:
        xs, ys, batch_shape = paired_samples(x, y, axis)
        d = differences(xs, ys)
        n = d.sizes
        status = np.select([_segment_nans(d) > 0, n < 1], ["NaN in input", "no pairs"],
                           default="ok")
        valid = status == "ok"
        exact = _exact_paired(n, n_resamples) & valid
        observed, p, total = _run(d, None, valid, exact, **options)
    else:
        xs, ys, batch_shape = two_samples(x, y, axis)
        n1, n2 = xs.sizes, ys.sizes
        status = np.select([(_segment_nans(xs) > 0) | (_segment_nans(ys) > 0), (n1 < 1) | (n2 < 1)],
                           ["NaN in input", "empty sample"], default="ok")
        valid = status == "ok"
        exact = _exact_independent(n1, n2, n_resamples) & valid
        observed, p, total = _run(xs, ys, valid, exact, **options)
    return PermutationTestResult.from_batch(batch_shape, observed, p, status, exact=exact,
                                            n_resamples=total, seed=seed)


def _independent_columns(xs: Samples, ys: Samples, **options):
    n1, n2 = xs.sizes, ys.sizes
    valid = (n1 > 0) & (n2 > 0)
    exact = _exact_independent(n1, n2, options["n_resamples"]) & valid
    observed, p, _ = _run(xs, ys, valid, exact, **options)
    return {"statistic": observed, "pvalue": p, "exact": exact,
            "status": np.where(valid, "ok", "empty sample")}, []


def _paired_columns(xs: Samples, ys: Samples, **options):
    d = differences(xs, ys)
    valid = d.sizes > 0
    exact = _exact_paired(d.sizes, options["n_resamples"]) & valid
    observed, p, _ = _run(d, None, valid, exact, **options)
    return {"statistic": observed, "pvalue": p, "exact": exact,
            "status": np.where(valid, "ok", "no pairs")}, []


_COLUMNS = ("statistic", "pvalue", "exact", "status")
INDEPENDENT_TABLE = TableForm("permutation_test", "independent", _COLUMNS, _independent_columns)
PAIRED_TABLE = TableForm("permutation_test", "paired", _COLUMNS, _paired_columns)
