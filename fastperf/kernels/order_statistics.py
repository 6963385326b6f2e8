"""Order statistics without sorting: in-place selection (quickselect) on a slice.

Used wherever a median or a few order statistics of a group are needed; expected cost linear in
the group size, against n log n for a sort.
"""
from numba import njit


@njit(cache=True)
def select(x, k, left, right):
    """Rearrange ``x[left:right]`` in place so that ``x[k]`` is its value of rank ``k - left``.

    Afterwards ``x[left:k] <= x[k] <= x[k+1:right]``. Hoare-style partitioning around a
    median-of-three pivot (Wirth, *Algorithms + Data Structures = Programs*, 1976; Numerical
    Recipes' ``select``); values equal to the pivot go to both sides, so ties (timer
    quantisation) keep the partitions balanced. No NaN allowed in the slice.
    """
    lo = left
    hi = right - 1
    while hi > lo:
        mid = (lo + hi) >> 1
        if x[mid] < x[lo]:
            x[mid], x[lo] = x[lo], x[mid]
        if x[hi] < x[lo]:
            x[hi], x[lo] = x[lo], x[hi]
        if x[hi] < x[mid]:
            x[hi], x[mid] = x[mid], x[hi]
        pivot = x[mid]
        i = lo
        j = hi
        while i <= j:
            while x[i] < pivot:
                i += 1
            while x[j] > pivot:
                j -= 1
            if i <= j:
                x[i], x[j] = x[j], x[i]
                i += 1
                j -= 1
        # now x[lo:j+1] <= pivot <= x[i:hi+1], and x[j+1:i] == pivot
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


@njit(cache=True)
def move_nan_last(x):
    """Move the NaN values of `x` to its end, in place; return the number of other values."""
    n = 0
    for i in range(x.shape[0]):
        v = x[i]
        if v == v:
            x[i] = x[n]
            x[n] = v
            n += 1
    return n
