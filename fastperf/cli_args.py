"""The arguments of the ``fastperf`` command: its parser, subcommands and option types.

`build_parser` makes the parser `fastperf.cli.main` runs. The option types turn text into
values without judging them: a number's range is checked once, by the function the option feeds
(`fastperf.data.validation`), and `fastperf.cli` names the option in that one-line error (exit
status 2); text that is not a number is passed on for that check to refuse. `PROTOCOL_OPTIONS`
says which of ``compare``'s protocols use which option.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from fastperf import __version__
from fastperf.io.content import MAX_DECOMPRESSED, MAX_EXPANSION
from fastperf.io.read import FORMAT_ALIASES
from fastperf.io.read import FORMATS as INPUT_FORMATS
from fastperf.kernels.builds import native_status
from fastperf.protocols.decide import DECIDE_ADJUSTMENTS

__all__ = ["build_parser", "column_list", "FORMATS", "INPUT_FORMATS", "PROTOCOLS",
           "PROTOCOL_OPTIONS", "PROTOCOL_SPELLINGS", "READ_OPTION_DEFAULTS", "Parser",
           "VersionAction", "version_text",
           "input_format", "STDIO", "EXIT_OK", "EXIT_GATE_FAILED", "EXIT_BAD_INPUT",
           "EXIT_INTERNAL_ERROR", "EXIT_UNDECIDED", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE",
           "EXIT_STATUSES",
           "EXAMPLES"]

FORMATS = ["text", "markdown", "json", "csv", "parquet", "html"]
#: The format an output file's extension implies when --format is not given.
FORMAT_OF_EXTENSION = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json",
                       ".csv": "csv", ".parquet": "parquet", ".txt": "text"}


def output_format(fmt: str | None, output: str | None) -> str:
    """`fmt`, or when None the format the extension of `output` implies (text otherwise)."""
    if fmt is not None:
        return fmt
    suffix = os.path.splitext(output or "")[1].lower()
    return FORMAT_OF_EXTENSION.get(suffix, "text")
PROTOCOLS = ["compare", "speedup-test", "sparc", "hpt"]
#: The options of ``fastperf compare`` that only some protocols use, and those protocols; the
#: others refuse them (exit status 2) rather than ignore them. Every other option of ``compare``
#: (the inputs, --baseline, --candidate, --alpha, --method, --higher-is-better, --unit and the
#: output) is used by every protocol; --method is the Speedup-Test's ``median_method``.
PROTOCOL_OPTIONS: dict[str, tuple[str, ...]] = {
    "--config": ("speedup-test",),
    "--by": ("compare",), "--threshold": ("compare",), "--direction": ("compare",),
    "--confidence": ("compare",), "--sort": ("compare",), "--fail-on": ("compare",),
    "--fail-threshold": ("compare",),
    "--adjust": ("compare", "sparc"), "--margin": ("compare", "sparc"),
    "--weights": ("speedup-test",), "--reports": ("speedup-test",),
    "--large-sample": ("speedup-test",), "--precision": ("speedup-test",),
    "--proportion-confidence": ("speedup-test",),
    "--pair": ("sparc",), "--scale": ("sparc", "hpt"), "--confidences": ("hpt",),
    "--warmup": ("compare", "speedup-test", "sparc"),
}
#: (option, protocol) -> the option that protocol takes for a like concept, named in the refusal.
PROTOCOL_SPELLINGS: dict[tuple[str, str], str] = {
    ("--confidence", "hpt"): "--confidences", ("--confidences", "compare"): "--confidence",
    ("--confidence", "speedup-test"): "--proportion-confidence",
    ("--proportion-confidence", "compare"): "--confidence",
    ("--threshold", "sparc"): "--margin",
}
#: A FILE argument or ``-o`` value meaning standard input / standard output.
STDIO = "-"

#: The exit statuses of the ``fastperf`` command (docs/cli.md, "Exit status").
EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 3
EXIT_UNDECIDED = 4  # fastperf decide: some benchmark needs more runs
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command that pipe closed
#: status -> meaning, as ``fastperf --help`` prints them.
EXIT_STATUSES: dict[int, str] = {
    EXIT_OK: "success; with --fail-on worse: the gate passed; decide: every benchmark "
             "decided, none worse",
    EXIT_GATE_FAILED: "--fail-on worse: the gate failed (a change for the worse); decide: a "
                      "benchmark decided worse; check --fail-on flags: a group flagged",
    EXIT_BAD_INPUT: "bad input or usage, with one line on stderr saying why",
    EXIT_INTERNAL_ERROR: "internal error (a bug), with one line asking for a report "
                         "(--debug: the traceback)",
    EXIT_UNDECIDED: "decide: some benchmark undecided, none worse (the output lists the runs "
                    "each still needs)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "standard output closed early (piped into head, say): no message",
}

#: Command lines shown under "Examples:" in each subcommand's ``--help`` (and the top level's);
#: those naming ``examples/`` run on the files shipped in the repository (tests/test_cli.py).
EXAMPLES: dict[str, list[str]] = {
    "fastperf": [
        "fastperf demo",
        "fastperf compare examples/old.txt examples/new.txt",
        "fastperf compare base.json pr.json --fail-on worse --fail-threshold 2%",
    ],
    "describe": [
        "fastperf describe examples/old.txt examples/new.txt",
        "fastperf describe examples/old.txt --format csv -o groups.csv",
        "go test -bench . -count 10 | fastperf describe -",
    ],
    "aggregate": [
        "fastperf aggregate examples/old.txt examples/new.txt --baseline old",
        "fastperf aggregate base.json pr.json --kind weighted --weights weight",
    ],
    "plan": [
        "fastperf plan examples/old.txt examples/new.txt --precision 0.005",
        "fastperf plan examples/old.txt --assurance none --format json",
        "fastperf plan pyperf.json --process-cost 2.5 --iteration-cost 0.1",
    ],
    "anova": [
        "fastperf anova examples/old.txt examples/new.txt --by benchmark",
        "fastperf anova runs.parquet --factor compiler --by benchmark --welch",
    ],
    "factorial": [
        "fastperf factorial design.parquet --factors cache,opt,threads --log",
        "fastperf factorial design.csv --factors cache,opt --format csv -o effects.csv",
    ],
    "changepoints": [
        "fastperf changepoints history.parquet --order commit",
        "fastperf changepoints history.parquet --order commit --fail-on worse --since 1200",
    ],
    "compare": [
        "fastperf compare examples/old.txt examples/new.txt",
        "fastperf compare examples/old.txt examples/new.txt --format markdown --sort delta",
        "cat examples/new.txt | fastperf compare examples/old.txt - --variants old,new "
        "--fail-on worse",
    ],
    "report": [
        "fastperf report examples/old.txt examples/new.txt -o report.html",
        "fastperf report examples/old.txt examples/new.txt --protocol sparc -o sparc.html",
    ],
    "check": [
        "fastperf check examples/old.txt examples/new.txt",
        "fastperf check runs.parquet --levels process --fail-on flags",
        "fastperf check base.json pr.json --format html -o check.html",
    ],
    "decide": [
        "fastperf decide examples/old.txt examples/new.txt --margin 5%",
        "fastperf decide base.json pr.json --margin 2% --format markdown",
        "fastperf decide rounds.parquet --margin 2% --undecided-only -o rerun.txt",
    ],
    "warmup": [
        "fastperf warmup",
        "fastperf warmup --parallel --jobs 4",
    ],
    "demo": [
        "fastperf demo",
        "fastperf demo --describe",
        "fastperf demo --format markdown -o demo.md",
    ],
}

DEBUG_HELP = "print the traceback of an error (for a bug report)"
NO_PROGRESS_HELP = ("no progress bar on stderr (by default one is drawn for long work when "
                    "stderr is a terminal)")


def column_list(text: str) -> list[str]:
    """``a,b,,c`` -> ``["a", "b", "c"]``: a comma-separated list of names."""
    return [c for c in text.split(",") if c]


def number(text: str) -> float | str:
    """``0.95`` -> 0.95 (``nan``, ``inf`` and ``1e309`` too); anything else is passed on as
    given. The function the option feeds checks the value (`fastperf.data.validation`), and
    `fastperf.cli` names the option in its one-line error (exit status 2)."""
    try:
        return float(text)
    except ValueError:
        return text


def whole_number(text: str) -> int | str:
    """``30`` -> 30; anything else (``1.5``, ``nan``) is passed on as given, for the function's
    own check to refuse, as `number`."""
    try:
        return int(text)
    except ValueError:
        return text


SIZE_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
              "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def byte_size(text: str) -> int | str:
    """``2GB`` -> 2e9, ``512MiB`` -> 512 * 2**20, ``1e9`` -> 10**9 bytes; anything else is
    passed on as given, for `fastperf.read` to refuse, naming memory_limit."""
    stripped = text.strip().lower().replace(" ", "")
    digits = stripped.rstrip("kmgtib")
    unit = stripped[len(digits):]
    try:
        value = float(digits) * SIZE_UNITS[unit]
    except (ValueError, KeyError):
        return text
    return int(value) if value == value and abs(value) < 2**63 else text


def number_list(text: str) -> tuple[float | str, ...]:
    """``0.9,0.95`` -> ``(0.9, 0.95)``; an item that is not a number is passed on as given, as
    `number`. An empty list is an error: an option given says something (``--confidences ""``
    printed an empty table of speedups; leave the option out for the default)."""
    out = tuple(number(c) for c in text.split(",") if c)
    if not out:
        raise argparse.ArgumentTypeError("expected one number or more, e.g. 0.9,0.95 (leave the "
                                         "option out for its default)")
    return out


def fraction(text: str) -> float | str:
    """``2%`` or ``0.02``: a relative change as a fraction (``2%`` -> 0.02); anything else is
    passed on as given, as `number`."""
    if text.endswith("%"):
        value = number(text[:-1])
        return value / 100.0 if isinstance(value, float) else text
    return number(text)


def directions(text: str) -> dict[str, bool]:
    """``B/s=higher,sec/op=lower`` -> {unit: higher is better}."""
    out = {}
    for item in (c for c in text.split(",") if c):
        unit, _, way = item.rpartition("=")
        if not unit or way not in ("higher", "lower"):
            raise argparse.ArgumentTypeError(f"expected UNIT=higher or UNIT=lower, got {item!r}")
        if out.get(unit, way == "higher") != (way == "higher"):  # the last one won
            raise argparse.ArgumentTypeError(f"unit {unit!r} is given both directions")
        out[unit] = way == "higher"
    return out


def input_format(text: str) -> str:
    """``--input-format``: a name of `INPUT_FORMATS` (case, ``_`` for ``-`` and the aliases of
    ``FORMAT_ALIASES`` accepted, as by `fastperf.read`) -> that name; an unknown one is an
    error listing the choices (exit status 2)."""
    name = text.strip().lower().replace("_", "-")
    name = FORMAT_ALIASES.get(name, name)
    if name not in INPUT_FORMATS:
        aliases = ", ".join(f"{alias}={target}" for alias, target in FORMAT_ALIASES.items())
        raise argparse.ArgumentTypeError(
            f"unknown format {text!r}; choose from {', '.join(INPUT_FORMATS)} (aliases: "
            f"{aliases}), or leave it out to detect the format from the content")
    return name


def optional_column(text: str) -> str | None:
    """``none`` (any case) -> None, else the column name as given."""
    return None if text.lower() == "none" else text


def optional_number(text: str) -> float | str | None:
    """``none`` -> None, else as `number`."""
    return None if text.lower() == "none" else number(text)


def optional_byte_size(text: str) -> int | str | None:
    """``none`` -> None, else as `byte_size`."""
    return None if text.strip().lower() == "none" else byte_size(text)


#: The options of reading FILEs (`add_input_arguments`) that ``--config`` does not use, with
#: their defaults: given otherwise, ``compare --config`` refuses them.
READ_OPTION_DEFAULTS: dict[str, Any] = {
    "--input-format": None, "--benchmark": "benchmark", "--variant": "variant",
    "--value": "value", "--variants": None, "--metric": "real_time", "--memory-limit": None,
}


def add_input_arguments(p: argparse.ArgumentParser, files: str = "+") -> None:
    """FILEs and the options of `fastperf.read`: the read renames the ``--benchmark``,
    ``--variant`` and ``--value`` columns to those role names, which later steps use."""
    p.add_argument("files", nargs=files, metavar="FILE",
                   help="measurement files: Parquet, CSV, Arrow IPC, or benchmark-tool results "
                        "(pyperf, pytest-benchmark, Google Benchmark, hyperfine, go test -bench, "
                        "...); '-' reads standard input (its format detected from the content, "
                        "its variant named stdin)")
    defaults = READ_OPTION_DEFAULTS
    p.add_argument("--input-format", type=input_format, choices=INPUT_FORMATS,
                   default=defaults["--input-format"],
                   metavar="FMT",
                   help="force the input format instead of detecting it from the content; one "
                        "of: %(choices)s")
    p.add_argument("--benchmark", default=defaults["--benchmark"],
                   help="column naming the benchmark in a table file (default: benchmark)")
    p.add_argument("--variant", type=optional_column, default=defaults["--variant"], metavar="COL",
                   help="column naming the variant in a table file (default: variant); "
                        "describe: 'none' for no variant")
    p.add_argument("--value", default=defaults["--value"],
                   help="column holding the measurements in a table file (default: value)")
    p.add_argument("--variants", type=column_list, default=defaults["--variants"],
                   metavar="NAME,...",
                   help="variant names for the files, in order (default: each file's name)")
    p.add_argument("--metric", default=defaults["--metric"],
                   help="Google Benchmark time to use: real_time (default) or cpu_time")
    p.add_argument("--memory-limit", type=byte_size, default=defaults["--memory-limit"],
                   metavar="SIZE",
                   help="read the table files lazily and work in group-complete chunks of at "
                        "most SIZE (2GB, 512MiB, bytes); a directory or glob of Parquet, IPC "
                        "or CSV files is lazy anyway, within half the free memory "
                        "(docs/scale.md)")
    p.add_argument("--max-decompressed", type=optional_byte_size, default=MAX_DECOMPRESSED,
                   metavar="SIZE",
                   help="most bytes a compressed FILE (gzip, bzip2, xz, zstd) may expand to "
                        "(default 256MiB; 'none': no limit); raise it for a trusted larger file "
                        "(docs/robustness.md)")
    p.add_argument("--max-expansion", type=optional_number, default=MAX_EXPANSION,
                   metavar="RATIO",
                   help="most times a compressed FILE may expand once past 8 MiB (default 100; "
                        "'none': no limit): result files expand 5- to 20-fold, a decompression "
                        "bomb a thousand-fold")


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    """``--format`` and ``-o/--output``."""
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (html: the self-contained report page, docs/reports.md); "
                        "default: from the -o file's extension (.html, .md, .json, .csv, "
                        ".parquet), else text")
    add_report_output(p)


def add_report_output(p: argparse.ArgumentParser) -> None:
    """``-o/--output`` and ``--top`` (the HTML report's rows drawn one by one)."""
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="write to this file instead of standard output ('-': standard output)")
    p.add_argument("--top", type=whole_number, default=None, metavar="N",
                   help="html: the rows drawn one by one in the interval figures, the most "
                        "changed (default 50); every row stays in the report's table")


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit status 2), as for every other bad input, and the
    description and epilog (examples, exit statuses) printed as written."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D102
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):  # noqa: D102
        # argparse reports a subcommand's unknown options from the top-level parser: name the
        # subcommand's help, where the options it takes are listed
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            argv = list(sys.argv[1:] if args is None else args)
            command = getattr(namespace, "command", None)
            before = (command not in argv or extras[0] not in argv
                      or argv.index(extras[0]) < argv.index(command))
            prog = self.prog if before else f"{self.prog} {command}"  # whose option it is not
            self.exit(2, f"{prog}: error: unrecognized arguments: {' '.join(extras)} (see "
                         f"{prog} --help)\n")
        return namespace


def version_text() -> str:
    """What ``fastperf --version`` prints: the version, then whether the native kernels serve
    this process and, if not, why and the fix (`fastperf.kernels.builds.native_status`)."""
    return f"fastperf {__version__}\nnative kernels: {native_status().explain()}"


class VersionAction(argparse.Action):
    """``--version``: print `version_text` on stdout and exit 0 (argparse's ``"version"``
    action would rewrap its lines)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help=None):  # noqa: A002 - argparse's keyword
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0,
                         help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text(), file=sys.stdout)
        parser.exit()


def examples_epilog(command: str) -> str:
    """The "Examples:" section of `command`'s help (`EXAMPLES`)."""
    return "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])


def exit_statuses_epilog() -> str:
    """The "exit status:" table of ``fastperf --help`` (`EXIT_STATUSES`)."""
    return "exit status:\n" + "\n".join(f"  {status:<3}  {meaning}"
                                         for status, meaning in EXIT_STATUSES.items())


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``fastperf`` command: a global ``--debug`` and one subcommand per
    table-level function, plus ``warmup`` and ``demo``."""
    parser = Parser(
        prog="fastperf",
        description="Rigorous, fast statistics for performance comparisons.",
        epilog=f"{examples_epilog('fastperf')}\n\n{exit_statuses_epilog()}\n\n"
               "'-' as a FILE reads standard input; -o - writes to standard output.",
    )
    parser.add_argument("--version", action=VersionAction,
                        help="print the version and whether the native kernels are active (if "
                             "not: why, and the fix), then exit")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    parser.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    d = sub.add_parser("describe", help="summary statistics and intervals per benchmark and variant")
    add_input_arguments(d)
    d.add_argument("--by", type=column_list, default=["benchmark"], metavar="COL,...",
                   help="key columns (default: benchmark)")
    d.add_argument("--unit", type=optional_column, default="unit",
                   help="unit column that also splits groups, or 'none' (default: unit)")
    d.add_argument("--confidence", type=number, default=0.95, help="confidence level (default 0.95)")
    add_structure_arguments(d)
    add_output_arguments(d)

    a = sub.add_parser("aggregate", help="aggregate score of every variant over the benchmarks, "
                                         "with its confidence interval")
    add_input_arguments(a)
    a.add_argument("--kind", choices=["geomean", "mean", "weighted"], default="geomean",
                   help="geometric mean (default), arithmetic mean, or weighted mean")
    a.add_argument("--method", choices=["per-run", "propagation"], default="per-run",
                   help="interval of the per-run scores (default) or by error propagation")
    a.add_argument("--weights", default=None, metavar="COL",
                   help="column holding one weight per benchmark")
    a.add_argument("--baseline", default=None, metavar="VARIANT",
                   help="add each variant's score ratio to this variant, with its interval")
    a.add_argument("--unit", default=None,
                   help="keep only the measurements in this unit (files mixing units, e.g. Go's "
                        "sec/op and B/s)")
    a.add_argument("--confidence", type=number, default=0.95, help="confidence level (default 0.95)")
    add_structure_arguments(a)
    add_output_arguments(a)

    pl = sub.add_parser("plan", help="runs needed per benchmark and variant for a precision, and "
                                     "for two variants' intervals to separate")
    add_input_arguments(pl)
    pl.add_argument("--precision", type=number, default=0.01,
                    help="target half-width of the mean's interval (default 0.01)")
    pl.add_argument("--target", choices=["relative_halfwidth", "halfwidth"],
                    default="relative_halfwidth",
                    help="precision relative to the mean (default) or in the value's unit")
    pl.add_argument("--baseline", default=None, metavar="VARIANT")
    pl.add_argument("--candidate", default=None, metavar="VARIANT")
    pl.add_argument("--confidence", type=number, default=0.95, help="confidence level (default 0.95)")
    pl.add_argument("--assurance", type=optional_number, default=0.8, metavar="GAMMA|none",
                    help="probability that a follow-up of runs_needed fresh runs reaches the "
                         "precision (default 0.8); 'none' for the plug-in plan, which takes the "
                         "pilot's sd as the truth")
    add_structure_arguments(pl)
    pl.add_argument("--process-cost", type=number, default=1.0, metavar="SECONDS",
                    help="with levels: the cost of starting a process (fork, launch, round), "
                         "for the least-cost processes x iterations (default 1; only its ratio "
                         "to --iteration-cost matters)")
    pl.add_argument("--iteration-cost", type=number, default=1.0, metavar="SECONDS",
                    help="with levels: the cost of one iteration (default 1)")
    add_output_arguments(pl)

    an = sub.add_parser("anova", help="one-way analysis of variance of a factor, per group")
    add_input_arguments(an)
    an.add_argument("--factor", default="variant", help="the factor column (default: variant)")
    an.add_argument("--by", type=column_list, default=None, metavar="COL,...",
                    help="one ANOVA per group of these columns (default: one in all)")
    an.add_argument("--alpha", type=number, default=0.05, help="level of f_critical (default 0.05)")
    an.add_argument("--welch", action="store_true", help="Welch's ANOVA (unequal variances): equal_var=False")
    add_output_arguments(an)

    fa = sub.add_parser("factorial", help="effects and allocation of variation of a 2^k (r) or "
                                          "2^(k-p) design")
    add_input_arguments(fa)
    fa.add_argument("--factors", type=column_list, required=True, metavar="A,B,C",
                    help="the two-level factor columns")
    fa.add_argument("--by", type=column_list, default=None, metavar="COL,...",
                    help="one analysis per group of these columns (default: one in all)")
    fa.add_argument("--log", action="store_true", help="multiplicative model (log of the values)")
    fa.add_argument("--confidence", type=number, default=0.90, help="confidence level (default 0.90)")
    add_output_arguments(fa)

    cp = sub.add_parser("changepoints", help="change points in performance histories: when "
                                             "each series changed, by how much, how sure")
    add_input_arguments(cp)
    cp.add_argument("--order", required=True, metavar="COL",
                    help="the column that orders a series (commit index, timestamp, build)")
    cp.add_argument("--by", type=column_list, default=["benchmark"], metavar="COL,...",
                    help="columns naming a series (default: benchmark; the unit column too)")
    cp.add_argument("--unit", type=optional_column, default="unit",
                    help="unit column (a series per unit, and its direction), or 'none'")
    cp.add_argument("--method", choices=["pelt", "edivisive", "ttest"], default="pelt",
                    help="the penalised segmentation into levels and drifts (default), "
                         "E-Divisive with a permutation test, or Hunter/Otava's Welch t-test")
    cp.add_argument("--penalty", type=number, default="mbic",
                    help="pelt: the price of a change, 'mbic' (default) or a number")
    cp.add_argument("--no-drift", dest="drift", action="store_false",
                    help="pelt: levels only, no drift segments")
    cp.add_argument("--independent-noise", dest="serial_dependence", action="store_false",
                    help="pelt: take the noise as independent (no inflation of its variance "
                         "for serial dependence)")
    cp.add_argument("--alpha", type=optional_number, default=None,
                    help="edivisive/ttest: level of each split's test (default 0.01 edivisive, "
                         "0.001 ttest)")
    cp.add_argument("--min-size", type=whole_number, default=None,
                    help="fewest points of a segment (default 5)")
    cp.add_argument("--max-changes", type=whole_number, default=None,
                    help="most changes per series (default: no limit)")
    cp.add_argument("--permutations", type=whole_number, default=199,
                    help="resamples of the permutation test (default 199)")
    cp.add_argument("--seed", type=whole_number, default=0, help="seed of the permutations")
    cp.add_argument("--higher-is-better", action="store_true",
                    help="every unit: higher is better (default: from the unit)")
    cp.add_argument("--confidence", type=number, default=0.95,
                    help="level of the ratio, slope and median intervals (default 0.95)")
    cp.add_argument("--fail-on", choices=["worse"], default=None,
                    help="exit 1 when a change for the worse (a step or a drift) is found "
                         "(after --since)")
    cp.add_argument("--since", default=None, metavar="ORDER_VALUE",
                    help="with --fail-on: only changes whose first point after the change is "
                         "beyond this order value")
    add_output_arguments(cp)

    c = sub.add_parser("compare", help="compare a candidate with a baseline per benchmark, "
                                       "configuration and unit: the regression detector "
                                       "(default), or the Speedup-Test, SPARC or HPT")
    add_compare_arguments(c)
    add_output_arguments(c)
    r = sub.add_parser("report", help="the HTML report of a comparison (compare's options; "
                                      "--protocol speedup-test, sparc or hpt too): one "
                                      "self-contained page")
    add_compare_arguments(r)
    add_report_output(r)
    add_decide_arguments(sub)
    add_check_arguments(sub)
    _add_warmup_and_demo(sub)
    return parser


def add_warmup_argument(p: argparse.ArgumentParser) -> None:
    """``--warmup auto``: drop each benchmark and variant's initial transient before testing
    (the protocols' ``warmup="auto"``)."""
    p.add_argument("--warmup", choices=["auto"], default=None,
                   help="auto: find the initial transient (warm-up) of each benchmark and "
                        "variant's processes and drop it before testing (said in a warning; "
                        "columns warmup_baseline / warmup_candidate); default: test every "
                        "value")


def add_structure_arguments(p: argparse.ArgumentParser) -> None:
    """``--levels`` and ``--block``: the structure of the measurements (`fastperf.data.levels`),
    for every command that does inference."""
    p.add_argument("--levels", default=None, metavar="COL[,COL]|none",
                   help="the nested level columns, outermost first (default: those the input "
                        "has, build and process); 'none': the flat analysis, every value "
                        "independent")
    p.add_argument("--block", default=None, metavar="COL|none",
                   help="the block column crossed with the variants (default: round when the "
                        "input has it); 'none': no block")


def add_compare_arguments(c: argparse.ArgumentParser) -> None:
    """The input and options of ``compare`` (and ``report``)."""
    add_input_arguments(c, files="*")
    c.add_argument("--protocol", choices=PROTOCOLS, default=None,
                   help="compare (default: two-sided per benchmark and unit, verdicts worse/"
                        "better/no change, benchstat-style output), speedup-test (mean and "
                        "median protocols; the default with --config), sparc (difference + "
                        "equivalence) or hpt (hierarchical performance testing)")
    c.add_argument("--config", default=None, metavar="CSV",
                   help="the Speedup-Test tool's configuration file (name, initial sample file, "
                        "optimised sample file[, weight[, confidence level]]) instead of FILEs")
    c.add_argument("--baseline", default=None, metavar="VARIANT",
                   help="the baseline variant (default: the first variant; 'initial' with "
                        "--config)")
    c.add_argument("--candidate", default=None, metavar="VARIANT[,...]",
                   help="the candidate variant(s) (default: every other variant; 'optimised' "
                        "with --config)")
    c.add_argument("--alpha", type=number, default=0.05,
                   help="risk level of the tests (default 0.05; with --config, lines giving a "
                        "confidence level use theirs)")
    c.add_argument("--adjust", choices=["bh", "holm", "bonferroni", "none"], default=None,
                   help="multiple-testing adjustment: compare: bh (default, false discovery "
                        "rate), holm, bonferroni or none (benchstat's verdicts); sparc: "
                        "bonferroni (default), holm or none")
    c.add_argument("--by", type=column_list, default=None, metavar="COL,...",
                   help="compare: the columns identifying a benchmark (default: benchmark plus "
                        "the configuration the files carry)")
    c.add_argument("--threshold", type=fraction, default=None, metavar="PCT",
                   help="compare: the smallest change called better/worse, e.g. 2%% or 0.02 "
                        "(default 0)")
    c.add_argument("--direction", type=directions, default=None, metavar="UNIT=higher,...",
                   help="compare: which way is better for a unit (higher or lower), overriding "
                        "the unit's known direction")
    c.add_argument("--confidence", type=number, default=None,
                   help="compare: level of the median and ratio intervals (default 0.95)")
    c.add_argument("--sort", choices=["name", "delta"], default=None,
                   help="compare: row order: as read (default), by name, or delta "
                        "(regressions first)")
    c.add_argument("--fail-on", choices=["worse"], default=None,
                   help="compare: exit with status 1 when a benchmark's verdict is worse (the "
                        "CI gate); a summary line goes to stderr")
    c.add_argument("--fail-threshold", type=fraction, default=None, metavar="PCT",
                   help="compare --fail-on worse: only changes of at least this size fail "
                        "(e.g. 2%%)")
    c.add_argument("--weights", default=None, metavar="COL",
                   help="speedup-test: column of per-benchmark weights for the overall speedup "
                        "(with --config: the file's weights)")
    c.add_argument("--higher-is-better", action="store_true",
                   help="the metric is a throughput (every unit; compare infers it per unit)")
    c.add_argument("--large-sample", type=whole_number, default=None,
                   help="speedup-test: samples larger than this skip the normality requirement "
                        "(default 30)")
    c.add_argument("--precision", type=number, default=None,
                   help="speedup-test: precision r of the proportion interval for the number "
                        "of benchmarks needed (default 0.05)")
    c.add_argument("--proportion-confidence", type=number, default=None,
                   help="speedup-test: confidence level of the proportion intervals (default "
                        "1 - alpha)")
    c.add_argument("--unit", default=None,
                   help="keep only the measurements in this unit (e.g. Go's sec/op)")
    c.add_argument("--reports", default=None, metavar="DIR",
                   help="speedup-test: also write the four reports (global, benchmarks, "
                        "warnings, errors) here")
    c.add_argument("--margin", type=number, default=None,
                   help="equivalence margin delta, the ratio's interval [1-delta, 1+delta] "
                        "(compare: none by default; sparc: 0.05)")
    c.add_argument("--pair", default=None, metavar="COL",
                   help="sparc: the column pairing baseline and candidate runs (e.g. run) when "
                        "they were measured in pairs; default: independent runs")
    c.add_argument("--method", choices=["auto", "exact", "asymptotic"], default=None,
                   help="rank tests' p-values (default auto: exact where cheap); speedup-test: "
                        "those of the median protocol's test")
    c.add_argument("--confidences", type=number_list, default=None, metavar="C,...",
                   help="hpt: reliabilities for the largest speedup (default 0.9,0.95,0.99)")
    c.add_argument("--scale", choices=["log", "ratio"], default=None,
                   help="sparc (paired tests) and hpt (level-2 scores): test log ratios "
                        "(default) or the papers' ratio - 1")
    add_structure_arguments(c)
    add_warmup_argument(c)


def add_decide_arguments(sub) -> None:
    """The ``decide`` subcommand: `fastperf.decide` after each round, its exit status telling a
    benchmark runner to stop (0, 1) or to run the undecided benchmarks again (4)."""
    de = sub.add_parser("decide", help="after each round: per benchmark, worse, better, "
                                       "equivalent or continue (with the runs still needed), "
                                       "valid however often it is asked (docs/sequential.md)")
    add_input_arguments(de)
    de.add_argument("--margin", type=fraction, required=True, metavar="PCT",
                    help="equivalence margin: equivalent when the ratio's anytime-valid "
                         "interval lies within 1 +- margin, e.g. 2%% or 0.02 (required)")
    de.add_argument("--baseline", default=None, metavar="VARIANT",
                    help="the baseline variant (default: the first variant)")
    de.add_argument("--candidate", default=None, metavar="VARIANT",
                    help="the candidate variant (default: the other variant)")
    de.add_argument("--by", type=column_list, default=None, metavar="COL,...",
                    help="the columns identifying a benchmark (default: benchmark plus the "
                         "configuration the files carry)")
    de.add_argument("--unit", default=None,
                    help="keep only the measurements in this unit (e.g. Go's sec/op)")
    de.add_argument("--alpha", type=number, default=0.05,
                    help="error rate, valid at every look (default 0.05)")
    de.add_argument("--adjust", choices=DECIDE_ADJUSTMENTS, default="e-bh",
                    help="over many benchmarks: e-bh (default, false discovery rate), "
                         "bonferroni (family-wise) or none (each benchmark at --alpha)")
    de.add_argument("--higher-is-better", action="store_true",
                    help="the metric is a throughput (every unit; by default inferred per unit)")
    de.add_argument("--direction", type=directions, default=None, metavar="UNIT=higher,...",
                    help="which way is better for a unit (higher or lower), overriding the "
                         "unit's known direction")
    add_structure_arguments(de)
    add_warmup_argument(de)
    de.add_argument("--undecided-only", action="store_true",
                    help="print only the undecided benchmarks, one name per line (for a runner "
                         "to run just those again); the exit status is the same")
    add_output_arguments(de)


def add_check_arguments(sub) -> None:
    """The ``check`` subcommand: `fastperf.check`, the run diagnostics of every benchmark and
    variant, its exit status 1 with ``--fail-on flags`` when a group is flagged."""
    ch = sub.add_parser("check", help="is this measurement any good? per benchmark and "
                                      "variant: warm-up, outliers, modes, drift, the timer's "
                                      "resolution, noise, too few runs, with advice "
                                      "(docs/check.md)")
    add_input_arguments(ch)
    ch.add_argument("--by", type=column_list, default=None, metavar="COL,...",
                    help="the columns identifying a benchmark (default: benchmark plus the "
                         "configuration the files carry)")
    add_structure_arguments(ch)
    ch.add_argument("--fail-on", choices=["flags"], default=None,
                    help="exit with status 1 when any group is flagged (a one-line summary "
                         "goes to stderr)")
    add_output_arguments(ch)


def _add_warmup_and_demo(sub) -> None:
    """The ``warmup`` and ``demo`` subcommands, then ``--debug`` and ``--no-progress`` after
    every subcommand."""
    w = sub.add_parser("warmup", help="compile into Numba's disk cache every kernel that the "
                                      "installed native kernels do not serve (all of them in an "
                                      "install without them), so that later commands compile "
                                      "nothing")
    w.add_argument("--jobs", type=whole_number, default=None, metavar="N",
                   help="worker processes (default: the CPUs available)")
    w.add_argument("--parallel", action="store_true",
                   help="also compile the parallel builds (run on large inputs where "
                        "FASTPERF_PARALLEL=1)")

    demo = sub.add_parser("demo",
                          help="compare the real Go benchmark data shipped with fastperf "
                               "(old.txt vs new.txt, as fastperf compare prints it) and write "
                               "its HTML report")
    demo.add_argument("--describe", action="store_true",
                      help="also the describe table of the same data (text; in the other "
                           "formats, which hold one result, describe's instead of compare's)")
    add_output_arguments(demo)
    for name, command in sub.choices.items():  # --debug and --no-progress after it too
        command.epilog = examples_epilog(name)
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help=DEBUG_HELP)
        command.add_argument("--no-progress", action="store_true", default=argparse.SUPPRESS,
                             help=NO_PROGRESS_HELP)
