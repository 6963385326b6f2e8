"""Nested `compare` on 10,000 benchmarks x 20 processes x 5 iterations x 2 variants (issue 40).

The table: ``fastperf.simulate(10_000, processes=20, iterations=5, icc=0.5, unit=None)``, two
million rows, in memory. Three sides, timed on the same table:

- fastperf: `fastperf.compare(table, adjust="none")` at its default levels: per benchmark and
  variant the process means, Welch's t-test on their logs, the ratio's interval exp of Welch's
  (the two-stage analysis of Kalibera & Jones); warm, median of 9 rounds;
- flat: the same call with ``levels=[]`` (every value an independent run: the rank-sum test and
  the Hodges-Lehmann ratio, today's analysis), median of 9 rounds;
- the anchor: what a user writes with pandas and scipy: the table to pandas, a group-by of the
  process means, their logs, and per benchmark ``scipy.stats.ttest_ind(equal_var=False)`` with
  its confidence interval. The loop takes seconds per 1,000 benchmarks, so it runs on the first
  1,000 and its per-benchmark work is scaled to 10,000 (the conversion to pandas counted once,
  as in test_compare_bench.py).

Goals (the issue): nested >= 50x the loop, and <= 1.5x the flat `compare` on the same table.
Printed, not asserted (timings depend on the machine). Asserted: fastperf's p-values and ratio
intervals equal the loop's on the slice (to 1e-9), and every benchmark took the nested analysis.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

import fastperf

BENCHMARKS, PROCESSES, ITERATIONS, ICC = 10_000, 20, 5, 0.5
SLICE = 1_000
SCALE = BENCHMARKS // SLICE
CONFIDENCE = 0.95
TARGET_LOOP_RATIO, TARGET_FLAT_RATIO = 50.0, 1.5
GROUP = (f"compare, {BENCHMARKS:,} benchmarks x {PROCESSES} processes x {ITERATIONS} "
         f"iterations x 2 variants (in memory)")
LOOP_GROUP = (f"pandas group-by + scipy.stats.ttest_ind(equal_var=False) two-stage loop, first "
              f"{SLICE:,} of the {BENCHMARKS:,} benchmarks")
FAST_ROUNDS = dict(rounds=9, iterations=1, warmup_rounds=2)
LOOP_ROUNDS = dict(rounds=3, iterations=1, warmup_rounds=1)

#: What one test leaves for the next: medians (s) per side, fastperf's nested result.
_SHARED: dict = {}


@pytest.fixture(scope="module")
def table():
    return fastperf.simulate(BENCHMARKS, processes=PROCESSES, iterations=ITERATIONS, icc=ICC,
                             unit=None, seed=0).table


def run_compare(table, **options):
    return fastperf.compare(table, baseline="baseline", candidate="candidate", by="benchmark",
                            adjust="none", unit=None, **options)


def record(benchmark, side):
    if benchmark.stats is not None:  # not under --benchmark-disable
        _SHARED[side] = benchmark.stats.stats.median


def test_nested_compare(benchmark, table):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "fastperf"
    res = benchmark.pedantic(run_compare, args=(table,), **FAST_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert res.summary["structure"] == "process"
    assert set(res.benchmarks.column("analysis").to_pylist()) == {"process"}
    _SHARED["result"] = res
    record(benchmark, "fastperf")


def test_flat_compare(benchmark, table):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "flat compare (levels=[])"
    res = benchmark.pedantic(run_compare, args=(table,), kwargs={"levels": []}, **FAST_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert "analysis" not in res.benchmarks.column_names  # today's table
    record(benchmark, "flat")


# ---------------------------------------------------------------------------------------------
# the anchor: the two-stage analysis as a user writes it with pandas and scipy.stats


def two_stage_loop(table, names, phases: list) -> pd.DataFrame:
    """To pandas, keep the benchmarks `names`, the log process means by group-by, and per
    benchmark Welch's t-test (candidate - baseline) with its interval, as a ratio. Appends
    (seconds converting and selecting, seconds in all) to `phases`."""
    start = time.perf_counter()
    df = table.to_pandas()
    df = df[df["benchmark"].isin(names)]
    selected = time.perf_counter()
    means = np.log(df.groupby(["benchmark", "variant", "process"], observed=True)["value"].mean())
    rows = {}
    for bench, g in means.groupby(level="benchmark", observed=True, sort=True):
        x = g.xs("baseline", level="variant").to_numpy()
        y = g.xs("candidate", level="variant").to_numpy()
        res = sps.ttest_ind(y, x, equal_var=False)
        low, high = res.confidence_interval(CONFIDENCE)
        rows[bench] = {"units_baseline": x.size, "units_candidate": y.size,
                       "pvalue": res.pvalue, "ratio_low": np.exp(low),
                       "ratio_high": np.exp(high)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "benchmark"
    phases.append((selected - start, time.perf_counter() - start))
    return out


def test_two_stage_loop(benchmark, table, capsys):
    benchmark.group = LOOP_GROUP
    benchmark.extra_info["side"] = f"pandas+scipy two-stage loop ({SLICE:,}-benchmark slice)"
    names = [f"bench_{i:05d}" for i in range(SLICE)]
    phases: list = []
    loop = benchmark.pedantic(two_stage_loop, args=(table, names, phases), **LOOP_ROUNDS)
    assert list(loop.index) == names
    if benchmark.stats is not None:
        timed = phases[LOOP_ROUNDS["warmup_rounds"]:]
        scaled = float(np.median([c + SCALE * (t - c) for c, t in timed]))
        benchmark.extra_info[f"scaled to {BENCHMARKS:,} (median, s)"] = round(scaled, 3)
        _SHARED["anchor"] = scaled
    check_against_loop(table, loop, names)
    with capsys.disabled():
        print_ratios()


def check_against_loop(table, loop: pd.DataFrame, names: list) -> None:
    """fastperf's nested rows of the slice against the loop's (not timed)."""
    res = _SHARED.get("result")
    res = run_compare(table) if res is None else res
    fp = res.benchmarks.to_pandas().set_index("benchmark").loc[names]
    np.testing.assert_array_equal(fp["units_baseline"].to_numpy(), loop["units_baseline"])
    np.testing.assert_array_equal(fp["units_candidate"].to_numpy(), loop["units_candidate"])
    np.testing.assert_allclose(fp["pvalue"].to_numpy(), loop["pvalue"].to_numpy(), rtol=1e-9)
    np.testing.assert_allclose(fp["ci_low"].to_numpy(), loop["ratio_low"].to_numpy(), rtol=1e-9)
    np.testing.assert_allclose(fp["ci_high"].to_numpy(), loop["ratio_high"].to_numpy(), rtol=1e-9)


def print_ratios() -> None:
    fast, flat, anchor = _SHARED.get("fastperf"), _SHARED.get("flat"), _SHARED.get("anchor")
    if fast is None:
        return
    print(f"\nnested compare, {BENCHMARKS:,} benchmarks x {PROCESSES} x {ITERATIONS} x 2 "
          f"variants: {fast:.4f} s")
    if flat is not None:
        ratio = fast / flat
        print(f"flat compare (levels=[]) {flat:.4f} s -> nested/flat = {ratio:.2f}x (goal <= "
              f"{TARGET_FLAT_RATIO:g}x: {'met' if ratio <= TARGET_FLAT_RATIO else 'NOT met'})")
    if anchor is not None:
        ratio = anchor / fast
        print(f"pandas + scipy two-stage loop ({SLICE:,} benchmarks, per-benchmark work scaled "
              f"x{SCALE}) {anchor:.2f} s -> anchor/fastperf = {ratio:.1f}x (goal >= "
              f"{TARGET_LOOP_RATIO:g}x: {'met' if ratio >= TARGET_LOOP_RATIO else 'NOT met'})")
