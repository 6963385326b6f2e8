"""Permutation tests, batched: the difference of means or medians of two samples, independent
(values reassigned between the samples) or paired (signs of the differences flipped).

Exact when the number of distinct rearrangements (C(n1 + n2, n1) independent, 2**n paired) is at
most `n_resamples`, as scipy's ``permutation_test``; otherwise `n_resamples` random
rearrangements from the counter-based generator of ``fastperf.kernels.random``, each test's
streams keyed by its identity (its group's key values, ``fastperf.data.identity``; its position
for arrays): reproducible whatever the thread count, the other tests, their order or the chunk.
One kernel call runs every test of the batch.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from scipy.special import gammaln

from fastperf.data.validation import (
    check_alternative, check_choice, check_flag, check_seed, check_whole_number,
)
from fastperf.data.budget import check_budget, describe_cost
from fastperf.data.arrays import Samples, paired_samples, two_samples
from fastperf.data.identity import position_identities
from fastperf.engine.parametric import INFINITE, infinite_counts
from fastperf.engine.sorting import sort_sample_pairs, sort_samples
from fastperf.errors import InputError
from fastperf.kernels.permutation import MEAN_DIFF, MEDIAN_DIFF, permutation_counts
from fastperf.progress import check_progress, progress_chunks
from fastperf.results.base import BenchmarkResult, TestResult
from fastperf.stats.forms import TableForm, check_not_table, check_one_form, paired_differences
from fastperf.io.read import is_measurement_table

__all__ = ["permutation_test", "PermutationTestResult", "STATISTICS"]

#: The statistics, by name: x - y for independent samples, of the differences x - y if paired.
STATISTICS = ("mean_diff", "median_diff")
#: The status of a finite test whose statistic lies beyond the float64 range (its p-value,
#: computed on the values divided by a power of two, is kept).
OVERFLOW = "statistic beyond the float64 range (p-value kept)"


class PermutationTestResult(TestResult):
    """Result of `permutation_test` on arrays: ``statistic``, ``pvalue``, ``status`` shaped like
    the batch; ``exact`` (bool per test: the full enumeration was used); ``n_resamples`` (per
    test: the number of rearrangements in the null distribution); ``seed`` (the seed used)."""

    # set by TestResult.__init__ (numpy arrays shaped like the batch, numpy scalars for a single
    # test); declared for type checkers
    exact: Any
    n_resamples: Any
    seed: Any


def _check_options(statistic, alternative, n_resamples, seed, progress=None) -> int:
    """Validate the options; return the seed to use (one drawn when `seed` is None)."""
    check_progress(progress)
    check_choice(statistic, "statistic", STATISTICS)
    check_alternative(alternative)
    check_whole_number(n_resamples, "n_resamples", minimum=1)
    return check_seed(seed)


def _segment_nans(samples: Samples) -> np.ndarray:
    """The number of NaN values per CSR segment."""
    counts = np.concatenate([[0], np.cumsum(np.isnan(samples.values), dtype=np.int64)])
    return counts[samples.offsets[1:]] - counts[samples.offsets[:-1]]


def _finish(observed: np.ndarray, p: np.ndarray, status: np.ndarray, halved=None):
    """The statistic doubled back where `halved`; NaN and `OVERFLOW` for an "ok" test whose
    statistic lies beyond the float64 range (the p-value is kept)."""
    if halved is not None:
        with np.errstate(over="ignore"):
            observed = np.where(halved, observed * 2.0, observed)
    beyond = (status == "ok") & ~np.isfinite(observed)
    return np.where(beyond, np.nan, observed), p, np.where(beyond, OVERFLOW, status)


def _half_magnitudes(xs: Samples, ys: Samples, halved: np.ndarray) -> np.ndarray:
    """Per paired test, half the largest |x_i| + |y_i| of its pairs (halved again where its
    differences are `halved`): the size the rounding of the differences x_i - y_i scales with,
    for the tie tolerance (`fastperf.kernels.permutation.TIE_EPSILONS`). Halves, so that
    |x| + |y| beyond the float64 range stays finite; 0 for an empty test, NaN where NaN."""
    with np.errstate(invalid="ignore"):
        half = np.abs(xs.values) / 2.0 + np.abs(ys.values) / 2.0
    starts = xs.offsets[:-1]
    filled = xs.offsets[1:] > starts
    out = np.zeros(len(xs))
    if filled.any():
        out[filled] = np.maximum.reduceat(half, starts[filled])
    return np.where(halved, out / 2.0, out)


def _exact_independent(n1: np.ndarray, n2: np.ndarray, n_resamples: int) -> np.ndarray:
    """Whether C(n1 + n2, n1) <= n_resamples, computed once per distinct pair of sizes."""
    pairs, inverse = np.unique(np.stack([n1, n2], axis=1), axis=0, return_inverse=True)
    fits = np.array([math.comb(int(a) + int(b), int(a)) <= n_resamples for a, b in pairs],
                    dtype=np.bool_)
    return fits[inverse.reshape(-1)] if fits.size else np.zeros(n1.shape[0], dtype=np.bool_)


def _exact_paired(n: np.ndarray, n_resamples: int) -> np.ndarray:
    # 2**n <= n_resamples  <=>  n <= floor(log2(n_resamples)), computed in integers
    return n <= min(int(n_resamples).bit_length() - 1, 62)


def _check_size(xs: Samples, ys: Samples, valid, exact, paired: bool,
                n_resamples: int) -> tuple[int, float]:
    """Refuse, before running, a call whose work cannot finish (`check_budget`), else return the
    estimate (bytes held at once, elementary steps): per test,
    n_resamples rearrangements (or the full enumeration when exact: C(n1 + n2, n1) or 2**n of
    them, each at most n_resamples) of its n1 + n2 values; the memory is a few copies of the
    values."""

    n1 = xs.sizes.astype(np.float64)
    n2 = np.zeros_like(n1) if paired else ys.sizes.astype(np.float64)
    sizes = n1 + n2
    with np.errstate(over="ignore"):  # the enumerations (at most n_resamples each: see exact)
        enumerated = (np.exp2(n1) if paired else
                      np.exp(gammaln(sizes + 1) - gammaln(n1 + 1) - gammaln(n2 + 1)))
    counts = np.where(exact, enumerated, float(n_resamples))
    work = float(np.sum(np.where(valid, counts * sizes, 0.0)))
    needed = 8 * 4 * int(sizes.sum()) + 32 * len(xs)
    check_budget("permutation_test", "n_resamples", int(n_resamples),
                 bytes_needed=needed, operations=work,
                 detail=f"{int(valid.sum())} test(s), {int(sizes.sum())} values, "
                        f"{int(n_resamples)} rearrangements per test not enumerated exactly")
    return needed, work


def _run(xs: Samples, ys: Samples | None, valid, exact, statistic, alternative, n_resamples,
         seed, identities, progress=None, half_magnitudes=None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kernel calls (one per chunk of tests, see `fastperf.progress`; test t's streams keyed by
    ``identities[t]``) and p-values; invalid tests get NaN. Paired (`ys` None): `xs` holds the
    differences and `half_magnitudes` (`_half_magnitudes`) the pairs' sizes."""
    paired = ys is None
    if ys is None:
        ys = Samples(np.empty(0), np.zeros(len(xs) + 1, dtype=np.int64))
    if half_magnitudes is None:
        half_magnitudes = np.zeros(len(xs))
    half_magnitudes = np.ascontiguousarray(half_magnitudes, dtype=np.float64)
    code = MEAN_DIFF if statistic == "mean_diff" else MEDIAN_DIFF
    n_rows = (xs.values.shape[0] + ys.values.shape[0]) * min(n_resamples, 1 << 20)
    needed, steps = _check_size(xs, ys, valid, exact, paired, n_resamples)
    x_values = np.ascontiguousarray(xs.values, dtype=np.float64)
    y_values = np.ascontiguousarray(ys.values, dtype=np.float64)
    xo, yo = xs.offsets.astype(np.int64), ys.offsets.astype(np.int64)
    valid_flags = np.ascontiguousarray(valid, dtype=np.bool_)
    exact_flags = np.ascontiguousarray(exact, dtype=np.bool_)
    identities = np.ascontiguousarray(identities, dtype=np.uint64)
    parts = []
    for a, b in progress_chunks("permutation_test", len(xs), progress, steps,
                                describe_cost(steps, needed)):
        # chunks of tests, each one kernel call over its tests (streams keyed by identity)
        parts.append(permutation_counts(
            x_values, xo[a:b + 1], y_values, yo[a:b + 1], valid_flags[a:b], exact_flags[a:b],
            paired, code, int(n_resamples), np.uint64(seed), identities[a:b],
            half_magnitudes[a:b], n_rows=n_rows))
    observed, n_less, n_greater, n_total = (np.concatenate(column) for column in zip(*parts))
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
    progress: bool | None = None,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
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
    >= observed ("greater"), within gamma = 16 eps M, M the largest |value| (paired: the
    largest |x_i| + |y_i|), a bound on the rounding of statistics equal in exact arithmetic
    (scipy's 100 eps |observed| misses ties where |observed| << M, as near 0); "two-sided" is
    min(1, 2 min(p_less, p_greater)), as ``scipy.stats.permutation_test``. Exact p-values are
    those of exact arithmetic on the values, ties included, whatever their order.

    Parameters
    ----------
    data : (x, y) tuple of array_like, or a measurement table
        Arrays: samples along `axis`, the other axes batched (and broadcast). A test with NaN,
        an infinite value ("infinite value in input") or an empty sample gets NaN and its
        reason in ``status``; a statistic beyond the float64 range gets NaN and `OVERFLOW`
        (its p-value, computed on the values divided by a power of two, is kept; paired
        differences that overflow are taken halved). Paired arrays must have the same
        length along `axis`. **Table form**: a measurement table (or path) with `baseline` and
        `candidate` variant names: one test per benchmark, x = baseline, y = candidate (nulls
        dropped and counted); ``paired=True`` pairs the runs by the `pair` column.
    statistic : {"mean_diff", "median_diff"}
    alternative : {"two-sided", "less", "greater"}
        "greater": the statistic of x - y is larger than chance (for times with x = baseline:
        the candidate is faster).
    n_resamples : int
        Random rearrangements per test, and the largest enumeration done exactly.
    seed : int or None
        Seed of the counter-based generator; None draws one (reported as ``seed``). The same seed
        gives the same p-values whatever the number of threads. A test's streams are keyed by
        the seed and its identity: in the table form its benchmark's key values
        (`fastperf.data.identity.group_identities`), each sample's values (differences)
        taken in ascending order, so a benchmark's p-value is the same alone, among others, in
        any row order, or in any chunk; on arrays its position in the batch.
    axis, paired, baseline, candidate, by, variant, value, pair : as for ``ttest_ind`` /
        ``ttest_rel``.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`);
        a paired test pairs them on the block (nested levels without a block are an error).
    progress : bool or None
        A progress bar on stderr, with the cost estimate first: None (default) when stderr is a
        terminal and the estimated work is at least 1e9 steps; True always; False never. The
        tests then run in up to 50 chunks, with the same results.

    Returns
    -------
    PermutationTestResult (arrays) or BenchmarkResult (table form, ``.benchmarks`` one row per
    benchmark: keys, sample sizes, dropped counts, ``statistic``, ``pvalue``, ``exact``,
    ``status``; ``summary`` holds the seed).
    """
    seed = _check_options(statistic, alternative, n_resamples, seed, progress)
    paired = check_flag(paired, "paired")
    options: dict[str, Any] = dict(statistic=statistic, alternative=alternative,
                                   n_resamples=n_resamples, seed=seed)
    table = is_measurement_table(data)
    check_one_form("permutation_test", table, axis=axis, baseline=baseline, candidate=candidate,
                   by=by, variant=variant, value=value, pair=pair,
                   levels=levels, block=block)
    if table:
        form = PAIRED_TABLE if paired else INDEPENDENT_TABLE
        return form.run(data, baseline=baseline, candidate=candidate, by=by, variant=variant,
                        value=value, pair=pair, levels=levels, block=block,
                        summary={**options, "paired": bool(paired)},
                        progress=progress, **options)
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise InputError("data must be a tuple (x, y) of arrays, or a measurement table "
                         "with baseline= and candidate=")
    check_not_table(data[0], "permutation_test")
    x, y = data
    if paired:
        xs, ys, batch_shape = paired_samples(x, y, axis)
        d, halved = paired_differences(xs, ys)
        n = d.sizes
        status = np.select([(_segment_nans(xs) > 0) | (_segment_nans(ys) > 0),
                            (infinite_counts(xs) > 0) | (infinite_counts(ys) > 0), n < 1],
                           ["NaN in input", INFINITE, "no pairs"], default="ok")
        valid = status == "ok"
        exact = _exact_paired(n, n_resamples) & valid
        observed, p, total = _run(d, None, valid, exact, identities=position_identities(len(d)),
                                  progress=progress,
                                  half_magnitudes=_half_magnitudes(xs, ys, halved), **options)
        observed, p, status = _finish(observed, p, status, halved)
    else:
        xs, ys, batch_shape = two_samples(x, y, axis)
        n1, n2 = xs.sizes, ys.sizes
        status = np.select([(_segment_nans(xs) > 0) | (_segment_nans(ys) > 0),
                            (infinite_counts(xs) > 0) | (infinite_counts(ys) > 0),
                            (n1 < 1) | (n2 < 1)],
                           ["NaN in input", INFINITE, "empty sample"], default="ok")
        valid = status == "ok"
        exact = _exact_independent(n1, n2, n_resamples) & valid
        observed, p, total = _run(xs, ys, valid, exact, identities=position_identities(len(xs)),
                                  progress=progress, **options)
        observed, p, status = _finish(observed, p, status)
    return PermutationTestResult.from_batch(batch_shape, observed, p, status, exact=exact,
                                            n_resamples=total, seed=seed)


def _independent_columns(xs: Samples, ys: Samples, **options):
    # each sample's values in ascending order: a test does not depend on its rows' order
    xs, ys = sort_sample_pairs(xs, ys)
    n1, n2 = xs.sizes, ys.sizes
    status = np.select([(infinite_counts(xs) > 0) | (infinite_counts(ys) > 0),
                        (n1 < 1) | (n2 < 1)], [INFINITE, "empty sample"], default="ok")
    valid = status == "ok"
    exact = _exact_independent(n1, n2, options["n_resamples"]) & valid
    observed, p, status = _finish(*_run(xs, ys, valid, exact, **options)[:2], status)
    return {"statistic": observed, "pvalue": p, "exact": exact, "status": status}, []


def _paired_columns(xs: Samples, ys: Samples, **options):
    d, halved = paired_differences(xs, ys)
    d = sort_samples(d, in_place=True)  # ours, ascending: the pairs' order changes nothing
    status = np.select([(infinite_counts(xs) > 0) | (infinite_counts(ys) > 0), d.sizes < 1],
                       [INFINITE, "no pairs"], default="ok")
    valid = status == "ok"
    exact = _exact_paired(d.sizes, options["n_resamples"]) & valid
    observed, p, status = _finish(*_run(d, None, valid, exact, **options,
                                        half_magnitudes=_half_magnitudes(xs, ys, halved))[:2],
                                  status, halved)
    return {"statistic": observed, "pvalue": p, "exact": exact, "status": status}, []


_COLUMNS = ("statistic", "pvalue", "exact", "status")
INDEPENDENT_TABLE = TableForm("permutation_test", "independent", _COLUMNS, _independent_columns,
                              identities=True)
PAIRED_TABLE = TableForm("permutation_test", "paired", _COLUMNS, _paired_columns,
                         identities=True)
