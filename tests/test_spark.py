"""`fastperf.spark` (issue 21): each function on a Spark DataFrame (local[2]) gives the result of
the in-memory function on the same rows, bit for bit: the oracle is the in-memory function on
the table `fastperf.read` gives for the same data written to a Parquet file. The Spark
DataFrame it returns holds the values of the local result's table.

Skipped when pyspark or a Java runtime is missing, unless FASTPERF_REQUIRE_SPARK=1 (CI), which
makes them fail instead.
"""
from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import fastperf
import fastperf.spark
from fastperf.errors import InputError
from scale_checks import assert_identical_results, assert_identical_tables

PACKAGE = Path(fastperf.__file__).resolve().parent


def plain(table: pa.Table) -> pa.Table:
    """`table` with its dictionary columns decoded (what a user's Spark DataFrame holds)."""
    return pa.table({name: column.cast(column.type.value_type)
                     if pa.types.is_dictionary(column.type) else column
                     for name, column in zip(table.column_names, table.columns)})


def measurements(seed: int = 0) -> pa.Table:
    """Three variants, two units (one higher-is-better), ties (quantised shape), null and NaN
    values, a group with every value missing, a group of one value, a null benchmark name, a
    numeric key column ``size``, runs numbered (paired designs match them)."""
    rng = np.random.default_rng(seed)
    shapes = ("lognormal", "quantised", "heavy_tail")
    a = plain(fastperf.simulate(9, 8, variants=3, seed=seed, shapes=shapes).table)
    b = plain(fastperf.simulate(9, 8, variants=3, seed=seed + 1, shapes=shapes).table)
    b = b.set_column(b.column_names.index("unit"), "unit", pa.array(["ops/s"] * b.num_rows))
    table = pa.concat_tables([a, b])
    bench = np.array(table.column("benchmark").to_pylist(), dtype=object)
    variant = np.array(table.column("variant").to_pylist(), dtype=object)
    unit = np.array(table.column("unit").to_pylist(), dtype=object)
    values = table.column("value").to_numpy().copy()
    missing = rng.random(values.size) < 0.05
    values[rng.random(values.size) < 0.03] = np.nan
    values[(bench == "bench_00002") & (variant == "candidate") & (unit == "s")] = np.nan
    keep = ~((bench == "bench_00004") & (variant == "baseline") & (unit == "s")
             & (table.column("run").to_numpy() > 0))
    bench = np.where(bench == "bench_00006", None, bench)
    size = np.array([int(b[-1]) % 3 if b else 7 for b in bench], dtype=np.int64)
    out = pa.table({
        "benchmark": pa.array(bench.tolist(), pa.string()),
        "size": pa.array(size),
        "variant": table.column("variant"),
        "run": table.column("run"),
        "unit": table.column("unit"),
        "value": pa.array(values, mask=missing),
    })
    return out.filter(pa.array(keep))


def shuffled(seed: int = 5) -> pa.Table:
    """Every benchmark with the same runs (paired, by position too), one unit, the rows in a
    random order: a group's values are not in run order and the groups interleave, so a
    result that matches runs by position shows any change of the rows' order."""
    table = plain(fastperf.simulate(7, 6, variants=3, seed=seed, paired=True).table)
    order = np.random.default_rng(seed).permutation(table.num_rows)
    table = table.take(pa.array(order))
    weight = [1.0 + int(b[-1]) for b in table.column("benchmark").to_pylist()]
    return table.append_column("weight", pa.array(weight))


def nested(seed: int = 6) -> pa.Table:
    """Processes x iterations, the rows in a random order (the units of a benchmark appear in
    another order than their labels')."""
    table = plain(fastperf.simulate(9, processes=4, iterations=3, icc=0.5, seed=seed).table)
    return table.take(pa.array(np.random.default_rng(seed).permutation(table.num_rows)))


@pytest.fixture(scope="module")
def datasets(spark, tmp_path_factory):
    """name -> (Spark DataFrame, the table `fastperf.read` gives for the same rows)."""
    directory = tmp_path_factory.mktemp("spark")
    one_unit = measurements(1)
    one_unit = one_unit.filter(pc.equal(one_unit.column("unit"), "s"))
    out = {}
    for name, table in [("measurements", measurements()), ("one_unit", one_unit),
                        ("shuffled", shuffled()), ("nested", nested())]:
        path = directory / f"{name}.parquet"
        pq.write_table(table, path)
        out[name] = (spark.createDataFrame(table), fastperf.read(str(path)))
    return out


@pytest.fixture(scope="module")
def data(datasets):
    return datasets["measurements"]


def check(got, want) -> None:
    """`got` (a SparkResult) holds `want`'s result, and its DataFrame `want`'s table."""
    assert_identical_results(got.local, want, extra=tuple(want.extra_tables))
    assert_identical_tables(got.dataframe.toArrow(), plain(want.table), "dataframe")
    assert got.summary is got.local.summary and got.warnings is got.local.warnings
    for name in want.extra_tables:
        assert getattr(got, name) is getattr(got.local, name)


# ------------------------------------------------------------------------- same as in memory


def test_describe(datasets):
    df, local = datasets["measurements"]
    want = fastperf.describe(local)
    assert None in want.table.column("benchmark").to_pylist()  # the data covers these cases
    assert {"ok", "no values (all missing)", "1 value: no sd or intervals"} <= \
        set(want.table.column("status").to_pylist())
    check(fastperf.spark.describe(df), want)
    for options in [dict(by=["benchmark", "size"], unit=None, confidence=0.9),
                    dict(by=None, variant=None, unit=None)]:  # no partition column at all
        check(fastperf.spark.describe(df, **options), fastperf.describe(local, **options))


def test_compare(datasets):
    df, local = datasets["measurements"]
    options = dict(baseline="baseline", candidate=["candidate", "variant_2"], adjust="holm",
                   margin=0.05)
    want = fastperf.compare(local, **options)
    assert len(set(want.table.column("verdict").to_pylist())) >= 3
    check(fastperf.spark.compare(df, **options), want)
    options = dict(baseline="variant_2", candidate="baseline", by=["benchmark", "size"],
                   method="asymptotic", threshold=0.01)
    check(fastperf.spark.compare(df, **options), fastperf.compare(local, **options))


def test_nested(datasets):
    """On processes (the default levels of a table with a process column), as in memory."""
    df, local = datasets["nested"]
    options = dict(baseline="baseline", candidate="candidate")
    want = fastperf.compare(local, **options)
    assert set(want.table.column("analysis").to_pylist()) == {"process"}
    check(fastperf.spark.compare(df, **options), want)
    check(fastperf.spark.describe(df), fastperf.describe(local))
    check(fastperf.spark.speedup_test(df, **options), fastperf.speedup_test(local, **options))


def test_speedup_test(datasets):
    df, local = datasets["one_unit"]
    options = dict(baseline="baseline", candidate="candidate")
    want = fastperf.speedup_test(local, **options)
    assert want.errors or want.warnings
    check(fastperf.spark.speedup_test(df, **options), want)
    df, local = datasets["shuffled"]
    options = dict(baseline="candidate", candidate="variant_2", weights="weight",
                   higher_is_better=True, median_method="exact")
    check(fastperf.spark.speedup_test(df, **options), fastperf.speedup_test(local, **options))


def test_sparc(datasets):
    df, local = datasets["one_unit"]
    options = dict(baseline="baseline", candidate=["candidate", "variant_2"], min_runs=3)
    check(fastperf.spark.sparc(df, **options), fastperf.sparc(local, **options))
    df, local = datasets["shuffled"]
    options = dict(baseline="baseline", candidate="candidate", pair=None, adjust="holm",
                   margin=(0.9, 1.2), scale="ratio")
    check(fastperf.spark.sparc(df, **options), fastperf.sparc(local, **options))


def test_aggregate_score(datasets):
    df, local = datasets["one_unit"]
    options = dict(baseline="baseline")
    check(fastperf.spark.aggregate_score(df, **options),
          fastperf.aggregate_score(local, **options))
    df, local = datasets["shuffled"]
    for options in [dict(run=None, kind="mean", weights="weight"),  # runs matched by position
                    dict(method="propagation", confidence=0.9, baseline="variant_2")]:
        check(fastperf.spark.aggregate_score(df, **options),
              fastperf.aggregate_score(local, **options))


def test_check(datasets):
    df, local = datasets["one_unit"]
    check(fastperf.spark.check(df), fastperf.check(local))
    df, local = datasets["shuffled"]
    options = dict(variant=None, noisy_cv=0.05, min_units=8)
    check(fastperf.spark.check(df, **options), fastperf.check(local, **options))
    df, local = datasets["nested"]
    check(fastperf.spark.check(df), fastperf.check(local))


def test_check_with_processes(spark, tmp_path):
    """A nested table with a transient in every process, its groups interleaved: the warm-up is
    looked for at the start of each process (its rows in source order, which the partitions
    keep)."""
    table = plain(fastperf.simulate(6, processes=5, iterations=12, icc=0.3, seed=4).table)
    values = table.column("value").to_numpy().copy()
    values[table.column("iteration").to_numpy() < 3] *= 1.3
    table = table.set_column(table.column_names.index("value"), "value", pa.array(values))
    # the groups' rows interleaved, each group's rows in their order
    order = np.argsort(np.tile(np.arange(60), 12), kind="stable")
    table = table.take(pa.array(order))
    path = tmp_path / "transient.parquet"
    pq.write_table(table, path)
    want = fastperf.check(fastperf.read(str(path)))
    assert all("warmup" in flags for flags in want.groups.column("flags").to_pylist())
    check(fastperf.spark.check(spark.createDataFrame(table)), want)


# ------------------------------------------------------------------------- the module itself


LOCAL = {"describe": "describe", "compare": "compare", "speedup_test": "speedup_test",
         "sparc": "sparc", "aggregate_score": "aggregate_score", "check": "check"}


@pytest.mark.parametrize("name", sorted(LOCAL))
def test_same_options_as_the_local_function(name):
    ours = list(inspect.signature(getattr(fastperf.spark, name)).parameters.values())[1:]
    theirs = list(inspect.signature(getattr(fastperf, LOCAL[name])).parameters.values())[1:]
    assert [(p.name, p.kind, p.default) for p in ours] == \
        [(p.name, p.kind, p.default) for p in theirs]


def test_only_the_spark_module_imports_pyspark():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "spark.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "pyspark" for n in names), path
    code = "import sys, fastperf; assert 'pyspark' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_timestamp_and_nested_columns_that_play_no_role(spark, data):
    """A DataFrame with a timestamp column (the session's time zone left unset) and a list
    column gives the result of the rows without them: the timestamp failed with a bare
    AssertionError in pyspark's schema conversion (the zone was read as None)."""
    from pyspark.sql import functions as F  # deferred: optional dependency

    assert spark.conf.get("spark.sql.session.timeZone", None) is None  # the case: unset
    df, local = data
    wider = df.withColumn("when", F.current_timestamp()).withColumn("tags", F.array(F.lit("x")))
    check(fastperf.spark.describe(wider), fastperf.describe(local))
    check(fastperf.spark.compare(wider, baseline="baseline", candidate="candidate"),
          fastperf.compare(local, baseline="baseline", candidate="candidate"))


def test_errors_as_the_local_function(spark, data):
    df, local = data
    with pytest.raises(InputError, match="pyspark.sql.DataFrame"):
        fastperf.spark.describe(local)
    with pytest.raises(InputError) as want:
        fastperf.compare(local, baseline="baseline", candidate="nope")
    with pytest.raises(InputError) as got:
        fastperf.spark.compare(df, baseline="baseline", candidate="nope")
    assert str(got.value) == str(want.value)
    empty = df.limit(0)
    with pytest.raises(InputError) as want:
        fastperf.describe(local.slice(0, 0))
    with pytest.raises(InputError) as got:
        fastperf.spark.describe(empty)
    assert str(got.value) == str(want.value)
