"""``fastperf check``: its exit statuses (0; 1 with ``--fail-on flags`` when a group is flagged;
2 on bad input, one line), how files become variants, the options passed on, and every output
format.

Oracles: the files are written here with known defects (a noisy group, drawn with a 50 %
spread, and steady groups with a 1 % spread and no ties), so which group is flagged is known by
construction; the printed rows are checked against `fastperf.check` called on the same table
(its numbers are checked against numpy and scipy in tests/test_check.py), and the group count
against the files' own (benchmark, variant) pairs, counted here in Python.
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


def write_runs(path, groups: dict, seed: int = 0, variant: bool = True) -> str:
    """A CSV with per benchmark (and variant) 30 runs, log-normal with the group's spread."""
    rng = np.random.default_rng(seed)
    rows = []
    for (name, var), sigma in groups.items():
        for value in 1e-3 * np.exp(rng.normal(0.0, sigma, 30)):
            rows.append({"benchmark": name, **({"variant": var} if variant else {}),
                         "value": float(value)})
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


STEADY = {("alpha", "base"): 0.01, ("beta", "base"): 0.01, ("alpha", "pr"): 0.01,
          ("beta", "pr"): 0.01}
NOISY = {**STEADY, ("gamma", "pr"): 0.5}


@pytest.fixture
def noisy_file(tmp_path):
    return write_runs(tmp_path / "noisy.csv", NOISY)


@pytest.fixture
def steady_file(tmp_path):
    return write_runs(tmp_path / "steady.csv", STEADY)


def groups_of(out: str) -> dict:
    return {(r["benchmark"], r["variant"]): r for r in json.loads(out)["groups"]}


def test_exit_0_and_the_listing(noisy_file):
    code, out, err = run_cli(["check", noisy_file])
    assert code == 0, err
    assert "gamma (pr): noisy" in out
    assert "alpha (base)" not in out  # steady groups are not listed
    assert "1 of 5 groups flagged: noisy 1" in out


def test_fail_on_flags(noisy_file, steady_file):
    code, out, err = run_cli(["check", noisy_file, "--fail-on", "flags"])
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("fastperf check: 1 of 5 groups flagged")
    assert "FAIL (gamma (pr))" in err
    code, out, err = run_cli(["check", steady_file, "--fail-on", "flags"])
    assert code == 0, err
    assert err.strip().splitlines()[-1].endswith(": pass")
    assert out.startswith("no group flagged")
    code, _, err = run_cli(["check", noisy_file])  # no gate: 0 whatever is flagged
    assert code == 0 and "fastperf check:" not in err


def test_rows_equal_the_function_on_the_same_table(noisy_file):
    code, out, err = run_cli(["check", noisy_file, "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "fastperf.check/1"
    want = fastperf.check(fastperf.read(noisy_file))
    assert doc["groups"] == json.loads(want.to_json())["groups"]
    assert set(groups_of(out)) == set(NOISY)


def test_several_files_are_variants_named_by_the_files(tmp_path):
    old = write_runs(tmp_path / "old.csv", {("alpha", None): 0.01, ("beta", None): 0.01},
                     variant=False)
    new = write_runs(tmp_path / "new.csv", {("alpha", None): 0.01, ("beta", None): 0.5},
                     seed=1, variant=False)
    code, out, err = run_cli(["check", old, new, "--format", "json"])
    assert code == 0, err
    rows = groups_of(out)
    assert set(rows) == {(b, v) for b in ("alpha", "beta") for v in ("old", "new")}
    assert rows[("beta", "new")]["flags"] == "noisy"
    code, out, err = run_cli(["check", old, new, "--variants", "a,b"])
    assert code == 0, err
    assert "beta (b): noisy" in out


def test_variant_none_checks_each_benchmark_once(noisy_file):
    code, out, err = run_cli(["check", noisy_file, "--variant", "none", "--format", "json"])
    assert code == 0, err
    names = [r["benchmark"] for r in json.loads(out)["groups"]]
    assert names == ["alpha", "beta", "gamma"]


def test_by_levels_and_block_reach_the_function(tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "nested.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("benchmark,variant,process,value\n")
        for p in range(6):
            for v in 1e-3 * np.exp(rng.normal(0.0, 0.01, 5)):
                f.write(f"x,base,{p},{float(v)!r}\n")
    code, out, err = run_cli(["check", path, "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["structure"] == "process" and doc["groups"][0]["units"] == 6
    code, out, err = run_cli(["check", path, "--format", "json", "--levels", "none"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["structure"] == "flat" and doc["groups"][0]["units"] == 30
    code, out, err = run_cli(["check", path, "--format", "json", "--by", "benchmark,process",
                              "--levels", "none"])
    assert code == 0, err
    assert len(json.loads(out)["groups"]) == 6


@pytest.mark.parametrize("argv, match", [
    (["--by", "nope"], "nope"),
    (["--levels", "nope"], "--levels"),
    (["--block", "nope"], "--block"),
])
def test_bad_options_exit_2_with_one_line(noisy_file, argv, match):
    code, _, err = run_cli(["check", noisy_file, *argv])
    assert_clean_error(code, err, match=match)


def test_bad_input_exit_2_with_one_line(tmp_path):
    code, _, err = run_cli(["check", tmp_path / "missing.csv"])
    assert_clean_error(code, err)
    empty = tmp_path / "empty.csv"
    empty.write_text("benchmark,variant,value\n")
    code, _, err = run_cli(["check", empty])
    assert_clean_error(code, err)
    code, _, err = run_cli(["check", tmp_path / "x.csv", "--fail-on", "worse"])
    assert code == 2 and "invalid choice" in err


def test_every_output_format(noisy_file, tmp_path):
    code, out, err = run_cli(["check", noisy_file, "--format", "markdown"])
    assert code == 0, err
    assert out.startswith("| group |") and "| gamma (pr) |" in out
    code, out, err = run_cli(["check", noisy_file, "--format", "csv"])
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(NOISY) and rows[0]["benchmark"] == "alpha"
    assert [r["flags"] for r in rows].count("noisy") == 1
    target = tmp_path / "out.parquet"
    code, _, err = run_cli(["check", noisy_file, "--format", "parquet", "-o", target])
    assert code == 0, err
    assert pq.read_table(target).num_rows == len(NOISY)
    page = tmp_path / "check.html"
    code, _, err = run_cli(["check", noisy_file, "--format", "html", "-o", page])
    assert code == 0, err
    assert "gamma" in page.read_text(encoding="utf-8")
    target = tmp_path / "out.json"
    code, _, err = run_cli(["check", noisy_file, "--format", "json", "-o", target])
    assert code == 0, err
    assert json.loads(target.read_text())["schema"] == "fastperf.check/1"


def test_help_lists_the_command():
    code, out, _ = run_cli(["check", "--help"])
    assert code == 0
    assert "--fail-on {flags}" in out and "examples:" in out
    code, out, _ = run_cli(["--help"])
    assert code == 0
    assert "check" in out


def test_the_documented_example_prints_what_the_docs_show(monkeypatch):
    """docs/cli.md's ``check`` example: the command and the lines it prints."""
    monkeypatch.chdir(REPO)
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\s*\$ fastperf check (.*?)```", text, re.S).group(0)
    lines = [line[2:] if line.startswith("  ") else line for line in block.splitlines()[1:-1]]
    assert lines[0].startswith("$ fastperf check ")
    code, out, err = run_cli(shlex.split(lines[0][2:])[1:])
    assert code == 0, err
    assert out.rstrip("\n").splitlines()[:len(lines) - 1] == lines[1:]


def test_a_summary_file_is_checked_for_noise_and_few_runs(tmp_path):
    """A summary-only file (pytest-benchmark saved without its rounds: n, mean, sd):
    ``noisy`` (sd / mean = 0.2 > 0.1) and ``few runs`` (3 < 5) by hand; ``--fail-on flags``
    exits 1."""
    doc = {"benchmarks": [
        {"name": "b0", "fullname": "b0", "stats": {"rounds": 10, "mean": 1.0, "stddev": 0.05}},
        {"name": "b1", "fullname": "b1", "stats": {"rounds": 3, "mean": 0.5, "stddev": 0.1}}]}
    path = tmp_path / "0001_summaries.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run_cli(["check", str(path), "--fail-on", "flags"])
    assert code == 1, err
    assert "b1 (" in out and "): noisy, few runs" in out
    assert "b0 (" not in out
    assert "1 of 2 groups flagged: noisy 1, few runs 1 (structure: summaries)" in out
