"""`describe` against the summary statistics the benchmarking tools themselves wrote, in the
shared folder's real tool outputs.

hyperfine, pytest-benchmark and Google Benchmark store their own mean / median / standard
deviation / min / max next to the raw measurements; `describe` on the raw values must agree.
Moved from tests/test_describe_peers.py; tests/test_describe_tools.py makes the same checks on
files the tests write.
"""
from conftest import SHARED
from test_describe_tools import (
    check_google_benchmark_aggregates, check_hyperfine_statistics, check_pytest_benchmark_statistics,
)

TOOL_OUTPUT = SHARED / "data" / "tool-output"


def test_hyperfine_statistics():
    check_hyperfine_statistics(TOOL_OUTPUT / "hyperfine-sum.json")


def test_pytest_benchmark_statistics():
    check_pytest_benchmark_statistics(TOOL_OUTPUT / "pytest-benchmark-sorts.json")


def test_google_benchmark_aggregates():
    assert check_google_benchmark_aggregates(TOOL_OUTPUT / "google-benchmark-sorts.json")
