"""Grouping kernels: dense group ids from key codes, and a counting sort of rows into groups.

The grouper (``fastperf.grouping``) hands every table-level kernel the result as CSR segments:
``order[offsets[g]:offsets[g + 1]]`` are the row indices of group ``g``, in input order.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def dense_group_ids(left, right, n_right):
    """Number the distinct pairs ``(left[i], right[i])`` densely, in ascending pair order.

    Parameters
    ----------
    left, right : int32 arrays of non-negative codes, one per row (``right`` may be empty: then
        the pairs are just ``left``).
    n_right : int
        One more than the largest code ``right`` can hold (1 when ``right`` is empty).

    Returns
    -------
    ids : int32 array, the group id of each row (0 .. n_groups - 1). Ids follow the order of
        ``left * n_right + right``, i.e. lexicographic order of the codes.
    first_row : int64 array, for each group the index of its first row.

    Costs two passes over the rows and memory proportional to ``max(left + 1) * n_right``; the
    caller falls back to sorting when that product is too large.
    """
    n = left.shape[0]
    has_right = right.shape[0] > 0
    n_left = 0
    for i in range(n):
        if left[i] + 1 > n_left:
            n_left = left[i] + 1
    cells = n_left * n_right
    first = np.full(cells, -1, dtype=np.int64)
    for i in range(n):
        c = left[i] * n_right + (right[i] if has_right else 0)
        if first[c] < 0:
            first[c] = i
    new_id = np.empty(cells, dtype=np.int32)
    n_groups = 0
    for c in range(cells):
        if first[c] >= 0:
            new_id[c] = n_groups
            n_groups += 1
    first_row = np.empty(n_groups, dtype=np.int64)
    for c in range(cells):
        if first[c] >= 0:
            first_row[new_id[c]] = first[c]
    ids = np.empty(n, dtype=np.int32)
    for i in range(n):
        ids[i] = new_id[left[i] * n_right + (right[i] if has_right else 0)]
    return ids, first_row


@njit(cache=True)
def counting_sort(ids, n_groups):
    """Stable counting sort of row indices by group id.

    Returns ``order`` (int64, the row indices grouped by id, input order kept within a group) and
    ``offsets`` (int64, length ``n_groups + 1``): group ``g`` is ``order[offsets[g]:offsets[g+1]]``.
    """
    n = ids.shape[0]
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(n):
        offsets[ids[i] + 1] += 1
    for g in range(n_groups):
        offsets[g + 1] += offsets[g]
    fill = offsets[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = ids[i]
        order[fill[g]] = i
        fill[g] += 1
    return order, offsets
