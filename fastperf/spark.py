"""fastperf on Spark: `describe`, `compare`, `speedup_test`, `sparc`, `aggregate_score` and
`check` on a ``pyspark.sql.DataFrame``.

Each function runs the same plan, stage and finish as the in-memory function
(`fastperf.data.chunked`), so its table is the one the in-memory function gives on the same
rows, by construction:

1. *plan*, on the driver: one aggregation collects the distinct combinations of the label
   columns (every column but the value column(s), ``run`` and numeric columns), each with its
   first row and its count, as Arrow; this *key table*, normalised as a lazy dataset's is
   (`fastperf.io.dataset.Dataset.key_table`), is what the function's plan sees. It gives each
   output key column's first-appearance order too.
2. *stage*, on the executors: the rows are repartitioned by the plan's ``"partition"`` columns
   (every row of an output group in the same partition), and ``mapInArrow`` puts each
   partition's rows back in their source order and runs the function's batched stage over all
   the groups of a partition at once (one Python call per partition, never one per benchmark).
3. *finish*, on the driver: the per-group rows (one per output group: small) are collected as
   Arrow, put in the in-memory output order, and finished as in memory: adjusted p-values,
   verdicts, overall figures and the summary over all groups.

The "source order" is the order of ``pyspark.sql.functions.monotonically_increasing_id``:
partition by partition, row by row, as Spark reads the DataFrame (a file's rows in order). The
rows of a group keep it, so paired tests that match runs by position match them as an
in-memory run of the same rows does. A DataFrame is read more than once (the keys, one group
for the output's schema, then the stage), so its rows and their order must be the same each
time it is computed (files and local data are; cache a DataFrame that comes out of a
non-deterministic shuffle).

A Spark DataFrame carries no Arrow schema metadata, so a summary table
(`fastperf.io.summaries`) and a table's declaration of its configuration columns do not
survive it: run summary tables in memory, and name a benchmark's key columns with ``by=``.
Results keep no runs for a report's figures (``result.local.runs`` is None).

pyspark (>= 4.0, the extra ``fastperf[spark]``) is imported by this module only.
"""
from __future__ import annotations

import os
from functools import partial, reduce
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.chunked import Plan, StageRows, finish_parts
from fastperf.errors import InputError
from fastperf.io.common import encode_labels, normalise_tabular
from fastperf.io.layout import distinct_in_order, label_columns, plain_array
from fastperf.kernels.builds import THREADS_ENV
from fastperf.protocols.aggregate import (aggregate_score_finish, aggregate_score_options,
                                          aggregate_score_plan, aggregate_score_stage)
from fastperf.engine.diagnostics import Thresholds
from fastperf.protocols.check import check_finish, check_options, check_plan, check_stage
from fastperf.protocols.compare import (compare_finish, compare_options, compare_plan,
                                        compare_stage)
from fastperf.protocols.sparc import sparc_finish, sparc_options, sparc_plan, sparc_stage
from fastperf.protocols.speedup import (speedup_finish, speedup_options, speedup_plan,
                                        speedup_stage)
from fastperf.stats.describe import (describe_finish, describe_options, describe_plan,
                                     describe_stage)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["SparkResult", "describe", "compare", "speedup_test", "sparc", "aggregate_score",
           "check"]

#: The hidden columns the driver adds: each row's source position, and each key
#: combination's first row and count.
ROW_ID, FIRST, COUNT = "__fastperf_row", "__fastperf_first", "__fastperf_count"
#: The canonical role columns, normalised as `fastperf.read` and a lazy dataset do.
ROLES = ("benchmark", "variant", "value", "run", "unit")
#: The prefix of the stage's `extra` columns while the stage rows travel as one Arrow table.
EXTRA = "__fastperf_extra:"
#: Rows of the first partition when the plan has no partition column (the output's schema).
SCHEMA_SAMPLE_ROWS = 10_000
#: Arrow types Spark has no type for, and the type they travel as.
WIRE_TYPES = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
              pa.uint64(): pa.int64(), pa.float16(): pa.float32(),
              pa.large_string(): pa.string(), pa.large_binary(): pa.binary()}


class SparkResult:
    """What a `fastperf.spark` function returns.

    Attributes
    ----------
    dataframe : pyspark.sql.DataFrame
        The result table as a Spark DataFrame: the columns and values of ``local.table``
        (label columns as plain strings).
    local : Result
        The fastperf result, as the in-memory function returns it on the rows as
        `fastperf.read` takes them (``fastperf.read(dataframe.toArrow())``: a numeric
        ``benchmark`` column becomes text, as a file's would): ``table``, ``summary``,
        ``warnings`` and the function's other tables (``overall``, ...), which are also
        reachable as attributes of this object.
    """

    def __init__(self, dataframe, local):
        self.dataframe = dataframe
        self.local = local

    @property
    def table(self) -> pa.Table:
        """The result table (``local.table``)."""
        return self.local.table

    @property
    def summary(self) -> dict:
        """The summary (``local.summary``)."""
        return self.local.summary

    @property
    def warnings(self) -> list:
        """The warnings (``local.warnings``)."""
        return self.local.warnings

    def __getattr__(self, name: str):
        if name.startswith("_") or name in ("dataframe", "local"):
            raise AttributeError(name)
        return getattr(self.local, name)

    def __repr__(self) -> str:
        return (f"SparkResult({type(self.local).__name__}, {self.local.table.num_rows} rows, "
                f"columns={self.local.table.column_names})")


# ------------------------------------------------------------------------------- the functions


def describe(data: DataFrame, *, by: str | Sequence[str] | None = "benchmark",
             variant: str | None = "variant", value: str = "value", unit: str | None = "unit",
             confidence: float = 0.95,
             levels: str | Sequence[str] | None = None, block: str | None = None) -> SparkResult:
    """`fastperf.describe` on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per measurement.
    by, variant, value, unit, confidence, levels, block
        See `fastperf.describe`.

    Returns
    -------
    SparkResult
        ``dataframe``: one row per group, the columns of `fastperf.describe`'s table;
        ``local``: the `DescribeResult`.
    """
    options = describe_options(by=by, variant=variant, value=value, unit=unit,
                               confidence=confidence, levels=levels, block=block)
    return run_spark(data, partial(describe_plan, options=options), describe_stage,
                     describe_finish, values=[value], function="describe", keys=[by, variant, unit])


def compare(data: DataFrame, *, baseline: str, candidate: str | Sequence[str],
            by: str | Sequence[str] | None = None, variant: str = "variant",
            value: str = "value", unit: str | None = "unit", alpha: float = 0.05,
            adjust: str = "bh", confidence: float = 0.95, margin: float | None = None,
            threshold: float = 0.0, higher_is_better: bool | Mapping[str, bool] | None = None,
            method: str = "auto",
            levels: str | Sequence[str] | None = None, block: str | None = None,
            warmup: str | None = None) -> SparkResult:
    """`fastperf.compare` on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per measurement.
    baseline, candidate, by, variant, value, unit, alpha, adjust, confidence, margin,
    threshold, higher_is_better, method, levels, block, warmup
        See `fastperf.compare`.

    Returns
    -------
    SparkResult
        ``dataframe``: one row per (candidate, benchmark, unit), the columns of
        `fastperf.compare`'s table; ``local``: the `CompareResult` (with ``overall``).
    """
    options = compare_options(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value, unit=unit,
        alpha=alpha, adjust=adjust, confidence=confidence, margin=margin, threshold=threshold,
        higher_is_better=higher_is_better, method=method, levels=levels, block=block,
        warmup=warmup)
    return run_spark(data, partial(compare_plan, options=options), compare_stage,
                     compare_finish, values=[value], function="compare",
                     keys=[by, variant, unit])


def speedup_test(data: DataFrame, *, baseline: str, candidate: str, by: str | Sequence[str] = "benchmark",
                 variant: str = "variant", value: str = "value", alpha: float | str = 0.05,
                 weights: str | Mapping[Any, float] | None = None,
                 higher_is_better: bool = False, large_sample: int = 30,
                 precision: float = 0.05, proportion_confidence: float | None = None,
                 median_method: str = "auto", unit: str | None = "unit",
                 levels: str | Sequence[str] | None = None,
                 block: str | None = None, warmup: str | None = None) -> SparkResult:
    """`fastperf.speedup_test` on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per measurement.
    baseline, candidate, by, variant, value, alpha, weights, higher_is_better, large_sample,
    precision, proportion_confidence, median_method, unit, levels, block, warmup
        See `fastperf.speedup_test`.

    Returns
    -------
    SparkResult
        ``dataframe``: one row per benchmark, the columns of `fastperf.speedup_test`'s table;
        ``local``: the `SpeedupTestResult` (overall speedups and proportions in its
        ``summary``, ``errors``).
    """
    options = speedup_options(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
        alpha=alpha, weights=weights, higher_is_better=higher_is_better,
        large_sample=large_sample, precision=precision,
        proportion_confidence=proportion_confidence, median_method=median_method, unit=unit,
        levels=levels, block=block, warmup=warmup)
    return run_spark(data, partial(speedup_plan, options=options), speedup_stage,
                     speedup_finish, values=[value], function="speedup_test",
                     keys=[by, variant, unit])


def sparc(data: DataFrame, *, baseline: str, candidate: str | Sequence[str],
          by: str | Sequence[str] = "benchmark", variant: str = "variant",
          value: str = "value", pair: str | None = "run",
          margin: float | tuple[float, float] = 0.05, alpha: float = 0.05,
          adjust: str = "bonferroni", method: str = "auto", overall: bool = True,
          higher_is_better: bool = False, min_runs: int = 5, unit: str | None = "unit",
          scale: str = "log",
          levels: str | Sequence[str] | None = None, block: str | None = None,
          warmup: str | None = None) -> SparkResult:
    """`fastperf.sparc` on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per measurement.
    baseline, candidate, by, variant, value, pair, margin, alpha, adjust, method, overall,
    higher_is_better, min_runs, unit, scale, levels, block, warmup
        See `fastperf.sparc`.

    Returns
    -------
    SparkResult
        ``dataframe``: one row per benchmark (per candidate and benchmark with a list of
        candidates), the columns of `fastperf.sparc`'s table; ``local``: the `SparcResult`
        (with ``overall``).
    """
    options = sparc_options(
        baseline=baseline, candidate=candidate, by=by, variant=variant, value=value, pair=pair,
        margin=margin, alpha=alpha, adjust=adjust, method=method, overall=overall,
        higher_is_better=higher_is_better, min_runs=min_runs, unit=unit, scale=scale,
        levels=levels, block=block, warmup=warmup)
    return run_spark(data, partial(sparc_plan, options=options), sparc_stage, sparc_finish,
                     values=[value], function="sparc", keys=[by, variant, unit])


def aggregate_score(data: DataFrame, *, variant: str = "variant", by: str | Sequence[str] = "benchmark",
                    value: str = "value", kind: str = "geomean",
                    weights: str | Mapping[str, float] | None = None, method: str = "per-run",
                    confidence: float = 0.95, run: str | None = "run",
                    baseline: str | None = None, unit: str | None = "unit",
                    levels: str | Sequence[str] | None = None,
                    block: str | None = None) -> SparkResult:
    """`fastperf.aggregate_score` on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per measurement.
    variant, by, value, kind, weights, method, confidence, run, baseline, unit, levels, block
        See `fastperf.aggregate_score`.

    Returns
    -------
    SparkResult
        ``dataframe``: one row per variant, the columns of `fastperf.aggregate_score`'s
        table; ``local``: the `AggregateResult`.

    Notes
    -----
    A variant's score sums over all its benchmarks, so each variant is staged in one Python
    call (the plan partitions by variant).
    """
    options = aggregate_score_options(
        variant=variant, by=by, value=value, kind=kind, weights=weights, method=method,
        confidence=confidence, run=run, baseline=baseline, unit=unit, levels=levels,
        block=block)
    return run_spark(data, partial(aggregate_score_plan, options=options), aggregate_score_stage,
                     aggregate_score_finish, function="aggregate_score", keys=[by, variant],
                     values=[value] + [c for c in (run, weights) if isinstance(c, str)])


def check(data: DataFrame, *, by: str | Sequence[str] | None = None, variant: str | None = "variant",
          value: str = "value", unit: str | None = "unit",
          levels: str | Sequence[str] | None = None, block: str | None = None,
          warmup_alpha: float = Thresholds.warmup_alpha,
          bimodal_alpha: float = Thresholds.bimodal_alpha,
          drift_alpha: float = Thresholds.drift_alpha, noisy_cv: float = Thresholds.noisy_cv,
          resolution: float = Thresholds.resolution,
          min_units: int = Thresholds.min_units) -> SparkResult:
    """`fastperf.check` on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per measurement, in the order measured within each process (or group).
    by, variant, value, unit, levels, block, warmup_alpha, bimodal_alpha, drift_alpha, \
noisy_cv, resolution, min_units
        See `fastperf.check`.

    Returns
    -------
    SparkResult
        ``dataframe``: one row per (benchmark, variant) group, the columns of
        `fastperf.check`'s table; ``local``: the `CheckResult`.
    """
    options = check_options(by=by, variant=variant, value=value, unit=unit, levels=levels,
                            block=block, warmup_alpha=warmup_alpha,
                            bimodal_alpha=bimodal_alpha, drift_alpha=drift_alpha,
                            noisy_cv=noisy_cv, resolution=resolution, min_units=min_units)
    return run_spark(data, partial(check_plan, options=options), check_stage, check_finish,
                     values=[value], function="check", keys=[by, variant, unit])


def run_spark(data: DataFrame, make_plan: Callable[[pa.Table], Plan], stage: Callable,
              finish: Callable, *, values: Sequence[str | None], function: str,
              keys: Sequence[Any] = ()) -> SparkResult:
    """Run a planned function (`fastperf.data.chunked`) on a Spark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
    make_plan : callable table -> Plan
        The function's plan, its checked options bound.
    stage, finish : callables
        The function's stage and finish.
    values : sequence of str or None
        The value column(s): left out of the key table.
    keys : sequence of str, sequences of str or None
        The columns the function groups by: in the key table whatever their type.
    function : str
        The function's name, for messages.

    Returns
    -------
    SparkResult
    """
    # deferred: pyspark is an optional dependency (the extra fastperf[spark])
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    if not isinstance(data, DataFrame):
        raise InputError(f"fastperf.spark.{function} takes a pyspark.sql.DataFrame, got a "
                         f"{type(data).__name__}; use fastperf.{function} for other data")
    taken = [c for c in (ROW_ID, FIRST, COUNT) if c in data.columns]
    if taken:
        raise InputError(f"the DataFrame has a column named {taken[0]!r}, which fastperf.spark "
                         "uses itself; rename it first")
    spark = data.sparkSession
    schema = _arrow_schema(data)
    tagged = data.withColumn(ROW_ID, F.monotonically_increasing_id())
    labels = label_columns(schema, [v for v in values if v], keys)
    combos = _combinations(tagged, labels)
    input_rows = int(pc.sum(combos.column(COUNT)).as_py() or 0)
    if input_rows == 0:  # the in-memory function's own checks and messages
        empty = _normalised(schema.empty_table())
        plan = make_plan(empty)
        return _result(spark, finish(stage(empty, plan, None), plan, {"input_rows": 0}))
    plan = make_plan(_key_table(schema, labels, combos))
    order = [c for c in plan.order if c not in plan.order_values and c in schema.names]
    first_appearance = {c: distinct_in_order(combos.column(c)) for c in order if c in labels}
    others = [c for c in order if c not in labels]
    if others:
        more = _combinations(tagged, others)
        first_appearance.update({c: distinct_in_order(more.column(c)) for c in others})
    partition = [c for c in plan.partition if c in schema.names]
    staged_template = _stage_template(tagged, partition, plan, stage)
    template = _packed(staged_template)
    plain = _decoded_schema(template.schema)
    wire = pa.schema([pa.field(f.name, WIRE_TYPES.get(f.type, f.type)) for f in plain])
    spread = tagged.repartition(*partition) if partition else tagged.repartition(1)
    staged = spread.mapInArrow(_partition_stage(stage, plan, wire), from_arrow_schema(wire))
    rows = _conformed(staged.toArrow(), plain)
    rows = pa.Table.from_arrays([_encoded_like(rows.column(f.name), f.type)
                                 for f in template.schema], schema=template.schema)
    parts = [_unpacked(template.slice(0, 0), staged_template), _unpacked(rows, staged_template)]
    result = finish_parts(parts, plan, finish, {"input_rows": input_rows}, first_appearance)
    return _result(spark, result)


# ------------------------------------------------------------------------------- the steps


def _result(spark, result) -> SparkResult:
    """The Spark DataFrame of a result's table, with the result."""
    # deferred: pyspark is an optional dependency
    from pyspark.sql.pandas.types import from_arrow_schema

    table = _conformed(result.table, _decoded_schema(result.table.schema))
    wire = pa.schema([pa.field(f.name, WIRE_TYPES.get(f.type, f.type)) for f in table.schema])
    return SparkResult(spark.createDataFrame(table.cast(wire), schema=from_arrow_schema(wire)),
                       result)


def _arrow_schema(data: DataFrame) -> pa.Schema:
    """The DataFrame's columns as Arrow types (as ``toArrow`` gives them)."""
    # deferred: pyspark is an optional dependency
    from pyspark.sql.pandas.types import to_arrow_schema

    # without a default: the session's zone, set or not (a default of None was returned when
    # unset, which to_arrow_schema refuses for a timestamp column)
    zone = data.sparkSession.conf.get("spark.sql.session.timeZone")
    return to_arrow_schema(data.schema, timezone=zone)


def _combinations(tagged, columns: list[str]) -> pa.Table:
    """Distinct combinations of `columns` with their first row and count, in first-appearance
    order (one row for no column)."""
    # deferred: pyspark is an optional dependency
    from pyspark.sql import functions as F

    table = tagged.groupBy(*columns).agg(F.min(ROW_ID).alias(FIRST),
                                         F.count(F.lit(1)).alias(COUNT)).toArrow()
    first = table.column(FIRST).to_numpy(zero_copy_only=False)
    table = table.take(pa.array(np.argsort(first, kind="stable")))
    return table.filter(pc.greater(table.column(COUNT), 0))


def _key_table(schema: pa.Schema, labels: list[str], combos: pa.Table) -> pa.Table:
    """Every column, the distinct label combinations, the others null: what a plan sees, as
    `fastperf.io.dataset.Dataset.key_table` makes it."""
    n = combos.num_rows if labels else 1
    arrays = [combos.column(f.name).cast(f.type) if f.name in labels else pa.nulls(n, f.type)
              for f in schema]
    return _normalised(pa.Table.from_arrays(arrays, schema=schema))


def _normalised(table: pa.Table) -> pa.Table:
    """A partition's rows as fastperf reads a table (`fastperf.io.common.normalise_tabular`,
    as for a lazy dataset's chunks): role columns first, labels dictionary-encoded, value
    float64, run int64; without the hidden row id."""
    if ROW_ID in table.column_names:
        table = table.drop_columns([ROW_ID])
    large = {pa.large_string(): pa.string(), pa.large_binary(): pa.binary()}
    if any(f.type in large for f in table.schema):  # Spark's large variable-width types
        table = table.cast(pa.schema([pa.field(f.name, large.get(f.type, f.type))
                                      for f in table.schema]))
    if "benchmark" in table.column_names and "value" in table.column_names:
        return normalise_tabular(table, {r: r for r in ROLES})
    return encode_labels(table)


def _stage_template(tagged, partition: list[str], plan: Plan, stage) -> StageRows:
    """The stage's rows of one partition key (its first row's), run on the driver: their
    schemas are the output's."""
    # deferred: pyspark is an optional dependency
    from pyspark.sql import functions as F

    if partition:
        first = tagged.select(*partition).limit(1).collect()[0]
        match = reduce(lambda a, b: a & b,
                       [F.col(c).eqNullSafe(first[i]) for i, c in enumerate(partition)])
        sample = tagged.filter(match).toArrow()
    else:
        sample = tagged.limit(SCHEMA_SAMPLE_ROWS).toArrow()
    return stage(_in_source_order(sample), plan, None)


def _partition_stage(stage, plan: Plan, wire: pa.Schema):
    """The function ``mapInArrow`` runs on each partition: its rows as one table in source
    order (a shuffle's output has none), normalised, staged (every group of the partition in
    one call), packed (`_packed`), decoded to `wire`. Spark runs a task per executor core, so
    a partition's kernels run in its own thread (`fastperf.kernels.builds.THREADS_ENV` 1),
    unless the executors' environment sets it (``spark.executorEnv.FASTPERF_THREADS``)."""
    def run(batches):
        os.environ.setdefault(THREADS_ENV, "1")
        batches = [b for b in batches if b.num_rows]
        if not batches:
            return
        staged = stage(_in_source_order(pa.Table.from_batches(batches)), plan, None)
        yield from _conformed(_packed(staged), wire).to_batches()
    return run


def _packed(staged: StageRows) -> pa.Table:
    """The stage rows as one table, as Spark ships them: the columns of ``rows``, then those
    of ``extra``, named with the prefix `EXTRA`."""
    table = staged.rows
    for name in staged.extra.column_names:
        table = table.append_column(EXTRA + name, staged.extra.column(name))
    return table


def _unpacked(table: pa.Table, template: StageRows) -> StageRows:
    """The stage rows of a `_packed` table, split as `template`'s."""
    rows = table.select(template.rows.column_names)
    if not template.extra.num_columns:
        return StageRows(rows, rows.select([]))
    extra = table.select([EXTRA + name for name in template.extra.column_names])
    return StageRows(rows, extra.rename_columns(template.extra.column_names))


def _in_source_order(table: pa.Table) -> pa.Table:
    """Rows sorted by their source position, normalised (`_normalised`)."""
    position = table.column(ROW_ID).to_numpy()
    if position.size > 1 and not (position[1:] > position[:-1]).all():
        table = table.take(pa.array(np.argsort(position, kind="stable")))
    return _normalised(table)


def _decoded_schema(schema: pa.Schema) -> pa.Schema:
    """`schema` with dictionary types replaced by their value types."""
    return pa.schema([pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type)
                               else f.type) for f in schema])


def _conformed(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """`table`'s columns of `schema`, decoded and cast to its types."""
    return pa.Table.from_arrays([plain_array(table.column(f.name)).cast(f.type)
                                 for f in schema], schema=schema)


def _encoded_like(column, kind: pa.DataType):
    """`column` as type `kind` (a dictionary type: encoded in order of appearance)."""
    if not pa.types.is_dictionary(kind):
        return column.cast(kind)
    encoded = pc.dictionary_encode(column.cast(kind.value_type))
    return encoded.cast(kind)

