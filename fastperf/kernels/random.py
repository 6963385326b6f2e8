"""A counter-based random generator for resampling kernels: reproducible whatever the threads.

Every random number is a pure function of (seed, group, resample, counter): SplitMix64's
finaliser (Steele, Lea & Flood, *Fast splittable pseudorandom number generators*, OOPSLA 2014)
applied to a key mixed from the seed, the group and the resample, plus the counter times the
golden-ratio increment. No state is shared between threads or groups, so the same seed gives the
same result in any group order and with any number of threads. The group is its identity
(`fastperf.data.identity`: a hash of its key values; its position for arrays), not its place in
the table, so a group's numbers do not depend on the other groups either.
"""
import numpy as np

from fastperf.kernels.builds import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def mix64(z) -> np.uint64:
    """SplitMix64's finaliser: a bijective avalanche of a uint64.

    Parameters
    ----------
    z : numpy.uint64
        Any 64-bit value.

    Returns
    -------
    numpy.uint64
        Its mix.

    Notes
    -----
    The finaliser of SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators",
    OOPSLA, 453-472).
    """
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def sample_key(seed, group) -> np.uint64:
    """The part of a stream key that depends on (seed, group) only: compute it once per group.

    Parameters
    ----------
    seed : numpy.uint64
        The 64-bit seed.
    group : int or numpy.uint64
        The sample's (group's) identity: `fastperf.data.identity.group_identities` of its key
        values, or its position for arrays.

    Returns
    -------
    numpy.uint64
        The group's key.

    Notes
    -----
    Keys are mixed as in SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators",
    OOPSLA, 453-472).
    """
    k = mix64(np.uint64(seed) + GOLDEN)
    return mix64(k ^ (np.uint64(group) * GOLDEN + np.uint64(0x632BE59BD9B4E019)))


@njit(cache=True)
def resample_key(group_key, resample) -> np.uint64:
    """The key of one resample's stream from its group's `sample_key` (one mix per resample).

    Parameters
    ----------
    group_key : numpy.uint64
        From `sample_key`.
    resample : int
        The resample index.

    Returns
    -------
    numpy.uint64
        The resample's stream key.

    Notes
    -----
    Keys are mixed as in SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators",
    OOPSLA, 453-472).
    """
    return mix64(group_key ^ (np.uint64(resample) * GOLDEN + np.uint64(0x8CB92BA72F3D8DD7)))


@njit(cache=True)
def stream_key(seed, group, resample) -> np.uint64:
    """The key of one resample's random stream: depends on (seed, group, resample) only.

    Parameters
    ----------
    seed : numpy.uint64
        The 64-bit seed.
    group : int or numpy.uint64
        The sample's (group's) identity (see `sample_key`).
    resample : int
        The resample index.

    Returns
    -------
    numpy.uint64
        ``resample_key(sample_key(seed, group), resample)``.

    Notes
    -----
    Keys are mixed as in SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators",
    OOPSLA, 453-472).
    """
    return resample_key(sample_key(seed, group), resample)


@njit(cache=True)
def uniform(key, counter) -> float:
    """The counter-th uniform number in [0, 1) of the stream `key` (53 random bits).

    Parameters
    ----------
    key : numpy.uint64
        The stream key.
    counter : int
        The position in the stream.

    Returns
    -------
    float
        A uniform number in [0, 1) with 53 random bits.

    Notes
    -----
    The counter-th output of SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators",
    OOPSLA, 453-472). The top 53 bits times 2**-53.
    """
    return float(mix64(key + np.uint64(counter) * GOLDEN) >> _S11) * _TWO53


@njit(cache=True)
def integer_below(key, counter, n) -> int:
    """The counter-th integer uniform in [0, n) of the stream `key` (n < 2**53).

    Parameters
    ----------
    key : numpy.uint64
        The stream key.
    counter : int
        The position in the stream.
    n : int
        The bound (n < 2**53).

    Returns
    -------
    int
        floor(n u) with u = `uniform`(key, counter).

    Notes
    -----
    The multiply (not modulo) reduction; its bias is below n / 2**53.
    """
    return int(uniform(key, counter) * n)


_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit(cache=True)
def draw_indices(key, first_counter, n, count, out, tally) -> int:
    """Draw `count` integers uniform in [0, n) (n < 2**32), two from each 64-bit draw.

    The draws are counters ``first_counter, first_counter + 1, ...`` of the stream `key`; each
    gives two indices from its 32-bit halves by Lemire's multiply-shift ``(u32 * n) >> 32``
    (bias below n / 2**32: negligible for sample sizes). With `tally`, ``out[i] += 1`` for each
    index i drawn (out: one count per index, no index array: what a bootstrap of order
    statistics needs); else ``out[j]`` is the j-th index. Returns the next unused counter.

    Parameters
    ----------
    key : numpy.uint64
        The stream key.
    first_counter : int
        The first counter used.
    n : int
        The bound (n < 2**32).
    count : int
        The integers drawn.
    out : numpy.ndarray of int64
        The indices (or, with `tally`, one count per index, incremented).
    tally : bool
        Count the indices instead of storing them.

    Returns
    -------
    int
        The next unused counter.

    Notes
    -----
    Lemire (2019), "Fast random integer generation in an interval", ACM Trans. Model. Comput.
    Simul. 29(1): the multiply-shift reduction without its rejection step.
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
def fill_indices(key, first_counter, n, out) -> int:
    """Fill `out` with integers uniform in [0, n) (`draw_indices`); returns the next counter.

    Parameters
    ----------
    key : numpy.uint64
        The stream key.
    first_counter : int
        The first counter used.
    n : int
        The bound (n < 2**32).
    out : numpy.ndarray of int64
        Filled with the indices.

    Returns
    -------
    int
        The next unused counter.

    Notes
    -----
    See `draw_indices` (Lemire 2019).
    """
    return draw_indices(key, first_counter, n, out.shape[0], out, False)
