"""The criterion.rs readers (fastperf/io/criterion.py, fastperf/io/criterion_messages.py) on
files the tests write by hand following criterion's documented layout: the target/criterion
tree (groups with inputs, new/base and a saved baseline, report/ and change/ folders skipped),
single sample.json files (0.3+ object and the older pair of lists), estimates.json (both key
spellings), cargo-criterion --message-format=json lines, the console output (refused), and
the errors. Expected values are computed here from the numbers written (times / iters)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pytest

from fastperf import InputError
from fastperf.io.common import config_columns
from fastperf.io.summaries import is_summary_table
from fastperf.io.criterion import (
    looks_like_criterion_estimates, looks_like_criterion_sample, looks_like_criterion_tree,
    read_criterion_estimates, read_criterion_sample, read_criterion_tree,
)
from fastperf.io.criterion_messages import (
    looks_like_criterion_console, looks_like_criterion_messages,
    looks_like_criterion_messages_text, read_criterion_console, read_criterion_messages,
    read_criterion_messages_text,
)


def write(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def sample_doc(iters, times, mode="Linear"):
    return {"sampling_mode": mode, "iters": iters, "times": times}


def estimates_doc(mean, median, sd, capitalised=False):
    def est(x):
        return {"confidence_interval": {"confidence_level": 0.95, "lower_bound": x * 0.9,
                                        "upper_bound": x * 1.1},
                "point_estimate": x, "standard_error": x / 100}
    if capitalised:
        return {"Mean": est(mean), "Median": est(median), "StdDev": est(sd),
                "MedianAbsDev": est(sd / 2), "Slope": est(mean)}
    return {"mean": est(mean), "median": est(median), "std_dev": est(sd),
            "median_abs_dev": est(sd / 2), "slope": None}


def bench_json(group, function, value):
    full = "/".join(p for p in (group, function, value) if p is not None)
    return {"group_id": group, "function_id": function, "value_str": value,
            "throughput": None, "full_id": full, "directory_name": full, "title": full}


def make_tree(root: Path) -> Path:
    """target/criterion with fib/iterative/10 (new, base), fib/recursive/10 (new, saved
    baseline 'main'), alloc (new only, no benchmark.json: older layout), report folders."""
    crit = root / "target" / "criterion"
    b = crit / "fib" / "iterative" / "10"
    write(b / "new" / "sample.json", sample_doc([10, 20, 30], [100.0, 210.0, 330.0]))
    write(b / "new" / "benchmark.json", bench_json("fib", "iterative", "10"))
    write(b / "new" / "estimates.json", estimates_doc(10.5, 10.5, 0.5))
    write(b / "base" / "sample.json", sample_doc([10, 20], [120.0, 220.0]))
    write(b / "base" / "benchmark.json", bench_json("fib", "iterative", "10"))
    write(b / "change" / "estimates.json", estimates_doc(0.01, 0.01, 0.001))
    write(b / "report" / "sample.json", sample_doc([1], [1.0]))  # never read: a report folder
    r = crit / "fib" / "recursive" / "10"
    write(r / "new" / "sample.json", sample_doc([4, 8], [400.0, 1000.0], mode="Flat"))
    write(r / "new" / "benchmark.json", bench_json("fib", "recursive", "10"))
    write(r / "main" / "sample.json", sample_doc([4], [360.0]))
    write(r / "main" / "benchmark.json", bench_json("fib", "recursive", "10"))
    write(crit / "alloc" / "new" / "sample.json", [[2.0, 4.0], [50.0, 90.0]])
    (crit / "report").mkdir()
    (crit / "report" / "index.html").write_text("<html></html>")
    return crit


def rows(table: pa.Table) -> list[dict]:
    return table.to_pylist()


def test_tree_reads_every_variant_per_iteration(tmp_path):
    crit = make_tree(tmp_path)
    assert looks_like_criterion_tree(crit)
    assert looks_like_criterion_tree(tmp_path / "target")  # the folder above criterion/
    table = read_criterion_tree(crit)
    assert table.column_names == ["benchmark", "variant", "run", "unit", "value", "iterations"]
    got = {(r["benchmark"], r["variant"], r["run"]): (r["value"], r["iterations"], r["unit"])
           for r in rows(table)}
    assert got == {
        ("alloc", "new", 0): (25.0, 2, "ns"), ("alloc", "new", 1): (22.5, 4, "ns"),
        ("fib/iterative/10", "base", 0): (12.0, 10, "ns"),
        ("fib/iterative/10", "base", 1): (11.0, 20, "ns"),
        ("fib/iterative/10", "new", 0): (10.0, 10, "ns"),
        ("fib/iterative/10", "new", 1): (10.5, 20, "ns"),
        ("fib/iterative/10", "new", 2): (11.0, 30, "ns"),
        ("fib/recursive/10", "main", 0): (90.0, 4, "ns"),
        ("fib/recursive/10", "new", 0): (100.0, 4, "ns"),
        ("fib/recursive/10", "new", 1): (125.0, 8, "ns"),
    }
    assert table.num_rows == 10
    assert rows(read_criterion_tree(tmp_path / "target")) == rows(table)


def test_tree_without_samples_reads_estimates_as_summaries(tmp_path):
    crit = tmp_path / "criterion"
    write(crit / "g" / "f" / "new" / "estimates.json", estimates_doc(10.0, 9.0, 2.0))
    write(crit / "g" / "f" / "new" / "benchmark.json", bench_json("g", "f", None))
    write(crit / "g" / "f" / "base" / "estimates.json", estimates_doc(12.0, 11.0, 3.0, True))
    write(crit / "g" / "f" / "change" / "estimates.json", estimates_doc(0.2, 0.2, 0.01))
    assert looks_like_criterion_tree(crit)
    table = read_criterion_tree(crit)
    assert is_summary_table(table)
    got = {(r["benchmark"], r["variant"]): (r["mean"], r["median"], r["sd"], r["n"])
           for r in rows(table)}
    assert got == {("g/f", "new"): (10.0, 9.0, 2.0, None), ("g/f", "base"): (12.0, 11.0, 3.0, None)}


def test_tree_refusals(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not looks_like_criterion_tree(empty)
    assert not looks_like_criterion_tree(tmp_path / "missing")
    with pytest.raises(InputError, match="no criterion results"):
        read_criterion_tree(empty)
    bad = tmp_path / "bad"
    write(bad / "b" / "new" / "sample.json", {"iters": [1, 2], "times": [1.0]})
    with pytest.raises(InputError, match="2 iteration counts but 1 times"):
        read_criterion_tree(bad)


def test_single_sample_json_in_tree_and_alone(tmp_path):
    crit = make_tree(tmp_path)
    f = crit / "fib" / "iterative" / "10" / "base" / "sample.json"
    doc = json.loads(f.read_text())
    assert looks_like_criterion_sample(doc)
    table = read_criterion_sample(f, doc)
    assert table.column("benchmark").to_pylist() == ["fib/iterative/10"] * 2
    assert table.column("variant").to_pylist() == ["base", "base"]
    assert table.column("value").to_pylist() == [12.0, 11.0]
    # no benchmark.json: the folders up to 'criterion'
    f = crit / "alloc" / "new" / "sample.json"
    t = read_criterion_sample(f, json.loads(f.read_text()))
    assert set(t.column("benchmark").to_pylist()) == {"alloc"}
    # outside a tree: the stem, no variant
    alone = write(tmp_path / "Fib_sample.json", [[1.0, 2.0, 3.0], [30.0, 50.0, 90.0]])
    t = read_criterion_sample(alone, json.loads(alone.read_text()))
    assert t.column_names == ["benchmark", "run", "unit", "value", "iterations"]
    assert rows(t) == [
        {"benchmark": "Fib_sample", "run": i, "unit": "ns", "value": v, "iterations": n}
        for i, (n, v) in enumerate([(1, 30.0), (2, 25.0), (3, 30.0)])]
    # a new/ folder outside a criterion tree: the nearest folder names the benchmark
    lone = write(tmp_path / "x" / "mybench" / "new" / "sample.json", sample_doc([5], [50.0]))
    t = read_criterion_sample(lone, json.loads(lone.read_text()))
    assert rows(t) == [{"benchmark": "mybench", "variant": "new", "run": 0, "unit": "ns",
                        "value": 10.0, "iterations": 5}]


@pytest.mark.parametrize("doc, message", [
    ({"iters": [1, 0], "times": [1.0, 2.0]}, "not positive"),
    ({"iters": [1, 2.5], "times": [1.0, 2.0]}, "not a whole number"),
    ({"iters": [1, 2], "times": [1.0, 2.0, 3.0]}, "2 iteration counts but 3 times"),
    ({"iters": [], "times": []}, "holds no samples"),
])
def test_sample_errors(tmp_path, doc, message):
    f = write(tmp_path / "s.json", doc)
    with pytest.raises(InputError, match=message):
        read_criterion_sample(f, doc)


def test_sample_detection_is_specific():
    assert not looks_like_criterion_sample({"benchmarks": []})
    assert not looks_like_criterion_sample([[1, 2], [3]])  # unequal old-style lists
    assert not looks_like_criterion_sample([{"benchmark": "x", "primaryMetric": {}}])  # JMH
    assert not looks_like_criterion_sample({"iters": [1], "times": ["a"]})
    assert not looks_like_criterion_sample(["criterion", "1.5", []])


@pytest.mark.parametrize("capitalised", [False, True])
def test_estimates_summary(tmp_path, capitalised):
    doc = estimates_doc(19284.2, 19158.0, 508.8, capitalised)
    f = write(tmp_path / "b" / "new" / "estimates.json", doc)
    assert looks_like_criterion_estimates(doc)
    assert not looks_like_criterion_sample(doc)
    table = read_criterion_estimates(f, doc)
    assert is_summary_table(table)
    assert rows(table) == [{"benchmark": "b", "variant": "new", "unit": "ns", "n": None,
                            "mean": 19284.2, "sd": 508.8, "min": None, "max": None,
                            "median": 19158.0, "iqr": None}]
    change = write(tmp_path / "b" / "change" / "estimates.json", doc)
    with pytest.raises(InputError, match="relative changes"):
        read_criterion_estimates(change, doc)
    assert not looks_like_criterion_estimates({"mean": 3.0})
    with pytest.raises(InputError, match="not a criterion.rs estimates.json"):
        read_criterion_estimates(f, {"mean": 3.0})


def message(name, iters, values, unit="ns"):
    return {"reason": "benchmark-complete", "id": name, "report_directory": "/x",
            "iteration_count": iters, "measured_values": values, "unit": unit,
            "throughput": [], "typical": {"estimate": 1.0, "lower_bound": 0.9,
                                          "upper_bound": 1.1, "unit": unit}}


def test_messages_json_lines(tmp_path):
    lines = [
        "   Compiling demo v0.1.0",
        json.dumps(message("g/a", [2, 4.0], [10, 30])),
        json.dumps(message("g/b", [1, 2], [1.5, 5.0], unit="us")),
        json.dumps({"reason": "group-complete", "group_name": "g", "benchmarks": ["g/a", "g/b"],
                    "report_directory": "/x"}),
        "",
    ]
    text = "\n".join(lines)
    f = tmp_path / "out.json"
    f.write_text(text)
    assert looks_like_criterion_messages_text(text)
    table = read_criterion_messages_text(f, text)
    assert table.column_names == ["benchmark", "run", "unit", "value", "iterations"]
    assert rows(table) == [
        {"benchmark": "g/a", "run": 0, "unit": "ns", "value": 5.0, "iterations": 2},
        {"benchmark": "g/a", "run": 1, "unit": "ns", "value": 7.5, "iterations": 4},
        {"benchmark": "g/b", "run": 0, "unit": "ns", "value": 1500.0, "iterations": 1},
        {"benchmark": "g/b", "run": 1, "unit": "ns", "value": 2500.0, "iterations": 2},
    ]
    parsed = [json.loads(x) for x in lines if x.startswith("{")]
    assert looks_like_criterion_messages(parsed) and looks_like_criterion_messages(parsed[0])
    assert rows(read_criterion_messages(f, parsed)) == rows(table)
    assert rows(read_criterion_messages(f, parsed[0])) == rows(table)[:2]


def test_messages_errors(tmp_path):
    f = tmp_path / "m.json"
    only_group = [{"reason": "group-complete", "group_name": "g", "benchmarks": []}]
    assert looks_like_criterion_messages(only_group)
    with pytest.raises(InputError, match="no benchmark-complete"):
        read_criterion_messages(f, only_group)
    with pytest.raises(InputError, match="unknown unit"):
        read_criterion_messages(f, [message("a", [1], [1.0], unit="furlongs")])
    with pytest.raises(InputError, match="no samples"):
        read_criterion_messages(f, [message("a", [], [])])
    with pytest.raises(InputError, match="not valid JSON"):
        read_criterion_messages_text(f, json.dumps(message("a", [1], [1.0])) + "\n{broken")
    assert not looks_like_criterion_messages({"results": [{"command": "x"}]})
    assert not looks_like_criterion_messages_text('{"benchmarks": []}')
    assert not looks_like_criterion_messages_text("plain text")


def test_console_output_is_refused_with_advice(tmp_path):
    text = ("Benchmarking fib 20: Analyzing\n"
            "fib 20                  time:   [26.029 us 26.251 us 26.505 us]\n"
            "                        change: [-1.2% +0.3% +1.5%] (p = 0.67 > 0.05)\n")
    assert looks_like_criterion_console(text)
    assert not looks_like_criterion_console("test a ... bench:  10 ns/iter (+/- 1)")
    with pytest.raises(InputError, match="1 'time: .*target/criterion"):
        read_criterion_console(tmp_path / "c.txt", text)


def test_no_configuration_declared(tmp_path):
    crit = make_tree(tmp_path)
    assert config_columns(read_criterion_tree(crit)) == []
    assert all(math.isfinite(v) for v in read_criterion_tree(crit).column("value").to_pylist())
