"""`read` + `describe` on 10 million rows / 20,000 groups against pandas on the same data.

Run: ``pytest bench/test_describe_bench.py`` (needs the bench extra). Target (issue 2): at least
3x faster than pandas ``groupby(...).agg(count, mean, std, min, median, max)``, peak memory of
describe under 3x the value column's size.
"""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import fastperf

KEYS = ["benchmark", "variant"]
AGGREGATES = ["count", "mean", "std", "min", "median", "max"]
ROUNDS = dict(rounds=7, iterations=1, warmup_rounds=1)


def pandas_describe(df):
    return df.groupby(KEYS, observed=True, sort=False)["value"].agg(AGGREGATES)


@pytest.fixture(scope="module")
def table(table_10m_path):
    return pq.read_table(table_10m_path)


@pytest.fixture(scope="module")
def frame(table):
    return table.to_pandas()


def test_describe_fastperf(benchmark, table):
    benchmark.group = "describe, 10M rows in memory"
    benchmark.extra_info["side"] = "fastperf"
    result = benchmark.pedantic(fastperf.describe, args=(table,), **ROUNDS)
    assert result.groups.num_rows == 20_000


def test_describe_pandas(benchmark, frame):
    benchmark.group = "describe, 10M rows in memory"
    benchmark.extra_info["side"] = "pandas"
    result = benchmark.pedantic(pandas_describe, args=(frame,), **ROUNDS)
    assert len(result) == 20_000


def test_describe_numpy_sort_floor(benchmark, table):
    """The physical floor: one numpy sort of the value column (no grouping, no statistics)."""
    benchmark.group = "describe, 10M rows in memory"
    benchmark.extra_info["side"] = "numpy.sort"
    values = table.column("value").to_numpy()
    benchmark.pedantic(np.sort, args=(values,), **ROUNDS)


def test_read_describe_fastperf(benchmark, table_10m_path):
    benchmark.group = "read + describe, 10M-row Parquet file"
    benchmark.extra_info["side"] = "fastperf"
    benchmark.pedantic(lambda: fastperf.describe(fastperf.read(table_10m_path)), **ROUNDS)


def test_read_describe_pandas(benchmark, table_10m_path):
    benchmark.group = "read + describe, 10M-row Parquet file"
    benchmark.extra_info["side"] = "pandas"
    benchmark.pedantic(lambda: pandas_describe(pd.read_parquet(table_10m_path)), **ROUNDS)


PEAK_SCRIPT = r"""
import json, sys
import pyarrow.parquet as pq
import fastperf

def rss_kib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

table = pq.read_table(sys.argv[1])
value_bytes = table.column("value").nbytes
fastperf.describe(table.slice(0, 1000))  # compile and import outside the measurement
fastperf.describe(table.slice(0, 300_000))
before = rss_kib("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak (VmHWM) to the current RSS
fastperf.describe(table)
peak = rss_kib("VmHWM:")
print(json.dumps({"value_column_mb": value_bytes / 2**20, "peak_extra_mb": (peak - before) / 1024}))
"""


def test_describe_peak_memory(benchmark, table_10m_path):
    """Peak resident memory added by describe, in a fresh process (Linux: VmHWM reset)."""
    benchmark.group = "describe peak memory"
    benchmark.extra_info["side"] = "fastperf"
    out = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(table_10m_path)], check=True,
                         capture_output=True, text=True).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    ratio = figures["peak_extra_mb"] / figures["value_column_mb"]
    benchmark.extra_info["peak_extra_mb"] = round(figures["peak_extra_mb"], 1)
    benchmark.extra_info["value_column_mb"] = round(figures["value_column_mb"], 1)
    benchmark.extra_info["peak / value column"] = round(ratio, 2)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
