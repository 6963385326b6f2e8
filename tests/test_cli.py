"""The command line: outputs in every format, the demo, and exit status 2 on bad input."""
import contextlib
import csv
import importlib
import io
import json
import os
import select
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
from cli_calls import assert_clean_error, run_cli
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
def test_the_command_prints_what_main_prints(argv, capsys):
    """The process of ``python -m fastperf`` (and of the ``fastperf`` script: the same
    `command`) prints byte for byte what `main` prints in this process."""
    assert main(argv) == 0
    in_process = capsys.readouterr().out
    code = "import sys\nfrom fastperf.cli import command\nsys.exit(command())"
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == in_process


# -----------------------------------------------------------------------------------------------
# Role options mean the same in every command; the error policy (internal errors, --debug,
# memory, interrupts); --format parquet / csv to standard output
# -----------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# --benchmark / --variant / --value in every command


def role_files(tmp_path):
    """The same measurements with canonical and with custom column names."""
    values = [1.0, 1.1, 0.9, 1.05, 0.95, 2.0, 2.2, 1.9, 2.1, 2.05] * 2
    bench = ["a"] * 5 + ["b"] * 5 + ["a"] * 5 + ["b"] * 5
    variant = ["old"] * 10 + ["new"] * 10
    run = list(range(5)) * 4
    canonical = tmp_path / "canonical.parquet"
    custom = tmp_path / "custom.parquet"
    pq.write_table(pa.table({"benchmark": bench, "variant": variant, "run": run,
                             "value": values}), canonical)
    pq.write_table(pa.table({"name": bench, "impl": variant, "run": run, "secs": values}), custom)
    return canonical, custom


ROLES = ["--benchmark", "name", "--variant", "impl", "--value", "secs"]


@pytest.mark.parametrize("command", [
    ["describe"], ["describe", "--by", "name"], ["aggregate"], ["plan"], ["anova"],
    ["anova", "--factor", "impl", "--by", "name"],
    ["compare", "--baseline", "old", "--candidate", "new"],
    ["compare", "--baseline", "old", "--candidate", "new", "--by", "name"],
    ["compare", "--baseline", "old", "--candidate", "new", "--protocol", "sparc", "--pair", "run"],
    ["compare", "--baseline", "old", "--candidate", "new", "--protocol", "hpt"],
    ["compare", "--baseline", "old", "--candidate", "new", "--protocol", "speedup-test"],
])
def test_role_options_mean_the_same_in_every_command(tmp_path, command):
    canonical, custom = role_files(tmp_path)
    plain = [{"name": "benchmark", "impl": "variant"}.get(a, a) for a in command]
    code_c, out_c, err_c = run_cli([command[0], canonical] + plain[1:])
    code_r, out_r, err_r = run_cli([command[0], custom] + command[1:] + ROLES)
    assert code_c == 0, err_c
    assert (code_r, err_r) == (0, err_c)
    assert out_r == out_c


def test_issue_reproducer_compare_benchmark_name(tmp_path):
    path = tmp_path / "name.parquet"
    pq.write_table(pa.table({"name": ["a"] * 6, "variant": ["x"] * 3 + ["y"] * 3,
                             "value": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}), path)
    code, out, err = run_cli(["compare", path, "--benchmark", "name"])
    assert code == 0, err
    assert "not found" not in err and "a" in out


def test_variant_none_only_for_describe(tmp_path):
    canonical, _ = role_files(tmp_path)
    assert run_cli(["describe", canonical, "--variant", "none"])[0] == 0
    code, _, err = run_cli(["aggregate", canonical, "--variant", "none"])
    assert_clean_error(code, err, match="--variant none")


# ---------------------------------------------------------------------------------------------
# the error policy: internal errors, --debug, memory, interrupts


def go_file(tmp_path):
    path = tmp_path / "go.txt"
    path.write_text("".join(f"BenchmarkA 10 {v} ns/op\n" for v in (5, 6, 7)))
    return path


def raising(exc):
    def fail(*args, **kwargs):
        raise exc
    return fail


def test_internal_error_is_one_line_exit_1(tmp_path, monkeypatch):
    import fastperf.cli as module  # where the command looks the function up

    monkeypatch.setattr(module, "describe", raising(RuntimeError("boom\nsecond line")))
    code, _, err = run_cli(["describe", go_file(tmp_path)])
    assert code == 1
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("fastperf: internal error: RuntimeError: boom second line (")
    assert "report" in lines[0] and "--debug" in lines[0]


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_traceback(tmp_path, monkeypatch, where):
    import fastperf.cli as module  # where the command looks the function up

    monkeypatch.setattr(module, "describe", raising(RuntimeError("boom")))
    argv = ["describe", go_file(tmp_path)]
    argv = ["--debug"] + argv if where == "before" else argv + ["--debug"]
    code, _, err = run_cli(argv)
    assert code == 1
    assert err.startswith("Traceback (most recent call last):")
    assert "RuntimeError: boom" in err
    assert err.strip().splitlines()[-1].startswith("fastperf: internal error: RuntimeError")


def test_debug_on_bad_input_keeps_exit_2(tmp_path):
    code, _, err = run_cli(["--debug", "describe", tmp_path / "missing.txt"])
    assert code == 2
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("fastperf: error:")


def test_memory_error_exits_2_one_line(tmp_path, monkeypatch):
    module = importlib.import_module("fastperf.cli")  # where the command looks `read` up

    monkeypatch.setattr(module, "read", raising(MemoryError()))
    code, _, err = run_cli(["describe", go_file(tmp_path)])
    assert_clean_error(code, err, match="too large")


def test_keyboard_interrupt_exits_130(tmp_path, monkeypatch):
    module = importlib.import_module("fastperf.cli")  # where the command looks `read` up

    monkeypatch.setattr(module, "read", raising(KeyboardInterrupt()))
    code, _, err = run_cli(["describe", go_file(tmp_path)])
    assert code == 130
    assert "Traceback" not in err and err.strip() == "fastperf: interrupted"


@pytest.mark.parametrize("argv", [
    ["--help"], ["describe", "--help"], [], ["nonsense"], ["describe"],
    ["describe", "x", "--confidence", "abc"], ["compare", "--threshold", "-1%", "x"],
    ["compare", "--config"], ["warmup", "--jobs", "0"], ["describe", "--format", "xml", "x"],
])
def test_wrong_flags_are_one_line(argv):
    code, out, err = run_cli(argv)
    assert code in (0, 2)
    assert "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------------
# 4. --format parquet / csv to standard output
# --------------------------------------------------------------------------------------------

def old_benchmarks() -> int:
    """The benchmarks of examples/old.txt, by hand-written parsing of its result lines."""
    with open(OLD, encoding="utf-8") as fh:
        return len({line.split()[0] for line in fh if line.startswith("Benchmark")})


def test_issue_reproducer_parquet_to_captured_stdout_exit_2(capsys):
    """Under pytest's capture, standard output has no binary file: exit 2, one line."""
    code = main(["describe", OLD, "--format", "parquet"])
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert code == 2 and captured.out == ""
    assert len(lines) == 1 and lines[0].startswith("fastperf: error:") and "-o FILE" in lines[0]


def test_parquet_to_text_only_stdout_exit_2():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["describe", OLD, "--format", "parquet"])
    assert code == 2 and out.getvalue() == ""
    assert err.getvalue().count("\n") == 1 and "text-only" in err.getvalue()


def test_csv_to_text_only_stdout_works():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["describe", OLD, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert code == 0 and len(rows) == old_benchmarks()
    assert {r["n"] for r in rows} == {"10"}  # 20 result lines, 10 runs of each benchmark


def test_parquet_to_a_pipe_works():
    run = subprocess.run([sys.executable, "-m", "fastperf", "describe", OLD, "--format", "parquet"],
                         capture_output=True, cwd=EXAMPLES.parent)
    assert run.returncode == 0, run.stderr
    table = pq.read_table(io.BytesIO(run.stdout))
    assert table.num_rows == old_benchmarks()
    assert table.column("n").to_pylist() == [10] * old_benchmarks()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_parquet_to_a_terminal_refused():
    master, slave = os.openpty()
    try:
        run = subprocess.run([sys.executable, "-m", "fastperf", "describe", OLD, "--format",
                              "parquet"], stdout=slave, stderr=subprocess.PIPE, cwd=EXAMPLES.parent)
        ready, _, _ = select.select([master], [], [], 0)
        written = os.read(master, 65536) if ready else b""
    finally:
        os.close(slave)
        os.close(master)
    assert run.returncode == 2 and written == b""
    lines = run.stderr.decode().splitlines()
    assert lines == ["fastperf: error: refusing to write Parquet to a terminal; use -o FILE"]
