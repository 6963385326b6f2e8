"""`check`: is this measurement any good? Per (benchmark, variant) group, the run diagnostics of
`fastperf.engine.diagnostics` (warm-up, outliers, modes, drift, the timer's resolution, noise,
too few runs), a ``flags`` column naming what was found, the statistics behind each flag and
one line of advice per flag, in the spirit of pyperf's ``check`` (docs/check.md).

Each group's values are taken in the order they were measured, cut into its processes (the
innermost unit of the experiment's structure, `fastperf.data.levels.run_sequences`); without
levels a group is one sequence of runs, in row order.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.levels import (Sequences, Structure, check_structure_arguments,
                                  resolve_structure, run_sequences)
from fastperf.data.validation import (check_key_clash, check_real, check_unit_interval,
                                      check_whole_number)
from fastperf.engine.diagnostics import (FLAGS, Diagnostics, Thresholds, advice_lines,
                                         diagnose, flag_bits, flag_text, unit_counts)
from fastperf.engine.sorting import sort_samples
from fastperf.errors import InputError
from fastperf.io.common import config_columns
from fastperf.io.dataset import Dataset
from fastperf.io.read import load_table
from fastperf.io.summaries import SUMMARY_STATISTICS, checked_summary_columns
from fastperf.io.tables import (column_name, describe_group, has_column, is_summary_table,
                                key_list,
                                require_columns)
from fastperf.protocols.flags import group_traces
from fastperf.protocols.report_views import check_view
from fastperf.results.base import GroupResult, dropped_warnings, empty_keys, keyed_table
from fastperf.results.figures import ReportView, Runs
from fastperf.results.render import (
    format_cell, markdown_list, printable, render_markdown, text_lines,
)

__all__ = ["check", "CheckResult", "CheckOptions", "CheckPlan", "CHECK_COLUMNS",
           "check_options", "check_plan", "check_stage", "check_finish"]

#: The columns of `check`'s table after the key columns and before the statistics of
#: `fastperf.engine.diagnostics.Diagnostics.columns`; ``advice`` and ``status`` come last.
CHECK_COLUMNS = ("n", "n_dropped", "units", "flags")
#: The last columns of `check`'s table.
LAST_COLUMNS = ("advice", "status")


def check(
    data: Any,
    *,
    by: str | Sequence[str] | None = None,
    variant: str | None = "variant",
    value: str = "value",
    unit: str | None = "unit",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
    warmup_alpha: float = Thresholds.warmup_alpha,
    bimodal_alpha: float = Thresholds.bimodal_alpha,
    drift_alpha: float = Thresholds.drift_alpha,
    noisy_cv: float = Thresholds.noisy_cv,
    resolution: float = Thresholds.resolution,
    min_units: int = Thresholds.min_units,
) -> CheckResult:
    """Diagnose the runs of every (benchmark, variant) group: warm-up, outliers, several modes,
    drift, the timer's resolution, noise and too few runs, each with its statistics, a flag
    and one line of advice.

    Parameters
    ----------
    data : measurement table (Arrow object, path or paths) or lazy `fastperf.io.dataset.Dataset`
        One row per measurement, in the order measured within each process (or each group,
        without levels). A summary table (n, mean, sd per benchmark: `check_from_summaries`)
        is checked for ``noisy`` and ``few runs`` only.
    by : str, sequence of str or None
        The columns that identify a benchmark. None: ``benchmark`` when the table has it, and
        the configuration columns the files carry (`fastperf.read`); ``[]``: every row one
        benchmark.
    variant : str or None
        The variant column: each variant of a benchmark is checked on its own. The default
        ``"variant"`` is used when the table has it (a table without one gives one row per
        benchmark); another name must be a column; None: no variant column.
    value : str
        The measurement column; null and NaN values are dropped and counted (``n_dropped``).
    unit : str or None
        When the table has this column, each unit of a benchmark is checked on its own.
    levels, block : see `fastperf.compare`
        The experiment's structure: the processes a warm-up is looked for in (each process's
        first iterations) and the units counted by ``few runs``.
    warmup_alpha, bimodal_alpha, drift_alpha : float
        The levels of the warm-up, dip and trend tests (`Thresholds`).
    noisy_cv : float
        The coefficient of variation above which a group is ``noisy`` (pyperf: 0.10).
    resolution : float
        The timer's quantum, as a share of the median, above which a group is
        ``resolution``-limited.
    min_units : int
        Fewer independent units (processes, else runs) than this: ``few runs``.

    Returns
    -------
    CheckResult
        ``.groups``: one row per group, in the order of first appearance: the key columns and
        the variant, ``n`` (values used), ``n_dropped``, ``units`` (independent units:
        processes with values, else runs), ``flags`` (the flags raised, in the order of
        `fastperf.engine.diagnostics.FLAGS`, joined by ", "; "" when none), the statistics
        behind them (`fastperf.engine.diagnostics.diagnose`, docs/check.md), ``advice`` (a
        line per flag, joined by "; ") and ``status`` ("ok", or why a statistic is missing).
        ``.runs`` (in memory) keeps each group's values for the HTML report.

    Raises
    ------
    InputError
        A bad option, an empty table, a missing column, a key column named like an output
        column, or an infinite value.

    Notes
    -----
    Each diagnostic, its source and its measured error rates: docs/check.md. A group's row
    depends on that group's values only: adding, removing or reordering other groups leaves
    it as it is, and a lazy dataset checked in chunks gives the in-memory table.
    """
    options = check_options(by=by, variant=variant, value=value, unit=unit, levels=levels,
                            block=block, warmup_alpha=warmup_alpha,
                            bimodal_alpha=bimodal_alpha, drift_alpha=drift_alpha,
                            noisy_cv=noisy_cv, resolution=resolution, min_units=min_units)
    if not isinstance(data, Dataset):
        data = load_table(data)
        if is_summary_table(data):
            return check_from_summaries(data, options)
    side: dict = {}
    result = run_planned(data, partial(check_plan, options=options), check_stage,
                         check_finish, values=[options.value], side=side,
                         keys=[by, variant, unit], function="check")
    result.runs = side.get("runs")
    return result


@dataclass(frozen=True)
class CheckOptions:
    """The options of `check`, checked (`check_options`); see `check` for each.

    Attributes
    ----------
    thresholds : Thresholds
        The flags' thresholds.
    """

    by: Any
    variant: str | None
    value: str
    unit: str | None
    levels: tuple[str, ...] | None
    block: str | None
    thresholds: Thresholds


@dataclass(frozen=True, kw_only=True)
class CheckPlan(Plan):
    """The plan of `check` (`check_plan`).

    Attributes
    ----------
    options : CheckOptions
    keys : list of str
        The columns of a group: those that identify a benchmark, the variant, the unit.
    variant : str or None
        The variant column, when the table has one.
    unit : str or None
        The unit column, when the table has one.
    structure : Structure
        The levels and block (`fastperf.data.levels.resolve_structure`).
    """

    options: CheckOptions
    keys: list[str]
    variant: str | None
    unit: str | None
    structure: Structure


def check_options(*, by, variant, value, unit, levels, block, warmup_alpha, bimodal_alpha,
                  drift_alpha, noisy_cv, resolution, min_units) -> CheckOptions:
    """The options of `check`, checked (the errors of a call that reads no table).

    Parameters
    ----------
    by, variant, value, unit, levels, block, warmup_alpha, bimodal_alpha, drift_alpha,
    noisy_cv, resolution, min_units
        See `check`.

    Returns
    -------
    CheckOptions
    """
    if by is not None:
        key_list(by)  # the type of `by`; its columns are checked against the table
    value = column_name(value, "value")
    variant = column_name(variant, "variant", allow_none=True)
    unit = column_name(unit, "unit", allow_none=True)
    levels, block = check_structure_arguments(levels, block)
    thresholds = Thresholds(
        warmup_alpha=check_unit_interval(warmup_alpha, "warmup_alpha"),
        bimodal_alpha=check_unit_interval(bimodal_alpha, "bimodal_alpha"),
        drift_alpha=check_unit_interval(drift_alpha, "drift_alpha"),
        noisy_cv=check_real(noisy_cv, "noisy_cv", low=0.0, low_open=True),
        resolution=check_real(resolution, "resolution", low=0.0, low_open=True),
        min_units=check_whole_number(min_units, "min_units", minimum=1))
    return CheckOptions(by=by, variant=variant, value=value, unit=unit, levels=levels,
                        block=block, thresholds=thresholds)


def check_plan(table: pa.Table, options: CheckOptions) -> CheckPlan:
    """The plan of `check`: the key columns, the variant column and the structure.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : CheckOptions

    Returns
    -------
    CheckPlan
        ``partition``: the benchmark's key columns (without the variant and the unit), else
        every key; ``order``: the keys.

    Raises
    ------
    InputError
        An empty table, missing columns, a key column named like an output column.
    """
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    value = options.value
    require_columns(table, [value])
    keys, partition, variant, unit = group_columns(table, options, [value])
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*keys, value])
    return CheckPlan(options=options, keys=keys, variant=variant, unit=unit,
                     structure=structure,
                     partition=tuple(partition or keys), order=tuple(keys))


def group_columns(table: pa.Table, options: CheckOptions, taken: Sequence[str]
                  ) -> tuple[list[str], list[str], str | None, str | None]:
    """The columns of `check`'s groups in `table`.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table (or a summary table).
    options : CheckOptions
    taken : sequence of str
        The columns that hold measurements or statistics, never keys.

    Returns
    -------
    keys : list of str
        The benchmark's columns, then the variant and the unit (those the table has).
    partition : list of str
        The benchmark's columns without the unit.
    variant, unit : str or None
        The variant and unit columns, when the table has them.

    Raises
    ------
    InputError
        A missing column named by the options, a key named like an output column.
    """
    unit = options.unit
    variant = options.variant
    if variant is not None and not has_column(table, variant):
        if variant != "variant":
            require_columns(table, [variant], hint="pass variant=None to check a table "
                                                   "without variants")
        variant = None
    if options.by is not None:
        keys = key_list(options.by)
        require_columns(table, keys)
    else:
        keys = (["benchmark"] if has_column(table, "benchmark") else []) + [
            c for c in config_columns(table) if c not in ("benchmark", variant, unit, *taken)]
    keys = list(dict.fromkeys(keys))
    unit = unit if has_column(table, unit, argument="unit") and unit not in keys else None
    check_key_clash(keys + ([unit] if unit is not None else []), (), "check", taken[0], variant)
    partition = [k for k in keys if k != options.unit]  # without the unit, even one in by=
    if variant is not None:
        keys.append(variant)
    if unit is not None:
        keys.append(unit)
    check_key_clash(keys, (*CHECK_COLUMNS, *LAST_COLUMNS), "check", taken[0])
    return keys, partition, variant, unit


def check_stage(table: pa.Table, plan: CheckPlan, side: dict | None = None) -> StageRows:
    """The rows of `check` for the groups of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Every row of some groups.
    plan : CheckPlan
    side : dict or None
        When a dict, receives ``"runs"``: each row's values (`Runs`, with their `Traces`),
        for the report.

    Returns
    -------
    StageRows
        The key columns, the variant and the output columns; no extra column.
    """
    options, structure = plan.options, plan.structure
    sequences = run_sequences(table, plan.keys, None, options.value, structure)
    groups = sequences.group_offsets
    infinite = np.isinf(sequences.values)
    if infinite.any():
        where = describe_group(sequences.keys, int(np.searchsorted(
            groups, int(np.argmax(infinite)), side="right") - 1))
        raise InputError(
            f"value column {options.value!r} holds {int(infinite.sum())} infinite value(s), "
            f"the first in the group {where}; an infinite measurement is a broken one: remove "
            "it or set it to null (nulls and NaN are dropped and counted)")
    diagnostics = diagnose(sequences, options.thresholds)
    n = np.diff(groups)
    columns: dict[str, Any] = {
        "n": n, "n_dropped": sequences.n_dropped, "units": unit_counts(sequences),
        "flags": pa.array(diagnostics.flag_text(), pa.string()),
    }
    for name, column in diagnostics.columns.items():
        if name in columns or name in LAST_COLUMNS:
            raise AssertionError(f"check: the diagnostic column {name!r} is one of check's")
        columns[name] = column
    columns["advice"] = pa.array(diagnostics.advice, pa.string())
    columns["status"] = pa.array(diagnostics.status.tolist(), pa.string())
    k = len(n)
    key_table = sequences.keys if sequences.keys.num_columns else empty_keys(k)
    clash = [name for name in key_table.column_names if name in columns]
    if clash:
        raise InputError(f"key column {clash[0]!r} has the name of an output column of check "
                         f"({', '.join(columns)}); rename it first")
    if side is not None:
        side["runs"] = group_runs(sequences, diagnostics)
    return StageRows.of(keyed_table(key_table, columns))


def group_runs(sequences: Sequences, diagnostics: Diagnostics) -> Runs:
    """The runs of each group for the report: one-sided `Runs` (the "baseline" side holds the
    group's values sorted, the candidate side is empty) whose `Traces` hold them in measurement
    order, cut into processes, with the warm-up found in each group.

    Parameters
    ----------
    sequences : Sequences
    diagnostics : Diagnostics
        `diagnose` of `sequences`: the warm-up found (its ``warmup`` flag and
        ``warmup_iterations``).

    Returns
    -------
    Runs
    """
    k = sequences.group_offsets.shape[0] - 1
    traces = group_traces(sequences, diagnostics.warmup, np.arange(k, dtype=np.int64),
                          np.full(k, -1, dtype=np.int64))
    return Runs(baseline_name="runs", candidate_name="", baseline=sort_samples(traces.baseline),
                candidate=traces.candidate, plots=("strip",), traces=traces)


#: The status of every row checked from a summary table.
SUMMARY_STATUS = ("summary statistics only (n, mean, sd): the warm-up, outliers, modes, drift "
                  "and resolution need the runs")


def check_from_summaries(table: pa.Table, options: CheckOptions) -> CheckResult:
    """`check` of a summary table (n, mean, sd per benchmark and variant, as summary-only result
    files give them): what can be judged without the runs, pyperf check's ``noisy`` (the
    coefficient of variation sd / mean) and ``few runs`` (n).

    Parameters
    ----------
    table : pyarrow.Table
        A summary table (`fastperf.io.tables.is_summary_table`).
    options : CheckOptions

    Returns
    -------
    CheckResult
        One row per row of `table`, `check`'s columns: ``n`` and ``units`` the file's n (null
        where it gives none), ``cv``, ``scale`` "summary", the statistics that need the runs
        null, the flags and advice of ``noisy`` and ``few runs``; ``status`` says what was not
        checked (`SUMMARY_STATUS`).

    Notes
    -----
    cv = sd / |mean| (pyperf check: "the standard deviation is greater than 10% of the mean").
    """
    statistics = checked_summary_columns(table)
    keys, _, variant, unit = group_columns(table, options, list(SUMMARY_STATISTICS))
    k = table.num_rows
    n_column = statistics.column("n")
    n = n_column.to_numpy(zero_copy_only=False).astype(np.float64)  # NaN: not given
    mean = statistics.column("mean").to_numpy(zero_copy_only=False).astype(np.float64)
    sd = statistics.column("sd").to_numpy(zero_copy_only=False).astype(np.float64)
    thresholds = options.thresholds
    with np.errstate(divide="ignore", invalid="ignore"):
        cv = np.where(mean == 0, np.nan, sd / np.abs(mean))
    flags = np.zeros((k, len(FLAGS)), dtype=bool)
    with np.errstate(invalid="ignore"):
        flags[:, FLAGS.index("noisy")] = cv > thresholds.noisy_cv
        flags[:, FLAGS.index("few runs")] = n < thresholds.min_units
    units = np.nan_to_num(n).astype(np.int64)
    nothing = np.full(k, np.nan)
    columns: dict[str, Any] = {
        "n": n_column, "n_dropped": np.zeros(k, dtype=np.int64), "units": n_column,
        "flags": pa.array(flag_text(flag_bits(flags)), pa.string()),
        "scale": pa.array(["summary"] * k, pa.string()), "n_steady": n_column,
        "warmup_iterations": pa.nulls(k, pa.int64()), "warmup_change": nothing,
        "warmup_pvalue": nothing, "outliers_mild": pa.nulls(k, pa.int64()),
        "outliers_severe": pa.nulls(k, pa.int64()), "dip": nothing, "dip_pvalue": nothing,
        "drift_statistic": nothing, "drift_pvalue": nothing, "drift_per_10": nothing,
        "quantum": nothing, "quantum_share": nothing, "tied_share": nothing, "cv": cv,
    }
    # only noisy and few runs can be raised: the other flags' statistics are never read
    statistic = {name: column if isinstance(column, np.ndarray) else nothing
                 for name, column in columns.items()}
    advice = advice_lines(flags, statistic, {"median": nothing}, units,
                          np.zeros(k, dtype=bool), False, np.zeros(k, dtype=bool), thresholds)
    columns["advice"] = pa.array(advice, pa.string())
    reasons = np.full(k, SUMMARY_STATUS, dtype=object)
    reasons[np.isnan(n)] = SUMMARY_STATUS + "; n not given: no few-runs check"
    reasons[np.isnan(cv)] += "; mean 0 or not given: no cv"
    columns["status"] = pa.array(reasons.tolist(), pa.string())
    rows = keyed_table(table.select(keys), columns)
    plan = CheckPlan(options=options, keys=keys, variant=variant, unit=unit,
                     structure=Structure(), partition=tuple(keys), order=tuple(keys))
    result = check_finish(StageRows.of(rows), plan, {"input_rows": k})
    result.summary["structure"] = "summaries"
    return result


def check_finish(staged: StageRows, plan: CheckPlan, info: dict) -> CheckResult:
    """The result of `check` from its rows: the flag counts, the summary, the warnings.

    Parameters
    ----------
    staged : StageRows
        `check_stage` rows of every group, in output order.
    plan : CheckPlan
    info : dict
        ``input_rows``.

    Returns
    -------
    CheckResult
    """
    rows = staged.rows
    n = pc.fill_null(rows.column("n"), 0).to_numpy()  # null: a summary row without n
    n_dropped = rows.column("n_dropped").to_numpy()
    # no flag's name is part of another's: a substring match counts the rows raising it
    flags = rows.column("flags")
    counts = {name: int(pc.sum(pc.match_substring(flags, name)).as_py() or 0) for name in FLAGS}
    status = rows.column("status").to_numpy(zero_copy_only=False)
    warnings = dropped_warnings(n_dropped)
    not_ok = int((status != "ok").sum())
    if not_ok:
        warnings.append(f"{not_ok} group(s) lack some statistics (see status)")
    t = plan.options.thresholds
    summary = {
        "function": "check", "input_rows": info["input_rows"], "values": int(n.sum()),
        "dropped": int(n_dropped.sum()),
        "keys": [k for k in plan.keys if k != plan.variant], "variant": plan.variant,
        "unit": plan.unit,
        "structure": plan.structure.label(),
        "thresholds": {"warmup_alpha": t.warmup_alpha, "bimodal_alpha": t.bimodal_alpha,
                       "drift_alpha": t.drift_alpha, "noisy_cv": t.noisy_cv,
                       "resolution": t.resolution, "min_units": t.min_units},
        "groups": rows.num_rows,
        "flagged": int(pc.sum(pc.not_equal(flags, "")).as_py() or 0),
        "flags": counts,
    }
    return CheckResult(rows, summary, warnings, plan.keys)


class CheckResult(GroupResult):
    """Result of `check`.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per (benchmark, variant) group: the key columns and the variant, then
        `CHECK_COLUMNS`, the diagnostics' statistics, ``advice`` and ``status``.
    summary : dict
        ``function``, ``input_rows``, ``values``, ``dropped``, ``keys`` (the columns that
        identify a benchmark, the unit included), ``variant`` and ``unit`` (those columns, or
        None), ``structure``,
        ``thresholds``, ``groups``, ``flagged`` (groups with a flag), ``flags`` (groups per
        flag, every flag of `FLAGS`), ``rows``, ``rows_not_ok``.
    warnings : list of str
    runs : Runs or None
        Each group's values for the report (in memory only).
    """

    def __init__(self, table, summary, warnings, keys: list[str]):
        super().__init__(table, summary, warnings)
        self.key_columns = keys

    def flagged(self) -> pa.Table:
        """The rows with at least one flag.

        Returns
        -------
        pyarrow.Table
            Those rows of `groups`, in order.
        """
        return self.groups.filter(pc.not_equal(self.groups.column("flags"), ""))

    def names(self) -> list[str]:
        """Each row's name: the benchmark's key values joined by " " (those after the first
        only where they vary: a configuration every row shares is left out), then the variant
        and the unit in parentheses (``BenchmarkEncode (old, sec/op)``).

        Returns
        -------
        list of str
        """
        table, s = self.groups, self.summary
        inner = [k for k in (s["variant"], s["unit"]) if k is not None]
        columns = {name: [format_cell(v) for v in table.column(name).to_pylist()]
                   for name in self.key_columns}
        outer = [k for i, k in enumerate(k for k in self.key_columns if k not in inner)
                 if i == 0 or len(set(columns[k])) > 1]
        names = []
        for i in range(table.num_rows):
            name = " ".join(columns[k][i] for k in outer)
            within = ", ".join(columns[k][i] for k in inner)
            names.append(" ".join(p for p in (name, f"({within})" if within else "") if p)
                         or "(all rows)")
        return names

    def footer(self) -> str:
        """``N of M groups flagged: warmup 3, bimodal 1, ...`` (the counts of each flag raised,
        in `FLAGS` order).

        Returns
        -------
        str
        """
        s = self.summary
        counts = ", ".join(f"{name} {count}" for name, count in s["flags"].items()
                           if count)
        return (f"{s['flagged']} of {s['groups']} groups flagged" + (f": {counts}" if counts
                                                                    else "")
                + f" (structure: {s['structure']})")

    def _flagged_records(self) -> list[tuple[str, dict]]:
        """(name, row) of each flagged row, in order."""
        names = self.names()
        records = self.groups.select(["n", "units", "flags", "advice", "status"]).to_pylist()
        return [(name, r) for name, r in zip(names, records) if r["flags"]]

    def to_text(self) -> str:
        """A listing in the spirit of ``pyperf check``: per flagged group its name and flags,
        then one line of advice per flag; the counts below, then the warnings."""
        blocks = []
        for name, r in self._flagged_records():
            lines = [f"{printable(str(name))}: {r['flags']} ({r['n']} values, {r['units']} units)"]
            lines += [f"  - {line}" for line in r["advice"].split("; ") if line]
            blocks.append("\n".join(lines))
        out = "\n\n".join(blocks) if blocks else "no group flagged"
        out += "\n\n" + self.footer()  # no name in it: nothing to escape
        if self.warnings:
            out += "\n" + text_lines(self.warnings, "warning: ")
        return out

    def to_markdown(self) -> str:
        """The flagged groups as a Markdown table (name, values, units, flags, advice), the
        counts below, then the warnings."""
        records = self._flagged_records()
        out = ""
        if records:
            display = pa.table({
                "group": [name for name, _ in records],
                "values": [str(r["n"]) for _, r in records],
                "units": [str(r["units"]) for _, r in records],
                "flags": [r["flags"] for _, r in records],
                "advice": [r["advice"] for _, r in records]})
            out = render_markdown(display) + "\n\n"
        out += self.footer()
        if self.warnings:
            out += "\n\n" + markdown_list(self.warnings, "warning: ")
        return out

    def report_view(self) -> ReportView:
        """The report (`fastperf.protocols.report_views.check_view`): the counts of each flag,
        then every group with its flags as badges, each row's runs (and iteration traces) on
        demand."""
        return check_view(self)
