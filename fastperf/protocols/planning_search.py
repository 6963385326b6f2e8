"""The run-count searches of `fastperf.plan_runs` and its separation table.

`smallest_runs` is the exact search for the smallest number of runs whose Student interval is
narrow enough (Pakhomov, seed 004; with an assurance, Harris, Horvitz & Mood 1948);
`assurance_reached` the probability a plan reaches its precision; `separation_columns` and
`separation_summary` the table of Pakhomov's Tables 2-4 (run until two systems' intervals no
longer overlap). See `fastperf.protocols.planning`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from fastperf.data.grouping import Groups, code_of, group_rows, key_codes
from fastperf.engine.intervals import student_halfwidth
from fastperf.errors import InputError

__all__ = ["smallest_runs", "assurance_reached", "with_keys", "separation_columns",
           "separation_summary", "MAX_RUNS", "TOO_MANY", "OVERFLOW"]

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
    from fastperf.special_functions import special_function

    chdtri, fdtri = special_function("chdtri"), special_function("fdtri")
    ndtri = special_function("ndtri")

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
    from fastperf.special_functions import special_function

    fdtr = special_function("fdtr")

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = (bound / student_halfwidth(runs, sd, confidence)) ** 2
        out = fdtr(runs - 1.0, pilot_runs - 1.0, x)
    return np.where(np.isnan(x), np.nan, out)



def with_keys(keys: pa.Table, columns: dict[str, Any]) -> pa.Table:
    """The key table with `columns` appended (a table of `columns` alone when there are no keys).

    Parameters
    ----------
    keys : pyarrow.Table
    columns : dict name -> array

    Returns
    -------
    pyarrow.Table
    """
    arrays = {name: pa.array(column) for name, column in columns.items()}
    if keys.num_columns == 0:
        return pa.table(arrays)
    out = keys
    for name, array in arrays.items():
        out = out.append_column(name, array)
    return out


def separation_columns(group_keys: pa.Table, keys: list[str], variant: str, pair: tuple,
                       n, mean, sd, halfwidth, confidence: float, scaled) -> tuple[Groups, dict]:
    """The separation table's columns, one entry per benchmark of `group_keys`.

    A variant of `pair` that the table lacks has no values for any benchmark (a status "no
    'B' values"); whether the whole table has it is the plan's check.

    Parameters
    ----------
    group_keys : pyarrow.Table
        The (keys, variant) groups (`fastperf.data.grouping.Groups.keys`).
    keys : list of str
        The benchmark key columns.
    variant : str
    pair : tuple
        (baseline, candidate).
    n, mean, sd, halfwidth : numpy.ndarray
        Per group.
    confidence : float
    scaled : tuple of numpy.ndarray
        The groups' mean, sd, halfwidth over ``2**exponent``, and exponent (brought to the
        larger of the two variants' exponents, exact, distances stay finite near 1.8e308).

    Returns
    -------
    benchmarks : Groups
        The groups grouped by benchmark (``first_row``: each benchmark's first group).
    columns : dict
        The columns of `SEPARATION_COLUMNS`, one entry per benchmark.

    Notes
    -----
    Pakhomov (seed 004), Tables 2-4: the smallest N with ``t(p, N) (s1 + s2) / sqrt(N) <
    |m1 - m2|``, the observed means and sds taken as the truth (`smallest_runs`).
    """
    baseline, candidate = pair
    benchmarks = group_rows(group_keys, keys)
    benchmark_of_group = np.repeat(np.arange(benchmarks.n_groups), benchmarks.sizes)
    codes, dictionary = key_codes(group_keys.column(variant), variant)
    takes = {}
    for name in dict.fromkeys(pair):
        take = np.full(benchmarks.n_groups, -1, dtype=np.int64)
        try:
            chosen = np.flatnonzero(codes == code_of(dictionary, name, f"the {variant!r} column"))
        except InputError:  # not in this chunk
            chosen = np.zeros(0, dtype=np.int64)
        take[benchmark_of_group[chosen]] = chosen
        takes[name] = take
    tb, tc = takes[baseline], takes[candidate]

    def pick(column, take, missing):
        return np.where(take >= 0, column[np.maximum(take, 0)], missing)

    n1, n2 = pick(n, tb, 0), pick(n, tc, 0)
    m1, m2 = pick(mean, tb, np.nan), pick(mean, tc, np.nan)
    s1, s2 = pick(sd, tb, np.nan), pick(sd, tc, np.nan)
    h1, h2 = pick(halfwidth, tb, np.nan), pick(halfwidth, tc, np.nan)
    mean_s, sd_s, half_s, exponent = scaled
    exponent = exponent.astype(np.int64)  # a missing variant: -2**31, the other one wins
    e1, e2 = pick(exponent, tb, -2**31), pick(exponent, tc, -2**31)
    common = np.maximum(e1, e2)
    shift1 = np.maximum(e1 - common, -2100).astype(np.int32)  # 2**-2100 underflows to 0
    shift2 = np.maximum(e2 - common, -2100).astype(np.int32)
    brought = lambda column, take, shift: np.ldexp(pick(column, take, np.nan), shift)  # noqa: E731
    with np.errstate(invalid="ignore", under="ignore"):
        distance = np.abs(brought(mean_s, tb, shift1) - brought(mean_s, tc, shift2))
        scale = brought(sd_s, tb, shift1) + brought(sd_s, tc, shift2)
        half_sum = brought(half_s, tb, shift1) + brought(half_s, tc, shift2)
    status = np.select(
        [n1 == 0, n2 == 0, n1 == 1, n2 == 1, distance == 0, scale == 0],
        [f"no {baseline!r} values", f"no {candidate!r} values",
         f"1 {baseline!r} value: no sd", f"1 {candidate!r} value: no sd", "equal means",
         "zero spread"],
        default="ok",
    )
    runs = np.full(n1.shape, np.nan)
    runs[status == "equal means"] = np.inf
    runs[status == "zero spread"] = 2.0
    search = np.flatnonzero(status == "ok")
    runs[search] = smallest_runs(scale[search], distance[search], confidence, strict=True)
    too_many = (status == "ok") & np.isnan(runs)
    status = np.where(too_many, TOO_MANY, status)
    defined = (n1 >= 2) & (n2 >= 2)
    apart = (half_sum < distance) & defined
    shown = np.isfinite(np.stack([m1, m2, s1, s2, h1, h2])).all(axis=0)
    status = np.where((status == "ok") & ~shown, OVERFLOW, status)
    separated = pa.array(apart, mask=~defined)
    with np.errstate(invalid="ignore"):
        columns = {
            "n_baseline": n1, "n_candidate": n2, "mean_baseline": m1, "mean_candidate": m2,
            "sd_baseline": s1, "sd_candidate": s2, "halfwidth_baseline": h1,
            "halfwidth_candidate": h2, "separated_now": separated, "runs_to_separate": runs,
            "runs_more_baseline": np.maximum(runs - n1, 0.0),
            "runs_more_candidate": np.maximum(runs - n2, 0.0), "status": status,
        }
    return benchmarks, columns


def separation_summary(table: pa.Table, pair: tuple) -> tuple[dict, list[str]]:
    """The summary entries and warnings of a separation table.

    Parameters
    ----------
    table : pyarrow.Table
        The separation table (`separation_columns`, every benchmark).
    pair : tuple
        (baseline, candidate).

    Returns
    -------
    summary : dict
        ``baseline``, ``candidate``, ``benchmarks``, ``separated_now``,
        ``separation_not_ok``, ``runs_to_separate_max``.
    warnings : list of str
    """
    baseline, candidate = pair
    status = table.column("status").to_numpy(zero_copy_only=False)
    runs = table.column("runs_to_separate").to_numpy()
    apart = table.column("separated_now").fill_null(False).to_numpy(zero_copy_only=False)
    not_ok = int((status != "ok").sum())
    finite = runs[np.isfinite(runs)]
    summary = {
        "baseline": baseline, "candidate": candidate, "benchmarks": table.num_rows,
        "separated_now": int(apart.sum()), "separation_not_ok": not_ok,
        "runs_to_separate_max": int(finite.max()) if finite.size else None,
    }
    warnings = []
    if not_ok:
        warnings.append(f"{not_ok} benchmark(s) cannot be separated as measured (see the "
                        "separation table's status)")
    return summary, warnings
