"""`compare` on 10,000 benchmarks x 31 runs x 2 variants, from a Parquet file to the verdict table.

Four sides, timed on the same file (fastperf.simulate, bench/.data):

- fastperf: `fastperf.compare(path, adjust="none")` in-process, warm (compiled kernels, the JIT
  started and threads asked for, FASTPERF_PARALLEL=1, so that large inputs take the parallel
  builds; the exact rank-sum null distribution,
  cached by sample sizes, is cleared before every round as a fresh process would compute it),
  median of 15 rounds;
- the floor: ``pyarrow.parquet.read_table`` + one ``numpy.sort`` of all the values (reading the
  data and ordering it once: what no implementation can skip);
- the anchor: a pandas group-by + ``scipy.stats.mannwhitneyu`` (two-sided) + ``numpy.median``
  loop building the same verdict table; it takes seconds per 1,000 benchmarks, so it runs on the
  file's first 1,000 benchmarks and is scaled to 10,000 as in test_speedup_bench.py (read +
  select once, per-benchmark work x 10);
- the CLI: the whole process ``python -m fastperf compare FILE --baseline ... --candidate ...
  --adjust none --format parquet -o OUT`` (subprocess, warm Numba cache: one untimed run first).

Target (the issue): in-process <= 3x the floor. Printed, not asserted (timings depend on the
machine), with the ratios fastperf/floor and anchor/fastperf. Asserted: the result's shape, and
its correctness against the anchor on the slice (medians exactly, p-values against scipy's exact
test on rows without ties, verdicts equal except where scipy's asymptotic p and the exact one
fall either side of alpha).
"""
from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import scipy.stats as sps

from conftest import BENCH, measurement_file
from fastperf.engine import ranks as ranks_engine
from fastperf.kernels import builds
from fastperf.protocols.compare import compare

BENCHMARKS, RUNS, SLICE = 10_000, 31, 1_000
SCALE = BENCHMARKS // SLICE
ALPHA = 0.05
TARGET_FLOOR_RATIO = 3.0
GROUP = f"compare, {BENCHMARKS:,} benchmarks x {RUNS} runs x 2 variants, Parquet -> verdict table"
LOOP_GROUP = (f"pandas group-by + scipy.stats.mannwhitneyu loop, first {SLICE:,} of the "
              f"{BENCHMARKS:,} benchmarks, from Parquet")
FAST_ROUNDS = dict(rounds=15, iterations=1, warmup_rounds=2)
CLI_ROUNDS = dict(rounds=5, iterations=1, warmup_rounds=1)
LOOP_ROUNDS = dict(rounds=3, iterations=1, warmup_rounds=1)

#: What one test leaves for the next: medians (s) per side, fastperf's result.
_SHARED: dict = {}


@pytest.fixture(scope="module")
def path():
    return measurement_file(BENCHMARKS, RUNS)


def run_fastperf(path):
    return compare(path, baseline="baseline", candidate="candidate", adjust="none",
                   higher_is_better=False)


def clear_caches():
    ranks_engine.rank_sum_cdf.cache_clear()


def record(benchmark, side):
    if benchmark.stats is not None:  # not under --benchmark-disable
        _SHARED[side] = benchmark.stats.stats.median


def test_floor(benchmark, path):
    """pyarrow.parquet.read_table + one numpy.sort of every value."""
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "floor: read_table + np.sort"

    def floor():
        table = pq.read_table(path)
        return np.sort(table.column("value").to_numpy())

    values = benchmark.pedantic(floor, **FAST_ROUNDS)
    assert values.size == BENCHMARKS * RUNS * 2
    record(benchmark, "floor")


def test_compare_in_process(benchmark, path, monkeypatch):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "fastperf"
    # a process that asked for threads and started the JIT: the group kernels' thresholds give
    # large inputs to the parallel builds (otherwise the native serial builds run them:
    # fastperf.kernels.builds, docs/performance.md "Threads")
    monkeypatch.setenv(builds.PARALLEL_ENV, "1")
    builds.jit_all()
    res = benchmark.pedantic(run_fastperf, args=(path,), setup=clear_caches, **FAST_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert res.summary["comparisons"] == BENCHMARKS
    assert (res.benchmarks.column("n_baseline").to_numpy() == RUNS).all()
    _SHARED["result"] = res
    record(benchmark, "fastperf")


def test_cli_process(benchmark, path, tmp_path):
    benchmark.group = GROUP
    benchmark.extra_info["side"] = "CLI process"
    out = tmp_path / "verdicts.parquet"
    command = [sys.executable, "-m", "fastperf", "compare", str(path), "--baseline", "baseline",
               "--candidate", "candidate", "--adjust", "none", "--format", "parquet",
               "-o", str(out)]
    subprocess.run(command, check=True, capture_output=True, cwd=BENCH.parent)  # Numba cache

    def cli():
        done = subprocess.run(command, capture_output=True, text=True, cwd=BENCH.parent)
        assert done.returncode in (0, 1), done.stderr  # 1: a failure gate, not used here
        return done

    benchmark.pedantic(cli, **CLI_ROUNDS)
    assert pq.read_table(out).num_rows == BENCHMARKS
    record(benchmark, "cli")


# ---------------------------------------------------------------------------------------------
# the anchor: what a user writes with pandas and scipy.stats


def compare_one(x: np.ndarray, y: np.ndarray) -> dict:
    """Medians, the two-sided Mann-Whitney p (scipy's method="auto") and the verdict (lower is
    better) of one benchmark, X = baseline, Y = candidate."""
    med_x, med_y = np.median(x), np.median(y)
    p = sps.mannwhitneyu(y, x, alternative="two-sided").pvalue
    verdict = "no change" if not p < ALPHA else ("worse" if med_y > med_x else "better")
    return {"n_baseline": x.size, "n_candidate": y.size, "median_baseline": med_x,
            "median_candidate": med_y, "delta": med_y / med_x - 1.0, "pvalue": p,
            "verdict": verdict, "tied": np.unique(np.concatenate([x, y])).size < x.size + y.size}


def pandas_scipy_loop(path, names, phases: list):
    """Read with pandas, keep the benchmarks `names`, group, test each one, build the result
    DataFrame. Appends (seconds reading and selecting, seconds in all) to `phases`."""
    start = time.perf_counter()
    df = pd.read_parquet(path)
    df = df[df["benchmark"].isin(names)]
    selected = time.perf_counter()
    rows = {}
    for bench, g in df.groupby("benchmark", observed=True, sort=True):
        x = g.loc[g["variant"] == "baseline", "value"].to_numpy()
        y = g.loc[g["variant"] == "candidate", "value"].to_numpy()
        rows[bench] = compare_one(x, y)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "benchmark"
    phases.append((selected - start, time.perf_counter() - start))
    return out


def test_pandas_scipy_loop(benchmark, path, capsys):
    benchmark.group = LOOP_GROUP
    benchmark.extra_info["side"] = f"pandas+scipy loop ({SLICE:,}-benchmark slice)"
    names = [f"bench_{i:05d}" for i in range(SLICE)]
    phases: list = []
    loop = benchmark.pedantic(pandas_scipy_loop, args=(path, names, phases), **LOOP_ROUNDS)
    assert list(loop.index) == names
    if benchmark.stats is not None:
        timed = phases[LOOP_ROUNDS["warmup_rounds"]:]
        scaled = float(np.median([r + SCALE * (t - r) for r, t in timed]))
        benchmark.extra_info[f"scaled to {BENCHMARKS:,} (median, s)"] = round(scaled, 3)
        _SHARED["anchor"] = scaled
    check_against_anchor(benchmark, path, loop, names)
    with capsys.disabled():
        print_ratios()


def check_against_anchor(benchmark, path, loop: pd.DataFrame, names: list) -> None:
    """fastperf's rows of the slice against the loop's (not timed)."""
    res = _SHARED.get("result")
    res = run_fastperf(path) if res is None else res
    fp = res.benchmarks.to_pandas().set_index("benchmark").loc[names]
    for column in ("n_baseline", "n_candidate", "median_baseline", "median_candidate"):
        np.testing.assert_array_equal(fp[column].to_numpy(), loop[column].to_numpy(), column)
    np.testing.assert_allclose(fp["delta"], loop["delta"], rtol=1e-12)
    untied = ~loop["tied"]
    df = pd.read_parquet(path)
    for bench in fp.index[untied][:100]:  # without ties fastperf's p is the exact one
        g = df[df["benchmark"] == bench]
        x = g.loc[g["variant"] == "baseline", "value"].to_numpy()
        y = g.loc[g["variant"] == "candidate", "value"].to_numpy()
        exact = sps.mannwhitneyu(y, x, alternative="two-sided", method="exact").pvalue
        assert fp.loc[bench, "pvalue"] == pytest.approx(exact, rel=1e-9), bench
    differ = fp["verdict"] != loop["verdict"]
    for bench in fp.index[differ]:  # scipy's asymptotic p and the exact one around alpha
        assert loop.loc[bench, "pvalue"] == pytest.approx(ALPHA, abs=0.01), bench
    assert differ.sum() <= 0.01 * SLICE
    benchmark.extra_info["verdicts equal to the anchor's"] = f"{int((~differ).sum())}/{SLICE}"


def print_ratios() -> None:
    fast, floor = _SHARED.get("fastperf"), _SHARED.get("floor")
    anchor, cli = _SHARED.get("anchor"), _SHARED.get("cli")
    if fast is None or floor is None:
        return
    ratio = fast / floor
    print(f"\ncompare, {BENCHMARKS:,} benchmarks x {RUNS} runs x 2 variants: in-process "
          f"{fast:.4f} s, floor (read_table + np.sort) {floor:.4f} s -> fastperf/floor = "
          f"{ratio:.2f}x (goal <= {TARGET_FLOOR_RATIO:g}x: "
          f"{'met' if ratio <= TARGET_FLOOR_RATIO else 'NOT met'})")
    if anchor is not None:
        print(f"pandas + scipy loop (scaled x{SCALE}) {anchor:.2f} s -> anchor/fastperf = "
              f"{anchor / fast:.1f}x")
    if cli is not None:
        print(f"CLI process (python -m fastperf compare ... --format parquet -o ...) {cli:.3f} s "
              f"-> CLI/in-process = {cli / fast:.2f}x, CLI/floor = {cli / floor:.2f}x")
