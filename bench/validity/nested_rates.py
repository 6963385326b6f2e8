"""Simulated nested and interleaved measurements for the validity suite's nested cells (issue 40;
docs/validity.md, "Nested and interleaved measurements"), and their references.

A *cell* is one noise shape and ICC of a design: `replicates` benchmarks of `fastperf.simulate`
(base 1, sigma 5 %), each with P processes x I iterations a variant (or R interleaved rounds of
I iterations with a random-walk drift shared by the variants). The cells of one design are
stacked into one table whose ``benchmark`` column (int64) numbers the replicates of every cell in
turn, so that each function runs once per design, batched over every cell. The references work
on the same values, independently of fastperf: scipy's Welch test on the log process means (the
two-stage analysis of Kalibera & Jones), scipy's paired t-test on the log round means.

After ``pytest bench/validity``, ``python bench/validity/nested_rates.py`` prints the summary
tables of docs/validity.md's nested section from bench/validity/.validity.md (``--cells``: every
cell).
"""
from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
import pyarrow as pa
from scipy import stats

import fastperf

#: processes x iterations a variant, the issue's designs (pyperf's 20 x 3 to 3 x 20).
DESIGNS = ((20, 3), (10, 5), (5, 10), (3, 20))
#: intraclass correlations of the log values (0: independent values, the flat model's case).
ICCS = (0.0, 0.2, 0.5, 0.8)
#: the noise shapes of the nested cells: normal logs, outliers, a coarse timer (ties).
SHAPES = ("lognormal", "heavy_tail", "quantised")
SIGMA = 0.05
#: interleaved rounds: rounds x iterations, the ICC and the drift step (log-sd a round).
ROUND_DESIGNS = ((10, 5), (20, 5))
ROUND_ICC = 0.2
DRIFT = 0.05
#: power cells: the candidate faster by this many standard errors of the two-stage estimate.
NESTED_SHIFT = 2.5


class Design(NamedTuple):
    """The stacked cells of one design: the table, and per cell its shape, ICC, the speedup
    simulated and the standard error of the two-stage estimate of the log ratio."""

    table: pa.Table
    cells: list[tuple[str, float]]
    speedups: np.ndarray
    standard_errors: np.ndarray
    replicates: int
    units: int
    iterations: int

    def cell_rows(self, index: int) -> slice:
        """The rows of cell `index` in an array of one value per benchmark."""
        return slice(index * self.replicates, (index + 1) * self.replicates)

    def label(self, index: int) -> str:
        shape, icc = self.cells[index]
        return f"{self.units} x {self.iterations}, icc {icc:g}"

    def unit_means(self) -> tuple[np.ndarray, np.ndarray]:
        """The log of every unit's arithmetic mean (a process, or a variant's process of a
        round), shaped (benchmarks, units) for the baseline and the candidate."""
        value = self.table.column("value").to_numpy()
        benchmarks = self.table.num_rows // (2 * self.units * self.iterations)
        means = value.reshape(2, benchmarks, self.units, self.iterations).mean(axis=3)
        return np.log(means[0]), np.log(means[1])


def simulate_design(units: int, iterations: int, replicates: int, *, seed: int,
                    shift: float = 0.0, rounds: bool = False, iccs=ICCS,
                    shapes=SHAPES) -> Design:
    """Every (shape, icc) cell of a design, `replicates` benchmarks each, stacked (rows ordered
    by variant, then cell, benchmark, unit, iteration). `shift`: the candidate faster by that
    many standard errors of the two-stage estimate (the noise does not depend on it: the same
    `seed` gives the null cells' noise)."""
    cells = [(shape, icc) for shape in shapes for icc in iccs]
    parts, speedups, errors = [], [], []
    for index, (shape, icc) in enumerate(cells):
        design = {"rounds": units, "drift": DRIFT} if rounds else {"processes": units}
        null = fastperf.simulate(benchmarks=1, iterations=iterations, icc=icc, shapes=shape,
                                 sigma=SIGMA, base=1.0, effects=1.0, unit=None, seed=0, **design)
        between, within = null.truth.column("process_sd")[0].as_py(), \
            null.truth.column("iteration_sd")[0].as_py()
        error = math.sqrt(2.0 * (between ** 2 + within ** 2 / iterations) / units)
        speedup = math.exp(shift * error)
        sim = fastperf.simulate(benchmarks=replicates, iterations=iterations, icc=icc,
                                shapes=shape, sigma=SIGMA, base=1.0, effects=speedup, unit=None,
                                seed=seed + index, **design)
        parts.append(sim.table)
        speedups.append(speedup)
        errors.append(error)
    per_variant = replicates * units * iterations
    columns = {}
    for name in parts[0].column_names:
        if name == "benchmark":
            continue
        chunks = [p.column(name).combine_chunks() for p in parts]
        if name == "variant":
            chunks = [c.cast(pa.string()) for c in chunks]
        # variant-major: every cell's baseline rows, then every cell's candidate rows
        columns[name] = pa.concat_arrays([c.slice(v * per_variant, per_variant)
                                          for v in range(2) for c in chunks])
    benchmark = np.repeat(np.arange(len(cells) * replicates, dtype=np.int64),
                          units * iterations)
    table = pa.table({"benchmark": np.tile(benchmark, 2), **columns})
    return Design(table, cells, np.array(speedups), np.array(errors), replicates, units,
                  iterations)


def welch_two_stage(design: Design, alpha: float) -> np.ndarray:
    """The two-stage reference, one decision a benchmark: scipy's Welch t-test
    (``ttest_ind(equal_var=False)``) on the log process means."""
    x, y = design.unit_means()
    with warnings.catch_warnings():  # scipy's note on nearly equal means (timer ties); the
        warnings.simplefilter("ignore", RuntimeWarning)  # p-value stays scipy's
        return stats.ttest_ind(x, y, axis=1, equal_var=False).pvalue <= alpha


def paired_rounds(design: Design, alpha: float) -> np.ndarray:
    """The paired reference, one decision a benchmark: scipy's paired t-test
    (``ttest_rel``) on the log round means of the two variants."""
    x, y = design.unit_means()
    with warnings.catch_warnings():  # as in welch_two_stage
        warnings.simplefilter("ignore", RuntimeWarning)
        return stats.ttest_rel(x, y, axis=1).pvalue <= alpha


def by_benchmark(result_table: pa.Table, name: str, benchmarks: int) -> np.ndarray:
    """A result column put in benchmark order (0 .. benchmarks - 1), whatever the result's row
    order; every benchmark must have its row."""
    index = result_table.column("benchmark").to_numpy()
    values = result_table.column(name).to_numpy(zero_copy_only=False)
    assert np.array_equal(np.sort(index), np.arange(benchmarks)), "a benchmark lost its row"
    ordered = np.empty(benchmarks, dtype=values.dtype)
    ordered[index] = values
    return ordered


# ------------------------------------------------------------------------------ the docs' tables

NESTED_METHOD_MARKS = ("(nested)", "(rounds)", "flat (levels=[])")


def markdown_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the table under `heading` in the suite's .validity.md."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")][1:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def summary(path) -> str:
    """docs/validity.md's nested tables from a run's .validity.md: per method and measure, the
    range over the cells, the worst cell and the verdicts; per power method, the reference's
    power and fastperf's share of it."""
    from pathlib import Path  # deferred: only the script's summary reads the file

    text = Path(path).read_text()
    rates: dict = {}
    for method, shape, n, what, nominal, observed, _, _, verdict in markdown_rows(
            text, "Type I error and coverage"):
        if any(mark in method for mark in NESTED_METHOD_MARKS):
            rates.setdefault((method, what, nominal), []).append((float(observed), shape, n,
                                                                  verdict))
    out = ["| method | measure | nominal | range over the cells | worst cell | cells | verdict |",
           "|---|---|---|---|---|---|---|"]
    for (method, what, nominal), cells in rates.items():
        values = [c[0] for c in cells]
        worst = (min if what.startswith(("coverage", "assurance")) else max)(cells)
        failed = sum(c[3] in ("FAIL", "liberal") for c in cells)
        judged = cells[0][3] in ("ok", "FAIL")
        verdict = (("ok" if not failed else f"FAIL in {failed}") if judged
                   else ("-" if not failed else f"liberal in {failed} (reported)"))
        out.append(f"| {method} | {what} | {nominal} | {min(values):.3f} – {max(values):.3f} | "
                   f"{worst[0]:.3f} ({worst[1]}, {worst[2]}) | {len(cells)} | {verdict} |")
    powers: dict = {}
    for method, reference, shape, n, _, expected, observed, _, verdict in markdown_rows(
            text, "Power"):
        if any(mark in method for mark in NESTED_METHOD_MARKS):
            powers.setdefault((method, reference), []).append(
                (float(observed) / float(expected), float(expected), shape, n, verdict))
    out += ["", "| method | reference | reference power | fastperf / reference (least) | "
                "cells | verdict |", "|---|---|---|---|---|---|"]
    for (method, reference), cells in powers.items():
        reference_power = [c[1] for c in cells]
        least = min(cells)
        failed = sum(c[4] == "FAIL" for c in cells)
        verdict = "-" if cells[0][4] == "-" else ("ok" if not failed else f"FAIL in {failed}")
        out.append(f"| {method} | {reference} | {min(reference_power):.3f} – "
                   f"{max(reference_power):.3f} | {least[0]:.3f} ({least[2]}, {least[3]}) | "
                   f"{len(cells)} | {verdict} |")
    return "\n".join(out) + "\n"


def cell_tables(path) -> str:
    """Every nested cell of a run's .validity.md: the type I and coverage cells, then the power
    cells (docs/validity.md's collapsed tables)."""
    from pathlib import Path  # deferred: only the script's summary reads the file

    text = Path(path).read_text()
    out = ["| method | noise | design | measure | nominal | observed | MC SE | verdict |",
           "|---|---|---|---|---|---|---|---|"]
    for method, shape, n, what, nominal, observed, se, _, verdict in markdown_rows(
            text, "Type I error and coverage"):
        if any(mark in method for mark in NESTED_METHOD_MARKS):
            out.append(f"| {method} | {shape} | {n} | {what} | {nominal} | {observed} | {se} | "
                       f"{verdict} |")
    out += ["", "| method | reference | noise | design | effect | reference power | observed | "
                "verdict |", "|---|---|---|---|---|---|---|---|"]
    for method, reference, shape, n, effect, expected, observed, _, verdict in markdown_rows(
            text, "Power"):
        if any(mark in method for mark in NESTED_METHOD_MARKS):
            out.append(f"| {method} | {reference} | {shape} | {n} | {effect} | {expected} | "
                       f"{observed} | {verdict} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    # python bench/validity/nested_rates.py [.validity.md] [--cells]: the docs' nested tables
    import sys

    arguments = [a for a in sys.argv[1:] if a != "--cells"]
    source = arguments[0] if arguments else __file__.rsplit("/", 1)[0] + "/.validity.md"
    sys.stdout.write(cell_tables(source) if "--cells" in sys.argv else summary(source))
