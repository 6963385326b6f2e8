"""Two-sample Kolmogorov-Smirnov engine: D, its sign and the p-value of every pair of samples in
one kernel call (Smirnov 1939; exact p by Hodges' 1958 path counting, with ties conditional on
the tie pattern as Schröer & Trenkler 1995; asymptotic by the Kolmogorov distribution as scipy).
Used by `fastperf.ks_2samp` and the Speedup-Test's median protocol (KS on centred samples)."""
from __future__ import annotations

import numpy as np
from scipy.special import smirnov

from fastperf.data.arrays import Samples
from fastperf.data.validation import ALTERNATIVES, check_alternative, check_choice
from fastperf.kernels import ks

__all__ = ["KS_METHODS", "KS_CENTERS", "ks_options", "ks_pairs"]


KS_METHODS = ("auto", "exact", "asymp")


KS_CENTERS = (None, "median")


def ks_options(alternative: str, method: str, center: str | None) -> tuple[int, int, bool]:
    """Check the options; return the kernel's alternative and method codes and the centring flag."""
    check_alternative(alternative)
    check_choice(method, "method", KS_METHODS)
    check_choice(center, "center", KS_CENTERS)
    return ALTERNATIVES.index(alternative), KS_METHODS.index(method), center == "median"


def ks_pairs(xs: Samples, ys: Samples, alternative: str, method: str, center: str | None,
              ) -> tuple[dict[str, np.ndarray], list[str]]:
    """KS test of every pair (xs[i], ys[i]): per-pair arrays and the fallback messages."""
    alternative_code, method_code, center_median = ks_options(alternative, method, center)
    x_offsets = np.ascontiguousarray(xs.offsets, dtype=np.int64)
    y_offsets = np.ascontiguousarray(ys.offsets, dtype=np.int64)
    d, p, sign, status_code, source, fallback = ks.ks_2samp_pairs(
        np.ascontiguousarray(xs.values, dtype=np.float64), x_offsets,
        np.ascontiguousarray(ys.values, dtype=np.float64), y_offsets,
        alternative_code, method_code, center_median,
        n_rows=xs.values.shape[0] + ys.values.shape[0],
    )
    status = np.asarray(ks.STATUS_MESSAGES)[status_code]
    smirnov_branch = source == ks.FROM_SMIRNOV
    if smirnov_branch.any():
        n1, n2 = np.diff(x_offsets)[smirnov_branch], np.diff(y_offsets)[smirnov_branch]
        m, n = np.maximum(n1, n2).astype(float), np.minimum(n1, n2).astype(float)
        en = np.round(m * n / (m + n)).astype(np.int64)
        p[smirnov_branch] = np.clip(2 * smirnov(en, d[smirnov_branch]), 0.0, 1.0)
    messages = []
    impossible = int((fallback == ks.EXACT_IMPOSSIBLE).sum())
    if impossible:
        messages.append(
            f"ks_2samp: exact p-value not possible for {impossible} pair(s) whose sizes have "
            "n1 n2 / gcd(n1, n2)**2 >= 2**31 - 1; the asymptotic p-value was used (as scipy)"
        )
    failed = int((fallback == ks.EXACT_FAILED).sum())
    if failed:
        messages.append(
            f"ks_2samp: exact p-value unsuccessful for {failed} pair(s) (floating-point "
            "overflow, or rounding beyond [0, 1]); the asymptotic p-value was used (as scipy)"
        )
    too_large = int((fallback == ks.TIES_TOO_LARGE).sum())
    if too_large:
        messages.append(
            f"ks_2samp: exact p-value conditional on the ties not computed for {too_large} "
            f"tied pair(s) with n1 n2 > {ks.MAX_TIED_CELLS:,}; the continuous-data exact p-value "
            "was used (conservative, as scipy)"
        )
    out = {
        "statistic": d, "pvalue": p, "statistic_sign": sign, "status": status,
        "pvalue_method": np.asarray(ks.PVALUE_SOURCES)[source],
    }
    return out, messages
