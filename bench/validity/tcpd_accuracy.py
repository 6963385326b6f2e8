"""Accuracy of `fastperf.changepoints` on the real, annotated series of the TCPD benchmark.

Issue 41's accuracy goal is stated on the Turing Change Point Dataset (van den Burg & Williams
2020, "An evaluation of change point detection algorithms", arXiv:2003.06222; data:
alan-turing-institute/TCPD, each series annotated by up to five people; the methods' published
per-series scores: alan-turing-institute/TCPDBench, analysis/output/scores). Neither repository
is part of this project (their licences are their own, per dataset): this script reads local
checkouts of them and is run by hand::

    python bench/validity/tcpd_accuracy.py --tcpd PATH/TCPD [--published PATH/TCPDBench]

(or FASTPERF_TCPD / FASTPERF_TCPDBENCH). It scores the series that TCPDBench's published table
of univariate results (analysis/output/tables/aggregate_scores_wide.tex) averages over (its
``MISSING_STRATEGY=zero_no_coal``: the univariate series less the five quality_control ones and
uk_coal_employ, 32 in all; a failed run scores 0) whose dataset file is present and matches
TCPD's ``checksums.json`` (the others are listed as missing; some of TCPD's series are only
downloadable by a script; ``--all`` adds the six left out of the table):

- fastperf's methods at their defaults (``pelt``, ``edivisive``, ``ttest``), one batched call
  each on a table of all the series (series, t, value), as a user would run them
  (``--independent-noise``: ``pelt`` with ``serial_dependence=False``). Each is scored twice,
  since a drift has no single change point: "drift ends" counts a drift row as its first point
  and the first point after it, as changepoint_accuracy.py counts its simulated drifts;
  "steps" counts fastperf's steps only. TCPD's annotators were asked to mark "abrupt" changes
  and told that "gradual changes in direction are common and should not be considered to be
  abrupt changes", but also shown a change in trend as a change point
  (alan-turing-institute/AnnotateChange, app/main/demo.py): neither count is the benchmark's
  own, and the primary one is "drift ends", the project's;
- the "no change" baseline (``zero``), computed here;
- with ``--published``, TCPDBench's published per-series scores of every method's "default"
  experiment, averaged over the same series: the comparison is like for like even when some
  series are missing. The recomputed ``zero`` scores must equal the published ones series by
  series (a check of the metrics and of the data; the script says where they do not).

Metrics: changepoint_metrics.py (TCPDBench's F1 with a margin of 5 and covering, every
annotator, point 0 counted as a change point). Change points are 0-based indices into the
series as the dataset file holds it, missing values (null) included: fastperf drops a missing
value (and counts it), so its positions are mapped back to the file's indices.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa

import fastperf
from changepoint_metrics import covering, f_measure

METHODS = ("pelt", "edivisive", "ttest")
#: TCPDBench's methods the comparison reports the paired differences against: the best
#: published F1 (binseg) and covering (amoc) on these series.
PAIRED_WITH = ("binseg", "amoc")
#: TCPD's multivariate series (analysis/scripts/common.py's MULTIDATASETS).
MULTIVARIATE = ("apple", "bee_waggle_6", "occupancy", "run_log")
#: Series TCPDBench's table of univariate results leaves out (analysis/scripts/common.py:
#: the quality-control series, and uk_coal_employ, which holds missing values).
LEFT_OUT = ("quality_control_1", "quality_control_2", "quality_control_3", "quality_control_4",
            "quality_control_5", "uk_coal_employ")


def load_series(tcpd: Path, everything: bool = False) -> tuple[dict, list[str], dict]:
    """({name: values with NaN for nulls} of the univariate annotated series present (not
    those `LEFT_OUT` unless `everything`), the names missing or rejected with why, the
    annotations)."""
    annotations = json.loads((tcpd / "annotations.json").read_text())
    checksums = json.loads((tcpd / "checksums.json").read_text())["checksums"]
    series, missing = {}, []
    for name in sorted(annotations):
        if name in LEFT_OUT and not everything:
            continue
        if name in MULTIVARIATE:
            missing.append(f"{name} (multivariate)")
            continue
        path = tcpd / "datasets" / name / f"{name}.json"
        if not path.exists():
            missing.append(f"{name} (no file)")
            continue
        expected = checksums.get(f"{name}.json")
        expected = expected if isinstance(expected, list) else [expected]
        if hashlib.md5(path.read_bytes()).hexdigest() not in expected:
            missing.append(f"{name} (md5 differs from checksums.json)")
            continue
        data = json.loads(path.read_text())
        if data["n_dim"] != 1:
            missing.append(f"{name} (multivariate: {data['n_dim']} dimensions)")
            continue
        raw = data["series"][0]["raw"]
        series[name] = np.array([np.nan if v is None else float(v) for v in raw])
    return series, missing, annotations


def fastperf_change_points(series: dict, method: str, drift_ends: bool = True,
                           serial_dependence: bool = True) -> dict[str, list[int]]:
    """Each series' change points found by `method` at its defaults (``pelt`` with
    `serial_dependence`), as file indices: its steps, and with `drift_ends` each drift's first
    point and the first point after it."""
    names, t, values = [], [], []
    for name, y in series.items():
        names += [name] * y.size
        t.append(np.arange(y.size))
        values.append(y)
    table = pa.table({"series": names, "t": np.concatenate(t), "value": np.concatenate(values)})
    options = {} if method != "pelt" else {"serial_dependence": serial_dependence}
    result = fastperf.changepoints(table, by="series", order="t", method=method, **options)
    found: dict[str, list[int]] = {name: [] for name in series}
    changes = result.changes.to_pydict()
    for name, kind, before, after in zip(changes["series"], changes["kind"],
                                         changes["order_before"], changes["order_after"]):
        if kind == "step":
            found[name].append(int(after))  # the first point of the new segment
        elif drift_ends:  # a drift: its first point, and the first point after its last
            kept = np.flatnonzero(~np.isnan(series[name]))
            found[name].append(int(before))
            later = kept[kept > after]
            if later.size:
                found[name].append(int(later[0]))
    return {name: sorted(set(points)) for name, points in found.items()}


def scores(series: dict, annotations: dict, found: dict[str, list[int]]) -> dict[str, tuple]:
    """{name: (F1, covering)} of each series."""
    return {name: (f_measure(annotations[name], found[name])[0],
                   covering(annotations[name], found[name], series[name].size))
            for name in series}


def published_scores(bench: Path) -> dict[str, dict]:
    """TCPDBench's default-experiment scores: {"f1"|"cover": {dataset: {method: score}}}."""
    folder = bench / "analysis" / "output" / "scores"
    return {metric: json.loads((folder / f"default_{metric}_scores.json").read_text())
            for metric in ("f1", "cover")}


def published_table(published: dict) -> tuple[int, dict[str, tuple[float, float]]]:
    """(series, {method: (F1, covering)}) averaged as TCPDBench's table of univariate results
    (analysis/output/tables/aggregate_scores_wide.tex) averages: every univariate series but
    `LEFT_OUT`, a failed run counted 0; from its score files (a check of that rule)."""
    names = [name for name in published["f1"]
             if name not in LEFT_OUT and name not in MULTIVARIATE]
    methods = published["f1"][names[0]]
    return len(names), {
        method: tuple(float(np.mean([published[m][name][method] or 0.0 for name in names]))
                      for m in ("f1", "cover"))
        for method in methods}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tcpd", default=os.environ.get("FASTPERF_TCPD"),
                        help="a checkout of alan-turing-institute/TCPD")
    parser.add_argument("--published", default=os.environ.get("FASTPERF_TCPDBENCH"),
                        help="a checkout of alan-turing-institute/TCPDBench (its scores)")
    parser.add_argument("--independent-noise", action="store_true",
                        help="pelt with serial_dependence=False")
    parser.add_argument("--all", action="store_true",
                        help="also the series TCPDBench's table leaves out (LEFT_OUT)")
    parser.add_argument("--per-series", action="store_true", help="print every series' scores")
    args = parser.parse_args()
    if not args.tcpd:
        parser.error("give --tcpd PATH (or FASTPERF_TCPD): a checkout of the TCPD repository")
    series, missing, annotations = load_series(Path(args.tcpd), args.all)
    names = list(series)
    print(f"{len(names)} univariate annotated series scored; not scored (besides "
          f"{'none' if args.all else ', '.join(LEFT_OUT)}): "
          f"{', '.join(missing) or 'none'}")
    table: dict[str, dict[str, tuple]] = {
        "zero": scores(series, annotations, {name: [] for name in names})}
    dependence = not args.independent_noise
    suffix = "" if dependence else " (serial_dependence=False)"
    for count, ends in (("drift ends", True), ("steps", False)):
        table[f"fastperf pelt{suffix}, {count}"] = scores(
            series, annotations, fastperf_change_points(series, "pelt", ends, dependence))
    for method in METHODS[1:]:
        table[f"fastperf {method}"] = scores(series, annotations,
                                             fastperf_change_points(series, method))
    if args.published:
        published = published_scores(Path(args.published))
        for name in names:
            for metric, column in (("f1", 0), ("cover", 1)):
                theirs = published[metric][name]["zero"]
                ours = table["zero"][name][column]
                if theirs is None or abs(theirs - ours) > 1e-12:
                    print(f"check: zero's {metric} on {name}: ours {ours!r}, published {theirs!r}")
        count, table_rule = published_table(published)
        print(f"TCPDBench's own table recomputed over its {count} series (F1 / covering): "
              + ", ".join(f"{m} {f1:.3f} / {cover:.3f}"
                          for m, (f1, cover) in sorted(table_rule.items())))
        methods = sorted(published["f1"][names[0]])
        for method in methods:
            if method == "zero":
                continue
            # a failed run (null) scores 0, as TCPDBench's tables count it
            table[f"TCPDBench {method}"] = {
                name: tuple(published[m][name][method] or 0.0 for m in ("f1", "cover"))
                for name in names}
    print(f"\nmean over the {len(names)} series (F1 with margin 5, covering):\n")
    print("| method | F1 | covering |\n|---|---|---|")
    rows = sorted(table.items(), key=lambda item: -np.mean([v[0] for v in item[1].values()]))
    for method, per_series in rows:
        f1 = np.mean([v[0] for v in per_series.values()])
        cover = np.mean([v[1] for v in per_series.values()])
        print(f"| {method} | {f1:.3f} | {cover:.3f} |")
    if args.published:
        print(f"\npaired differences over the {len(names)} series (mean ± standard error):\n")
        print("| difference | F1 | covering |\n|---|---|---|")
        for ours in (m for m in table if m.startswith("fastperf pelt")):
            for theirs in PAIRED_WITH:
                cells = []
                for column in (0, 1):
                    d = np.array([table[ours][n][column] - table[f"TCPDBench {theirs}"][n][column]
                                  for n in names])
                    cells.append(f"{d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(d.size):.3f}")
                print(f"| {ours} minus {theirs} | {cells[0]} | {cells[1]} |")
    if args.per_series:
        print("\n| series | n | " + " | ".join(table) + " |")
        print("|---|---|" + "---|" * len(table))
        for name in names:
            cells = " | ".join(f"{table[m][name][0]:.2f} / {table[m][name][1]:.2f}"
                               for m in table)
            print(f"| {name} | {series[name].size} | {cells} |")


if __name__ == "__main__":
    main()
