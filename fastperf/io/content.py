"""What a file holds before its format is known: decompressed bytes, JSON documents.

Compression is recognised by magic bytes, never by the file name (pyperf writes ``.json.gz``
itself; a renamed file reads the same): gzip, bzip2, xz and Zstandard. A JSON file is one
document, or *JSON lines* (one document per line, as criterion's ``--message-format=json`` and
many loggers write).
"""
from __future__ import annotations

import bz2
import io
import gzip
import lzma
import os
import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import load_json_bytes

__all__ = ["COMPRESSIONS", "compression_of", "file_bytes", "json_documents", "MAX_DECOMPRESSED"]

#: Magic bytes at the start of a compressed file -> compression name.
COMPRESSIONS = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}


def _decompression_limit() -> int:
    """2 GiB, or a quarter of the physical memory when that is less (1 GiB when unknown)."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        physical = -1
    if physical <= 0:
        return 1 << 30
    return int(min(1 << 31, physical // 4))


#: Most bytes a compressed file may expand to (a guard against decompression bombs): 2 GiB, or a
#: quarter of the physical memory when that is less. The decompressed content is held once.
MAX_DECOMPRESSED = _decompression_limit()
_CHUNK = 1 << 22


def compression_of(head: bytes) -> str | None:
    """The compression of a file from its first bytes, or None when it is not compressed.

    Parameters
    ----------
    head : bytes
        The start of the file (six bytes suffice).

    Returns
    -------
    str or None
        ``"gzip"``, ``"bz2"``, ``"xz"``, ``"zstd"`` or None.

    Notes
    -----
    Magic numbers: gzip RFC 1952 (1f 8b), bzip2 ("BZh"), xz (fd 37 7a 58 5a 00), Zstandard
    RFC 8878 (28 b5 2f fd).
    """
    for magic, name in COMPRESSIONS.items():
        if head.startswith(magic):
            return name
    return None


def file_bytes(path: Path, limit: int = MAX_DECOMPRESSED) -> bytes | bytearray:
    """The content of `path`, decompressed when its magic bytes say it is compressed.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    limit : int
        Most decompressed bytes accepted.

    Returns
    -------
    bytes or bytearray
        The (decompressed) content; nested compression (a ``.gz`` of a ``.gz``) is undone too.
        Decompressed content is a bytearray grown in place, so it is held once in memory.

    Raises
    ------
    InputError
        A corrupt or truncated compressed file, or one that expands beyond `limit`, naming the
        file and the compression.

    Notes
    -----
    gzip, bz2 and lzma from the standard library; Zstandard through Arrow's codec (no extra
    dependency).
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    for _ in range(4):  # nested compression, a few levels at most
        kind = compression_of(raw[:6])
        if kind is None:
            return raw
        raw = _decompressed(raw, kind, path, limit)
    return raw


def _decompressed(raw: bytes, kind: str, path: Path, limit: int) -> bytearray:
    try:
        if kind == "zstd":
            stream = pa.input_stream(pa.BufferReader(raw), compression="zstd")
            reader = stream.read
        else:
            source = io.BytesIO(raw)  # the compressed bytes: small beside their content
            reader = (gzip.GzipFile(fileobj=source) if kind == "gzip" else
                      bz2.BZ2File(source) if kind == "bz2" else lzma.LZMAFile(source)).read
        out = bytearray()  # grown in place: the content is never held twice
        while True:
            part = reader(_CHUNK)
            if not part:
                break
            if len(out) + len(part) > limit:
                raise InputError(f"{path}: the {kind} file expands beyond {limit:,} bytes (the "
                                 "decompression limit: 2 GiB, or a quarter of the physical "
                                 "memory when less); decompress it yourself if that is intended")
            out += part
            del part
        return out
    except InputError:
        raise
    except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError,
            pa.ArrowException) as exc:
        raise InputError(f"{path}: a {kind}-compressed file that does not decompress "
                         f"({type(exc).__name__}: {str(exc)[:120]})") from None


def json_documents(raw: bytes, path: Path) -> tuple[Any, bool]:
    """Parse JSON content: one document, or JSON lines.

    Parameters
    ----------
    raw : bytes
        The file's (decompressed) content.
    path : pathlib.Path
        The file, for messages.

    Returns
    -------
    (object, bool)
        The document and False; or, for JSON lines (several documents, one per line), the list
        of documents and True.

    Raises
    ------
    InputError
        Content that is neither (`fastperf.io.checked.load_json_bytes` names the failure; for
        JSON lines, the line that does not parse).

    Notes
    -----
    RFC 8259 JSON; JSON lines as jsonlines.org describes (UTF-8, one value per line, blank
    lines ignored).
    """
    try:
        return load_json_bytes(raw, path), False
    except InputError as exc:
        if "Extra data" not in str(exc):
            raise
        first = str(exc)
    documents = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            documents.append(load_json_bytes(line, path))
        except InputError as exc:
            reason = str(exc).removeprefix(f"{path}: ")
            raise InputError(f"{path}: neither one JSON document ({first.removeprefix(f'{path}: ')})"
                             f" nor JSON lines (line {number}: {reason})") from None
    return documents, True
