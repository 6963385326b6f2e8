"""The structure of an experiment: the levels a measurement was taken at, and what inference uses.

Benchmark tools measure in levels: pyperf runs 20 worker processes x 3 values, JMH forks x
iterations. Values of one process share its state (code layout, JIT decisions, frequency), so
the independent unit is the process. A measurement table says so with columns
(docs/data-model.md, docs/nested.md): nested in a variant, outermost first, ``build``
(optional: a recompiled binary), ``process`` (a process, fork, launch or invocation) and
``iteration`` (the values themselves); crossed with the variants, the block ``round`` (both
variants measured in round r, interleaved, so drift affects both alike).

`resolve_structure` decides, from a table's columns and the ``levels=`` / ``block=`` arguments,
the `Structure` used; `units_of` collapses each (benchmark, variant) to its independent units
(`collapse_levels`) and estimates the variance components per level (`variance_components`),
in one grouping pass, vectorised over every group.

The model (Kalibera & Jones 2013, "Rigorous benchmarking in reasonable time", ISMM; its
technical report): with one level, ``y_ij = mu + a_i + e_ij``, process effects
``a_i ~ (0, s2_process)`` and iteration noise ``e_ij ~ (0, s2_iteration)``, independent. The means
of the processes are independent, so a test on them holds its level whatever the variance
components; a test on the pooled values does not (its variance is understated by the design
effect).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.grouping import Groups, group_rows, key_codes
from fastperf.data.samples import VariantSamples, chunk_variant_samples, split_by_variant
from fastperf.errors import InputError
from fastperf.io.tables import require_columns, value_column
from fastperf.kernels.grouping import segment_values, take_segments, take_unit_runs
from fastperf.kernels.moments import segment_means, unit_moments

__all__ = ["NESTED_LEVELS", "ITERATION", "BLOCK", "Structure", "Units",
           "check_structure_arguments", "resolve_structure", "units_of", "collapse_levels",
           "variance_components", "variant_samples_of", "unit_samples_of", "Sequences",
           "run_sequences", "unit_groups", "in_position_order", "in_label_order", "labels_in_order",
           "numeric_column", "POSITION_COLUMNS"]

#: The default nested level columns, outermost first.
NESTED_LEVELS = ("build", "process")
#: The innermost level: the values themselves (its column, when present, is ignored).
ITERATION = "iteration"
#: The default block column (crossed with the variants).
BLOCK = "round"
_NONE = "none"


@dataclass(frozen=True)
class Structure:
    """The structure an analysis uses.

    Attributes
    ----------
    levels : tuple of str
        The nested unit columns, outermost first; empty for none.
    block : str or None
        The block column crossed with the variants, or None.
    """

    levels: tuple[str, ...] = ()
    block: str | None = None

    @property
    def flat(self) -> bool:
        """Whether the values are taken as independent (no level, no block)."""
        return not self.levels and self.block is None

    @property
    def unit(self) -> str | None:
        """The column of the independent unit: the block when there is one, else the outermost
        level (None when flat)."""
        if self.block is not None:
            return self.block
        return self.levels[0] if self.levels else None

    def label(self) -> str:
        """How the structure is reported: ``"flat"``, ``"process"``, ``"build > process"``,
        ``"round"`` (``"round, process"`` with levels inside the rounds; ``"process as rounds"``
        for another block column)."""
        if self.flat:
            return "flat"
        nested = " > ".join(self.levels)
        if self.block is None:
            return nested
        block = self.block if self.block == BLOCK else f"{self.block} as rounds"
        return block + (f", {nested}" if nested else "")


def _names(argument: str, given: Any) -> tuple[str, ...] | None:
    if given is None:
        return None
    if isinstance(given, str):
        given = [] if given == _NONE else [part.strip() for part in given.split(",")]
    if not isinstance(given, (list, tuple)) or not all(isinstance(g, str) and g for g in given):
        raise InputError(f"{argument} must be None, a column name, a list of column names or "
                         f"'none' (the flat analysis), got {given!r}")
    if len(set(given)) != len(given):
        raise InputError(f"{argument} names a column twice: {list(given)!r}")
    return tuple(given)


def check_structure_arguments(levels: str | Sequence[str] | None,
                              block: str | None) -> tuple[tuple[str, ...] | None, str | None]:
    """Check the ``levels=`` and ``block=`` arguments of an inferential function.

    Parameters
    ----------
    levels : None, str or sequence of str
        The nested level columns, outermost first (a string may list them with commas); None:
        the default levels (`NESTED_LEVELS`) the table has; ``[]`` or ``"none"``: none (the
        flat analysis). ``"iteration"`` may close the list: it names the values' own level and
        is ignored.
    block : None or str
        The block column; None: ``round`` when the table has it (unless ``levels=[]``);
        ``"none"``: no block.

    Returns
    -------
    levels : tuple of str or None
    block : str or None
        As given: a column name, ``"none"`` or None.

    Raises
    ------
    InputError
        Another type, an empty name or a name listed twice, naming the argument.

    Notes
    -----
    Argument plumbing: no formula.
    """
    names = _names("levels", levels)
    if names is not None and ITERATION in names:
        if names[-1] != ITERATION or names.count(ITERATION) != 1:
            raise InputError(f"levels lists {ITERATION!r} only last (the innermost level), "
                             f"got {list(names)!r}")
        names = names[:-1]
    if block is not None and not isinstance(block, str):
        raise InputError(f"block must be None, a column name or 'none', got {block!r}")
    if block == "":
        raise InputError("block must be None, a column name or 'none', got ''")
    return names, block


def resolve_structure(names: Sequence[str], levels: str | Sequence[str] | None = None,
                      block: str | None = None, *, taken: Sequence[str] = ()) -> Structure:
    """The `Structure` an analysis of a table with columns `names` uses.

    Parameters
    ----------
    names : sequence of str
        The table's column names (a plan's key table has them all).
    levels, block
        As `check_structure_arguments`.
    taken : sequence of str
        Columns the call uses otherwise (its keys, variant, value): a default level or block
        among them is not one.

    Returns
    -------
    Structure

    Raises
    ------
    InputError
        A level or block named explicitly that the table lacks, or one that is also a key.

    Notes
    -----
    The defaults: the `NESTED_LEVELS` and `BLOCK` columns present. Nothing is guessed
    silently: every result says the structure it used (``summary["structure"]``).
    """
    level_names, block_name = check_structure_arguments(levels, block)
    present = set(names)
    taken = {name for name in taken if isinstance(name, str)}  # the callers check the rest
    if level_names is None:
        # a default level named as the block is the block (files of two interleaved variants:
        # invocation k of each, `process` k, ran in round k)
        level_names = tuple(c for c in NESTED_LEVELS
                            if c in present and c not in taken and c != block_name)
        explicit_flat = False
    else:
        explicit_flat = not level_names
        require_columns_named(present, level_names, "levels")
    if block_name is None:
        block_name = BLOCK if (BLOCK in present and BLOCK not in taken
                               and not explicit_flat) else None
    elif block_name == _NONE:
        block_name = None
    else:
        require_columns_named(present, (block_name,), "block")
    clash = [c for c in (*level_names, *([block_name] if block_name else [])) if c in taken]
    if clash:
        raise InputError(f"column(s) {clash} cannot be both a level of the design and a key, "
                         "the variant or the value")
    if block_name is not None and block_name in level_names:
        raise InputError(f"{block_name!r} cannot be both a level and the block")
    return Structure(tuple(level_names), block_name)


def require_columns_named(present: set, wanted: Sequence[str], argument: str) -> None:
    """An `InputError` naming `argument` and the first of `wanted` not in `present`.

    Parameters
    ----------
    present : set of str
        The table's columns.
    wanted : sequence of str
        The columns named by the argument.
    argument : str
        ``"levels"`` or ``"block"``.

    Notes
    -----
    Argument plumbing: no formula.
    """
    for name in wanted:
        if name not in present:
            raise InputError(f"{argument} names column {name!r}, which the table lacks "
                             f"(columns: {sorted(present)})")


@dataclass(frozen=True)
class Units:
    """A table collapsed to its independent units, and its variance components.

    Attributes
    ----------
    table : pyarrow.Table
        `collapse_levels`: one row per unit.
    components : pyarrow.Table
        `variance_components`: one row per (keys, variant) group.
    values : numpy.ndarray
        The values the units were read from (float64, NaN: missing): the measurement table's
        value column where each unit is one run of its rows (``unit_rows.order`` None), else
        that column gathered into the order of `unit_rows`.
    unit_starts : numpy.ndarray of int64
        Where each unit of `unit_rows` starts in `values` (its values one run there).
    unit_rows : Groups
        The measurement table's rows grouped into the innermost units (the block's cells, else
        the innermost level's): each (keys, variant) group's units contiguous, in the order they
        first appear among its rows.
    group_units : numpy.ndarray of int64
        CSR offsets: (keys, variant) group ``g`` (row ``g`` of `components`) owns the groups
        ``group_units[g]:group_units[g + 1]`` of `unit_rows`.
    group_table_rows : numpy.ndarray of int64
        CSR offsets: group ``g`` owns the rows ``group_table_rows[g]:group_table_rows[g + 1]``
        of `table`.
    """

    table: pa.Table
    components: pa.Table
    values: np.ndarray
    unit_starts: np.ndarray
    unit_rows: Groups
    group_units: np.ndarray
    group_table_rows: np.ndarray


def _segment_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of each CSR segment (segments are never empty here)."""
    if values.size == 0:
        return np.zeros(offsets.size - 1)
    return np.add.reduceat(values, offsets[:-1])


def units_of(table: pa.Table, keys: Sequence[str], variant: str | None, value: str,
             structure: Structure, also: Mapping[str, np.ndarray] | None = None) -> Units:
    """Collapse every (keys, variant) group to its independent units and estimate its variance
    components, in one grouping pass.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table (complete groups).
    keys : sequence of str
        The benchmark key columns.
    variant : str or None
        The variant column.
    value : str
        The value column (null/NaN values are left out).
    structure : Structure
        Not flat.
    also : mapping name -> numpy.ndarray, optional
        Further per-row float64 columns (one entry per row of `table`, NaN: missing) whose
        unit means the unit table gets too, under those names (from the same grouping).

    Returns
    -------
    Units

    Raises
    ------
    InputError
        A missing column; a flat structure.

    Notes
    -----
    See `collapse_levels` and `variance_components`.
    """
    if structure.flat:
        raise InputError("units_of needs a structure with a level or a block")
    outer = [*keys, *([variant] if variant is not None else [])]
    unit_levels, groups, parent, parent_offsets, parent_keys, build = unit_groups(
        table, keys, variant, value, structure)
    column = value_column(table, value)
    # each unit one run of rows (the usual case): its values read in place, else gathered
    if groups.order is None:
        values, starts = column, groups.first_row
    else:
        values, starts = groups.gather(column), groups.offsets[:-1]
    # each (keys, variant) group's components on the log scale when its values are all > 0
    # (a value <= 0 has no log), else on the values
    n_inner, mean_inner, mean_c, ss_c, log_scale = unit_moments(
        values, starts, groups.offsets, parent_offsets, n_rows=values.shape[0])

    if build is not None:
        build_starts = np.flatnonzero(np.concatenate(([True], build[1:] != build[:-1])))
        build_offsets = np.append(build_starts, build.size).astype(np.int64)
        components = _two_level(n_inner, mean_c, ss_c, build_offsets, parent_offsets,
                                build_starts.size)
        unit_offsets = groups.offsets[build_offsets]
        gathered = groups.gather(column)
        unit_n, unit_mean = segment_means(gathered, unit_offsets, n_rows=gathered.shape[0])
        unit_keys = groups.keys.select(list(range(len(outer) + 1))).take(build_starts)
        table_rows = np.searchsorted(parent[build_starts], np.arange(parent_offsets.size))
    else:
        components = _one_level(n_inner, mean_c, ss_c, parent_offsets)
        unit_offsets = groups.offsets
        unit_n, unit_mean = n_inner, mean_inner
        unit_keys = groups.keys
        table_rows = parent_offsets

    unit_table = unit_keys.append_column(value, pa.array(unit_mean, pa.float64(),
                                                         mask=unit_n == 0))
    unit_table = unit_table.append_column("n_values", pa.array(unit_n.astype(np.int64)))
    for name, column in (also or {}).items():
        gathered = groups.gather(np.asarray(column, dtype=np.float64))
        count, mean = segment_means(gathered, unit_offsets, n_rows=gathered.shape[0])
        unit_table = unit_table.append_column(name, pa.array(mean, pa.float64(),
                                                             mask=count == 0))
    level_names = unit_levels if structure.block is None else [structure.block]
    sigma2, within = components["sigma2"], components["within"]
    columns = {"n_units": components["n_units"], "n_values": components["n_values"]}
    for name, level_sigma2 in zip(level_names, sigma2):
        columns[f"sigma2_{name}"] = level_sigma2
    columns["sigma2_iteration"] = within
    between = np.sum(sigma2, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = between + within
        icc = np.where(total > 0, between / total, np.where(total == 0, 0.0, np.nan))
    columns.update({"sigma2_between": between, "sigma2_within": within, "icc": icc,
                    "design_effect": components["design_effect"]})
    with np.errstate(invalid="ignore", divide="ignore"):
        columns["n_effective"] = components["n_values"] / components["design_effect"]
    comp = parent_keys
    for name, column in columns.items():
        comp = comp.append_column(name, pa.array(column))
    comp = comp.append_column("scale", pa.array(["linear", "log"], pa.string()).take(
        log_scale.astype(np.int8)))
    return Units(unit_table, comp, values, starts, groups, parent_offsets.astype(np.int64),
                 table_rows.astype(np.int64))


def _check_known_ids(ids: pa.ChunkedArray, name: str, parent: np.ndarray,
                     parent_offsets: np.ndarray, parent_keys: pa.Table) -> None:
    """An `InputError` where a group mixes units of known ids (`ids`: one a unit) with ones
    whose `name` is null or NaN, pooled as one unit; per group, counted in this column only
    (another level's ids alone make several units). A group without ids is one unit."""
    ids = ids.cast(ids.type.value_type) if pa.types.is_dictionary(ids.type) else ids
    unknown = ids.is_null().to_numpy(zero_copy_only=False)
    if pa.types.is_floating(ids.type):
        unknown |= np.isnan(ids.to_numpy(zero_copy_only=False).astype(np.float64))
    unknown_units = np.bincount(parent, weights=unknown, minlength=parent_offsets.size - 1)
    mixed = np.flatnonzero((unknown_units > 0) & (unknown_units < np.diff(parent_offsets)))
    if mixed.size:
        raise InputError(f"column {name!r} leaves the {name} of some values unknown (null or "
                         f"NaN) in a group whose other values have one, e.g. "
                         f"{parent_keys.slice(int(mixed[0]), 1).to_pylist()[0]}: they would be "
                         f"pooled as one {name}; drop those rows or give them ids")


def unit_groups(table: pa.Table, keys: Sequence[str], variant: str | None, value: str,
                structure: Structure) -> tuple:
    """The grouping `units_of` starts from: the rows grouped into the innermost units, each
    (keys, variant) group's units in the order they first appear among its rows.

    Parameters
    ----------
    table, keys, variant, value, structure
        As `units_of` (a structure that is not flat).

    Returns
    -------
    tuple
        ``(unit_levels, groups, parent, parent_offsets, parent_keys, build)``: the unit
        columns; the `Groups` of the units; per unit its (keys, variant) group; the CSR
        offsets of each group's units; one row of keys (and variant) per group; per unit its
        build with two levels, else None.

    Raises
    ------
    InputError
        A missing column.

    Notes
    -----
    Data plumbing: no formula.
    """
    outer = [*keys, *([variant] if variant is not None else [])]
    # the innermost grouping: the block's cells, else every nested level (the variance
    # components need each); the collapse takes the outermost unit
    if structure.block is not None:
        unit_levels = [structure.block]
    else:
        unit_levels = list(structure.levels)
    require_columns(table, [*outer, *unit_levels, value])
    groups = group_rows(table, [*outer, *unit_levels])
    # the groups are in key order: a (keys, variant) group's units are contiguous, and so are
    # a build's processes
    parent = _parent_ids(groups.keys, len(outer))
    two_levels = structure.block is None and len(unit_levels) == 2
    build = _parent_ids(groups.keys, len(outer) + 1) if two_levels else None
    groups, build = _in_appearance_order(groups, parent, build)
    parent_offsets = np.searchsorted(parent, np.arange((parent[-1] + 2) if parent.size else 1))
    parent_keys = groups.keys.select(list(range(len(outer)))).take(parent_offsets[:-1])
    for i, name in enumerate(unit_levels):
        _check_known_ids(groups.keys.column(len(outer) + i), name, parent, parent_offsets,
                         parent_keys)
    return unit_levels, groups, parent, parent_offsets, parent_keys, build


def variant_samples_of(units: Units, table: pa.Table, variants: Sequence[Any],
                       keys: list[str], variant: str, value: str) -> VariantSamples:
    """`fastperf.data.samples.chunk_variant_samples` of the measurement table, from the grouping
    of its rows that `units_of` made (no second grouping).

    Parameters
    ----------
    units : Units
        `units_of` of `table` with these `keys`, `variant` and `value`.
    table : pyarrow.Table
        The measurement table.
    variants : sequence
        The variants wanted.
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.

    Returns
    -------
    VariantSamples
        As `chunk_variant_samples`, each sample in the table's row order; `chunk_variant_samples`
        itself where the units do not give that order (a unit whose rows are not one run of the
        table) and where a value is infinite (its error says so).

    Notes
    -----
    Data plumbing: no formula.
    """
    unit_rows = units.unit_rows
    if unit_rows.order is not None or np.isinf(units.values).any():
        return chunk_variant_samples(table, variants, keys, variant, value)
    # each unit one run of rows, a group's units in the order they appear: the group's values
    # in row order; the group is one run of rows where its units follow one another
    first = unit_rows.first_row[units.group_units[:-1]]
    follows = unit_rows.first_row[1:] == unit_rows.first_row[:-1] + unit_rows.sizes[:-1]
    follows[units.group_units[1:-1] - 1] = True  # a group's last unit and the next's first
    order = None if follows.all() else unit_rows.row_order()
    groups = Groups(units.components.select([*keys, variant]),
                    unit_rows.offsets[units.group_units], first, order)
    counts = units.components.column("n_values").to_numpy()
    return split_by_variant(groups, lambda take: take_unit_runs(
        units.values, units.unit_starts, unit_rows.offsets, units.group_units, counts, take),
        table, variants, keys, variant)


def unit_samples_of(units: Units, variants: Sequence[Any], keys: list[str], variant: str,
                    value: str) -> VariantSamples:
    """`fastperf.data.samples.chunk_variant_samples` of the unit table (``units.table``), from
    its (keys, variant) groups (no grouping).

    Parameters
    ----------
    units : Units
        `units_of` with these `keys`, `variant` and `value`.
    variants : sequence
        The variants wanted.
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.

    Returns
    -------
    VariantSamples
        The unit means of each benchmark and variant (a unit without values left out).

    Notes
    -----
    Data plumbing: no formula.
    """
    means = value_column(units.table, value)
    if np.isinf(means).any():  # chunk_variant_samples says so
        return chunk_variant_samples(units.table, variants, keys, variant, value)
    offsets = units.group_table_rows
    groups = Groups(units.components.select([*keys, variant]), offsets, offsets[:-1], None)
    return split_by_variant(groups, lambda take: take_segments(means, offsets, take, True),
                            units.table, variants, keys, variant)


def _parent_ids(keys: pa.Table, n_outer: int) -> np.ndarray:
    """The (keys, variant) group of each unit of `keys` (one row per unit, in key order): an
    id that grows by one where one of the first `n_outer` key columns changes."""
    changed = np.zeros(keys.num_rows, dtype=bool)
    if keys.num_rows > 1:
        for i in range(n_outer):
            code = key_codes(keys.column(i), keys.column_names[i])[0]
            changed[1:] |= code[1:] != code[:-1]
    return np.cumsum(changed)


def _in_appearance_order(groups: Groups, parent: np.ndarray,
                         build: np.ndarray | None) -> tuple[Groups, np.ndarray | None]:
    """`groups` with the units of each (keys, variant) group in the order they first appear
    among its rows (with builds, `build` the build of each unit: the builds so, and the
    processes so within each build), and `build` in that order.

    The grouper orders units by their labels' first appearance in the whole table, which a
    chunk of the table may not share; the order of appearance within a group is the same in
    every chunk, so the sums over units, and every result, are too (`fastperf.data.chunked`).
    """
    if groups.n_groups < 2:
        return groups, build
    first = groups.first_row
    later = (np.diff(first) < 0) & (np.diff(parent) == 0)
    sort_keys = (first, parent)
    if build is not None:  # a build's processes are contiguous: the builds by their first row
        starts = np.flatnonzero(np.concatenate(([True], build[1:] != build[:-1])))
        build_first = np.minimum.reduceat(first, starts)[build]
        later = (((np.diff(build_first) < 0) | ((np.diff(first) < 0) & (np.diff(build) == 0)))
                 & (np.diff(parent) == 0))
        sort_keys = (first, build_first, parent)
    if not later.any():
        return groups, build  # already so (the usual case: a tool writes processes in order)
    order = np.lexsort(sort_keys)
    sizes = groups.sizes[order]
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    # the rows of each unit, in its new place: a row order for `gather`
    starts = groups.offsets[:-1][order]
    rows = groups.row_order()[np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])]
    return (Groups(groups.keys.take(order), offsets, first[order], rows),
            None if build is None else build[order])


def _one_level(n: np.ndarray, mean: np.ndarray, ss: np.ndarray,
               parent_offsets: np.ndarray) -> dict[str, Any]:
    """One-way random-effects ANOVA (moment) estimators per parent group, unbalanced.

    ``MSW = SSW / (N - a)``, ``MSB = sum n_i (m_i - m)^2 / (a - 1)``,
    ``n0 = (N - sum n_i^2 / N) / (a - 1)``, ``s2_unit = max(0, (MSB - MSW) / n0)``
    (Searle, Casella & McCulloch 1992, Variance Components, section 3.5).
    """
    has = n > 0
    every = bool(has.all())  # every unit has a value (the usual case): nothing to mask

    def of_units(per_unit: np.ndarray) -> np.ndarray:
        return per_unit if every else np.where(has, per_unit, 0.0)

    sizes = np.diff(parent_offsets)
    units = (sizes.astype(np.float64) if every
             else _segment_sums(has.astype(np.float64), parent_offsets))
    total_n = _segment_sums(n, parent_offsets)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # past float64: NaN
        grand = _segment_sums(of_units(n * mean), parent_offsets) / total_n
        spread = of_units(n * (mean - np.repeat(grand, sizes)) ** 2)
        ssb = _segment_sums(spread, parent_offsets)
        ssw = _segment_sums(of_units(ss), parent_offsets)
        sum_n2 = _segment_sums(n * n, parent_offsets)
        msw = ssw / (total_n - units)
        msb = ssb / (units - 1)
        n0 = (total_n - sum_n2 / total_n) / (units - 1)
        unit_var = np.maximum((msb - msw) / n0, 0.0)
        unit_var = np.where((units >= 2) & (total_n > units), unit_var, np.nan)
        msw = np.where(total_n > units, msw, np.nan)
        total = unit_var + msw
        design = np.where(total > 0, (msw * total_n + unit_var * sum_n2) / (total_n * total),
                          np.where(total == 0, 1.0, np.nan))
        # units of one value each: independent draws, whatever the (then unknowable) ICC
        design = np.where((sum_n2 == total_n) & (total_n > 0), 1.0, design)
    return {"n_units": units.astype(np.int64), "n_values": total_n.astype(np.int64),
            "sigma2": [unit_var], "within": msw, "design_effect": design}


def _two_level(n: np.ndarray, mean: np.ndarray, ss: np.ndarray, build_offsets: np.ndarray,
               parent_offsets: np.ndarray, n_builds: int) -> dict[str, Any]:
    """Nested (hierarchical) random-effects ANOVA estimators per parent group, unbalanced:
    builds (a), processes within builds (b), values within processes.

    ``E[MSE] = s2_e``, ``E[MSB(A)] = s2_e + k1 s2_b``, ``E[MSA] = s2_e + k2 s2_b + k3 s2_a`` with
    ``k1 = (N - sum_ij n_ij^2 / n_i) / (b - a)``, ``k2 = (sum_ij n_ij^2 / n_i - sum_ij n_ij^2 / N)
    / (a - 1)``, ``k3 = (N - sum_i n_i^2 / N) / (a - 1)`` (Searle, Casella & McCulloch 1992,
    section 5.4; Sokal & Rohlf, Biometry, unequal-n nested ANOVA). Estimates are truncated at 0.
    """
    has = n > 0
    # the processes' parent build, the builds' parent group
    process_sizes = np.diff(build_offsets)  # processes per build
    build_n = _segment_sums(n, build_offsets)
    with np.errstate(invalid="ignore", divide="ignore"):
        build_mean = _segment_sums(np.where(has, n * mean, 0.0), build_offsets) / build_n
    # the parent group of each build: builds are contiguous within parents
    build_start = build_offsets[:-1]
    group_of_process = np.repeat(np.arange(parent_offsets.size - 1), np.diff(parent_offsets))
    group_of_build = group_of_process[build_start]
    group_build_offsets = np.searchsorted(group_of_build, np.arange(parent_offsets.size),
                                          side="left").astype(np.int64)
    a = _segment_sums(np.ones(n_builds), group_build_offsets)
    b = _segment_sums(has.astype(np.float64), parent_offsets)
    total_n = _segment_sums(build_n, group_build_offsets)
    with np.errstate(invalid="ignore", divide="ignore"):
        grand = _segment_sums(build_n * np.nan_to_num(build_mean), group_build_offsets) / total_n
        sse = _segment_sums(np.where(has, ss, 0.0), parent_offsets)
        spread_b = np.where(has, n * (mean - np.repeat(build_mean, process_sizes)) ** 2, 0.0)
        ssb = _segment_sums(spread_b, parent_offsets)
        spread_a = build_n * (np.nan_to_num(build_mean)
                              - np.repeat(grand, np.diff(group_build_offsets))) ** 2
        ssa = _segment_sums(spread_a, group_build_offsets)
        n2_over_build = np.where(has, n * n / np.repeat(build_n, process_sizes), 0.0)
        s_ij = _segment_sums(n2_over_build, parent_offsets)
        sum_nij2 = _segment_sums(n * n, parent_offsets)
        sum_ni2 = _segment_sums(build_n * build_n, group_build_offsets)
        mse = sse / (total_n - b)
        msb = ssb / (b - a)
        msa = ssa / (a - 1)
        k1 = (total_n - s_ij) / (b - a)
        k2 = (s_ij - sum_nij2 / total_n) / (a - 1)
        k3 = (total_n - sum_ni2 / total_n) / (a - 1)
        var_b = np.maximum((msb - mse) / k1, 0.0)
        var_a = np.maximum((msa - mse - k2 * var_b) / k3, 0.0)
        var_b = np.where(b > a, var_b, np.nan)
        var_a = np.where(a >= 2, var_a, np.nan)
        mse = np.where(total_n > b, mse, np.nan)
        total = var_a + var_b + mse
        design = np.where(total > 0, (mse * total_n + var_b * sum_nij2 + var_a * sum_ni2)
                          / (total_n * total), np.where(total == 0, 1.0, np.nan))
        # top-level units of one value each: independent draws, whatever the components
        design = np.where((sum_ni2 == total_n) & (total_n > 0), 1.0, design)
    return {"n_units": a.astype(np.int64), "n_values": total_n.astype(np.int64),
            "sigma2": [var_a, var_b], "within": mse, "design_effect": design}


def collapse_levels(table: pa.Table, keys: Sequence[str], variant: str | None, value: str,
                    structure: Structure) -> pa.Table:
    """One row per independent unit of each (keys, variant) group.

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
        The structure (`resolve_structure`).

    Returns
    -------
    pyarrow.Table
        A flat structure: `table` itself. Else the keys, the variant, the unit column(s)
        (the outermost level, or the block: a block keeps its name, so paired code pairs on
        it), `value` = the unit's arithmetic mean of its non-null values (null when it has
        none) and ``n_values`` (int64), in group order.

    Notes
    -----
    The means of independent units are independent, so any test on them holds its level under
    the random-effects model whatever the variance components (Kalibera & Jones 2013,
    section 3).
    """
    if structure.flat:
        return table
    return units_of(table, keys, variant, value, structure).table


def variance_components(table: pa.Table, keys: Sequence[str], variant: str | None, value: str,
                        structure: Structure) -> pa.Table:
    """The variance components of each (keys, variant) group, per level.

    Parameters
    ----------
    table, keys, variant, value, structure
        As `collapse_levels` (a structure that is not flat).

    Returns
    -------
    pyarrow.Table
        One row per group, in group order: the keys and variant, ``n_units``, ``n_values``,
        ``sigma2_<level>`` per level (the block's name with a block), ``sigma2_iteration``,
        ``sigma2_between`` (their sum over the levels), ``sigma2_within`` (=
        ``sigma2_iteration``), ``icc`` (between / (between + within)), ``design_effect`` (the
        variance of the grand mean over its value under independence) and ``n_effective``
        (``n_values / design_effect``), and ``scale`` (``"log"`` when every value of the group
        is > 0, the scale they are computed on, else ``"linear"``).

    Notes
    -----
    ANOVA (moment) estimators for unbalanced data, truncated at 0 (Searle, Casella &
    McCulloch 1992): on balanced data they equal REML wherever REML's estimate is inside the
    parameter space. The design effect of the grand mean is
    ``(s2_e N + s2_p sum n_ij^2 + s2_b sum n_i^2) / (N (s2_e + s2_p + s2_b))`` (Kish 1965);
    with one level ``1 + (sum n_i^2 / N - 1) icc``. Units of one value each (``sum n_i^2 = N``)
    have a design effect of 1 exactly, though their components cannot be told apart (NaN).
    """
    return units_of(table, keys, variant, value, structure).components


@dataclass(frozen=True)
class Sequences:
    """Every (keys, variant) group's values in the order they were measured, cut into its
    processes: what the run diagnostics read (`fastperf.engine.diagnostics`).

    Attributes
    ----------
    keys : pyarrow.Table
        One row per group: the key columns and the variant column.
    values : numpy.ndarray
        float64, null/NaN values left out: group by group, a group's processes in the order of
        their numeric labels (one level or a block; else, or with labels that are not numbers,
        in the order they first appear among its rows), each process's values in the order of
        the table's
        ``iteration`` column (without levels: its ``run`` column) when it has a numeric one,
        else in row order.
    rows : numpy.ndarray of int64
        The measurement table's row of each entry of `values`.
    processes : numpy.ndarray of int64
        CSR offsets into `values`, one segment per process (the innermost unit: a process, or a
        round's cell with a block); without levels each group is one segment, its runs in row
        order. A segment may be empty (a process whose values are all null).
    group_processes : numpy.ndarray of int64
        CSR offsets into the segments: group ``g`` owns processes
        ``group_processes[g]:group_processes[g + 1]``.
    n_dropped : numpy.ndarray of int64
        Per group, the null/NaN values left out.
    nested : bool
        Whether the segments are processes (False: each is a group's runs, taken as independent).
    """

    keys: pa.Table
    values: np.ndarray
    rows: np.ndarray
    processes: np.ndarray
    group_processes: np.ndarray
    n_dropped: np.ndarray
    nested: bool

    @property
    def group_offsets(self) -> np.ndarray:
        """CSR offsets into `values`, one segment per group.

        Returns
        -------
        numpy.ndarray of int64
            ``processes[group_processes]``.

        Notes
        -----
        CSR bookkeeping: no formula.
        """
        return self.processes[self.group_processes]


def run_sequences(table: pa.Table, keys: Sequence[str], variant: str | None, value: str,
                  structure: Structure, units: Units | None = None,
                  groups: Groups | None = None, column: np.ndarray | None = None) -> Sequences:
    """The `Sequences` of a measurement table: each (keys, variant) group's values in measurement
    order, cut into its processes.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table (complete groups).
    keys : sequence of str
        The benchmark key columns.
    variant : str or None
        The variant column.
    value : str
        The value column (null/NaN values are left out and counted).
    structure : Structure
        The structure (`resolve_structure`): flat, each group is one sequence of runs; else the
        segments are the innermost units (`units_of`).
    units : Units, optional
        `units_of` of this table with these arguments, when the caller has it (no second
        grouping).
    groups : Groups, optional
        Without levels: the table's rows grouped by keys and variant
        (`fastperf.data.grouping.group_rows`), when the caller has them (no second grouping).
    column : numpy.ndarray, optional
        ``value_column(table, value)``, when the caller has it (no second conversion).

    Returns
    -------
    Sequences

    Raises
    ------
    InputError
        A missing or non-numeric column.

    Notes
    -----
    Data plumbing: no formula. The groups are those of `units_of` (its ``components`` rows), and
    of `fastperf.data.grouping.group_rows` over keys and variant without levels.
    """
    outer = [*keys, *([variant] if variant is not None else [])]
    if structure.flat:
        require_columns(table, [*outer, value])
        if groups is None:
            groups = group_rows(table, outer)
        group_keys, rows = groups.keys, groups
        group_processes = np.arange(groups.n_groups + 1, dtype=np.int64)
    elif units is not None:
        group_keys, rows = units.components.select(outer), units.unit_rows
        group_processes = units.group_units.astype(np.int64)
    else:  # the grouping into units only: no moments
        _, rows, _, parent_offsets, group_keys, _ = unit_groups(table, keys, variant, value,
                                                                structure)
        group_processes = parent_offsets.astype(np.int64)
    # the segments' rows: `order` (empty: each segment is one run of rows from `starts`)
    offsets = rows.offsets.astype(np.int64)
    order = rows.order if rows.order is not None else np.empty(0, dtype=np.int64)
    starts = rows.first_row.astype(np.int64)
    if not structure.flat:
        # one level (or a block): the processes in the order of their numeric labels
        label = structure.block if structure.block is not None else structure.levels[-1]
        if len(structure.levels) <= 1 and numeric_column(table, label) and offsets.size > 2:
            labels = value_column(table, label, label)
            # the processes' first rows tell whether any moves (the usual case: none)
            first_rows = order[offsets[:-1]] if order.size else starts
            if not labels_in_order(labels[first_rows], group_processes):
                order, offsets = in_label_order(rows.row_order(), offsets, group_processes,
                                                labels)
    position_name = POSITION_COLUMNS[not structure.flat]
    position = np.empty(0, dtype=np.float64)
    if (position_name not in outer and position_name != value
            and numeric_column(table, position_name)):
        position = value_column(table, position_name, position_name)
    if column is None:
        column = value_column(table, value)
    # the values gathered segment by segment, NaN left out, checking the positions' order on
    # the way (the usual case: one pass); out of order, each segment's rows sorted first
    values, row_of_value, processes, in_order = segment_values(
        column, order, starts, offsets, position)
    if not in_order:
        row_order = order if order.size else np.repeat(starts - offsets[:-1], np.diff(
            offsets)) + np.arange(offsets[-1], dtype=np.int64)
        order = in_position_order(row_order, offsets, position)
        values, row_of_value, processes, _ = segment_values(
            column, order, starts, offsets, np.empty(0, dtype=np.float64))
    group_sizes = np.diff(offsets[group_processes])
    n_dropped = group_sizes - np.diff(processes[group_processes])
    return Sequences(group_keys, values, row_of_value, processes, group_processes,
                     n_dropped.astype(np.int64), not structure.flat)


#: The column that numbers the values in measurement order, by whether the table has levels:
#: within a process its ``iteration``; without levels a group's ``run``.
POSITION_COLUMNS = {True: ITERATION, False: "run"}


def in_position_order(row_order: np.ndarray, offsets: np.ndarray,
                      position: np.ndarray) -> np.ndarray:
    """`row_order` with each segment's rows sorted by `position` (ties and NaN: in row order,
    NaN last).

    Parameters
    ----------
    row_order : numpy.ndarray of int64
        Table rows, segment by segment.
    offsets : numpy.ndarray of int64
        The segments' CSR offsets into `row_order`.
    position : numpy.ndarray of float64
        Per table row, its number in measurement order (NaN: not given).

    Returns
    -------
    numpy.ndarray of int64
        `row_order` itself where every segment is already in order (the usual case: one pass),
        else a stable sort of each segment by position.

    Notes
    -----
    Data plumbing: no formula.
    """
    ordered = position[row_order]
    if ordered.size < 2:
        return row_order
    segment = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    same = segment[1:] == segment[:-1]
    steps = ordered[1:] >= ordered[:-1]
    nan_after = np.isnan(ordered[1:])  # a NaN after anything keeps the order
    if np.all(steps | nan_after | ~same):
        return row_order
    return row_order[np.lexsort((np.where(np.isnan(ordered), np.inf, ordered), segment))]


def numeric_column(table: pa.Table, name: str) -> bool:
    """Whether `table` has a column `name` of integers or floats.

    Parameters
    ----------
    table : pyarrow.Table
    name : str

    Returns
    -------
    bool

    Notes
    -----
    No formula.
    """
    if name not in table.column_names:
        return False
    kind = table.schema.field(name).type
    return pa.types.is_integer(kind) or pa.types.is_floating(kind)


def labels_in_order(first: np.ndarray, group_processes: np.ndarray) -> bool:
    """Whether every group's processes are in the order of their labels already (each label at
    least the one before it in its group, or NaN).

    Parameters
    ----------
    first : numpy.ndarray of float64
        Each process's label.
    group_processes : numpy.ndarray of int64
        CSR offsets: the processes of each group.

    Returns
    -------
    bool

    Notes
    -----
    Data plumbing: no formula.
    """
    if first.size < 2:
        return True
    group = np.repeat(np.arange(group_processes.size - 1), np.diff(group_processes))
    same = group[1:] == group[:-1]
    return bool(np.all((first[1:] >= first[:-1]) | np.isnan(first[1:]) | ~same))


def in_label_order(row_order: np.ndarray, offsets: np.ndarray, group_processes: np.ndarray,
                   label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The processes of each group sorted by their numeric label (ties and NaN: in the order
    they appear, NaN last).

    Parameters
    ----------
    row_order : numpy.ndarray of int64
        Table rows, process by process.
    offsets : numpy.ndarray of int64
        The processes' CSR offsets into `row_order` (none empty).
    group_processes : numpy.ndarray of int64
        CSR offsets: the processes of each group.
    label : numpy.ndarray of float64
        Per table row, its process's label.

    Returns
    -------
    row_order, offsets : numpy.ndarray of int64
        Themselves where every group's processes are already in order, else the processes
        moved into order.

    Notes
    -----
    Data plumbing: no formula.
    """
    n_processes = offsets.size - 1
    if n_processes < 2:
        return row_order, offsets
    first = label[row_order[offsets[:-1]]]
    if labels_in_order(first, group_processes):
        return row_order, offsets
    group = np.repeat(np.arange(group_processes.size - 1), np.diff(group_processes))
    order = np.lexsort((np.where(np.isnan(first), np.inf, first), group))
    sizes = np.diff(offsets)[order]
    moved = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    index = np.repeat(offsets[:-1][order] - moved[:-1], sizes) + np.arange(moved[-1])
    return row_order[index], moved
