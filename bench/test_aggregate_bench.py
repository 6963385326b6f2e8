"""Aggregate scores of 100 variants over 10,000 benchmarks x 31 runs (31 million rows).

Target (issue 9): under 1 s. The anchor is the same per-run geometric mean computed with pandas
(pivot of run x benchmark per variant, then numpy), on the same data in the same run.
"""
import numpy as np
import pyarrow.parquet as pq
import pytest

import fastperf
from conftest import measurement_file

ROUNDS = dict(rounds=5, iterations=1, warmup_rounds=1)


@pytest.fixture(scope="module")
def suite():
    return pq.read_table(measurement_file(10_000, 31, variants=100))


def pandas_per_run_geomean(df):
    logs = np.log(df["value"].to_numpy())
    per_run = df.assign(log=logs).groupby(["variant", "run"], observed=True)["log"].mean()
    scores = np.exp(per_run).groupby(level="variant", observed=True)
    return scores.agg(["mean", "std", "count"])


@pytest.mark.parametrize("side", ["fastperf", "pandas"])
def test_aggregate_per_run(benchmark, suite, side):
    benchmark.group = "aggregate_score per-run geomean, 100 variants x 10,000 benchmarks x 31 runs"
    benchmark.extra_info["side"] = side
    if side == "fastperf":
        result = benchmark.pedantic(fastperf.aggregate_score, args=(suite,), **ROUNDS)
        assert result.groups.num_rows == 100
    else:
        df = suite.to_pandas()
        benchmark.pedantic(pandas_per_run_geomean, args=(df,), **ROUNDS)


def test_aggregate_propagation(benchmark, suite):
    benchmark.group = "aggregate_score propagation, 100 variants x 10,000 benchmarks x 31 runs"
    benchmark.extra_info["side"] = "fastperf"
    result = benchmark.pedantic(fastperf.aggregate_score, args=(suite,),
                                kwargs={"method": "propagation"}, **ROUNDS)
    assert result.groups.num_rows == 100
