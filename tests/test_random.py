"""The counter-based generator: determinism, independence of streams, uniformity."""
import numpy as np
import scipy.stats as sps
from numba import njit

from fastperf.kernels.random import fill_indices, integer_below, stream_key, uniform


@njit
def draw(seed, group, resample, count):
    key = stream_key(seed, group, resample)
    out = np.empty(count)
    for i in range(count):
        out[i] = uniform(key, i)
    return out


@njit
def draw_integers(seed, n, count):
    key = stream_key(seed, 0, 0)
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = integer_below(key, i, n)
    return out


def test_same_inputs_same_numbers_and_streams_differ():
    a = draw(7, 3, 11, 1000)
    assert np.array_equal(a, draw(7, 3, 11, 1000))
    for other in (draw(8, 3, 11, 1000), draw(7, 4, 11, 1000), draw(7, 3, 12, 1000)):
        assert not np.array_equal(a, other)
        assert abs(np.corrcoef(a, other)[0, 1]) < 0.1
    assert ((a >= 0) & (a < 1)).all()


def test_uniformity():
    u = draw(1, 0, 0, 200_000)
    assert sps.kstest(u, "uniform").pvalue > 1e-4
    counts = np.bincount(draw_integers(2, 7, 70_000), minlength=7)
    assert counts.size == 7 and sps.chisquare(counts).pvalue > 1e-4


@njit
def filled(seed, n, count):
    out = np.empty(count, dtype=np.int64)
    next_counter = fill_indices(stream_key(seed, 0, 0), 5, n, out)
    return out, next_counter


def test_fill_indices_two_per_draw_uniform_and_in_range():
    idx, next_counter = filled(3, 31, 62_001)
    assert next_counter == 5 + 31_001  # two indices per 64-bit draw
    assert idx.min() >= 0 and idx.max() < 31
    assert sps.chisquare(np.bincount(idx, minlength=31)).pvalue > 1e-4
    again, _ = filled(3, 31, 62_001)
    assert np.array_equal(idx, again)
