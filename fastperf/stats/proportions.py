"""The proportion of accelerated benchmarks: confidence intervals and the number of benchmarks.

Speedup-Test (Touati, Worms & Briais 2013, seed 002, section 4): if ``a`` of ``b`` randomly chosen
benchmarks are accelerated, the proportion ``C = a / b`` estimates the probability ``p`` that the
optimisation accelerates a program; `proportion_ci` gives its confidence interval (R's
``prop.test`` by default) with the seed's validity flag, and `min_benchmarks` the number of
benchmarks needed for a given precision. Everything is vectorised over array inputs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import betainccinv, betaincinv, ndtri

from fastperf.data.validation import broadcast_arrays, check_confidence, real_array
from fastperf.errors import InputError


__all__ = ["ProportionInterval", "proportion_ci", "min_benchmarks", "PROPORTION_METHODS",
           "MAX_BENCHMARKS"]

#: The largest count `min_benchmarks` returns: larger ones (tiny precisions) are an InputError,
#: as float64 counts are no longer exact past 2**53 (the cap of `plan_runs` too).
MAX_BENCHMARKS = float(2**53)

#: Accepted `method` names, mapped to the canonical one.
PROPORTION_METHODS = {
    "wilson-cc": "wilson-cc",
    "prop.test": "wilson-cc",
    "wilson": "wilson",
    "clopper-pearson": "clopper-pearson",
    "beta": "clopper-pearson",
    "exact": "clopper-pearson",
    "normal": "normal",
    "wald": "normal",
}


@dataclass(frozen=True, eq=False)
class ProportionInterval:
    """Confidence interval of a binomial proportion; unpacks as ``low, high``.

    Attributes
    ----------
    low, high : float arrays (numpy scalars for scalar input), the bounds, within [0, 1].
    proportion : float array, the observed proportion ``successes / trials``.
    valid : bool array, the Speedup-Test validity condition ``a (1 - a/b) > 5`` of the normal
        approximation (seed 002); False means "may not be accurate", not "wrong".
    method : str, the canonical method name.
    confidence : float, the confidence level.
    """

    low: np.ndarray
    high: np.ndarray
    proportion: np.ndarray
    valid: np.ndarray
    method: str
    confidence: float

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.low, self.high))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index):
        return (self.low, self.high)[index]


def _scalar_or_array(a: np.ndarray):
    return a[()] if a.ndim == 0 else a


def _counts_iv(successes: ArrayLike, trials: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast successes and trials to float64 arrays of whole numbers, 0 <= x <= n, n >= 1."""
    arrays = []
    for name, value in (("successes", successes), ("trials", trials)):
        arr = real_array(value, name)
        bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < 0)
        if bad.any():
            first = arr[bad].flat[0] if arr.ndim else arr[()]
            raise InputError(
                f"{name} must be non-negative whole numbers (counts of benchmarks); got {first!r}"
                + (f" at index {tuple(int(i) for i in np.argwhere(bad)[0])}" if arr.ndim else "")
            )
        arrays.append(arr)
    x, n = broadcast_arrays(("successes", arrays[0]), ("trials", arrays[1]))
    if (n == 0).any():
        where = tuple(int(i) for i in np.argwhere(n == 0)[0]) if n.ndim else ()
        raise InputError(
            "trials must be at least 1 (no proportion of zero benchmarks)"
            + (f"; trials is 0 at index {where}" if where else "")
        )
    over = x > n
    if over.any():
        where = tuple(int(i) for i in np.argwhere(over)[0]) if n.ndim else ()
        i = where if where else ()
        raise InputError(
            f"successes ({x[i]:.0f}) exceed trials ({n[i]:.0f})"
            + (f" at index {where}" if where else "")
            + ": successes counts the accelerated benchmarks among trials"
        )
    return x, n


def _method_iv(method: str) -> str:
    try:
        return PROPORTION_METHODS[str(method).lower()]
    except KeyError:
        raise InputError(
            f"unknown method {method!r}; choose one of 'wilson-cc' (R prop.test, default), "
            "'wilson', 'clopper-pearson', 'normal'"
        ) from None


def _wilson_cc(x: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """R ``stats::prop.test(x, n, conf.level)`` interval, operation for operation.

    ``YATES = min(0.5, |x - n p0|)`` with p0 = 0.5; ``z22n = z^2 / (2n)``;
    ``p.c = x/n + YATES/n``; ``upper = 1 if p.c >= 1 else (p.c + z22n + z sqrt(p.c (1 - p.c)/n
    + z22n/(2n))) / (1 + 2 z22n)``; the lower bound likewise with ``p.c = x/n - YATES/n`` and
    ``0 if p.c <= 0``; then clipped to [0, 1].
    """
    estimate = x / n
    yates = np.minimum(0.5, np.abs(x - n * 0.5))
    z22n = z**2 / (2 * n)
    with np.errstate(invalid="ignore"):
        pc = estimate + yates / n
        upper = np.where(
            pc >= 1,
            1.0,
            (pc + z22n + z * np.sqrt(pc * (1 - pc) / n + z22n / (2 * n))) / (1 + 2 * z22n),
        )
        pc = estimate - yates / n
        lower = np.where(
            pc <= 0,
            0.0,
            (pc + z22n - z * np.sqrt(pc * (1 - pc) / n + z22n / (2 * n))) / (1 + 2 * z22n),
        )
    return np.maximum(lower, 0.0), np.minimum(upper, 1.0)


def _wilson(x: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson (1927) score interval without correction (statsmodels' arithmetic), clipped to
    [0, 1]; exactly 0 / 1 at x = 0 / x = n, where rounding would leave 1e-17 / 1 - 1e-16."""
    q = x / n
    z2 = z**2
    denom = 1 + z2 / n
    center = (q + z2 / (2 * n)) / denom
    dist = z * np.sqrt(q * (1.0 - q) / n + z2 / (4.0 * n**2)) / denom
    low = np.where(x == 0, 0.0, np.clip(center - dist, 0.0, 1.0))
    high = np.where(x == n, 1.0, np.clip(center + dist, 0.0, 1.0))
    return low, high


def _clopper_pearson(
    x: np.ndarray, n: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Clopper & Pearson (1934): Beta(x, n-x+1) and Beta(x+1, n-x) quantiles at (1-c)/2."""
    tail = (1.0 - confidence) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(x == 0, 0.0, betaincinv(np.maximum(x, 1.0), n - x + 1, tail))
        high = np.where(x == n, 1.0, betainccinv(x + 1, np.maximum(n - x, 1.0), tail))
    return low, high


def _normal(x: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval C -/+ z sqrt(C (1 - C) / n) (the seed's formula), clipped to [0, 1]."""
    q = x / n
    dist = z * np.sqrt(q * (1 - q) / n)
    return np.clip(q - dist, 0.0, 1.0), np.clip(q + dist, 0.0, 1.0)


def proportion_ci(
    successes: ArrayLike,
    trials: ArrayLike,
    *,
    confidence: float = 0.95,
    method: str = "wilson-cc",
) -> ProportionInterval:
    """Two-sided confidence interval of a binomial proportion, vectorised.

    Parameters
    ----------
    successes : int or array of int
        ``a``, the number of accelerated benchmarks (whole numbers, ``0 <= a <= b``).
    trials : int or array of int
        ``b``, the number of benchmarks tested (``>= 1``); broadcasts with `successes`.
    confidence : float
        Confidence level ``1 - alpha`` in (0, 1).
    method : {"wilson-cc", "wilson", "clopper-pearson", "normal"}
        - ``"wilson-cc"`` (default, alias ``"prop.test"``): what R's
          ``prop.test(a, b, conf.level=confidence)`` prints, the Wilson score interval with
          continuity correction (Newcombe 1998, method 4) including R's rules: the correction
          is ``min(0.5, |a - b/2|)`` (none when ``a = b/2``), the lower bound is 0 when
          ``a = 0`` and the upper bound 1 when ``a = b``.
        - ``"wilson"``: Wilson (1927) score interval (Newcombe method 3).
        - ``"clopper-pearson"`` (aliases ``"beta"``, ``"exact"``): Clopper & Pearson (1934)
          exact interval from Beta quantiles.
        - ``"normal"`` (alias ``"wald"``): ``C -/+ z sqrt(C (1 - C) / b)``, the seed's formula.
        "wilson" and "normal" are clipped to [0, 1], as in statsmodels' ``proportion_confint``;
        every method's lower bound is exactly 0 at ``a = 0`` and its upper bound exactly 1 at
        ``a = b``.

    Returns
    -------
    ProportionInterval
        ``low``, ``high``, ``proportion`` (``a / b``) and ``valid`` (``a (1 - a/b) > 5``,
        Speedup-Test's validity condition), shaped like the broadcast inputs (numpy scalars for
        scalar input). Unpacks as ``low, high``.

    Raises
    ------
    InputError
        For any bad element (negative, fractional, NaN or infinite counts, ``trials == 0``,
        ``successes > trials``), naming its index, and for `confidence` outside (0, 1). A
        vectorised call does not return NaN for bad elements: fix or filter the input first.

    Notes
    -----
    ``z = Phi^-1((1 + confidence) / 2)``. Seed 002: ``prop.test(17, 30, conf.level=0.90)`` gives
    [0.4027157, 0.7184049]; 34 of 34 at 90% gives [0.901, 1] with ``valid`` False; 31/45 and
    41/54 at 95% give [0.532, 0.814] and [0.621, 0.861].

    References
    ----------
    Newcombe RG (1998), Two-sided confidence intervals for the single proportion: comparison of
    seven methods, Statistics in Medicine 17:857-872. Clopper CJ, Pearson ES (1934), The use of
    confidence or fiducial limits illustrated in the case of the binomial, Biometrika 26:404-413.
    """
    confidence = check_confidence(confidence)
    method = _method_iv(method)
    x, n = _counts_iv(successes, trials)
    z = float(ndtri((1.0 + confidence) / 2.0))  # R: qnorm((1 + conf.level) / 2)
    if method == "wilson-cc":
        low, high = _wilson_cc(x, n, z)
    elif method == "wilson":
        low, high = _wilson(x, n, z)
    elif method == "clopper-pearson":
        low, high = _clopper_pearson(x, n, confidence)
    else:
        low, high = _normal(x, n, z)
    valid = x * (n - x) > 5 * n  # a (1 - a/b) > 5, in exact integer arithmetic
    return ProportionInterval(
        low=_scalar_or_array(np.asarray(low, dtype=np.float64)),
        high=_scalar_or_array(np.asarray(high, dtype=np.float64)),
        proportion=_scalar_or_array(x / n),
        valid=_scalar_or_array(np.asarray(valid)),
        method=method,
        confidence=confidence,
    )


def _smallest_precision(spread: float) -> float:
    """The smallest r (rounded up to 3 significant digits) with ``ceil((spread / r)^2) <=
    2**53``: spread / sqrt(2**53), without forming spread**2 (which may underflow)."""
    r = spread / math.sqrt(MAX_BENCHMARKS)
    exponent = math.floor(math.log10(r)) - 2
    up = math.ceil(r / 10.0**exponent) * 10.0**exponent
    while math.ceil((spread / up) ** 2) > MAX_BENCHMARKS:  # rounding of the power of 10
        up = math.nextafter(up, math.inf)
    return up


def min_benchmarks(
    proportion: ArrayLike, precision: ArrayLike, confidence: float = 0.95
) -> np.ndarray:
    """Minimal number of randomly chosen benchmarks for a proportion interval of half-width r.

    Speedup-Test (seed 002, section 4): ``b >= z^2 C (1 - C) / r^2`` with
    ``z = Phi^-1((1 + confidence) / 2)``, so ``b = ceil(z^2 C (1 - C) / r^2)``, the smallest
    ``b`` for which the normal-approximation half-width ``z sqrt(C (1 - C) / b)`` is at most
    ``r``; at least 1 (``C`` of 0 or 1 gives 1).

    Parameters
    ----------
    proportion : float or array
        ``C``, the proportion observed in a pilot (e.g. ``a / b``), in [0, 1].
    precision : float or array
        ``r``, the half-width wanted, ``0 < r <= 1``; broadcasts with `proportion`.
    confidence : float
        Confidence level in (0, 1).

    Returns
    -------
    int64 array shaped like the broadcast inputs (a numpy int64 for scalar input).

    Raises
    ------
    InputError
        When a count would exceed 2**53 (`MAX_BENCHMARKS`; e.g. ``precision=1e-200``), naming
        the precision given and the smallest one accepted for that proportion.

    Notes
    -----
    Seed 002, r = 0.05 at 95%: 378 benchmarks for C = 17/30, 330 for 31/45, 281 for 41/54.
    """
    confidence = check_confidence(confidence)
    c, r = real_array(proportion, "proportion"), real_array(precision, "precision")
    bad_c = ~((c >= 0) & (c <= 1))
    if bad_c.any():
        raise InputError(f"proportion must lie in [0, 1] (a / b); got {float(c[bad_c].flat[0])!r}")
    bad_r = ~((r > 0) & (r <= 1))
    if bad_r.any():
        raise InputError(
            f"precision (the half-width r) must lie in (0, 1]; got {float(r[bad_r].flat[0])!r}"
        )
    try:
        c, r = np.broadcast_arrays(c, r)
    except ValueError:
        raise InputError(
            f"proportion and precision shapes {c.shape} and {r.shape} do not broadcast"
        ) from None
    z = float(ndtri((1.0 + confidence) / 2.0))
    # b = ceil(q^2) with q = z sqrt(C (1 - C)) / r: no r**2 to underflow (r = 1e-320 with C = 0
    # or 1 is 0 / r = 0, not 0 / 0), an overflow only to inf (refused below)
    spread = z * np.sqrt(c * (1.0 - c))
    with np.errstate(over="ignore"):
        q = spread / r
        b = np.ceil(q * q)
    too_many = ~(b <= MAX_BENCHMARKS)  # inf when the quotient overflows
    if too_many.any():
        i = np.flatnonzero(too_many.reshape(-1))[0]
        needed = (f"about {b.flat[i]:.3g}" if np.isfinite(b.flat[i]) else "more than 1e308")
        raise InputError(
            f"precision={float(r.flat[i])!r} with proportion={float(c.flat[i])!r} needs "
            f"{needed} benchmarks, more than 2**53 (the most counted exactly); precision must "
            f"be at least {_smallest_precision(float(spread.flat[i])):.3g}"
        )
    return _scalar_or_array(np.maximum(b, 1).astype(np.int64))
