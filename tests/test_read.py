"""Tests for fastperf.read: every shared data file, several files at once, in-memory tables,
table-file round trips, and bad input.

Expected values come from the raw files themselves (parsed here with json/regex, independently
of the readers) or from counts verified by reading the files, never from the readers' output.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

import fastperf
from fastperf import InputError, read
from fastperf.io.read import detect_format
from fastperf.io.go import tidy_unit

from conftest import SHARED

DATA = SHARED / "data"
PEERS = DATA / "peers"
TOOLS = DATA / "tool-output"
GO = PEERS / "golang-perf"
GBENCH = PEERS / "google-benchmark"
PYPERF = PEERS / "pyperf"
PYTEST_BENCH = PEERS / "pytest-benchmark"

PEER_FILES = sorted(PEERS.glob("*/*.json")) + sorted(PEERS.glob("*/*.txt"))
TOOL_FILES = sorted(TOOLS.glob("*.json"))
NOT_DATA = {"LICENSE", "COPYING", "README.md"}
CANONICAL = ["benchmark", "variant", "run", "unit", "value"]

# Facts read off the raw files by hand: (rows, distinct benchmarks, variants in first-seen order).
GO_FACTS = {
    "crc-old.txt": (720, 36, ["crc-old"]),  # 360 result lines x (ns/op, MB/s); one note value
    "crc-new.txt": (720, 36, ["crc-new"]),
    "issue19565.txt": (24, 3, ["before", "after"]),  # A, B before; A, C after; 6 lines each
    "issue19634.txt": (10, 1, ["before", "after"]),
    "new.txt": (20, 2, ["new"]),
    "old.txt": (20, 2, ["old"]),
    "smallSample.txt": (2, 1, ["before", "after"]),
    "units.txt": (8, 2, ["before", "after"]),
    "zero.txt": (20, 6, ["before", "after"]),  # 2 lines x 3 pairs + 4 lines x 1, per note
}
GBENCH_FACTS = {  # rows = entries that are not aggregates
    "test1_run1.json": (14, 14),
    "test1_run2.json": (14, 14),
    "test2_run.json": (10, 10),
    "test3_run0.json": (4, 2),  # BM_Two x2, medium x2
    "test3_run1.json": (4, 4),  # BM_One, BM_Two, short, medium
    "test4_run.json": (8, 8),  # iteration rows without any time: null values
    "test5_run0.json": (1, 1),
    "test5_run1.json": (1, 1),
}
GBENCH_AGGREGATE_ONLY = {"test4_run0.json", "test4_run1.json"}
PYPERF_FACTS = {  # 3 benchmarks x 20 runs x 3 values; telco 40 runs x 3 values; memory 3 runs x 1
    "mult_list_py36.json": (180, 3),
    "mult_list_py36_tags.json": (180, 3),
    "mult_list_py37.json": (180, 3),
    "mult_list_py37_tags.json": (180, 3),
    "mult_list_py38.json": (180, 3),
    "telco.json": (120, 1),
    "track_memory.json": (3, 1),
}
TIME_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


# ------------------------------------------------------------------------------------------
# independent parsers of the raw files (deliberately simple)


def go_rows(path: Path) -> list[tuple[str, str, float, str]]:
    """(note, name, raw value, raw unit) for every pair on every result line, by regex."""
    rows, note = [], ""
    for line in path.read_text().splitlines():
        m = re.match(r"note:\s*(.*)$", line)
        if m:
            note = m.group(1).strip()
            continue
        m = re.match(r"(Benchmark\S*)\s+\d+\s+(.+)$", line)
        if m:
            fields = m.group(2).split()
            for v, u in zip(fields[::2], fields[1::2]):
                rows.append((note, m.group(1), float(v), u))
    return rows


def gbench_iterations(path: Path) -> list[dict]:
    return [b for b in json.loads(path.read_text())["benchmarks"] if b.get("run_type", "iteration") == "iteration"]


def by_benchmark(table: pa.Table, name: str, column: str = "value", **where) -> list:
    rows = [r for r in table.to_pylist() if r["benchmark"] == name and all(r[k] == v for k, v in where.items())]
    return [r[column] for r in rows]


LABEL = pa.dictionary(pa.int32(), pa.string())


def decoded(table: pa.Table) -> pa.Table:
    """The table with its label columns checked as dictionary<int32, string>, then decoded."""
    columns = []
    for field, column in zip(table.schema, table.columns):
        if field.name in ("benchmark", "variant", "unit"):
            assert field.type == LABEL, field
            column = column.cast(pa.string())
        columns.append(column)
    return pa.table(columns, names=table.column_names)


def check_schema(table: pa.Table, extras: list[str] = ()) -> None:
    assert table.column_names == CANONICAL + list(extras)
    assert table.schema.field("benchmark").type == LABEL
    assert table.schema.field("variant").type == LABEL
    assert table.schema.field("run").type == pa.int64()
    assert table.schema.field("unit").type == LABEL
    assert table.schema.field("value").type == pa.float64()


# ------------------------------------------------------------------------------------------
# every shared data file


def test_every_peer_data_file_is_covered():
    on_disk = {p for p in PEERS.rglob("*") if p.is_file() and p.name not in NOT_DATA}
    assert on_disk == set(PEER_FILES)
    assert len(PEER_FILES) == 9 + 10 + 7 + 30


@pytest.mark.parametrize("path", PEER_FILES + TOOL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_read_every_data_file(path: Path):
    folder = path.parent.name
    if folder == "pytest-benchmark":
        with pytest.raises(InputError) as exc:
            read(path)
        msg = str(exc.value)
        assert path.name in msg and "--benchmark-save-data" in msg and "stats.data" in msg
        return
    if path.name in GBENCH_AGGREGATE_ONLY:
        with pytest.raises(InputError) as exc:
            read(path)
        msg = str(exc.value)
        assert path.name in msg and "only aggregate rows" in msg
        assert "--benchmark_repetitions" in msg and "--benchmark_report_aggregates_only" in msg
        return
    table = read(path)
    benchmarks = table.column("benchmark").to_pylist()
    variants = list(dict.fromkeys(table.column("variant").to_pylist()))
    if folder == "golang-perf":
        rows, n_bench, expected_variants = GO_FACTS[path.name]
        check_schema(table, ["iterations"])
        raw = go_rows(path)
        assert len(raw) == rows
        assert [r[1] for r in raw] == benchmarks
    elif folder == "google-benchmark":
        rows, n_bench = GBENCH_FACTS[path.name]
        expected_variants = [path.stem]
        check_schema(table, ["iterations"])
        raw = gbench_iterations(path)
        assert [b.get("run_name", b["name"]) for b in raw] == benchmarks
        got = table.column("value").to_pylist()
        for b, v in zip(raw, got):
            if "real_time" in b:
                assert v == pytest.approx(b["real_time"] * TIME_UNIT_SECONDS[b["time_unit"]], rel=1e-12)
            else:
                assert v is None
        assert set(table.column("unit").to_pylist()) == {"s"}
    elif folder == "pyperf":
        rows, n_bench = PYPERF_FACTS[path.name]
        expected_variants = [path.stem]
        check_schema(table)
        doc = json.loads(path.read_text())
        values = [v for b in doc["benchmarks"] for r in b["runs"] for v in r.get("values", [])]
        assert table.column("value").to_pylist() == values
    elif path.name == "hyperfine-sum.json":
        rows, n_bench, expected_variants = 60, 2, ["hyperfine-sum"]
        check_schema(table, ["exit_code"])
    elif path.name == "pytest-benchmark-sorts.json":
        rows, n_bench, expected_variants = 5133 + 5350 + 6230, 3, ["pytest-benchmark-sorts"]
        check_schema(table)
    elif path.name == "google-benchmark-sorts.json":
        rows, n_bench, expected_variants = 80, 4, ["google-benchmark-sorts"]
        check_schema(table, ["iterations"])
    else:  # a new file in the shared data: give it facts above
        pytest.fail(f"no expectations for {path}")
    assert table.num_rows == rows
    assert len(set(benchmarks)) == n_bench
    assert variants == expected_variants
    assert table.column("benchmark").null_count == 0


def test_go_crc_values_and_unit_normalisation():
    t = read(GO / "crc-old.txt")
    first = "BenchmarkCRC32/poly=IEEE/size=15/align=0-8"
    # first line: "3000000  44.6 ns/op  336.59 MB/s"
    assert by_benchmark(t, first, unit="sec/op")[0] == pytest.approx(4.46e-8, rel=1e-12)
    assert by_benchmark(t, first, unit="B/s")[0] == pytest.approx(336.59e6, rel=1e-12)
    assert by_benchmark(t, first, "iterations")[0] == 3_000_000
    assert by_benchmark(t, first, "run", unit="sec/op") == list(range(10))
    assert set(t.column("unit").to_pylist()) == {"sec/op", "B/s"}
    last = "BenchmarkCRC32/poly=Koopman/size=32kB/align=1-8"
    # last line: "2000  76970 ns/op  425.72 MB/s"
    assert by_benchmark(t, last, unit="sec/op")[-1] == pytest.approx(76970e-9, rel=1e-12)
    assert by_benchmark(t, last, unit="B/s")[-1] == pytest.approx(425.72e6, rel=1e-12)
    assert by_benchmark(t, last, "iterations")[-1] == 2000


@pytest.mark.parametrize("name", ["issue19565.txt", "issue19634.txt", "smallSample.txt", "units.txt", "zero.txt"])
def test_go_note_sections_become_variants(name):
    path = GO / name
    t = read(path)
    raw = go_rows(path)
    assert t.column("variant").to_pylist() == [r[0] for r in raw]
    tidied = [tidy_unit(r[3]) for r in raw]
    assert t.column("unit").to_pylist() == [u for u, _ in tidied]
    assert t.column("value").to_pylist() == pytest.approx([r[2] * f for r, (_, f) in zip(raw, tidied)], rel=1e-12)
    # run counts occurrences of (variant, benchmark, unit)
    seen: dict = {}
    expected_runs = []
    for note, bench, _, unit in raw:
        key = (note, bench, unit)
        expected_runs.append(seen.get(key, 0))
        seen[key] = seen.get(key, 0) + 1
    assert t.column("run").to_pylist() == expected_runs


def test_go_issue19634_values():
    t = read(GO / "issue19634.txt")
    assert by_benchmark(t, "BenchmarkFloatSub/100-4", variant="before") == pytest.approx(
        [115e-9, 114e-9, 115e-9, 115e-9, 115e-9], rel=1e-12
    )
    assert by_benchmark(t, "BenchmarkFloatSub/100-4", variant="after") == pytest.approx([78.8e-9] * 5, rel=1e-12)
    assert set(t.column("iterations").to_pylist()) == {20_000_000}


def test_go_zero_and_custom_units_kept():
    t = read(GO / "zero.txt")
    assert by_benchmark(t, "BenchmarkZeroOverZero", variant="after") == [0.0]
    assert by_benchmark(t, "BenchmarkNonZeroOverZero", variant="after") == [100.0]
    assert by_benchmark(t, "BenchmarkImperceptible", variant="before", unit="b-bytes") == [171717171716.0]
    assert set(t.column("unit").to_pylist()) == {"a-bytes", "b-bytes", "c-bytes", "x", "y"}


@pytest.mark.parametrize(
    "unit, tidied, factor",
    # benchstat's own expectations (golang.org/x/perf benchunit/tidy_test.go)
    [
        ("ns/op", "sec/op", 1e-9),
        ("x-ns/op", "x-sec/op", 1e-9),
        ("MB/s", "B/s", 1e6),
        ("x-MB/s", "x-B/s", 1e6),
        ("B/op", "B/op", 1),
        ("x-B/op", "x-B/op", 1),
        ("x-allocs/op", "x-allocs/op", 1),
        ("op/ns", "op/ns", 1),
        ("MB*MB/s", "B*B/s", 1e6 * 1e6),
        ("MB/MB", "B/MB", 1e6),
    ],
)
def test_tidy_unit_matches_benchstat(unit, tidied, factor):
    got_unit, got_factor = tidy_unit(unit)
    assert got_unit == tidied
    assert got_factor == pytest.approx(factor, rel=1e-15)


def test_go_text_edge_cases(tmp_path):
    text = "\n".join(
        [
            "goos: linux",
            "Some free text: with a colon",
            "BenchmarkEarly 5 10 ns/op",  # before any note: gets the file's label
            "note: a",
            "# comment",
            "Unit widgets assume=exact",
            "BenchmarkX-8 100 12.5 ns/op 64 B/op 3 allocs/op 2.5 L1-miss-ns/op",
            "BenchmarkX-8 100 13.5 ns/op 64 B/op",
            "BenchmarkOdd 100 12.5 ns/op 7",  # odd number of fields: ignored
            "BenchmarkBad 100 fast ns/op",  # not a number: ignored
            "BenchmarkNoIter x 1 ns/op",  # iterations not an integer: ignored
            "Benchmarking is fun",  # too few fields: ignored
            "note: b",
            "BenchmarkX-8\t200\t11 ns/op\t80.5 MB/s\r",
            "PASS",
        ]
    )
    path = tmp_path / "edge.txt"
    path.write_text(text)
    assert detect_format(path) == "go"
    t = read(path)
    rows = t.to_pylist()
    assert [(r["benchmark"], r["variant"], r["run"], r["unit"], r["iterations"]) for r in rows] == [
        ("BenchmarkEarly", "edge", 0, "sec/op", 5),
        ("BenchmarkX-8", "a", 0, "sec/op", 100),
        ("BenchmarkX-8", "a", 0, "B/op", 100),
        ("BenchmarkX-8", "a", 0, "allocs/op", 100),
        ("BenchmarkX-8", "a", 0, "L1-miss-sec/op", 100),
        ("BenchmarkX-8", "a", 1, "sec/op", 100),
        ("BenchmarkX-8", "a", 1, "B/op", 100),
        ("BenchmarkX-8", "b", 0, "sec/op", 200),
        ("BenchmarkX-8", "b", 0, "B/s", 200),
    ]
    assert t.column("value").to_pylist() == pytest.approx(
        [10e-9, 12.5e-9, 64, 3, 2.5e-9, 13.5e-9, 64, 11e-9, 80.5e6], rel=1e-12
    )


def test_go_file_without_result_lines_is_not_go(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("goos: linux\nPASS\nok  \tpkg\t0.1s\n")
    with pytest.raises(InputError, match="no Go benchmark result lines"):
        read(path, format="go")
    # by content it is not Go, and as CSV it has no benchmark column
    with pytest.raises(InputError, match="not a recognised file"):
        read(path)


def test_gbench_units_metric_and_runs():
    t = read(GBENCH / "test2_run.json")
    assert by_benchmark(t, "BM_Hi") == [pytest.approx(0.042, rel=1e-12)]  # 42 ms
    assert by_benchmark(t, "BM_Zero/4") == [pytest.approx(40e-9, rel=1e-12)]
    assert by_benchmark(t, "BM_Bye", "iterations") == [5321]
    cpu = read(GBENCH / "test2_run.json", metric="cpu_time")
    assert by_benchmark(cpu, "BM_Hi") == [pytest.approx(0.024, rel=1e-12)]  # cpu_time 24 ms
    assert by_benchmark(cpu, "BM_Bye") == [pytest.approx(63e-9, rel=1e-12)]
    t1 = read(GBENCH / "test1_run1.json", metric="cpu_time")
    assert by_benchmark(t1, "BM_NotBadTimeUnit") == [0.5]  # time_unit s
    assert "MyComplexityTest" not in t1.column("benchmark").to_pylist()  # aggregates skipped
    t3 = read(GBENCH / "test3_run0.json")
    assert by_benchmark(t3, "BM_Two", "run") == [0, 1]  # no repetition_index: occurrence index
    assert by_benchmark(t3, "BM_Two") == pytest.approx([9e-9, 8e-9], rel=1e-12)
    assert "short" not in t3.column("benchmark").to_pylist()  # aggregate rows only


def test_gbench_test4_rows_without_times_are_null():
    t = read(GBENCH / "test4_run.json")
    assert t.column("value").null_count == 8
    assert t.column("run").to_pylist() == [0, 1] * 4  # repetition_index


def test_gbench_repetitions_file():
    path = TOOLS / "google-benchmark-sorts.json"
    raw = gbench_iterations(path)
    t = read(path)
    assert t.column("run").to_pylist() == [b["repetition_index"] for b in raw]
    assert t.column("run").to_pylist()[:20] == list(range(20))
    first = raw[0]
    assert first["time_unit"] == "ns"
    assert t.column("value")[0].as_py() == pytest.approx(first["real_time"] * 1e-9, rel=1e-12)
    assert t.column("value")[-1].as_py() == pytest.approx(raw[-1]["real_time"] * 1e-9, rel=1e-12)
    cpu = read(path, metric="cpu_time")
    assert cpu.column("value").to_pylist() == pytest.approx([b["cpu_time"] * 1e-9 for b in raw], rel=1e-12)
    assert set(t.column("benchmark").to_pylist()) == {
        "BM_StdSort/1000", "BM_StdSort/100000", "BM_StableSort/1000", "BM_StableSort/100000"
    }


def test_gbench_error_rows_get_null_values(tmp_path):
    doc = {
        "context": {},
        "benchmarks": [
            {"name": "BM_A", "run_name": "BM_A", "run_type": "iteration", "repetition_index": 0,
             "iterations": 10, "real_time": 5.0, "cpu_time": 4.0, "time_unit": "us"},
            {"name": "BM_A", "run_name": "BM_A", "run_type": "iteration", "repetition_index": 1,
             "error_occurred": True, "error_message": "boom", "iterations": 0,
             "real_time": 0.0, "cpu_time": 0.0, "time_unit": "us"},
            {"name": "BM_A_mean", "run_name": "BM_A", "run_type": "aggregate", "aggregate_name": "mean",
             "iterations": 2, "real_time": 5.0, "cpu_time": 4.0, "time_unit": "us"},
        ],
    }
    path = tmp_path / "err.json"
    path.write_text(json.dumps(doc))
    t = read(path)
    assert t.column("value").to_pylist() == [pytest.approx(5e-6, rel=1e-12), None]
    assert t.column("run").to_pylist() == [0, 1]


def test_pyperf_runs_skip_calibration_and_warmups():
    path = PYPERF / "mult_list_py36.json"
    doc = json.loads(path.read_text())
    t = read(path)
    bench = doc["benchmarks"][0]
    name = bench["metadata"]["name"]
    runs_with_values = [r["values"] for r in bench["runs"] if r.get("values")]
    assert len(runs_with_values) == 20 and "values" not in bench["runs"][0]
    assert by_benchmark(t, name, run=0) == runs_with_values[0]
    assert by_benchmark(t, name, run=19) == runs_with_values[19]
    assert by_benchmark(t, name, "run") == [i for i in range(20) for _ in range(3)]
    warmups = {w[1] for r in bench["runs"] for w in r.get("warmups", [])}
    assert not warmups & set(by_benchmark(t, name))
    assert set(t.column("unit").to_pylist()) == {"s"}


def test_pyperf_file_level_name_and_units():
    telco = read(PYPERF / "telco.json")  # name only in the file's metadata; no unit: seconds
    assert set(telco.column("benchmark").to_pylist()) == {"telco"}
    assert set(telco.column("unit").to_pylist()) == {"s"}
    assert telco.column("value")[0].as_py() == 0.022752201875846367
    memory = read(PYPERF / "track_memory.json")  # unit "byte" at file level
    assert memory.column("benchmark").to_pylist() == ["timeit"] * 3
    assert memory.column("unit").to_pylist() == ["B"] * 3
    assert memory.column("value").to_pylist() == [7360512.0, 7364608.0, 7380992.0]
    assert memory.column("run").to_pylist() == [0, 1, 2]


def test_pyperf_integer_unit_and_benchmark_metadata_wins(tmp_path):
    doc = {
        "version": "1.0",
        "metadata": {"name": "file-level", "unit": "second"},
        "benchmarks": [{"metadata": {"name": "count", "unit": "integer"}, "runs": [{"values": [3, 4]}]}],
    }
    path = tmp_path / "ints.json"
    path.write_text(json.dumps(doc))
    t = read(path)
    assert t.to_pylist() == [
        {"benchmark": "count", "variant": "ints", "run": 0, "unit": "", "value": 3.0},
        {"benchmark": "count", "variant": "ints", "run": 0, "unit": "", "value": 4.0},
    ]


def test_pytest_benchmark_rounds():
    path = TOOLS / "pytest-benchmark-sorts.json"
    doc = json.loads(path.read_text())
    t = read(path)
    for bench in doc["benchmarks"]:
        data = bench["stats"]["data"]
        assert len(data) == bench["stats"]["rounds"]
        got = by_benchmark(t, bench["fullname"])
        assert got[0] == data[0] and got[-1] == data[-1] and len(got) == len(data)
    assert by_benchmark(t, "test_sorts.py::test_sum", "run")[-1] == 6229
    assert set(t.column("unit").to_pylist()) == {"s"}


def test_hyperfine_times():
    path = TOOLS / "hyperfine-sum.json"
    t = read(path)
    first = 'python3 -c "sum(range(10**6))"'
    second = 'python3 -c "sum(list(range(10**6)))"'
    assert by_benchmark(t, first)[0] == 0.18348287100000002
    assert by_benchmark(t, first)[-1] == 0.208994444
    assert by_benchmark(t, second)[0] == 0.24814032900000002
    assert by_benchmark(t, second)[-1] == 0.235114714
    assert by_benchmark(t, second, "run") == list(range(30))
    assert set(t.column("exit_code").to_pylist()) == {0}
    assert set(t.column("unit").to_pylist()) == {"s"}


# ------------------------------------------------------------------------------------------
# several files at once


def test_two_go_files_are_two_variants_named_after_the_files():
    t = read([GO / "crc-old.txt", GO / "crc-new.txt"])
    check_schema(t, ["iterations"])
    assert t.num_rows == 1440
    assert t.column("variant").to_pylist() == ["crc-old"] * 720 + ["crc-new"] * 720
    first = "BenchmarkCRC32/poly=IEEE/size=15/align=0-8"
    assert by_benchmark(t, first, variant="crc-new", unit="sec/op")[0] == pytest.approx(43.6e-9, rel=1e-12)


def test_variants_sequence_and_mapping():
    files = [str(GO / "old.txt"), str(GO / "new.txt")]
    t = read(files, variants=["go1.16", "go1.17"])
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == ["go1.16", "go1.17"]
    t = read(files, variants={files[1]: "candidate"})  # unlisted files keep their stem
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == ["old", "candidate"]
    t = read(files, variants={Path(files[0]): "base", files[1]: "cand"})
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == ["base", "cand"]


def test_variants_errors(tmp_path):
    files = [GO / "old.txt", GO / "new.txt"]
    with pytest.raises(InputError, match="1 name.*2 file"):
        read(files, variants=["only-one"])
    with pytest.raises(InputError, match="not among the files"):
        read(files, variants={str(GO / "other.txt"): "x"})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(GO / "old.txt", tmp_path / "a" / "run.txt")
    shutil.copy(GO / "new.txt", tmp_path / "b" / "run.txt")
    dupes = [tmp_path / "a" / "run.txt", tmp_path / "b" / "run.txt"]
    with pytest.raises(InputError, match="variants=") as exc:
        read(dupes)
    assert "'run'" in str(exc.value)
    assert read(dupes, variants=["a", "b"]).num_rows == 40
    with pytest.raises(InputError, match="no files"):
        read([])


def test_several_note_files_prefix_the_file_name():
    t = read([GO / "issue19634.txt", GO / "smallSample.txt"])
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == [
        "issue19634/before", "issue19634/after", "smallSample/before", "smallSample/after"
    ]
    t = read(GO / "smallSample.txt", variants=["x"])
    assert t.column("variant").to_pylist() == ["x/before", "x/after"]


def test_mixed_formats_in_one_table():
    t = read([TOOLS / "hyperfine-sum.json", PYPERF / "track_memory.json"])
    assert t.column_names == CANONICAL + ["exit_code"]
    assert t.num_rows == 63
    assert t.column("exit_code").to_pylist()[-3:] == [None] * 3
    assert t.column("variant").to_pylist()[-1] == "track_memory"


# ------------------------------------------------------------------------------------------
# in-memory sources


def expected_table(variant: bool = False) -> pa.Table:
    cols = {"benchmark": pa.array(["a", "a", "b"], pa.string())}
    if variant:
        cols["variant"] = pa.array(["v1", "v2", "v1"], pa.string())
    cols["run"] = pa.array([0, 1, 0], pa.int64())
    cols["value"] = pa.array([1.5, 2.0, 3.25], pa.float64())
    return pa.table(cols)


def test_pyarrow_table_and_reader():
    src = pa.table({"benchmark": ["a", "a", "b"], "run": pa.array([0, 1, 0], pa.int32()), "value": [1.5, 2.0, 3.25]})
    assert decoded(read(src)).equals(expected_table())
    reader = pa.RecordBatchReader.from_batches(src.schema, src.to_batches())
    assert decoded(read(reader)).equals(expected_table())


def test_renamed_roles_and_extra_columns_in_memory():
    src = pa.table({
        "size": [10, 20, 30],
        "time_ms": pa.array([1.5, 2.0, 3.25], pa.float32()),
        "config": pa.array(["v1", "v2", "v1"]).dictionary_encode(),
        "name": ["a", "a", "b"],
        "rep": [0, 1, 0],
    })
    t = read(src, benchmark="name", value="time_ms", variant="config", run="rep")
    assert t.column_names == ["benchmark", "variant", "run", "value", "size"]
    assert decoded(t.select(["benchmark", "variant", "run", "value"])).equals(expected_table(variant=True))
    assert t.column("size").to_pylist() == [10, 20, 30]


def test_in_memory_variants_one_name():
    src = pa.table({"benchmark": ["a", "a", "b"], "run": [0, 1, 0], "value": [1.5, 2.0, 3.25]})
    t = read(src, variants=["base"])
    assert t.column_names == ["benchmark", "variant", "run", "value"]
    assert t.column("variant").to_pylist() == ["base"] * 3
    with pytest.raises(InputError, match="one-element"):
        read(src, variants=["a", "b"])
    with pytest.raises(InputError, match="one-element"):
        read(src, variants={"x": "y"})
    with pytest.raises(InputError, match="already has a variant"):
        read(expected_table(variant=True), variants=["base"])


def test_polars_dataframe():
    import polars as pl
    df = pl.DataFrame({"benchmark": ["a", "a", "b"], "variant": ["v1", "v2", "v1"],
                       "run": pl.Series([0, 1, 0], dtype=pl.Int16), "value": [1.5, 2.0, 3.25]})
    assert decoded(read(df)).equals(expected_table(variant=True))


def test_pandas_dataframe():
    import pandas as pd
    df = pd.DataFrame({"benchmark": ["a", "a", "b"], "variant": ["v1", "v2", "v1"],
                       "run": [0, 1, 0], "value": [1.5, 2.0, 3.25]})
    assert hasattr(df, "__arrow_c_stream__")
    assert decoded(read(df)).equals(expected_table(variant=True))


def test_duckdb_relation():
    import duckdb
    rel = duckdb.sql(
        "select * from (values ('a', 'v1', 0, 1.5), ('a', 'v2', 1, 2.0), ('b', 'v1', 0, 3.25)) "
        "t(benchmark, variant, run, value) order by benchmark, run"
    )
    # duckdb types: value decimal(3,2), run int32
    assert decoded(read(rel)).equals(expected_table(variant=True))
    rel2 = duckdb.from_arrow(pa.table({"name": ["a", "a", "b"], "variant": ["v1", "v2", "v1"],
                                       "run": [0, 1, 0], "t": [1.5, 2.0, 3.25]}))
    assert decoded(read(rel2, benchmark="name", value="t")).equals(expected_table(variant=True))


def test_nulls_in_value_stay_null():
    src = pa.table({"benchmark": ["a", "b"], "value": pa.array([None, 2], pa.int64())})
    t = read(src)
    assert t.column("value").to_pylist() == [None, 2.0]
    assert t.schema.field("value").type == pa.float64()


# ------------------------------------------------------------------------------------------
# table files


@pytest.fixture
def raw_table() -> pa.Table:
    return pa.table({"name": ["a", "a", "b"], "run": [0, 1, 0], "time_ms": [1.5, 2.0, 3.25], "host": ["x", "y", "z"]})


def expected_file_table(variant: str) -> pa.Table:
    t = expected_table()
    t = t.add_column(1, "variant", pa.array([variant] * 3, pa.string()))
    return t.append_column("host", pa.array(["x", "y", "z"]))


@pytest.mark.parametrize("kind", ["parquet", "csv", "feather", "ipc-stream"])
def test_table_file_round_trip(tmp_path, raw_table, kind):
    path = tmp_path / f"base.{kind}"
    if kind == "parquet":
        pq.write_table(raw_table, path)
    elif kind == "csv":
        pacsv.write_csv(raw_table, path)
    elif kind == "feather":
        feather.write_feather(raw_table, path)
    else:
        with ipc.new_stream(path, raw_table.schema) as writer:
            writer.write_table(raw_table)
    t = read(path, benchmark="name", value="time_ms")
    assert decoded(t).equals(expected_file_table("base"))
    fmt = {"parquet": "parquet", "csv": "csv", "feather": "feather", "ipc-stream": "arrow"}[kind]
    assert decoded(read(path, format=fmt, benchmark="name", value="time_ms")).equals(expected_file_table("base"))
    assert decoded(read(str(path), variants=["cand"], benchmark="name", value="time_ms")).equals(expected_file_table("cand"))


def test_detection_by_content_not_extension(tmp_path, raw_table):
    path = tmp_path / "actually_parquet.csv"
    pq.write_table(raw_table, path)
    assert detect_format(path) == "parquet"
    t = read(path, benchmark="name", value="time_ms")
    assert decoded(t).equals(expected_file_table("actually_parquet"))
    with pytest.raises(InputError, match="CSV"):
        read(path, format="csv", benchmark="name", value="time_ms")
    hyperfine_copy = tmp_path / "results.txt"
    shutil.copy(TOOLS / "hyperfine-sum.json", hyperfine_copy)
    assert detect_format(hyperfine_copy) == "hyperfine"
    go_copy = tmp_path / "results.json"
    shutil.copy(GO / "old.txt", go_copy)
    assert detect_format(go_copy) == "go"


def test_csv_tab_delimited_and_nulls(tmp_path):
    path = tmp_path / "runs.tsv"
    path.write_text("benchmark\tvariant\tvalue\tunit\nx\tv1\t1.5\tms\ny\tv1\t\tms\n")
    t = read(path)
    assert t.to_pylist() == [
        {"benchmark": "x", "variant": "v1", "unit": "ms", "value": 1.5},
        {"benchmark": "y", "variant": "v1", "unit": "ms", "value": None},
    ]


def test_large_dictionary_parquet_keeps_its_dictionaries(tmp_path):
    n = 200_000
    names = pa.array(np.char.add("bench_", (np.arange(n) % 1000).astype(str))).dictionary_encode()
    src = pa.table({"benchmark": names, "variant": pa.array(["base"] * n).dictionary_encode(),
                    "run": pa.array(np.arange(n) // 1000, pa.int32()), "value": np.arange(n, dtype=np.float64)})
    path = tmp_path / "big.parquet"
    pq.write_table(src, path)
    t = read(path)
    assert t.schema == pa.schema([("benchmark", LABEL), ("variant", LABEL),
                                  ("run", pa.int64()), ("value", pa.float64())])
    assert t.num_rows == n
    assert t.column("benchmark")[1001].as_py() == "bench_1"
    assert t.column("run")[1001].as_py() == 1


def test_several_table_files_with_different_int_widths(tmp_path, raw_table):
    pq.write_table(raw_table, tmp_path / "base.parquet")
    pacsv.write_csv(raw_table, tmp_path / "cand.csv")
    t = read([tmp_path / "base.parquet", tmp_path / "cand.csv"], benchmark="name", value="time_ms")
    assert t.column("variant").to_pylist() == ["base"] * 3 + ["cand"] * 3
    assert t.column("value").to_pylist() == [1.5, 2.0, 3.25] * 2


# ------------------------------------------------------------------------------------------
# bad input


def test_missing_column_lists_columns(raw_table):
    with pytest.raises(InputError) as exc:
        read(raw_table)
    msg = str(exc.value)
    assert "'benchmark'" in msg and "['name', 'run', 'time_ms', 'host']" in msg
    with pytest.raises(InputError, match="'value'.*'time_ms'"):
        read(raw_table, benchmark="name")
    with pytest.raises(InputError, match="'rep'"):  # an explicitly named optional column must exist
        read(raw_table, benchmark="name", value="time_ms", run="rep")


def test_missing_column_in_file_names_the_file(tmp_path, raw_table):
    path = tmp_path / "t.parquet"
    pq.write_table(raw_table, path)
    with pytest.raises(InputError) as exc:
        read(path, value="time_ms")
    assert str(path) in str(exc.value) and "'benchmark'" in str(exc.value) and "'name'" in str(exc.value)


def test_non_numeric_value_column(raw_table):
    with pytest.raises(InputError, match="'host'.*not a number"):
        read(raw_table, benchmark="name", value="host")
    with pytest.raises(InputError, match="not a number"):
        read(pa.table({"benchmark": ["a"], "value": [True]}))


def test_bad_run_column():
    with pytest.raises(InputError, match="whole numbers"):
        read(pa.table({"benchmark": ["a"], "value": [1.0], "run": [0.5]}))
    with pytest.raises(InputError, match="not an integer"):
        read(pa.table({"benchmark": ["a"], "value": [1.0], "run": ["first"]}))


def test_renaming_onto_an_existing_canonical_column():
    src = pa.table({"benchmark": ["a"], "value": [1.0], "time_ms": [2.0]})
    with pytest.raises(InputError, match="already has a column 'value'"):
        read(src, value="time_ms")


def test_unknown_format_and_metric():
    with pytest.raises(InputError) as exc:
        read(GO / "old.txt", format="benchstat")
    msg = str(exc.value)
    assert "'benchstat'" in msg
    for name in ("parquet", "csv", "ipc", "pyperf", "pytest-benchmark", "google-benchmark", "hyperfine", "go"):
        assert name in msg
    with pytest.raises(InputError, match="cpu_time"):
        read(GBENCH / "test2_run.json", metric="wall_time")


def test_wrong_explicit_format():
    with pytest.raises(InputError, match="old.txt.*not valid JSON"):
        read(GO / "old.txt", format="pyperf")
    with pytest.raises(InputError, match="not a hyperfine"):
        read(PYPERF / "telco.json", format="hyperfine")
    with pytest.raises(InputError, match="Parquet"):
        read(GO / "old.txt", format="parquet")


def test_garbage_file(tmp_path):
    path = tmp_path / "noise.bin"
    path.write_bytes(np.random.default_rng(12345).bytes(4096))
    with pytest.raises(InputError) as exc:
        read(path)
    msg = str(exc.value)
    assert str(path) in msg
    for tried in ("Parquet", "Arrow IPC", "JSON", "pyperf", "Go", "CSV"):
        assert tried in msg


def test_unrecognised_json(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"results": 3, "foo": []}')
    with pytest.raises(InputError, match="other.json.*not one of pyperf"):
        read(path)
    broken = tmp_path / "broken.json"
    broken.write_text('{"benchmarks": [')
    with pytest.raises(InputError, match="broken.json.*not valid JSON"):
        read(broken)


def test_malformed_tool_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"results": [{"command": "x", "times": ["slow", 2.0]}]}))
    with pytest.raises(InputError, match="bad.json.*malformed hyperfine"):
        read(path)


def test_empty_missing_and_directory(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty.csv.*empty"):
        read(empty)
    with pytest.raises(InputError, match="empty"):
        read(empty, format="csv")
    missing = tmp_path / "nope.parquet"
    with pytest.raises(InputError, match="nope.parquet.*no such file"):
        read(missing)
    with pytest.raises(InputError, match="directory"):
        read(tmp_path)
    with pytest.raises(InputError, match="cannot read a int"):
        read(42)


def test_read_is_the_package_entry_point():
    assert fastperf.read is read
