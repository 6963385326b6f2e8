"""Decompression bombs and hostile JSON cost little before they are refused (issue 43).

A compressed file may expand to 256 MiB at most (``max_decompressed``) and, once past 8 MiB, to
at most 100 times the compressed bytes read (``max_expansion``); both are raised by an argument
of `fastperf.read` and a CLI option, and the refusal names them. A file that starts like JSON
and is longer than the detection prefix (1 MiB) is parsed only when that prefix holds a key of a
JSON format fastperf reads. docs/robustness.md has the measured costs (bench/hostile_files.py).

Oracles: the sizes written here (a bomb's content, a CSV's row count), the limits as issue 43
states them (256 MiB, 100-fold beyond 8 MiB, decompressed 4 MiB at a time), and the same
document read unpadded.
"""
from __future__ import annotations

import bz2
import gzip
import importlib
import json
import lzma
import re

import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError
from fastperf.io.read import detect_format

from cli_calls import assert_clean_error, run_cli

MIB = 1 << 20
#: The limits of issue 43, written out: the constants of `fastperf.io.content` must equal them.
CAP = 256 * MIB
CHECKED_FROM = 8 * MIB
STEP = 4 * MIB

COMPRESSORS = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda raw: pa.compress(raw, codec="zstd", asbytes=True),
}


def bomb(tmp_path, kind: str, content_mib: int, block_mib: int = 1, fill: bytes = b" "):
    """A `kind` file expanding to `content_mib` MiB of `fill`: one compressed block of
    `block_mib` MiB, repeated (several members/streams/frames, as each format allows)."""
    packed = COMPRESSORS[kind](fill * (block_mib * MIB))
    path = tmp_path / f"bomb.{kind}"
    path.write_bytes(packed * (content_mib // block_mib))
    return path


def decompressed_at_refusal(message: str) -> int:
    """The content size a refusal reports (``N bytes from its first M compressed bytes``)."""
    found = re.search(r"\(([\d,]+) bytes from its first ([\d,]+) compressed bytes", message)
    assert found, message
    return int(found.group(1).replace(",", ""))


def test_the_defaults_are_the_issues():
    from fastperf.io import content

    assert (content.MAX_DECOMPRESSED, content.MAX_EXPANSION) == (CAP, 100)
    assert content.EXPANSION_CHECKED_FROM == CHECKED_FROM


# ---------------------------------------------------------------------------------------------
# the expansion limit: refused after about 8 MiB, whatever the bomb would expand to


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_bomb_is_refused_early_naming_the_expansion_limit(tmp_path, kind):
    path = bomb(tmp_path, kind, content_mib=64)  # about a thousand-fold
    with pytest.raises(InputError) as caught:
        fastperf.read(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: the {kind} file expands more than 100-fold")
    assert "max_expansion=100" in message and "--max-expansion" in message
    assert CHECKED_FROM < decompressed_at_refusal(message) <= CHECKED_FROM + STEP


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_bomb_is_refused_with_a_format_given_too(tmp_path, kind):
    path = bomb(tmp_path, kind, content_mib=16)
    with pytest.raises(InputError, match="expands more than 100-fold"):
        fastperf.read(path, format="csv")


def test_nested_bomb_is_refused_at_its_inner_level(tmp_path):
    path = tmp_path / "twice.gz"
    path.write_bytes(bz2.compress(gzip.compress(b" " * (64 * MIB))))
    with pytest.raises(InputError, match=r"twice.gz: the gzip file expands more than 100-fold"):
        fastperf.read(path)


def test_bomb_through_the_cli_exits_2_naming_the_option(tmp_path):
    path = bomb(tmp_path, "xz", content_mib=32)
    code, _, err = run_cli(["describe", path])
    assert_clean_error(code, err, match="--max-expansion")


#: One row of a legitimate CSV that, repeated, expands about a thousand-fold under gzip.
ROW = b"a_rather_long_benchmark_name,1.5\n"


def repetitive_csv(tmp_path, rows: int):
    """A gzip CSV of `rows` identical rows `ROW`."""
    path = tmp_path / "runs.csv.gz"
    path.write_bytes(gzip.compress(b"benchmark,value\n" + ROW * rows))
    return path


def test_raising_the_expansion_limit_reads_a_trusted_file(tmp_path):
    rows = 9 * MIB // len(ROW)  # past the 8 MiB from which the ratio is checked
    path = repetitive_csv(tmp_path, rows)
    with pytest.raises(InputError, match="expands more than 100-fold"):
        fastperf.read(path)
    for limit in (None, 5_000):
        table = fastperf.read(path, max_expansion=limit)
        assert table.num_rows == rows
        assert table.column("value").to_pylist()[:2] == [1.5, 1.5]
    code, out, err = run_cli(["describe", path, "--max-expansion", "none", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["groups"][0]["n"] == rows


def test_a_small_file_of_any_ratio_is_read(tmp_path):
    """Below 8 MiB of content the ratio is not checked: 7 MiB of one repeated row reads."""
    rows = 7 * MIB // len(ROW)
    assert fastperf.read(repetitive_csv(tmp_path, rows)).num_rows == rows


# ---------------------------------------------------------------------------------------------
# the absolute limit


def test_the_default_cap_refuses_past_256_mib(tmp_path):
    path = bomb(tmp_path, "gzip", content_mib=272, block_mib=16)
    with pytest.raises(InputError) as caught:
        fastperf.read(path, max_expansion=None)
    message = str(caught.value)
    assert message.startswith(f"{path}: the gzip file expands beyond 268,435,456 bytes (the "
                              "decompression limit, max_decompressed=268435456")
    assert "--max-decompressed" in message


def test_raising_the_cap_reads_a_trusted_file(tmp_path):
    rows = 2 * MIB // 6
    path = tmp_path / "runs.csv.xz"
    path.write_bytes(lzma.compress(b"benchmark,value\n" + b"b,2.5\n" * rows))
    with pytest.raises(InputError, match=r"expands beyond 1,048,576 bytes .*max_decompressed="
                                         r"1048576"):
        fastperf.read(path, max_decompressed=MIB)
    assert fastperf.read(path, max_decompressed=4 * MIB).num_rows == rows
    assert fastperf.read(path, max_decompressed=None).num_rows == rows
    code, _, err = run_cli(["describe", path, "--max-decompressed", "1MiB"])
    assert_clean_error(code, err, match="--max-decompressed")
    code, out, err = run_cli(["describe", path, "--max-decompressed", "4MiB", "--format",
                              "json"])
    assert code == 0, err
    assert json.loads(out)["groups"][0]["n"] == rows


@pytest.mark.parametrize("argument, value", [
    ("max_decompressed", 0), ("max_decompressed", True), ("max_decompressed", 1.5e9),
    ("max_decompressed", "1GiB"), ("max_expansion", 0.5), ("max_expansion", float("nan")),
    ("max_expansion", float("inf")), ("max_expansion", False), ("max_expansion", "100"),
])
def test_a_bad_limit_is_refused_naming_it(tmp_path, argument, value):
    path = tmp_path / "t.csv"
    path.write_text("benchmark,value\na,1.0\n")
    with pytest.raises(InputError, match=rf"^{argument} must be .* got {re.escape(repr(value))}"):
        fastperf.read(path, **{argument: value})


@pytest.mark.parametrize("option", ["--max-decompressed", "--max-expansion"])
def test_a_bad_limit_option_is_refused_naming_it(tmp_path, option):
    path = tmp_path / "t.csv"
    path.write_text("benchmark,variant,value\na,x,1.0\n")
    code, _, err = run_cli(["describe", path, option, "lots"])
    assert_clean_error(code, err, match=f"{option} must be")


# ---------------------------------------------------------------------------------------------
# JSON: a bounded prefix before a whole parse


@pytest.fixture
def no_parse(monkeypatch):
    """Fail the test if detection parses a JSON document whole."""
    def parse(raw, path, max_parsed=None):
        raise AssertionError(f"{path}: parsed whole ({len(raw):,} bytes)")
    monkeypatch.setattr(importlib.import_module("fastperf.io.read"), "json_documents", parse)


@pytest.mark.parametrize("name, content", [
    ("lists.json", b"[" + b"[]," * MIB + b"[]]"),                 # 3 MB, no key
    ("objects.jsonl", b'{"x": 1}\n' * (MIB // 4)),                # JSON lines of no format
    ("blank.json", b"{" + b" " * (2 * MIB) + b"}"),               # whitespace in an object
    ("nested.json", b"[" * (2 * MIB) + b"]" * (2 * MIB)),        # nested beyond any parser
])
def test_long_unknown_json_is_refused_unparsed(tmp_path, no_parse, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"starts like JSON, but its first 1,048,576 bytes hold "
                                         r"no key of a JSON format fastperf reads, so it is not "
                                         r"parsed; formats tried: pyperf"):
        fastperf.read(path)


def test_long_unknown_json_compressed_is_refused_unparsed(tmp_path, no_parse):
    path = tmp_path / "lists.json.zst"
    path.write_bytes(COMPRESSORS["zstd"](b"[" + b'["a", 1],' * (MIB // 4) + b"[]]"))
    with pytest.raises(InputError, match="starts like JSON, but its first 1,048,576 bytes"):
        fastperf.read(path)


HYPERFINE = {"results": [{"command": "sleep 0.1", "times": [0.101, 0.099, 0.1],
                          "exit_codes": [0, 0, 0]}]}


@pytest.mark.parametrize("document", [
    HYPERFINE,
    [list(range(1, 200_001)), [0.5 * i for i in range(1, 200_001)]],  # criterion's old sample
    ["criterion", "1.5.0", [{"reportName": "a", "reportMeasured": [[0.1, 0.0, 0, 1]] * 9}]],
], ids=["hyperfine", "criterion-sample-keyless", "haskell-criterion-keyless"])
def test_long_json_of_a_known_format_reads_as_unpadded(tmp_path, document):
    """The same document padded past the prefix (trailing whitespace: still one document) is
    detected and read as it is unpadded (the same path: names taken from it agree)."""
    raw = json.dumps(document).encode()
    path = tmp_path / "sample.json"
    path.write_bytes(raw)
    plain_format, plain = detect_format(path), fastperf.read(path)
    path.write_bytes(raw + b" \n" * MIB)
    assert path.stat().st_size > MIB
    assert detect_format(path) == plain_format
    assert fastperf.read(path).equals(plain)


# ---------------------------------------------------------------------------------------------
# decompressed JSON: its parse is bounded by max_decompressed too


def empty_objects(count: int) -> bytes:
    """A document of `count` empty objects under "benchmarks": about 24 bytes of Python
    objects per byte once parsed (a result file: 2 to 5)."""
    return b'{"benchmarks": [' + b"{}," * (count - 1) + b"{}]}"


@pytest.fixture
def no_json_loads(monkeypatch):
    """Fail the test if the JSON text is handed to the parser."""
    def parse(raw, path):
        raise AssertionError(f"{path}: parsed ({len(raw):,} bytes)")
    monkeypatch.setattr(importlib.import_module("fastperf.io.content"), "load_json_bytes", parse)


def test_decompressed_json_that_would_parse_past_the_cap_is_refused(tmp_path, no_json_loads):
    raw = empty_objects(2 * MIB)  # 6 MiB: below 8 MiB, so the ratio is not checked
    path = tmp_path / "objects.json.gz"
    path.write_bytes(gzip.compress(raw))
    with pytest.raises(InputError, match=r"objects.json.gz: its decompressed JSON would take "
                                         r"about [\d,]+ bytes once parsed .* beyond the "
                                         r"decompression limit, max_decompressed=268435456"):
        fastperf.read(path)


def test_raising_the_cap_parses_it(tmp_path):
    """Raised, the same document is parsed, then refused for its shape; uncompressed, its parse
    is bounded by the file's own size, not by the limit."""
    raw = empty_objects(2 * MIB)
    packed, plain = tmp_path / "objects.json.gz", tmp_path / "objects.json"
    packed.write_bytes(gzip.compress(raw))
    plain.write_bytes(raw)
    for path, options in ((packed, {"max_decompressed": None}), (plain, {})):
        with pytest.raises(InputError, match=r"a JSON object with top-level keys \['benchmarks'\]"
                                             r": not a format fastperf reads"):
            fastperf.read(path, **options)


def test_decompressed_result_file_parses_within_the_cap(tmp_path):
    """A hyperfine export of 200,000 runs (5 MB, xz) reads as it does uncompressed."""
    document = {"results": [{"command": "sleep 0.1", "times": [0.1 + i * 1e-9 for i in
                                                               range(200_000)]}]}
    raw = json.dumps(document).encode()
    packed, plain = tmp_path / "h.json.xz", tmp_path / "h.json"
    packed.write_bytes(lzma.compress(raw))
    plain.write_bytes(raw)
    table = fastperf.read(packed)
    assert table.num_rows == 200_000
    assert table.drop(["variant"]).equals(fastperf.read(plain).drop(["variant"]))
