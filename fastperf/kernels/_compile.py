"""How group kernels are compiled: one Python function, a cached serial build and a parallel one.

Numba cannot cache ``parallel=True`` kernels, so each process pays their compile time on first
use (about a second). A kernel that loops ``prange`` over groups is therefore compiled twice from
the same source: a serial build with ``cache=True`` (compiled once per machine, then loaded from
disk) used for small inputs, where threads would not pay off anyway, and a parallel build used
once the input is large enough to be worth compiling it. Per-group work is independent, so both
builds give identical results.
"""
from numba import njit

#: Inputs with at least this many rows use the parallel build.
PARALLEL_MIN_ROWS = 200_000


class GroupKernel:
    """A kernel over groups with a serial (cached) and a parallel (prange) build."""

    def __init__(self, fn):
        self.py_func = fn
        self.serial = njit(cache=True)(fn)
        self.parallel = njit(parallel=True)(fn)
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, *args, n_rows: int):
        """Run the build suited to `n_rows`, the number of rows the call touches."""
        build = self.parallel if n_rows >= PARALLEL_MIN_ROWS else self.serial
        return build(*args)


def group_kernel(fn) -> GroupKernel:
    """Decorator: compile `fn` (which loops ``prange`` over groups) both ways."""
    return GroupKernel(fn)
