"""Accuracy of `fastperf.changepoints` on simulated performance histories with known changes.

The tables of docs/changepoints.md ("How the default was validated") come from this script::

    python bench/validity/changepoint_accuracy.py            # the published run (minutes)
    python bench/validity/changepoint_accuracy.py --quick    # fewer series (what the test runs)

bench/validity/test_changepoint_accuracy.py runs the quick sizes and asserts the goals of
issue 41 on them.

Design. Each scenario draws many histories of 200-500 points (uniform) with noise of sigma 1%
from `fastperf.simulate` (the runs of one variant of one benchmark are a history's runs, in
order), times a known level on the log scale:

- ``clean_steps``: 1-3 steps, each up or down by 2-20% (uniform), log-normal noise;
- ``drift``: one gradual change of 5-20% (up or down) spread linearly over 50-150 points, then
  flat; its truth is two change points: the drift's first point and the first point after it
  (the boundaries of the three segments before / during / after);
- ``outliers``: as clean_steps, with heavy-tailed noise (the ``heavy_tail`` shape) and spikes:
  2% of the runs slower by 10% x a Pareto(2) factor (>= 10%, sometimes several times);
- ``quantised``: as clean_steps with the ``quantised`` shape (values rounded to multiples of
  1% of the level: a coarse timer, few distinct values, many ties);
- ``multi_run``: as clean_steps, with 3-5 runs per commit (the order column repeated);
- ``stationary``: no change; each series' noise shape drawn from the four of `fastperf.simulate`
  (log-normal, bimodal, heavy tail, quantised);
- ``mixed``: 1-2 steps and, in half the series, a drift; the shape drawn from the four, 1% of
  the runs spiked, 1-3 runs per commit.

Every boundary (step, drift start or end, series end) is at least 30 points from the next.

Methods: fastperf's default (``pelt``), ``edivisive`` and ``ttest`` at their defaults, one
batched call per scenario; and the two anchors, one series at a time on the per-commit medians
(fastperf's points): MongoDB's E-Divisive ``e_divisive(series, pvalue=0.01,
permutations=199)`` (its global random state seeded) and Apache Otava's
``compute_change_points(list, window_len=50, max_pvalue=0.001)``, called as
tests/test_changepoints_anchors.py calls them. The anchors are slower, so they are run on the
first `anchor_series` histories of a scenario (and skipped, with a note, when not installed).

Metrics (changepoint_metrics.py, as the TCPD benchmark defines them): per series precision,
recall and F1 with a margin of 5 points, and segmentation covering, then averaged over the series
with their standard errors. A drift row of fastperf (``kind == "drift"``, from ``position`` to
``end_position``) counts as the two change points ``position`` and ``end_position + 1``, as the
truth of a drift does. For the default also: drift rows per series, the share of true drifts
*found* as a drift row (one overlapping it: Jaccard index of the two intervals >= 0.5) and
*located* (its start and its end + 1 both within the margin of the truth's), and the share of
the series without a drift that get a (false) drift row.
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa

import fastperf
from changepoint_metrics import MARGIN, covering, f_measure, jaccard

SIGMA = 0.01
POINTS = (200, 500)
MIN_GAP = 30
SHAPES = ("lognormal", "bimodal", "heavy_tail", "quantised")
DEFAULT = "pelt"
METHODS = (DEFAULT, "edivisive", "ttest")
ANCHORS = ("MongoDB e_divisive", "Otava")
ALPHA_EDIVISIVE, PERMUTATIONS, ANCHOR_SEED = 0.01, 199, 0
ALPHA_TTEST, OTAVA_WINDOW = 0.001, 50


@dataclass(frozen=True)
class Scenario:
    """How the histories of one scenario are drawn (see the module docstring)."""

    steps: tuple[int, int] = (0, 0)            # how many steps: uniform in [low, high]
    step_size: tuple[float, float] = (0.02, 0.20)
    drift_probability: float = 0.0
    drift_size: tuple[float, float] = (0.05, 0.20)
    drift_length: tuple[int, int] = (50, 150)
    shapes: tuple[str, ...] = ("lognormal",)
    spikes: float = 0.0                        # share of runs spiked
    runs: tuple[int, int] = (1, 1)             # runs per commit: uniform in [low, high]


SCENARIOS = {
    "clean_steps": Scenario(steps=(1, 3)),
    "drift": Scenario(drift_probability=1.0),
    "outliers": Scenario(steps=(1, 3), shapes=("heavy_tail",), spikes=0.02),
    "quantised": Scenario(steps=(1, 3), shapes=("quantised",)),
    "multi_run": Scenario(steps=(1, 3), runs=(3, 5)),
    "stationary": Scenario(shapes=SHAPES),
    "mixed": Scenario(steps=(1, 2), drift_probability=0.5, shapes=SHAPES, spikes=0.01,
                      runs=(1, 3)),
}


@dataclass(repr=False)  # a test's failure report shows the fixture: not its whole table
class Histories:
    """The histories of one scenario: the table fastperf reads and what the anchors read."""

    table: pa.Table                  # benchmark, commit, value (rows by series, commit)
    names: list[str]
    points: list[np.ndarray]         # per series: the per-commit medians (the anchors' input)
    truth: list[list[int]]           # per series: the true change points
    drifts: list[tuple[int, int]]    # per series: (first drift point, first after) or (-1, -1)


def layout(rng: np.random.Generator, n: int, scenario: Scenario):
    """Step positions and the drift (start, end exclusive) of one series, boundaries >= MIN_GAP
    apart and no step inside the drift (redrawn until so)."""
    while True:
        bounds = [0, n]
        drift = (-1, -1)
        if rng.random() < scenario.drift_probability:
            longest = min(scenario.drift_length[1], n - 2 * MIN_GAP)
            length = int(rng.integers(scenario.drift_length[0], longest + 1))
            start = int(rng.integers(MIN_GAP, n - MIN_GAP - length + 1))
            drift = (start, start + length)
            bounds += list(drift)
        steps = [int(p) for p in rng.integers(MIN_GAP, n - MIN_GAP + 1,
                                              rng.integers(scenario.steps[0],
                                                           scenario.steps[1] + 1))]
        inside = any(drift[0] < p < drift[1] for p in steps)
        if not inside and np.diff(np.sort(np.array(bounds + steps))).min() >= MIN_GAP:
            return sorted(steps), drift


def log_level(rng: np.random.Generator, n: int, steps: list[int], drift: tuple[int, int],
              scenario: Scenario) -> np.ndarray:
    """The true level of each point on the log scale (1.0 at the start)."""
    level = np.zeros(n)
    for position in steps:
        level[position:] += math.log1p(rng.uniform(*scenario.step_size) * rng.choice([-1, 1]))
    if drift[0] >= 0:
        start, end = drift
        total = math.log1p(rng.uniform(*scenario.drift_size) * rng.choice([-1, 1]))
        # linear from the level before (point start - 1) to the full change at point end - 1
        level[start:end] += total * np.arange(1, end - start + 1) / (end - start)
        level[end:] += total
    return level


def histories(name: str, series: int, seed: int) -> Histories:
    """`series` histories of scenario `name` (deterministic in `seed`)."""
    scenario = SCENARIOS[name]
    rng = np.random.default_rng(seed)
    lengths = rng.integers(POINTS[0], POINTS[1] + 1, series)
    runs_per_point = [rng.integers(scenario.runs[0], scenario.runs[1] + 1, n) for n in lengths]
    most_runs = max(int(r.sum()) for r in runs_per_point)
    sim = fastperf.simulate(series, most_runs, variants=("main", "unused"), seed=seed + 1,
                            shapes=list(scenario.shapes), sigma=(SIGMA, SIGMA),
                            base=(1.0, 1.0), unit=None)
    # the rows come by variant, then benchmark, then run: the first block is "main"
    noise = sim.table.column("value").to_numpy()[:series * most_runs].reshape(series, most_runs)
    names, commits, values, points, truth, drifts = [], [], [], [], [], []
    for i, n in enumerate(lengths):
        steps, drift = layout(rng, int(n), scenario)
        level = log_level(rng, int(n), steps, drift, scenario)
        commit = np.repeat(np.arange(n, dtype=np.int64), runs_per_point[i])
        value = np.exp(level[commit]) * noise[i, :commit.size]
        spiked = rng.random(commit.size) < scenario.spikes
        value[spiked] *= 1.0 + 0.1 * (1.0 + rng.pareto(2.0, int(spiked.sum())))
        names.append(f"{name}_{i:04d}")
        commits.append(commit)
        values.append(value)
        offsets = np.concatenate(([0], np.cumsum(runs_per_point[i])))
        points.append(np.array([np.median(value[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]))
        truth.append(sorted(steps + ([] if drift[0] < 0 else list(drift))))
        drifts.append(drift)
    table = pa.table({"benchmark": np.repeat(names, [c.size for c in commits]),
                      "commit": np.concatenate(commits), "value": np.concatenate(values)})
    return Histories(table, names, points, truth, drifts)


# --------------------------------------------------------------------------------- the methods


@dataclass
class Found:
    """What a method found in each series: change points (a drift as its two boundaries) and
    fastperf's drift rows as (first drift point, first point after)."""

    change_points: list[list[int]]
    drift_rows: list[list[tuple[int, int]]]
    seconds: float


def run_fastperf(data: Histories, method: str) -> Found:
    start = time.perf_counter()
    result = fastperf.changepoints(data.table, by="benchmark", order="commit", unit=None,
                                   method=method)
    seconds = time.perf_counter() - start
    index = {name: i for i, name in enumerate(data.names)}
    change_points: list[list[int]] = [[] for _ in data.names]
    drift_rows: list[list[tuple[int, int]]] = [[] for _ in data.names]
    changes = result.changes.to_pydict()
    kinds = changes.get("kind", ["step"] * len(changes["position"]))
    ends = changes.get("end_position", [None] * len(changes["position"]))
    for name, position, kind, end in zip(changes["benchmark"], changes["position"], kinds, ends):
        i = index[name]
        change_points[i].append(int(position))
        if kind == "drift":
            change_points[i].append(int(end) + 1)
            drift_rows[i].append((int(position), int(end) + 1))
    return Found([sorted(c) for c in change_points], drift_rows, seconds)


def mongodb_positions(values: np.ndarray) -> list[int]:
    """MongoDB's E-Divisive, as tests/test_changepoints_anchors.py calls it."""
    # the anchors are optional (.ci/anchors.sh installs them): imported on use
    from signal_processing_algorithms.determinism import deterministic_numpy_random
    from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive
    with deterministic_numpy_random(ANCHOR_SEED):
        return sorted(int(p) for p in e_divisive(values, pvalue=ALPHA_EDIVISIVE,
                                                 permutations=PERMUTATIONS))


def otava_positions(values: np.ndarray) -> list[int]:
    """Otava's default method, as tests/test_changepoints_anchors.py calls it (a list: Otava
    slices its windows only out of non-ndarrays)."""
    # the anchors are optional (.ci/anchors.sh installs them): imported on use
    from otava.analysis import compute_change_points
    found, _weak = compute_change_points([float(v) for v in values], window_len=OTAVA_WINDOW,
                                         max_pvalue=ALPHA_TTEST, min_magnitude=0.0)
    return sorted(int(c.index) for c in found)


ANCHOR_FUNCTIONS: dict[str, Callable[[np.ndarray], list[int]]] = {
    "MongoDB e_divisive": mongodb_positions, "Otava": otava_positions}


def anchors_available() -> dict[str, str | None]:
    """Anchor -> None when it imports, else why not."""
    modules = {"MongoDB e_divisive": "signal_processing_algorithms.energy_statistics",
               "Otava": "otava.analysis"}
    out: dict[str, str | None] = {}
    for anchor, module in modules.items():
        try:
            __import__(module)
            out[anchor] = None
        except ImportError as error:
            out[anchor] = f"{module} not importable ({error})"
    return out


def run_anchor(data: Histories, anchor: str, count: int) -> Found:
    start = time.perf_counter()
    found = [ANCHOR_FUNCTIONS[anchor](values) for values in data.points[:count]]
    return Found(found, [[] for _ in found], time.perf_counter() - start)


# --------------------------------------------------------------------------------- the scores


def mean_and_se(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan


def per_series_scores(data: Histories, found: Found) -> dict[str, np.ndarray]:
    """Per series: F1, precision, recall (margin 5), covering, change points reported."""
    count = len(found.change_points)
    out = {key: np.empty(count) for key in ("f1", "precision", "recall", "covering", "changes")}
    for i in range(count):
        truth = {"truth": data.truth[i]}
        f, p, r = f_measure(truth, found.change_points[i], margin=MARGIN)
        out["f1"][i], out["precision"][i], out["recall"][i] = f, p, r
        out["covering"][i] = covering(truth, found.change_points[i], data.points[i].size)
        out["changes"][i] = len(found.change_points[i])
    return out


def drift_scores(data: Histories, found: Found) -> dict[str, float]:
    """Drift rows per series; the share of true drifts found as a drift row (one overlapping
    it, Jaccard index >= 0.5) and located (its start and its end + 1 both within the margin of
    the truth's); the share of series without a drift given a drift row (a false drift)."""
    rows = [len(r) for r in found.drift_rows]
    true = [i for i, d in enumerate(data.drifts) if d[0] >= 0]
    without = [i for i, d in enumerate(data.drifts) if d[0] < 0]
    overlapping = sum(any(jaccard(row, data.drifts[i]) >= 0.5 for row in found.drift_rows[i])
                      for i in true)
    located = sum(any(abs(a - data.drifts[i][0]) <= MARGIN and abs(b - data.drifts[i][1]) <= MARGIN
                      for a, b in found.drift_rows[i]) for i in true)
    return {"drift_rows": float(np.mean(rows)),
            "drifts_found": overlapping / len(true) if true else math.nan,
            "drifts_located": located / len(true) if true else math.nan,
            "false_drift_series": (sum(1 for i in without if found.drift_rows[i]) / len(without)
                                   if without else math.nan)}


@dataclass
class Cell:
    """The scores of one method on one scenario."""

    scenario: str
    method: str
    series: int
    scores: dict[str, np.ndarray]
    drift: dict[str, float]
    seconds: float

    def mean(self, key: str) -> float:
        return mean_and_se(self.scores[key])[0]

    def se(self, key: str) -> float:
        return mean_and_se(self.scores[key])[1]


def scenario_histories(series: int, scenarios=tuple(SCENARIOS), seed: int = 41
                       ) -> dict[str, Histories]:
    """`series` histories of each scenario (deterministic in `seed`)."""
    return {name: histories(name, series, seed=seed + 1000 * k)
            for k, name in enumerate(scenarios)}


def score_method(name: str, data: Histories, method: str) -> Cell:
    """fastperf's `method` on every history of scenario `name`."""
    found = run_fastperf(data, method)
    return Cell(name, method, len(data.names), per_series_scores(data, found),
                drift_scores(data, found), found.seconds)


def score_anchor(name: str, data: Histories, anchor: str, count: int) -> Cell:
    """An anchor on the first `count` histories of scenario `name`."""
    found = run_anchor(data, anchor, min(count, len(data.names)))
    return Cell(name, anchor, len(found.change_points), per_series_scores(data, found), {},
                found.seconds)


def evaluate(series: int, anchor_series: int, methods=METHODS, anchors=ANCHORS) -> list[Cell]:
    """Every (scenario, method) cell: `series` histories for fastperf's methods, the first
    `anchor_series` of them for the anchors."""
    cells = []
    for name, data in scenario_histories(series).items():
        cells += [score_method(name, data, method) for method in methods]
        cells += [score_anchor(name, data, anchor, anchor_series) for anchor in anchors]
    return cells


def paired_difference(a: Cell, b: Cell, key: str) -> tuple[float, float]:
    """Mean and standard error of a - b over the series both scored (the first ones)."""
    n = min(a.series, b.series)
    return mean_and_se(a.scores[key][:n] - b.scores[key][:n])


def markdown(cells: list[Cell]) -> list[str]:
    """The table per scenario (mean +- SE over the series)."""
    every = (*METHODS, *ANCHORS)

    def order(cell: Cell) -> int:
        return every.index(cell.method) if cell.method in every else len(every)

    lines = []
    for name in dict.fromkeys(c.scenario for c in cells):
        lines += ["", f"**{name}**", "",
                  "| method | series | precision | recall | F1 | covering | change points per series |"
                  " drift rows per series |", "|---|---|---|---|---|---|---|---|"]
        for c in sorted((c for c in cells if c.scenario == name), key=order):
            stats = " | ".join(f"{c.mean(k):.3f} ± {c.se(k):.3f}"
                               for k in ("precision", "recall", "f1", "covering"))
            drift = f"{c.drift['drift_rows']:.2f}" if c.drift else ""
            label = f"`{c.method}` (default)" if c.method == DEFAULT else (
                f"`{c.method}`" if c.method in METHODS else c.method)
            lines.append(f"| {label} | {c.series} | {stats} | {c.mean('changes'):.2f} | {drift} |")
        default = next((c for c in cells if c.scenario == name and c.method == DEFAULT), None)
        if default is not None and default.drift:
            d = default.drift
            notes = []
            if not math.isnan(d["drifts_found"]):
                notes.append(f"true drifts found as a drift row (Jaccard >= 0.5): "
                             f"{d['drifts_found']:.1%}, both ends within {MARGIN} points: "
                             f"{d['drifts_located']:.1%}")
            if not math.isnan(d["false_drift_series"]):
                notes.append(f"series without a drift given a drift row: "
                             f"{d['false_drift_series']:.1%}")
            if notes:
                lines += ["", f"`{DEFAULT}`: " + "; ".join(notes) + "."]
    return lines + comparison(cells)


def comparison(cells: list[Cell], other: str = "edivisive") -> list[str]:
    """The default minus `other` on the same series, per scenario (mean +- paired SE)."""
    by_key = {(c.scenario, c.method): c for c in cells}
    scenarios = [name for name in dict.fromkeys(c.scenario for c in cells)
                 if (name, DEFAULT) in by_key and (name, other) in by_key]
    if not scenarios:
        return []
    lines = ["", f"**`{DEFAULT}` minus `{other}`, on the same series** (mean ± SE of the paired "
             "differences)", "", "| scenario | precision | recall | F1 | covering |",
             "|---|---|---|---|---|"]
    for name in scenarios:
        a, b = by_key[(name, DEFAULT)], by_key[(name, other)]
        diffs = [paired_difference(a, b, key) for key in ("precision", "recall", "f1", "covering")]
        lines.append(f"| {name} | " + " | ".join(f"{m:+.3f} ± {se:.3f}" for m, se in diffs) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="100 series per scenario (anchors: 20), not 500 (anchors: 100)")
    parser.add_argument("--methods", nargs="*", default=list(METHODS),
                        help="fastperf methods to score (default: %(default)s)")
    args = parser.parse_args()
    series, anchor_series = (100, 20) if args.quick else (500, 100)
    missing = {a: why for a, why in anchors_available().items() if why}
    for anchor, why in missing.items():
        print(f"note: {anchor} skipped: {why} (install them with .ci/anchors.sh)")
    anchors = tuple(a for a in ANCHORS if a not in missing)
    start = time.perf_counter()
    cells = evaluate(series, anchor_series, methods=tuple(args.methods), anchors=anchors)
    print(f"{series} series per scenario (anchors: the first {anchor_series}), 200-500 points, "
          f"noise sigma {SIGMA:.0%}, margin {MARGIN}; mean ± SE over the series "
          f"({time.perf_counter() - start:.0f} s)")
    print("\n".join(markdown(cells)))


if __name__ == "__main__":
    main()
