"""Run planning: how many runs a benchmark needs for a given precision, or to tell two apart.

Pakhomov (seed 004): the mean of n runs is known to within ``t(p, n) * s / sqrt(n)`` with
confidence p, where ``t(p, n) = t[(1 + p) / 2; n - 1]`` is the two-sided Student coefficient
(his Table 1, `student_coefficients`). Since ``t(p, N) / sqrt(N)`` decreases with N, one can ask for
the smallest number of runs N whose interval is narrow enough (`plan_runs`, per group), and, for
two systems, the smallest N after which their intervals stop overlapping (his Tables 2-4: run
until the 95% intervals of the two processors are disjoint).

Taking the pilot's sd s as the truth (the plug-in plan) reaches the precision only about half the
time or less: s is below sigma more often than not, and the follow-up's own sd varies too. By
default `plan_runs` plans with an assurance gamma instead (Harris, Horvitz & Mood 1948; Kupper &
Hafner 1989): the follow-up's ``S^2 / s^2 ~ F(N - 1, m - 1)``, so N is the smallest with
``t(p, N)^2 s^2 F_gamma(N - 1, m - 1) / N <= H^2``, and the follow-up of N fresh runs reaches the
half-width H with probability >= gamma. The separation table stays Pakhomov's plug-in procedure.

Every search is exact in the Student coefficient, vectorised over all groups (no Python loop):
the normal bound ``N > (z s / h)^2`` starts it, then whole arrays step up and bisect
(`smallest_runs`). Out of core or on Spark (`fastperf.data.chunked`), a
chunk holds whole groups, or whole benchmarks for the separation table (`plan_runs_plan`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import ArrayLike
from scipy.special import stdtrit

from fastperf.data.validation import (check_choice, check_confidence, check_key_clash,
                                      check_real, check_unit_interval, real_array)
from fastperf.errors import InputError
from fastperf.results.base import GroupResult, dropped_warnings
from fastperf.results.figures import ReportView
from fastperf.io.tables import column_name, key_list, require_columns, with_unit
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.arrays import Samples
from fastperf.data.grouping import Groups, code_of, group_rows, key_codes
from fastperf.data.levels import Structure, check_structure_arguments, resolve_structure, units_of
from fastperf.engine.intervals import student_halfwidth
from fastperf.data.samples import binary_exponents, group_samples, scaled_samples
from fastperf.kernels.moments import sample_moments
from fastperf.protocols.planning.processes import PROCESS_COLUMNS, process_plan_columns
from fastperf.protocols.planning.searches import (MAX_RUNS, OVERFLOW, TOO_MANY,
                                                  assurance_reached, smallest_runs)
from fastperf.protocols.report_views import plan_view

__all__ = ["student_coefficients", "plan_runs", "PlanResult", "PLAN_TARGETS", "MAX_RUNS",
           "PlanRunsOptions", "PlanRunsPlan", "plan_runs_options", "plan_runs_plan",
           "plan_runs_stage", "plan_runs_finish"]



#: Accepted `target` values of `plan_runs`.
PLAN_TARGETS = ("relative_halfwidth", "halfwidth")

GROUP_COLUMNS = [
    "n", "n_dropped", "mean", "sd", "halfwidth", "relative_halfwidth", "target_halfwidth",
    "runs_needed", "runs_more", "assurance", "status",
]
SEPARATION_COLUMNS = [
    "n_baseline", "n_candidate", "mean_baseline", "mean_candidate", "sd_baseline",
    "sd_candidate", "halfwidth_baseline", "halfwidth_candidate", "separated_now",
    "runs_to_separate", "runs_more_baseline", "runs_more_candidate", "status",
]


def check_confidences(confidences: np.ndarray) -> None:
    """`check_confidence` on an array: the first value outside (0, 1) raises its error.

    Parameters
    ----------
    confidences : numpy.ndarray
        Confidence levels, any shape.

    Raises
    ------
    InputError
        A level that is not strictly between 0 and 1 (NaN included).

    Notes
    -----
    The check is `fastperf.data.validation.check_confidence`, applied to the first bad value.
    """
    bad = ~((confidences > 0.0) & (confidences < 1.0))  # NaN is bad too
    if bad.any():
        check_confidence(confidences[bad].flat[0])


def student_coefficients(ns: ArrayLike, confidences: ArrayLike) -> np.ndarray | np.float64:
    """Two-sided Student coefficients ``t(p, n) = t[(1 + p) / 2; n - 1]`` (Pakhomov, Table 1).

    The interval of the mean of n runs at confidence p is ``mean +/- t(p, n) * sd / sqrt(n)``.

    Parameters
    ----------
    ns : int or array of int
        Numbers of runs (measurements), each >= 2.
    confidences : float or array of float
        Confidence levels p, each strictly between 0 and 1.

    Returns
    -------
    numpy.ndarray or numpy.float64
        Shape ``shape(ns) + shape(confidences)``: rows are the n, columns the p (a 1-D `ns` and
        a 1-D `confidences` give the table). Two scalars give a scalar.

    Raises
    ------
    InputError
        An n below 2 or not a whole number, a p outside (0, 1).

    Notes
    -----
    Pakhomov (seed 004), Table 1: the Student coefficients t[(1 + p) / 2; n - 1] (Student 1908),
    computed by ``scipy.special.stdtrit`` as the upper quantile of the tail ``(1 - p) / 2``
    (exact in float64), as ``scipy.stats.t.isf((1 - p) / 2, n - 1)``: finite for every p below
    1 (p = 1 - 2**-53 with n = 2 gives 5.7e15), where ``0.5 + p / 2`` would round to 1.

    Examples
    --------
    >>> float(student_coefficients(2, 0.95))  # doctest: +ELLIPSIS
    12.7062...
    """
    n, p = real_array(ns, "ns"), real_array(confidences, "confidences")
    bad_n = ~((n >= 2) & (n == np.floor(n)) & np.isfinite(n))
    if bad_n.any():
        raise InputError(
            f"the number of runs n must be a whole number >= 2 (one run has no spread), got "
            f"{n[bad_n].flat[0]:g}"
        )
    check_confidences(p)
    # the upper quantile of the tail (1 - p)/2, exact in float64 (0.5 + p/2 rounds to 1 for p
    # within 2**-53 of 1); 0.0 - t turns the -0.0 of a tail 0.5 into +0.0
    with np.errstate(invalid="ignore", over="ignore"):
        t = 0.0 - stdtrit(n.reshape(n.shape + (1,) * p.ndim) - 1.0, (1.0 - p) / 2.0)
    if not np.isfinite(t).all():  # not seen for any n >= 2 and p in (0, 1); never return inf
        raise InputError(f"confidences: a Student coefficient (largest confidence {p.max()!r}) "
                         "is beyond the float64 range; use confidences further from 1")
    return t[()] if t.ndim == 0 else t


class PlanResult(GroupResult):
    """Result of `plan_runs`.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per (keys, variant) group, keys first (grouper's order), then ``n``,
        ``n_dropped``, ``mean``, ``sd``, ``halfwidth``, ``relative_halfwidth``,
        ``target_halfwidth``, ``runs_needed``, ``runs_more``, ``assurance``, ``status``; a
        plan per level (a table with levels) also has, before ``status``, the columns of
        `fastperf.protocols.planning.processes.PROCESS_COLUMNS` (``processes``,
        ``iterations``, the variance components, the ICC, ...).
    separation : pyarrow.Table or None
        One row per benchmark when two variants are compared: the keys, then ``n_baseline``,
        ``n_candidate``, ``mean_*``, ``sd_*``, ``halfwidth_*``, ``separated_now``,
        ``runs_to_separate``, ``runs_more_baseline``, ``runs_more_candidate``, ``status``.
    summary : dict
        ``groups``, ``values``, ``dropped``, ``target``, ``precision``, ``confidence``,
        ``assurance`` (the level asked for; None for the plug-in plan), ``groups_enough``,
        ``runs_needed_total``, ``runs_more_total``, ``runs_needed_max``, ``structure``
        (``"flat"``, ``"process"``, ...: `fastperf.data.levels.Structure.label`); a plan per
        level also ``process_cost``, ``iteration_cost``, ``processes_total``, ``cost_total``;
        with a separation
        table also ``baseline``, ``candidate``, ``benchmarks``, ``separated_now``,
        ``separation_not_ok``, ``runs_to_separate_max``.
    warnings : list of str
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return plan_view(self)

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 separation: pa.Table | None = None):
        super().__init__(table, summary, warnings, separation=separation)

    extra_tables = ("separation",)
    separation: pa.Table | None

    def extra_title(self, name: str) -> str:
        """The heading of the extra table `name` ("separation") in the renderings: the two
        variants compared and the confidence level.

        Notes
        -----
        A rendering: no formula.
        """
        return (f"separation ({self.summary['baseline']} vs {self.summary['candidate']}, "
                f"confidence {self.summary['confidence']:g})")


def _plan_iv(target: str, precision: float, confidence: float,
             assurance: float | None) -> tuple[str, float, float, float | None]:
    """`target`, `precision`, `confidence` and `assurance`, checked."""
    check_choice(target, "target", PLAN_TARGETS)
    if assurance is not None:
        try:
            assurance = check_unit_interval(assurance, "assurance")
        except InputError as exc:
            raise InputError(f"{exc} (or None for the plug-in plan)") from None
    unit = "a fraction of the mean" if target == "relative_halfwidth" else "the value's unit"
    precision = check_real(precision, f"precision ({unit})", low=0, high=np.inf, low_open=True)
    return target, precision, check_confidence(confidence), assurance


def _choose_variants(present: list | None, variant: str | None, baseline, candidate):
    """The (baseline, candidate) to separate, or None; an `InputError` for a half-given pair.
    `present`: the variants (not null) in the order of the groups, when neither is given."""
    if baseline is None and candidate is None:
        if variant is None:
            return None
        assert present is not None  # plan_runs lists them when neither is given
        return tuple(present) if len(present) == 2 else None  # named ones; first group's first
    if baseline is None or candidate is None:
        raise InputError("pass both baseline= and candidate= (or neither, for a table of two "
                         "variants)")
    if variant is None:
        raise InputError("baseline= and candidate= need a variant column; variant=None given")
    if baseline == candidate:
        raise InputError(f"baseline and candidate are the same variant {baseline!r}")
    return baseline, candidate


def plan_runs(
    data: Any,
    *,
    by: str | Sequence[str] | None = "benchmark",
    variant: str | None = "variant",
    value: str = "value",
    target: str = "relative_halfwidth",
    precision: float = 0.01,
    confidence: float = 0.95,
    assurance: float | None = 0.8,
    baseline: Any = None,
    candidate: Any = None,
    unit: str | None = "unit",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
    process_cost: float = 1.0,
    iteration_cost: float = 1.0,
) -> PlanResult:
    """How many runs each group needs for a precise mean, and to tell two variants apart.

    Pakhomov (seed 004): the mean of n runs lies within ``t(p, n) * sd / sqrt(n)`` of the
    true value with confidence p (`student_coefficients`). Each group's runs are a pilot of m
    runs with sd s; the number of runs N is planned so that a follow-up of N fresh runs reaches
    the target half-width H with probability `assurance` (Harris, Horvitz & Mood 1948), or,
    with ``assurance=None``, taking s as the truth (Pakhomov's plug-in plan). The Student
    coefficient is iterated exactly (it depends on N), never replaced by the normal quantile.

    Parameters
    ----------
    data : pyarrow.Table, RecordBatchReader, object with ``__arrow_c_stream__``, or path(s)
        A measurement table (one row per run). Null/NaN values are dropped and counted.
    by : str or list of str or None
        Key column(s) naming the benchmark; None: the whole table is one benchmark.
    variant : str or None
        Column naming the system measured; None when the table has none (no separation).
    value : str
        The measurement column.
    target : {"relative_halfwidth", "halfwidth"}
        What `precision` bounds: the half-width as a fraction of ``|mean|``, or in the value's
        unit.
    precision : float
        The largest acceptable half-width (> 0): ``precision * |mean|`` or ``precision``.
    confidence : float
        Confidence level p of every interval, in (0, 1).
    assurance : float or None
        The probability gamma, in (0, 1), that the follow-up's interval reaches the precision
        (default 0.8): ``runs_needed`` is the smallest N >= 2 with
        ``t(p, N)^2 s^2 F_gamma(N - 1, m - 1) / N <= H^2``. None: the plug-in plan, the smallest
        N with ``t(p, N) s / sqrt(N) <= H``, which follow-ups reach only about half the time or
        less. The separation table is the plug-in procedure either way.
    unit : str or None
        When the table has this column, groups are also split by unit (it joins the benchmark
        keys, so separation compares the two variants within a unit). None to ignore it.
    baseline, candidate : variant values, optional
        The two variants whose intervals should separate. When both are omitted and the
        `variant` column holds exactly two distinct values, they are compared: the baseline is
        the variant of the first group of ``.groups`` (the grouper's order; for a plain column,
        the variant of the table's first row).
    levels : None, str or sequence of str
        The nested level columns, outermost first (`fastperf.data.levels`): None takes those
        of ``build``, ``process`` the table has; ``[]`` or ``"none"``: the flat plan (every
        value an independent run: today's table, bit for bit).
    block : None or str
        The block column crossed with the variants: None takes ``round`` when the table has
        it (not with ``levels=[]``); ``"none"``: no block.
    process_cost, iteration_cost : float
        The cost (> 0; seconds, say) of starting a process (a unit: a fork, a launch, a
        round; with a build level, a build and its process) and of one iteration. Only their
        ratio changes the plan; the default 1 and 1 prices a process start like one
        iteration. Used by the plan per level only.

    Returns
    -------
    PlanResult
        With levels (`levels`, `block`: a process column, say) the plan is per level: see
        "Processes and iterations" below. Else (the flat plan):

        ``.groups``: per (keys, variant) group ``n``, ``n_dropped``, ``mean``, ``sd`` (ddof=1),
        ``halfwidth = t(p, n) sd / sqrt(n)``, ``relative_halfwidth = halfwidth / |mean|``,
        ``target_halfwidth`` (H), ``runs_needed`` (smallest N >= 2 with
        ``t(p, N)^2 sd^2 F_gamma(N - 1, n - 1) / N <= H^2``, or with ``assurance=None``
        ``t(p, N) sd / sqrt(N) <= H``; -1 where undefined), ``runs_more = max(0, runs_needed -
        n)`` (-1 where undefined), ``assurance``: the probability that N fresh runs give
        ``t(p, N) S / sqrt(N) <= H``, ``fdtr(N - 1, n - 1, H^2 N / (t(p, N) sd)^2)`` (at
        least `assurance` by construction; with ``assurance=None`` the plug-in plan's own,
        often below 0.5; NaN where there is no plan and for zero spread) and ``status``: "ok",
        "no values (all missing)", "1 value: no sd", "mean is 0: no relative precision", "zero
        spread" (runs_needed 2: the interval is 0 at any N, but an sd of 0 estimated from few
        runs deserves distrust), "needs more than 2**53 runs" or "sd or half-width beyond the
        float64 range (the run counts hold)" (a figure shown in the value's unit is inf).

        ``.separation`` (None without two variants): per benchmark, the two variants' ``n``,
        ``mean``, ``sd`` and current ``halfwidth``; ``separated_now`` (the intervals at each
        variant's own n are disjoint: ``halfwidth_baseline + halfwidth_candidate < |m1 - m2|``;
        null when a variant has < 2 values); ``runs_to_separate``, the smallest N >= 2 with
        ``t(p, N) (s1 + s2) / sqrt(N) < |m1 - m2|`` (the same N for both variants, Pakhomov's
        plug-in procedure, whatever `assurance`: the observed means and sds are taken as the
        truth; inf with status "equal means", NaN where a variant has < 2 values, 2 with
        status "zero spread" when both sds are 0); ``runs_more_* = max(0, runs_to_separate -
        n_*)``; ``status``: "ok", "no 'B' values", "1 'B' value: no sd" (B the variant at
        fault), "equal means", "zero spread", "needs more than 2**53 runs" or "sd or half-width
        beyond the float64 range (the run counts hold)".

    Raises
    ------
    InputError
        Unknown `target`, `precision` <= 0, `confidence` or `assurance` outside (0, 1), a
        missing column, a baseline/candidate not in the table, only one of them given, or
        infinite values.

    Notes
    -----
    Pakhomov (seed 004): the interval mean +/- t(p, n) s / sqrt(n) with the Student coefficient
    of his Table 1, and the procedure of his Tables 2-4 (run until the two systems' intervals
    no longer overlap), which takes the observed means and sds as the truth.

    The assurance plan is the tolerance-probability sample size of Harris, Horvitz & Mood
    (1948), "On the determination of sample sizes in designing experiments", JASA 43, 391-402
    (see also Kupper & Hafner 1989, "How appropriate are popular sample size formulas?", Am.
    Statist. 43, 101-105): for normal runs, the sd S of N fresh runs and the pilot's s (m runs)
    are independent with ``S^2 / s^2 ~ (sigma^2 chi2_{N-1} / (N - 1)) / (sigma^2 chi2_{m-1} /
    (m - 1)) = F(N - 1, m - 1)``, so ``s sqrt(F_gamma(N - 1, m - 1))`` bounds S with probability
    gamma and N is the smallest whose interval with that sd is within H. The probability is over
    both the pilot and the follow-up; a follow-up that reuses the pilot's runs (``runs_more``)
    is not independent of s, and the figure is then an approximation. The search for the
    smallest N starts from the normal bound N > F_min (z s / H)^2 and is exact in t(p, N) and F.

    **Processes and iterations.** Values of one process are not independent runs
    (docs/nested.md). With levels, each group's variance components on the pilot
    (`fastperf.data.levels.variance_components`: ``s2_p``, the sum over the levels, and
    ``s2_i``, on log values when the group's values are all > 0) plan P processes of I
    iterations each, the mean of whose P process means has variance ``(s2_p + s2_i / I) / P``:
    the plan is the (P, I) of least cost ``P (process_cost + I iteration_cost)`` with
    ``t(p, P)^2 (s2_p + s2_i / I) F_gamma(P - 1, nu) / P <= H^2`` (nu: m - 1, m the pilot's
    processes, at the pilot's own iterations a process, else Satterthwaite's degrees of
    freedom, `fastperf.protocols.planning.processes.pilot_degrees_of_freedom`; without an
    assurance F is 1). Kalibera & Jones (2013, "Rigorous benchmarking in reasonable
    time", ISMM) give the cost-optimal iterations ``I* = sqrt((process_cost / iteration_cost)
    (s2_i / s2_p))`` (``iterations_optimal``); the search over P starts from their plan
    (`fastperf.protocols.planning.processes.least_cost_plans`). On the log scale the interval
    is that of the geometric mean G, ``exp(mean log +/- h)``, and the target is ``h <=
    log(1 + precision)`` (relative: the interval's upper end within a factor 1 + precision
    of G) or ``h <= log(1 + precision / G)`` (``target="halfwidth"``); on the linear scale
    (a group with a value <= 0), ``h <= precision |mean|`` or ``h <= precision``. The
    columns: see `fastperf.protocols.planning.processes.process_plan_columns`. The
    separation table then compares the units' means: its ``n_*`` and ``runs_*`` count units
    (processes), each of the pilot's iterations.
    """
    options = plan_runs_options(  # before the table is read
        by=by, variant=variant, value=value, target=target, precision=precision,
        confidence=confidence, assurance=assurance, baseline=baseline, candidate=candidate,
        unit=unit, levels=levels, block=block, process_cost=process_cost,
        iteration_cost=iteration_cost)
    return run_planned(data, partial(plan_runs_plan, options=options), plan_runs_stage,
                       plan_runs_finish, values=[value], function="plan_runs",
                       keys=[by, variant, unit])


@dataclass(frozen=True)
class PlanRunsOptions:
    """The options of `plan_runs`: `target`, `precision`, `confidence` and `assurance`
    checked (`plan_runs_options`), the columns and variants checked against the table by
    `plan_runs_plan`; see `plan_runs` for each."""

    by: Any
    variant: str | None
    value: str
    target: str
    precision: float
    confidence: float
    assurance: float | None
    baseline: Any
    candidate: Any
    unit: str | None
    levels: tuple[str, ...] | None
    block: str | None
    process_cost: float
    iteration_cost: float


@dataclass(frozen=True, kw_only=True)
class PlanRunsPlan(Plan):
    """The plan of `plan_runs` (`plan_runs_plan`).

    Attributes
    ----------
    options : PlanRunsOptions
    keys : list of str
        The benchmark's key columns (the unit included when the table has it).
    pair : tuple or None
        The (baseline, candidate) variants separated, or None.
    variants : int or None
        The number of variants of the table, when neither variant is named.
    structure : Structure
        The levels and block the plan uses (`fastperf.data.levels.resolve_structure`).
    """

    options: PlanRunsOptions
    keys: list[str]
    pair: tuple | None
    variants: int | None
    structure: Structure


def plan_runs_options(*, by, variant, value, target, precision, confidence, assurance,
                      baseline, candidate, unit, levels=None, block=None, process_cost=1.0,
                      iteration_cost=1.0) -> PlanRunsOptions:
    """The options of `plan_runs`, checked (those that need no table).

    Parameters
    ----------
    by, variant, value, target, precision, confidence, assurance, baseline, candidate, unit
    levels, block, process_cost, iteration_cost
        See `plan_runs`.

    Returns
    -------
    PlanRunsOptions
    """
    target, precision, confidence, assurance = _plan_iv(target, precision, confidence,
                                                        assurance)
    levels, block = check_structure_arguments(levels, block)
    process_cost = check_real(process_cost, "process_cost (the cost of starting a process)",
                              low=0, high=np.inf, low_open=True)
    iteration_cost = check_real(iteration_cost, "iteration_cost (the cost of one iteration)",
                                low=0, high=np.inf, low_open=True)
    return PlanRunsOptions(by, variant, value, target, precision, confidence, assurance,
                           baseline, candidate, unit, levels, block, process_cost,
                           iteration_cost)


def plan_runs_plan(table: pa.Table, options: PlanRunsOptions) -> PlanRunsPlan:
    """The plan of `plan_runs` (`fastperf.data.chunked`).

    Each (keys, variant) group is planned on its own; the separation table compares the two
    variants of each benchmark, so with one a chunk holds whole benchmarks (``"partition"``:
    the benchmark keys, the unit included), else whole groups. The plan chooses the two
    variants (the two of the table, or the ones named, which the table must have) and counts
    the variants for the warning that asks to name two.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : PlanRunsOptions
        `plan_runs_options`.

    Returns
    -------
    PlanRunsPlan
    """
    variant, value, unit = options.variant, options.value, options.unit
    baseline, candidate = options.baseline, options.candidate
    keys = with_unit(key_list(options.by), table, unit)
    check_key_clash(keys, (), "plan_runs", value, variant)
    group_keys_list = keys + ([variant] if variant is not None else [])
    check_key_clash(group_keys_list, dict.fromkeys(GROUP_COLUMNS + SEPARATION_COLUMNS),
                    "plan_runs", value=value)
    column_name(value, "value")
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, group_keys_list + [value])
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*group_keys_list, value])
    if not structure.flat:
        check_key_clash(group_keys_list, dict.fromkeys(PROCESS_COLUMNS), "plan_runs",
                        value=value)
    present = None
    if baseline is None and candidate is None and variant is not None:
        present = _present_variants(table, group_keys_list, variant)
    pair = _choose_variants(present, variant, baseline, candidate)
    if pair is not None and present is None:  # named: the table must have both
        assert variant is not None  # _choose_variants gives a pair only with a variant column
        dictionary = key_codes(table.column(variant), variant)[1]
        for name in dict.fromkeys(pair):
            code_of(dictionary, name, f"the {variant!r} column")
    return PlanRunsPlan(options=options, keys=keys, pair=pair,
                        variants=None if present is None else len(present),
                        structure=structure,
                        partition=tuple(keys if pair is not None else group_keys_list),
                        order=tuple(group_keys_list))


def _present_variants(table: pa.Table, group_keys_list: list[str], variant: str) -> list:
    """The variants (not null) in the order of the groups' first appearance; the order only
    where there are two. With every key column coded in first-appearance order (not
    dictionary-encoded), the first group is the first row's: its variant comes first, found
    without grouping the table."""
    codes, dictionary = key_codes(table.column(variant), variant)
    used = np.bincount(codes, minlength=len(dictionary)) > 0
    values = dictionary.to_pylist()
    present = [v for v, u in zip(values, used) if u and v is not None]
    if len(present) != 2:
        return present
    first_appearance = all(not pa.types.is_dictionary(table.column(c).type)
                           or table.column(c).null_count for c in group_keys_list)
    if first_appearance and values[codes[0]] is not None:
        return present  # the first row's variant has code 0, so comes first
    group_keys = group_rows(table, group_keys_list).keys
    return [v for v in pc.unique(group_keys.column(variant)).to_pylist() if v is not None]


def plan_runs_stage(table: pa.Table, plan: PlanRunsPlan, side: dict | None = None) -> StageRows:
    """The rows of `plan_runs` for the groups of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete groups (complete benchmarks when two variants are separated).
    plan : PlanRunsPlan
        `plan_runs_plan`.
    side : dict or None
        Unused.

    Returns
    -------
    StageRows
        One row per (keys, variant) group; with a separation, in ``extra``, each benchmark's
        separation figures in ``separation_<column>`` on its first group (flagged in
        ``separation``).
    """
    options = plan.options
    keys, variant, confidence, pair = plan.keys, options.variant, options.confidence, plan.pair
    group_keys, samples, n_dropped = group_samples(table, by=keys, variant=variant,
                                                   value=options.value)
    figures = group_figures(samples, confidence)
    columns = flat_plan_columns(figures, n_dropped, options)
    if not plan.structure.flat:
        units = units_of(table, keys, variant, options.value, plan.structure)
        columns = process_plan_columns(
            columns, units.components, samples, plan.structure, target=options.target,
            precision=options.precision, confidence=confidence, assurance=options.assurance,
            process_cost=options.process_cost, iteration_cost=options.iteration_cost)
        if pair is not None:  # the separation of the units' means
            _, unit_samples, _ = group_samples(units.table, by=keys, variant=variant,
                                                       value=options.value)
            figures = group_figures(unit_samples, confidence)
    extra = {}
    if pair is not None:
        assert variant is not None  # _choose_variants gives a pair only with a variant column
        n, mean, sd, halfwidth = (figures[name] for name in ("n", "mean", "sd", "halfwidth"))
        benchmarks, separation = separation_columns(
            group_keys, keys, variant, pair, n, mean, sd, halfwidth, confidence,
            tuple(figures[name] for name in ("mean_scaled", "sd_scaled", "halfwidth_scaled",
                                             "exponent")))
        first = benchmarks.first_row
        flag = np.zeros(n.shape[0], dtype=bool)
        flag[first] = True
        position = np.zeros(n.shape[0], dtype=np.int64)
        position[first] = np.arange(first.shape[0])
        at_first = pa.array(position, mask=~flag)
        extra["separation"] = flag
        for name, column in separation.items():
            extra["separation_" + name] = pa.array(column).take(at_first)
    return StageRows.of(with_keys(group_keys, columns), extra)


def group_figures(samples: Samples, confidence: float) -> dict[str, np.ndarray]:
    """Each group's ``n``, ``mean``, ``sd`` (ddof=1) and Student ``halfwidth``, and the same
    figures of the group divided by ``2**exponent`` (``*_scaled``, ``exponent``).

    Parameters
    ----------
    samples : Samples
        One segment per group (NaN dropped).
    confidence : float
        The interval's level p.

    Returns
    -------
    dict of numpy.ndarray

    Notes
    -----
    Each group is divided by a power of 2 (exact) before its moments: values near 1.8e308 or
    1e-300 keep a finite, nonzero sd; the searches run on the scaled sd and bound (their
    answer depends on the ratio only). The half-width is ``t(p, n) sd / sqrt(n)`` (Pakhomov).
    """
    exponent = binary_exponents(samples)
    scaled = scaled_samples(samples, exponent)
    n, _, mean_scaled, variance = sample_moments(scaled.values, scaled.offsets,
                                                 n_rows=scaled.values.shape[0])
    sd_scaled = np.sqrt(variance)
    halfwidth_scaled = student_halfwidth(n, sd_scaled, confidence)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        mean, sd = np.ldexp(mean_scaled, exponent), np.ldexp(sd_scaled, exponent)
        halfwidth = np.ldexp(halfwidth_scaled, exponent)
    return {"n": n, "mean": mean, "sd": sd, "halfwidth": halfwidth, "mean_scaled": mean_scaled,
            "sd_scaled": sd_scaled, "halfwidth_scaled": halfwidth_scaled, "exponent": exponent}


def flat_plan_columns(figures: dict[str, np.ndarray], n_dropped: np.ndarray,
                      options: PlanRunsOptions) -> dict[str, Any]:
    """The columns of `GROUP_COLUMNS` of the flat plan (every value an independent run).

    Parameters
    ----------
    figures : dict of numpy.ndarray
        `group_figures`.
    n_dropped : numpy.ndarray
        The null/NaN values dropped per group.
    options : PlanRunsOptions

    Returns
    -------
    dict
        Column name -> array.

    Notes
    -----
    Pakhomov (seed 004) and, with an assurance, Harris, Horvitz & Mood (1948): see
    `plan_runs` and `smallest_runs`.
    """
    target, precision, confidence = options.target, options.precision, options.confidence
    n, mean, sd, halfwidth = (figures[name] for name in ("n", "mean", "sd", "halfwidth"))
    mean_scaled, sd_scaled = figures["mean_scaled"], figures["sd_scaled"]
    exponent = figures["exponent"]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        relative = np.where(mean != 0, figures["halfwidth_scaled"] / np.abs(mean_scaled), np.nan)
        if target == "relative_halfwidth":
            bound = precision * np.abs(mean)
            bound_scaled = precision * np.abs(mean_scaled)
        else:
            bound = np.full(n.shape, precision)
            bound_scaled = np.ldexp(bound, -exponent)

    conditions = [(n == 0, "no values (all missing)"), (n == 1, "1 value: no sd")]
    if target == "relative_halfwidth":
        conditions.append((mean == 0, "mean is 0: no relative precision"))
    conditions.append((sd == 0, "zero spread"))
    status = np.select([c for c, _ in conditions], [s for _, s in conditions], default="ok")
    runs = np.full(n.shape, np.nan)
    runs[status == "zero spread"] = 2.0
    search = np.flatnonzero(status == "ok")
    runs[search] = smallest_runs(sd_scaled[search], bound_scaled[search], confidence,
                                  strict=False, pilot_runs=n[search],
                                  assurance=options.assurance)
    status = np.where((status == "ok") & np.isnan(runs), TOO_MANY, status)
    shown = ~np.isinf(np.stack([mean, sd, halfwidth, relative, bound])).any(axis=0)
    status = np.where((status == "ok") & ~shown, OVERFLOW, status)
    reached = np.full(n.shape, np.nan)
    reached[search] = assurance_reached(runs[search], n[search], sd_scaled[search],
                                        bound_scaled[search], confidence)
    runs_needed = np.where(np.isnan(runs), -1, runs).astype(np.int64)
    runs_more = np.where(runs_needed >= 0, np.maximum(runs_needed - n, 0), -1)
    return {
        "n": n, "n_dropped": n_dropped, "mean": mean, "sd": sd, "halfwidth": halfwidth,
        "relative_halfwidth": relative, "target_halfwidth": bound, "runs_needed": runs_needed,
        "runs_more": runs_more, "assurance": reached, "status": status,
    }


def plan_runs_finish(staged: StageRows, plan: PlanRunsPlan, info: dict) -> PlanResult:
    """The result of `plan_runs` from its rows (`fastperf.data.chunked`): the separation
    table, the summary and the warnings.

    Parameters
    ----------
    staged : StageRows
        `plan_runs_stage` rows of every group, in output order.
    plan : PlanRunsPlan
        `plan_runs_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    PlanResult
    """
    options = plan.options
    table = staged.rows
    n = table.column("n").to_numpy()
    n_dropped = table.column("n_dropped").to_numpy()
    runs_needed = table.column("runs_needed").to_numpy()
    runs_more = table.column("runs_more").to_numpy()
    status = table.column("status").to_numpy(zero_copy_only=False)
    planned = runs_needed >= 0
    not_ok = int((status != "ok").sum())
    summary: dict[str, Any] = {
        "function": "plan_runs", "groups": int(n.shape[0]), "values": int(n.sum()), "dropped": int(n_dropped.sum()),
        "target": options.target, "precision": options.precision,
        "confidence": options.confidence, "assurance": options.assurance,
        "groups_enough": int((planned & (runs_more == 0)).sum()),
        "runs_needed_total": int(runs_needed[planned].sum()),
        "runs_more_total": int(runs_more[planned].sum()),
        "runs_needed_max": int(runs_needed[planned].max()) if planned.any() else None,
        "structure": plan.structure.label(),
    }
    if not plan.structure.flat:
        processes = table.column("processes").to_numpy()
        cost = table.column("cost").to_numpy()
        summary.update({
            "process_cost": options.process_cost, "iteration_cost": options.iteration_cost,
            "processes_total": int(processes[processes >= 0].sum()),
            "cost_total": float(np.nansum(cost)),
        })
    warnings = dropped_warnings(n_dropped)
    if not_ok:
        warnings.append(f"{not_ok} group(s) without a plain run count (see status)")

    separation = None
    if plan.pair is not None:
        first_group = staged.extra.column("separation")
        first = staged.extra.filter(first_group)
        separation = with_keys(table.filter(first_group).select(plan.keys), {
            name: first.column("separation_" + name).combine_chunks()
            for name in SEPARATION_COLUMNS})
        figures, more_warnings = separation_summary(separation, plan.pair)
        summary.update(figures)
        warnings.extend(more_warnings)
    elif options.variant is not None and options.baseline is None:
        count = plan.variants
        assert count is not None  # counted by the plan when neither variant is named
        if count > 2:
            warnings.append(f"{count} variants: pass baseline= and candidate= for the "
                            "separation table")
    return PlanResult(table, summary, warnings, separation)


# ----------------------------------------------------------------------------------------------
# The separation table of Pakhomov's Tables 2-4 (`separation_columns`, `separation_summary`);
# the run-count searches are in `fastperf.protocols.planning.searches`.

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
    flat = status == "zero spread"  # separated (or not) now, 2 runs by convention
    cannot = int(((status != "ok") & ~flat).sum())
    if cannot:
        warnings.append(f"{cannot} benchmark(s) cannot be separated as measured (see the "
                        "separation table's status)")
    if flat.any():
        warnings.append(f"{int(flat.sum())} benchmark(s) with zero spread on both sides: 2 runs "
                        "by convention, not from the formula (a timer's resolution can hide a "
                        "spread)")
    return summary, warnings
