"""Accuracy of change points against known ones: F1 with a margin, and segmentation covering.

Both as the Turing Change Point Detection Benchmark defines them (G. J. J. van den Burg and
C. K. I. Williams (2020), "An evaluation of change point detection algorithms",
arXiv:2003.06222, section 4; their code: alan-turing-institute/TCPDBench,
analysis/scripts/metrics.py, whose doctest values tests/test_changepoint_metrics.py checks).

A change point is the 0-based index of the first point of a new segment (fastperf's
``position``). Point 0 always starts a segment: both metrics count it as a change point of every
annotation and of the prediction, so a series without changes, found without changes, scores 1.

- **F1** (``f_measure``): a predicted point is a true positive of an annotation when it lies
  within `margin` points of one of its points, each point matched at most once (``true_positives``:
  each annotated point, in turn, takes the closest unmatched prediction within the margin).
  Precision = |TP(union of the annotations, X)| / |X|; recall = the mean over the annotators of
  |TP(T_k, X)| / |T_k|; F1 = their harmonic mean. The sets are built, and iterated, as the
  reference builds them, so that its greedy matching visits the points in the same order.
- **Covering** (``covering``): the segments of an annotation S, each weighted by its length,
  matched to the predicted segment S' of largest Jaccard index |R n R'| / |R u R'|; C(S', S) =
  sum |R| max J(R, R') / T, averaged over the annotators (Arbelaez et al. 2011, eq. 8). Segments
  are index intervals here, so the Jaccard index comes from their ends (the reference builds
  sets of indices: the same numbers, faster).

Plain Python: the simulation scores a few thousand series.
"""
from __future__ import annotations

from typing import Iterable, Mapping

MARGIN = 5


def true_positives(truth: Iterable[int], predictions: Iterable[int], margin: int = MARGIN) -> set:
    """The annotated points matched by a prediction within `margin`, no prediction used twice.

    Parameters
    ----------
    truth : iterable of int
        Annotated change points (a set: the reference iterates it in set order).
    predictions : iterable of int
        Predicted change points.
    margin : int
        The largest distance at which a prediction matches an annotated point.

    Returns
    -------
    set of int
        The annotated points matched.
    """
    unused = set(list(predictions))
    matched = set()
    for point in truth:
        close = sorted((abs(point - x), x) for x in unused if abs(point - x) <= margin)
        if close:
            matched.add(point)
            unused.remove(close[0][1])
    return matched


def f_measure(annotations: Mapping[object, Iterable[int]], predictions: Iterable[int],
              margin: int = MARGIN, beta_weight: float = 0.5) -> tuple[float, float, float]:
    """F-measure, precision and recall of predicted change points against the annotations.

    Parameters
    ----------
    annotations : mapping annotator -> iterable of int
        Each annotator's change points (one annotator: the simulated truth).
    predictions : iterable of int
        The predicted change points.
    margin : int
        Matching margin in points (5 in the benchmark).
    beta_weight : float
        The reference's ``alpha``: F = P R / (w R + (1 - w) P); 0.5 gives F1.

    Returns
    -------
    (float, float, float)
        F, precision, recall.
    """
    annotated = {k + 1: set(annotations[key]) for k, key in enumerate(annotations)}
    for points in annotated.values():
        points.add(0)
    predicted = set(predictions)
    predicted.add(0)
    union = set()
    for points in annotated.values():
        for point in points:
            union.add(point)
    precision = len(true_positives(union, predicted, margin)) / len(predicted)
    recall = (1 / len(annotated)) * sum(
        len(true_positives(points, predicted, margin)) / len(points)
        for points in annotated.values())
    f = precision * recall / (beta_weight * recall + (1 - beta_weight) * precision)
    return f, precision, recall


def segments(change_points: Iterable[int], n_points: int) -> list[tuple[int, int]]:
    """The segments [start, end) of 0 .. n_points - 1 cut at the change points (0 and points
    outside (0, n_points) cut nothing; repeats count once).

    Parameters
    ----------
    change_points : iterable of int
        First indices of new segments.
    n_points : int
        Length of the series.

    Returns
    -------
    list of (int, int)
        Half-open index intervals, in order, covering the series.
    """
    cuts = sorted({int(c) for c in change_points if 0 < c < n_points})
    bounds = [0, *cuts, n_points]
    return list(zip(bounds[:-1], bounds[1:]))


def jaccard(a: tuple[int, int], b: tuple[int, int]) -> float:
    """|A n B| / |A u B| of two index intervals [start, end).

    Parameters
    ----------
    a, b : (int, int)
        Half-open intervals.

    Returns
    -------
    float
    """
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    return inter / ((a[1] - a[0]) + (b[1] - b[0]) - inter)


def cover_single(predicted: list[tuple[int, int]], annotated: list[tuple[int, int]]) -> float:
    """Covering of the segmentation `annotated` by `predicted` (Arbelaez et al. 2011, eq. 8).

    Parameters
    ----------
    predicted, annotated : list of (int, int)
        Segmentations of one series, as `segments` returns them.

    Returns
    -------
    float
    """
    total = sum(end - start for start, end in predicted)
    if total != sum(end - start for start, end in annotated):
        raise ValueError("the two segmentations cover series of different lengths")
    c = 0.0
    for region in annotated:
        c += (region[1] - region[0]) * max(jaccard(region, other) for other in predicted)
    return c / total


def covering(annotations: Mapping[object, Iterable[int]], predictions: Iterable[int],
             n_points: int) -> float:
    """Segmentation covering of the predictions, averaged over the annotators.

    Parameters
    ----------
    annotations : mapping annotator -> iterable of int
        Each annotator's change points.
    predictions : iterable of int
        The predicted change points.
    n_points : int
        Length of the series.

    Returns
    -------
    float
    """
    predicted = segments(predictions, n_points)
    scores = [cover_single(predicted, segments(points, n_points))
              for points in annotations.values()]
    return sum(scores) / len(scores)
