"""The JMH JSON reader (fastperf.io.jmh) on files written here by hand in the layout of JMH's
JSONResultFormat: modes, params, several forks, secondary metrics, sample-mode histograms, NaN
scores, files without raw data (summary tables), malformed files."""
from __future__ import annotations

import json
import math

import pytest
from scipy.stats import t as student_t

from fastperf import InputError
from fastperf.io.common import config_columns, load_json
from fastperf.io.summaries import is_summary_table
from fastperf.io.jmh import looks_like_jmh, read_jmh


def _entry(benchmark, mode="thrpt", unit="ops/s", raw=((1.0, 2.0),), forks=1, iterations=2,
           params=None, secondary=None, histogram=None, threads=1):
    primary = {"score": 1.5, "scoreError": "NaN", "scoreConfidence": ["NaN", "NaN"],
               "scorePercentiles": {"0.0": 1.0, "50.0": 1.5, "100.0": 2.0},
               "scoreUnit": unit}
    if histogram is not None:
        primary["rawDataHistogram"] = histogram
    else:
        primary["rawData"] = [list(f) for f in raw]
    out = {"jmhVersion": "1.37", "benchmark": benchmark, "mode": mode, "threads": threads,
           "forks": forks, "jvm": "/usr/bin/java", "jvmArgs": ["-Xmx2G", "-Xms2G"],
           "jdkVersion": "17.0.9", "vmName": "OpenJDK 64-Bit Server VM", "vmVersion": "17.0.9+9",
           "warmupIterations": 1, "warmupTime": "1 s", "warmupBatchSize": 1,
           "measurementIterations": iterations, "measurementTime": "1 s",
           "measurementBatchSize": 1}
    if params is not None:
        out["params"] = params
    out["primaryMetric"] = primary
    out["secondaryMetrics"] = secondary or {}
    return out


def _read(tmp_path, doc):
    path = tmp_path / "jmh.json"
    path.write_text(json.dumps(doc))
    data = load_json(path)
    return read_jmh(path, data)


def test_forks_params_and_units(tmp_path):
    doc = [
        _entry("org.a.B.put", raw=[(10.0, 11.0, 12.0), (13.0, 14.0, 15.0)], forks=2,
               iterations=3, params={"size": "10", "kind": "hash"}),
        _entry("org.a.B.put", raw=[(20.0, 21.0, 22.0), (23.0, 24.0, 25.0)], forks=2,
               iterations=3, params={"size": "100", "kind": "hash"}),
        _entry("org.a.B.get", mode="avgt", unit="ns/op", raw=[(5.5, 6.5)], threads=4),
    ]
    table = _read(tmp_path, doc)
    rows = table.to_pylist()
    assert table.column_names[:6] == ["benchmark", "run", "unit", "value", "process", "iteration"]
    assert len(rows) == 6 + 6 + 2
    small = [r for r in rows if r["param_size"] == "10"]
    assert [r["value"] for r in small] == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert [r["run"] for r in small] == [0, 1, 2, 3, 4, 5]        # fork * 3 + iteration
    assert [r["process"] for r in small] == [0, 0, 0, 1, 1, 1]    # the fork
    assert [r["iteration"] for r in small] == [0, 1, 2, 0, 1, 2]
    assert {r["unit"] for r in small} == {"ops/s"}
    get = [r for r in rows if r["benchmark"] == "org.a.B.get"]
    assert [(r["unit"], r["value"], r["mode"], r["threads"]) for r in get] == [
        ("ns/op", 5.5, "avgt", "4"), ("ns/op", 6.5, "avgt", "4")]
    assert get[0]["param_size"] is None and get[0]["param_kind"] is None
    assert get[0]["jvmArgs"] == "-Xmx2G,-Xms2G"
    assert config_columns(table) == ["mode", "threads", "param_size", "param_kind",
                                     "jdkVersion", "vmName", "vmVersion", "jvmArgs"]


def test_secondary_metrics_are_further_benchmarks(tmp_path):
    secondary = {
        "·gc.alloc.rate.norm": {"score": 24.0, "scoreError": 0.0, "scoreUnit": "B/op",
                                "rawData": [[24.0, 24.0], [24.0, 24.0]]},
        "·gc.count": {"score": "NaN", "scoreError": "NaN", "scoreUnit": "counts",
                      "rawData": [[], []]},  # no raw values: left out
    }
    doc = [_entry("x.Y.z", mode="avgt", unit="us/op", raw=[(1.0, 2.0), (3.0, 4.0)], forks=2,
                  secondary=secondary)]
    rows = _read(tmp_path, doc).to_pylist()
    by = {}
    for r in rows:
        by.setdefault((r["benchmark"], r["unit"]), []).append(r["value"])
    assert by == {("x.Y.z", "us/op"): [1.0, 2.0, 3.0, 4.0],
                  ("x.Y.z:·gc.alloc.rate.norm", "B/op"): [24.0] * 4}
    # the secondary metric's forks and iterations too: rawData[fork][iteration]
    assert [(r["process"], r["iteration"]) for r in rows] == [(0, 0), (0, 1), (1, 0), (1, 1)] * 2


def test_sample_mode_histogram_expands(tmp_path):
    histogram = [[[[10.0, 2], [12.5, 1]], [[11.0, 3]]], [[[9.0, 1]]]]
    doc = [_entry("s.T.m", mode="sample", unit="ns/op", histogram=histogram)]
    table = _read(tmp_path, doc)
    rows = table.to_pylist()
    assert [r["value"] for r in rows] == [10.0, 10.0, 12.5, 11.0, 11.0, 11.0, 9.0]
    assert [r["process"] for r in rows] == [0, 0, 0, 0, 0, 0, 1]
    assert [r["iteration"] for r in rows] == [0, 0, 0, 1, 1, 1, 0]
    assert [r["run"] for r in rows] == list(range(7))
    assert {r["mode"] for r in rows} == {"sample"}


def test_nan_and_infinite_scores(tmp_path):
    doc = [_entry("n.A.b", raw=[("NaN", 3.0, "+INF", "-INF")], iterations=4)]
    values = _read(tmp_path, doc).column("value").to_pylist()
    assert values[0] is None and values[1] == 3.0
    assert values[2] == math.inf and values[3] == -math.inf


def test_without_raw_data_gives_a_summary_table(tmp_path):
    thrpt = _entry("q.R.s", raw=[[], []], forks=2, iterations=5)
    thrpt["primaryMetric"].update(score=100.0, scoreError=4.0,
                                  scorePercentiles={"0.0": 90.0, "50.0": 99.0, "100.0": 110.0})
    sample = _entry("q.R.t", mode="sample", unit="ns/op", histogram=[])
    sample["primaryMetric"].update(score=7.0, scoreError=0.5)
    table = _read(tmp_path, [thrpt, sample])
    assert is_summary_table(table)
    rows = table.to_pylist()
    assert rows[0]["benchmark"] == "q.R.s" and rows[0]["unit"] == "ops/s"
    assert rows[0]["n"] == 10 and rows[0]["mean"] == 100.0
    assert rows[0]["sd"] == pytest.approx(4.0 * math.sqrt(10) / student_t.ppf(0.9995, 9))
    assert (rows[0]["min"], rows[0]["median"], rows[0]["max"]) == (90.0, 99.0, 110.0)
    assert rows[1]["n"] is None and rows[1]["sd"] is None and rows[1]["mean"] == 7.0
    assert rows[1]["mode"] == "sample"


def test_detection():
    assert looks_like_jmh([_entry("a.B.c")])
    assert not looks_like_jmh([])
    assert not looks_like_jmh({"benchmarks": []})
    assert not looks_like_jmh([{"name": "x", "value": 1}])
    assert not looks_like_jmh([1, 2, 3])


@pytest.mark.parametrize("doc, message", [
    ([], "no benchmarks"),
    ({"benchmark": "x"}, "JSON array"),
    ([{"mode": "thrpt"}], "'benchmark' name"),
    ([{"benchmark": "a.b"}], "primaryMetric"),
    ([_entry("a.b", unit="")], "scoreUnit"),
    ([_entry("a.b", raw=[("fast",)])], "not a number"),
    ([_entry("a.b", raw=[(1.0,)]), _entry("a.c", raw=[[]])], "rawData for some"),
])
def test_malformed_files_are_input_errors(tmp_path, doc, message):
    with pytest.raises(InputError, match=message):
        _read(tmp_path, doc)


def test_bad_histogram_and_raw_shapes(tmp_path):
    with pytest.raises(InputError, match="rawDataHistogram"):
        _read(tmp_path, [_entry("a.b", mode="sample", histogram=[[[[1.0, 2, 3]]]])])
    with pytest.raises(InputError, match="sample count"):
        _read(tmp_path, [_entry("a.b", mode="sample", histogram=[[[[1.0, -2]]]])])
    with pytest.raises(InputError, match="rawData"):
        _read(tmp_path, [_entry("a.b", raw=[(1.0,)], secondary={
            "x": {"scoreUnit": "B/op", "rawData": [3.0]}})])


def test_a_benchmark_listed_twice_continues_its_forks(tmp_path):
    """Two JMH runs of one benchmark concatenated: the second run's forks are JVMs of their
    own, not the first run's again (fork 0 of each merged into one "process", which made the
    nested analysis's ICC and effective n wrong). Oracle: one entry holding all four forks."""
    twice = [_entry("org.a.B.put", raw=[(1.0, 2.0), (3.0, 4.0)], forks=2),
             _entry("org.a.B.put", raw=[(5.0, 6.0), (7.0, 8.0)], forks=2)]
    once = [_entry("org.a.B.put", raw=[(1.0, 2.0), (3.0, 4.0), (5.0, 6.0), (7.0, 8.0)],
                   forks=4)]
    got, want = _read(tmp_path, twice), _read(tmp_path, once)
    assert got.column("process").to_pylist() == [0, 0, 1, 1, 2, 2, 3, 3]
    for column in ("benchmark", "value", "run", "process", "iteration"):
        assert got.column(column).to_pylist() == want.column(column).to_pylist(), column
    other = _read(tmp_path, [twice[0], _entry("org.a.B.put", raw=[(5.0, 6.0)],
                                              params={"size": "10"})])
    assert other.column("process").to_pylist() == [0, 0, 1, 1, 0, 0]  # another benchmark
