"""Resource estimates up front: refuse a computation that cannot fit before allocating it.

`check_budget` is the one estimate-and-refuse rule of `bootstrap`, `permutation_test` and
`simulate`: the caller estimates from its arguments alone (no allocation) the bytes it would hold
at once and, optionally, the elementary operations it would run; a request whose memory exceeds
the machine's physical memory, or whose work exceeds `MAX_OPERATIONS` (or a tighter limit the
caller sets: the exact rank tests, `fastperf.engine.ranks.EXACT_MAX_OPERATIONS`), raises
`InputError` naming the argument that sets the size, the bytes (operations) needed and what is
available.
"""
from __future__ import annotations

import os
import sys

from fastperf.errors import InputError
from fastperf.kernels.builds import available_cpus

__all__ = ["physical_memory", "available_memory", "format_bytes",
           "check_budget", "MAX_OPERATIONS", "concurrent_groups"]

#: Work refused outright: 10**14 elementary steps (value copies, comparisons, random draws) is
#: over a day at 10**9 steps per second, 10**4 times the largest calls fastperf is tuned for.
MAX_OPERATIONS = 10 ** 14


def physical_memory() -> int | None:
    """The machine's physical memory in bytes (``SC_PHYS_PAGES * SC_PAGE_SIZE``); None when
    the platform does not say."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        try:
            import psutil  # deferred: optional, not a dependency of fastperf

            return int(psutil.virtual_memory().total)
        except Exception:
            return None


def available_memory() -> int | None:
    """Memory available now in bytes: psutil's ``virtual_memory().available`` when psutil is
    installed, else ``SC_AVPHYS_PAGES * SC_PAGE_SIZE`` (free pages); None when unknown."""
    try:
        import psutil  # deferred: optional, not a dependency of fastperf

        return int(psutil.virtual_memory().available)
    except Exception:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def format_bytes(n: float) -> str:
    """``n`` bytes in binary units, e.g. ``'14.6 TiB (16000000000016 bytes)'``."""
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024.0 or unit == "EiB":
            text = f"{int(n)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
            break
        value /= 1024.0
    return text if unit == "bytes" else f"{text} ({int(n)} bytes)"


def describe_cost(steps: float, bytes_needed: float) -> str:
    """The estimate line before a progress bar:
    ``about 2.4e+10 steps, 1.2 GiB (1288490188 bytes) at once``."""
    return f"about {float(steps):.2g} steps, {format_bytes(bytes_needed)} at once"


def concurrent_groups(groups: int) -> int:
    """How many groups a batched kernel can hold in flight at once: Numba's thread count
    (each thread works on one group at a time), at most `groups`, at least 1."""
    numba = sys.modules.get("numba")  # not imported where the native builds serve every call
    if numba is not None:
        threads = int(numba.get_num_threads())
    else:  # Numba's default: NUMBA_NUM_THREADS, else the CPUs this process may run on
        threads = int(os.environ.get("NUMBA_NUM_THREADS") or available_cpus())
    return max(1, min(int(groups), threads))


def _duration(operations: float) -> str:
    """How long `operations` steps take at 1e9 per second, in words ("over a day", "about 30
    seconds")."""
    seconds = float(operations) / 1e9
    if seconds >= 86400:
        return "over a day"
    if seconds >= 3600:
        return f"about {seconds / 3600:.3g} hours"
    if seconds >= 60:
        return f"about {seconds / 60:.3g} minutes"
    return f"about {seconds:.3g} seconds"


def check_budget(function: str, argument: str, given, *, bytes_needed: int,
                 operations: float = 0, detail: str = "", remedy: str = "",
                 max_operations: float = MAX_OPERATIONS) -> None:
    """Raise `InputError` when a call cannot fit the machine; return None when it can.

    Parameters
    ----------
    function : str
        The public function, e.g. ``"bootstrap"``.
    argument : str
        The argument that sets the size (``"n_resamples"``, ``"benchmarks x runs"``, ...),
        named in the message.
    given : object
        Its value, quoted in the message.
    bytes_needed : int
        The bytes the call would hold at once, estimated from its arguments (Python int: no
        overflow).
    operations : int or float, optional
        Elementary steps the call would run; refused above `max_operations`.
    detail : str, optional
        How the estimate is made up, appended to the message.
    remedy : str, optional
        What to do instead; default ``"reduce <argument>"``.
    max_operations : int or float, optional
        The work refused; default `MAX_OPERATIONS`. A computation with a cheaper alternative
        (the exact rank tests: the normal approximation) sets a tighter one.

    Raises
    ------
    InputError
        The memory needed exceeds the physical memory (the message quotes both, and the memory
        available now when known), or the work exceeds `max_operations`.
    """
    total = physical_memory()
    remedy = remedy or f"reduce {argument}"
    extra = f" ({detail})" if detail else ""
    if total is not None and bytes_needed > total:
        free = available_memory()
        now = f", {format_bytes(free)} available now" if free is not None else ""
        raise InputError(
            f"{function}: {argument}={given!r} needs about {format_bytes(bytes_needed)} of "
            f"memory{extra}, more than this machine's {format_bytes(total)} of physical "
            f"memory{now}; {remedy}")
    if operations > max_operations:
        raise InputError(
            f"{function}: {argument}={given!r} needs about {float(operations):.3g} elementary "
            f"steps{extra}, more than the {float(max_operations):.0e} that fastperf accepts in "
            f"one call ({_duration(max_operations)} at 1e9 steps per second); {remedy}")
