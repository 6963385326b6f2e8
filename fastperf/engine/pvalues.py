"""Shared p-value and status helpers of every test engine: one way to pick a tail by `alternative`,
one way to name why a test was not run."""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr

__all__ = ["pick_tail", "symmetric_pvalue", "normal_pvalue", "first_reason"]


def pick_tail(lower, upper, alternative: str):
    """The p-value for `alternative` from the two one-sided tails P(S <= s) and P(S >= s):
    "less" takes the lower tail, "greater" the upper one, "two-sided" min(1, 2 × the smaller)
    (the doubling rule of R's exact tests and scipy's)."""
    if alternative == "less":
        return lower
    if alternative == "greater":
        return upper
    return np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def symmetric_pvalue(cdf, statistic, alternative: str):
    """p of a statistic whose null distribution is continuous and symmetric about 0, with
    cumulative distribution function `cdf`: each tail computed directly (F(s), F(−s)),
    never as 1 − F; two-sided 2 F(−|s|)."""
    if alternative == "less":
        return cdf(statistic)
    if alternative == "greater":
        return cdf(-statistic)
    return np.minimum(1.0, 2.0 * cdf(-np.abs(statistic)))


def normal_pvalue(z, alternative: str):
    """p of a standard normal deviate `z` for `alternative` (`symmetric_pvalue` with Φ)."""
    return symmetric_pvalue(ndtr, z, alternative)


def first_reason(conditions, reasons, default: str) -> np.ndarray:
    """Per test, the reason of the first condition that holds, else `default` (string arrays
    built by one lookup: ``np.where`` on strings is slow on big batches)."""
    code = np.zeros(np.shape(conditions[0]), dtype=np.int8)
    for k in range(len(conditions) - 1, -1, -1):
        code[conditions[k]] = k + 1
    return np.array([default, *reasons])[code]
