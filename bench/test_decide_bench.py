"""One look of `decide` on 10,000 benchmarks x 30 rounds, against `compare` of the same table
(issue 44: at most 2x).

Two tables, in memory, each timed for both functions in the same run (warm, median of 7):

- flat: ``fastperf.simulate(10_000, 30, unit="s")``, one run of each variant per round (600,000
  rows): `decide` pairs the i-th runs; `compare` runs its rank-sum test and Hodges-Lehmann
  ratio;
- rounds: ``fastperf.simulate(10_000, rounds=30, unit="s")``, the variants interleaved in 30
  rounds: `decide` pairs the rounds' means; `compare` runs its paired t-test on the rounds.

Printed, not asserted (timings depend on the machine). Asserted: every benchmark has a row.
"""
from __future__ import annotations

import pytest

import fastperf

BENCHMARKS, ROUNDS = 10_000, 30
TARGET_RATIO = 2.0
ROUNDS_OPTIONS = dict(rounds=7, iterations=1, warmup_rounds=1)

#: Medians (s) per (table, side).
_SHARED: dict = {}


@pytest.fixture(scope="module")
def tables():
    return {"flat": fastperf.simulate(BENCHMARKS, ROUNDS, unit="s", seed=0).table,
            "rounds": fastperf.simulate(BENCHMARKS, rounds=ROUNDS, unit="s", seed=0).table}


def run_decide(table):
    return fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03)


def run_compare(table):
    return fastperf.compare(table, baseline="baseline", candidate="candidate")


@pytest.mark.parametrize("shape", ["flat", "rounds"])
@pytest.mark.parametrize("side", ["decide", "compare"])
def test_one_look(benchmark, tables, shape, side, capsys):
    table = tables[shape]
    benchmark.group = (f"decide vs compare, {BENCHMARKS:,} benchmarks x {ROUNDS} rounds "
                       f"({shape}, {table.num_rows:,} rows)")
    benchmark.extra_info["side"] = side
    function = run_decide if side == "decide" else run_compare
    result = benchmark.pedantic(function, args=(table,), **ROUNDS_OPTIONS)
    assert result.table.num_rows == BENCHMARKS
    if benchmark.stats is not None:
        _SHARED[(shape, side)] = benchmark.stats.stats.median
    fast, anchor = _SHARED.get((shape, "decide")), _SHARED.get((shape, "compare"))
    if fast is not None and anchor is not None:
        ratio = fast / anchor
        with capsys.disabled():
            print(f"\ndecide, one look, {shape}: {fast:.4f} s; compare {anchor:.4f} s -> "
                  f"{ratio:.2f}x (goal <= {TARGET_RATIO:g}x: "
                  f"{'met' if ratio <= TARGET_RATIO else 'NOT met'})")
