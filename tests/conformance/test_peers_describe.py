"""`describe` against the summary statistics the benchmarking tools themselves wrote, in the
shared folder's real tool outputs.

hyperfine, pytest-benchmark and Google Benchmark store their own mean / median / standard
deviation / min / max next to the raw measurements; `describe` on the raw values must agree.
Moved from tests/test_describe_peers.py; tests/test_describe_tools.py makes the same checks on
files the tests write.
"""
import json

import pytest

import fastperf
from conftest import SHARED

TOOL_OUTPUT = SHARED / "data" / "tool-output"


def rows_by_benchmark(result):
    return {r["benchmark"]: r for r in result.groups.to_pylist()}


def test_hyperfine_statistics():
    path = TOOL_OUTPUT / "hyperfine-sum.json"
    got = rows_by_benchmark(fastperf.describe(path))
    for entry in json.loads(path.read_text())["results"]:
        row = got[entry["command"]]
        assert row["n"] == len(entry["times"])
        for ours, theirs in [("mean", "mean"), ("sd", "stddev"), ("median", "median"),
                             ("min", "min"), ("max", "max")]:
            assert row[ours] == pytest.approx(entry[theirs], rel=1e-12), ours


def test_pytest_benchmark_statistics():
    path = TOOL_OUTPUT / "pytest-benchmark-sorts.json"
    got = rows_by_benchmark(fastperf.describe(path))
    for bench in json.loads(path.read_text())["benchmarks"]:
        row, stats = got[bench["fullname"]], bench["stats"]
        assert row["n"] == stats["rounds"]
        for ours, theirs in [("mean", "mean"), ("sd", "stddev"), ("median", "median"),
                             ("min", "min"), ("max", "max")]:
            assert row[ours] == pytest.approx(stats[theirs], rel=1e-12), ours


def test_google_benchmark_aggregates():
    path = TOOL_OUTPUT / "google-benchmark-sorts.json"
    got = rows_by_benchmark(fastperf.describe(path))
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    aggregates = [b for b in json.loads(path.read_text())["benchmarks"] if b["run_type"] == "aggregate"]
    assert aggregates
    for agg in aggregates:
        row = got[agg["run_name"]]
        assert row["n"] == agg["repetitions"]
        name = agg["aggregate_name"]
        if name == "cv":  # a ratio, no unit
            assert row["cv"] == pytest.approx(agg["real_time"], rel=1e-9)
            continue
        ours = {"mean": "mean", "median": "median", "stddev": "sd"}[name]
        assert row[ours] == pytest.approx(agg["real_time"] * scale[agg["time_unit"]], rel=1e-9)
