"""Order statistics without sorting: in-place selection (quickselect) on a slice; and the small
sorts the kernels need (a sorted copy, a stable order).

Selection is used wherever a median or a few order statistics of a group are needed; expected
cost linear in the group size, against n log n for a sort.
"""
import numpy as np

from fastperf.kernels.builds import njit


@njit(cache=True)
def partition(x, lo, hi, pivot, or_equal) -> int:
    """Branchless Lomuto partition of ``x[lo:hi]``; returns j with ``x[lo:j]`` the values
    ``< pivot`` (``<= pivot`` when `or_equal`) and ``x[j:hi]`` the others.

    Every step swaps unconditionally and advances j by the comparison's result, so the loop has
    no data-dependent branch to mispredict (about 2.4x faster than Hoare partitioning on
    unordered data).

    Parameters
    ----------
    x : numpy.ndarray
        The array (rearranged in place).
    lo, hi : int
        The slice.
    pivot : float
        The pivot value.
    or_equal : bool
        Put values equal to the pivot on the left too.

    Returns
    -------
    int
        j, the end of the left part.

    Notes
    -----
    Lomuto's partition scheme (Bentley 1986, "Programming Pearls", column 11), made branchless.
    """
    j = lo
    if or_equal:
        for i in range(lo, hi):
            v = x[i]
            x[i] = x[j]
            x[j] = v
            j += v <= pivot
    else:
        for i in range(lo, hi):
            v = x[i]
            x[i] = x[j]
            x[j] = v
            j += v < pivot
    return j


@njit(cache=True)
def select(x, k, left, right) -> None:
    """Rearrange ``x[left:right]`` in place so that ``x[k]`` is its value of rank ``k - left``.

    Afterwards ``x[left:k] <= x[k] <= x[k+1:right]``. Quickselect (Hoare, CACM 1961) with a
    median-of-three pivot and branchless three-way partitioning: values below the pivot, equal
    to it, above it. The equal block ends the search as soon as it holds rank k, so ties (timer
    quantisation) and constant samples cost one or two passes. No NaN allowed in the slice.

    Parameters
    ----------
    x : numpy.ndarray
        The array (rearranged in place).
    k : int
        The index whose value is wanted, left <= k < right.
    left, right : int
        The slice.

    Returns
    -------
    None
        ``x`` is rearranged in place.

    Notes
    -----
    Hoare (1961), "Algorithm 65: Find", Comm. ACM 4(7), 321-322.
    """
    lo = left
    hi = right
    while hi - lo > 1:
        a = x[lo]
        b = x[(lo + hi) >> 1]
        c = x[hi - 1]
        if a < b:
            pivot = b if b < c else (c if a < c else a)
        else:
            pivot = a if a < c else (c if b < c else b)
        below = partition(x, lo, hi, pivot, False)  # x[lo:below] < pivot
        if k < below:
            hi = below
            continue
        upto = partition(x, below, hi, pivot, True)  # x[below:upto] == pivot
        if k < upto:
            return
        lo = upto


@njit(cache=True)
def move_nan_last(x) -> int:
    """Move the NaN values of `x` to its end, in place; return the number of other values.

    Parameters
    ----------
    x : numpy.ndarray
        The array (rearranged in place).

    Returns
    -------
    int
        The number of non-NaN values (they come first, in no particular order).

    Notes
    -----
    A partition: no formula.
    """
    n = 0
    for i in range(x.shape[0]):
        v = x[i]
        if v == v:
            x[i] = x[n]
            x[n] = v
            n += 1
    return n


#: Samples up to this size are sorted by counting ranks (branch-free, quadratic): about twice as
#: fast as ``np.sort`` on small random data.
RANK_SORT_MAX_N = 64


@njit(cache=True, inline="always")
def stable_rank(sample, i) -> int:
    """The position of ``sample[i]`` in a stable sort of `sample` (without NaN): the values
    before it that are <= it and the values after it that are < it. Branch-free."""
    value = sample[i]
    rank = 0
    for j in range(i):
        rank += sample[j] <= value
    for j in range(i + 1, sample.shape[0]):
        rank += sample[j] < value
    return rank


@njit(cache=True)
def sorted_copy(sample) -> np.ndarray:
    """``np.sort(sample)`` for a sample without NaN.

    Parameters
    ----------
    sample : numpy.ndarray
        A sample without NaN.

    Returns
    -------
    numpy.ndarray
        A sorted copy.

    Notes
    -----
    Small samples by counting their ranks, larger ones by ``np.sort``: no formula.
    """
    n = sample.shape[0]
    if n > RANK_SORT_MAX_N:
        return np.sort(sample)
    out = np.empty(n)
    for i in range(n):
        out[stable_rank(sample, i)] = sample[i]
    return out


_SIGN_BIT = np.uint64(1) << np.uint64(63)
_LOW_BYTE = np.uint64(0xFF)


@njit(cache=True)
def stable_order(sample) -> np.ndarray:
    """``np.argsort(sample, kind="stable")`` for a sample without NaN.

    Parameters
    ----------
    sample : numpy.ndarray
        float64 values without NaN (infinities are fine; -0.0 and 0.0 are equal, in the order
        they come).

    Returns
    -------
    numpy.ndarray
        int64 positions of the values in ascending order, ties in the order they come.

    Notes
    -----
    Up to `RANK_SORT_MAX_N` values by counting each value's stable rank (`stable_rank`:
    branch-free, quadratic; at that size cheaper than the radix passes' 8 x 256 counters).
    Larger samples by a least-significant-digit radix sort of the values' IEEE 754 bits, one
    byte a pass (Knuth, *The Art of Computer Programming* vol. 3, 2nd ed., 1998, sec. 5.2.5),
    the bits made to sort as the values do: a negative value's bits inverted, a positive
    value's sign bit set (Herf 2001, "Radix tricks"). A pass whose byte is the same in every
    value is skipped, as in the high bytes of values of one magnitude. LSD radix sorting is
    stable, so ties keep their order. 500 values take a quarter of the time of Numba's
    ``np.argsort`` (quicksort), 30 values half.
    """
    n = sample.shape[0]
    order = np.empty(n, np.int64)
    if n <= RANK_SORT_MAX_N:
        for i in range(n):
            order[stable_rank(sample, i)] = i
        return order
    floats = np.empty(n)
    for i in range(n):
        floats[i] = sample[i] + 0.0  # -0.0 as 0.0: equal values, equal keys
    keys = floats.view(np.uint64)
    counts = np.zeros((8, 256), np.int64)
    for i in range(n):
        key = keys[i]
        key = ~key if key & _SIGN_BIT else key | _SIGN_BIT
        keys[i] = key
        for digit in range(8):
            counts[digit, (key >> np.uint64(8 * digit)) & _LOW_BYTE] += 1
        order[i] = i
    other_keys = np.empty(n, np.uint64)
    other_order = np.empty(n, np.int64)
    for digit in range(8):
        shift = np.uint64(8 * digit)
        if counts[digit, (keys[0] >> shift) & _LOW_BYTE] == n:
            continue  # one byte value throughout: the pass would move nothing
        start = 0
        for byte in range(256):
            count = counts[digit, byte]
            counts[digit, byte] = start
            start += count
        for i in range(n):
            key = keys[i]
            byte = (key >> shift) & _LOW_BYTE
            at = counts[digit, byte]
            counts[digit, byte] = at + 1
            other_keys[at] = key
            other_order[at] = order[i]
        keys, other_keys = other_keys, keys
        order, other_order = other_order, order
    return order


@njit(cache=True)
def smallest_gap(sorted_values, start, stop) -> float:
    """The smallest positive difference between neighbours of ``sorted_values[start:stop]``
    (ascending): the quantum of a timer's values; inf when every value is the same.

    Parameters
    ----------
    sorted_values : numpy.ndarray of float64
        Ascending over [start, stop).
    start, stop : int
        The slice.

    Returns
    -------
    float

    Notes
    -----
    One pass: the smallest positive gap between distinct sorted values is between neighbours.
    """
    gap = np.inf
    for i in range(start + 1, stop):
        step = sorted_values[i] - sorted_values[i - 1]
        if 0.0 < step < gap:
            gap = step
    return gap
