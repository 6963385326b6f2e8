"""2^k r and 2^(k-p) r two-level factorial designs: effects, allocation of variation.

Feitelson (seed 001), after Jain (1991), "The Art of Computer Systems Performance Analysis",
ch. 17-19: the sign-table model y = q0 + qA xA + qB xB + qAB xA xB + ..., effects
q_j = (1/2^k) sum_i s_ij ybar_i, SS_j = 2^k r q_j^2, SST = sum SS_j + SSE, confidence intervals
of effects with 2^k (r - 1) degrees of freedom, the multiplicative (log) model; fractional
designs (`fastperf.designs.fractional`) with their confoundings.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.grouping import group_rows
from fastperf.data.validation import check_confidence, check_flag
from fastperf.designs.fractional import (
    LETTERS, MAX_DESIGN_FACTORS, FractionalDesign, detect_fraction, popcount, sign_matrix,
    word_bits, word_key, word_name,
)
from fastperf.engine.intervals import student_quantile
from fastperf.errors import InputError
from fastperf.io.read import load_table
from fastperf.io.tables import (column_name, describe_group, key_list, require_columns,
                                value_column)
from fastperf.kernels.moments import sample_moments
from fastperf.protocols.report_views import factorial_view
from fastperf.results.base import GroupResult, keyed_table
from fastperf.results.figures import ReportView

__all__ = ["factorial", "FactorialResult", "NO_REPLICATIONS"]

#: The status of a group measured once per cell: its effects and allocation of variation hold,
#: but there are no error degrees of freedom, so ``s_e``, ``s_q`` and the intervals are NaN.
NO_REPLICATIONS = "no replications (r = 1): no error estimate or effect intervals"


class FactorialResult(GroupResult):
    """Result of `factorial`.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per `by` group: the keys, then ``design``, ``runs`` (cells measured), ``r``
        (replications per cell), ``n``, ``n_dropped``, ``sst``, ``sse``, ``share_error``,
        ``df_error``, ``s_e``, ``status`` (`NO_REPLICATIONS` where r = 1: the effects and the
        allocation of variation hold, ``s_e``, ``s_q`` and the intervals are NaN).
    effects : pyarrow.Table
        One row per effect per group that could be analysed: the keys, ``effect`` (letters:
        ``I`` is q0, then ``A``, ``B``, ``AB``, ...), ``term`` (the factor names), ``order``,
        ``aliases``, ``q``, ``ss``, ``share``, ``s_q``, ``ci_low``, ``ci_high`` (and with
        ``log=True`` also ``exp_q``, ``exp_ci_low``, ``exp_ci_high``).
    sign_table : pyarrow.Table
        The (runs x effects) sign matrix: one row per run (cell) in standard order, one -1/+1
        column per effect.
    design : FractionalDesign or None
        The fraction analysed (given or detected); None for a full factorial.
    summary : dict
    warnings : list of str
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return factorial_view(self)

    extra_tables = ("effects",)
    effects: pa.Table

    def __init__(self, table, summary, warnings, effects, sign_table, design):
        super().__init__(table, summary, warnings, effects=effects)
        self.sign_table = sign_table
        self.design = design


def _factor_column(table: pa.Table, factor: str) -> pa.ChunkedArray:
    """The factor's column, decoded, with -0.0 as 0.0 (one level, as equality has it); an
    `InputError` for a null or NaN level."""
    column = table.column(factor)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if column.null_count:
        raise InputError(f"factor column {factor!r} holds {column.null_count} null value(s); "
                         "every measurement needs a level of every factor")
    if pa.types.is_floating(column.type):
        nan = int(pc.sum(pc.is_nan(column)).as_py() or 0)
        if nan:
            raise InputError(f"factor column {factor!r} holds {nan} NaN value(s); every "
                             "measurement needs a level of every factor")
        if pa.types.is_float16(column.type):  # Arrow neither adds nor sorts half floats
            column = column.cast(pa.float32())
        column = pc.add(column, pa.scalar(0, column.type))  # -0.0 + 0 is 0.0
    return column


def _factor_levels(table: pa.Table, factor: str, levels: Any) -> list[Any]:
    """The factor's distinct values, low (-1) first; InputError for nulls or > 2 values."""
    column = _factor_column(table, factor)
    distinct = pc.unique(column)
    distinct = distinct.take(pc.sort_indices(distinct)).to_pylist()
    if len(distinct) > 2:
        shown = distinct[:10] + (["..."] if len(distinct) > 10 else [])
        raise InputError(
            f"factor {factor!r} has {len(distinct)} levels {shown}; a two-level design needs "
            "exactly two per factor (use fastperf.anova for multi-level factors)"
        )
    if levels is not None:
        given = list(levels)
        # a level is one of the column's values, of its type (True is no level of an integer
        # column, though True == 1)
        typed = all(isinstance(v, (bool, np.bool_)) == pa.types.is_boolean(column.type)
                    for v in given)
        if (len(given) != 2 or not typed or any(v not in distinct for v in given)
                or given[0] == given[1]):
            raise InputError(f"levels for factor {factor!r} must be its two values (low, high); "
                             f"got {given}, the column holds {distinct}")
        return given
    return distinct


def _cell_text(cell: int, factors: Sequence[str], levels: Sequence[list[Any]]) -> str:
    return ", ".join(f"{f}={levels[j][cell >> j & 1]!r}" for j, f in enumerate(factors))


def _factorial_iv(table, factors, keys, value, levels):
    named = key_list(factors, "factors")  # each column once
    if not named:
        raise InputError("factors= must name at least one factor column")
    if not isinstance(factors, str) and len(factors) != len(named):
        raise InputError(f"factors {list(factors)} name a column twice")
    factors = named
    require_columns(table, factors + keys + [value])
    clash = set(factors) & set(keys)
    if clash:
        raise InputError(f"column {sorted(clash)[0]!r} cannot be both a factor and a by key")
    if value in factors or value in keys:
        raise InputError(f"column {value!r} cannot be both the value and a factor or key")
    if len(factors) > MAX_DESIGN_FACTORS:
        raise InputError(f"at most {MAX_DESIGN_FACTORS} factors, got {len(factors)}")
    levels = dict(levels or {})
    unknown = set(levels) - set(factors)
    if unknown:
        raise InputError(f"levels= names {sorted(unknown)}, which are not factors {factors}")
    return factors, levels


def factorial(
    data: Any,
    *,
    factors: str | Sequence[str],
    value: str = "value",
    by: str | Sequence[str] | None = None,
    log: bool = False,
    confidence: float = 0.90,
    design: FractionalDesign | None = None,
    levels: Mapping[str, Sequence[Any]] | None = None,
) -> FactorialResult:
    """Effects and allocation of variation of a 2^k r (or 2^(k-p) r) two-level design.

    Parameters
    ----------
    data : pyarrow.Table, RecordBatchReader, object with ``__arrow_c_stream__``, or path(s)
        One row per measurement: the factor columns, the value, the `by` keys.
    factors : str or list of str
        The two-level factor columns, lettered A, B, C, ... in this order. Each factor's two
        values map to -1 (low) and +1 (high) in sorted order: the smaller value is -1 (numbers
        numerically, strings alphabetically, False before True) unless `levels` says otherwise.
    value : str
        The measurement column; null/NaN values are dropped and counted.
    by : str or list of str or None
        Key columns: one independent analysis per group, batched.
    log : bool
        Fit the multiplicative model: analyse ln(value) (values must be > 0). Effects are then
        log-ratios; exp(q) is a multiplicative factor (``exp_q`` columns).
    confidence : float
        Confidence of the effects' intervals (with r > 1 replications).
    design : FractionalDesign, optional
        The 2^(k-p) design the measurements follow (its letters A, B, ... are `factors` in
        order). Without it a full factorial is expected, and a set of cells forming a regular
        fraction is detected as one.
    levels : dict of factor -> (low, high), optional
        The level mapped to -1 and the one mapped to +1, for factors whose sorted order is not
        the intended one.

    Returns
    -------
    FactorialResult
        ``.effects`` (q, SS, share of variation, CI), ``.groups`` (SST, SSE, share of error,
        r, status), ``.sign_table``, ``.design``. q_j = (1/n) sum_i s_ij ybar_i over the n
        runs; SS_j = n r q_j^2; SST = sum (y - ybar)^2 = sum_{j != I} SS_j + SSE; with r > 1,
        q_j +/- t[(1+c)/2; n (r - 1)] s_e / sqrt(n r), s_e^2 = SSE / (n (r - 1)). Each group
        is computed divided by a power of 2 near its largest |value| (exact) and scaled back:
        tiny values keep their shares; where SS, an effect or an interval leave the float64
        range, the status is "sums of squares beyond the float64 range" (q and shares kept).

    Raises
    ------
    InputError
        A factor with more than two values; a missing cell of the full factorial (or of the
        given design); cells with different numbers of replications; non-positive values with
        ``log=True``.

    Notes
    -----
    R. Jain (1991), "The Art of Computer Systems Performance Analysis", ch. 17 (2^k designs,
    the sign-table method, allocation of variation), ch. 18 (2^k r designs: SSE, confidence
    intervals of effects with 2^k (r - 1) degrees of freedom, the multiplicative model) and
    ch. 19 (2^(k-p) fractional designs); D. J. Lilja (2000), "Measuring Computer
    Performance"; Feitelson (seed 001) works the examples (2^2: q0 = 40, qA = 20, qB = 10,
    qAB = 5). Fractions and their aliases: Box, Hunter & Hunter (2005), ch. 6
    (`fastperf.designs.fractional`).
    """
    value = column_name(value, "value")
    confidence = check_confidence(confidence)
    log = check_flag(log, "log")
    table = load_table(data)
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    keys = key_list(by)
    factors, given_levels = _factorial_iv(table, factors, keys, value, levels)
    k = len(factors)
    level_values = [_factor_levels(table, f, given_levels.get(f)) for f in factors]

    # one cell code per row (bit j: factor j at its high level), then group by (by..., cell)
    cell = np.zeros(table.num_rows, dtype=np.int64)
    single = [j for j, lv in enumerate(level_values) if len(lv) < 2]
    for j, f in enumerate(factors):
        if j in single:
            continue
        column = _factor_column(table, f)
        high = pc.equal(column, pa.scalar(level_values[j][1], column.type))
        cell |= high.to_numpy().astype(np.int64) << j
    cell_name = "__cell__"
    while cell_name in keys:
        cell_name += "_"
    keyed = table.select(keys).append_column(cell_name, pa.array(cell))
    groups = group_rows(keyed, keys + [cell_name])
    grouped = groups.gather(value_column(table, value))
    if np.isinf(grouped).any():
        raise InputError(f"value column {value!r} holds infinite values; remove them or set them "
                         "to null (nulls and NaN are dropped and counted)")
    if log:
        if (grouped <= 0).any():
            raise InputError(f"log=True needs positive values; value column {value!r} holds "
                             f"{int((grouped <= 0).sum())} value(s) <= 0")
        grouped = np.log(grouped)

    cell_column = groups.keys.column(cell_name).combine_chunks()
    cell_of = cell_column.dictionary.to_numpy()[cell_column.indices.to_numpy()].astype(np.int64)
    if keys:
        outer = group_rows(groups.keys.select(keys), keys)
        outer_keys = outer.keys
        group_of = np.repeat(np.arange(outer.n_groups), outer.sizes)
    else:
        outer_keys = pa.table({})
        group_of = np.zeros(groups.n_groups, dtype=np.int64)
    n_outer = int(group_of.max()) + 1 if group_of.size else 0
    # each `by` group divided by a power of 2 near its largest |value| (exact): effects, sums of
    # squares and s_e are computed on the scaled values and multiplied back, so values of
    # 1e-308 (whose squares underflow) or 1.7e308 (whose squares overflow) keep their shares
    exponent = _group_exponents(grouped, groups.offsets, group_of, n_outer)
    scaled = np.ldexp(grouped, -np.repeat(exponent[group_of], np.diff(groups.offsets)))
    n, n_nan, mean, variance = sample_moments(scaled, groups.offsets, n_rows=scaled.shape[0])
    n_total = np.bincount(group_of, weights=n, minlength=n_outer).astype(np.int64)
    n_dropped = np.bincount(group_of, weights=n_nan, minlength=n_outer).astype(np.int64)

    def group_text(g: int) -> str:
        return f" in group {describe_group(outer_keys, g)}" if keys else ""

    warnings: list[str] = []
    if n_dropped.sum():
        warnings.append(f"{int(n_dropped.sum())} null/NaN values dropped (see n_dropped)")
    status: str | np.ndarray  # the one message, else one per group
    if single:
        f = factors[single[0]]
        status = (f"factor {f!r} has one level ({level_values[single[0]][0]!r}): "
                  "no two-level design")
        warnings.append(status)
        return _result(outer_keys, keys, n_outer, n_total, n_dropped, status, None, [], None,
                       factors, level_values, log, confidence, warnings, table.num_rows)

    # cells present (at least one value) per group, on the compact set of distinct cells
    present_rows = n > 0
    cells = np.unique(cell_of[present_rows])
    index = np.searchsorted(cells, cell_of)
    counts = np.zeros((n_outer, cells.shape[0]), dtype=np.int64)
    means = np.full((n_outer, cells.shape[0]), np.nan)
    sq = np.zeros((n_outer, cells.shape[0]))
    rows = np.flatnonzero(present_rows)
    counts[group_of[rows], index[rows]] = n[rows]
    means[group_of[rows], index[rows]] = mean[rows]
    sq[group_of[rows], index[rows]] = np.where(n[rows] > 1, variance[rows] * (n[rows] - 1), 0.0)

    if design is not None:
        if not isinstance(design, FractionalDesign):
            raise InputError("design= must be a FractionalDesign (see fastperf.fractional_design)")
        if design.k != k:
            raise InputError(f"the design has {design.k} factors but factors= names {k}")
        runs = design.run_cells()
        outside = np.setdiff1d(cells, runs)
        if outside.size:
            raise InputError(
                f"measurements at {_cell_text(int(outside[0]), factors, level_values)}, which is "
                f"not a run of the 2^({design.k}-{design.p}) design"
            )
    elif cells.shape[0] == 1 << k:
        runs = np.arange(1 << k, dtype=np.int64)
    else:
        design = detect_fraction(cells, k)
        if design is None:
            missing = np.setdiff1d(np.arange(1 << k), cells)
            shown = "; ".join(_cell_text(int(c), factors, level_values) for c in missing[:5])
            raise InputError(
                f"missing cell(s) of the full 2^{k} factorial: {shown}"
                + (f" (and {missing.size - 5} more)" if missing.size > 5 else "")
                + "; the cells measured are not a regular 2^(k-p) fraction either"
            )
        runs = design.run_cells()
    # every group must have every run, each replicated the same number of times
    run_index = np.searchsorted(cells, runs)
    run_index = np.where(run_index < cells.shape[0], run_index, 0)
    found = (cells[run_index] == runs)
    r_runs = np.where(found[None, :], counts[:, run_index], 0)
    lacking = np.argwhere(r_runs == 0)
    if lacking.size:
        g, c = lacking[0]
        kind = f"full 2^{k} factorial" if design is None else f"2^({k}-{design.p}) design"
        raise InputError(
            f"missing cell of the {kind}{group_text(int(g))}: "
            f"{_cell_text(int(runs[c]), factors, level_values)} has no values"
        )
    unbalanced = np.flatnonzero(r_runs.min(axis=1) != r_runs.max(axis=1))
    if unbalanced.size:
        g = int(unbalanced[0])
        raise InputError(
            f"unbalanced replications{group_text(g)}: cells have between {int(r_runs[g].min())} "
            f"and {int(r_runs[g].max())} values; a 2^k r design needs the same r in every cell "
            "(drop the extra runs, or the nulls/NaN, to balance it)"
        )

    # effects: one per sign-table column
    if design is None:
        reps = sorted(range(1 << k), key=word_key)
        alias_text = [""] * len(reps)
    else:
        reps = [rep for rep, _ in design.alias_sets]
        alias_text = [text for _, text in design.alias_sets]
    masks = np.array(reps, dtype=np.int64)
    signs = sign_matrix(runs, masks).astype(np.float64)  # (runs x effects)
    ybar = means[:, run_index]
    n_runs = runs.shape[0]
    r = r_runs[:, 0]
    # on the scaled values (|y| < 1): no overflow; the shares are scale-free
    q = ybar @ signs / n_runs  # (groups x effects)
    ss = (n_runs * r)[:, None] * q * q
    ss[:, masks == 0] = np.nan
    sse = sq[:, run_index].sum(axis=1)
    sst = r * ((ybar - q[:, 0][:, None]) ** 2).sum(axis=1) + sse
    df = n_runs * (r - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = ss / sst[:, None]
        share_error = sse / sst
        s_e = np.where(df > 0, np.sqrt(sse / np.maximum(df, 1)), np.nan)
        s_q = s_e / np.sqrt(n_runs * r)
    half = (student_quantile(df.astype(np.float64), confidence) * s_q)[:, None]
    status = np.where(sst > 0, "ok", "all values equal: no variation to allocate")
    status = np.where((r == 1) & (status == "ok"), NO_REPLICATIONS, status)
    # back to the value's unit (exact but where a figure leaves the float64 range)
    e1, e2 = exponent[:, None], 2 * exponent[:, None]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        q, ss, ci_low, ci_high = (np.ldexp(q, e1), np.ldexp(ss, e2), np.ldexp(q - half, e1),
                                  np.ldexp(q + half, e1))
        sse, sst = np.ldexp(sse, 2 * exponent), np.ldexp(sst, 2 * exponent)
        s_e, s_q = np.ldexp(s_e, exponent), np.ldexp(s_q, exponent)
    # huge values: squares (or effects, or interval ends) beyond the float64 range
    finite = np.isfinite(q).all(axis=1) & np.isfinite(ss[:, masks != 0]).all(axis=1)
    ends = ~(np.isinf(ci_low) | np.isinf(ci_high)).any(axis=1) & ~np.isinf(s_e)
    beyond = ~(np.isfinite(sst) & np.isfinite(sse) & finite & ends)
    status = np.where(beyond, "sums of squares beyond the float64 range", status)
    if (r == 1).any():
        warnings.append(f"{int((r == 1).sum())} group(s) without replications (r = 1): no error "
                        "estimate and no confidence intervals of the effects")

    n_eff = len(reps)
    effect_cols: dict[str, Any] = {
        "effect": np.tile([word_name(m) for m in reps], n_outer),
        "term": np.tile(["mean" if m == 0 else "*".join(factors[j] for j in word_bits(m))
                         for m in reps], n_outer),
        "order": np.tile(popcount(masks), n_outer),
        "aliases": np.tile(np.array(alias_text, dtype=object), n_outer).astype(str),
        "q": q.ravel(), "ss": ss.ravel(), "share": share.ravel(),
        "s_q": np.repeat(s_q, n_eff),
        "ci_low": ci_low.ravel(), "ci_high": ci_high.ravel(),
    }
    if log:
        effect_cols.update(exp_q=np.exp(effect_cols["q"]), exp_ci_low=np.exp(effect_cols["ci_low"]),
                           exp_ci_high=np.exp(effect_cols["ci_high"]))
    effects = _keyed(outer_keys, np.repeat(np.arange(n_outer), n_eff), effect_cols)
    sign_table = pa.table({word_name(m): signs[:, e].astype(np.int64) for e, m in enumerate(reps)})
    stats = {"runs": np.full(n_outer, n_runs), "r": r, "sst": sst, "sse": sse,
             "share_error": share_error, "df_error": df, "s_e": s_e}
    return _result(outer_keys, keys, n_outer, n_total, n_dropped, status, stats, effects,
                   sign_table, factors, level_values, log, confidence, warnings, table.num_rows,
                   design)


def _group_exponents(values: np.ndarray, offsets: np.ndarray, group_of: np.ndarray,
                     n_outer: int) -> np.ndarray:
    """Per `by` group, ``e`` with ``max |value| < 2**e`` (frexp's exponent; 0 where all values
    are 0 or NaN): dividing by ``2**e`` is exact and brings the values below 1 in magnitude."""
    largest = np.zeros(n_outer)
    if values.size:
        cells = np.fmax.reduceat(np.abs(values), offsets[:-1])  # every cell group is non-empty
        np.fmax.at(largest, group_of, np.where(np.isnan(cells), 0.0, cells))
    return np.frexp(largest)[1].astype(np.int64)


def _keyed(keys: pa.Table, rows: np.ndarray, columns: dict[str, Any]) -> pa.Table:
    """The key table's `rows` with `columns` appended (just the columns when there are no keys)."""
    if keys.num_columns == 0:
        return pa.table({name: pa.array(column) for name, column in columns.items()})
    return keyed_table(keys.take(rows), columns)


def _result(outer_keys, keys, n_outer, n_total, n_dropped, status, stats, effects, sign_table,
            factors, level_values, log, confidence, warnings, n_rows, design=None):
    """Assemble the FactorialResult (also for the degenerate one-level-factor case)."""
    k = len(factors)
    label = f"2^{k}" if design is None else f"2^({k}-{design.p})"
    if stats is None:
        nan = np.full(n_outer, np.nan)
        stats = {"runs": np.zeros(n_outer, np.int64), "r": np.zeros(n_outer, np.int64),
                 "sst": nan, "sse": nan, "share_error": nan,
                 "df_error": np.zeros(n_outer, np.int64), "s_e": nan}
        label = ""
        effects = _keyed(outer_keys, np.zeros(0, np.int64), {
            "effect": pa.array([], pa.string()), "term": pa.array([], pa.string()),
            "order": pa.array([], pa.int64()), "aliases": pa.array([], pa.string()),
            **{c: pa.array([], pa.float64())
               for c in ["q", "ss", "share", "s_q", "ci_low", "ci_high"]},
        })
        sign_table = pa.table({})
    status = np.broadcast_to(np.asarray(status), (n_outer,))
    columns = {"design": [label] * n_outer, "runs": stats["runs"], "r": stats["r"],
               "n": n_total, "n_dropped": n_dropped, "sst": stats["sst"], "sse": stats["sse"],
               "share_error": stats["share_error"], "df_error": stats["df_error"],
               "s_e": stats["s_e"], "status": status}
    groups = _keyed(outer_keys, np.arange(n_outer), columns)
    summary = {
        "function": "factorial", "input_rows": n_rows, "design": label, "k": k,
        "p": 0 if design is None else design.p,
        "factors": {LETTERS[j]: f for j, f in enumerate(factors)},
        "levels": {f: {"low": lv[0], "high": lv[-1]} for f, lv in zip(factors, level_values)},
        "generators": {} if design is None else dict(design.generators),
        "defining_relation": [] if design is None else list(design.defining_relation),
        "resolution": None if design is None else design.resolution,
        "log": bool(log), "confidence": confidence,
    }
    return FactorialResult(groups, summary, warnings, effects, sign_table, design)
