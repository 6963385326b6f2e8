"""Moment-based test engine: Student's and Welch's t-tests and the F-test of variances, from the
per-sample moments (n, NaN count, mean, variance) that one kernel call gives for a whole batch.

Formulas: Student (1908) pooled t; Welch (1947) t with the Welch-Satterthwaite degrees of
freedom; Fisher-Snedecor F = s1²/s2² with (n1 − 1, n2 − 1) degrees of freedom (R's var.test).
Used by `fastperf.ttest_ind` / `ttest_rel` / `ftest` and by the Speedup-Test's mean protocol.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import fdtr, fdtrc, stdtr, stdtrit

from fastperf.data.arrays import Samples
from fastperf.engine.pvalues import first_reason, pick_tail, symmetric_pvalue
from fastperf.kernels.moments import sample_moments, scaled_moments

__all__ = ["INFINITE", "sample_moments_of", "scaled_moments_of", "Moments", "infinite_counts",
           "segment_counts",
           "status_of", "t_pvalue", "t_quantile", "t_from_moments", "paired_t", "f_from_moments"]

#: Status of a test whose input holds +-inf (array forms; table forms refuse it outright).
INFINITE = "infinite value in input"


class Moments(NamedTuple):
    """Per-sample moments, scaled: the mean is scaled_mean * 2**exponent (rounded: `mean`;
    scaled_mean + scaled_mean_error to about an ulp of the ulp), the variance
    variance * 4**exponent."""

    n: np.ndarray
    n_nan: np.ndarray
    mean: np.ndarray
    scaled_mean: np.ndarray
    variance: np.ndarray
    exponent: np.ndarray
    scaled_mean_error: np.ndarray


def sample_moments_of(samples: Samples):
    """n, NaN count, mean and variance per sample (the variance inf where it overflows)."""
    return sample_moments(samples.values, samples.offsets, n_rows=samples.values.shape[0])


def scaled_moments_of(samples: Samples) -> Moments:
    """`Moments` per sample: finite for finite values, whatever their magnitude."""
    return Moments(*scaled_moments(samples.values, samples.offsets,
                                   n_rows=samples.values.shape[0]))


def segment_counts(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Number of True entries of `mask` per CSR segment (one cumulative sum, no loop)."""
    counts = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return counts[offsets[1:]] - counts[offsets[:-1]]


def infinite_counts(samples: Samples) -> np.ndarray:
    """Number of +-inf values per sample."""
    return segment_counts(np.isinf(samples.values), samples.offsets)


def status_of(conditions: list[tuple[np.ndarray, str]], size: int) -> np.ndarray:
    """Per-test status: the message of the first condition that holds, else "ok"
    (`first_reason` over the conditions broadcast to `size` tests)."""
    return first_reason([np.broadcast_to(condition, (size,)) for condition, _ in conditions],
                        [message for _, message in conditions], "ok")


def t_pvalue(t, df, alternative):
    """p-value of Student's t with `df` degrees of freedom; tails computed directly."""
    return symmetric_pvalue(lambda s: stdtr(df, s), t, alternative)


def t_quantile(p, df):
    return stdtrit(df, p)


def _finite(mean, n):
    """True where a sample's mean is finite or it has no values (its mean then NaN)."""
    return np.isfinite(mean) | (n == 0)


def t_from_moments(n1, nan1, mean1, var1, n2, nan2, mean2, var2, equal_var, exponent1=0,
                   exponent2=0):
    """t statistic pieces for two independent samples (scipy's formulas).

    Parameters
    ----------
    n1, nan1, mean1, var1, n2, nan2, mean2, var2 : numpy.ndarray
        Per test, each sample's count of values, of NaN, mean and variance (scaled by
        ``2**-exponent`` and ``4**-exponent`` when exponents are given, as `scaled_moments_of`
        gives them).
    equal_var : bool
        Student's pooled t (True) or Welch's.
    exponent1, exponent2 : numpy.ndarray of int or 0
        The samples' scale exponents.

    Returns
    -------
    t, df, se, estimate, status : numpy.ndarray
        The status names why a test has no result: NaN or infinite values, too few values,
        zero variance, or a statistic, mean difference or standard error beyond the float64
        range.

    Notes
    -----
    Computed on both samples scaled by the larger one's power of two (exact), then scaled
    back: finite data give finite results wherever those are representable. Student (1908);
    Welch (1947).
    """
    common = np.maximum(exponent1, exponent2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        var1 = np.ldexp(var1, 2 * (exponent1 - common))
        var2 = np.ldexp(var2, 2 * (exponent2 - common))
        if equal_var:
            df = (n1 + n2 - 2).astype(float)
            pooled = ((n1 - 1) * var1 + (n2 - 1) * var2) / df
            se = np.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
        else:
            vn1, vn2 = var1 / n1, var2 / n2
            # Welch-Satterthwaite on the two terms relative to the larger one: the squares
            # of tiny (but normal) variances would underflow into subnormals.
            larger = np.maximum(vn1, vn2)
            r1, r2 = vn1 / larger, vn2 / larger
            df = (r1 + r2) ** 2 / (r1 ** 2 / (n1 - 1) + r2 ** 2 / (n2 - 1))
            se = np.sqrt(vn1 + vn2)
        estimate = (np.ldexp(mean1, exponent1 - common)
                    - np.ldexp(mean2, exponent2 - common))
        t = estimate / se
        estimate, se = np.ldexp(estimate, common), np.ldexp(se, common)
    bad = status_of([
        (~_finite(mean1, n1) | ~_finite(mean2, n2), INFINITE),
        ((nan1 > 0) | (nan2 > 0), "NaN in input"),
        ((n1 < 2) | (n2 < 2), "fewer than 2 values in a sample"),
        (~(se > 0) & ~np.isinf(se), "zero variance in both samples"),
        (~np.isfinite(t) | ~np.isfinite(df), "t statistic beyond the float64 range"),
        (~np.isfinite(estimate) | ~np.isfinite(se),
         "mean difference or its standard error beyond the float64 range"),
    ], n1.shape[0])
    return t, df, se, estimate, bad


def paired_t(differences: Samples, exponent=0, infinite=None):
    """t statistic pieces of the one-sample t-test of paired differences.

    Parameters
    ----------
    differences : Samples
        The paired differences, possibly scaled by ``2**-exponent``.
    exponent : int
        The scale of `differences` (the estimate and standard error are scaled back).
    infinite : numpy.ndarray of bool, optional
        Per test, whether x or y held +-inf (their difference may be NaN).

    Returns
    -------
    n, t, df, se, mean, status : numpy.ndarray

    Notes
    -----
    Student (1908): t = mean / (sd / sqrt(n)), computed on the scaled moments.
    """
    n, nan, mean, scaled_mean, var, scale, _ = scaled_moments_of(differences)
    if infinite is None:
        infinite = ~_finite(mean, n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        se = np.sqrt(var / n)
        t = scaled_mean / se
        se, mean = np.ldexp(se, scale + exponent), np.ldexp(scaled_mean, scale + exponent)
    status = status_of([
        (infinite, INFINITE),
        (nan > 0, "NaN in input"),
        (n < 2, "fewer than 2 pairs"),
        (~(se > 0) & ~np.isinf(se), "zero variance of the differences"),
        (~np.isfinite(t), "t statistic beyond the float64 range"),
        (~np.isfinite(mean) | ~np.isfinite(se),
         "mean difference or its standard error beyond the float64 range"),
    ], n.shape[0])
    return n, t, (n - 1).astype(float), se, mean, status


def f_from_moments(n1, nan1, v1, n2, nan2, v2, alternative, exponent1=0, exponent2=0,
                   mean1=None, mean2=None):
    """F statistic, p-value, degrees of freedom and status of the F-test of variances.

    Parameters
    ----------
    n1, nan1, v1, n2, nan2, v2 : numpy.ndarray
        Per test, each sample's count of values, of NaN and variance (scaled by
        ``4**-exponent`` when exponents are given).
    alternative : {"two-sided", "less", "greater"}
    exponent1, exponent2 : numpy.ndarray of int or 0
        The samples' scale exponents.
    mean1, mean2 : numpy.ndarray, optional
        The samples' means, to name infinite input (a variance is NaN then).

    Returns
    -------
    f, p, df1, df2, status : numpy.ndarray

    Notes
    -----
    F = s1² / s2² ~ F(n1 - 1, n2 - 1) (Snedecor 1934; R's ``var.test``), the ratio of the
    scaled variances times 4**(exponent1 - exponent2).
    """
    df1, df2 = (n1 - 1).astype(float), (n2 - 1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        f = np.ldexp(v1 / v2, 2 * (np.asarray(exponent1) - exponent2))
    infinite = ((n1 > 1) & np.isnan(v1)) | ((n2 > 1) & np.isnan(v2))
    if mean1 is not None:
        infinite = infinite | ~_finite(mean1, n1) | ~_finite(mean2, n2)
    status = status_of([
        (infinite, INFINITE),
        ((nan1 > 0) | (nan2 > 0), "NaN in input"),
        ((n1 < 2) | (n2 < 2), "fewer than 2 values in a sample"),
        (~(v1 > 0) & ~(v2 > 0), "zero variance in both samples"),
        (np.isinf(f) & (v2 > 0), "F statistic beyond the float64 range"),
    ], n1.shape[0])  # a constant y alone gives F = inf, as R's var.test
    failed = status != "ok"
    f, df1, df2 = (np.where(failed, np.nan, a) for a in (f, df1, df2))
    lower, upper = fdtr(df1, df2, f), fdtrc(df1, df2, f)  # both tails directly
    p = pick_tail(lower, upper, alternative)
    return f, p, df1, df2, status
