"""The run-count searches of `plan_runs` (Pakhomov, seed 004; with an assurance, Harris,
Horvitz & Mood 1948): `smallest_runs`, the exact search for the smallest number of runs whose
Student interval is narrow enough, and `assurance_reached`, the probability a plan reaches its
precision. Both are vectorised over every group (whole-array rounds, no loop over groups).
"""
from __future__ import annotations

import numpy as np
from scipy.special import chdtri, fdtr, fdtri, ndtri

from fastperf.engine.intervals import student_halfwidth

__all__ = ["MAX_RUNS", "TOO_MANY", "OVERFLOW", "smallest_runs", "assurance_reached"]

#: Largest run count searched (2**53, the largest integer float64 counts exactly); a group that
#: would need more gets the status "needs more than 2**53 runs".
MAX_RUNS = float(2**53)
#: The status of a group or benchmark that would need more than `MAX_RUNS` runs.
TOO_MANY = "needs more than 2**53 runs"
#: The status of a group or benchmark with a figure shown in the value's unit beyond float64.
OVERFLOW = "sd or half-width beyond the float64 range (the run counts hold)"


def smallest_runs(scale: np.ndarray, bound: np.ndarray, confidence: float, *,
                  strict: bool, pilot_runs: np.ndarray | None = None,
                  assurance: float | None = None) -> np.ndarray:
    """Smallest N >= 2 with ``t(p, N) * scale * sqrt(f(N)) / sqrt(N) <= bound`` (``<`` if strict).

    For arrays of ``scale > 0`` and finite ``bound > 0``; ``f(N) = 1`` (the plug-in plan), or
    with an `assurance` gamma ``f(N) = F_gamma(N - 1, m - 1)``, the gamma quantile of Fisher's F
    with m the group's `pilot_runs` (Harris, Horvitz & Mood 1948: ``scale * sqrt(f(N))`` is an
    upper prediction bound, at level gamma, of the sd of N fresh runs). Returns float64 run
    counts, NaN where the answer exceeds `MAX_RUNS`.

    Parameters
    ----------
    scale : numpy.ndarray
        The sd s of each group (> 0).
    bound : numpy.ndarray
        The half-width H each group must reach (finite, > 0).
    confidence : float
        The confidence level p of the interval.
    strict : bool
        ``<`` instead of ``<=``.
    pilot_runs : numpy.ndarray or None
        The pilot's run count m of each group (with `assurance`).
    assurance : float or None
        The probability gamma; None: the plug-in plan.

    Returns
    -------
    numpy.ndarray
        float64 run counts, NaN beyond `MAX_RUNS`.

    Notes
    -----
    ``t(p, N) > z`` and ``f(N) >= f_min`` give the lower bound ``N > f_min (z scale / bound)^2``;
    from there an upper bound is found by doubling and the answer by bisection, on whole arrays
    (each round evaluates only the groups still open).

    The plug-in ``t(p, N) / sqrt(N)`` decreases (f_min = 1); ``g(N) = t(p, N)^2 F_gamma(N - 1,
    m - 1) / N`` need not. It was evaluated (scipy's stdtrit and fdtri) at every N = 2 .. 20,000
    (but 1999 .. 2001, see below) and on a log grid up to 2**53, for m from 2 to 1e7, p from
    0.001 to 1 - 1e-12 and gamma from 1e-300 to 1 - 1e-12. For gamma >= 0.45 it decreased
    everywhere. Below, it can rise at small N (up to N = 3 at gamma = 0.3, 15 at 1e-3, 83 at
    1e-15: a 2-run sd is erratic enough to be tiny more often than a 3-run one), but it always
    rose first and then only fell (unimodal; only gamma = 1e-300, where the F quantile itself is
    inaccurate, broke that). fdtri has one bad spot on the way: dfn = 2000 with dfd above ~1e8
    (a pilot of 1e8 runs). So the search tests N = 2 first: if that fails, ``g(N) > g(2)`` on
    the rising part, so "the bound holds at N" is false, ..., false, true, ..., true over
    N >= 3 and bisection finds the first true. f_min is ``min(F_gamma(1, m - 1), (m - 1) /
    chi2_{1 - gamma}(m - 1))``, the two ends of F_gamma in its first degrees of freedom
    (F_gamma never went below both on the grid); the lower bound is checked, not trusted: where
    the bound already holds at ``lo - 1`` the search restarts from N = 3.
    """
    if assurance is None:
        f_min = f_limit = np.ones(scale.shape)

        def f(runs: np.ndarray, where: np.ndarray) -> np.ndarray | float:
            return 1.0
    else:
        df = np.asarray(pilot_runs, dtype=np.float64) - 1.0
        f_limit = df / chdtri(df, assurance)  # F_gamma(inf, m - 1)
        f_min = np.minimum(fdtri(1.0, df, assurance), f_limit)

        def f(runs: np.ndarray, where: np.ndarray) -> np.ndarray | float:
            return fdtri(runs - 1.0, df[where], assurance)

    def holds(runs: np.ndarray, where: np.ndarray) -> np.ndarray:
        h = student_halfwidth(runs, scale[where] * np.sqrt(f(runs, where)), confidence)
        return h < bound[where] if strict else h <= bound[where]

    z = float(ndtri(0.5 + confidence / 2.0))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = (z * scale / bound) ** 2 * f_min
    result = np.full(scale.shape, np.nan)
    # a safe lower bound (the factor absorbs the rounding of ratio); t ~ z (1 + (z^2+1)/(4N))
    # puts the answer near ratio + (z^2 + 1) / 2, the first upper bound tried
    lo = np.maximum(2.0, np.floor(ratio * (1.0 - 1e-9)))
    searchable = lo <= MAX_RUNS  # False for inf / NaN ratios too
    if assurance is not None:  # N = 2 first, then a checked lower bound >= 3 (see above)
        at_two = np.flatnonzero(searchable)
        at_two = at_two[holds(np.full(at_two.size, 2.0), at_two)]
        result[at_two] = 2.0
        searchable[at_two] = False
        lo = np.maximum(lo, 3.0)
        check = np.flatnonzero(searchable & (lo > 3.0))
        lo[check[holds(lo[check] - 1.0, check)]] = 3.0
    where = np.flatnonzero(searchable)
    lo = lo[where]
    # the first upper bound tried: F at lo, or its limit where F grows in N (gamma < 0.5)
    f_guess = np.maximum(f_limit[where], f(lo - 1.0, where))
    with np.errstate(over="ignore"):
        guess = (z * scale[where] / bound[where]) ** 2 * f_guess
    hi = np.minimum(np.maximum(lo, np.ceil(guess + (z * z + 1.0) / 2.0) + 1.0), MAX_RUNS)
    open_ = np.arange(where.size)
    while open_.size:  # grow hi until the bound holds there; lo moves past every failure
        failed = open_[~holds(hi[open_], where[open_])]
        lo[failed] = hi[failed] + 1.0
        hi[failed] = np.minimum(2.0 * hi[failed], MAX_RUNS)
        open_ = failed[lo[failed] <= MAX_RUNS]
    found = lo <= MAX_RUNS
    open_ = np.flatnonzero(found & (lo < hi))
    while open_.size:  # bisection: the answer is in [lo, hi] and the bound holds at hi
        mid = lo[open_] + np.floor((hi[open_] - lo[open_]) / 2.0)
        ok = holds(mid, where[open_])
        hi[open_[ok]] = mid[ok]
        lo[open_[~ok]] = mid[~ok] + 1.0
        open_ = open_[lo[open_] < hi[open_]]
    result[where[found]] = hi[found]
    return result


def assurance_reached(runs: np.ndarray, pilot_runs: np.ndarray, sd: np.ndarray,
                      bound: np.ndarray, confidence: float) -> np.ndarray:
    """P(t(p, N) S / sqrt(N) <= bound) for a follow-up of N fresh runs, its ``S^2 / sd^2`` taken
    as F(N - 1, m - 1) (m = `pilot_runs`): ``fdtr(N - 1, m - 1, bound^2 N / (t(p, N) sd)^2)``.
    NaN where N is NaN (or 0 / 0); a square past 1.8e308 is inf, where fdtr is exactly 1.

    Parameters
    ----------
    runs, pilot_runs, sd, bound : numpy.ndarray
        Per group: the planned N, the pilot's m, its sd s and the half-width H.
    confidence : float
        The confidence level p.

    Returns
    -------
    numpy.ndarray
        The probability per group.

    Notes
    -----
    Harris, Horvitz & Mood (1948): ``S^2 / s^2 ~ F(N - 1, m - 1)`` for normal runs.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = (bound / student_halfwidth(runs, sd, confidence)) ** 2
        out = fdtr(runs - 1.0, pilot_runs - 1.0, x)
    return np.where(np.isnan(x), np.nan, out)
