"""`fastperf.read` on every file of the shared folder's peer and tool-output data: the peers'
own test files (golang-perf, Google Benchmark, pyperf, pytest-benchmark) and real tool outputs
(hyperfine, pytest-benchmark, Google Benchmark).

Moved from tests/test_read.py; tests/test_read_formats.py covers the same readers on files the
tests write themselves. Expected values come from the raw files (parsed with json/regex,
independently of the readers) or from counts verified by reading the files.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import SHARED
from fastperf import InputError, read
from fastperf.io.read import detect_format
from fastperf.io.summaries import is_summary_table
from test_read import expected_file_table, raw_table  # noqa: F401  (raw_table: a fixture)
from tool_files import (
    CANONICAL, TIME_UNIT_SECONDS, by_benchmark, check_gbench_iterations_read, check_go_read, check_refused, check_pyperf_runs_read,
    check_pytest_benchmark_read, check_schema, decoded, gbench_iterations, go_rows,
)

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


# ------------------------------------------------------------------------------------------
# every shared data file


def test_every_peer_data_file_is_covered():
    on_disk = {p for p in PEERS.rglob("*") if p.is_file() and p.name not in NOT_DATA}
    assert on_disk == set(PEER_FILES)
    assert len(PEER_FILES) == 9 + 10 + 7 + 30


@pytest.mark.parametrize("path", PEER_FILES + TOOL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_read_every_data_file(path: Path):
    folder = path.parent.name
    if folder == "pytest-benchmark":  # saved without their rounds: summary tables
        table = read(path)
        doc = json.loads(path.read_text())
        assert is_summary_table(table) and table.num_rows == len(doc["benchmarks"])
        for bench, row in zip(doc["benchmarks"], table.to_pylist()):
            stats = bench["stats"]
            assert row["n"] == stats["rounds"] and row["mean"] == stats["mean"]
            assert row["median"] == stats["median"] and row["min"] == stats["min"]
        with pytest.raises(InputError, match="summary statistics only"):
            read(path, summaries=False)
        return
    if path.name in GBENCH_AGGREGATE_ONLY:
        check_refused(path, "only aggregate rows", "--benchmark_repetitions",
                      "--benchmark_report_aggregates_only")
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
        check_schema(table, ["process", "iteration"])
        doc = json.loads(path.read_text())
        values = [v for b in doc["benchmarks"] for r in b["runs"] for v in r.get("values", [])]
        assert table.column("value").to_pylist() == values
        # the levels: each run with values is a worker process; run numbers a benchmark's values
        runs = [[r["values"] for r in b["runs"] if r.get("values")] for b in doc["benchmarks"]]
        assert table.column("process").to_pylist() == [p for b in runs for p, r in enumerate(b) for _ in r]
        assert table.column("iteration").to_pylist() == [i for b in runs for r in b for i in range(len(r))]
        assert table.column("run").to_pylist() == [i for b in runs for i in range(sum(map(len, b)))]
    elif path.name == "hyperfine-sum.json":
        rows, n_bench, expected_variants = 60, 2, ["hyperfine-sum"]
        check_schema(table, ["exit_code", "process"])
        assert table.column("process").to_pylist() == list(range(30)) * 2  # each run a process
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
    check_go_read(path)


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
    t = check_gbench_iterations_read(TOOLS / "google-benchmark-sorts.json")
    assert t.column("run").to_pylist()[:20] == list(range(20))
    assert set(t.column("benchmark").to_pylist()) == {
        "BM_StdSort/1000", "BM_StdSort/100000", "BM_StableSort/1000", "BM_StableSort/100000"
    }


def test_pyperf_runs_skip_calibration_and_warmups():
    check_pyperf_runs_read(PYPERF / "mult_list_py36.json", runs=20, values_per_run=3)


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


def test_pytest_benchmark_rounds():
    t = check_pytest_benchmark_read(TOOLS / "pytest-benchmark-sorts.json")
    assert by_benchmark(t, "test_sorts.py::test_sum", "run")[-1] == 6229


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


def test_two_go_files_are_two_variants_named_after_the_files():
    t = read([GO / "crc-old.txt", GO / "crc-new.txt"])
    check_schema(t, ["iterations"])
    assert t.num_rows == 1440
    assert t.column("variant").to_pylist() == ["crc-old"] * 720 + ["crc-new"] * 720
    first = "BenchmarkCRC32/poly=IEEE/size=15/align=0-8"
    assert by_benchmark(t, first, variant="crc-new", unit="sec/op")[0] == pytest.approx(43.6e-9, rel=1e-12)


def test_several_note_files_prefix_the_file_name():
    t = read([GO / "issue19634.txt", GO / "smallSample.txt"])
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == [
        "issue19634/before", "issue19634/after", "smallSample/before", "smallSample/after"
    ]
    t = read(GO / "smallSample.txt", variants=["x"])
    assert t.column("variant").to_pylist() == ["x/before", "x/after"]


def test_mixed_formats_in_one_table():
    t = read([TOOLS / "hyperfine-sum.json", PYPERF / "track_memory.json"])
    assert t.column_names == CANONICAL + ["exit_code", "process", "iteration"]
    assert t.num_rows == 63
    assert t.column("exit_code").to_pylist()[-3:] == [None] * 3
    assert t.column("variant").to_pylist()[-1] == "track_memory"


def test_detection_by_content_not_extension(tmp_path, raw_table):  # noqa: F811 - the fixture
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


def test_shipped_examples_are_golang_perfs_files():
    """examples/old.txt and new.txt (which the standalone tests use) are the peer's own files."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    for name in ("old.txt", "new.txt"):
        assert (examples / name).read_bytes() == (GO / name).read_bytes(), name
