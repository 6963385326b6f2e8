"""Tests for fastperf.read: Go text details, several files at once, in-memory tables,
table-file round trips, and bad input.

Every benchmark-tool format on files the tests write: tests/test_read_formats.py; every file of
the shared folder's peer data: tests/conformance/test_peers_read.py. Expected values come from
the raw files themselves or from the tables written, never from the readers' output.
"""
from __future__ import annotations

import json
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

from tool_files import LABEL, decoded

#: golang-perf's old.txt and new.txt, shipped with fastperf for its demo
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


# ------------------------------------------------------------------------------------------
# Go text details


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
        {"benchmark": "count", "variant": "ints", "run": 0, "unit": "", "value": 3.0, "process": 0, "iteration": 0},
        {"benchmark": "count", "variant": "ints", "run": 1, "unit": "", "value": 4.0, "process": 0, "iteration": 1},
    ]


# ------------------------------------------------------------------------------------------
# several files at once


def test_variants_sequence_and_mapping():
    files = [str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")]
    t = read(files, variants=["go1.16", "go1.17"])
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == ["go1.16", "go1.17"]
    t = read(files, variants={files[1]: "candidate"})  # unlisted files keep their stem
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == ["old", "candidate"]
    t = read(files, variants={Path(files[0]): "base", files[1]: "cand"})
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == ["base", "cand"]


def test_variants_errors(tmp_path):
    files = [EXAMPLES / "old.txt", EXAMPLES / "new.txt"]
    with pytest.raises(InputError, match="1 name.*2 file"):
        read(files, variants=["only-one"])
    with pytest.raises(InputError, match="not among the files"):
        read(files, variants={str(EXAMPLES / "other.txt"): "x"})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(EXAMPLES / "old.txt", tmp_path / "a" / "run.txt")
    shutil.copy(EXAMPLES / "new.txt", tmp_path / "b" / "run.txt")
    dupes = [tmp_path / "a" / "run.txt", tmp_path / "b" / "run.txt"]
    with pytest.raises(InputError, match="variants=") as exc:
        read(dupes)
    assert "'run'" in str(exc.value)
    assert read(dupes, variants=["a", "b"]).num_rows == 40
    with pytest.raises(InputError, match="no files"):
        read([])


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


def test_parquet_text_labels_read_encoded_as_the_csv_of_the_same_rows(tmp_path):
    """Label columns come dictionary-encoded straight from Parquet's pages (several row groups,
    each with its own dictionary): same rows, values, and groups in the same order as the
    same table read from CSV (encoded after reading)."""
    rng = np.random.default_rng(5)
    names = np.array([f"b{i}" for i in rng.permutation(40)])[rng.integers(0, 40, 3000)]
    src = pa.table({"benchmark": names, "variant": np.where(rng.random(3000) < 0.5, "x", "y"),
                    "unit": np.full(3000, "ns"), "value": rng.random(3000)})
    pq.write_table(src, tmp_path / "t.parquet", row_group_size=700)
    pacsv.write_csv(src, tmp_path / "t.csv")
    from_parquet, from_csv = read(tmp_path / "t.parquet"), read(tmp_path / "t.csv")
    assert from_parquet.column("benchmark").type == LABEL
    assert from_parquet.to_pylist() == from_csv.to_pylist() == decoded(from_parquet).to_pylist()
    a = fastperf.describe(from_parquet, by=["benchmark", "variant"])
    b = fastperf.describe(from_csv, by=["benchmark", "variant"])
    assert a.table.to_pylist() == b.table.to_pylist()


@pytest.mark.parametrize("columns", [
    {"benchmark": ["a", "b", "a"], "variant": ["x", "y", "x"], "unit": ["ns"] * 3},
    {"benchmark": [1, 2, 3], "variant": ["x", "y", "x"], "tags": [{"unit": "ns"}] * 3},
    {"name": ["a", "b", "a"]},
])
def test_parquet_reads_as_arrow_reads_it(tmp_path, columns):
    """`read_parquet` (pyarrow's ParquetFile) gives the table ``pyarrow.parquet.read_table``
    gives with the label columns dictionary-read: text labels encoded, an integer or absent
    label as stored, a struct whose child is named like a label untouched; from a path and from
    bytes; two row groups."""
    from fastperf.io.tabular import read_parquet

    src = pa.table({**columns, "value": [1.5, None, 3.0]})
    path = tmp_path / "t.parquet"
    pq.write_table(src, path, row_group_size=2)
    want = pq.read_table(path, read_dictionary=["benchmark", "variant", "unit"])
    assert read_parquet(path).equals(want, check_metadata=True)
    assert read_parquet(path, path.read_bytes()).equals(want, check_metadata=True)


def test_parquet_read_does_not_import_arrow_datasets(tmp_path):
    """A Parquet file is read without ``pyarrow.dataset`` (read_table's layer: ~17 ms of a
    fresh process's first call, and it imports pandas where pandas is installed)."""
    import subprocess
    import sys

    pq.write_table(pa.table({"benchmark": ["a"], "value": [1.0]}), tmp_path / "t.parquet")
    code = ("import sys; from pathlib import Path; from fastperf.io.tabular import read_parquet; "
            f"read_parquet(Path({str(tmp_path / 't.parquet')!r})); "
            "print('pyarrow.dataset' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


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
    with pytest.raises(InputError, match=r"other.json: a JSON object with top-level keys \['foo', "
                       r"'results'\]: not a format fastperf reads; formats tried: pyperf"):
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
