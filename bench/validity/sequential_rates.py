"""Simulated sequential looks for the validity suite's `decide` cells (issue 44; docs/validity.md,
"Sequential decisions (`decide`)"), and their fixed-n references.

A *cell* is one noise shape and true change of a design: `replicates` benchmarks of
`fastperf.simulate` (base 1, noise log-sd 3 %), each measured for the whole budget of 60 rounds.
A round is one run of each variant (``flat``), one process of `ITERATIONS` values of each variant
(``process``: the sequential unit is the process), or an interleaved round of one such process
each with a random-walk drift shared by the variants (``round``: the unit is the round). The
cells of a design are stacked into one table (``benchmark`` an int32 numbering the replicates of
every cell in turn), its rows ordered by round first, so that the rows of the first k rounds are
a prefix.

The looks (`sequential_looks`) follow a runner that asks after every round from round 2 to the
budget: at each look, one `fastperf.decide` call on the rounds so far of every benchmark not yet
decided; a benchmark stops at its first decision (``worse``, ``better`` or ``equivalent``), and
those still ``continue`` at round 60 stay undecided. The references work on the same values,
independently of fastperf: scipy's paired t-test (``ttest_rel``) on the log unit means, re-run
after every round (the naive peeking rate, and the fixed-n design of equal power).

After ``pytest bench/validity/test_sequential_validity.py``, ``python
bench/validity/sequential_rates.py`` prints docs/validity.md's tables of the section from
bench/validity/.sequential.md.
"""
from __future__ import annotations

import warnings
import zlib
from typing import NamedTuple

import numpy as np
import pyarrow as pa
from scipy import stats

import fastperf

#: The designs: a run, a process of ITERATIONS values, an interleaved round of such processes.
DESIGNS = ("flat", "process", "round")
SHAPES = ("lognormal", "heavy_tail", "quantised")
#: The log-sd of one value (every shape, every design: the noise "sd 3 %" of the issue).
NOISE_SD = 0.03
#: simulate's `sigma` that gives each shape a log-sd of NOISE_SD (solved by Brent's method on
#: 2 million draws of the flat shape, base 1; test_noise_calibration checks it): the heavy tail's
#: Lomax(3) outliers and the quantised timer's rounding add their own spread to sigma's.
SIGMAS = {"lognormal": 0.03, "heavy_tail": 0.0236, "quantised": 0.0288}
#: The true changes: the candidate's time over the baseline's (simulate's `effects` are their
#: inverses, speedups). 1.05 and 1.10 are slower ("worse"), 0.95 faster ("better").
CHANGES = (1.0, 1.05, 0.95, 1.10)
RIGHT = {1.05: "worse", 0.95: "better", 1.10: "worse"}
MARGIN = 0.03
ALPHA = 0.05
FIRST_LOOK, BUDGET = 2, 60
#: The nested designs: values a process, their intraclass correlation (the real pyperf files
#: hold 0.45 - 0.76: docs/nested.md) and the drift step of the interleaved rounds (log-sd).
ITERATIONS = 5
ICC = 0.5
DRIFT = 0.01
DECISIONS = ("worse", "better", "equivalent", "continue")


class Design(NamedTuple):
    """The stacked cells of one design: the table (rows ordered by round, then benchmark,
    variant and iteration), each row's round, the cells and the log unit means."""

    name: str
    table: pa.Table
    round_of_row: np.ndarray
    cells: list[tuple[str, float]]
    replicates: int
    log_means: tuple[np.ndarray, np.ndarray]

    @property
    def benchmarks(self) -> int:
        return len(self.cells) * self.replicates

    def cell_rows(self, index: int) -> slice:
        """The benchmarks of cell `index` in an array of one value per benchmark."""
        return slice(index * self.replicates, (index + 1) * self.replicates)

    def truth(self) -> np.ndarray:
        """The true log change (candidate over baseline) of every benchmark."""
        return np.repeat(np.log([change for _, change in self.cells]), self.replicates)


def seed_of(*parts) -> int:
    """A seed fixed by its parts (CRC-32: stable across processes, unlike str hashes)."""
    return zlib.crc32(repr(parts).encode())


def simulate_cell(design: str, shape: str, change: float, replicates: int, seed: int):
    """One cell's `fastperf.simulate` table over the whole budget."""
    nested = {"flat": {"runs": BUDGET},
              "process": {"processes": BUDGET, "iterations": ITERATIONS, "icc": ICC},
              "round": {"rounds": BUDGET, "iterations": ITERATIONS, "icc": ICC,
                        "drift": DRIFT}}[design]
    return fastperf.simulate(benchmarks=replicates, shapes=shape, sigma=SIGMAS[shape],
                             base=1.0, effects=1.0 / change, unit=None, seed=seed, **nested).table


def simulate_design(design: str, replicates: int, *, shapes=SHAPES,
                    changes=CHANGES) -> Design:
    """Every (shape, change) cell of a design, `replicates` benchmarks each, stacked. The
    cells of one shape share their seed, so their noise is the same (simulate's noise does
    not depend on the effect)."""
    cells = [(shape, change) for shape in shapes for change in changes]
    iterations = 1 if design == "flat" else ITERATIONS
    values = []
    for shape, change in cells:
        table = simulate_cell(design, shape, change, replicates, seed_of(design, shape))
        # simulate's rows: variant, benchmark, round (run, process), iteration
        values.append(table.column("value").to_numpy().reshape(2, replicates, BUDGET,
                                                                iterations))
    stacked = np.stack(values)  # cell, variant, benchmark, round, iteration
    count = len(cells) * replicates
    # the rows by round, then cell and benchmark, variant, iteration
    shape = (BUDGET, count, 2, iterations)

    def grid(axis: int, size: int) -> np.ndarray:
        index = np.arange(size, dtype=np.int32).reshape([size if a == axis else 1
                                                         for a in range(4)])
        return np.broadcast_to(index, shape).ravel()

    columns = {"benchmark": grid(1, count),
               "variant": pa.DictionaryArray.from_arrays(pa.array(grid(2, 2)),
                                                         ["baseline", "candidate"])}
    round_of_row = grid(0, BUDGET)
    if design == "flat":
        columns["run"] = round_of_row
    else:
        if design == "round":
            columns["round"] = round_of_row
        columns["process"] = round_of_row
        columns["iteration"] = grid(3, iterations)
    columns["value"] = np.transpose(stacked, (3, 0, 2, 1, 4)).ravel()
    means = np.log(stacked.mean(axis=4))  # cell, variant, benchmark, round
    log_means = tuple(means[:, v].reshape(count, BUDGET) for v in range(2))
    return Design(design, pa.table(columns), round_of_row, cells, replicates, log_means)


class Looks(NamedTuple):
    """Per benchmark: its decision (DECISIONS; ``continue`` when undecided at the budget), the
    rounds it ran (the look that decided it, else the budget) and the anytime-valid interval
    of the log ratio at that look."""

    decision: np.ndarray
    rounds: np.ndarray
    low: np.ndarray
    high: np.ndarray


def sequential_looks(design: Design, *, adjust: str = "none",
                     benchmarks: np.ndarray | None = None, margin: float = MARGIN) -> Looks:
    """Decide after every round from FIRST_LOOK to BUDGET, each benchmark stopping at its first
    decision: one `fastperf.decide` call a look over every benchmark still running (of
    `benchmarks`, all when None: with ``adjust="e-bh"`` they are the family)."""
    count = design.benchmarks
    decision = np.full(count, "continue", dtype=object)
    rounds = np.full(count, BUDGET, dtype=np.int64)
    low, high = np.full(count, -np.inf), np.full(count, np.inf)
    table, round_of_row = design.table, design.round_of_row
    row_benchmark = table.column("benchmark").to_numpy()
    if benchmarks is not None:
        keep = np.zeros(count, dtype=bool)
        keep[benchmarks] = True
        mask = keep[row_benchmark]
        table, round_of_row, row_benchmark = (table.filter(mask), round_of_row[mask],
                                              row_benchmark[mask])
    running = np.ones(count, dtype=bool)
    for look in range(FIRST_LOOK, BUDGET + 1):
        if table.num_rows == 0:  # every benchmark decided
            break
        end = int(np.searchsorted(round_of_row, look))  # the rows of rounds 0 .. look - 1
        rows = fastperf.decide(table.slice(0, end), baseline="baseline",
                               candidate="candidate", margin=margin, by="benchmark",
                               unit=None, higher_is_better=False, adjust=adjust).benchmarks
        index = rows.column("benchmark").to_numpy()
        said = np.array(rows.column("decision").to_pylist(), dtype=object)
        decided = said != "continue"
        if look == BUDGET:
            decided[:] = True
        chosen = index[decided]
        decision[chosen] = said[decided]
        rounds[chosen] = look
        low[chosen] = np.log(rows.column("ci_low").to_numpy()[decided])
        high[chosen] = np.log(rows.column("ci_high").to_numpy()[decided])
        if look < BUDGET and decided.any():
            running[chosen] = False
            mask = running[row_benchmark]
            table, round_of_row, row_benchmark = (table.filter(mask), round_of_row[mask],
                                                  row_benchmark[mask])
    assert not np.isin(decision, [None, ""]).any(), "a benchmark got no decision"
    return Looks(decision, rounds, low, high)


# ------------------------------------------------------------------------------ references


def paired_t_pvalues(design: Design) -> tuple[np.ndarray, np.ndarray]:
    """scipy's paired t-test (``ttest_rel``) of the log unit means on the first k rounds, for
    k = FIRST_LOOK .. BUDGET: its p-values and the sign of its statistic (+1: the candidate
    slower), each shaped (benchmarks, looks)."""
    x, y = design.log_means
    pvalues = np.empty((design.benchmarks, BUDGET - FIRST_LOOK + 1))
    signs = np.empty_like(pvalues)
    with warnings.catch_warnings():  # scipy's note on equal values (timer ties); the p-value
        warnings.simplefilter("ignore", RuntimeWarning)  # is then NaN: no rejection
        for column, k in enumerate(range(FIRST_LOOK, BUDGET + 1)):
            result = stats.ttest_rel(y[:, :k], x[:, :k], axis=1)
            pvalues[:, column] = np.nan_to_num(result.pvalue, nan=1.0)
            signs[:, column] = np.sign(np.nan_to_num(result.statistic))
    return pvalues, signs


def peeking_rate(pvalues: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Per benchmark: whether the fixed-n test, re-run after every round, ever rejected."""
    return (pvalues <= alpha).any(axis=1)


def compare_peeking(design: Design, benchmarks: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Per benchmark of `benchmarks`: whether `fastperf.compare` (its default test at the
    table's structure, no adjustment), re-run after every round from FIRST_LOOK, ever called a
    change; a benchmark stops at its first call, as a runner that peeks would."""
    count = design.benchmarks
    keep = np.zeros(count, dtype=bool)
    keep[benchmarks] = True
    row_benchmark = design.table.column("benchmark").to_numpy()
    mask = keep[row_benchmark]
    table, round_of_row, row_benchmark = (design.table.filter(mask), design.round_of_row[mask],
                                          row_benchmark[mask])
    flagged = np.zeros(count, dtype=bool)
    for look in range(FIRST_LOOK, BUDGET + 1):
        if table.num_rows == 0:  # every benchmark called a change
            break
        end = int(np.searchsorted(round_of_row, look))
        rows = fastperf.compare(table.slice(0, end), baseline="baseline", candidate="candidate",
                                by="benchmark", unit=None, adjust="none", alpha=alpha).benchmarks
        called = np.isin(np.array(rows.column("verdict").to_pylist(), dtype=object),
                         ["worse", "better", "changed"])
        if called.any():
            flagged[rows.column("benchmark").to_numpy()[called]] = True
            mask = ~flagged[row_benchmark]
            table, round_of_row, row_benchmark = (table.filter(mask), round_of_row[mask],
                                                  row_benchmark[mask])
    return flagged[benchmarks]


#: The most power the fixed-n design of equal power is asked for: a rate of 100 % has no
#: fixed-n equivalent (a t-test's power stays below 1), and near it the fixed n is set by the
#: one or two replicates whose outliers hide the change (heavy tails), not by the design.
POWER_CAP = 0.99


def equal_power_rounds(pvalues: np.ndarray, signs: np.ndarray, right: str, target: float,
                       alpha: float = ALPHA, cap: float = POWER_CAP) -> int | None:
    """The fixed-n design of equal power: the fewest rounds n at which scipy's paired t-test
    at `alpha` (two-sided) on the first n log unit means calls the change in the right
    direction in at least a share min(`target`, `cap`) of the cell's benchmarks (the same
    replicates); None when no n up to the budget does."""
    right_sign = signs == (1.0 if right == "worse" else -1.0)
    power = ((pvalues <= alpha) & right_sign).mean(axis=0)
    reached = np.flatnonzero(power >= min(target, cap))
    return int(reached[0] + FIRST_LOOK) if reached.size else None


def value_log_sd(design: str, shape: str, units: int = 40_000) -> float:
    """The log-sd of one value of a shape in a design (its process effect included; the drift,
    shared by the variants of a round, left out), from one benchmark of `units` runs or
    processes."""
    nested = {} if design == "flat" else {"processes": units // ITERATIONS,
                                           "iterations": ITERATIONS, "icc": ICC}
    table = fastperf.simulate(benchmarks=1, runs=None if nested else units, shapes=shape,
                              sigma=SIGMAS[shape], base=1.0, effects=1.0, unit=None,
                              seed=seed_of("calibration", design, shape), **nested).table
    values = table.column("value").to_numpy()
    return float(np.log(values[:values.size // 2]).std())


# ------------------------------------------------------------------------------ the docs' tables


def summary(path, cells: bool = False) -> str:
    """docs/validity.md's tables of the section from a run's .sequential.md: no change, the
    changes and e-BH's false discoveries (`cells`: every judged cell instead)."""
    from pathlib import Path  # deferred: only the script's summary reads the file

    text = Path(path).read_text()
    headings = ("Cells",) if cells else ("No change", "Changes", "False discoveries (e-BH)")
    out = [text.split("\n", 1)[0]]
    for heading in headings:
        section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
        out.append(f"\n**{heading}**\n{section.rstrip()}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    # python bench/validity/sequential_rates.py [.sequential.md] [--cells]: the docs' tables
    import sys

    arguments = [a for a in sys.argv[1:] if a != "--cells"]
    source = arguments[0] if arguments else __file__.rsplit("/", 1)[0] + "/.sequential.md"
    sys.stdout.write(summary(source, cells="--cells" in sys.argv))
