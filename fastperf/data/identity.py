"""A group's identity: a stable 64-bit hash of its key values, what keys its random streams.

Every function that draws random numbers per group (`fastperf.bootstrap`,
`fastperf.permutation_test`, `fastperf.changepoints`) keys the group's stream by
`group_identities` of its key values, not by its position in the table: a group's result is
then the same whether it runs alone, among other groups in any order, in any chunk of a lazy
dataset or in any Spark partition. The functions that take plain arrays (no keys) key each
sample by its position in the input (0, 1, ...): the position is then the sample's identity.

The identity is a function of the key values only, defined on the logical value, never on its
Arrow storage:

- an integer is the same value whatever its width and signedness (``int8`` 5 is ``uint64`` 5);
  dates, times, timestamps and durations are their integer value in their unit; a float whose
  value is an integer (in [-2**63, 2**64)) is that integer (a column that a reader made
  ``float64`` because of its nulls keys its groups as the integer column did); any other float
  is its value (float16 and float32 widened exactly to float64), one NaN for every NaN;
- a string is its UTF-8 bytes, whether ``string``, ``large_string``, ``string_view`` or
  dictionary-encoded; binary alike (and distinct from a string of the same bytes); a decimal is
  its value among decimals (1.50 is 1.5; an integral decimal of at most 18 digits is that
  integer, so decimal 2 is int 2 and float 2.0; a fractional decimal is not the float nearest
  to it: 1.5 as a decimal and as a float are different identities); a boolean
  is itself;
- a null is one value of its own (it could equal another key's hash only as any two keys can:
  a 64-bit collision, probability 2**-64 per pair);
- several key columns are combined in their order (the column names are not part of it); a
  table with no key columns (one group) has one constant identity.

The hash: per key column a tag word (the kind of value) and a payload word (an integer's 64
bits, a float's IEEE 754 bits, a string's own chain over its bytes), mixed into the row's chain
``h = mix64((h ^ word) + GOLDEN)`` from `ROW_START` (`fastperf.kernels.identity`): integer
arithmetic modulo 2**64 over the values' bytes, the same in every process, on every platform
and with every pyarrow version. tests/naive.py recomputes it in plain Python.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.errors import InputError
from fastperf.kernels.builds import read_only
from fastperf.kernels.identity import mix_column, string_hashes

__all__ = ["group_identities", "position_identities", "ROW_START", "TAGS"]

#: The chain's first word for every row (the digits of pi after STRING_START's).
ROW_START = np.uint64(0x13198A2E03707344)

#: The tag word of each kind of value.
TAGS = {"null": 1, "boolean": 2, "integer": 3, "negative integer": 4, "float": 5,
        "string": 6, "binary": 7, "decimal": 8}

_TAG = {name: np.uint64(tag) for name, tag in TAGS.items()}
_CANONICAL_NAN = np.uint64(0x7FF8000000000000)
_TWO_63 = 2.0 ** 63
_TWO_64 = 2.0 ** 64


def group_identities(keys: pa.Table) -> np.ndarray:
    """The identity of each row of a table of key values: a stable 64-bit hash of the values.

    Parameters
    ----------
    keys : pyarrow.Table
        One row per group, one column per key (any order of rows, any chunking; dictionary-
        or run-end-encoded columns are read through their values).

    Returns
    -------
    numpy.ndarray of uint64
        One identity per row, a function of that row's values only (see the module docstring:
        integers by value whatever their type, strings by their bytes, floats by value, null a
        value of its own, columns in order, names ignored).

    Raises
    ------
    InputError
        A key column of a type without a value identity (lists, structs, maps, unions,
        intervals).

    Notes
    -----
    SplitMix64's finaliser (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number
    generators", OOPSLA, 453-472) chained over the words of the values
    (`fastperf.kernels.identity`).
    """
    state = np.full(keys.num_rows, ROW_START, dtype=np.uint64)
    for name, column in zip(keys.column_names, keys.columns):
        tags, payloads = _column_words(column, name)
        mix_column(state, tags, payloads)
    return state


def position_identities(count: int) -> np.ndarray:
    """The identities of the samples of an array batch: their positions 0 .. count - 1.

    Parameters
    ----------
    count : int
        The number of samples.

    Returns
    -------
    numpy.ndarray of uint64
        ``0, 1, ..., count - 1``: the array forms key sample g's stream by g.
    """
    return np.arange(count, dtype=np.uint64)


def _column_words(column: pa.ChunkedArray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(tags, payloads) of a key column, row for row, chunk by chunk."""
    parts = [_array_words(chunk, name) for chunk in column.chunks]
    if not parts:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint64)
    return (np.ascontiguousarray(np.concatenate([t for t, _ in parts])),
            np.ascontiguousarray(np.concatenate([p for _, p in parts])))


def _array_words(array: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(tags, payloads) of one Arrow array: nulls get the null tag and payload 0."""
    kind = array.type
    if pa.types.is_run_end_encoded(kind):
        return _array_words(pc.run_end_decode(array), name)
    if pa.types.is_dictionary(kind):
        tags, payloads = _array_words(array.dictionary, name)
        indices = array.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        if tags.shape[0] == 0:  # an empty dictionary: every index is null
            indices = np.zeros_like(indices)
            tags, payloads = np.array([_TAG["null"]]), np.zeros(1, dtype=np.uint64)
        tags, payloads = tags[indices], payloads[indices]
        return _with_nulls(array, tags, payloads)
    if pa.types.is_null(kind):
        return (np.full(len(array), _TAG["null"], dtype=np.uint64),
                np.zeros(len(array), dtype=np.uint64))
    if pa.types.is_boolean(kind):
        values = array.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint64)
        return _with_nulls(array, np.full(len(array), _TAG["boolean"]), values)
    if pa.types.is_integer(kind):
        return _with_nulls(array, *_integer_words(_numbers(array, kind)))
    if pa.types.is_temporal(kind) and not pa.types.is_interval(kind):
        storage = pa.int32() if kind.bit_width == 32 else pa.int64()
        return _with_nulls(array, *_integer_words(_numbers(array.view(storage), storage)))
    if pa.types.is_floating(kind):
        return _with_nulls(array, *_float_words(_numbers(array, kind).astype(np.float64)))
    if pa.types.is_decimal(kind):
        return _with_nulls(array, *_decimal_words(array))
    if pa.types.is_string_view(kind) or pa.types.is_binary_view(kind):
        wide = pa.large_string() if pa.types.is_string_view(kind) else pa.large_binary()
        return _array_words(array.cast(wide), name)
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind)):
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        tag = _TAG["string"] if text else _TAG["binary"]
        return _with_nulls(array, np.full(len(array), tag), _byte_hashes(array))
    raise InputError(f"key column {name!r} holds {kind}, which has no value identity to key "
                     "random streams by: use key columns of strings, integers, floats, "
                     "decimals, booleans, dates, times, timestamps or durations")


def _numbers(array: pa.Array, kind: pa.DataType) -> np.ndarray:
    """The values of a numeric array as numpy, nulls as 0 (their tag is set apart)."""
    return array.fill_null(pa.scalar(0, kind)).to_numpy(zero_copy_only=False)


def _integer_words(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An integer's tag (negative or not) and its 64 bits (two's complement if negative)."""
    if values.dtype.kind == "u":
        return (np.full(values.shape[0], _TAG["integer"]),
                values.astype(np.uint64))
    signed = values.astype(np.int64)
    tags = np.where(signed < 0, _TAG["negative integer"], _TAG["integer"])
    return tags, signed.view(np.uint64)


def _float_words(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A float's words: an integral value in [-2**63, 2**64) as that integer, else its bits
    (one NaN)."""
    with np.errstate(invalid="ignore"):
        integral = (np.isfinite(values) & (values == np.floor(values))
                    & (values >= -_TWO_63) & (values < _TWO_64))
    negative = integral & (values < 0)
    positive = integral & ~negative
    tags = np.select([negative, positive], [_TAG["negative integer"], _TAG["integer"]],
                     _TAG["float"]).astype(np.uint64)
    bits = np.where(np.isnan(values), _CANONICAL_NAN, values.view(np.uint64))
    payloads = np.where(positive, np.where(positive, values, 0.0).astype(np.uint64), bits)
    payloads = np.where(negative,
                        np.where(negative, values, 0.0).astype(np.int64).view(np.uint64),
                        payloads)
    return tags, payloads.astype(np.uint64)


def _decimal_words(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A decimal by its value: its text without trailing zeros (1.50 is 1.5, -0.0 is 0); an
    integral one of at most 18 digits (within the int64 range) as that integer."""
    text = pc.cast(array.fill_null(pa.scalar(0, array.type)), pa.string())
    text = pc.replace_substring_regex(text, r"(\.[0-9]*?)0+$", r"\1")
    text = pc.replace_substring_regex(text, r"\.$", "")
    text = pc.replace_substring_regex(text, r"^-0$", "0")
    tags = np.full(len(array), _TAG["decimal"])
    payloads = _byte_hashes(text)
    integral = pc.invert(pc.match_substring(text, ".")).to_numpy(zero_copy_only=False)
    digits = pc.utf8_length(pc.replace_substring(text, "-", "")).to_numpy(zero_copy_only=False)
    small = integral & (digits <= 18)  # |value| < 10**18 < 2**63: fits int64
    if small.any():
        values = pc.cast(pc.if_else(pa.array(small), text, "0"), pa.int64()).to_numpy()
        integer_tags, integer_payloads = _integer_words(values)
        tags = np.where(small, integer_tags, tags)
        payloads = np.where(small, integer_payloads, payloads)
    return tags.astype(np.uint64), payloads.astype(np.uint64)


def _byte_hashes(array: pa.Array) -> np.ndarray:
    """Each string's (binary value's) chain over its bytes, from the Arrow buffers (no copy
    of the bytes): `fastperf.kernels.identity.string_hashes`."""
    n = len(array)
    buffers = array.buffers()
    if pa.types.is_fixed_size_binary(array.type):
        width = array.type.byte_width
        offsets = (array.offset + np.arange(n + 1, dtype=np.int64)) * width
        data = buffers[1]
    else:
        dtype = np.int64 if array.type in (pa.large_string(), pa.large_binary()) else np.int32
        offsets = np.frombuffer(buffers[1], dtype=dtype, count=array.offset + n + 1)
        offsets = offsets[array.offset:].astype(np.int64)
        data = buffers[2]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
    out = np.empty(n, dtype=np.uint64)
    string_hashes(read_only(np.ascontiguousarray(offsets)), read_only(data), out)
    return out


def _with_nulls(array: pa.Array, tags: np.ndarray, payloads: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The null tag and payload 0 where `array` is null."""
    tags = np.asarray(tags, dtype=np.uint64)
    payloads = np.asarray(payloads, dtype=np.uint64)
    if array.null_count == 0:
        return tags, payloads
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return (np.where(valid, tags, _TAG["null"]).astype(np.uint64),
            np.where(valid, payloads, np.uint64(0)).astype(np.uint64))
