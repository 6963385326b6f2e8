"""CLI options: every numeric option of every command is checked, and an option a
protocol does not use is refused, never ignored.

Red-team reproducer: ``fastperf compare old.txt new.txt --protocol hpt --confidence nan`` (and
sparc, speedup-test; ``inf``, ``1e309``) exited 0: the option was never passed to those
protocols, so nothing checked it.

Oracles: the domain of each option, written out here by hand from docs/cli.md and the
functions' documented ranges (``DOMAINS``), and which protocol uses which option, written out
by hand from docs/cli.md (``USERS``); the exit status and the one stderr line are checked
against them for every (command, protocol, option, value). The pass-through tests compare
the command's JSON with the library function called directly with the values given.
"""
from __future__ import annotations

import json
import math
import os
import re

import pytest

import fastperf
from fastperf.cli import main


HERE = os.path.dirname(__file__)
OLD = os.path.join(HERE, os.pardir, "examples", "old.txt")
NEW = os.path.join(HERE, os.pardir, "examples", "new.txt")

#: The hostile values of the brief, and two in-range ones (0.5, 5 for counts), and 1.5.
VALUES = ["nan", "inf", "-inf", "-1", "0", "1e309", "abc", "0.5", "1.5", "5"]


def _float(text):
    """The number a text spells, or None (a string is never a number)."""
    try:
        return float(text)
    except ValueError:
        return None


def open_unit(text):
    x = _float(text)
    return x is not None and 0 < x < 1


def positive_finite(text):
    x = _float(text)
    return x is not None and math.isfinite(x) and x > 0


def nonnegative_finite(text):
    x = _float(text)
    return x is not None and math.isfinite(x) and x >= 0


def half_open_unit(text):  # (0, 1]: the Speedup-Test's precision r
    x = _float(text)
    return x is not None and 0 < x <= 1


def whole(low, high=None):
    def accepted(text):
        if not re.fullmatch(r"-?\d+", text):
            return False
        return int(text) >= low and (high is None or int(text) <= high)
    return accepted


#: option -> which values it accepts (hand-written from the docs).
DOMAINS = {
    "--confidence": open_unit, "--alpha": open_unit, "--assurance": open_unit,
    "--margin": open_unit, "--proportion-confidence": open_unit, "--confidences": open_unit,
    "--threshold": nonnegative_finite, "--fail-threshold": nonnegative_finite,
    "--large-sample": whole(0), "--jobs": whole(1, 256),
    "--process-cost": positive_finite, "--iteration-cost": positive_finite,
}
PLAN_PRECISION = positive_finite
SPEEDUP_PRECISION = half_open_unit

#: command -> its numeric options (and the extra arguments the command needs).
OTHER_COMMANDS = {
    "describe": (["--confidence"], []),
    "aggregate": (["--confidence"], []),
    "plan": (["--confidence", "--precision", "--assurance", "--process-cost",
              "--iteration-cost"], []),
    "anova": (["--alpha"], []),
    "factorial": (["--confidence"], ["--factors", "variant"]),
}
PROTOCOLS = ["compare", "speedup-test", "sparc", "hpt"]
#: compare's numeric options -> the protocols that use them (docs/cli.md).
USERS = {
    "--alpha": PROTOCOLS, "--confidence": ["compare"], "--margin": ["compare", "sparc"],
    "--threshold": ["compare"], "--fail-threshold": ["compare"],
    "--large-sample": ["speedup-test"], "--precision": ["speedup-test"],
    "--proportion-confidence": ["speedup-test"], "--confidences": ["hpt"],
}


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def names(flag, err):
    """Whether `err` names `flag` itself (``--confidence``, not ``--confidences``)."""
    return re.search(re.escape(flag) + r"(?![\w-])", err) is not None


#: how the value shows in the message (1e309 is inf once read as a number, and stays 1e309
#: where a whole number is expected)
SHOWN = {"1e309": ("inf", "1e309"), "-1": ("-1",), "0": ("0",), "nan": ("nan",), "inf": ("inf",),
         "-inf": ("-inf",), "abc": ("abc",), "1.5": ("1.5",), "0.5": ("0.5",), "5": ("5",),
         "257": ("257",)}


def assert_refused(code, out, err, flag, value):
    lines = err.strip().splitlines()
    assert code == 2, (flag, value, code, err)
    assert len(lines) == 1 and lines[0].startswith("fastperf"), err
    assert names(flag, lines[0]), (flag, lines[0])
    assert any(shown in lines[0] for shown in SHOWN[value]), (value, lines[0])
    assert "must be" in lines[0] or "expected" in lines[0], lines[0]  # what is accepted
    assert "Traceback" not in err


def cases_other():
    for command, (flags, extra) in OTHER_COMMANDS.items():
        for flag in flags:
            for value in VALUES:
                yield command, flag, value, extra


@pytest.mark.parametrize("command, flag, value, extra", list(cases_other()))
def test_numeric_options_of_every_command(command, flag, value, extra, capsys):
    accepted = PLAN_PRECISION if (command, flag) == ("plan", "--precision") else DOMAINS[flag]
    code, out, err = run([command, OLD, NEW, *extra, f"{flag}={value}"], capsys)
    if accepted(value):
        assert code == 0, err
        assert out and err == ""
    else:
        assert_refused(code, out, err, flag, value)


def cases_compare():
    for protocol in PROTOCOLS:
        for flag, users in USERS.items():
            for value in VALUES if protocol in users else ["nan", "0.5"]:
                yield protocol, flag, value


@pytest.mark.parametrize("protocol, flag, value", list(cases_compare()))
def test_numeric_options_of_every_protocol(protocol, flag, value, capsys):
    gate = flag == "--fail-threshold" and protocol == "compare"
    extra = ["--fail-on", "worse"] if gate else []
    argv = ["compare", OLD, NEW, "--protocol", protocol, *extra, f"{flag}={value}"]
    code, out, err = run(argv, capsys)
    if protocol not in USERS[flag]:  # not used: refused whatever the value
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, err
        assert names(flag, lines[0]) and "belongs to --protocol" in lines[0]
        for user in USERS[flag]:
            assert user in lines[0]
        return
    accepted = SPEEDUP_PRECISION if flag == "--precision" else DOMAINS[flag]
    if not accepted(value):
        assert_refused(code, out, err, flag, value)
    elif flag == "--fail-threshold":  # the gate: 1 on a regression of that size, 0 if none
        assert code in (0, 1) and out
        assert err.strip().splitlines()[-1].endswith("pass" if code == 0 else ")")
    else:
        assert code == 0, err
        assert out


@pytest.mark.parametrize("protocol", ["hpt", "sparc", "speedup-test"])
@pytest.mark.parametrize("value", ["nan", "inf", "1e309"])
def test_redteam_confidence_not_ignored(protocol, value, capsys):
    code, out, err = run(["compare", OLD, NEW, "--protocol", protocol, "--confidence", value],
                         capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and names("--confidence", err)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "abc", "1.5", "257"])
def test_warmup_jobs(value, capsys):
    # the valid values would run the warmup (minutes): only the refusals here
    code, out, err = run(["warmup", f"--jobs={value}"], capsys)
    assert_refused(code, out, err, "--jobs", value)


def test_confidences_each_item(capsys):
    code, out, err = run(["compare", OLD, NEW, "--protocol", "hpt", "--confidences",
                          "0.9,nan"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "each of --confidences" in err and "nan" in err


def test_fail_threshold_needs_fail_on(capsys):
    code, out, err = run(["compare", OLD, NEW, "--fail-threshold", "2%"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--fail-on" in err


@pytest.mark.parametrize("flag, value", [("--threshold", "2%"), ("--fail-threshold", "150%")])
def test_percent_values(flag, value, capsys):
    extra = ["--fail-on", "worse"] if flag == "--fail-threshold" else []
    code, out, err = run(["compare", OLD, NEW, *extra, flag, value], capsys)
    assert code == 0, err


@pytest.mark.parametrize("value", ["nan%", "inf%", "abc%", "-1%"])
def test_percent_hostile(value, capsys):
    code, out, err = run(["compare", OLD, NEW, f"--threshold={value}"], capsys)
    assert code == 2 and err.count("\n") == 1 and names("--threshold", err)


def test_config_option_refused_elsewhere(tmp_path, capsys):
    code, out, err = run(["compare", "--config", str(tmp_path / "c.csv"), "--protocol",
                          "sparc"], capsys)
    assert code == 2 and names("--config", err) and "speedup-test" in err


@pytest.mark.parametrize("flag, protocol, instead", [
    ("--confidence", "hpt", "--confidences"),
    ("--confidence", "speedup-test", "--proportion-confidence"),
])
def test_refusal_names_the_protocols_spelling(flag, protocol, instead, capsys):
    code, out, err = run(["compare", OLD, NEW, "--protocol", protocol, flag, "0.9"], capsys)
    assert code == 2 and instead in err


# ---------------------------------------------------------------------------------------------
# the values given reach the function (the library called directly is the oracle)

def cli_json(argv, capsys):
    code, out, err = run([*argv, "--format", "json"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_speedup_options_pass_through(capsys):
    doc = cli_json(["compare", OLD, NEW, "--protocol", "speedup-test", "--large-sample", "3",
                    "--precision", "0.2", "--proportion-confidence", "0.8", "--method",
                    "exact"], capsys)
    table = fastperf.read([OLD, NEW])
    want = fastperf.speedup_test(table, baseline="old", candidate="new", large_sample=3,
                                 precision=0.2, proportion_confidence=0.8,
                                 median_method="exact")
    for key in ("large_sample", "precision", "proportion_confidence", "median_method"):
        assert doc["summary"][key] == want.summary[key]
    assert doc["summary"]["median_method"] == "exact"
    assert doc["summary"]["large_sample"] == 3


def test_hpt_confidences_pass_through(capsys):
    doc = cli_json(["compare", OLD, NEW, "--protocol", "hpt", "--confidences", "0.6,0.7"],
                   capsys)
    assert [row["confidence"] for row in doc["speedups"]] == [0.6, 0.7]


def test_compare_defaults_are_the_functions(capsys):
    doc = cli_json(["compare", OLD, NEW], capsys)
    table = fastperf.read([OLD, NEW])
    want = fastperf.compare(table, baseline="old", candidate="new")
    assert doc["summary"]["confidence"] == want.summary["confidence"] == 0.95
    assert doc["summary"]["alpha"] == 0.05


# ---------------------------------------------------------------------------------------------
# every option of compare is either used by all protocols or refused by those that do not use it

#: compare's other options a protocol may not use, with a valid value (docs/cli.md's table)
OTHER_USERS = {
    ("--by", "benchmark"): ["compare"], ("--direction", "ns/op=lower"): ["compare"],
    ("--sort", "name"): ["compare"], ("--fail-on", "worse"): ["compare"],
    ("--adjust", "none"): ["compare", "sparc"], ("--weights", "w"): ["speedup-test"],
    ("--reports", "reports"): ["speedup-test"], ("--pair", "run"): ["sparc"],
    ("--scale", "log"): ["sparc", "hpt"], ("--warmup", "auto"): ["compare", "speedup-test", "sparc"],
}
#: the options every protocol uses
EVERY_PROTOCOL = {"--alpha", "--baseline", "--candidate", "--method", "--higher-is-better",
                  "--unit", "--protocol", "--input-format", "--benchmark", "--variant",
                  "--value", "--variants", "--metric", "--format", "-o", "--output", "--debug",
                  "-h", "--help", "--top", "--no-progress", "--memory-limit",
                  "--max-decompressed", "--max-expansion", "--levels", "--block"}


def compare_options():
    from fastperf.cli_args import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {s for action in sub.choices["compare"]._actions for s in action.option_strings}


def test_every_compare_option_is_classified():
    classified = set(USERS) | {flag for flag, _ in OTHER_USERS} | {"--config"} | EVERY_PROTOCOL
    assert compare_options() == classified


@pytest.mark.parametrize("protocol, flag, value", [
    (protocol, flag, value) for (flag, value), users in OTHER_USERS.items()
    for protocol in PROTOCOLS if protocol not in users])
def test_options_of_other_protocols_are_refused(protocol, flag, value, capsys):
    users = OTHER_USERS[(flag, value)]
    code, out, err = run(["compare", OLD, NEW, "--protocol", protocol, flag, value], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert names(flag, err) and all(user in err for user in users)
