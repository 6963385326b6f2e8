"""The BenchmarkDotNet readers (fastperf.io.benchmarkdotnet: JSON export;
fastperf.io.benchmarkdotnet_csv: CSV summary) on files written here by hand in the layout of
BenchmarkDotNet's JsonExporterBase and CsvExporter: workload result measurements, several
launches, params, jobs, memory, failed benchmarks, brief exports, unit conversion in cells."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

from fastperf import InputError
from fastperf.io.benchmarkdotnet import (looks_like_benchmarkdotnet, parse_parameters,
                                         read_benchmarkdotnet)
from fastperf.io.benchmarkdotnet_csv import (looks_like_benchmarkdotnet_csv,
                                             read_benchmarkdotnet_csv)
from fastperf.io.common import config_columns, load_json
from fastperf.io.summaries import is_summary_table

HOST = {"BenchmarkDotNetCaption": "BenchmarkDotNet", "BenchmarkDotNetVersion": "0.13.12",
        "OsVersion": "Ubuntu 22.04", "ProcessorName": "Some CPU", "LogicalCoreCount": 8,
        "RuntimeVersion": ".NET 8.0.1", "HasAttachedDebugger": False,
        "ChronometerFrequency": {"Hertz": 1000000000}}


def _m(mode, stage, launch, index, ops, ns):
    return {"IterationMode": mode, "IterationStage": stage, "LaunchIndex": launch,
            "IterationIndex": index, "Operations": ops, "Nanoseconds": ns}


def _bench(method, params="", job="DefaultJob", measurements=None, statistics=None,
           memory=None):
    shown = f" [{params.replace('&', ', ')}]" if params else ""
    full = f"Ns.Type.{method}" + (f"({params.replace('=', ': ').replace('&', ', ')})"
                                  if params else "")
    entry = {"DisplayInfo": f"Type.{method}: {job}{shown}", "Namespace": "Ns", "Type": "Type",
             "Method": method, "MethodTitle": method, "Parameters": params, "FullName": full,
             "Statistics": statistics}
    if memory is not None:
        entry["Memory"] = memory
    if measurements is not None:
        entry["Measurements"] = measurements
    return entry


def _read(tmp_path, doc):
    path = tmp_path / "report-full.json"
    path.write_text(json.dumps(doc))
    return read_benchmarkdotnet(path, load_json(path))


def test_workload_results_per_operation(tmp_path):
    measurements = [
        _m("Overhead", "Jitting", 1, 1, 1, 500), _m("Workload", "Jitting", 1, 1, 1, 900),
        _m("Workload", "Pilot", 1, 1, 16, 1600), _m("Workload", "Warmup", 1, 1, 1000, 99000),
        _m("Workload", "Actual", 1, 1, 1000, 101000), _m("Overhead", "Actual", 1, 1, 1000, 1000),
        _m("Workload", "Result", 1, 1, 1000, 100000), _m("Workload", "Result", 1, 2, 1000, 110000),
        _m("Workload", "Result", 2, 1, 2000, 190000), _m("Workload", "Result", 2, 2, 0, 5),
    ]
    stats = {"OriginalValues": [100.0, 110.0, 95.0], "N": 3, "Mean": 101.7}
    doc = {"Title": "t", "HostEnvironmentInfo": HOST,
           "Benchmarks": [_bench("Sum", params="N=10&Mode=fast", measurements=measurements,
                                 statistics=stats,
                                 memory={"Gen0Collections": 3, "TotalOperations": 4000,
                                         "BytesAllocatedPerOperation": 48})]}
    table = _read(tmp_path, doc)
    rows = table.to_pylist()
    time = [r for r in rows if r["unit"] == "ns/op"]
    assert [r["value"] for r in time] == [100.0, 110.0, 95.0, None]   # 0 operations: null
    assert [r["run"] for r in time] == [0, 1, 2, 3]
    assert [r["process"] for r in time] == [1, 1, 2, 2]              # LaunchIndex
    assert [r["iteration"] for r in time] == [1, 2, 1, 2]
    memory = [r for r in rows if r["unit"] == "B/op"]
    assert [(r["value"], r["run"]) for r in memory] == [(48.0, 0)]
    first = rows[0]
    assert first["benchmark"] == "Ns.Type.Sum(N: 10, Mode: fast)"
    assert (first["job"], first["param_N"], first["param_Mode"]) == ("DefaultJob", "10", "fast")
    assert first["RuntimeVersion"] == ".NET 8.0.1" and first["HasAttachedDebugger"] == "false"
    assert first["LogicalCoreCount"] == "8"
    assert "BenchmarkDotNetCaption" not in table.column_names
    assert "ChronometerFrequency" not in table.column_names
    assert config_columns(table)[:3] == ["job", "param_N", "param_Mode"]


def test_original_values_when_no_result_measurements_and_failed_benchmarks(tmp_path):
    doc = {"HostEnvironmentInfo": HOST, "Benchmarks": [
        _bench("A", job="ShortRun(IterationCount=3)", measurements=[_m("Workload", "Pilot", 1, 1, 1, 5)],
               statistics={"OriginalValues": [1.5, 2.5], "N": 2}),
        _bench("A", job=".NET 8.0", statistics={"OriginalValues": [3.0], "N": 1}),
        _bench("Broken", statistics=None, measurements=[]),
    ]}
    table = _read(tmp_path, doc)
    rows = table.to_pylist()
    assert [(r["benchmark"], r["job"], r["value"], r["run"]) for r in rows] == [
        ("Ns.Type.A", "ShortRun(IterationCount=3)", 1.5, 0),
        ("Ns.Type.A", "ShortRun(IterationCount=3)", 2.5, 1),
        ("Ns.Type.A", ".NET 8.0", 3.0, 0),
        ("Ns.Type.Broken", "DefaultJob", None, 0),
    ]
    # no launch is told apart (no result measurement): no level columns
    assert "process" not in table.column_names and "iteration" not in table.column_names


def test_launches_are_processes_and_rows_without_launch_are_null(tmp_path):
    two_launches = [_m("Workload", "Result", 1, 1, 10, 100), _m("Workload", "Result", 1, 2, 10, 110),
                    _m("Workload", "Result", 2, 1, 10, 120), _m("Workload", "Result", 3, 1, 10, 130),
                    _m("Workload", "Warmup", 3, 1, 10, 999)]
    doc = {"HostEnvironmentInfo": HOST, "Benchmarks": [
        _bench("A", measurements=two_launches, statistics={"OriginalValues": [10.0, 11.0, 12.0, 13.0]},
               memory={"BytesAllocatedPerOperation": 24}),
        _bench("B", statistics={"OriginalValues": [5.0, 6.0]})]}
    table = _read(tmp_path, doc)
    assert table.schema.field("process").type == table.schema.field("iteration").type == pa.int64()
    assert [(r["benchmark"], r["unit"], r["value"], r["run"], r["process"], r["iteration"])
            for r in table.to_pylist()] == [
        ("Ns.Type.A", "ns/op", 10.0, 0, 1, 1), ("Ns.Type.A", "ns/op", 11.0, 1, 1, 2),
        ("Ns.Type.A", "ns/op", 12.0, 2, 2, 1), ("Ns.Type.A", "ns/op", 13.0, 3, 3, 1),
        ("Ns.Type.A", "B/op", 24.0, 0, None, None),          # one value per benchmark
        ("Ns.Type.B", "ns/op", 5.0, 0, None, None), ("Ns.Type.B", "ns/op", 6.0, 1, None, None),
    ]


def test_statistics_only_gives_a_summary_table(tmp_path):
    stats = {"N": 15, "Mean": 24.4, "StandardDeviation": 0.2, "Min": 24.0, "Max": 24.8,
             "Median": 24.41, "Q1": 24.3, "Q3": 24.5, "InterquartileRange": 0.2}
    doc = {"HostEnvironmentInfo": HOST, "Benchmarks": [
        _bench("Fib", statistics=stats, memory={"BytesAllocatedPerOperation": 0}),
        _bench("Failed", statistics=None)]}
    table = _read(tmp_path, doc)
    assert is_summary_table(table)
    rows = table.to_pylist()
    assert [(r["benchmark"], r["unit"]) for r in rows] == [
        ("Ns.Type.Fib", "ns/op"), ("Ns.Type.Fib", "B/op"), ("Ns.Type.Failed", "ns/op")]
    fib = rows[0]
    assert (fib["n"], fib["mean"], fib["sd"], fib["min"], fib["max"], fib["median"],
            fib["iqr"]) == (15, 24.4, 0.2, 24.0, 24.8, 24.41, 0.2)
    assert rows[1]["mean"] == 0.0 and rows[1]["n"] is None
    assert rows[2]["mean"] is None


@pytest.mark.parametrize("doc, message", [
    ({"Benchmarks": []}, "not a BenchmarkDotNet"),
    ({"HostEnvironmentInfo": {}, "Benchmarks": []}, "no benchmarks"),
    ({"HostEnvironmentInfo": {}, "Benchmarks": [{"Statistics": None}]}, "FullName"),
    ({"HostEnvironmentInfo": {}, "Benchmarks": [
        _bench("A", measurements=[_m("Workload", "Result", 1, 1, 1, "slow")])]}, "not a number"),
    ({"HostEnvironmentInfo": {}, "Benchmarks": [
        _bench("A", statistics={"OriginalValues": [1.0]}),
        _bench("B", statistics={"Mean": 1.0, "N": 3})]}, "some benchmarks only"),
    # a negative operation count gave negative times with no word
    ({"HostEnvironmentInfo": {}, "Benchmarks": [
        _bench("A", measurements=[_m("Workload", "Result", 1, 1, -5, 1000.0)])]},
     "Operations -5.0 is negative"),
])
def test_malformed_json_is_an_input_error(tmp_path, doc, message):
    with pytest.raises(InputError, match=message):
        _read(tmp_path, doc)


def test_detection_and_parameters():
    assert looks_like_benchmarkdotnet({"HostEnvironmentInfo": {}, "Benchmarks": []})
    assert looks_like_benchmarkdotnet({"Benchmarks": [{"FullName": "a", "Statistics": None}]})
    assert not looks_like_benchmarkdotnet({"benchmarks": [], "context": {}})
    assert not looks_like_benchmarkdotnet([{"benchmark": "x"}])
    assert parse_parameters("N=10&Text=a=b&broken") == {"N": "10", "Text": "a=b"}
    assert parse_parameters("") == {} and parse_parameters(None) == {}


CSV = (
    "Method,Job,Runtime,IterationCount,N,Mean,Error,StdDev,Median,Gen0,Allocated\n"
    "Parse,.NET 8.0,.NET 8.0,15,10,631.84 ns,3.685 ns,3.077 ns,630.00 ns,0.0153,584 B\n"
    "Parse,.NET 8.0,.NET 8.0,15,100,\"1,234.5 μs\",\"7,206.000 ns\",2.5 us,1.2 ms,0.0000,8.5 KB\n"
    "Fail,.NET 6.0,.NET 6.0,15,10,NA,NA,NA,NA,-,NA\n"
)


def test_csv_summary_with_units_in_cells(tmp_path):
    path = tmp_path / "Type-report.csv"
    path.write_text(CSV, encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    assert looks_like_benchmarkdotnet_csv(text)
    table = read_benchmarkdotnet_csv(path, text)
    assert is_summary_table(table)
    rows = table.to_pylist()
    assert len(rows) == 6
    time = [r for r in rows if r["unit"] == "ns/op"]
    assert [r["mean"] for r in time] == [631.84, pytest.approx(1234.5e3), None]
    assert [r["sd"] for r in time] == [3.077, pytest.approx(2500.0), None]
    assert [r["median"] for r in time] == [630.0, pytest.approx(1.2e6), None]
    assert all(r["n"] is None for r in rows)   # no N/Iterations column: n unknown
    memory = [r for r in rows if r["unit"] == "B/op"]
    assert [r["mean"] for r in memory] == [584.0, 8.5 * 1024, None]
    assert [r["job"] for r in time] == [".NET 8.0", ".NET 8.0", ".NET 6.0"]
    assert [r["N"] for r in time] == ["10", "100", "10"]          # a parameter that differs
    assert [r["Runtime"] for r in time] == [".NET 8.0", ".NET 8.0", ".NET 6.0"]
    assert "IterationCount" not in table.column_names              # the same on every line
    assert config_columns(table) == ["job", "Runtime", "N"]


def test_csv_semicolons_units_in_header_and_iterations(tmp_path):
    text = ("Type;Method;Mean [us];StdDev [us];Q1 [us];Q3 [us];Iterations\n"
            "Bench;Run;1,250.5;12.5;1,240.0;1,260.0;15\n")
    path = tmp_path / "r.csv"
    path.write_text(text)
    assert looks_like_benchmarkdotnet_csv(text)
    row = read_benchmarkdotnet_csv(path, text).to_pylist()[0]
    assert row["benchmark"] == "Bench.Run"
    assert (row["n"], row["mean"], row["sd"]) == (15, pytest.approx(1250.5e3), pytest.approx(12.5e3))
    assert row["iqr"] == pytest.approx(20e3)


@pytest.mark.parametrize("text, message", [
    ("Method,Mean,Error\n", "no benchmarks"),
    ("Method,Mean,Error\nA,1.0 parsecs,0.1 ns\n", "not a number with a unit"),
    ("Method,Mean,Error\nA,1.0 ns\n", "fields"),
    ("name,value\nA,1\n", "not a BenchmarkDotNet"),
    ("Method,Mean,StdDev,Iterations\nA,1 ns,1 ns,many\n", "whole number"),
])
def test_malformed_csv_is_an_input_error(tmp_path, text, message):
    path = tmp_path / "r.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_benchmarkdotnet_csv(path, text)


def test_csv_detection():
    assert not looks_like_benchmarkdotnet_csv("benchmark,variant,value\na,b,1\n")
    assert not looks_like_benchmarkdotnet_csv("Method,Mean\nA,1\n")
    assert looks_like_benchmarkdotnet_csv("Method;Job;Mean;StdDev\n")
