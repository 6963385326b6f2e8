"""`speedup_test` on 10,000 benchmarks x 31 runs per side, against a pandas group-by + scipy loop.

Target (seed 002's issue): from a Parquet file made by fastperf.simulate to the result table
in under 1 s on the 2-core machine, and at least 50x faster than a pandas group-by +
scipy.stats loop doing the same protocol per benchmark.

The loop takes seconds per 1,000 benchmarks, so it is timed on the first 1,000 of the same file
(its own group: the summary's ratio line would compare a slice with the whole) and scaled to
10,000. Each loop round reads the whole file with pandas and keeps the slice (one-time work,
counted once), then groups, tests and builds the result DataFrame (per-benchmark work, counted
x10): scaled = read + select + 10 x (group-by + tests + DataFrame), per round, median over the
rounds. The scaled median and the ratio go to the loop's ``extra_info`` (printed by conftest)
and to a line printed at once. The loop's result is also checked against fastperf's (mean
decisions exactly; median decisions where no value is tied, as fastperf's p-value is then the
exact one and scipy's the normal approximation, so a few may differ near alpha).
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from conftest import measurement_file
from fastperf.engine import ranks as ranks_engine
from fastperf.protocols.speedup import speedup_test

BENCHMARKS, RUNS, SLICE = 10_000, 31, 1_000
SCALE = BENCHMARKS // SLICE
ALPHA = 0.05
LARGE_SAMPLE = 30  # "large": both samples have more than 30 values (the paper's n > 30)
TARGET_SECONDS, TARGET_RATIO = 1.0, 50.0
FAST_GROUP = f"speedup_test, {BENCHMARKS:,} benchmarks x {RUNS} runs/side, from Parquet"
LOOP_GROUP = (f"pandas group-by + scipy.stats loop, Speedup-Test, first {SLICE:,} of the "
              f"{BENCHMARKS:,} benchmarks, from Parquet")
LOOP_SIDE = f"pandas+scipy loop ({SLICE:,}-benchmark slice)"
FAST_ROUNDS = dict(rounds=15, iterations=1, warmup_rounds=2)
LOOP_ROUNDS = dict(rounds=5, iterations=1, warmup_rounds=1)

#: What one test leaves for the next (the fastperf median and result), so that the loop's test
#: can print the ratio and check its decisions without running speedup_test again.
_SHARED: dict = {}


@pytest.fixture(scope="module")
def path():
    return measurement_file(BENCHMARKS, RUNS)


def run_fastperf(path):
    return speedup_test(path, baseline="baseline", candidate="candidate")


def clear_caches():
    """The exact rank-sum null distribution is cached by sample sizes: every round computes it,
    as a fresh process would (the warmup rounds still leave the compiled kernels)."""
    ranks_engine.rank_sum_cdf.cache_clear()


def test_speedup_test(benchmark, path):
    benchmark.group = FAST_GROUP
    benchmark.extra_info["side"] = "fastperf"
    res = benchmark.pedantic(run_fastperf, args=(path,), setup=clear_caches, **FAST_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert res.summary["benchmarks_compared"] == BENCHMARKS
    _SHARED["fastperf_result"] = res
    if benchmark.stats is None:  # --benchmark-disable: run once, nothing timed
        return
    median = benchmark.stats.stats.median
    benchmark.extra_info[f"under {TARGET_SECONDS:g} s"] = bool(median < TARGET_SECONDS)
    _SHARED["fastperf_median"] = median


# ---------------------------------------------------------------------------------------------
# the anchor: what a user writes with pandas and scipy.stats


def protocol_one(x: np.ndarray, y: np.ndarray) -> dict:
    """The Speedup-Test of one benchmark (X = baseline, Y = candidate, lower is better)."""
    n, m = x.size, y.size
    med_x, med_y = np.median(x), np.median(y)
    # the mean protocol (Figure 1)
    p_sw_x, p_sw_y = sps.shapiro(x).pvalue, sps.shapiro(y).pvalue
    f = x.var(ddof=1) / y.var(ddof=1)
    p_f = min(1.0, 2 * min(sps.f.cdf(f, n - 1, m - 1), sps.f.sf(f, n - 1, m - 1)))
    large = n > LARGE_SAMPLE and m > LARGE_SAMPLE
    if large or (p_sw_x > ALPHA and p_sw_y > ALPHA):
        test = "student" if p_f > ALPHA else "welch"  # a NaN F-test p (zero variance): Welch
        p_mean = sps.ttest_ind(x, y, equal_var=test == "student", alternative="greater").pvalue
    else:
        test, p_mean = "none", np.nan
    # the median protocol (Figure 2)
    p_ks = sps.ks_2samp(x - med_x, y - med_y).pvalue
    wmw = sps.mannwhitneyu(x, y, alternative="greater")  # method="auto"
    return {
        "speedup_min": x.min() / y.min(), "speedup_mean": x.mean() / y.mean(),
        "speedup_median": med_x / med_y,
        "mean_test": test, "pvalue_shapiro_baseline": p_sw_x, "pvalue_shapiro_candidate": p_sw_y,
        "pvalue_ftest": p_f, "pvalue_mean": p_mean, "mean_significant": bool(p_mean <= ALPHA),
        "pvalue_ks": p_ks, "pvalue_median": wmw.pvalue,
        "median_significant": bool(wmw.pvalue <= ALPHA),
        "prob_candidate_faster": wmw.statistic / (n * m),
        "tied": np.unique(np.concatenate([x, y])).size < n + m,
    }


def pandas_scipy_loop(path, names, phases: list):
    """Read with pandas, keep the benchmarks `names`, group by benchmark, test each one, build
    the result DataFrame. Appends (seconds reading and selecting, seconds in all) to `phases`."""
    start = time.perf_counter()
    df = pd.read_parquet(path)
    df = df[df["benchmark"].isin(names)]
    selected = time.perf_counter()
    rows = {}
    for bench, g in df.groupby("benchmark", observed=True, sort=True):
        x = g.loc[g["variant"] == "baseline", "value"].to_numpy()
        y = g.loc[g["variant"] == "candidate", "value"].to_numpy()
        rows[bench] = protocol_one(x, y)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "benchmark"
    done = time.perf_counter()
    phases.append((selected - start, done - start))
    return out


def test_pandas_scipy_loop(benchmark, path, capsys):
    benchmark.group = LOOP_GROUP
    benchmark.extra_info["side"] = LOOP_SIDE
    names = [f"bench_{i:05d}" for i in range(SLICE)]  # the simulated table's first 1,000
    phases: list = []
    loop = benchmark.pedantic(pandas_scipy_loop, args=(path, names, phases), **LOOP_ROUNDS)
    assert list(loop.index) == names

    if benchmark.stats is not None:  # not under --benchmark-disable
        record_scaled(benchmark, phases[LOOP_ROUNDS["warmup_rounds"]:], capsys)
    check_against_fastperf(benchmark, path, loop, names)


def record_scaled(benchmark, timed: list, capsys) -> None:
    """The loop's time scaled to all the benchmarks, and its ratio to speedup_test's."""
    read = float(np.median([r for r, _ in timed]))
    scaled = float(np.median([r + SCALE * (t - r) for r, t in timed]))
    benchmark.extra_info["read + select (median, s)"] = round(read, 4)
    benchmark.extra_info[f"scaled to {BENCHMARKS:,} (median, s)"] = round(scaled, 3)
    fast = _SHARED.get("fastperf_median")
    if fast is not None:
        ratio = scaled / fast
        benchmark.extra_info[f"ratio to speedup_test (target >= {TARGET_RATIO:g}x)"] = \
            f"{ratio:.1f}x"
        with capsys.disabled():
            print(f"\nspeedup_test vs pandas+scipy loop (scaled x{SCALE}): {ratio:.1f} x "
                  f"(speedup_test {fast:.4f} s on {BENCHMARKS:,}; loop "
                  f"{benchmark.stats.stats.median:.3f} s on {SLICE:,}, {scaled:.2f} s scaled)")


def check_against_fastperf(benchmark, path, loop: pd.DataFrame, names: list) -> None:
    """Sanity check (not timed): the loop's figures and decisions against speedup_test's."""
    res = _SHARED.get("fastperf_result")
    res = run_fastperf(path) if res is None else res
    fp = res.benchmarks.to_pandas().set_index("benchmark").loc[names]
    for column in ("speedup_min", "speedup_mean", "speedup_median", "pvalue_shapiro_baseline",
                   "pvalue_shapiro_candidate", "pvalue_ftest", "pvalue_mean", "pvalue_ks",
                   "prob_candidate_faster"):
        np.testing.assert_allclose(fp[column], loop[column], rtol=1e-9, err_msg=column)
    assert (fp["mean_test"] == loop["mean_test"]).all()
    assert (fp["mean_significant"] == loop["mean_significant"]).all()
    untied = ~loop["tied"]
    assert (untied == (fp["median_method"] == "exact")).all()  # fastperf's tie detection
    differ = fp["median_significant"] != loop["median_significant"]
    assert (differ & untied).sum() <= 0.01 * untied.sum()
    for bench in fp.index[differ & untied]:  # exact and approximate p's either side of alpha
        assert loop.loc[bench, "pvalue_median"] == pytest.approx(ALPHA, abs=0.01)
    df = pd.read_parquet(path)
    for bench in fp.index[untied][:50]:  # fastperf's untied p is scipy's exact one
        g = df[df["benchmark"] == bench]
        x = g.loc[g["variant"] == "baseline", "value"].to_numpy()
        y = g.loc[g["variant"] == "candidate", "value"].to_numpy()
        exact = sps.mannwhitneyu(x, y, alternative="greater", method="exact").pvalue
        assert fp.loc[bench, "pvalue_median"] == pytest.approx(exact, rel=1e-9), bench
    benchmark.extra_info["mean decisions agreeing"] = f"{SLICE}/{SLICE}"
    benchmark.extra_info["median decisions agreeing, untied / tied"] = (
        f"{int((~differ & untied).sum())}/{int(untied.sum())}, "
        f"{int((~differ & ~untied).sum())}/{int((~untied).sum())}")
