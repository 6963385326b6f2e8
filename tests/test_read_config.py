"""Configuration columns: the tool readers keep the configuration a row was measured under
(Go ``key: value`` lines, Google Benchmark ``context``, pyperf metadata that differs between
benchmarks) as string columns, declared in the schema metadata (``fastperf:config``).

Every file is written here, small and by hand, so that the expected columns can be read off it.
"""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fastperf import read
from fastperf.io.common import (
    CONFIG_METADATA_KEY, config_columns, order_columns, with_config,
)
from tool_files import check_schema, write_json


def rows(table: pa.Table, *columns: str) -> list[tuple]:
    return [tuple(r[c] for c in columns) for r in table.select(list(columns)).to_pylist()]


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------- the metadata


def test_config_columns_without_metadata_is_empty():
    t = pa.table({"benchmark": ["a"], "value": [1.0]})
    assert config_columns(t) == []
    assert config_columns(t.replace_schema_metadata({b"other": b"x"})) == []
    assert config_columns(t.replace_schema_metadata({CONFIG_METADATA_KEY: b"not json"})) == []


def test_with_config_merges_metadata_and_config_columns_keeps_present_names():
    t = pa.table({"benchmark": ["a"], "value": [1.0], "pkg": ["p"], "goos": ["linux"]})
    t = t.replace_schema_metadata({b"other": b"x"})
    c = with_config(t, ["goos", "missing", "pkg", "goos"])
    assert c.schema.metadata[b"other"] == b"x"
    assert json.loads(c.schema.metadata[CONFIG_METADATA_KEY]) == ["goos", "missing", "pkg"]
    assert config_columns(c) == ["goos", "pkg"]
    assert config_columns(order_columns(c.select(["pkg", "value", "goos", "benchmark"]))) == ["goos", "pkg"]
    assert config_columns(with_config(c, [])) == []


# ------------------------------------------------------------------------------- Go text

GO_SECTIONS = """\
BenchmarkEarly-8   100   5 ns/op
goos: linux
goarch: amd64
pkg: example.com/a
BenchmarkX-8   100   10 ns/op
BenchmarkX-8   100   11 ns/op
cpu: Fast CPU
pkg: example.com/b
BenchmarkX-8   100   20 ns/op
BenchmarkX-8   100   21 ns/op
goarch: arm64
BenchmarkX-8   100   30 ns/op
pkg:
BenchmarkX-8   100   40 ns/op
PASS
ok  \texample.com/b\t1.0s
"""


def test_go_keys_in_force_until_set_again(tmp_path):
    t = read(write(tmp_path, "sections.txt", GO_SECTIONS))
    check_schema(t, ["iterations"], config=["goos", "goarch", "pkg", "cpu"])
    assert t.column("iterations").to_pylist() == [100] * 7
    assert t.column("value").to_pylist() == pytest.approx([5e-9, 10e-9, 11e-9, 20e-9, 21e-9, 30e-9, 40e-9])
    assert rows(t, "goos", "goarch", "pkg", "cpu") == [
        (None, None, None, None),  # before any configuration line: null
        ("linux", "amd64", "example.com/a", None),
        ("linux", "amd64", "example.com/a", None),
        ("linux", "amd64", "example.com/b", "Fast CPU"),  # pkg redefined midway, cpu set
        ("linux", "amd64", "example.com/b", "Fast CPU"),
        ("linux", "arm64", "example.com/b", "Fast CPU"),  # goarch redefined
        ("linux", "arm64", None, "Fast CPU"),  # an empty value unsets the key
    ]
    assert set(t.column("variant").to_pylist()) == {"sections"}
    # run numbers count within (configuration, benchmark, unit)
    assert rows(t, "benchmark", "run") == [
        ("BenchmarkEarly-8", 0), ("BenchmarkX-8", 0), ("BenchmarkX-8", 1), ("BenchmarkX-8", 0),
        ("BenchmarkX-8", 1), ("BenchmarkX-8", 0), ("BenchmarkX-8", 0),
    ]


def test_go_same_name_in_two_packages_stays_apart(tmp_path):
    text = "goos: linux\n"
    for pkg, base in (("example.com/a", 100), ("example.com/b", 900)):
        text += f"pkg: {pkg}\n" + "".join(f"BenchmarkSame-8 10 {base + i} ns/op\n" for i in range(3))
    t = read(write(tmp_path, "two-packages.txt", text))
    check_schema(t, ["iterations"], config=["goos", "pkg"])
    groups: dict = {}
    for bench, pkg, run, value in rows(t, "benchmark", "pkg", "run", "value"):
        groups.setdefault((bench, pkg), []).append((run, value))
    assert groups == {
        ("BenchmarkSame-8", "example.com/a"): [(0, pytest.approx(100e-9)), (1, pytest.approx(101e-9)),
                                                (2, pytest.approx(102e-9))],
        ("BenchmarkSame-8", "example.com/b"): [(0, pytest.approx(900e-9)), (1, pytest.approx(901e-9)),
                                                (2, pytest.approx(902e-9))],
    }


def test_go_one_note_is_a_column_two_notes_are_the_variant(tmp_path):
    one = read(write(tmp_path, "one.txt", "pkg: p\nnote: slow disk\nBenchmarkA 1 1 ns/op\nBenchmarkA 1 2 ns/op\n"))
    check_schema(one, ["iterations"], config=["pkg", "note"])
    assert one.column("note").to_pylist() == ["slow disk"] * 2
    assert one.column("variant").to_pylist() == ["one"] * 2

    text = "pkg: p\nnote: before\nBenchmarkA 1 1 ns/op\nnote: after\nBenchmarkA 1 2 ns/op\n"
    two = read(write(tmp_path, "two.txt", text))
    check_schema(two, ["iterations"], config=["pkg"])
    assert "note" not in two.column_names
    assert two.column("variant").to_pylist() == ["before", "after"]
    assert two.column("run").to_pylist() == [0, 0]


def test_go_key_named_like_a_reader_column_is_renamed(tmp_path):
    text = "run: nightly\nunit: x\niterations: many\nconfig_run: kept\nBenchmarkA 7 1 ns/op\n"
    t = read(write(tmp_path, "clash.txt", text))
    check_schema(t, ["iterations"], config=["config_run", "config_unit", "config_iterations",
                                            "config_config_run"])
    r = t.to_pylist()[0]
    assert (r["run"], r["unit"], r["iterations"]) == (0, "sec/op", 7)
    assert (r["config_run"], r["config_unit"], r["config_iterations"]) == ("nightly", "x", "many")
    assert r["config_config_run"] == "kept"


def test_go_file_without_configuration(tmp_path):
    t = read(write(tmp_path, "bare.txt", "BenchmarkA 1 1 ns/op\n"))
    check_schema(t, ["iterations"], config=[])


def test_go_keys_set_only_after_the_last_result_are_no_columns(tmp_path):
    t = read(write(tmp_path, "late.txt", "goos: linux\nBenchmarkA 1 1 ns/op\npkg: late\n"))
    check_schema(t, ["iterations"], config=["goos"])


# ------------------------------------------------------------------------------- Google Benchmark


def gbench_doc(context: dict) -> dict:
    rows_ = [{"name": f"BM_X/{i}", "run_name": "BM_X", "run_type": "iteration", "repetitions": 2,
              "repetition_index": i, "iterations": 1000, "real_time": 10.0 + i, "cpu_time": 9.0,
              "time_unit": "ns"} for i in range(2)]
    return {"context": context, "benchmarks": rows_}


def test_gbench_context_scalars_become_columns(tmp_path):
    context = {"date": "2024-01-01T00:00:00", "host_name": "box", "num_cpus": 8, "mhz_per_cpu": 3000,
               "cpu_scaling_enabled": False, "library_build_type": "release", "ratio": 1.5,
               "caches": [{"type": "Data", "level": 1, "size": 32768}], "load_avg": [0.1, 0.2],
               "nothing": None, "iterations": "clash"}
    t = read(write_json(tmp_path / "gb.json", gbench_doc(context)))
    expected = {"date": "2024-01-01T00:00:00", "host_name": "box", "num_cpus": "8",
                "mhz_per_cpu": "3000", "cpu_scaling_enabled": "false",
                "library_build_type": "release", "ratio": "1.5", "config_iterations": "clash"}
    check_schema(t, ["iterations"], config=list(expected))
    for name, value in expected.items():
        assert t.column(name).to_pylist() == [value, value]
    assert t.column("iterations").to_pylist() == [1000, 1000]


def test_gbench_without_context(tmp_path):
    doc = gbench_doc({})
    del doc["context"]
    t = read(write_json(tmp_path / "gb.json", doc))
    check_schema(t, ["iterations"], config=[])


# ------------------------------------------------------------------------------- pyperf


def pyperf_bench(name: str, **meta) -> dict:
    runs = [{"metadata": {"date": "2024-01-01 00:00:00"}, "warmups": [[1, 0.5]]},
            {"metadata": {"date": "2024-01-01 00:00:01"}, "values": [1.0, 2.0]}]
    return {"metadata": {"name": name, **meta}, "runs": runs}


def test_pyperf_metadata_that_varies_becomes_columns(tmp_path):
    doc = {"version": "1.0", "metadata": {"hostname": "box", "python_version": "3.11"},
           "benchmarks": [
               pyperf_bench("a", timeit_stmt="x+1", tags=["foo", "bar"], loops=64, same="s",
                            mem_max_rss=100, only_here=True, command="python -m a", unit="second"),
               pyperf_bench("b", timeit_stmt="x*2", tags=["bar"], loops=32, same="s",
                            mem_max_rss=200, command="python -m b", unit="second"),
           ]}
    t = read(write_json(tmp_path / "pp.json", doc))
    check_schema(t, ["process", "iteration"], config=["timeit_stmt", "tags", "only_here"])
    assert rows(t, "benchmark", "timeit_stmt", "tags", "only_here") == [
        ("a", "x+1", "foo,bar", "true"), ("a", "x+1", "foo,bar", "true"),
        ("b", "x*2", "bar", None), ("b", "x*2", "bar", None),
    ]


def test_pyperf_single_benchmark_has_no_configuration(tmp_path):
    doc = {"version": "1.0", "metadata": {"hostname": "box"},
           "benchmarks": [pyperf_bench("a", timeit_stmt="x+1")]}
    t = read(write_json(tmp_path / "pp.json", doc))
    check_schema(t, ["process", "iteration"], config=[])


def test_pyperf_metadata_named_like_a_level_is_renamed(tmp_path):
    doc = {"version": "1.0", "benchmarks": [pyperf_bench("a", process="fork", round=1),
                                            pyperf_bench("b", process="spawn", round=2)]}
    t = read(write_json(tmp_path / "pp.json", doc))
    check_schema(t, ["process", "iteration"], config=["config_process", "config_round"])
    assert rows(t, "benchmark", "process", "config_process", "config_round") == [
        ("a", 0, "fork", "1"), ("a", 0, "fork", "1"), ("b", 0, "spawn", "2"), ("b", 0, "spawn", "2")]


# ------------------------------------------------------------------------------- several files


def test_several_files_declare_the_union_of_their_configuration(tmp_path):
    go = write(tmp_path, "go.txt", "goos: linux\npkg: p\nBenchmarkA 1 1 ns/op\n")
    gb = write_json(tmp_path / "gb.json", gbench_doc({"host_name": "box", "num_cpus": 4}))
    go2 = write(tmp_path, "go2.txt", "cpu: c\ngoos: darwin\nBenchmarkA 1 1 ns/op\n")
    t = read([go, gb, go2])
    check_schema(t, ["iterations"], config=["goos", "pkg", "host_name", "num_cpus", "cpu"])
    assert rows(t, "variant", "goos", "pkg", "host_name", "cpu") == [
        ("go", "linux", "p", None, None),
        ("gb", None, None, "box", None), ("gb", None, None, "box", None),
        ("go2", "darwin", None, None, "c"),
    ]
    assert json.loads(t.schema.metadata[CONFIG_METADATA_KEY]) == config_columns(t)


def test_note_files_keep_their_configuration(tmp_path):
    text = "pkg: p\nnote: before\nBenchmarkA 1 1 ns/op\nnote: after\nBenchmarkA 1 2 ns/op\n"
    a = write(tmp_path, "a.txt", text)
    b = write(tmp_path, "b.txt", "goos: linux\nBenchmarkA 1 3 ns/op\n")
    t = read([a, b])
    check_schema(t, ["iterations"], config=["pkg", "goos"])
    assert rows(t, "variant", "pkg", "goos") == [("a/before", "p", None), ("a/after", "p", None),
                                                 ("b", None, "linux")]
    single = read(a, variants=["x"])
    check_schema(single, ["iterations"], config=["pkg"])


def test_tables_without_declaration_have_none_and_parquet_keeps_it(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("benchmark,value,pkg\na,1.0,p\n")
    from_csv = read(csv)
    assert from_csv.column_names == ["benchmark", "variant", "value", "pkg"]
    assert config_columns(from_csv) == []
    go = read(write(tmp_path, "go.txt", "goos: linux\npkg: p\nBenchmarkA 1 1 ns/op\n"))
    pq.write_table(go, tmp_path / "go.parquet")
    back = read(tmp_path / "go.parquet")
    check_schema(back, ["iterations"], config=["goos", "pkg"])
    assert config_columns(read(go)) == ["goos", "pkg"]  # an in-memory table keeps it as well
    bare = go.drop_columns(["variant"])
    assert config_columns(read(bare, variants=["x"])) == ["goos", "pkg"]
