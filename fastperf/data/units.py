"""What a unit says: which direction is better, and how to print values in it.

Direction: a time, a size in bytes or a count per operation is better lower; anything per
second is better higher; other units have no known direction. Printing: values scaled with SI
prefixes (``1.718µ``), or binary ones for bytes (``2.001Gi``), with at least four significant
digits on the smallest value of a row, as benchstat prints them (golang.org/x/perf/benchunit).
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Mapping

__all__ = ["unit_direction", "unit_directions", "is_binary_unit", "Scale", "common_scale",
           "percent_range", "LOWER", "HIGHER"]

LOWER, HIGHER = "lower", "higher"

_TIME = {"s", "sec", "secs", "second", "seconds", "ns", "nsec", "us", "usec", "µs", "μs", "ms",
         "msec", "min", "mins", "minute", "minutes", "h", "hr", "hour", "hours", "ps", "cycles",
         "cycle", "instructions", "clocks"}
_SIZE = {"b", "bytes", "byte", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib", "allocs",
         "allocations", "alloc", "objects", "pages"}
_RATE_SUFFIXES = ("/s", "/sec", "/second", "/seconds", "per_second", "per_sec")
_RATE_UNITS = {"hz", "khz", "mhz", "ghz", "qps", "rps", "tps", "fps", "iops", "throughput"}
_TOKENS = re.compile(r"[-_ .]+")


def _numerator_word(unit: str) -> str:
    """The last word of the unit's numerator: ``L1-miss-sec/op`` -> ``sec``."""
    numerator = unit.split("/", 1)[0].strip()
    words = [w for w in _TOKENS.split(numerator) if w]
    return words[-1].lower() if words else ""


def unit_direction(unit: str | None) -> str | None:
    """Which way is better for values in `unit`: ``"lower"``, ``"higher"`` or None (unknown).

    Parameters
    ----------
    unit : str or None
        A unit as fastperf's readers write it (``sec/op``, ``B/s``, ``allocs/op``,
        ``items_per_second``, ``second``, ``text-bytes``, ...).

    Returns
    -------
    str or None
        ``"higher"`` for rates (anything per second: ``.../s``, ``.../sec``, ``*_per_second``,
        ``ops/s``, Hz, qps); ``"lower"`` for times, sizes in bytes and counts per operation
        (``sec/op``, ``ns``, ``B/op``, ``allocs/op``, ``*-bytes``); None otherwise.

    Notes
    -----
    The conventions of Go's testing package and benchstat (golang.org/x/perf/benchunit), Google
    Benchmark's counters (``items_per_second``, ``bytes_per_second``) and pyperf's units.
    """
    if unit is None:
        return None
    text = unit.strip()
    low = text.lower()
    if not low:
        return None
    if low.endswith(_RATE_SUFFIXES) or low in _RATE_UNITS or (low.endswith("ops") and "/" not in low):
        return HIGHER
    word = _numerator_word(text)
    if word in _TIME or word in _SIZE or word.endswith("bytes"):
        return LOWER
    return None


def unit_directions(units: Iterable[str | None],
                    higher_is_better: bool | Mapping[str, bool] | None) -> dict:
    """The direction of each unit: inferred by `unit_direction`, overridden by
    `higher_is_better` (one flag for all units, or a mapping unit -> flag for some).

    Parameters
    ----------
    units : iterable of str or None
        The units present.
    higher_is_better : bool, mapping or None
        None: infer every unit; a bool: that direction for all; a mapping: those units set,
        the others inferred.

    Returns
    -------
    dict
        unit -> ``"lower"``, ``"higher"`` or None.

    Notes
    -----
    See `unit_direction`.
    """
    out = {}
    for unit in units:
        if isinstance(higher_is_better, bool):
            out[unit] = HIGHER if higher_is_better else LOWER
        elif isinstance(higher_is_better, Mapping) and unit in higher_is_better:
            out[unit] = HIGHER if higher_is_better[unit] else LOWER
        else:
            out[unit] = unit_direction(unit)
    return out


def is_binary_unit(unit: str | None) -> bool:
    """Whether values in `unit` count bytes (printed with binary prefixes Ki, Mi, Gi).

    Parameters
    ----------
    unit : str or None

    Returns
    -------
    bool
        True when the numerator's last word is ``B`` or ends in ``bytes`` (``B/s``, ``B/op``,
        ``text-bytes``).

    Notes
    -----
    benchstat's unit classes (golang.org/x/perf/benchunit, ``ClassOf``).
    """
    if not unit:
        return False
    word = _numerator_word(unit)
    return word == "b" or word.endswith("bytes")


def _factors(binary: bool) -> list[tuple[float, str, float, float, float]]:
    """(factor, prefix, threshold for 100.0, for 10.00, for 1.000), largest first."""
    if binary:
        return [(2.0 ** e, p, 99.995 * 2.0 ** e, 9.9995 * 2.0 ** e, 0.99995 * 2.0 ** e)
                for e, p in zip(range(40, -1, -10), ["Ti", "Gi", "Mi", "Ki", ""])]
    return [(10.0 ** e, p, float(f"99.995e{e}"), float(f"9.9995e{e}"), float(f".99995e{e}"))
            for e, p in zip(range(12, -10, -3), ["T", "G", "M", "k", "", "m", "µ", "n"])]


class Scale:
    """A common way to print numbers: digits after the point, a factor and its prefix."""

    def __init__(self, digits: int, factor: float, prefix: str):
        self.digits, self.factor, self.prefix = digits, factor, prefix

    def format(self, value: float) -> str:
        """``value`` divided by the factor, with `digits` decimals, then the prefix."""
        if value is None or not math.isfinite(value):
            return "?" if value is None or math.isnan(value) else ("∞" if value > 0 else "-∞")
        return f"{value / self.factor:.{self.digits}f}{self.prefix}"


def common_scale(values: Iterable[float], binary: bool = False) -> Scale:
    """The scale that prints every value with at least 4 significant digits, chosen by the
    non-zero value nearest zero (benchstat's rule: ``1.718µ``, ``46.55n``, ``2.001Gi``).

    Parameters
    ----------
    values : iterable of float
        The values to print together (a row of a table).
    binary : bool
        Binary prefixes (Ki = 1024, ...) instead of SI ones.

    Returns
    -------
    Scale

    Notes
    -----
    golang.org/x/perf/benchunit (``CommonScale``): prefixes T..n (SI) or Ti..'' (IEC 80000), one,
    two or three decimals so that the smallest value shows 100.0, 10.00 or 1.000; smaller than
    the smallest factor: more decimals (up to 10).
    """
    finite = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return Scale(3, 1.0, "")
    smallest = min(finite)
    factors = _factors(binary)
    for factor, prefix, t100, t10, t1 in factors:
        if smallest >= t100:
            return Scale(1, factor, prefix)
        if smallest >= t10:
            return Scale(2, factor, prefix)
        if smallest >= t1:
            return Scale(3, factor, prefix)
    factor, prefix = factors[-1][0], factors[-1][1]
    scaled = smallest / factor
    for i, exponent in enumerate(range(-1, -9, -1)):
        if scaled >= float(f"9.9995e{exponent}") or exponent == -8:
            return Scale(i + 3, factor, prefix)
    return Scale(10, factor, prefix)  # not reached


def percent_range(center: float, low: float, high: float) -> str:
    """The interval as benchstat prints it after ``±``: the larger relative distance of a bound
    from the center, in whole percent; ``∞`` when a bound is missing, ``?`` when the bounds
    straddle zero.

    Parameters
    ----------
    center, low, high : float
        The median and its interval.

    Returns
    -------
    str

    Notes
    -----
    golang.org/x/perf/benchmath (``Summary.PctRangeString``).
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return "∞"
    if center == 0:
        return "0%" if low == 0 and high == 0 else "?"
    negative = center < 0
    if (low < 0) != negative or (high < 0) != negative:
        return "?"
    spread = max(high / center - 1.0, 1.0 - low / center)
    return f"{100.0 * spread:.0f}%"
