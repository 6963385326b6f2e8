"""fastperf against the floor of its work, in fresh processes: the goals of issue 42.

Each case runs in PROCESSES fresh processes. A process imports fastperf and the function (not
timed: that is import time, which bench/test_startup_bench.py measures), prepares the data (not
timed), then times:

- first: the call once (what a user's process pays: native kernels, no manual warm-up);
- second: the same call again;
- floor: what no implementation can skip, on the same data in the same process, median of 3:
  for `compare`, ``pyarrow.parquet.read_table`` + ``numpy.sort`` of the value column (reading the
  data and ordering it once); for the rank tests, numpy's sort of the rows they are given (or
  of the pooled values) in place, in buffers allocated once: the sorting itself; for
  `describe`, polars' group-by of the same six statistics (count, mean, std, min, median, max;
  polars gives no intervals).

Why the rank tests' floor sorts into buffers allocated once: into fresh memory the same sort
also pays the page faults of its output (about 0.4 ms a MB on this machine), and whether it
does depends on what the process freed before, not on the sort. 10,000 rows of 30 vs 30 took
0.9 ms or 2.5 ms in the same process; the first definition (numpy.sort, new arrays) gave a
floor of 2.5 ms before a call and 0.9 ms after some, so ratios swung 2.8x with the allocator.

Printed: the medians over the processes, and first / floor and second / floor against the goal.
The compare tables are `fastperf.simulate` files of B benchmarks x R runs x 2 variants in
bench/.data (git-ignored, made on first use). Run from the repository root::

    python bench/floor.py                    # every case, 5 processes each
    python bench/floor.py compare-10000x31 -p 3
    python bench/floor.py --parallel         # with threads asked for (FASTPERF_PARALLEL=1)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

PROCESSES = 5

COMPARE = """
from fastperf import compare
import pyarrow.parquet as pq
path = {path!r}
def call():
    return compare(path, baseline="baseline", candidate="candidate", adjust="none",
                   higher_is_better=False)
def floor():
    return np.sort(pq.read_table(path).column("value").to_numpy())
"""

RANK_ROWS = """
from fastperf import {function}
rng = np.random.default_rng(0)
x, y = rng.lognormal(0, 0.05, (10_000, 30)), rng.lognormal(0.01, 0.05, (10_000, 30))
sorted_x, sorted_y = np.empty_like(x), np.empty_like(y)
def call():
    return {function}(x, y)
def floor():
    sorted_x[...] = x
    sorted_x.sort(axis=1)
    sorted_y[...] = y
    sorted_y.sort(axis=1)
"""

RANK_SUM_LARGE = """
from fastperf import mannwhitneyu
rng = np.random.default_rng(1)
x, y = rng.lognormal(0, 0.1, 2_000_000), rng.lognormal(0.0001, 0.1, 2_000_000)
pooled = np.empty(x.size + y.size)
def call():
    return mannwhitneyu(x, y)
def floor():
    pooled[:x.size] = x
    pooled[x.size:] = y
    pooled.sort()
"""

DESCRIBE = """
from fastperf import describe
import polars as pl
import pyarrow.parquet as pq
table = pq.read_table({path!r})
frame = pl.from_arrow(table)
def call():
    return describe(table)
def floor():
    return frame.group_by(["benchmark", "variant"]).agg(
        pl.col("value").count().alias("count"), pl.col("value").mean().alias("mean"),
        pl.col("value").std().alias("std"), pl.col("value").min().alias("min"),
        pl.col("value").median().alias("median"), pl.col("value").max().alias("max"))
"""

TIMING = """
import json, time
floor()
t0 = time.perf_counter(); call(); t1 = time.perf_counter(); call(); t2 = time.perf_counter()
floors = []
for _ in range(3):
    s = time.perf_counter(); floor(); floors.append(time.perf_counter() - s)
print(json.dumps({"first": t1 - t0, "second": t2 - t1, "floor": sorted(floors)[1]}))
"""

#: case -> (what is timed, the floor's name, goal as a ratio to the floor, the shape of the
#: compare / describe file or None)
CASES = {
    "compare-10000x31": ("compare, 10,000 x 31 x 2", "read + sort", 3.0, (10_000, 31)),
    "compare-100x10000": ("compare, 100 x 10,000 x 2", "read + sort", 3.0, (100, 10_000)),
    "compare-10x100000": ("compare, 10 x 100,000 x 2", "read + sort", 3.0, (10, 100_000)),
    "compare-1x1000000": ("compare, 1 x 1,000,000 x 2", "read + sort", 3.0, (1, 1_000_000)),
    "compare-100000x50": ("compare, 100,000 x 50 x 2", "read + sort", 3.0, (100_000, 50)),
    "mannwhitneyu-10000x30": ("mannwhitneyu, 10,000 rows of 30 vs 30", "sort rows", 2.0, None),
    "wilcoxon-10000x30": ("wilcoxon, 10,000 paired rows of 30", "sort rows", 2.0, None),
    "mannwhitneyu-2Mx2M": ("mannwhitneyu, 2M vs 2M", "sort pooled", 1.5, None),
    "describe-5M": ("describe, 5M rows / 100,000 groups", "polars group-by", 1.0, (50_000, 50)),
}


def child_code(case: str) -> str:
    """The setup of `case`'s process (defines call() and floor()), then the timing."""
    shape = CASES[case][3]
    path = None
    if shape is not None:
        from conftest import measurement_file

        path = str(measurement_file(*shape))
    if case.startswith("compare"):
        setup = COMPARE.format(path=path)
    elif case.startswith("describe"):
        setup = DESCRIBE.format(path=path)
    elif case == "mannwhitneyu-2Mx2M":
        setup = RANK_SUM_LARGE
    else:
        setup = RANK_ROWS.format(function=case.split("-")[0])
    return "import numpy as np\n" + setup + TIMING


def measure(case: str, processes: int, parallel: bool = False) -> dict:
    """Medians over `processes` fresh processes of `case`'s first, second and floor times
    (with ``FASTPERF_PARALLEL=1`` where `parallel`: the parallel builds, the JIT's start in
    the first call)."""
    code = child_code(case)
    environment = {**os.environ, "FASTPERF_PARALLEL": "1" if parallel else "0"}
    runs = []
    for _ in range(processes):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).resolve().parent, env=environment)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help=f"cases to run (default: all): {', '.join(CASES)}")
    parser.add_argument("-p", "--processes", type=int, default=PROCESSES)
    parser.add_argument("--parallel", action="store_true",
                        help="ask for threads (FASTPERF_PARALLEL=1): docs/performance.md#threads")
    args = parser.parse_args(argv)
    unknown = [case for case in args.cases if case not in CASES]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}; choose from {', '.join(CASES)}")
    print(f"{'what':<40} {'floor':<16} {'floor s':>8} {'first s':>8} {'second s':>8} "
          f"{'first/fl':>8} {'second/fl':>9} {'goal':>5}")
    for case in args.cases or list(CASES):
        what, floor_name, goal, _ = CASES[case]
        row = measure(case, args.processes, args.parallel)
        first, second = row["first"] / row["floor"], row["second"] / row["floor"]
        flag = "ok" if first <= goal else "missed"
        print(f"{what:<40} {floor_name:<16} {row['floor']:8.4f} {row['first']:8.4f} "
              f"{row['second']:8.4f} {first:7.2f}x {second:8.2f}x {goal:4.1f}x {flag}", flush=True)


if __name__ == "__main__":
    main()
