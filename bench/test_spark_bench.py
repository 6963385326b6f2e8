"""`fastperf.spark.compare` on Spark local[2], 10M rows, against the obvious user-written
alternative: ``groupBy("benchmark").applyInPandas`` calling ``scipy.stats.mannwhitneyu``
(two-sided) and ``numpy.median`` per benchmark (issue 21, bench b).

Data: 10,000 benchmarks x 2 variants x 500 runs = 10M rows (`fastperf.simulate`, one Parquet
file in bench/.data, as `conftest.table_10m_path`), read by Spark (``spark.read.parquet``).
``FASTPERF_SPARK_BENCH_BENCHMARKS`` sets another number of benchmarks (500 runs each).

Both sides start from the same DataFrame and end with their per-benchmark table on the driver
(fastperf: its finished `CompareResult`, the adjusted p-values and verdicts included; the
alternative: ``toArrow()`` of its per-benchmark rows). One untimed run of each first (Python
workers started, Numba kernels compiled or loaded), then the median of ``ROUNDS`` runs.

Printed: seconds, rows per second of each side and the ratio alternative / fastperf. Asserted
(sanity only, no timing): both give one row per benchmark, with the same medians.
"""
from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import fastperf.spark
from conftest import measurement_file, median_time

BENCHMARKS = int(os.environ.get("FASTPERF_SPARK_BENCH_BENCHMARKS", 10_000))
RUNS = 500
ROUNDS = 3
ROWS = BENCHMARKS * RUNS * 2


@pytest.fixture(scope="module")
def spark():
    try:
        from pyspark import cloudpickle
        from pyspark.sql import SparkSession
    except ImportError:
        pytest.skip("pyspark is not installed (pip install '.[spark]')")
    # `per_benchmark` is shipped to the Python workers by pickle; by reference it would name
    # this test module, which the workers cannot import (bench/ is not on their path): pickle
    # this module's functions by value instead
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime")
    session = (SparkSession.builder.master("local[2]").appName("fastperf-spark-bench")
               .config("spark.driver.memory", "4g")
               .config("spark.sql.shuffle.partitions", "8")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def per_benchmark(frame):
    """One benchmark's rows (pandas) -> its medians, delta and two-sided Mann-Whitney p."""
    import pandas as pd
    import scipy.stats as sps

    x = frame.loc[frame["variant"] == "baseline", "value"].dropna().to_numpy()
    y = frame.loc[frame["variant"] == "candidate", "value"].dropna().to_numpy()
    med_x, med_y = np.median(x), np.median(y)
    p = sps.mannwhitneyu(y, x, alternative="two-sided").pvalue
    return pd.DataFrame({"benchmark": [frame["benchmark"].iloc[0]], "n_baseline": [x.size],
                         "n_candidate": [y.size], "median_baseline": [med_x],
                         "median_candidate": [med_y], "delta": [med_y / med_x - 1.0],
                         "pvalue": [p]})


SCHEMA = ("benchmark string, n_baseline long, n_candidate long, median_baseline double, "
          "median_candidate double, delta double, pvalue double")


def test_spark_compare_against_apply_in_pandas(spark):
    path = measurement_file(BENCHMARKS, RUNS)
    frame = spark.read.parquet(str(path))

    def ours():
        return fastperf.spark.compare(frame, baseline="baseline", candidate="candidate")

    def theirs():
        return frame.groupBy("benchmark").applyInPandas(per_benchmark, SCHEMA).toArrow()

    result, alternative = ours(), theirs()  # untimed: workers started, kernels compiled
    ours_s = median_time(ours, ROUNDS)
    theirs_s = median_time(theirs, ROUNDS)

    assert result.local.table.num_rows == BENCHMARKS == alternative.num_rows
    assert result.summary["comparisons"] == BENCHMARKS
    mine = result.local.table
    names = mine.column("benchmark").cast(pa.string())
    order = pc.index_in(names, alternative.column("benchmark"))
    theirs_rows = alternative.take(order)
    for column in ("median_baseline", "median_candidate"):
        assert np.array_equal(mine.column(column).to_numpy(),
                              theirs_rows.column(column).to_numpy())

    print(f"\nSpark local[2], {ROWS:,} rows ({BENCHMARKS:,} benchmarks x 2 variants x {RUNS} "
          f"runs), median of {ROUNDS} runs:")
    print(f"  fastperf.spark.compare:                 {ours_s:7.2f} s  "
          f"{ROWS / ours_s:12,.0f} rows/s")
    print(f"  groupBy.applyInPandas + scipy per group: {theirs_s:7.2f} s  "
          f"{ROWS / theirs_s:12,.0f} rows/s")
    print(f"  ratio (applyInPandas / fastperf.spark):  {theirs_s / ours_s:.2f}x")
