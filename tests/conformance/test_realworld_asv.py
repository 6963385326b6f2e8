"""asv results files of the shared folder (realworld/asv: asv's own example results, version 1,
and its benchmarks.json) read by fastperf.io.asv; counts per benchmark against a parse of the
JSON written here, independently of the reader."""
from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import pytest

from conftest import SHARED
from fastperf.io.asv import looks_like_asv, looks_like_asv_tree, read_asv, read_asv_tree
from fastperf.io.common import load_json
from fastperf.io.summaries import is_summary_table

ASV = SHARED / "data" / "realworld" / "asv"
RESULTS = sorted(p for p in ASV.glob("*.json") if p.name != "benchmarks.json") \
    if ASV.is_dir() else []


def expected_values(path):
    """benchmark name (params expanded as name(v1, v2)) -> number of measured (non-null,
    non-NaN) results, from the raw JSON."""
    doc = json.loads(path.read_text())
    counts: Counter = Counter()
    for name, value in doc["results"].items():
        if isinstance(value, dict):
            params = value.get("params") or []
            result = value.get("result")
            result = result if isinstance(result, list) else [result]
            combos = [f"{name}({', '.join(c)})" for c in itertools.product(*params)] if params \
                else [name]
        else:
            combos, result = [name], [value]
        for combo, r in zip(combos, result):
            counts[combo] += int(isinstance(r, (int, float)) and not math.isnan(r))
    return doc["commit_hash"][:8], counts


@pytest.mark.skipif(not RESULTS, reason=f"no asv results files under {ASV}")
@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_results_file(path):
    data = load_json(path)
    assert looks_like_asv(data)
    table = read_asv(path, data)
    commit, counts = expected_values(path)
    assert is_summary_table(table)  # no samples stored in these files
    assert set(table.column("variant").to_pylist()) == {commit}
    got: Counter = Counter()
    rows: Counter = Counter()
    for r in table.to_pylist():
        rows[r["benchmark"]] += 1
        got[r["benchmark"]] += r["median"] is not None
    assert got == counts
    assert set(rows.values()) == {1}


@pytest.mark.skipif(not RESULTS, reason=f"no asv results files under {ASV}")
def test_results_folder():
    assert looks_like_asv_tree(ASV)  # benchmarks.json marks it
    table = read_asv_tree(ASV)
    expected = {expected_values(p)[0]: sum(1 for _ in expected_values(p)[1]) for p in RESULTS}
    assert Counter(table.column("variant").to_pylist()) == expected
    assert not looks_like_asv((ASV / "six.txt").read_text())  # console output, not results
