"""One-way ANOVA per benchmark (10,000 benchmarks x 4 alternatives x 50 runs) against a pandas
group-by + ``scipy.stats.f_oneway`` loop, and one ANOVA of 10 million values / 1,000 alternatives.

Run: ``pytest bench/test_anova_bench.py``. Targets: at least 10x the pandas+scipy loop; the
10-million-value ANOVA under 1 s.
"""
import time

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats

from fastperf.designs.anova import anova

ROUNDS = dict(rounds=5, iterations=1, warmup_rounds=1)
GROUP = "anova per benchmark, 10,000 benchmarks x 4 alternatives x 50 runs"


def measurement_table(benchmarks: int, alternatives: int, runs: int, seed: int = 0) -> pa.Table:
    """Long table (benchmark, variant, value); keys dictionary-encoded as Parquet gives them."""
    rng = np.random.default_rng(seed)
    n = benchmarks * alternatives * runs
    bench_codes = np.repeat(np.arange(benchmarks, dtype=np.int32), alternatives * runs)
    variant_codes = np.tile(np.repeat(np.arange(alternatives, dtype=np.int32), runs), benchmarks)
    level = rng.uniform(1, 10, size=benchmarks * alternatives)
    value = level[bench_codes.astype(np.int64) * alternatives + variant_codes] * rng.lognormal(
        0, 0.05, size=n)
    return pa.table({
        "benchmark": pa.DictionaryArray.from_arrays(
            bench_codes, pa.array([f"bench{i:05d}" for i in range(benchmarks)])),
        "variant": pa.DictionaryArray.from_arrays(
            variant_codes, pa.array([f"v{j}" for j in range(alternatives)])),
        "value": value,
    })


@pytest.fixture(scope="module")
def table():
    return measurement_table(10_000, 4, 50)


@pytest.fixture(scope="module")
def frame(table):
    return table.to_pandas()


def pandas_scipy_anova(df):
    out = {}
    for name, g in df.groupby("benchmark", observed=True, sort=False):
        samples = [s.to_numpy() for _, s in g.groupby("variant", observed=True)["value"]]
        out[name] = scipy.stats.f_oneway(*samples)
    return out


def test_anova_fastperf(benchmark, table):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "fastperf"
    anova(table.slice(0, 10_000), by="benchmark")  # compile outside the timing
    result = benchmark.pedantic(anova, args=(table,), kwargs={"by": "benchmark"}, **ROUNDS)
    assert result.groups.num_rows == 10_000
    assert (result.groups.column("status").to_numpy(zero_copy_only=False) == "ok").all()


def test_anova_pandas_scipy(benchmark, frame, table):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "pandas+scipy"
    result = benchmark.pedantic(pandas_scipy_anova, args=(frame,), rounds=2, iterations=1,
                                warmup_rounds=0)
    assert len(result) == 10_000
    ours = anova(table, by="benchmark").groups.column("f").to_numpy()
    theirs = np.array([r.statistic for r in result.values()])
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)


def test_anova_10m_values_1000_alternatives(benchmark):
    """10 million measurements in one group of 1,000 alternatives: target under 1 s."""
    big = measurement_table(1, 1_000, 10_000, seed=1).drop_columns(["benchmark"])
    anova(big.slice(0, 100_000))  # compile outside the timing
    benchmark.group = "anova, 10M values, 1 group of 1,000 alternatives"
    benchmark.extra_info["side"] = "fastperf"
    result = benchmark.pedantic(anova, args=(big,), **ROUNDS)
    assert result.groups.column("k").to_pylist() == [1_000]
    start = time.perf_counter()
    anova(big)
    elapsed = time.perf_counter() - start
    benchmark.extra_info["one call (s)"] = round(elapsed, 3)
    assert benchmark.stats.stats.median < 1.0
