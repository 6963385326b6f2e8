"""The validity suite: type I error and coverage of fastperf's tests and intervals, measured by
simulation on benchmark-shaped noise with a known truth (issue 19; table in docs/validity.md).

Every cell draws `REPLICATES` independent data sets with `fastperf.simulate` (one benchmark a
replicate: the batched functions take them all in one call), for each noise shape (log-normal,
bimodal, heavy right tail, quantised timer) and sample size, and reports the rate at which the
method rejects a true null (type I error) or covers the true value (coverage), with its Monte
Carlo standard error SE = sqrt(nominal (1 - nominal) / replicates).

A cell marked *exact* is one where the method is exact (or conservative) by construction for
that noise: exact rank, sign-flip and permutation tests (valid whenever the null makes the
data exchangeable or the differences symmetric), order-statistic intervals, Student's t and F
on normal data (the logs of the log-normal shape are normal), the Benjamini-Hochberg
procedure under independence, and the sample-size plan's assurance on normal data. Such a cell
fails the suite when it is liberal by more than 3 SE (type I above nominal + 3 SE, coverage
below nominal - 3 SE). The other cells (bootstrap intervals, asymptotic methods, the papers'
ratio arithmetic, normal-theory methods on non-normal noise) are reported, not judged: their
numbers are what docs/validity.md publishes and what the reliability notes are based on.

Run it with ``pytest bench/validity -q -s`` (the table is printed at the end and written to
``bench/validity/.validity.md``); ``FASTPERF_VALIDITY_REPLICATES`` sets the replicates (2000 by
default; CI runs the default).
"""
from __future__ import annotations

import functools
import math
import os
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from scipy import stats

import fastperf

REPLICATES = int(os.environ.get("FASTPERF_VALIDITY_REPLICATES", "2000"))
SHAPES = ("lognormal", "bimodal", "heavy_tail", "quantised")
SIZES = (10, 30, 100)
ALPHA = 0.05
CONFIDENCE = 0.95
SIGMA = 0.05  # the noise scale of every replicate (5 % log-sd, the middle of real benchmarks)
TABLE = Path(__file__).resolve().parent / ".validity.md"

#: (method, shape, n, what, nominal, observed, se, exact, verdict) of every cell run.
ROWS: list[tuple] = []


def record(method: str, shape: str, n: int | str, what: str, nominal: float, hits: np.ndarray,
           exact: bool) -> str | None:
    """Add a cell to the table; return a failure message when an exact cell is liberal."""
    hits = np.asarray(hits, dtype=bool)
    observed = float(hits.mean())
    se = math.sqrt(nominal * (1.0 - nominal) / hits.size)
    if what == "coverage" or what == "assurance":
        liberal = observed < nominal - 3.0 * se
    else:
        liberal = observed > nominal + 3.0 * se
    verdict = ("FAIL" if liberal else "ok") if exact else ("liberal" if liberal else "-")
    ROWS.append((method, shape, n, what, nominal, observed, se, exact, verdict))
    if exact and liberal:
        return (f"{method} [{shape}, n={n}]: {what} {observed:.4f}, nominal {nominal} "
                f"(3 SE = {3 * se:.4f})")
    return None


def draw(shape: str, n: int, replicates: int = REPLICATES, *, seed: int, effect: float = 1.0,
         paired: bool = False):
    """`replicates` benchmarks of `n` runs a variant, every one with the same distribution
    (base 1, sigma 5 %): the table, and the baseline's and candidate's values as arrays."""
    sim = fastperf.simulate(benchmarks=replicates, runs=n, shapes=shape, sigma=SIGMA, base=1.0,
                            effects=effect, paired=paired, unit=None, seed=seed)
    values = sim.table.column("value").to_numpy()
    half = replicates * n
    return sim.table, values[:half].reshape(replicates, n), values[half:].reshape(replicates, n)


@functools.lru_cache(maxsize=None)
def population(shape: str, size: int = 4_000_000) -> np.ndarray:
    """A large sample of one replicate's distribution (for the true mean and median)."""
    return draw(shape, size, 1, seed=99)[1][0]


def seed_of(*parts) -> int:
    """A seed fixed by the cell (str hashes change between processes; CRC-32 does not)."""
    return zlib.crc32(repr(parts).encode())


def check(failures: list) -> None:
    failures = [f for f in failures if f]
    assert not failures, "\n".join(failures)


# ------------------------------------------------------------------------------ type I error


@pytest.mark.parametrize("shape", SHAPES)
def test_two_sample_tests(shape):
    """Independent runs, no change: rank-sum, Kolmogorov-Smirnov and permutation tests (exact
    by construction), Student/Welch t, F and one-way ANOVA on the logs (exact for normal
    logs), Shapiro-Wilk on the logs (Royston's approximation)."""
    failures = []
    for n in SIZES:
        _, x, y = draw(shape, n, seed=seed_of("two", shape, n))
        lx, ly = np.log(x), np.log(y)
        normal = shape == "lognormal"
        failures.append(record("mannwhitneyu (auto)", shape, n, "type I", ALPHA,
                               fastperf.mannwhitneyu(x, y).pvalue <= ALPHA, True))
        failures.append(record("ks_2samp (auto)", shape, n, "type I", ALPHA,
                               fastperf.ks_2samp(x, y).pvalue <= ALPHA, True))
        perm = fastperf.permutation_test((x, y), n_resamples=999, seed=1)
        failures.append(record("permutation_test (mean_diff)", shape, n, "type I", ALPHA,
                               perm.pvalue <= ALPHA, True))
        failures.append(record("ttest_ind on logs", shape, n, "type I", ALPHA,
                               fastperf.ttest_ind(lx, ly).pvalue <= ALPHA, normal))
        failures.append(record("ttest_ind (Welch) on times", shape, n, "type I", ALPHA,
                               fastperf.ttest_ind(x, y, equal_var=False).pvalue <= ALPHA, False))
        failures.append(record("ftest on logs", shape, n, "type I", ALPHA,
                               fastperf.ftest(lx, ly).pvalue <= ALPHA, normal))
        failures.append(record("f_oneway on logs", shape, n, "type I", ALPHA,
                               fastperf.f_oneway(lx, ly).pvalue <= ALPHA, normal))
        if normal:
            failures.append(record("shapiro on logs", shape, n, "type I", ALPHA,
                                   fastperf.shapiro(lx).pvalue <= ALPHA, False))
    check(failures)


@pytest.mark.parametrize("shape", SHAPES)
def test_paired_tests(shape):
    """Paired runs (a shared per-run factor), no change: the signed-rank test of the log
    ratios (exact: their distribution is symmetric), the paired t test on the logs (exact for
    normal logs), and SPARC's paired difference and equivalence tests on both scales."""
    failures = []
    for n in SIZES:
        table, x, y = draw(shape, n, seed=seed_of("paired", shape, n), paired=True)
        d = np.log(x) - np.log(y)
        failures.append(record("wilcoxon of log ratios (auto)", shape, n, "type I", ALPHA,
                               fastperf.wilcoxon(d).pvalue <= ALPHA, True))
        failures.append(record("ttest_rel on logs", shape, n, "type I", ALPHA,
                               fastperf.ttest_rel(np.log(x), np.log(y)).pvalue <= ALPHA,
                               shape == "lognormal"))
        for scale in ("log", "ratio"):
            res = fastperf.sparc(table, baseline="baseline", candidate="candidate", adjust="none",
                                 overall=False, scale=scale)
            failures.append(record(f"sparc paired difference ({scale})", shape, n, "type I",
                                   ALPHA, res.benchmarks.column("reject_difference").to_numpy(
                                       zero_copy_only=False), scale == "log"))
        # equivalence at its upper bound: the candidate truly 1.05 times faster (delta 0.05)
        table, _, _ = draw(shape, n, seed=seed_of("tost", shape, n), paired=True, effect=1.05)
        for scale in ("log", "ratio"):
            res = fastperf.sparc(table, baseline="baseline", candidate="candidate", adjust="none",
                                 overall=False, scale=scale, margin=0.05)
            failures.append(record(f"sparc paired equivalence at 1 + delta ({scale})", shape, n,
                                   "type I", ALPHA,
                                   res.benchmarks.column("reject_equivalence").to_numpy(
                                       zero_copy_only=False), scale == "log"))
    check(failures)


@pytest.mark.parametrize("shape", SHAPES)
def test_sparc_unpaired(shape):
    """Independent runs: SPARC's rank-sum difference test (the same on both scales)."""
    failures = []
    for n in SIZES:
        table, _, _ = draw(shape, n, seed=seed_of("sparc-u", shape, n))
        res = fastperf.sparc(table, baseline="baseline", candidate="candidate", pair=None,
                             adjust="none", overall=False)
        failures.append(record("sparc unpaired difference", shape, n, "type I", ALPHA,
                               res.benchmarks.column("reject_difference").to_numpy(
                                   zero_copy_only=False), True))
    check(failures)


def families(shape: str, n: int, count: int, size: int, seed: int):
    """`count` tables of `size` null benchmarks each (one family a call)."""
    table, _, _ = draw(shape, n, count * size, seed=seed)
    number = np.asarray(table.column("benchmark").combine_chunks().indices)  # 0 .. count*size-1
    which = number // size
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(count + 1))
    return [table.take(pa.array(order[bounds[i]:bounds[i + 1]])) for i in range(count)]


@pytest.mark.parametrize("shape", SHAPES)
def test_family_procedures(shape):
    """Families of null benchmarks (10 runs a side): HPT's level 2 ("candidate better" at
    reliability >= 95 %) on both scales over 400 benchmarks a family (about 20 of them
    significant at level 1, so that level 2 has scores to test), and `compare`'s
    Benjamini-Hochberg default over 20 (any benchmark flagged: with every null true, the FDR
    is that probability)."""
    failures = []
    tables = families(shape, 10, REPLICATES // 4, 400, seed_of("hpt", shape))
    for scale in ("log", "ratio"):
        better = [fastperf.hpt(t, baseline="baseline", candidate="candidate", confidences=(),
                               scale=scale).summary["pvalue"] <= ALPHA for t in tables]
        failures.append(record(f"hpt level 2 ({scale} scores)", shape, "400 x 10", "type I",
                               ALPHA, better, scale == "log"))
    tables = families(shape, 10, REPLICATES // 2, 20, seed_of("families", shape))
    flagged = [fastperf.compare(t, baseline="baseline", candidate="candidate", by="benchmark",
                                unit=None).summary["verdicts"]
               for t in tables]
    any_flag = [v["worse"] + v["better"] + v["changed"] > 0 for v in flagged]
    failures.append(record("compare (BH, all null): FDR", shape, "20 x 10", "type I", ALPHA,
                           any_flag, True))
    check(failures)


# ------------------------------------------------------------------------------ coverage


@pytest.mark.parametrize("shape", SHAPES)
def test_describe_intervals(shape):
    """describe's Student interval of the mean and exact order-statistic interval of the
    median, against the population's mean and median."""
    big = population(shape)
    true_mean, true_median = float(big.mean()), float(np.median(big))
    failures = []
    for n in SIZES:
        table, _, _ = draw(shape, n, seed=seed_of("describe", shape, n))
        g = fastperf.describe(table, confidence=CONFIDENCE).groups
        g = g.filter(pc.equal(g.column("variant"), "baseline"))
        col = {c: g.column(c).to_numpy(zero_copy_only=False) for c in g.column_names}
        failures.append(record("describe ci_mean (Student)", shape, n, "coverage", CONFIDENCE,
                               (col["ci_mean_low"] <= true_mean) & (true_mean <= col["ci_mean_high"]),
                               False))
        failures.append(record("describe ci_median (order statistics)", shape, n, "coverage",
                               CONFIDENCE, (col["ci_median_low"] <= true_median)
                               & (true_median <= col["ci_median_high"]), True))
    check(failures)


@pytest.mark.parametrize("shape", SHAPES)
def test_bootstrap_intervals(shape):
    """Bootstrap intervals (999 resamples) of the mean and the median: reported, not judged
    (no bootstrap interval is exact; the reliability notes of `bootstrap` quote these)."""
    big = population(shape)
    truth = {"mean": float(big.mean()), "median": float(np.median(big))}
    methods = {"mean": ("percentile", "basic", "bca", "studentized"),
               "median": ("percentile", "basic", "bca")}
    from fastperf.stats.bootstrap import METHODS
    for n in SIZES:
        _, x, _ = draw(shape, n, seed=seed_of("bootstrap", shape, n))
        for statistic, names in methods.items():
            for method in names:
                if method not in METHODS:
                    continue
                res = fastperf.bootstrap((x,), statistic=statistic, method=method,
                                         n_resamples=999, seed=3)
                low, high = res.confidence_interval
                record(f"bootstrap {statistic} ({method})", shape, n, "coverage", CONFIDENCE,
                       (low <= truth[statistic]) & (truth[statistic] <= high), False)


@pytest.mark.parametrize("shape", SHAPES)
def test_aggregate_score_per_run(shape):
    """aggregate_score's per-run interval of a 10-benchmark suite's geometric mean (10 and 30
    runs): coverage of what it estimates, the mean of the per-run geometric means
    E[(x_1 ... x_10)^(1/10)], and of the geometric mean of the benchmarks' mean times."""
    big = population(shape)
    per_run_truth = float(np.mean(big ** 0.1) ** 10)  # identical benchmarks
    geomean_of_means = float(big.mean())
    failures = []
    suites = REPLICATES // 2
    for n in (10, 30):
        table, _, _ = draw(shape, n, suites * 10, seed=seed_of("aggregate", shape, n))
        table = table.filter(pc.equal(table.column("variant"), "baseline"))
        index = np.asarray(table.column("benchmark").combine_chunks().indices)
        table = table.set_column(table.column_names.index("variant"), "variant",
                                 pa.array(index // 10)).set_column(
            table.column_names.index("benchmark"), "benchmark", pa.array(index % 10))
        g = fastperf.aggregate_score(table, kind="geomean", confidence=CONFIDENCE, unit=None).groups
        low = g.column("ci_low").to_numpy(zero_copy_only=False)
        high = g.column("ci_high").to_numpy(zero_copy_only=False)
        failures.append(record("aggregate_score per-run: mean of per-run geomeans", shape, n,
                               "coverage", CONFIDENCE,
                               (low <= per_run_truth) & (per_run_truth <= high),
                               shape == "lognormal"))
        record("aggregate_score per-run: geomean of mean times", shape, n, "coverage",
               CONFIDENCE, (low <= geomean_of_means) & (geomean_of_means <= high), False)
    check(failures)


@pytest.mark.parametrize("shape", SHAPES)
def test_plan_runs_assurance(shape):
    """plan_runs: pilots of 10 and 30 runs plan for a 1 % relative half-width at 95 %; a
    follow-up of the planned size is drawn from the same distribution, and the rate at which
    its interval reaches 1 % is compared with the plan's assurance (exact on normal data: the
    tolerance-probability method assumes it), and with the plug-in plan (assurance=None)."""
    import inspect

    if "assurance" not in inspect.signature(fastperf.plan_runs).parameters:
        pytest.skip("plan_runs has no assurance= yet")
    failures = []
    for m in (10, 30):
        table, pilot, _ = draw(shape, m, seed=seed_of("pilot", shape, m))
        table = table.filter(pc.equal(table.column("variant"), "baseline"))
        for assurance in (0.8, None):
            plan = fastperf.plan_runs(table, precision=0.01, confidence=CONFIDENCE,
                                      assurance=assurance, unit=None).groups
            need = plan.column("runs_needed").to_numpy()
            big = int(need.max())
            _, follow, _ = draw(shape, big, seed=seed_of("follow", shape, m, assurance))
            runs = np.arange(big)[None, :] < need[:, None]
            count = need.astype(float)
            mean = np.where(runs, follow, 0.0).sum(1) / count
            sd = np.sqrt(np.where(runs, (follow - mean[:, None]) ** 2, 0.0).sum(1) / (count - 1))
            halfwidth = stats.t.ppf(0.5 + CONFIDENCE / 2, count - 1) * sd / np.sqrt(count)
            reached = halfwidth <= 0.01 * np.abs(mean)
            if assurance is None:  # judged against the 0.8 that a user would want
                record("plan_runs plug-in (assurance=None)", shape, m, "assurance", 0.8,
                       reached, False)
            else:
                failures.append(record(f"plan_runs assurance={assurance}", shape, m, "assurance",
                                       assurance, reached, shape == "lognormal"))
    check(failures)


def test_proportion_intervals():
    """proportion_ci (Wilson with continuity correction, and Clopper-Pearson where offered)
    of a binomial proportion 0.3: coverage."""
    rng = np.random.default_rng(5)
    for trials in SIZES:
        successes = rng.binomial(trials, 0.3, REPLICATES)
        ci = fastperf.proportion_ci(successes, trials, confidence=CONFIDENCE)
        record(f"proportion_ci ({ci.method})", "binomial p=0.3", trials, "coverage", CONFIDENCE,
               (ci.low <= 0.3) & (0.3 <= ci.high), False)


def markdown_table() -> str:
    lines = ["| method | noise | n | measure | nominal | observed | MC SE | exact | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for method, shape, n, what, nominal, observed, se, exact, verdict in ROWS:
        lines.append(f"| {method} | {shape} | {n} | {what} | {nominal:g} | {observed:.4f} | "
                     f"{se:.4f} | {'yes' if exact else 'no'} | {verdict} |")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module", autouse=True)
def write_table():
    yield
    text = markdown_table()
    TABLE.write_text(f"Replicates per cell: {REPLICATES}\n\n" + text)
    print("\n" + text)
