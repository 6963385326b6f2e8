"""One-factor analysis of variance (ANOVA), Welch's ANOVA, and contrasts of effects.

Lilja (seed 000): the variation of the measurements splits into the variation between the
alternatives (SSA) and the variation within them (SSE); F = MSA / MSE tests whether the
alternatives differ, and contrasts sum w_j alpha_j of the effects say where.

Table level: `anova` (one test per `by` group of a measurement table, the `factor` column naming
the alternatives) and `contrasts`. Array level: `f_oneway` (scipy's signature, batched over the
axes other than `axis`). Both take per-cell counts, means and variances from the
``sample_moments`` kernel; the table is whole-array numpy over the groups' cell segments
(``np.add.reduceat``, `one_way`, at the end of this module); p-values and critical values
come from ``scipy.special`` directly. Out of core or on Spark (`fastperf.data.chunked`), a
chunk holds whole `by` groups (`anova_plan`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
from scipy.special import fdtrc, fdtri

from fastperf.data.validation import (
    check_choice, check_confidence, check_flag, check_key_clash, check_unit_interval,
)
from fastperf.data.arrays import Samples, as_float_array, as_samples, last_axis, shaped
from fastperf.errors import InputError
from fastperf.results.base import GroupResult, TestResult, dropped_warnings, keyed_table
from fastperf.results.figures import ReportView
from fastperf.io.tables import column_name, key_list, require_columns
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.samples import grouped_values
from fastperf.kernels.moments import scaled_moments
from fastperf.data.grouping import group_rows
from fastperf.engine.intervals import student_quantile
from fastperf.engine.parametric import INFINITE
from fastperf.protocols.group_order import in_key_order, key_dictionaries, key_ranks
from fastperf.protocols.report_views import anova_view

__all__ = ["anova", "contrasts", "f_oneway", "AnovaResult", "ContrastResult", "FOnewayResult",
           "AnovaOptions", "AnovaPlan", "anova_options", "anova_plan", "anova_stage",
           "anova_finish"]

GROUP_COLUMNS = [
    "k", "n", "n_dropped", "ssa", "sse", "sst", "df_alternatives", "df_error", "df_total", "msa",
    "mse", "f", "pvalue", "f_critical", "share_alternatives", "share_error", "status",
]
EFFECT_COLUMNS = ["n", "n_dropped", "mean", "effect"]
CONTRAST_METHODS = ("standard", "lilja")
# ----------------------------------------------------------------------------------------------
# Table level


@dataclass(frozen=True)
class _Cells:
    """What `contrasts` needs: per cell its group, level code, n and effect; per group MSE."""

    group: np.ndarray
    level: np.ndarray
    n: np.ndarray
    effect: np.ndarray
    starts: np.ndarray
    n_group: np.ndarray
    mse: np.ndarray
    df_error: np.ndarray
    status: np.ndarray
    n_levels: int
    mse_scaled: np.ndarray
    scale: np.ndarray


class AnovaResult(GroupResult):
    """Result of `anova`.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per `by` group (one row when `by` is None): the `by` key columns, then ``k``,
        ``n``, ``n_dropped``, ``ssa``, ``sse``, ``sst``, ``df_alternatives``, ``df_error``,
        ``df_total``, ``msa``, ``mse``, ``f``, ``pvalue``, ``f_critical``, ``share_alternatives``,
        ``share_error``, ``status`` (and ``df_welch`` after ``df_error`` when ``equal_var=False``).
    effects : pyarrow.Table
        One row per (group, alternative): the `by` keys, the factor column, ``n``,
        ``n_dropped``, ``mean`` (the column mean) and ``effect`` (column mean minus the
        group's overall mean).
    alternatives : list
        The factor's levels present in the table, in the order of `effects` (the order a
        sequence of contrast weights follows).
    summary : dict
    warnings : list of str
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return anova_view(self)

    extra_tables = ("effects",)
    effects: pa.Table

    def __init__(self, table, effects, summary, warnings, *, alternatives, keys, cells):
        super().__init__(table, summary, warnings, effects=effects)
        self.alternatives = alternatives
        self._keys = keys
        self._cells = cells

    def contrasts(self, weights, *, confidence: float = 0.90,
                  method: str = "standard") -> "ContrastResult":
        """`contrasts` of this result's effects (see `fastperf.designs.anova.contrasts`).

        Parameters
        ----------
        weights : sequence of float, or mapping alternative -> weight
            The contrast's weights, summing to zero.
        confidence : float
            Two-sided level of the intervals.
        method : {"standard", "lilja"}
            The standard error of the contrast (see `contrasts`).

        Returns
        -------
        ContrastResult
            The contrast, its standard error and interval per group.

        Notes
        -----
        Lilja (seed 000), contrasts of effects; see `contrasts`.
        """
        return contrasts(self, weights, confidence=confidence, method=method)


def _anova_iv(table: pa.Table, by, factor: str, value: str) -> list[str]:
    keys = key_list(by)
    if not isinstance(factor, str):
        raise InputError(f"factor must be a column name, got {factor!r}")
    if factor in keys:
        raise InputError(f"column {factor!r} cannot be both the factor and a `by` key")
    if value == factor:
        raise InputError(f"column {value!r} cannot be both the value and the factor")
    if value in keys:
        raise InputError(f"column {value!r} cannot be both the value and a key")
    check_key_clash(keys + [factor], dict.fromkeys(GROUP_COLUMNS + ["df_welch"] + EFFECT_COLUMNS),
                    "anova")
    return keys


def anova(
    data: Any,
    *,
    factor: str = "variant",
    value: str = "value",
    by: str | Sequence[str] | None = None,
    alpha: float = 0.05,
    equal_var: bool = True,
) -> AnovaResult:
    """One-factor ANOVA (Lilja, seed 000) of a measurement table, one per `by` group.

    Parameters
    ----------
    data : pyarrow.Table, RecordBatchReader, object with ``__arrow_c_stream__``, or path(s)
        A measurement table, one row per measurement.
    factor : str
        Column naming the alternative each measurement belongs to.
    value : str
        The measurement column. Null/NaN values are dropped and counted (``n_dropped``); an
        infinite value is an `InputError`.
    by : str or list of str or None
        Key column(s): one ANOVA per distinct key (e.g. ``"benchmark"``); None: one in all.
    alpha : float
        Significance level of ``f_critical`` = F[1 - alpha; df_alternatives, df_error].
    equal_var : bool
        True: the classical ANOVA. False: Welch's ANOVA (unequal variances; scipy's
        ``f_oneway(equal_var=False)``): ``f``, ``pvalue`` and ``f_critical`` are Welch's,
        with denominator degrees of freedom in the extra column ``df_welch``. The sums of
        squares, mean squares and ``df_error`` stay the classical ones.

    Returns
    -------
    AnovaResult
        ``.groups`` (the ANOVA table per group), ``.effects`` (column means and effects), and
        ``.contrasts(weights)``. Sums of squares weight each alternative by its number of
        values n_j: SSA = sum n_j (m_j - m)^2, SSE = sum (n_j - 1) s_j^2, SST = SSA + SSE,
        m = sum n_j m_j / N; df = k - 1, N - k, N - 1. A group with fewer than 2 alternatives
        (or no error degrees of freedom, or all values equal) gets NaN statistics and its reason
        in ``status``.

    Raises
    ------
    InputError
        alpha outside (0, 1), a missing column, a key named like an output column or used as
        both factor and key, an empty table or infinite values.

    Notes
    -----
    D. J. Lilja (2000), "Measuring Computer Performance: A Practitioner's Guide" (seed
    000: the ANOVA table, F = MSA / MSE against F[1 - alpha; k - 1, N - k]); R. Jain (1991),
    "The Art of Computer Systems Performance Analysis", ch. 20 (one-factor experiments,
    allocation of variation SSA / SST). Welch's ANOVA: Welch (1951), Biometrika 38, 330-336.
    """
    options = anova_options(factor=factor, value=value, by=by, alpha=alpha,
                            equal_var=equal_var)  # before the table is read
    return run_planned(data, partial(anova_plan, options=options), anova_stage, anova_finish,
                       values=[value], keys=[by, factor], function="anova")


@dataclass(frozen=True)
class AnovaOptions:
    """The options of `anova`: `alpha` checked, the columns and `equal_var` checked against
    the table by `anova_plan`."""

    factor: Any
    value: Any
    by: Any
    alpha: float
    equal_var: Any


@dataclass(frozen=True, kw_only=True)
class AnovaPlan(Plan):
    """The plan of `anova` (`fastperf.data.chunked`).

    Attributes
    ----------
    keys : list of str
        The `by` columns.
    factor, value : str
        The factor and measurement columns.
    alpha : float
        The level of the tests.
    welch : bool
        Welch's ANOVA (``equal_var=False``).
    levels : pyarrow.Array
        The factor's levels in the whole table's order.
    """

    keys: list[str]
    factor: str
    value: str
    alpha: float
    welch: bool
    levels: pa.Array


def anova_options(*, factor, value, by, alpha, equal_var) -> AnovaOptions:
    """The options of `anova` in one record, `alpha` checked (the rest needs the table).

    Parameters
    ----------
    factor, value, by, alpha, equal_var
        See `anova`.

    Returns
    -------
    AnovaOptions
    """
    return AnovaOptions(factor, value, by, check_unit_interval(alpha, "alpha"), equal_var)


def anova_plan(table: pa.Table, options: AnovaOptions) -> AnovaPlan:
    """The plan of `anova` (`fastperf.data.chunked`).

    Each `by` group is tested on its own, so a chunk holds whole groups (``"partition"``: the
    `by` keys; all the table without them). Its stage gives one row per (group, alternative)
    cell, in the order of ``.effects``; the plan holds the factor's levels in the whole table's
    order (`fastperf.protocols.group_order`), which number the alternatives of ``.contrasts``
    and order each group's cells, so that its sums run in the in-memory order.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : AnovaOptions
        `anova_options`.

    Returns
    -------
    AnovaPlan
    """
    factor, value = options.factor, options.value
    keys = _anova_iv(table, options.by, factor, value)
    column_name(value, "value")
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    require_columns(table, keys + [factor, value])
    welch = not check_flag(options.equal_var, "equal_var")
    return AnovaPlan(keys=keys, factor=factor, value=value, alpha=options.alpha, welch=welch,
                     levels=key_dictionaries(table, [factor])[factor], partition=tuple(keys),
                     order=(*keys, factor))


def anova_stage(table: pa.Table, plan: AnovaPlan, side: dict | None = None) -> StageRows:
    """The rows of `anova` for the `by` groups of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Complete `by` groups.
    plan : AnovaPlan
        `anova_plan`.
    side : dict or None
        Unused.

    Returns
    -------
    StageRows
        One row per (group, alternative) cell: the columns of ``.effects``; in ``extra``,
        the level's number (``level``), and on each group's first cell (flagged in
        ``first``) its ANOVA row (``group_<column>``), its number of cells (``cells``) and
        what `contrasts` needs (``mse_scaled``, ``scale``).
    """
    keys, factor, levels = plan.keys, plan.factor, plan.levels
    _, groups, grouped = grouped_values(table, keys + [factor], plan.value)
    # each group's cells in the whole table's order of the levels
    groups, take = in_key_order(groups, keys, [factor], {factor: levels})
    if take is not None:
        grouped = grouped[take]
    n, n_nan, mean, scaled_mean, var, exponent, mean_error = scaled_moments(
        grouped, groups.offsets, n_rows=grouped.shape[0])
    del grouped
    # the cells are ordered by the `by` keys first, so each group's cells are adjacent
    starts = group_rows(groups.keys, keys).offsets[:-1] if keys else np.zeros(1, np.int64)
    welch = plan.welch
    res = one_way(n, scaled_mean, mean_error, var, exponent, starts, plan.alpha, welch)
    n_dropped = np.add.reduceat(n_nan, starts)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sst = res.ssa + res.sse
        overflow = res.status == SUMS_OVERFLOW
        ssa, sse, sst, msa, mse = (np.where(overflow, np.nan, a)
                                   for a in (res.ssa, res.sse, sst, res.msa, res.mse))
        effect = np.where(np.isfinite(res.effect), res.effect, np.nan)
    columns: dict[str, Any] = {
        "k": res.k, "n": res.n, "n_dropped": n_dropped, "ssa": ssa, "sse": sse,
        # a group with no value has no degrees of freedom (k - 1 and n - 1 would say -1)
        "sst": sst, "df_alternatives": pa.array(res.df_a, mask=res.k < 1),
        "df_error": res.df_e,
    }
    if welch:
        columns["df_welch"] = res.df_welch
    columns.update({
        "df_total": pa.array(res.n - 1, mask=res.n < 1), "msa": msa, "mse": mse, "f": res.f,
        "pvalue": res.pvalue,
        "f_critical": res.f_critical, "share_alternatives": res.share_a,
        "share_error": res.share_e, "status": res.status,
    })
    per_group = {"cells": np.diff(np.append(starts, n.shape[0])), "mse_scaled": res.mse_scaled,
                 "scale": res.scale}
    first = np.zeros(n.shape[0], dtype=bool)
    first[starts] = True
    position = np.zeros(n.shape[0], dtype=np.int64)
    position[starts] = np.arange(starts.shape[0])
    at_first = pa.array(position, mask=~first)
    cells = {"n": n, "n_dropped": n_nan, "mean": mean, "effect": effect}
    extra = {"level": key_ranks(groups.keys, factor, levels), "first": first}
    extra.update({"group_" + name: pa.array(column).take(at_first)
                  for name, column in columns.items()})
    extra.update({name: pa.array(column).take(at_first) for name, column in per_group.items()})
    return StageRows.of(keyed_table(groups.keys, cells), extra)


def anova_finish(staged: StageRows, plan: AnovaPlan, info: dict) -> AnovaResult:
    """The result of `anova` from its rows (`fastperf.data.chunked`): the ANOVA table, the
    effects, the alternatives, the summary and the warnings.

    Parameters
    ----------
    staged : StageRows
        `anova_stage` rows of every cell, in output order.
    plan : AnovaPlan
        `anova_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    AnovaResult
    """
    keys, factor, alpha = plan.keys, plan.factor, plan.alpha
    rows, extra = staged.rows, staged.extra
    first_cell = extra.column("first")
    first = extra.filter(first_cell)
    columns = {name[len("group_"):]: first.column(name).combine_chunks()
               for name in first.column_names if name.startswith("group_")}
    figures = {name: column.to_numpy(zero_copy_only=False) for name, column in columns.items()}
    per_group = {name: first.column(name).to_numpy(zero_copy_only=False)
                 for name in ("cells", "mse_scaled", "scale")}
    by_keys = rows.filter(first_cell).select(keys) if keys else None
    out = keyed_table(by_keys, columns) if by_keys is not None else pa.table(columns)
    effects = rows.select(keys + [factor] + EFFECT_COLUMNS)

    n = rows.column("n").to_numpy()
    level = extra.column("level").to_numpy()
    dictionary = plan.levels.to_pylist()
    alternatives = [dictionary[c] for c in np.unique(level)]
    starts = np.append(0, np.cumsum(per_group["cells"])[:-1]).astype(np.int64)
    cells = _Cells(np.repeat(np.arange(starts.shape[0]), per_group["cells"]), level, n,
                   rows.column("effect").to_numpy(), starts, figures["n"], figures["mse"],
                   figures["df_error"], figures["status"], len(dictionary),
                   per_group["mse_scaled"], per_group["scale"])

    n_dropped = figures["n_dropped"]
    not_ok = int((figures["status"] != "ok").sum())
    warnings = dropped_warnings(n_dropped)
    if not_ok:
        warnings.append(f"{not_ok} group(s) could not be tested (see status)")
    summary = {
        "function": "anova", "equal_var": not plan.welch,
        "alternatives": len(alternatives), "values": int(figures["n"].sum()),
        "dropped": int(n_dropped.sum()), "alpha": alpha,
        "groups_significant": int((figures["pvalue"] < alpha).sum()),
    }
    return AnovaResult(out, effects, summary, warnings, alternatives=alternatives,
                       keys=by_keys, cells=cells)


class ContrastResult(GroupResult):
    """Result of `contrasts`: ``.groups`` has the `by` keys, then ``contrast`` (c = sum w_j
    alpha_j), ``s_c``, ``df_error``, ``ci_low``, ``ci_high`` and ``status`` per group."""


def _weights_by_level(result: AnovaResult, weights) -> np.ndarray:
    """The weights as one float per dictionary code of the factor (0 for unnamed levels)."""
    alternatives = result.alternatives
    w_alt: list[float] | np.ndarray  # one weight per alternative, then as an array
    if isinstance(weights, Mapping):
        unknown = [a for a in weights if a not in alternatives]
        if unknown:
            raise InputError(f"contrast weight for unknown alternative {unknown[0]!r}; the "
                             f"alternatives are {alternatives}")
        w_alt = [float(weights.get(a, 0.0)) for a in alternatives]
    else:
        try:
            w_alt = [float(w) for w in weights]
        except (TypeError, ValueError):
            raise InputError("weights must be a sequence of numbers (one per alternative, in the "
                             "order of result.alternatives) or a mapping alternative -> weight"
                             ) from None
        if len(w_alt) != len(alternatives):
            raise InputError(f"{len(w_alt)} weights given for {len(alternatives)} alternatives "
                             f"{alternatives}; give one weight per alternative or a mapping")
    w_alt = np.asarray(w_alt, dtype=np.float64)
    if not np.all(np.isfinite(w_alt)):
        raise InputError("contrast weights must be finite numbers")
    # on the weights over a power of 2 near the largest (exact): 1e308 weights do not overflow
    scaled = np.ldexp(w_alt, -np.frexp(np.abs(w_alt).max(initial=0.0))[1])
    scale = np.abs(scaled).sum()
    if scale == 0:
        raise InputError("contrast weights are all zero")
    if abs(scaled.sum()) > 1e-9 * scale:
        with np.errstate(over="ignore"):
            total = w_alt.sum()
        raise InputError(f"contrast weights must sum to zero, they sum to {total:.6g}")
    out = np.zeros(result._cells.n_levels)
    codes = np.unique(result._cells.level)
    out[codes] = w_alt
    return out


def contrasts(
    result: AnovaResult,
    weights: Sequence[float] | Mapping[Any, float],
    *,
    confidence: float = 0.90,
    method: str = "standard",
) -> ContrastResult:
    """Contrast c = sum w_j alpha_j of the effects, with its confidence interval, per group.

    Parameters
    ----------
    result : AnovaResult
        From `anova`.
    weights : sequence of float, or mapping alternative -> weight
        A sequence follows ``result.alternatives`` (the order of ``result.effects``); a mapping
        names alternatives, the others weighing 0. The weights must sum to zero (else
        `InputError`), so c = sum w_j m_j whatever the overall mean.
    confidence : float
        Two-sided level: c -/+ t[1 - a/2; df_error] s_c.
    method : {"standard", "lilja"}
        s_c = sqrt(MSE sum w_j^2 / n_j) ("standard", the variance of sum w_j m_j), or
        Lilja's slide formula sqrt(MSE sum w_j^2 / N) with N = kn measurements in all
        ("lilja"; it reproduces the seed's intervals, and is narrower by sqrt(k) for equal n).

    Returns
    -------
    ContrastResult
        A group whose ANOVA has no MSE, or that lacks values for an alternative with a
        nonzero weight, gets NaN and its reason in ``status``.

    Raises
    ------
    InputError
        `result` not from `anova`, weights that do not sum to zero, are all zero, name unknown
        alternatives or do not match their number, a bad confidence or method.

    Notes
    -----
    Lilja (seed 000; D. J. Lilja 2000, "Measuring Computer Performance"):
    c = sum w_j alpha_j with sum w_j = 0, its interval c -/+ t[1 - a/2; N - k] s_c; the
    "standard" s_c = sqrt(MSE sum w_j^2 / n_j) is the standard error of a linear combination
    of independent means (Jain 1991, ch. 20).
    """
    if not isinstance(result, AnovaResult):
        raise InputError(f"contrasts needs the result of fastperf.anova, got {type(result).__name__}")
    confidence = check_confidence(confidence)
    check_choice(method, "method", CONTRAST_METHODS)
    cells = result._cells
    w_level = _weights_by_level(result, weights)
    # c and s_c are linear in the weights: computed on weights over a power of 2 (exact)
    w_exponent = int(np.frexp(np.abs(w_level).max())[1])
    w_level, w_original = np.ldexp(w_level, -w_exponent), w_level
    w = w_level[cells.level]
    weighted = (w != 0) & (cells.n > 0)
    starts = cells.starts
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = np.ldexp(np.add.reduceat(np.where(weighted, w * cells.effect, 0.0), starts),
                     w_exponent)
        if method == "standard":
            spread = np.add.reduceat(np.where(weighted, w * w / cells.n, 0.0), starts)
        else:
            spread = (w_level * w_level).sum() / cells.n_group
        s_c = np.ldexp(np.sqrt(cells.mse_scaled * spread), cells.scale + w_exponent)
        present = np.add.reduceat(weighted.astype(np.int64), starts)
        needed = int(np.count_nonzero(w_level))
        status = np.select(
            # mse_scaled: finite where the MSE itself is beyond float64 (values ~1e307)
            [present < needed, ~np.isfinite(cells.mse_scaled) | (cells.df_error < 1)],
            ["no values for an alternative with a nonzero weight",
             "no error variance (see the ANOVA status)"],
            default="ok",
        )
        failed = status != "ok"
        c, s_c = np.where(failed, np.nan, c), np.where(failed, np.nan, s_c)
        half = student_quantile(np.where(failed, np.nan, cells.df_error), confidence) * s_c
        beyond = ~failed & ~(np.isfinite(c - half) & np.isfinite(c + half))
        status = np.where(beyond, "contrast or its interval beyond the float64 range", status)
        failed = failed | beyond
        c, s_c, half = (np.where(failed, np.nan, a) for a in (c, s_c, half))
    columns = {"contrast": c, "s_c": s_c, "df_error": cells.df_error, "ci_low": c - half,
               "ci_high": c + half, "status": status}
    keys = result._keys
    out = keyed_table(keys, columns) if keys is not None else pa.table(
        {name: pa.array(col) for name, col in columns.items()})
    not_ok = int(failed.sum())
    excludes_zero = int(((c - half > 0) | (c + half < 0)).sum())
    summary = {
        "function": "contrasts",
        "weights": {str(a): float(w_original[code]) for a, code in
                    zip(result.alternatives, np.unique(cells.level))},
        "confidence": confidence, "method": method, "groups": out.num_rows,
        "groups_excluding_zero": excludes_zero,
    }
    warnings = [f"{not_ok} group(s) have no contrast interval (see status)"] if not_ok else []
    return ContrastResult(out, summary, warnings)


# ----------------------------------------------------------------------------------------------
# Array level


class FOnewayResult(TestResult):
    """Result of `f_oneway`: ``statistic`` (F), ``pvalue``, ``status``, ``df_alternatives``,
    ``df_error`` (Welch's fractional denominator df when ``equal_var=False``)."""

    # set by TestResult.__init__ (numpy arrays shaped like the batch, numpy scalars for a single
    # test); declared for type checkers
    df_alternatives: Any
    df_error: Any


def f_oneway(*samples: Any, axis: int = -1, equal_var: bool = True) -> FOnewayResult:
    """One-way ANOVA of k samples, scipy's `f_oneway` (batched over the axes other than `axis`).

    Parameters
    ----------
    *samples : array_like
        At least two samples; the values lie along `axis`, their lengths there may differ, and
        their other axes broadcast together (each batch entry is one test).
    axis : int
    equal_var : bool
        False: Welch's ANOVA (scipy's ``equal_var=False``, R's ``oneway.test``).

    Returns
    -------
    FOnewayResult
        Unpacks as ``statistic, pvalue``. A test with NaN or +-inf in a sample, an empty sample,
        no error degrees of freedom, all values equal, or an F beyond the float64 range gets
        NaN and its reason in ``status``;
        zero variance within every sample but different means gives F = inf, p = 0 (as scipy).

    Raises
    ------
    InputError
        Fewer than two samples, or batch shapes that do not broadcast.

    Notes
    -----
    The one-way ANOVA F = MSA / MSE with k - 1 and N - k degrees of freedom (Lilja, seed 000;
    Jain 1991, ch. 20); ``equal_var=False`` is Welch (1951), Biometrika 38, 330-336, as
    ``scipy.stats.f_oneway``.
    """
    if len(samples) < 2:
        raise InputError(f"f_oneway needs at least 2 samples, got {len(samples)}")
    equal_var = check_flag(equal_var, "equal_var")
    arrays = [last_axis(as_float_array(s, f"sample {i}"), axis, f"sample {i}")
              for i, s in enumerate(samples)]
    try:
        batch_shape = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    except ValueError:
        raise InputError(f"the samples' batch shapes {[a.shape[:-1] for a in arrays]} do not "
                         f"broadcast (samples lie along axis={axis})") from None
    k = len(arrays)
    size = int(np.prod(batch_shape))
    moments = []
    for a in arrays:
        s: Samples = as_samples(a, batch_shape)
        moments.append(scaled_moments(s.values, s.offsets, n_rows=s.values.shape[0]))
    # cells as (batch, k), C order: test b's cells are b*k .. b*k + k - 1
    n, nan, mean, scaled_mean, var, exponent, mean_error = (
        np.stack([m[i] for m in moments], axis=1).reshape(-1) for i in range(7))
    starts = np.arange(size, dtype=np.int64) * k

    def any_cell(condition):
        return np.add.reduceat(condition.astype(np.int64), starts) > 0 if size else np.zeros(0, bool)

    # an infinite value makes its cell's mean inf or NaN (finite values never do)
    res = one_way(n, scaled_mean, mean_error, var, exponent, starts, 0.05, not equal_var,
                  sums=False,
                  extra_status=[(any_cell((n > 0) & ~np.isfinite(mean)), INFINITE),
                                (any_cell(nan > 0), "NaN in input"),
                                (any_cell(n == 0), "an empty sample")])
    df_e = res.df_welch if not equal_var else res.df_e.astype(np.float64)
    assert df_e is not None  # one_way gives df_welch when asked for Welch's test
    failed = ~np.isfinite(res.f) & ~(res.status == "zero variance within alternatives")
    return FOnewayResult(
        shaped(res.f, batch_shape), shaped(res.pvalue, batch_shape),
        shaped(res.status, batch_shape),
        df_alternatives=shaped(np.where(failed, np.nan, res.df_a), batch_shape),
        df_error=shaped(np.where(failed, np.nan, df_e), batch_shape),
    )


# ----------------------------------------------------------------------------------------------
# The one-way table from per-cell moments, all groups at once (Lilja, seed 000): the variation
# splits into the variation between the alternatives (SSA) and within them (SSE); F = MSA / MSE.
# `anova_finish` and `f_oneway` both run it.


#: Status of a group whose F and p are computed (on scaled values) but whose sums of squares,
#: mean squares or effects exceed the float64 range (those are NaN).
SUMS_OVERFLOW = "sums of squares beyond the float64 range: NaN, F and p kept"


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


def one_way(n, mean, mean_error, var, exponent, starts, alpha, welch, extra_status=(),
            sums=True) -> OneWayTable:
    """The one-way ANOVA of every group; group g's cells are ``starts[g]:starts[g + 1]``.

    `n`, `mean`, `mean_error`, `var`, `exponent` are per cell (n = values used; cells with
    n = 0 do not count as alternatives; the mean is ``(mean + mean_error) * 2**exponent`` and
    the variance ``var * 4**exponent``, as ``scaled_moments`` gives them).
    `extra_status` holds (condition per group, message) pairs checked first. Each group is
    computed scaled by the power of two of its largest cell, then its sums of squares and
    effects scaled back: finite data give a finite F; `sums` True: sums of squares or effects
    beyond the float64 range give the status `SUMS_OVERFLOW` (F and p kept).

    Parameters
    ----------
    n, mean, mean_error, var, exponent : numpy.ndarray
        Per cell (``scaled_moments``: `mean_error` is its ``scaled_mean_error``).
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
    Welch (1951) for ``welch``. The effects alpha_j = m_j - m are centred in two passes, as
    the corrected two-pass variance of Chan, Golub & LeVeque (1983): where the values are
    large against their spread (timings of 1e9 ns that differ by tens), the grand mean
    m = sum n_j m_j / N rounds at the scale of the values, and SSA, F and the effects lost
    every digit the spread lacks (F 3.0 for 1.5 at 1e16). So each deviation from that first
    mean takes its mean with its rounding error (``mean + mean_error``; m_j - m is exact
    where the two are within a factor 2), and the weighted mean of those deviations, rounded
    at their scale, centres them again. Welch's deviations from the weighted mean of the
    weights n_j / s_j^2 are centred the same way.
    """
    n_groups = starts.shape[0]
    cells_per_group = np.diff(np.append(starts, n.shape[0]))
    cell_group = np.repeat(np.arange(n_groups), cells_per_group)
    nf = n.astype(np.float64)
    used = n > 0

    def total(x):
        return np.add.reduceat(x, starts) if n_groups else np.zeros(0)

    def centred(weight):
        """Each cell's mean minus the weighted mean of its group's, in two passes: the first
        centre is rounded at the scale of the means, the second (the weighted mean of the
        deviations from the first, each mean with its rounding error) at that of the
        deviations."""
        weight = np.where(used, weight, 0.0)
        weight_total = total(weight)[cell_group]
        first = total(np.where(used, weight * mean, 0.0))[cell_group] / weight_total
        deviation = (mean - first) + mean_error
        return deviation - total(np.where(used, weight * deviation, 0.0))[cell_group] / weight_total

    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        scale = (np.maximum.reduceat(np.where(used, exponent, np.iinfo(np.int64).min), starts)
                 if n_groups else np.zeros(0, dtype=np.int64))
        scale = np.where(scale == np.iinfo(np.int64).min, 0, scale)
        cell_scale = scale[cell_group]
        mean = np.ldexp(mean, exponent - cell_scale)
        mean_error = np.ldexp(mean_error, exponent - cell_scale)
        var = np.ldexp(var, 2 * (exponent - cell_scale))
        k = total(used.astype(np.int64))
        n_group = total(n.astype(np.int64))
        effect = centred(nf)
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
            a = total(np.where(used, w * centred(w) ** 2, 0.0)) / dfn
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
