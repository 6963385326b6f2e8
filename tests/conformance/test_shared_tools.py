"""`fastperf.simulate` against the project's earlier generator, the shared folder's
tools/make_measurements.py: for the same arguments and seed, the same tables, value for value
(so that benchmark files written before and after the switch to `simulate` are the same data)."""
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import fastperf
from conftest import SHARED

MAKE_MEASUREMENTS = SHARED / "tools" / "make_measurements.py"


@pytest.mark.parametrize("benchmarks, runs, variants, seed, paired", [
    (300, 31, 2, 0, False), (200, 9, 3, 5, True), (57, 4, 4, 11, False), (1, 1, 2, 2, True),
])
def test_simulate_reproduces_make_measurements(tmp_path, benchmarks, runs, variants, seed, paired):
    out, truth = tmp_path / "m.parquet", tmp_path / "t.parquet"
    subprocess.run([sys.executable, str(MAKE_MEASUREMENTS), str(out), "--benchmarks", str(benchmarks),
                    "--runs", str(runs), "--variants", str(variants), "--seed", str(seed),
                    "--truth", str(truth)] + (["--paired"] if paired else []), check=True)
    sim = fastperf.simulate(benchmarks, runs, variants=variants, seed=seed, paired=paired, unit=None)
    expected = pq.read_table(out)
    assert sim.table.column_names == expected.column_names
    for name in expected.column_names:
        assert sim.table.column(name).to_pylist() == expected.column(name).to_pylist(), name
    expected_truth = pq.read_table(truth)
    for name in expected_truth.column_names:
        assert sim.truth.column(name).to_pylist() == expected_truth.column(name).to_pylist(), name
