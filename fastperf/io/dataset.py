"""Lazy measurement tables: Parquet, IPC or CSV datasets read in group-complete chunks.

`fastperf.read(source, lazy=True)` (or a directory or glob, which are lazy by default) returns
a `Dataset`. Nothing is read until a function uses it. A function then plans from the key
table, and one scan of the label columns gives, in a single Arrow ``group_by`` per batch, the
distinct key combinations, each column's first-appearance order and the rows of every
partition key; the rows are then split into *chunks*, each holding every row of its groups,
each small enough for the memory limit: one more scan writes each row to its chunk's Arrow IPC
file in a temporary folder (an external hash-partition pass), and the chunks are read back
one after the other. See `fastperf.data.chunked` for how the functions use them and docs/scale.md
for the memory model.

The engine is Arrow's own dataset scanner (`pyarrow.dataset`): it reads Parquet, IPC and CSV
datasets, directories, globs and hive partitions, in file and row order, with bounded memory
(one batch at a time), and it is already a dependency. Order matters: an in-memory run groups
rows in their first-appearance order and keeps each group's rows in input order (paired tests
match runs by it), and a chunked run must give the same table, which a scanner that yields
batches in order gives by construction.
"""
from __future__ import annotations

import copy
import math
import os
import tempfile
from typing import Any, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from fastperf.errors import InputError
from fastperf.io.common import normalise_tabular
from fastperf.io.dataset_sources import dataset_files, dataset_format, is_lazy_source
from fastperf.io.tabular import short_reason
from fastperf.io.layout import (Layout, combined_ids, distinct_in_order,
                                first_appearance_dictionary, key_text, label_columns,
                                merge_counts, plain_array)
from fastperf.progress import ProgressBar, wants_progress

__all__ = ["Dataset", "open_if_lazy", "is_lazy_source",
           "WORK_FACTOR", "BATCH_ROWS", "MEMORY_FRACTION"]

#: Working memory of a chunk, as a multiple of its Arrow table's bytes: the sorted copies,
#: ranks and per-group arrays of the heaviest function (`compare`), measured by
#: bench/test_scale_bench.py.
WORK_FACTOR = 6.0
#: The work of scanning one row, in the steps of `fastperf.progress.wants_progress` (a bar is
#: drawn at a terminal from about 10 million rows).
SCAN_STEPS_PER_ROW = 100
#: Chunk files written at once in the partition pass (one scan per this many chunks): below
#: the usual limit of 1,024 open files.
MAX_OPEN_CHUNKS = 256
#: Rows per scanned batch.
BATCH_ROWS = 1 << 20
#: The default memory limit: this fraction of the machine's available memory.
MEMORY_FRACTION = 0.5
#: Combined partition keys counted in one array at most; beyond, the first partition column
#: alone splits the rows (a coarser split, still group-complete).
MAX_KEY_SPACE = 10_000_000













class Dataset:
    """A measurement table on disk, read lazily in group-complete chunks.

    Made by `fastperf.read` (``lazy=True``, or a directory or glob); every function that
    scales (`fastperf.describe`, `compare`, `speedup_test`, `sparc`, `hpt`, `aggregate_score`,
    `plan_runs`, `anova`) accepts it and gives the table an in-memory run of `to_table` gives.

    Parameters
    ----------
    source : path, glob or list of them
        Files, directories (searched recursively; hive ``key=value`` folders become columns)
        or glob patterns.
    format : {"parquet", "ipc", "csv"} or None
        None: from the files' extension.
    roles : dict
        Canonical role -> source column (see `fastperf.read`).
    memory_limit : int or None
        Bytes a chunk may use while a function works on it (its Arrow table times
        `WORK_FACTOR`); None: `MEMORY_FRACTION` of the memory available when a function
        runs (`fastperf.data.chunked`).
    progress : bool or None
        A bar over the chunks (`fastperf.progress.wants_progress`).
    """

    def __init__(self, source: Any, *, format: str | None = None,
                 roles: dict[str, str] | None = None, memory_limit: int | None = None,
                 progress: bool | None = None):
        import pyarrow.dataset as ds  # deferred: it imports pandas, ~0.3 s; lazy sources only

        files, base = dataset_files(source)
        self.format = dataset_format(files, format)
        self.paths = [str(p) for p in files]
        self.roles = dict(roles or {r: r for r in ("benchmark", "variant", "value", "run",
                                                   "unit")})
        whole = isinstance(memory_limit, (int, np.integer)) and not isinstance(memory_limit, bool)
        if memory_limit is not None and not (whole and memory_limit > 0):
            raise InputError("memory_limit (--memory-limit) must be a positive number of bytes, "
                             f"got {memory_limit!r}")
        self.memory_limit = None if memory_limit is None else int(memory_limit)
        self.progress = progress
        self._filter = None
        self._bytes_per_row: float | None = None
        file_format = {"parquet": ds.ParquetFileFormat(), "ipc": ds.IpcFileFormat(),
                       "csv": ds.CsvFileFormat()}[self.format]
        partitioning = ds.HivePartitioning.discover() if base is not None else None
        try:
            self._dataset = ds.dataset(self.paths, format=file_format,
                                       partitioning=partitioning,
                                       partition_base_dir=str(base) if base else None)
        except (pa.ArrowException, OSError) as exc:
            where = f"the dataset directory {base}" if base else f"the dataset {self.paths[0]}"
            raise InputError(f"cannot open {where} as {self.format}: "
                             f"{str(exc).splitlines()[0][:300]}") from None
        renamed = {source_name: role for role, source_name in self.roles.items()}
        self.columns = [renamed.get(n, n) for n in self._dataset.schema.names]
        # the role columns checked as reading a file checks them (same messages)
        normalise_tabular(self._dataset.schema.empty_table(), self.roles,
                          where=f"dataset {self.paths[0]}")
        if self.roles["benchmark"] not in self._dataset.schema.names \
                or self.roles["value"] not in self._dataset.schema.names:
            missing = [self.roles[r] for r in ("benchmark", "value")
                       if self.roles[r] not in self._dataset.schema.names]
            raise InputError(f"the dataset has no column {missing[0]!r}; its columns: "
                             f"{self._dataset.schema.names}")

    @property
    def schema(self) -> pa.Schema:
        """The columns under their role names, as stored, with the files' schema metadata
        (the configuration columns a file declares, `fastperf.io.common.config_columns`)."""
        return pa.schema([pa.field(n, t) for n, t in
                          zip(self.columns, self._dataset.schema.types)],
                         metadata=self._dataset.schema.metadata)

    def __repr__(self) -> str:
        return (f"Dataset({len(self.paths)} {self.format} file(s), columns={self.columns}, "
                f"memory_limit={self.memory_limit})")

    # ---------------------------------------------------------------------------- reading

    def _source_name(self, column: str) -> str:
        return self.roles.get(column, column)

    def _batches(self, columns: Sequence[str] | None = None) -> Iterator[pa.RecordBatch]:
        """Batches in file and row order, columns under their canonical names."""
        names = None if columns is None else [self._source_name(c) for c in columns]
        try:
            # one batch read ahead, one file at a time: the scan's memory stays one batch
            for batch in self._dataset.to_batches(columns=names, batch_size=BATCH_ROWS,
                                                  filter=self._filter, batch_readahead=1,
                                                  fragment_readahead=1):
                yield batch.rename_columns(
                    list(columns) if columns is not None else self.columns)
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"cannot read the dataset ({exc}){self._schema_mismatch()}") \
                from None

    def _schema_mismatch(self) -> str:
        """The file whose column cannot take the dataset's type (which its first file sets),
        for a read error's message: '; file F has column C as T, the dataset as U', or ''
        when no such file is found (read only after an error: one footer per file, and each
        differing column of those files read alone, cast to the dataset's type)."""
        expected = self._dataset.schema
        try:
            for fragment in self._dataset.get_fragments():
                for field in fragment.physical_schema:
                    index = expected.get_field_index(field.name)
                    if index < 0 or expected.field(index).type == field.type:
                        continue
                    try:  # a file that cannot be read at all is no type's culprit
                        fragment.to_table(columns=[field.name])
                    except (pa.ArrowException, OSError):
                        continue
                    try:  # nor is a type Arrow converts (int64 into double)
                        fragment.to_table(columns=[field.name], schema=expected)
                    except pa.ArrowException:
                        return (f"; file {fragment.path} has column {field.name!r} as "
                                f"{field.type}, the dataset (its first file) as "
                                f"{expected.field(index).type}: write every file with the "
                                "same column types")
        except (pa.ArrowException, OSError):
            return ""
        return ""

    def _normalised(self, table: pa.Table) -> pa.Table:
        """`normalise_tabular` (the one table adapter), every dictionary column's values in
        first-appearance order, as for a plain column: so a chunk groups its rows in the
        order the whole table does."""
        table = normalise_tabular(table, {r: r for r in self.roles},
                                  where=f"dataset {self.paths[0]}")
        for i, field in enumerate(table.schema):
            if pa.types.is_dictionary(field.type):
                table = table.set_column(i, field, first_appearance_dictionary(table.column(i)))
        return table

    def count_rows(self) -> int:
        """Rows in the dataset (from the files' metadata for Parquet and IPC).

        Returns
        -------
        int
        """
        return int(self._dataset.count_rows(filter=self._filter))

    @property
    def num_rows(self) -> int:
        """Rows in the dataset (`count_rows`)."""
        return self.count_rows()

    @property
    def column_names(self) -> list[str]:
        """The columns, under their role names (as `to_table` gives them)."""
        return list(self.columns)

    def where(self, column: str, value: Any) -> "Dataset":
        """The rows whose `column` (as text) equals `value`, still lazy.

        Parameters
        ----------
        column : str
        value : Any

        Returns
        -------
        Dataset
        """
        import pyarrow.dataset as ds  # deferred: it imports pandas, ~0.3 s; lazy sources only

        out = copy.copy(self)
        out.__dict__.pop("_key_combinations", None)
        condition = ds.field(self._source_name(column)).cast(pa.string()) == str(value)
        out._filter = condition if self._filter is None else (self._filter & condition)
        return out

    def distinct(self, column: str) -> pa.Array:
        """The distinct values of `column` in first-appearance order (one scan of it).

        Parameters
        ----------
        column : str

        Returns
        -------
        pyarrow.Array
        """
        combos = self._combinations([column], column)
        if combos is None:
            return pa.array([], pa.string())
        return plain_array(combos.column(column))

    def to_table(self) -> pa.Table:
        """The whole dataset in memory, as `fastperf.read` would give it, but for one thing:
        a label column a file stores dictionary-encoded lists its values in the order they
        first appear, as every chunk of the dataset does, where `fastperf.read` of the file
        keeps the stored dictionary's order. The rows and values are the same; the groups of
        a result may come in another order (docs/scale.md).

        Returns
        -------
        pyarrow.Table
        """
        batches = list(self._batches())
        schema = self.schema
        return self._normalised(pa.Table.from_batches(batches, schema=schema))

    def empty_table(self) -> pa.Table:
        """The dataset's columns with no row, normalised.

        Returns
        -------
        pyarrow.Table
        """
        schema = self.schema
        return self._normalised(schema.empty_table())

    def bytes_per_row(self) -> float:
        """Arrow bytes per row of the first batch (all columns), at least 8; read once.

        Returns
        -------
        float
        """
        if self._bytes_per_row is None:
            self._bytes_per_row = 8.0
            for batch in self._batches():
                if batch.num_rows:
                    self._bytes_per_row = max(8.0, batch.nbytes / batch.num_rows)
                    break
        return self._bytes_per_row

    def fits_in_memory(self, memory_limit: int) -> bool:
        """Whether the whole table, worked on, stays within `memory_limit` bytes.

        Parameters
        ----------
        memory_limit : int

        Returns
        -------
        bool
        """
        return self.count_rows() * self.bytes_per_row() * WORK_FACTOR <= memory_limit

    # ---------------------------------------------------------------------------- planning

    def label_columns(self, values: Sequence[str], keys: Sequence[str] = ()) -> list[str]:
        """The columns of the key table (`fastperf.io.layout.label_columns`).

        Parameters
        ----------
        values : sequence of str
        keys : sequence of str

        Returns
        -------
        list of str
        """
        schema = self.schema
        return label_columns(schema, values, keys)

    def _combinations(self, columns: list[str], what: str) -> pa.Table:
        """Distinct combinations of `columns` in first-appearance order, with their rows
        (``count_all``) and first row (``first_row``)."""
        parts: list[pa.Table] = []
        bar = None
        if self.progress is not False:
            rows = self.count_rows()
            if rows and wants_progress(self.progress, rows * SCAN_STEPS_PER_ROW):
                bar = ProgressBar(f"scan {what}", rows, unit="rows")
        done = 0
        try:
            for batch in self._batches(columns):
                # each combination's rows and first row (Arrow's group_by does not promise
                # its groups in the order they first appear)
                table = pa.Table.from_batches([batch]).append_column(
                    "first_row", pa.array(np.arange(done, done + batch.num_rows)))
                partial = table.group_by(columns, use_threads=False).aggregate(
                    [([], "count_all"), ("first_row", "min")])
                parts.append(pa.table({name: plain_array(partial.column(name))
                                       for name in partial.column_names})
                             .rename_columns(columns + ["count_all", "first_row"]))
                if len(parts) >= 64:
                    parts = [merge_counts(parts, columns)]
                done += batch.num_rows
                if bar:
                    bar.update(done)
        finally:
            if bar:
                bar.close()
        if not parts:
            return None
        return merge_counts(parts, columns).sort_by("first_row")

    def key_table(self, values: Sequence[str], keys: Sequence[str] = ()) -> pa.Table:
        """Every column, holding the distinct combinations of the label columns
        (`label_columns`), the others null: what a plan may look at.

        Parameters
        ----------
        values : sequence of str
            The value columns.
        keys : sequence of str
            Columns kept whatever their type (`label_columns`).

        Returns
        -------
        pyarrow.Table
        """
        labels = self.label_columns(values, keys)
        combos = self._combinations(labels, "keys") if labels else None
        n = combos.num_rows if combos is not None else 1
        schema = self.schema
        arrays = [combos.column(name) if name in labels else pa.nulls(n, kind)
                  for name, kind in zip(schema.names, schema.types)]
        self._key_combinations = combos
        return self._normalised(pa.Table.from_arrays(arrays, schema=schema))

    def layout(self, partition: Sequence[str], order: Sequence[str],
               memory_limit: int) -> Layout:
        """Split the rows into group-complete chunks within the memory limit.

        Parameters
        ----------
        partition : sequence of str
            Columns every row of a group shares.
        order : sequence of str
            Output key columns whose first-appearance order the result needs.
        memory_limit : int
            Bytes.

        Returns
        -------
        Layout

        Raises
        ------
        InputError
            A partition key whose rows alone exceed the memory limit (the message names it
            and the limit it needs).
        """
        partition = [c for c in partition if c in self.columns]
        order = [c for c in order if c in self.columns]
        needed = list(dict.fromkeys(list(partition) + list(order)))
        combos = getattr(self, "_key_combinations", None)
        if combos is None or not set(needed) <= set(combos.column_names):
            combos = self._combinations(needed, "keys")
        if combos is None:
            return Layout(0, {}, list(partition), [], np.zeros(1, np.int64), 0)
        first = {name: distinct_in_order(combos.column(name)) for name in needed}
        space = math.prod(len(first[name]) for name in partition) if partition else 1
        if space > MAX_KEY_SPACE:  # the finest single column: a coarser, still complete split
            partition = [max(partition, key=lambda name: len(first[name]))]
            space = len(first[partition[0]])
        key_values = [first[name] for name in partition]
        layout = Layout(0, first, list(partition), key_values, np.zeros(space, np.int64), 1)
        counts = np.bincount(combined_ids(layout, combos),
                             weights=combos.column("count_all").to_numpy(),
                             minlength=space).astype(np.int64)
        rows = int(counts.sum())
        per_row = self.bytes_per_row()
        budget_rows = max(1, int(memory_limit / (per_row * WORK_FACTOR)))
        biggest = int(np.argmax(counts)) if counts.size else 0
        if counts.size and counts[biggest] > budget_rows:
            needed_bytes = counts[biggest] * per_row * WORK_FACTOR
            raise InputError(
                f"one group's rows do not fit the memory limit: {key_text(layout, biggest)} has "
                f"{counts[biggest]} rows, which need about {needed_bytes:,.0f} bytes while "
                f"memory_limit={memory_limit:,} bytes; "
                "raise memory_limit (a group's values are all needed at once for exact "
                "medians, ranks and tests)")
        chunk_of_key = np.zeros(space, dtype=np.int64)
        chunk, filled = 0, 0
        for key in np.flatnonzero(counts):  # contiguous runs of keys, in key order
            if filled and filled + counts[key] > budget_rows:
                chunk, filled = chunk + 1, 0
            chunk_of_key[key] = chunk
            filled += counts[key]
        return Layout(rows, first, list(partition), key_values, chunk_of_key,
                      chunk + 1 if rows else 0)

    def chunks(self, layout: Layout, *, function: str = "") -> Iterator[pa.Table]:
        """Each chunk's rows (in input order), normalised like `to_table`.

        Parameters
        ----------
        layout : Layout
        function : str
            For the progress bar's label.

        Yields
        ------
        pyarrow.Table
        """
        if layout.n_chunks == 1:
            yield self.to_table()
            return
        schema = self.schema
        waves = range(0, layout.n_chunks, MAX_OPEN_CHUNKS)
        bar = None
        if wants_progress(self.progress, layout.rows * SCAN_STEPS_PER_ROW * 2):
            bar = ProgressBar(f"{function} chunks", layout.n_chunks + len(waves),
                              unit="passes")
        done = 0
        try:
            for first in waves:  # at most MAX_OPEN_CHUNKS files open at once
                stop = min(first + MAX_OPEN_CHUNKS, layout.n_chunks)
                with tempfile.TemporaryDirectory(prefix="fastperf-chunks-") as spill:
                    written = self._spill(layout, first, stop, spill, schema)
                    done += 1
                    if bar:
                        bar.update(done)
                    for c in written:
                        with pa.memory_map(written[c]) as source:
                            table = ipc.open_stream(source).read_all()
                        yield self._normalised(table)
                        del table
                        os.remove(written[c])
                        pa.default_memory_pool().release_unused()
                        done += 1
                        if bar:
                            bar.update(done)
        finally:
            if bar:
                bar.close()

    def _spill(self, layout: Layout, first: int, stop: int, spill: str,
               schema: pa.Schema) -> dict[int, str]:
        """One scan: the rows of chunks first..stop-1 to one Arrow IPC stream file each (the
        external partition pass); the files written, by chunk, in chunk order."""
        paths = {c: os.path.join(spill, f"{c}.arrows") for c in range(first, stop)}
        writers: dict = {}
        try:
            for batch in self._batches():
                ids = layout.chunk_ids(batch)
                order = np.argsort(ids, kind="stable")
                bounds = np.searchsorted(ids[order], np.arange(layout.n_chunks + 1))
                for c in np.flatnonzero(np.diff(bounds)):
                    if not first <= c < stop:
                        continue
                    rows = batch.take(pa.array(order[bounds[c]:bounds[c + 1]]))
                    if c not in writers:
                        writers[c] = ipc.new_stream(paths[c], schema)
                    writers[c].write_batch(rows)
        except OSError as exc:
            raise InputError(f"cannot write the chunks to {spill} ({short_reason(exc)}): set "
                             "TMPDIR to a folder with room for a copy of the data") from None
        finally:
            for writer in writers.values():
                writer.close()
        return {c: paths[c] for c in sorted(writers)}


def open_if_lazy(source: Any, lazy: bool | None, *, in_memory: bool, format: str | None,
                 roles: dict[str, str], memory_limit: int | None, progress: bool | None,
                 plain: bool) -> Dataset | None:
    """The `Dataset` `fastperf.read` returns when lazy (see its ``lazy``), else None.

    Parameters
    ----------
    source : Any
        What `fastperf.read` was given.
    lazy : bool or None
        True, False, or None: lazy for a directory of table files or a glob
        (`is_lazy_source`).
    in_memory : bool
        Whether `source` is an in-memory Arrow object (never lazy).
    format, roles, memory_limit, progress
        See `Dataset`.
    plain : bool
        False when `fastperf.read` was also given ``summaries=`` or ``variants=``.

    Returns
    -------
    Dataset or None

    Raises
    ------
    InputError
        Bad ``lazy`` or ``memory_limit``; options that a lazy read cannot honour.
    """
    if lazy is not None and not isinstance(lazy, bool):
        raise InputError(f"lazy= must be None, True or False, got {lazy!r}")
    several = isinstance(source, (list, tuple)) and len(source) > 0
    if lazy or (lazy is None and not in_memory and (
            is_lazy_source(source) or (several and all(is_lazy_source(s) for s in source)))):
        if not plain or format not in (None, "parquet", "ipc", "csv"):
            raise InputError("a lazy dataset reads measurement tables (Parquet, IPC, CSV) as "
                             "they are: summaries=, variants= and tool formats do not apply")
        return Dataset(source, format=format, roles=roles, memory_limit=memory_limit,
                       progress=progress)
    if memory_limit is not None:
        raise InputError("memory_limit= applies to a lazy dataset only (lazy=True, a "
                         "directory or a glob)")
    return None
