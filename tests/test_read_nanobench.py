"""nanobench JSON and CSV (fastperf.io.nanobench), on files written here after nanobench's
templates (``templates::json()``, ``templates::csv()`` in src/include/nanobench.h)."""
import pytest

from fastperf import InputError
from fastperf.io.common import config_columns
from fastperf.io.summaries import is_summary_table
from fastperf.io.hyperfine import looks_like_hyperfine
from fastperf.io.nanobench import (
    CSV_HEADER, looks_like_nanobench, looks_like_nanobench_csv, read_nanobench,
    read_nanobench_csv,
)


def result(name, measurements, *, title="t", unit="op", batch=1, complexity=-1):
    return {"title": title, "name": name, "unit": unit, "batch": batch,
            "complexityN": complexity, "epochs": len(measurements), "clockResolution": 1.8e-08,
            "clockResolutionMultiple": 1000, "maxEpochTime": 0.1, "minEpochTime": 0,
            "minEpochIterations": 1, "warmup": 0, "relative": 0,
            "median(elapsed)": 0.0, "totalTime": 0.001, "measurements": measurements}


def epoch(iterations, elapsed, **counters):
    return {"iterations": iterations, "elapsed": elapsed, **counters}


def test_epochs_are_rows(tmp_path):
    doc = {"results": [
        result("add", [epoch(100, 2e-9, cpucycles=6.5, instructions=12.0, pagefaults=0),
                       epoch(120, 3e-9, cpucycles=7.0, instructions=12.5, pagefaults=0)]),
        result("parse", [epoch(10, 5e-6)], unit="byte", batch=1000),
        result("add", [epoch(90, 4e-9)]),  # the same benchmark run again: runs continue
    ]}
    assert looks_like_nanobench(doc) and not looks_like_hyperfine(doc)
    table = read_nanobench(tmp_path / "n.json", doc)
    assert table.column_names == [
        "benchmark", "run", "unit", "value", "iterations", "batch", "batch_unit", "pagefaults",
        "cpucycles", "contextswitches", "instructions", "branchinstructions", "branchmisses",
        "title"]
    assert config_columns(table) == ["title"]
    rows = table.to_pylist()
    # elapsed is already seconds per iteration: kept as it is
    assert [(r["benchmark"], r["run"], r["value"], r["iterations"]) for r in rows] == [
        ("add", 0, 2e-9, 100), ("add", 1, 3e-9, 120), ("parse", 0, 5e-6, 10),
        ("add", 2, 4e-9, 90)]
    assert {r["unit"] for r in rows} == {"s"}
    assert (rows[2]["batch"], rows[2]["batch_unit"]) == (1000.0, "byte")
    assert (rows[0]["cpucycles"], rows[0]["instructions"], rows[0]["branchmisses"]) == (
        6.5, 12.0, None)
    assert rows[2]["cpucycles"] is None


def test_complexity_n_is_configuration(tmp_path):
    doc = {"results": [result("sort", [epoch(1, 1e-3)], complexity=10),
                       result("sort", [epoch(1, 1e-2), epoch(1, 2e-2)], complexity=100)]}
    table = read_nanobench(tmp_path / "n.json", doc)
    assert config_columns(table) == ["title", "complexityN"]
    assert [(r["complexityN"], r["run"]) for r in table.to_pylist()] == [
        ("10", 0), ("100", 0), ("100", 1)]


def test_detection_is_specific():
    hyperfine = {"results": [{"command": "sleep 0.1", "mean": 0.1, "times": [0.1, 0.1]}]}
    assert not looks_like_nanobench(hyperfine)
    assert not looks_like_nanobench({"results": []})  # hyperfine's empty export
    assert not looks_like_nanobench({"results": [{"name": "x", "measurements": []}]})
    assert not looks_like_nanobench([result("a", [])])
    assert looks_like_nanobench({"results": [result("a", [epoch(1, 1.0)])]})


@pytest.mark.parametrize("doc, message", [
    ({"results": [result("a", [])]}, "holds no measurements"),
    ({"results": []}, "not a nanobench JSON file"),
    ({"results": [result("a", [epoch(1, 1.0)]), {**result("b", []), "measurements": None}]},
     "not a nanobench JSON file|'b' has no 'measurements' list"),
    ({"results": [result("a", [epoch(1, 1.0)]), {**result("b", []), "name": None}]},
     r"results\[1\] has no 'name'"),
    ({"results": [result("a", [epoch(1, "slow")])]}, "benchmark 'a': elapsed 'slow' is not"),
    ({"results": [result("a", [epoch(1.5, 1.0)])]}, "iterations 1.5 is not a whole number"),
    ({"results": [result("a", [epoch(1, 1.0), 7])]}, "a measurement is not an object"),
])
def test_errors(tmp_path, doc, message):
    with pytest.raises(InputError, match=message):
        read_nanobench(tmp_path / "n.json", doc)


CSV = CSV_HEADER + "\n" + "\n".join([
    '"Hashing";"fnv1a";"byte";64;1.5e-09;0.0125;7.25;1.5;0.0625;0.00025',
    '"Hashing";"crc32";"byte";64;2.5e-09;0.25;;;;0.0005',
]) + "\n"


def test_csv_summary(tmp_path):
    assert looks_like_nanobench_csv(CSV)
    assert not looks_like_nanobench_csv('"name";"value"\n"a";1\n')
    table = read_nanobench_csv(tmp_path / "n.csv", CSV)
    assert is_summary_table(table)
    assert config_columns(table) == ["title"]
    rows = table.to_pylist()
    assert [(r["benchmark"], r["unit"], r["median"], r["n"], r["mean"]) for r in rows] == [
        ("fnv1a", "s", 1.5e-09, None, None), ("crc32", "s", 2.5e-09, None, None)]
    first = rows[0]
    assert (first["batch"], first["batch_unit"], first["mdape"], first["instructions"],
            first["branchinstructions"], first["branchmisses"], first["total"], first["title"]) \
        == (64.0, "byte", 0.0125, 7.25, 1.5, 0.0625, 0.00025, "Hashing")
    assert rows[1]["instructions"] is None


@pytest.mark.parametrize("text, message", [
    (CSV_HEADER + "\n", "holds no benchmark lines"),
    (CSV_HEADER + '\n"t";"a";"op";1;2e-9\n', ":2: malformed nanobench CSV file: 5 fields"),
    (CSV_HEADER + '\n"t";"a";"op";1;fast;0;0;0;0;0\n', ":2: .*elapsed 'fast' is not a number"),
    (CSV_HEADER + '\n"t";"a";"op";1;1e999;0;0;0;0;0\n', "beyond the float64 range"),
    ('"name";"value"\n', "not a nanobench CSV file"),
])
def test_csv_errors(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_nanobench_csv(tmp_path / "n.csv", text)
