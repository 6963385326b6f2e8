"""The one-way ANOVA of many groups at once, from per-cell moments (`fastperf.designs.anova`).

Lilja (seed 000): the variation splits into the variation between the alternatives (SSA) and
within them (SSE); F = MSA / MSE. Whole-array numpy over the groups' cell segments
(``np.add.reduceat``); p-values and critical values from ``scipy.special``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["one_way", "OneWayTable", "SUMS_OVERFLOW"]

#: Status of a group whose F and p are computed (on scaled values) but whose sums of squares,
#: mean squares or effects exceed the float64 range (those are NaN).
SUMS_OVERFLOW = "sums of squares beyond the float64 range: NaN, F and p kept"


# ----------------------------------------------------------------------------------------------
# The core: the ANOVA table from per-cell moments, all groups at once


@dataclass(frozen=True)
class OneWayTable:
    """Per-group figures (arrays of length n_groups) and per-cell effects (`one_way`)."""

    k: np.ndarray
    n: np.ndarray
    ssa: np.ndarray
    sse: np.ndarray
    df_a: np.ndarray
    df_e: np.ndarray
    msa: np.ndarray
    mse: np.ndarray
    f: np.ndarray
    pvalue: np.ndarray
    f_critical: np.ndarray
    df_welch: np.ndarray | None
    effect: np.ndarray
    status: np.ndarray
    mse_scaled: np.ndarray  # mse * 4**-scale: finite and nonzero where mse under- or overflows
    scale: np.ndarray
    share_a: np.ndarray
    share_e: np.ndarray


def one_way(n, mean, var, exponent, starts, alpha, welch, extra_status=(),
            sums=True) -> OneWayTable:
    """The one-way ANOVA of every group; group g's cells are ``starts[g]:starts[g + 1]``.

    `n`, `mean`, `var`, `exponent` are per cell (n = values used; cells with n = 0 do not count
    as alternatives; the mean is ``mean * 2**exponent`` and the variance
    ``var * 4**exponent``, as ``scaled_moments`` gives them).
    `extra_status` holds (condition per group, message) pairs checked first. Each group is
    computed scaled by the power of two of its largest cell, then its sums of squares and
    effects scaled back: finite data give a finite F; `sums` True: sums of squares or effects
    beyond the float64 range give the status `SUMS_OVERFLOW` (F and p kept).

    Parameters
    ----------
    n, mean, var, exponent : numpy.ndarray
        Per cell (``scaled_moments``).
    starts : numpy.ndarray of int
        The first cell of each group.
    alpha : float
        Significance level of the critical value.
    welch : bool
        Welch's ANOVA.
    extra_status : sequence of (numpy.ndarray, str)
        Conditions per group, checked first.
    sums : bool
        Check the sums of squares and effects for overflow.

    Returns
    -------
    OneWayTable

    Notes
    -----
    Lilja (seed 000): SSA = sum n_j (m_j - m)^2, SSE = sum (n_j - 1) s_j^2, F = MSA / MSE;
    Welch (1951) for ``welch``.
    """
    from fastperf.special_functions import special_function

    fdtrc, fdtri = special_function("fdtrc"), special_function("fdtri")

    n_groups = starts.shape[0]
    cells_per_group = np.diff(np.append(starts, n.shape[0]))
    cell_group = np.repeat(np.arange(n_groups), cells_per_group)
    nf = n.astype(np.float64)
    used = n > 0

    def total(x):
        return np.add.reduceat(x, starts) if n_groups else np.zeros(0)

    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        scale = (np.maximum.reduceat(np.where(used, exponent, np.iinfo(np.int64).min), starts)
                 if n_groups else np.zeros(0, dtype=np.int64))
        scale = np.where(scale == np.iinfo(np.int64).min, 0, scale)
        cell_scale = scale[cell_group]
        mean = np.ldexp(mean, exponent - cell_scale)
        var = np.ldexp(var, 2 * (exponent - cell_scale))
        k = total(used.astype(np.int64))
        n_group = total(n.astype(np.int64))
        grand_mean = total(np.where(used, nf * mean, 0.0)) / n_group
        effect = mean - grand_mean[cell_group]
        ssa = total(np.where(used, nf * effect * effect, 0.0))
        sse = total(np.where(n > 1, (nf - 1.0) * var, 0.0))
        df_a, df_e = k - 1, n_group - k
        msa = np.where(df_a > 0, ssa / df_a, np.nan)
        mse = np.where(df_e > 0, sse / df_e, np.nan)
        f = msa / mse
        ssa_scaled, sse_scaled, mse_scaled = ssa, sse, mse  # zero exactly when unscaled are
        share_a = np.where(ssa + sse > 0, ssa / (ssa + sse), np.nan)
        share_e = np.where(ssa + sse > 0, sse / (ssa + sse), np.nan)
        ssa, sse = np.ldexp(ssa, 2 * scale), np.ldexp(sse, 2 * scale)
        msa, mse = np.ldexp(msa, 2 * scale), np.ldexp(mse, 2 * scale)
        effect = np.ldexp(effect, cell_scale)
        overflow = total((used & ~np.isfinite(effect)).astype(np.int64)) > 0
        overflow |= np.isinf(ssa) | np.isinf(sse) | np.isinf(ssa + sse)
        dfn, dfd = df_a.astype(np.float64), df_e.astype(np.float64)
        df_welch = None
        conditions = list(extra_status) + [
            (k < 2, "fewer than 2 alternatives with values"),
            (df_e < 1, "no error degrees of freedom (1 value per alternative)"),
            ((sse_scaled == 0) & (ssa_scaled == 0), "all values equal"),
        ]
        if welch:
            w = np.where(used, nf / var, 0.0)
            w_total = total(w)
            welch_mean = total(np.where(used, w * mean, 0.0)) / w_total
            a = total(np.where(used, w * (mean - welch_mean[cell_group]) ** 2, 0.0)) / dfn
            lam = total(np.where(used, (1.0 - w / w_total[cell_group]) ** 2 / (nf - 1.0), 0.0))
            kf = k.astype(np.float64)
            f = a / (1.0 + 2.0 * (kf - 2.0) / (kf * kf - 1.0) * lam)
            dfd = (kf * kf - 1.0) / (3.0 * lam)
            df_welch = dfd
            unusable = total((used & ~((n > 1) & (var > 0))).astype(np.int64)) > 0
            conditions.append((unusable, "an alternative has fewer than 2 values or zero "
                                         "variance (Welch's ANOVA needs both)"))
        else:
            # zero variance within every alternative but different means: F = inf, p = 0 (scipy)
            conditions.append((sse_scaled == 0, "zero variance within alternatives"))
        conditions.append((~np.isfinite(f), "F statistic beyond the float64 range"))
        if sums:
            conditions.append((overflow, SUMS_OVERFLOW))
        status = np.select([c for c, _ in conditions], [m for _, m in conditions], default="ok")
        status = np.broadcast_to(status, (n_groups,)).copy()
        infinite = status == "zero variance within alternatives"
        failed = (status != "ok") & ~infinite & (status != SUMS_OVERFLOW)
        f = np.where(failed, np.nan, np.where(infinite, np.inf, f))
        pvalue = np.where(failed, np.nan, np.where(infinite, 0.0, fdtrc(dfn, dfd, f)))
        crit_ok = ~failed & (dfn > 0) & (dfd > 0)
        f_critical = np.where(crit_ok, fdtri(np.where(crit_ok, dfn, 1.0),
                                             np.where(crit_ok, dfd, 1.0), 1.0 - alpha), np.nan)
        if df_welch is not None:
            df_welch = np.where(failed, np.nan, df_welch)
    return OneWayTable(k, n_group, ssa, sse, df_a, df_e, msa, mse, f, pvalue, f_critical, df_welch,
                  effect, status, mse_scaled, scale, share_a, share_e)
