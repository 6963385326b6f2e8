"""How group kernels are compiled: one Python function, a serial build and a parallel one, both cached.

A kernel that loops ``prange`` over groups is compiled twice from the same source: a serial
build used for small inputs, where threads would not pay off (a ``prange`` loop costs a fixed
overhead per call, which on a loaded 2-core machine exceeds what light kernels gain), and a
parallel build used once the input is large enough. Both are compiled with ``cache=True``: Numba
0.68 caches ``parallel=True`` builds (parfors) like serial ones, which
``tests/test_compile_cache.py`` checks in a second process, so each build is compiled once per
machine and loaded from disk afterwards. Per-group work is independent, so both builds give
identical results.
"""
from __future__ import annotations

import time
import types
from typing import Callable

import numpy as np
from numba import njit

#: Default size from which the parallel build is used. Threads cost a fixed overhead per call
#: (tens of microseconds to milliseconds when the other core is busy, as on a loaded 2-core CI
#: machine), so only heavy work on large inputs pays for them; kernels set their own threshold.
PARALLEL_MIN_ROWS = 1_000_000

#: Tests set this to 0 to force the parallel builds (see tests/conftest.py).
FORCE_PARALLEL = False


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of `array` (no copy).

    Numba compiles one specialization per argument type, and a read-only array (as Arrow's
    zero-copy buffers are) has another type than a writable one: a kernel that only reads an
    input gets it read-only whatever its origin, so it compiles once.
    """
    view = array.view()
    view.flags.writeable = False
    return view


def parallel_twin(fn: Callable) -> Callable:
    """A copy of `fn` under another qualified name, for its parallel build's own cache files.

    Numba names a function's cache files after its module and qualified name, and its index
    key holds the signature, the CPU and the bytecode but not the ``parallel`` option: the
    serial and parallel builds of one function would share (and overwrite) one cache entry.
    """
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    twin.__qualname__ = f"{fn.__qualname__}.parallel"
    twin.__module__ = fn.__module__
    twin.__doc__ = fn.__doc__
    return twin


class GroupKernel:
    """A kernel over groups with a serial and a parallel (prange) build, both disk-cached."""

    def __init__(self, fn, min_rows: int = PARALLEL_MIN_ROWS, inputs: int = 0):
        self.py_func = fn
        self.min_rows = min_rows
        self.inputs = inputs
        self.serial = njit(cache=True)(fn)
        self.parallel = njit(parallel=True, cache=True)(parallel_twin(fn))
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, *args, n_rows: int):
        """Run the build suited to `n_rows`, the number of rows the call touches."""
        build = self.parallel if FORCE_PARALLEL or n_rows >= self.min_rows else self.serial
        if self.inputs:  # read-only inputs: one specialization, writable or not at the caller
            args = tuple(read_only(a) for a in args[:self.inputs]) + args[self.inputs:]
        return build(*args)


def group_kernel(fn: Callable | None = None, *, min_rows: int = PARALLEL_MIN_ROWS,
                 inputs: int = 0) -> GroupKernel | Callable:
    """Decorator: compile `fn` (which loops ``prange`` over groups) both ways.

    ``@group_kernel`` uses the default threshold; ``@group_kernel(min_rows=N)`` sets the input
    size from which this kernel's parallel build runs (higher for light, memory-bound work).

    Parameters
    ----------
    fn : callable, optional
        The kernel's Python function (when used as ``@group_kernel`` without arguments).
    min_rows : int
        The input size from which the parallel build runs.
    inputs : int
        The leading arguments that are arrays the kernel only reads: they are passed as
        read-only views (`read_only`), so the kernel compiles once whatever the caller has.

    Returns
    -------
    GroupKernel or callable
        The kernel, or a decorator making one.

    Notes
    -----
    Two builds from one source because threads cost more than they gain on small inputs; both
    are cached on disk. No formula.
    """
    if fn is None:
        return lambda f: GroupKernel(f, min_rows, inputs)
    return GroupKernel(fn, min_rows, inputs)


class CompileLog:
    """Records what Numba compiles while it is installed (a context manager).

    Uses Numba's event API (``numba:compile`` events, one per specialization compiled, nested
    when a kernel compiles the kernels it calls): each record holds the kernel's module and
    name, the argument types, the inclusive time and the exclusive time (less the nested
    compiles). Loads from the disk cache raise no event, so an empty log means nothing compiled.
    """

    def __init__(self):
        from numba.core import event

        self._event = event
        self._stack: list[list] = []
        self.records: list[dict] = []
        log = self

        class Listener(event.Listener):
            def on_start(self, ev):
                log._stack.append([ev.data["dispatcher"], ev.data["args"], time.perf_counter(), 0.0])

            def on_end(self, ev):
                dispatcher, args, start, nested = log._stack.pop()
                seconds = time.perf_counter() - start
                if log._stack:
                    log._stack[-1][3] += seconds
                func = dispatcher.py_func
                log.records.append({
                    "kernel": f"{func.__module__}.{func.__qualname__}",
                    "args": str(args), "seconds": seconds, "exclusive": seconds - nested,
                    "parallel": bool(dispatcher.targetoptions.get("parallel")),
                })

        self._listener = Listener()

    def __enter__(self) -> "CompileLog":
        self._event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc) -> None:
        self._event.unregister("numba:compile", self._listener)

    @property
    def seconds(self) -> float:
        """The total compile time (sum of exclusive times)."""
        return sum(r["exclusive"] for r in self.records)

    def fastperf_records(self) -> list[dict]:
        """The records of fastperf's own kernels (not Numba's internal overloads)."""
        return [r for r in self.records if r["kernel"].startswith("fastperf.")]
