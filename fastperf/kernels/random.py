"""A counter-based random generator for resampling kernels: reproducible whatever the threads.

Every random number is a pure function of (seed, group, resample, counter): SplitMix64's
finaliser (Steele, Lea & Flood, *Fast splittable pseudorandom number generators*, OOPSLA 2014)
applied to a key mixed from the seed, the group and the resample, plus the counter times the
golden-ratio increment. No state is shared between threads or groups, so the same seed gives the
same result in any group order and with any number of threads.
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def mix64(z):
    """SplitMix64's finaliser: a bijective avalanche of a uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def sample_key(seed, group):
    """The part of a stream key that depends on (seed, group) only: compute it once per group."""
    k = mix64(np.uint64(seed) + GOLDEN)
    return mix64(k ^ (np.uint64(group) * GOLDEN + np.uint64(0x632BE59BD9B4E019)))


@njit(cache=True)
def resample_key(group_key, resample):
    """The key of one resample's stream from its group's `sample_key` (one mix per resample)."""
    return mix64(group_key ^ (np.uint64(resample) * GOLDEN + np.uint64(0x8CB92BA72F3D8DD7)))


@njit(cache=True)
def stream_key(seed, group, resample):
    """The key of one resample's random stream: depends on (seed, group, resample) only."""
    return resample_key(sample_key(seed, group), resample)


@njit(cache=True)
def uniform(key, counter):
    """The counter-th uniform number in [0, 1) of the stream `key` (53 random bits)."""
    return float(mix64(key + np.uint64(counter) * GOLDEN) >> _S11) * _TWO53


@njit(cache=True)
def integer_below(key, counter, n):
    """The counter-th integer uniform in [0, n) of the stream `key` (n < 2**53)."""
    return int(uniform(key, counter) * n)


_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit(cache=True)
def draw_indices(key, first_counter, n, count, out, tally):
    """Draw `count` integers uniform in [0, n) (n < 2**32), two from each 64-bit draw.

    The draws are counters ``first_counter, first_counter + 1, ...`` of the stream `key`; each
    gives two indices from its 32-bit halves by Lemire's multiply-shift ``(u32 * n) >> 32``
    (bias below n / 2**32: negligible for sample sizes). With `tally`, ``out[i] += 1`` for each
    index i drawn (out: one count per index, no index array: what a bootstrap of order
    statistics needs); else ``out[j]`` is the j-th index. Returns the next unused counter.
    """
    nn = np.uint64(n)
    c = first_counter
    j = 0
    while j < count:
        z = mix64(key + np.uint64(c) * GOLDEN)
        c += 1
        first = np.int64(((z >> _S32) * nn) >> _S32)
        second = np.int64(((z & _LOW32) * nn) >> _S32)
        if tally:
            out[first] += 1
        else:
            out[j] = first
        j += 1
        if j < count:
            if tally:
                out[second] += 1
            else:
                out[j] = second
            j += 1
    return c


@njit(cache=True)
def fill_indices(key, first_counter, n, out):
    """Fill `out` with integers uniform in [0, n) (`draw_indices`); returns the next counter."""
    return draw_indices(key, first_counter, n, out.shape[0], out, False)
