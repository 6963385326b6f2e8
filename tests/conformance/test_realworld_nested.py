"""The levels of the real pyperf, JMH and BenchmarkDotNet files of the shared folder: their ICCs
(docs/nested.md), recomputed here from an independent parse (json) with the textbook one-way
ANOVA estimators, equal fastperf's; `compare` runs nested on them."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import fastperf
from conftest import SHARED
from naive import one_way_anova
from fastperf.data.levels import resolve_structure, variance_components

REAL = SHARED / "data" / "realworld"
PYPERF = {"py36.json": ("telco", 0.45), "py38.json": ("telco", 0.51),
          "py2.json": ("call_simple", 0.76)}


def _existing(names, folder):
    return [REAL / folder / n for n in names if (REAL / folder / n).is_file()]


def _pyperf_processes(path: Path, name: str) -> list[np.ndarray]:
    doc = json.loads(path.read_text())
    benchmarks = doc.get("benchmarks") or [doc.get("benchmark")]
    for bench in benchmarks:
        meta = {**doc.get("metadata", {}), **bench.get("metadata", {})}
        if meta.get("name") == name:
            return [np.log(np.array(r["values"], dtype=float)) for r in bench["runs"]
                    if r.get("values")]
    raise AssertionError(f"{name} not in {path}")


def _anova_icc(groups: list[np.ndarray]) -> float:
    between, within = one_way_anova(groups)
    return between / (between + within)


@pytest.mark.parametrize("path", _existing(PYPERF, "pyperf"), ids=lambda p: p.name)
def test_pyperf_icc_of_the_real_files(path):
    name, quoted = PYPERF[path.name]
    table = fastperf.read(path)
    assert "process" in table.column_names
    components = variance_components(table, ["benchmark"], None, "value",
                                     resolve_structure(table.column_names)).to_pylist()
    row = next(r for r in components if r["benchmark"] == name)
    processes = _pyperf_processes(path, name)
    assert row["n_units"] == len(processes)
    assert row["icc"] == pytest.approx(_anova_icc(processes), rel=1e-10)
    assert round(row["icc"], 2) == quoted  # the figures docs/nested.md quotes


@pytest.mark.skipif(not all((REAL / "pyperf" / n).is_file() for n in ("py36.json", "py38.json")),
                    reason="the shared pyperf files are absent")
def test_compare_runs_nested_on_two_pyperf_files():
    paths = [REAL / "pyperf" / "py36.json", REAL / "pyperf" / "py38.json"]
    result = fastperf.compare(paths, baseline="py36", candidate="py38")
    row = next(r for r in result.table.to_pylist() if r["benchmark"] == "telco")
    assert result.summary["structure"] == "process"
    assert row["analysis"] == "process" and row["units_baseline"] == 20
    x = np.log([np.mean(np.exp(p)) for p in _pyperf_processes(paths[0], "telco")])
    y = np.log([np.mean(np.exp(p)) for p in _pyperf_processes(paths[1], "telco")])
    assert row["pvalue"] == pytest.approx(stats.ttest_ind(y, x, equal_var=False).pvalue,
                                          rel=1e-9)
    assert "n=20\u00d73" in result.to_text()


@pytest.mark.parametrize("path", _existing(["jmh_output.json", "six.json"], "jmh")
                         + _existing(["memory.json"], "benchmarkdotnet"), ids=lambda p: p.name)
def test_jmh_and_benchmarkdotnet_files_report_their_processes(path):
    table = fastperf.read(path)
    assert "process" in table.column_names and "iteration" in table.column_names
    by = ["benchmark", "unit"] + [c for c in ("param_computeType", "job")
                                  if c in table.column_names]
    components = variance_components(table, by, None, "value",
                                     resolve_structure(table.column_names)).to_pylist()
    frame = table.to_pandas()
    expected = frame.groupby(by, sort=False, observed=True)["process"].nunique(dropna=False)
    assert sorted(r["n_units"] for r in components) == sorted(expected.tolist())
