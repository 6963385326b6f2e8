"""Moment-based test engine: Student's and Welch's t-tests and the F-test of variances, from the
per-sample moments (n, NaN count, mean, variance) that one kernel call gives for a whole batch.

Formulas: Student (1908) pooled t; Welch (1947) t with the Welch-Satterthwaite degrees of
freedom; Fisher-Snedecor F = s1²/s2² with (n1 − 1, n2 − 1) degrees of freedom (R's var.test).
Used by `fastperf.ttest_ind` / `ttest_rel` / `ftest` and by the Speedup-Test's mean protocol.
"""
from __future__ import annotations

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.engine.pvalues import pick_tail, symmetric_pvalue

__all__ = ["sample_moments_of", "status_of", "t_pvalue", "t_quantile", "t_from_moments",
           "paired_t", "f_from_moments"]


def sample_moments_of(samples: Samples):
    from fastperf.kernels.moments import sample_moments

    return sample_moments(samples.values, samples.offsets, n_rows=samples.values.shape[0])


def status_of(conditions: list[tuple[np.ndarray, str]], size: int) -> np.ndarray:
    """Per-test status: the message of the first condition that holds, else "ok"."""
    status = np.select([c for c, _ in conditions], [m for _, m in conditions], default="ok")
    return np.broadcast_to(status, (size,)).copy()


def t_pvalue(t, df, alternative):
    """p-value of Student's t with `df` degrees of freedom; tails computed directly."""
    from scipy.special import stdtr

    return symmetric_pvalue(lambda s: stdtr(df, s), t, alternative)


def t_quantile(p, df):
    from scipy.special import stdtrit

    return stdtrit(df, p)


def t_from_moments(n1, nan1, mean1, var1, n2, nan2, mean2, var2, equal_var):
    """t statistic pieces for two independent samples (scipy's formulas)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if equal_var:
            df = (n1 + n2 - 2).astype(float)
            pooled = ((n1 - 1) * var1 + (n2 - 1) * var2) / df
            se = np.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
        else:
            vn1, vn2 = var1 / n1, var2 / n2
            df = (vn1 + vn2) ** 2 / (vn1 ** 2 / (n1 - 1) + vn2 ** 2 / (n2 - 1))
            se = np.sqrt(vn1 + vn2)
        estimate = mean1 - mean2
        t = estimate / se
    bad = status_of([
        ((nan1 > 0) | (nan2 > 0), "NaN in input"),
        ((n1 < 2) | (n2 < 2), "fewer than 2 values in a sample"),
        (~(se > 0), "zero variance in both samples"),
    ], n1.shape[0])
    return t, df, se, estimate, bad


def paired_t(differences: Samples):
    """t statistic pieces of the one-sample t-test of paired differences."""
    n, nan, mean, var = sample_moments_of(differences)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(var / n)
        t = mean / se
    status = status_of([
        (nan > 0, "NaN in input"),
        (n < 2, "fewer than 2 pairs"),
        (~(se > 0), "zero variance of the differences"),
    ], n.shape[0])
    return n, t, (n - 1).astype(float), se, mean, status


def f_from_moments(n1, nan1, v1, n2, nan2, v2, alternative):
    from scipy.special import fdtr, fdtrc

    df1, df2 = (n1 - 1).astype(float), (n2 - 1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = v1 / v2
    status = status_of([
        ((nan1 > 0) | (nan2 > 0), "NaN in input"),
        ((n1 < 2) | (n2 < 2), "fewer than 2 values in a sample"),
        (~(v1 > 0) & ~(v2 > 0), "zero variance in both samples"),
    ], n1.shape[0])  # a constant y alone gives F = inf, as R's var.test
    failed = status != "ok"
    f, df1, df2 = (np.where(failed, np.nan, a) for a in (f, df1, df2))
    lower, upper = fdtr(df1, df2, f), fdtrc(df1, df2, f)  # both tails directly
    p = pick_tail(lower, upper, alternative)
    return f, p, df1, df2, status
