"""The command line on the shared folder's golang-perf and Google Benchmark files.

Moved from tests/test_cli.py, which covers the same commands on files the tests write.
"""
from conftest import SHARED
from test_cli import check_aggregate_command, exit_code

GO = SHARED / "data" / "peers" / "golang-perf"


def test_aggregate_only_google_benchmark_exits_2_with_one_line(capsys):
    argv, message = ["describe", str(SHARED / "data" / "peers" / "google-benchmark" / "test4_run0.json")], "aggregate"
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_aggregate_command_on_crc(capsys, tmp_path):
    crc_old, crc_new = str(GO / "crc-old.txt"), str(GO / "crc-new.txt")
    doc = check_aggregate_command(capsys, tmp_path, crc_old, crc_new, "crc-old")
    assert doc["groups"][1]["ratio"] < 1  # the new CRC code is faster
