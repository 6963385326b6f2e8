"""Planning per level: how many processes x iterations reach a precision at least cost.

Kalibera & Jones (2013, "Rigorous benchmarking in reasonable time", ISMM; section 4 and their
technical report): with a between-process variance ``s2_p`` and a within-process (iteration)
variance ``s2_i``, the mean of P processes of I iterations each has variance
``(s2_p + s2_i / I) / P``. Running them costs ``P (c_p + I c_i)`` (``c_p`` the cost of starting
a process, ``c_i`` that of one iteration), and the iterations per process that minimise the
cost of a given variance are ``I* = sqrt((c_p / c_i) (s2_i / s2_p))``.

`least_cost_plans` turns this into whole counts with `plan_runs`'s own precision rule: the
interval of the mean of the P process means, ``t(p, P) sqrt(V(I) f(P)) / sqrt(P)`` with
``V(I) = s2_p + s2_i / I`` and, with an assurance gamma, ``f(P) = F_gamma(P - 1, nu)`` (nu the
degrees of freedom of the pilot's estimate of ``V(I)``: m - 1, m the pilot's processes, at its
own iterations a process, else Satterthwaite's, `pilot_degrees_of_freedom`),
must be at most the target half-width H. Among every (P, I) meeting it, the plan is the one of
least cost (fewest processes on a tie), found by an exact search over P around Kalibera and
Jones's plan (``round(I*)`` iterations and the smallest P for them).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.special import chdtri, fdtri, ndtri

from fastperf.data.arrays import Samples
from fastperf.data.levels import Structure
from fastperf.engine.intervals import student_halfwidth
from fastperf.kernels.moments import sample_moments
from fastperf.protocols.planning.searches import (MAX_RUNS, OVERFLOW, TOO_MANY,
                                                  assurance_reached, smallest_runs)
from fastperf.results.base import nan_as_null

__all__ = ["PROCESS_COLUMNS", "ITERATION_CAP", "WINDOW", "process_plan_columns",
           "least_cost_plans", "plan_label"]

#: The columns a plan per level adds to the flat plan's, before ``status``.
PROCESS_COLUMNS = ["analysis", "units", "scale", "sigma2_between", "sigma2_within", "icc",
                   "iterations_optimal", "processes", "iterations", "processes_more", "cost",
                   "plan"]

#: The most iterations per process of Kalibera and Jones's starting plan: where the
#: between-process variance is estimated as 0, ``I*`` is infinite (one endless process), but an
#: interval needs two processes; the search over P then finds the least-cost plan.
ITERATION_CAP = float(2**20)
#: The most process counts the search evaluates per group (centred on Kalibera and Jones's
#: plan when the counts that could beat it are more).
WINDOW = 4096
#: The most (group, process count) pairs evaluated at once (memory bound).
PAIRS_AT_ONCE = 1 << 20


def process_plan_columns(flat: dict[str, Any], components: pa.Table, samples: Samples,
                         structure: Structure, *, target: str, precision: float,
                         confidence: float, assurance: float | None, process_cost: float,
                         iteration_cost: float) -> dict[str, Any]:
    """The group table's columns of a plan per level.

    Parameters
    ----------
    flat : dict
        The flat plan's columns (`fastperf.protocols.planning.flat_plan_columns`), one entry
        per group.
    components : pyarrow.Table
        `fastperf.data.levels.variance_components` of the same groups, in the same order.
    samples : Samples
        The groups' values (NaN dropped), in the same order.
    structure : Structure
        Not flat.
    target, precision, confidence, assurance, process_cost, iteration_cost
        See `fastperf.plan_runs`.

    Returns
    -------
    dict
        Column name -> array: the flat plan's ``n``, ``n_dropped``, ``mean`` and ``sd``
        (of the values); ``halfwidth`` (the pilot's interval of the mean now, from its units:
        ``t(p, m) sqrt(V)`` with ``V = (s2_p + s2_i) design_effect / n`` the variance of the
        grand mean and m the units; on the log scale ``G (exp(h) - 1)``, G the geometric
        mean), ``relative_halfwidth`` (over ``|mean|``; on the log scale ``exp(h) - 1``),
        ``target_halfwidth`` (``precision G`` or ``precision |mean|``, or ``precision``),
        ``runs_needed`` (``processes x iterations``: values to measure), ``runs_more``
        (``max(0, runs_needed - n)``), ``assurance`` (the probability the plan reaches the
        precision), then `PROCESS_COLUMNS`: ``analysis`` (the unit's column, or ``"flat"``
        for a group whose units hold one value each: its values are independent and the flat
        plan is its plan, one iteration per unit), ``units`` (the pilot's), ``scale``
        (``"log"`` or ``"linear"``), ``sigma2_between`` (``s2_p``: every level above the
        iterations), ``sigma2_within`` (``s2_i``), ``icc``, ``iterations_optimal`` (Kalibera
        & Jones's ``I*``), ``processes`` and ``iterations`` (the plan; -1 where there is
        none), ``processes_more`` (``max(0, processes - units)``), ``cost``
        (``processes (process_cost + iterations iteration_cost)``), ``plan`` ("20 processes
        x 5 iterations") and ``status``: the flat plan's reasons, and "1 process: no variance
        between processes" (fewer than 2 units: no plan).

    Notes
    -----
    Kalibera & Jones (2013): `least_cost_plans`. With a build level, ``s2_p`` sums the build
    and process components: each planned unit is a fresh build running one process. With a
    block, a unit is a round (each variant's values in it).
    """
    unit = structure.unit
    assert unit is not None  # a structure that is not flat has a unit
    plural = _plural(unit)
    n, mean = flat["n"], flat["mean"]
    size = n.shape[0]
    units = components.column("n_units").to_numpy().astype(np.float64)
    between = components.column("sigma2_between").to_numpy(zero_copy_only=False)
    within = components.column("sigma2_within").to_numpy(zero_copy_only=False)
    total_values = components.column("n_values").to_numpy().astype(np.float64)
    design = components.column("design_effect").to_numpy(zero_copy_only=False)
    scale = components.column("scale").to_numpy(zero_copy_only=False)
    log = scale == "log"
    # the geometric mean of a group on the log scale
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.where(samples.values > 0, samples.values, 1.0))
    _, _, mean_log, _ = sample_moments(logs, samples.offsets, n_rows=logs.shape[0])
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        geometric = np.exp(mean_log)
        center = np.where(log, geometric, np.abs(mean))
        relative_target = target == "relative_halfwidth"
        if relative_target:
            shown_target = precision * center
            bound = np.where(log, np.log1p(precision), precision * np.abs(mean))
        else:
            shown_target = np.full(size, precision)
            bound = np.where(log, np.log1p(precision / geometric), precision)
        variance_now = (between + within) * design / total_values
        now = student_halfwidth(units, np.sqrt(variance_now * units), confidence)
        halfwidth = np.where(log, geometric * np.expm1(now), now)
        relative = np.where(log, np.expm1(now), np.where(mean != 0, now / np.abs(mean),
                                                          np.nan))
    flat_rows = (units >= 2) & (units == total_values)  # every unit holds one value
    conditions = [(n == 0, "no values (all missing)"), (n == 1, "1 value: no sd"),
                  (flat_rows, "flat"), (units < 2, f"1 {unit}: no variance between {plural}")]
    if relative_target:
        conditions.append((~log & (mean == 0), "mean is 0: no relative precision"))
    conditions.append(((between == 0) & (within == 0), "zero spread"))
    status = np.select([c for c, _ in conditions], [s for _, s in conditions], default="ok")
    status = np.where(status == "flat", flat["status"], status)

    search = np.flatnonzero((status == "ok") & ~flat_rows)
    plans = least_cost_plans(between[search], within[search], units[search], bound[search],
                             confidence, assurance, process_cost, iteration_cost)
    if assurance is not None and search.size:
        plans = _plans_at_their_own_df(plans, between[search], within[search], units[search],
                                       total_values[search] / units[search], bound[search],
                                       confidence, assurance, process_cost, iteration_cost)
    processes, iterations = np.full(size, np.nan), np.full(size, np.nan)
    optimal, reached = np.full(size, np.nan), np.full(size, np.nan)
    processes[search], iterations[search] = plans["processes"], plans["iterations"]
    optimal[search], reached[search] = plans["iterations_optimal"], plans["assurance"]
    zero = (status == "zero spread") & ~flat_rows
    processes[zero], iterations[zero] = 2.0, 1.0
    flat_runs = flat["runs_needed"]
    use_flat = flat_rows & (flat_runs >= 0)
    processes = np.where(use_flat, flat_runs, processes)
    iterations = np.where(use_flat, 1.0, iterations)
    reached = np.where(flat_rows, flat["assurance"], reached)
    status = np.where((status == "ok") & np.isnan(processes), TOO_MANY, status)
    shown = ~np.isinf(np.stack([mean, flat["sd"], halfwidth, relative,
                                shown_target])).any(axis=0)
    status = np.where((status == "ok") & ~shown & ~flat_rows, OVERFLOW, status)

    planned = ~np.isnan(processes)
    processes_out = np.where(planned, processes, -1).astype(np.int64)
    iterations_out = np.where(planned, iterations, -1).astype(np.int64)
    runs_needed = np.where(planned, processes_out * iterations_out, -1)
    with np.errstate(invalid="ignore"):
        cost = np.where(planned, processes * (process_cost + iterations * iteration_cost),
                        np.nan)
    return {
        "n": n, "n_dropped": flat["n_dropped"], "mean": mean, "sd": flat["sd"],
        "halfwidth": np.where(flat_rows, flat["halfwidth"], halfwidth),
        "relative_halfwidth": np.where(flat_rows, flat["relative_halfwidth"], relative),
        "target_halfwidth": np.where(flat_rows, flat["target_halfwidth"], shown_target),
        "runs_needed": runs_needed,
        "runs_more": np.where(planned, np.maximum(runs_needed - n, 0), -1),
        "assurance": reached,
        "analysis": np.where(flat_rows, "flat", unit),
        "units": units.astype(np.int64), "scale": scale, "sigma2_between": nan_as_null(between),
        "sigma2_within": nan_as_null(within),
        "icc": nan_as_null(components.column("icc").to_numpy(zero_copy_only=False)),
        "iterations_optimal": optimal, "processes": processes_out, "iterations": iterations_out,
        "processes_more": np.where(planned, np.maximum(processes_out - units, 0),
                                   -1).astype(np.int64),
        "cost": cost, "plan": plan_label(processes_out, iterations_out, unit),
        "status": status,
    }


def _plans_at_their_own_df(plans: dict[str, np.ndarray], between: np.ndarray,
                           within: np.ndarray, units: np.ndarray, per_unit: np.ndarray,
                           bound: np.ndarray, confidence: float, assurance: float,
                           process_cost: float, iteration_cost: float) -> dict[str, np.ndarray]:
    """The plans with an assurance, each meeting its condition with the degrees of freedom of
    the pilot's estimate of V(I) at its own I, the cheapest of four candidates.

    The pilot estimates ``V(I) = s2_p + s2_i / I`` with m - 1 degrees of freedom only at its own
    iterations per process k; at other I with Satterthwaite's, fewer
    (`pilot_degrees_of_freedom`). `plans` (planned with m - 1 everywhere) may then fall short.
    The candidates, each given the processes its own I's degrees of freedom ask for: that
    plan's I; the I of a plan made again with the degrees of freedom at that I (the way the
    search leans when the pilot's k is far from I*); the pilot's own k iterations, where m - 1
    hold; and Kalibera and Jones's round(I*). (A plan made again with one I's degrees of
    freedom for every I overstated the cost of the others: 51 x 17 iterations, cost 1,122,
    where 49 x 5 costs 490.)"""
    first = plans["iterations"]
    df = pilot_degrees_of_freedom(between, within, units, per_unit, first)
    again = least_cost_plans(between, within, df + 1.0, bound, confidence, assurance,
                             process_cost, iteration_cost)["iterations"]
    own = np.maximum(np.rint(per_unit), 1.0)
    rounded = np.clip(np.rint(np.minimum(plans["iterations_optimal"], ITERATION_CAP)), 1.0,
                      ITERATION_CAP)
    best_p, best_i = np.full(between.shape, np.nan), np.full(between.shape, np.nan)
    best_cost, best_df = np.full(between.shape, np.inf), np.full(between.shape, np.nan)
    for iterations in (first, again, own, rounded):
        df_at = pilot_degrees_of_freedom(between, within, units, per_unit, iterations)
        planned = np.isfinite(iterations)
        processes = np.full(between.shape, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            sd = np.sqrt(between + within / iterations)
        at = np.flatnonzero(planned & (sd > 0))
        processes[at] = smallest_runs(sd[at], bound[at], confidence, strict=False,
                                      pilot_runs=df_at[at] + 1.0, assurance=assurance)
        cost = processes * (process_cost + iterations * iteration_cost)
        better = np.isfinite(cost) & ((cost < best_cost)
                                      | ((cost == best_cost) & (processes < best_p)))
        best_p, best_i = np.where(better, processes, best_p), np.where(better, iterations, best_i)
        best_cost, best_df = np.where(better, cost, best_cost), np.where(better, df_at, best_df)
    found = np.isfinite(best_cost) & (best_p <= MAX_RUNS)
    out = dict(plans)
    out["processes"] = np.where(found, best_p, np.nan)
    out["iterations"] = np.where(found, best_i, np.nan)
    out["cost"] = np.where(found, best_cost, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(between + within / out["iterations"])
    reached = np.full(between.shape, np.nan)
    at = np.flatnonzero(found)
    reached[at] = assurance_reached(out["processes"][at], best_df[at] + 1.0, sd[at], bound[at],
                                    confidence)
    out["assurance"] = reached
    return out


def pilot_degrees_of_freedom(between: np.ndarray, within: np.ndarray, units: np.ndarray,
                             per_unit: np.ndarray, iterations: np.ndarray) -> np.ndarray:
    """The degrees of freedom of the pilot's estimate of ``V(I) = s2_p + s2_i / I``.

    Parameters
    ----------
    between, within : numpy.ndarray
        The pilot's ``s2_p`` and ``s2_i`` (ANOVA estimates).
    units : numpy.ndarray
        The pilot's units m.
    per_unit : numpy.ndarray
        The pilot's values per unit k (its mean, for unbalanced pilots).
    iterations : numpy.ndarray
        The iterations I the plan asks for (NaN: none planned).

    Returns
    -------
    numpy.ndarray
        Satterthwaite's degrees of freedom of ``MSB / k + MSW (1 / I - 1 / k)`` (``MSB = s2_i
        + k s2_p``, m - 1 df; ``MSW = s2_i``, m (k - 1) df), at most m - 1 (which they equal at
        I = k), at least 1; m - 1 where no plan was made or k = 1.

    Notes
    -----
    Satterthwaite (1946), "An approximate distribution of estimates of variance components",
    Biometrics Bulletin 2, 110-114. Where the plan extrapolates to I much above k from a small
    ``s2_p``, the estimate of ``V(I)`` rests on ``MSB - MSW``, far less certain than m - 1
    degrees of freedom say (bench/validity: an assurance of 0.8 reached 73 % without this).
    """
    k = per_unit
    msb = within + k * between
    a = msb / k
    with np.errstate(divide="ignore", invalid="ignore"):
        b = within * (1.0 / iterations - 1.0 / k)
        df = (a + b) ** 2 / (a * a / (units - 1.0) + b * b / (units * (k - 1.0)))
    usable = np.isfinite(df) & (df > 0) & (k > 1) & np.isfinite(iterations)
    return np.where(usable, np.clip(df, 1.0, units - 1.0), units - 1.0)


def least_cost_plans(between: np.ndarray, within: np.ndarray, units: np.ndarray,
                     bound: np.ndarray, confidence: float, assurance: float | None,
                     process_cost: float, iteration_cost: float) -> dict[str, np.ndarray]:
    """The least-cost processes x iterations per group that reach the half-width `bound`.

    Parameters
    ----------
    between : numpy.ndarray
        The between-unit variance ``s2_p`` of each group (finite, >= 0).
    within : numpy.ndarray
        The within-unit (iteration) variance ``s2_i`` (finite, >= 0; not both 0).
    units : numpy.ndarray
        The pilot's units (processes) m, >= 2.
    bound : numpy.ndarray
        The half-width H to reach (finite, > 0), on the scale of the variances.
    confidence : float
        The confidence level p.
    assurance : float or None
        The probability gamma that the follow-up reaches H; None: the plug-in plan.
    process_cost, iteration_cost : float
        ``c_p`` and ``c_i`` (> 0).

    Returns
    -------
    dict of numpy.ndarray
        ``iterations_optimal`` (``I*``, inf where ``s2_p = 0``), ``processes`` and
        ``iterations`` (float64 counts; NaN where more than `MAX_RUNS` processes would be
        needed), ``cost`` (``P (c_p + I c_i)``) and ``assurance`` (the probability that the
        follow-up's interval reaches H, `assurance_reached` with ``sd = sqrt(V(I))``).

    Notes
    -----
    For a fixed P the condition reads ``V(I) <= R(P) = (H / (t(p, P) sqrt(f(P) / P)))^2``, so
    the fewest iterations are ``I(P) = ceil(s2_i / (R(P) - s2_p))`` where ``R(P) > s2_p``
    (checked against the condition itself, so rounding never admits a plan that fails it). P
    ranges from the smallest with ``R(P) > s2_p`` (the count needed with endless processes) up
    to the largest that could still beat the best plan known: that of Kalibera and Jones
    (``round(I*)`` iterations, at most `ITERATION_CAP`) or of one iteration per process, cost
    C. Every P there costs at least ``P (c_p + c_i)`` and, since ``t(p, P)^2 f(P) > z^2
    f_min``, at least ``P c_p + c_i s2_i z^2 f_min / H^2``, which bounds P above. At most
    `WINDOW` counts are evaluated per group, centred on Kalibera and Jones's P.
    """
    between = np.asarray(between, dtype=np.float64)
    within = np.asarray(within, dtype=np.float64)
    units = np.asarray(units, dtype=np.float64)
    bound = np.asarray(bound, dtype=np.float64)
    size = between.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        optimal = np.sqrt(process_cost / iteration_cost * within / between)
    optimal = np.where(within == 0, 0.0, optimal)
    out = {"iterations_optimal": optimal, "processes": np.full(size, np.nan),
           "iterations": np.full(size, np.nan), "cost": np.full(size, np.nan),
           "assurance": np.full(size, np.nan)}
    if size == 0:
        return out

    def processes_for(variance: np.ndarray, strict: bool) -> np.ndarray:
        return smallest_runs(np.sqrt(variance), bound, confidence, strict=strict,
                             pilot_runs=units, assurance=assurance)

    anchor_iterations = np.clip(np.rint(np.minimum(optimal, ITERATION_CAP)), 1.0, ITERATION_CAP)
    anchor = processes_for(between + within / anchor_iterations, strict=False)
    single = processes_for(between + within, strict=False)
    smallest = np.full(size, 2.0)
    positive = np.flatnonzero(between > 0)
    smallest[positive] = smallest_runs(np.sqrt(between[positive]), bound[positive], confidence,
                                       strict=True, pilot_runs=units[positive],
                                       assurance=assurance)
    anchor_cost = anchor * (process_cost + anchor_iterations * iteration_cost)
    single_cost = single * (process_cost + iteration_cost)
    best = np.fmin(anchor_cost, single_cost)

    # the largest P that could beat `best` (see Notes), 1 added against rounding
    if assurance is None:
        f_min = np.ones(size)
    else:
        df = units - 1.0
        f_min = np.minimum(fdtri(1.0, df, assurance), df / chdtri(df, assurance))
    z = float(ndtri(0.5 + confidence / 2.0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        floor_cost = iteration_cost * within * (z * z * f_min) / (bound * bound)
        highest = np.fmin(np.floor(best / (process_cost + iteration_cost)),
                          np.floor((best - floor_cost) / process_cost) + 1.0)
    highest = np.fmin(highest, single)
    lowest = smallest
    wide = highest - lowest + 1.0 > WINDOW
    centre = np.where(np.isnan(anchor), lowest, anchor)
    lowest = np.where(wide, np.maximum(lowest, np.minimum(centre - WINDOW // 2,
                                                          highest - WINDOW + 1.0)), lowest)
    highest = np.where(wide, np.minimum(highest, lowest + WINDOW - 1.0), highest)
    searchable = np.isfinite(lowest) & np.isfinite(highest) & (highest >= lowest)

    chosen_p = np.full(size, np.nan)
    chosen_i = np.full(size, np.nan)
    chosen_cost = np.full(size, np.inf)
    counts = np.where(searchable, highest - lowest + 1.0, 0.0).astype(np.int64)
    start = 0
    while start < size:  # groups in batches of at most PAIRS_AT_ONCE (group, P) pairs
        total = np.cumsum(counts[start:])
        stop = start + max(1, int(np.searchsorted(total, PAIRS_AT_ONCE, side="right")))
        batch = np.arange(start, stop)
        _search_batch(batch, counts[batch], lowest[batch], between, within, units, bound,
                      confidence, assurance, process_cost, iteration_cost,
                      chosen_p, chosen_i, chosen_cost)
        start = stop

    # Kalibera and Jones's plan and the one-iteration plan, in case the window left them out
    anchor_i = _fewest_iterations(anchor, between, within, units, bound, confidence,
                                  assurance, np.arange(size))
    anchor_cost = anchor * (process_cost + anchor_i * iteration_cost)
    for p, i, cost in ((anchor, anchor_i, anchor_cost),
                       (single, np.ones(size), single_cost)):
        better = np.isfinite(cost) & ((cost < chosen_cost)
                                      | ((cost == chosen_cost) & (p < chosen_p)))
        chosen_p = np.where(better, p, chosen_p)
        chosen_i = np.where(better, i, chosen_i)
        chosen_cost = np.where(better, cost, chosen_cost)
    found = np.isfinite(chosen_cost) & (chosen_p <= MAX_RUNS)
    out["processes"] = np.where(found, chosen_p, np.nan)
    out["iterations"] = np.where(found, chosen_i, np.nan)
    out["cost"] = np.where(found, chosen_cost, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = between + within / out["iterations"]
    reached = np.full(size, np.nan)
    at = np.flatnonzero(found)
    reached[at] = assurance_reached(out["processes"][at], units[at], np.sqrt(variance[at]),
                                    bound[at], confidence)
    out["assurance"] = reached
    return out


def _search_batch(batch: np.ndarray, counts: np.ndarray, lowest: np.ndarray,
                  between: np.ndarray, within: np.ndarray, units: np.ndarray,
                  bound: np.ndarray, confidence: float, assurance: float | None,
                  process_cost: float, iteration_cost: float, chosen_p: np.ndarray,
                  chosen_i: np.ndarray, chosen_cost: np.ndarray) -> None:
    """Evaluate every (group, P) pair of `batch`; write each group's least-cost plan."""
    total = int(counts.sum())
    if total == 0:
        return
    owner = np.repeat(np.arange(batch.size), counts)
    first = np.cumsum(counts) - counts
    processes = lowest[owner] + (np.arange(total) - first[owner])
    groups = batch[owner]
    iterations = _fewest_iterations(processes, between, within, units, bound, confidence,
                                    assurance, groups)
    cost = processes * (process_cost + iterations * iteration_cost)
    cost = np.where(np.isfinite(cost), cost, np.inf)
    has = counts > 0
    starts = first[has]
    least = np.minimum.reduceat(cost, starts)
    # the first pair (fewest processes) reaching its group's least cost
    hits = np.flatnonzero(cost == np.repeat(least, counts[has]))
    owners = owner[hits]
    first_hit = hits[np.r_[True, owners[1:] != owners[:-1]]]
    target = batch[owner[first_hit]]
    ok = np.isfinite(cost[first_hit])
    chosen_p[target[ok]] = processes[first_hit[ok]]
    chosen_i[target[ok]] = iterations[first_hit[ok]]
    chosen_cost[target[ok]] = cost[first_hit[ok]]


def _fewest_iterations(processes: np.ndarray, between: np.ndarray, within: np.ndarray,
                       units: np.ndarray, bound: np.ndarray, confidence: float,
                       assurance: float | None, groups: np.ndarray) -> np.ndarray:
    """The fewest iterations I >= 1 with which P processes reach the bound (inf: none)."""
    result = np.full(processes.shape, np.inf)
    valid = np.flatnonzero(np.isfinite(processes) & (processes >= 2))
    if valid.size == 0:
        return result
    p, g = processes[valid], groups[valid]
    if assurance is None:
        f = np.ones(p.shape)
    else:
        f = fdtri(p - 1.0, units[g] - 1.0, assurance)
    s2_p, s2_i, h = between[g], within[g], bound[g]

    def holds(iterations: np.ndarray, at: np.ndarray) -> np.ndarray:
        variance = s2_p[at] + s2_i[at] / iterations
        return student_halfwidth(p[at], np.sqrt(variance * f[at]), confidence) <= h[at]

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        reach = (h / student_halfwidth(p, np.sqrt(f), confidence)) ** 2  # R(P)
        guess = np.ceil(s2_i / (reach - s2_p))
    guess = np.where(reach > s2_p, np.maximum(guess, 1.0), np.inf)
    guess = np.where(s2_i == 0, np.where(reach >= s2_p, 1.0, np.inf), guess)
    finite = np.flatnonzero(np.isfinite(guess))
    # rounding: one fewer may hold, or the guess may fail by an ulp
    fewer = finite[guess[finite] > 1.0]
    fewer = fewer[holds(guess[fewer] - 1.0, fewer)]
    guess[fewer] -= 1.0
    for _ in range(3):
        failing = finite[~holds(guess[finite], finite)]
        if failing.size == 0:
            break
        guess[failing] += 1.0
    else:
        guess[finite[~holds(guess[finite], finite)]] = np.inf
    result[valid] = guess
    return result


def plan_label(processes: np.ndarray, iterations: np.ndarray, unit: str) -> pa.Array:
    """``"20 processes x 5 iterations"`` per group (null where there is no plan).

    Parameters
    ----------
    processes, iterations : numpy.ndarray
        The counts (negative where there is no plan).
    unit : str
        The unit's name (``process``, ``round``, ``build``).

    Returns
    -------
    pyarrow.StringArray

    Notes
    -----
    A rendering: no formula.
    """
    plural = _plural(unit)
    missing = (processes < 0) | (iterations < 0)
    units_word = pa.array(np.where(processes == 1, f" {unit} x ", f" {plural} x "))
    iterations_word = pa.array(np.where(iterations == 1, " iteration", " iterations"))
    label = pc.binary_join_element_wise(
        pc.cast(pa.array(processes.astype(np.int64)), pa.string()), units_word,
        pc.cast(pa.array(iterations.astype(np.int64)), pa.string()), iterations_word, "")
    return pc.if_else(pa.array(missing), pa.nulls(len(label), pa.string()), label)


def _plural(unit: str) -> str:
    return {"process": "processes"}.get(unit, unit + "s")
