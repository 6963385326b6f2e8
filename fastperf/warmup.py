"""``fastperf warmup``: compile every kernel once and keep it in Numba's disk cache.

Kernels compile on their first call (seconds each; about a minute for everything on a 2-core
machine) and are cached on disk (``cache=True``): in ``__pycache__`` beside the installed
package, or under ``NUMBA_CACHE_DIR`` when that is set. ``warmup`` runs every table-level and
array function on small generated data, through the code paths that pick different kernels
(exact and asymptotic tests, tied and untied data; the parallel builds too on request), in
worker processes, so that a later process only loads compiled code. docs/startup.md gives the
figures and a CI recipe that keeps the cache between jobs.
"""
from __future__ import annotations

import multiprocessing
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, TextIO

import numpy as np
import pyarrow as pa

import fastperf
from fastperf.data.arrays import Samples
from fastperf.data.levels import Structure, run_sequences
from fastperf.engine.diagnostics import diagnose
from fastperf.engine.dip import dip_test
from fastperf.io.read import example_table
from fastperf.kernels import builds
from fastperf.progress import AUTO_MIN_STEPS, ProgressBar, wants_progress

__all__ = ["TASKS", "warmup"]


def _tables():
    """Small tables that reach every kernel: Go files (tied integer ns/op) and simulated runs."""
    return example_table(), fastperf.simulate(12, 30, seed=1).table, fastperf.simulate(12, 30, seed=2,
                                                                            paired=True).table


def _compare_protocols():
    go, independent, paired = _tables()
    for table, (base, cand) in ((go, ("old", "new")), (independent, ("baseline", "candidate"))):
        fastperf.compare(table, baseline=base, candidate=cand)
        fastperf.speedup_test(table, baseline=base, candidate=cand)
        fastperf.hpt(table, baseline=base, candidate=cand)
    fastperf.sparc(paired, baseline="baseline", candidate="candidate", pair="run")
    fastperf.sparc(paired, baseline="baseline", candidate="candidate")
    # rows in no order (variants interleaved, runs shuffled): the counting sort, the gathers
    # into group order and the runs' reordering
    shuffled = independent.take(np.random.default_rng(0).permutation(independent.num_rows))
    fastperf.compare(shuffled, baseline="baseline", candidate="candidate")
    fastperf.sparc(paired.take(np.random.default_rng(1).permutation(paired.num_rows)),
                   baseline="baseline", candidate="candidate", pair="run")
    # processes x iterations (the nested analysis: unit moments, Welch on the process means)
    nested = fastperf.simulate(12, processes=5, iterations=4, icc=0.5, seed=3).table
    fastperf.compare(nested, baseline="baseline", candidate="candidate")
    fastperf.describe(nested)


def _summaries():
    go, independent, paired = _tables()
    for table in (go, independent):
        fastperf.describe(table)
        fastperf.plan_runs(table)
    for method in ("per-run", "propagation"):
        fastperf.aggregate_score(paired, method=method)
    fastperf.anova(paired, factor="variant", by="benchmark")


def _rank_tests():
    rng = np.random.default_rng(0)
    for size in (8, 40, 400):  # exact, exact with ties, asymptotic
        x, y = rng.lognormal(size=(2, 3, size))
        tied_x, tied_y = np.round(x, 1), np.round(y, 1)
        for a, b in ((x, y), (tied_x, tied_y)):
            # the Hodges-Lehmann estimates and intervals too (computed on first access)
            fastperf.mannwhitneyu(a, b, axis=-1).confidence_interval()
            fastperf.wilcoxon(a, b, axis=-1).confidence_interval()
            fastperf.rankdata(a, axis=-1)
    # samples of different sizes (a table form whose last benchmark lost runs): the statistics'
    # kernels on ragged batches
    table = fastperf.simulate(4, 12, seed=0).table
    fastperf.mannwhitneyu(table.slice(0, table.num_rows - 3), baseline="baseline",
                          candidate="candidate")


def _other_tests():
    rng = np.random.default_rng(0)
    for size in (8, 40, 400):
        x, y = rng.lognormal(size=(2, 3, size))
        fastperf.ks_2samp(x, y, axis=-1)
        fastperf.ks_2samp(np.round(x, 1), np.round(y, 1), axis=-1)
        fastperf.ttest_ind(x, y, axis=-1)
        fastperf.ttest_rel(x, y, axis=-1)
        fastperf.ftest(x, y, axis=-1)
        fastperf.shapiro(x, axis=-1)
    fastperf.multipletests(rng.uniform(size=20))


def _resampling():
    rng = np.random.default_rng(0)
    x, y = rng.lognormal(size=(2, 3, 30))
    for statistic in ("median_ratio", "mean_ratio"):
        fastperf.bootstrap((x, y), statistic=statistic, n_resamples=200, seed=0)
    fastperf.bootstrap((x,), statistic="median", n_resamples=200, seed=0)
    for paired in (False, True):
        fastperf.permutation_test((x, y), paired=paired, n_resamples=200, seed=0)
        fastperf.permutation_test((x, y), statistic="median_diff", paired=paired,
                                  n_resamples=200, seed=0)
    # the table forms: streams keyed by the groups' identities (fastperf.data.identity)
    table = fastperf.simulate(4, 12, seed=0, paired=True).table
    fastperf.bootstrap(table, statistic="median_ratio", baseline="baseline",
                       candidate="candidate", n_resamples=200, seed=0)
    fastperf.permutation_test(table, paired=True, baseline="baseline", candidate="candidate",
                              n_resamples=200, seed=0)


def _changepoints():
    rng = np.random.default_rng(0)
    commits = np.repeat(np.arange(40), 2)
    # a step, then a drift (pelt's ramp refit), and a series of values <= 0 (no logs)
    values = np.exp(rng.normal(0, 0.01, commits.size) + np.where(commits >= 20, 0.1, 0.0)
                    + 0.01 * np.clip(commits - 25, 0, None))
    table = pa.table({"benchmark": ["a"] * commits.size, "commit": commits, "value": values})
    fastperf.changepoints(table, order="commit")
    fastperf.changepoints(table.set_column(2, "value", pa.array(values - 1.05)), order="commit")
    for method in ("edivisive", "ttest"):
        fastperf.changepoints(table, order="commit", method=method, permutations=19, alpha=0.1)


def _diagnostics():
    # the run diagnostics' kernels: flat runs and processes x iterations, tiny groups too
    for table, structure in ((fastperf.simulate(12, 30, seed=4).table, Structure()),
                             (fastperf.simulate(12, processes=5, iterations=30, seed=5).table,
                              Structure(("process",))),
                             (fastperf.simulate(3, 2, seed=6).table, Structure())):
        diagnose(run_sequences(table, ["benchmark"], "variant", "value", structure))
    # a clear transient: the steady values less it, sorted as padded rows (steady_rows)
    runs = np.exp(np.random.default_rng(7).normal(0, 0.01, (2, 40))
                  + np.where(np.arange(40) < 5, 0.5, 0.0))
    transient = pa.table({"benchmark": ["a"] * 80, "variant": ["x"] * 40 + ["y"] * 40,
                          "run": np.tile(np.arange(40), 2), "value": runs.ravel()})
    diagnose(run_sequences(transient, ["benchmark"], "variant", "value", Structure()))
    # the dip test on its own (the engine function the diagnostics' fused kernel mirrors)
    dip_test(Samples(np.sort(runs, axis=1).ravel(), np.array([0, 40, 80])))


#: The warm-up tasks, each run in one worker process: (name, function).
TASKS: list[tuple[str, Callable[[], None]]] = [
    ("compare, speedup_test, sparc, hpt", _compare_protocols),
    ("describe, plan_runs, aggregate_score, anova", _summaries),
    ("rank tests", _rank_tests),
    ("KS, t, F and Shapiro-Wilk tests", _other_tests),
    ("bootstrap and permutation tests", _resampling),
    ("change points", _changepoints),
    ("run diagnostics", _diagnostics),
]


def run_task(index: int, parallel: bool) -> tuple[int, float]:
    """Run task `index` (with the parallel builds when `parallel`) in this process.

    Returns the specializations it compiled and their compile seconds.
    """
    builds.FORCE_PARALLEL = parallel
    with warnings.catch_warnings(), builds.CompileLog() as log:
        warnings.simplefilter("ignore")
        TASKS[index][1]()
    return len(log.records), log.seconds


def warmup(jobs: int | None = None, parallel: bool = False,
           progress: TextIO | None = None) -> dict:
    """Compile (or load from the disk cache) every kernel fastperf uses.

    Parameters
    ----------
    jobs : int, optional
        Worker processes (default: the CPUs available to this process).
    parallel : bool
        Also compile the parallel (``prange``) builds, which run on large inputs in a process
        that sets ``FASTPERF_PARALLEL=1`` (default False: they double the time).
    progress : file, optional
        Where to draw a progress bar (stderr when it is a terminal; None: no bar).

    Returns
    -------
    dict
        ``tasks``, ``compiled`` (specializations compiled: 0 when everything was cached),
        ``compile_seconds``, ``seconds`` (wall time), ``cache`` (Numba's cache directory,
        or "beside the package" when unset) and ``native`` (the kernel builds the installed
        native module serves, which need no JIT: `fastperf.kernels.builds`).
    """
    start = time.perf_counter()
    runs = [(i, p) for p in ((False, True) if parallel else (False,)) for i in range(len(TASKS))]
    if jobs is None:
        jobs = builds.available_cpus()
    compiled, seconds = 0, 0.0

    context = multiprocessing.get_context("spawn")  # no fork of a process with Numba's threads
    with ProcessPoolExecutor(max_workers=max(1, jobs or 1), mp_context=context) as pool:
        futures = [pool.submit(run_task, i, p) for i, p in runs]
        bar = (ProgressBar("fastperf warmup", len(runs), unit="tasks", stream=progress)
               if progress is not None else None)
        for done, future in enumerate(as_completed(futures), 1):
            n, s = future.result()
            compiled += n
            seconds += s
            if bar is not None:
                bar.update(done)
    if bar is not None:
        bar.close()
    return {"tasks": len(runs), "compiled": compiled, "compile_seconds": seconds,
            "seconds": time.perf_counter() - start,
            "cache": os.environ.get("NUMBA_CACHE_DIR") or "beside the package (__pycache__)",
            "native": sum(len(types) for types in builds.native_builds().values())}


def progress_stream() -> TextIO | None:
    """stderr when a bar is wanted (a terminal, and no ``--no-progress``), else None."""
    return sys.stderr if wants_progress(None, AUTO_MIN_STEPS) else None
