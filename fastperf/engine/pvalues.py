"""Shared p-value and status helpers of every test engine: one way to pick a tail by `alternative`,
one way to name why a test was not run."""
from __future__ import annotations

import numpy as np

__all__ = ["pick_tail", "normal_pvalue", "first_reason"]


def pick_tail(lower, upper, alternative: str):
    """The p-value for `alternative` from the two one-sided tails P(S <= s) and P(S >= s):
    "less" takes the lower tail, "greater" the upper one, "two-sided" min(1, 2 × the smaller)
    (the doubling rule of R's exact tests and scipy's)."""
    if alternative == "less":
        return lower
    if alternative == "greater":
        return upper
    return np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def normal_pvalue(z, alternative: str):
    """p of a standard normal deviate `z` for `alternative`, each tail computed directly
    (Φ(z), Φ(−z)), never as 1 − Φ."""
    from scipy.special import ndtr

    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * ndtr(-np.abs(z)))
    return pick_tail(ndtr(z) if alternative == "less" else None,
                     ndtr(-z) if alternative == "greater" else None, alternative)


def first_reason(conditions, reasons, default: str) -> np.ndarray:
    """Per test, the reason of the first condition that holds, else `default` (string arrays
    built by one lookup: ``np.where`` on strings is slow on big batches)."""
    code = np.zeros(np.shape(conditions[0]), dtype=np.int8)
    for k in range(len(conditions) - 1, -1, -1):
        code[conditions[k]] = k + 1
    return np.array([default, *reasons])[code]
