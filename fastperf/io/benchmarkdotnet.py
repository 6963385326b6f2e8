"""BenchmarkDotNet JSON exports (``--exporters json``, ``JsonExporter.Full`` / ``.Brief``).

Layout::

    {"Title": "...", "HostEnvironmentInfo": {"BenchmarkDotNetVersion", "OsVersion",
     "ProcessorName", "RuntimeVersion", "Architecture", ...},
     "Benchmarks": [{"DisplayInfo": "Type.Method: Job [P=1]", "Namespace", "Type", "Method",
                     "MethodTitle", "Parameters": "P=1&Q=x", "FullName",
                     "Statistics": {"OriginalValues": [...], "N", "Min", "Q1", "Median",
                                    "Mean", "Q3", "Max", "InterquartileRange",
                                    "StandardDeviation", ...} | null,
                     "Memory": {"Gen0Collections", ..., "TotalOperations",
                                "BytesAllocatedPerOperation"},       (MemoryDiagnoser only)
                     "Measurements": [{"IterationMode": "Overhead" | "Workload",
                                       "IterationStage": "Jitting" | "Pilot" | "Warmup" |
                                       "Actual" | "Result", "LaunchIndex", "IterationIndex",
                                       "Operations", "Nanoseconds"}, ...]}, ...]}

``Measurements`` is in the full export only; ``Statistics`` is null for a benchmark that failed.
The CSV summary (``*-report.csv``) is read by `fastperf.io.benchmarkdotnet_csv`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import int_column, shown
from fastperf.io.common import add_config, config_text, tool_table
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_benchmarkdotnet", "read_benchmarkdotnet", "parse_parameters"]

#: HostEnvironmentInfo entries that say nothing about the configuration.
_HOST_LEFT_OUT = frozenset({"BenchmarkDotNetCaption"})
_TIME_UNIT = "ns/op"
_MEMORY_UNIT = "B/op"
#: Statistics of BenchmarkDotNet's ``Statistics`` object -> summary statistics.
_STATISTICS = {"N": "n", "Mean": "mean", "StandardDeviation": "sd", "Min": "min", "Max": "max",
               "Median": "median", "InterquartileRange": "iqr"}


def looks_like_benchmarkdotnet(data: Any) -> bool:
    """True for an object with a ``Benchmarks`` list and either a ``HostEnvironmentInfo`` object or
    a first benchmark with ``FullName`` and ``Statistics``.

    Format: BenchmarkDotNet's JSON exporter (github.com/dotnet/BenchmarkDotNet,
    src/BenchmarkDotNet/Exporters/Json/JsonExporterBase.cs).
    """
    if not isinstance(data, dict) or not isinstance(data.get("Benchmarks"), list):
        return False
    if isinstance(data.get("HostEnvironmentInfo"), dict):
        return True
    rows = data["Benchmarks"]
    return bool(rows) and isinstance(rows[0], dict) and "FullName" in rows[0] \
        and "Statistics" in rows[0]


def parse_parameters(text: Any) -> dict[str, str]:
    """BenchmarkDotNet's ``Parameters`` text (``"N=10&Mode=Fast"``) as a mapping.

    Parameters
    ----------
    text : object
        The ``Parameters`` entry (``""`` when the benchmark has none).

    Returns
    -------
    dict of str -> str
        Name -> value as displayed, in order; a part without ``=`` is left out.

    Notes
    -----
    ``ParameterInstances.PrintInfo`` (src/BenchmarkDotNet/Parameters/ParameterInstances.cs):
    ``name=value`` joined with ``&``.
    """
    out: dict[str, str] = {}
    if not isinstance(text, str) or not text:
        return out
    for part in text.split("&"):
        name, sep, value = part.partition("=")
        if sep and name:
            out[name] = value
    return out


def read_benchmarkdotnet(path: Path, data: Any) -> pa.Table:
    """Every workload result iteration of every benchmark as one row, in nanoseconds per
    operation.

    ``benchmark`` is ``FullName`` (``Namespace.Type.Method(P: 1)``; parameters are part of
    it). The values are the measurements with ``IterationMode`` ``Workload`` and
    ``IterationStage`` ``Result`` (BenchmarkDotNet's own result iterations: overhead
    subtracted, outliers removed as configured), ``Nanoseconds / Operations`` in ``ns/op``;
    ``run`` is their index within the benchmark over all launches, with the extra columns, the
    levels (docs/data-model.md): ``process`` (``LaunchIndex``: each launch is a process of its
    own) and ``iteration`` (``IterationIndex``), int64, numbered as BenchmarkDotNet numbers
    them (from 1). A benchmark without such measurements (the brief export, or files cut down
    by other tools) takes ``Statistics.OriginalValues``, the same per-operation values
    (``process`` and ``iteration`` null; a file where no benchmark has result measurements
    does not tell the launches apart and has no ``process`` and ``iteration`` columns). A
    benchmark whose ``Statistics`` is null (it failed) gives one row
    with a null value. With the memory diagnoser, ``Memory.BytesAllocatedPerOperation`` is one
    further row in unit ``B/op`` with ``run`` 0 (one value per benchmark, not a sample).
    Configuration columns: ``job`` (the job part of ``DisplayInfo``: ``DefaultJob``,
    ``ShortRun(...)``, ``.NET 8.0``), one ``param_<name>`` per parameter, and every scalar
    entry of ``HostEnvironmentInfo`` (``BenchmarkDotNetVersion``, ``OsVersion``,
    ``ProcessorName``, ``RuntimeVersion``, ...; objects such as ``ChronometerFrequency`` and
    the constant ``BenchmarkDotNetCaption`` left out), as Google Benchmark's ``context`` is read.

    A file where no benchmark has raw values but some have statistics (old exports without
    ``OriginalValues``) is read as a *summary table*: ``n`` = ``N``, ``mean``, ``sd`` =
    ``StandardDeviation`` (BenchmarkDotNet's is the sample standard deviation, divisor
    N - 1), ``min``, ``max``, ``median``, ``iqr`` = ``InterquartileRange``; the allocation is
    a further summary row (``mean`` only) in ``B/op``.

    Refuses (InputError) a document that is no BenchmarkDotNet export, no benchmarks, a benchmark
    without a name, a measurement or value that is no number, or raw values for some benchmarks
    while others have statistics only.

    Format: BenchmarkDotNet's JSON exporter (github.com/dotnet/BenchmarkDotNet,
    src/BenchmarkDotNet/Exporters/Json/JsonExporterBase.cs); the statistics of
    src/BenchmarkDotNet/Mathematics/Statistics.cs (variance with divisor N - 1).
    """
    if not looks_like_benchmarkdotnet(data):
        raise InputError(f"{path}: not a BenchmarkDotNet JSON export (no 'Benchmarks' list)")
    benchmarks = data["Benchmarks"]
    if not benchmarks:
        raise InputError(f"{path}: the BenchmarkDotNet export holds no benchmarks")
    host = _host_config(data.get("HostEnvironmentInfo"))
    parsed = []
    for i, entry in enumerate(benchmarks):
        if not isinstance(entry, dict):
            raise InputError(f"{path}: BenchmarkDotNet benchmark {i} is not an object")
        name = _name(entry)
        if name is None:
            raise InputError(f"{path}: BenchmarkDotNet benchmark {i} has no 'FullName'")
        parsed.append((name, entry, _raw_values(path, name, entry)))
    has_raw = [raw is not None for _, _, raw in parsed]
    has_stats = [isinstance(e.get("Statistics"), dict) for _, e, _ in parsed]
    if not any(has_raw) and any(has_stats):
        return _summaries(path, parsed, host)
    statistics_only = [name for (name, _, _), r, s in zip(parsed, has_raw, has_stats)
                       if s and not r]
    if statistics_only:
        raise InputError(f"{path}: looks like a BenchmarkDotNet export with raw values for "
                         f"some benchmarks only (statistics only for {statistics_only[:3]})")
    names: list[str] = []
    values: list[Any] = []
    runs: list[int] = []
    units: list[str] = []
    launches: list[Any] = []
    iterations: list[Any] = []
    configs: list[dict[str, str]] = []
    index: list[int] = []
    for name, entry, raw in parsed:
        configs.append({**_benchmark_config(entry), **host})
        rows = raw if raw is not None else [(None, None, None)]
        for run, (value, launch, iteration) in enumerate(rows):
            names.append(name)
            values.append(value)
            runs.append(run)
            units.append(_TIME_UNIT)
            launches.append(launch)
            iterations.append(iteration)
            index.append(len(configs) - 1)
        allocated = _allocated(path, name, entry)
        if allocated is not None:
            names.append(name)
            values.append(allocated)
            runs.append(0)
            units.append(_MEMORY_UNIT)
            launches.append(None)
            iterations.append(None)
            index.append(len(configs) - 1)
    extra = {}
    if any(i is not None for i in launches + iterations):  # else no launch is told apart
        extra = {"process": int_column(launches, where=str(path), names=names,
                                       field="LaunchIndex", kind="BenchmarkDotNet"),
                 "iteration": int_column(iterations, where=str(path), names=names,
                                         field="IterationIndex", kind="BenchmarkDotNet")}
    table = tool_table(names, values, run=runs, unit=units, extra=extra, where=path,
                       kind="BenchmarkDotNet", value_field="Nanoseconds")
    return add_config(table, _columns(configs, index))


def _name(entry: dict) -> str | None:
    name = entry.get("FullName")
    if isinstance(name, str) and name:
        return name
    parts = [entry.get(k) for k in ("Namespace", "Type", "Method")]
    if isinstance(parts[2], str) and parts[2]:
        return ".".join(p for p in parts if isinstance(p, str) and p)
    return None


def _number(path: Path, name: str, value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: {field} "
                         f"{shown(value)} is not a number")
    try:
        return float(value)
    except OverflowError:
        raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: {field} "
                         f"{shown(value)} is beyond the float64 range") from None


def _raw_values(path: Path, name: str, entry: dict) -> list[tuple] | None:
    """(ns per op, launch, iteration) of the workload result measurements, else of
    ``Statistics.OriginalValues``; None when the benchmark has neither."""
    measurements = entry.get("Measurements")
    if measurements is not None and not isinstance(measurements, list):
        raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: 'Measurements' is "
                         "not a list")
    out = []
    for m in measurements or []:
        if not isinstance(m, dict):
            raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: a measurement "
                             "is not an object")
        if m.get("IterationMode") != "Workload" or m.get("IterationStage") != "Result":
            continue
        ns = _number(path, name, m.get("Nanoseconds"), "Nanoseconds")
        ops = _number(path, name, m.get("Operations"), "Operations")
        if ops is not None and ops < 0:  # a count: a negative one gave negative times
            raise InputError(f"{path}: BenchmarkDotNet benchmark {shown(name)}: Operations "
                             f"{shown(ops)} is negative")
        value = None if ns is None or not ops else ns / ops
        out.append((value, m.get("LaunchIndex"), m.get("IterationIndex")))
    if out:
        return out
    statistics = entry.get("Statistics")
    if isinstance(statistics, dict) and isinstance(statistics.get("OriginalValues"), list) \
            and statistics["OriginalValues"]:
        return [(_number(path, name, v, "Statistics.OriginalValues"), None, None)
                for v in statistics["OriginalValues"]]
    return None


def _allocated(path: Path, name: str, entry: dict) -> float | None:
    memory = entry.get("Memory")
    if not isinstance(memory, dict):
        return None
    return _number(path, name, memory.get("BytesAllocatedPerOperation"),
                   "Memory.BytesAllocatedPerOperation")


def _job(entry: dict) -> str | None:
    """The job part of ``DisplayInfo`` (``Type.Method: Job [P=1]``)."""
    display = entry.get("DisplayInfo")
    if not isinstance(display, str):
        return None
    prefix = f"{entry.get('Type')}.{entry.get('MethodTitle', entry.get('Method'))}: "
    if display.startswith(prefix):
        rest = display[len(prefix):]
    else:
        _, sep, rest = display.partition(": ")
        if not sep:
            return None
    params = parse_parameters(entry.get("Parameters"))
    if params:
        suffix = "[" + ", ".join(f"{k}={v}" for k, v in params.items()) + "]"
        if rest.endswith(suffix):
            rest = rest[: -len(suffix)]
    return rest.strip() or None


def _benchmark_config(entry: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    job = _job(entry)
    if job is not None:
        out["job"] = job
    for key, value in parse_parameters(entry.get("Parameters")).items():
        out[f"param_{key}"] = value
    return out


def _host_config(host: Any) -> dict[str, str]:
    if not isinstance(host, dict):
        return {}
    out = {}
    for key, value in host.items():
        if isinstance(value, (dict, list)) or value is None or key in _HOST_LEFT_OUT:
            continue
        text = config_text(value)
        if text is not None:
            out[str(key)] = text
    return out


def _columns(configs: list[dict[str, str]], index: list[int]) -> dict[str, pa.Array]:
    keys: dict[str, None] = {}
    for config in configs:
        for key in config:
            keys.setdefault(key)
    indices = pa.array(index, pa.int32())
    return {key: pa.array([c.get(key) for c in configs], pa.string()).take(indices)
            for key in keys}


def _summaries(path: Path, parsed: list, host: dict[str, str]) -> pa.Table:
    """The summary table of an export without raw values (see `read_benchmarkdotnet`)."""
    names: list[str] = []
    units: list[str] = []
    stats: dict[str, list[Any]] = {s: [] for s in _STATISTICS.values()}
    configs: list[dict[str, str]] = []
    for name, entry, _ in parsed:
        config = {**_benchmark_config(entry), **host}
        statistics = entry.get("Statistics")
        statistics = statistics if isinstance(statistics, dict) else {}
        names.append(name)
        units.append(_TIME_UNIT)
        configs.append(config)
        for key, stat in _STATISTICS.items():
            value = statistics.get(key)
            stats[stat].append(value if stat == "n" else
                               _number(path, name, value, f"Statistics.{key}"))
        allocated = _allocated(path, name, entry)
        if allocated is not None:
            names.append(name)
            units.append(_MEMORY_UNIT)
            configs.append(config)
            for stat in stats:
                stats[stat].append(allocated if stat == "mean" else None)
    table = summary_table(names, unit=units, statistics=stats, where=path,
                          kind="BenchmarkDotNet")
    return add_config(table, _columns(configs, list(range(len(configs)))))
