"""pytest-benchmark JSON (``--benchmark-json``, or saved runs with ``--benchmark-save-data``).

Layout: ``{"machine_info": ..., "commit_info": ..., "benchmarks": [{"name", "fullname",
"stats": {"min", ..., "data": [per-round seconds per iteration]}}, ...], "version": ...}``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.common import tool_table
from fastperf.io.checked import text_field

__all__ = ["read_pytest_benchmark", "looks_like_pytest_benchmark"]

NO_DATA_ADVICE = (
    "re-run pytest with --benchmark-json=PATH (which always stores every round), or add "
    "--benchmark-save-data to --benchmark-save/--benchmark-autosave"
)


def looks_like_pytest_benchmark(data: Any) -> bool:
    """True for a parsed JSON document shaped like a pytest-benchmark result file.

    Format: pytest-benchmark's JSON output (``--benchmark-json``; pytest-benchmark documentation,
    "Comparing past runs").
    """
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        return False
    if any(isinstance(b, dict) and isinstance(b.get("stats"), dict) for b in data["benchmarks"]):
        return True
    return not data["benchmarks"] and ("machine_info" in data or "commit_info" in data)


def read_pytest_benchmark(path: Path, data: Any) -> pa.Table:
    """Every round of every benchmark as one row: ``stats.data``, seconds, run = round index.

    ``benchmark`` is the test's ``fullname`` (else ``name``). A benchmark saved without its
    rounds (summary statistics only) is an `InputError` that says how to save them.

    Refuses (InputError) a document that is no pytest-benchmark file, no benchmarks, an entry
    without a name, or a benchmark saved without its rounds.

    Format: pytest-benchmark's JSON output (``--benchmark-json``; pytest-benchmark documentation,
    "Comparing past runs").
    """
    if not looks_like_pytest_benchmark(data):
        raise InputError(f"{path}: not a pytest-benchmark JSON file (no 'benchmarks' list with 'stats')")
    benchmarks = data["benchmarks"]
    if not benchmarks:
        raise InputError(f"{path}: the pytest-benchmark file holds no benchmarks")
    names: list[str] = []
    runs: list[int] = []
    values: list[float] = []
    for bench in benchmarks:
        name = bench.get("fullname") or bench.get("name")
        if name is None:
            raise InputError(f"{path}: a pytest-benchmark entry has neither 'fullname' nor 'name'")
        name = text_field(name, f"{path}: a pytest-benchmark entry's name")
        rounds = (bench.get("stats") or {}).get("data")
        if rounds is None:
            raise InputError(
                f"{path}: benchmark {name!r} has summary statistics only, no per-round data "
                f"(stats.data); {NO_DATA_ADVICE}"
            )
        names.extend([str(name)] * len(rounds))
        runs.extend(range(len(rounds)))
        values.extend(rounds)
    return tool_table(names, values, run=runs, unit="s", where=path, kind="pytest-benchmark",
                      value_field="stats.data")
