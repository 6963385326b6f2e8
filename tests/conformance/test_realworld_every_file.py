"""Every file of the shared real-world and peer folders: read, or refused saying what it is.

The per-tool conformance files (test_realworld_*.py, test_peers_read.py) check the values
against independent parses; this one checks that no file is left out and that the only
refusals are the files that hold no measurements, each refused with a message naming what it
looks like. Pairs of files of one tool then go through `compare`.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import fastperf
from conftest import SHARED
from fastperf import InputError
from fastperf.io.read import detect_format

ROOTS = [SHARED / "data" / "realworld", SHARED / "data" / "peers"]
FILES = sorted(p for root in ROOTS if root.is_dir() for p in root.rglob("*") if p.is_file())
#: Files that hold no measurements, and the phrase their refusal must contain.
REFUSED = {
    "LICENSE": "not a recognised file", "COPYING": "not a recognised file",
    "README.md": "not a recognised file", "SOURCES.md": "not a recognised file",
    "six.txt": "looks like asv console output",
    "argmm_bench_results.txt": "looks like criterion.rs console output",
    "benchmarks.json": "an asv suite description",
    "test4_run0.json": "only aggregate rows", "test4_run1.json": "only aggregate rows",
}


def test_the_folders_are_there():
    assert len(FILES) > 100, [str(r) for r in ROOTS]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SHARED / "data")))
def test_every_file_is_read_or_refused_by_what_it_is(path: Path):
    if path.name in REFUSED:
        with pytest.raises(InputError, match=REFUSED[path.name]):
            fastperf.read(path)
        return
    table = fastperf.read(path)
    assert table.num_rows > 0


#: The level columns (docs/data-model.md, docs/readers.md "Levels") a format fills on every file.
LEVELS_BY_FORMAT = {"pyperf": ("process", "iteration"), "jmh": ("process", "iteration"),
                    "hyperfine": ("process",)}
#: Files of formats that fill the levels only where the file tells processes apart: Go output
#: of repeated ``go test`` invocations (bent: 25 runs, each its own header block; SOURCES.md),
#: a BenchmarkDotNet full export with result measurements (``LaunchIndex``).
LEVELS_BY_FILE = {name: ("process", "iteration") for name in (
    "20200101T213604.Base.stdout", "20200101T213604.Tip.stdout", "Go1.17-opt.20220105T213212",
    "b5bfaf410a-opt.20220105T213212", "memory.json")}


@pytest.mark.parametrize("path", [p for p in FILES if p.name not in REFUSED],
                         ids=lambda p: str(p.relative_to(SHARED / "data")))
def test_every_file_has_the_levels_its_tool_records(path: Path):
    table = fastperf.read(path)
    levels = tuple(c for c in ("build", "process", "iteration", "round") if c in table.column_names)
    expected = LEVELS_BY_FILE.get(path.name, LEVELS_BY_FORMAT.get(detect_format(path), ()))
    assert levels == expected
    for column in levels:
        assert table.schema.field(column).type == pa.int64()


def _pairs():
    """Two files of one tool folder that are read with the same format (the first two)."""
    by_folder: dict[tuple, list[Path]] = {}
    for path in FILES:
        if path.name in REFUSED:
            continue
        by_folder.setdefault((path.parent, detect_format(path)), []).append(path)
    return [files[:2] for files in by_folder.values() if len(files) >= 2]


@pytest.mark.parametrize("pair", _pairs() if FILES else [],
                         ids=lambda p: f"{p[0].parent.name}:{p[0].name}+{p[1].name}")
def test_pairs_of_one_tool_go_through_compare(pair):
    """The two files as baseline and candidate: one row per benchmark they share or not, each
    with a verdict (an independent check of the counts: the union of their benchmark names)."""
    a, b = pair
    try:
        table = fastperf.read([a, b], variants=["a", "b"])
    except InputError:  # files with a variant column of their own (asv: the commit)
        table = fastperf.read([a, b])
    variants = list(dict.fromkeys(table.column("variant").cast(pa.string()).to_pylist()))
    assert len(variants) >= 2, variants
    table = table.filter(pc.is_in(table.column("variant").cast(pa.string()),
                                  pa.array(variants[:2], pa.string())))
    result = fastperf.compare(table, baseline=variants[0], candidate=variants[1])
    rows = result.benchmarks
    assert rows.num_rows >= 1
    assert set(rows.column("verdict").to_pylist()) <= set(
        ["worse", "better", "changed", "equivalent", "no change", "too few runs"])
    names = {str(n) for n in table.column("benchmark").to_pylist()}
    assert {str(n) for n in rows.column("benchmark").to_pylist()} == names
