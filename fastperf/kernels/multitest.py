"""Multiple-testing corrections per family of p-values, families as CSR segments.

Family ``g`` is ``pvalues[offsets[g]:offsets[g + 1]]``; NaN marks a missing p-value, which is
not part of the family (it does not count in the family size m) and gets NaN / not rejected.
Every arithmetic step is the one ``statsmodels.stats.multitest.multipletests`` performs, in the
same order, so corrected p-values and rejections are identical to statsmodels' bit for bit.
"""
import numpy as np

from fastperf.kernels.builds import group_kernel, prange

BONFERRONI = 0
HOLM = 1
HOCHBERG = 2
FDR_BH = 3
FDR_BY = 4


@group_kernel
def adjust_families(pvalues, offsets, method, alpha, harmonic) -> tuple[np.ndarray, np.ndarray,
                    np.ndarray]:
    """Corrected p-values and rejections per family.

    Parameters
    ----------
    pvalues : float64 array, in [0, 1] or NaN, families as CSR segments (read only).
    offsets : int64 CSR offsets of the families.
    method : int, one of BONFERRONI, HOLM, HOCHBERG, FDR_BH, FDR_BY.
    alpha : float, the family-wise error rate (or false discovery rate) to control.
    harmonic : float64 array, per family the harmonic number 1 + 1/2 + ... + 1/m of its size m
        (only read for FDR_BY).

    Returns
    -------
    corrected : float64 array like `pvalues`, clipped to 1, NaN where the p-value is NaN.
    reject : bool array like `pvalues`.
    n_tests : int64 array, per family the number of non-NaN p-values m.

    Notes
    -----
    Bonferroni; Holm (1979), Scand. J. Statist. 6, 65-70; Hochberg (1988), Biometrika 75,
    800-802; Benjamini & Hochberg (1995), J. R. Stat. Soc. B 57, 289-300; Benjamini & Yekutieli
    (2001), Ann. Statist. 29, 1165-1188 (as ``statsmodels.stats.multitest.multipletests``).
    """
    n_families = offsets.shape[0] - 1
    corrected = np.empty(pvalues.shape[0], dtype=np.float64)
    reject = np.zeros(pvalues.shape[0], dtype=np.bool_)
    n_tests = np.zeros(n_families, dtype=np.int64)
    for g in prange(n_families):
        start = offsets[g]
        stop = offsets[g + 1]
        size = stop - start
        if size == 0:
            continue
        segment = pvalues[start:stop]
        order = np.argsort(segment)  # NaN last, as numpy
        m = 0
        for k in range(size):
            if not np.isnan(segment[k]):
                m += 1
        n_tests[g] = m
        for k in range(m, size):
            corrected[start + order[k]] = np.nan
        if m == 0:
            continue
        p = np.empty(m, dtype=np.float64)
        for k in range(m):
            p[k] = segment[order[k]]
        adj = np.empty(m, dtype=np.float64)
        rej = np.zeros(m, dtype=np.bool_)
        if method == BONFERRONI:
            threshold = alpha / float(m)
            for k in range(m):
                rej[k] = p[k] <= threshold
                adj[k] = p[k] * float(m)
        elif method == HOLM:
            # step-down: reject until the first p_(k) > alpha / (m - k); cumulative maximum
            stopped = False
            running = -np.inf
            for k in range(m):
                if not stopped and p[k] > alpha / (m - k):
                    stopped = True
                rej[k] = not stopped
                raw = p[k] * (m - k)
                if raw > running:
                    running = raw
                adj[k] = running
        else:
            # step-up: reject everything up to the last k with p_(k) <= threshold_k;
            # cumulative minimum from the largest p-value down
            if method == HOCHBERG:
                for k in range(m):
                    rej[k] = p[k] <= alpha / (m - k)
                    adj[k] = (m - k) * p[k]
            else:
                for k in range(m):
                    factor = (k + 1) / float(m)
                    if method == FDR_BY:
                        factor = factor / harmonic[g]
                    rej[k] = p[k] <= factor * alpha
                    adj[k] = p[k] / factor
            any_later = False
            running = np.inf
            for k in range(m - 1, -1, -1):
                if rej[k]:
                    any_later = True
                rej[k] = any_later
                if adj[k] < running:
                    running = adj[k]
                adj[k] = running
        for k in range(m):
            value = adj[k]
            if value > 1.0:
                value = 1.0
            corrected[start + order[k]] = value
            reject[start + order[k]] = rej[k]
    return corrected, reject, n_tests
