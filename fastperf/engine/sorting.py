"""Sorting batches of samples (CSR segments): each sample ascending, NaN last.

Numpy's sort of rows for rectangular batches; padded width classes for ragged ones
(`sorted_slices`), on threads for large batches. Used by the rank tests, the Hodges-Lehmann
effects, the run diagnostics, resampling and the change points' segments. Sorting only: no
formula.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.kernels.builds import WORKERS, thread_count

__all__ = ["PADDED_SORT_MAX_WIDTH", "THREADED_SORT_MIN_VALUES", "already_sorted",
           "is_rectangular", "sort_rows", "sort_sample_batches", "sort_sample_pairs",
           "sort_samples", "sorted_slices", "sorted_values"]


def sort_samples(samples: Samples, in_place: bool = False) -> Samples:
    """Each sample sorted ascending, NaN last (the samples themselves where they already are):
    `sorted_values`.

    Parameters
    ----------
    samples : Samples
        The batch.
    in_place : bool
        Whether the caller owns the values (see `sorted_values`).

    Returns
    -------
    Samples
    """
    if len(samples) == 0 or already_sorted(samples):
        return samples
    return sorted_values(samples, in_place)


def sorted_values(samples: Samples, in_place: bool = False) -> Samples:
    """Each sample sorted ascending, NaN last: numpy's sort of a rectangular batch (and so of a
    single big sample), `sorted_slices` of a ragged one.

    Parameters
    ----------
    samples : Samples
        The batch.
    in_place : bool
        The caller owns the values (e.g. differences it computed): a rectangular batch whose
        values are contiguous and writeable is sorted where it lies, without a copy.

    Returns
    -------
    Samples
        The sorted batch (its values a new array unless sorted in place).

    Notes
    -----
    Sorting only: no formula.
    """
    return sort_sample_batches([samples], in_place, check_sorted=False)[0]


def sort_sample_batches(batches: Sequence[Samples], in_place: bool = False,
                        check_sorted: bool = True) -> list[Samples]:
    """`sort_samples` of several batches, the rows of the rectangular ones (and so each single
    big sample) in one `sort_rows` call: the two variants' samples of one large benchmark sort
    at once, on two threads, rather than one after the other.

    Parameters
    ----------
    batches : sequence of Samples
        The batches.
    in_place : bool
        Whether the caller owns their values (see `sorted_values`); a batch whose values may
        share memory with an earlier one's is copied (their rows sort at once).
    check_sorted : bool
        Whether a batch that already ascends is returned as it is (`already_sorted`).

    Returns
    -------
    list of Samples
        Each batch sorted, in order.

    Notes
    -----
    Sorting only: no formula. The same sorts of the same rows as one batch at a time. The
    sorted copies of the rectangular batches share one buffer: numpy asks the system for huge
    pages for an allocation of 4 MiB or more, so one buffer takes far fewer page faults than
    several of part of the size (10,000 rows of 30 vs 30: 2.0 vs 2.6 ms in a fresh process).
    """
    results: list = []
    rows: dict[int, np.ndarray] = {}  # the rectangular batches' rows, sorted in place
    copies = []
    for k, samples in enumerate(batches):
        if len(samples) == 0 or check_sorted and already_sorted(samples):
            results.append(samples)
        elif not is_rectangular(samples):
            results.append(sorted_slices(samples.values, samples.offsets[:-1],
                                         samples.offsets[1:]))
        elif (in_place and samples.values.flags.c_contiguous and samples.values.flags.writeable
              and not any(np.may_share_memory(samples.values, r) for r in rows.values())):
            results.append(samples)
            rows[k] = samples.values.reshape(len(samples), samples.values.shape[0] // len(samples))
        else:
            results.append(None)
            copies.append(k)
    if copies:
        buffer = np.concatenate([batches[k].values for k in copies])
        bounds = np.cumsum([0] + [batches[k].values.shape[0] for k in copies])
        for k, start, end in zip(copies, bounds[:-1], bounds[1:]):
            results[k] = Samples(buffer[start:end], batches[k].offsets)
            rows[k] = results[k].values.reshape(len(batches[k]), (end - start) // len(batches[k]))
    if rows:
        sort_rows(*(rows[k] for k in sorted(rows)))
    return results


def sort_rows(*blocks: np.ndarray) -> None:
    """Sort each row of each 2-d array in `blocks` ascending in place (NaN last): numpy's sort,
    from `THREADED_SORT_MIN_VALUES` values in all on threads
    (`fastperf.kernels.builds.thread_count`), each block cut into parts of rows of at least
    half as many values (a block of one row, a single big sample, is one part: two samples
    then sort at once).

    Parameters
    ----------
    *blocks : numpy.ndarray
        Writeable 2-d arrays of float64 that share no memory (their parts are sorted at
        once).

    Notes
    -----
    Sorting only: no formula. The parts are the same sorts of the same rows whatever the
    thread count (numpy sorts without the GIL; the parts are disjoint).
    """
    threads = sort_threads(sum(block.size for block in blocks))
    tasks = []
    for block in blocks:
        parts = min(sort_parts(block.size, threads), max(block.shape[0], 1))
        tasks += [functools.partial(part.sort, axis=1) for part in np.array_split(block, parts)]
    WORKERS.run(tasks, threads)


def sort_threads(values: int) -> int:
    """The threads a batch of `values` values is sorted on: `thread_count` from
    `THREADED_SORT_MIN_VALUES` values, else 1."""
    return thread_count() if values >= THREADED_SORT_MIN_VALUES else 1


def sort_parts(values: int, threads: int) -> int:
    """The parts `values` values are sorted in on `threads` threads: one per thread, each of at
    least half of `THREADED_SORT_MIN_VALUES` values, at least one."""
    return min(threads, max(1, values // (THREADED_SORT_MIN_VALUES // 2)))


#: `sorted_slices` pads slices up to this many values into width classes; longer ones are
#: sorted one by one (few, and padding them would take several times their memory).
PADDED_SORT_MAX_WIDTH = 1 << 16


#: From this many values `sorted_slices` sorts its width classes on threads
#: (`fastperf.kernels.builds.thread_count`), in parts of at least half as many.
THREADED_SORT_MIN_VALUES = 200_000


def sorted_slices(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Samples:
    """The slices ``values[starts[i]:ends[i]]``, each sorted ascending with NaN last, as one
    batch of samples (new CSR offsets from 0).

    Parameters
    ----------
    values : numpy.ndarray
        The values the slices index.
    starts, ends : numpy.ndarray of int64
        Each slice's bounds (any order; slices may overlap).

    Returns
    -------
    Samples
        float64 values, slice after slice.

    Notes
    -----
    Sorting only: no formula. Numpy's vectorised sort of rows padded with NaN (which sorts
    last, so a row's first ``size`` values are its slice's sorted values, its own NaN last), the
    slices grouped by width, the power of two at or above their size: one sort per width, not
    per slice, and the padding at most doubles the values sorted. Many small ragged samples
    (the segments of many histories, benchmarks with different run counts) sort 2.5x faster
    than one by one. Slices longer than `PADDED_SORT_MAX_WIDTH` are sorted one by one. From
    `THREADED_SORT_MIN_VALUES` values, each width class is cut into parts of rows sorted on
    threads (the same sorts of the same rows: the result does not depend on the thread count).
    """
    sizes = (ends - starts).astype(np.int64)
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = np.empty(offsets[-1])
    if out.shape[0] == 0:
        return Samples(out, offsets)
    _, exponent = np.frexp(np.maximum(sizes - 1, 0).astype(np.float64))
    width = np.left_shift(np.int64(1), exponent.astype(np.int64))  # 2 ** ceil(log2(size))
    long = width > PADDED_SORT_MAX_WIDTH
    for i in np.flatnonzero(long):  # few: each holds over 32,768 values
        out[offsets[i]:offsets[i + 1]] = np.sort(values[starts[i]:ends[i]])

    def sort_width_class(rows, w):
        column = np.arange(w)
        inside = column < sizes[rows, None]
        block = values[np.minimum(starts[rows, None] + column, values.shape[0] - 1)]
        block[~inside] = np.nan
        block.sort(axis=1)
        out[(offsets[rows, None] + column)[inside]] = block[inside]

    # at most 17 widths, whatever the number of slices; a large width class in parts, on
    # threads (numpy sorts without the GIL; the parts write disjoint values of `out`)
    threads = sort_threads(out.shape[0])
    tasks = []
    for w in np.unique(width[~long]):
        rows = np.flatnonzero((width == w) & ~long)
        tasks += [functools.partial(sort_width_class, part, int(w))
                  for part in np.array_split(rows, sort_parts(rows.shape[0] * int(w), threads))]
    WORKERS.run(tasks, threads)
    return Samples(out, offsets)


def sort_sample_pairs(xs: Samples, ys: Samples) -> tuple[Samples, Samples]:
    """`sort_sample_batches` of two batches (their sorted copies in one buffer where both are
    rectangular).

    Parameters
    ----------
    xs, ys : Samples
        The two batches.

    Returns
    -------
    (Samples, Samples)
    """
    sorted_xs, sorted_ys = sort_sample_batches([xs, ys])
    return sorted_xs, sorted_ys


def is_rectangular(samples: Samples) -> bool:
    """Whether the samples have one size and fill their values (numpy's sort of rows)."""
    sizes = samples.sizes
    return (len(samples) > 0 and samples.offsets[0] == 0
            and samples.offsets[-1] == samples.values.shape[0] and bool((sizes == sizes[0]).all()))


def already_sorted(samples: Samples) -> bool:
    """Whether each sample already ascends without NaN between values (one vector pass; the
    first values of the first sample first, then that sample, which settle unsorted batches at
    once)."""
    values = samples.values
    first = values[samples.offsets[0]:samples.offsets[1]] if len(samples) else values[:0]
    head = first[:64]
    if not (head[1:] >= head[:-1]).all() or not (first[1:] >= first[:-1]).all():
        return False
    step_ok = values[1:] >= values[:-1]
    inner = samples.offsets[1:-1]
    step_ok[inner[(inner > 0) & (inner < values.shape[0])] - 1] = True  # steps across samples
    return bool(step_ok.all())
