"""pytest-benchmark saves without per-round data (realworld/pytest-benchmark autosaves,
peers/pytest-benchmark's 2015 saves) read by fastperf.io.pytest_benchmark_summaries; the
statistics per benchmark against a parse of the JSON written here, independently of the reader."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from conftest import SHARED
from fastperf.io.common import load_json
from fastperf.io.summaries import is_summary_table
from fastperf.io.pytest_benchmark_summaries import (
    looks_like_pytest_benchmark_tree, read_pytest_benchmark_summaries, read_pytest_benchmark_tree,
)

FOLDERS = [SHARED / "data" / "realworld" / "pytest-benchmark",
           SHARED / "data" / "peers" / "pytest-benchmark"]
FILES = sorted(p for folder in FOLDERS if folder.is_dir() for p in folder.glob("*.json"))
SAVE = re.compile(r"^\d{4}_.*\.json$")


def expected(path):
    """(benchmark, rounds, mean) per benchmark entry, from the raw JSON."""
    doc = json.loads(path.read_text())
    return [(b.get("fullname") or b["name"], b["stats"]["rounds"], b["stats"]["mean"])
            for b in doc["benchmarks"]]


@pytest.mark.skipif(not FILES, reason="no pytest-benchmark files in the shared folder")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:60])
def test_summaries(path):
    table = read_pytest_benchmark_summaries(path, load_json(path))
    assert is_summary_table(table)
    got = [(r["benchmark"], r["n"], r["mean"]) for r in table.to_pylist()]
    assert got == expected(path)
    assert set(table.column("unit").to_pylist()) == {"s"}


@pytest.mark.skipif(not FILES, reason="no pytest-benchmark files in the shared folder")
@pytest.mark.parametrize("folder", [f for f in FOLDERS if f.is_dir()], ids=lambda p: p.parent.name)
def test_storage_folder(folder):
    assert looks_like_pytest_benchmark_tree(folder)
    table = read_pytest_benchmark_tree(folder)
    saves = sorted(p for p in folder.glob("*.json") if SAVE.match(p.name))
    assert Counter(table.column("variant").to_pylist()) == {
        p.stem: len(expected(p)) for p in saves}
