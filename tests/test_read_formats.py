"""`fastperf.read` on every benchmark-tool format, on files the tests write from
`fastperf.simulate` tables (tests/tool_files.py): Go text (one variant, note sections, two
units), Google Benchmark, pyperf, pytest-benchmark and hyperfine JSON; several files at once;
detection by content; the errors a tool file can cause.

The same checks as tests/conformance/test_peers_read.py makes on the peers' own files. Expected
values come from the simulated tables and the files written (parsed with json/regex,
independently of the readers), never from the readers' output.
"""
from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastperf
from fastperf import InputError, read
from fastperf.io.go import tidy_unit
from fastperf.io.read import detect_format
from fastperf.io.summaries import is_summary_table
from tool_files import (
    check_gbench_iterations_read, check_go_read, check_refused, check_pyperf_runs_read, check_pytest_benchmark_read,
    CANONICAL, TIME_UNIT_SECONDS, by_benchmark, check_schema, decoded, gbench_doc, gbench_iterations,
    go_name, go_rows, hyperfine_doc, pyperf_doc, pytest_benchmark_doc, samples, write_go, write_json,
)

B, R = 4, 6  # benchmarks and runs of the simulated tables


@pytest.fixture(scope="module")
def sim():
    """Two variants, every noise shape (ties included), paired runs."""
    return fastperf.simulate(benchmarks=B, runs=R, seed=3, paired=True, sigma=(0.005, 0.05))


def flat(sample: dict) -> list[float]:
    return [v for values in sample.values() for v in values]


# ------------------------------------------------------------------------------------------
# every format


FORMATS = ["go", "go-two-units", "go-notes", "google-benchmark", "google-benchmark-aggregates-only",
           "pyperf", "pytest-benchmark", "pytest-benchmark-without-data", "hyperfine"]


def write_case(kind: str, folder, sim):
    """(path, detected format) of a file of `kind` holding the simulated measurements."""
    table = sim.table
    if kind == "go":
        return write_go(folder / "go-run.txt", table, ["baseline"]), "go"
    if kind == "go-two-units":
        return write_go(folder / "go-units.txt", table, ["candidate"], notes="one note only", throughput=True), "go"
    if kind == "go-notes":
        return write_go(folder / "go-notes.txt", table, notes=True), "go"
    if kind == "google-benchmark":
        return write_json(folder / "gb.json", gbench_doc(table, "baseline")), "google-benchmark"
    if kind == "google-benchmark-aggregates-only":
        return write_json(folder / "gb_aggs.json", gbench_doc(table, "baseline", aggregates_only=True)), "google-benchmark"
    if kind == "pyperf":
        return write_json(folder / "pyperf-run.json", pyperf_doc(table, "baseline")), "pyperf"
    if kind == "pytest-benchmark":
        return write_json(folder / "pb.json", pytest_benchmark_doc(table, "candidate")), "pytest-benchmark"
    if kind == "pytest-benchmark-without-data":
        return (write_json(folder / "0001_saved.json", pytest_benchmark_doc(table, "candidate", with_data=False)),
                "pytest-benchmark")
    if kind == "hyperfine":
        return write_json(folder / "hf.json", hyperfine_doc(table, "baseline")), "hyperfine"
    raise AssertionError(kind)


def test_every_format_is_written():
    assert {k.split("-")[0] for k in FORMATS} == {"go", "google", "pyperf", "pytest", "hyperfine"}


@pytest.mark.parametrize("kind", FORMATS)
def test_read_every_format(tmp_path, sim, kind):
    path, detected = write_case(kind, tmp_path, sim)
    assert detect_format(path) == detected
    if kind == "pytest-benchmark-without-data":  # a summary table: the tool's statistics
        table = read(path)
        assert is_summary_table(table) and table.num_rows == B
        for bench, values in samples(sim.table, "candidate").items():
            row = next(r for r in table.to_pylist() if r["benchmark"].endswith(f"test_{bench}"))
            assert row["n"] == len(values) and row["mean"] == pytest.approx(np.mean(values))
            assert row["sd"] == pytest.approx(np.std(values, ddof=1))
        with pytest.raises(InputError, match="summary statistics only"):
            read(path, summaries=False)
        return
    if kind == "google-benchmark-aggregates-only":
        check_refused(path, "only aggregate rows", "--benchmark_repetitions",
                      "--benchmark_report_aggregates_only")
        return
    table = read(path)
    benchmarks = table.column("benchmark").to_pylist()
    variants = list(dict.fromkeys(table.column("variant").to_pylist()))
    n_bench = B
    if kind in ("go", "go-two-units", "go-notes"):
        check_schema(table, ["iterations"])
        raw = go_rows(path)
        assert [r[1] for r in raw] == benchmarks
        tidied = [tidy_unit(r[3]) for r in raw]
        assert table.column("value").to_pylist() == pytest.approx([r[2] * f for r, (_, f) in zip(raw, tidied)], rel=1e-12)
        if kind == "go":
            rows, expected_variants = B * R, ["go-run"]
            expected = flat(samples(sim.table, "baseline"))
            assert table.column("value").to_pylist() == pytest.approx(expected, rel=1e-9)
        elif kind == "go-two-units":  # ns/op and MB/s on every line; a single note: no variant
            rows, expected_variants = 2 * B * R, ["go-units"]
            assert set(table.column("unit").to_pylist()) == {"sec/op", "B/s"}
        else:
            rows, expected_variants = 2 * B * R, ["baseline", "candidate"]
            assert table.column("variant").to_pylist() == [r[0] for r in raw]
    elif kind == "google-benchmark":
        rows, expected_variants = B * R, ["gb"]
        check_schema(table, ["iterations"])
        raw = gbench_iterations(path)
        assert [b.get("run_name", b["name"]) for b in raw] == benchmarks
        for b, v in zip(raw, table.column("value").to_pylist()):
            assert v == pytest.approx(b["real_time"] * TIME_UNIT_SECONDS[b["time_unit"]], rel=1e-12)
        assert table.column("value").to_pylist() == pytest.approx(flat(samples(sim.table, "baseline")), rel=1e-12)
        assert set(table.column("unit").to_pylist()) == {"s"}
    elif kind == "pyperf":
        rows, expected_variants = B * R, ["pyperf-run"]
        check_schema(table, ["process", "iteration"])
        doc = json.loads(path.read_text())
        values = [v for b in doc["benchmarks"] for r in b["runs"] for v in r.get("values", [])]
        assert table.column("value").to_pylist() == values == flat(samples(sim.table, "baseline"))
        # 3 values per pyperf run (process), R // 3 runs per benchmark; run: the value's index
        assert table.column("process").to_pylist() == [p for _ in range(B) for p in range(R // 3) for _ in range(3)]
        assert table.column("iteration").to_pylist() == [0, 1, 2] * (B * R // 3)
        assert table.column("run").to_pylist() == list(range(R)) * B
    elif kind == "pytest-benchmark":
        rows, expected_variants = B * R, ["pb"]
        check_schema(table)
        assert table.column("value").to_pylist() == flat(samples(sim.table, "candidate"))
    else:
        rows, expected_variants = B * R, ["hf"]
        check_schema(table, ["exit_code", "process"])
        assert table.column("process").to_pylist() == list(range(R)) * B  # each run a process
        assert table.column("value").to_pylist() == flat(samples(sim.table, "baseline"))
    assert table.num_rows == rows
    assert len(set(benchmarks)) == n_bench
    assert variants == expected_variants
    assert table.column("benchmark").null_count == 0


@pytest.mark.parametrize("kind", [k for k in FORMATS if k != "google-benchmark-aggregates-only"])
def test_a_byte_order_mark_changes_nothing(tmp_path, sim, kind):
    """A file that starts with a UTF-8 byte-order mark (Windows editors, PowerShell's `>`) reads
    as the same file without it: a Go file lost its first line (and a first `goos:` line)
    without counting it, a one-line one was refused. Oracle: the file without the mark."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "marked").mkdir()
    path, _ = write_case(kind, tmp_path / "plain", sim)
    marked = tmp_path / "marked" / path.name
    marked.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    want, got = read(path), read(marked)
    assert got.to_pylist() == want.to_pylist()
    assert got.schema.metadata == want.schema.metadata


def test_a_go_file_with_a_byte_order_mark_keeps_its_first_line(tmp_path):
    lines = ["goos: linux", "BenchmarkA-8 100 5 ns/op", "BenchmarkA-8 100 6 ns/op",
             "BenchmarkA-8 100 7 ns/op"]
    for name, text in (("three.txt", "\n".join(lines) + "\n"), ("one.txt", lines[1] + "\n")):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + text.encode())
        table = read(tmp_path / name)
        assert table.column("value").to_pylist() == pytest.approx(
            [5e-9, 6e-9, 7e-9] if name == "three.txt" else [5e-9])
        if name == "three.txt":
            assert table.column("goos").to_pylist() == ["linux"] * 3


def test_a_json_value_of_the_wrong_type_is_refused(tmp_path, sim):
    """A string or a bool where a tool writes a number or a flag is refused, naming the
    benchmark and field (they were read: "5" as 5 ns, true as 1.0 s, an error flag "false" as
    true, a list as the name "['x']"). Oracle: the tools' JSON schemas."""
    doc = gbench_doc(sim.table, "baseline")
    cases = [("real_time", "5", "real_time '5' is not a number"),
             ("real_time", True, "real_time True is not a number"),
             ("error_occurred", "false", "error_occurred 'false' is not true or false"),
             ("name", ["x"], r"name \['x'\] is not text")]
    for field, bad, message in cases:
        broken = json.loads(json.dumps(doc))
        row = next(r for r in broken["benchmarks"] if r.get("run_type") == "iteration")
        row[field] = bad
        if field == "name":
            row.pop("run_name", None)
        with pytest.raises(InputError, match=message):
            read(write_json(tmp_path / "gb.json", broken))
    pyperf = pyperf_doc(sim.table, "baseline")
    run = next(r for b in pyperf["benchmarks"] for r in b["runs"] if r.get("values"))
    run["values"][0] = True
    with pytest.raises(InputError, match="values True is not a number"):
        read(write_json(tmp_path / "pyperf.json", pyperf))


@pytest.mark.parametrize("bad", [123, ["x"], {"a": 1}, True])
def test_a_name_that_is_not_text_is_refused(tmp_path, bad):
    """A number, list, object or bool where pyperf, pytest-benchmark or hyperfine write a
    benchmark's name is refused naming the field; it was read as the name "123" or "['x']".
    Oracle: the tools' JSON (pyperf's metadata name, pytest-benchmark's fullname and
    hyperfine's command are strings)."""
    table = fastperf.simulate(2, 3, seed=3).table
    cases = [
        (pyperf_doc(table, "baseline"), lambda d: d["benchmarks"][0]["metadata"].update(name=bad),
         "pyperf benchmark #0's name"),
        (pytest_benchmark_doc(table, "baseline"),
         lambda d: d["benchmarks"][0].update(fullname=bad, name=bad),
         "a pytest-benchmark entry's name"),
        (hyperfine_doc(table, "baseline"), lambda d: d["results"][0].update(command=bad),
         "a hyperfine result's command"),
    ]
    for doc, damage, field in cases:
        read(write_json(tmp_path / "good.json", doc))  # the undamaged document reads
        damage(doc)
        with pytest.raises(InputError, match=f"{re.escape(field)} .* is not text"):
            read(write_json(tmp_path / "bad.json", doc))


def test_an_older_google_benchmark_files_aggregates_are_skipped(tmp_path):
    """JSON written before rows had a ``run_type`` names its aggregates `<benchmark>_mean`,
    `_median`, `_stddev` after the benchmark's repetitions: they are skipped, as the console
    reader skips them (they were three more benchmarks, the stddev's 1 ns a time). A benchmark
    merely named so, with no benchmark of the stem before it, stays. Oracle: the file's rows."""
    rows = [{"name": "BM_x/8", "iterations": 10, "real_time": t, "cpu_time": t,
             "time_unit": "ns"} for t in (100.0, 101.0, 102.0)]
    rows += [{"name": f"BM_x/8_{s}", "iterations": 3, "real_time": t, "cpu_time": t,
              "time_unit": "ns"} for s, t in (("mean", 101.0), ("median", 101.0),
                                              ("stddev", 1.0))]
    rows.append({"name": "BM_y_mean", "iterations": 1, "real_time": 7.0, "cpu_time": 7.0,
                 "time_unit": "ns"})
    # a benchmark run once is never followed by aggregates: BM_sum_mean is a benchmark
    rows += [{"name": name, "iterations": 1, "real_time": t, "cpu_time": t, "time_unit": "ns"}
             for name, t in (("BM_sum", 5.0), ("BM_sum_mean", 6.0))]
    # complexity rows name the family (BM_f_BigO after BM_f/1, BM_f/2) and hold no time
    rows += [{"name": f"BM_f/{n}", "iterations": 1, "real_time": float(n), "cpu_time": 1.0,
              "time_unit": "ns"} for n in (1, 2)]
    rows += [{"name": "BM_f_BigO", "cpu_coefficient": 1.0, "real_coefficient": 1.0,
              "big_o": "N", "time_unit": "ns"}, {"name": "BM_f_RMS", "rms": 0.01}]
    table = read(write_json(tmp_path / "old.json", {"context": {}, "benchmarks": rows}))
    assert table.column("benchmark").to_pylist() == (
        ["BM_x/8"] * 3 + ["BM_y_mean", "BM_sum", "BM_sum_mean", "BM_f/1", "BM_f/2"])
    assert table.column("value").to_pylist() == pytest.approx(
        [100e-9, 101e-9, 102e-9, 7e-9, 5e-9, 6e-9, 1e-9, 2e-9])


@pytest.mark.parametrize("change, message", [
    (lambda doc: doc.update(version=1), "version 1 is not a version string"),
    (lambda doc: doc["benchmarks"][0].update(runs={"a": 1}), "'runs' is not a list"),
])
def test_a_malformed_pyperf_file_names_what_is_wrong(tmp_path, sim, change, message):
    """('format version '1' is not supported (only 1.x)'; "AttributeError: 'str' object has no
    attribute 'get'")."""
    doc = pyperf_doc(sim.table, "baseline")
    change(doc)
    with pytest.raises(InputError, match=message):
        read(write_json(tmp_path / "pyperf.json", doc))


def test_a_null_round_of_pytest_benchmark_is_dropped_and_counted(tmp_path, sim):
    """A null in ``stats.data`` is a missing round: the rounds are read, that one dropped and
    counted (the whole file was read as its summary statistics). Oracle: the rounds."""
    doc = pytest_benchmark_doc(sim.table, "candidate")
    rounds = doc["benchmarks"][0]["stats"]["data"]
    kept = rounds[1:]
    rounds[0] = None
    table = read(write_json(tmp_path / "pb.json", doc))
    assert not is_summary_table(table)
    first = doc["benchmarks"][0].get("fullname") or doc["benchmarks"][0]["name"]
    result = fastperf.describe(table)
    row = next(r for r in result.table.to_pylist() if r["benchmark"] == first)
    assert row["n"] == len(kept) and row["n_dropped"] == 1
    assert row["mean"] == pytest.approx(np.mean(kept), rel=1e-12)


def test_duplicate_entries_keep_their_processes_apart(tmp_path, sim):
    """pyperf refuses a suite with two benchmarks of one name (pyperf's own rule); a hyperfine
    command listed twice continues its runs, each a process of its own (both lists restarted
    at 0, so run/process 0 of each merged). Oracle: pyperf's rule; one entry with every time."""
    pyperf = pyperf_doc(sim.table, "baseline")
    pyperf["benchmarks"].append(json.loads(json.dumps(pyperf["benchmarks"][0])))
    with pytest.raises(InputError, match="two benchmarks called"):
        read(write_json(tmp_path / "pyperf.json", pyperf))
    doc = hyperfine_doc(sim.table, "baseline")
    first = doc["results"][0]
    doc["results"] = [first, json.loads(json.dumps(first))]
    table = read(write_json(tmp_path / "hf.json", doc))
    n = len(first["times"])
    assert table.column("run").to_pylist() == list(range(2 * n))
    assert table.column("process").to_pylist() == list(range(2 * n))
    assert table.column("value").to_pylist() == first["times"] * 2


# ------------------------------------------------------------------------------------------
# Go text


def test_go_values_and_unit_normalisation(tmp_path, sim):
    path = write_go(tmp_path / "units.txt", sim.table, ["baseline"], notes="simulated", throughput=True)
    t = read(path)
    raw = go_rows(path)
    first, last = go_name("bench_00000"), go_name(f"bench_{B - 1:05d}")
    first_line = [r for r in raw if r[1] == first][:2]  # (ns/op, MB/s) of the first line
    assert [u for *_, u in first_line] == ["ns/op", "MB/s"]
    assert by_benchmark(t, first, unit="sec/op")[0] == pytest.approx(first_line[0][2] * 1e-9, rel=1e-12)
    assert by_benchmark(t, first, unit="B/s")[0] == pytest.approx(first_line[1][2] * 1e6, rel=1e-12)
    seconds = samples(sim.table, "baseline")["bench_00000"][0]
    assert by_benchmark(t, first, unit="sec/op")[0] == pytest.approx(seconds, rel=1e-9)
    assert by_benchmark(t, first, unit="B/s")[0] == pytest.approx(1024 / seconds, rel=1e-5)  # 6 digits
    assert by_benchmark(t, first, "iterations")[0] == max(1, int(1.0 / seconds))
    assert by_benchmark(t, first, "run", unit="sec/op") == list(range(R))
    assert set(t.column("unit").to_pylist()) == {"sec/op", "B/s"}
    last_line = [r for r in raw if r[1] == last][-2:]
    assert by_benchmark(t, last, unit="sec/op")[-1] == pytest.approx(last_line[0][2] * 1e-9, rel=1e-12)
    assert by_benchmark(t, last, unit="B/s")[-1] == pytest.approx(last_line[1][2] * 1e6, rel=1e-12)


HAND_WRITTEN = {
    # before/after sections, one benchmark, one unit: values by hand
    "sections.txt": "\n".join([
        "goos: linux", "goarch: arm64", "pkg: example.com/big",
        "note: before", "",
        "BenchmarkBigAdd/1000-4    10000000    230 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    228 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    230 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    230 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    230 ns/op",
        "PASS", "", "note: after", "",
        "BenchmarkBigAdd/1000-4    10000000    150 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    150 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    150 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    150 ns/op",
        "BenchmarkBigAdd/1000-4    10000000    150 ns/op",
        "PASS", "",
    ]),
    # zero values, custom units, units with several ns / MB parts, one line per pair here and there
    "custom.txt": "\n".join([
        "note: before",
        "BenchmarkNothing 1 0 widgets 0 x-ns/op",
        "BenchmarkNothing 1 0 widgets 0 x-ns/op",
        "BenchmarkLarge 1 98765432109 b-bytes 3.5 MB*MB/s",
        "BenchmarkLarge 1 98765432110 b-bytes 3.25 MB*MB/s",
        "note: after",
        "BenchmarkNothing 1 0 widgets 7 x-ns/op",
        "BenchmarkLarge 1 0 b-bytes 4 MB*MB/s",
        "BenchmarkOther-16 2 12 c-bytes 2 B/op 9 allocs/op",
    ]),
}


@pytest.mark.parametrize("name", ["notes", "sections.txt", "custom.txt"])
def test_go_note_sections_become_variants(tmp_path, sim, name):
    if name == "notes":
        path = write_go(tmp_path / "notes.txt", sim.table, notes=True, throughput=True)
    else:
        path = tmp_path / name
        path.write_text(HAND_WRITTEN[name])
    check_go_read(path)


def test_go_before_after_values(tmp_path):
    path = tmp_path / "sections.txt"
    path.write_text(HAND_WRITTEN["sections.txt"])
    t = read(path)
    assert by_benchmark(t, "BenchmarkBigAdd/1000-4", variant="before") == pytest.approx(
        [230e-9, 228e-9, 230e-9, 230e-9, 230e-9], rel=1e-12
    )
    assert by_benchmark(t, "BenchmarkBigAdd/1000-4", variant="after") == pytest.approx([150e-9] * 5, rel=1e-12)
    assert set(t.column("iterations").to_pylist()) == {10_000_000}


def test_go_zero_and_custom_units_kept(tmp_path):
    path = tmp_path / "custom.txt"
    path.write_text(HAND_WRITTEN["custom.txt"])
    t = read(path)
    assert by_benchmark(t, "BenchmarkNothing", variant="after", unit="widgets") == [0.0]
    assert by_benchmark(t, "BenchmarkNothing", variant="after", unit="x-sec/op") == [pytest.approx(7e-9, rel=1e-12)]
    assert by_benchmark(t, "BenchmarkLarge", variant="before", unit="b-bytes") == [98765432109.0, 98765432110.0]
    assert by_benchmark(t, "BenchmarkLarge", variant="before", unit="B*B/s") == pytest.approx([3.5e12, 3.25e12], rel=1e-12)
    assert set(t.column("unit").to_pylist()) == {"widgets", "x-sec/op", "b-bytes", "B*B/s", "c-bytes", "B/op", "allocs/op"}


# ------------------------------------------------------------------------------------------
# Google Benchmark


def test_gbench_units_metric_and_runs(tmp_path, sim):
    ms = write_json(tmp_path / "ms.json", gbench_doc(sim.table, "baseline", time_unit="ms"))
    t = read(ms)
    expected = samples(sim.table, "baseline")
    name = "BM_Sim/00001"
    assert by_benchmark(t, name) == pytest.approx(expected["bench_00001"], rel=1e-12)
    cpu = read(ms, metric="cpu_time")
    assert by_benchmark(cpu, name) == pytest.approx([0.97 * v for v in expected["bench_00001"]], rel=1e-12)
    doc = gbench_doc(sim.table, "candidate", time_unit="s", repetition_index=False)
    doc["benchmarks"] += [dict(row, name="BM_AggregatesOnly_mean", run_name="BM_AggregatesOnly")
                          for row in doc["benchmarks"] if row.get("aggregate_name") == "mean"][:1]
    s = write_json(tmp_path / "s.json", doc)
    t = read(s)
    assert by_benchmark(t, name, "run") == list(range(R))  # no repetition_index: occurrence index
    assert by_benchmark(t, name) == pytest.approx(samples(sim.table, "candidate")["bench_00001"], rel=1e-12)
    assert by_benchmark(t, name, "iterations") == [max(1, int(1.0 / v)) for v in samples(sim.table, "candidate")["bench_00001"]]
    assert "BM_AggregatesOnly" not in t.column("benchmark").to_pylist()  # aggregate rows only
    assert not any(b.endswith(("_mean", "_cv")) for b in t.column("benchmark").to_pylist())  # aggregates skipped


def test_gbench_rows_without_times_are_null(tmp_path, sim):
    doc = gbench_doc(sim.table, "baseline", aggregates=False)
    for row in doc["benchmarks"]:
        del row["real_time"], row["cpu_time"]
    t = read(write_json(tmp_path / "no_times.json", doc))
    assert t.column("value").null_count == B * R
    assert t.column("run").to_pylist() == list(range(R)) * B  # repetition_index


def test_gbench_repetitions_file(tmp_path, sim):
    path = write_json(tmp_path / "reps.json", gbench_doc(sim.table, "candidate"))
    t = check_gbench_iterations_read(path)
    assert t.column("run").to_pylist()[:R] == list(range(R))
    assert set(t.column("benchmark").to_pylist()) == {f"BM_Sim/{i:05d}" for i in range(B)}


# ------------------------------------------------------------------------------------------
# pyperf, pytest-benchmark, hyperfine


def test_pyperf_runs_skip_calibration_and_warmups(tmp_path, sim):
    path = write_json(tmp_path / "suite.json", pyperf_doc(sim.table, "baseline", values_per_run=2))
    check_pyperf_runs_read(path, runs=R // 2, values_per_run=2)


def test_pyperf_file_level_name_and_units(tmp_path):
    one = fastperf.simulate(benchmarks=1, runs=4, seed=8)
    path = write_json(tmp_path / "timeit.json", pyperf_doc(one.table, "baseline", values_per_run=1, unit=None,
                                                           file_level_name=True))
    t = read(path)  # name only in the file's metadata; no unit: seconds
    assert set(t.column("benchmark").to_pylist()) == {"bench_00000"}
    assert set(t.column("unit").to_pylist()) == {"s"}
    assert t.column("value").to_pylist() == samples(one.table, "baseline")["bench_00000"]
    memory = write_json(tmp_path / "memory.json", pyperf_doc(one.table, "candidate", values_per_run=1,
                                                             unit="byte", file_level_name=True))
    m = read(memory)
    assert m.column("unit").to_pylist() == ["B"] * 4
    assert m.column("run").to_pylist() == [0, 1, 2, 3]


def test_pytest_benchmark_rounds(tmp_path, sim):
    path = write_json(tmp_path / "pb.json", pytest_benchmark_doc(sim.table, "baseline"))
    t = check_pytest_benchmark_read(path)
    assert by_benchmark(t, "tests/test_sim.py::test_bench_00003", "run")[-1] == R - 1


def test_hyperfine_times(tmp_path, sim):
    path = write_json(tmp_path / "hf.json", hyperfine_doc(sim.table, "candidate"))
    t = read(path)
    expected = samples(sim.table, "candidate")
    first, second = "./sim --case bench_00000", "./sim --case bench_00001"
    assert by_benchmark(t, first)[0] == expected["bench_00000"][0]
    assert by_benchmark(t, first)[-1] == expected["bench_00000"][-1]
    assert by_benchmark(t, second) == expected["bench_00001"]
    assert by_benchmark(t, second, "run") == list(range(R))
    assert set(t.column("exit_code").to_pylist()) == {0}
    assert set(t.column("unit").to_pylist()) == {"s"}
    without = read(write_json(tmp_path / "old_hf.json", hyperfine_doc(sim.table, "candidate", exit_codes=False)))
    assert without.column("exit_code").null_count == B * R


# ------------------------------------------------------------------------------------------
# several files at once


def test_two_go_files_are_two_variants_named_after_the_files(tmp_path, sim):
    old = write_go(tmp_path / "sim-old.txt", sim.table, ["baseline"], notes="one note", throughput=True)
    new = write_go(tmp_path / "sim-new.txt", sim.table, ["candidate"], notes="one note", throughput=True)
    t = read([old, new])
    check_schema(t, ["iterations"])
    assert t.num_rows == 4 * B * R
    assert t.column("variant").to_pylist() == ["sim-old"] * 2 * B * R + ["sim-new"] * 2 * B * R
    first = go_name("bench_00000")
    assert by_benchmark(t, first, variant="sim-new", unit="sec/op")[0] == pytest.approx(
        go_rows(new)[0][2] * 1e-9, rel=1e-12)


def test_several_note_files_prefix_the_file_name(tmp_path, sim):
    sections = tmp_path / "sections.txt"
    sections.write_text(HAND_WRITTEN["sections.txt"])
    notes = write_go(tmp_path / "simNotes.txt", sim.table, notes=True)
    t = read([sections, notes])
    assert list(dict.fromkeys(t.column("variant").to_pylist())) == [
        "sections/before", "sections/after", "simNotes/baseline", "simNotes/candidate"
    ]
    t = read(notes, variants=["x"])
    assert t.column("variant").to_pylist() == ["x/baseline"] * B * R + ["x/candidate"] * B * R


def test_mixed_formats_in_one_table(tmp_path, sim):
    one = fastperf.simulate(benchmarks=1, runs=3, seed=1)
    hf = write_json(tmp_path / "hf.json", hyperfine_doc(sim.table, "baseline"))
    memory = write_json(tmp_path / "track_memory.json",
                        pyperf_doc(one.table, "baseline", values_per_run=1, unit="byte", file_level_name=True))
    t = read([hf, memory])
    assert t.column_names == CANONICAL + ["exit_code", "process", "iteration"]
    assert t.num_rows == B * R + 3
    assert t.column("exit_code").to_pylist()[-3:] == [None] * 3
    assert t.column("process").to_pylist()[-3:] == [0, 1, 2]  # pyperf: 3 runs of one value
    assert t.column("iteration").to_pylist() == [None] * B * R + [0, 0, 0]
    assert t.column("variant").to_pylist()[-1] == "track_memory"
    assert t.column("unit").to_pylist()[-3:] == ["B"] * 3


@pytest.fixture
def raw_table() -> pa.Table:
    return pa.table({"name": ["a", "a", "b"], "run": [0, 1, 0], "time_ms": [1.5, 2.0, 3.25], "host": ["x", "y", "z"]})


def expected_file_table(variant: str) -> pa.Table:
    t = pa.table({"benchmark": pa.array(["a", "a", "b"], pa.string()), "variant": [variant] * 3,
                  "run": pa.array([0, 1, 0], pa.int64()), "value": [1.5, 2.0, 3.25]})
    return t.append_column("host", pa.array(["x", "y", "z"]))


def test_detection_by_content_not_extension(tmp_path, raw_table, sim):
    path = tmp_path / "actually_parquet.csv"
    pq.write_table(raw_table, path)
    assert detect_format(path) == "parquet"
    t = read(path, benchmark="name", value="time_ms")
    assert decoded(t).equals(expected_file_table("actually_parquet"))
    with pytest.raises(InputError, match="CSV"):
        read(path, format="csv", benchmark="name", value="time_ms")
    hyperfine_copy = tmp_path / "results.txt"
    shutil.copy(write_json(tmp_path / "hf.json", hyperfine_doc(sim.table, "baseline")), hyperfine_copy)
    assert detect_format(hyperfine_copy) == "hyperfine"
    go_copy = tmp_path / "results.json"
    shutil.copy(write_go(tmp_path / "go.txt", sim.table), go_copy)
    assert detect_format(go_copy) == "go"
    for name, doc in [("pf.dat", pyperf_doc(sim.table, "baseline")), ("gb.dat", gbench_doc(sim.table, "baseline")),
                      ("pb.dat", pytest_benchmark_doc(sim.table, "baseline"))]:
        assert detect_format(write_json(tmp_path / name, doc)) == {
            "pf.dat": "pyperf", "gb.dat": "google-benchmark", "pb.dat": "pytest-benchmark"}[name]


# ------------------------------------------------------------------------------------------
# bad input


def test_unknown_format_and_metric(tmp_path, sim):
    go = write_go(tmp_path / "old.txt", sim.table, ["baseline"])
    with pytest.raises(InputError) as exc:
        read(go, format="benchstat")
    msg = str(exc.value)
    assert "'benchstat'" in msg
    for name in ("parquet", "csv", "ipc", "pyperf", "pytest-benchmark", "google-benchmark", "hyperfine", "go"):
        assert name in msg
    with pytest.raises(InputError, match="cpu_time"):
        read(write_json(tmp_path / "gb.json", gbench_doc(sim.table, "baseline")), metric="wall_time")


def test_wrong_explicit_format(tmp_path, sim):
    go = write_go(tmp_path / "old.txt", sim.table, ["baseline"])
    with pytest.raises(InputError, match="old.txt.*not valid JSON"):
        read(go, format="pyperf")
    with pytest.raises(InputError, match="not a hyperfine"):
        read(write_json(tmp_path / "telco.json", pyperf_doc(sim.table, "baseline")), format="hyperfine")
    with pytest.raises(InputError, match="Parquet"):
        read(go, format="parquet")


def test_simulated_values_survive_every_json_format_exactly(tmp_path, sim):
    """JSON keeps floats exactly (repr): what simulate drew is what read returns."""
    expected = np.array(flat(samples(sim.table, "baseline")))
    for name, doc in [("pf.json", pyperf_doc(sim.table, "baseline")), ("hf.json", hyperfine_doc(sim.table, "baseline")),
                      ("pb.json", pytest_benchmark_doc(sim.table, "baseline"))]:
        np.testing.assert_array_equal(read(write_json(tmp_path / name, doc)).column("value").to_numpy(), expected)
