"""Every real JSON file of the shared folders holds its format's sign in its first bytes.

A JSON file longer than the detection prefix (`SNIFF_BYTES`, 1 MiB) is parsed only when that
prefix matches a sign of `fastperf.io.formats.JSON_PREFIX_SIGNS` (docs/readers.md): a real file
whose sign came later would no longer be detected once it grew. The real files are all shorter
than the prefix, so each is checked twice: its start holds the sign of the format it is detected
as (found by parsing it whole), and the same file padded past the prefix with trailing
whitespace (still the same document) is detected and read as it is.

Oracle: detection by a whole parse of the unpadded file, and its table.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import fastperf
from conftest import SHARED
from fastperf import InputError
from fastperf.io.formats import JSON_PREFIX_SIGNS, SNIFF_BYTES
from fastperf.io.read import detect_format

ROOTS = [SHARED / "data" / "realworld", SHARED / "data" / "peers", SHARED / "data" / "tool-output"]


def _json_files() -> list[tuple[Path, str]]:
    """(file, format) of every real file detected as a JSON format."""
    out = []
    for root in ROOTS:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if not path.is_file() or path.read_bytes().lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (
                    b"{", b"["):
                continue
            try:
                fmt = detect_format(path)
            except InputError:
                continue
            if fmt in JSON_PREFIX_SIGNS:
                out.append((path, fmt))
    return out


FILES = _json_files()


def test_the_real_files_cover_most_json_formats():
    found = {fmt for _, fmt in FILES}
    assert len(found) >= 8, sorted(found)


@pytest.mark.parametrize("path, fmt", FILES, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_the_start_holds_the_formats_sign(path: Path, fmt: str):
    start = path.read_bytes()[:SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n")
    assert JSON_PREFIX_SIGNS[fmt].search(start), (path, fmt)


@pytest.mark.parametrize("path, fmt", FILES, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_padded_past_the_prefix_it_reads_the_same(tmp_path, path: Path, fmt: str):
    copy = tmp_path / path.name
    raw = path.read_bytes()
    copy.write_bytes(raw)
    try:
        plain = fastperf.read(copy)
    except InputError as exc:  # a file refused for what it holds is refused the same padded
        copy.write_bytes(raw + b" " * SNIFF_BYTES)
        with pytest.raises(InputError, match=re.escape(str(exc).split(": ", 1)[1][:40])):
            fastperf.read(copy)
        return
    copy.write_bytes(raw + b" " * SNIFF_BYTES)
    assert detect_format(copy) == fmt
    assert fastperf.read(copy).equals(plain)
