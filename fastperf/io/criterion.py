"""criterion.rs results: the ``target/criterion/`` tree, a single ``sample.json`` or
``estimates.json`` (cargo-criterion's ``--message-format=json`` lines: `criterion_messages`).

Layout of the tree criterion writes (one folder per benchmark; a benchmark of a group with an
input is ``<group>/<function>/<value>``)::

    target/criterion/
        report/                          HTML only
        <group>/<function>/<value>/
            new/    sample.json estimates.json benchmark.json tukey.json
            base/   (the same: the previous run, or a saved --save-baseline NAME folder)
            change/ estimates.json       (relative change; no samples)
            report/                      HTML only

``sample.json`` is ``{"sampling_mode": "Linear"|"Flat", "iters": [n, ...], "times": [ns, ...]}``
(criterion 0.3 and later) or ``[[n, ...], [ns, ...]]`` (older releases): the iteration count
and the total time in nanoseconds of every sample. ``benchmark.json`` names the benchmark
(``group_id``, ``function_id``, ``value_str``, ``full_id``, ``directory_name``, ``throughput``).
``estimates.json`` holds bootstrap point estimates with confidence intervals (``mean``,
``median``, ``std_dev``, ``median_abs_dev``, ``slope``; capitalised ``Mean``, ``StdDev``, ...
in older releases). cargo-criterion's ``--message-format=json`` writes one JSON object per line;
``{"reason": "benchmark-complete", "id", "iteration_count": [...], "measured_values": [...],
"unit", "typical", "mean", ...}`` lines hold the samples.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import int_column, shown
from fastperf.io.common import load_json, tool_table
from fastperf.io.summaries import summary_table

__all__ = [
    "looks_like_criterion_sample", "read_criterion_sample",
    "looks_like_criterion_estimates", "read_criterion_estimates",
    "looks_like_criterion_tree", "read_criterion_tree", "per_iteration_values",
]

_SOURCE = ("criterion.rs (github.com/bheisler/criterion.rs): src/fs.rs and src/analysis/mod.rs "
           "write sample.json, estimates.json and benchmark.json; cargo-criterion "
           "(github.com/bheisler/cargo-criterion) src/message_formats/json.rs writes the "
           "--message-format=json lines")
#: Folders in a benchmark's directory that hold no samples.
_NOT_VARIANTS = frozenset({"report", "change"})
_ESTIMATE_KEYS = {"mean": ("mean", "Mean"), "median": ("median", "Median"),
                  "sd": ("std_dev", "StdDev")}
_MAX_TREE_DEPTH = 12


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)


def _sample_arrays(data: Any) -> tuple[list, list, str | None] | None:
    """``(iters, times, sampling_mode)`` of a sample.json document, else None."""
    if isinstance(data, dict):
        iters, times = data.get("iters"), data.get("times")
        if _numbers(iters) and _numbers(times):
            mode = data.get("sampling_mode")
            return iters, times, mode if isinstance(mode, str) else None
        return None
    if isinstance(data, list) and len(data) == 2 and _numbers(data[0]) and _numbers(data[1]) \
            and len(data[0]) == len(data[1]) and data[0]:
        return data[0], data[1], None
    return None


def looks_like_criterion_sample(data: Any) -> bool:
    """True for ``{"iters": [...], "times": [...]}`` (criterion 0.3+, with ``sampling_mode``) or the
    older ``[[iters...], [times...]]`` (two equally long, non-empty lists of numbers).

    Format: criterion.rs, src/fs.rs and src/analysis/mod.rs (``SavedSample``).
    """
    return _sample_arrays(data) is not None


def per_iteration_values(path: Path, name: str, iters: list, times: list,
                   factor: float = 1.0) -> tuple[list[float | None], list[int | None]]:
    """``times[i] / iters[i] * factor`` and the iteration counts, checked.

    Parameters
    ----------
    path : pathlib.Path
        The file, for messages.
    name : str
        The benchmark, for messages.
    iters, times : list
        Iteration counts and total times of the samples, as parsed.
    factor : float
        Multiplier to the output unit.

    Returns
    -------
    values : list of float
        Per-iteration values.
    counts : list of int
        The iteration counts.

    Raises
    ------
    InputError
        Lists of different lengths, a time that is no number, a count that is no positive
        whole number.

    Notes
    -----
    criterion.rs, src/analysis/mod.rs: ``avg_times = times / iters``.
    """
    if len(iters) != len(times):
        raise InputError(f"{path}: malformed criterion file: benchmark {shown(name)} has "
                         f"{len(iters)} iteration counts but {len(times)} times")
    counts = int_column(iters, where=str(path), names=[name] * len(iters), kind="criterion",
                        field="iteration count")
    values: list[float | None] = []
    for n, t in zip(counts.to_pylist(), times):
        if not isinstance(t, (int, float)) or isinstance(t, bool):
            raise InputError(f"{path}: malformed criterion file: benchmark {shown(name)}: the "
                             f"time {shown(t)} is not a number")
        if n is None or n <= 0:
            raise InputError(f"{path}: malformed criterion file: benchmark {shown(name)}: the "
                             f"iteration count {shown(n)} is not positive")
        try:
            value = float(t) / n * factor
        except OverflowError:
            raise InputError(f"{path}: benchmark {shown(name)}: the time {shown(t)} is beyond "
                             "the float64 range") from None
        values.append(value)
    return values, counts.to_pylist()


def _tree_names(path: Path) -> tuple[str, str | None]:
    """Benchmark name and variant of a sample.json or estimates.json from where it sits."""
    folder = path.parent
    variant = folder.name if folder.name in ("new", "base", "change") else None
    info = folder / "benchmark.json"
    if variant is not None and info.is_file():
        try:
            meta = load_json(info)
        except InputError:
            meta = None
        if isinstance(meta, dict) and isinstance(meta.get("full_id"), str):
            return meta["full_id"], variant
    if variant is None:
        return path.stem, None
    bench_dir = folder.parent
    top = next((p for p in bench_dir.parents if p.name == "criterion"), None)
    if top is None:
        parts = [bench_dir.name]
    else:
        parts = list(bench_dir.relative_to(top).parts)
    return "/".join(parts) or path.stem, variant


def read_criterion_sample(path: Path, data: Any) -> pa.Table:
    """Every sample of a criterion.rs ``sample.json`` as one row, nanoseconds per iteration.

    ``value`` is ``times[i] / iters[i]`` (criterion stores the total time of each sample in
    nanoseconds and the iterations it ran), ``unit`` is ``ns``, ``run`` the sample's index and
    the extra column ``iterations`` (int64) holds ``iters[i]``. ``benchmark`` is the
    ``full_id`` of a ``benchmark.json`` beside the file, else the folders of the tree above
    the file's ``new``/``base`` folder (up to a folder named ``criterion``; only the nearest
    one when there is none), else the file's stem. A file in a ``new``/``base``/``change``
    folder gets that folder as its ``variant``.

    Refuses (InputError) no sample.json document, an empty sample, counts and times of different
    lengths, an iteration count that is not a positive whole number.

    Format: criterion.rs, src/fs.rs and src/analysis/mod.rs (``SavedSample``: ``sampling_mode``,
    ``iters``, ``times``).
    """
    arrays = _sample_arrays(data)
    if arrays is None:
        raise InputError(f"{path}: not a criterion.rs sample.json (no 'iters' and 'times' "
                         "lists of numbers)")
    iters, times, _mode = arrays
    name, variant = _tree_names(path)
    if not iters and not times:
        raise InputError(f"{path}: the criterion sample of {shown(name)} holds no samples")
    values, counts = per_iteration_values(path, name, iters, times)
    n = len(values)
    return tool_table([name] * n, values, run=list(range(n)), unit="ns",
                      variant=None if variant is None else [variant] * n,
                      extra={"iterations": pa.array(counts, pa.int64())},
                      where=path, kind="criterion", value_field="times")


def _estimate_entry(data: dict, keys: tuple[str, ...]) -> Any:
    for key in keys:
        entry = data.get(key)
        if isinstance(entry, dict):
            return entry.get("point_estimate")
    return None


def looks_like_criterion_estimates(data: Any) -> bool:
    """True for an object whose ``mean`` (or ``Mean``) entry is an object with ``point_estimate``
    and ``confidence_interval``.

    Format: criterion.rs, src/estimate.rs (``Estimates``, ``Estimate``).
    """
    if not isinstance(data, dict):
        return False
    entry = data.get("mean", data.get("Mean"))
    return isinstance(entry, dict) and "point_estimate" in entry \
        and "confidence_interval" in entry


def read_criterion_estimates(path: Path, data: Any) -> pa.Table:
    """A criterion.rs ``estimates.json`` as a one-row *summary table*, nanoseconds.

    ``mean``, ``median`` and ``sd`` are the ``point_estimate`` of ``mean``, ``median`` and
    ``std_dev`` (``Mean``, ``Median``, ``StdDev`` in older releases). Criterion computes them on
    the per-iteration times of the sample (``times[i] / iters[i]``), and its ``std_dev`` is the
    sample standard deviation (``Sample::var`` divides by n - 1), so it is taken as it is.
    ``n`` is null: the file does not say how many samples there were (criterion's default is
    100; the ``sample.json`` beside it has them all). Benchmark and variant as in
    `read_criterion_sample`. A file in a ``change`` folder (relative changes, not times) is
    refused.

    Refuses (InputError) no estimates document, a ``change/estimates.json``, or a point estimate
    that is no number.

    Format: criterion.rs, src/analysis/mod.rs (``estimates``: mean, ``std_dev`` of the per-iteration
    times) and src/stats/univariate/sample.rs (``var``: sum of squares / (n - 1)).
    """
    if not looks_like_criterion_estimates(data):
        raise InputError(f"{path}: not a criterion.rs estimates.json (no 'mean' estimate)")
    name, variant = _tree_names(path)
    if variant == "change":
        raise InputError(f"{path}: a criterion change/estimates.json holds relative changes "
                         "between two runs, not times; read the new/ and base/ folders")
    stats = {key: [_estimate_entry(data, keys)] for key, keys in _ESTIMATE_KEYS.items()}
    return summary_table([name], unit="ns", statistics=stats,
                         variant=None if variant is None else [variant],
                         where=path, kind="criterion")


def _sample_files(root: Path, first_only: bool = False) -> list[Path]:
    """sample.json files under `root` in their benchmark's variant folders, sorted."""
    found: list[Path] = []
    base_depth = len(root.parts)
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d != "report")
        if len(here.parts) - base_depth >= _MAX_TREE_DEPTH:
            dirs[:] = []
        if "sample.json" in files and here.name not in _NOT_VARIANTS and here != root:
            found.append(here / "sample.json")
            if first_only:
                return found
    return sorted(found)


def _estimate_files(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d != "report")
        if len(here.parts) - len(root.parts) >= _MAX_TREE_DEPTH:
            dirs[:] = []
        if "estimates.json" in files and here.name not in _NOT_VARIANTS and here != root:
            found.append(here / "estimates.json")
    return sorted(found)


def _tree_root(path: Path) -> Path:
    nested = path / "criterion"
    if path.name != "criterion" and nested.is_dir():
        return nested
    return path


def looks_like_criterion_tree(path: Path) -> bool:
    """True for a directory holding criterion.rs results (``target/criterion`` or ``target``).

    Format: criterion.rs, src/fs.rs (the ``target/criterion`` layout).
    """
    try:
        if not path.is_dir():
            return False
        root = _tree_root(path)
        if _sample_files(root, first_only=True):
            return True
        return any((f.parent / "benchmark.json").is_file() for f in _estimate_files(root))
    except OSError:
        return False


def _variant_name(root: Path, file: Path) -> tuple[str, str]:
    """Benchmark (benchmark.json's full_id, else the folders) and variant of a tree file."""
    folder = file.parent
    variant = folder.name
    info = folder / "benchmark.json"
    if info.is_file():
        meta = load_json(info)
        if isinstance(meta, dict) and isinstance(meta.get("full_id"), str):
            return meta["full_id"], variant
    rel = folder.parent.relative_to(root)
    return "/".join(rel.parts) or root.name, variant


def read_criterion_tree(path: Path) -> pa.Table:
    """Every sample of every benchmark and variant of a criterion.rs results tree.

    Each ``<benchmark>/<variant>/sample.json`` (``new``, ``base``, or a baseline saved with
    ``--save-baseline NAME``; ``change/`` and ``report/`` folders are skipped) is read as in
    `read_criterion_sample`: nanoseconds per iteration, ``run`` = sample index, ``iterations``
    extra column. ``benchmark`` is ``full_id`` of the ``benchmark.json`` beside the sample
    (criterion 0.3+), else the benchmark's folders below the root joined with ``/``;
    ``variant`` is the folder name. A benchmark folder with an ``estimates.json`` but no
    ``sample.json`` is left out when the tree has samples elsewhere; a tree with no
    ``sample.json`` at all but ``estimates.json`` files is read as a summary table (`read_criterion_estimates`, one row per benchmark and
    variant). `path` may be ``target/criterion`` or the ``target`` folder above it.

    Refuses (InputError) a directory without criterion results, or a malformed file in it (naming
    the file).

    Format: criterion.rs, src/fs.rs and src/analysis/mod.rs (the ``target/criterion`` layout and
    ``SavedSample``).
    """
    root = _tree_root(path)
    if not root.is_dir():
        raise InputError(f"{path}: not a directory")
    files = _sample_files(root)
    if not files:
        estimates = _estimate_files(root)
        if not estimates:
            raise InputError(f"{path}: no criterion results (no <benchmark>/new/sample.json "
                             "or estimates.json) in this directory")
        return _estimates_tree(root, estimates)
    tables = []
    for file in files:
        name, variant = _variant_name(root, file)
        data = load_json(file)
        arrays = _sample_arrays(data)
        if arrays is None:
            raise InputError(f"{file}: not a criterion.rs sample.json (no 'iters' and 'times' "
                             "lists of numbers)")
        values, counts = per_iteration_values(file, name, arrays[0], arrays[1])
        n = len(values)
        tables.append(tool_table([name] * n, values, run=list(range(n)), unit="ns",
                                 variant=[variant] * n,
                                 extra={"iterations": pa.array(counts, pa.int64())},
                                 where=file, kind="criterion", value_field="times"))
    return pa.concat_tables(tables)


def _estimates_tree(root: Path, files: list[Path]) -> pa.Table:
    names: list[str] = []
    variants: list[str] = []
    stats: dict[str, list[Any]] = {key: [] for key in _ESTIMATE_KEYS}
    for file in files:
        data = load_json(file)
        if not looks_like_criterion_estimates(data):
            raise InputError(f"{file}: not a criterion.rs estimates.json (no 'mean' estimate)")
        name, variant = _variant_name(root, file)
        names.append(name)
        variants.append(variant)
        for key, keys in _ESTIMATE_KEYS.items():
            stats[key].append(_estimate_entry(data, keys))
    return summary_table(names, unit="ns", statistics=stats, variant=variants, where=root,
                         kind="criterion")
