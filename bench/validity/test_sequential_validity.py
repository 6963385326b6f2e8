"""The validity suite's cells of `fastperf.decide` (issue 44; docs/validity.md, "Sequential
decisions (`decide`)"): its decisions when a runner asks after every round and stops each
benchmark at its first decision.

Every cell is `REPLICATES` benchmarks of one noise shape (log-normal, heavy-tailed, quantised;
log-sd 3 %) and one true change (none, the candidate 5 % slower, 5 % faster, 10 % slower) in one
design (a run, a process of 5 values at ICC 0.5, or an interleaved round of such processes with a
drift), looked at after every round from 2 to a budget of 60 (sequential_rates.py simulates them
and runs the looks). Margin 3 %, alpha 0.05. The goals are the issue's, and every one is judged:

- no change: the false ``worse``/``better`` rate a benchmark (``adjust="none"``) within
  alpha + 3 SE, SE = sqrt(alpha (1 - alpha) / replicates); the same under the e-BH default, each
  shape's four cells one family; ``equivalent`` in at least 80 % within the budget;
- a true change of +-5 % or +10 %: the right decision (``worse`` for slower, ``better`` for
  faster) in at least 90 %; a wrong one (``equivalent``, or the other direction) within
  alpha + 3 SE; a +10 % change decided within 6 rounds on average (undecided: the budget);
- every change cell: the anytime-valid interval at the benchmark's last look misses the true
  ratio in at most alpha + 3 SE (the confidence sequence holds at every look at once).

Reported beside them, not judged: the naive peeking rate (scipy's paired t-test on the log unit
means, and `fastperf.compare` at the table's structure, re-run after every round and stopped at
the first p <= 0.05), the fixed-n paired t-test of equal power, and e-BH's false-discovery
proportion. ``pytest bench/validity/test_sequential_validity.py -q -s`` prints the tables and
writes them to bench/validity/.sequential.md; ``FASTPERF_VALIDITY_REPLICATES`` sets the
replicates (2000 by default).
"""
from __future__ import annotations

import functools
import math
import os
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import sequential_rates as sr  # bench/validity/sequential_rates.py (pytest puts it on sys.path)

REPLICATES = int(os.environ.get("FASTPERF_VALIDITY_REPLICATES", "2000"))
ALPHA = sr.ALPHA
#: The issue's goals: equivalent under no change, the right decision under a change, and the
#: mean rounds a +10 % change takes.
EQUIVALENT_GOAL, RIGHT_GOAL, FAST_ROUNDS_GOAL = 0.8, 0.9, 6.0
#: How far a shape's value log-sd may lie from NOISE_SD (relative): the calibration's check.
CALIBRATION_TOLERANCE = 0.03
TABLE = Path(__file__).resolve().parent / ".sequential.md"
LABELS = {"flat": "flat (a run a round)",
          "process": f"process ({sr.ITERATIONS} values, ICC {sr.ICC:g})",
          "round": f"round ({sr.ITERATIONS} values, ICC {sr.ICC:g}, drift {sr.DRIFT:g})"}

#: (design, noise, change, measure, goal, observed, MC SE, verdict) of every judged cell.
CELLS: list[tuple] = []
NULL_ROWS: list[tuple] = []
CHANGE_ROWS: list[tuple] = []
DISCOVERY_ROWS: list[tuple] = []


def change_label(change: float) -> str:
    return "none" if change == 1.0 else f"{100 * (change - 1):+.0f} %"


def record(design: str, shape: str, change: float, measure: str, goal: str, observed: float,
           se: float, failed: bool) -> str | None:
    """Add a judged cell; return a failure message when it misses its goal."""
    CELLS.append((LABELS[design], shape, change_label(change), measure, goal, observed, se,
                  "FAIL" if failed else "ok"))
    if failed:
        return (f"decide [{design}, {shape}, change {change_label(change)}]: {measure} "
                f"{observed:.4f}, goal {goal}")
    return None


def at_most_alpha(design: str, shape: str, change: float, measure: str,
                  hits: np.ndarray) -> str | None:
    """A rate held to alpha + 3 Monte Carlo SE."""
    se = math.sqrt(ALPHA * (1 - ALPHA) / hits.size)
    rate = float(np.mean(hits))
    return record(design, shape, change, measure, f"<= {ALPHA:g} + 3 SE", rate, se,
                  rate > ALPHA + 3 * se)


def at_least(design: str, shape: str, change: float, measure: str, goal: float,
             hits: np.ndarray) -> str | None:
    """A rate held to a goal (no allowance: the goals are the issue's, not nominal levels)."""
    rate = float(np.mean(hits))
    se = math.sqrt(rate * (1 - rate) / hits.size)
    return record(design, shape, change, measure, f">= {goal:g}", rate, se, rate < goal)


def check(failures: list) -> None:
    failures = [f for f in failures if f]
    assert not failures, "\n".join(failures)


class Outcome(NamedTuple):
    """One design's looks, kept small (the table is dropped): per benchmark the decisions
    without adjustment and under e-BH, the signed p-values of the paired t-test after every
    round (and the sign of its statistic), and for the no-change cells whether `compare`, re-run
    after every round, called a change."""

    cells: list[tuple[str, float]]
    replicates: int
    truth: np.ndarray
    looks: sr.Looks
    ebh: sr.Looks
    t_pvalues: np.ndarray
    t_signs: np.ndarray
    compare_flagged: dict[int, np.ndarray]
    seconds: float

    def rows(self, index: int) -> slice:
        return slice(index * self.replicates, (index + 1) * self.replicates)


@functools.lru_cache(maxsize=None)
def outcome(design: str) -> Outcome:
    """Simulate a design and run its looks (once per design for every test)."""
    start = time.perf_counter()
    data = sr.simulate_design(design, REPLICATES)
    looks = sr.sequential_looks(data)
    ebh = sr.Looks(*(np.empty_like(a) for a in looks))
    for shape in sr.SHAPES:  # one e-BH family a shape: its four cells
        family = np.concatenate([np.arange(data.benchmarks)[data.cell_rows(i)]
                                 for i, cell in enumerate(data.cells) if cell[0] == shape])
        part = sr.sequential_looks(data, adjust="e-bh", benchmarks=family)
        for whole, piece in zip(ebh, part):
            whole[family] = piece[family]
    nulls = [i for i, (_, change) in enumerate(data.cells) if change == 1.0]
    null_benchmarks = np.concatenate([np.arange(data.benchmarks)[data.cell_rows(i)]
                                      for i in nulls])
    flagged = sr.compare_peeking(data, null_benchmarks)
    compare_flagged = {i: flagged[k * REPLICATES:(k + 1) * REPLICATES]
                       for k, i in enumerate(nulls)}
    return Outcome(data.cells, REPLICATES, data.truth(), looks, ebh, *sr.paired_t_pvalues(data),
                   compare_flagged, time.perf_counter() - start)


def misses(looks: sr.Looks, truth: np.ndarray, rows: slice) -> np.ndarray:
    """Whether the interval at each benchmark's last look misses its true log change."""
    return ~((looks.low[rows] <= truth[rows]) & (truth[rows] <= looks.high[rows]))


@pytest.mark.parametrize("shape", sr.SHAPES)
@pytest.mark.parametrize("design", ("flat", "process"))
def test_noise_calibration(design, shape):
    """The noise is the issue's "sd 3 %" for every shape: simulate's sigma of SIGMAS gives one
    value a log-sd within 3 % of NOISE_SD (the process effect included; the round design's
    values are the process design's plus the drift the variants share)."""
    observed = sr.value_log_sd(design, shape)
    assert abs(observed / sr.NOISE_SD - 1) <= CALIBRATION_TOLERANCE, (design, shape, observed)


@pytest.mark.parametrize("design", sr.DESIGNS)
def test_decide_no_change(design):
    """No change: false worse/better within alpha + 3 SE (without adjustment and under e-BH),
    equivalent in at least 80 % within the budget; the naive peeking rates reported beside
    them. (The interval excludes no change exactly when the e-value reaches 1 / alpha, so its
    misses here are the false worse/better.)"""
    result = outcome(design)
    failures = []
    for index, (shape, change) in enumerate(result.cells):
        if change != 1.0:
            continue
        rows = result.rows(index)
        decision, ebh = result.looks.decision[rows], result.ebh.decision[rows]
        false = np.isin(decision, ["worse", "better"])
        false_ebh = np.isin(ebh, ["worse", "better"])
        equivalent = decision == "equivalent"
        failures += [
            at_most_alpha(design, shape, change, "false worse/better (adjust none)", false),
            at_most_alpha(design, shape, change, "false worse/better (e-BH, 4 cells a family)",
                          false_ebh),
            at_least(design, shape, change, "equivalent within 60 rounds", EQUIVALENT_GOAL,
                     equivalent)]
        t_peeking = sr.peeking_rate(result.t_pvalues[rows])
        NULL_ROWS.append((LABELS[design], shape, false.mean(), false_ebh.mean(),
                          t_peeking.mean(), result.compare_flagged[index].mean(),
                          equivalent.mean(), np.mean(decision == "continue"),
                          result.looks.rounds[rows].mean()))
    check(failures)


@pytest.mark.parametrize("design", sr.DESIGNS)
def test_decide_changes(design):
    """True changes of +5 %, -5 % and +10 % (the candidate's time): the right decision in at
    least 90 %, a wrong one within alpha + 3 SE, the interval at the last look covering the
    change, a +10 % change decided within 6 rounds on average; the mean rounds reported against
    the fixed-n paired t-test of equal power."""
    result = outcome(design)
    failures = []
    for index, (shape, change) in enumerate(result.cells):
        if change == 1.0:
            continue
        rows = result.rows(index)
        decision, rounds = result.looks.decision[rows], result.looks.rounds[rows]
        right_name = sr.RIGHT[change]
        right = decision == right_name
        wrong = ~right & (decision != "continue")
        miss = misses(result.looks, result.truth, rows)
        failures += [
            at_least(design, shape, change, f"right decision ({right_name})", RIGHT_GOAL,
                     right),
            at_most_alpha(design, shape, change,
                          "wrong decision (equivalent or the other direction)", wrong),
            at_most_alpha(design, shape, change, "interval at the last look misses the change",
                          miss)]
        mean_rounds = float(rounds.mean())
        if change == 1.10:
            se = float(rounds.std(ddof=1) / math.sqrt(rounds.size))
            failures.append(record(design, shape, change, "mean rounds (undecided: 60)",
                                   f"<= {FAST_ROUNDS_GOAL:g}", mean_rounds, se,
                                   mean_rounds > FAST_ROUNDS_GOAL))
        fixed = sr.equal_power_rounds(result.t_pvalues[rows], result.t_signs[rows], right_name,
                                      float(right.mean()))
        ebh_rows = result.ebh.decision[rows]
        CHANGE_ROWS.append((LABELS[design], shape, change_label(change), right.mean(),
                            wrong.mean(), np.mean(decision == "continue"), mean_rounds,
                            fixed, np.mean(ebh_rows == right_name),
                            result.ebh.rounds[rows].mean()))
    check(failures)


@pytest.mark.parametrize("design", sr.DESIGNS)
def test_decide_false_discoveries(design):
    """e-BH over each shape's family of 8,000 benchmarks (2,000 without a change): the
    false-discovery proportion of the run's worse/better decisions, reported (one family a
    shape: a realisation, not a rate); and the time the design's looks took."""
    result = outcome(design)
    for shape in sr.SHAPES:
        indices = [i for i, cell in enumerate(result.cells) if cell[0] == shape]
        decided = falses = 0
        for index in indices:
            rows = result.rows(index)
            called = np.isin(result.ebh.decision[rows], ["worse", "better"])
            decided += int(called.sum())
            if result.cells[index][1] == 1.0:
                falses += int(called.sum())
        DISCOVERY_ROWS.append((LABELS[design], shape, decided, falses,
                               falses / decided if decided else 0.0, result.seconds))


# ------------------------------------------------------------------------------ the tables


def tables() -> str:
    fixed = lambda n: "> 60" if n is None else str(n)  # noqa: E731
    out = ["## No change", "",
           "| design | noise | false worse/better | false, e-BH | peeking: paired t | "
           "peeking: compare | equivalent | undecided at 60 | mean rounds |",
           "|---|---|---|---|---|---|---|---|---|"]
    out += [f"| {d} | {s} | {a:.4f} | {b:.4f} | {t:.3f} | {c:.3f} | {e:.3f} | {u:.3f} | "
            f"{r:.1f} |" for d, s, a, b, t, c, e, u, r in NULL_ROWS]
    out += ["", "## Changes", "",
            "| design | noise | change | right decision | wrong | undecided at 60 | "
            "mean rounds | fixed-n t-test of equal power | mean / fixed | right, e-BH | "
            "mean rounds, e-BH |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d, s, c, right, wrong, undecided, rounds, n, right_ebh, rounds_ebh in CHANGE_ROWS:
        ratio = "-" if n is None else f"{rounds / n:.2f}"
        out.append(f"| {d} | {s} | {c} | {right:.4f} | {wrong:.4f} | {undecided:.4f} | "
                   f"{rounds:.2f} | {fixed(n)} | {ratio} | {right_ebh:.4f} | "
                   f"{rounds_ebh:.2f} |")
    out += ["", "## False discoveries (e-BH)", "",
            "| design | noise | worse/better decided | of them false | proportion | "
            "design's seconds |", "|---|---|---|---|---|---|"]
    out += [f"| {d} | {s} | {n} | {f} | {p:.4f} | {t:.0f} |"
            for d, s, n, f, p, t in DISCOVERY_ROWS]
    out += ["", "## Cells", "",
            "| design | noise | change | measure | goal | observed | MC SE | verdict |",
            "|---|---|---|---|---|---|---|---|"]
    out += [f"| {d} | {s} | {c} | {m} | {g} | {o:.4f} | {se:.4f} | {v} |"
            for d, s, c, m, g, o, se, v in CELLS]
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module", autouse=True)
def write_table():
    yield
    text = f"Replicates per cell: {REPLICATES}\n\n{tables()}"
    TABLE.write_text(text)
    print("\n" + text)
