"""Compressed files (by magic bytes, not by name) and JSON lines, for every format.

Oracles: the same content read uncompressed (a table equal row for row), and hand-counted rows
of the fixtures written here.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastperf
from fastperf import InputError, read
from fastperf.io import content
from fastperf.io.content import DecompressionLimits, compression_of, file_bytes
from fastperf.io.read import detect_format

from cli_calls import run_cli

HYPERFINE = {"results": [{"command": "sleep 0.1", "mean": 0.1, "stddev": 0.001,
                          "times": [0.101, 0.099, 0.1], "exit_codes": [0, 0, 0]},
                         {"command": "sleep 0.2", "mean": 0.2, "stddev": 0.001,
                          "times": [0.201, 0.199], "exit_codes": [0, 0]}]}
GO = ("goos: linux\ngoarch: amd64\npkg: example.com/p\n"
      "BenchmarkA-8   1000   1234 ns/op\nBenchmarkA-8   1000   1240 ns/op\n"
      "BenchmarkB-8   500   2222 ns/op\n")
CSV = "benchmark,value\na,1.5\na,1.6\nb,2.5\n"

COMPRESSORS = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda raw: pa.compress(raw, codec="zstd", asbytes=True),
}


def plain_and_compressed(tmp_path, name, raw, kind):
    plain = tmp_path / name
    plain.write_bytes(raw)
    packed = tmp_path / f"packed-{kind}.bin"  # the name says nothing of the compression
    packed.write_bytes(COMPRESSORS[kind](raw))
    return plain, packed


def same_rows(a: pa.Table, b: pa.Table) -> None:
    keep = [c for c in a.column_names if c != "variant"]
    assert a.select(keep).to_pylist() == b.select(keep).to_pylist()


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_magic_bytes_name_the_compression(kind):
    assert compression_of(COMPRESSORS[kind](b"x" * 100)[:6]) == kind
    assert compression_of(b"PAR1xx") is None and compression_of(b"{") is None


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("name, raw, rows, fmt", [
    ("h.json", json.dumps(HYPERFINE).encode(), 5, "hyperfine"),
    ("g.txt", GO.encode(), 3, "go"),
    ("t.csv", CSV.encode(), 3, "csv"),
])
def test_compressed_file_reads_as_its_content(tmp_path, kind, name, raw, rows, fmt):
    plain, packed = plain_and_compressed(tmp_path, name, raw, kind)
    assert detect_format(packed) == fmt
    got, want = read(packed), read(plain)
    assert got.num_rows == rows
    same_rows(got, want)


def test_compressed_parquet_and_nested_compression(tmp_path):
    table = pa.table({"benchmark": ["a", "a", "b"], "value": [1.0, 2.0, 3.0]})
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    packed = tmp_path / "t.parquet.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert read(packed).column("value").to_pylist() == [1.0, 2.0, 3.0]
    twice = tmp_path / "twice.bin"
    twice.write_bytes(bz2.compress(gzip.compress(CSV.encode())))
    assert file_bytes(twice) == CSV.encode()
    assert read(twice).num_rows == 3


def test_plain_file_named_gz_is_read_as_plain(tmp_path):
    """Detection by content: a CSV called .csv.gz is not decompressed (Arrow would by name)."""
    path = tmp_path / "t.csv.gz"
    path.write_text(CSV)
    assert read(path).column("value").to_pylist() == [1.5, 1.6, 2.5]


def test_corrupt_compressed_file_is_named(tmp_path):
    path = tmp_path / "bad.json.gz"
    path.write_bytes(gzip.compress(json.dumps(HYPERFINE).encode())[:30])
    with pytest.raises(InputError, match="bad.json.gz: a gzip-compressed file that does not decompress"):
        read(path)
    empty = tmp_path / "empty.gz"
    empty.write_bytes(gzip.compress(b""))
    with pytest.raises(InputError, match="empty.gz: the gzip-compressed file is empty"):
        read(empty)


def test_decompression_limit(tmp_path):
    path = tmp_path / "big.gz"
    path.write_bytes(gzip.compress(b"0" * 10_000))
    with pytest.raises(InputError, match="expands beyond 1,000 bytes"):
        file_bytes(path, DecompressionLimits(max_decompressed=1_000))


def test_json_lines_of_a_json_format(tmp_path):
    """Two hyperfine exports, one per line: the rows of both (2 + 3 + 2 + 3 hand-counted)."""
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(HYPERFINE) + "\n\n" + json.dumps(HYPERFINE) + "\n")
    assert detect_format(path) == "hyperfine"
    table = read(path)
    assert table.num_rows == 10
    assert sorted(table.column("value").to_pylist()) == sorted([0.101, 0.099, 0.1, 0.201, 0.199] * 2)


def test_json_lines_compressed(tmp_path):
    path = tmp_path / "h.jsonl.xz"
    path.write_bytes(lzma.compress((json.dumps(HYPERFINE) + "\n" + json.dumps(HYPERFINE)).encode()))
    assert read(path).num_rows == 10


def test_unsupported_json_names_what_it_looks_like(tmp_path):
    array = tmp_path / "a.json"
    array.write_text('[{"x": 1}, {"x": 2}]')
    with pytest.raises(InputError, match=r"a.json: a JSON array of 2 item\(s\): not a format "
                                         r"fastperf reads; formats tried: pyperf"):
        read(array)
    lines = tmp_path / "l.json"
    lines.write_text('{"x": 1}\n{"y": 2}\n')
    with pytest.raises(InputError, match=r"l.json: JSON lines \(2 documents\) of no one format"):
        read(lines)
    broken = tmp_path / "b.json"
    broken.write_text('{"x": 1}\n{"y": \n')
    with pytest.raises(InputError, match=r"b.json: neither one JSON document .* nor JSON lines "
                                         r"\(line 2"):
        read(broken)


def test_directory_that_is_no_results_tree(tmp_path):
    with pytest.raises(InputError, match="is a directory, and not a results tree fastperf reads"):
        read(tmp_path)


# -----------------------------------------------------------------------------------------------
# A corrupt gzip stream and the decompression limit
# -----------------------------------------------------------------------------------------------


# --- 9: corrupt gzip stream -----------------------------------------------------------------

def test_corrupt_gzip_stream_is_an_input_error_naming_the_file(tmp_path):
    raw = json.dumps({"results": [{"command": "a", "times": [1.0, 2.0] * 500,
                                   "exit_codes": [0, 0] * 500}]}).encode()
    packed = gzip.compress(raw)
    path = tmp_path / "corrupt.gz"
    path.write_bytes(packed[:20] + b"\x00" * 50 + packed[70:])
    with pytest.raises(InputError, match="corrupt.gz: a gzip-compressed file that does not "
                                         "decompress"):
        fastperf.read(path)
    rc, _, err = run_cli(["describe", str(path)])
    assert rc == 2, err
    assert "corrupt.gz" in err and "internal error" not in err


# --- 10: the decompression limit ------------------------------------------------------------

def test_decompression_limits_fit_result_files():
    """The defaults of issue 43: 256 MiB at most, and 100-fold beyond 8 MiB, whatever the
    machine (they were 2 GiB or a quarter of the memory, and no ratio)."""
    assert content.MAX_DECOMPRESSED == 268_435_456
    assert content.MAX_EXPANSION == 100 and content.EXPANSION_CHECKED_FROM == 8_388_608


def test_decompression_limit_message_and_content_held_once(tmp_path):
    data = bytes(range(256)) * 40_000  # 10 MB, several 4 MiB chunks
    path = tmp_path / "big.gz"
    path.write_bytes(gzip.compress(data))
    no_ratio = DecompressionLimits(max_expansion=None)  # this content expands 256-fold
    assert file_bytes(path, no_ratio) == data
    at_limit = DecompressionLimits(max_decompressed=len(data), max_expansion=None)
    assert file_bytes(path, at_limit) == data  # exactly at the limit: accepted
    with pytest.raises(InputError, match=r"big.gz: the gzip file expands beyond 10,239,999 "
                                         r"bytes \(the decompression limit"):
        file_bytes(path, DecompressionLimits(max_decompressed=len(data) - 1, max_expansion=None))
