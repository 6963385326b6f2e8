"""The command line on the shared folder's golang-perf and Google Benchmark files.

Moved from tests/test_cli.py, which covers the same commands on files the tests write.
"""
import json

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

import fastperf
from conftest import SHARED
from fastperf.cli import main
from test_cli import exit_code

GO = SHARED / "data" / "peers" / "golang-perf"


def test_aggregate_only_google_benchmark_exits_2_with_one_line(capsys):
    argv, message = ["describe", str(SHARED / "data" / "peers" / "google-benchmark" / "test4_run0.json")], "aggregate"
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_aggregate_command_on_crc(capsys, tmp_path):
    crc_old, crc_new = str(GO / "crc-old.txt"), str(GO / "crc-new.txt")
    assert exit_code(["aggregate", crc_old, crc_new]) == 2  # ns/op and MB/s mixed
    assert "mixes units" in capsys.readouterr().err
    out = tmp_path / "agg.json"
    assert main(["aggregate", crc_old, crc_new, "--unit", "sec/op", "--baseline", "crc-old",
                 "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    table = fastperf.read([crc_old, crc_new])
    table = table.filter(pa.compute.equal(table.column("unit").cast(pa.string()), "sec/op"))
    expected = fastperf.aggregate_score(table, baseline="crc-old").groups
    assert [g["score"] for g in doc["groups"]] == expected.column("score").to_pylist()
    assert doc["groups"][1]["ratio"] < 1  # the new CRC code is faster
