"""The command line: outputs in every format, the demo, exit statuses, standard input and
output, --version, --input-format's choices and the examples of every --help."""
import contextlib
import csv
import gzip
import importlib
import importlib.metadata
import io
import json
import os
import re
import select
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.csv as pacsv
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import fastperf
import fastperf.cli
from fastperf.cli import main
from fastperf.io.formats import TABULAR, TOOL_FORMATS
from cli_calls import OUTSIDE_CHECKOUT, assert_clean_error, run_cli
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
    """The demo is the comparison of the shipped pair, as `fastperf compare` prints it: the
    change of the json benchmark's median, computed here from the file's lines by hand, is in
    it; describe's table (its column header) only with --describe."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    json_change = (median_of(NEW, "BenchmarkEncode/format=json-48")
                   / median_of(OLD, "BenchmarkEncode/format=json-48") - 1)
    assert f"{json_change:.2%}" == "-17.20%" and f"{json_change:.2%}" in out
    assert "Encode/format=json-48" in out and "old" in out and "new" in out
    assert "How to read it" in out and "ci_mean_low" not in out
    assert main(["demo", "--describe"]) == 0
    described = capsys.readouterr().out
    assert "BenchmarkEncode/format=json-48" in described and "ci_mean_low" in described


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


def test_a_long_error_keeps_its_reason(tmp_path, capsys):
    """A CSV read with a value column it lacks: the reader's message lists every format it
    tried (about 1,000 characters) and ends with the CSV's reason; the one line printed keeps
    that end (and the file's name at its start)."""
    path = tmp_path / "runs.csv"
    path.write_text("benchmark,variant,value\nb,x,1\nb,x,2\n")
    assert exit_code(["describe", str(path), "--value", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and len(err[0]) <= len("fastperf: error: ") + 500
    assert err[0].startswith(f"fastperf: error: {path}")
    assert err[0].endswith("column 'nope' not found; the table has columns ['benchmark', "
                           "'variant', 'value']; pass value= the column holding the measurements")


def test_installed_entry_point_and_module():
    """The console script and ``python -m fastperf`` both run (exit 0 / 2)."""
    ok = subprocess.run([sys.executable, "-m", "fastperf", "describe", OLD],
                        cwd=OUTSIDE_CHECKOUT, capture_output=True, text=True)
    assert ok.returncode == 0 and "BenchmarkEncode" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "fastperf", "describe", "/no/such"],
                         cwd=OUTSIDE_CHECKOUT, capture_output=True, text=True)
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


def test_internal_error_is_one_line_exit_3(tmp_path, monkeypatch):
    import fastperf.cli as module  # where the command looks the function up

    monkeypatch.setattr(module, "describe", raising(RuntimeError("boom\nsecond line")))
    code, _, err = run_cli(["describe", go_file(tmp_path)])
    assert code == 3
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
    assert code == 3
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
                         capture_output=True, cwd=OUTSIDE_CHECKOUT)
    assert run.returncode == 0, run.stderr
    table = pq.read_table(io.BytesIO(run.stdout))
    assert table.num_rows == old_benchmarks()
    assert table.column("n").to_pylist() == [10] * old_benchmarks()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_parquet_to_a_terminal_refused():
    master, slave = os.openpty()
    try:
        run = subprocess.run([sys.executable, "-m", "fastperf", "describe", OLD, "--format",
                              "parquet"], cwd=OUTSIDE_CHECKOUT, stdout=slave, stderr=subprocess.PIPE)
        ready, _, _ = select.select([master], [], [], 0)
        written = os.read(master, 65536) if ready else b""
    finally:
        os.close(slave)
        os.close(master)
    assert run.returncode == 2 and written == b""
    lines = run.stderr.decode().splitlines()
    assert lines == ["fastperf: error: refusing to write Parquet to a terminal; use -o FILE"]


# -----------------------------------------------------------------------------------------------
# CLI conventions: --version; '-' as standard input and -o - as standard output; every exit
# status; --input-format's choices; examples in every --help; the demo
# -----------------------------------------------------------------------------------------------

REPO = EXAMPLES.parent
JSON_BENCH, GOB_BENCH = "BenchmarkEncode/format=json-48", "BenchmarkEncode/format=gob-48"
#: The subcommands, written out by hand (docs/cli.md's synopsis).
SUBCOMMANDS = ["describe", "aggregate", "plan", "anova", "factorial", "changepoints", "compare",
               "report", "decide", "check", "warmup", "demo"]


def go_values(path, benchmark):
    """The ns/op values of `benchmark` in a Go file, by hand-written parsing of its lines."""
    with open(path, encoding="utf-8") as fh:
        return [float(line.split()[2]) for line in fh if line.split()[:1] == [benchmark]]


def median_of(path, benchmark):
    """The median ns/op of `benchmark` in a Go file (`statistics.median` of `go_values`)."""
    return statistics.median(go_values(path, benchmark))


def with_stdin(monkeypatch, data: bytes):
    """Standard input holding `data`, for an in-process call."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def help_of(*argv):
    """The ``--help`` text of the top level or of a subcommand (exit status 0)."""
    code, out, err = run_cli([*argv, "--help"])
    assert code == 0 and err == "", err
    return out


def section(text, title):
    """The lines of the help section `title` (up to the next blank line), stripped."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return [line.strip() for line in lines[start:end]]


# ---------------------------------------------------------------------------------------------
# --version


def test_version_prints_the_version_and_the_native_kernels_state():
    code, out, err = run_cli(["--version"])
    assert code == 0 and err == ""
    first, second = out.splitlines()
    assert first == f"fastperf {importlib.metadata.version('fastperf')}"
    assert second.startswith("native kernels: ") and "active" in second


def test_version_says_when_the_native_kernels_are_off():
    done = subprocess.run([sys.executable, "-m", "fastperf", "--version"], cwd=OUTSIDE_CHECKOUT,
                          capture_output=True, text=True, env={**os.environ, "FASTPERF_NATIVE": "0"})
    assert done.returncode == 0 and done.stderr == ""
    assert "inactive" in done.stdout.splitlines()[1] and "FASTPERF_NATIVE" in done.stdout


# ---------------------------------------------------------------------------------------------
# '-': standard input, its format detected from the content


def hand_parquet(path) -> bytes:
    """A Parquet file of the Go file's values (in seconds), built from the hand parse."""
    rows = [(b, v * 1e-9) for b in (JSON_BENCH, GOB_BENCH) for v in go_values(path, b)]
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"benchmark": [r[0] for r in rows], "value": [r[1] for r in rows]}),
                   sink)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize("encoding", ["go text", "gzip", "parquet"])
def test_dash_reads_standard_input_of_any_format(monkeypatch, encoding):
    raw = Path(OLD).read_bytes()
    data = {"go text": raw, "gzip": gzip.compress(raw), "parquet": hand_parquet(OLD)}[encoding]
    with_stdin(monkeypatch, data)
    code, out, err = run_cli(["describe", "-", "--format", "json"])
    assert code == 0, err
    groups = {g["benchmark"]: g for g in json.loads(out)["groups"]}
    for bench in (JSON_BENCH, GOB_BENCH):
        assert groups[bench]["variant"] == "stdin"
        assert groups[bench]["n"] == len(go_values(OLD, bench)) == 10
        assert groups[bench]["median"] == pytest.approx(median_of(OLD, bench) * 1e-9, rel=1e-12)


def test_dash_beside_files_reads_as_that_file(monkeypatch):
    """new.txt piped in reads as new.txt named on the command line."""
    with_stdin(monkeypatch, Path(NEW).read_bytes())
    code, out, err = run_cli(["compare", OLD, "-", "--variants", "old,new"])
    assert code == 0, err
    assert (code, out, err) == run_cli(["compare", OLD, NEW])


def test_dash_through_a_real_pipe():
    done = subprocess.run([sys.executable, "-m", "fastperf", "compare", OLD, "-", "--format",
                           "json"], cwd=OUTSIDE_CHECKOUT, input=Path(NEW).read_bytes(),
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["summary"]["candidates"] == ["stdin"]
    json_row = next(r for r in doc["benchmarks"] if r["benchmark"] == JSON_BENCH)
    assert json_row["median_candidate"] == pytest.approx(median_of(NEW, JSON_BENCH) * 1e-9,
                                                         rel=1e-12)
    assert json_row["verdict"] == "better"


@pytest.mark.parametrize("argv, data, message", [
    (["describe", "-"], b"", "<stdin>: the file is empty"),
    (["describe", "-"], b"\x00\x01 not a results file", "<stdin>: not a recognised file"),
    (["describe", "-", "-"], b"x", "'-' (standard input) is given 2 times"),
    (["describe", "-", "--input-format", "pyperf"], b"{}", "<stdin>"),
])
def test_dash_errors_name_standard_input(monkeypatch, tmp_path, argv, data, message):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with_stdin(monkeypatch, data)
    code, _, err = run_cli(argv)
    assert_clean_error(code, err, match=message)
    assert str(tmp_path) not in err  # the temporary file is never named
    assert list(tmp_path.iterdir()) == []  # and is removed


# ---------------------------------------------------------------------------------------------
# -o -: standard output


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "csv", "html"])
def test_dash_output_is_standard_output(monkeypatch, tmp_path, fmt):
    monkeypatch.chdir(tmp_path)
    argv = ["describe", OLD, NEW, "--format", fmt]
    code, out, err = run_cli(argv + ["-o", "-"])
    assert code == 0, err
    assert not (tmp_path / "-").exists()
    assert (code, out, err) == run_cli(argv)
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert {(r["benchmark"], int(r["n"])) for r in rows} == {
            (b, len(go_values(p, b))) for p in (OLD, NEW) for b in (JSON_BENCH, GOB_BENCH)}


def test_dash_output_writes_parquet_bytes_to_a_pipe(tmp_path):
    done = subprocess.run([sys.executable, "-m", "fastperf", "describe", OLD, "--format",
                           "parquet", "-o", "-"], capture_output=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    table = pq.read_table(io.BytesIO(done.stdout))
    medians = dict(zip(table.column("benchmark").to_pylist(), table.column("median").to_pylist()))
    assert medians == pytest.approx({b: median_of(OLD, b) * 1e-9 for b in (JSON_BENCH, GOB_BENCH)},
                                    rel=1e-12)


def test_dash_output_of_parquet_to_a_text_only_stream_exit_2():
    code, out, err = run_cli(["describe", OLD, "--format", "parquet", "-o", "-"])
    assert_clean_error(code, err, match="-o FILE")
    assert out == ""


# ---------------------------------------------------------------------------------------------
# exit statuses: 0 ok / gate passed, 1 gate failed, 2 bad input or usage, 3 internal error


def test_exit_0_when_the_gate_passes():
    # by hand: new's medians are lower (faster) or the same: no benchmark got worse
    assert median_of(NEW, JSON_BENCH) < median_of(OLD, JSON_BENCH)
    code, _, err = run_cli(["compare", OLD, NEW, "--fail-on", "worse"])
    assert code == 0 and err.strip().endswith(": pass"), err


def test_exit_1_when_the_gate_fails():
    # by hand: old.txt as the candidate is slower on json by about 21%
    assert median_of(OLD, JSON_BENCH) / median_of(NEW, JSON_BENCH) - 1 > 0.2
    code, _, err = run_cli(["compare", NEW, OLD, "--fail-on", "worse"])
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "FAIL, 1 worse" in lines[0] and "json" in lines[0]


@pytest.mark.parametrize("argv", [["describe", "/no/such/file.txt"], ["compare", "--bogus"],
                                  ["describe", OLD, "--confidence", "2"]])
def test_exit_2_on_bad_input_or_usage(argv):
    code, _, err = run_cli(argv)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_exit_3_on_an_injected_internal_error(monkeypatch):
    monkeypatch.setattr(fastperf.cli, "compare", raising(ZeroDivisionError("injected")))
    code, out, err = run_cli(["compare", OLD, NEW, "--fail-on", "worse"])
    assert code == 3 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith("fastperf: internal error: ZeroDivisionError: injected (")
    assert "report" in lines[0] and "--debug" in lines[0]


#: The exit statuses and a phrase of each meaning, written out by hand from the issue.
EXIT_MEANINGS = {0: "success", 1: "gate failed", 2: "bad input", 3: "internal error",
                 4: "undecided", 130: "interrupted"}


def test_exit_statuses_are_listed_in_help_and_docs():
    listed = section(help_of(), "exit status:")
    in_help = {int(line.split()[0]): line for line in listed}
    assert set(EXIT_MEANINGS) <= set(in_help)
    table = re.findall(r"^\| (\d+) \| (.*) \|$", (REPO / "docs" / "cli.md").read_text(), re.M)
    in_docs = {int(status): meaning for status, meaning in table}
    assert set(in_docs) == set(in_help)
    for status, phrase in EXIT_MEANINGS.items():
        assert phrase in in_help[status] and phrase in in_docs[status], status


def test_a_closed_standard_output_stops_silently(tmp_path):
    """``| head``: the reader goes away; exit 141 (as SIGPIPE), nothing on stderr."""
    path = tmp_path / "many.txt"
    path.write_text("".join(f"BenchmarkB{i} 10 {5 + i % 3} ns/op\n" for i in range(3000)))
    with subprocess.Popen([sys.executable, "-m", "fastperf", "describe", str(path),
                           "--variant", "none"], cwd=OUTSIDE_CHECKOUT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        process.stdout.readline()
        process.stdout.close()  # far more than a pipe's buffer is left to write
        err = process.stderr.read()
        assert process.wait(timeout=300) == 141
    assert err == b""


# ---------------------------------------------------------------------------------------------
# --input-format: its choices are the format registry's names


def registry_names():
    return [*TABULAR, *(fmt.name for fmt in TOOL_FORMATS)]


def test_input_format_lists_its_choices():
    text = re.sub(r"-\n\s+", "-", help_of("describe"))  # argparse wraps at hyphens
    text = " ".join(text.split())
    choices = re.search(r"one of: (.*?)(?: --|$)", text).group(1)
    assert [c.strip() for c in choices.split(",")] == registry_names()


def test_unknown_input_format_is_one_line_listing_the_choices():
    code, _, err = run_cli(["describe", OLD, "--input-format", "xml"])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "unknown format 'xml'" in err
    assert all(name in err for name in registry_names())


def test_input_format_accepts_case_and_aliases(tmp_path):
    path = tmp_path / "runs.bin"
    feather.write_feather(pa.table({"benchmark": ["a"] * 3, "value": [1.0, 2.0, 4.0]}), path)
    code, out, err = run_cli(["describe", path, "--input-format", "Feather", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["groups"][0]["median"] == 2.0
    code, out, err = run_cli(["describe", OLD, "--input-format", "GO", "--format", "json"])
    assert code == 0, err


# ---------------------------------------------------------------------------------------------
# examples in every --help, and those naming the shipped examples run


def test_every_subcommand_is_listed():
    assert sorted(fastperf.cli.COMMANDS) == sorted(SUBCOMMANDS)


@pytest.mark.parametrize("command", [[], *([c] for c in SUBCOMMANDS)], ids=lambda c: c[0] if c else "fastperf")
def test_every_help_has_examples(command):
    examples = section(help_of(*command), "examples:")
    assert 1 <= len(examples) <= 3
    for line in examples:
        called = line.split(" | ")[-1].split()
        assert called[0] == "fastperf"
        if command:
            assert called[1] == command[0]


def shipped_examples():
    """Every example command line of every --help that names a file in examples/."""
    lines = [line for command in [[], *([c] for c in SUBCOMMANDS)]
             for line in section(help_of(*command), "examples:")]
    return [line for line in lines if "examples/" in line]


@pytest.mark.parametrize("line", shipped_examples())
def test_help_examples_run_on_the_shipped_examples(monkeypatch, tmp_path, line):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    piped, _, called = line.rpartition(" | ")
    if piped:
        source = shlex.split(piped)
        assert source[0] == "cat" and len(source) == 2, line
        with_stdin(monkeypatch, (tmp_path / source[1]).read_bytes())
    argv = shlex.split(called)
    code, out, err = run_cli(argv[1:])
    assert code == 0, (line, err)
    written = argv[argv.index("-o") + 1] if "-o" in argv else None
    assert (tmp_path / written).stat().st_size > 0 if written else out


# ---------------------------------------------------------------------------------------------
# the demo


def test_demo_shows_what_compare_prints(capsys):
    code, compared, _ = run_cli(["compare", OLD, NEW])
    assert code == 0
    code, out, err = run_cli(["demo"])
    assert code == 0, err
    assert compared.strip() in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("The HTML report of this comparison: ")
    assert Path(last.split(": ", 1)[1]).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("extra, function", [([], "compare"), (["--describe"], "describe")])
def test_demo_in_one_result_formats(extra, function):
    code, out, err = run_cli(["demo", "--format", "json", *extra])
    assert code == 0
    assert json.loads(out)["summary"]["function"] == function
    assert err.startswith("The HTML report of this comparison: ")



def test_readme_shows_the_demo_as_it_prints():
    """README's demo output is the demo's output (the report's folder aside: the platform's
    temporary directory)."""
    shown = re.search(r"```text\n(fastperf demo:.*?)```", (REPO / "README.md").read_text(
        encoding="utf-8"), re.S).group(1)
    code, out, _ = run_cli(["demo"])
    assert code == 0
    report = re.compile(r"(The HTML report of this comparison: ).*")
    assert report.sub(r"\1PATH", shown) == report.sub(r"\1PATH", out)


@pytest.mark.parametrize("suffix, check", [
    (".html", lambda b: b.startswith(b"<!DOCTYPE html>")),
    (".md", lambda b: b.startswith(b"**fastperf compare**") and b"\n|" in b),
    (".json", lambda b: json.loads(b)["schema"] == "fastperf.compare/1"),
    (".csv", lambda b: b.startswith(b'"benchmark"')),
    (".parquet", lambda b: b.startswith(b"PAR1")),
    (".out", lambda b: b"vs base" in b.splitlines()[1]),  # text
])
def test_output_format_follows_the_output_files_extension(tmp_path, suffix, check, capsys):
    """Without --format, -o OUT writes the format its extension names (text otherwise); an
    explicit --format wins; `decide --undecided-only -o names.csv` still writes names."""
    data = tmp_path / "runs.parquet"
    pq.write_table(fastperf.simulate(3, 10, seed=1).table, data)
    out = tmp_path / f"result{suffix}"
    assert main(["compare", str(data), "-o", str(out)]) == 0
    assert check(out.read_bytes()), out.read_bytes()[:80]
    assert main(["compare", str(data), "--format", "text", "-o", str(out)]) == 0
    assert b"vs base" in out.read_bytes().splitlines()[1]
    names = tmp_path / "undecided.csv"
    # a margin of 1%: two of the three benchmarks are left undecided (exit 4)
    undecided = fastperf.decide(fastperf.simulate(3, 10, seed=1).table, baseline="baseline",
                                candidate="candidate", margin=0.01).undecided()
    assert len(undecided) == 2
    assert main(["decide", str(data), "--margin", "0.01", "--undecided-only", "-o",
                 str(names)]) == 4
    # names, one per line, not a CSV table
    assert names.read_text().splitlines() == undecided
    capsys.readouterr()
