"""How group kernels are compiled: one Python function, a cached serial build and a parallel one.

Numba cannot cache ``parallel=True`` kernels, so each process pays their compile time on first
use (about a second). A kernel that loops ``prange`` over groups is therefore compiled twice from
the same source: a serial build with ``cache=True`` (compiled once per machine, then loaded from
disk) used for small inputs, where threads would not pay off anyway, and a parallel build used
once the input is large enough to be worth compiling it. Per-group work is independent, so both
builds give identical results.
"""
from __future__ import annotations

from typing import Callable

from numba import njit

#: Default size from which the parallel build is used. Threads cost a fixed overhead per call
#: (tens of microseconds to milliseconds when the other core is busy, as on a loaded 2-core CI
#: machine), so only heavy work on large inputs pays for them; kernels set their own threshold.
PARALLEL_MIN_ROWS = 1_000_000

#: Tests set this to 0 to force the parallel builds (see tests/conftest.py).
FORCE_PARALLEL = False

#: Set by one-shot processes (the command line): a parallel build is compiled afresh in every
#: process (about a second each), which a single call only earns back on very large inputs, so
#: there the threshold is at least `ONE_SHOT_MIN_ROWS`.
ONE_SHOT = False
ONE_SHOT_MIN_ROWS = 20_000_000


class GroupKernel:
    """A kernel over groups with a serial (cached) and a parallel (prange) build."""

    def __init__(self, fn, min_rows: int = PARALLEL_MIN_ROWS):
        self.py_func = fn
        self.min_rows = min_rows
        self.serial = njit(cache=True)(fn)
        self.parallel = njit(parallel=True)(fn)
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, *args, n_rows: int):
        """Run the build suited to `n_rows`, the number of rows the call touches."""
        threshold = max(self.min_rows, ONE_SHOT_MIN_ROWS) if ONE_SHOT else self.min_rows
        build = self.parallel if FORCE_PARALLEL or n_rows >= threshold else self.serial
        return build(*args)


def group_kernel(fn: Callable | None = None, *,
                 min_rows: int = PARALLEL_MIN_ROWS) -> GroupKernel | Callable:
    """Decorator: compile `fn` (which loops ``prange`` over groups) both ways.

    ``@group_kernel`` uses the default threshold; ``@group_kernel(min_rows=N)`` sets the input
    size from which this kernel's parallel build runs (higher for light, memory-bound work).

    Parameters
    ----------
    fn : callable, optional
        The kernel's Python function (when used as ``@group_kernel`` without arguments).
    min_rows : int
        The input size from which the parallel build runs.

    Returns
    -------
    GroupKernel or callable
        The kernel, or a decorator making one.

    Notes
    -----
    Numba caches only serial builds (``cache=True`` is not supported with ``parallel=True``),
    hence two builds from one source; no formula.
    """
    if fn is None:
        return lambda f: GroupKernel(f, min_rows)
    return GroupKernel(fn, min_rows)
