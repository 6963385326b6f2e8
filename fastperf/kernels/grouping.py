"""Grouping kernels: dense group ids from key codes, row order by group, gathers into that order.

The grouper (``fastperf.data.grouping``) hands every table-level kernel the values of each group as
one contiguous slice: ``grouped[offsets[g]:offsets[g + 1]]`` holds group ``g``'s values in input
order.
"""
import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange


@njit(cache=True)
def dense_group_ids(left, right, n_left, n_right, always_ids) -> tuple[np.ndarray, np.ndarray,
                    np.ndarray, bool]:
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

    Notes
    -----
    A direct-address table over the code pairs (no hashing, no sort): O(rows + n_left n_right).
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
def counting_sort(ids, offsets) -> np.ndarray:
    """Stable counting sort: the row indices grouped by id (input order kept within a group).

    ``offsets`` (int64, length n_groups + 1) are the cumulative group sizes.

    Parameters
    ----------
    ids : numpy.ndarray of int32
        The group id of each row.
    offsets : numpy.ndarray of int64
        The cumulative group sizes (length n_groups + 1).

    Returns
    -------
    numpy.ndarray of int64
        The row indices in group order, input order within a group.

    Notes
    -----
    Distribution counting (Knuth, TAOCP vol. 3, section 5.2): O(rows + groups), stable.
    """
    n = ids.shape[0]
    fill = offsets[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = ids[i]
        order[fill[g]] = i
        fill[g] += 1
    return order


@group_kernel(min_rows=5_000_000)
def gather_rows(values, order, offsets) -> np.ndarray:
    """``values[order]``, computed group by group: the values in group order.

    Parameters
    ----------
    values : numpy.ndarray
        One value per row.
    order : numpy.ndarray of int64
        The rows in group order (`counting_sort`).
    offsets : numpy.ndarray of int64
        CSR offsets of the groups.

    Returns
    -------
    numpy.ndarray
        ``values[order]``.

    Notes
    -----
    A gather: no formula.
    """
    out = np.empty(order.shape[0], dtype=values.dtype)
    for g in prange(offsets.shape[0] - 1):
        for j in range(offsets[g], offsets[g + 1]):
            out[j] = values[order[j]]
    return out


@group_kernel(min_rows=5_000_000)
def gather_runs(values, run_starts, offsets) -> np.ndarray:
    """The values in group order when each group's rows are one run starting at ``run_starts``.

    Parameters
    ----------
    values : numpy.ndarray
        One value per row.
    run_starts : numpy.ndarray of int64
        The first row of each group.
    offsets : numpy.ndarray of int64
        CSR offsets of the groups.

    Returns
    -------
    numpy.ndarray
        The values in group order.

    Notes
    -----
    A gather of contiguous runs: no formula.
    """
    out = np.empty(offsets[-1], dtype=values.dtype)
    for g in prange(offsets.shape[0] - 1):
        start = run_starts[g]
        for j in range(offsets[g], offsets[g + 1]):
            out[j] = values[start + j - offsets[g]]
    return out


@njit(cache=True)
def take_segments(grouped, offsets, take, drop_nan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The segments ``take[i]`` of a CSR batch (``-1``: an empty segment).

    With `drop_nan`, NaN values are left out and counted. Returns the new values and offsets,
    and the number of NaN dropped from each segment (zeros without `drop_nan`).

    Parameters
    ----------
    grouped : numpy.ndarray
        float64 values of the CSR batch.
    offsets : numpy.ndarray of int64
        Its offsets.
    take : numpy.ndarray of int64
        The segment to take for each output segment (-1: empty).
    drop_nan : bool
        Leave NaN values out (and count them).

    Returns
    -------
    values : numpy.ndarray
        The taken values.
    offsets : numpy.ndarray of int64
        Their CSR offsets.
    n_dropped : numpy.ndarray of int64
        NaN values dropped per output segment.

    Notes
    -----
    CSR slicing: no formula.
    """
    n_out = take.shape[0]
    new_offsets = np.zeros(n_out + 1, dtype=np.int64)
    n_dropped = np.zeros(n_out, dtype=np.int64)
    for i in range(n_out):
        g = take[i]
        kept = 0
        if g >= 0:
            for j in range(offsets[g], offsets[g + 1]):
                if not drop_nan or grouped[j] == grouped[j]:
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
                if not drop_nan or v == v:
                    values[k] = v
                    k += 1
    return values, new_offsets, n_dropped


@njit(cache=True)
def take_unit_runs(values, unit_starts, unit_offsets, group_units, group_counts,
                   take) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`take_segments` (NaN left out and counted) of groups made of units, each unit one run of
    `values`, whose non-NaN values are counted already.

    Group ``g`` is its units ``group_units[g]:group_units[g + 1]`` one after the other; unit
    ``u`` is ``values[unit_starts[u]:unit_starts[u] + unit_offsets[u + 1] - unit_offsets[u]]``.

    Parameters
    ----------
    values : numpy.ndarray
        float64 values (a table's column, say; NaN: missing).
    unit_starts : numpy.ndarray of int64
        The first value of each unit.
    unit_offsets : numpy.ndarray of int64
        CSR offsets of the units' sizes.
    group_units : numpy.ndarray of int64
        CSR offsets of the groups into the units.
    group_counts : numpy.ndarray of int64
        The non-NaN values of each group.
    take : numpy.ndarray of int64
        The group to take for each output segment (-1: empty).

    Returns
    -------
    values : numpy.ndarray
        The taken values.
    offsets : numpy.ndarray of int64
        Their CSR offsets.
    n_dropped : numpy.ndarray of int64
        NaN values dropped per output segment.

    Notes
    -----
    CSR slicing, in one pass over the values taken: no formula.
    """
    n_out = take.shape[0]
    new_offsets = np.zeros(n_out + 1, dtype=np.int64)
    n_dropped = np.zeros(n_out, dtype=np.int64)
    for i in range(n_out):
        g = take[i]
        kept = 0
        if g >= 0:
            kept = group_counts[g]
            n_dropped[i] = unit_offsets[group_units[g + 1]] - unit_offsets[group_units[g]] - kept
        new_offsets[i + 1] = new_offsets[i] + kept
    out = np.empty(new_offsets[n_out], dtype=values.dtype)
    for i in range(n_out):
        g = take[i]
        if g >= 0:
            k = new_offsets[i]
            every = n_dropped[i] == 0
            for u in range(group_units[g], group_units[g + 1]):
                start = unit_starts[u]
                for j in range(start, start + unit_offsets[u + 1] - unit_offsets[u]):
                    v = values[j]
                    if every or v == v:
                        out[k] = v
                        k += 1
    return out, new_offsets, n_dropped


@njit(cache=True)
def pair_by_run(x_values, x_runs, x_offsets, y_values, y_runs, y_offsets) -> tuple[np.ndarray,
                np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Match the runs of two CSR batches segment by segment: the pairs (x, y) with equal run.

    Each segment's runs are sorted (a copy) and merge-joined. A run present on one side only,
    or a pair with a NaN on either side, is dropped and counted.

    Returns the paired x and y values (sharing the returned offsets), the number of unmatched
    runs per segment (both sides), the number of pairs dropped for NaN, and for each segment
    the number of runs that occur more than once on one side (pairing is then ambiguous; those
    runs are dropped too).

    Parameters
    ----------
    x_values, y_values : numpy.ndarray
        float64 values of the two batches.
    x_runs, y_runs : numpy.ndarray of int64
        The run code of each value.
    x_offsets, y_offsets : numpy.ndarray of int64
        The batches' CSR offsets (the same number of segments).

    Returns
    -------
    x, y : numpy.ndarray
        The paired values.
    offsets : numpy.ndarray of int64
        Their shared CSR offsets.
    n_unmatched, n_nan, n_duplicated : numpy.ndarray of int64
        Per segment: runs on one side only, pairs dropped for NaN, runs repeated on one side.

    Notes
    -----
    A sort-merge join on the run codes: no formula.
    """
    n_segments = x_offsets.shape[0] - 1
    offsets = np.zeros(n_segments + 1, dtype=np.int64)
    unmatched = np.zeros(n_segments, dtype=np.int64)
    nan_pairs = np.zeros(n_segments, dtype=np.int64)
    duplicated = np.zeros(n_segments, dtype=np.int64)
    capacity = 0
    for s in range(n_segments):
        capacity += min(x_offsets[s + 1] - x_offsets[s], y_offsets[s + 1] - y_offsets[s])
    out_x = np.empty(capacity, dtype=np.float64)
    out_y = np.empty(capacity, dtype=np.float64)
    k = 0
    for s in range(n_segments):
        xo, xe, yo, ye = x_offsets[s], x_offsets[s + 1], y_offsets[s], y_offsets[s + 1]
        xi = xo + np.argsort(x_runs[xo:xe], kind="mergesort")
        yi = yo + np.argsort(y_runs[yo:ye], kind="mergesort")
        a, b = 0, 0
        na, nb = xe - xo, ye - yo
        while a < na or b < nb:
            ra = x_runs[xi[a]] if a < na else np.iinfo(np.int64).max
            rb = y_runs[yi[b]] if b < nb else np.iinfo(np.int64).max
            run = min(ra, rb)
            ca = 0  # how many times `run` occurs on each side
            while a + ca < na and x_runs[xi[a + ca]] == run:
                ca += 1
            cb = 0
            while b + cb < nb and y_runs[yi[b + cb]] == run:
                cb += 1
            if ca == 1 and cb == 1:
                vx, vy = x_values[xi[a]], y_values[yi[b]]
                if vx == vx and vy == vy:
                    out_x[k] = vx
                    out_y[k] = vy
                    k += 1
                else:
                    nan_pairs[s] += 1
            elif ca > 1 or cb > 1:
                duplicated[s] += 1
            else:
                unmatched[s] += 1
            a += ca
            b += cb
        offsets[s + 1] = k
    return out_x[:k].copy(), out_y[:k].copy(), offsets, unmatched, nan_pairs, duplicated


@njit(cache=True)
def segment_values(column, order, starts, offsets, position) -> tuple[np.ndarray, np.ndarray,
                   np.ndarray, bool]:
    """Segment by segment, the non-NaN entries of `column` and their rows, where each
    segment's rows are in `position` order.

    Segment ``s``'s rows are ``order[offsets[s]:offsets[s + 1]]``, or when `order` is empty
    the run ``starts[s], starts[s] + 1, ...`` of the same length.

    Parameters
    ----------
    column : numpy.ndarray of float64
        One value per table row (NaN: missing).
    order : numpy.ndarray of int64
        The rows segment by segment, or empty (the segments are runs from `starts`).
    starts : numpy.ndarray of int64
        With an empty `order`, the first row of each segment.
    offsets : numpy.ndarray of int64
        CSR offsets of the segments (length segments + 1).
    position : numpy.ndarray of float64
        Per table row, its number in measurement order (NaN: not given), or empty (not
        checked).

    Returns
    -------
    values : numpy.ndarray of float64
        The non-NaN values, segment by segment, each segment's in its rows' order.
    rows : numpy.ndarray of int64
        The row of each of `values`.
    kept : numpy.ndarray of int64
        CSR offsets of the segments into `values`.
    in_order : bool
        False when some segment's rows are not in `position` order (a position below the one
        before it, a NaN before a number): `values`, `rows` and `kept` are then incomplete,
        and the caller sorts the rows first.

    Notes
    -----
    A gather with a filter and an order check, in one pass: no formula.
    """
    n_segments = offsets.shape[0] - 1
    n = offsets[n_segments]
    by_order = order.shape[0] > 0
    check = position.shape[0] > 0
    values = np.empty(n, dtype=np.float64)
    rows = np.empty(n, dtype=np.int64)
    kept = np.zeros(n_segments + 1, dtype=np.int64)
    k = 0
    for s in range(n_segments):
        low, high = offsets[s], offsets[s + 1]
        shift = 0 if by_order else starts[s] - low
        previous = 0.0
        for j in range(low, high):
            row = order[j] if by_order else shift + j
            if check:
                here = position[row]
                if j > low and not (here >= previous or here != here):
                    return values[:0], rows[:0], kept, False
                previous = here
            v = column[row]
            if v == v:
                values[k] = v
                rows[k] = row
                k += 1
        kept[s + 1] = k
    if k < n:
        return values[:k].copy(), rows[:k].copy(), kept, True
    return values, rows, kept, True
