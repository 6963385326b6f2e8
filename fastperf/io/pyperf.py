"""pyperf JSON results (format version 1.0): a suite of benchmarks or a single benchmark.

Layout (pyperf's ``BenchmarkSuite.dump``): ``{"version": "1.0", "metadata": {...},
"benchmarks": [{"metadata": {...}, "runs": [{"metadata": {...}, "warmups": [[loops, value],
...], "values": [...]}, ...]}, ...]}``. Values are already per loop (seconds for timings).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import shown, text_field
from fastperf.io.common import add_config, config_text, tool_table

__all__ = ["read_pyperf", "looks_like_pyperf", "PYPERF_UNITS", "PYPERF_MEASUREMENT_KEYS"]

#: pyperf's unit names -> the unit written in the ``unit`` column (values are not rescaled).
PYPERF_UNITS = {"second": "s", "byte": "B", "integer": ""}
_DEFAULT_UNIT = "second"  # pyperf's default when no metadata names a unit
#: Benchmark metadata that describes how a measurement went, not what was measured: never a
#: configuration column. ``name`` and ``unit`` are columns of their own; loop counts, warmups
#: and calibration are tuned per run by pyperf; dates, durations, system load, temperatures,
#: frequencies and memory peaks are measured; ``command`` holds per-process arguments;
#: ``timeit_duplicate`` (statement copies per loop) is, like ``inner_loops``, a loop setting.
PYPERF_MEASUREMENT_KEYS = frozenset({
    "name", "unit", "loops", "inner_loops", "warmups", "values", "date", "duration", "uptime",
    "boot_time", "load_avg_1min", "mem_max_rss", "mem_peak_pagefile_usage", "runnable_threads",
    "cpu_freq", "cpu_temp", "calibrate_loops", "calibrate_warmups", "recalibrate_loops",
    "recalibrate_warmups", "command", "tracemalloc_peak", "timeit_duplicate",
})


def looks_like_pyperf(data: Any) -> bool:
    """True for a parsed JSON document shaped like a pyperf result file.

    Format: pyperf's JSON format version 1.0 (pyperf documentation, "JSON format";
    ``BenchmarkSuite.dump``).
    """
    if not isinstance(data, dict):
        return False
    benchmarks = data.get("benchmarks")
    if isinstance(benchmarks, list):
        if any(isinstance(b, dict) and "runs" in b for b in benchmarks):
            return True
        return not benchmarks and "version" in data and "metadata" in data
    return isinstance(data.get("benchmark"), dict) and "runs" in data["benchmark"]


def read_pyperf(path: Path, data: Any) -> pa.Table:
    """Every value of every run (warmups and calibration runs left out) as one row.

    ``benchmark`` is the benchmark's ``metadata.name`` (else the file's ``metadata.name``),
    ``run`` the index of the value within its benchmark over all its runs (0, 1, 2, ...: the
    flat index that pairs a baseline value with a candidate one), ``unit`` from the ``unit``
    metadata (benchmark level over file level; pyperf's default is ``second``) mapped by
    `PYPERF_UNITS`. The levels (docs/data-model.md): ``process`` (int64) is the index of the
    run among the benchmark's runs that have values (each pyperf run is one worker process),
    ``iteration`` (int64) the value's index within its run. Benchmark-level metadata whose
    value differs between the benchmarks of the file (absent counting as a value) becomes a
    string column declared as configuration (`fastperf.io.common.with_config`): strings as
    they are, numbers by ``str``, booleans
    ``"true"``/``"false"``, lists joined with ``,`` (``tags``); keys in
    `PYPERF_MEASUREMENT_KEYS` (how a run went, not what was run) are left out, and so is the
    file-level metadata (the same for every row). A key named like a column the reader makes
    becomes ``config_<key>``.

    Refuses (InputError) a document that is no pyperf file, a format version other than 1.x, no
    benchmarks, a benchmark without a name, or no run with values.

    Format: pyperf's JSON format version 1.0 (pyperf documentation, "JSON format";
    ``BenchmarkSuite.dump``).
    """
    if not looks_like_pyperf(data):
        raise InputError(f"{path}: not a pyperf JSON file (no 'benchmarks' list with 'runs')")
    version = data.get("version", "")
    if not isinstance(version, str):  # pyperf writes "1.0"; a number is no version it wrote
        raise InputError(f"{path}: pyperf JSON format version {shown(version)} is not a "
                         "version string (pyperf writes \"1.0\")")
    if version and not version.startswith("1."):
        raise InputError(
            f"{path}: pyperf JSON format version {version!r} is not supported (only 1.x); "
            "convert it with a current pyperf (python -m pyperf convert --stdout FILE > NEW)"
        )
    file_meta = data.get("metadata") or {}
    benchmarks = data["benchmarks"] if "benchmarks" in data else [data["benchmark"]]
    if not benchmarks:
        raise InputError(f"{path}: the pyperf file holds no benchmarks")
    names: list[str] = []
    runs: list[int] = []
    processes: list[int] = []
    iterations: list[int] = []
    values: list[float] = []
    units: list[str] = []
    rows: list[int] = []  # the benchmark of each row
    named: set[str] = set()
    for i, bench in enumerate(benchmarks):
        meta = bench.get("metadata") or {}
        name = meta.get("name", file_meta.get("name"))
        if name is None:
            raise InputError(f"{path}: pyperf benchmark #{i} has no name in its or the file's metadata")
        name = text_field(name, f"{path}: pyperf benchmark #{i}'s name")
        if name in named:  # pyperf refuses such a suite too (its processes would merge)
            raise InputError(f"{path}: the pyperf file has two benchmarks called {shown(name)} "
                             "(pyperf: 'the suite has already a benchmark called ...'); merge "
                             "their runs with pyperf (pyperf convert --add) or rename one")
        named.add(name)
        pyperf_unit = meta.get("unit", file_meta.get("unit", _DEFAULT_UNIT))
        unit = PYPERF_UNITS.get(pyperf_unit, str(pyperf_unit))
        process = 0
        first_value = len(values)
        bench_runs = bench.get("runs", [])
        if not isinstance(bench_runs, list):
            raise InputError(f"{path}: pyperf benchmark {shown(name)}: 'runs' is not a list")
        for run in bench_runs:
            run_values = run.get("values")
            if not run_values:  # calibration run: warmups only
                continue
            k = len(run_values)
            names.extend([name] * k)
            runs.extend(range(len(values) - first_value, len(values) - first_value + k))
            processes.extend([process] * k)
            iterations.extend(range(k))
            units.extend([unit] * k)
            values.extend(run_values)
            rows.extend([i] * k)
            process += 1
    if not values:
        raise InputError(f"{path}: the pyperf file has no run with values (only calibration/warmup runs)")
    table = tool_table(names, values, run=runs, unit=units,
                       extra={"process": pa.array(processes, pa.int64()),
                              "iteration": pa.array(iterations, pa.int64())},
                       where=path, kind="pyperf", value_field="values")
    return add_config(table, _varying_metadata(benchmarks, rows))


def _varying_metadata(benchmarks: list[Any], rows: list[int]) -> dict[str, pa.Array]:
    """A string column per benchmark-level metadata key whose value differs between benchmarks
    (absent counts as a value), in first-seen order; `PYPERF_MEASUREMENT_KEYS` left out."""
    metas = [(b.get("metadata") or {}) if isinstance(b, dict) else {} for b in benchmarks]
    texts = [{str(k): config_text(v) for k, v in m.items() if str(k) not in PYPERF_MEASUREMENT_KEYS}
             for m in metas]
    keys = list(dict.fromkeys(k for t in texts for k in t))
    columns: dict[str, pa.Array] = {}
    indices = pa.array(rows, pa.int32())
    for key in keys:
        per_bench = [t.get(key) for t in texts]
        if len(set(per_bench)) < 2:  # the same for every benchmark (absent counts as a value)
            continue
        columns[key] = pa.array(per_bench, pa.string()).take(indices)
    return columns
