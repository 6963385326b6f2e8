"""What a file holds before its format is known: decompressed bytes, JSON documents.

Compression is recognised by magic bytes, never by the file name (pyperf writes ``.json.gz``
itself; a renamed file reads the same): gzip, bzip2, xz and Zstandard. A JSON file is one
document, or *JSON lines* (one document per line, as criterion's ``--message-format=json`` and
many loggers write).

Decompression is bounded, so that a small hostile file costs little before it is refused
(docs/robustness.md, "Hostile files"): a compressed file may expand to `MAX_DECOMPRESSED` bytes
at most, and, once its content passes `EXPANSION_CHECKED_FROM` bytes, to at most
`MAX_EXPANSION` times the compressed bytes read so far; decompressed JSON may parse into at
most `MAX_DECOMPRESSED` bytes of objects (`parsed_size_estimate`, before parsing).
`DecompressionLimits` holds both;
``fastperf.read(max_decompressed=, max_expansion=)`` and the CLI's ``--max-decompressed``,
``--max-expansion`` raise them for trusted files.
"""
from __future__ import annotations

import bz2
import io
import gzip
import lzma
import math
import numbers
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import load_json_bytes

__all__ = ["COMPRESSIONS", "compression_of", "file_bytes", "json_documents", "MAX_DECOMPRESSED",
           "MAX_EXPANSION", "EXPANSION_CHECKED_FROM", "DecompressionLimits", "DEFAULT_LIMITS",
           "parsed_size_estimate", "MAX_NESTED_COMPRESSION"]

#: Layers of compression undone in one file (a .gz of a .gz is 2); more is refused.
MAX_NESTED_COMPRESSION = 4

#: Magic bytes at the start of a compressed file -> compression name.
COMPRESSIONS = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}

#: Most bytes a compressed file may expand to by default: 256 MiB. Benchmark result files are
#: at most tens of MB (the largest of the real files in the conformance corpus is 0.7 MB; a
#: pyperf or Google Benchmark file of thousands of benchmarks, tens of MB), so this is ten
#: times the largest expected while a refused file has cost a quarter of a GiB at most.
MAX_DECOMPRESSED = 256 * 2**20
#: Most times a compressed file may expand by default (content bytes per compressed byte read).
#: Real result files expand 5- to 20-fold under gzip, bzip2, xz or Zstandard (18 at most over
#: the conformance corpus, docs/robustness.md); a decompression bomb, a thousand-fold or more.
MAX_EXPANSION = 100
#: Content size from which the expansion is checked: a file expanding to less costs little
#: whatever its ratio (and a small file of repeated lines may well expand more than 100-fold).
EXPANSION_CHECKED_FROM = 8 * 2**20
#: Bytes decompressed per step; a refused file has produced at most one step beyond a limit.
_CHUNK = 1 << 22


@dataclass(frozen=True)
class DecompressionLimits:
    """How far a compressed file may expand before it is refused (a decompression bomb).

    Parameters
    ----------
    max_decompressed : int or None
        Most bytes of content, and of the objects decompressed JSON parses into (estimated
        before parsing) (default `MAX_DECOMPRESSED`, 256 MiB); None: no limit.
    max_expansion : float or None
        Most content bytes per compressed byte read, checked once the content passes
        `EXPANSION_CHECKED_FROM` (8 MiB) (default `MAX_EXPANSION`, 100); None: no limit.

    Raises
    ------
    InputError
        A limit that is not None nor a number in range (a whole number >= 1 of bytes, a
        finite ratio >= 1), naming the argument and the value given.

    Notes
    -----
    Each level of a nested compression (a ``.gz`` of a ``.gz``) is held to both limits.
    """

    max_decompressed: int | None = MAX_DECOMPRESSED
    max_expansion: float | None = MAX_EXPANSION

    def __post_init__(self) -> None:
        size = self.max_decompressed
        if size is not None and (isinstance(size, bool) or not isinstance(size, numbers.Integral)
                                 or size < 1):
            raise InputError("max_decompressed must be a whole number of bytes >= 1, or None "
                             f"for no limit, got {size!r}")
        ratio = self.max_expansion
        if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, numbers.Real)
                                  or not math.isfinite(ratio) or ratio < 1):
            raise InputError("max_expansion must be a finite number >= 1 (content bytes per "
                             f"compressed byte), or None for no limit, got {ratio!r}")


#: The limits `fastperf.read` applies unless told otherwise.
DEFAULT_LIMITS = DecompressionLimits()


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


def file_bytes(path: Path, limits: DecompressionLimits = DEFAULT_LIMITS) -> bytes | bytearray:
    """The content of `path`, decompressed when its magic bytes say it is compressed.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    limits : DecompressionLimits
        How far a compressed file may expand (by default 256 MiB, and 100-fold beyond 8 MiB).

    Returns
    -------
    bytes or bytearray
        The (decompressed) content; nested compression (a ``.gz`` of a ``.gz``) is undone too.
        Decompressed content is a bytearray grown in place, so it is held once in memory.

    Raises
    ------
    InputError
        A corrupt or truncated compressed file, one that expands beyond a limit (naming the
        file, the compression, the limit and how to raise it), or one compressed more than
        `MAX_NESTED_COMPRESSION` times over.

    Notes
    -----
    gzip, bz2 and lzma from the standard library; Zstandard through Arrow's codec (no extra
    dependency). The compressed bytes read so far are the position in the compressed source,
    so the expansion is checked as the content grows, a refused bomb having produced about
    `EXPANSION_CHECKED_FROM` bytes whatever it would expand to.
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    for _ in range(MAX_NESTED_COMPRESSION):
        kind = compression_of(raw[:6])
        if kind is None:
            return raw
        raw = _decompressed(raw, kind, path, limits)
    kind = compression_of(raw[:6])
    if kind is not None:  # said, rather than the compressed bytes read as text
        raise InputError(f"{path}: compressed more than {MAX_NESTED_COMPRESSION} times over "
                         f"(still {kind} after {MAX_NESTED_COMPRESSION} layers); decompress it "
                         "first")
    return raw


def _decompressed(raw: bytes, kind: str, path: Path, limits: DecompressionLimits) -> bytearray:
    source: io.BytesIO | pa.BufferReader
    try:
        if kind == "zstd":
            source = pa.BufferReader(raw)
            reader = pa.CompressedInputStream(source, "zstd").read
        else:
            source = io.BytesIO(raw)  # the compressed bytes: small beside their content
            reader = (gzip.GzipFile(fileobj=source) if kind == "gzip" else
                      bz2.BZ2File(source) if kind == "bz2" else lzma.LZMAFile(source)).read
        out = bytearray()  # grown in place: the content is never held twice
        while True:
            part = reader(_CHUNK)
            if not part:
                break
            _check_expansion(len(out) + len(part), source.tell(), kind, path, limits)
            out += part
            del part
        return out
    except InputError:
        raise
    except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError,
            pa.ArrowException) as exc:
        raise InputError(f"{path}: a {kind}-compressed file that does not decompress "
                         f"({type(exc).__name__}: {str(exc)[:120]})") from None


def _check_expansion(content: int, compressed: int, kind: str, path: Path,
                     limits: DecompressionLimits) -> None:
    """Refuse `content` bytes decompressed from the first `compressed` bytes beyond a limit."""
    cap = limits.max_decompressed
    if cap is not None and content > cap:
        raise InputError(
            f"{path}: the {kind} file expands beyond {cap:,} bytes (the decompression limit, "
            f"max_decompressed={cap}; result files are at most tens of MB); if the file is "
            "trusted, raise it: fastperf.read(..., max_decompressed=BYTES) or "
            "--max-decompressed SIZE (None / none: no limit), or decompress it yourself")
    ratio = limits.max_expansion
    if ratio is not None and content > EXPANSION_CHECKED_FROM and content > ratio * compressed:
        raise InputError(
            f"{path}: the {kind} file expands more than {ratio:g}-fold ({content:,} bytes from "
            f"its first {compressed:,} compressed bytes; the expansion limit, "
            f"max_expansion={ratio:g}: result files expand 5- to 20-fold, a decompression bomb "
            "a thousand-fold); if the file is trusted, raise it: fastperf.read(..., "
            "max_expansion=RATIO) or --max-expansion RATIO (None / none: no limit)")


def json_documents(raw: bytes, path: Path, max_parsed: int | None = None) -> tuple[Any, bool]:
    """Parse JSON content: one document, or JSON lines.

    Parameters
    ----------
    raw : bytes
        The file's (decompressed) content.
    path : pathlib.Path
        The file, for messages.
    max_parsed : int or None
        Most bytes the parsed objects may take, by `parsed_size_estimate` before parsing (`read`
        passes ``max_decompressed`` for decompressed content); None: not checked.

    Returns
    -------
    (object, bool)
        The document and False; or, for JSON lines (several documents, one per line), the list
        of documents and True.

    Raises
    ------
    InputError
        Content that is neither (`fastperf.io.checked.load_json_bytes` names the failure; for
        JSON lines, the line that does not parse), or whose parse would pass `max_parsed`.

    Notes
    -----
    RFC 8259 JSON; JSON lines as jsonlines.org describes (UTF-8, one value per line, blank
    lines ignored).
    """
    if max_parsed is not None:
        estimate = parsed_size_estimate(raw)
        if estimate > max_parsed:
            raise InputError(
                f"{path}: its decompressed JSON would take about {estimate:,} bytes once parsed "
                f"(estimated from its objects, arrays, values and strings; a result file takes "
                f"2 to 5 bytes per byte), beyond the decompression limit, "
                f"max_decompressed={max_parsed}; if the file is trusted, raise it: "
                "fastperf.read(..., max_decompressed=BYTES) or --max-decompressed SIZE "
                "(None / none: no limit)")
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


#: Bytes a parse creates per ``{`` (a dict with entries), ``[`` (a list), ``,`` (a value and its
#: slot) and ``"`` (half a string): at least what CPython allocates for each, so the estimate
#: bounds the parse from above (measured on Python 3.11: 1 to 3.2 times what a parse takes over
#: the conformance corpus's JSON and documents of empty objects, arrays, numbers and strings;
#: 10 for empty strings, which CPython shares).
_PARSED_BYTES = {b"{": 200, b"[": 72, b",": 32, b'"': 25}


def parsed_size_estimate(raw: bytes) -> int:
    """An upper estimate of the memory Python's objects take once `raw` (JSON) is parsed.

    Parameters
    ----------
    raw : bytes
        JSON text.

    Returns
    -------
    int
        ``200 {`` + ``72 [`` + ``32 ,`` + ``25 "`` bytes (counts of those bytes in `raw`,
        strings included): a real result file gives 2 to 4 bytes per byte, a document of empty
        objects 77.

    Notes
    -----
    Counted, not parsed: four passes of ``bytes.count`` (docs/robustness.md, "Hostile files").
    """
    return sum(weight * raw.count(char) for char, weight in _PARSED_BYTES.items())
