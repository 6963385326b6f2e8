"""What a unit says: which direction is better, and how to print values in it.

Direction: a time, a size in bytes or a count per operation is better lower; anything per
second is better higher; other units have no known direction. Printing: values scaled with SI
prefixes (``1.718µ``), or binary ones for bytes (``2.001Gi``), with at least four significant
digits on the smallest value of a row, as benchstat prints them (golang.org/x/perf/benchunit).
"""
from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError

__all__ = ["unit_direction", "unit_directions", "row_directions", "units_without_direction",
           "direction_warnings", "is_binary_unit", "unit_text", "unit_strings", "Scale", "common_scale",
           "percent_range", "LOWER", "HIGHER"]

LOWER, HIGHER = "lower", "higher"

_TIME = {"s", "sec", "secs", "second", "seconds", "ns", "nsec", "us", "usec", "µs", "μs", "ms",
         "msec", "min", "mins", "minute", "minutes", "h", "hr", "hour", "hours", "ps", "cycles",
         "cycle", "instructions", "clocks", "day", "days"}
_SIZE = {"b", "bytes", "byte", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib", "allocs",
         "allocations", "alloc", "objects", "pages", "#"}
_RATE_SUFFIXES = ("/s", "/sec", "/second", "/seconds", "per_second", "per_sec")
_RATE_UNITS = {"hz", "khz", "mhz", "ghz", "qps", "rps", "tps", "fps", "iops", "throughput"}
_TOKENS = re.compile(r"[-_ .]+")
#: Words of `_TIME` that count work rather than time (per cycle is no rate).
_COUNTS_OF_WORK = {"cycles", "cycle", "instructions", "clocks"}


def _numerator_word(unit: str) -> str:
    """The last word of the unit's numerator: ``L1-miss-sec/op`` -> ``sec``."""
    numerator = unit.split("/", 1)[0].strip()
    words = [w for w in _TOKENS.split(numerator) if w]
    return words[-1].lower() if words else ""


def unit_text(unit: Any) -> str | None:
    """A value of a unit column as text: a string as is, bytes decoded as UTF-8, None as None.

    Parameters
    ----------
    unit : str, bytes or None
        One value of the unit column (as ``to_pylist`` gives it). A Parquet or Arrow file may
        store text as ``binary`` (no UTF-8 annotation): its bytes are the unit's name.

    Returns
    -------
    str or None
        The unit's name.

    Raises
    ------
    InputError
        Bytes that are not valid UTF-8, or any other type (a number, a bool, a timestamp, a
        list, ...): a unit is a name, and a column of numbers passed as the unit column is
        almost surely the wrong column, so it is refused rather than turned into names like
        ``"1"``. The message names the argument `unit`, the value and its type, and the remedy.

    Notes
    -----
    Argument plumbing: no formula.
    """
    if unit is None or isinstance(unit, str):
        return unit
    if isinstance(unit, (bytes, bytearray, memoryview)):
        try:
            return bytes(unit).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"unit column holds bytes that are not valid UTF-8 text ({bytes(unit)[:40]!r}: "
                f"{exc.reason} at byte {exc.start}): a unit column must hold unit names "
                "(strings, or UTF-8 bytes); pass unit= the column holding the units, or "
                "unit=None"
            ) from None
    raise InputError(
        f"unit column holds {unit!r} of type {type(unit).__name__}, not a unit name: a unit "
        "column must hold strings (or UTF-8 bytes, or nulls); pass unit= the column holding "
        "the units, unit=None for none, or convert the column to strings"
    )


def unit_strings(column: pa.ChunkedArray | pa.Array, name: str = "unit") -> pa.Array:
    """The values of a unit column as unit names (one per row), checked on the whole column.

    Parameters
    ----------
    column : pyarrow.ChunkedArray or Array
        The unit column (or the unit key of the groups), dictionary-encoded allowed.
    name : str
        The column's name, for the message.

    Returns
    -------
    pyarrow.Array of string
        One name per row, null for none.

    Raises
    ------
    InputError
        A binary column whose bytes are not UTF-8, or a column that holds neither text nor
        bytes (integers, floats, booleans, timestamps, nested types): the message names the
        argument `unit`, the column and its Arrow type. See `unit_text` for why numbers are
        refused rather than turned into names.

    Notes
    -----
    Argument plumbing: no formula. Strings as they are; ``binary`` / ``large_binary`` /
    ``binary_view`` cast to strings by Arrow, which checks UTF-8; an all-null column is no unit.
    """
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    t = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if pa.types.is_null(t):
        return pa.nulls(len(column), pa.string())
    if pa.types.is_dictionary(column.type):
        column = pc.cast(column, t)
    text = (pa.types.is_string(t) or pa.types.is_large_string(t)
            or t == pa.string_view())
    binary = (pa.types.is_binary(t) or pa.types.is_large_binary(t)
              or pa.types.is_fixed_size_binary(t) or t == pa.binary_view())
    if binary:
        try:
            return pc.cast(column, pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(
                f"unit column {name!r} (type {column.type}) holds bytes that are not valid "
                f"UTF-8 text ({exc}): a unit column must hold unit names; pass unit= the "
                "column holding the units, or unit=None"
            ) from None
    if not text:
        raise InputError(
            f"unit column {name!r} has type {column.type}, not unit names: a unit column must "
            "hold strings (or UTF-8 bytes, or nulls); pass unit= the column holding the units, "
            "unit=None for none, or convert the column to strings"
        )
    return column if column.type == pa.string() else pc.cast(column, pa.string())


def row_directions(units: pa.Array, higher_is_better: bool | Mapping[str, bool] | None
                   ) -> np.ndarray:
    """Per row, which way is better for its unit: ``"lower"``, ``"higher"`` or
    ``"unknown"``, each distinct unit classified once (`unit_directions`).

    Parameters
    ----------
    units : pyarrow.Array of string
        One unit name per row, null for none (`unit_strings`).
    higher_is_better : bool, mapping or None
        As `unit_directions`.

    Returns
    -------
    numpy.ndarray of object
        One direction per row.

    Notes
    -----
    Argument plumbing: no formula. The rows' units are dictionary-encoded by Arrow, so the
    classification runs once per distinct unit and the rows take theirs by index.
    """
    encoded = pc.dictionary_encode(units)
    distinct = [*encoded.dictionary.to_pylist(), None]  # the last: rows without a unit
    directions = unit_directions(distinct, higher_is_better)
    table = np.array([directions[u] or "unknown" for u in distinct], dtype=object)
    codes = pc.fill_null(encoded.indices, len(distinct) - 1)
    return table[codes.to_numpy(zero_copy_only=False)]


def unit_direction(unit: str | bytes | None) -> str | None:
    """Which way is better for values in `unit`: ``"lower"``, ``"higher"`` or None (unknown).

    Parameters
    ----------
    unit : str, bytes or None
        A unit as fastperf's readers write it (``sec/op``, ``B/s``, ``allocs/op``,
        ``items_per_second``, ``second``, ``text-bytes``, ...); bytes (a ``binary`` unit
        column) are decoded as UTF-8 (see `unit_text`).

    Returns
    -------
    str or None
        ``"higher"`` for rates (anything per unit of time: ``.../s``, ``.../sec``,
        ``*_per_second``, ``ops/s``, JMH's ``ops/ms``, ``ops/us``, Hz, qps); ``"lower"`` for
        times, sizes in bytes and counts per operation (``sec/op``, ``ns``, ``B/op``,
        ``allocs/op``, JMH's ``#/op`` and ``day/op``, ``*-bytes``); None otherwise.

    Raises
    ------
    InputError
        Bytes that are not UTF-8, or a value that is neither a string, bytes nor None (a unit
        column of numbers is refused, naming `unit`, the value and its type: see `unit_text`).

    Notes
    -----
    The conventions of Go's testing package and benchstat (golang.org/x/perf/benchunit), Google
    Benchmark's counters (``items_per_second``, ``bytes_per_second``) and pyperf's units.
    """
    unit = unit_text(unit)
    if unit is None:
        return None
    text = unit.strip()
    low = text.lower()
    if not low:
        return None
    if low.endswith(_RATE_SUFFIXES) or low in _RATE_UNITS or (low.endswith("ops") and "/" not in low):
        return HIGHER
    denominator = low.rsplit("/", 1)[1] if "/" in low else ""
    if denominator in _TIME and denominator not in _COUNTS_OF_WORK:
        return HIGHER  # anything per unit of time (JMH's ops/ms, ops/us): a rate
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
    units : iterable of str, bytes or None
        The units present (bytes decoded as UTF-8, other types refused: see `unit_text`).
    higher_is_better : bool, mapping or None
        None: infer every unit; a bool: that direction for all; a mapping: those units set,
        the others inferred.

    Returns
    -------
    dict
        unit (as given) -> ``"lower"``, ``"higher"`` or None.

    Raises
    ------
    InputError
        A unit that is neither a string, UTF-8 bytes nor None (see `unit_text`), even when
        `higher_is_better` sets every direction.

    Notes
    -----
    See `unit_direction`.
    """
    out = {}
    for unit in units:
        unit_text(unit)  # a unit that is not a name is refused whatever the direction
        if isinstance(higher_is_better, bool):
            out[unit] = HIGHER if higher_is_better else LOWER
        elif isinstance(higher_is_better, Mapping) and unit in higher_is_better:
            out[unit] = HIGHER if higher_is_better[unit] else LOWER
        else:
            out[unit] = unit_direction(unit)
    return out


def units_without_direction(units: pa.Array, direction: np.ndarray) -> list[str | None]:
    """The distinct units of the rows whose `direction` is ``"unknown"`` (None: rows without
    a unit), for the warning that says so.

    Parameters
    ----------
    units : pyarrow.Array of string
        One unit per row (`unit_strings`).
    direction : numpy.ndarray
        One direction per row (`row_directions`).

    Returns
    -------
    list of str or None

    Notes
    -----
    Argument plumbing: no formula.
    """
    return pc.unique(units.filter(pa.array(direction == "unknown"))).to_pylist()


def direction_warnings(units: pa.Array, direction: np.ndarray) -> list[str]:
    """The warning naming the units of the rows whose direction is unknown (none when every
    row has one); rows without a unit are named as such, not as a unit 'None'.

    Parameters
    ----------
    units : pyarrow.Array of string
        One unit per row (`unit_strings`; nulls for rows without a unit).
    direction : numpy.ndarray
        One direction per row (`row_directions`).

    Returns
    -------
    list of str

    Notes
    -----
    No formula.
    """
    unknown = units_without_direction(units, direction)
    if not unknown:
        return []
    named = sorted(str(u) for u in unknown if u is not None)
    whose = " and ".join(([f"unit(s) {named}"] if named else [])
                         + (["values without a unit"] if None in unknown else []))
    return [f"{whose} have no known direction: a significant change is 'changed', not "
            "better/worse; say which way is better with higher_is_better= (CLI: "
            "--higher-is-better / --direction UNIT=higher)"]


def is_binary_unit(unit: str | None) -> bool:
    """Whether values in `unit` count bytes (printed with binary prefixes Ki, Mi, Gi).

    Parameters
    ----------
    unit : str, bytes or None
        Bytes are decoded as UTF-8 (see `unit_text`).

    Returns
    -------
    bool
        True when the numerator's last word is ``B`` or ends in ``bytes`` (``B/s``, ``B/op``,
        ``text-bytes``).

    Notes
    -----
    benchstat's unit classes (golang.org/x/perf/benchunit, ``ClassOf``).
    """
    unit = unit_text(unit)
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
