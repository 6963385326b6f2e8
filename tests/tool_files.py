"""Benchmark-tool result files for the tests, written from `fastperf.simulate` tables, and
deliberately simple independent parsers of such files.

The writers follow the formats as the tools write them (and as the readers in fastperf.io
document them): ``go test -bench`` text, pyperf JSON, Google Benchmark JSON, pytest-benchmark
JSON and hyperfine JSON. Summary statistics a tool stores next to its raw values (means, medians,
standard deviations) are computed here with Python's `statistics` module, independently of
fastperf. The tests write their files into ``tmp_path``: nothing here reads outside data.

Also here: the table checks shared by tests/test_read*.py and the conformance suite (the
canonical columns and their types).
"""
from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pyarrow as pa

# ------------------------------------------------------------------------------- table checks

LABEL = pa.dictionary(pa.int32(), pa.string())
CANONICAL = ["benchmark", "variant", "run", "unit", "value"]
TIME_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def by_benchmark(table: pa.Table, name: str, column: str = "value", **where) -> list:
    rows = [r for r in table.to_pylist() if r["benchmark"] == name and all(r[k] == v for k, v in where.items())]
    return [r[column] for r in rows]


def decoded(table: pa.Table) -> pa.Table:
    """The table with its label columns checked as dictionary<int32, string>, then decoded."""
    columns = []
    for field, column in zip(table.schema, table.columns):
        if field.name in ("benchmark", "variant", "unit"):
            assert field.type == LABEL, field
            column = column.cast(pa.string())
        columns.append(column)
    return pa.table(columns, names=table.column_names)


def check_schema(table: pa.Table, extras: list[str] = (), config: list[str] | None = None) -> None:
    """Canonical columns and types, then `extras`, then the declared configuration columns
    (strings): exactly `config` when given, else whatever the table declares."""
    from fastperf.io.common import config_columns

    declared = config_columns(table)
    if config is not None:
        assert declared == list(config)
    assert table.column_names == CANONICAL + list(extras) + declared
    assert all(table.schema.field(c).type == pa.string() for c in declared)
    assert table.schema.field("benchmark").type == LABEL
    assert table.schema.field("variant").type == LABEL
    assert table.schema.field("run").type == pa.int64()
    assert table.schema.field("unit").type == LABEL
    assert table.schema.field("value").type == pa.float64()


# ------------------------------------------------------------------------------- independent parsers


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


# ------------------------------------------------------------------------------- simulated samples


def samples(table: pa.Table, variant: str | None = None) -> dict[str, list[float]]:
    """{benchmark: values in run order} of one variant of a simulate table (all rows if None)."""
    out: dict[str, list[float]] = {}
    for r in table.select(["benchmark", "variant", "run", "value"]).to_pylist():
        if variant is None or r["variant"] == variant:
            out.setdefault(r["benchmark"], []).append(r["value"])
    return out


def go_name(benchmark: str) -> str:
    """A Go benchmark name for a simulated one: bench_00003 -> BenchmarkSim/case=00003-8."""
    return f"BenchmarkSim/case={benchmark.rsplit('_', 1)[-1]}-8"


def write_json(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc, indent=1))
    return path


# ------------------------------------------------------------------------------- go test -bench


def go_lines(sample: dict[str, list[float]], *, bytes_per_op: dict[str, int] | None = None) -> list[str]:
    """Result lines ``BenchmarkX-8  N  v ns/op [t MB/s]`` for {benchmark: seconds per op}; the
    runs of one benchmark follow each other, as ``go test -count`` prints them."""
    lines = []
    for bench, values in sample.items():
        for v in values:
            n = max(1, int(1.0 / v))  # iterations for about one second of benchmark time
            line = f"{go_name(bench):<40}\t{n:>10}\t{v * 1e9:>16.10g} ns/op"
            if bytes_per_op is not None:
                line += f"\t{bytes_per_op[bench] / v / 1e6:>12.6g} MB/s"
            lines.append(line)
    return lines


def write_go(path: Path, table: pa.Table, variants=None, *, notes: bool | str = False,
             throughput: bool = False) -> Path:
    """A ``go test -bench`` output file of the `variants` of a simulate table (all if None).

    ``notes=True`` puts each variant in a ``note: <variant>`` section (one file, several
    variants); a string writes one ``note:`` line of that text (a single note: no variant
    column); ``throughput`` adds an ``MB/s`` value (bytes per op: 1024 (i + 1) for the i-th
    benchmark) after ``ns/op``.
    """
    names = list(dict.fromkeys(table.column("variant").to_pylist())) if variants is None else list(variants)
    benches = list(dict.fromkeys(table.column("benchmark").to_pylist()))
    bytes_per_op = {b: 1024 * (i + 1) for i, b in enumerate(benches)} if throughput else None
    lines = ["goos: linux", "goarch: amd64", "pkg: example.com/sim",
             "cpu: Simulated CPU @ 3.00GHz"]
    if isinstance(notes, str):
        lines += [f"note: {notes}", ""]
    for variant in names:
        if notes is True:
            lines += ["", f"note: {variant}", ""]
        lines += go_lines(samples(table, variant), bytes_per_op=bytes_per_op)
    lines += ["PASS", "ok  \texample.com/sim\t12.345s", ""]
    path.write_text("\n".join(lines))
    return path


# ------------------------------------------------------------------------------- pyperf


def pyperf_doc(table: pa.Table, variant: str, *, values_per_run: int = 3, unit: str | None = "second",
               file_level_name: bool = False) -> dict:
    """A pyperf suite: per benchmark a calibration run (warmups only), then one run per
    `values_per_run` consecutive simulated runs, each with one warmup (a value never among the
    measured ones). ``file_level_name``: one benchmark, named only in the file's metadata
    (as ``pyperf timeit`` writes it); ``unit`` None leaves the unit out (pyperf: seconds)."""
    runs_by_bench = samples(table, variant)
    benchmarks = []
    for bench, values in runs_by_bench.items():
        assert len(values) % values_per_run == 0, "runs must be a multiple of values_per_run"
        warm = max(values) * 1.5
        runs = [{"metadata": {"calibrate_loops": 64, "date": "2024-01-01 00:00:00.0"},
                 "warmups": [[1, warm * 2], [2, warm * 1.7], [4, warm]]}]
        for i in range(0, len(values), values_per_run):
            runs.append({"metadata": {"date": f"2024-01-01 00:00:{i:02d}.0", "load_avg_1min": 0.1},
                         "warmups": [[64, warm * 1.01]],
                         "values": values[i:i + values_per_run]})
        meta = {"loops": 64}
        if not file_level_name:
            meta["name"] = bench
        benchmarks.append({"metadata": meta, "runs": runs})
    file_meta = {"hostname": "sim", "perf_version": "2.6.0", "python_version": "3.12.0 (64-bit)"}
    if unit is not None:
        file_meta["unit"] = unit
    if file_level_name:
        assert len(benchmarks) == 1, "a file-level name names one benchmark"
        file_meta["name"] = next(iter(runs_by_bench))
    return {"benchmarks": benchmarks, "metadata": file_meta, "version": "1.0"}


# ------------------------------------------------------------------------------- Google Benchmark


def gbench_doc(table: pa.Table, variant: str, *, time_unit: str = "ns", aggregates: bool = True,
               aggregates_only: bool = False, repetition_index: bool = True) -> dict:
    """A Google Benchmark JSON report with ``--benchmark_repetitions=R``: per benchmark R
    ``iteration`` rows (cpu_time = 0.97 real_time), then the ``mean``, ``median``, ``stddev``
    and ``cv`` aggregates (cv is a ratio, ``aggregate_unit: percentage``)."""
    scale = TIME_UNIT_SECONDS[time_unit]
    rows = []
    for family, (bench, values) in enumerate(samples(table, variant).items()):
        name = f"BM_Sim/{bench.rsplit('_', 1)[-1]}"
        reps = len(values)
        common = {"name": name, "family_index": family, "per_family_instance_index": 0,
                  "run_name": name}
        if not aggregates_only:
            for i, v in enumerate(values):
                row = {**common, "run_type": "iteration", "repetitions": reps, "repetition_index": i,
                       "threads": 1, "iterations": max(1, int(1.0 / v)),
                       "real_time": v / scale, "cpu_time": 0.97 * v / scale, "time_unit": time_unit}
                if not repetition_index:
                    del row["repetition_index"]
                rows.append(row)
        if aggregates or aggregates_only:
            real = [v / scale for v in values]
            cpu = [0.97 * v / scale for v in values]
            stats = {"mean": statistics.mean, "median": statistics.median, "stddev": statistics.stdev,
                     "cv": lambda s: statistics.stdev(s) / statistics.mean(s)}
            for agg, f in stats.items():
                rows.append({**common, "name": f"{name}_{agg}", "run_type": "aggregate",
                             "repetitions": reps, "threads": 1, "aggregate_name": agg,
                             "aggregate_unit": "percentage" if agg == "cv" else "time",
                             "iterations": reps, "real_time": f(real), "cpu_time": f(cpu),
                             "time_unit": time_unit})
    context = {"date": "2024-01-01T00:00:00+00:00", "host_name": "sim", "executable": "./sim_bench",
               "num_cpus": 8, "mhz_per_cpu": 3000, "cpu_scaling_enabled": False, "caches": [],
               "load_avg": [0.1, 0.1, 0.1], "library_build_type": "release"}
    return {"context": context, "benchmarks": rows}


# ------------------------------------------------------------------------------- pytest-benchmark


def pytest_benchmark_doc(table: pa.Table, variant: str, *, with_data: bool = True) -> dict:
    """A pytest-benchmark ``--benchmark-json`` file: per benchmark the tool's statistics and, with
    `with_data`, every round (``stats.data``); without, as a run saved without
    ``--benchmark-save-data``."""
    benchmarks = []
    for bench, values in samples(table, variant).items():
        q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        stats = {"min": min(values), "max": max(values), "mean": statistics.mean(values),
                 "stddev": statistics.stdev(values) if len(values) > 1 else 0.0,
                 "rounds": len(values), "median": statistics.median(values),
                 "iqr": q[2] - q[0], "q1": q[0], "q3": q[2], "iqr_outliers": 0, "stddev_outliers": 0,
                 "outliers": "0;0", "ld15iqr": min(values), "hd15iqr": max(values),
                 "ops": 1 / statistics.mean(values), "total": sum(values), "iterations": 1}
        if with_data:
            stats["data"] = values
        benchmarks.append({"group": None, "name": f"test_{bench}", "fullname": f"tests/test_sim.py::test_{bench}",
                           "params": None, "param": None, "extra_info": {},
                           "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5,
                                       "max_time": 1.0, "min_time": 5e-06, "warmup": False},
                           "stats": stats})
    return {"machine_info": {"node": "sim", "processor": "x86_64", "python_version": "3.12.0"},
            "commit_info": {"id": "0" * 40, "dirty": False, "branch": "main"},
            "benchmarks": benchmarks, "datetime": "2024-01-01T00:00:00.000000", "version": "4.0.0"}


# ------------------------------------------------------------------------------- hyperfine


def hyperfine_doc(table: pa.Table, variant: str, *, exit_codes: bool = True) -> dict:
    """A hyperfine ``--export-json`` file: per benchmark (a command) its statistics and times."""
    results = []
    for bench, values in samples(table, variant).items():
        result = {"command": f"./sim --case {bench}", "mean": statistics.mean(values),
                  "stddev": statistics.stdev(values), "median": statistics.median(values),
                  "user": 0.6 * statistics.mean(values), "system": 0.1 * statistics.mean(values),
                  "min": min(values), "max": max(values), "times": values}
        if exit_codes:
            result["exit_codes"] = [0] * len(values)
        results.append(result)
    return {"results": results}


# ------------------------------------------------------------------------------------------
# checks of `fastperf.read` against an independent parse of a file: shared by the standalone
# tests (files written here) and the conformance suite (the peer tools' own files)


def check_go_read(path: Path) -> None:
    """`read` of a Go text file against `go_rows`: the variant of every line (note sections),
    the tidied unit and value, and the run index counting (variant, benchmark, unit)."""
    from fastperf import read
    from fastperf.io.go import tidy_unit
    import pytest

    t = read(path)
    raw = go_rows(path)
    assert t.column("variant").to_pylist() == [r[0] for r in raw]
    tidied = [tidy_unit(r[3]) for r in raw]
    assert t.column("unit").to_pylist() == [u for u, _ in tidied]
    assert t.column("value").to_pylist() == pytest.approx([r[2] * f for r, (_, f) in zip(raw, tidied)], rel=1e-12)
    seen: dict = {}
    expected_runs = []
    for note, bench, _, unit in raw:
        key = (note, bench, unit)
        expected_runs.append(seen.get(key, 0))
        seen[key] = seen.get(key, 0) + 1
    assert t.column("run").to_pylist() == expected_runs


def check_gbench_iterations_read(path: Path) -> pa.Table:
    """`read` of a Google Benchmark JSON file with repetitions against its iteration rows: runs
    are the repetition indices, values the real (and, with metric="cpu_time", cpu) times in
    seconds. Returns the table read."""
    from fastperf import read
    import pytest

    raw = gbench_iterations(path)
    t = read(path)
    assert t.column("run").to_pylist() == [b["repetition_index"] for b in raw]
    first = raw[0]
    assert first["time_unit"] == "ns"
    assert t.column("value")[0].as_py() == pytest.approx(first["real_time"] * 1e-9, rel=1e-12)
    assert t.column("value")[-1].as_py() == pytest.approx(raw[-1]["real_time"] * 1e-9, rel=1e-12)
    cpu = read(path, metric="cpu_time")
    assert cpu.column("value").to_pylist() == pytest.approx([b["cpu_time"] * 1e-9 for b in raw], rel=1e-12)
    return t


def check_pytest_benchmark_read(path: Path) -> pa.Table:
    """`read` of a pytest-benchmark file saved with its data: every benchmark's rounds in order,
    in seconds. Returns the table read."""
    from fastperf import read

    doc = json.loads(path.read_text())
    t = read(path)
    for bench in doc["benchmarks"]:
        data = bench["stats"]["data"]
        assert len(data) == bench["stats"]["rounds"]
        got = by_benchmark(t, bench["fullname"])
        assert got[0] == data[0] and got[-1] == data[-1] and len(got) == len(data)
    assert set(t.column("unit").to_pylist()) == {"s"}
    return t


def check_pyperf_runs_read(path: Path, runs: int, values_per_run: int) -> None:
    """`read` of a pyperf file's first benchmark: the calibration run (no values) and the
    warmups are skipped, each of the `runs` runs with values keeps its `values_per_run` values
    under its own process index (``iteration`` their index in the run), ``run`` numbers the
    values 0, 1, 2, ..., in seconds."""
    from fastperf import read

    doc = json.loads(path.read_text())
    t = read(path)
    bench = doc["benchmarks"][0]
    name = bench["metadata"]["name"]
    runs_with_values = [r["values"] for r in bench["runs"] if r.get("values")]
    assert len(runs_with_values) == runs and "values" not in bench["runs"][0]
    assert by_benchmark(t, name, process=0) == runs_with_values[0]
    assert by_benchmark(t, name, process=runs - 1) == runs_with_values[-1]
    assert by_benchmark(t, name, "process") == [i for i in range(runs) for _ in range(values_per_run)]
    assert by_benchmark(t, name, "iteration") == [j for _ in range(runs) for j in range(values_per_run)]
    assert by_benchmark(t, name, "run") == list(range(runs * values_per_run))
    warmups = {w[1] for r in bench["runs"] for w in r.get("warmups", [])}
    assert not warmups & set(by_benchmark(t, name))
    assert set(t.column("unit").to_pylist()) == {"s"}


def check_refused(path: Path, *phrases: str) -> None:
    """`read` refuses `path` with an `InputError` naming the file and holding every phrase (what
    to do instead)."""
    from fastperf import InputError, read
    import pytest

    with pytest.raises(InputError) as exc:
        read(path)
    msg = str(exc.value)
    assert path.name in msg and all(phrase in msg for phrase in phrases), msg
