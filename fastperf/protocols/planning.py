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
(`fastperf.protocols.planning_search`). Out of core or on Spark (`fastperf.data.chunked`), a
chunk holds whole groups, or whole benchmarks for the separation table (`plan_runs_plan`).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import ArrayLike

from fastperf.data.validation import (check_choice, check_confidence, check_key_clash,
                                      check_real, check_unit_interval)
from fastperf.errors import InputError
from fastperf.results.base import GroupResult, dropped_warnings
from fastperf.io.tables import column_name, has_column, key_list, require_columns
from fastperf.data.chunked import run_planned, visible
from fastperf.data.grouping import code_of, group_rows, key_codes
from fastperf.engine.intervals import student_halfwidth
from fastperf.protocols.relevance_common import binary_exponents, scaled_samples
from fastperf.protocols.planning_search import (MAX_RUNS, OVERFLOW, TOO_MANY, assurance_reached,
                                                separation_columns, separation_summary,
                                                with_keys)
from fastperf.protocols.planning_search import smallest_runs as _smallest_runs

__all__ = ["student_coefficients", "plan_runs", "PlanResult", "PLAN_TARGETS", "MAX_RUNS",
           "plan_runs_plan", "plan_runs_stage", "plan_runs_finish"]

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
    from fastperf.special_functions import special_function

    stdtrit = special_function("stdtrit")

    try:
        n = np.asarray(ns, dtype=np.float64)
        p = np.asarray(confidences, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"ns and confidences must be numeric: {exc}") from None
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
        ``target_halfwidth``, ``runs_needed``, ``runs_more``, ``assurance``, ``status``.
    separation : pyarrow.Table or None
        One row per benchmark when two variants are compared: the keys, then ``n_baseline``,
        ``n_candidate``, ``mean_*``, ``sd_*``, ``halfwidth_*``, ``separated_now``,
        ``runs_to_separate``, ``runs_more_baseline``, ``runs_more_candidate``, ``status``.
    summary : dict
        ``groups``, ``values``, ``dropped``, ``target``, ``precision``, ``confidence``,
        ``assurance`` (the level asked for; None for the plug-in plan), ``groups_enough``,
        ``runs_needed_total``, ``runs_more_total``, ``runs_needed_max``; with a separation
        table also ``baseline``, ``candidate``, ``benchmarks``, ``separated_now``,
        ``separation_not_ok``, ``runs_to_separate_max``.
    warnings : list of str
    """

    def report_view(self):  # noqa: D102 (see Result.report_view)
        from fastperf.protocols.report_views import plan_view

        return plan_view(self)

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 separation: pa.Table | None = None):
        super().__init__(table, summary, warnings)
        self.separation = separation

    extra_tables = ("separation",)

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

    Returns
    -------
    PlanResult
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
    """
    _plan_iv(target, precision, confidence, assurance)  # before the table is read
    options = dict(by=by, variant=variant, value=value, target=target, precision=precision,
                   confidence=confidence, assurance=assurance, baseline=baseline,
                   candidate=candidate, unit=unit)
    return run_planned(data, lambda t: plan_runs_plan(t, **options), plan_runs_stage,
                       plan_runs_finish, values=[value], function="plan_runs",
                       keys=[by, variant, unit])


def plan_runs_plan(table: pa.Table, **options) -> dict:
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
    **options
        The options of `plan_runs` (by, variant, value, target, precision, confidence,
        assurance, baseline, candidate, unit).

    Returns
    -------
    dict
    """
    target, precision, confidence, assurance = _plan_iv(
        options["target"], options["precision"], options["confidence"], options["assurance"])
    variant, value, unit = options["variant"], options["value"], options["unit"]
    baseline, candidate = options["baseline"], options["candidate"]
    keys = key_list(options["by"])
    if has_column(table, unit) and unit not in keys:
        keys.append(unit)
    group_keys_list = keys + ([variant] if variant is not None else [])
    check_key_clash(group_keys_list, dict.fromkeys(GROUP_COLUMNS + SEPARATION_COLUMNS),
                    "plan_runs", value=value)
    column_name(value, "value")
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, group_keys_list + [value])
    present = None
    if baseline is None and candidate is None and variant is not None:
        present = _present_variants(table, group_keys_list, variant)
    pair = _choose_variants(present, variant, baseline, candidate)
    if pair is not None and present is None:  # named: the table must have both
        dictionary = key_codes(table.column(variant), variant)[1]
        for name in dict.fromkeys(pair):
            code_of(dictionary, name, f"the {variant!r} column")
    return {"keys": keys, "variant": variant, "value": value, "target": target,
            "precision": precision, "confidence": confidence, "assurance": assurance,
            "baseline": baseline, "pair": pair,
            "variants": None if present is None else len(present),
            "partition": keys if pair is not None else group_keys_list,
            "order": group_keys_list}


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


def plan_runs_stage(table: pa.Table, plan: dict, side: dict | None = None) -> pa.Table:
    """The rows of `plan_runs` for the groups of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete groups (complete benchmarks when two variants are separated).
    plan : dict
        `plan_runs_plan`.
    side : dict or None
        Unused.

    Returns
    -------
    pyarrow.Table
        One row per (keys, variant) group; with a separation, each benchmark's separation
        figures in hidden ``__separation_<column>`` columns of its first group (flagged in
        ``__separation``).
    """
    from fastperf.kernels.moments import sample_moments
    from fastperf.data.samples import group_samples

    keys, variant, confidence = plan["keys"], plan["variant"], plan["confidence"]
    target, precision, pair = plan["target"], plan["precision"], plan["pair"]
    group_keys, samples, n_dropped = group_samples(table, by=keys, variant=variant,
                                                   value=plan["value"])

    # each group divided by a power of 2 (exact) before its moments: values near 1.8e308 or
    # 1e-300 keep a finite, nonzero sd; the search runs on the scaled sd and bound (its answer
    # depends on their ratio only)
    exponent = binary_exponents(samples)
    scaled = scaled_samples(samples, exponent)
    n, _, mean_scaled, variance = sample_moments(scaled.values, scaled.offsets,
                                                 n_rows=scaled.values.shape[0])
    sd_scaled = np.sqrt(variance)
    halfwidth_scaled = student_halfwidth(n, sd_scaled, confidence)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        mean, sd = np.ldexp(mean_scaled, exponent), np.ldexp(sd_scaled, exponent)
        halfwidth = np.ldexp(halfwidth_scaled, exponent)
        relative = np.where(mean != 0, halfwidth_scaled / np.abs(mean_scaled), np.nan)
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
    runs[search] = _smallest_runs(sd_scaled[search], bound_scaled[search], confidence,
                                  strict=False, pilot_runs=n[search],
                                  assurance=plan["assurance"])
    status = np.where((status == "ok") & np.isnan(runs), TOO_MANY, status)
    shown = ~np.isinf(np.stack([mean, sd, halfwidth, relative, bound])).any(axis=0)
    status = np.where((status == "ok") & ~shown, OVERFLOW, status)
    reached = np.full(n.shape, np.nan)
    reached[search] = assurance_reached(runs[search], n[search], sd_scaled[search],
                                        bound_scaled[search], confidence)
    runs_needed = np.where(np.isnan(runs), -1, runs).astype(np.int64)
    runs_more = np.where(runs_needed >= 0, np.maximum(runs_needed - n, 0), -1)
    columns: dict[str, Any] = {
        "n": n, "n_dropped": n_dropped, "mean": mean, "sd": sd, "halfwidth": halfwidth,
        "relative_halfwidth": relative, "target_halfwidth": bound, "runs_needed": runs_needed,
        "runs_more": runs_more, "assurance": reached, "status": status,
    }
    if pair is not None:
        benchmarks, separation = separation_columns(
            group_keys, keys, variant, pair, n, mean, sd, halfwidth, confidence,
            (mean_scaled, sd_scaled, halfwidth_scaled, exponent))
        first = benchmarks.first_row
        flag = np.zeros(n.shape[0], dtype=bool)
        flag[first] = True
        position = np.zeros(n.shape[0], dtype=np.int64)
        position[first] = np.arange(first.shape[0])
        at_first = pa.array(position, mask=~flag)
        columns["__separation"] = flag
        for name, column in separation.items():
            columns["__separation_" + name] = pa.array(column).take(at_first)
    return with_keys(group_keys, columns)


def plan_runs_finish(rows: pa.Table, plan: dict, info: dict) -> PlanResult:
    """The result of `plan_runs` from its rows (`fastperf.data.chunked`): the separation
    table, the summary and the warnings.

    Parameters
    ----------
    rows : pyarrow.Table
        `plan_runs_stage` rows of every group, in output order.
    plan : dict
        `plan_runs_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    PlanResult
    """
    table = visible(rows)
    n = table.column("n").to_numpy()
    n_dropped = table.column("n_dropped").to_numpy()
    runs_needed = table.column("runs_needed").to_numpy()
    runs_more = table.column("runs_more").to_numpy()
    status = table.column("status").to_numpy(zero_copy_only=False)
    planned = runs_needed >= 0
    not_ok = int((status != "ok").sum())
    summary: dict[str, Any] = {
        "groups": int(n.shape[0]), "values": int(n.sum()), "dropped": int(n_dropped.sum()),
        "target": plan["target"], "precision": plan["precision"],
        "confidence": plan["confidence"], "assurance": plan["assurance"],
        "groups_enough": int((planned & (runs_more == 0)).sum()),
        "runs_needed_total": int(runs_needed[planned].sum()),
        "runs_more_total": int(runs_more[planned].sum()),
        "runs_needed_max": int(runs_needed[planned].max()) if planned.any() else None,
    }
    warnings = dropped_warnings(n_dropped)
    if not_ok:
        warnings.append(f"{not_ok} group(s) without a plain run count (see status)")

    separation = None
    if plan["pair"] is not None:
        first = rows.filter(rows.column("__separation"))
        separation = with_keys(first.select(plan["keys"]), {
            name: first.column("__separation_" + name).combine_chunks()
            for name in SEPARATION_COLUMNS})
        extra, more_warnings = separation_summary(separation, plan["pair"])
        summary.update(extra)
        warnings.extend(more_warnings)
    elif plan["variant"] is not None and plan["baseline"] is None:
        count = plan["variants"]
        if count > 2:
            warnings.append(f"{count} variants: pass baseline= and candidate= for the "
                            "separation table")
    return PlanResult(table, summary, warnings, separation)
