"""Shared bench fixtures, and the ratio report printed at the end of every bench run.

Each benchmark sets ``group`` (what is timed) and ``extra_info["side"]`` ("fastperf" or the
anchor's name); the summary prints, per group, each side's median and the anchor/fastperf ratio.
"""
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent
DATA = BENCH / ".data"
MAKE_MEASUREMENTS = BENCH.parents[1] / "shared" / "tools" / "make_measurements.py"


def measurement_file(benchmarks: int, runs: int, seed: int = 0, variants: int = 2,
                     paired: bool = False) -> Path:
    """A make_measurements.py table, generated once and kept in bench/.data (git-ignored).
    ``paired``: the variants share a per-run factor (``--paired``; file name ends "-paired")."""
    DATA.mkdir(exist_ok=True)
    suffix = ("" if variants == 2 else f"-{variants}variants") + ("-paired" if paired else "")
    path = DATA / f"measurements-{benchmarks}x{runs}-seed{seed}{suffix}.parquet"
    if not path.exists():
        subprocess.run([sys.executable, str(MAKE_MEASUREMENTS), str(path), "--benchmarks",
                        str(benchmarks), "--runs", str(runs), "--seed", str(seed),
                        "--variants", str(variants)] + (["--paired"] if paired else []),
                       check=True)
    return path


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
