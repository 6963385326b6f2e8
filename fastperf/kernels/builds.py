"""How kernels are compiled and called: shipped native code first, Numba's JIT otherwise.

Every kernel is a plain Python function over numpy arrays, decorated with this module's `njit`
(or `group_kernel` for a loop ``prange`` over groups). The decorator returns a `Kernel`, which
imports nothing heavy: a call first looks for the kernel's ahead-of-time compiled build for the
arguments' types in ``fastperf.kernels.compiled``, an extension module compiled from the same
sources by Numba's AOT compiler when fastperf is installed (``setup.py``,
`fastperf.native_build`). Only a call that module has no build for (another dtype, a
non-contiguous array, a parallel build) imports Numba and JIT-compiles, as before: all kernels
at once get their Numba dispatchers (`jit_all`), each compiled from a copy of its function whose
globals name the other kernels' dispatchers and ``numba.prange``, so that kernels calling kernels
compile as one. A process served by the native module never imports Numba (0.3 s) nor loads
JIT-cached code (about 20 ms a kernel): docs/startup.md gives the figures.

The native module is used only when it was built from the kernel sources in place: it exports a
function named after the digest of ``fastperf/kernels/*.py`` (`source_digest`), so an edited
checkout falls back to the JIT rather than running stale code. ``FASTPERF_NATIVE=0`` turns the
native module off. Both builds compile the same LLVM IR without fast-math (no reassociation, no
FMA contraction), so they give bit-identical results, which ``tests/test_native.py`` checks.

A kernel that loops ``prange`` over groups has a serial build used for small inputs, where
threads would not pay off (a ``prange`` loop costs a fixed overhead per call, which on a loaded
2-core machine exceeds what light kernels gain), and a parallel JIT build used once the input
is large enough, and, in a process that has not started the JIT, large enough to repay its
start too (`GroupKernel`). JIT builds use ``cache=True``: Numba 0.68 caches ``parallel=True``
builds (parfors) like serial ones, which ``tests/test_compile_cache.py`` checks in a second process,
so each is compiled once per machine and loaded from disk afterwards. Per-group work is
independent, so every build gives identical results.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import time
import types
from pathlib import Path
from typing import Callable

import numpy as np

#: Default size from which the parallel build is used. Threads cost a fixed overhead per call
#: (tens of microseconds to milliseconds when the other core is busy, as on a loaded 2-core CI
#: machine), so only heavy work on large inputs pays for them; kernels set their own threshold.
PARALLEL_MIN_ROWS = 1_000_000

#: Tests set this to 0 to force the parallel builds (see tests/conftest.py).
FORCE_PARALLEL = False

#: The parallel builds are JIT builds: in a process that has not started the JIT, the first one
#: must also repay its start, importing Numba and loading the builds from its disk cache (about
#: 1 s on 2 cores; 45 s for ``fastperf compare`` of 10,000 benchmarks where the cache is empty,
#: as on a fresh CI runner). Until then a group kernel with a native build runs it serially on
#: inputs above its threshold, unless the input is this many times the threshold (seconds of
#: serial work: the thresholds sit at 10-40 ms of it)...
JIT_START_FACTOR = 100
#: ... or the serial time spent so on inputs above the threshold reaches this many seconds,
#: the JIT's warm start: a long session of large calls then starts it, having spent at most
#: about twice what the threads would have saved (the ski-rental rule).
JIT_START_SECONDS = 1.0

#: Stands for ``numba.prange`` in kernel modules (``from fastperf.kernels.builds import
#: prange``) until `jit_all` gives the JIT the real one; the AOT build compiles it as ``range``.
prange = range

#: The ahead-of-time compiled extension module (built by setup.py; absent in a bare checkout).
NATIVE_MODULE = "fastperf.kernels.compiled"

#: Every kernel made by `njit` or `group_kernel`, in definition order.
KERNELS: list["Kernel"] = []

#: While a list, `Kernel.__call__` appends (kernel name, argument types) of every call to it:
#: how `fastperf.native_build` learns which builds to compile ahead of time.
CALL_LOG: list[tuple[str, tuple[str, ...]]] | None = None

_native: dict[str, dict[tuple[str, ...], Callable]] | None = None
_jitted = 0  # KERNELS[:_jitted] have their JIT dispatchers
_jit_started = False  # `jit_all` ran: Numba is imported, kernels imported later get the JIT too
_serial_instead = 0.0  # seconds of native serial calls that the thresholds gave to threads
_jit_namespaces: dict[int, dict] = {}  # a kernel module's globals, as the JIT sees them

_ARRAY_TYPES = {1: "{}[::1]", 2: "{}[:, ::1]", 3: "{}[:, :, ::1]"}
_INT64 = (-(2 ** 63), 2 ** 63)


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


def argument_type(value) -> str | None:
    """The type name a native build is keyed on (``"float64[::1]"``, ``"int64"``, ``"bool"``),
    or None for a value no native build takes (a non-contiguous or byte-swapped array, an
    object): the spelling of `fastperf.kernels.native_signatures`."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        if not (flags.c_contiguous and flags.aligned and value.dtype.isnative):
            return None
        form = _ARRAY_TYPES.get(value.ndim)
        return form.format(value.dtype.name) if form else None
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, int):
        return "int64" if _INT64[0] <= value < _INT64[1] else None
    if isinstance(value, float):
        return "float64"
    if isinstance(value, np.generic) and value.dtype.kind in "iuf":
        return value.dtype.name
    return None


def source_digest() -> str:
    """SHA-256 (first 16 hex digits) of the kernel sources, ``fastperf/kernels/*.py`` by name:
    the native module exports ``digest_<this>`` and is used only where it matches."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def native_export_name(kernel: str, index: int) -> str:
    """The native module's name for build `index` of the manifest, of kernel `kernel`."""
    return f"{kernel.replace('.', '__')}__{index}"


def native_builds() -> dict[str, dict[tuple[str, ...], Callable]]:
    """The native module's builds by kernel name and argument types (empty when the module is
    absent, turned off by ``FASTPERF_NATIVE=0``, or built from other kernel sources)."""
    global _native
    if _native is None:
        _native = {}
        if os.environ.get("FASTPERF_NATIVE", "1") != "0":
            try:
                module = importlib.import_module(NATIVE_MODULE)
            except Exception:  # noqa: BLE001 - absent, or unloadable here (another numpy ABI): the JIT
                module = None
            if module is not None and hasattr(module, f"digest_{source_digest()}"):
                from fastperf.kernels.native_signatures import SIGNATURES

                for index, (kernel, args, _result) in enumerate(SIGNATURES):
                    build = getattr(module, native_export_name(kernel, index), None)
                    if build is not None:
                        _native.setdefault(kernel, {})[tuple(args)] = build
    return _native


def jit_all() -> None:
    """Give every kernel its Numba dispatcher (compiled lazily, on first use, or loaded from
    Numba's disk cache); the first call that needs the JIT runs this once. From then on the
    JIT counts as started, for kernels of modules imported later too: group kernels take their
    parallel builds above their thresholds (`GroupKernel`).

    Each dispatcher compiles a copy of its kernel's function whose globals are the module's,
    with kernels replaced by their dispatchers and ``prange`` by ``numba.prange``: kernels
    calling kernels then compile as Numba code, while the module's own names stay `Kernel`
    objects, so Python callers keep taking the native builds first.
    """
    global _jitted, _jit_started
    if _jit_started and _jitted == len(KERNELS):
        return
    import numba

    _jit_started = True  # even before any kernel module is imported (`GroupKernel` asks)

    fresh, _jitted = KERNELS[_jitted:], len(KERNELS)  # kernel modules import lazily: new ones
    touched = {}
    for kernel in fresh:
        module_globals = kernel.py_func.__globals__
        namespace = _jit_namespaces.setdefault(id(module_globals), dict(module_globals))
        touched[id(namespace)] = namespace
        fn = kernel.py_func
        copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        copy.__qualname__, copy.__module__, copy.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
        kernel.jit_function = copy
        kernel.dispatcher = numba.njit(**kernel.options)(copy)
    for namespace in touched.values():
        for name, value in list(namespace.items()):
            if isinstance(value, Kernel):
                namespace[name] = value.dispatcher
            elif value is range and name == "prange":
                namespace[name] = numba.prange


class Kernel:
    """A kernel: its native build for the arguments' types when there is one, else Numba's JIT.

    Attributes other than the call (``signatures``, ``stats``, ``targetoptions``...) are the
    Numba dispatcher's, which asking for them creates (importing Numba).
    """

    def __init__(self, fn: Callable, options: dict, native: bool = True):
        self.py_func = fn
        self.options = options
        self.name = f"{fn.__module__}.{fn.__qualname__}"
        self.native = native
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        KERNELS.append(self)

    def __call__(self, *args, **kwargs):
        if self.native and not kwargs:
            builds = native_builds().get(self.name)
            key = tuple(argument_type(a) for a in args) if builds or CALL_LOG is not None else ()
            if CALL_LOG is not None:
                CALL_LOG.append((self.name, key))
            if builds:
                build = builds.get(key)
                if build is not None:
                    return build(*args)
        return self.__getattr__("dispatcher")(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        jit_all()  # sets the attributes dispatcher and jit_function
        dispatcher = self.__dict__["dispatcher"]
        return self.__dict__[name] if name in ("dispatcher", "jit_function") else getattr(dispatcher, name)

    def __repr__(self) -> str:
        return f"<fastperf kernel {self.name}>"


def njit(fn: Callable | None = None, **options) -> Kernel | Callable:
    """Decorator: make `fn` a `Kernel` (``@njit`` or ``@njit(cache=True, inline="always")``);
    the options are Numba's, used when the kernel is JIT-compiled.

    Parameters
    ----------
    fn : callable, optional
        The kernel's Python function (when used as ``@njit`` without arguments).
    **options
        `numba.njit` options for the JIT build.

    Returns
    -------
    Kernel or callable
        The kernel, or a decorator making one.

    Notes
    -----
    Lazy by design: nothing is compiled or imported until a call needs the JIT. No formula.
    """
    if fn is None:
        return lambda f: Kernel(f, options)
    return Kernel(fn, options)


class GroupKernel:
    """A kernel over groups: a serial build (native or JIT) and a parallel (prange) JIT build."""

    def __init__(self, fn, min_rows: int = PARALLEL_MIN_ROWS, inputs: int = 0):
        self.py_func = fn
        self.min_rows = min_rows
        self.inputs = inputs
        self.serial = Kernel(fn, {"cache": True})
        self.parallel = Kernel(parallel_twin(fn), {"parallel": True, "cache": True}, native=False)
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, *args, n_rows: int):
        """Run the build suited to `n_rows`, the number of rows the call touches: the serial
        one below `min_rows`; above, the parallel one, unless the JIT has yet to start and its
        start would cost more than the threads gain (`JIT_START_FACTOR`, `JIT_START_SECONDS`).
        Every build gives the same result."""
        global _serial_instead
        if self.inputs:  # read-only inputs: one specialization, writable or not at the caller
            args = tuple(read_only(a) for a in args[:self.inputs]) + args[self.inputs:]
        if not FORCE_PARALLEL and n_rows < self.min_rows:
            return self.serial(*args)
        if (FORCE_PARALLEL or _jit_started or _serial_instead >= JIT_START_SECONDS
                or n_rows >= JIT_START_FACTOR * self.min_rows
                or not native_builds().get(self.serial.name)):
            return self.parallel(*args)
        start = time.perf_counter()
        result = self.serial(*args)
        _serial_instead += time.perf_counter() - start
        return result


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
    Two builds from one source because threads cost more than they gain on small inputs; the
    JIT builds are cached on disk. No formula.
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
