"""asv results files and results directories (fastperf.io.asv), on files written here by hand
after asv's format (asv/results.py: ``Results.save``, version 2; version 1 before asv 0.5)."""
import json
import statistics

import pytest

from fastperf import InputError
from fastperf.io.asv import (
    looks_like_asv, looks_like_asv_benchmarks, looks_like_asv_tree, read_asv, read_asv_tree,
)
from fastperf.io.common import config_columns
from fastperf.io.summaries import is_summary_table

COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
           "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat",
           "samples", "profile"]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def v2(results, commit=COMMIT, env="virtualenv-py3.11", machine="box"):
    return {"commit_hash": commit, "env_name": env, "date": 1700000000000,
            "params": {"machine": machine, "python": "3.11"}, "python": "3.11",
            "requirements": {}, "env_vars": {}, "result_columns": COLUMNS,
            "results": results, "durations": {}, "version": 2}


def write(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def rows(table):
    return table.to_pylist()


# A parameterized time benchmark (grid 2 x 2, one combination failed), samples stored.
GRID = [[[1.0, 2.0, None, 4.0], [["10", "20"], ["'a'", "'b'"]], "v", 0, 1.0,
         [0.9, 1.9, None, 3.9], [1.1, 2.1, None, 4.1], [0.95, 1.95, None, 3.95],
         [1.05, 2.05, None, 4.05], [100, 50, None, 10], [3, 3, None, 3],
         [[1.0, 0.9, 1.1], [2.0, 1.9, 2.1], None, [4.0, 3.9, 4.1]]]]
TRACK = [[42], [], "v", 0, 0.1]            # one measurement, no statistics
MEM = [[1024], [], "v", 0, 0.1]


def test_v2_with_samples_is_raw(tmp_path):
    path = write(tmp_path / "r.json", v2({"suite.time_grid": GRID[0], "suite.track_x": TRACK,
                                          "suite.mem_list": MEM}))
    data = json.loads(path.read_text())
    assert looks_like_asv(data)
    table = read_asv(path, data)
    assert not is_summary_table(table)
    assert table.column_names == ["benchmark", "variant", "run", "unit", "value", "params",
                                  "iterations", "machine", "env_name"]
    assert config_columns(table) == ["machine", "env_name"]
    got = rows(table)
    by = {}
    for r in got:
        by.setdefault(r["benchmark"], []).append(r)
    assert list(by) == ["suite.time_grid(10, 'a')", "suite.time_grid(10, 'b')",
                        "suite.time_grid(20, 'a')", "suite.time_grid(20, 'b')",
                        "suite.track_x", "suite.mem_list"]
    assert [r["value"] for r in by["suite.time_grid(10, 'a')"]] == [1.0, 0.9, 1.1]
    assert [r["run"] for r in by["suite.time_grid(10, 'a')"]] == [0, 1, 2]
    assert by["suite.time_grid(10, 'b')"][0]["iterations"] == 50
    # the failed combination: one row, null value
    assert [(r["run"], r["value"]) for r in by["suite.time_grid(20, 'a')"]] == [(0, None)]
    assert by["suite.time_grid(20, 'b')"][0]["params"] == "20, 'b'"
    assert [(r["unit"], r["value"]) for r in by["suite.track_x"]] == [("unit", 42.0)]
    assert [(r["unit"], r["value"]) for r in by["suite.mem_list"]] == [("B", 1024.0)]
    assert by["suite.track_x"][0]["params"] is None
    assert {r["variant"] for r in got} == {"01234567"}
    assert {(r["machine"], r["env_name"]) for r in got} == {("box", "virtualenv-py3.11")}
    assert {r["unit"] for r in by["suite.time_grid(10, 'a')"]} == {"s"}


def test_v2_without_samples_is_summary(tmp_path):
    entry = [[0.002, None], [["1", "2"]], "v", 0, 1.0, [0.0019, None], [0.0022, None],
             [0.00195, None], [0.00207, None], [1000, None], [10, None]]
    path = write(tmp_path / "r.json", v2({"b.time_f": entry, "b.track_y": TRACK}))
    table = read_asv(path, json.loads(path.read_text()))
    assert is_summary_table(table)
    assert table.column_names[:10] == ["benchmark", "variant", "unit", "n", "mean", "sd",
                                       "min", "max", "median", "iqr"]
    got = {r["benchmark"]: r for r in rows(table)}
    first = got["b.time_f(1)"]
    assert (first["n"], first["median"], first["iterations"]) == (10, 0.002, 1000)
    assert first["iqr"] == pytest.approx(0.00207 - 0.00195)
    assert (first["ci_99_a"], first["ci_99_b"]) == (0.0019, 0.0022)
    assert first["mean"] is None and first["sd"] is None and first["min"] is None
    failed = got["b.time_f(2)"]
    assert failed["median"] is None and failed["n"] is None
    track = got["b.track_y"]  # a single measurement: n = 1, every location statistic is it
    assert (track["n"], track["mean"], track["median"], track["min"], track["max"],
            track["sd"]) == (1, 42.0, 42.0, 42.0, 42.0, None)
    assert track["unit"] == "unit"


def test_mixed_samples_gives_summaries_computed_from_samples(tmp_path):
    with_samples = [[2.0], [], "v", 0, 1.0, None, None, [1.5], [2.5], [10], [4],
                    [[1.0, 2.0, 2.0, 3.0]]]
    without = [[5.0], [], "v", 0, 1.0, [4.0], [6.0], [4.5], [5.5], [10], [7]]
    path = write(tmp_path / "r.json", v2({"s.time_a": with_samples, "s.time_b": without}))
    got = {r["benchmark"]: r for r in rows(read_asv(path, json.loads(path.read_text())))}
    a = got["s.time_a"]
    assert (a["n"], a["mean"], a["min"], a["max"], a["median"]) == (4, 2.0, 1.0, 3.0, 2.0)
    assert a["sd"] == pytest.approx(statistics.stdev([1.0, 2.0, 2.0, 3.0]))
    assert a["iqr"] == 1.0
    assert (got["s.time_b"]["n"], got["s.time_b"]["median"]) == (7, 5.0)


def test_version_1_file(tmp_path):
    doc = {"commit_hash": "fedcba9876543210", "date": 1, "python": "2.7",
           "params": {"machine": "old", "python": "2.7"}, "requirements": {},
           "results": {"t.time_ok": 0.5, "t.time_failed": None, "t.time_skipped": float("nan"),
                       "t.time_p": {"params": [["1", "2", "3"]], "result": [1, 4, None]},
                       "t.time_ci": {"result": 3, "stats": [{"ci_99": [2.5, 3.5], "q_25": 2.75,
                                                             "q_75": 3.25, "repeat": 5}]}},
           "version": 1}
    path = tmp_path / "fedcba98-py2.7-numpy1.8.json"
    path.write_text(json.dumps(doc))  # NaN written as NaN, as asv's files have it
    data = json.loads(path.read_text())
    assert looks_like_asv(data)
    table = read_asv(path, data)
    assert is_summary_table(table)  # time results without samples
    got = {r["benchmark"]: r for r in rows(table)}
    assert list(got) == ["t.time_ok", "t.time_failed", "t.time_skipped", "t.time_p(1)",
                         "t.time_p(2)", "t.time_p(3)", "t.time_ci"]
    assert got["t.time_ok"]["median"] == 0.5 and got["t.time_ok"]["n"] is None
    assert got["t.time_failed"]["median"] is None
    assert got["t.time_skipped"]["median"] is None  # NaN (skipped) is read as null
    assert [got[f"t.time_p({i})"]["median"] for i in (1, 2, 3)] == [1.0, 4.0, None]
    ci = got["t.time_ci"]
    assert (ci["median"], ci["n"], ci["ci_99_a"], ci["ci_99_b"], ci["iqr"]) == (
        3.0, 5, 2.5, 3.5, 0.5)
    assert {r["variant"] for r in got.values()} == {"fedcba98"}
    assert {r["env_name"] for r in got.values()} == {"py2.7-numpy1.8"}  # from the file name


def test_units_from_benchmarks_json(tmp_path):
    suite = {"s.track_speed": {"name": "s.track_speed", "type": "track", "unit": "ops/s",
                               "params": [], "param_names": []},
             "s.peakmem_x": {"name": "s.peakmem_x", "type": "peakmemory", "unit": "bytes",
                             "params": [], "param_names": []},
             "version": 2}
    write(tmp_path / "results" / "benchmarks.json", suite)
    assert looks_like_asv_benchmarks(suite)
    assert not looks_like_asv(suite)
    path = write(tmp_path / "results" / "box" / "01234567-env.json",
                 v2({"s.track_speed": [[9.5]], "s.peakmem_x": [[2048]], "s.mem_y": [[8]],
                     "s.track_z": [[1]]}))
    table = read_asv(path, json.loads(path.read_text()))
    assert {r["benchmark"]: r["unit"] for r in rows(table)} == {
        "s.track_speed": "ops/s", "s.peakmem_x": "B", "s.mem_y": "B", "s.track_z": "unit"}


def test_tree(tmp_path):
    root = tmp_path / "results"
    write(root / "benchmarks.json", {"version": 2})
    write(root / "box" / "machine.json", {"machine": "box", "version": 1})
    samples = [[1.0], [], "v", 0, 1.0, None, None, None, None, [1], [2], [[1.0, 1.2]]]
    later = [[2.0], [], "v", 0, 1.0, None, None, None, None, [1], [3], [[2.0, 2.2, 2.4]]]
    write(root / "box" / "aaaaaaaa-env.json", v2({"s.time_a": samples}, commit="a" * 40))
    write(root / "box" / "bbbbbbbb-env.json", v2({"s.time_a": later}, commit="b" * 40))
    assert looks_like_asv_tree(root) and looks_like_asv_tree(root / "box")
    assert not looks_like_asv_tree(tmp_path / "nothing")
    table = read_asv_tree(root)
    assert not is_summary_table(table)
    got = rows(table)
    assert [(r["variant"], r["run"], r["value"]) for r in got] == [
        ("aaaaaaaa", 0, 1.0), ("aaaaaaaa", 1, 1.2),
        ("bbbbbbbb", 0, 2.0), ("bbbbbbbb", 1, 2.2), ("bbbbbbbb", 2, 2.4)]
    assert read_asv_tree(root / "box").num_rows == 5
    # one file without samples: the whole tree becomes summaries
    write(root / "box" / "cccccccc-env.json", v2({"s.time_a": [[3.0], [], "v", 0, 1.0, None,
                                                              None, [2.9], [3.1], [1], [5]]},
                                                  commit="c" * 40))
    summary = read_asv_tree(root)
    assert is_summary_table(summary)
    assert [(r["variant"], r["n"], r["median"]) for r in rows(summary)] == [
        ("aaaaaaaa", 2, 1.0), ("bbbbbbbb", 3, 2.0), ("cccccccc", 5, 3.0)]


def test_tree_errors(tmp_path):
    empty = tmp_path / "results"
    write(empty / "box" / "machine.json", {"machine": "box"})
    with pytest.raises(InputError, match="without results files"):
        read_asv_tree(empty)
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="not an asv results directory"):
        read_asv_tree(tmp_path / "plain")


@pytest.mark.parametrize("doc, message", [
    (v2({}), "no benchmarks"),
    ({"results": {}, "version": 2}, "not an asv results file"),
    (v2({"s.time_p": [[1.0], [["1", "2"]]]}), r"s\.time_p.*result must hold 2 entries"),
    (v2({"s.time_p": [[1.0], "1,2"]}), "params must be a list of lists"),
    (v2({"s.time_x": [["fast"]]}), "'fast' is not a number"),
    (v2({"s.time_x": [[1.0], [], "v", 0, 1, None, None, None, None, None, None, [5]]}),
     "samples must be lists"),
])
def test_errors(tmp_path, doc, message):
    path = write(tmp_path / "r.json", doc)
    with pytest.raises(InputError, match=message):
        read_asv(path, json.loads(path.read_text()))


def test_detection_does_not_claim_other_tools():
    assert not looks_like_asv({"results": [{"command": "sleep 1", "times": [1.0]}]})
    assert not looks_like_asv({"benchmarks": [{"name": "x", "stats": {}}]})
    assert not looks_like_asv({"results": {}, "params": {}})  # no commit_hash
    assert not looks_like_asv([{"commit_hash": "x"}])
    assert looks_like_asv({"commit_hash": "x", "results": {}, "params": {}})
    assert not looks_like_asv_benchmarks({"version": 2})
