"""Cell values of result tables for people and programs: the one conversion of every Arrow type
(and of the Python objects of summaries) to JSON values and to text.

Every rendering of every result goes through this module (`fastperf.results.render` builds the
text and Markdown tables and the JSON documents from it), so a key column of any Arrow type
renders, and the JSON is strict (`json.loads` without NaN or Infinity literals). The forms:

====================================  ==========================================================
Arrow type (Python object)            JSON value (the text cell is the same, or its JSON text)
====================================  ==========================================================
null, any null value                  ``null`` (an empty text cell)
bool, int*/uint*                      ``true`` / ``false``, the exact integer (``True``, ``42``)
float16/32/64                         the number; NaN and +-inf become ``null`` (text: 6
                                      significant digits, ``nan``, ``inf``, ``-inf``)
decimal128/256 (`decimal.Decimal`)    a string in plain notation, every digit kept
                                      (``"1.10000"``, ``"12300"``)
string, large_string, string_view     the string
binary, large_binary,                 the bytes decoded as UTF-8 when they are valid UTF-8,
fixed_size_binary, binary_view        otherwise ``"0x"`` followed by their lowercase hex digits
(`bytes`)                             (``b"\\xff\\x00"`` -> ``"0xff00"``); the exact bytes stay
                                      in the result's table
date32/64 (`datetime.date`)           ISO 8601 date, ``"2020-01-31"``
timestamp, every unit                 ISO 8601 with the unit's fraction digits
                                      (``"2020-01-31T12:00:00.000"`` for ms); naive timestamps
                                      carry no offset, zoned ones are shown in their zone with
                                      its offset (``"...T13:00:00+01:00"``), UTC with ``Z``
time32/64 (`datetime.time`)           ISO 8601 time, ``"01:02:03.004"``
duration (`datetime.timedelta`)       ISO 8601 duration in seconds, exact:
                                      ``"PT172800S"``, ``"PT0.001S"``, ``"-PT1.5S"``
month_day_nano_interval               ISO 8601 duration ``"P1M2DT0.000000003S"``
dictionary                            the form of its value type
list, struct, map                     a JSON array / object of the forms above (a map's keys
                                      as text; text cell: that JSON, compact)
anything else                         its ``str``
====================================  ==========================================================

Timestamps, dates and times are converted by Arrow itself, so nanoseconds and years outside
Python's `datetime` range are exact. Dictionary keys of summaries that are not strings become
their text form.
"""
from __future__ import annotations

import datetime
import decimal
import json
import math
import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["bytes_text", "iso_duration", "json_value", "column_json", "column_text",
           "column_strings", "text_value", "key_text"]

_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_OFFSET = re.compile(r"([+-]\d{2})(\d{2})$")


def bytes_text(value: bytes | bytearray | memoryview) -> str:
    """Bytes as text: decoded as UTF-8 when valid, otherwise ``"0x"`` and lowercase hex."""
    value = bytes(value)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + value.hex()


def _seconds(count: int, digits: int) -> str:
    """``count`` units of 10**-digits seconds as an exact decimal number of seconds."""
    whole, frac = divmod(abs(count), 10 ** digits)
    text = str(whole)
    if frac:
        text += "." + f"{frac:0{digits}d}".rstrip("0")
    return text


def iso_duration(count: int, unit: str = "us") -> str:
    """An ISO 8601 duration in seconds (``PT1.5S``, ``-PT2S``) of `count` `unit` (s, ms, us,
    ns), exact."""
    count = int(count)
    return ("-" if count < 0 else "") + f"PT{_seconds(count, _DIGITS[unit])}S"


def _interval(months: int, days: int, nanoseconds: int) -> str:
    sign = "-" if nanoseconds < 0 else ""
    return f"P{months}M{days}DT{sign}{_seconds(nanoseconds, 9)}S"


def _decimal(value: decimal.Decimal) -> str:
    return format(value, "f") if value.is_finite() else str(value)


def key_text(key: Any) -> str:
    """A dict key as a JSON object key: strings as they are, anything else as its text."""
    return key if isinstance(key, str) else text_value(key)


def json_value(value: Any) -> Any:
    """A Python object (a summary, a cell of ``to_pylist``) as a JSON-ready value, by the forms
    of the module docstring: never NaN or infinity, never an object `json` cannot write."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else str(value)
    if isinstance(value, np.timedelta64):
        if np.isnat(value):
            return None
        return iso_duration(int(value.astype("timedelta64[ns]").astype(np.int64)), "ns")
    if isinstance(value, np.generic):
        return json_value(value.item())
    if isinstance(value, np.ndarray):
        return [json_value(v) for v in value.tolist()] if value.dtype.kind not in "mM" \
            else [json_value(v) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_text(value)
    if isinstance(value, decimal.Decimal):
        return _decimal(value)
    if isinstance(value, (datetime.date, datetime.time)):  # datetime and pandas' Timestamp too
        if value != value:  # pandas' NaT
            return None
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        if value != value:
            return None
        micro = (value.days * 86400 + value.seconds) * 10 ** 6 + value.microseconds
        return iso_duration(micro * 1000 + int(getattr(value, "nanoseconds", 0)), "ns")
    if type(value).__name__ == "MonthDayNano":
        return _interval(value.months, value.days, value.nanoseconds)
    if isinstance(value, dict):
        return {key_text(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_value(v) for v in value]
    if isinstance(value, pa.Scalar):
        return json_value(value.as_py())
    return str(value)


def text_value(value: Any) -> str:
    """A Python object as a text cell: floats with 6 significant digits, missing as an empty
    string, everything else by its JSON form."""
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return _json_text(json_value(value))


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def _zoned_with_offset_seconds(array: pa.Array) -> list | None:
    """Zoned timestamps as ISO 8601 local time and UTC offset when an offset has seconds
    (local mean time before 1912, e.g. Paris +00:09:21): ``+HH:MM:SS`` as Python's `isoformat`
    writes it, where Arrow's own text truncates it. None when every offset is whole minutes."""
    local = pc.local_timestamp(array)
    offsets = (np.asarray(local.cast(pa.int64()).fill_null(0))
               - np.asarray(array.cast(pa.int64()).fill_null(0)))
    seconds = offsets // {"s": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}[array.type.unit]
    if not np.any(seconds % 60):
        return None
    distinct, which = np.unique(seconds, return_inverse=True)
    suffixes = [_offset_text(int(v)) for v in distinct]
    texts = local.cast(pa.string()).to_pylist()
    return [None if t is None else t.replace(" ", "T", 1) + suffixes[w]
            for t, w in zip(texts, which.tolist())]


def _offset_text(seconds: int) -> str:
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")


def _temporal(array: pa.Array) -> list:
    """Timestamps, dates and times as ISO 8601 text, converted by Arrow (exact in every unit)."""
    if pa.types.is_timestamp(array.type) and array.type.tz is not None:
        try:
            texts = _zoned_with_offset_seconds(array)
        except (pa.ArrowException, NotImplementedError):  # e.g. a zone missing from tzdata
            texts = None
        if texts is not None:
            return texts
    try:
        texts = array.cast(pa.string()).to_pylist()
    except (pa.ArrowException, NotImplementedError):  # e.g. a zone missing from the tz database
        if not pa.types.is_timestamp(array.type) or array.type.tz is None:
            raise
        texts = [None if t is None else t + "Z" for t in
                 array.cast(pa.timestamp(array.type.unit)).cast(pa.string()).to_pylist()]
    if not pa.types.is_timestamp(array.type):
        return texts
    return [None if t is None else _OFFSET.sub(r"\1:\2", t.replace(" ", "T", 1)) for t in texts]


def _is(array_type: pa.DataType, *names: str) -> bool:
    return any(getattr(pa.types, f"is_{name}", lambda _: False)(array_type) for name in names)


def _array_json(array: pa.Array) -> list:
    t = array.type
    if pa.types.is_dictionary(t):
        return _array_json(array.dictionary_decode())
    if pa.types.is_null(t):
        return [None] * len(array)
    if pa.types.is_floating(t):
        return [json_value(v) for v in array.to_pylist()]
    if _is(t, "boolean", "integer", "string", "large_string", "string_view"):
        return array.to_pylist()
    if _is(t, "timestamp", "date", "time"):
        return _temporal(array)
    if pa.types.is_duration(t):
        return [None if v is None else iso_duration(v, t.unit)
                for v in array.cast(pa.int64()).to_pylist()]
    if _is(t, "struct"):
        fields = [_array_json(f) for f in array.flatten()]
        names = [t.field(i).name for i in range(t.num_fields)]
        return [dict(zip(names, row)) if valid else None
                for valid, row in zip(array.is_valid().to_pylist(), zip(*fields) if fields
                                      else [()] * len(array))]
    if pa.types.is_map(t):
        return [None if v is None else {key_text(k): json_value(x) for k, x in v}
                for v in array.to_pylist()]
    if _is(t, "list", "large_list", "fixed_size_list", "list_view", "large_list_view"):
        return [None if not s.is_valid else _array_json(s.values) for s in array]
    return [json_value(v) for v in array.to_pylist()]  # binary, decimal, map, interval, ...


def column_json(column: pa.Array | pa.ChunkedArray) -> list:
    """The values of an Arrow column as JSON-ready Python values (the forms of the module
    docstring), one per row."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out: list = []
    for chunk in chunks:
        try:
            out.extend(_array_json(chunk))
        except (pa.ArrowException, NotImplementedError, ValueError, OverflowError):
            out.extend(None if not s.is_valid else str(s) for s in chunk)
    return out


def column_text(column: pa.Array | pa.ChunkedArray) -> list[str]:
    """The values of an Arrow column as text cells: floats with 6 significant digits (``nan``,
    ``inf``), missing values empty, the rest in their JSON form."""
    t = column.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_floating(t):
        return [text_value(v) for v in column.to_pylist()]
    if pa.types.is_boolean(t):
        return ["" if v is None else str(v) for v in column.to_pylist()]
    return [_json_text(v) for v in column_json(column)]


def column_strings(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The column as an Arrow string array of its JSON forms as text (nulls kept as nulls)."""
    return pa.array([None if v is None else _json_text(v) for v in column_json(column)],
                    pa.string())
