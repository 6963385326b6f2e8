"""Readers: measurement tables from Arrow objects, table files and benchmark-tool result files.

`read` is the one entry point. It accepts an in-memory Arrow object, a path, or several paths,
finds each file's format by its content (or takes ``format=``), reads it with the module for
that format, names the variant of each file, and returns one long measurement table with the
canonical columns first: ``benchmark, variant, run, unit, value``, then any extra columns.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.tables import as_table, is_in_memory_table
from fastperf.io.common import (
    config_columns, encode_labels, normalise_tabular, order_columns, with_config,
)
from fastperf.io.content import (
    DEFAULT_LIMITS, MAX_DECOMPRESSED, MAX_EXPANSION, DecompressionLimits, compression_of,
    file_bytes, json_documents,
)
from fastperf.io.dataset import Dataset, open_if_lazy
from fastperf.io.formats import (
    SNIFF_BYTES, TABULAR, TOOL_FORMATS, formats_of_kind, json_prefix_may_match, tool_format,
    tried,
)
from fastperf.io.google_benchmark import METRICS
from fastperf.io.summaries import is_summary_table, mark_summary_table
from fastperf.io.tabular import read_csv, read_ipc, read_parquet
from fastperf.progress import READ_STEPS_PER_BYTE, check_progress, progress_chunks

__all__ = ["read", "load_table", "is_measurement_table", "detect_format", "example_table",
           "FORMATS", "FORMAT_ALIASES"]

#: Names accepted by ``format=``.
FORMATS = TABULAR + tuple(fmt.name for fmt in TOOL_FORMATS)
#: Other spellings accepted by ``format=`` (case and ``_`` versus ``-`` are ignored as well).
FORMAT_ALIASES = {"feather": "ipc", "arrow": "ipc"}


def _tried_all() -> str:
    return (f"Parquet, Arrow IPC (file/stream/Feather), JSON ({tried('json')}), "
            f"text ({tried('text')}), CSV with a header; any of them gzip/bz2/xz/zstd-compressed")


PathArg = Union[str, "os.PathLike[str]"]


def read(
    source: Any,
    *,
    format: str | None = None,
    benchmark: str = "benchmark",
    variant: str = "variant",
    value: str = "value",
    run: str = "run",
    unit: str = "unit",
    variants: Sequence[str] | Mapping[Any, str] | None = None,
    metric: str = "real_time",
    summaries: bool | None = None,
    progress: bool | None = None,
    lazy: bool | None = None,
    memory_limit: int | None = None,
    max_decompressed: int | None = MAX_DECOMPRESSED,
    max_expansion: float | None = MAX_EXPANSION,
) -> pa.Table | Dataset:
    """Read measurements into one long measurement table (or a summary table), or open a
    dataset lazily.

    Parameters
    ----------
    source : Arrow object, path, or list/tuple of paths
        A ``pyarrow.Table``/``RecordBatch``/``RecordBatchReader`` or any object with
        ``__arrow_c_stream__`` (polars, pandas >= 2.2, duckdb relations); a ``str`` or
        ``os.PathLike`` path; or several paths, read into one table.
    format : str, optional
        One of ``parquet, csv, ipc`` (aliases ``feather, arrow``), ``pyperf, pytest-benchmark,
        google-benchmark, hyperfine, go``. By default each file's format is detected from its
        content. Ignored for in-memory sources.
    benchmark, variant, value, run, unit : str
        For in-memory tables and Parquet/CSV/IPC files: the source columns holding these roles,
        renamed to the canonical names. ``benchmark`` and ``value`` must exist; ``variant``,
        ``run`` and ``unit`` are used when present (and must exist when named explicitly).
        Tool formats ignore them.
    variants : sequence of str or mapping, optional
        Variant names for files without a variant column of their own: one name per file in
        order, or a mapping ``{path as given: name}`` (unlisted files keep their stem); a single
        string counts as a one-element sequence. For an in-memory table without a variant
        column, a one-element sequence adds that variant. See docs/readers.md for Go ``note:``.
    metric : {"real_time", "cpu_time"}
        The Google Benchmark time to read.
    summaries : bool or None
        None (default): a file that holds only summary statistics (pytest-benchmark without
        ``--benchmark-save-data``, asv without samples, BenchmarkDotNet's CSV, cargo bench, ...)
        is read as a *summary table* (one row per benchmark: ``n, mean, sd, min, max, median,
        iqr``; `fastperf.io.common.summary_table`), others as runs. True: table sources
        (in-memory tables, Parquet/CSV/IPC files) are summary tables too (columns ``n``,
        ``mean``, ``sd`` required). False: summary-only files are refused.
    progress : bool or None
        A progress bar on stderr: over the files when there are several, over the rows of a
        single Parquet file. None (default): when stderr is a terminal and the files hold
        at least 100 MB (`fastperf.progress`); True: always; False: never.
    lazy, memory_limit : bool or None, int or None
        ``lazy=True``: a `fastperf.io.dataset.Dataset` of Parquet/IPC/CSV files, directories
        (hive folders) or globs, read in group-complete chunks within `memory_limit` bytes
        (docs/scale.md). None: lazy for a directory of such files only, or a glob.
    max_decompressed, max_expansion : int or None, float or None
        How far a compressed file (gzip, bzip2, xz, Zstandard) may expand: at most
        `max_decompressed` bytes (default 256 MiB), and as many bytes of objects once its JSON
        is parsed (estimated before parsing), and, once past 8 MiB, at most `max_expansion`
        times the compressed bytes read (default 100); None: no limit. Result files are at
        most tens of MB and expand 5- to 20-fold, so the defaults refuse a decompression bomb
        early and cheaply (docs/robustness.md); raise them for a trusted larger file.

    Returns
    -------
    pyarrow.Table or Dataset
        A `Dataset` when lazy. Otherwise one row per measurement: ``benchmark``,
        ``variant`` (``dictionary<int32, string>``), ``run`` (int64), ``unit``
        (``dictionary<int32, string>``), ``value`` (float64, nulls kept), each where the
        source has it, in this order, then the source's extra columns (e.g. ``iterations``
        for Go and Google Benchmark) and the configuration columns of tool files (Go
        ``key: value`` lines, Google Benchmark ``context``, pyperf metadata differing
        between benchmarks): strings, null where a row
        has no value, declared in the schema metadata (`fastperf.io.common.config_columns`);
        several files declare the ordered union of their lists.

    Raises
    ------
    InputError
        Missing or non-numeric columns, unknown format names, unreadable, empty, missing or
        unrecognised files, ambiguous variant names, a compressed file expanding beyond a limit
        (naming it); the message names the file or column.

    Notes
    -----
    The tool formats follow their own specifications (see `fastperf.io.go`,
    `fastperf.io.pyperf`, `fastperf.io.pytest_benchmark`, `fastperf.io.google_benchmark`,
    `fastperf.io.hyperfine`); tables follow fastperf's data model (docs/data-model.md).
    """
    fmt = _format_name(format)
    if metric not in METRICS:
        raise InputError(f"metric={metric!r} is not supported; use one of {list(METRICS)}")
    roles = {"benchmark": benchmark, "variant": variant, "value": value, "run": run, "unit": unit}
    for role, name in roles.items():
        if not isinstance(name, str):
            raise InputError(f"{role}= must be a column name (str), got {name!r}")
    if summaries not in (None, True, False):
        raise InputError(f"summaries= must be None, True or False, got {summaries!r}")
    check_progress(progress)
    limits = DecompressionLimits(max_decompressed, max_expansion)
    dataset = open_if_lazy(source, lazy, in_memory=is_in_memory_table(source), format=fmt,
                           roles=roles, memory_limit=memory_limit, progress=progress,
                           plain=not summaries and variants is None)
    if dataset is not None:
        return dataset
    if is_in_memory_table(source):
        if summaries:
            return mark_summary_table(as_table(source))
        return _read_in_memory(source, roles, variants)
    paths = _paths(source)
    labels, explicit = _labels(paths, variants)
    single = len(paths) == 1 and variants is None
    tables: list[pa.Table] = []
    label_users: dict[str, list[int]] = {}
    several = len(paths) > 1
    steps = READ_STEPS_PER_BYTE * sum(_file_size(p) for p in paths) if several else 0
    for first, stop in progress_chunks("read", len(paths), progress if several else False,
                                       steps, unit="files", chunks=len(paths), seconds=0):
        for i in range(first, stop):
            table, variant_from = _read_file(paths[i], fmt, roles, metric, summaries,
                                             progress=False if several else progress,
                                             limits=limits)
            if variant_from == "column":
                if explicit[i]:
                    raise InputError(
                        f"{paths[i]}: the file has its own variant column, so variants= cannot "
                        "name it; leave this file out of variants= (use a mapping) or drop that "
                        "column")
            else:
                table, used_label = _attach_variant(table, variant_from, labels[i],
                                                    prefix=not single)
                if used_label:
                    label_users.setdefault(labels[i], []).append(i)
            tables.append(encode_labels(table))
    _check_labels(paths, labels, explicit, label_users)
    _check_summaries(paths, tables, summaries)
    config = list(dict.fromkeys(name for table in tables for name in config_columns(table)))
    if len(tables) == 1:
        return with_config(order_columns(tables[0]), config)
    try:
        combined = pa.concat_tables(
            [t.replace_schema_metadata(None) for t in tables], promote_options="default"
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(
            f"cannot combine the files into one table: a column has different types in different "
            f"files ({exc}); read them separately and cast, or make the files agree"
        ) from None
    combined = with_config(order_columns(combined), config)
    return mark_summary_table(combined) if is_summary_table(tables[0]) else combined


def _check_summaries(paths: list[Path], tables: list[pa.Table], summaries: bool | None) -> None:
    """Summary tables and tables of runs do not mix; summaries=False refuses summaries."""
    kinds = [is_summary_table(t) for t in tables]
    if summaries is False and any(kinds):
        raise InputError(f"{paths[kinds.index(True)]}: holds summary statistics only (no runs), "
                         "and summaries=False; see docs/readers.md for how to keep the runs")
    if any(kinds) and not all(kinds):
        raise InputError(
            f"cannot combine {paths[kinds.index(True)]} (summary statistics only) with "
            f"{paths[kinds.index(False)]} (runs); read the runs' summaries with summaries=True "
            "on a table of n, mean, sd, or compare files of the same kind")


def is_measurement_table(x: Any) -> bool:
    """Whether `x` is a measurement table (or path(s) to one) rather than array-like data.

    One-dimensional objects that also speak the Arrow stream protocol (pandas and polars Series,
    pyarrow ChunkedArray) are samples, not tables.

    Parameters
    ----------
    x : object
        The first argument of a test function.

    Returns
    -------
    bool
        True for a path, a non-empty list of paths, an in-memory table or a lazy `Dataset`
        (which the functions that do not run out of core read whole); False for arrays,
        Arrow arrays and one-dimensional objects. A list or tuple of strings is a list of paths
        only when one of its items is an ``os.PathLike`` or names an existing file or folder:
        ``["a", "b"]`` with no such file is array-like data (then refused as not numeric), not
        a list of missing files.

    Notes
    -----
    Decides between a test's table form and its array form (scipy's signature); no formula.
    """
    if isinstance(x, (str, os.PathLike, Dataset)):
        return True
    if isinstance(x, (list, tuple)):
        if not (len(x) > 0 and all(isinstance(item, (str, os.PathLike)) for item in x)):
            return False
        return any(not isinstance(item, str) or os.path.exists(item) for item in x)
    if isinstance(x, (np.ndarray, pa.Array, pa.ChunkedArray)):
        return False
    shape = getattr(x, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 1:
        return False
    return is_in_memory_table(x)


def load_table(data: Any) -> pa.Table:
    """An in-memory Arrow object as a table, or a path (or list of paths) read by `read`.

    Parameters
    ----------
    data : Arrow object, path, list/tuple of paths or lazy `Dataset`
        What every table-level function accepts as its data. A lazy dataset is read whole:
        this serves the functions that do not run out of core.

    Returns
    -------
    pyarrow.Table
        The table (`fastperf.io.tables.as_table`), or what `read` makes of the file(s).

    Raises
    ------
    InputError
        See `read`; also a lazy dataset that does not fit the memory limit it was given.

    Notes
    -----
    The Arrow C stream protocol for in-memory data; files as `read` detects them. No formula.
    """
    if is_in_memory_table(data):
        return as_table(data)
    table = data if isinstance(data, Dataset) else read(data)
    if not isinstance(table, Dataset):
        return table
    limit = table.memory_limit
    if limit is not None and not table.fits_in_memory(limit):
        raise InputError(f"this function reads its table whole, and the dataset does not fit "
                         f"memory_limit={limit} bytes; describe, compare, speedup_test, sparc, "
                         "hpt, aggregate_score, plan_runs, anova, check and decide run out of "
                         "core (docs/scale.md)")
    return table.to_table()


def detect_format(path: PathArg, limits: DecompressionLimits = DEFAULT_LIMITS) -> str:
    """The format `read` would use for the file at `path`, found from its content.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    limits : DecompressionLimits
        How far a compressed file may expand (`read`'s ``max_decompressed``, ``max_expansion``).

    Returns
    -------
    str
        One of `FORMATS` (``parquet``, ``csv``, ``ipc``, ``pyperf``, ``pytest-benchmark``,
        ``google-benchmark``, ``hyperfine``, ``go``).

    Raises
    ------
    InputError
        A missing, empty or unrecognised file, or a compressed one expanding beyond `limits`.

    Notes
    -----
    Detection by content (magic bytes, JSON shape, Go result lines in the first `SNIFF_BYTES`),
    as docs/readers.md describes.
    """
    p = _checked_path(path)
    return _detect(p, limits)[0]


# --------------------------------------------------------------------------------------------
# arguments


def _format_name(format: str | None) -> str | None:
    if format is None:
        return None
    if not isinstance(format, str):
        raise InputError(f"format= must be a string or None, got {format!r}")
    name = format.strip().lower().replace("_", "-")
    name = FORMAT_ALIASES.get(name, name)
    if name not in FORMATS:
        raise InputError(
            f"unknown format {format!r}; valid formats: {', '.join(FORMATS)} "
            f"(aliases: {', '.join(f'{a}={b}' for a, b in FORMAT_ALIASES.items())}), "
            "or None to detect it from the content"
        )
    return name


def _checked_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(
            f"cannot read a {type(path).__name__}: pass a path (str or os.PathLike), a list of paths, "
            "a pyarrow.Table, a RecordBatchReader or an object with __arrow_c_stream__ "
            "(polars, pandas >= 2.2, duckdb)"
        )
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    return p


def _paths(source: Any) -> list[Path]:
    if isinstance(source, (list, tuple)):
        if not source:
            raise InputError("no files given: the list of paths is empty")
        return [_checked_path(p) for p in source]
    return [_checked_path(source)]


def _labels(paths: list[Path], variants: Any) -> tuple[list[str], list[bool]]:
    """Each file's label (the variant name it gets) and whether the user named it."""
    stems = [p.stem for p in paths]
    if variants is None:
        return stems, [False] * len(paths)
    if isinstance(variants, str):
        variants = [variants]
    if isinstance(variants, Mapping):
        labels, explicit = list(stems), [False] * len(paths)
        for key, name in variants.items():
            if not isinstance(key, (str, os.PathLike)):
                raise InputError(f"variants= keys must be paths, got {key!r}")
            matches = [i for i, p in enumerate(paths) if p == Path(key)]
            if not matches:
                raise InputError(
                    f"variants= names {os.fspath(key)!r}, which is not among the files read: "
                    f"{[str(p) for p in paths]}"
                )
            for i in matches:
                labels[i], explicit[i] = _variant_name(name), True
        return labels, explicit
    if not isinstance(variants, Sequence):
        raise InputError(f"variants= must be a sequence of names or a mapping path -> name, got {variants!r}")
    names = [_variant_name(v) for v in variants]
    if len(names) != len(paths):
        raise InputError(
            f"variants= has {len(names)} name(s) for {len(paths)} file(s); give one name per file, "
            "in the order of the files"
        )
    return names, [True] * len(paths)


def _variant_name(name: Any) -> str:
    if not isinstance(name, str):
        raise InputError(f"variant names must be strings, got {name!r}")
    return name


def _check_labels(
    paths: list[Path], labels: list[str], explicit: list[bool], label_users: dict[str, list[int]]
) -> None:
    """Two files may share a variant name only when the user gave it to both."""
    for label, users in label_users.items():
        if len(users) > 1 and not all(explicit[i] for i in users):
            files = ", ".join(str(paths[i]) for i in users)
            raise InputError(
                f"files {files} would all get variant {label!r} (from their file names); pass "
                "variants= with one name per file, or a mapping {path: name}"
            )


# --------------------------------------------------------------------------------------------
# sources


def _read_in_memory(source: Any, roles: dict[str, str], variants: Any) -> pa.Table:
    table = normalise_tabular(as_table(source), roles)
    if variants is None:
        return table
    if isinstance(variants, str):
        variants = [variants]
    if isinstance(variants, Mapping) or not isinstance(variants, Sequence) or len(variants) != 1:
        raise InputError(
            "for an in-memory table, variants= must be a one-element sequence (the variant of every "
            f"row), got {variants!r}"
        )
    if "variant" in table.column_names:
        raise InputError(
            f"the table already has a variant column ({roles['variant']!r}); drop variants= or that column"
        )
    name = _variant_name(variants[0])
    table = table.append_column("variant", pa.repeat(pa.scalar(name, pa.string()), table.num_rows))
    return order_columns(encode_labels(table))


class JsonLines(list):
    """The documents of a JSON-lines file (one per line), as a list."""


def _detect(path: Path, limits: DecompressionLimits) -> tuple[str, Any, bytes | None]:
    """``(format, payload, content)`` of a file or directory.

    ``payload``: the parsed JSON (a `JsonLines` list for JSON lines), the text of a text format,
    the directory of a tree format, else None. ``content``: the decompressed bytes of a
    compressed file (within `limits`), else None (read from the path). A JSON document longer
    than `SNIFF_BYTES` is parsed only when its start may be of a JSON format fastperf reads
    (`json_prefix_may_match`).
    """
    if path.is_dir():
        for fmt in formats_of_kind("tree"):
            if fmt.looks_like(path):
                return fmt.name, path, None
        raise InputError(f"{path}: is a directory, and not a results tree fastperf reads "
                         f"({tried('tree') or 'none known'}); pass the result files inside it")
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if not head:
        raise InputError(f"{path}: the file is empty")
    content = None
    compression = compression_of(head[:6])
    if compression is not None:
        content = file_bytes(path, limits)
        head = content[:SNIFF_BYTES]
        if not head:
            raise InputError(f"{path}: the {compression}-compressed file is empty")
    if head[:4] == b"PAR1":
        return "parquet", None, content
    if head[:6] == b"ARROW1" or head[:4] in (b"\xff\xff\xff\xff", b"FEA1"):
        return "ipc", None, content
    text = head.decode("utf-8-sig", errors="replace")  # a byte-order mark is no text
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        if len(head) == SNIFF_BYTES and not json_prefix_may_match(head):
            return _unknown_json_prefix(path, content, head, text)
        try:
            data = _json_payload(path, content, limits)
        except InputError:
            found = _text_format(text)  # JSON lines among other output (cargo-criterion)
            if found is None:
                raise
            return found, _whole_text(path, content, head, text), content
        return _json_format(path, data), data, content
    found = _text_format(text)
    if found is not None:
        return found, _whole_text(path, content, head, text), content
    return "csv", None, content


def _unknown_json_prefix(path: Path, content: bytes | None, head: bytes,
                         text: str) -> tuple[str, Any, bytes | None]:
    """A long file that starts like JSON but holds no key of a JSON format in its first
    `SNIFF_BYTES`: a text format's (JSON lines among other output), else refused unparsed."""
    found = _text_format(text)
    if found is None:
        raise InputError(
            f"{path}: starts like JSON, but its first {SNIFF_BYTES:,} bytes hold no key of a JSON "
            f"format fastperf reads, so it is not parsed; formats tried: {tried('json')}; pass "
            "format= if it is one of them")
    return found, _whole_text(path, content, head, text), content


def _text_format(text: str) -> str | None:
    """The first text format whose detector claims `text`, or None."""
    for fmt in formats_of_kind("text"):
        if fmt.looks_like(text):
            return fmt.name
    return None


def _whole_text(path: Path, content: bytes | None, head: bytes, text: str) -> str:
    return _text_payload(path, content) if len(head) == SNIFF_BYTES else text


def _json_payload(path: Path, content: bytes | None, limits: DecompressionLimits) -> Any:
    """The parsed JSON of a file; decompressed `content` may parse into at most
    ``max_decompressed`` bytes of objects (estimated before parsing)."""
    raw = content if content is not None else _raw(path)
    max_parsed = limits.max_decompressed if content is not None else None
    try:
        data, lines = json_documents(raw, path, max_parsed)
    except InputError as exc:
        if "not valid JSON" not in str(exc) and "JSON lines" not in str(exc):
            raise  # a number out of range: said as it is
        raise InputError(f"{exc}; the file starts like JSON but does not parse") from None
    return JsonLines(data) if lines else data


def _json_format(path: Path, data: Any) -> str:
    """The JSON format of a document (or of every document of a JSON-lines file)."""
    for fmt in formats_of_kind("json"):
        if fmt.looks_like(data):
            return fmt.name
    if isinstance(data, JsonLines):
        for fmt in formats_of_kind("json"):
            if data and all(fmt.looks_like(document) for document in data):
                return fmt.name
        shape = f"JSON lines ({len(data)} documents) of no one format"
    elif isinstance(data, list):
        shape = f"a JSON array of {len(data)} item(s)"
    elif isinstance(data, dict):
        shape = f"a JSON object with top-level keys {sorted(map(str, data))[:12]}"
    else:
        shape = f"a JSON {type(data).__name__}"
    raise InputError(f"{path}: {shape}: not a format fastperf reads; formats tried: "
                     f"{tried('json')}; pass format= if it is one of them")


def _raw(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _text_payload(path: Path, content: bytes | None) -> str:
    raw = content if content is not None else _raw(path)
    return raw.decode("utf-8-sig", errors="replace")  # a byte-order mark is no text


def _file_size(path: Path) -> int:
    """Bytes of a file (0 for a directory or a file that cannot be stat'ed: read says why)."""
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def _read_table_file(path: Path, fmt: str, content: bytes | None, progress) -> pa.Table:
    """A Parquet, CSV or IPC file as stored (a Parquet file with its bar over the rows)."""
    if fmt == "parquet":
        return read_parquet(path, content, progress)
    return {"csv": read_csv, "ipc": read_ipc}[fmt](path, content)


def _read_file(path: Path, fmt: str | None, roles: dict[str, str], metric: str,
               summaries: bool | None = None, progress=False,
               limits: DecompressionLimits = DEFAULT_LIMITS) -> tuple[pa.Table, str]:
    """Read one file (or results tree); return the table and where its variant comes from.

    The second item is ``"column"`` (the file's own variant column), ``"note"`` (Go ``note:``
    values in a ``variant`` column, null where a line has none) or ``"label"`` (no variant).
    """
    detected = fmt is None
    payload = content = None
    if fmt is None:  # detected
        fmt, payload, content = _detect(path, limits)
    elif not path.is_dir():
        if path.stat().st_size == 0:
            raise InputError(f"{path}: the file is empty")
        with open(path, "rb") as fh:
            if compression_of(fh.read(6)) is not None:
                content = file_bytes(path, limits)
    if fmt in TABULAR:
        if summaries:
            table = mark_summary_table(_read_table_file(path, fmt, content, progress),
                                       where=path)
            return table, ("column" if "variant" in table.column_names else "label")
        return _read_tabular(path, fmt, content, roles, fallback=detected and fmt == "csv",
                             progress=progress)
    entry = tool_format(fmt)
    if entry.kind == "tree" and not path.is_dir():
        raise InputError(f"{path}: format={fmt!r} reads a results directory, not a file")
    if entry.kind != "tree" and path.is_dir():
        raise InputError(f"{path}: is a directory; format={fmt!r} reads a file")
    if payload is None:
        payload = (_json_payload(path, content, limits) if entry.kind == "json"
                   else _text_payload(path, content))
    table = _read_tool(entry, path, payload, {"metric": metric})
    if "variant" not in table.column_names:
        return table, "label"
    return table, ("note" if fmt == "go" else "column")


def _read_tabular(path: Path, fmt: str, content: bytes | None, roles: dict[str, str], *,
                  fallback: bool, progress=False) -> tuple[pa.Table, str]:
    """A Parquet/CSV/IPC file; `fallback`: CSV only because nothing else matched."""
    try:
        raw = _read_table_file(path, fmt, content, progress)
    except InputError as exc:
        if fallback:
            raise _unrecognised(path, exc) from None
        raise
    try:
        table = normalise_tabular(raw, roles, where=str(path))
    except InputError as exc:
        if fallback and not {roles["benchmark"], roles["value"]} <= set(raw.column_names):
            raise _unrecognised(path, exc) from None
        raise
    return table, ("column" if "variant" in table.column_names else "label")


def _read_tool(entry, path: Path, payload: Any, options: dict) -> pa.Table:
    """Run a tool reader; JSON lines of single documents are read one by one and stacked."""
    try:
        if isinstance(payload, JsonLines) and not entry.looks_like(payload):
            parts = [entry.reader(path, document, options) for document in payload]
            return pa.concat_tables(parts, promote_options="default")
        return entry.reader(path, payload, options)
    except InputError:
        raise
    except (pa.ArrowException, TypeError, ValueError, KeyError, AttributeError, IndexError,
            OverflowError, RecursionError) as exc:
        # a file of the right overall shape with a wrongly typed entry inside
        raise InputError(f"{path}: malformed {entry.name} file ({type(exc).__name__}: "
                         f"{shown(str(exc), 160)})") from None


def _unrecognised(path: Path, exc: InputError) -> InputError:
    reason = str(exc).removeprefix(f"{path}: ")
    return InputError(f"{path}: not a recognised file; tried {_tried_all()}. As CSV: {reason}")


def _attach_variant(table: pa.Table, variant_from: str, label: str, *,
                    prefix: bool) -> tuple[pa.Table, bool]:
    """Add the variant column; return the table and whether the file's label was used.

    ``"label"``: every row gets `label`. ``"note"``: a row gets its note (when `prefix` is
    false: one file, no ``variants=``) or ``"{label}/{note}"``; rows without a note get `label`.
    """
    if variant_from == "label":  # built encoded (`LABEL_TYPE`): one string, not one per row
        indices = pa.array(np.zeros(table.num_rows, dtype=np.int32))
        column = pa.DictionaryArray.from_arrays(indices, pa.array([label], pa.string()))
        return table.append_column("variant", column), True
    notes = table.column("variant")
    has_missing = notes.null_count > 0
    if prefix:
        notes = pc.binary_join_element_wise(label, notes, "/")
    if has_missing:
        notes = pc.fill_null(notes, label)
    index = table.column_names.index("variant")
    return table.set_column(index, "variant", notes), prefix or has_missing


def example_table(names: Sequence[str] = ("old.txt", "new.txt")) -> pa.Table:
    """The example files shipped with fastperf (``fastperf.examples``) read as one table; by
    default Go's ``old.txt`` and ``new.txt`` (examples/README.md), used by the demo and warmup.
    """
    with resources.as_file(resources.files("fastperf.examples")) as folder:
        return read([str(folder / name) for name in names])
