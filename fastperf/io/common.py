"""Pieces every reader shares: canonical column names, column building, type normalisation."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.io.checked import float_column, int_column, load_json_bytes
from fastperf.io.tables import as_float64, require_columns

#: Canonical column names, in output order; extra columns follow them.
KEY_COLUMNS = ("benchmark", "variant", "run", "unit", "value")
#: Schema metadata key whose value is a JSON list of the table's configuration column names.
CONFIG_METADATA_KEY = b"fastperf:config"
#: Columns the tool readers produce themselves, the level columns (docs/data-model.md) among
#: them; a configuration key with one of these names becomes ``config_<key>`` (see
#: `config_names`), so a ``round:`` line is never taken for the design's ``round``.
READER_COLUMNS = KEY_COLUMNS + ("iterations", "build", "process", "iteration", "round")


def config_columns(table: pa.Table) -> list[str]:
    """The configuration columns `table` declares (`CONFIG_METADATA_KEY`) and has.

    Configuration columns say under which configuration a row was measured (Go's ``pkg:``,
    ``goos:``, ``cpu:`` lines, Google Benchmark's ``context``, pyperf metadata that differs
    between benchmarks): two rows are the same benchmark only when these agree as well.

    Parameters
    ----------
    table : pyarrow.Table
        A measurement table.

    Returns
    -------
    list of str
        The declared names that are columns of `table`, in the declared order; empty when the
        schema has no such metadata (or it is not a JSON list of strings).

    Notes
    -----
    fastperf's data model (docs/readers.md, "Configuration columns"): no formula.
    """
    metadata = table.schema.metadata or {}
    raw = metadata.get(CONFIG_METADATA_KEY)
    if raw is None:
        return []
    try:
        names = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return []
    if not isinstance(names, list):
        return []
    present = set(table.column_names)
    out: list[str] = []
    for name in names:
        if isinstance(name, str) and name in present and name not in out:
            out.append(name)
    return out


def with_config(table: pa.Table, names: Sequence[str]) -> pa.Table:
    """`table` with its configuration columns declared as `names` in the schema metadata.

    Parameters
    ----------
    table : pyarrow.Table
        A measurement table.
    names : sequence of str
        The configuration column names, in order (duplicates are dropped; names that are not
        columns of `table` are kept in the metadata and ignored by `config_columns`).

    Returns
    -------
    pyarrow.Table
        The same columns; the schema metadata is the old one (other keys kept) with
        `CONFIG_METADATA_KEY` set to the JSON list of `names`.

    Notes
    -----
    Arrow schema metadata (byte keys and values): no formula.
    """
    unique = list(dict.fromkeys(str(n) for n in names))
    metadata = dict(table.schema.metadata or {})
    metadata[CONFIG_METADATA_KEY] = json.dumps(unique).encode()
    return table.replace_schema_metadata(metadata)


def config_names(keys: Sequence[str], taken: Sequence[str] = READER_COLUMNS) -> dict[str, str]:
    """The column name of each configuration key: the key, or ``config_<key>`` on a clash.

    Parameters
    ----------
    keys : sequence of str
        Configuration keys, in column order.
    taken : sequence of str
        Names the reader already uses (default `READER_COLUMNS`).

    Returns
    -------
    dict of str -> str
        Key -> column name; ``config_`` is prefixed (again, if need be) until the name clashes
        neither with `taken` nor with an earlier key's column.

    Notes
    -----
    No formula.
    """
    used = set(taken)
    out: dict[str, str] = {}
    for key in keys:
        name = key
        while name in used:
            name = f"config_{name}"
        used.add(name)
        out[key] = name
    return out


def config_text(value: Any) -> str | None:
    """A configuration value as text: strings as they are, ``true``/``false``, numbers by
    ``str``, lists joined with ``,``; None for anything else (null, objects).

    Parameters
    ----------
    value : object
        A value parsed from JSON.

    Returns
    -------
    str or None
        Its text, or None when it is no scalar or list of scalars.

    Notes
    -----
    No formula.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        if any(isinstance(v, (list, dict)) for v in value):
            return None  # only a flat list (no recursion into nested ones)
        parts = [config_text(v) for v in value]
        if any(p is None for p in parts):
            return None
        return ",".join(parts)  # type: ignore[arg-type]
    return None


def add_config(table: pa.Table, columns: dict[str, pa.Array]) -> pa.Table:
    """Append configuration columns (string) and declare them with `with_config`.

    Parameters
    ----------
    table : pyarrow.Table
        A tool reader's table.
    columns : dict of str -> pyarrow.Array
        Configuration key -> its string column, in order; a key clashing with a column of
        `table` or with `READER_COLUMNS` is named ``config_<key>`` (`config_names`).

    Returns
    -------
    pyarrow.Table
        `table` with the columns appended and declared (an empty declaration when there are none).

    Notes
    -----
    No formula.
    """
    names = config_names(list(columns), tuple(READER_COLUMNS) + tuple(table.column_names))
    for key, array in columns.items():
        table = table.append_column(names[key], array.cast(pa.string()))
    return with_config(table, [names[k] for k in columns])


def order_columns(table: pa.Table) -> pa.Table:
    """Put the canonical columns first (benchmark, variant, run, unit, value), extras after.

    Parameters
    ----------
    table : pyarrow.Table
        A measurement table.

    Returns
    -------
    pyarrow.Table
        The same columns, `KEY_COLUMNS` first in that order (those present), the others after in
        their order; `table` itself when already so.

    Notes
    -----
    The column order of fastperf's data model (docs/data-model.md): no formula.
    """
    names = table.column_names
    keys = [c for c in KEY_COLUMNS if c in names]
    extras = [c for c in names if c not in KEY_COLUMNS]
    if names == keys + extras:
        return table
    return table.select(keys + extras)


def tool_table(
    benchmark: Sequence[str],
    value: Sequence[float | None],
    *,
    run: Sequence[int],
    unit: Sequence[str] | str,
    extra: dict[str, pa.Array] | None = None,
    variant: Sequence[str | None] | pa.Array | None = None,
    where: str | Path = "",
    value_field: str = "value",
    run_field: str = "run",
    kind: str = "",
) -> pa.Table:
    """Build a measurement table from the per-row Python lists a tool-file reader collects.

    Parameters
    ----------
    benchmark : sequence of str
        The benchmark name of each row.
    value : sequence of float or None
        The measurement of each row (None: missing).
    run : sequence of int
        The run number of each row.
    unit : sequence of str or str
        The unit of each row, or one unit for all.
    extra : dict of str -> pyarrow.Array, optional
        Further columns, appended in order.
    variant : sequence of str or None, or pyarrow.Array, optional
        The variant of each row, when the file names them.
    where : str or pathlib.Path
        The file, for messages.
    value_field, run_field : str
        The file's names of the value and run fields, for messages.
    kind : str
        The file's format, for messages.

    Returns
    -------
    pyarrow.Table
        ``benchmark``, (``variant``), ``run``, ``unit``, ``value`` and the extra columns.

    Raises
    ------
    InputError
        A value that is no number or beyond the float64 range, or a run number that is no
        whole number in the int64 range (`fastperf.io.checked.float_column`, `int_column`),
        naming the file, the benchmark and the field.

    Notes
    -----
    The tool readers' common output (docs/readers.md): no formula.
    """
    n = len(benchmark)
    where = str(where)
    columns: dict[str, pa.Array] = {"benchmark": pa.array(benchmark, pa.string())}
    if isinstance(variant, pa.Array):
        columns["variant"] = variant.cast(pa.string())
    elif variant is not None:
        columns["variant"] = pa.array(variant, pa.string())
    columns["run"] = int_column(run, where=where, names=benchmark, field=run_field,
                                kind=kind)
    if isinstance(unit, str):
        columns["unit"] = pa.array([unit] * n, pa.string())
    else:
        columns["unit"] = pa.array(unit, pa.string())
    columns["value"] = float_column(value, where=where, names=benchmark, field=value_field,
                                    kind=kind)
    for name, arr in (extra or {}).items():
        columns[name] = arr
    return pa.table(columns)


def load_json(path: Path) -> Any:
    """Parse a JSON file, turning decoding errors into an `InputError` naming the file.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    object
        The parsed document.

    Raises
    ------
    InputError
        Text that is not UTF-8 JSON, nesting too deep to parse, or numbers out of range
        (`fastperf.io.checked.load_json_bytes`).

    Notes
    -----
    RFC 8259 JSON, parsed by the standard library.
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    return load_json_bytes(raw, path)


#: Type of the label columns (benchmark, variant, unit) in every table `read` returns.
LABEL_TYPE = pa.dictionary(pa.int32(), pa.string())
LABEL_COLUMNS = ("benchmark", "variant", "unit")


def as_label_column(table: pa.Table, name: str) -> pa.Table:
    """Make column `name` a ``dictionary<int32, string>`` column.

    An existing dictionary column keeps its dictionary (only the index and value types are
    cast); other columns (strings, numbers, ...) are cast to string and dictionary-encoded once
    here, so that grouping them later costs no string hashing.

    Parameters
    ----------
    table : pyarrow.Table
        The table.
    name : str
        A label column (benchmark, variant, unit).

    Returns
    -------
    pyarrow.Table
        The table with that column as `LABEL_TYPE`.

    Raises
    ------
    InputError
        A column that cannot be cast to text.

    Notes
    -----
    Arrow dictionary encoding: no formula.
    """
    col = table.column(name)
    if col.type == LABEL_TYPE:
        return table
    try:
        if pa.types.is_dictionary(col.type):
            col = col.cast(LABEL_TYPE)
        else:
            col = pc.dictionary_encode(pc.cast(col, pa.string()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise InputError(
            f"column {name!r} has type {col.type}, which cannot be read as text ({exc})"
        ) from None
    return table.set_column(table.column_names.index(name), name, col)


def encode_labels(table: pa.Table) -> pa.Table:
    """All label columns present in `table` as ``dictionary<int32, string>`` (see `LABEL_TYPE`).

    Parameters
    ----------
    table : pyarrow.Table
        The table.

    Returns
    -------
    pyarrow.Table
        The table with each of `LABEL_COLUMNS` it has dictionary-encoded (`as_label_column`).

    Notes
    -----
    Arrow dictionary encoding: no formula.
    """
    for name in LABEL_COLUMNS:
        if name in table.column_names:
            table = as_label_column(table, name)
    return table


def as_value_column(table: pa.Table, name: str = "value", *,
                    source_name: str | None = None) -> pa.Table:
    """Cast the value column to float64 (see `fastperf.io.tables.as_float64` for the types accepted).

    Parameters
    ----------
    table : pyarrow.Table
        The table.
    name : str
        The value column.
    source_name : str, optional
        Its name in the user's data, for the message (default `name`).

    Returns
    -------
    pyarrow.Table
        The table with that column as float64 (nulls kept).

    Raises
    ------
    InputError
        A column that is not numeric.

    Notes
    -----
    Arrow's ``cast``: no formula.
    """
    col = as_float64(table.column(name), source_name or name)
    return table.set_column(table.column_names.index(name), name, col)


def as_run_column(table: pa.Table, name: str = "run", *,
                  source_name: str | None = None) -> pa.Table:
    """Cast the run column to int64; whole-number floats convert, anything else is an error.

    Parameters
    ----------
    table : pyarrow.Table
        The table.
    name : str
        The run column.
    source_name : str, optional
        Its name in the user's data, for the messages (default `name`).

    Returns
    -------
    pyarrow.Table
        The table with that column as int64 (nulls kept).

    Raises
    ------
    InputError
        A column that is not numeric, or numbers that are not whole.

    Notes
    -----
    Arrow's safe ``cast`` (it fails on fractions and overflow): no formula.
    """
    col = table.column(name)
    t = col.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    shown = source_name or name
    if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t)):
        raise InputError(
            f"run column {shown!r} has type {col.type}, not an integer; pass run= the column "
            "holding run numbers, or leave it out"
        )
    if col.type != pa.int64():
        try:
            col = pc.cast(col, pa.int64())  # safe cast: fails on fractions and overflow
        except pa.ArrowInvalid:
            raise InputError(
                f"run column {shown!r} holds values that are not whole numbers; run numbers must be integers"
            ) from None
        table = table.set_column(table.column_names.index(name), name, col)
    return table


ROLE_HINTS = {
    "benchmark": "pass benchmark= the column holding benchmark names",
    "value": "pass value= the column holding the measurements",
    "variant": "pass variant= an existing column, or leave it at its default",
    "run": "pass run= an existing column, or leave it at its default",
    "unit": "pass unit= an existing column, or leave it at its default",
}


def normalise_tabular(
    table: pa.Table,
    roles: dict[str, str],
    *,
    where: str = "",
) -> pa.Table:
    """Rename the role columns of a user table to their canonical names and fix their types.

    Parameters
    ----------
    table : pyarrow.Table
        The table as read (in memory, Parquet, CSV or IPC).
    roles : dict
        Canonical role name -> source column name, for benchmark, variant, value, run, unit.
        ``benchmark`` and ``value`` must exist; the other roles are used when present, and
        must exist when named explicitly (a name other than the canonical one).
    where : str
        Prefix for error messages (the file name), empty for in-memory tables.

    Returns
    -------
    pyarrow.Table
        Canonical names and types, canonical columns first, extras kept in their order. Schema
        metadata is dropped, except the configuration declaration (`CONFIG_METADATA_KEY`),
        kept for the declared columns that are not role columns.

    Raises
    ------
    InputError
        Duplicate column names, a missing benchmark or value column, a role column named
        explicitly but absent, one column named for two roles, or a rename that would collide
        with an existing canonical column.

    Notes
    -----
    fastperf's data model (docs/data-model.md): label columns dictionary-encoded, value as
    float64, run as int64.
    """
    prefix = f"{where}: " if where else ""
    present = table.column_names
    if len(set(present)) != len(present):
        dupes = sorted({c for c in present if present.count(c) > 1})
        raise InputError(f"{prefix}the table has duplicate column names {dupes}; rename them first")
    for role in ("benchmark", "value"):
        try:
            require_columns(table, [roles[role]], hint=ROLE_HINTS[role])
        except InputError as exc:
            raise InputError(prefix + str(exc)) from None
    used: dict[str, str] = {}
    for role in ("benchmark", "variant", "run", "unit", "value"):
        src = roles[role]
        if src not in present:
            if src != role:  # named explicitly but absent: a typo, not an optional column
                try:
                    require_columns(table, [src], hint=ROLE_HINTS[role])
                except InputError as exc:
                    raise InputError(prefix + str(exc)) from None
            continue
        if src in used.values():
            other = next(r for r, s in used.items() if s == src)
            raise InputError(f"{prefix}column {src!r} is named for both {other}= and {role}=")
        used[role] = src
    # a column already carrying a canonical name that is not the one mapped to that role would
    # silently shadow or be shadowed after renaming
    for role, src in used.items():
        if src != role and role in present and role not in used.values():
            raise InputError(
                f"{prefix}{role}={src!r} would rename {src!r} to {role!r}, but the table already has "
                f"a column {role!r}; rename or drop one of them"
            )
    rename = {src: role for role, src in used.items()}
    declared = [rename.get(c, c) for c in config_columns(table)]
    if any(src != role for src, role in rename.items()):
        table = table.rename_columns([rename.get(c, c) for c in present])
    table = encode_labels(table)
    table = as_value_column(table, "value", source_name=used["value"])
    if "run" in used:
        table = as_run_column(table, "run", source_name=used["run"])
    if table.schema.metadata:
        table = table.replace_schema_metadata(None)
    if declared:  # fastperf's own declaration survives (a table read back from Parquet/IPC)
        table = with_config(table, [c for c in declared if c not in KEY_COLUMNS])
    return order_columns(table)
