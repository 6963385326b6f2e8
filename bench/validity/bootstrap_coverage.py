"""Coverage of fastperf's bootstrap intervals on small samples of simulated timings.

The figures of docs/resampling.md ("How often the intervals cover") and the thresholds of
``fastperf.stats.bootstrap.RELIABILITY`` come from this script::

    python bench/validity/bootstrap_coverage.py               # the published run
    python bench/validity/bootstrap_coverage.py --quick       # a smoke run (noisier figures)

Design. For each noise shape of `fastperf.simulate` (lognormal, bimodal, heavy_tail, quantised)
and each sample size n, one call ``simulate(benchmarks=R, runs=n, shapes=shape, effects=1.0,
sigma=(0.02, 0.08), unit=None)`` makes R replicates (one per benchmark, each with its own noise
scale sigma_b and typical time m_b). Every (statistic, method) gets one batched
``fastperf.bootstrap`` call over the R replicates (array form, nominal 95 %), and its coverage
is the share of replicates whose interval contains the true value (a NaN interval, e.g. BCa
undefined, counts as not covering; a degenerate [estimate, estimate] interval covers only when
it hits the truth).

True values. Ratios and differences compare the baseline with a candidate of the same
distribution (``effects=1.0``): the truth is 1 for ``mean_ratio`` and ``median_ratio`` and 0
for ``mean_diff`` and ``median_diff``. The population mean and median of one sample are
``m_b T(shape, sigma_b)``, with T from the model that `simulate` documents (x = m e^(sigma z) S,
z ~ N(0, 1); the quantised shape rounds x to a multiple of m sigma):

- lognormal: mean e^(sigma^2/2), median 1;
- bimodal (S = 1 + 4 sigma with probability 0.3): mean e^(sigma^2/2) (1 + 1.2 sigma), median the
  root of 0.7 Phi(ln u / sigma) + 0.3 Phi((ln u - ln(1 + 4 sigma)) / sigma) = 1/2;
- heavy_tail (S = 1 + sigma L, L ~ Lomax(3), E L = 1/2): mean e^(sigma^2/2) (1 + sigma / 2),
  median the root of E_L Phi((ln u - ln(1 + sigma L)) / sigma) = 1/2 (quadrature over the
  quantiles of L);
- quantised: the mean sum_k k sigma P(round(e^(sigma z) / sigma) = k), the median k sigma with
  k = ceil(1/sigma - 1/2).

`check_truth` compares these with the mean and median of 2,000,000 simulated runs per shape
and prints the largest gap in standard errors of that large sample (it should be below ~3).

A threshold is the smallest n of the grid from which (at that n and every larger n of the
grid) the coverage is at least 94 % (within 1 point of the nominal 95 %) on every shape, up to
the Monte Carlo error: a coverage c measured on R replicates passes when c + 2 sqrt(0.94 * 0.06
/ R) >= 0.94 (it is not significantly below 94 %; the allowance is 0.38 points at the default
R = 16,000). None when the coverage fails at the largest n of the grid. The allowance matters
because the worst shape for means, heavy_tail (a Lomax(3) factor: infinite third moment), keeps
every method's coverage near 94 % up to n = 100, where a bare 94.0 cut-off would let the
simulation's noise pick the threshold.
"""
from __future__ import annotations

import argparse
import functools
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.special import ndtr

import fastperf

SHAPES = ("lognormal", "bimodal", "heavy_tail", "quantised")
SIZES = (5, 10, 20, 30, 50, 100)
STATISTICS = ("mean", "median", "mean_ratio", "median_ratio", "mean_diff", "median_diff")
METHODS = ("percentile", "basic", "bca", "studentized")
STUDENTIZED = ("mean", "mean_ratio", "mean_diff")
#: Not a bootstrap: `fastperf.describe`'s Student interval of the mean (ci_mean_low/high) and
#: exact order-statistic interval of the median (ci_median_low/high), for comparison.
DESCRIBE = "describe"
SIGMA = (0.02, 0.08)
CONFIDENCE = 0.95
TARGET = 0.94  # within 1 point of the nominal 95 %
MC_ALLOWANCE = 2.0  # Monte Carlo standard errors of a coverage near TARGET allowed below it


def _bisect(cdf, lo, hi, iterations=80):
    """The root of cdf(u) = 1/2 per element, cdf increasing, by bisection (vectorised)."""
    lo, hi = np.array(lo, float), np.array(hi, float)
    for _ in range(iterations):
        mid = (lo + hi) / 2
        below = cdf(mid) < 0.5
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return (lo + hi) / 2


def _lomax_quantiles(nodes=20_000):
    """Quantiles of Lomax(3) (numpy's ``pareto(3)``) at the midpoints u = (j + 1/2) / nodes."""
    u = (np.arange(nodes) + 0.5) / nodes
    return (1 - u) ** (-1 / 3) - 1


def population(statistic: str, shape: str, sigma, base) -> np.ndarray:
    """The population mean or median for noise scales `sigma` and typical times `base`.

    The quantised median is a multiple of the timer step ``base * sigma``, computed as
    `simulate` computes its values (k times the step), so that an interval endpoint on the grid
    equals it exactly.
    """
    sigma, base = np.asarray(sigma, float), np.asarray(base, float)
    if shape == "quantised" and statistic == "median":
        return np.ceil(1 / sigma - 0.5) * (base * sigma)
    if shape in ("bimodal", "heavy_tail") and statistic == "median" and sigma.size > 50:
        # a smooth function of sigma: exact on a fine grid, interpolated (error < 1e-9)
        grid, values = _median_grid(shape)
        if grid[0] <= sigma.min() and sigma.max() <= grid[-1]:
            return base * np.interp(sigma, grid, values)
    return base * truth(statistic, shape, sigma)


@functools.lru_cache(maxsize=None)
def _median_grid(shape):
    grid = np.linspace(*SIGMA, 301)
    return grid, truth("median", shape, grid)


def truth(statistic: str, shape: str, sigma) -> np.ndarray:
    """The population mean or median of x / m for noise scales `sigma` (see the module doc)."""
    s = np.asarray(sigma, float)
    lognormal_mean = np.exp(s ** 2 / 2)
    if shape == "quantised":
        if statistic == "median":
            return np.ceil(1 / s - 0.5) * s
        k = np.arange(1, int(np.exp(10 * s.max()) / s.min()) + 2)[None, :]
        upper = ndtr(np.log((k + 0.5) * s[:, None]) / s[:, None])
        lower = ndtr(np.log(np.maximum(k - 0.5, 1e-300) * s[:, None]) / s[:, None])
        return ((upper - lower) * k).sum(axis=1) * s
    if statistic == "mean":
        factor = {"lognormal": 1.0, "bimodal": 1 + 0.3 * 4 * s, "heavy_tail": 1 + s / 2}[shape]
        return lognormal_mean * factor
    if shape == "lognormal":
        return np.ones_like(s)
    if shape == "bimodal":
        gap = np.log(1 + 4 * s)
        return _bisect(lambda u: 0.7 * ndtr(np.log(u) / s) + 0.3 * ndtr((np.log(u) - gap) / s),
                       np.full_like(s, 0.5), np.full_like(s, 2.0))
    tail = np.log1p(np.outer(s, _lomax_quantiles()))  # ln(1 + sigma L) at the quantiles of L
    return _bisect(lambda u: ndtr((np.log(u)[:, None] - tail) / s[:, None]).mean(axis=1),
                   np.full_like(s, 0.5), np.full_like(s, 2.0))


def check_truth(runs: int = 2_000_000) -> float:
    """The largest |large-sample statistic - truth| in standard errors of the large sample."""
    worst = 0.0
    for shape in SHAPES:
        for sigma in (0.021, 0.079):  # not 0.08: 1/sigma - 1/2 whole, a tied median
            x = fastperf.simulate(benchmarks=1, runs=runs, shapes=shape, sigma=sigma, base=1.0,
                                  effects=1.0, seed=7, unit=None).table
            v = x.column("value").to_numpy()[:runs]
            se_mean = v.std() / np.sqrt(runs)
            # the median's standard error, from the density at the median by a histogram
            med = np.median(v)
            h = 0.05 * sigma
            density = np.mean(np.abs(v - med) <= h) / (2 * h)
            se_median = 0.5 / density / np.sqrt(runs) if density > 0 else np.inf
            gaps = [abs(v.mean() - population("mean", shape, [sigma], 1.0)[0]) / se_mean]
            true_median = population("median", shape, [sigma], 1.0)[0]
            if shape != "quantised":
                gaps.append(abs(med - true_median) / se_median)
            elif med != true_median:  # a discrete median is hit exactly or missed
                gaps.append(np.inf)
            worst = max(worst, *gaps)
    return worst


def coverage(replicates: int, resamples: int, seed: int, sizes=SIZES, shapes=SHAPES,
             statistics=STATISTICS, methods=METHODS + (DESCRIBE,), log=print) -> dict:
    """{(statistic, method, shape, n): (coverage, share of intervals not "ok" or NaN)}."""
    out = {}
    for si, shape in enumerate(shapes):
        for ni, n in enumerate(sizes):
            sim = fastperf.simulate(benchmarks=replicates, runs=n, shapes=shape, effects=1.0,
                                    sigma=SIGMA, seed=seed + 1000 * si + ni, unit=None)
            values = sim.table.column("value").to_numpy().reshape(2, replicates, n)
            sigma = sim.truth.column("sigma").to_numpy()
            base = sim.truth.column("base").to_numpy()
            t0 = time.perf_counter()
            for statistic in statistics:
                two = statistic not in ("mean", "median")
                data = (values[0], values[1]) if two else (values[0],)
                if statistic.endswith("ratio"):
                    true = np.ones(replicates)
                elif statistic.endswith("diff"):
                    true = np.zeros(replicates)
                else:
                    true = population(statistic, shape, sigma, base)
                for method in methods:
                    if method == DESCRIBE or (method == "studentized"
                                              and statistic not in STUDENTIZED):
                        continue
                    res = fastperf.bootstrap(data, statistic=statistic, method=method,
                                             n_resamples=resamples, confidence=CONFIDENCE,
                                             seed=seed)
                    low, high = res.confidence_interval
                    covered = (low <= true) & (true <= high)
                    out[statistic, method, shape, n] = (float(covered.mean()),
                                                        float((res.status != "ok").mean()))
                if statistic in ("mean", "median") and DESCRIBE in methods:
                    groups = fastperf.describe(sim.table, confidence=CONFIDENCE).groups
                    baseline = groups.filter(pc.equal(groups.column("variant").cast(pa.string()),
                                                      "baseline"))
                    names = baseline.column("benchmark").cast(pa.string())
                    assert names.equals(sim.truth.column("benchmark")), "rows out of order"
                    low = baseline.column(f"ci_{statistic}_low").to_numpy()
                    high = baseline.column(f"ci_{statistic}_high").to_numpy()
                    covered = (low <= true) & (true <= high)
                    out[statistic, DESCRIBE, shape, n] = (float(covered.mean()),
                                                          float(np.isnan(low).mean()))
            log(f"  {shape:>10} n={n:<3} {time.perf_counter() - t0:6.1f} s")
    return out


def allowance(replicates: int) -> float:
    """How far below `TARGET` a measured coverage may lie and still pass (Monte Carlo error)."""
    return MC_ALLOWANCE * np.sqrt(TARGET * (1 - TARGET) / replicates)


def thresholds(cov: dict, replicates: int, sizes=SIZES, shapes=SHAPES) -> dict:
    """{(statistic, method): (threshold n or None, worst-shape coverage per n)}."""
    result = {}
    for statistic, method in sorted({(k[0], k[1]) for k in cov}, key=_order):
        worst = tuple(min(cov[statistic, method, shape, n][0] for shape in shapes) for n in sizes)
        threshold = None
        for i in range(len(sizes) - 1, -1, -1):
            if worst[i] + allowance(replicates) < TARGET:
                break
            threshold = sizes[i]
        result[statistic, method] = (threshold, worst)
    return result


def _order(key):
    return STATISTICS.index(key[0]), (METHODS + (DESCRIBE,)).index(key[1])


def markdown(cov: dict, replicates: int, sizes=SIZES, shapes=SHAPES) -> str:
    """The worst-shape table with thresholds, then the per-shape table."""
    th = thresholds(cov, replicates, sizes, shapes)
    lines = ["| statistic | method | " + " | ".join(f"n = {n}" for n in sizes)
             + " | threshold | worst shape at n = 10 |",
             "|---|---|" + "---|" * len(sizes) + "---|---|"]
    for (statistic, method), (threshold, worst) in th.items():
        i10 = sizes.index(10) if 10 in sizes else 0
        at10 = min(shapes, key=lambda s: cov[statistic, method, s, sizes[i10]][0])
        lines.append(f"| {statistic} | {method} | "
                     + " | ".join(f"{100 * w:.1f}" for w in worst)
                     + f" | {threshold if threshold else 'not reached'} | {at10} |")
    lines += ["", "Per shape (coverage %, and in brackets the % of intervals not \"ok\" where "
              "any):", "",
              "| statistic | method | shape | " + " | ".join(f"n = {n}" for n in sizes) + " |",
              "|---|---|---|" + "---|" * len(sizes)]
    for statistic, method in th:
        for shape in shapes:
            cells = []
            for n in sizes:
                c, bad = cov[statistic, method, shape, n]
                cells.append(f"{100 * c:.1f}" + (f" ({100 * bad:.1f})" if bad else ""))
            lines.append(f"| {statistic} | {method} | {shape} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def constant(cov: dict, replicates: int, sizes=SIZES, shapes=SHAPES) -> str:
    """The `RELIABILITY` and `DESCRIBE_COVERAGE` literals of fastperf.stats.bootstrap."""
    th = thresholds(cov, replicates, sizes, shapes)
    rows = [f"    ({s!r}, {m!r}): Reliability({t!r}, ({', '.join(f'{w:.3f}' for w in worst)})),"
            for (s, m), (t, worst) in th.items() if m != DESCRIBE]
    described = [f"    {s!r}: ({', '.join(f'{w:.3f}' for w in worst)}),"
                 for (s, m), (_, worst) in th.items() if m == DESCRIBE]
    return ("RELIABILITY = {\n" + "\n".join(rows) + "\n}\n"
            "DESCRIBE_COVERAGE = {\n" + "\n".join(described) + "\n}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="400 replicates x 499 resamples per cell (a smoke run)")
    parser.add_argument("--replicates", type=int, default=16000)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-check", action="store_true", help="skip the truth check")
    args = parser.parse_args(argv)
    replicates, resamples = (400, 499) if args.quick else (args.replicates, args.resamples)
    if not args.no_check:
        print(f"truth check: largest gap {check_truth():.2f} standard errors of 2,000,000 runs")
    print(f"coverage of nominal {CONFIDENCE:.0%} intervals, {replicates} replicates x "
          f"{resamples} resamples per cell, sigma in {SIGMA}, seed {args.seed}")
    t0 = time.perf_counter()
    cov = coverage(replicates, resamples, args.seed)
    print(f"({time.perf_counter() - t0:.0f} s)\n")
    print(f"thresholds: coverage >= {TARGET:.0%} on every shape, less the Monte Carlo "
          f"allowance {100 * allowance(replicates):.2f} points\n")
    print(markdown(cov, replicates))
    print()
    print(constant(cov, replicates))


if __name__ == "__main__":
    main()
