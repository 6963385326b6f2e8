"""The JMH, BenchmarkDotNet and Google Benchmark console readers on the real files of the shared
folder (data/realworld/jmh, benchmarkdotnet, google-benchmark-console): the count of values per
benchmark (and the values where a plain parse gives them) equals an independent parse written
here with the json, csv and re modules, not with the readers' code; pairs of JMH files of one
benchmark go through `fastperf.compare`."""
from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import fastperf
from conftest import SHARED
from fastperf.io.benchmarkdotnet import looks_like_benchmarkdotnet, read_benchmarkdotnet
from fastperf.io.benchmarkdotnet_csv import (looks_like_benchmarkdotnet_csv,
                                             read_benchmarkdotnet_csv)
from fastperf.io.common import config_columns, load_json, with_config
from fastperf.io.summaries import is_summary_table
from fastperf.io.google_benchmark_console import (looks_like_google_benchmark_console,
                                                  read_google_benchmark_console)
from fastperf.io.jmh import looks_like_jmh, read_jmh

REAL = SHARED / "data" / "realworld"


def _files(folder: str, pattern: str = "*") -> list[Path]:
    where = REAL / folder
    return sorted(p for p in where.glob(pattern) if p.is_file()) if where.is_dir() else []


def _counts(table: pa.Table) -> Counter:
    return Counter(zip(table.column("benchmark").to_pylist(), table.column("unit").to_pylist()))


@pytest.mark.parametrize("path", _files("jmh", "*.json"), ids=lambda p: p.name)
def test_jmh_counts(path):
    doc = json.loads(path.read_text())
    expected: Counter = Counter()
    for entry in doc:
        primary = entry["primaryMetric"]
        n = sum(len(fork) for fork in primary.get("rawData", []))
        n += sum(count for fork in primary.get("rawDataHistogram", []) for it in fork
                 for _, count in it)
        expected[(entry["benchmark"], primary["scoreUnit"])] += n
        for name, metric in entry.get("secondaryMetrics", {}).items():
            m = sum(len(fork) for fork in metric.get("rawData", []))
            if m:
                expected[(f"{entry['benchmark']}:{name}", metric["scoreUnit"])] += m
    data = load_json(path)
    assert looks_like_jmh(data)
    table = read_jmh(path, data)
    assert not is_summary_table(table)
    # params make distinct benchmarks share a name: count per (name, unit) over all of them
    assert _counts(table) == expected
    raw = [v for e in doc for fork in e["primaryMetric"].get("rawData", []) for v in fork]
    assert sorted(table.column("value").to_pylist()) == sorted(raw)
    # the levels: rawData[fork][iteration] -> process = fork, iteration (these files keep rawData)
    levels = []
    for entry in doc:
        metrics = [(entry["benchmark"], entry["primaryMetric"])] + [
            (f"{entry['benchmark']}:{k}", m) for k, m in entry.get("secondaryMetrics", {}).items()]
        for name, metric in metrics:
            for fork, scores in enumerate(metric.get("rawData", [])):
                levels += [(name, fork, i) for i in range(len(scores))]
    assert list(zip(table.column("benchmark").to_pylist(), table.column("process").to_pylist(),
                    table.column("iteration").to_pylist())) == levels


def test_jmh_pair_goes_through_compare():
    paths = [p for p in _files("jmh", "jmh_output*.json")]
    if len(paths) < 2:
        pytest.skip("the two JMH runs of one benchmark are not in the shared folder")
    tables = []
    for path in paths[:2]:
        t = read_jmh(path, load_json(path))
        tables.append(t.append_column("variant", pa.array([path.stem] * t.num_rows)))
    names = list(dict.fromkeys(c for t in tables for c in config_columns(t)))
    table = with_config(pa.concat_tables(tables, promote_options="default"), names)
    result = fastperf.compare(table, baseline=paths[0].stem, candidate=paths[1].stem)
    assert result.benchmarks.num_rows == 1


@pytest.mark.parametrize("path", _files("benchmarkdotnet", "*.json"), ids=lambda p: p.name)
def test_benchmarkdotnet_json_counts(path):
    doc = json.loads(path.read_text())
    expected: Counter = Counter()
    values: list[float] = []
    for entry in doc["Benchmarks"]:
        result = [m["Nanoseconds"] / m["Operations"] for m in entry.get("Measurements", [])
                  if m["IterationMode"] == "Workload" and m["IterationStage"] == "Result"]
        if not result:
            result = list((entry.get("Statistics") or {}).get("OriginalValues") or [])
        expected[(entry["FullName"], "ns/op")] += len(result)
        values += result
        if entry.get("Memory", {}).get("BytesAllocatedPerOperation") is not None:
            expected[(entry["FullName"], "B/op")] += 1
    data = load_json(path)
    assert looks_like_benchmarkdotnet(data)
    table = read_benchmarkdotnet(path, data)
    assert _counts(table) == expected
    time = table.filter(pc.equal(table.column("unit"), "ns/op"))
    assert sorted(time.column("value").to_pylist()) == pytest.approx(sorted(values))


_CELL = re.compile(r"^([0-9,]+(?:\.[0-9]+)?) (ns|μs|us|ms|s)$")
_SCALE = {"ns": 1.0, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


@pytest.mark.parametrize("path", _files("benchmarkdotnet", "*.csv"), ids=lambda p: p.name)
def test_benchmarkdotnet_csv_means(path):
    text = path.read_text(encoding="utf-8")
    rows = list(csv.DictReader(text.splitlines()))
    expected = Counter((r["Method"], "ns/op") for r in rows)
    if "Allocated" in rows[0]:
        expected.update((r["Method"], "B/op") for r in rows)
    means = []
    for r in rows:
        m = _CELL.match(r["Mean"])
        means.append(float(m.group(1).replace(",", "")) * _SCALE[m.group(2)])
    assert looks_like_benchmarkdotnet_csv(text)
    table = read_benchmarkdotnet_csv(path, text)
    assert is_summary_table(table)
    assert _counts(table) == expected
    time = table.filter(pc.equal(table.column("unit"), "ns/op"))
    assert time.column("mean").to_pylist() == pytest.approx(means)


_LINE = re.compile(r"^(BM_\S+)\s+([0-9.]+) (ns|us|ms|s)\s+[0-9.]+ (?:ns|us|ms|s)\s+\d+")
_AGG = re.compile(r"_(mean|median|stddev|cv|BigO|RMS)$")


@pytest.mark.parametrize("path", _files("google-benchmark-console"), ids=lambda p: p.name)
def test_google_benchmark_console_counts(path):
    text = path.read_text()
    expected: Counter = Counter()
    values = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and not _AGG.search(m.group(1)):
            expected[(m.group(1), "s")] += 1
            values.append(float(m.group(2)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[m.group(3)])
    assert looks_like_google_benchmark_console(text)
    table = read_google_benchmark_console(path, text)
    assert _counts(table) == expected
    assert table.column("value").to_pylist() == pytest.approx(values)
