"""Simulated measurement tables with known defects, for the validity cells of `fastperf.check`
and of ``compare(warmup="auto")`` (issue 45; docs/check.md, "Measured error rates").

Every table is `fastperf.simulate` log-normal data (log-sd `SIGMA`, 1 %: a quiet machine; no
true change) in one of three designs, into which one defect is then put at the issue's effect
size:

- ``clean``: none;
- ``transient``: the first `TRANSIENT` iterations of every process (without processes: the first
  runs) `TRANSIENT_SLOWDOWN` slower;
- ``second mode``: each value, with probability `MODE_SHARE`, `MODE_SHIFT` slower;
- ``drift``: the value of run r multiplied by ``DRIFT ** (r / 10)`` (1 % per 10 runs; a run is a
  process where there are processes, as pyperf names them);
- ``outliers``: each value, with probability `OUTLIER_SHARE`, multiplied by `OUTLIER_FACTOR`
  (beyond 3 IQR of the log values: severe).
"""
from __future__ import annotations

import zlib

import numpy as np
import pyarrow as pa

import fastperf
from fastperf.engine.diagnostics import FLAGS

#: The designs: a flat run sequence, JMH-like forks x iterations, pyperf-like processes x values,
#: and two small flat groups (clean data only: the false alarms of small samples).
DESIGNS = {"flat": {"runs": 60},
           "process": {"processes": 10, "iterations": 30, "icc": 0.3},
           "pyperf": {"processes": 20, "iterations": 3, "icc": 0.3},
           "5 runs": {"runs": 5}, "10 runs": {"runs": 10}}
SIGMA = 0.01
TRANSIENT, TRANSIENT_SLOWDOWN = 10, 1.20
MODE_SHARE, MODE_SHIFT = 0.30, 1.15
DRIFT = 1.01
OUTLIER_SHARE, OUTLIER_FACTOR = 0.05, 1.5
DEFECTS = ("clean", "transient", "second mode", "drift", "outliers")
#: The flag each defect must raise.
FLAG_OF = {"transient": "warmup", "second mode": "bimodal", "drift": "drift",
           "outliers": "outliers"}


def seed_of(*parts) -> int:
    """A seed fixed by its parts (CRC-32: stable across processes, unlike str hashes)."""
    return zlib.crc32(repr(parts).encode())


def shape_of(design: str) -> tuple[int, int]:
    """(processes, iterations) of a design; a flat design is one process of its runs."""
    spec = DESIGNS[design]
    if "runs" in spec:
        return 1, spec["runs"]
    return spec["processes"], spec["iterations"]


def defect_table(design: str, defect: str, benchmarks: int, *, candidate_only: bool = False,
                 sigma: float = SIGMA, runs: int | None = None) -> pa.Table:
    """A `fastperf.simulate` table of `benchmarks` benchmarks x 2 variants in `design` (with
    `runs` runs instead of the flat design's), log-sd `sigma`, with `defect` in both variants
    (only the candidate with `candidate_only`)."""
    seed = seed_of(design, defect, benchmarks, candidate_only, sigma, runs)
    spec = {"runs": runs} if runs is not None else DESIGNS[design]
    table = fastperf.simulate(benchmarks=benchmarks, shapes="lognormal", sigma=sigma, base=1.0,
                              effects=1.0, unit=None, seed=seed, **spec).table
    processes, iterations = (1, runs) if runs is not None else shape_of(design)
    # simulate's rows: variant, benchmark, process, iteration
    values = table.column("value").to_numpy().reshape(2, benchmarks, processes, iterations).copy()
    target = values[1:] if candidate_only else values
    rng = np.random.default_rng(seed + 1)
    if defect == "transient":
        target[..., :TRANSIENT] *= TRANSIENT_SLOWDOWN
    elif defect == "second mode":
        target *= np.where(rng.random(target.shape) < MODE_SHARE, MODE_SHIFT, 1.0)
    elif defect == "drift":
        run = (np.arange(iterations) if processes == 1 else np.arange(processes)[:, None])
        target *= DRIFT ** (run / 10.0)
    elif defect == "outliers":
        target *= np.where(rng.random(target.shape) < OUTLIER_SHARE, OUTLIER_FACTOR, 1.0)
    elif defect != "clean":
        raise ValueError(f"unknown defect {defect!r}")
    return table.set_column(table.column_names.index("value"), "value",
                            pa.array(values.ravel()))


def flag_rates(table: pa.Table) -> dict[str, float]:
    """The share of `fastperf.check`'s rows (benchmark x variant) raising each flag."""
    flags = table.column("flags").to_pylist()
    rows = [set(filter(None, (f.strip() for f in (text or "").split(",")))) for text in flags]
    return {flag: float(np.mean([flag in row for row in rows])) for flag in FLAGS}


def changed_rate(design: str, defect: str, benchmarks: int, warmup: str | None) -> float:
    """The share of benchmarks `compare` (adjust="none") calls changed when nothing changed in
    the steady state: `defect` in the candidate only."""
    table = defect_table(design, defect, benchmarks, candidate_only=True)
    result = fastperf.compare(table, baseline="baseline", candidate="candidate", adjust="none",
                              warmup=warmup)
    verdict = np.asarray(result.table.column("verdict").to_pylist(), dtype=object)
    return float(np.mean(~np.isin(verdict, ["no change", "equivalent"])))
