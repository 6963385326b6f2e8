"""The levels every reader fills (docs/data-model.md; docs/readers.md, "Levels"): ``process``,
``iteration`` and ``round``, on files written here by hand, each expected column written out.

pyperf: each run with values is a worker process; Go text: each ``go test`` invocation (a block
of result lines between headers or ``PASS``/``ok`` lines) is a process, and invocations of
interleaved ``note:`` sections form rounds; hyperfine: every timed run is a process. JMH and
BenchmarkDotNet (fork, launch) are checked in tests/test_read_jmh.py and
tests/test_read_benchmarkdotnet.py; the real files of the shared folder in
tests/conformance/test_realworld_every_file.py. Readers whose files do not tell processes apart
(Google Benchmark repetitions run in one process, pytest-benchmark rounds) add no level column.
"""
from __future__ import annotations

import pyarrow as pa
import pytest

import fastperf
from fastperf import read
from fastperf.io.common import config_columns
from tool_files import gbench_doc, pytest_benchmark_doc, write_json

LEVELS = ("build", "process", "iteration", "round")


def levels_of(table: pa.Table) -> tuple[str, ...]:
    return tuple(c for c in LEVELS if c in table.column_names)


def columns(table: pa.Table, *names: str) -> list[tuple]:
    return list(zip(*(table.column(n).to_pylist() for n in names)))


# ------------------------------------------------------------------------------- pyperf


def test_pyperf_runs_are_processes(tmp_path):
    calibration = {"metadata": {"calibrate_loops": 16}, "warmups": [[1, 9.0], [16, 8.0]]}
    doc = {"version": "1.0", "metadata": {"unit": "second"}, "benchmarks": [
        {"metadata": {"name": "a"}, "runs": [
            calibration,
            {"warmups": [[16, 7.0]], "values": [1.0, 2.0, 3.0]},
            {"warmups": [[16, 7.0]], "values": [4.0, 5.0]},
            {"warmups": [[16, 7.0]]},  # a run without values: no process
            {"values": [6.0]}]},
        {"metadata": {"name": "b"}, "runs": [{"values": [7.0]}, {"values": [8.0]}]}]}
    table = read(write_json(tmp_path / "suite.json", doc))
    assert levels_of(table) == ("process", "iteration")
    assert columns(table, "benchmark", "value", "run", "process", "iteration") == [
        ("a", 1.0, 0, 0, 0), ("a", 2.0, 1, 0, 1), ("a", 3.0, 2, 0, 2),
        ("a", 4.0, 3, 1, 0), ("a", 5.0, 4, 1, 1),
        ("a", 6.0, 5, 2, 0),
        ("b", 7.0, 0, 0, 0), ("b", 8.0, 1, 1, 0),
    ]
    assert table.schema.field("process").type == table.schema.field("iteration").type == pa.int64()


# ------------------------------------------------------------------------------- hyperfine


def test_hyperfine_runs_are_processes(tmp_path):
    doc = {"results": [{"command": "sleep 0.1", "times": [0.11, 0.12, 0.10], "exit_codes": [0, 0, 0]},
                       {"command": "sleep 0.2", "times": [0.21, 0.22], "exit_codes": [0, 1]}]}
    table = read(write_json(tmp_path / "hf.json", doc))
    assert levels_of(table) == ("process",)
    assert columns(table, "benchmark", "run", "process", "exit_code") == [
        ("sleep 0.1", 0, 0, 0), ("sleep 0.1", 1, 1, 0), ("sleep 0.1", 2, 2, 0),
        ("sleep 0.2", 0, 0, 0), ("sleep 0.2", 1, 1, 1),
    ]


# ------------------------------------------------------------------------------- Go text


def go_file(tmp_path, name: str, lines: list[str]):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


HEADER = ["goos: linux", "goarch: amd64", "pkg: example.com/p", "cpu: Some CPU @ 3.00GHz"]


def test_go_one_invocation_has_no_levels(tmp_path):
    """``go test -count=3``: one process, so no level columns (the flat analysis applies)."""
    path = go_file(tmp_path, "count3.txt", HEADER + [
        "BenchmarkA-8  100  10 ns/op", "BenchmarkA-8  100  11 ns/op", "BenchmarkA-8  100  12 ns/op",
        "BenchmarkB-8  100  20 ns/op", "BenchmarkB-8  100  21 ns/op", "BenchmarkB-8  100  22 ns/op",
        "PASS", "ok  \texample.com/p\t1.234s"])
    table = read(path)
    assert levels_of(table) == ()
    assert table.column("run").to_pylist() == [0, 1, 2, 0, 1, 2]


def test_go_repeated_invocations_are_processes(tmp_path):
    """Three ``go test -count=2 -benchmem`` outputs appended: each header block a process."""
    path = go_file(tmp_path, "repeated.txt", [
        *HEADER,
        "BenchmarkA-8  100  10 ns/op", "BenchmarkA-8  100  11 ns/op",
        "BenchmarkB-8  100  20 ns/op  5 B/op", "BenchmarkB-8  100  21 ns/op  6 B/op",
        "PASS", "ok  \texample.com/p\t1.0s",
        *HEADER,
        "BenchmarkA-8  100  12 ns/op", "BenchmarkA-8  100  13 ns/op",
        "BenchmarkB-8  100  22 ns/op  7 B/op", "BenchmarkB-8  100  23 ns/op  8 B/op",
        "PASS", "ok  \texample.com/p\t1.0s",
        *HEADER,
        "BenchmarkA-8  100  14 ns/op",  # the last invocation ran A once
        "BenchmarkB-8  100  24 ns/op  9 B/op",
        "PASS", "ok  \texample.com/p\t1.0s"])
    table = read(path)
    assert levels_of(table) == ("process", "iteration")
    assert columns(table, "benchmark", "unit", "run", "process", "iteration") == [
        ("BenchmarkA-8", "sec/op", 0, 0, 0), ("BenchmarkA-8", "sec/op", 1, 0, 1),
        ("BenchmarkB-8", "sec/op", 0, 0, 0), ("BenchmarkB-8", "B/op", 0, 0, 0),
        ("BenchmarkB-8", "sec/op", 1, 0, 1), ("BenchmarkB-8", "B/op", 1, 0, 1),
        ("BenchmarkA-8", "sec/op", 2, 1, 0), ("BenchmarkA-8", "sec/op", 3, 1, 1),
        ("BenchmarkB-8", "sec/op", 2, 1, 0), ("BenchmarkB-8", "B/op", 2, 1, 0),
        ("BenchmarkB-8", "sec/op", 3, 1, 1), ("BenchmarkB-8", "B/op", 3, 1, 1),
        ("BenchmarkA-8", "sec/op", 4, 2, 0),
        ("BenchmarkB-8", "sec/op", 4, 2, 0), ("BenchmarkB-8", "B/op", 4, 2, 0),
    ]
    assert table.column("iterations").to_pylist() == [100] * 15  # Go's N, unchanged


def test_go_invocations_without_headers_end_at_pass_and_ok_lines(tmp_path):
    """Output without configuration lines (old Go, or headers stripped): a test binary's last
    line (``PASS``, ``ok  pkg  time``, ``FAIL``) ends its process."""
    path = go_file(tmp_path, "bare.txt", [
        "BenchmarkA  100  10 ns/op", "BenchmarkA  100  11 ns/op", "PASS",
        "BenchmarkA  100  12 ns/op", "ok  \texample.com/p\t1.0s",
        "BenchmarkA  100  13 ns/op", "FAIL\texample.com/p\t1.0s",
        "BenchmarkA  100  14 ns/op"])
    table = read(path)
    assert columns(table, "run", "process", "iteration") == [
        (0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 2, 0), (4, 3, 0)]
    assert "round" not in table.column_names


def test_go_packages_of_one_invocation_keep_their_own_processes(tmp_path):
    """``go test ./...`` twice: one header block per package; the same benchmark name in two
    packages is two benchmarks (``pkg``), each with its own processes."""
    def package(name: str, value: int) -> list[str]:
        return ["goos: linux", f"pkg: example.com/{name}", f"BenchmarkX  100  {value} ns/op",
                "PASS", f"ok  \texample.com/{name}\t1.0s"]
    path = go_file(tmp_path, "packages.txt",
                   package("a", 10) + package("b", 50) + package("a", 11) + package("b", 51))
    table = read(path)
    assert columns(table, "pkg", "run", "process", "iteration") == [
        ("example.com/a", 0, 0, 0), ("example.com/b", 0, 0, 0),
        ("example.com/a", 1, 1, 0), ("example.com/b", 1, 1, 0)]
    assert "round" not in table.column_names


def interleaved(order: list[str]) -> list[str]:
    """One ``go test -count=2`` invocation per note in `order`, each with its header; the
    values say the note and the invocation (base 1x, head 2x; x = its index in the file)."""
    lines = []
    for i, note in enumerate(order):
        base = 100 if note == "base" else 200
        lines += [f"note: {note}", *HEADER,
                  f"BenchmarkA-8  100  {base + 10 * i} ns/op",
                  f"BenchmarkA-8  100  {base + 10 * i + 1} ns/op", "PASS",
                  "ok  \texample.com/p\t1.0s"]
    return lines


def test_go_interleaved_notes_form_rounds(tmp_path):
    """The docs/compare.md recipe in one file: base and head alternate, so invocation k of each
    note is round k (and process k of its variant)."""
    table = read(go_file(tmp_path, "abab.txt", interleaved(["base", "head", "base", "head"])))
    assert levels_of(table) == ("process", "iteration", "round")
    assert columns(table, "variant", "value", "run", "process", "iteration", "round") == [
        ("base", pytest.approx(100e-9), 0, 0, 0, 0), ("base", pytest.approx(101e-9), 1, 0, 1, 0),
        ("head", pytest.approx(210e-9), 0, 0, 0, 0), ("head", pytest.approx(211e-9), 1, 0, 1, 0),
        ("base", pytest.approx(120e-9), 2, 1, 0, 1), ("base", pytest.approx(121e-9), 3, 1, 1, 1),
        ("head", pytest.approx(230e-9), 2, 1, 0, 1), ("head", pytest.approx(231e-9), 3, 1, 1, 1),
    ]
    assert "round" not in config_columns(table)


def test_go_counterbalanced_rounds(tmp_path):
    """``base head head base``: each round still holds one invocation of each note."""
    table = read(go_file(tmp_path, "abba.txt", interleaved(["base", "head", "head", "base"])))
    assert columns(table, "variant", "process", "round")[::2] == [
        ("base", 0, 0), ("head", 0, 0), ("head", 1, 1), ("base", 1, 1)]


def test_go_interleaved_packages_form_rounds(tmp_path):
    """Base and head alternate, each invocation testing two packages (two header blocks)."""
    lines = []
    for note in ("base", "head", "base", "head"):
        lines.append(f"note: {note}")
        for name in ("a", "b"):
            lines += ["goos: linux", f"pkg: example.com/{name}", "BenchmarkX  100  10 ns/op",
                      "PASS", f"ok  \texample.com/{name}\t1.0s"]
    table = read(go_file(tmp_path, "abab_packages.txt", lines))
    assert columns(table, "variant", "pkg", "process", "round") == [
        ("base", "example.com/a", 0, 0), ("base", "example.com/b", 0, 0),
        ("head", "example.com/a", 0, 0), ("head", "example.com/b", 0, 0),
        ("base", "example.com/a", 1, 1), ("base", "example.com/b", 1, 1),
        ("head", "example.com/a", 1, 1), ("head", "example.com/b", 1, 1),
    ]


def test_go_notes_one_after_the_other_are_no_rounds(tmp_path):
    """``base base head head``: processes, but the notes were not measured in rounds."""
    table = read(go_file(tmp_path, "aabb.txt", interleaved(["base", "base", "head", "head"])))
    assert levels_of(table) == ("process", "iteration")
    assert columns(table, "variant", "process")[::2] == [
        ("base", 0), ("base", 1), ("head", 0), ("head", 1)]


def test_go_one_section_per_note_has_no_levels(tmp_path):
    """``note: before`` / ``note: after`` sections of one invocation each: one process per
    variant, so neither process nor round."""
    table = read(go_file(tmp_path, "sections.txt", interleaved(["before", "after"])))
    assert levels_of(table) == ()
    assert table.column("variant").to_pylist() == ["before"] * 2 + ["after"] * 2


def test_go_configuration_keys_named_like_levels_stay_configuration(tmp_path):
    """A ``round:`` or ``process:`` line is configuration: ``config_round``, never the design's
    ``round``."""
    path = go_file(tmp_path, "keys.txt", ["round: 3", "process: worker", "iteration: x",
                                          "BenchmarkA  100  10 ns/op", "BenchmarkA  100  11 ns/op"])
    table = read(path)
    assert levels_of(table) == ()
    assert config_columns(table) == ["config_round", "config_process", "config_iteration"]
    assert table.column("config_round").to_pylist() == ["3", "3"]


# ------------------------------------------------------------------------------- the others


def test_readers_whose_files_do_not_tell_processes_apart_add_no_level(tmp_path):
    sim = fastperf.simulate(benchmarks=2, runs=4, seed=5)
    gbench = read(write_json(tmp_path / "gb.json", gbench_doc(sim.table, "baseline")))
    pytest_benchmark = read(write_json(tmp_path / "pb.json", pytest_benchmark_doc(sim.table, "baseline")))
    assert levels_of(gbench) == levels_of(pytest_benchmark) == ()
