"""``fastperf decide``: its exit statuses (0 decided, none worse; 1 decided worse; 4 undecided;
2 bad input), ``--undecided-only``, the output formats, the options passed on, and the example
of docs/cli.md.

Oracles: the tables are built here with known changes (a clear 20 % change over 10 rounds,
no change with 0.5 % noise against a 5 % margin, 3 rounds of no change that cannot decide
anything yet), so which benchmark is worse, better, equivalent or undecided is known by
construction; the printed numbers are checked against `fastperf.decide` called on the same
file (the numbers themselves are checked against a plain implementation in
tests/test_decide.py).
"""
from __future__ import annotations

import csv
import io
import json
import re
import shlex
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import fastperf
from cli_calls import assert_clean_error, run_cli

REPO = Path(__file__).resolve().parents[1]
OLD, NEW = str(REPO / "examples" / "old.txt"), str(REPO / "examples" / "new.txt")

#: Benchmark -> (candidate / baseline ratio, rounds, noise sd of the log values): a clear
#: regression, a clear improvement, no change measured well enough for a 5 % margin, and no
#: change measured too little to decide anything.
WORSE = ("slower", 1.20, 10, 0.01)
BETTER = ("faster", 0.80, 10, 0.01)
SAME = ("same", 1.0, 10, 0.005)
SHORT = ("short", 1.0, 3, 0.01)


def write_rounds(path, benchmarks, unit="ns", seed=0, variants=("base", "pr")):
    """A CSV of interleaved rounds: per benchmark and round one baseline and one candidate
    value, the candidate's scaled by the benchmark's ratio, each with log-normal noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, ratio, rounds, sd in benchmarks:
        for r in range(rounds):
            for variant, scale in zip(variants, (1.0, ratio)):
                value = 100.0 * scale * float(np.exp(rng.normal(0.0, sd)))
                rows.append({"benchmark": name, "variant": variant, "round": r, "value": value,
                             **({} if unit is None else {"unit": unit})})
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def decisions_of(out):
    """Benchmark -> decision, from ``--format json``."""
    return {row["benchmark"]: row["decision"] for row in json.loads(out)["benchmarks"]}


def library(path, **kwargs):
    """`fastperf.decide` on the file, with the command's defaults."""
    kwargs = {"baseline": "base", "candidate": "pr", "margin": 0.05, **kwargs}
    return fastperf.decide(fastperf.read(path), **kwargs)


def summary_line(err):
    """The one line the command writes to stderr."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fastperf decide: "), err
    return lines[0]


# ---------------------------------------------------------------------------------------------
# exit statuses


def test_exit_0_every_benchmark_decided_none_worse(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [BETTER, SAME])
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert code == 0, err
    assert decisions_of(out) == {"faster": "better", "same": "equivalent"}
    line = summary_line(err)
    assert line.startswith("fastperf decide: 0 worse, 1 better, 0 changed, 1 equivalent, "
                           "0 continue") and line.endswith(": pass")


def test_no_decision_is_not_undecided(tmp_path):
    """A benchmark that no round can decide (a value of 0: no ratio) neither keeps the status
    at 4 nor is named to run again; the stderr line counts it."""
    path = write_rounds(tmp_path / "runs.csv", [BETTER, SAME, ("zero", 1.0, 10, 0.01)])
    lines = Path(path).read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("zero,pr,0,"))
    lines[at] = "zero,pr,0,0.0,ns"
    Path(path).write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert code == 0, err
    assert decisions_of(out) == {"faster": "better", "same": "equivalent", "zero": None}
    line = summary_line(err)
    assert "0 continue, 1 with no decision (see status)" in line and line.endswith(": pass")
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--undecided-only"])
    assert (code, out) == (0, ""), err


def test_exit_1_decided_worse_takes_precedence_over_undecided(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE, SHORT, SAME])
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert code == 1, err
    assert decisions_of(out) == {"slower": "worse", "short": "continue", "same": "equivalent"}
    line = summary_line(err)
    assert "1 worse" in line and line.endswith(": FAIL, 1 worse (slower)")


def test_exit_4_undecided_lists_the_runs_each_still_needs(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [BETTER, SHORT])
    code, out, err = run_cli(["decide", path, "--margin", "2%"])
    assert code == 4, err
    expected = library(path, margin=0.02)
    needed = dict(zip(expected.benchmarks.column("benchmark").to_pylist(),
                      expected.benchmarks.column("runs_needed").to_pylist()))
    assert needed["faster"] is None and needed["short"] > 0
    row = next(line for line in out.splitlines() if line.startswith("short "))
    assert row.split()[-2:] == ["continue", f"+{needed['short']}"]
    line = summary_line(err)
    assert "UNDECIDED, 1 to run again (short)" in line
    assert f"at most {needed['short']} more rounds projected" in line


def test_exit_0_on_the_shipped_go_files_with_a_wide_margin():
    # by hand: json got about 17% faster, gob changed by well under 5%
    code, out, err = run_cli(["decide", OLD, NEW, "--margin", "5%"])
    assert code == 0, err
    assert summary_line(err).endswith(": pass")


# ---------------------------------------------------------------------------------------------
# --undecided-only


def test_undecided_only_prints_the_undecided_names_one_per_line(tmp_path):
    path = write_rounds(tmp_path / "runs.csv",
                        [BETTER, SHORT, SAME, ("short2", 1.0, 3, 0.01)])
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--undecided-only"])
    assert code == 4, err
    assert out == "short\nshort2\n"
    assert "UNDECIDED, 2 to run again" in summary_line(err)


def test_undecided_only_prints_nothing_when_all_are_decided(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [BETTER, SAME])
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--undecided-only"])
    assert (code, out) == (0, "")


def test_undecided_only_keeps_status_1_and_writes_to_a_file(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE, SHORT])
    names = tmp_path / "rerun.txt"
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--undecided-only",
                              "-o", names])
    assert (code, out) == (1, "")
    assert names.read_text() == "short\n"


def test_undecided_only_names_the_full_benchmark_name():
    # the text table shows "Encode/format=gob-48"; a runner needs the name as measured
    code, out, _ = run_cli(["decide", OLD, NEW, "--margin", "2%", "--undecided-only"])
    assert (code, out) == (4, "BenchmarkEncode/format=gob-48\n")


# ---------------------------------------------------------------------------------------------
# the output: fastperf.decide's, in every format


@pytest.mark.parametrize("files", [["OLD", "NEW"], ["rounds"]])
def test_text_and_markdown_are_the_results(tmp_path, files):
    paths = ([OLD, NEW] if files == ["OLD", "NEW"]
             else [write_rounds(tmp_path / "runs.csv", [WORSE, BETTER, SAME, SHORT])])
    variants = ("old", "new") if len(paths) == 2 else ("base", "pr")
    expected = fastperf.decide(fastperf.read(paths[0] if len(paths) == 1 else paths),
                               baseline=variants[0], candidate=variants[1], margin=0.03)
    code, out, _ = run_cli(["decide", *paths, "--margin", "3%"])
    assert code in (0, 1, 4) and out == expected.to_text() + "\n"
    code, out, _ = run_cli(["decide", *paths, "--margin", "0.03", "--format", "markdown"])
    assert out == expected.to_markdown() + "\n"


def test_json_is_the_results(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE, BETTER, SAME, SHORT])
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert code == 1
    document = json.loads(out)
    assert document["schema"] == "fastperf.decide/1"
    assert document == json.loads(library(path).to_json())
    assert decisions_of(out) == {"slower": "worse", "faster": "better", "same": "equivalent",
                                 "short": "continue"}


def test_csv_and_parquet_are_the_results_table(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE, BETTER, SAME, SHORT])
    expected = library(path).benchmarks
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["benchmark"] for r in rows] == expected.column("benchmark").to_pylist()
    assert [r["decision"] for r in rows] == expected.column("decision").to_pylist()
    assert [float(r["ratio"]) for r in rows] == pytest.approx(
        expected.column("ratio").to_pylist(), rel=1e-12)
    written = tmp_path / "decisions.parquet"
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "parquet",
                            "-o", written])
    assert code == 1 and out == ""
    assert pq.read_table(written).equals(expected)


def test_html_is_the_report_page(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [BETTER, SAME])
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--format", "html"])
    assert code == 0, err
    assert out.lstrip().lower().startswith("<!doctype html")


# ---------------------------------------------------------------------------------------------
# the options, passed on to fastperf.decide


def nested_processes(path, processes=4, iterations=5, ratio=1.0, seed=1):
    """A CSV of `processes` processes of `iterations` values per variant, no rounds."""
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["benchmark", "variant", "process", "unit", "value"])
        for variant, scale in (("base", 1.0), ("pr", ratio)):
            for p in range(processes):
                shift = rng.normal(0.0, 0.01)
                for _ in range(iterations):
                    writer.writerow(["b", variant, p, "ns",
                                     100.0 * scale * np.exp(shift + rng.normal(0.0, 0.01))])
    return str(path)


def test_levels_none_is_the_flat_analysis(tmp_path):
    path = nested_processes(tmp_path / "nested.csv")
    _, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    row = json.loads(out)["benchmarks"][0]
    assert (row["analysis"], row["units"]) == ("process", 4)  # 4 processes per variant
    _, flat, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json",
                          "--levels", "none"])
    row = json.loads(flat)["benchmarks"][0]
    assert (row["analysis"], row["units"]) == ("run", 20)  # 4 x 5 runs per variant
    assert json.loads(flat) == json.loads(library(path, levels="none").to_json())


def test_block_none_pairs_the_runs_instead_of_the_rounds(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [BETTER])
    _, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert json.loads(out)["benchmarks"][0]["analysis"] == "round"
    _, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json",
                         "--block", "none"])
    assert json.loads(out) == json.loads(library(path, block="none").to_json())


def test_direction_decides_which_way_is_worse(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE])
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert (code, decisions_of(out)) == (1, {"slower": "worse"})  # ns: lower is better
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json",
                            "--direction", "ns=higher"])
    assert (code, decisions_of(out)) == (0, {"slower": "better"})
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json",
                            "--higher-is-better"])
    assert (code, decisions_of(out)) == (0, {"slower": "better"})


def test_a_change_without_direction_is_changed_not_worse(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE], unit=None)
    code, out, err = run_cli(["decide", path, "--margin", "5%", "--format", "json"])
    assert (code, decisions_of(out)) == (0, {"slower": "changed"})
    assert "1 changed" in summary_line(err)


def test_unit_keeps_one_unit(tmp_path):
    # Go's files carry sec/op only; two units here: the same rounds in ns and in B/op
    first = write_rounds(tmp_path / "ns.csv", [WORSE], unit="ns")
    second = write_rounds(tmp_path / "bytes.csv", [SAME], unit="B/op")
    both = tmp_path / "both.csv"
    both.write_text(Path(first).read_text() + "".join(Path(second).read_text()
                                                      .splitlines(True)[1:]))
    code, out, _ = run_cli(["decide", both, "--margin", "5%", "--format", "json",
                            "--unit", "B/op"])
    rows = json.loads(out)["benchmarks"]
    assert code == 0 and [(r["benchmark"], r["unit"]) for r in rows] == [("same", "B/op")]


def test_alpha_adjust_and_by_are_passed_on(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE, BETTER, SAME, SHORT])
    for extra, kwargs in [(["--alpha", "0.01"], {"alpha": 0.01}),
                          (["--adjust", "bonferroni"], {"adjust": "bonferroni"}),
                          (["--adjust", "none"], {"adjust": "none"}),
                          (["--by", "benchmark"], {"by": "benchmark"})]:
        _, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json", *extra])
        assert json.loads(out) == json.loads(library(path, **kwargs).to_json()), extra


def test_baseline_and_candidate(tmp_path):
    path = write_rounds(tmp_path / "runs.csv", [WORSE])
    # swapped: the candidate is now 20% faster
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json",
                            "--baseline", "pr", "--candidate", "base"])
    assert (code, decisions_of(out)) == (0, {"slower": "better"})
    code, out, _ = run_cli(["decide", path, "--margin", "5%", "--format", "json",
                            "--candidate", "base"])
    assert (code, decisions_of(out)) == (0, {"slower": "better"})


# ---------------------------------------------------------------------------------------------
# bad input: one line, exit status 2


def test_margin_is_required():
    code, out, err = run_cli(["decide", OLD, NEW])
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip().splitlines() == [
        "fastperf decide: error: the following arguments are required: --margin "
        "(see fastperf decide --help)"]


def test_bad_adjust_is_refused_listing_the_choices():
    code, out, err = run_cli(["decide", OLD, NEW, "--margin", "2%", "--adjust", "bh"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--adjust" in err and all(c in err for c in ("'e-bh'", "'bonferroni'", "'none'"))


@pytest.mark.parametrize("argv, match", [
    (["--baseline", "zzz"], "variant 'zzz' not found"),
    (["--candidate", "zzz"], "variant 'zzz' not found"),
    (["--margin", "abc"], "--margin must be"),
    (["--margin", "0"], "--margin must be"),
    (["--margin", "100%"], "--margin must be"),
    (["--margin", "nan"], "--margin must be"),
    (["--alpha", "1.5"], "--alpha must be"),
    (["--alpha", "nan"], "--alpha must be"),
    (["--by", "suite"], "suite"),
    (["--unit", "B/s"], "--unit 'B/s'"),
    (["--levels", "fork"], "fork"),
    (["--undecided-only", "--format", "json"], "--undecided-only"),
])
def test_bad_input_is_one_line_exit_2(argv, match):
    argv = [*argv, "--margin", "2%"] if "--margin" not in argv else argv
    code, out, err = run_cli(["decide", OLD, NEW, *argv])
    assert_clean_error(code, err, match=match)
    assert out == ""


def test_more_than_two_variants_need_a_candidate(tmp_path):
    two = write_rounds(tmp_path / "two.csv", [SAME])
    other = write_rounds(tmp_path / "other.csv", [SAME], variants=("base", "other"))
    three = tmp_path / "three.csv"
    three.write_text(Path(two).read_text() + "".join(Path(other).read_text()
                                                     .splitlines(True)[1:]))
    code, out, err = run_cli(["decide", three, "--margin", "5%"])
    assert_clean_error(code, err, match="--candidate")
    code, out, err = run_cli(["decide", three, "--margin", "5%", "--candidate", "pr",
                              "--format", "json"])
    assert json.loads(out)["summary"]["baseline"] == "base"


# ---------------------------------------------------------------------------------------------
# docs/cli.md's example, as printed


def documented_session():
    """The ``$`` commands of docs/cli.md's decide example, each with the lines it prints."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\s*\$ fastperf decide (.*?)```", text, re.S).group(0)
    session, lines = [], block.splitlines()[1:-1]
    for line in (line[2:] if line.startswith("  ") else line for line in lines):
        if line.startswith("$ "):
            session.append((line[2:], []))
        else:
            session[-1][1].append(line)
    return session


def test_the_documented_example_prints_what_the_docs_show(monkeypatch):
    monkeypatch.chdir(REPO)
    session = documented_session()
    assert [command for command, _ in session if command.startswith("fastperf decide")]
    status = None
    for command, printed in session:
        if command == "echo $?":
            assert printed == [str(status)]
            continue
        argv = shlex.split(command)
        assert argv[0] == "fastperf"
        status, out, _ = run_cli(argv[1:])
        assert out.rstrip("\n").splitlines() == printed, command
