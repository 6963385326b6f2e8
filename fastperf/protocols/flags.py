"""The run diagnostics inside the two-variant protocols (`compare`, `speedup_test`, `sparc`,
`decide`): the ``flags`` column of each comparison, ``warmup="auto"`` (the initial transient of
each group dropped before testing) and the iteration traces of the report's detail panel.

Every step works on every (benchmark, variant) group of a chunk at once
(`fastperf.data.levels.run_sequences`, `fastperf.engine.diagnostics`): a group's flags reach
the rows that compare it by index arrays (a key join of the benchmarks, then one gather per
variant), never by a Python loop over groups.

A comparison's flags are the union of its baseline's and its candidate's: a defect of either
side's runs makes the comparison suspect. They describe the data that was tested, so with
``warmup="auto"`` they are those of the steady values.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.grouping import Groups, group_rows
from fastperf.data.levels import Sequences, Structure, Units, run_sequences
from fastperf.data.samples import present_variants, variant_takes
from fastperf.data.validation import check_choice
from fastperf.engine.diagnostics import (FLAGS, Thresholds, Warmup, diagnose, find_warmup,
                                         flag_bits, steady_mask)
from fastperf.engine.diagnostics import flag_text as diagnostic_flag_text
from fastperf.kernels.grouping import take_segments
from fastperf.results.figures import Traces

__all__ = ["WARMUPS", "check_warmup", "drop_warmup", "tested_table", "RowFlags", "benchmark_takes",
           "comparison_flags", "flag_text", "flag_counts", "flags_footer", "row_warmup",
           "comparison_traces", "group_traces", "dropped_counts", "warmup_warning", "warmup_summary",
           "StageFlags", "stage_flags", "finish_flags",
           "with_columns_after"]

#: The values `warmup=` takes: None (every value tested, today's behaviour) or "auto".
WARMUPS = (None, "auto")


def check_warmup(warmup: Any) -> str | None:
    """`warmup` itself when it is None or ``"auto"``, else an `InputError` listing both.

    Parameters
    ----------
    warmup : object
        The ``warmup=`` argument of a protocol.

    Returns
    -------
    str or None
    """
    return check_choice(warmup, "warmup", WARMUPS)


def drop_warmup(table: pa.Table, keys: Sequence[str], variant: str | None, value: str,
                structure: Structure, units: Units | None = None
                ) -> tuple[pa.Table, Warmup, Sequences]:
    """`table` without the values of the initial transient found in each (keys, variant)
    group's processes.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table (complete groups).
    keys : sequence of str
        The benchmark key columns.
    variant : str or None
        The variant column.
    value : str
        The value column.
    structure : Structure
        The levels and block (`fastperf.data.levels.resolve_structure`).
    units : Units, optional
        `fastperf.data.levels.units_of` of `table` with these arguments (no second grouping).

    Returns
    -------
    table : pyarrow.Table
        The rows of `table` less those of the transients found, in their order (`table`
        itself when none was found).
    warmup : Warmup
        `fastperf.engine.diagnostics.find_warmup` of each group of `sequences`.
    sequences : Sequences
        `fastperf.data.levels.run_sequences` of `table` as given (the transients included).

    Notes
    -----
    The transient is that of `find_warmup` (see `fastperf.engine.diagnostics`); its rows are
    removed by one filter (`steady_mask`). A row with a null value is in no sequence and stays.
    """
    sequences = run_sequences(table, keys, variant, value, structure, units)
    warmup = find_warmup(sequences)
    if np.isinf(sequences.values).any():
        # an infinite value is refused by the test that follows, with its message: nothing is
        # dropped (an inf would otherwise win MSER's split and leave with its transient)
        warmup = replace(warmup, found=np.zeros_like(warmup.found))
    if not np.any(warmup.found):
        return table, warmup, sequences
    transient = sequences.rows[~steady_mask(sequences, warmup)]
    keep = np.ones(table.num_rows, dtype=bool)
    keep[transient] = False
    return table.filter(pa.array(keep)), warmup, sequences


def tested_table(table: pa.Table, warmup: str | None, keys: Sequence[str], variant: str,
                 value: str, structure: Structure, units: Units | None = None
                 ) -> tuple[pa.Table, tuple[Sequences, Warmup] | None]:
    """The measurements a protocol's stage tests, by its ``warmup=`` option.

    Parameters
    ----------
    table : pyarrow.Table
        The chunk as measured (complete groups).
    warmup : None or "auto"
        The protocol's option (`check_warmup`).
    keys, variant, value, structure, units
        As `drop_warmup`.

    Returns
    -------
    table : pyarrow.Table
        `table` itself (None, or an empty chunk), or `drop_warmup`'s table ("auto").
    measured : tuple or None
        With "auto", the `Sequences` of the chunk as measured and the `Warmup` found (what
        `stage_flags` marks in the traces and counts); else None.

    Notes
    -----
    Data plumbing: no formula.
    """
    if warmup != "auto" or table.num_rows == 0:
        return table, None
    steady, found, sequences = drop_warmup(table, keys, variant, value, structure, units)
    return steady, (sequences, found)


def benchmark_takes(sequences: Sequences, keys: Sequence[str], variant: str,
                    names: Sequence[Any], benchmarks: pa.Table) -> dict[Any, np.ndarray]:
    """For each variant of `names`, the group of `sequences` holding each benchmark's values.

    Parameters
    ----------
    sequences : Sequences
        `run_sequences` of a chunk (its ``keys`` hold the key columns and the variant column).
    keys : sequence of str
        The benchmark key columns.
    variant : str
        The variant column.
    names : sequence
        The variants wanted.
    benchmarks : pyarrow.Table
        One row per benchmark, the `keys` columns, in the order of the protocol's rows (the
        ``keys`` of its `fastperf.data.samples.VariantSamples`).

    Returns
    -------
    dict
        Variant -> int64 array, one entry per row of `benchmarks`: the group (an index into
        the groups of `sequences`) or -1 where the benchmark has no such group.

    Notes
    -----
    The benchmarks of `sequences` are matched to `benchmarks` by their key values (one grouping
    of both key tables together: dictionary-encoded keys with different dictionaries match by
    value), so the two may come from differently ordered tables. No formula.
    """
    keys = list(keys)
    groups = Groups(sequences.keys, sequences.group_offsets, sequences.group_offsets[:-1], None)
    present = present_variants(sequences.keys, variant, names) if sequences.keys.num_rows else []
    by_benchmark, takes = variant_takes(groups, keys, variant, present)
    where = _matching_rows(benchmarks, by_benchmark.keys, keys)
    out = {}
    for name in dict.fromkeys(names):
        take = takes.get(name)
        if take is None:
            out[name] = np.full(benchmarks.num_rows, -1, dtype=np.int64)
        else:
            padded = np.append(take, -1)  # a benchmark the sequences lack: no group
            out[name] = padded[where]
    return out


def _matching_rows(target: pa.Table, source: pa.Table, keys: list[str]) -> np.ndarray:
    """For each row of `target`, the row of `source` with the same `keys` values, or
    ``source.num_rows`` where none has (each key combination is at most once in `source`)."""
    n_target, n_source = target.num_rows, source.num_rows
    if not keys:  # no key column: one benchmark at most on each side
        return np.where(np.arange(n_target) < n_source, 0, n_source).astype(np.int64)
    target, source = target.select(keys), source.select(keys)
    if n_target == n_source and target.equals(source):
        return np.arange(n_target, dtype=np.int64)
    both = pa.concat_tables([_decoded(target), _decoded(source)], promote_options="permissive")
    groups = group_rows(both, keys)
    group_of_row = np.empty(both.num_rows, dtype=np.int64)
    group_of_row[groups.row_order()] = np.repeat(np.arange(groups.n_groups), groups.sizes)
    source_of_group = np.full(groups.n_groups, n_source, dtype=np.int64)
    source_of_group[group_of_row[n_target:]] = np.arange(n_source)
    return source_of_group[group_of_row[:n_target]]


def _decoded(table: pa.Table) -> pa.Table:
    """`table` with its dictionary-encoded columns decoded (two dictionaries of one column then
    concatenate to one plain column)."""
    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field.name,
                                     table.column(i).cast(field.type.value_type))
    return table


@dataclass(frozen=True)
class RowFlags:
    """The flags of each comparison of a protocol's chunk.

    Attributes
    ----------
    bits : numpy.ndarray of int64
        Per row, bit ``i`` set when ``FLAGS[i]`` is raised by its baseline or its candidate.
    text : pyarrow.Array of string
        Per row, the flags' names in `FLAGS` order joined by ", " ("" when none).
    takes : dict
        `benchmark_takes` of the diagnosed groups for the rows' benchmarks.
    warmup : Warmup
        The transient `diagnose` found in each diagnosed group.
    """

    bits: np.ndarray
    text: pa.Array
    takes: dict
    warmup: Warmup


def flag_text(bits: np.ndarray) -> pa.Array:
    """The names of the flags of each row, in `FLAGS` order joined by ", ", as an Arrow column.

    Parameters
    ----------
    bits : numpy.ndarray of int
        Per row, bit ``i`` set for ``FLAGS[i]``.

    Returns
    -------
    pyarrow.Array of string
        "" where no bit is set (`fastperf.engine.diagnostics.flag_text`).
    """
    return pa.array(diagnostic_flag_text(bits), pa.string())


def comparison_flags(sequences: Sequences, keys: Sequence[str], variant: str, baseline: Any,
                     candidates: Sequence[Any], benchmarks: pa.Table,
                     thresholds: Thresholds | None = None) -> RowFlags:
    """The flags of each (candidate, benchmark) row: the union of its baseline's and its
    candidate's `diagnose` flags.

    Parameters
    ----------
    sequences : Sequences
        `run_sequences` of the chunk's tested data.
    keys : sequence of str
        The benchmark key columns.
    variant : str
        The variant column.
    baseline, candidates
        The variants compared; the rows are candidate-major (``len(candidates)`` blocks of the
        benchmarks of `benchmarks`).
    benchmarks : pyarrow.Table
        One row per benchmark, in the protocol's order (`benchmark_takes`).
    thresholds : Thresholds, optional
        The flags' thresholds (default: `Thresholds`' defaults).

    Returns
    -------
    RowFlags

    Notes
    -----
    `fastperf.engine.diagnostics.diagnose` of every group, then per row an OR of the bit sets
    of its two groups.
    """
    takes = benchmark_takes(sequences, keys, variant, [baseline, *candidates], benchmarks)
    diagnostics = diagnose(sequences, thresholds or Thresholds(), with_advice=False)
    group_bits = np.append(flag_bits(diagnostics.flags), 0)  # -1: none
    base = group_bits[takes[baseline]]
    bits = np.concatenate([base | group_bits[takes[name]] for name in candidates]) \
        if candidates else np.empty(0, dtype=np.int64)
    return RowFlags(bits.astype(np.int64), flag_text(bits), takes, diagnostics.warmup)


def flag_counts(bits: np.ndarray) -> dict[str, int]:
    """The rows raising each flag.

    Parameters
    ----------
    bits : numpy.ndarray of int
        Per row, the bit set of its flags (`RowFlags.bits`).

    Returns
    -------
    dict
        Flag name -> rows, every flag of `FLAGS` in order (0 included).
    """
    bits = np.asarray(bits, dtype=np.int64)
    return {name: int(np.count_nonzero(bits >> i & 1)) for i, name in enumerate(FLAGS)}


def flags_footer(summary: dict, noun: str = "comparisons") -> str | None:
    """The footer line naming how many rows were flagged and by what, or None when none was.

    Parameters
    ----------
    summary : dict
        A result's summary with ``flags`` (`flag_counts`), ``flagged`` (the rows with any flag)
        and ``flag_rows`` (the rows diagnosed).
    noun : str
        What a row is, plural.

    Returns
    -------
    str or None
        E.g. "3 of 120 comparisons flagged (warmup 2, bimodal 1): `fastperf check` explains
        them".
    """
    counts, flagged = summary.get("flags"), summary.get("flagged", 0)
    if not counts or not flagged:
        return None
    named = ", ".join(f"{name} {count}" for name, count in counts.items() if count)
    return (f"{flagged} of {summary.get('flag_rows', flagged)} {noun} flagged ({named}): "
            "`fastperf check` explains them")


def row_warmup(warmup: Warmup, takes: dict[Any, np.ndarray], baseline: Any,
               candidates: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per (candidate, benchmark) row, the iterations dropped from each process of its
    baseline and of its candidate (0 where no transient was found).

    Parameters
    ----------
    warmup : Warmup
        `find_warmup` of the groups `takes` indexes.
    takes : dict
        `benchmark_takes` of those groups.
    baseline, candidates
        The variants compared (rows candidate-major).

    Returns
    -------
    warmup_baseline, warmup_candidate : numpy.ndarray of int64
    """
    dropped = np.append(warmup.dropped, 0)
    c = len(candidates)
    return (np.tile(dropped[takes[baseline]], c),
            np.concatenate([dropped[takes[name]] for name in candidates]) if c
            else np.empty(0, dtype=np.int64))


def _gather_groups(sequences: Sequences, groups: np.ndarray) -> tuple[Samples, np.ndarray]:
    """The values of the chosen groups (-1: an empty sample) in measurement order, and the CSR
    offsets of their processes into those values."""
    group_offsets = sequences.group_offsets
    chosen = groups >= 0
    safe = np.where(chosen, groups, 0)
    starts = group_offsets[safe]
    # the chosen groups' values one after the other (a copy segment by segment)
    values, offsets, _ = take_segments(sequences.values, group_offsets,
                                       np.ascontiguousarray(groups, dtype=np.int64), False)
    first_process = sequences.group_processes[safe]
    n_processes = np.where(chosen, np.diff(sequences.group_processes)[safe], 0)
    process_offsets = np.concatenate(([0], np.cumsum(n_processes))).astype(np.int64)
    process = (np.repeat(first_process - process_offsets[:-1], n_processes)
               + np.arange(process_offsets[-1], dtype=np.int64))
    process_starts = (sequences.processes[process]
                      - np.repeat(starts - offsets[:-1], n_processes))
    return Samples(values, offsets), np.append(process_starts, offsets[-1]).astype(np.int64)


def group_traces(sequences: Sequences, warmup: Warmup, baseline_groups: np.ndarray,
                 candidate_groups: np.ndarray) -> Traces:
    """The iteration traces of rows whose sides are groups of `sequences`
    (`fastperf.results.figures.Traces`).

    Parameters
    ----------
    sequences : Sequences
        The groups' values as measured (transients included).
    warmup : Warmup
        `find_warmup` of its groups (the found transients are marked).
    baseline_groups, candidate_groups : numpy.ndarray of int64
        Per row, the group of each side (-1: an empty side).

    Returns
    -------
    Traces

    Notes
    -----
    Data plumbing: no formula.
    """
    baseline_values, baseline_processes = _gather_groups(sequences, baseline_groups)
    candidate_values, candidate_processes = _gather_groups(sequences, candidate_groups)
    dropped = np.append(warmup.dropped, 0)  # -1: none
    return Traces(baseline_values, candidate_values, baseline_processes, candidate_processes,
                  dropped[baseline_groups], dropped[candidate_groups])


def comparison_traces(sequences: Sequences, warmup: Warmup, takes: dict[Any, np.ndarray],
                      baseline: Any, candidates: Sequence[Any]) -> Traces:
    """The iteration traces of each (candidate, benchmark) row (`group_traces`).

    Parameters
    ----------
    sequences : Sequences
        `run_sequences` of the chunk as measured (transients included).
    warmup : Warmup
        `find_warmup` of its groups.
    takes : dict
        `benchmark_takes` of its groups for the rows' benchmarks.
    baseline, candidates
        The variants compared (rows candidate-major).

    Returns
    -------
    Traces

    Notes
    -----
    Data plumbing: no formula.
    """
    candidate_groups = (np.concatenate([takes[name] for name in candidates]) if candidates
                        else np.empty(0, dtype=np.int64))
    return group_traces(sequences, warmup, np.tile(takes[baseline], len(candidates)),
                        candidate_groups)


def warmup_warning(groups: int, values: int) -> list[str]:
    """The warning of ``warmup="auto"`` (none when nothing was dropped).

    Parameters
    ----------
    groups : int
        The (benchmark, variant) groups whose transient was dropped.
    values : int
        The values dropped.

    Returns
    -------
    list of str
    """
    if not groups:
        return []
    return [f"warmup='auto' dropped the initial transient of {groups} (benchmark, variant) "
            f"group(s), {values} value(s) in all, before testing (see warmup_baseline / "
            "warmup_candidate; `fastperf check` shows each)"]


def warmup_summary(groups: int, values: int) -> dict:
    """``summary["warmup"]`` of a protocol run with ``warmup="auto"``.

    Parameters
    ----------
    groups, values : int
        As `warmup_warning`.

    Returns
    -------
    dict
        ``{"method": "auto", "groups": groups, "values": values}``.
    """
    return {"method": "auto", "groups": int(groups), "values": int(values)}


def dropped_counts(sequences: Sequences, warmup: Warmup,
                   groups: np.ndarray) -> tuple[int, int]:
    """How many of the chosen groups had a transient dropped, and how many values it held.

    Parameters
    ----------
    sequences : Sequences
        `run_sequences` as measured (transients included).
    warmup : Warmup
        `find_warmup` of its groups.
    groups : numpy.ndarray of int
        The groups counted (-1 entries and repeats ignored).

    Returns
    -------
    groups, values : int

    Notes
    -----
    A group's dropped values are the first ``warmup.iterations`` of each of its processes, as
    `steady_mask` drops them.
    """
    n_groups = sequences.group_processes.size - 1
    chosen = np.zeros(n_groups, dtype=bool)
    chosen[np.unique(groups[groups >= 0])] = True
    chosen &= np.asarray(warmup.found, dtype=bool)
    process_sizes = np.diff(sequences.processes)
    group_of_process = np.repeat(np.arange(n_groups), np.diff(sequences.group_processes))
    dropped = np.where(chosen[group_of_process],
                       np.minimum(process_sizes, np.asarray(warmup.iterations)[group_of_process]),
                       0)
    return int(chosen.sum()), int(dropped.sum())


@dataclass(frozen=True)
class StageFlags:
    """What a protocol's stage adds for the run diagnostics (`stage_flags`).

    Attributes
    ----------
    text : pyarrow.Array of string
        The ``flags`` column.
    warmup_columns : dict
        ``warmup_baseline`` / ``warmup_candidate`` (iterations dropped per process) with
        ``warmup="auto"``, else empty.
    extra : dict
        The stage's extra columns: ``flag_bits``, and with ``warmup="auto"`` the chunk's
        ``warmup_groups`` and ``warmup_values`` in its first row (`finish_flags`).
    traces : Traces or None
        The rows' iteration traces (None for an empty chunk).
    """

    text: pa.Array
    warmup_columns: dict
    extra: dict
    traces: Traces | None


def stage_flags(tested: pa.Table, keys: Sequence[str], variant: str, value: str,
                structure: Structure, baseline: Any, candidates: Sequence[Any],
                benchmarks: pa.Table, warmup: str | None,
                measured: tuple[Sequences, Warmup] | None = None,
                units: Units | None = None, traces: bool = True,
                groups: Groups | None = None, column: np.ndarray | None = None) -> StageFlags:
    """The flags of a chunk's rows, the warm-up dropped from each and their traces.

    Parameters
    ----------
    tested : pyarrow.Table
        The chunk's measurements as tested (after `drop_warmup` with ``warmup="auto"``).
    keys, variant, value, structure
        As `run_sequences`.
    baseline, candidates
        The variants compared (rows candidate-major).
    benchmarks : pyarrow.Table
        The rows' benchmarks in order (`benchmark_takes`).
    warmup : None or "auto"
        The protocol's ``warmup=``.
    measured : tuple, optional
        With ``warmup="auto"``: the `Sequences` and `Warmup` that `drop_warmup` gave.
    units : Units, optional
        `units_of` of `tested` (no second grouping).
    traces : bool
        Whether the traces are wanted (the in-memory run's report).
    groups : Groups, optional
        With a flat structure, `tested`'s rows grouped by (keys, variant) (no second grouping).
    column : numpy.ndarray, optional
        With a flat structure, `tested`'s value column as `value_column` gives it (no second
        conversion).

    Returns
    -------
    StageFlags

    Notes
    -----
    `comparison_flags` of `tested`; the traces are those of the data as measured with their
    transients marked (``warmup="auto"``), else of the data as tested with the transients
    `diagnose` found.
    """
    n_rows = benchmarks.num_rows * len(candidates)
    bits = np.zeros(n_rows, dtype=np.int64)
    text = pa.array([""] * n_rows, pa.string())
    want_traces, traces = traces, None
    if tested.num_rows:
        sequences = run_sequences(tested, keys, variant, value, structure, units,
                                  groups if structure.flat else None,
                                  column if structure.flat else None)
        row_flags = comparison_flags(sequences, keys, variant, baseline, candidates, benchmarks)
        bits, text = row_flags.bits, row_flags.text
        # the traces of the data as tested; with warmup="auto", those as measured (below)
        if want_traces and measured is None:
            traces = comparison_traces(sequences, row_flags.warmup, row_flags.takes, baseline,
                                       candidates)
    extra: dict = {"flag_bits": bits}
    warmup_columns: dict = {}
    if warmup == "auto":
        dropped_groups = dropped_values = 0
        warmup_baseline = warmup_candidate = np.zeros(n_rows, dtype=np.int64)
        if measured is not None:
            measured_sequences, found = measured
            takes = benchmark_takes(measured_sequences, keys, variant,
                                    [baseline, *candidates], benchmarks)
            warmup_baseline, warmup_candidate = row_warmup(found, takes, baseline, candidates)
            dropped_groups, dropped_values = dropped_counts(
                measured_sequences, found, np.concatenate(list(takes.values())))
            if want_traces:
                traces = comparison_traces(measured_sequences, found, takes, baseline,
                                           candidates)
        warmup_columns = {"warmup_baseline": warmup_baseline,
                          "warmup_candidate": warmup_candidate}
        first = np.arange(n_rows) == 0
        extra["warmup_groups"] = np.where(first, dropped_groups, 0).astype(np.int64)
        extra["warmup_values"] = np.where(first, dropped_values, 0).astype(np.int64)
    return StageFlags(text, warmup_columns, extra, traces)


def finish_flags(extra: pa.Table, warmup: str | None) -> tuple[dict, list[str]]:
    """The summary entries and warnings of the run diagnostics over every row of a protocol.

    Parameters
    ----------
    extra : pyarrow.Table
        The stages' extra columns (`stage_flags`).
    warmup : None or "auto"
        The protocol's ``warmup=``.

    Returns
    -------
    summary : dict
        ``flags`` (`flag_counts`), ``flagged`` (rows with any flag), ``flag_rows`` (rows),
        and with ``warmup="auto"`` ``warmup`` (`warmup_summary`).
    warnings : list of str
        `warmup_warning`.
    """
    bits = extra.column("flag_bits").to_numpy(zero_copy_only=False).astype(np.int64)
    summary: dict = {"flags": flag_counts(bits), "flagged": int(np.count_nonzero(bits)),
                     "flag_rows": int(bits.size)}
    warnings: list[str] = []
    if warmup == "auto":
        groups = int(extra.column("warmup_groups").to_numpy(zero_copy_only=False).sum())
        values = int(extra.column("warmup_values").to_numpy(zero_copy_only=False).sum())
        summary["warmup"] = warmup_summary(groups, values)
        warnings = warmup_warning(groups, values)
    return summary, warnings


def with_columns_after(columns: dict, after: str, added: dict) -> dict:
    """`columns` with `added` inserted after the column `after` (in order).

    Parameters
    ----------
    columns : dict
        Name -> column, in output order.
    after : str
        The column after which `added` goes.
    added : dict
        The columns inserted.

    Returns
    -------
    dict
    """
    out = {}
    for name, column in columns.items():
        out[name] = column
        if name == after:
            out.update(added)
    return out
