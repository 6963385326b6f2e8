"""`sparc` on 10,000 paired benchmarks x 30 runs, against a pandas group-by + scipy loop; `sparc`
unpaired and `hpt` on the same file (fastperf only, informative).

Target (seed 003's issue): SPARC on 10,000 paired benchmarks x 30 runs under 1 s (from the
Parquet file made by fastperf.simulate(paired=True) to the result table, on the 2-core machine),
with the ratio against a scipy loop printed (no ratio target).

The loop does, per benchmark, what `sparc(..., pair="run")` does on its default log scale
(``scale="log"``): the ratios r_i = x_i / y_i of the runs matched by "run", their logs, three
`scipy.stats.wilcoxon` tests (log r two-sided, log r - log 1.05 "less", log r - log 0.95
"greater"; zero_method="wilcox", correction=True, method="auto"), the equivalence p = the
larger one-sided p, Bonferroni over the family of the whole table (m = 2 x 10,000 + 1), Table
I's conclusion, the median ratio exp(median log r) (for the even n = 30, the geometric mean of
the two middle ratios, not their arithmetic mean: `sparc`'s ``ratio_median``); then the overall
two-sided test over the logs of the median ratios of the benchmarks with a relevant
difference. It takes seconds per 1,000 benchmarks, so it is timed on
the first 1,000 of the same file (its own group) and scaled to 10,000 as in
test_speedup_bench.py: each round reads the whole file with pandas and keeps the slice (one-time
work, counted once), pairs the runs, groups, tests and builds the result DataFrame
(per-benchmark work, counted x10), then runs the overall test (once): scaled = read + select +
10 x (pair + group-by + tests + DataFrame) + overall, per round, median over the rounds.

Decisions are cross-checked on the slice, at fastperf's alpha_corrected: where no test of the
benchmark sees a tie or a zero difference, fastperf's "auto" and scipy's are both the exact
untied test, so p-values and conclusions must agree; with ties fastperf is exact conditional on
the ties and scipy normal-approximate, so only the agreement count is reported (and the
approximate p-values are checked against fastperf's method="asymptotic").
"""
from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from conftest import measurement_file
from fastperf.engine import ranks as ranks_engine
from fastperf.protocols.hpt import hpt
from fastperf.protocols.sparc import CONCLUSIONS, sparc

BENCHMARKS, RUNS, SLICE = 10_000, 30, 1_000
SCALE = BENCHMARKS // SLICE
MARGIN, ALPHA = 0.05, 0.05
TESTS = 2 * BENCHMARKS + 1  # SPARC's family: difference + equivalence per benchmark, + overall
ALPHA_CORRECTED = ALPHA / TESTS  # Bonferroni
TARGET_SECONDS = 1.0
FAST_GROUP = f"sparc paired, {BENCHMARKS:,} benchmarks x {RUNS} runs, from Parquet"
LOOP_GROUP = (f"pandas group-by + scipy.stats.wilcoxon loop, SPARC paired, first {SLICE:,} of "
              f"the {BENCHMARKS:,} benchmarks, from Parquet")
LOOP_SIDE = f"pandas+scipy loop ({SLICE:,}-benchmark slice)"
UNPAIRED_GROUP = f"sparc unpaired (pair=None), {BENCHMARKS:,} benchmarks x {RUNS} runs/side"
HPT_GROUP = f"hpt, {BENCHMARKS:,} benchmarks x {RUNS} runs/side"
FAST_ROUNDS = dict(rounds=15, iterations=1, warmup_rounds=2)
LOOP_ROUNDS = dict(rounds=5, iterations=1, warmup_rounds=1)
EXTRA_ROUNDS = dict(rounds=7, iterations=1, warmup_rounds=1)

#: What one test leaves for the next (the fastperf median and result).
_SHARED: dict = {}

#: A fresh interpreter's import and first two calls (numba's parallel builds compile per process).
_FIRST_CALL = """
import json, sys, time
t0 = time.perf_counter()
from fastperf.protocols.sparc import sparc
t1 = time.perf_counter()
sparc(sys.argv[1], baseline="baseline", candidate="candidate")
t2 = time.perf_counter()
sparc(sys.argv[1], baseline="baseline", candidate="candidate")
t3 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))
"""


@pytest.fixture(scope="module")
def path():
    return measurement_file(BENCHMARKS, RUNS, paired=True)


def run_fastperf(path):
    return sparc(path, baseline="baseline", candidate="candidate", pair="run", margin=MARGIN,
                 alpha=ALPHA, adjust="bonferroni", method="auto")


def clear_caches():
    """The exact null distributions are cached by sample size: every round computes them, as a
    fresh process would (the warmup rounds still leave the compiled kernels)."""
    ranks_engine.signed_rank_cdf.cache_clear()
    ranks_engine.rank_sum_cdf.cache_clear()


def first_call(path) -> list[float]:
    """Import, first and second `sparc` call in a fresh interpreter (seconds)."""
    out = subprocess.run([sys.executable, "-c", _FIRST_CALL, str(path)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_sparc_paired(benchmark, path):
    benchmark.group = FAST_GROUP
    benchmark.extra_info["side"] = "fastperf"
    res = benchmark.pedantic(run_fastperf, args=(path,), setup=clear_caches, **FAST_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert res.summary["rows_not_ok"] == 0
    assert res.summary["tests"] == TESTS
    assert res.summary["alpha_corrected"] == pytest.approx(ALPHA_CORRECTED, rel=1e-15)
    _SHARED["fastperf_result"] = res
    if benchmark.stats is None:  # --benchmark-disable: run once, nothing timed
        return
    median = benchmark.stats.stats.median
    _SHARED["fastperf_median"] = median
    benchmark.extra_info[f"under {TARGET_SECONDS:g} s"] = bool(median < TARGET_SECONDS)
    imp, first, second = first_call(path)
    benchmark.extra_info["fresh process: import / first call / second call (s)"] = (
        f"{imp:.2f} / {first:.2f} / {second:.3f}")
    benchmark.extra_info["conclusions"] = res.summary["conclusions"]
    assert median < TARGET_SECONDS, f"sparc median {median:.3f} s, target < {TARGET_SECONDS} s"


# ---------------------------------------------------------------------------------------------
# the anchor: what a user writes with pandas and scipy.stats


def _wilcoxon_p(d: np.ndarray, alternative: str) -> float:
    """scipy's signed-rank p (zeros dropped, continuity-corrected when approximate, "auto");
    1 when every difference is 0 (no evidence against H0), as SPARC takes it."""
    if not d.any():
        return 1.0
    return float(sps.wilcoxon(d, zero_method="wilcox", correction=True, alternative=alternative,
                              method="auto").pvalue)


def _tied(d: np.ndarray) -> bool:
    """A zero or a tie among the |differences|: scipy's "auto" is then not exact."""
    nonzero = np.abs(d[d != 0])
    return nonzero.size < d.size or np.unique(nonzero).size < nonzero.size


def sparc_one(log_r: np.ndarray) -> dict:
    """SPARC's three signed-rank tests of one benchmark's paired log ratios log(x / y), on the
    log scale (sparc's default ``scale="log"``)."""
    d_diff, d_up, d_low = log_r, log_r - np.log1p(MARGIN), log_r - np.log1p(-MARGIN)
    p_up, p_low = _wilcoxon_p(d_up, "less"), _wilcoxon_p(d_low, "greater")
    return {
        "n": log_r.size, "ratio_median": np.exp(np.median(log_r)),
        "pvalue_difference": _wilcoxon_p(d_diff, "two-sided"),
        "pvalue_upper": p_up, "pvalue_lower": p_low, "pvalue_equivalence": max(p_up, p_low),
        "tied": _tied(d_diff) or _tied(d_up) or _tied(d_low),
    }


def pandas_scipy_loop(path, names, phases: list):
    """Read with pandas, keep the benchmarks `names`, pair the runs, group by benchmark, test
    each one, build the result DataFrame with Table I's conclusions, then the overall test.
    Appends (read + select, + per-benchmark work, total) in seconds to `phases`."""
    start = time.perf_counter()
    df = pd.read_parquet(path)
    df = df[df["benchmark"].isin(names)]
    selected = time.perf_counter()
    wide = df.pivot(index=["benchmark", "run"], columns="variant", values="value").dropna()
    x, y = wide["baseline"], wide["candidate"]
    # log(x / y) as sign * log(larger / smaller): exactly antisymmetric, so the runs (a, b) and
    # (b, a) of timer-quantized values give |log r| that tie, as they do in `sparc`
    # (fastperf.protocols.relevance.log_ratios); np.log(x / y) can differ there by an ulp, which
    # breaks the tie and changes scipy's tie-corrected approximate p-value
    log_ratio = np.sign(x - y) * np.log(np.maximum(x, y) / np.minimum(x, y))
    rows = {bench: sparc_one(r.to_numpy())
            for bench, r in log_ratio.groupby(level="benchmark", observed=True, sort=True)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "benchmark"
    out["reject_difference"] = out["pvalue_difference"] <= ALPHA_CORRECTED
    out["reject_equivalence"] = out["pvalue_equivalence"] <= ALPHA_CORRECTED
    code = np.where(out["reject_difference"], np.where(out["reject_equivalence"], 1, 0),
                    np.where(out["reject_equivalence"], 2, 3))
    out["conclusion"] = np.array(CONCLUSIONS)[code]
    per_benchmark = time.perf_counter()
    relevant = out.loc[out["conclusion"] == CONCLUSIONS[0], "ratio_median"].to_numpy()
    overall = _wilcoxon_p(np.log(relevant), "two-sided") if relevant.size else np.nan
    out.attrs["overall_pvalue"] = overall
    done = time.perf_counter()
    phases.append((selected - start, per_benchmark - start, done - start))
    return out


def test_pandas_scipy_loop(benchmark, path, capsys):
    benchmark.group = LOOP_GROUP
    benchmark.extra_info["side"] = LOOP_SIDE
    names = [f"bench_{i:05d}" for i in range(SLICE)]  # the simulated table's first 1,000
    phases: list = []
    loop = benchmark.pedantic(pandas_scipy_loop, args=(path, names, phases), **LOOP_ROUNDS)
    assert list(loop.index) == names
    assert (loop["n"] == RUNS).all()

    if benchmark.stats is not None:  # not under --benchmark-disable
        record_scaled(benchmark, phases[LOOP_ROUNDS["warmup_rounds"]:], capsys)
    check_against_fastperf(benchmark, path, loop, names, capsys)


def record_scaled(benchmark, timed: list, capsys) -> None:
    """The loop's time scaled to all the benchmarks, and its ratio to sparc's."""
    read = float(np.median([r for r, _, _ in timed]))
    scaled = float(np.median([r + SCALE * (b - r) + (t - b) for r, b, t in timed]))
    benchmark.extra_info["read + select (median, s)"] = round(read, 4)
    benchmark.extra_info[f"scaled to {BENCHMARKS:,} (median, s)"] = round(scaled, 3)
    fast = _SHARED.get("fastperf_median")
    if fast is not None:
        ratio = scaled / fast
        benchmark.extra_info["ratio to sparc (no target)"] = f"{ratio:.1f}x"
        with capsys.disabled():
            print(f"\nsparc (paired) vs pandas+scipy loop (scaled x{SCALE}): {ratio:.1f} x "
                  f"(sparc {fast:.4f} s on {BENCHMARKS:,}; loop "
                  f"{benchmark.stats.stats.median:.3f} s on {SLICE:,}, {scaled:.2f} s scaled)")


def check_against_fastperf(benchmark, path, loop: pd.DataFrame, names: list, capsys) -> None:
    """Sanity check (not timed): the loop's figures and decisions against sparc's."""
    res = _SHARED.get("fastperf_result")
    res = run_fastperf(path) if res is None else res
    fp = res.benchmarks.to_pandas().set_index("benchmark").loc[names]
    np.testing.assert_allclose(fp["ratio_median"], loop["ratio_median"], rtol=1e-12)
    assert (fp["n"] == loop["n"]).all()
    untied = ~loop["tied"]
    assert (untied == (fp["method"] == "exact")).all()  # fastperf's tie detection
    for column in ("pvalue_difference", "pvalue_upper", "pvalue_lower", "pvalue_equivalence"):
        np.testing.assert_allclose(fp.loc[untied, column], loop.loc[untied, column], rtol=1e-9,
                                   atol=1e-300, err_msg=column)
    agree = fp["conclusion"] == loop["conclusion"]
    assert agree[untied].all(), fp.index[untied & ~agree].tolist()
    # with ties scipy is approximate: its p's are fastperf's asymptotic ones
    tied = fp.index[~untied]
    asym = sparc(path, baseline="baseline", candidate="candidate", method="asymptotic")
    fa = asym.benchmarks.to_pandas().set_index("benchmark").loc[tied]
    for column in ("pvalue_difference", "pvalue_upper", "pvalue_lower"):
        np.testing.assert_allclose(fa[column], loop.loc[tied, column], rtol=1e-9, atol=1e-300,
                                   err_msg=f"{column} (asymptotic, tied)")
    n_untied, n_tied = int(untied.sum()), int((~untied).sum())
    counts = (f"untied {int(agree[untied].sum())}/{n_untied}, tied (fastperf exact with ties, "
              f"scipy approximate) {int(agree[~untied].sum())}/{n_tied}")
    benchmark.extra_info["conclusions agreeing"] = counts
    benchmark.extra_info["slice conclusions (loop)"] = \
        loop["conclusion"].value_counts().reindex(CONCLUSIONS, fill_value=0).to_dict()
    with capsys.disabled():
        print(f"sparc vs loop conclusions on the {SLICE:,}-benchmark slice at alpha "
              f"{ALPHA_CORRECTED:.4g}: {counts}")


# ---------------------------------------------------------------------------------------------
# informative: the unpaired design and HPT on the same file (fastperf only)


def test_sparc_unpaired(benchmark, path):
    benchmark.group = UNPAIRED_GROUP
    benchmark.extra_info["side"] = "fastperf"
    res = benchmark.pedantic(
        lambda: sparc(path, baseline="baseline", candidate="candidate", pair=None),
        setup=clear_caches, **EXTRA_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert res.summary["rows_not_ok"] == 0
    benchmark.extra_info["conclusions"] = res.summary["conclusions"]


def test_hpt(benchmark, path):
    benchmark.group = HPT_GROUP
    benchmark.extra_info["side"] = "fastperf"
    res = benchmark.pedantic(lambda: hpt(path, baseline="baseline", candidate="candidate"),
                             setup=clear_caches, **EXTRA_ROUNDS)
    assert res.benchmarks.num_rows == BENCHMARKS
    assert res.summary["benchmarks_tested"] == BENCHMARKS
    benchmark.extra_info["significant / reliability"] = (
        f"{res.summary['significant']} / {res.summary['reliability']:.6g}")
    benchmark.extra_info["speedups"] = {row["confidence"]: row["speedup"]
                                        for row in res.speedups.to_pylist()}
