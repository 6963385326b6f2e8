"""Table files: Parquet, CSV (with a header row) and Arrow IPC (file, stream, Feather).

These readers return the file's table as stored; `fastperf.io.common.normalise_tabular`
then maps the role columns to their canonical names. All work is columnar (Arrow C++), so a
10-million-row Parquet file costs one read plus a few casts.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from fastperf.errors import InputError
from fastperf.io.common import LABEL_COLUMNS
from fastperf.progress import READ_STEPS_PER_BYTE, ProgressBar, wants_progress

__all__ = ["read_parquet", "read_csv", "read_ipc", "sniff_delimiter", "short_reason"]

_DELIMITERS = (",", "\t", ";", "|")


def short_reason(exc: BaseException, limit: int = 160) -> str:
    """First line of an Arrow error, printable and cut to `limit` characters (it may quote bytes).

    Parameters
    ----------
    exc : BaseException
        The error.
    limit : int
        Most characters kept.

    Returns
    -------
    str
        The first line, unprintable characters as "?", cut with "..." beyond `limit`.

    Notes
    -----
    A message helper: no formula.
    """
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


def _named(table: pa.Table, path: Path, what: str) -> pa.Table:
    """`table` once its column names are known to decode (Arrow reads them as raw bytes)."""
    try:
        table.column_names  # noqa: B018 - reading the names decodes them
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: cannot read as {what}: a column name is not UTF-8 text "
                         f"(undecodable byte at offset {exc.start}); is it a binary file?"
                         ) from None
    return table


def read_parquet(path: Path, content: bytes | None = None, progress: bool | None = False
                 ) -> pa.Table:
    """Read a Parquet file.

    Refuses (InputError) a file that Arrow cannot read as Parquet.

    Format: Apache Parquet format, read by ``pyarrow.parquet.ParquetFile``: the same table as
    ``pyarrow.parquet.read_table``, without its dataset layer (importing ``pyarrow.dataset``
    took about 17 ms of a process's first read; a file needs none of it).
    """
    try:
        source = path if content is None else pa.BufferReader(content)
        if content is None and wants_progress(progress, READ_STEPS_PER_BYTE * path.stat().st_size):
            return _named(_batches_with_bar(path, list(LABEL_COLUMNS)), path, "Parquet")
        file = pq.ParquetFile(source)
        # read_dictionary names leaf columns that exist (read_table skips the others); it
        # applies to text (byte-array) columns only, other types read as stored
        leaves = {file.schema.column(i).path for i in range(len(file.schema))}
        labels = [name for name in LABEL_COLUMNS if name in leaves]
        if content is not None:
            source.seek(0)
        file = pq.ParquetFile(source, metadata=file.metadata, read_dictionary=labels,
                              pre_buffer=True)
        return _named(file.read(), path, "Parquet")
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: cannot read as Parquet ({short_reason(exc)})") from None


def _batches_with_bar(path: Path, dictionary_columns: list[str]) -> pa.Table:
    """The Parquet file read by Arrow's dataset scanner, batch by batch in file order, a bar
    counting its rows: the same table as ``pq.read_table`` (which runs the same scanner, and
    whose chunks are the row groups too), at the same speed."""
    import pyarrow.dataset as ds  # deferred: it imports pandas, ~0.3 s; the bar only

    options = ds.ParquetReadOptions(dictionary_columns=dictionary_columns)
    dataset = ds.dataset(str(path), format=ds.ParquetFileFormat(read_options=options))
    rows = pq.ParquetFile(path).metadata.num_rows
    bar = ProgressBar(f"read {path.name}", rows, unit="rows")
    batches, done = [], 0
    try:
        for batch in dataset.to_batches():
            batches.append(batch)
            done += batch.num_rows
            bar.update(done)
    finally:
        bar.close()
    return pa.Table.from_batches(batches, schema=dataset.schema)


def sniff_delimiter(header: bytes) -> str:
    """The delimiter of a CSV header line: the most frequent of , TAB ; | (comma on ties or none).

    Parameters
    ----------
    header : bytes
        The start of the file (its first line is used).

    Returns
    -------
    str
        One of ``,`` ``\t`` ``;`` ``|``.

    Notes
    -----
    A heuristic on the header line (RFC 4180 CSV uses commas): no formula.
    """
    line = header.split(b"\n", 1)[0]
    counts = {d: line.count(d.encode()) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] > counts[","] else ","


def read_csv(path: Path, content: bytes | None = None) -> pa.Table:
    """Read a CSV file whose first line is a header; the delimiter is taken from that line.

    Refuses (InputError) a file that Arrow cannot parse as CSV.

    Format: RFC 4180 CSV with a header row, delimiter by `sniff_delimiter`, parsed by
    ``pyarrow.csv.read_csv``.
    """
    if content is None:
        with open(path, "rb") as fh:
            head = fh.read(64 * 1024)
    else:
        head = content[:64 * 1024]
    delimiter = sniff_delimiter(head.lstrip(b"\xef\xbb\xbf"))
    try:
        # never decompressed by the file name: `fastperf.io.content` did it by magic bytes
        source = (pa.input_stream(str(path), compression=None) if content is None
                  else pa.BufferReader(content))
        table = pacsv.read_csv(source, parse_options=pacsv.ParseOptions(delimiter=delimiter))
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: cannot read as CSV ({short_reason(exc)})") from None
    return _named(table, path, "CSV")


def read_ipc(path: Path, content: bytes | None = None) -> pa.Table:
    """Read an Arrow IPC file (Feather v2), an Arrow IPC stream, or a legacy Feather v1 file.

    Refuses (InputError) a file that is none of the three.

    Format: The Arrow IPC format (columnar format specification: file magic ``ARROW1``, or a
    stream), and Feather v1 (magic ``FEA1``).
    """
    if content is None:
        with open(path, "rb") as fh:
            magic = fh.read(6)
    else:
        magic = content[:6]
    try:
        if magic[:4] == b"FEA1":
            return _named(feather.read_table(path if content is None else pa.BufferReader(content)),
                          path, "Feather")
        # a memory map (not closed here: the table's buffers keep it alive) avoids a copy
        source = pa.memory_map(str(path)) if content is None else pa.BufferReader(content)
        if magic == b"ARROW1":
            return _named(ipc.open_file(source).read_all(), path, "Arrow IPC")
        return _named(ipc.open_stream(source).read_all(), path, "Arrow IPC")
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: cannot read as Arrow IPC file or stream ({short_reason(exc)})") from None
