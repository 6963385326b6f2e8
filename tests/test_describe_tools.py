"""`describe` against the summary statistics benchmarking tools store next to their raw values.

hyperfine, pytest-benchmark and Google Benchmark write their own mean / median / standard
deviation / min / max (Google Benchmark: mean, median, stddev, cv aggregates) beside the
measurements; the files here are written by tests/tool_files.py from `fastperf.simulate` tables,
those statistics computed with Python's `statistics` module. `describe` on the raw values must
agree. The same checks on real tool outputs: tests/conformance/test_peers_describe.py.
"""
import json

import pytest

import fastperf
from tool_files import gbench_doc, hyperfine_doc, pytest_benchmark_doc, write_json


@pytest.fixture(scope="module")
def sim():
    return fastperf.simulate(benchmarks=5, runs=40, seed=12)


def rows_by_benchmark(result):
    return {r["benchmark"]: r for r in result.groups.to_pylist()}


#: describe's columns and the names the tools give the same statistics
TOOL_STATISTICS = [("mean", "mean"), ("sd", "stddev"), ("median", "median"), ("min", "min"), ("max", "max")]


def check_hyperfine_statistics(path):
    """`describe` of a hyperfine export equals the statistics hyperfine wrote beside its times."""
    got = rows_by_benchmark(fastperf.describe(path))
    for entry in json.loads(path.read_text())["results"]:
        row = got[entry["command"]]
        assert row["n"] == len(entry["times"])
        for ours, theirs in TOOL_STATISTICS:
            assert row[ours] == pytest.approx(entry[theirs], rel=1e-12), ours


def check_pytest_benchmark_statistics(path):
    """`describe` of a pytest-benchmark file equals the statistics of its ``stats`` entries."""
    got = rows_by_benchmark(fastperf.describe(path))
    for bench in json.loads(path.read_text())["benchmarks"]:
        row, stats = got[bench["fullname"]], bench["stats"]
        assert row["n"] == stats["rounds"]
        for ours, theirs in TOOL_STATISTICS:
            assert row[ours] == pytest.approx(stats[theirs], rel=1e-12), ours


def check_google_benchmark_aggregates(path) -> list:
    """`describe` of a Google Benchmark file with repetitions equals its aggregate rows (mean,
    median, stddev in the file's time unit, cv as a ratio); returns those rows."""
    got = rows_by_benchmark(fastperf.describe(path))
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    aggregates = [b for b in json.loads(path.read_text())["benchmarks"] if b["run_type"] == "aggregate"]
    for agg in aggregates:
        row = got[agg["run_name"]]
        assert row["n"] == agg["repetitions"]
        name = agg["aggregate_name"]
        if name == "cv":  # a ratio, no unit
            assert row["cv"] == pytest.approx(agg["real_time"], rel=1e-9)
            continue
        ours = {"mean": "mean", "median": "median", "stddev": "sd"}[name]
        assert row[ours] == pytest.approx(agg["real_time"] * scale[agg["time_unit"]], rel=1e-9)
    return aggregates


def test_hyperfine_statistics(tmp_path, sim):
    check_hyperfine_statistics(write_json(tmp_path / "hyperfine.json", hyperfine_doc(sim.table, "baseline")))


def test_pytest_benchmark_statistics(tmp_path, sim):
    check_pytest_benchmark_statistics(
        write_json(tmp_path / "pytest-benchmark.json", pytest_benchmark_doc(sim.table, "candidate")))


@pytest.mark.parametrize("time_unit", ["ns", "us", "ms", "s"])
def test_google_benchmark_aggregates(tmp_path, sim, time_unit):
    path = write_json(tmp_path / "google-benchmark.json", gbench_doc(sim.table, "baseline", time_unit=time_unit))
    assert len(check_google_benchmark_aggregates(path)) == 4 * 5
