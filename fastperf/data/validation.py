"""The one place where arguments are checked: every public function validates through these.

Each check returns the normalised value or raises `InputError` naming the argument, what was
given and what is accepted.
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable, Literal, Mapping, Sequence, overload

import numpy as np

from fastperf.errors import InputError

__all__ = [
    "ALTERNATIVES", "check_choice", "check_alternative", "check_unit_interval",
    "check_confidence", "check_levels", "check_whole_number", "check_seed", "check_key_clash",
    "check_variants", "check_flag", "check_real", "check_axis", "variant_list",
    "check_higher_is_better", "real_array", "broadcast_arrays",
]

#: The `alternative` values of every test, as scipy spells them.
ALTERNATIVES = ("two-sided", "less", "greater")


def check_choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """`value` itself when it is one of `choices`, else an `InputError` listing them."""
    choices = tuple(choices)
    try:
        ok = value in choices
    except TypeError:  # an unhashable value against a dict's keys
        ok = False
    if not ok:
        raise InputError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_alternative(alternative: str) -> str:
    """`alternative` itself, or an `InputError` listing the valid values."""
    return check_choice(alternative, "alternative", ALTERNATIVES)


def check_unit_interval(value: Any, name: str) -> float:
    """`value` as a float strictly between 0 and 1, or an `InputError` naming `name`."""
    if isinstance(value, (bool, str, bytes)):
        raise InputError(f"{name} must be a number in (0, 1), got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number in (0, 1), got {value!r}") from None
    if not 0.0 < number < 1.0:
        raise InputError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return number


def check_confidence(confidence: Any) -> float:
    """A confidence level in (0, 1)."""
    return check_unit_interval(confidence, "confidence")


def check_levels(levels: Any, name: str) -> list[float]:
    """A sequence of levels in (0, 1), each checked by `check_unit_interval`.

    Parameters
    ----------
    levels : sequence of float
        The levels (e.g. HPT's `confidences`).
    name : str
        The argument's name, for the messages.

    Returns
    -------
    list of float

    Raises
    ------
    InputError
        `levels` is a single number, a string or not iterable (naming `name`, what was given and
        what is accepted), or holds a value outside (0, 1).
    """
    if isinstance(levels, (str, bytes)) or not hasattr(levels, "__iter__"):
        raise InputError(f"{name} must be a sequence of numbers in (0, 1) (e.g. [0.9, 0.95]), "
                         f"got {levels!r}")
    return [check_unit_interval(c, f"each of {name}") for c in levels]


def check_whole_number(value: Any, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """`value` as an int with ``minimum <= value (<= maximum)``; bools and floats are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and <= {maximum}"
        raise InputError(f"{name} must be >= {minimum}{upper}, got {value}")
    return value


def real_array(x: Any, what: str) -> np.ndarray:
    """`x` (a number or an array of them: levels, counts, p-values, e-values) as float64, else
    an `InputError` naming `what`: strings and bools are refused (``"0.05"`` is not a number,
    a bool not a count); None inside an array is a missing entry, NaN; huge Python ints (an
    object array) are converted, not cast through int64."""
    if x is None:
        raise InputError(f"{what} must be a number or an array of numbers, got None")
    arr = np.asarray(x)
    if arr.dtype == object:  # None inside an array: a missing entry, NaN
        if not all(v is None or (isinstance(v, (int, float, np.integer, np.floating))
                                 and not isinstance(v, (bool, np.bool_))) for v in arr.flat):
            raise InputError(f"{what} must be a number or an array of numbers, got {x!r}")
        arr = np.where(np.equal(arr, None), np.nan, arr)
    elif arr.dtype.kind not in "iuf":
        raise InputError(f"{what} must be a number or an array of numbers, got {x!r}")
    try:
        return np.asarray(arr, dtype=np.float64)
    except OverflowError:
        raise InputError(f"{what} must be a finite number, got an integer beyond the float "
                         "range (about 1.8e308)") from None


def broadcast_arrays(*named: tuple[str, np.ndarray]) -> list[np.ndarray]:
    """The arrays broadcast against each other, else an `InputError` naming them and their
    shapes.

    Parameters
    ----------
    *named : (str, numpy.ndarray)
        Each argument's name and array.

    Returns
    -------
    list of numpy.ndarray
    """
    try:
        return list(np.broadcast_arrays(*(array for _, array in named)))
    except ValueError:
        shapes = " and ".join(f"{name} {array.shape}" for name, array in named)
        raise InputError(f"the shapes of {shapes} do not broadcast") from None


def check_real(value: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False) -> float:
    """`value` as a finite float in the range given, else an `InputError` naming `name`.

    Parameters
    ----------
    value : object
        The argument; bools, strings and bytes are refused (``"0.95"`` is not a number).
    name : str
        The argument's name, for the message.
    low, high : float or None
        The bounds (None: unbounded on that side).
    low_open, high_open : bool
        Whether the bound itself is excluded.

    Returns
    -------
    float
        The value.

    Raises
    ------
    InputError
        A non-number, NaN, an infinity or a value out of range; the message names `name`, the
        value given and the range accepted.

    Notes
    -----
    Argument plumbing: no formula.
    """
    # a finite number: an infinite bound is never included
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"
    lower = "-inf" if low is None else f"{low:g}"
    upper = "inf" if high is None else f"{high:g}"
    accepted = f"a finite number in {left}{lower}, {upper}{right}"
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be {accepted}, got {value!r}")
    number = float(value)
    below = low is not None and (number < low or (low_open and number == low))
    above = high is not None and (number > high or (high_open and number == high))
    if not np.isfinite(number) or below or above:
        raise InputError(f"{name} must be {accepted}, got {value!r}")
    return number


@overload
def check_axis(axis: Any, name: str = ..., allow_none: Literal[False] = ...) -> int: ...
@overload
def check_axis(axis: Any, name: str = ..., allow_none: bool = ...) -> int | None: ...


def check_axis(axis: Any, name: str = "axis", allow_none: bool = False) -> int | None:
    """`axis` as an int (negative counts from the end), else an `InputError` naming `name`.

    Parameters
    ----------
    axis : object
        The argument.
    name : str
        Its name, for the message.
    allow_none : bool
        Whether None (all values as one flattened sample) is accepted.

    Returns
    -------
    int or None
        The axis.

    Raises
    ------
    InputError
        Anything other than an integer (or None when allowed).

    Notes
    -----
    Argument plumbing: no formula.
    """
    if axis is None and allow_none:
        return None
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        accepted = "an integer" + (" or None" if allow_none else "")
        raise InputError(f"{name} must be {accepted} (the axis along which the samples lie), "
                         f"got {axis!r}")
    return int(axis)


def variant_list(names: Any, name: str = "candidate") -> list[Any]:
    """One variant name or several as a list: a list or tuple is several names, anything else
    (a string, bytes, a number, a date: whatever the variant column holds) is one.

    Parameters
    ----------
    names : object
        The argument (e.g. `candidate`).
    name : str
        Its name, for the message.

    Returns
    -------
    list
        The names, in order.

    Raises
    ------
    InputError
        None, an empty list, or a name given twice.

    Notes
    -----
    Argument plumbing: no formula.
    """
    out = list(names) if isinstance(names, (list, tuple)) else [names]
    if not out or any(n is None for n in out):
        raise InputError(f"{name} must be a variant name or a list of variant names, got {names!r}")
    if len(set(map(repr, out))) != len(out):
        raise InputError(f"{name} lists a variant more than once: {names!r}")
    return out


def check_flag(value: Any, name: str) -> bool:
    """`value` as a bool (True/False or numpy's), else an `InputError`."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_higher_is_better(value: Any) -> bool | Mapping[str, bool] | None:
    """`higher_is_better` as given, when it is None (each unit's direction inferred), a bool
    (one direction for every unit) or a mapping of unit names to bools; else an `InputError`.

    Parameters
    ----------
    value : object
        The argument.

    Returns
    -------
    None, bool or dict
        None; the bool; or the mapping as a dict of str -> bool.

    Raises
    ------
    InputError
        Any other value, a mapping key that is not a string or a value that is not a bool
        (``"no"`` would read as true): the message names `higher_is_better`.

    Notes
    -----
    Argument plumbing: no formula.
    """
    expected = ("higher_is_better must be None (each unit's direction inferred), True/False, "
                "or a mapping unit -> True/False")
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if not isinstance(value, Mapping):
        raise InputError(f"{expected}, got {value!r}")
    for unit, flag in value.items():
        if not isinstance(unit, str) or not isinstance(flag, (bool, np.bool_)):
            raise InputError(f"{expected}, got {{{unit!r}: {flag!r}}} in {value!r}")
    return {unit: bool(flag) for unit, flag in value.items()}


def check_seed(seed: Any) -> int:
    """The 64-bit seed of the counter-based generator, one rule for every resampling function.

    None draws a fresh seed (results then differ between calls), a `numpy.random.Generator`
    gives one draw of its stream, an integer in [0, 2**64) is used as is.
    """
    if seed is None:
        return int(np.random.default_rng().integers(0, 2**63))
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63))
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and 0 <= seed < 2**64:
        return int(seed)
    raise InputError(f"seed must be None, a numpy Generator or an integer in [0, 2**64), "
                     f"got {seed!r}")


def check_key_clash(keys: Sequence[str], output_columns: Iterable[str], function: str,
                    value: str | None = None, variant: str | None = None,
                    unit: str | None = None) -> None:
    """Key columns may not take the name of an output column, nor be the value or the variant
    column (by="variant" would put each variant in a benchmark of its own, each with no runs
    to compare; unit= naming the variant column the same). `unit`, for the protocols whose
    unit is one per benchmark rather than a key, may not be the value or the variant column
    either."""
    output_columns = list(output_columns)
    clash = [k for k in keys if k in output_columns]
    if clash:
        raise InputError(f"key column {clash[0]!r} has the name of an output column of "
                         f"{function} ({', '.join(output_columns)}); rename it first")
    if value is not None and value in keys:
        raise InputError(f"column {value!r} cannot be both the value and a key")
    if variant is not None and variant in keys:
        raise InputError(f"column {variant!r} cannot be both the variant and a key (by= or "
                         "unit=)")
    for role, column in (("value", value), ("variant", variant)):
        if unit is not None and unit == column:
            raise InputError(f"column {unit!r} cannot be both the {role} and the unit (unit=)")


def check_variants(function: str, baseline: Any, candidate: Any) -> None:
    """A table-form comparison needs both variant names."""
    if baseline is None or candidate is None:
        raise InputError(f"{function} on a measurement table needs baseline= and candidate= "
                         "(variant names)")
