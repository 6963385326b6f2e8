"""Readers: measurement tables from Arrow objects, table files and benchmark-tool result files.

`read` is the one entry point. It accepts an in-memory Arrow object, a path, or several paths,
finds each file's format by its content (or takes ``format=``), reads it with the module for
that format, names the variant of each file, and returns one long measurement table with the
canonical columns first: ``benchmark, variant, run, unit, value``, then any extra columns.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Union

import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.tables import as_table, is_in_memory_table
from fastperf.io.common import (
    config_columns, encode_labels, load_json, normalise_tabular, order_columns, with_config,
)
from fastperf.io.go import looks_like_go, read_go
from fastperf.io.google_benchmark import METRICS, looks_like_google_benchmark, read_google_benchmark
from fastperf.io.hyperfine import looks_like_hyperfine, read_hyperfine
from fastperf.io.pyperf import looks_like_pyperf, read_pyperf
from fastperf.io.pytest_benchmark import looks_like_pytest_benchmark, read_pytest_benchmark
from fastperf.io.tabular import read_csv, read_ipc, read_parquet

__all__ = ["read", "load_table", "detect_format", "example_table", "FORMATS", "FORMAT_ALIASES"]

#: Names accepted by ``format=``.
FORMATS = ("parquet", "csv", "ipc", "pyperf", "pytest-benchmark", "google-benchmark", "hyperfine", "go")
#: Other spellings accepted by ``format=`` (case and ``_`` versus ``-`` are ignored as well).
FORMAT_ALIASES = {"feather": "ipc", "arrow": "ipc"}
_TABULAR = ("parquet", "csv", "ipc")
#: JSON tool formats, in the order detection tries them.
_JSON_KINDS = (
    ("pyperf", looks_like_pyperf),
    ("pytest-benchmark", looks_like_pytest_benchmark),
    ("google-benchmark", looks_like_google_benchmark),
    ("hyperfine", looks_like_hyperfine),
)
_TRIED = (
    "Parquet, Arrow IPC (file/stream/Feather), JSON (pyperf, pytest-benchmark, google-benchmark, "
    "hyperfine), Go benchmark text, CSV with a header"
)
#: Bytes read from the start of a file to detect its format (Go result lines must start here).
SNIFF_BYTES = 1 << 20

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
) -> pa.Table:
    """Read measurements into one long measurement table.

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

    Returns
    -------
    pyarrow.Table
        One row per measurement: ``benchmark``, ``variant`` (``dictionary<int32, string>``),
        ``run`` (int64), ``unit`` (``dictionary<int32, string>``), ``value`` (float64, nulls
        kept), each where the source has it, in this
        order, then the source's extra columns (e.g. ``iterations`` for Go and Google Benchmark)
        and the configuration columns of tool files (Go ``key: value`` lines, Google Benchmark
        ``context``, pyperf metadata differing between benchmarks): strings, null where a row
        has no value, declared in the schema metadata (`fastperf.io.common.config_columns`);
        several files declare the ordered union of their lists.

    Raises
    ------
    InputError
        Missing or non-numeric columns, unknown format names, unreadable, empty, missing or
        unrecognised files, ambiguous variant names; the message names the file or column.

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
    if is_in_memory_table(source):
        return _read_in_memory(source, roles, variants)
    paths = _paths(source)
    labels, explicit = _labels(paths, variants)
    single = len(paths) == 1 and variants is None
    tables: list[pa.Table] = []
    label_users: dict[str, list[int]] = {}
    for i, path in enumerate(paths):
        table, variant_from = _read_file(path, fmt, roles, metric)
        if variant_from == "column":
            if explicit[i]:
                raise InputError(
                    f"{path}: the file has its own variant column, so variants= cannot name it; "
                    "leave this file out of variants= (use a mapping) or drop that column"
                )
        else:
            table, used_label = _attach_variant(table, variant_from, labels[i], prefix=not single)
            if used_label:
                label_users.setdefault(labels[i], []).append(i)
        tables.append(encode_labels(table))
    _check_labels(paths, labels, explicit, label_users)
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
    return with_config(order_columns(combined), config)


def load_table(data: Any) -> pa.Table:
    """An in-memory Arrow object as a table, or a path (or list of paths) read by `read`.

    Parameters
    ----------
    data : Arrow object, path, or list/tuple of paths
        What every table-level function accepts as its data.

    Returns
    -------
    pyarrow.Table
        The table (`fastperf.io.tables.as_table`), or what `read` makes of the file(s).

    Raises
    ------
    InputError
        See `read`.

    Notes
    -----
    The Arrow C stream protocol for in-memory data; files as `read` detects them. No formula.
    """
    if is_in_memory_table(data):
        return as_table(data)
    return read(data)


def detect_format(path: PathArg) -> str:
    """The format `read` would use for the file at `path`, found from its content.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
        One of `FORMATS` (``parquet``, ``csv``, ``ipc``, ``pyperf``, ``pytest-benchmark``,
        ``google-benchmark``, ``hyperfine``, ``go``).

    Raises
    ------
    InputError
        A missing, empty or unrecognised file.

    Notes
    -----
    Detection by content (magic bytes, JSON shape, Go result lines in the first `SNIFF_BYTES`),
    as docs/readers.md describes.
    """
    p = _checked_path(path)
    return _detect(p)[0]


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
    if p.is_dir():
        raise InputError(f"{p}: is a directory, not a file; pass the result files inside it")
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


def _detect(path: Path) -> tuple[str, Any]:
    """``(format, payload)``: the parsed JSON for JSON formats, the text for Go, else None."""
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if not head:
        raise InputError(f"{path}: the file is empty")
    if head[:4] == b"PAR1":
        return "parquet", None
    if head[:6] == b"ARROW1" or head[:4] in (b"\xff\xff\xff\xff", b"FEA1"):
        return "ipc", None
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
        try:
            data = load_json(path)
        except InputError as exc:
            if "not valid JSON" not in str(exc):  # a number out of range: said as it is
                raise
            raise InputError(f"{exc}; the file starts like JSON but does not parse") from None
        for kind, looks_like in _JSON_KINDS:
            if looks_like(data):
                return kind, data
        keys = sorted(data)[:12] if isinstance(data, dict) else []
        raise InputError(
            f"{path}: a JSON file, but not one of pyperf, pytest-benchmark, google-benchmark or "
            f"hyperfine (top-level keys: {keys}); pass format= if it is one of them"
        )
    text = head.decode("utf-8", errors="replace")
    if looks_like_go(text):
        if len(head) == SNIFF_BYTES:
            text = _read_text(path)
        return "go", text
    return "csv", None


def _read_text(path: Path) -> str:
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace")


def _read_file(path: Path, fmt: str | None, roles: dict[str, str], metric: str) -> tuple[pa.Table,
               str]:
    """Read one file; return the table and where its variant comes from.

    The second item is ``"column"`` (the file's own variant column), ``"note"`` (Go ``note:``
    values in a ``variant`` column, null where a line has none) or ``"label"`` (no variant).
    """
    detected = fmt is None
    payload = None
    if detected:
        fmt, payload = _detect(path)
    elif path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")
    if fmt in _TABULAR:
        fallback = detected and fmt == "csv"  # nothing else matched: say what was tried
        try:
            raw = {"parquet": read_parquet, "csv": read_csv, "ipc": read_ipc}[fmt](path)
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
    if fmt == "go":
        table = read_go(path, payload if payload is not None else _read_text(path))
        return table, ("note" if "variant" in table.column_names else "label")
    data = payload if payload is not None else load_json(path)
    reader = {
        "pyperf": read_pyperf,
        "pytest-benchmark": read_pytest_benchmark,
        "google-benchmark": lambda p, d: read_google_benchmark(p, d, metric=metric),
        "hyperfine": read_hyperfine,
    }[fmt]
    try:
        return reader(path, data), "label"
    except InputError:
        raise
    except (pa.ArrowException, TypeError, ValueError, KeyError, AttributeError, IndexError,
            OverflowError, RecursionError) as exc:
        # a file of the right overall shape with a wrongly typed entry inside
        raise InputError(f"{path}: malformed {fmt} file ({type(exc).__name__}: "
                         f"{shown(str(exc), 160)})") from None


def _unrecognised(path: Path, exc: InputError) -> InputError:
    reason = str(exc).removeprefix(f"{path}: ")
    return InputError(f"{path}: not a recognised file; tried {_TRIED}. As CSV: {reason}")


def _attach_variant(table: pa.Table, variant_from: str, label: str, *,
                    prefix: bool) -> tuple[pa.Table, bool]:
    """Add the variant column; return the table and whether the file's label was used.

    ``"label"``: every row gets `label`. ``"note"``: a row gets its note (when `prefix` is
    false: one file, no ``variants=``) or ``"{label}/{note}"``; rows without a note get `label`.
    """
    if variant_from == "label":
        column = pa.repeat(pa.scalar(label, pa.string()), table.num_rows)
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
    """The example files shipped with fastperf (``fastperf.examples``) read as one table.

    The default: Go's encoding benchmarks, ``old.txt`` and ``new.txt`` (see examples/README.md),
    the data of ``fastperf demo``, the docs and ``fastperf warmup``.
    """
    from importlib import resources

    with resources.as_file(resources.files("fastperf.examples")) as folder:
        return read([str(folder / name) for name in names])
