"""The word mixing behind a group's identity: a stable 64-bit hash of its key values.

A row's identity is the chain ``h = step(h, w)`` over a sequence of 64-bit words that spells its
key values (`fastperf.data.identity` says which words: a tag and a payload per key column), with
``step(h, w) = mix64((h ^ w) + GOLDEN)`` and SplitMix64's finaliser `mix64`. A string's payload
is itself such a chain over its length and its bytes read as little-endian 64-bit words (the last
one padded with zero bytes). Everything is integer arithmetic modulo 2**64: the same words give
the same identity in every process and on every platform.
"""
import numpy as np

from fastperf.kernels.builds import njit
from fastperf.kernels.random import GOLDEN, mix64

#: The first word of every string's chain (any fixed constant: the digits of pi, 0x243F6A88...).
STRING_START = np.uint64(0x243F6A8885A308D3)

_EIGHT = np.uint64(8)


@njit(cache=True)
def mix_step(state, word) -> np.uint64:
    """One step of the chain: ``mix64((state ^ word) + GOLDEN)`` (modulo 2**64).

    Parameters
    ----------
    state : numpy.uint64
        The chain so far.
    word : numpy.uint64
        The next word.

    Returns
    -------
    numpy.uint64
        The chain with `word` mixed in.

    Notes
    -----
    SplitMix64's finaliser (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number
    generators", OOPSLA, 453-472); the golden-ratio increment keeps a zero word from mapping
    zero to zero.
    """
    return mix64((state ^ word) + GOLDEN)


@njit(cache=True)
def mix_column(state, tags, payloads) -> None:
    """Mix one key column into every row's chain: ``state[r] = step(step(state[r], tags[r]),
    payloads[r])``, in place.

    Parameters
    ----------
    state : numpy.ndarray of uint64
        One chain per row, updated in place.
    tags : numpy.ndarray of uint64
        The kind of each row's value (null, integer, string, ...).
    payloads : numpy.ndarray of uint64
        The value's word (an integer's bits, a string's own chain, ...).

    Notes
    -----
    See `mix_step`.
    """
    for r in range(state.shape[0]):
        state[r] = mix_step(mix_step(state[r], tags[r]), payloads[r])


@njit(cache=True)
def string_hashes(offsets, data, out) -> None:
    """The chain of each string of an Arrow string (binary) array: its length, then its bytes
    as little-endian 64-bit words, the last padded with zero bytes.

    Parameters
    ----------
    offsets : numpy.ndarray of int64
        The n + 1 offsets of the n strings into `data` (the array's slice already applied).
    data : numpy.ndarray of uint8
        The bytes.
    out : numpy.ndarray of uint64
        The n chains, written.

    Notes
    -----
    ``h = step(STRING_START, length)``, then ``h = step(h, word)`` per word (`mix_step`).
    """
    for i in range(out.shape[0]):
        start = offsets[i]
        stop = offsets[i + 1]
        h = mix_step(STRING_START, np.uint64(stop - start))
        position = start
        while position < stop:
            word = np.uint64(0)
            shift = np.uint64(0)
            end = min(position + 8, stop)
            for k in range(position, end):
                word |= np.uint64(data[k]) << shift
                shift += _EIGHT
            h = mix_step(h, word)
            position = end
        out[i] = h
