"""Array-level batching shared by every scipy-style test: samples along `axis`, as CSR segments.

Every test kernel takes its samples as CSR segments (``values[offsets[i]:offsets[i + 1]]`` is
sample ``i``), the same layout the grouper gives for ragged groups of a table. A rectangular
array (batch, n) is that layout for free: ``values = a.ravel()``, ``offsets = n * arange``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastperf.data.validation import check_axis
from fastperf.errors import InputError

__all__ = [
    "Samples", "one_sample", "two_samples", "paired_samples", "shaped", "as_float_array",
    "as_samples", "last_axis",
]



@dataclass(frozen=True)
class Samples:
    """A batch of samples as CSR segments: sample ``i`` is ``values[offsets[i]:offsets[i + 1]]``."""

    values: np.ndarray
    offsets: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    @classmethod
    def rectangular(cls, a2d: np.ndarray) -> "Samples":
        """Rows of a 2-D array as samples (no copy when the array is C-contiguous float64)."""
        a2d = np.ascontiguousarray(a2d, dtype=np.float64)
        batch, n = a2d.shape
        return cls(a2d.reshape(-1), np.arange(batch + 1, dtype=np.int64) * n)


#: The largest integer below which every integer is a float64 (2**53).
FLOAT64_EXACT_INTEGERS = 2**53


def as_float_array(a, name: str, *, scalar: bool = False) -> np.ndarray:
    """`a` as a float64 array, or an `InputError` naming `name`, what was given and what is
    accepted (numbers: ints, floats, bools; None/NaN as missing values inside an array).
    Strings, complex numbers, dates and times are refused, not parsed or truncated; so is None
    itself (no data at all, not a missing value), and a scalar unless `scalar` (then it is
    returned as a 0-d array). So are integers beyond 2**53 in size, which float64 would round
    (2**53 + 1 to 2**53: false ties), and a masked array with masked values (its mask would be
    dropped)."""
    accepted = "numeric (an array of ints or floats; NaN/None for missing values)"
    if a is None:
        raise InputError(f"{name} must be {accepted}, got None")
    if isinstance(a, (str, bytes)):
        raise InputError(f"{name} must be {accepted}, got the string {a!r}")
    if np.ma.isMaskedArray(a) and np.ma.getmaskarray(a).any():
        raise InputError(f"{name} is a masked array with masked values, whose mask fastperf does "
                         f"not read (the values under it would be tested): pass "
                         f"{name}.filled(np.nan), NaN being a missing value")
    try:
        raw = np.asarray(a)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be {accepted}, in a regular (not ragged) shape: {exc}") from None
    kind = raw.dtype.kind
    if kind in "USc" or kind in "mM":
        what = {"U": "strings", "S": "bytes", "c": "complex numbers", "m": "time deltas",
                "M": "dates/times"}[kind]
        example = raw.reshape(-1)[0].item() if raw.size else ""
        hint = (" (a list of strings is read as measurement files only when they exist)"
                if kind in "US" else "")
        raise InputError(f"{name} must be {accepted}, got {what} such as {example!r} "
                         f"(dtype {raw.dtype}){hint}")
    if kind == "O" and raw.size:  # Python ints beyond int64 make an object array
        big = [v for v in raw.flat if isinstance(v, int) and not isinstance(v, bool)
               and abs(v) > FLOAT64_EXACT_INTEGERS]
        if big:
            raw = np.array([min(big), max(big)], dtype=object)
            kind = "i"
    if kind in "iu" and raw.size:
        low, high = int(raw.min()), int(raw.max())
        if max(high, -low) > FLOAT64_EXACT_INTEGERS:
            raise InputError(
                f"{name} holds integers beyond 2**53 in size (such as "
                f"{high if high > -low else low}), which float64 cannot hold exactly: their "
                "ranks, ties and differences would be wrong; subtract a reference value (e.g. "
                "the smallest) first")
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be {accepted}: {exc}") from None
    if arr.ndim == 0 and not scalar:
        raise InputError(f"{name} must have at least one dimension, got a scalar")
    return arr


def last_axis(arr: np.ndarray, axis: int, name: str) -> np.ndarray:
    axis = check_axis(axis)
    try:
        return np.moveaxis(arr, axis, -1)
    except np.exceptions.AxisError:
        raise InputError(f"axis={axis} is out of range for {name} of shape {arr.shape}") from None


def one_sample(a, axis: int = -1, name: str = "x") -> tuple[Samples, tuple[int, ...]]:
    """The samples of `a` along `axis`, and the shape of the batch (the other axes)."""
    arr = last_axis(as_float_array(a, name), axis, name)
    batch_shape = arr.shape[:-1]
    return as_samples(arr, batch_shape), batch_shape


def broadcast_pair(x, y, axis: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    xa = last_axis(as_float_array(x, "x"), axis, "x")
    ya = last_axis(as_float_array(y, "y"), axis, "y")
    try:
        batch_shape = np.broadcast_shapes(xa.shape[:-1], ya.shape[:-1])
    except ValueError:
        raise InputError(
            f"x and y batch shapes {xa.shape[:-1]} and {ya.shape[:-1]} do not broadcast "
            f"(samples lie along axis={axis})"
        ) from None
    return xa, ya, batch_shape


def as_samples(arr: np.ndarray, batch_shape: tuple[int, ...]) -> Samples:
    arr = np.broadcast_to(arr, batch_shape + arr.shape[-1:])
    # an explicit batch size: reshape(-1, 0) cannot infer it for empty samples
    return Samples.rectangular(arr.reshape(int(np.prod(batch_shape)), arr.shape[-1]))


def two_samples(x, y, axis: int = -1) -> tuple[Samples, Samples, tuple[int, ...]]:
    """Independent samples x and y along `axis`; their other axes broadcast together."""
    xa, ya, batch_shape = broadcast_pair(x, y, axis)
    return as_samples(xa, batch_shape), as_samples(ya, batch_shape), batch_shape


def paired_samples(x, y, axis: int = -1) -> tuple[Samples, Samples, tuple[int, ...]]:
    """Paired samples: like `two_samples`, but x and y must have the same length along `axis`."""
    xa, ya, batch_shape = broadcast_pair(x, y, axis)
    if xa.shape[-1] != ya.shape[-1]:
        raise InputError(
            f"paired samples must have the same length along axis={axis}: x has "
            f"{xa.shape[-1]} values, y has {ya.shape[-1]}"
        )
    return as_samples(xa, batch_shape), as_samples(ya, batch_shape), batch_shape


def shaped(values: np.ndarray, batch_shape: tuple[int, ...]):
    """Per-sample results reshaped to the batch shape; a numpy scalar for a single test."""
    out = np.asarray(values).reshape(batch_shape)
    return out[()] if out.ndim == 0 else out
