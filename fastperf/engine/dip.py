"""Hartigan's dip test of unimodality: the dip and its p-value per sample of a batch.

The dip D_n of a sample is the largest distance between its empirical distribution function and
the nearest unimodal distribution function (Hartigan & Hartigan 1985, "The dip test of
unimodality", Ann. Statist. 13(1), 70-84), computed by algorithm AS 217 (P. M. Hartigan 1985,
Applied Statistics 34(3), 320-325) with Maechler's corrections as in R's ``diptest``
(`fastperf.kernels.dip`). It lies in [0, 1/4]; a large dip says the sample is at least bimodal.

The p-value is P(D_n >= d) under the uniform distribution, the least favourable unimodal null
(Hartigan & Hartigan 1985, section 5), read off a simulated table of the quantiles of
sqrt(n) D_n (`fastperf.engine.dip_null`, made by ``bench/dip_table.py``) as R's ``dip.test``
and Python's ``diptest.diptest`` read theirs: the table's rows are interpolated linearly in n
(beyond its largest n the largest n's row stands for all: sqrt(n) D_n converges in
distribution), then the probability linearly in sqrt(n) d between the quantiles around it.
Where quantiles tie (the dip's atom at its minimum for small n) the smallest probability is
taken, so the p-value errs on the large side. The table spans probabilities 0 to 0.999: a dip
beyond its 0.999 quantile gets p = 0.001, which then means p <= 0.001; a dip at or below its
least quantile gets p = 1.
"""
from __future__ import annotations

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.engine.dip_null import PROBABILITIES, QUANTILES, SIZES
from fastperf.kernels.dip import STATUS_MESSAGES, dip_statistics
from fastperf.kernels.dip import dip_pvalues as kernel_dip_pvalues

__all__ = ["MIN_N", "DIP_SIZES", "DIP_PROBABILITIES", "DIP_QUANTILES", "dip_test",
           "dip_test_status", "dip_pvalues"]

#: The smallest sample the table covers; a smaller one has a dip but no p-value (its dip is
#: 1/(2n) or 0 whatever the data: nothing to test, as ``diptest.diptest`` warns).
MIN_N = SIZES[0]

#: The null table as the kernels read it: sample sizes, probabilities, quantiles of sqrt(n) D_n.
DIP_SIZES = np.ascontiguousarray(SIZES, dtype=np.float64)
DIP_PROBABILITIES = np.ascontiguousarray(PROBABILITIES, dtype=np.float64)
DIP_QUANTILES = np.ascontiguousarray(QUANTILES, dtype=np.float64)


def dip_test(samples: Samples) -> tuple[np.ndarray, np.ndarray]:
    """Hartigan's dip and its p-value for each sample of sorted values.

    Parameters
    ----------
    samples : Samples
        The samples as CSR segments, each sorted ascending (the diagnostics pass the sorted
        log values of each group).

    Returns
    -------
    dip : numpy.ndarray of float64
        Per sample, the dip in [0, 1/4]: 0.0 for a single value or all values equal; NaN for an
        empty sample, a NaN or infinite value, or values not sorted.
    pvalue : numpy.ndarray of float64
        Per sample, P(D_n >= dip) under the uniform null, in [0.001, 1] (0.001 meaning
        "at most 0.001"); NaN where the dip is NaN or the sample has fewer than `MIN_N` values.

    Notes
    -----
    D_n = sup_x |F_n(x) - G(x)| minimised over unimodal G (Hartigan & Hartigan 1985,
    Ann. Statist. 13, 70-84; algorithm AS 217, Hartigan 1985, Applied Statistics 34, 320-325,
    with R diptest's corrections); the p-value interpolates a table of the quantiles of
    sqrt(n) D_n for uniform samples (see the module docstring). One kernel call for the batch.
    """
    dip, pvalue, _status = dip_test_status(samples)
    return dip, pvalue


def dip_test_status(samples: Samples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`dip_test`'s dip and p-value, and a status per sample: "ok", or why the dip is NaN
    ("no values", "NaN or infinite value in input", "values not sorted") or the p-value is
    ("n < 4").

    Parameters
    ----------
    samples : Samples
        The samples as CSR segments, each sorted ascending.

    Returns
    -------
    dip, pvalue : numpy.ndarray of float64
        As `dip_test` gives them.
    status : numpy.ndarray of object (str)
        Per sample, "ok" or the reason for a NaN.
    """
    values = np.ascontiguousarray(samples.values, dtype=np.float64)
    offsets = np.ascontiguousarray(samples.offsets, dtype=np.int64)
    dip, codes = dip_statistics(values, offsets, n_rows=values.shape[0])
    sizes = np.diff(offsets)
    pvalue = dip_pvalues(dip, sizes)
    status = np.asarray(STATUS_MESSAGES, dtype=object)[codes]
    status[(codes == 0) & (sizes < MIN_N)] = f"n < {MIN_N}"
    return dip, pvalue, status


def dip_pvalues(dip: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """P(D_n >= dip) under the uniform null, from the table (see the module docstring).

    Parameters
    ----------
    dip : numpy.ndarray of float64
        Dips.
    sizes : numpy.ndarray of int
        The sample size n of each dip.

    Returns
    -------
    numpy.ndarray of float64
        The p-values, in [1 - max(PROBABILITIES), 1]; NaN where the dip is NaN or n < `MIN_N`.

    Notes
    -----
    The kernel `fastperf.kernels.dip.dip_pvalue` per dip, as the run diagnostics read it.
    """
    dip = np.ascontiguousarray(dip, dtype=np.float64).reshape(-1)
    n = np.ascontiguousarray(sizes, dtype=np.float64).reshape(-1)
    return kernel_dip_pvalues(dip, n, DIP_SIZES, DIP_PROBABILITIES, DIP_QUANTILES)
