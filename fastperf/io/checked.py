"""Checked reading of what a file holds: text that must decode, JSON that must parse, numbers that
must fit their type. Every failure is an `InputError` naming the file (and the line or the
benchmark and field where one can be told), never a ``UnicodeDecodeError``, ``RecursionError``
or ``OverflowError``.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from fastperf.errors import InputError

__all__ = [
    "INT64_MAX", "load_json_bytes", "read_text", "shown", "is_out_of_range", "float_column",
    "int_column", "text_field",
]

INT64_MAX = 2**63 - 1
#: Spellings of infinity a number parser accepts (after the sign): not an overflow.
_INF_WORDS = frozenset({"inf", "infinity"})
#: A JSON number that may fall outside float64 (a long exponent or a very long mantissa), or an
#: integer too long for Python's int conversion limit: only then are the slower hooks used.
_SUSPECT_NUMBER = re.compile(rb"[eE][+]?0*[0-9]{3,}|[0-9]{300,}")


def shown(value: Any, limit: int = 40) -> str:
    """`value` for a message: its repr cut to `limit` characters (huge integers by size).

    Parameters
    ----------
    value : object
        A value read from a file.
    limit : int
        Most characters kept.

    Returns
    -------
    str
        A short printable text.

    Notes
    -----
    A message helper: no formula.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"a {type(value).__name__}"
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def text_field(value: Any, what: str) -> str:
    """`value`, a name read from a JSON file, when it is text; else an `InputError`.

    A number, list or object where a tool writes a benchmark's name is a damaged or foreign
    file: taken as its ``str`` it would become a benchmark called ``123`` or ``['x']``.

    Parameters
    ----------
    value : object
        The field's JSON value.
    what : str
        The field for the message, with the file (``"f.json: hyperfine command"``).

    Returns
    -------
    str
    """
    if not isinstance(value, str):
        raise InputError(f"{what} {shown(value)} is not text")
    return value


def is_out_of_range(token: str, value: float) -> bool:
    """Whether `value`, parsed from `token`, is an overflow: infinite though `token` does not
    spell infinity (``1e999`` -> inf is an overflow, ``-Inf`` is not).

    Parameters
    ----------
    token : str
        The text as written.
    value : float
        What it parsed to.

    Returns
    -------
    bool
        True for a finite number written beyond the float64 range (about 1.8e308).

    Notes
    -----
    IEEE 754 binary64: the largest finite value is (2 - 2**-52) * 2**1023.
    """
    return math.isinf(value) and token.strip().lstrip("+-").lower() not in _INF_WORDS


def read_text(path: Path, what: str = "file") -> str:
    """The text of `path` as UTF-8 (a byte-order mark dropped).

    Parameters
    ----------
    path : pathlib.Path
        The file.
    what : str
        What the file is, for the message.

    Returns
    -------
    str
        Its text.

    Raises
    ------
    InputError
        Bytes that are not UTF-8 text (a binary file), naming the file and the offset; an
        unreadable file (OSError) or a path with a NUL character.

    Notes
    -----
    UTF-8 (RFC 3629), decoded by the standard library.
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the {what} is not UTF-8 text (undecodable byte at offset "
                         f"{exc.start}); is it a binary file?") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL character in the path
        raise InputError(f"{shown(str(path))}: not a usable file name ({exc})") from None


def _line_of(raw: bytes, token: str) -> str:
    """``":LINE"`` of the first occurrence of `token` in `raw` (empty when not found as UTF-8)."""
    at = raw.find(token.encode("ascii", "replace"))
    return "" if at < 0 else ":" + str(raw.count(b"\n", 0, at) + 1)


def load_json_bytes(raw: bytes, path: Path) -> Any:
    """Parse the bytes of a JSON file; every failure an `InputError` naming the file.

    Parameters
    ----------
    raw : bytes
        The file's content (UTF-8, -16 or -32, as JSON allows).
    path : pathlib.Path
        The file, for messages.

    Returns
    -------
    object
        The parsed document. Numbers are Python ints and floats; a float written beyond the
        float64 range is an error (not silently infinity); ``Infinity``/``NaN`` are kept.

    Raises
    ------
    InputError
        Undecodable bytes, invalid JSON, nesting deeper than the parser's recursion limit, a
        number beyond the float64 range or an integer longer than Python converts (with the
        line where it can be found).

    Notes
    -----
    RFC 8259 JSON, parsed by the standard library.
    """
    hooks: dict[str, Any] = {}
    if _SUSPECT_NUMBER.search(raw):
        def parse_float(token: str) -> float:
            value = float(token)
            if math.isinf(value):
                raise InputError(f"{path}{_line_of(raw, token)}: the number {shown(token)} is "
                                 "beyond the float64 range (about 1.8e308)")
            return value

        def parse_int(token: str) -> int:
            try:
                return int(token)
            except ValueError:
                raise InputError(f"{path}{_line_of(raw, token)}: an integer of {len(token)} "
                                 "digits is out of range") from None

        hooks = {"parse_float": parse_float, "parse_int": parse_int}
    try:
        return json.loads(raw, **hooks)
    except InputError:
        raise
    except RecursionError:
        raise InputError(f"{path}: not valid JSON for fastperf: arrays or objects nested too "
                         "deeply (more than about a thousand levels)") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (not UTF-8 text: undecodable byte at offset "
                         f"{exc.start})") from None
    except ValueError as exc:  # JSONDecodeError, and Python's integer-length limit
        raise InputError(f"{path}: not valid JSON ({shown(str(exc), 160)})") from None


def _failing(where: str, names: Sequence[Any] | None, i: int, field: str, kind: str = "") -> str:
    entry = f"benchmark {shown(names[i])}" if names is not None and i < len(names) else f"row {i}"
    malformed = f" malformed {kind} file:" if kind else ""
    return f"{where}:{malformed} {entry}: {field}"


def float_column(values: Sequence[Any], *, where: str = "", names: Sequence[Any] | None = None,
                 field: str = "value", kind: str = "") -> pa.Array:
    """A float64 column of the numbers a tool file gave (None: null).

    Parameters
    ----------
    values : sequence
        Numbers (int, float) or None; a bool is no number (JSON's ``true`` is refused).
    where : str
        The file, for messages.
    names : sequence, optional
        The benchmark of each value, for messages.
    field : str
        The field the values come from, for messages.
    kind : str
        The file's format, for messages ("malformed KIND file").

    Returns
    -------
    pyarrow.Array
        float64; integers are converted to the nearest float64 (exact up to 2**53).

    Raises
    ------
    InputError
        A value that is no number, or an integer beyond the float64 range, naming the file,
        the benchmark and the field.

    Notes
    -----
    IEEE 754 binary64, round to nearest.
    """
    try:
        if bool not in set(map(type, values)):  # pyarrow takes True for 1.0
            return pa.array(values, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError):
        pass  # find the entry and say why, or convert the large integers exactly-rounded
    out: list[float | None] = []
    for i, v in enumerate(values):
        if v is None or isinstance(v, float):
            out.append(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            try:
                out.append(float(v))
            except OverflowError:
                raise InputError(f"{_failing(where, names, i, field)} {shown(v)} is beyond the "
                                 "float64 range (about 1.8e308)") from None
        else:
            raise InputError(f"{_failing(where, names, i, field, kind)} {shown(v)} is not a "
                             "number")
    return pa.array(out, pa.float64())


def int_column(values: Sequence[Any], *, where: str = "", names: Sequence[Any] | None = None,
               field: str = "iterations", kind: str = "") -> pa.Array:
    """An int64 column of the whole numbers a tool file gave (None: null).

    Parameters
    ----------
    values : sequence
        Integers, whole floats, or None.
    where : str
        The file, for messages.
    names : sequence, optional
        The benchmark of each value, for messages.
    field : str
        The field the values come from, for messages.
    kind : str
        The file's format, for messages ("malformed KIND file").

    Returns
    -------
    pyarrow.Array
        int64.

    Raises
    ------
    InputError
        A value that is no whole number or lies outside the int64 range, naming the file, the
        benchmark and the field (fractions are not truncated).

    Notes
    -----
    Two's-complement int64: [-2**63, 2**63 - 1].
    """
    try:
        array = pa.array(values)
        if pa.types.is_integer(array.type) or pa.types.is_null(array.type):
            return array.cast(pa.int64())
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError):
        pass
    out: list[int | None] = []
    for i, v in enumerate(values):
        if v is None:
            out.append(None)
            continue
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"{_failing(where, names, i, field, kind)} {shown(v)} is not a "
                             "whole number")
        if not -INT64_MAX - 1 <= v <= INT64_MAX:
            raise InputError(f"{_failing(where, names, i, field)} {shown(v)} is out of range "
                             f"(a 64-bit integer: at most {INT64_MAX})")
        out.append(v)
    return pa.array(out, pa.int64())
