"""Multiple-testing corrections: family-wise error (Bonferroni, Holm, Hochberg) and false
discovery rate (Benjamini-Hochberg, Benjamini-Yekutieli), for many families at once.

SPARC (Tullos et al. 2021, seed 003) corrects the per-benchmark tests of an evaluation for the
family-wise error rate (Bonferroni; Holm as the less conservative option). `multipletests`
reproduces ``statsmodels.stats.multitest.multipletests`` exactly, but for a whole batch of
families in one call: rows of an N-d array (`axis`), or ragged families of a flat array given by
labels (`groups=`) or CSR offsets (`offsets=`), e.g. one family per benchmark group of a table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
from numpy.typing import ArrayLike

from fastperf.data.validation import (
    broadcast_arrays, check_axis, check_unit_interval, real_array,
)
from fastperf.data.arrays import shaped
from fastperf.errors import InputError
from fastperf.kernels import multitest as kernels


__all__ = [
    "MultipleTestsResult",
    "multipletests",
    "bonferroni_alpha",
    "sidak_alpha",
    "fwer_bound",
    "e_bh",
    "MULTITEST_METHODS",
]

#: Accepted `method` names (statsmodels' spellings included), mapped to the canonical one.
MULTITEST_METHODS = {
    "bonferroni": "bonferroni",
    "b": "bonferroni",
    "bonf": "bonferroni",
    "holm": "holm",
    "h": "holm",
    "hochberg": "hochberg",
    "simes-hochberg": "hochberg",
    "sh": "hochberg",
    "fdr_bh": "fdr_bh",
    "fdr_i": "fdr_bh",
    "fdr_p": "fdr_bh",
    "fdri": "fdr_bh",
    "fdrp": "fdr_bh",
    "fdr_by": "fdr_by",
    "fdr_n": "fdr_by",
    "fdr_c": "fdr_by",
    "fdrn": "fdr_by",
    "fdrcorr": "fdr_by",
}


@dataclass(frozen=True, eq=False)
class MultipleTestsResult:
    """Result of `multipletests`; unpacks like statsmodels' 4-tuple:
    ``reject, pvalues_corrected, alpha_sidak, alpha_bonferroni = multipletests(p)``.

    Attributes
    ----------
    reject : bool array shaped like the p-values; False where the p-value is NaN.
    pvalues_corrected : float array shaped like the p-values, in [0, 1]; NaN where the p-value
        is NaN.
    alpha_sidak : per family, ``1 - (1 - alpha)^(1/m)``; NaN for a family with no p-value.
    alpha_bonferroni : per family, ``alpha / m``; NaN for a family with no p-value.
    n_tests : per family, m, the number of non-NaN p-values (the family size used).
    groups : the family labels (sorted distinct values of `groups=`) the per-family arrays
        follow, or None when families are rows along `axis` or CSR segments.
    method : str, the canonical method name; alpha : float.

    Per-family arrays are numpy scalars for a single 1-d family, shaped like the batch (the
    input without `axis`) for an N-d input, and 1-d (one entry per family) for ragged families.
    """

    reject: np.ndarray
    pvalues_corrected: np.ndarray
    alpha_sidak: Any
    alpha_bonferroni: Any
    n_tests: Any
    groups: np.ndarray | None
    method: str
    alpha: float

    def __iter__(self) -> Iterator[Any]:
        return iter((self.reject, self.pvalues_corrected, self.alpha_sidak, self.alpha_bonferroni))

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index):
        return (self.reject, self.pvalues_corrected, self.alpha_sidak, self.alpha_bonferroni)[index]


def _alpha_iv(alpha: float) -> float:
    return check_unit_interval(alpha, "alpha")


def _method_iv(method: str) -> str:
    try:
        return MULTITEST_METHODS[str(method).lower()]
    except (KeyError, AttributeError):
        raise InputError(
            f"unknown method {method!r}; choose one of 'bonferroni', 'holm', 'hochberg', "
            "'fdr_bh', 'fdr_by'"
        ) from None


def _pvalues_iv(pvalues: ArrayLike) -> np.ndarray:
    p = real_array(pvalues, "pvalues")
    if p.ndim == 0:
        raise InputError("pvalues must have at least one dimension, got a scalar")
    outside = (p < 0) | (p > 1)  # NaN compares False: allowed (missing)
    if outside.any():
        where = tuple(int(i) for i in np.argwhere(outside)[0])
        raise InputError(
            f"p-values must lie in [0, 1] (or be NaN); got {float(p[where])!r} at index {where}"
        )
    return p


def _offsets_iv(offsets: ArrayLike, n: int) -> np.ndarray:
    o = np.asarray(offsets)
    if o.ndim != 1 or o.shape[0] < 1 or not np.issubdtype(o.dtype, np.integer):
        raise InputError("offsets must be a 1-d integer array of CSR offsets (family g is "
                         "pvalues[offsets[g]:offsets[g + 1]])")
    o = o.astype(np.int64)
    if o[0] != 0 or o[-1] != n or (np.diff(o) < 0).any():
        raise InputError(
            f"offsets must start at 0, end at len(pvalues) = {n} and never decrease; got "
            f"first {o[0]}, last {o[-1]}"
        )
    return o


def _harmonic_numbers(sizes: np.ndarray) -> np.ndarray:
    """1 + 1/2 + ... + 1/m per size, summed exactly as statsmodels does (numpy's pairwise sum),
    once per distinct size."""
    distinct, inverse = np.unique(sizes, return_inverse=True)
    values = np.array([np.sum(1.0 / np.arange(1, m + 1)) for m in distinct], dtype=np.float64)
    return values[inverse]


def _run(values: np.ndarray, offsets: np.ndarray, method: str, alpha: float):
    code = {
        "bonferroni": kernels.BONFERRONI,
        "holm": kernels.HOLM,
        "hochberg": kernels.HOCHBERG,
        "fdr_bh": kernels.FDR_BH,
        "fdr_by": kernels.FDR_BY,
    }[method]
    if method == "fdr_by":
        valid = np.concatenate(([0], np.cumsum(~np.isnan(values), dtype=np.int64)))
        harmonic = _harmonic_numbers(valid[offsets[1:]] - valid[offsets[:-1]])
    else:
        harmonic = np.zeros(offsets.shape[0] - 1)
    return kernels.adjust_families(
        np.ascontiguousarray(values), np.ascontiguousarray(offsets), code, alpha, harmonic,
        n_rows=values.shape[0],
    )


def _family_alphas(n_tests: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    m = n_tests.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(m > 0, m, np.nan)
        sidak = _sidak(alpha, m)
        bonferroni = alpha / m
    return sidak, bonferroni


def multipletests(
    pvalues: ArrayLike,
    *,
    alpha: float = 0.05,
    method: str = "holm",
    axis: int = -1,
    groups: ArrayLike | None = None,
    offsets: ArrayLike | None = None,
) -> MultipleTestsResult:
    """Correct p-values for multiple testing, one family or many at once.

    Parameters
    ----------
    pvalues : array_like of float in [0, 1]
        p-values; NaN marks a missing one (see Notes).
    alpha : float
        Family-wise error rate (Bonferroni, Holm, Hochberg) or false discovery rate (fdr_*) to
        control, in (0, 1).
    method : {"bonferroni", "holm", "hochberg", "fdr_bh", "fdr_by"}
        statsmodels' spellings are accepted too ("b", "h", "simes-hochberg", "fdr_i", "fdr_n",
        ...). Beware: statsmodels' "ho" is Hommel, not Hochberg; it is not accepted here.
    axis : int
        For an N-d `pvalues` without `groups`/`offsets`: each 1-d slice along `axis` is one
        family (a 2-d array with ``axis=-1`` is one family per row).
    groups : 1-d array_like, optional
        A family label per p-value (integers or strings, any order): p-values with the same
        label form one family. Per-family outputs follow ``np.unique(groups)``. 1-d `pvalues`
        only.
    offsets : 1-d int array_like, optional
        CSR offsets instead of labels: family ``g`` is ``pvalues[offsets[g]:offsets[g + 1]]``
        (the layout of a table grouped by ``fastperf.data.grouping``). 1-d `pvalues` only.

    Returns
    -------
    MultipleTestsResult
        ``reject``, ``pvalues_corrected`` (shaped like `pvalues`), per-family ``alpha_sidak``,
        ``alpha_bonferroni`` and ``n_tests``; unpacks as statsmodels' 4-tuple.

    Notes
    -----
    With the family's non-NaN p-values sorted, ``p_(1) <= ... <= p_(m)``:

    - bonferroni: reject ``p <= alpha / m``; corrected ``m p``.
    - holm (Holm 1979, step-down): reject ``p_(k)`` while ``p_(j) <= alpha / (m - j + 1)`` for all
      ``j <= k``; corrected ``max_{j <= k} (m - j + 1) p_(j)``.
    - hochberg (Hochberg 1988, step-up): reject ``p_(j)`` for all ``j <= k*``, the largest k with
      ``p_(k) <= alpha / (m - k + 1)``; corrected ``min_{j >= k} (m - j + 1) p_(j)``.
    - fdr_bh (Benjamini & Hochberg 1995, step-up): threshold ``k alpha / m``; corrected
      ``min_{j >= k} m p_(j) / j``.
    - fdr_by (Benjamini & Yekutieli 2001): as fdr_bh with ``m`` replaced by ``m H_m``,
      ``H_m = 1 + 1/2 + ... + 1/m``.

    Corrected p-values are clipped to 1. Each step is statsmodels' own arithmetic, so the
    results equal ``statsmodels.stats.multitest.multipletests`` on each family exactly.

    NaN policy: a NaN p-value is not a test. It is left out of its family (not counted in m), its
    corrected p-value is NaN and it is not rejected; the other p-values of the family are
    corrected as if it were absent. (statsmodels would count it in m.) A family with no non-NaN
    p-value gets NaN for ``alpha_sidak`` and ``alpha_bonferroni`` and ``n_tests`` 0.

    SPARC (seed 003): 34 tests at alpha = 0.05 give the Bonferroni alpha 0.05 / 34 = 0.0014706
    (see `bonferroni_alpha`, `fwer_bound`).
    """
    alpha = _alpha_iv(alpha)
    method = _method_iv(method)
    p = _pvalues_iv(pvalues)
    axis = check_axis(axis)
    if groups is not None and offsets is not None:
        raise InputError("give families either as groups= (labels) or as offsets= (CSR), not both")

    if groups is None and offsets is None:
        try:
            moved = np.moveaxis(p, axis, -1)
        except np.exceptions.AxisError:
            raise InputError(
                f"axis={axis} is out of range for pvalues of shape {p.shape}"
            ) from None
        batch_shape = moved.shape[:-1]
        size = moved.shape[-1]
        flat = np.ascontiguousarray(moved).reshape(-1)
        n_families = int(np.prod(batch_shape, dtype=np.int64))
        fam_offsets = np.arange(n_families + 1, dtype=np.int64) * size
        corrected, reject, n_tests = _run(flat, fam_offsets, method, alpha)
        corrected = np.moveaxis(corrected.reshape(moved.shape), -1, axis)
        reject = np.moveaxis(reject.reshape(moved.shape), -1, axis)
        sidak, bonferroni = _family_alphas(n_tests, alpha)
        return MultipleTestsResult(
            reject=reject,
            pvalues_corrected=corrected,
            alpha_sidak=shaped(sidak, batch_shape),
            alpha_bonferroni=shaped(bonferroni, batch_shape),
            n_tests=shaped(n_tests, batch_shape),
            groups=None,
            method=method,
            alpha=alpha,
        )

    if p.ndim != 1:
        raise InputError(
            f"groups= / offsets= need a 1-d array of p-values, got shape {p.shape}; use axis= "
            "for rectangular families"
        )
    labels = None
    if offsets is not None:
        fam_offsets = _offsets_iv(offsets, p.shape[0])
        corrected, reject, n_tests = _run(p, fam_offsets, method, alpha)
    else:
        g = np.asarray(groups)
        if g.ndim != 1 or g.shape[0] != p.shape[0]:
            raise InputError(
                f"groups must be 1-d with one label per p-value ({p.shape[0]}), got shape {g.shape}"
            )
        if np.issubdtype(g.dtype, np.floating) or np.issubdtype(g.dtype, np.complexfloating):
            raise InputError("groups must be integer or string labels, not floats")
        try:
            labels, codes = np.unique(g, return_inverse=True)
        except TypeError as exc:
            raise InputError(f"groups labels cannot be compared: {exc}") from None
        order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes, minlength=labels.shape[0])
        fam_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        c_sorted, r_sorted, n_tests = _run(p[order], fam_offsets, method, alpha)
        corrected = np.empty_like(c_sorted)
        corrected[order] = c_sorted
        reject = np.empty_like(r_sorted)
        reject[order] = r_sorted
    sidak, bonferroni = _family_alphas(n_tests, alpha)
    return MultipleTestsResult(
        reject=reject,
        pvalues_corrected=corrected,
        alpha_sidak=sidak,
        alpha_bonferroni=bonferroni,
        n_tests=n_tests,
        groups=labels,
        method=method,
        alpha=alpha,
    )


def _level_iv(alpha: ArrayLike) -> np.ndarray:
    a = real_array(alpha, "alpha")
    if not ((a > 0) & (a < 1)).all():
        raise InputError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    return a


def _m_iv(m: ArrayLike) -> np.ndarray:
    """The numbers of tests as float64 (exact up to 2**53, no int64 overflow beyond)."""
    arr = real_array(m, "the number of tests m")
    if not (np.isfinite(arr) & (arr == np.floor(arr))).all():
        raise InputError(f"the number of tests m must be a whole number, got {m!r}")
    if (arr < 1).any():
        raise InputError(f"the number of tests m must be at least 1, got {m!r}")
    return arr


def bonferroni_alpha(alpha: ArrayLike, m: ArrayLike) -> "np.ndarray | float":
    """Per-test level ``alpha / m`` controlling the family-wise error rate of m tests at alpha.

    SPARC (seed 003, eq. 2): 34 tests at 0.05 give 0.0014706. Vectorised (broadcasts).

    Parameters
    ----------
    alpha : float or array_like
        The family-wise level(s), in (0, 1).
    m : int or array_like
        The number(s) of tests in the family, >= 1 (broadcast against `alpha`).

    Returns
    -------
    float or numpy.ndarray
        The per-test level, shaped like the broadcast of `alpha` and `m`.

    Notes
    -----
    Bonferroni's inequality: P(any of m tests rejects) <= m · alpha/m = alpha, whatever the
    dependence between the tests (Dunn 1961, JASA 56).
    """
    a, m = broadcast_arrays(("alpha", _level_iv(alpha)), ("m", _m_iv(m)))
    return _shaped_any(a / m)


def e_bh(evalues: ArrayLike, alpha: float) -> np.ndarray:
    """The discoveries of the e-Benjamini-Hochberg procedure on e-values.

    Parameters
    ----------
    evalues : array_like
        One e-value per hypothesis (>= 0; NaN is taken as 1, no evidence).
    alpha : float
        The false-discovery rate controlled, in (0, 1).

    Returns
    -------
    numpy.ndarray of bool
        Whether each hypothesis is rejected.

    Notes
    -----
    Wang & Ramdas (2022, JRSS-B 84), "False discovery rate control with e-values": with the
    e-values sorted in decreasing order ``e_(1) >= ... >= e_(K)``, reject the k* largest, with
    ``k* = max{k : k e_(k) / K >= 1 / alpha}``. The false-discovery rate is at most alpha under
    any dependence between the e-values; with K = 1 it is the test ``e >= 1 / alpha``.
    """
    alpha = check_unit_interval(alpha, "alpha")
    e = real_array(evalues, "evalues")
    e = e.reshape(1) if e.ndim == 0 else e  # one e-value: K = 1
    if e.ndim != 1:
        raise InputError(f"evalues must be one-dimensional (one e-value per test), got shape "
                         f"{e.shape}")
    if (e < 0).any():
        raise InputError(f"e-values are >= 0 (an e-value is a nonnegative statistic of "
                         f"expectation <= 1 under the null), got {float(e[e < 0][0])!r}")
    e = np.nan_to_num(e, nan=1.0)
    k = e.size
    reject = np.zeros(k, dtype=bool)
    if k == 0:
        return reject
    order = np.argsort(-e, kind="stable")
    ranks = np.arange(1, k + 1, dtype=np.float64)
    meets = np.flatnonzero(ranks * e[order] * alpha >= k)
    if meets.size:
        reject[order[:meets[-1] + 1]] = True
    return reject


def sidak_alpha(alpha: ArrayLike, m: ArrayLike) -> "np.ndarray | float":
    """Šidák's per-test level ``1 - (1 - alpha)^(1/m)`` (exact FWER for independent tests).

    Parameters
    ----------
    alpha : float or array_like
        The family-wise level(s), in (0, 1).
    m : int or array_like
        The number(s) of tests in the family, >= 1 (broadcast against `alpha`).

    Returns
    -------
    float or numpy.ndarray
        The per-test level, shaped like the broadcast of `alpha` and `m`.

    Notes
    -----
    Šidák (1967), JASA 62: for independent tests, 1 − (1 − α')^m = α solves for α'. Computed
    as ``-expm1(log1p(-alpha) / m)``, which keeps full relative precision where the direct form
    cancels to 0 (``sidak_alpha(1e-300, 1)`` is 1e-300, ``sidak_alpha(0.05, 10**18)`` 5.13e-20).
    """
    a, m = broadcast_arrays(("alpha", _level_iv(alpha)), ("m", _m_iv(m)))
    return _shaped_any(_sidak(a, m))


def fwer_bound(alpha: ArrayLike, m: ArrayLike) -> "np.ndarray | float":
    """Worst-case family-wise error rate ``1 - (1 - alpha)^m`` of m independent tests at alpha.

    SPARC (seed 003, eq. 1, with m = benchmarks + 1 overall test): 34 tests at 0.05 give
    0.82518; HPT's 8 benchmarks + 1 give 0.3698. Vectorised (broadcasts).

    Parameters
    ----------
    alpha : float or array_like
        The family-wise level(s), in (0, 1).
    m : int or array_like
        The number(s) of tests in the family, >= 1 (broadcast against `alpha`).

    Returns
    -------
    float or numpy.ndarray
        The family-wise error rate, shaped like the broadcast of `alpha` and `m`.

    Notes
    -----
    The probability that at least one of m independent level-alpha tests rejects a true null
    (Tullos, Graham, Jordan & Patel 2021, eq. 1). Computed as ``-expm1(m * log1p(-alpha))``,
    which keeps full relative precision where the direct form cancels to 0
    (``fwer_bound(1e-20, 1000)`` is 1e-17).
    """
    a, m = broadcast_arrays(("alpha", _level_iv(alpha)), ("m", _m_iv(m)))
    return _shaped_any(-np.expm1(m * np.log1p(-a)))


def _sidak(alpha, m):
    """``1 - (1 - alpha)^(1/m)`` without cancellation: ``-expm1(log1p(-alpha) / m)`` (the
    direct form rounds ``1 - alpha`` to 1 below alpha ~ 1e-16 and returns 0)."""
    return -np.expm1(np.log1p(-alpha) / m)


def _shaped_any(a: np.ndarray):
    a = np.asarray(a)
    return a[()] if a.ndim == 0 else a
