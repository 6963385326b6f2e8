"""`check` on 10,000 benchmarks x 2 variants x 20 processes x 5 iterations (2,000,000 rows),
against `describe` of the same table (issue 45: at most 2x).

The table is ``fastperf.simulate(10_000, processes=20, iterations=5, icc=0.3, unit="s")``, in
memory; both functions are timed in the same run (warm, median of 7). `check` finds the warm-up,
the outliers, the modes (the dip test), the drift, the timer's resolution, the spread and the
units of each of the 20,000 (benchmark, variant) groups; `describe` gives their count, mean,
spread, quantiles and intervals.

Printed, not asserted (timings depend on the machine). Asserted: every group has a row.
"""
from __future__ import annotations

import pytest

import fastperf

BENCHMARKS, PROCESSES, ITERATIONS = 10_000, 20, 5
TARGET_RATIO = 2.0
ROUNDS_OPTIONS = dict(rounds=7, iterations=1, warmup_rounds=1)

#: Medians (s) per side.
_SHARED: dict = {}


@pytest.fixture(scope="module")
def table():
    return fastperf.simulate(BENCHMARKS, processes=PROCESSES, iterations=ITERATIONS, icc=0.3,
                             unit="s", seed=0).table


@pytest.mark.parametrize("side", ["check", "describe"])
def test_check_against_describe(benchmark, table, side, capsys):
    benchmark.group = (f"check vs describe, {BENCHMARKS:,} benchmarks x 2 x {PROCESSES} x "
                       f"{ITERATIONS} ({table.num_rows:,} rows)")
    benchmark.extra_info["side"] = side
    function = fastperf.check if side == "check" else fastperf.describe
    result = benchmark.pedantic(function, args=(table,), **ROUNDS_OPTIONS)
    rows = result.table if side == "check" else result.groups
    assert rows.num_rows == 2 * BENCHMARKS
    if benchmark.stats is not None:
        _SHARED[side] = benchmark.stats.stats.median
    fast, anchor = _SHARED.get("check"), _SHARED.get("describe")
    if fast is not None and anchor is not None:
        ratio = fast / anchor
        with capsys.disabled():
            print(f"\ncheck {fast:.4f} s; describe {anchor:.4f} s -> {ratio:.2f}x "
                  f"(goal <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'NOT met'})")
