"""pytest-benchmark results saved without their rounds, and pytest-benchmark's ``.benchmarks/``
folder.

A file saved by ``--benchmark-save``/``--benchmark-autosave`` without ``--benchmark-save-data``
has, per benchmark, only ``stats``: ``{"min", "max", "mean", "stddev", "rounds", "median",
"iqr", "q1", "q3", "iqr_outliers", "stddev_outliers", "outliers", "ld15iqr", "hd15iqr",
"ops", "total", "iterations"}`` (seconds per iteration), no ``data`` list.

The storage folder::

    .benchmarks/<machine-id>/NNNN_<commit>_<date>[_<name>].json

``<machine-id>`` is ``<system>-<implementation>-<version>-<bits>`` (e.g.
``Linux-CPython-3.12-64bit``); one file per save, numbered ``0001``, ``0002``, ...
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.common import load_json, with_config
from fastperf.io.summaries import summary_table
from fastperf.io.pytest_benchmark import looks_like_pytest_benchmark, read_pytest_benchmark

__all__ = ["read_pytest_benchmark_summaries", "has_rounds", "looks_like_pytest_benchmark_tree",
           "read_pytest_benchmark_tree", "SAVE_NAME"]

KIND = "pytest-benchmark"
#: A saved run's file name: ``NNNN_<commit>_<date>[_<name>].json`` (pytest-benchmark's
#: storage/file.py writes ``{num:04d}_{save name}.json``, the autosave name being
#: ``<commit>_<date>[_<dirty tag>]``); any ``NNNN_*.json`` is a save.
SAVE_NAME = re.compile(r"^(\d{4})_.+\.json$")
#: ``stats`` key -> summary-table statistic.
_STATISTICS = {"rounds": "n", "mean": "mean", "stddev": "sd", "min": "min", "max": "max",
               "median": "median", "iqr": "iqr"}


def read_pytest_benchmark_summaries(path: Path, data: Any) -> pa.Table:
    """One summary row per benchmark, from each benchmark's ``stats`` (seconds per iteration).

    ``benchmark`` is the test's ``fullname`` (else ``name``), as in `read_pytest_benchmark`.
    Statistics: ``n`` = ``rounds``, ``mean``, ``sd`` = ``stddev``, ``min``, ``max``,
    ``median``, ``iqr`` (``q3 - q1`` as pytest-benchmark stores it), unit ``"s"``.
    pytest-benchmark's ``stddev`` is the sample standard deviation (``statistics.stdev``,
    divisor n - 1), what a summary table holds; with a single round it writes 0, which is no
    standard deviation: ``sd`` is then null. No extra columns (the raw reader has none either).

    Refuses (InputError) a document that is no pytest-benchmark file, one without benchmarks, an
    entry without a name or ``stats``, or a statistic that is no number (``rounds`` no whole
    number).

    Format: pytest-benchmark's saved JSON (``--benchmark-save``, ``--benchmark-autosave``,
    ``--benchmark-json``); the statistics are ``Stats`` in src/pytest_benchmark/stats.py
    (github.com/ionelmc/pytest-benchmark): ``stddev`` = ``statistics.stdev(data)`` (0 for one
    round), ``iqr`` = ``q3 - q1``.
    """
    if not looks_like_pytest_benchmark(data):
        raise InputError(f"{path}: not a pytest-benchmark JSON file (no 'benchmarks' list with "
                         "'stats')")
    benchmarks = data["benchmarks"]
    if not benchmarks:
        raise InputError(f"{path}: the pytest-benchmark file holds no benchmarks")
    names: list[str] = []
    columns: dict[str, list[Any]] = {name: [] for name in _STATISTICS.values()}
    for bench in benchmarks:
        if not isinstance(bench, dict):
            raise InputError(f"{path}: malformed pytest-benchmark file: a benchmark entry is "
                             "not an object")
        name = bench.get("fullname") or bench.get("name")
        if name is None:
            raise InputError(f"{path}: a pytest-benchmark entry has neither 'fullname' nor 'name'")
        stats = bench.get("stats")
        if not isinstance(stats, dict):
            raise InputError(f"{path}: malformed pytest-benchmark file: benchmark {name!r} has "
                             "no 'stats' object")
        names.append(str(name))
        for key, column in _STATISTICS.items():
            columns[column].append(stats.get(key))
    for i, rounds in enumerate(columns["n"]):
        if isinstance(rounds, (int, float)) and not isinstance(rounds, bool) and rounds < 2:
            columns["sd"][i] = None  # pytest-benchmark writes 0 for a single round
    return summary_table(names, unit="s", statistics=columns, where=path, kind=KIND)


def has_rounds(data: Any) -> bool:
    """True when every benchmark of a pytest-benchmark document kept its rounds as numbers.

    Parameters
    ----------
    data : object
        A parsed pytest-benchmark document.

    Returns
    -------
    bool
        Whether each ``benchmarks[].stats.data`` is a list of numbers (a null is a missing
        round, dropped and counted as a null value is; a list trimmed by hand, with a note in
        place of some rounds, does not count: the file's statistics are read).

    Notes
    -----
    No formula.
    """
    def numbers(rounds: Any) -> bool:
        return isinstance(rounds, list) and all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
            for v in rounds)
    return all(isinstance(b, dict) and isinstance(b.get("stats"), dict)
               and numbers(b["stats"].get("data")) for b in data["benchmarks"])


def _saves(path: Path) -> list[Path]:
    """The saved runs under `path`: ``<machine-id>/NNNN_*.json``, or ``NNNN_*.json`` in `path`."""
    files: list[Path] = []
    try:
        folders = [path] + sorted(p for p in path.iterdir() if p.is_dir())
        for folder in folders:
            files.extend(sorted(f for f in folder.iterdir()
                                if f.is_file() and SAVE_NAME.match(f.name)))
    except OSError:
        return []
    return files


def looks_like_pytest_benchmark_tree(path: Path) -> bool:
    """True when it, or a sub-folder, holds files named ``NNNN_*.json`` (four digits, an
    underscore), the names pytest-benchmark gives its saves.

    Format: pytest-benchmark's file storage (src/pytest_benchmark/storage/file.py): saves go to
    ``<storage>/<machine-id>/NNNN_<name>.json``.
    """
    try:
        return Path(path).is_dir() and bool(_saves(Path(path)))
    except OSError:
        return False


def read_pytest_benchmark_tree(path: Path) -> pa.Table:
    """Every save of a ``.benchmarks/`` folder as one table, the save as the variant.

    Each ``<machine-id>/NNNN_<commit>_<date>[_<name>].json`` is read; its rows get the
    variant ``NNNN_<commit>_<date>[_<name>]`` (the file name without ``.json``: unique within
    a machine's folder) and the configuration column ``machine`` (the ``<machine-id>`` folder;
    saves directly in `path`: null, and no such column when every save is there). Raw runs (`read_pytest_benchmark`) when every benchmark
    of every save has its rounds (``--benchmark-save-data``), otherwise summaries of all
    (`read_pytest_benchmark_summaries`).

    Refuses (InputError) no saves in the folder, or a save that is no pytest-benchmark file (the
    file named).

    Format: pytest-benchmark's file storage (src/pytest_benchmark/storage/file.py, naming in
    src/pytest_benchmark/session.py and utils.py: ``get_commit_info``, ``NNNN_`` numbering).
    """
    path = Path(path)
    files = _saves(path) if path.is_dir() else []
    if not files:
        raise InputError(f"{path}: not a pytest-benchmark storage folder (no "
                         "<machine-id>/NNNN_*.json saves)")
    documents = []
    for file in files:
        data = load_json(file)
        if not looks_like_pytest_benchmark(data):
            raise InputError(f"{file}: a pytest-benchmark save name, but not a pytest-benchmark "
                             "JSON file")
        documents.append((file, data))
    raw = all(has_rounds(data) for _, data in documents)
    tables = []
    nested = any(file.parent != path for file, _ in documents)
    for file, data in documents:
        table = read_pytest_benchmark(file, data) if raw else \
            read_pytest_benchmark_summaries(file, data)
        machine = None if file.parent == path else file.parent.name
        table = table.add_column(1, "variant", pa.array([file.stem] * table.num_rows,
                                                        pa.string()))
        if nested:
            table = table.append_column("machine", pa.array([machine] * table.num_rows,
                                                            pa.string()))
        tables.append(table)
    out = pa.concat_tables(tables, promote_options="default")
    out = out.replace_schema_metadata(tables[0].schema.metadata)
    return with_config(out, ["machine"] if nested else [])
