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
from fastperf.io.common import tool_table

__all__ = ["read_pyperf", "looks_like_pyperf", "PYPERF_UNITS"]

#: pyperf's unit names -> the unit written in the ``unit`` column (values are not rescaled).
PYPERF_UNITS = {"second": "s", "byte": "B", "integer": ""}
_DEFAULT_UNIT = "second"  # pyperf's default when no metadata names a unit


def looks_like_pyperf(data: Any) -> bool:
    """True for a parsed JSON document shaped like a pyperf result file.

    Parameters
    ----------
    data : object
        A parsed JSON document.

    Returns
    -------
    bool
        True when it has the shape of a pyperf result file.

    Notes
    -----
    pyperf's JSON format version 1.0 (pyperf documentation, "JSON format"; ``BenchmarkSuite.dump``).
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
    ``run`` the index of the run among the runs that have values, ``unit`` from the ``unit``
    metadata (benchmark level over file level; pyperf's default is ``second``) mapped by
    `PYPERF_UNITS`.

    Parameters
    ----------
    path : pathlib.Path
        The file (for messages).
    data : object
        Its parsed JSON document.

    Returns
    -------
    pyarrow.Table
        ``benchmark``, ``run``, ``unit``, ``value`` (and the extra columns named above), one row
        per measurement.

    Raises
    ------
    InputError
        A document that is no pyperf file, a format version other than 1.x, no benchmarks, a
        benchmark without a name, or no run with values.

    Notes
    -----
    pyperf's JSON format version 1.0 (pyperf documentation, "JSON format"; ``BenchmarkSuite.dump``).
    """
    if not looks_like_pyperf(data):
        raise InputError(f"{path}: not a pyperf JSON file (no 'benchmarks' list with 'runs')")
    version = str(data.get("version", ""))
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
    values: list[float] = []
    units: list[str] = []
    for i, bench in enumerate(benchmarks):
        meta = bench.get("metadata") or {}
        name = meta.get("name", file_meta.get("name"))
        if name is None:
            raise InputError(f"{path}: pyperf benchmark #{i} has no name in its or the file's metadata")
        pyperf_unit = meta.get("unit", file_meta.get("unit", _DEFAULT_UNIT))
        unit = PYPERF_UNITS.get(pyperf_unit, str(pyperf_unit))
        run_index = 0
        for run in bench.get("runs", []):
            run_values = run.get("values")
            if not run_values:  # calibration run: warmups only
                continue
            k = len(run_values)
            names.extend([str(name)] * k)
            runs.extend([run_index] * k)
            units.extend([unit] * k)
            values.extend(run_values)
            run_index += 1
    if not values:
        raise InputError(f"{path}: the pyperf file has no run with values (only calibration/warmup runs)")
    return tool_table(names, values, run=runs, unit=units)
