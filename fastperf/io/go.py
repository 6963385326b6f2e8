"""Go benchmark text format (``go test -bench`` output; golang.org/design/14313-benchmark-format).

A file is a sequence of lines. Benchmark result lines read
``BenchmarkName  N  value unit  [value unit ...]`` (fields split on white space; an even number of
fields, at least four; N a decimal integer; values parse as float64). Configuration lines read
``key: value`` (key starts with a lower-case letter and has no space or upper-case letter) and
apply to the results that follow until the key is set again. ``Unit ...`` metadata lines,
comments, ``PASS``/``ok`` lines and any other text are ignored, as the format specifies.
"""
from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.common import tool_table

__all__ = ["read_go", "looks_like_go", "tidy_unit", "GO_RESULT_LINE"]

#: A line that looks like a Go benchmark result (used for detection by content).
GO_RESULT_LINE = re.compile(r"^Benchmark\S+[ \t]+\d+[ \t]+[-+0-9.eE]+[ \t]+\S+", re.MULTILINE)
_UNIT_TOKENS = re.compile(r"([*/\-\s]+)|([^*/\-\s]+)")
_DIGITS = re.compile(r"\d+")


def looks_like_go(text: str) -> bool:
    """True when some line of `text` looks like a Go benchmark result line.

    Parameters
    ----------
    text : str
        The start of a file.

    Returns
    -------
    bool
        Whether a line matches `GO_RESULT_LINE`.

    Notes
    -----
    The Go benchmark data format, golang.org/design/14313-benchmark-format.
    """
    return GO_RESULT_LINE.search(text) is not None


def tidy_unit(unit: str) -> tuple[str, float]:
    """Normalise a Go unit to base units like benchstat (golang.org/x/perf/benchunit.Tidy).

    ``ns`` in the numerator becomes ``sec`` (factor 1e-9) and ``MB`` becomes ``B`` (factor 1e6):
    ``ns/op`` -> ``sec/op``, ``MB/s`` -> ``B/s``, ``L1-miss-ns/op`` -> ``L1-miss-sec/op``.
    Other units are kept as written (factor 1). Returns ``(unit, factor)``.

    Parameters
    ----------
    unit : str
        A unit as written in a result line.

    Returns
    -------
    unit : str
        The tidied unit.
    factor : float
        What a value in `unit` is multiplied by to be in the tidied unit.

    Notes
    -----
    benchstat's unit tidying, golang.org/x/perf/benchunit (``Tidy``).
    """
    if unit == "ns/op":
        return "sec/op", 1e-9
    if unit == "MB/s":
        return "B/s", 1e6
    if "ns" not in unit and "MB" not in unit:
        return unit, 1.0
    parts: list[str] = []
    factor = 1.0
    in_denominator = False
    for separator, token in _UNIT_TOKENS.findall(unit):
        if separator:
            for ch in separator:
                if ch == "*":
                    in_denominator = False
                elif ch == "/":
                    in_denominator = True
            parts.append(separator)
        elif token == "ns" and not in_denominator:
            parts.append("sec")
            factor /= 1e9
        elif token == "MB" and not in_denominator:
            parts.append("B")
            factor *= 1e6
        else:
            parts.append(token)
    return "".join(parts), factor


def _parse_float(token: str) -> float | None:
    """Parse like Go's strconv.ParseFloat (decimal, hex, inf, nan); None when it would fail."""
    if "_" in token:
        return None
    try:
        return float(token)
    except ValueError:
        pass
    if token.lstrip("+-")[:2].lower() == "0x":
        try:
            return float.fromhex(token)
        except ValueError:
            return None
    return None


def _config_line(line: str) -> tuple[str, str] | None:
    """``(key, value)`` for a configuration line, else None."""
    colon = line.find(":")
    if colon <= 0:
        return None
    key, rest = line[:colon], line[colon + 1 :]
    if not key[0].islower() or any(c.isspace() or c.isupper() for c in key):
        return None
    if rest and rest[0] not in " \t":
        return None
    return key, rest.strip()


def read_go(path: Path, text: str) -> pa.Table:
    """Every (value, unit) pair of every result line as one row.

    ``benchmark`` is the name as written (``BenchmarkCRC32/poly=IEEE/size=15/align=0-8``);
    units are tidied by `tidy_unit`; ``run`` is the occurrence index of the
    (note, benchmark, unit) triple; the extra column ``iterations`` (int64) is N. When the
    result lines carry two or more distinct ``note:`` values, the table has a ``variant``
    column holding each line's note (null for lines before any note); otherwise it has none.

    Parameters
    ----------
    path : pathlib.Path
        The file (for messages).
    text : str
        Its text.

    Returns
    -------
    pyarrow.Table
        ``benchmark``, (``variant``), ``run``, ``unit``, ``value``, ``iterations``.

    Raises
    ------
    InputError
        A file without any benchmark result line.

    Notes
    -----
    The Go benchmark data format, golang.org/design/14313-benchmark-format.
    """
    names: list[str] = []
    notes: list[str] = []
    runs: list[int] = []
    units: list[str] = []
    values: list[float] = []
    iterations: list[int] = []
    seen: dict[tuple[str, str, str], int] = {}
    tidy_cache: dict[str, tuple[str, float]] = {}
    note = ""
    for raw_line in text.split("\n"):
        line = raw_line.rstrip("\r")
        if line.startswith("Benchmark"):
            fields = line.split()
            if len(fields) < 4 or len(fields) % 2 or not fields[0].startswith("Benchmark"):
                continue
            if not _DIGITS.fullmatch(fields[1]):
                continue
            pairs = []
            for i in range(2, len(fields), 2):
                v = _parse_float(fields[i])
                if v is None:
                    break
                pairs.append((v, fields[i + 1]))
            else:
                n = int(fields[1])
                name = fields[0]
                for v, unit in pairs:
                    if unit not in tidy_cache:
                        tidy_cache[unit] = tidy_unit(unit)
                    tidied, factor = tidy_cache[unit]
                    key = (note, name, tidied)
                    occurrence = seen.get(key, 0)
                    seen[key] = occurrence + 1
                    names.append(name)
                    notes.append(note)
                    runs.append(occurrence)
                    units.append(tidied)
                    values.append(v * factor)
                    iterations.append(n)
            continue
        config = _config_line(line)
        if config is not None and config[0] == "note":
            note = config[1]
    if not names:
        raise InputError(
            f"{path}: no Go benchmark result lines (BenchmarkName N value unit ...) found"
        )
    variant = None
    if len(set(notes)) >= 2:
        variant = [n if n else None for n in notes]
    return tool_table(
        names,
        values,
        run=runs,
        unit=units,
        variant=variant,
        extra={"iterations": pa.array(iterations, pa.int64())},
    )
