"""Hostile files never crash a reader or the CLI: deeply nested JSON, numbers out of range,
undecodable bytes, and random tool-like text through every command.

A reader raises an `InputError` naming the file, line or benchmark and field; the CLI exits 2
with one line and no traceback (docs/cli.md).

Oracles: the hand-written inputs and the values they spell (2**63 - 1 is the largest int64,
float64 ends near 1.8e308: ``float(10**400)`` overflows); the exit-code contract of docs/cli.md.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastperf
from fastperf import InputError

from cli_calls import OUTSIDE_CHECKOUT, assert_clean_error, run_cli


DEEP = 100_000
INT64_MAX = 2**63 - 1


# ---------------------------------------------------------------------------------------------
# crash 4: deeply nested JSON


def deep_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"benchmarks": ' + "[" * DEEP + "]" * DEEP + "}")
    return path


def test_deep_json_read_is_input_error(tmp_path):
    path = deep_json(tmp_path)
    with pytest.raises(InputError, match="deep.json.*nested too deeply"):
        fastperf.read(path)
    for fmt in ("pyperf", "pytest-benchmark", "google-benchmark", "hyperfine"):
        with pytest.raises(InputError, match="deep.json.*nested too deeply"):
            fastperf.read(path, format=fmt)


def test_deep_json_cli_exits_2(tmp_path):
    code, _, err = run_cli(["describe", deep_json(tmp_path)])
    assert_clean_error(code, err, match="nested too deeply")


def test_deep_but_parseable_json_values_do_not_recurse(tmp_path):
    # 900 levels parse; a reader must not recurse into them (config_text, repr of the name)
    nested = json.loads("[" * 900 + "]" * 900)
    doc = {"version": "1.0", "metadata": {}, "benchmarks": [
        {"metadata": {"name": "a", "tags": nested}, "runs": [{"values": [1.0, 2.0]}]},
        {"metadata": {"name": "b"}, "runs": [{"values": [3.0]}]}]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    table = fastperf.read(path)
    assert table.column("value").to_pylist() == [1.0, 2.0, 3.0]
    assert "tags" not in table.column_names  # a nested list is no configuration text


# ---------------------------------------------------------------------------------------------
# crash 5: numbers out of range


@pytest.mark.parametrize("line, match", [
    ("BenchmarkX 99999999999999999999 5 ns/op", "go.txt:2: 'BenchmarkX': the iteration count"),
    ("BenchmarkX 9223372036854775808 5 ns/op", "go.txt:2: 'BenchmarkX': the iteration count"),
    ("BenchmarkX 1" + "0" * 5000 + " 5 ns/op", "go.txt:2: 'BenchmarkX': the iteration count"),
    ("BenchmarkX 10 1e999 ns/op", "go.txt:2: 'BenchmarkX': the value '1e999'"),
    ("BenchmarkX 10 5 ns/op 1e999 B/op", "go.txt:2: 'BenchmarkX': the value '1e999'"),
    ("BenchmarkX 10 -0x1p99999 ns/op", "go.txt:2: 'BenchmarkX': the value '-0x1p99999'"),
    ("BenchmarkX 10 1e305 MB/s", "go.txt:2: 'BenchmarkX': the value 1e+305 'MB/s' is beyond"),
])
def test_go_numbers_out_of_range(tmp_path, line, match):
    path = tmp_path / "go.txt"
    path.write_text("goos: linux\n" + line + "\n")
    with pytest.raises(InputError) as info:
        fastperf.read(path, format="go")
    assert match in str(info.value)
    code, _, err = run_cli(["describe", path, "--input-format", "go"])
    assert_clean_error(code, err, match="go.txt:2:")


def test_go_issue_reproducer_detected_by_content(tmp_path):
    path = tmp_path / "go.txt"
    path.write_text("BenchmarkX 99999999999999999999 5 ns/op\n")
    code, _, err = run_cli(["describe", path])
    assert_clean_error(code, err, match="out of range")


def test_go_numbers_at_the_edges_read_exactly(tmp_path):
    path = tmp_path / "go.txt"
    path.write_text(f"BenchmarkX {INT64_MAX} 5 ns/op\nBenchmarkX 0007 1.5e308 B/op\n"
                    "BenchmarkX 3 +Inf ns/op\n")
    table = fastperf.read(path)
    assert table.column("iterations").to_pylist() == [INT64_MAX, 7, 3]
    values = table.column("value").to_pylist()
    assert values[0] == 5e-9 and values[1] == 1.5e308 and values[2] == float("inf")


def google(row):
    base = {"name": "a", "run_type": "iteration", "real_time": 1, "time_unit": "ns",
            "iterations": 10}
    return {"context": {"host_name": "h"}, "benchmarks": [dict(base, **row)]}


@pytest.mark.parametrize("doc, match", [
    (google({"iterations": 10**30}), "benchmark 'a': iterations 1000000000000000000000000000000 "
                                     "is out of range"),
    (google({"real_time": 10**400}), "benchmark 'a': real_time an integer of about 401 digits"),
    (google({"repetition_index": 1.5}), "benchmark 'a': repetition_index 1.5 is not a whole"),
    (google({"repetition_index": -2**70}), "repetition_index"),
    ({"version": "1.0", "metadata": {"name": "p"},
      "benchmarks": [{"metadata": {}, "runs": [{"values": [1.0, 10**400]}]}]},
     "benchmark 'p': values an integer of about 401 digits is beyond the float64 range"),
    ({"results": [{"command": "c", "times": [1.0], "exit_codes": [2**64]}]},
     "benchmark 'c': exit_codes 18446744073709551616 is out of range"),
    ({"machine_info": {}, "benchmarks": [{"name": "t", "stats": {"data": [1.0, "x"]}}]},
     "benchmark 't': stats.data 'x' is not a number"),
])
def test_json_numbers_out_of_range_name_benchmark_and_field(tmp_path, doc, match):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as info:
        fastperf.read(path)
    assert str(info.value).startswith(f"{path}:") and match in str(info.value)
    code, _, err = run_cli(["describe", path])
    assert_clean_error(code, err, match=match)


@pytest.mark.parametrize("literal, match", [
    ("1e999", "r.json:3: the number '1e999' is beyond the float64 range"),
    ("-12e+0400", "r.json:3: the number '-12e+0400' is beyond the float64 range"),
    ("9" * 5000, "r.json:3: an integer of 5000 digits is out of range"),
])
def test_json_literals_out_of_range_name_the_line(tmp_path, literal, match):
    path = tmp_path / "r.json"
    path.write_text('{"results": [\n{"command": "c",\n "times": [1.0, ' + literal + ']}]}')
    with pytest.raises(InputError) as info:
        fastperf.read(path)
    assert match in str(info.value)


def test_large_json_integers_convert_to_nearest_float(tmp_path):
    path = tmp_path / "r.json"
    big = [2**53 + 1, 2**60 + 1, 10**300]
    path.write_text(json.dumps({"results": [{"command": "c", "times": big}]}))
    assert fastperf.read(path).column("value").to_pylist() == [float(v) for v in big]


def test_speedup_sample_value_out_of_range(tmp_path):
    (tmp_path / "x.txt").write_text("1\n2\n")
    (tmp_path / "y.txt").write_text("1\n# note\n1e400\n")
    config = tmp_path / "config.csv"
    config.write_text("a,x.txt,y.txt\n")
    with pytest.raises(InputError, match=r"y.txt:3: the value '1e400' is beyond"):
        fastperf.read_speedup_config(config)


# ---------------------------------------------------------------------------------------------
# crash 6: undecodable bytes

BINARY = bytes(range(256)) * 8


def test_binary_config_is_input_error(tmp_path):
    path = tmp_path / "config.bin"
    path.write_bytes(BINARY)
    with pytest.raises(InputError, match="config.bin: the configuration file is not UTF-8"):
        fastperf.read_speedup_config(path)
    code, _, err = run_cli(["compare", "--config", path])
    assert_clean_error(code, err, match="config.bin")


def test_binary_sample_file_names_config_line_and_file(tmp_path):
    (tmp_path / "x.txt").write_text("1\n2\n")
    (tmp_path / "y.bin").write_bytes(BINARY)
    config = tmp_path / "config.csv"
    config.write_text("# name, x, y\na,x.txt,y.bin\n")
    with pytest.raises(InputError, match=r"config.csv:2: .*y.bin: the sample file is not UTF-8"):
        fastperf.read_speedup_config(config)


def test_config_csv_errors_and_odd_paths(tmp_path):
    nul = tmp_path / "nul.csv"
    nul.write_text("a,x.txt,y\x00.txt\n")
    with pytest.raises(InputError, match="nul.csv"):
        fastperf.read_speedup_config(nul)
    with pytest.raises(InputError, match="is a directory"):
        fastperf.read_speedup_config(tmp_path)
    with pytest.raises(InputError, match="path must be"):
        fastperf.read_speedup_config(3)


@pytest.mark.parametrize("fmt", [None, "csv", "parquet", "ipc", "go", "pyperf", "pytest-benchmark",
                                 "google-benchmark", "hyperfine"])
@pytest.mark.parametrize("content", [BINARY, b"{" + BINARY, b"\xff\xfe{\x00",
                                     b"\x0c\x8c\xeb\xe5\x93\x9a\rO\xf2"])  # a CSV header
def test_every_reader_refuses_undecodable_bytes_naming_the_file(tmp_path, fmt, content):
    path = tmp_path / "garbage.dat"
    path.write_bytes(content)
    with pytest.raises(InputError, match="garbage.dat"):
        fastperf.read(path, format=fmt)


# ---------------------------------------------------------------------------------------------
# every command against hostile files

COMMANDS = [
    ["describe"], ["aggregate"], ["plan"], ["anova"], ["factorial", "--factors", "a"],
    ["compare"], ["compare", "--protocol", "sparc"], ["compare", "--protocol", "hpt"],
    ["compare", "--protocol", "speedup-test"],
]


def hostile_files(tmp_path):
    files = {
        "empty": b"", "binary": BINARY, "header only": b"benchmark,variant,value\n",
        "huge number": b"benchmark,variant,value\na,x,1e999\na,y,2\n",
        "huge int": b"benchmark,variant,value\na,x,99999999999999999999\na,y,2\n",
        "go overflow": b"BenchmarkX 99999999999999999999 5 ns/op\n",
        "one value": b"BenchmarkX 1 5 ns/op\n",
        "bad json": b'{"benchmarks": [1, 2',
    }
    paths = {}
    for name, content in files.items():
        path = tmp_path / (name.replace(" ", "_") + ".dat")
        path.write_bytes(content)
        paths[name] = path
    paths["directory"] = tmp_path
    paths["missing"] = tmp_path / "missing.txt"
    paths["/dev/null"] = "/dev/null"
    return paths


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_on_hostile_files(tmp_path, command):
    for name, path in hostile_files(tmp_path).items():
        code, _, err = run_cli(command + [path])
        assert code in (0, 2), (name, err)
        assert "Traceback" not in err, (name, err)
        assert len(err.strip().splitlines()) <= 1, (name, err)


# ---------------------------------------------------------------------------------------------
# property: random bytes and random tool-like text never crash the CLI

NUMBER_TEXT = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e999", "-1e999", "0x1p99999", "1e-999", "NaN", "+Inf", "", "abc",
                     "9" * 400, "1_000", "0x1.8p1"]),
)
WORD = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
GO_LINE = st.one_of(
    st.builds(lambda name, n, pairs: " ".join(["Benchmark" + name, n]
                                              + [f"{v} {u}" for v, u in pairs]),
              st.text("ABCxyz/-=0123", min_size=1, max_size=6), NUMBER_TEXT,
              st.lists(st.tuples(NUMBER_TEXT, st.sampled_from(["ns/op", "MB/s", "B/op", "x"])),
                       min_size=1, max_size=3)),
    st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(["goos", "note", "pkg", "cpu"]), WORD),
)
CSV_LINE = st.lists(st.one_of(NUMBER_TEXT, WORD), min_size=1, max_size=4).map(",".join)
JSON_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**90), max_value=2**90),
                        st.floats(allow_nan=False, allow_infinity=False), WORD)
JSON_VALUE = st.recursive(JSON_SCALAR, lambda inner: st.lists(inner, max_size=3), max_leaves=6)


@st.composite
def json_document(draw):
    values = st.lists(JSON_VALUE, max_size=5)
    kind = draw(st.sampled_from(["pyperf", "pytest", "google", "hyperfine"]))
    name = draw(JSON_VALUE)
    if kind == "pyperf":
        return {"version": "1.0", "metadata": {"name": "f"}, "benchmarks": [
            {"metadata": {"name": name, "k": draw(JSON_VALUE)},
             "runs": [{"values": draw(values)}]}]}
    if kind == "pytest":
        return {"machine_info": {}, "benchmarks": [{"name": name, "stats": {"data": draw(values)}}]}
    if kind == "google":
        return {"context": {"k": draw(JSON_VALUE)}, "benchmarks": [
            {"name": name, "real_time": draw(JSON_VALUE), "iterations": draw(JSON_VALUE),
             "repetition_index": draw(JSON_VALUE),
             "time_unit": draw(st.sampled_from(["ns", "s", 1]))}
            for _ in range(draw(st.integers(1, 3)))]}
    return {"results": [{"command": name, "times": draw(values), "exit_codes": draw(values)}]}


CONTENT = st.one_of(
    st.binary(max_size=300),
    st.lists(GO_LINE, min_size=1, max_size=6).map(
        lambda ls: "\n".join(ls).encode("utf-8", "replace")),
    st.lists(CSV_LINE, min_size=1, max_size=6).map(
        lambda ls: ("benchmark,variant,value\n" + "\n".join(ls)).encode("utf-8", "replace")),
    json_document().map(lambda d: json.dumps(d).encode()),
)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(content=CONTENT, command=st.sampled_from(COMMANDS))
def test_cli_never_crashes_on_random_input(tmp_path, content, command):
    path = tmp_path / "input.dat"
    path.write_bytes(content)
    code, _, err = run_cli(command + [path])
    assert code in (0, 2), err  # 3 would be an internal error: a bug
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 1, err


# ---------------------------------------------------------------------------------------------
# the installed command, once


def test_subprocess_smoke_no_traceback(tmp_path):
    path = tmp_path / "go.txt"
    path.write_text("BenchmarkX 99999999999999999999 5 ns/op\n")
    done = subprocess.run([sys.executable, "-m", "fastperf", "describe", str(path)],
                          cwd=OUTSIDE_CHECKOUT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"fastperf: error: {path}:1: 'BenchmarkX': the iteration count '99999999999999999999' "
        "is out of range (Go's N is a 64-bit integer: at most 9223372036854775807)"]
