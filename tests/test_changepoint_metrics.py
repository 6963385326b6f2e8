"""The accuracy metrics of the change-point validation (bench/validity/changepoint_metrics.py).

Oracles: the doctest values of the Turing Change Point Detection Benchmark's own metrics module
(alan-turing-institute/TCPDBench, analysis/scripts/metrics.py: van den Burg and Williams 2020,
arXiv:2003.06222), quoted here, and small cases worked out by hand in the comments.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

# bench/validity is not a package (pytest puts it on sys.path only when it runs that folder):
# load the module from its file.
_SPEC = importlib.util.spec_from_file_location(
    "changepoint_metrics",
    Path(__file__).resolve().parents[1] / "bench" / "validity" / "changepoint_metrics.py")
metrics = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(metrics)


@pytest.mark.parametrize("truth, predictions, expected", [
    ({1, 10, 20, 23}, {3, 8, 20}, {1, 10, 20}),
    ({1, 10, 20, 23}, {1, 3, 8, 20}, {1, 10, 20}),
    ({1, 10, 20, 23}, {1, 3, 5, 8, 20}, {1, 10, 20}),
    (set(), {1, 2, 3}, set()),
    ({1, 2, 3}, set(), set()),
])
def test_true_positives_reference_examples(truth, predictions, expected):
    assert metrics.true_positives(truth, predictions) == expected


def test_true_positives_never_reuse_a_prediction():
    # one prediction (12) between two annotated points 10 and 14: only one of them is matched
    assert len(metrics.true_positives({10, 14}, {12})) == 1
    # the margin is inclusive: 5 away matches, 6 away does not
    assert metrics.true_positives({10}, {15}) == {10}
    assert metrics.true_positives({10}, {16}) == set()
    assert metrics.true_positives({10}, {16}, margin=6) == {10}


@pytest.mark.parametrize("annotations, predictions, expected", [
    ({1: [10, 20], 2: [11, 20], 3: [10], 4: [0, 5]}, [10, 20], 1.0),
    ({1: [], 2: [10], 3: [50]}, [10], 0.9090909090909091),
    ({1: [], 2: [10], 3: [50]}, [], 0.8),
])
def test_f_measure_reference_examples(annotations, predictions, expected):
    f, _, _ = metrics.f_measure(annotations, predictions)
    assert f == pytest.approx(expected, rel=1e-15)


def test_f_measure_by_hand():
    # truth {0, 100, 200}, predictions {0, 98, 150, 203}: 0, 100 (by 98) and 200 (by 203) are
    # matched; precision 3/4 (150 is false), recall 3/3, F1 = 2 * 0.75 * 1 / 1.75 = 6/7
    f, precision, recall = metrics.f_measure({"truth": [100, 200]}, [98, 150, 203])
    assert (precision, recall) == (0.75, 1.0)
    assert f == pytest.approx(6 / 7, rel=1e-15)
    # nothing predicted: precision 1/1 (point 0), recall 1/3, F1 = 2 (1/3) / (4/3) = 1/2
    assert metrics.f_measure({"truth": [100, 200]}, []) == pytest.approx((0.5, 1.0, 1 / 3))
    # a stationary series: no change found scores 1, one false change P = 1/2, F1 = 2/3
    assert metrics.f_measure({"truth": []}, []) == (1.0, 1.0, 1.0)
    assert metrics.f_measure({"truth": []}, [40]) == pytest.approx((2 / 3, 0.5, 1.0))


@pytest.mark.parametrize("locations, n, expected", [
    ([], 5, [{0, 1, 2, 3, 4}]),
    ([3, 5], 8, [{0, 1, 2}, {3, 4}, {5, 6, 7}]),
    ([1, 2, 7], 8, [{0}, {1}, {2, 3, 4, 5, 6}, {7}]),
    ([0, 4], 6, [{0, 1, 2, 3}, {4, 5}]),
])
def test_segments_as_the_reference_partition(locations, n, expected):
    assert [set(range(a, b)) for a, b in metrics.segments(locations, n)] == expected


@pytest.mark.parametrize("a, b, expected", [
    ((1, 4), (2, 3), 1 / 3),   # {1, 2, 3} and {2}: 1 in common of 3
    ((1, 4), (1, 4), 1.0),
    ((0, 3), (3, 6), 0.0),
    ((0, 10), (5, 15), 5 / 15),
])
def test_jaccard_of_intervals(a, b, expected):
    assert metrics.jaccard(a, b) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("predicted, annotated, expected", [
    # the reference's examples, its sets {1, 2, 3} written as the intervals [1, 4)
    ([(1, 4), (4, 6), (6, 7)], [(1, 4), (4, 7)], 0.8333333333333334),
    ([(1, 5), (5, 7)], [(1, 7)], 0.6666666666666666),
    ([(1, 3), (3, 5), (5, 7)], [(1, 4), (4, 7)], 0.6666666666666666),
    ([(1, 7)], [(1, 2), (2, 3), (3, 4), (4, 7)], 0.3333333333333333),
])
def test_cover_single_reference_examples(predicted, annotated, expected):
    assert metrics.cover_single(predicted, annotated) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("annotations, predictions, n, expected", [
    ({1: [10, 20], 2: [10], 3: [0, 5]}, [10, 20], 45, 0.7962962962962963),
    ({1: [], 2: [10], 3: [40]}, [10], 45, 0.7954144620811286),
    ({1: [], 2: [10], 3: [40]}, [], 45, 0.8189300411522634),
])
def test_covering_reference_examples(annotations, predictions, n, expected):
    assert metrics.covering(annotations, predictions, n) == pytest.approx(expected, rel=1e-15)


def test_covering_by_hand():
    # truth: [0, 50) [50, 100); found: [0, 40) [40, 100). Segment [0, 50) best matches [0, 40)
    # (40/50), [50, 100) best matches [40, 100) (50/60): (50 * 0.8 + 50 * 5/6) / 100
    assert metrics.covering({"truth": [50]}, [40], 100) == pytest.approx(
        (50 * 0.8 + 50 * 5 / 6) / 100, rel=1e-15)
    assert metrics.covering({"truth": [50]}, [50], 100) == 1.0
    assert metrics.covering({"truth": []}, [], 100) == 1.0
    # nothing found on a step at 50: the one found segment covers each true half by 1/2
    assert metrics.covering({"truth": [50]}, [], 100) == 0.5


def test_cover_single_refuses_different_lengths():
    with pytest.raises(ValueError, match="different lengths"):
        metrics.cover_single([(0, 5)], [(0, 6)])
