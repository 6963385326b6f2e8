"""Google Benchmark JSON reports (``--benchmark_format=json`` / ``--benchmark_out=...``).

Layout: ``{"context": {...}, "benchmarks": [{"name", "run_name", "run_type": "iteration" |
"aggregate", "repetition_index", "iterations", "real_time", "cpu_time", "time_unit", ...},
...]}``. Files written before ``run_type`` existed have iteration rows only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import int_column, shown, text_field
from fastperf.io.common import add_config, config_text, tool_table

__all__ = ["read_google_benchmark", "looks_like_google_benchmark", "METRICS", "TIME_UNITS",
           "AGGREGATES"]

#: Values of ``metric=``: the per-iteration time fields of a Google Benchmark row.
METRICS = ("real_time", "cpu_time")
#: ``time_unit`` -> seconds per unit.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_DEFAULT_TIME_UNIT = "ns"  # Google Benchmark's default when a row names none
#: The statistics Google Benchmark appends to a benchmark's name in its aggregate rows
#: (``BM_x/8_mean``): the console output, and JSON written before rows had a ``run_type``.
AGGREGATES = ("mean", "median", "stddev", "cv", "BigO", "RMS")
_ROW_KEYS = {"run_type", "run_name", "real_time", "cpu_time", "time_unit", "family_index"}

AGGREGATE_ONLY_ADVICE = (
    "re-run the benchmark binary with --benchmark_repetitions=N (N >= 2) and without "
    "--benchmark_report_aggregates_only (nor --benchmark_display_aggregates_only when the JSON "
    "goes to standard output), so that every repetition is written as an 'iteration' row"
)


def looks_like_google_benchmark(data: Any) -> bool:
    """True for a parsed JSON document shaped like a Google Benchmark report.

    Format: Google Benchmark's JSON reporter (github.com/google/benchmark, docs/user_guide.md,
    "Output Formats").
    """
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        return False
    if "context" in data:
        return True
    return any(isinstance(b, dict) and _ROW_KEYS & b.keys() for b in data["benchmarks"])


def read_google_benchmark(path: Path, data: Any, *, metric: str = "real_time") -> pa.Table:
    """Every ``iteration`` row (aggregates skipped) as one row, in seconds.

    ``benchmark`` is ``run_name`` (else ``name``), ``value`` is `metric` (``real_time`` or
    ``cpu_time``) scaled from ``time_unit`` to seconds, ``run`` is ``repetition_index`` when the
    row has one, else the row's occurrence index within its benchmark. Rows with
    ``error_occurred`` or ``skipped`` true, or without the metric, get a null value. The extra
    column ``iterations`` (int64) is the row's iteration count. Every scalar entry of the
    top-level ``context`` object (string, number, boolean: ``"true"``/``"false"``) becomes a
    constant string column declared as configuration (`fastperf.io.common.with_config`), named
    ``config_<key>`` when it clashes with a column the reader makes; lists and objects
    (``caches``, ``load_avg``) are left out.

    Refuses (InputError) an unknown metric, a document that is no Google Benchmark report, an empty
    one, a row without a name, an unknown time unit, or aggregate rows only.

    Format: Google Benchmark's JSON reporter (github.com/google/benchmark, docs/user_guide.md,
    "Output Formats").
    """
    if metric not in METRICS:
        raise InputError(f"metric={metric!r} is not a Google Benchmark time; use one of {list(METRICS)}")
    if not looks_like_google_benchmark(data):
        raise InputError(f"{path}: not a Google Benchmark JSON report (no 'benchmarks' rows with real_time/run_type)")
    rows = data["benchmarks"]
    if not rows:
        raise InputError(f"{path}: the Google Benchmark report holds no benchmarks")
    names: list[str] = []
    runs: list[int] = []
    values: list[float | None] = []
    iterations: list[int | None] = []
    seen: dict[str, int] = {}
    families: set[str] = set()  # BM_x of BM_x/8: what a complexity row (BM_x_BigO) names
    for row in rows:
        if row.get("run_type", "iteration") != "iteration":
            continue
        name = row.get("run_name") or row.get("name")
        if name is None:
            raise InputError(f"{path}: a Google Benchmark row has neither 'run_name' nor 'name'")
        name = text_field(name, f"{path}: a Google Benchmark row's name")
        if "run_type" not in row and _older_aggregate(name, seen, families):
            continue
        occurrence = seen.get(name, 0)
        seen[name] = occurrence + 1
        families.add(name.split("/", 1)[0])
        time_unit = row.get("time_unit", _DEFAULT_TIME_UNIT)
        if time_unit not in TIME_UNITS:
            raise InputError(
                f"{path}: benchmark {name!r} has time_unit {time_unit!r}; expected one of {list(TIME_UNITS)}"
            )
        raw = row.get(metric)
        flags = [row.get(flag) for flag in ("error_occurred", "skipped")]
        for flag, state in zip(("error_occurred", "skipped"), flags):
            if state is not None and not isinstance(state, bool):  # "false" is no false
                raise InputError(f"{path}: benchmark {shown(name)}: {flag} {shown(state)} is "
                                 "not true or false")
        value = None
        if not (any(flags) or raw is None):
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):  # "5" is no time
                raise InputError(f"{path}: benchmark {shown(name)}: {metric} {shown(raw)} is not "
                                 "a number")
            try:
                value = float(raw) * TIME_UNITS[time_unit]
            except OverflowError:
                raise InputError(f"{path}: benchmark {shown(name)}: {metric} {shown(raw)} is "
                                 "beyond the float64 range") from None
        values.append(value)
        names.append(name)
        runs.append(row.get("repetition_index", occurrence))
        iterations.append(row.get("iterations"))
    if not names:
        raise InputError(
            f"{path}: the Google Benchmark report holds only aggregate rows (mean/median/stddev/... "
            f"of repetitions), no individual measurements; {AGGREGATE_ONLY_ADVICE}"
        )
    counts = int_column(iterations, where=str(path), kind="google-benchmark", names=names,
                        field="iterations")
    table = tool_table(names, values, run=runs, unit="s", extra={"iterations": counts},
                       where=path, kind="google-benchmark", value_field=metric,
                       run_field="repetition_index")
    return add_config(table, _context_columns(data.get("context"), table.num_rows))


def _older_aggregate(name: str, seen: dict[str, int], families: set[str]) -> bool:
    """Whether a row without ``run_type`` (a file older than that field) is an aggregate: named
    ``<benchmark>_mean`` (``_median``, ``_stddev``, ``_cv``) after at least two repetitions of
    that benchmark, which is when Google Benchmark writes them, or ``<family>_BigO`` /
    ``_RMS`` after rows of that family (``BM_x_BigO`` after ``BM_x/1``, ``BM_x/2``...)."""
    base, _, statistic = name.rpartition("_")
    if statistic in ("BigO", "RMS"):
        return base in families
    return statistic in AGGREGATES and seen.get(base, 0) >= 2


def _context_columns(context: Any, rows: int) -> dict[str, pa.Array]:
    """One constant string column per scalar entry of the report's ``context`` object."""
    if not isinstance(context, dict):
        return {}
    columns: dict[str, pa.Array] = {}
    for key, value in context.items():
        if isinstance(value, (list, dict)) or value is None:
            continue  # caches, load_avg: not one value
        text = config_text(value)
        if text is not None:
            columns[str(key)] = pa.repeat(pa.scalar(text, pa.string()), rows)
    return columns
