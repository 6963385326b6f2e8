"""pytest-benchmark saves without per-round data, and the .benchmarks/ storage folder
(fastperf.io.pytest_benchmark_summaries), on files written here after pytest-benchmark's saved
JSON (``--benchmark-autosave``; with ``--benchmark-save-data`` the stats hold ``data``)."""
import json
import statistics

import pytest

from fastperf import InputError
from fastperf.io.common import config_columns
from fastperf.io.summaries import is_summary_table
from fastperf.io.pytest_benchmark_summaries import (
    looks_like_pytest_benchmark_tree, read_pytest_benchmark_summaries, read_pytest_benchmark_tree,
)


def stats_of(data):
    """What pytest-benchmark's Stats writes for these rounds (the same formulas)."""
    data = sorted(data)
    q1, _, q3 = statistics.quantiles(data, n=4) if len(data) > 1 else (data[0],) * 3
    return {"min": data[0], "max": data[-1], "mean": statistics.fmean(data),
            "stddev": statistics.stdev(data) if len(data) > 1 else 0, "rounds": len(data),
            "median": statistics.median(data), "iqr": q3 - q1, "q1": q1, "q3": q3,
            "iqr_outliers": 0, "stddev_outliers": 0, "outliers": "0;0", "ld15iqr": data[0],
            "hd15iqr": data[-1], "ops": 1 / statistics.fmean(data), "total": sum(data),
            "iterations": 1}


def save(benchmarks, with_data=False):
    out = []
    for name, data in benchmarks:
        stats = stats_of(data)
        if with_data:
            stats["data"] = list(data)
        out.append({"group": None, "name": name.split("::")[-1], "fullname": name,
                    "params": None, "param": None, "extra_info": {},
                    "options": {"min_rounds": 5}, "stats": stats})
    return {"machine_info": {"node": "box"}, "commit_info": {"id": "abc"},
            "benchmarks": out, "datetime": "2026-01-01T00:00:00", "version": "5.1.0"}


ROUNDS_A = [0.010, 0.012, 0.011, 0.013, 0.010]
ROUNDS_B = [2e-6, 3e-6, 2.5e-6]


def test_summaries_from_stats(tmp_path):
    doc = save([("tests/t.py::test_a", ROUNDS_A), ("tests/t.py::test_b[1]", ROUNDS_B),
                ("tests/t.py::test_once", [0.5])])
    table = read_pytest_benchmark_summaries(tmp_path / "x.json", doc)
    assert is_summary_table(table)
    assert table.column_names == ["benchmark", "unit", "n", "mean", "sd", "min", "max",
                                  "median", "iqr"]
    got = {r["benchmark"]: r for r in table.to_pylist()}
    a = got["tests/t.py::test_a"]
    assert a["unit"] == "s"
    assert (a["n"], a["min"], a["max"], a["median"]) == (5, 0.010, 0.013, 0.011)
    assert a["mean"] == pytest.approx(0.0112)
    assert a["sd"] == pytest.approx(statistics.stdev(ROUNDS_A))  # the sample sd, as stored
    assert a["iqr"] == pytest.approx(doc["benchmarks"][0]["stats"]["iqr"])
    assert got["tests/t.py::test_b[1]"]["n"] == 3
    once = got["tests/t.py::test_once"]
    assert (once["n"], once["mean"], once["sd"]) == (1, 0.5, None)  # stddev 0 of one round


def test_name_falls_back_to_name(tmp_path):
    doc = save([("t.py::test_a", ROUNDS_A)])
    del doc["benchmarks"][0]["fullname"]
    table = read_pytest_benchmark_summaries(tmp_path / "x.json", doc)
    assert table.column("benchmark").to_pylist() == ["test_a"]


@pytest.mark.parametrize("doc, message", [
    ({"benchmarks": [], "machine_info": {}}, "holds no benchmarks"),
    ({"results": []}, "not a pytest-benchmark JSON file"),
    ({"benchmarks": [{"stats": {"rounds": 3}}]}, "neither 'fullname' nor 'name'"),
    ({"benchmarks": [{"name": "a", "stats": {"rounds": 3}}, {"name": "b"}]}, "no 'stats'"),
    ({"benchmarks": [{"name": "a", "stats": {"rounds": 2.5, "mean": 1.0}}]},
     "rounds|n.*not a whole number"),
    ({"benchmarks": [{"name": "a", "stats": {"rounds": 3, "mean": "fast"}}]},
     "mean 'fast' is not a number"),
])
def test_errors(tmp_path, doc, message):
    with pytest.raises(InputError, match=message):
        read_pytest_benchmark_summaries(tmp_path / "x.json", doc)


def write_tree(root, saves):
    for machine, name, doc in saves:
        folder = root / machine
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps(doc))


def test_tree_of_summaries(tmp_path):
    root = tmp_path / ".benchmarks"
    first = "0001_aaaa_20260101_120000"
    second = "0002_bbbb_20260102_120000_uncommited-changes"
    write_tree(root, [("Linux-CPython-3.12-64bit", first, save([("t::a", ROUNDS_A)])),
                      ("Linux-CPython-3.12-64bit", second,
                       save([("t::a", ROUNDS_B), ("t::b", ROUNDS_A)]))])
    (root / "Linux-CPython-3.12-64bit" / "notes.json").write_text("{}")  # not a save: ignored
    assert looks_like_pytest_benchmark_tree(root)
    assert looks_like_pytest_benchmark_tree(root / "Linux-CPython-3.12-64bit")
    table = read_pytest_benchmark_tree(root)
    assert is_summary_table(table)
    assert config_columns(table) == ["machine"]
    got = [(r["benchmark"], r["variant"], r["n"], r["machine"]) for r in table.to_pylist()]
    assert got == [("t::a", first, 5, "Linux-CPython-3.12-64bit"),
                   ("t::a", second, 3, "Linux-CPython-3.12-64bit"),
                   ("t::b", second, 5, "Linux-CPython-3.12-64bit")]
    # one machine's folder read directly: no machine column
    flat = read_pytest_benchmark_tree(root / "Linux-CPython-3.12-64bit")
    assert "machine" not in flat.column_names and flat.num_rows == 3


def test_tree_with_data_is_raw(tmp_path):
    root = tmp_path / ".benchmarks"
    write_tree(root, [("m", "0001_a_1", save([("t::a", ROUNDS_A)], with_data=True)),
                      ("m", "0002_b_2", save([("t::a", ROUNDS_B)], with_data=True))])
    table = read_pytest_benchmark_tree(root)
    assert not is_summary_table(table)
    assert table.column_names == ["benchmark", "variant", "run", "unit", "value", "machine"]
    assert [(r["variant"], r["run"], r["value"]) for r in table.to_pylist()] == (
        [("0001_a_1", i, v) for i, v in enumerate(ROUNDS_A)]
        + [("0002_b_2", i, v) for i, v in enumerate(ROUNDS_B)])
    # one save without data: every save is read as summaries
    write_tree(root, [("m", "0003_c_3", save([("t::a", ROUNDS_A)]))])
    mixed = read_pytest_benchmark_tree(root)
    assert is_summary_table(mixed) and mixed.column("n").to_pylist() == [5, 3, 5]


def test_tree_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    assert not looks_like_pytest_benchmark_tree(tmp_path / "empty")
    assert not looks_like_pytest_benchmark_tree(tmp_path / "missing")
    with pytest.raises(InputError, match="not a pytest-benchmark storage folder"):
        read_pytest_benchmark_tree(tmp_path / "empty")
    bad = tmp_path / "bad" / "m"
    bad.mkdir(parents=True)
    (bad / "0001_x.json").write_text(json.dumps({"results": []}))
    with pytest.raises(InputError, match="0001_x.json: a pytest-benchmark save name"):
        read_pytest_benchmark_tree(tmp_path / "bad")
