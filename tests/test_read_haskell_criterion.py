"""The Haskell criterion readers, fastperf/io/haskell_criterion.py, on reports the tests write
by hand in criterion's layout: the JSON report (``["criterion", version, [reports]]`` with
reportMeasured rows in reportKeys order, object rows, summaries only) and the ``--csv``
summary (quoted names, bad rows, no rows). Expected values are time / iters of the rows
written."""
from __future__ import annotations

import json

import pytest

from fastperf import InputError
from fastperf.io.summaries import is_summary_table
from fastperf.io.haskell_criterion import (
    looks_like_haskell_criterion, looks_like_haskell_criterion_csv, read_haskell_criterion,
    read_haskell_criterion_csv,
)

KEYS = ["time", "cpuTime", "cycles", "iters", "allocated", "numGcs", "bytesCopied",
        "mutatorWallSeconds", "mutatorCpuSeconds", "gcWallSeconds", "gcCpuSeconds"]


def measured(time, iters):
    return [time, None, None, iters, None, None, None, None, None, None, None]


def report(number, name, rows, mean=1e-5, sd=1e-6):
    return {"reportNumber": number, "reportName": name, "reportKeys": KEYS,
            "reportMeasured": rows,
            "reportAnalysis": {"anMean": {"estPoint": mean, "estError": {}},
                               "anStdDev": {"estPoint": sd, "estError": {}},
                               "anRegress": [], "anOutlierVar": {}},
            "reportOutliers": {"samplesSeen": len(rows)}, "reportKDEs": []}


def doc(*reports):
    return ["criterion", "1.6.3.0", list(reports)]


def test_json_rows_are_seconds_per_iteration(tmp_path):
    data = doc(report(0, "fib/10", [measured(2e-5, 1), measured(3e-5, 2), measured(6e-5, 4)]),
               report(1, "fib/20", [measured(1.0, 8), measured(3.0, 16.0)]))
    assert looks_like_haskell_criterion(data)
    table = read_haskell_criterion(tmp_path / "r.json", data)
    assert not is_summary_table(table)
    assert table.column_names == ["benchmark", "run", "unit", "value", "iterations"]
    got = [(r["benchmark"], r["run"], r["unit"], r["iterations"]) for r in table.to_pylist()]
    assert got == [("fib/10", 0, "s", 1), ("fib/10", 1, "s", 2), ("fib/10", 2, "s", 4),
                   ("fib/20", 0, "s", 8), ("fib/20", 1, "s", 16)]
    assert table.column("value").to_pylist() == pytest.approx(
        [2e-5, 1.5e-5, 1.5e-5, 0.125, 0.1875], rel=1e-15)


def test_json_object_rows_and_other_key_order(tmp_path):
    rows = [{"measTime": 0.5, "measIters": 5, "measCycles": 1}]
    other = report(0, "a", [[4, 0.8]])
    other["reportKeys"] = ["iters", "time"]
    table = read_haskell_criterion(tmp_path / "r.json", doc(report(0, "obj", rows), other))
    assert table.column("value").to_pylist() == [0.1, 0.2]
    assert table.column("benchmark").to_pylist() == ["obj", "a"]


def test_json_without_measurements_is_a_summary(tmp_path):
    data = doc(report(0, "a", [], mean=2e-3, sd=1e-4), report(1, "b", [], mean=5e-3, sd=2e-4))
    table = read_haskell_criterion(tmp_path / "r.json", data)
    assert is_summary_table(table)
    assert [(r["benchmark"], r["mean"], r["sd"], r["n"], r["unit"]) for r in table.to_pylist()] \
        == [("a", 2e-3, 1e-4, None, "s"), ("b", 5e-3, 2e-4, None, "s")]


@pytest.mark.parametrize("data, message", [
    (doc(), "holds no benchmarks"),
    (doc(report(0, "a", [measured(1.0, 0)])), "not a positive whole number"),
    (doc(report(0, "a", [measured(1.0, 1.5)])), "not a positive whole number"),
    (doc(report(0, "a", [measured("x", 1)])), "not a finite number"),
    (doc(report(0, "a", [measured(1.0, 1)]), report(1, "b", [])), "while others have"),
    (["criterion", "1.0", [{"reportMeasured": [measured(1.0, 1)]}]], "no 'reportName'"),
    ({"criterion": 1}, "not a Haskell criterion JSON report"),
])
def test_json_errors(tmp_path, data, message):
    with pytest.raises(InputError, match=message):
        read_haskell_criterion(tmp_path / "r.json", data)


def test_json_detection_is_specific():
    assert not looks_like_haskell_criterion([[1, 2], [3, 4]])
    assert not looks_like_haskell_criterion({"benchmarks": []})
    assert not looks_like_haskell_criterion(["criterion", "1.0"])
    assert looks_like_haskell_criterion(json.loads(json.dumps(doc())))


CSV = ('Name,Mean,MeanLB,MeanUB,Stddev,StddevLB,StddevUB\n'
       'fib/10,1.0e-5,9.5e-6,1.1e-5,4.0e-7,3.0e-7,5.0e-7\n'
       '"map/insert, 1000",2.5e-3,2.4e-3,2.6e-3,1.0e-4,8.0e-5,1.2e-4\n'
       '\n')


def test_csv_summary(tmp_path):
    assert looks_like_haskell_criterion_csv(CSV)
    assert looks_like_haskell_criterion_csv("\ufeff" + CSV.replace("\n", "\r\n"))
    table = read_haskell_criterion_csv(tmp_path / "c.csv", CSV)
    assert is_summary_table(table)
    assert table.to_pylist() == [
        {"benchmark": "fib/10", "unit": "s", "n": None, "mean": 1.0e-5, "sd": 4.0e-7,
         "min": None, "max": None, "median": None, "iqr": None, "mean_lb": 9.5e-6,
         "mean_ub": 1.1e-5, "sd_lb": 3.0e-7, "sd_ub": 5.0e-7},
        {"benchmark": "map/insert, 1000", "unit": "s", "n": None, "mean": 2.5e-3, "sd": 1.0e-4,
         "min": None, "max": None, "median": None, "iqr": None, "mean_lb": 2.4e-3,
         "mean_ub": 2.6e-3, "sd_lb": 8.0e-5, "sd_ub": 1.2e-4},
    ]


@pytest.mark.parametrize("text, message", [
    ("Name,Mean,MeanLB,MeanUB,Stddev,StddevLB,StddevUB\n", "holds no benchmarks"),
    ("Name,Mean,MeanLB,MeanUB,Stddev,StddevLB,StddevUB\na,1,2\n", ":2: .* 3 fields"),
    ("Name,Mean,MeanLB,MeanUB,Stddev,StddevLB,StddevUB\na,1,2,3,x,5,6\n", "'x' is not a number"),
    ("Name,Mean,MeanLB,MeanUB,Stddev,StddevLB,StddevUB\na,1e999,2,3,4,5,6\n", "float64 range"),
    ("benchmark,value\na,1\n", "not a Haskell criterion CSV"),
])
def test_csv_errors(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_haskell_criterion_csv(tmp_path / "c.csv", text)
