"""Where a lazy dataset's files are (`fastperf.io.dataset`): directories, globs, lists of
paths, and the table format their extension tells."""
from __future__ import annotations

import glob as globbing
import os
from pathlib import Path
from typing import Any, Iterator

from fastperf.errors import InputError

__all__ = ["FORMATS", "is_lazy_source", "table_files", "dataset_files", "glob_prefix",
           "dataset_format"]

FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".arrow": "ipc",
           ".feather": "ipc", ".ipc": "ipc"}


def is_lazy_source(source: Any) -> bool:
    """Whether `source` names a dataset read lazily by default: a directory holding only
    Parquet, IPC or CSV files (not a tool's results tree), or a glob matching only such files.

    Parameters
    ----------
    source : Any

    Returns
    -------
    bool
    """
    if not isinstance(source, (str, os.PathLike)):
        return False
    text = os.fspath(source)
    if any(ch in text for ch in "*?[") and not Path(text).exists():
        matched = globbing.glob(text, recursive=True)
        return bool(matched) and all(Path(p).suffix.lower() in FORMATS for p in matched)
    path = Path(text)
    if not path.is_dir():
        return False
    names = [Path(root) / f for root, _, files in os.walk(path) for f in files
             if not f.startswith((".", "_"))]
    return bool(names) and all(p.suffix.lower() in FORMATS for p in names)

def table_files(directory: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in sorted(files):
            if not name.startswith((".", "_")) and Path(name).suffix.lower() in FORMATS:
                yield Path(root) / name

def dataset_files(source: Any) -> tuple[list[Path], Path | None]:
    """The files of a source (sorted) and the directory hive partitions are relative to."""
    sources = source if isinstance(source, (list, tuple)) else [source]
    files: list[Path] = []
    base = None
    for item in sources:
        if not isinstance(item, (str, os.PathLike)):
            raise InputError(f"a lazy dataset is read from paths; got a {type(item).__name__}")
        path = Path(item)
        if path.is_dir():
            found = list(table_files(path))
            if not found:
                raise InputError(f"{path}: no Parquet, IPC or CSV file in this directory")
            files += found
            base = base or path
        elif path.exists():
            files.append(path)
        else:
            matched = sorted(Path(p) for p in globbing.glob(os.fspath(path), recursive=True)
                             if Path(p).is_file())
            if not matched:
                raise InputError(f"{path}: no such file, directory or matching file")
            files += matched
            fixed = Path(*[part for part in glob_prefix(path.parts)]) if path.parts else None
            if base is None and fixed is not None and fixed.is_dir():
                base = fixed  # hive folders below the pattern's fixed part
    return files, base

def glob_prefix(parts: tuple[str, ...]) -> list[str]:
    """The parts of a glob pattern before its first wildcard."""
    out = []
    for part in parts:
        if any(ch in part for ch in "*?["):
            break
        out.append(part)
    return out

def dataset_format(files: list[Path], format: str | None) -> str:
    if format is not None:
        return format
    kinds = {FORMATS.get(p.suffix.lower()) for p in files}
    if len(kinds) != 1 or None in kinds:
        raise InputError(
            "a lazy dataset (lazy=True, a directory or glob, --memory-limit) reads files of one "
            "table format, Parquet, IPC or CSV, told by their extension (.parquet, .arrow, "
            f".csv): found {sorted(str(p.suffix or p.name) for p in files)[:5]}; pass format=, "
            "or read benchmark-tool files without it")
    return kinds.pop()
