"""Progress bars on stderr for long work: reading many files, resampling, exact distributions.

Long work is split into contiguous chunks (of groups, files or distributions; a Parquet file is
read batch by batch) and the bar advances after each chunk; a batched kernel runs once per chunk, never once per group.
Every group's result depends on its index in the whole batch only, so results are the same
whatever the chunking.

When a bar is drawn:

- ``progress=True``: always; ``progress=False``: never;
- ``progress=None`` (the default of every call): when stderr is a terminal and the call's
  estimated work is at least `AUTO_MIN_STEPS` (about a second), unless a surrounding
  `progress_default` says otherwise (the CLI's ``--no-progress`` sets it to False).

The bar is one line redrawn in place, after one line with the cost estimate where the caller has
one: ``bootstrap [#########.....................] 30% 15/50 groups, 3.2 s, ~7 s left``. It is
redrawn at most `REDRAW_SECONDS` apart (and at the end), so drawing costs nothing measurable.
"""
from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from typing import Iterator, TextIO

import numpy as np

from fastperf.errors import InputError

__all__ = ["ProgressBar", "wants_progress", "check_progress", "progress_default", "progress_chunks",
           "AUTO_MIN_STEPS", "CHUNKS", "CHUNK_SECONDS", "REDRAW_SECONDS", "READ_STEPS_PER_BYTE"]

#: By default the bar appears from this much estimated work (about a second at 1e9 steps/s).
AUTO_MIN_STEPS = 10 ** 9
#: Reading counts as this many steps per byte of the files: about 100 MB/s, the pace of the
#: tool-file (JSON, text) and CSV readers; Parquet is faster, so its bar needs larger files.
READ_STEPS_PER_BYTE = 10
#: With a bar, a chunk holds at least 1/CHUNKS of the work (so there are about CHUNKS at most).
CHUNKS = 50
#: With a bar, a chunk of work aims at this many seconds (measured as it runs), so that the
#: extra kernel calls cost a small fraction of the run (bench/test_progress_bench.py).
CHUNK_SECONDS = 0.5
#: The shortest time between two redraws of a bar (the first and last are always drawn).
REDRAW_SECONDS = 0.1

#: The setting of the innermost `progress_default` (per thread and per asyncio task).
_DEFAULT: contextvars.ContextVar = contextvars.ContextVar("fastperf_progress", default=None)


def check_progress(progress, name: str = "progress") -> None:
    """Refuse a `progress` argument other than None, True or False (`InputError` naming it)."""
    if progress is not None and progress is not True and progress is not False:
        raise InputError(f"{name} must be None (a bar when stderr is a terminal), True or "
                         f"False, got {progress!r}")


@contextlib.contextmanager
def progress_default(progress: bool | None) -> Iterator[None]:
    """Within the block, calls given ``progress=None`` behave as if given `progress`.

    Parameters
    ----------
    progress : bool or None
        False: no bar at all (the CLI's ``--no-progress``); True: a bar for every call that can
        draw one, short or long, terminal or not; None: the automatic rule.
    """
    check_progress(progress)
    token = _DEFAULT.set(progress)
    try:
        yield
    finally:
        _DEFAULT.reset(token)


def wants_progress(progress, steps: float, stream: TextIO | None = None) -> bool:
    """Whether to draw a bar: `progress` True or False as given; None: the `progress_default`
    in force, else when `stream` (stderr) is a terminal and `steps` is at least
    `AUTO_MIN_STEPS`.

    Raises
    ------
    InputError
        `progress` is not None, True or False.
    """
    check_progress(progress)
    if progress is None:
        progress = _DEFAULT.get()
    if progress is not None:
        return progress
    stream = sys.stderr if stream is None else stream
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        tty = False
    return tty and steps >= AUTO_MIN_STEPS


class ProgressBar:
    """A one-line bar on stderr: ``label [#####.....] 45% 450/1000 groups, 3.2 s, ~4 s left``.

    Parameters
    ----------
    label : str
        What runs, e.g. ``"bootstrap"``.
    total : int
        Items in the work.
    estimate : str
        The cost estimate printed on its own line first (steps, memory), if any.
    unit : str
        What the items are (``"groups"``, ``"files"``, ...).
    stream : file, optional
        Where to draw (default stderr).
    """

    WIDTH = 30

    def __init__(self, label: str, total: int, estimate: str = "", unit: str = "groups",
                 stream: TextIO | None = None):
        self.label = label
        self.total = max(int(total), 0)
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()
        self.drawn = -float("inf")
        if estimate:
            self.stream.write(f"{label}: {estimate}\n")
        self.update(0)

    def update(self, done: int) -> None:
        """Redraw the bar with `done` items finished (at most every `REDRAW_SECONDS`, and
        always at the start and the end)."""
        now = time.perf_counter()
        if 0 < done < self.total and now - self.drawn < REDRAW_SECONDS:
            return
        self.drawn = now
        fraction = min(max(done / self.total, 0.0), 1.0) if self.total else 1.0
        filled = int(round(fraction * self.WIDTH))
        elapsed = now - self.start
        left = f", ~{elapsed / fraction - elapsed:.0f} s left" if 0 < fraction < 1 else ""
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                          f"{fraction:4.0%} {done}/{self.total} {self.unit}, {elapsed:.1f} s"
                          f"{left}")
        self.stream.flush()

    def close(self) -> None:
        """End the line."""
        self.stream.write("\n")
        self.stream.flush()


def progress_chunks(label: str, size: int, progress, steps: float, estimate: str = "",
                    unit: str = "groups", chunks: int | None = None, weights=None,
                    seconds: float | None = None) -> Iterator[tuple[int, int]]:
    """The chunks [start, stop) of `size` items to run one after the other, with a bar.

    Without a bar (`wants_progress` false) the whole range is one chunk. With one, the first
    chunk holds 1/`chunks` of the work (default `CHUNKS`); each later chunk is sized from the
    pace measured so far to take about `seconds` (default `CHUNK_SECONDS`), and never less than
    1/`chunks` of the work. So a bar moves about every `seconds`, there are at most `chunks`
    chunks, and the extra kernel calls stay few whatever a cost model says (the time is
    measured, not estimated). The chunking never changes results: callers key every group's
    work by its index in the whole batch.

    Parameters
    ----------
    label : str
        The bar's label.
    size : int
        Items (groups, files, distributions); none gives one empty chunk (0, 0), so that a
        caller's single kernel call still runs.
    progress : bool or None
        As `wants_progress`.
    steps : float
        The estimated work, for the automatic rule.
    estimate : str
        The cost line printed before the bar.
    unit : str
        What the items are.
    chunks : int, optional
        The most chunks (default `CHUNKS`; the item count for one item per chunk).
    weights : sequence of float, optional
        The estimated work of each item (default: equal): chunks hold near-equal work, not
        counts, so a few costly items (large exact distributions) do not stall the bar.
    seconds : float, optional
        The time a chunk aims at (default `CHUNK_SECONDS`; 0: always 1/`chunks` of the work,
        for work where a chunk costs nothing extra, as reading one file).

    Yields
    ------
    (int, int)
        Each chunk's start and stop.
    """
    if not wants_progress(progress, steps):
        yield 0, size
        return
    w = np.ones(size) if weights is None else np.maximum(np.asarray(weights, float), 0.0)
    if size and not w.sum() > 0:
        w = np.ones(size)
    done_before = np.concatenate(([0.0], np.cumsum(w)))  # work of items [0, i)
    least = done_before[-1] / max(int(CHUNKS if chunks is None else chunks), 1)
    aim = CHUNK_SECONDS if seconds is None else seconds
    bar = ProgressBar(label, size, estimate, unit)
    try:
        if size == 0:
            yield 0, 0
        first, target = 0, least
        while first < size:
            # the chunk closes at the first item whose running work reaches the target
            stop = int(np.searchsorted(done_before, done_before[first] + target * (1 - 1e-12),
                                       "left"))
            stop = min(max(stop, first + 1), size)
            clock = time.perf_counter()
            yield first, stop
            elapsed = time.perf_counter() - clock
            work = done_before[stop] - done_before[first]
            pace = work / elapsed if elapsed > 0 else np.inf
            target = max(least, pace * aim) if aim > 0 else least
            first = stop
            bar.update(stop)
    finally:
        bar.close()
