"""Command lines that were accepted while they contradicted themselves, overwrote their input or
printed what a terminal acts on. Oracle: the contract (docs/cli.md): an option is refused
rather than ignored, with one line naming it (exit status 2); no input is destroyed.
"""
from __future__ import annotations

import gzip
import os
import shutil

import pytest

from cli_calls import run_cli

HERE = os.path.dirname(__file__)
OLD = os.path.join(HERE, os.pardir, "examples", "old.txt")
NEW = os.path.join(HERE, os.pardir, "examples", "new.txt")


def refused(argv, *phrases, prefix="fastperf"):
    code, out, err = run_cli(argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(prefix), lines[0]
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


def test_the_output_may_not_be_an_input(tmp_path):
    """-o naming an input file overwrote it with the report (exit 0)."""
    old = tmp_path / "old.txt"
    shutil.copy(OLD, old)
    before = old.read_bytes()
    refused(["compare", old, NEW, "-o", old], "-o/--output", "is an input")
    assert old.read_bytes() == before
    code, _, err = run_cli(["compare", old, NEW, "-o", tmp_path / "out.txt"])
    assert code == 0, err


@pytest.mark.parametrize("argv, phrase", [
    (["--direction", "sec/op=higher,sec/op=lower"], "given both directions"),
    (["--higher-is-better", "--direction", "sec/op=lower"], "give one of them"),
])
def test_options_that_contradict_or_say_nothing(argv, phrase):
    """The last --direction entry won; --direction silently overrode --higher-is-better."""
    refused(["compare", OLD, NEW, *argv], phrase)


def test_an_empty_list_option_is_refused():
    """An empty --confidences printed an empty table of speedups (the API's confidences=()
    stays: the test without the table, as the validity suite calls it)."""
    refused(["compare", OLD, NEW, "--protocol", "hpt", "--confidences", ""],
            "--confidences", "one number or more", prefix="fastperf compare: error:")


def test_the_same_direction_twice_is_no_conflict():
    code, _, err = run_cli(["compare", OLD, NEW, "--direction", "sec/op=lower,sec/op=lower"])
    assert code == 0, err


def write_config(folder, *, weight="", initial="1\n2\n3\n4\n5\n6\n7\n8\n"):
    (folder / "a0.txt").write_text(initial)
    (folder / "a1.txt").write_text("2\n3\n4\n5\n6\n7\n8\n9\n")
    config = folder / "config.csv"
    config.write_text(f"a,a0.txt,a1.txt{',' + weight if weight else ''}\n")
    return config


@pytest.mark.parametrize("option", [["--variants", "x,y"], ["--benchmark", "zzz"],
                                    ["--value", "yyy"], ["--input-format", "jmh"],
                                    ["--metric", "cpu_time"], ["--memory-limit", "1000000"]])
def test_reading_options_do_not_apply_to_a_configuration(tmp_path, option):
    """--config reads the Speedup-Test tool's own files: the options of reading FILEs were
    ignored there (exit 0)."""
    config = write_config(tmp_path)
    code, _, err = run_cli(["compare", "--config", config])
    assert code == 0, err
    refused(["compare", "--config", config, *option], option[0], "--config")


def test_a_configuration_names_its_bad_weight_and_empty_sample(tmp_path):
    """A weight that is not a number made the line a "header" ("no benchmark lines after the
    header"); an empty sample file left one variant ("give --baseline and --candidate")."""
    refused(["compare", "--config", write_config(tmp_path, weight="abc")],
            "config.csv:1", "weight must be a number", "'abc'")
    refused(["compare", "--config", write_config(tmp_path, initial="# nothing\n")],
            "config.csv:1", "a0.txt holds no value")


def test_compression_nested_too_deep_is_said(tmp_path):
    """Five layers of gzip: refused naming the limit (the fifth layer's bytes were tried as
    CSV and printed raw); four layers read."""
    with open(OLD, "rb") as fh:
        content = fh.read()
    for layers in (4, 5):
        data = content
        for _ in range(layers):
            data = gzip.compress(data)
        path = tmp_path / f"old{layers}.txt.gz"
        path.write_bytes(data)
        if layers == 4:
            code, _, err = run_cli(["describe", path])
            assert code == 0, err
        else:
            refused(["describe", path], "compressed more than 4 times over")


def test_unknown_options_point_at_the_subcommands_help():
    refused(["report", OLD, NEW, "--format", "json"], "unrecognized arguments: --format json",
            "see fastperf report --help", prefix="fastperf report: error:")
    # given before the subcommand, an unknown option is the command's own
    refused(["--bogus", "describe", OLD], "unrecognized arguments: --bogus",
            "see fastperf --help", prefix="fastperf: error:")


def test_names_with_control_characters_do_not_reach_the_terminal(tmp_path):
    """A benchmark name holding an escape sequence or a line break is shown escaped in the
    text table (it coloured the terminal, or broke the table's alignment)."""
    path = tmp_path / "runs.csv"
    rows = ["benchmark,variant,value"]
    rows += [f'"a\x1b[31mred",x,{v}' for v in range(1, 9)]
    rows += [f'"b\nline",x,{v}' for v in range(1, 9)]
    rows += [f'"c\u00a0nbsp \U0001f469\u200d\U0001f4bb",x,{v}' for v in range(1, 9)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = run_cli(["describe", path])
    assert code == 0, err
    assert "\x1b" not in out and "a\\x1b[31mred" in out and "b\\nline" in out
    # a non-breaking space and an emoji's zero-width joiner are text, not terminal controls
    assert "c\u00a0nbsp \U0001f469\u200d\U0001f4bb" in out
    lines = out.splitlines()
    assert len(lines) >= 4 and lines[2].startswith("a\\x1b") and lines[3].startswith("b\\nline")
    columns = {line.index("  x  ") for line in lines[2:4]}
    assert len(columns) == 1  # both rows aligned


def test_messages_that_contradicted_themselves(tmp_path):
    """A range for a finite number was written "(0, inf]" while inf is refused; a table with
    no rows asked for --baseline and --candidate ("the input has 0 variants []")."""
    import fastperf

    with pytest.raises(fastperf.InputError, match=r"penalty must be a finite number in "
                                                  r"\(0, inf\), got inf"):
        fastperf.changepoints(fastperf.simulate(2, 20, seed=1).table, order="run",
                              penalty=float("inf"))
    empty = tmp_path / "empty.csv"
    empty.write_text("benchmark,variant,value\n")
    for argv in (["compare", empty], ["decide", empty, "--margin", "0.05"]):
        refused(argv, "the measurement table is empty (0 rows)")
