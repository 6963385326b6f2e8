"""What a progress bar costs: each long call timed with the bar (``progress=True``, drawn to a
terminal-like sink, its work split into `fastperf.progress.CHUNKS` kernel calls) and without
(``progress=False``, one call), on the same data in the same run, the two alternating.

Goal (issue 20): the bar costs under 3% of the run time. Printed, not asserted: the machine
has two noisy cores, so the figure is the Hodges-Lehmann estimate of the per-round ratio of
alternating rounds with its 95% interval (fastperf's own signed-rank test on the log ratios),
in wall and in CPU time, next to an A/A control (the same call timed against itself).
Run: ``pytest bench/test_progress_bench.py -s``.
"""
from __future__ import annotations

import sys
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

import fastperf
from conftest import median_time

ROUNDS = 25


class Sink:
    """A stderr that says it is a terminal and keeps nothing."""

    def isatty(self):
        return True

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def _alternating(call, rounds=ROUNDS):
    """call(False) and call(True) timed in alternation (which goes first alternates too) after
    a warm-up: the median wall seconds of each, and the per-round ratios with / without in
    wall time and in the process's CPU time (all threads; time stolen by other tenants of the
    machine does not count)."""
    call(False)
    call(True)
    runs = {False: [], True: []}
    saved, sys.stderr = sys.stderr, Sink()
    try:
        for r in range(rounds):
            for flag in ((False, True) if r % 2 == 0 else (True, False)):
                wall, cpu = time.perf_counter(), time.process_time()
                call(flag)
                runs[flag].append((time.perf_counter() - wall, time.process_time() - cpu))
    finally:
        sys.stderr = saved
    off, on = np.array(runs[False]), np.array(runs[True])
    return np.median(off[:, 0]), np.median(on[:, 0]), on / off


def _report(name, off, on, ratios):
    """The Hodges-Lehmann ratio (the pseudo-median of the per-round ratios, on logs) with its
    95% interval, by fastperf's own signed-rank test: wall and CPU."""
    parts = []
    for column, what in ((0, "wall"), (1, "CPU")):
        res = fastperf.wilcoxon(np.log(ratios[:, column]))
        low, high = np.exp(res.confidence_interval(0.95))
        parts.append(f"{what} {np.exp(res.estimate):.3f} [{low:.3f}, {high:.3f}]")
    print(f"\n{name}: without a bar {off * 1e3:.0f} ms, with a bar {on * 1e3:.0f} ms; "
          f"ratio with / without (95% interval): {', '.join(parts)}")


def _bootstrap_call(rng_seed=1):
    """The bootstrap of the bench: 3000 samples x 2 x 60 values, B = 2000."""
    rng = np.random.default_rng(rng_seed)
    x, y = rng.lognormal(size=(3000, 60)), rng.lognormal(size=(3000, 60))
    return lambda progress: fastperf.bootstrap((x, y), statistic="median_ratio",
                                               n_resamples=2000, seed=1, progress=progress)


def test_bar_cost_bootstrap():
    off, on, ratios = _alternating(_bootstrap_call())
    _report("bootstrap, 3000 samples x 2 x 60 values, B = 2000", off, on, ratios)


def test_noise_floor_same_call_twice():
    """The A/A control: the same call without a bar timed against itself, as the others are
    timed; its ratio's distance from 1 is the noise of this machine."""
    call = _bootstrap_call()
    off, on, ratios = _alternating(lambda progress: call(False))
    _report("noise floor: bootstrap without a bar against itself", off, on, ratios)


def test_bar_cost_permutation():
    rng = np.random.default_rng(2)
    x, y = rng.lognormal(size=(3000, 40)), rng.lognormal(size=(3000, 40))
    off, on, ratios = _alternating(lambda p: fastperf.permutation_test(
        (x, y), n_resamples=4000, seed=2, progress=p))
    _report("permutation_test, 3000 tests of 40 vs 40, 4000 resamples", off, on, ratios)


def test_bar_cost_exact_rank_sum():
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(1500, 70)), 1)  # ties: one conditional tail per test
    y = np.round(rng.normal(size=(1500, 60)), 1)
    off, on, ratios = _alternating(
        lambda p: fastperf.mannwhitneyu(x, y, method="exact", progress=p))
    _report("exact rank-sum with ties, 1500 tests of 70 vs 60", off, on, ratios)


def test_bar_cost_exact_signed_rank():
    rng = np.random.default_rng(4)
    d = np.round(rng.normal(size=(2000, 250)), 1)
    off, on, ratios = _alternating(
        lambda p: fastperf.wilcoxon(d, method="exact", progress=p))
    _report("exact signed-rank with ties, 2000 samples of 250", off, on, ratios)


@pytest.fixture(scope="module")
def many_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("progress-files")
    table = fastperf.simulate(200, 31, seed=5).table
    paths = []
    for i in range(100):
        path = folder / f"part{i:03d}.parquet"
        pq.write_table(table.slice(124 * i, 124), path)
        paths.append(path)
    one = folder / "one.parquet"
    big = fastperf.simulate(20000, 250, seed=6).table  # 10 million rows
    pq.write_table(big, one, row_group_size=big.num_rows // 100)  # Arrow's default: 1M rows
    return paths, one


def test_bar_cost_reading_files(many_files):
    paths, _ = many_files
    off, on, ratios = _alternating(lambda p: fastperf.read(paths, progress=p))
    _report("read, 100 Parquet files", off, on, ratios)


def test_bar_cost_reading_row_groups(many_files):
    _, one = many_files
    off, on, ratios = _alternating(lambda p: fastperf.read(one, progress=p))
    _report(f"read, one Parquet file of 10 million rows ({one.stat().st_size / 2 ** 20:.0f} "
            f"MiB) in 100 row groups", off, on, ratios)


def test_bar_cost_bound_permutation(monkeypatch):
    """The chunking's own cost, from parts small enough to time precisely: each extra chunk is
    one more kernel call (its fixed cost: a call on an empty chunk) plus at most one group's
    time with a thread idle at the chunk's end (a one-test call). Their sum times the chunks of
    a real call, over its run time, bounds what the bar costs, below this machine's noise."""
    import fastperf.progress as progress
    from fastperf.kernels.permutation import permutation_counts

    rng = np.random.default_rng(2)
    x, y = rng.lognormal(size=(3000, 40)), rng.lognormal(size=(3000, 40))
    values_x, values_y = x.ravel(), y.ravel()
    offsets = np.arange(0, 3001 * 40, 40, dtype=np.int64)
    flags, exact = np.ones(3000, dtype=bool), np.zeros(3000, dtype=bool)

    def kernel(a, b):
        permutation_counts(values_x, offsets[a:b + 1], values_y, offsets[a:b + 1], flags[a:b],
                           exact[a:b], False, 0, 4000, np.uint64(2),
                           np.arange(a, b, dtype=np.uint64), np.zeros(b - a),
                           n_rows=240000 * 4000)

    kernel(0, 1)
    empty = median_time(lambda: kernel(5, 5), 200)
    one = median_time(lambda: kernel(5, 6), 50)
    chunks = []
    original = progress.progress_chunks

    def counting(*args, **kwargs):
        for chunk in original(*args, **kwargs):
            chunks.append(chunk)
            yield chunk

    monkeypatch.setattr(progress, "progress_chunks", counting)
    saved, sys.stderr = sys.stderr, Sink()
    try:
        run = median_time(lambda: fastperf.permutation_test((x, y), n_resamples=4000, seed=2,
                                                               progress=True), 3)
    finally:
        sys.stderr = saved
    per_call = len(chunks) // 3
    bound = (per_call - 1) * (empty + one) / run
    print(f"\npermutation_test, 3000 tests: {per_call} chunks in {run:.2f} s; a kernel call on "
          f"an empty chunk {empty * 1e6:.0f} us, on one test {one * 1e3:.2f} ms; the chunking "
          f"costs at most {bound * 100:.2f}% of the run")
