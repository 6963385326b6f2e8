"""The Google Benchmark console reader (fastperf.io.google_benchmark_console) on output written
here by hand in the layout of Google Benchmark's ConsoleReporter: repetitions with aggregate
lines, units per benchmark, counters, errors, several tables in one file, colour codes; and the
same run as JSON read by the JSON reader gives the same values."""
from __future__ import annotations

import json

import pytest

from fastperf import InputError
from fastperf.io.common import config_columns, load_json
from fastperf.io.google_benchmark import read_google_benchmark
from fastperf.io.google_benchmark_console import (looks_like_google_benchmark_console,
                                                  read_google_benchmark_console)

HEADER = """2024-05-01T10:00:00+00:00
Running ./bench
Run on (16 X 3600 MHz CPU s)
CPU Caches:
  L1 Data 32 KiB (x8)
  L2 Unified 512 KiB (x8)
Load Average: 1.10, 0.90, 0.80
***WARNING*** CPU scaling is enabled, the benchmark real time measurements may be noisy and will incur extra overhead.
--------------------------------------------------------------------------
Benchmark                Time             CPU   Iterations UserCounters...
--------------------------------------------------------------------------
"""

REPETITIONS = HEADER + """BM_Copy/8              1234 ns         1230 ns       567890 bytes_per_second=6.2G/s
BM_Copy/8              1240 ns         1236 ns       567890 bytes_per_second=6.1G/s
BM_Copy/8              1250.5 ns       1244 ns       567890 bytes_per_second=6.0G/s
BM_Copy/8_mean         1241 ns         1237 ns            3 bytes_per_second=6.1G/s
BM_Copy/8_median       1240 ns         1236 ns            3 bytes_per_second=6.1G/s
BM_Copy/8_stddev       8.30 ns         7.00 ns            3 bytes_per_second=0.1G/s
BM_Copy/8_cv           0.67 %          0.57 %             3 bytes_per_second=1.6%
BM_Copy/8_max          1250 ns         1244 ns            3
BM_Sort/1024           3.50 us         3.49 us       200000
BM_Sort/1024           3.60 us         3.58 us       200000
BM_Sort/1024_mean      3.55 us         3.53 us            2
BM_Fail/1            ERROR OCCURRED: 'could not open file'
working on 10 items 5 done
BM_Slow                  12 ms           11 ms           58
"""


def _read(tmp_path, text, **kwargs):
    path = tmp_path / "console.txt"
    path.write_text(text)
    return read_google_benchmark_console(path, path.read_text(), **kwargs)


def test_repetitions_aggregates_units_and_errors(tmp_path):
    table = _read(tmp_path, REPETITIONS)
    rows = table.to_pylist()
    assert table.column_names[:5] == ["benchmark", "run", "unit", "value", "iterations"]
    assert [(r["benchmark"], r["run"]) for r in rows] == [
        ("BM_Copy/8", 0), ("BM_Copy/8", 1), ("BM_Copy/8", 2), ("BM_Sort/1024", 0),
        ("BM_Sort/1024", 1), ("BM_Fail/1", 0), ("BM_Slow", 0)]
    values = [r["value"] for r in rows]
    assert values[5] is None
    assert values[:5] + values[6:] == pytest.approx([1234e-9, 1240e-9, 1250.5e-9, 3.5e-6,
                                                     3.6e-6, 12e-3])
    assert {r["unit"] for r in rows} == {"s"}
    assert [r["iterations"] for r in rows] == [567890] * 3 + [200000] * 2 + [None, 58]
    first = rows[0]
    assert (first["date"], first["executable"], first["num_cpus"], first["mhz_per_cpu"],
            first["cpu_scaling_enabled"]) == ("2024-05-01T10:00:00+00:00", "./bench", "16",
                                              "3600", "true")
    assert config_columns(table) == ["date", "executable", "num_cpus", "mhz_per_cpu",
                                     "cpu_scaling_enabled"]
    cpu = _read(tmp_path, REPETITIONS, metric="cpu_time").column("value").to_pylist()
    assert cpu[0] == pytest.approx(1230e-9) and cpu[3] == pytest.approx(3.49e-6)


def test_same_values_as_the_json_reader(tmp_path):
    doc = {"context": {"date": "2024-05-01T10:00:00+00:00", "executable": "./bench",
                       "num_cpus": 16, "mhz_per_cpu": 3600, "cpu_scaling_enabled": True},
           "benchmarks": [
               {"name": "BM_Sort/1024", "run_name": "BM_Sort/1024", "run_type": "iteration",
                "repetition_index": i, "iterations": 200000, "real_time": t, "cpu_time": t,
                "time_unit": "us"} for i, t in enumerate([3.5, 3.6])]}
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    from_json = read_google_benchmark(path, load_json(path))
    text = HEADER + ("BM_Sort/1024   3.50 us   3.50 us   200000\n"
                     "BM_Sort/1024   3.60 us   3.60 us   200000\n")
    from_console = _read(tmp_path, text)
    for name in ("benchmark", "run", "unit", "value", "iterations", "date", "executable",
                 "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled"):
        assert from_console.column(name).to_pylist() == from_json.column(name).to_pylist(), name


def test_several_tables_old_layout_and_colours(tmp_path):
    text = ("Debug:\n\nRun on (8 X 2600 MHz CPU s)\n2019-11-14 09:43:59\n"
            "***WARNING*** Library was built as DEBUG. Timings may be affected.\n"
            + "-" * 40 + "\nBenchmark        Time           CPU Iterations\n" + "-" * 40 + "\n"
            "BM_a            94 ms         94 ms          7\n"
            "BM_b/2000        3 ms          3 ms        213\n\n"
            "Release:\n\nRun on (8 X 2600 MHz CPU s)\n2019-11-14 09:46:33\n"
            + "-" * 40 + "\nBenchmark        Time           CPU Iterations\n" + "-" * 40 + "\n"
            "\x1b[32mBM_a      \x1b[0m\x1b[33m      23 ms \x1b[0m\x1b[36m        23 ms\x1b[0m"
            "\x1b[36m         31\x1b[0m\n")
    rows = _read(tmp_path, text).to_pylist()
    assert [(r["benchmark"], r["run"], r["value"], r["date"], r["library_build_type"])
            for r in rows] == [
        ("BM_a", 0, pytest.approx(0.094), "2019-11-14 09:43:59", "debug"),
        ("BM_b/2000", 0, pytest.approx(0.003), "2019-11-14 09:43:59", "debug"),
        ("BM_a", 0, pytest.approx(0.023), "2019-11-14 09:46:33", None)]


def test_detection():
    assert looks_like_google_benchmark_console(REPETITIONS)
    assert looks_like_google_benchmark_console("\x1b[1mBenchmark   Time   CPU   Iterations\n")
    assert not looks_like_google_benchmark_console("BenchmarkFoo-8  100  12 ns/op\n")
    assert not looks_like_google_benchmark_console("benchmark,value\nBM_a,1\n")


@pytest.mark.parametrize("text, message", [
    ("nothing here\n", "no Google Benchmark console table"),
    (HEADER, "no benchmark lines"),
    (HEADER + "BM_a_mean   1 ns   1 ns   3\nBM_a_stddev  0 ns  0 ns  3\n", "only aggregate"),
    (HEADER + "BM_a   1 fortnights   1 ns   3\n", "no benchmark lines"),
    (HEADER + "BM_a   2 %   1 %   3\n", "a time in '%'"),
    (HEADER + "BM_a   1e999 ns   1 ns   3\n", "float64 range"),
])
def test_malformed_output_is_an_input_error(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        _read(tmp_path, text)


def test_unknown_metric(tmp_path):
    with pytest.raises(InputError, match="metric"):
        _read(tmp_path, REPETITIONS, metric="wall")
