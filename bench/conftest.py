"""Shared bench fixtures, and the ratio report printed at the end of every bench run.

Each benchmark sets ``group`` (what is timed) and ``extra_info["side"]`` ("fastperf" or the
anchor's name); the summary prints, per group, each side's median and the anchor/fastperf ratio.
"""
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import fastperf

BENCH = Path(__file__).resolve().parent
DATA = BENCH / ".data"


def measurement_file(benchmarks: int, runs: int, seed: int = 0, variants: int = 2,
                     paired: bool = False) -> Path:
    """A `fastperf.simulate` table (benchmark, variant, run, value in seconds; no unit column),
    generated once and kept in bench/.data (git-ignored). ``paired``: the variants share a
    per-run factor (file name ends "-paired"). The same data, value for value, as the shared
    folder's make_measurements.py wrote under the same names (tests/conformance checks it)."""
    DATA.mkdir(exist_ok=True)
    suffix = ("" if variants == 2 else f"-{variants}variants") + ("-paired" if paired else "")
    path = DATA / f"measurements-{benchmarks}x{runs}-seed{seed}{suffix}.parquet"
    if not path.exists():
        sim = fastperf.simulate(benchmarks, runs, variants=variants, seed=seed, paired=paired, unit=None)
        partial = path.with_suffix(".partial")
        pq.write_table(sim.table, partial)
        partial.replace(path)
    return path


def median_time(fn, rounds: int = 5) -> float:
    """Median wall seconds of `rounds` calls of `fn()`."""
    import statistics
    import time

    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@pytest.fixture(scope="session")
def table_10m_path() -> Path:
    """10 million rows: 10,000 benchmarks x 2 variants x 500 runs = 20,000 groups."""
    return measurement_file(10_000, 500)


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None or not session.benchmarks:
        return
    groups = {}
    for bench in session.benchmarks:
        if not bench.stats.data:  # the timed function raised (its failure is reported above)
            continue
        side = bench.extra_info.get("side", bench.name)
        groups.setdefault(bench.group, {})[side] = bench.stats.median
    terminalreporter.section("fastperf vs anchors (medians; ratio = anchor / fastperf)")
    for group, sides in groups.items():
        fast = sides.get("fastperf")
        parts = [f"{side} {median:.4f} s" for side, median in sides.items()]
        ratios = [f"{side}/fastperf = {median / fast:.2f}x" for side, median in sides.items()
                  if fast and side != "fastperf"]
        terminalreporter.write_line(f"{group}: " + ", ".join(parts + ratios))
    for bench in session.benchmarks:
        for key, value in bench.extra_info.items():
            if key != "side":
                terminalreporter.write_line(f"{bench.group} [{bench.extra_info.get('side')}] {key}: {value}")
