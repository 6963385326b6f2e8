"""Configuration columns on real Go files of the shared folder: every ``key: value`` line is in
force for the result lines after it (golang.org/design/14313-benchmark-format), checked against
a regex parse of the raw file written here, independently of fastperf's reader.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path


from conftest import SHARED
from fastperf import read
from fastperf.io.common import config_columns
from tool_files import check_schema

DATA = SHARED / "data"
REAL_GO = DATA / "realworld" / "go"
BENT_BASE = REAL_GO / "20200101T213604.Base.stdout"
BENT_GO117 = REAL_GO / "Go1.17-opt.20220105T213212"
FIBER_DUPLICATES = REAL_GO / "go_fiber_duplicate_names_output.txt"
CRC_OLD = DATA / "peers" / "golang-perf" / "crc-old.txt"

_CONFIG = re.compile(r"([a-z][^\s:A-Z]*):(?:[ \t]+(.*))?$")
_RESULT = re.compile(r"(Benchmark\S*)\s+\d+\s+(.+)$")


def raw_configuration(path: Path) -> list[tuple[str, dict[str, str]]]:
    """(benchmark, configuration in force) for every value/unit pair of every result line; an
    empty value unsets its key."""
    rows, current = [], {}
    for line in path.read_text().splitlines():
        m = _CONFIG.match(line)
        if m:
            key, value = m.group(1), (m.group(2) or "").strip()
            if value:
                current[key] = value
            else:
                current.pop(key, None)
            continue
        m = _RESULT.match(line)
        if m:
            rows += [(m.group(1), dict(current))] * (len(m.group(2).split()) // 2)
    return rows


def check_against_raw(path: Path, expected_keys: list[str], extras=("iterations",)):
    t = read(path)
    check_schema(t, list(extras), config=expected_keys)
    raw = raw_configuration(path)
    assert t.column("benchmark").to_pylist() == [b for b, _ in raw]
    got = t.select(expected_keys).to_pylist()
    assert got == [{k: config.get(k) for k in expected_keys} for _, config in raw]
    return t, raw


def test_bent_packages_keep_benchmarks_apart():
    t, raw = check_against_raw(BENT_BASE, ["goos", "goarch", "pkg"], ["iterations", "process", "iteration"])
    assert t.column("pkg").null_count == 0
    assert len(set(t.column("pkg").to_pylist())) == 30
    # (benchmark, pkg) is one group per benchmark and package; runs count within it
    keys = list(zip(*(t.column(c).to_pylist() for c in ("benchmark", "pkg", "unit", "run"))))
    assert len(set(keys)) == t.num_rows
    runs: dict = defaultdict(list)
    for bench, pkg, unit, run in keys:
        runs[(bench, pkg, unit)].append(run)
    assert all(r == list(range(len(r))) for r in runs.values())
    assert len({(b, c["pkg"]) for b, c in raw}) == len({(b, p) for b, p, _, _ in keys})
    # bent ran each package's benchmarks once per `go test` invocation, 25 times, each under its
    # own header: every run is a process of one value
    assert t.column("process").to_pylist() == t.column("run").to_pylist()
    assert set(t.column("iteration").to_pylist()) == {0} and max(t.column("process").to_pylist()) == 24


def test_same_names_in_two_packages_stay_apart():
    t, _ = check_against_raw(FIBER_DUPLICATES, ["goos", "goarch", "pkg", "cpu"])
    pairs = set(zip(t.column("benchmark").to_pylist(), t.column("pkg").to_pylist()))
    assert {p for b, p in pairs if b == "BenchmarkAppendMsgitem-4"} == {
        "github.com/gofiber/fiber/v3/middleware/cache", "github.com/gofiber/fiber/v3/middleware/csrf"}
    assert len(set(t.column("benchmark").to_pylist())) == 2 and len(pairs) == 4
    assert t.column("run").to_pylist() == [0] * t.num_rows  # one line per (benchmark, pkg, unit)


def test_bent_toolchain_and_builder_keys():
    keys = ["toolchain", "suite", "bentstamp", "numerator_branch", "numerator_hash", "numerator_stamp",
            "denominator_branch", "denominator_hash", "builder_id", "builder_type", "runstamp", "base",
            "goos", "goarch", "shortname", "pkg", "cpu"]
    t, _ = check_against_raw(BENT_GO117, keys, ["iterations", "process", "iteration"])
    assert set(t.column("toolchain").to_pylist()) == {"Base"}
    assert set(t.column("denominator_branch").to_pylist()) == {"Go1.17"}
    # build measurements come before any pkg:/cpu: line; `pkg:` with no value unsets the key
    assert t.column("pkg").null_count > 0 and t.column("cpu").null_count > 0


def test_crc_old_configuration_and_its_one_note():
    t, _ = check_against_raw(CRC_OLD, ["pkg", "goarch", "goos", "note"])
    first = t.slice(0, 1).select(["pkg", "goarch", "goos", "note"]).to_pylist()[0]
    assert first == {"pkg": "hash/crc32", "goarch": "amd64", "goos": "darwin",
                     "note": "hw acceleration disabled"}
    assert t.column("variant").to_pylist() == ["crc-old"] * t.num_rows


def test_two_real_files_declare_the_union():
    t = read([CRC_OLD, BENT_BASE])
    assert config_columns(t) == ["pkg", "goarch", "goos", "note"]
    pkgs = t.column("pkg").to_pylist()
    assert pkgs[0] == "hash/crc32" and None not in pkgs
    assert t.column("note").null_count == t.num_rows - 720
