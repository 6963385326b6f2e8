"""Detection and false-change rates of `fastperf.changepoints` on simulated histories.

The tables of docs/changepoints.md ("How often") come from this script::

    python bench/validity/changepoint_rates.py            # the published run (a few minutes)
    python bench/validity/changepoint_rates.py --quick    # fewer series

Design. Each history is one benchmark of `fastperf.simulate` (one variant; its runs, one per
commit, are the points) with noise sigma = 1% of the four noise shapes; a step multiplies every
point from commit 100 of 200 on by 1 + s (s = 1%, 2%, 5%, 10%, 20%). A step is *detected* when a
change is reported at 100 +- 1; a *false change* is any other change. Stationary histories
(s = 0) give the false-change rate per series: the share with at least one change. Both methods
at their default alpha (edivisive 0.01 with 199 permutations, ttest 0.001).
"""
from __future__ import annotations

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import fastperf

SHAPES = ("lognormal", "bimodal", "heavy_tail", "quantised")
STEPS = (0.0, 0.01, 0.02, 0.05, 0.10, 0.20)
POINTS, AT, SIGMA = 200, 100, 0.01


def histories(series: int, step: float, shape: str, seed: int) -> pa.Table:
    sim = fastperf.simulate(series, POINTS, variants=("main", "unused"), seed=seed,
                            shapes=[shape], sigma=(SIGMA, SIGMA), base=(1.0, 1.0))
    t = sim.table.filter(pc.equal(sim.table.column("variant").cast(pa.string()), "main"))
    commit = t.column("run").to_numpy()
    value = t.column("value").to_numpy() * np.where(commit >= AT, 1.0 + step, 1.0)
    return pa.table({"benchmark": t.column("benchmark"), "commit": commit, "value": value})


def rates(series: int) -> list[dict]:
    rows = []
    for shape in SHAPES:
        for step in STEPS:
            table = histories(series, step, shape, seed=int(step * 1000) + 17)
            for method in ("edivisive", "ttest"):
                r = fastperf.changepoints(table, order="commit", method=method)
                changes = r.changes.to_pylist()
                near = {c["benchmark"] for c in changes if abs(c["position"] - AT) <= 1}
                false = sum(1 for c in changes if abs(c["position"] - AT) > 1 or step == 0)
                with_false = len({c["benchmark"] for c in changes
                                  if abs(c["position"] - AT) > 1 or step == 0})
                rows.append({"shape": shape, "step": step, "method": method,
                             "detected": len(near) / series if step else float("nan"),
                             "series_with_false_change": with_false / series,
                             "false_changes_per_series": false / series})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 series per cell, not 400")
    args = parser.parse_args()
    series = 100 if args.quick else 400
    rows = rates(series)
    print(f"{series} series of {POINTS} points per cell, sigma {SIGMA:.0%}, step at {AT}")
    print("| shape | step | method | detected at +-1 | series with a false change |")
    print("|---|---|---|---|---|")
    for r in rows:
        detected = "" if np.isnan(r["detected"]) else f"{r['detected']:.1%}"
        print(f"| {r['shape']} | {r['step']:.0%} | {r['method']} | {detected} | "
              f"{r['series_with_false_change']:.1%} |")


if __name__ == "__main__":
    main()
