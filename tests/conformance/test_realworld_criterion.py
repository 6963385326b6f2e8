"""The criterion.rs, cargo bench (libtest), Haskell criterion and Catch2 readers on every file
of the shared folder's real-world outputs of those tools (data/realworld/criterion-rs,
cargo-bench, haskell-criterion, catch2; origins in its SOURCES.md). Counts of values per
benchmark (and the values themselves where cheap) are compared with an independent parse
written here with json and regular expressions, never the readers' code."""
from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import SHARED
from fastperf import InputError
from fastperf.io.cargo_bench import looks_like_cargo_bench, read_cargo_bench
from fastperf.io.catch2 import looks_like_catch2_console, looks_like_catch2_xml, read_catch2_console
from fastperf.io.common import load_json
from fastperf.io.summaries import is_summary_table
from fastperf.io.criterion import (
    looks_like_criterion_estimates, looks_like_criterion_sample, looks_like_criterion_tree,
    read_criterion_estimates, read_criterion_sample, read_criterion_tree,
)
from fastperf.io.criterion_messages import (
    looks_like_criterion_console, looks_like_criterion_messages_text, read_criterion_console,
    read_criterion_messages_text,
)
from fastperf.io.haskell_criterion import looks_like_haskell_criterion, read_haskell_criterion

REAL = SHARED / "data" / "realworld"
CRITERION = REAL / "criterion-rs"
CARGO = REAL / "cargo-bench"
HASKELL = REAL / "haskell-criterion"
CATCH2 = REAL / "catch2"
ALL_FILES = sorted(p for d in (CRITERION, CARGO, HASKELL, CATCH2) if d.is_dir()
                   for p in d.iterdir() if p.is_file())


def counts(table) -> Counter:
    return Counter(table.column("benchmark").to_pylist())


def test_every_file_is_covered():
    """Every file of the four folders is read by one of the tests below (a new file fails this)."""
    known = {"Iterative_new_sample.json", "Recursive_base_sample.json",
             "Recursive_new_estimates.json", "criterion_output.json", "argmm_bench_results.txt",
             "cargo_output.txt", "intset-compare_bench.json", "catch2_output_v3.txt"}
    assert {p.name for p in ALL_FILES} == known


@pytest.mark.parametrize("name", ["Iterative_new_sample.json", "Recursive_base_sample.json"])
def test_criterion_sample_files(name):
    path = CRITERION / name
    raw = json.loads(path.read_text())  # the pre-0.3 layout: [[iters...], [times...]]
    data = load_json(path)
    assert looks_like_criterion_sample(data) and not looks_like_criterion_estimates(data)
    table = read_criterion_sample(path, data)
    assert counts(table) == Counter({path.stem: len(raw[1])})
    expected = [t / n for n, t in zip(raw[0], raw[1])]
    assert table.column("value").to_pylist() == pytest.approx(expected, rel=1e-15)
    assert table.column("iterations").to_pylist() == [int(n) for n in raw[0]]
    assert set(table.column("unit").to_pylist()) == {"ns"}


def test_criterion_estimates_file():
    path = CRITERION / "Recursive_new_estimates.json"
    raw = json.loads(path.read_text())
    data = load_json(path)
    assert looks_like_criterion_estimates(data) and not looks_like_criterion_sample(data)
    table = read_criterion_estimates(path, data)
    assert is_summary_table(table)
    row, = table.to_pylist()
    assert (row["benchmark"], row["mean"], row["median"], row["sd"], row["n"]) == (
        path.stem, raw["Mean"]["point_estimate"], raw["Median"]["point_estimate"],
        raw["StdDev"]["point_estimate"], None)


def test_criterion_tree_built_from_the_real_files(tmp_path):
    """The real sample.json files placed where criterion writes them (a temporary tree)."""
    crit = tmp_path / "target" / "criterion"
    places = {"Recursive_base_sample.json": "Fibonacci/Recursive/base/sample.json",
              "Iterative_new_sample.json": "Fibonacci/Iterative/new/sample.json",
              "Recursive_new_estimates.json": "Fibonacci/Recursive/new/estimates.json"}
    for source, target in places.items():
        (crit / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CRITERION / source, crit / target)
    assert looks_like_criterion_tree(tmp_path / "target")
    table = read_criterion_tree(tmp_path / "target")
    got = Counter(zip(table.column("benchmark").to_pylist(), table.column("variant").to_pylist()))
    n_base = len(json.loads((CRITERION / "Recursive_base_sample.json").read_text())[1])
    n_new = len(json.loads((CRITERION / "Iterative_new_sample.json").read_text())[1])
    assert got == Counter({("Fibonacci/Recursive", "base"): n_base,
                           ("Fibonacci/Iterative", "new"): n_new})


def test_criterion_message_lines():
    path = CRITERION / "criterion_output.json"
    text = path.read_text()
    expected: Counter = Counter()
    values: list[float] = []
    for line in text.splitlines():
        if line.strip():
            msg = json.loads(line)
            if msg.get("reason") == "benchmark-complete":
                assert msg["unit"] == "ns"
                expected[msg["id"]] += len(msg["measured_values"])
                values += [v / n for v, n in zip(msg["measured_values"], msg["iteration_count"])]
    assert looks_like_criterion_messages_text(text)
    table = read_criterion_messages_text(path, text)
    assert counts(table) == expected
    assert table.column("value").to_pylist() == pytest.approx(values, rel=1e-15)


def test_criterion_console_output_is_refused_cleanly():
    path = CRITERION / "argmm_bench_results.txt"
    text = path.read_text()
    found = len(re.findall(r"^\S+\s+time:\s+\[", text, re.MULTILINE))
    assert found == 8
    assert looks_like_criterion_console(text)
    assert not looks_like_cargo_bench(text) and not looks_like_catch2_console(text)
    with pytest.raises(InputError, match=f"criterion.rs console output \\({found} "):
        read_criterion_console(path, text)


def test_cargo_bench_output():
    path = CARGO / "cargo_output.txt"
    text = path.read_text()
    pattern = re.compile(r"^test (\S+) \.\.\. bench:\s+([\d,]+) ns/iter \(\+/- ([\d,]+)\)$",
                         re.MULTILINE)
    expected = {m.group(1): (float(m.group(2).replace(",", "")), float(m.group(3).replace(",", "")))
                for m in pattern.finditer(text)}
    assert len(expected) == 2
    assert looks_like_cargo_bench(text)
    table = read_cargo_bench(path, text)
    assert is_summary_table(table)
    assert {r["benchmark"]: (r["median"], r["range"]) for r in table.to_pylist()} == expected


def test_haskell_criterion_report():
    path = HASKELL / "intset-compare_bench.json"
    raw = json.loads(path.read_text())
    expected: Counter = Counter()
    first: dict[str, float] = {}
    for report in raw[2]:
        keys = report["reportKeys"]
        t, n = keys.index("time"), keys.index("iters")
        expected[report["reportName"]] += len(report["reportMeasured"])
        row = report["reportMeasured"][0]
        first[report["reportName"]] = row[t] / row[n]
    data = load_json(path)
    assert looks_like_haskell_criterion(data)
    table = read_haskell_criterion(path, data)
    assert counts(table) == expected
    assert sum(expected.values()) == table.num_rows
    got_first = {r["benchmark"]: r["value"] for r in table.to_pylist() if r["run"] == 0}
    assert got_first == pytest.approx(first, rel=1e-15)


def test_catch2_console_output():
    path = CATCH2 / "catch2_output_v3.txt"
    text = path.read_text()
    lines = text.splitlines()
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    expected = {}
    for i, line in enumerate(lines):
        m = re.match(r"^(\S.*?)\s+(\d+)\s+(\d+)\s+[\d.]+ (?:ns|us|ms|s)\s*$", line)
        if m:
            mean = lines[i + 1].split()
            sd = lines[i + 2].split()
            n = int(m.group(2))
            expected[m.group(1)] = (n, float(mean[0]) * scale[mean[1]],
                                    float(sd[0]) * scale[sd[1]] * math.sqrt(n / (n - 1)))
    assert len(expected) == 4
    assert looks_like_catch2_console(text) and not looks_like_catch2_xml(text)
    table = read_catch2_console(path, text)
    got = {r["benchmark"]: (r["n"], r["mean"], r["sd"]) for r in table.to_pylist()}
    assert got.keys() == expected.keys()
    for name, (n, mean, sd) in expected.items():
        assert got[name][0] == n
        assert got[name][1] == pytest.approx(mean, rel=1e-12)
        assert got[name][2] == pytest.approx(sd, rel=1e-12)


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_no_other_reader_of_these_claims_a_file_it_does_not_own(path: Path):
    """Each file is claimed by exactly the detector of its own format among these readers."""
    text = path.read_text(errors="replace")
    claims = {
        "cargo-bench": looks_like_cargo_bench(text),
        "catch2-console": looks_like_catch2_console(text),
        "catch2-xml": looks_like_catch2_xml(text),
        "criterion-console": looks_like_criterion_console(text),
        "criterion-messages": looks_like_criterion_messages_text(text),
    }
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        claims.update({"criterion-sample": looks_like_criterion_sample(data),
                       "criterion-estimates": looks_like_criterion_estimates(data),
                       "haskell-criterion": looks_like_haskell_criterion(data)})
    assert sum(claims.values()) == 1, claims
