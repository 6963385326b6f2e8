"""Grouping kernels: dense group ids from key codes, row order by group, gathers into that order.

The grouper (``fastperf.grouping``) hands every table-level kernel the values of each group as
one contiguous slice: ``grouped[offsets[g]:offsets[g + 1]]`` holds group ``g``'s values in input
order.
"""
import numpy as np
from numba import njit, prange

from fastperf.kernels._compile import group_kernel


@njit(cache=True)
def dense_group_ids(left, right, n_left, n_right, always_ids):
    """Number the distinct pairs ``(left[i], right[i])`` densely, in ascending pair order.

    Parameters
    ----------
    left, right : int32 arrays of codes in ``[0, n_left)`` and ``[0, n_right)``, one per row
        (``right`` may be empty: the pairs are then just ``left``, and ``n_right`` is 1).
    n_left, n_right : int
        The code ranges; memory use is proportional to ``n_left * n_right`` (the caller falls
        back to sorting when that product is large).
    always_ids : bool
        Compute ``ids`` even when the groups are contiguous runs (else they are skipped then).

    Returns
    -------
    ids : int32 array, the group id of each row (empty when `contiguous` and not
        `always_ids`: the runs then describe the groups fully); ids follow the order of
        ``left * n_right + right`` (lexicographic order of the codes).
    first_row : int64 array, for each group the index of its first row.
    counts : int64 array, the number of rows of each group.
    contiguous : bool, True when the rows of every group form one contiguous run.
    """
    n = left.shape[0]
    has_right = right.shape[0] > 0
    cells = n_left * n_right
    first = np.full(cells, -1, dtype=np.int64)
    cell_count = np.zeros(cells, dtype=np.int64)
    contiguous = True
    previous = -1
    for i in range(n):
        c = left[i] * n_right + (right[i] if has_right else 0)
        if first[c] < 0:
            first[c] = i
        elif c != previous:
            contiguous = False
        cell_count[c] += 1
        previous = c
    new_id = np.empty(cells, dtype=np.int32)
    n_groups = 0
    for c in range(cells):
        if first[c] >= 0:
            new_id[c] = n_groups
            n_groups += 1
    first_row = np.empty(n_groups, dtype=np.int64)
    counts = np.empty(n_groups, dtype=np.int64)
    for c in range(cells):
        if first[c] >= 0:
            first_row[new_id[c]] = first[c]
            counts[new_id[c]] = cell_count[c]
    if contiguous and not always_ids:  # the runs say it all
        return np.empty(0, dtype=np.int32), first_row, counts, contiguous
    ids = np.empty(n, dtype=np.int32)
    for i in range(n):
        ids[i] = new_id[left[i] * n_right + (right[i] if has_right else 0)]
    return ids, first_row, counts, contiguous


@njit(cache=True)
def counting_sort(ids, offsets):
    """Stable counting sort: the row indices grouped by id (input order kept within a group).

    ``offsets`` (int64, length n_groups + 1) are the cumulative group sizes.
    """
    n = ids.shape[0]
    fill = offsets[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = ids[i]
        order[fill[g]] = i
        fill[g] += 1
    return order


@group_kernel
def gather_rows(values, order, offsets):
    """``values[order]``, computed group by group: the values in group order."""
    out = np.empty(order.shape[0], dtype=values.dtype)
    for g in prange(offsets.shape[0] - 1):
        for j in range(offsets[g], offsets[g + 1]):
            out[j] = values[order[j]]
    return out


@group_kernel
def gather_runs(values, run_starts, offsets):
    """The values in group order when each group's rows are one run starting at ``run_starts``."""
    out = np.empty(offsets[-1], dtype=values.dtype)
    for g in prange(offsets.shape[0] - 1):
        start = run_starts[g]
        for j in range(offsets[g], offsets[g + 1]):
            out[j] = values[start + j - offsets[g]]
    return out


@njit(cache=True)
def take_segments(grouped, offsets, take):
    """The segments ``take[i]`` of a CSR batch (``-1``: an empty segment), NaN values dropped.

    Returns the new values and offsets, and the number of NaN dropped from each segment.
    """
    n_out = take.shape[0]
    new_offsets = np.zeros(n_out + 1, dtype=np.int64)
    n_dropped = np.zeros(n_out, dtype=np.int64)
    for i in range(n_out):
        g = take[i]
        kept = 0
        if g >= 0:
            for j in range(offsets[g], offsets[g + 1]):
                if grouped[j] == grouped[j]:
                    kept += 1
            n_dropped[i] = offsets[g + 1] - offsets[g] - kept
        new_offsets[i + 1] = new_offsets[i] + kept
    values = np.empty(new_offsets[n_out], dtype=grouped.dtype)
    for i in range(n_out):
        g = take[i]
        if g >= 0:
            k = new_offsets[i]
            for j in range(offsets[g], offsets[g + 1]):
                v = grouped[j]
                if v == v:
                    values[k] = v
                    k += 1
    return values, new_offsets, n_dropped
