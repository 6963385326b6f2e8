"""speedup_test and `fastperf compare` on the shared folder's peer files: golang-perf's CRC
benchmarks (two units a line) and issue19634 (note sections), pyperf's mult_list files, against
scipy called directly and hand computations.

Moved from tests/test_speedup.py, which makes the same checks on Go and pyperf files written from
`fastperf.simulate` tables.
"""
import json

import numpy as np
import pytest

import fastperf
from conftest import SHARED
from fastperf import InputError, speedup_test
from fastperf.cli import main
from test_speedup import NEW, OLD, check_against_scipy, check_before_after_row, check_one_unit_speedups, exit_code, only_unit, rows, sample

PEERS = SHARED / "data" / "peers"
GO = PEERS / "golang-perf"
CRC_OLD, CRC_NEW = str(GO / "crc-old.txt"), str(GO / "crc-new.txt")
ISSUE = str(GO / "issue19634.txt")
PY36, PY37 = str(PEERS / "pyperf" / "mult_list_py36.json"), str(PEERS / "pyperf" / "mult_list_py37.json")


def test_crc_mixed_units_are_refused():
    with pytest.raises(InputError, match="mixes units") as info:
        speedup_test(fastperf.read([CRC_OLD, CRC_NEW]), baseline="crc-old", candidate="crc-new")
    assert "BenchmarkCRC32" in str(info.value)


CRC_FEW = ["BenchmarkCRC32/poly=IEEE/size=15/align=0-8", "BenchmarkCRC32/poly=IEEE/size=512/align=0-8",
           "BenchmarkCRC32/poly=Castagnoli/size=40/align=1-8",
           "BenchmarkCRC32/poly=Castagnoli/size=512/align=0-8"]


@pytest.mark.parametrize("unit, higher", [("sec/op", False), ("B/s", True)])
def test_crc_one_unit_against_scipy(unit, higher):
    table = only_unit(fastperf.read([CRC_OLD, CRC_NEW]), unit)
    result, got = check_one_unit_speedups(table, "crc-old", "crc-new", higher, 36)
    check_against_scipy(table, result, CRC_FEW, "crc-old", "crc-new", higher_is_better=higher)
    # hardware CRC: the 512-byte IEEE benchmark is about 4x faster in both units
    assert got[CRC_FEW[1]]["speedup_mean"] > 4 and got[CRC_FEW[1]]["mean_significant"]


@pytest.mark.filterwarnings("ignore:ks_2samp:RuntimeWarning")  # scipy: exact KS falls back, as ours
def test_issue19634_before_after_sections_by_hand():
    table = fastperf.read(ISSUE)  # one file, "note: before" / "note: after" sections
    assert table.column("variant").unique().to_pylist() == ["before", "after"]
    result = speedup_test(table, baseline="before", candidate="after")
    (row,) = result.benchmarks.to_pylist()
    # before: 115 114 115 115 115 ns (mean 114.8), after: 78.8 x 5
    check_before_after_row(row, "BenchmarkFloatSub/100-4", [115, 114, 115, 115, 115], [78.8] * 5)


def test_pyperf_mult_list_py36_vs_py37_against_scipy():
    table = fastperf.read([PY36, PY37])
    # the flat analysis (levels=[]): scipy on the 60 values a side, not on the pyperf processes
    result = speedup_test(table, baseline="mult_list_py36", candidate="mult_list_py37", levels=[])
    names = ["[1]*1000", "[1,2]*1000", "[1,2,3]*1000"]
    assert result.benchmarks.column("benchmark").to_pylist() == names
    got = rows(result)
    assert all(got[n]["n_baseline"] == got[n]["n_candidate"] == 60 for n in names)
    assert all(got[n]["median_method"] == "exact" for n in names)  # no ties in 60 + 60 values
    check_against_scipy(table, result, names, "mult_list_py36", "mult_list_py37")
    # large samples: the t-test runs although Shapiro-Wilk rejects, with a warning
    assert all(got[n]["mean_test"] != "none" for n in names)
    assert all("normality rejected" in got[n]["warnings"] for n in names)


def test_cli_defaults_follow_file_order(capsys):
    assert main(["compare", "--protocol", "speedup-test", NEW, OLD, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"]["baseline"], doc["summary"]["candidate"]) == ("new", "old")
    assert main(["compare", "--protocol", "speedup-test", OLD, NEW, "--baseline", "new", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"]["baseline"], doc["summary"]["candidate"]) == ("new", "old")
    assert main(["compare", "--protocol", "speedup-test", ISSUE, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"]["baseline"], doc["summary"]["candidate"]) == ("before", "after")
    assert doc["benchmarks"][0]["speedup_mean"] == pytest.approx(114.8 / 78.8)


def test_cli_unit_filter_on_crc(capsys):
    assert exit_code(["compare", "--protocol", "speedup-test", CRC_OLD, CRC_NEW]) == 2
    err = capsys.readouterr().err
    assert "mixes units" in err and len(err.strip().splitlines()) == 1
    assert main(["compare", "--protocol", "speedup-test", CRC_OLD, CRC_NEW, "--unit", "sec/op", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["benchmarks"]) == 36
    assert main(["compare", "--protocol", "speedup-test", CRC_OLD, CRC_NEW, "--unit", "B/s", "--higher-is-better", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    t = only_unit(fastperf.read([CRC_OLD, CRC_NEW]), "B/s")
    b = CRC_FEW[1]
    row = next(r for r in doc["benchmarks"] if r["benchmark"] == b)
    expected = np.mean(sample(t, b, "crc-new")) / np.mean(sample(t, b, "crc-old"))
    assert row["speedup_mean"] == pytest.approx(expected)
    assert doc["summary"]["higher_is_better"] is True
