"""Plan, stage, finish: how every table-level function runs, in memory, out of core or on Spark.

A function that scales splits its work in three steps, and passes typed records between them:

- ``plan(table, options) -> Plan``: `options` is the function's options record, checked once
  when the public function is called (a frozen dataclass, e.g. ``CompareOptions``). The plan
  makes every decision that depends on the whole table (the key columns, a configuration
  column that tells the variants apart, the set of benchmarks) and returns them with the
  options as one frozen dataclass, a subclass of `Plan` (``ComparePlan``, ...). It sees
  either the whole table (in memory) or a *key table*: every column, but only the distinct
  combinations of the label columns, with the value columns null. So a plan may look at which
  key combinations exist, never at values or their counts. A plan holds plain picklable
  values (it travels to Spark's executors); the drivers read three of its fields:

  - ``partition``: the columns whose values every row of one output group shares (usually
    the benchmark's key columns; for a score over benchmarks, the variant). Rows are split into
    *group-complete* chunks by these columns, so each chunk holds every value of its groups
    and exact medians, ranks and exact tests stay exact.
  - ``order``: the output key columns, most significant first. Rows are put in the order an
    in-memory run gives: lexicographic in each column's first-appearance order over the whole
    table (`fastperf.data.grouping`), or in the order listed in ``order_values`` for columns
    that are not data columns (the ``candidate`` of `compare`).
  - ``order_values``: ``{column: (values in output order)}``, often empty.

- ``stage(table, plan, side=None) -> StageRows``: one row per output group of `table` (which
  holds complete groups) in ``rows``, each per-group output column final, and, row for row in
  ``extra``, what `finish` needs besides (a test's flags, moments, kept values). A row never
  depends on another group. `side`, when a dict, receives in-memory extras (the runs kept for
  a report's figures).
- ``finish(staged, plan, info) -> Result``: the `StageRows` of every chunk in output order;
  computes what depends on every group (adjusted p-values, overall figures, the summary).
  ``info`` holds ``input_rows``, the measurements read.

The in-memory run is ``finish(stage(table, plan(table, options)), ...)``, so an out-of-core or
Spark run of the same data gives the same table by construction: same per-group code, same
overall code, same order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

import numpy as np
import pyarrow as pa

from fastperf.data.budget import available_memory
from fastperf.io.dataset import MEMORY_FRACTION, Dataset
from fastperf.io.layout import key_ranks, named_keys
from fastperf.io.read import load_table

__all__ = ["Plan", "StageRows", "run_planned", "run_out_of_core", "memory_limit_of",
           "finish_parts", "output_order"]


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What every plan holds for the drivers; each function's plan subclasses it.

    Attributes
    ----------
    partition : tuple of str
        The columns whose values every row of one output group shares: chunks are split by
        them.
    order : tuple of str
        The output key columns, most significant first.
    order_values : mapping column -> tuple
        The output order of the values of an `order` column that is not a data column.
    """

    partition: tuple[str, ...]
    order: tuple[str, ...]
    order_values: Mapping[str, tuple] = field(default_factory=dict)


@dataclass(frozen=True)
class StageRows:
    """What a stage gives its finish: the output rows and, row for row, what else the finish
    needs.

    Attributes
    ----------
    rows : pyarrow.Table
        One row per output group: the key columns and the output columns (those the finish
        fills in too, as placeholders).
    extra : pyarrow.Table
        As many rows as `rows`: the finish's inputs that are not output columns. May have no
        column.
    """

    rows: pa.Table
    extra: pa.Table

    def __post_init__(self):
        if self.extra.num_columns and self.extra.num_rows != self.rows.num_rows:
            raise AssertionError(f"{self.extra.num_rows} extra rows for {self.rows.num_rows} rows")

    @classmethod
    def of(cls, rows: pa.Table, extra: Mapping[str, Any] | None = None) -> StageRows:
        """`rows` and the `extra` columns (name -> array, one entry per row).

        Parameters
        ----------
        rows : pyarrow.Table
        extra : mapping str -> array-like, or None

        Returns
        -------
        StageRows
        """
        columns = {name: column if isinstance(column, (pa.Array, pa.ChunkedArray))
                   else pa.array(column) for name, column in (extra or {}).items()}
        return cls(rows, pa.table(columns) if columns else rows.select([]))


Stage = Callable[..., StageRows]
#: A function's own `Plan` subclass: its finish takes the plan its make_plan gives.
PlanT = TypeVar("PlanT", bound=Plan)
Finish = Callable[[StageRows, PlanT, dict], Any]


def output_order(rows: pa.Table, plan: Plan,
                 first_appearance: dict[str, pa.Array]) -> np.ndarray:
    """The permutation that puts `rows` in the in-memory output order.

    Parameters
    ----------
    rows : pyarrow.Table
        Stage rows of several chunks, concatenated.
    plan : Plan
        Its ``order`` and ``order_values``.
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
    ranks = []
    for name in plan.order:
        if name not in rows.column_names:
            continue
        column = rows.column(name)
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        values = (pa.array(list(plan.order_values[name]), kind) if name in plan.order_values
                  else first_appearance[name].cast(kind))
        rank = key_ranks(column, values)
        if (rank < 0).any():
            raise AssertionError(f"a value of {name!r} is missing from its order")
        ranks.append(rank)
    if not ranks:
        return np.arange(rows.num_rows, dtype=np.int64)
    return np.lexsort(ranks[::-1]).astype(np.int64)


def finish_parts(parts: Sequence[StageRows], plan: Plan, finish: Finish, info: dict,
                 first_appearance: dict[str, pa.Array]):
    """Concatenate the stage rows of every chunk, put them in output order, finish.

    Parameters
    ----------
    parts : sequence of StageRows
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
    rows = pa.concat_tables([_plain_keys(p.rows, first_appearance) for p in parts],
                            promote_options="default")
    order = pa.array(output_order(rows, plan, first_appearance))
    rows = rows.take(order)
    rows = _encoded_keys(rows.combine_chunks(), parts[0].rows.schema, first_appearance)
    if parts[0].extra.num_columns:
        extra = pa.concat_tables([p.extra for p in parts], promote_options="default")
        extra = extra.take(order).combine_chunks()
    else:  # no column: Arrow keeps no row count through a concatenation
        extra = rows.select([])
    return finish(StageRows(rows.combine_chunks(), extra), plan, info)


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


def run_planned(data: Any, make_plan: Callable[[pa.Table], PlanT], stage: Stage,
                finish: Finish[PlanT], *, values: Iterable[str | None] = (),
                side: dict | None = None,
                function: str = "this function", keys: Iterable[Any] = ()):
    """Run a planned function on in-memory data or, chunk by chunk, on a lazy `Dataset`.

    Parameters
    ----------
    data : measurement table, path(s) or `fastperf.io.dataset.Dataset`
    make_plan : callable table -> Plan
        The function's plan, its checked options bound
        (``functools.partial(compare_plan, options=options)``).
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
    return finish(stage(table, plan, side), plan, {"input_rows": table.num_rows})


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
    order_columns = [c for c in plan.order if c not in plan.order_values]
    layout = dataset.layout(list(plan.partition), order_columns, memory_limit_of(dataset))
    parts = [stage(chunk, plan, None)
             for chunk in dataset.chunks(layout, function=function)]
    if not parts:
        parts = [stage(dataset.empty_table(), plan, None)]
    return finish_parts(parts, plan, finish, {"input_rows": layout.rows},
                        layout.first_appearance)
