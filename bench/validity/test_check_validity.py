"""The validity suite's cells of `fastperf.check` and of ``compare(warmup="auto")`` (issue 45;
docs/check.md, "Measured error rates").

Every cell is `REPLICATES` benchmarks x 2 variants of one design (check_rates.DESIGNS: a flat
sequence of 60 runs, 10 processes x 30 iterations at ICC 0.3, 20 processes x 3 values at ICC 0.3;
for clean data also flat groups of 5 and 10 runs),
log-normal noise of log-sd 1 % (a quiet machine), and one defect at the issue's effect size
(check_rates.py). The goals are the issue's, and every one is judged:

- clean log-normal data: each flag raised in at most 5 % of the groups;
- data with the defect: its flag raised in at least 90 % of the groups (a transient only where
  the design has 30 iterations a process or runs; a drift over runs, which the flat design has
  enough of: with 10 processes a 1 %-per-10-runs drift is 0.9 % in all);
- ``compare(warmup="auto")``: on clean data a benchmark is called changed in at most
  alpha + 3 SE; with a transient in the candidate only (its steady state unchanged) too, where
  ``warmup=None`` calls it changed far more often (reported beside, not judged).

Reported beside them, not judged: how the two detections that depend most on the noise (a
second mode, a drift) fall with log-sd 3 % in a flat sequence of 60, 100 or 200 runs.

``pytest bench/validity/test_check_validity.py -q -s`` prints the tables and writes them to
bench/validity/.check.md; ``FASTPERF_VALIDITY_REPLICATES`` sets the replicates (2000 by default).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

import fastperf
import check_rates as cr  # bench/validity/check_rates.py (pytest puts it on sys.path)

REPLICATES = int(os.environ.get("FASTPERF_VALIDITY_REPLICATES", "2000"))
ALPHA = 0.05
CLEAN_GOAL, DETECT_GOAL = 0.05, 0.90
TABLE = Path(__file__).resolve().parent / ".check.md"
#: (design, defect, measure, goal, observed, verdict) of every judged cell.
CELLS: list[tuple] = []
#: the defects each design can show at the issue's effect size
DETECTABLE = {"flat": ("transient", "second mode", "drift", "outliers"),
              "process": ("transient", "second mode", "outliers"),
              "pyperf": ("second mode", "outliers")}


def record(design, defect, measure, goal, observed, failed) -> str | None:
    CELLS.append((design, defect, measure, goal, observed, "FAIL" if failed else "ok"))
    return (f"check [{design}, {defect}]: {measure} {observed:.4f}, goal {goal}"
            if failed else None)


def check_rates(design: str, defect: str) -> dict[str, float]:
    table = cr.defect_table(design, defect, REPLICATES)
    return cr.flag_rates(fastperf.check(table).table)


@pytest.mark.parametrize("design", list(cr.DESIGNS))
@pytest.mark.parametrize("sigma", [cr.SIGMA, 0.05])
def test_clean_data_raises_few_flags(design, sigma):
    table = cr.defect_table(design, "clean", REPLICATES, sigma=sigma)
    rates = cr.flag_rates(fastperf.check(table).table)
    design = design if sigma == cr.SIGMA else f"{design}, log-sd {sigma:.0%}"
    failures = [record(design, "clean", f"rate of {flag!r}", f"<= {CLEAN_GOAL:g}", rate,
                       rate > CLEAN_GOAL) for flag, rate in rates.items()]
    failures = [f for f in failures if f]
    assert not failures, failures


@pytest.mark.parametrize("design,defect", [(d, x) for d, xs in DETECTABLE.items() for x in xs])
def test_defect_is_detected(design, defect):
    flag = cr.FLAG_OF[defect]
    rate = check_rates(design, defect)[flag]
    failure = record(design, defect, f"rate of {flag!r}", f">= {DETECT_GOAL:g}", rate,
                     rate < DETECT_GOAL)
    assert failure is None, failure


@pytest.mark.parametrize("runs", [60, 100, 200])
@pytest.mark.parametrize("defect", ["second mode", "drift"])
def test_detection_at_three_percent_noise(defect, runs):
    flag = cr.FLAG_OF[defect]
    table = cr.defect_table("flat", defect, REPLICATES, sigma=0.03, runs=runs)
    rate = cr.flag_rates(fastperf.check(table).table)[flag]
    CELLS.append((f"flat, {runs} runs, log-sd 3 %", defect, f"rate of {flag!r}", "reported",
                  rate, "-"))


@pytest.mark.parametrize("design", ["flat", "process"])
@pytest.mark.parametrize("defect", ["clean", "transient"])
def test_compare_warmup_auto_holds_its_level(design, defect):
    se = math.sqrt(ALPHA * (1 - ALPHA) / REPLICATES)
    auto = cr.changed_rate(design, defect, REPLICATES, "auto")
    plain = cr.changed_rate(design, defect, REPLICATES, None)
    CELLS.append((design, f"{defect} (candidate)", "compare changed, warmup=None", "reported",
                  plain, "-"))
    failure = record(design, f"{defect} (candidate)", "compare changed, warmup=\"auto\"",
                     f"<= {ALPHA:g} + 3 SE", auto, auto > ALPHA + 3 * se)
    assert failure is None, failure


def teardown_module():
    if not CELLS:
        return
    lines = ["| design | defect | measure | goal | observed | verdict |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {d} | {x} | {m} | {g} | {o:.4f} | {v} |" for d, x, m, g, o, v in CELLS]
    text = "\n".join(lines)
    print(f"\n{REPLICATES} benchmarks a cell\n{text}")
    TABLE.write_text(text + "\n", encoding="utf-8")
