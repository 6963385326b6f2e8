"""How kernels are compiled and called: shipped native code first, Numba's JIT otherwise.

Every kernel is a plain Python function over numpy arrays, decorated with this module's `njit`
(a `Kernel`) or `group_kernel` (a `GroupKernel`, for a loop ``prange`` over groups).

- A `Kernel` call takes the ahead-of-time compiled build for the arguments' types from the
  extension module ``fastperf.kernels.compiled`` (built by ``setup.py`` with ``numba.pycc``,
  `fastperf.native_build`), which needs no Numba. Any other call (another dtype, a strided
  array) imports Numba and gives every kernel its JIT dispatcher (`jit_all`).
- A `GroupKernel` is numbagg's target switch: a serial build below a per-kernel input size, a
  parallel (``prange``) JIT build above it where the process asked for threads
  (``FASTPERF_PARALLEL=1``); a call never compiles or starts the JIT for threads on its own
  (`GroupKernel.target`). A kernel that declares its `Chunking` runs its native build on
  threads instead, above that size and without the JIT: ranges of its groups, one native call
  each, the GIL released (``FASTPERF_THREADS``, default the CPUs the process may use). Per-group
  work is independent, so every build gives the same result whatever the thread count.

The native module is used only where it was built from these kernel sources (`source_digest`)
and ``FASTPERF_NATIVE`` is not ``0``; `native_status` says whether it serves this process, and
why not. Both builds compile the same LLVM IR without fast-math, so they give bit-identical
results (``tests/test_native.py``). A process the native module serves never imports Numba
(0.3 s); JIT builds use ``cache=True``, parallel ones included (``tests/test_compile_cache.py``).
docs/startup.md gives the figures.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import math
import os
import queue
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from fastperf.errors import InputError
from fastperf.kernels.native_signatures import SIGNATURES

#: Default size from which the parallel build is used. Threads cost a fixed overhead per call
#: (tens of microseconds to milliseconds when the other core is busy, as on a loaded 2-core CI
#: machine), so only heavy work on large inputs pays for them; kernels set their own threshold.
PARALLEL_MIN_ROWS = 1_000_000

#: Tests set this to True to force the parallel builds (see tests/conftest.py).
FORCE_PARALLEL = False

#: The parallel builds are JIT builds: the first one a process runs starts the JIT (Numba's import
#: and the builds' loads from its disk cache: 0.4-3 s on 2 cores; 45 s for ``fastperf compare``
#: of 10,000 benchmarks where the cache is empty, as on a fresh CI runner), which one call's
#: threads do not repay on 2 cores (docs/performance.md, "Threads"). So a group kernel with a
#: native build runs it serially at every size, unless the process asked for threads with this
#: environment variable set to 1. A JIT started for another reason (an argument type the
#: native builds do not cover) does not count as asking.
PARALLEL_ENV = "FASTPERF_PARALLEL"

#: The number of threads a chunked group kernel's native build runs on (`GroupKernel`,
#: `Chunking`); unset: the CPUs this process may run on. 1 runs every call in the caller's
#: thread (a process that runs many fastperf calls side by side, as a Spark executor does).
THREADS_ENV = "FASTPERF_THREADS"

#: A chunked call is cut into this many ranges of groups per thread: work per group varies
#: (long segments, large samples), and a thread can start late or run slower (a virtual CPU
#: woken from idle), so smaller chunks even the threads out (8 against 4: 2-4 % off pelt's
#: bench on 2 cores).
CHUNKS_PER_THREAD = 8

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

_jitted = 0  # KERNELS[:_jitted] have their JIT dispatchers
_jit_started = False  # `jit_all` ran: Numba is imported, kernels imported later get the JIT too
_jit_namespaces: dict[int, dict] = {}  # a kernel module's globals, as the JIT sees them
JIT_LOCK = threading.Lock()  # held while `jit_all` gives dispatchers

_ARRAY_TYPES = {1: "{}[::1]", 2: "{}[:, ::1]", 3: "{}[:, :, ::1]"}
_INT64 = (-(2 ** 63), 2 ** 63)

#: How to rebuild the native module, named in `NativeStatus.fix`.
REBUILD = ("reinstall with `pip install -v fastperf` (its output says why the native build "
           "failed), or run `python setup.py build_ext --inplace` in a checkout")


@dataclass(frozen=True)
class NativeStatus:
    """Whether the native kernels serve this process, and if not, why (`native_status`).

    Attributes
    ----------
    active : bool
        The native module is loaded and matches the kernel sources.
    cause : str
        ``"active"``, ``"disabled"`` (``FASTPERF_NATIVE=0``), ``"not built"``, ``"other
        sources"`` (built from other kernel sources: digest mismatch) or ``"load error"``.
    reason : str
        The cause in words (with the error for a load error).
    fix : str
        What to do about it ("" when active).
    builds : int
        The native builds served (0 when inactive).
    """

    active: bool
    cause: str
    reason: str
    fix: str = ""
    builds: int = 0

    def explain(self) -> str:
        """One line: ``active (N builds ...)`` or ``inactive: why; what it costs; the fix``."""
        if self.active:
            return f"active ({self.reason})"
        return (f"inactive: {self.reason}; kernels are JIT-compiled instead (first calls take "
                f"seconds to a minute); to fix: {self.fix}")


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the OS tells it), at most its
    control group's CPU quota rounded up (`cgroup_cpu_limit`: a container given 2 CPUs of a
    64-CPU host has 2, not 64 that the quota would throttle), at least 1."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    return max(1, cpus if limit is None else min(cpus, math.ceil(limit)))


def thread_count() -> int:
    """The threads a chunked native call runs on: `THREADS_ENV` when set, else
    `available_cpus`.

    Raises
    ------
    InputError
        When `THREADS_ENV` is not a whole number >= 1 (the command line prints it as one line).
    """
    text = os.environ.get(THREADS_ENV, "").strip()
    if not text:
        return available_cpus()
    count = int(text) if text.isascii() and text.isdigit() else 0
    if count < 1:
        raise InputError(f"the environment variable {THREADS_ENV} must be a whole number >= 1 "
                         f"(the threads of large calls), got {text!r}")
    return count


@functools.lru_cache(maxsize=None)
def cgroup_cpu_limit(root: str = "/sys/fs/cgroup", membership: str = "/proc/self/cgroup"
                     ) -> float | None:
    """The CPUs this process's control group may use (its CPU quota over its period), the
    least along the group's path up to the hierarchy's root; None without a limit, or where it
    cannot be read (not Linux, no cgroup file system).

    Parameters
    ----------
    root : str
        Where the cgroup file systems are mounted: cgroup v2's ``cpu.max`` ("QUOTA PERIOD" or
        "max PERIOD") under it or under its ``unified`` folder (a hybrid system), cgroup v1's
        ``cpu.cfs_quota_us`` (-1: none) and ``cpu.cfs_period_us`` under its ``cpu`` or
        ``cpu,cpuacct`` folder.
    membership : str
        The process's groups, one ``ID:CONTROLLERS:PATH`` line each (``/proc/self/cgroup``).

    Returns
    -------
    float or None

    Notes
    -----
    The Linux kernel's documentation of the CPU controller (cgroup v2, ``cpu.max``; cgroup v1,
    CFS bandwidth control, ``cpu.cfs_quota_us``). Read once per process (a group's limit is set
    by whoever starts the process).
    """
    try:
        lines = os.fsdecode(Path(membership).read_bytes()).splitlines()  # any bytes in names
    except OSError:
        return None
    limits = []
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        if controllers == "":
            folders = [Path(root), Path(root) / "unified"]
        elif "cpu" in controllers.split(","):
            folders = [Path(root) / "cpu", Path(root) / "cpu,cpuacct"]
        else:
            continue
        inside = os.path.normpath("/" + path).lstrip("/")  # no ".." out of the mounted folder
        for folder in folders:
            group = folder / inside
            for level in [group, *group.parents]:
                limits.append(cpu_quota_of(level, controllers == ""))
                if level == folder:
                    break
    limits = [limit for limit in limits if limit is not None]
    return min(limits) if limits else None


def cpu_quota_of(group: Path, unified: bool) -> float | None:
    """One control group's CPU quota over its period (`cgroup_cpu_limit`), None where it has
    none or its files are missing or unreadable."""
    try:
        if unified:
            quota, period = (group / "cpu.max").read_text().split()[:2]
        else:
            quota = (group / "cpu.cfs_quota_us").read_text().strip()
            period = (group / "cpu.cfs_period_us").read_text().strip()
        if quota == "max" or int(quota) <= 0 or int(period) <= 0:
            return None
        return int(quota) / int(period)
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class Chunking:
    """How a call of a group kernel splits into calls on consecutive ranges of its groups, and
    how their results join into the whole call's: what lets threads share one call's groups
    between native builds, which release the GIL (`fastperf.native_build.released_gil`).

    Every group's result depends on its own inputs only (the kernels' contract: results never
    depend on the thread count), so the joined result is the one call's, bit for bit.

    Attributes
    ----------
    csr : tuple of (int, int)
        The argument positions of each (values, offsets) batch: a chunk gets the values of its
        groups and their offsets from 0. The first batch's offsets balance the chunks' rows.
    per_group : tuple of int
        The argument positions of arrays with one entry (or row) per group.
    nested : tuple of (int, int)
        The argument positions of each (unit offsets, group offsets) pair of a two-level
        batch: a chunk gets the units' offsets (and the values they index) whole, and its
        groups' ``last - first + 1`` offsets into the units as they are, not rebased. The
        first pair balances the chunks' rows when there is no `csr` batch.
    slotted : tuple of int
        The result positions of arrays indexed by slots: the result's first array is then
        ``n_groups + 1`` offsets of each group's slots in them (rebased when joined). Every
        other result array has one entry (or row) per group.
    columns : tuple of int
        The argument positions of 2-D arrays, one row per group, whose columns are separate
        problems: result column j depends on column j alone (the ranks of order statistics).
        A call whose groups do not split into two chunks (one large group) splits these
        columns instead, into consecutive ranges of whole units (`column_parts`), and joins
        the results' columns (`join_columns`).
    """

    csr: tuple[tuple[int, int], ...] = ()
    per_group: tuple[int, ...] = ()
    nested: tuple[tuple[int, int], ...] = ()
    slotted: tuple[int, ...] = ()
    columns: tuple[int, ...] = ()

    def __post_init__(self):
        if not (self.csr or self.nested):
            raise ValueError("a Chunking needs a csr or a nested batch: the groups it cuts")

    def bounds(self, args: tuple, parts: int) -> np.ndarray:
        """Group boundaries 0 = b_0 < ... < b_k = n_groups of at most `parts` chunks of about
        equal rows (of the first batch)."""
        if self.csr:
            offsets = args[self.csr[0][1]]
        else:
            units, groups = self.nested[0]
            offsets = args[units][args[groups]]  # each group's first row, and the end
        n_groups = offsets.shape[0] - 1
        targets = np.linspace(offsets[0], offsets[-1], parts + 1)[1:-1]
        cuts = np.searchsorted(offsets, targets)
        return np.unique(np.concatenate(([0], np.clip(cuts, 0, n_groups), [n_groups])))

    def chunk(self, args: tuple, first: int, last: int) -> tuple:
        """The arguments of the call on groups first..last - 1."""
        chunk = list(args)
        for values, offsets in self.csr:
            start, stop = args[offsets][first], args[offsets][last]
            chunk[values] = args[values][start:stop]
            chunk[offsets] = args[offsets][first:last + 1] - start
        for position in self.per_group:
            chunk[position] = args[position][first:last]
        for _, groups in self.nested:
            chunk[groups] = args[groups][first:last + 1]
        return tuple(chunk)

    def column_parts(self, args: tuple, parts: int) -> list[tuple[int, int]]:
        """At most `parts` consecutive (start, stop) ranges of the `columns` arrays' columns,
        each of whole units: a unit is a run of adjacent columns whose values step by at most
        one in the row of widest spread (the large group's): the two middle ranks of an even
        count, or one rank twice, which one selection serves. None when there are fewer than
        two units to share."""
        table = args[self.columns[0]] if self.columns else None
        if table is None or parts < 2 or table.shape[0] == 0 or table.shape[1] < 2:
            return []
        row = table[int(np.argmax(table.max(axis=1) - table.min(axis=1)))].astype(np.int64)
        starts = np.concatenate(([0], np.flatnonzero(np.abs(np.diff(row)) > 1) + 1))
        if starts.shape[0] < 2:
            return []
        ends = np.append(starts[1:], row.shape[0])
        units = starts.shape[0]
        count = min(parts, units)
        # the later ranges take the units left over: the interval's ends selected in one call
        # cost less than an end with the estimate's pair (1M vs 1M on 2 threads: 0.65 of one
        # call's time against 0.76)
        shares = np.full(count, units // count)
        shares[count - units % count:] += 1
        first = np.concatenate(([0], np.cumsum(shares)))
        return [(int(starts[first[i]]), int(ends[first[i + 1] - 1])) for i in range(count)]

    def column_chunk(self, args: tuple, start: int, stop: int) -> tuple:
        """The arguments of the call on columns start..stop - 1 of the `columns` arrays (C
        contiguous, as the native builds take them)."""
        chunk = list(args)
        for position in self.columns:
            chunk[position] = np.ascontiguousarray(args[position][:, start:stop])
        return tuple(chunk)

    @staticmethod
    def join_columns(results: list):
        """The whole call's result from its column ranges' results, in column order."""
        if not isinstance(results[0], tuple):
            return np.concatenate(results, axis=1)
        return tuple(np.concatenate([result[k] for result in results], axis=1)
                     for k in range(len(results[0])))

    def join(self, results: list):
        """The whole call's result from its chunks' results, in group order."""
        if not isinstance(results[0], tuple):
            return np.concatenate(results)
        joined = []
        for k in range(len(results[0])):
            parts = [result[k] for result in results]
            if self.slotted and k == 0:  # offsets into the slotted arrays, each chunk's from 0
                ends = np.cumsum([part[-1] for part in parts])
                parts = [parts[0]] + [part[1:] + end for part, end in zip(parts[1:], ends[:-1])]
            joined.append(np.concatenate(parts))
        return tuple(joined)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of `array` (no copy).

    Numba compiles one specialization per argument type, and a read-only array (as Arrow's
    zero-copy buffers are) has another type than a writable one: a kernel that only reads an
    input gets it read-only whatever its origin, so it compiles once.
    """
    view = array.view()
    view.flags.writeable = False
    return view


def function_copy(fn: Callable, namespace: dict | None = None,
                  qualname: str | None = None) -> Callable:
    """A copy of `fn` with the globals `namespace` (default: its own) and the qualified name
    `qualname` (default: its own)."""
    copy = types.FunctionType(fn.__code__, fn.__globals__ if namespace is None else namespace,
                              fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__ if qualname is None else qualname
    copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
    return copy


def parallel_twin(fn: Callable) -> Callable:
    """A copy of `fn` under another qualified name, for its parallel build's own cache files.

    Numba names a function's cache files after its module and qualified name, and its index
    key holds the signature, the CPU and the bytecode but not the ``parallel`` option: the
    serial and parallel builds of one function would share (and overwrite) one cache entry.
    """
    return function_copy(fn, qualname=f"{fn.__qualname__}.parallel")


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


@functools.cache
def load_native() -> tuple[dict[str, dict[tuple[str, ...], Callable]], NativeStatus]:
    """The native module's builds by kernel name and argument types, and its `NativeStatus`;
    loaded once per process (``load_native.cache_clear()`` loads it again)."""
    if os.environ.get("FASTPERF_NATIVE", "1") == "0":
        return {}, NativeStatus(False, "disabled", "turned off by FASTPERF_NATIVE=0",
                                "unset FASTPERF_NATIVE")
    try:
        module = importlib.import_module(NATIVE_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != NATIVE_MODULE:
            return {}, load_error(exc)
        return {}, NativeStatus(False, "not built", f"{NATIVE_MODULE} is not built", REBUILD)
    except Exception as exc:  # noqa: BLE001 - unloadable here (another numpy ABI): the JIT
        return {}, load_error(exc)
    if not hasattr(module, f"digest_{source_digest()}"):
        return {}, NativeStatus(False, "other sources", f"{NATIVE_MODULE} was built from other "
                                "kernel sources (source digest mismatch)", REBUILD)
    table: dict[str, dict[tuple[str, ...], Callable]] = {}
    for index, (kernel, args, _result) in enumerate(SIGNATURES):
        build = getattr(module, native_export_name(kernel, index), None)
        if build is not None:
            table.setdefault(kernel, {})[tuple(args)] = build
    count = sum(len(keyed) for keyed in table.values())
    return table, NativeStatus(True, "active", f"{count} builds compiled ahead of time",
                               builds=count)


def load_error(exc: BaseException) -> NativeStatus:
    """The status of a native module that failed to load with `exc`."""
    message = " ".join(str(exc).split())[:200]
    return NativeStatus(False, "load error", f"{NATIVE_MODULE} failed to load "
                        f"({type(exc).__name__}: {message})",
                        "reinstall fastperf for this Python and numpy")


def native_builds() -> dict[str, dict[tuple[str, ...], Callable]]:
    """The native module's builds by kernel name and argument types (empty when the module is
    absent, turned off by ``FASTPERF_NATIVE=0``, or built from other kernel sources)."""
    return load_native()[0]


def native_status() -> NativeStatus:
    """Whether the native kernels serve this process, and if not, why and what to do.

    Returns
    -------
    NativeStatus
        ``active``, ``cause`` (``"active"``, ``"disabled"``, ``"not built"``, ``"other
        sources"``, ``"load error"``), ``reason``, ``fix`` and ``builds``.

    Notes
    -----
    What ``fastperf --version`` prints and the command's one-time note says. No formula.
    """
    return load_native()[1]


def jit_all() -> None:
    """Give every kernel its Numba dispatcher (compiled lazily, on first use, or loaded from
    Numba's disk cache); the first call that needs the JIT runs this once. From then on the
    JIT counts as started, for kernels of modules imported later too (a later call gives them
    their dispatchers). Group kernels take their parallel builds only where the process asked
    for threads (`PARALLEL_ENV`, `GroupKernel.target`).

    Each dispatcher compiles a copy of its kernel's function whose globals are the module's,
    with kernels replaced by their dispatchers and ``prange`` by ``numba.prange``: kernels
    calling kernels then compile as Numba code, while the module's own names stay `Kernel`
    objects, so Python callers keep taking the native builds first.
    """
    global _jitted, _jit_started
    if _jit_started and _jitted == len(KERNELS):
        return
    import numba  # 0.3 s, and 0.4 s more on the first compile: only where a call needs the JIT

    with JIT_LOCK:  # threads calling kernels at once: one gives the dispatchers, the others wait
        _jit_started = True  # even before any kernel module is imported
        fresh = KERNELS[_jitted:]  # kernel modules import lazily: new ones
        for kernel in fresh:
            module_globals = kernel.py_func.__globals__
            namespace = _jit_namespaces.setdefault(id(module_globals), dict(module_globals))
            kernel.jit_function = function_copy(kernel.py_func, namespace)
            kernel.dispatcher = numba.njit(**kernel.options)(kernel.jit_function)
        for namespace in _jit_namespaces.values():  # idempotent: dispatchers are not Kernels
            for name, value in list(namespace.items()):
                if isinstance(value, Kernel):
                    namespace[name] = value.dispatcher
                elif value is range and name == "prange":
                    namespace[name] = numba.prange
        _jitted += len(fresh)  # only once their dispatchers exist


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
            if CALL_LOG is not None:
                CALL_LOG.append((self.name, tuple(argument_type(a) for a in args)))
            build = self.native_build(args)
            if build is not None:
                return build(*args)
        return self.__getattr__("dispatcher")(*args, **kwargs)

    def native_build(self, args: tuple) -> Callable | None:
        """The native build for the types of `args`, or None (none built for them)."""
        builds = native_builds().get(self.name) if self.native else None
        return builds.get(tuple(argument_type(a) for a in args)) if builds else None

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
    """A kernel over groups: a serial build (native or JIT) and a parallel (prange) JIT build,
    whose dispatcher is a plain Numba one (``parallel=True``, cached apart: `parallel_twin`).

    A kernel with a `Chunking` runs its native build on threads from `min_rows` on, without
    the JIT: the call's groups are cut into ranges (`CHUNKS_PER_THREAD` per thread, of about
    equal rows), the threads (`thread_count`) take the ranges in turn and each runs the native
    build on it, with the GIL released; the results join in group order.
    """

    def __init__(self, fn, min_rows: int = PARALLEL_MIN_ROWS, inputs: int = 0,
                 chunking: Chunking | None = None):
        self.py_func = fn
        self.min_rows = min_rows
        self.inputs = inputs
        self.chunking = chunking
        self.serial = Kernel(fn, {"cache": True})
        self.parallel = Kernel(parallel_twin(fn), {"parallel": True, "cache": True}, native=False)
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def target(self, n_rows: int) -> str:
        """The build for a call touching `n_rows` rows: ``"serial"`` below `min_rows`, else
        ``"parallel"`` where the process asked for threads (`PARALLEL_ENV`) or the kernel has
        no native build (its serial build would be compiled too); else the native ``"serial"``
        build: a call never compiles or starts the JIT for threads on its own."""
        if FORCE_PARALLEL:
            return "parallel"
        if n_rows < self.min_rows:
            return "serial"
        if os.environ.get(PARALLEL_ENV) == "1" or not native_builds().get(self.serial.name):
            return "parallel"
        return "serial"

    def __call__(self, *args, n_rows: int):
        """Run the build `target` picks for `n_rows`, the number of rows the call touches.
        Every build gives the same result."""
        if self.inputs:  # read-only inputs: one specialization, writable or not at the caller
            args = tuple(read_only(a) for a in args[:self.inputs]) + args[self.inputs:]
        if self.target(n_rows) == "parallel":
            return self.parallel(*args)
        if self.chunking is not None and n_rows >= self.min_rows:
            build = self.serial.native_build(args)
            threads = thread_count()
            # only a call the native builds serve: its chunks' arguments have its types
            if build is not None and threads > 1:
                return self.threaded(build, args, threads)
        return self.serial(*args)

    def threaded(self, build: Callable, args: tuple, threads: int):
        """The result of the native `build` on `args`, from `threads` threads running it on
        chunks of the groups (`chunking`), or on ranges of one large group's columns."""
        bounds = self.chunking.bounds(args, CHUNKS_PER_THREAD * threads)
        n_chunks = bounds.shape[0] - 1
        if n_chunks < 2:  # one large group: its columns on the threads, if it has some
            parts = self.chunking.column_parts(args, threads)
            if not parts:
                return build(*args)
            tasks = [functools.partial(build, *self.chunking.column_chunk(args, a, b))
                     for a, b in parts]
            return self.chunking.join_columns(WORKERS.run(tasks, threads))
        tasks = [functools.partial(build, *self.chunking.chunk(args, bounds[c], bounds[c + 1]))
                 for c in range(n_chunks)]
        return self.chunking.join(WORKERS.run(tasks, threads))


class Workers:
    """Daemon threads that run the chunks of threaded calls (`GroupKernel.threaded`, and
    numpy's sorts of `fastperf.engine.sorting.sorted_slices`), started when a call first needs
    them and kept for later calls (a thread's first call pays for its stack and its allocator's
    memory)."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        """No workers: at creation, and in a child process forked from this one (a fork copies
        no thread, and perhaps a lock some thread held)."""
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.started = 0
        self.idle = 0
        self.lock = threading.Lock()

    def run(self, tasks: list[Callable[[], object]], threads: int) -> list:
        """Each task's result, in order, from the caller's thread and up to ``threads - 1``
        workers taking the tasks in turn; a task's exception is raised in the caller's thread
        once every thread has stopped."""
        results: list = [None] * len(tasks)
        errors: list[BaseException] = []
        order = iter(range(len(tasks)))  # next() on it is atomic: each task runs once

        def work():
            for k in order:
                try:
                    results[k] = tasks[k]()
                except BaseException as exc:  # re-raised in the caller's thread
                    errors.append(exc)
                    return

        helpers = min(threads, len(tasks)) - 1
        finished: queue.SimpleQueue = queue.SimpleQueue()
        for _ in range(helpers):
            self.submit(work, finished)
        work()
        for _ in range(helpers):
            finished.get()
        if errors:
            raise errors[0]
        return results

    def submit(self, task: Callable[[], None], finished: queue.SimpleQueue) -> None:
        """Run `task` on a worker, then put None on `finished`."""
        with self.lock:
            if self.idle == 0:
                threading.Thread(target=self.serve, daemon=True,
                                 name=f"fastperf-worker-{self.started}").start()
                self.started += 1
            else:
                self.idle -= 1
        self.tasks.put((task, finished))

    def serve(self) -> None:
        while True:
            task, finished = self.tasks.get()
            try:
                task()
            finally:
                with self.lock:
                    self.idle += 1
                finished.put(None)


#: The worker threads of every threaded call in this process.
WORKERS = Workers()


def after_fork_in_child() -> None:
    """A forked child has only the forking thread: no workers, and no thread that could
    release a lock another held at the fork (`JIT_LOCK`, the workers' lock). (Numba's own
    locks are not reset: a fork while another thread creates dispatchers can still hang the
    child's JIT.)"""
    global JIT_LOCK
    JIT_LOCK = threading.Lock()
    WORKERS.reset()
    cgroup_cpu_limit.cache_clear()  # a child may be moved to another group


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=after_fork_in_child)


def group_kernel(fn: Callable | None = None, *, min_rows: int = PARALLEL_MIN_ROWS,
                 inputs: int = 0, chunking: Chunking | None = None) -> GroupKernel | Callable:
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
    chunking : Chunking, optional
        How a call splits into ranges of groups: then, from `min_rows` on, the native build
        runs on threads (`GroupKernel.threaded`) without the JIT.

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
        return lambda f: GroupKernel(f, min_rows, inputs, chunking)
    return GroupKernel(fn, min_rows, inputs, chunking)


class CompileLog:
    """Records what Numba compiles while it is installed (a context manager).

    Uses Numba's event API (``numba:compile`` events, one per specialization compiled, nested
    when a kernel compiles the kernels it calls): each record holds the kernel's module and
    name, the argument types, the inclusive time and the exclusive time (less the nested
    compiles). Loads from the disk cache raise no event, so an empty log means nothing compiled.
    """

    def __init__(self):
        from numba.core import event  # Numba (0.3 s) only where compiles are recorded

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
