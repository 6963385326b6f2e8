"""The TCPD harness (tcpd_accuracy.py): on a small TCPD-shaped folder written here, and, when
FASTPERF_TCPD / FASTPERF_TCPDBENCH name checkouts of the real repositories, what of issue 41's
accuracy goal holds on them (docs/changepoints.md, "Real annotated series (TCPD)").

The folder holds what the harness must handle: a series with missing values before a step (the
change point is a file index, not an index among the points kept), a multivariate series and one
whose file does not match its checksum (both left out), a series the published table leaves out,
and a missing file.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import fastperf

import tcpd_accuracy as tcpd  # bench/validity/tcpd_accuracy.py (on sys.path here)
from changepoint_metrics import covering, f_measure


def write_dataset(root: Path, name: str, columns: list[list], checksums: dict,
                  corrupt: bool = False) -> None:
    """A dataset file as TCPD lays it out (datasets/<name>/<name>.json), its md5 recorded."""
    folder = root / "datasets" / name
    folder.mkdir(parents=True)
    n = len(columns[0])
    text = json.dumps({"name": name, "n_obs": n, "n_dim": len(columns),
                       "time": {"index": list(range(n))},
                       "series": [{"label": f"v{j}", "type": "float", "raw": column}
                                  for j, column in enumerate(columns)]}, indent="\t") + "\n"
    (folder / f"{name}.json").write_text(text + (" " if corrupt else ""))
    checksums[f"{name}.json"] = hashlib.md5(text.encode()).hexdigest()


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(7)
    checksums: dict = {}
    gappy = [float(v) for v in 100.0 + rng.normal(0.0, 1.0, 120)]
    gappy[80:] = [v + 20.0 for v in gappy[80:]]  # a step at file index 80 ...
    for i in (10, 11, 40, 79):  # ... after four missing values
        gappy[i] = None
    flat = [float(v) for v in 50.0 + rng.normal(0.0, 1.0, 60)]
    level = np.concatenate([np.full(60, 100.0), np.linspace(100.0, 130.0, 40), np.full(60, 130.0)])
    ramp = [float(v) for v in level + rng.normal(0.0, 1.0, level.size)]
    for i in range(99, 105):  # missing values right after the drift
        ramp[i] = None
    write_dataset(tmp_path, "gappy", [gappy], checksums)
    write_dataset(tmp_path, "ramp", [ramp], checksums)
    write_dataset(tmp_path, "flat", [flat], checksums)
    write_dataset(tmp_path, "two_columns", [flat, flat], checksums)
    write_dataset(tmp_path, "corrupted", [flat], checksums, corrupt=True)
    write_dataset(tmp_path, "quality_control_1", [flat], checksums)
    annotations = {"gappy": {"1": [80], "2": [78, 100]}, "flat": {"1": [], "2": [30]},
                   "ramp": {"1": [60]},
                   "two_columns": {"1": []}, "corrupted": {"1": []},
                   "quality_control_1": {"1": []}, "absent": {"1": []}}
    (tmp_path / "annotations.json").write_text(json.dumps(annotations))
    (tmp_path / "checksums.json").write_text(json.dumps({"kind": "md5",
                                                         "checksums": checksums}))
    return tmp_path


def test_series_are_loaded_checked_and_left_out_as_documented(folder):
    series, missing, annotations = tcpd.load_series(folder)
    assert sorted(series) == ["flat", "gappy", "ramp"]
    assert np.isnan(series["gappy"][[10, 11, 40, 79]]).all() and series["gappy"].size == 120
    assert any(m.startswith("two_columns (multivariate") for m in missing)
    assert any(m.startswith("corrupted (md5") for m in missing)
    assert "absent (no file)" in missing
    assert "quality_control_1" in tcpd.load_series(folder, everything=True)[0]


def test_change_points_are_file_indices_and_scored_by_the_metrics(folder):
    series, _, annotations = tcpd.load_series(folder)
    found = tcpd.fastperf_change_points(series, "pelt", drift_ends=False)
    # 80 in the file: 77 among the points kept; steps only: no point for the drift
    assert found == {"gappy": [80], "flat": [], "ramp": []}
    drift = fastperf.changepoints(
        pa.table({"t": np.arange(160), "value": series["ramp"]}), by=None, order="t").changes
    assert drift.column("kind").to_pylist() == ["drift"]
    first, last = drift.column("order_before")[0].as_py(), drift.column("order_after")[0].as_py()
    after = next(i for i in range(last + 1, 160) if not np.isnan(series["ramp"][i]))
    assert after > last + 1  # the first point after the drift is past missing values
    ends = tcpd.fastperf_change_points(series, "pelt")  # drift ends: the default count
    assert ends == {"gappy": [80], "flat": [], "ramp": [first, after]}
    scores = tcpd.scores(series, annotations, found)
    assert scores["gappy"] == (f_measure(annotations["gappy"], [80])[0],
                               covering(annotations["gappy"], [80], 120))
    assert scores["flat"] == (f_measure(annotations["flat"], [])[0],
                              covering(annotations["flat"], [], 60))


def test_the_published_table_rule(folder):
    """Every univariate series but those left out, a failed run (null) counted 0."""
    f1 = {"gappy": {"binseg": 0.5, "zero": 1.0}, "flat": {"binseg": None, "zero": 0.5},
          "quality_control_1": {"binseg": 0.0, "zero": 0.0},
          "run_log": {"binseg": None, "zero": 0.0}}
    count, table = tcpd.published_table({"f1": f1, "cover": f1})
    assert count == 2
    assert table == {"binseg": (0.25, 0.25), "zero": (0.75, 0.75)}


@pytest.mark.skipif(not os.environ.get("FASTPERF_TCPD") or not os.environ.get("FASTPERF_TCPDBENCH"),
                    reason="set FASTPERF_TCPD and FASTPERF_TCPDBENCH to checkouts of "
                           "alan-turing-institute/TCPD and TCPDBench")
def test_issue_41_goals_on_the_real_series():
    """On the real series, whichever way a drift is counted, the default's F1 is at least 0.70
    and above every published method's, and its covering above the "no change" baseline's (the
    covering goal, 0.66 and above every published method, is not shown: docs/changepoints.md);
    the recomputed "no change" baseline equals the published one, series by series."""
    series, _, annotations = tcpd.load_series(Path(os.environ["FASTPERF_TCPD"]))
    published = tcpd.published_scores(Path(os.environ["FASTPERF_TCPDBENCH"]))
    zero = tcpd.scores(series, annotations, {name: [] for name in series})
    for name, (f1, cover) in zero.items():
        assert f1 == pytest.approx(published["f1"][name]["zero"], abs=1e-12)
        assert cover == pytest.approx(published["cover"][name]["zero"], abs=1e-12)
    methods = [m for m in published["f1"][next(iter(series))] if m != "zero"]
    best = max(np.mean([published["f1"][name][m] or 0.0 for name in series]) for m in methods)
    baseline = np.mean([cover for _, cover in zero.values()])
    for ends in (True, False):
        ours = tcpd.scores(series, annotations,
                           tcpd.fastperf_change_points(series, "pelt", drift_ends=ends))
        f1 = np.mean([v[0] for v in ours.values()])
        cover = np.mean([v[1] for v in ours.values()])
        print(f"\nTCPD, {len(series)} series, drift ends counted: {ends}: pelt F1 {f1:.3f} "
              f"(best published {best:.3f}), covering {cover:.3f}")
        assert f1 >= 0.70 and f1 > best and cover > baseline
