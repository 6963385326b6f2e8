"""airspeed velocity (asv) results: one results file per (machine, commit, environment), and
asv's results directory.

Results file, format version 2 (asv >= 0.5)::

    {"commit_hash": "22b920c6...", "env_name": "virtualenv-py3.8", "date": ..., "python": "3.8",
     "params": {"machine": "cheetah", "arch": ..., "cpu": ..., ...}, "requirements": {...},
     "result_columns": ["result", "params", "version", "started_at", "duration",
                        "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75",
                        "stats_number", "stats_repeat", "samples", "profile"],
     "results": {"bench.TimeSuite.time_x": [[0.0012], [], "hash", ..., [0.0011], [0.0013], ...]},
     "durations": {...}, "version": 2}

Each benchmark's row holds the `result_columns` in order (trailing nulls left out); every column
is a list with one entry per parameter combination (``itertools.product(*params)``).
Format version 1 (asv < 0.5) holds, per benchmark, a plain number (or null/NaN: failed/skipped)
or ``{"result": number or list, "params": [[...], ...], "stats": dict or list,
"samples": list}``.

Results directory (``.asv/results``)::

    results/benchmarks.json                      the suite: type, unit, params per benchmark
    results/<machine>/machine.json               the machine's description
    results/<machine>/<commit[:8]>-<env>.json    one results file per commit and environment
"""
from __future__ import annotations

import itertools
import math
import re
import statistics
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import int_column, shown
from fastperf.io.common import add_config, load_json, tool_table
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_asv", "read_asv", "looks_like_asv_tree", "read_asv_tree",
           "looks_like_asv_benchmarks", "read_asv_benchmarks", "looks_like_asv_console",
           "read_asv_console"]

KIND = "asv"
#: Files of a results folder that are no results files (asv/results.py, iter_results_paths).
_SKIP_FILES = {"machine.json", "benchmarks.json"}
#: Benchmark types by the prefix of the benchmark function's name (asv's naming rule).
_PREFIX_TYPES = (("timeraw_", "time"), ("time_", "time"), ("peakmem_", "peakmemory"),
                 ("mem_", "memory"), ("track_", "track"))
#: asv's unit names -> fastperf's.
_UNITS = {"seconds": "s", "second": "s", "bytes": "B", "byte": "B"}
#: The configuration columns, in order.
_CONFIG = ("machine", "env_name")


def looks_like_asv(data: Any) -> bool:
    """True when it is an object with a ``results`` object, a ``commit_hash`` string, and
    ``result_columns`` (version 2) or a ``params`` object (version 1).

    Format: asv's results files, written by ``Results.save`` in asv/results.py
    (github.com/airspeed-velocity/asv).
    """
    if not isinstance(data, dict):
        return False
    if not isinstance(data.get("results"), dict) or not isinstance(data.get("commit_hash"), str):
        return False
    return isinstance(data.get("result_columns"), list) or isinstance(data.get("params"), dict)


def looks_like_asv_benchmarks(data: Any) -> bool:
    """True when every value but ``version`` is an object with ``name``, ``type`` and ``unit`` keys
    (and there is at least one).

    Format: asv's ``benchmarks.json``, written by ``Benchmarks.save`` in asv/benchmarks.py.
    """
    if not isinstance(data, dict):
        return False
    entries = [v for k, v in data.items() if k != "version"]
    return bool(entries) and all(
        isinstance(v, dict) and "name" in v and "type" in v and "unit" in v for v in entries)


def _machine_dirs(path: Path) -> list[Path]:
    """The folders of `path` that hold results files: `path` itself and/or its machine folders."""
    dirs: list[Path] = []
    try:
        children = sorted(p for p in path.iterdir() if p.is_dir())
    except OSError:
        return []
    if (path / "machine.json").is_file() or (path / "benchmarks.json").is_file():
        dirs.append(path)
    dirs.extend(c for c in children if (c / "machine.json").is_file())
    return dirs


def looks_like_asv_tree(path: Path) -> bool:
    """True when it holds ``machine.json`` or ``benchmarks.json``, or a sub-folder holds
    ``machine.json`` (asv's ``results/<machine>/machine.json``).

    Format: asv's results layout (asv/results.py, ``get_filename``:
    ``<machine>/<commit[:8]>-<env>.json``).
    """
    try:
        return Path(path).is_dir() and bool(_machine_dirs(Path(path)))
    except OSError:
        return False


def _suite(path: Path) -> dict[str, Any]:
    """The ``benchmarks.json`` beside `path` (a results file's folder or its parent), or {}."""
    for folder in (path.parent, path.parent.parent):
        candidate = folder / "benchmarks.json"
        if candidate.is_file():
            data = load_json(candidate)
            return data if isinstance(data, dict) else {}
    return {}


def _bench_type(name: str, suite: dict[str, Any]) -> str:
    entry = suite.get(name)
    if isinstance(entry, dict) and isinstance(entry.get("type"), str):
        return entry["type"]
    last = name.rsplit(".", 1)[-1]
    for prefix, kind in _PREFIX_TYPES:
        if last.startswith(prefix):
            return kind
    return "track"


def _unit(name: str, kind: str, suite: dict[str, Any]) -> str:
    entry = suite.get(name)
    if isinstance(entry, dict) and isinstance(entry.get("unit"), str):
        return _UNITS.get(entry["unit"], entry["unit"])
    if kind == "time":
        return "s"
    if kind in ("memory", "peakmemory"):
        return "B"
    return "unit"  # asv's default unit of a track_ benchmark


def _number(value: Any) -> float | None:
    """A result value: a number, or None for null (failed) and NaN (skipped)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{shown(value)} is not a number")
    value = float(value)
    return None if math.isnan(value) else value


def _v1_columns(value: Any) -> dict[str, Any]:
    """A version-1 entry as version-2 columns (what asv's ``update_to_2`` does)."""
    if not isinstance(value, dict):
        value = {"result": [value], "params": []}
    result = value.get("result")
    params = value.get("params") or []
    scalar = not isinstance(result, list)
    if scalar:
        result = [result]
    stats = value.get("stats")
    if stats is not None and not isinstance(stats, list):
        stats = [stats]
    samples = value.get("samples")
    if samples is not None and scalar and all(not isinstance(s, list) for s in samples):
        samples = [samples]
    columns: dict[str, Any] = {"result": result, "params": params, "samples": samples}
    if stats is not None:
        def get(z: Any, key: str) -> Any:
            if not isinstance(z, dict):
                return None
            if key.startswith("ci_99"):
                ci = z.get("ci_99")
                if isinstance(ci, list) and len(ci) == 2:
                    return ci[0] if key == "ci_99_a" else ci[1]
                return z.get(key)
            return z.get(key)
        for key in ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat"):
            columns["stats_" + key] = [get(z, key) for z in stats]
    return columns


def _v2_columns(row: Any, result_columns: list[Any]) -> dict[str, Any]:
    if not isinstance(row, list):
        raise TypeError(f"a row of a version-2 file must be a list, got {shown(row)}")
    return dict(zip(result_columns, row))


def _entries(path: Path, data: Any, suite: dict[str, Any]) -> list[dict[str, Any]]:
    """One dict per (benchmark, parameter combination) of one results file."""
    if not looks_like_asv(data):
        raise InputError(f"{path}: not an asv results file (no 'results' object with a "
                         "'commit_hash')")
    variant = data["commit_hash"][:8]
    params = data.get("params") if isinstance(data.get("params"), dict) else {}
    machine = params.get("machine")
    env = data.get("env_name")
    if not isinstance(env, str):  # version 1: the file name is <commit[:8]>-<env>.json
        stem = path.stem
        env = stem.split("-", 1)[1] if "-" in stem and stem.startswith(variant) else None
    result_columns = data.get("result_columns")
    entries: list[dict[str, Any]] = []
    for name, raw in data["results"].items():
        try:
            columns = (_v2_columns(raw, result_columns) if isinstance(result_columns, list)
                       else _v1_columns(raw))
            entries.extend(_expand(str(name), columns, suite))
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise InputError(f"{path}: malformed asv results file: benchmark {shown(name)}: "
                             f"{exc}") from None
    for entry in entries:
        entry.update(variant=variant, machine=None if machine is None else str(machine),
                     env_name=env)
    return entries


def _expand(name: str, columns: dict[str, Any], suite: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per parameter combination of a benchmark's columns."""
    params = columns.get("params") or []
    if not isinstance(params, list) or not all(isinstance(p, list) for p in params):
        raise TypeError(f"params must be a list of lists, got {shown(params)}")
    combos = [", ".join(str(v) for v in c) for c in itertools.product(*params)] if params \
        else [None]
    count = len(combos)

    def column(key: str) -> list[Any]:
        value = columns.get(key)
        if value is None:
            return [None] * count
        if not isinstance(value, list) or len(value) != count:
            raise ValueError(f"{key} must hold {count} entries (one per parameter "
                             f"combination), got {shown(value)}")
        return value

    kind = _bench_type(name, suite)
    unit = _unit(name, kind, suite)
    results = column("result")
    samples = column("samples")
    stats = {key: column("stats_" + key)
             for key in ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat")}
    for key in ("ci_99_a", "ci_99_b", "q_25", "q_75"):
        stats[key] = [_number(v) for v in stats[key]]
    out = []
    for j, combo in enumerate(combos):
        sample = samples[j]
        if sample is not None:
            if not isinstance(sample, list):
                raise TypeError(f"samples must be lists, got {shown(sample)}")
            sample = [_number(v) for v in sample]
        out.append({
            "benchmark": name if combo is None else f"{name}({combo})",
            "params": combo, "unit": unit, "kind": kind,
            "result": _number(results[j]), "samples": sample,
            **{key: stats[key][j] for key in stats},
        })
    return out


def _single(entry: dict[str, Any]) -> bool:
    """A track/mem/peakmem result without statistics: one measurement, not a summary."""
    return entry["kind"] != "time" and entry["repeat"] is None and entry["q_25"] is None


def _raw_ok(entry: dict[str, Any]) -> bool:
    return entry["samples"] is not None or entry["result"] is None or _single(entry)


def _build(entries: list[dict[str, Any]], where: Path) -> pa.Table:
    if not entries:
        raise InputError(f"{where}: the asv results hold no benchmarks")
    if all(_raw_ok(e) for e in entries):
        table = _raw_table(entries, where)
        per_row = [e for e in entries for _ in _rows(e)]
    else:
        table = _summary(entries, [e["benchmark"] for e in entries], where)
        per_row = entries
    config = {key: pa.array([e[key] for e in per_row], pa.string()) for key in _CONFIG
              if any(e[key] is not None for e in entries)}
    return add_config(table, config)


def _rows(entry: dict[str, Any]) -> list[float | None]:
    if entry["samples"] is not None:
        return entry["samples"]
    return [entry["result"]]


def _raw_table(entries: list[dict[str, Any]], where: Path) -> pa.Table:
    names, variants, runs, units, values, params, numbers = [], [], [], [], [], [], []
    for e in entries:
        rows = _rows(e)
        names.extend([e["benchmark"]] * len(rows))
        variants.extend([e["variant"]] * len(rows))
        units.extend([e["unit"]] * len(rows))
        params.extend([e["params"]] * len(rows))
        numbers.extend([e["number"]] * len(rows))
        runs.extend(range(len(rows)))
        values.extend(rows)
    extra = {
        "params": pa.array(params, pa.string()),
        "iterations": int_column(numbers, where=str(where), names=names, field="stats_number",
                                 kind=KIND),
    }
    return tool_table(names, values, run=runs, unit=units, variant=variants, extra=extra,
                      where=where, kind=KIND, value_field="samples")


def _quantile(y: list[float], q: float) -> float:
    """asv's quantile (asv_runner/statistics.py): linear interpolation between order statistics."""
    z = (len(y) - 1) * q
    j = int(math.floor(z))
    z -= j
    return y[-1] if j == len(y) - 1 else (1 - z) * y[j] + z * y[j + 1]


def _summary(entries: list[dict[str, Any]], names: list[str], where: Path) -> pa.Table:
    stats: dict[str, list[Any]] = {k: [] for k in ("n", "mean", "sd", "min", "max", "median",
                                                    "iqr")}
    for e in entries:
        sample = [v for v in (e["samples"] or []) if v is not None]
        q25, q75 = e["q_25"], e["q_75"]
        iqr = q75 - q25 if q25 is not None and q75 is not None else None
        if sample:
            y = sorted(sample)
            row = {"n": len(y), "mean": statistics.fmean(y),
                   "sd": statistics.stdev(y) if len(y) > 1 else None, "min": y[0], "max": y[-1],
                   "median": e["result"] if e["result"] is not None else _quantile(y, 0.5),
                   "iqr": iqr if iqr is not None else _quantile(y, 0.75) - _quantile(y, 0.25)}
        elif e["result"] is not None and _single(e):
            v = e["result"]
            row = {"n": 1, "mean": v, "sd": None, "min": v, "max": v, "median": v, "iqr": None}
        else:
            row = {"n": e["repeat"] if e["result"] is not None else None, "mean": None,
                   "sd": None, "min": None, "max": None, "median": e["result"],
                   "iqr": iqr if e["result"] is not None else None}
        for key in stats:
            stats[key].append(row[key])
    extra = {
        "params": pa.array([e["params"] for e in entries], pa.string()),
        "iterations": int_column([e["number"] for e in entries], where=str(where), names=names,
                                 field="stats_number", kind=KIND),
        "ci_99_a": pa.array([e["ci_99_a"] for e in entries], pa.float64()),
        "ci_99_b": pa.array([e["ci_99_b"] for e in entries], pa.float64()),
    }
    return summary_table(names, unit=[e["unit"] for e in entries], statistics=stats,
                         extra=extra, variant=[e["variant"] for e in entries], where=where,
                         kind=KIND)


def read_asv(path: Path, data: Any) -> pa.Table:
    """An asv results file: every sample when stored, else one summary row per benchmark.

    ``benchmark`` is asv's benchmark name; a parameterized benchmark gives one benchmark per
    parameter combination, named as ``asv compare`` shows it: ``name(v1, v2)`` with the
    parameter values as asv stores them (``repr`` strings such as ``'a'``). ``variant`` is the
    file's ``commit_hash``, first 8 characters (asv's own short hash). Units: ``s`` for
    ``time_``/``timeraw_`` benchmarks, ``B`` for ``mem_``/``peakmem_``, and for ``track_``
    benchmarks the ``unit`` of ``benchmarks.json`` (looked for beside the file and one folder
    up), else ``unit`` (asv's default); ``benchmarks.json`` also gives the type and unit of
    every benchmark it lists.

    Raw runs (a measurement table) when every benchmark has its samples (``asv run
    --record-samples``), is a single measurement (``track_``, ``mem_``, ``peakmem_`` without
    statistics) or failed: one row per sample, ``run`` = sample index, ``value`` = the sample
    (seconds per call: asv divides each timing by ``number``). Otherwise a *summary table*
    (`fastperf.io.common.summary_table`): ``median`` = asv's result (the median of the
    samples), ``n`` = ``stats_repeat`` (the samples taken), ``iqr`` = ``stats_q_75 -
    stats_q_25``; mean, sd, min and max are null (asv does not keep them), except where the
    samples are stored (all statistics from the samples) or the result is a single
    measurement (``n`` 1). Failed (null) and skipped (NaN) results give a null value/median.

    Extra columns: ``params`` (the combination, null when not parameterized), ``iterations``
    (``stats_number``, calls per sample), in summary tables ``ci_99_a``/``ci_99_b`` (asv's 99%
    confidence interval of the median); configuration columns ``machine`` (``params.machine``)
    and ``env_name`` (the environment; for version-1 files from the file name).

    Refuses (InputError) a document that is no asv results file, one without benchmarks, or a
    malformed entry (a column whose length is not the number of parameter combinations, a value that
    is no number), naming the file and the benchmark.

    Format: asv's results format, versions 1 and 2: ``Results.save``/``load``/``update_to_2`` in
    asv/results.py; the statistics (median, quartiles, 99% CI, repeat, number) from
    ``compute_stats`` in asv_runner/statistics.py (github.com/airspeed-velocity).
    """
    path = Path(path)
    return _build(_entries(path, data, _suite(path)), path)


def read_asv_tree(path: Path) -> pa.Table:
    """Every results file of an asv results directory as one table (see `read_asv`).

    The files are ``<machine>/<commit[:8]>-<env>.json`` under `path` (or `path` itself when it
    is one machine's folder), ``machine.json`` and ``benchmarks.json`` excepted; units and
    types from ``benchmarks.json`` at the root. ``variant`` is each file's commit (8
    characters). The table holds raw runs only when every benchmark of every file does (see
    `read_asv`), otherwise summaries.

    Refuses (InputError) no asv results directory, no results file in it, or a malformed file.

    Format: asv's results layout: ``iter_results_paths`` and ``get_filename`` in asv/results.py.
    """
    path = Path(path)
    dirs = _machine_dirs(path) if path.is_dir() else []
    if not dirs:
        raise InputError(f"{path}: not an asv results directory (no machine.json or "
                         "benchmarks.json)")
    root = path / "benchmarks.json"
    suite: dict[str, Any] = {}
    if root.is_file():
        loaded = load_json(root)
        suite = loaded if isinstance(loaded, dict) else {}
    entries: list[dict[str, Any]] = []
    files = 0
    for folder in dirs:
        for file in sorted(folder.glob("*.json")):
            if file.name in _SKIP_FILES or not file.is_file():
                continue
            data = load_json(file)
            if not looks_like_asv(data):
                continue
            files += 1
            entries.extend(_entries(file, data, suite or _suite(file)))
    if not files:
        raise InputError(f"{path}: an asv results directory without results files "
                         "(<machine>/<commit>-<env>.json)")
    return _build(entries, path)


#: An ``asv run`` console result line: ``[ 35.00%] ··· benchmarks.Suite.time_x   11.1±0.01μs``.
ASV_CONSOLE_LINE = re.compile(r"^\[\s*\d+(?:\.\d+)?%\]\s+·+\s+\S+\s+\S", re.MULTILINE)


def looks_like_asv_console(text: str) -> bool:
    """True for the console output of ``asv run`` (progress lines ``[ 35.00%] ··· name value``).

    Format: asv, asv/console.py (the ``···`` progress lines of ``asv run``).
    """
    return ASV_CONSOLE_LINE.search(text) is not None


def read_asv_console(path: Path, text: str) -> pa.Table:
    """Refuse ``asv run`` console output, saying what to read instead.

    Refuses (InputError) always: the console shows medians rounded for display, without n; the
    results directory asv writes alongside holds the figures.

    Format: asv, asv/console.py.
    """
    raise InputError(f"{path}: looks like asv console output ({len(ASV_CONSOLE_LINE.findall(text))}"
                     " result lines, rounded for display, no run counts); read the results "
                     "directory asv wrote (.asv/results, or results/ in the asv config), "
                     "with --record-samples to keep the samples")


def read_asv_benchmarks(path: Path, data: Any) -> pa.Table:
    """Refuse asv's ``benchmarks.json`` (the suite's description: no measurements).

    Refuses (InputError) always, pointing to the results files or the results directory.

    Format: asv, asv/benchmarks.py (``Benchmarks.save``).
    """
    raise InputError(f"{path}: an asv suite description (benchmarks.json, "
                     f"{sum(1 for k in data if k != 'version')} benchmarks), no measurements; "
                     "read the results directory that holds it, or its results files")
