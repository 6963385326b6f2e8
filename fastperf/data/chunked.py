"""Plan, stage, finish: how every table-level function runs, in memory, out of core or on Spark.

A function that scales splits its work in three steps:

- ``plan(table) -> dict``: checks the options and makes every decision that depends on the
  whole table (the key columns, a configuration column that tells the variants apart, the set
  of benchmarks). It sees either the whole table (in memory) or a *key table*: every column,
  but only the distinct combinations of the label columns, with the value columns null. So a
  plan may look at which key combinations exist, never at values or their counts. The plan is
  a plain dict of picklable values (it travels to Spark's executors) with three entries the
  drivers read:

  - ``"partition"``: the columns whose values every row of one output group shares (usually
    the benchmark's key columns; for a score over benchmarks, the variant). Rows are split into
    *group-complete* chunks by these columns, so each chunk holds every value of its groups
    and exact medians, ranks and exact tests stay exact.
  - ``"order"``: the output key columns, most significant first. Rows are put in the order an
    in-memory run gives: lexicographic in each column's first-appearance order over the whole
    table (`fastperf.data.grouping`), or in the order listed in ``"order_values"`` for columns
    that are not data columns (the ``candidate`` of `compare`).
  - ``"order_values"`` (optional): ``{column: [values in output order]}``.

- ``stage(table, plan, side=None) -> pyarrow.Table``: one row per output group of `table`
  (which holds complete groups), each per-group column final, plus hidden columns named
  ``"__..."`` that `finish` needs. A row never depends on another group. `side`, when a dict,
  receives in-memory extras (the runs kept for a report's figures).
- ``finish(rows, plan, info) -> Result``: the rows of every chunk in output order; computes
  what depends on every group (adjusted p-values, overall figures, the summary) and drops the
  hidden columns. ``info`` holds ``input_rows``, the measurements read.

The in-memory run is ``finish(stage(table, plan(table)))``, so an out-of-core or Spark run of
the same data gives the same table by construction: same per-group code, same overall code,
same order.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.budget import available_memory
from fastperf.io.dataset import MEMORY_FRACTION, Dataset
from fastperf.io.layout import key_ranks, named_keys
from fastperf.io.read import load_table

__all__ = ["HIDDEN", "run_planned", "run_out_of_core", "memory_limit_of", "finish_parts",
           "output_order", "visible"]

#: The prefix of the hidden columns a stage passes to its finish.
HIDDEN = "__"

Plan = dict
Stage = Callable[..., pa.Table]
Finish = Callable[[pa.Table, Plan, dict], Any]


def visible(rows: pa.Table) -> pa.Table:
    """`rows` without the hidden ``__`` columns.

    Parameters
    ----------
    rows : pyarrow.Table

    Returns
    -------
    pyarrow.Table
    """
    return rows.select([c for c in rows.column_names if not c.startswith(HIDDEN)])


def output_order(rows: pa.Table, plan: Plan,
                 first_appearance: dict[str, pa.Array]) -> np.ndarray:
    """The permutation that puts `rows` in the in-memory output order.

    Parameters
    ----------
    rows : pyarrow.Table
        Stage rows of several chunks, concatenated.
    plan : dict
        Its ``"order"`` and ``"order_values"`` entries.
    first_appearance : dict column -> pyarrow.Array
        Each data key column's distinct values (nulls included) in first-appearance order over
        the whole table.

    Returns
    -------
    numpy.ndarray of int64

    Notes
    -----
    Lexicographic order of the rank of each key value (`numpy.lexsort`, stable), the same
    order as `fastperf.data.grouping.group_rows` gives on plain key columns.
    """
    explicit = plan.get("order_values", {})
    ranks = []
    for name in plan["order"]:
        if name not in rows.column_names:
            continue
        column = rows.column(name)
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        values = (pa.array(explicit[name], kind) if name in explicit
                  else first_appearance[name].cast(kind))
        rank = key_ranks(column, values)
        if (rank < 0).any():
            raise AssertionError(f"a value of {name!r} is missing from its order")
        ranks.append(rank)
    if not ranks:
        return np.arange(rows.num_rows, dtype=np.int64)
    return np.lexsort(ranks[::-1]).astype(np.int64)


def finish_parts(parts: Sequence[pa.Table], plan: Plan, finish: Finish, info: dict,
                 first_appearance: dict[str, pa.Array]):
    """Concatenate the stage rows of every chunk, put them in output order, finish.

    Parameters
    ----------
    parts : sequence of pyarrow.Table
        The stage rows of each chunk (at least one).
    plan, finish, info
        See the module docstring.
    first_appearance : dict column -> pyarrow.Array
        See `output_order`.

    Returns
    -------
    Result
        What `finish` returns.
    """
    if len(parts) == 1:
        return finish(parts[0], plan, info)
    rows = pa.concat_tables([_plain_keys(p, first_appearance) for p in parts],
                            promote_options="default")
    rows = rows.take(pa.array(output_order(rows, plan, first_appearance)))
    rows = _encoded_keys(rows.combine_chunks(), parts[0].schema, first_appearance)
    return finish(rows.combine_chunks(), plan, info)


def _plain_keys(rows: pa.Table, first_appearance: dict[str, pa.Array]) -> pa.Table:
    """The dictionary-encoded key columns of one chunk's rows decoded (each chunk has its own
    dictionary)."""
    for i, name in enumerate(rows.column_names):
        kind = rows.schema.field(i).type
        if name in first_appearance and pa.types.is_dictionary(kind):
            rows = rows.set_column(i, name, rows.column(i).cast(kind.value_type))
    return rows


def _encoded_keys(rows: pa.Table, schema: pa.Schema, first_appearance: dict[str, pa.Array]
                  ) -> pa.Table:
    """The key columns encoded as an in-memory run encodes them: the whole column's distinct
    values, in first-appearance order (a null among them), as the dictionary, each row's
    rank as its index (`fastperf.data.grouping.key_codes`)."""
    for i, name in enumerate(rows.column_names):
        kind = schema.field(name).type
        if name in first_appearance and pa.types.is_dictionary(kind):
            dictionary = first_appearance[name].cast(kind.value_type)
            index = pa.array(key_ranks(rows.column(i), dictionary), kind.index_type)
            encoded = pa.DictionaryArray.from_arrays(index, dictionary)
            rows = rows.set_column(i, pa.field(name, kind), encoded)
    return rows


def run_planned(data: Any, make_plan: Callable[[pa.Table], Plan], stage: Stage,
                finish: Finish, *, values: Iterable[str | None] = (), side: dict | None = None,
                function: str = "this function", keys: Iterable[Any] = ()):
    """Run a planned function on in-memory data or, chunk by chunk, on a lazy `Dataset`.

    Parameters
    ----------
    data : measurement table, path(s) or `fastperf.io.dataset.Dataset`
    make_plan : callable table -> dict
        The function's plan, its options bound.
    stage, finish : callables
        See the module docstring.
    values : iterable of str or None
        The value columns (left null in a dataset's key table).
    side : dict or None
        Passed to `stage` on the in-memory path.
    function : str
        The function's name, for messages.
    keys : iterable of str, sequences of str or None
        The columns the function groups by, as its options name them: a dataset's key table
        holds them whatever their type (other numeric columns are left null there).

    Returns
    -------
    Result
    """
    if isinstance(data, Dataset):
        if not data.fits_in_memory(memory_limit_of(data)):
            return run_out_of_core(data, make_plan, stage, finish,
                                   values=[v for v in values if v], function=function,
                                   keys=named_keys(keys))
        data = data.to_table()
    table = load_table(data)
    plan = make_plan(table)
    rows = stage(table, plan, side)
    return finish(rows, plan, {"input_rows": table.num_rows})


def memory_limit_of(dataset: Dataset) -> int:
    """The dataset's memory limit, or `MEMORY_FRACTION` of the memory available now (1 GiB
    when unknown).

    Parameters
    ----------
    dataset : `fastperf.io.dataset.Dataset`

    Returns
    -------
    int
        Bytes.
    """
    if dataset.memory_limit is not None:
        return dataset.memory_limit
    available = available_memory()
    return int(MEMORY_FRACTION * available) if available else 1 << 30


def run_out_of_core(dataset: Dataset, make_plan: Callable[[pa.Table], Plan], stage: Stage,
                    finish: Finish, *, values: Sequence[str], function: str,
                    keys: Sequence[str] = ()):
    """Run a planned function over a lazy dataset in group-complete chunks.

    The plan is made from the dataset's key table; one scan finds each key column's
    first-appearance order and the rows of each partition key; the chunks are then staged
    one at a time (each within the dataset's memory limit) and finished together.

    Parameters
    ----------
    dataset : `fastperf.io.dataset.Dataset`
    make_plan, stage, finish, values, function, keys
        See `run_planned`.

    Returns
    -------
    Result
    """
    plan = make_plan(dataset.key_table(values, keys))
    order_columns = [c for c in plan["order"] if c not in plan.get("order_values", {})]
    layout = dataset.layout(plan["partition"], order_columns, memory_limit_of(dataset))
    parts = [stage(chunk, plan, None)
             for chunk in dataset.chunks(layout, function=function)]
    if not parts:
        parts = [stage(dataset.empty_table(), plan, None)]
    return finish_parts(parts, plan, finish, {"input_rows": layout.rows},
                        layout.first_appearance)
