"""Checks shared by the out-of-core and Spark tests: a chunked run against the in-memory run
of the same data (the oracle), bit for bit, and group-complete parts of a table."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from fastperf.data.chunked import finish_parts


def assert_identical_tables(got: pa.Table, want: pa.Table, where: str = "table") -> None:
    """Same schema, same values bit for bit (NaN equal to NaN, -0.0 distinct from 0.0)."""
    assert got.schema == want.schema, f"{where}: schema\n{got.schema}\n!=\n{want.schema}"
    assert got.num_rows == want.num_rows, f"{where}: {got.num_rows} != {want.num_rows} rows"
    for name in want.column_names:
        a, b = got.column(name), want.column(name)
        if pa.types.is_floating(b.type):
            x = a.to_numpy(zero_copy_only=False).astype(np.float64)
            y = b.to_numpy(zero_copy_only=False).astype(np.float64)
            same = (x.view(np.int64) == y.view(np.int64)) | (np.isnan(x) & np.isnan(y))
            nulls_a = a.is_null().to_numpy(zero_copy_only=False)
            nulls_b = b.is_null().to_numpy(zero_copy_only=False)
            assert (nulls_a == nulls_b).all(), f"{where}: nulls of {name!r} differ"
            bad = np.flatnonzero(~same & ~nulls_a)
            assert bad.size == 0, (f"{where}: column {name!r} row {bad[0]}: {x[bad[0]]!r} != "
                                   f"{y[bad[0]]!r}")
        else:
            assert a.equals(b), (f"{where}: column {name!r} differs:\n"
                                 f"{a.to_pylist()[:10]}\n{b.to_pylist()[:10]}")


def _same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (np.isnan(a) and np.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b


def assert_identical_results(got, want, extra: tuple[str, ...] = ()) -> None:
    """The table, summary, warnings and the named extra tables of two results."""
    assert_identical_tables(got.table, want.table)
    assert _same_value(got.summary, want.summary), f"summary\n{got.summary}\n!=\n{want.summary}"
    assert got.warnings == want.warnings
    for name in extra:
        a, b = getattr(got, name), getattr(want, name)
        if b is None:
            assert a is None
        else:
            assert_identical_tables(a, b, name)


def first_appearance(table: pa.Table, columns) -> dict[str, pa.Array]:
    """Each column's distinct values (nulls included) in the order an in-memory run groups
    them: first appearance for a plain column, the dictionary's order for a dictionary-encoded
    one without nulls (`fastperf.data.grouping.key_codes`)."""
    from fastperf.data.grouping import key_codes

    out = {}
    for name in columns:
        if name not in table.column_names:
            continue
        column = table.column(name)
        if pa.types.is_dictionary(column.type) and not column.null_count:
            out[name] = key_codes(column, name)[1]
        else:
            if pa.types.is_dictionary(column.type):
                column = column.cast(column.type.value_type)
            out[name] = pa.array(list(dict.fromkeys(column.to_pylist())), column.type)
    return out


def group_complete_parts(table: pa.Table, partition, n_parts: int = 3, seed: int = 0
                         ) -> list[pa.Table]:
    """`table` split into `n_parts` tables, each holding every row of the partition keys it
    has (keys dealt at random), rows in input order; the parts in a shuffled order."""
    rng = np.random.default_rng(seed)
    columns = [c for c in partition if c in table.column_names]
    plain = [table.column(c).cast(table.column(c).type.value_type)
             if pa.types.is_dictionary(table.column(c).type) else table.column(c)
             for c in columns]
    keys = pa.table({str(i): c for i, c in enumerate(plain)})
    combined = np.zeros(table.num_rows, dtype=np.int64)
    for c in keys.columns:
        codes = pc.dictionary_encode(c, null_encoding="encode").combine_chunks().indices
        combined = combined * (len(pc.unique(c)) + 1) + codes.to_numpy(zero_copy_only=False)
    distinct = np.unique(combined)
    part_of = dict(zip(distinct.tolist(), rng.integers(0, n_parts, distinct.size).tolist()))
    row_part = np.array([part_of[k] for k in combined.tolist()], dtype=np.int64)
    parts = [table.filter(pa.array(row_part == p)) for p in range(n_parts)]
    parts = [p for p in parts if p.num_rows]
    rng.shuffle(parts)
    return parts


def run_in_parts(table: pa.Table, plan, stage, finish, n_parts: int = 3, seed: int = 0):
    """Stage each group-complete part of `table`, finish them together."""
    parts = [stage(part, plan, None)
             for part in group_complete_parts(table, plan.partition, n_parts, seed)]
    return finish_parts(parts, plan, finish, {"input_rows": table.num_rows},
                        first_appearance(table, plan.order))


def write_dataset(table: pa.Table, directory, *, partition_by=("variant",), rows_per_file=50,
                  rows_per_group=20, format="parquet") -> None:
    """`table` as a hive-partitioned multi-file dataset, groups split across files and row
    groups."""
    ds.write_dataset(table, str(directory), format=format,
                     partitioning=list(partition_by) or None, partitioning_flavor="hive",
                     max_rows_per_file=rows_per_file, max_rows_per_group=rows_per_group,
                     existing_data_behavior="overwrite_or_ignore")


#: how a dataset is written in the tests: many small files and row groups (a benchmark's rows
#: across files), or one file a partition cut in small row groups
LAYOUTS = {"small_files": {"rows_per_file": 50, "rows_per_group": 20},
           "row_groups": {"rows_per_file": 10**7, "rows_per_group": 20}}


def lazy_pair(table: pa.Table, directory, memory_limit: int = 200_000, **write):
    """The dataset written from `table`, opened lazily with a small memory limit (so that it
    runs in chunks), and the same files read whole (the oracle's input)."""
    import fastperf

    write_dataset(table, directory, **write)
    dataset = fastperf.read(str(directory), lazy=True, memory_limit=memory_limit)
    assert not dataset.fits_in_memory(memory_limit)
    whole = fastperf.read(str(directory), lazy=True).to_table()
    return dataset, whole
