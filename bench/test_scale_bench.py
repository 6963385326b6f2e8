"""Out of core on one machine (docs/scale.md): a Parquet dataset larger than the memory limit,
`describe` and `compare` chunk by chunk, against the in-memory path on a table that fits.

Figures (printed): wall seconds, rows per second, peak RSS of the whole process
(``ru_maxrss``, as docs/performance.md measures memory), and the throughput ratio
out-of-core / in-memory per row. Goals (issue 21): peak RSS under the limit + 500 MB, and
throughput at least half the in-memory path's.

Size: ``FASTPERF_SCALE_BENCHMARKS`` benchmarks (default 100,000) x ``FASTPERF_SCALE_RUNS`` runs
(default 1,000) x 2 variants = 200M rows, written once with `fastperf.simulate` in chunks of
5,000 benchmarks to bench/.data (git-ignored); ``FASTPERF_SCALE_LIMIT`` the memory limit in
bytes (default 2e9).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastperf
from conftest import DATA

BENCHMARKS = int(os.environ.get("FASTPERF_SCALE_BENCHMARKS", 100_000))
RUNS = int(os.environ.get("FASTPERF_SCALE_RUNS", 1_000))
LIMIT = int(float(os.environ.get("FASTPERF_SCALE_LIMIT", 2e9)))
PER_FILE = 5_000

RUN = r"""
import json, resource, sys, time
import fastperf
source, function, limit = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.perf_counter()
data = (fastperf.read(source, memory_limit=int(limit)) if limit != "memory"
        else fastperf.read(source))
if function == "describe":
    result = fastperf.describe(data)
else:
    result = fastperf.compare(data, baseline="old", candidate="new", unit=None)
seconds = time.perf_counter() - start
rows = result.summary.get("input_rows", data.num_rows if hasattr(data, "num_rows") else None)
print(json.dumps({"seconds": seconds, "groups": result.table.num_rows,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def dataset_dir() -> Path:
    """The dataset, one Parquet file per 5,000 benchmarks, made once."""
    path = DATA / f"scale-{BENCHMARKS}x{RUNS}"
    done = path / "_complete"
    if done.exists():
        return path
    path.mkdir(parents=True, exist_ok=True)
    for first in range(0, BENCHMARKS, PER_FILE):
        count = min(PER_FILE, BENCHMARKS - first)
        table = fastperf.simulate(count, RUNS, variants=["old", "new"], seed=first,
                                  unit=None).table
        names = pa.array([f"bench_{first + i:07d}" for i in range(count)])
        codes = table.column("benchmark").combine_chunks().indices
        table = table.set_column(0, "benchmark", pa.DictionaryArray.from_arrays(codes, names))
        pq.write_table(table, path / f"part-{first // PER_FILE:04d}.parquet")
    done.write_text("")
    return path


def run(source: Path, function: str, limit: str) -> dict:
    out = subprocess.run([sys.executable, "-c", RUN, str(source), function, limit],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("function", ["describe", "compare"])
def test_out_of_core_throughput_and_memory(function):
    directory = dataset_dir()
    rows = 2 * BENCHMARKS * RUNS
    fits = sorted(directory.glob("part-*.parquet"))[0]
    fits_rows = pq.ParquetFile(fits).metadata.num_rows
    run(fits, function, "memory")  # compiled and cached before the timed runs
    in_memory = run(fits, function, "memory")
    chunked = run(directory, function, str(LIMIT))
    rate_memory = fits_rows / in_memory["seconds"]
    rate_chunked = rows / chunked["seconds"]
    print(f"\n{function}: in memory {fits_rows:,} rows in {in_memory['seconds']:.2f} s "
          f"({rate_memory / 1e6:.2f} M rows/s, peak RSS {in_memory['rss'] / 2**20:.0f} MiB); "
          f"out of core {rows:,} rows in {chunked['seconds']:.1f} s "
          f"({rate_chunked / 1e6:.2f} M rows/s, peak RSS {chunked['rss'] / 2**20:.0f} MiB, "
          f"limit {LIMIT / 2**20:.0f} MiB); throughput ratio {rate_chunked / rate_memory:.2f} "
          "(goal >= 0.5)")
    assert chunked["groups"] == (2 * BENCHMARKS if function == "describe" else BENCHMARKS)
    assert chunked["rss"] < LIMIT + 500 * 2**20
