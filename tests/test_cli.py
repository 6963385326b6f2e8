"""The command line: outputs in every format, the demo, and exit status 2 on bad input."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastperf
from fastperf.cli import main
from tool_files import gbench_doc, write_go, write_json

#: golang-perf's old.txt and new.txt, shipped with fastperf for its demo
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
OLD, NEW = str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")


def test_describe_text_default(capsys):
    assert main(["describe", OLD, NEW]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["benchmark", "variant", "unit", "n"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert len(lines) == 2 + 4  # 2 benchmarks x 2 variants, one unit


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv", "parquet"])
def test_describe_formats_to_file(tmp_path, fmt):
    out = tmp_path / f"out.{fmt}"
    assert main(["describe", OLD, NEW, "--format", fmt, "-o", str(out)]) == 0
    expected = fastperf.describe(fastperf.read([OLD, NEW])).groups
    if fmt == "markdown":
        lines = out.read_text().splitlines()
        assert lines[0].startswith("| benchmark |") and len(lines) == 2 + expected.num_rows
    elif fmt == "json":
        doc = json.loads(out.read_text())
        assert [g["mean"] for g in doc["groups"]] == expected.column("mean").to_pylist()
    elif fmt == "csv":
        table = pacsv.read_csv(out)
        assert table.column("mean").to_pylist() == expected.column("mean").to_pylist()
    else:
        table = pq.read_table(out)
        assert table.column("median").to_pylist() == expected.column("median").to_pylist()


def test_describe_options(capsys):
    assert main(["describe", OLD, "--variants", "go1.16", "--confidence", "0.9", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {g["variant"] for g in doc["groups"]} == {"go1.16"}
    assert doc["summary"]["confidence"] == 0.9


def test_demo_runs_on_shipped_data(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "BenchmarkEncode/format=json-48" in out and "old" in out and "new" in out


def exit_code(argv):
    """`main`'s exit status, whether it returns it or argparse raises SystemExit."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("argv, message", [
    (["describe", "/no/such/file.csv"], "no such file"),
    (["describe", OLD, "--by", "suite"], "'suite' not found"),
    (["describe", OLD, "--confidence", "2"], "confidence"),
    (["describe", OLD, "--format", "xml"], "invalid choice"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_installed_entry_point_and_module():
    """The console script and ``python -m fastperf`` both run (exit 0 / 2)."""
    ok = subprocess.run([sys.executable, "-m", "fastperf", "describe", OLD], capture_output=True, text=True)
    assert ok.returncode == 0 and "BenchmarkEncode" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "fastperf", "describe", "/no/such"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("fastperf: error:")


def test_aggregate_only_google_benchmark_exits_2_with_one_line(tmp_path, capsys):
    """A Google Benchmark report with aggregate rows only (--benchmark_report_aggregates_only)."""
    sim = fastperf.simulate(benchmarks=2, runs=5, seed=0)
    path = write_json(tmp_path / "aggs.json", gbench_doc(sim.table, "baseline", aggregates_only=True))
    assert exit_code(["describe", str(path)]) == 2
    err = capsys.readouterr().err
    assert "aggregate" in err and len(err.strip().splitlines()) == 1


def check_aggregate_command(capsys, tmp_path, old: str, new: str, baseline: str) -> dict:
    """`fastperf aggregate` on two Go files with two units a line: refused until --unit picks
    one, then the same scores as `aggregate_score` on the filtered table. Returns the JSON."""
    assert exit_code(["aggregate", old, new]) == 2  # ns/op and MB/s mixed
    assert "mixes units" in capsys.readouterr().err
    out = tmp_path / "agg.json"
    assert main(["aggregate", old, new, "--unit", "sec/op", "--baseline", baseline,
                 "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    table = fastperf.read([old, new])
    table = table.filter(pa.compute.equal(table.column("unit").cast(pa.string()), "sec/op"))
    expected = fastperf.aggregate_score(table, baseline=baseline).groups
    assert [g["score"] for g in doc["groups"]] == expected.column("score").to_pylist()
    return doc


def test_aggregate_command(capsys, tmp_path):
    # two Go files with ns/op and MB/s on every line; the candidate 1.5x faster everywhere
    sim = fastperf.simulate(benchmarks=12, runs=10, seed=4, effects=1.5, sigma=0.01)
    sim_old = str(write_go(tmp_path / "sim-old.txt", sim.table, ["baseline"], notes="simulated", throughput=True))
    sim_new = str(write_go(tmp_path / "sim-new.txt", sim.table, ["candidate"], notes="simulated", throughput=True))
    doc = check_aggregate_command(capsys, tmp_path, sim_old, sim_new, "sim-old")
    assert doc["groups"][1]["ratio"] < 1  # the candidate is faster
    assert doc["groups"][1]["ratio"] == pytest.approx(1 / 1.5, rel=0.01)


def test_plan_command(capsys):
    assert main(["plan", OLD, NEW, "--precision", "0.005", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = fastperf.plan_runs(fastperf.read([OLD, NEW]), precision=0.005)
    assert [g["runs_needed"] for g in doc["groups"]] == expected.groups.column("runs_needed").to_pylist()
    assert len(doc["separation"]) == 2
    assert exit_code(["plan", OLD, "--precision", "-1"]) == 2


def test_anova_command(capsys):
    assert main(["anova", OLD, NEW, "--by", "benchmark", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = fastperf.anova(fastperf.read([OLD, NEW]), by="benchmark").groups
    assert [g["f"] for g in doc["groups"]] == expected.column("f").to_pylist()
    assert exit_code(["anova", OLD, "--factor", "compiler"]) == 2


def test_factorial_command(tmp_path, capsys):
    rng = np.random.default_rng(0)
    rows = [(c, o, 10 + 2 * (c == "large") + (o == "O3") + rng.normal(0, 0.1))
            for c in ("small", "large") for o in ("O2", "O3") for _ in range(3)]
    data = pa.table({"benchmark": ["b"] * 12, "cache": [r[0] for r in rows],
                     "opt": [r[1] for r in rows], "value": [float(r[2]) for r in rows]})
    path = tmp_path / "design.parquet"
    pq.write_table(data, path)
    out = tmp_path / "effects.csv"
    assert main(["factorial", str(path), "--factors", "cache,opt", "--format", "csv", "-o", str(out)]) == 0
    effects = pacsv.read_csv(out)
    expected = fastperf.factorial(data, factors=["cache", "opt"]).effects
    assert effects.column("effect").to_pylist() == expected.column("effect").to_pylist() == ["I", "A", "B", "AB"]
    np.testing.assert_allclose(effects.column("q").to_numpy(), expected.column("q").to_numpy())
    assert main(["factorial", str(path), "--factors", "cache,opt"]) == 0
    assert "effects:" in capsys.readouterr().out
    assert exit_code(["factorial", str(path), "--factors", "cache,nope"]) == 2


@pytest.mark.parametrize("argv", [["compare", OLD, NEW], ["compare", OLD, NEW, "--format", "json"],
                                  ["describe", OLD, NEW, "--format", "csv"]])
def test_the_command_hides_pandas_and_prints_the_same(argv, capsys):
    """The process of ``python -m fastperf`` (and of the ``fastperf`` script: the same
    `command`) never loads pandas, which pyarrow would import on its first conversion; what it
    prints is byte for byte what `main` prints in this process, where pandas is loaded."""
    pytest.importorskip("pandas")  # without it there is nothing to hide
    import pandas  # noqa: F401  (pyarrow sees it here)

    assert main(argv) == 0
    in_process = capsys.readouterr().out
    code = ("import sys\nfrom fastperf.cli import command\nstatus = command()\n"
            "print('pandas loaded:', 'pandas' in sys.modules, file=sys.stderr)\nsys.exit(status)")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "pandas loaded: False"
    assert done.stdout == in_process
