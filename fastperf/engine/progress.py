"""A progress bar on stderr for long batched computations, advanced over chunks of groups.

A long call (`bootstrap`, `permutation_test`) splits its batch into contiguous chunks of groups
and runs the kernel on each in turn (never a Python loop over single groups); the bar advances
after each chunk. Every group's result depends on its index in the whole batch only, so the
results are the same whatever the chunking. The bar is drawn only when asked (``progress=True``)
or, by default (``progress=None``), when stderr is a terminal and the call's estimated work is at
least `AUTO_MIN_STEPS`; ``progress=False`` never draws it.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

from fastperf.data.budget import format_bytes
from fastperf.errors import InputError

__all__ = ["ProgressBar", "wants_progress", "chunk_bounds", "describe_cost", "AUTO_MIN_STEPS",
           "CHUNKS"]

#: By default the bar appears from this much estimated work (about a second at 1e9 steps/s).
AUTO_MIN_STEPS = 10 ** 9
#: The batch is split into at most this many chunks when a bar is drawn.
CHUNKS = 50


def wants_progress(progress, steps: float, stream: TextIO | None = None) -> bool:
    """Whether to draw a bar: `progress` True or False as given; None: when `stream` (stderr)
    is a terminal and `steps` is at least `AUTO_MIN_STEPS`.

    Raises
    ------
    InputError
        `progress` is not None, True or False.
    """
    if progress is None:
        stream = sys.stderr if stream is None else stream
        try:
            tty = bool(stream.isatty())
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            tty = False
        return tty and steps >= AUTO_MIN_STEPS
    if progress is True or progress is False:
        return progress
    raise InputError(f"progress must be None (a bar when stderr is a terminal), True or False, "
                     f"got {progress!r}")


def chunk_bounds(size: int, chunks: int) -> list[tuple[int, int]]:
    """`size` groups split into at most `chunks` contiguous ranges [start, stop) of near-equal
    length (one range when `chunks` <= 1; none when `size` is 0)."""
    if size <= 0:
        return []
    count = max(1, min(int(chunks), size))
    edges = [size * k // count for k in range(count + 1)]
    return [(a, b) for a, b in zip(edges[:-1], edges[1:]) if b > a]


class ProgressBar:
    """A one-line bar on stderr: ``label [#####.....] 45% 450/1000 groups, 3.2 s, ~4 s left``.

    Parameters
    ----------
    label : str
        What runs, e.g. ``"bootstrap"``.
    total : int
        Groups in the batch.
    estimate : str
        The cost estimate printed on the first line (steps, memory).
    stream : file, optional
        Where to draw (default stderr).
    """

    WIDTH = 30

    def __init__(self, label: str, total: int, estimate: str = "", stream: TextIO | None = None):
        self.label = label
        self.total = max(int(total), 1)
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()
        if estimate:
            self.stream.write(f"{label}: {estimate}\n")
        self.update(0)

    def update(self, done: int) -> None:
        """Redraw the bar with `done` groups finished."""
        fraction = min(max(done / self.total, 0.0), 1.0)
        filled = int(round(fraction * self.WIDTH))
        elapsed = time.perf_counter() - self.start
        left = f", ~{elapsed / fraction - elapsed:.0f} s left" if 0 < fraction < 1 else ""
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                          f"{fraction:4.0%} {done}/{self.total} groups, {elapsed:.1f} s{left}")
        self.stream.flush()

    def close(self) -> None:
        """End the line."""
        self.stream.write("\n")
        self.stream.flush()


def describe_cost(steps: float, bytes_needed: float) -> str:
    """The estimate line: ``about 2.4e+10 steps, 1.2 GiB (1288490188 bytes) at once``."""
    return f"about {float(steps):.2g} steps, {format_bytes(bytes_needed)} at once"
