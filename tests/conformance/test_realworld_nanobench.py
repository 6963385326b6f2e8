"""nanobench's own generated example output (realworld/nanobench: templates::json() and
templates::csv()) read by fastperf.io.nanobench; counts and values per benchmark against a parse
of the files written here, independently of the reader."""
from __future__ import annotations

import json
import statistics
from collections import defaultdict

import pytest

from conftest import SHARED
from fastperf.io.common import load_json
from fastperf.io.hyperfine import looks_like_hyperfine
from fastperf.io.nanobench import (
    looks_like_nanobench, looks_like_nanobench_csv, read_nanobench, read_nanobench_csv,
)

NANOBENCH = SHARED / "data" / "realworld" / "nanobench"
JSON_FILES = sorted(NANOBENCH.glob("*.json")) if NANOBENCH.is_dir() else []
CSV_FILES = sorted(NANOBENCH.glob("*.csv")) if NANOBENCH.is_dir() else []


@pytest.mark.skipif(not JSON_FILES, reason=f"no nanobench JSON under {NANOBENCH}")
@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.name)
def test_json(path):
    data = load_json(path)
    assert looks_like_nanobench(data) and not looks_like_hyperfine(data)
    table = read_nanobench(path, data)
    raw = json.loads(path.read_text())
    expected = defaultdict(list)
    for result in raw["results"]:
        expected[result["name"]].extend(m["elapsed"] for m in result["measurements"])
    got = defaultdict(list)
    for r in table.to_pylist():
        got[r["benchmark"]].append(r["value"])
    assert got == expected
    # elapsed is per iteration already: its median is the file's median(elapsed)
    for result in raw["results"]:
        assert statistics.median(got[result["name"]]) == pytest.approx(
            result["median(elapsed)"], rel=1e-12)


@pytest.mark.skipif(not CSV_FILES, reason=f"no nanobench CSV under {NANOBENCH}")
@pytest.mark.parametrize("path", CSV_FILES, ids=lambda p: p.name)
def test_csv(path):
    text = path.read_text()
    assert looks_like_nanobench_csv(text)
    table = read_nanobench_csv(path, text)
    lines = [line.split(";") for line in text.splitlines()[1:] if line.strip()]
    expected = [(fields[1].strip('"'), float(fields[4])) for fields in lines]
    assert [(r["benchmark"], r["median"]) for r in table.to_pylist()] == expected
