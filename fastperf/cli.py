"""The ``fastperf`` command line: one subcommand per table-level function, plus ``demo``.

Exit status (`fastperf.cli_args.EXIT_STATUSES`): 0 on success or a passed gate, 1 when a
``--fail-on worse`` gate fails (``decide``: a benchmark decided worse; ``check --fail-on
flags``: a group flagged), 2 on bad input with a one-line reason on stderr, 3 on an internal
error (a bug) with a one-line message asking for a report (the traceback with ``--debug``), 4
when ``decide`` leaves a benchmark undecided. ``-``
as a FILE reads standard input, ``-o -`` writes to standard output. The parser lives in
`fastperf.cli_args`.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import re
import shutil
import sys
import tempfile
import textwrap
import traceback
from collections.abc import Iterator
from typing import Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from fastperf.cli_args import (
    EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, EXIT_GATE_FAILED, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED,
    EXIT_OK, EXIT_UNDECIDED, PROTOCOL_OPTIONS, PROTOCOL_SPELLINGS, READ_OPTION_DEFAULTS, STDIO,
    build_parser, column_list, output_format,
)
from fastperf.data.validation import check_real, check_unit_interval, check_whole_number
from fastperf.designs.anova import anova
from fastperf.designs.factorial import factorial
from fastperf.errors import InputError
from fastperf.io.dataset import Dataset
from fastperf.io.read import example_table, read
from fastperf.io.speedup_config import read_speedup_config
from fastperf.kernels.builds import native_status, thread_count
from fastperf.progress import progress_default
from fastperf.protocols.aggregate import aggregate_score
from fastperf.protocols.check import check
from fastperf.protocols.compare import compare
from fastperf.protocols.decide import UNIT_NAMES, DecideResult, decide
from fastperf.protocols.hpt import hpt
from fastperf.protocols.planning import plan_runs
from fastperf.protocols.sparc import sparc
from fastperf.protocols.speedup import speedup_test
from fastperf.results.render import csv_table, format_cell, printable
from fastperf.stats.changepoints import changepoints
from fastperf.stats.describe import describe
from fastperf.warmup import progress_stream, warmup

DEMO_FILES = ["old.txt", "new.txt"]
#: The demo's HTML report, in the temporary directory.
DEMO_REPORT = "fastperf-demo-report.html"
#: The demo's first line, and its one sentence on how to read `fastperf compare`'s table.
DEMO_TITLE = ("fastperf demo: Go's encoding benchmarks (golang.org/x/perf test data), old.txt "
              "vs new.txt, 10 runs each, as `fastperf compare examples/old.txt "
              "examples/new.txt` prints them:")
DEMO_READING = (
    "How to read it: per benchmark, each side's median ± its 95% interval (as a % of the "
    "median), then new's change from old (~: not significant) with the p-value and the runs "
    "per side, and a verdict; lower sec/op is better.")
#: The width the demo's sentences are wrapped to (its table is about as wide).
DEMO_WIDTH = 92
#: What a message says for the temporary file that holds standard input (``-``).
STDIN_NAME = "<stdin>"
#: The options of `fastperf.read`'s decompression limits, named in their errors (`_call`).
READ_LIMIT_OPTIONS = {"max_decompressed": "--max-decompressed",
                      "max_expansion": "--max-expansion"}


def _write(result, fmt: str, output: str | None, table: pa.Table | None = None,
           text: str | None = None, top: int | None = None) -> None:
    """Render `result` in `fmt` to the file `output` or to standard output.

    CSV and Parquet hold one table: `table`, by default the result's main one. `text`: the
    text or Markdown already rendered (with the caller's options). `top`: the rows drawn one by
    one in the HTML report's interval figures.
    """
    if fmt in ("csv", "parquet"):
        stdout = None if output or fmt == "csv" else _binary_stdout()
        buffer = pa.BufferOutputStream()  # the bytes for standard output
        sink = output if output else buffer
        table = result.table if table is None else table
        if fmt == "csv":
            pacsv.write_csv(csv_table(table), sink)
        else:
            pq.write_table(table, sink)
        if output:
            return
        data = buffer.getvalue().to_pybytes()
        if stdout is None:  # CSV is UTF-8 text (csv_table): any text stream takes it
            sys.stdout.write(data.decode("utf-8"))
        else:
            sys.stdout.flush()
            stdout.write(data)
            stdout.flush()
        return
    if fmt == "html":
        text = _call(result.to_html, top=top, flags={"top": "--top"})
        if output:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
            return
    if text is None:
        text = {"text": result.to_text, "markdown": result.to_markdown,
                "json": result.to_json}[fmt]()
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)


def _binary_stdout():
    """The binary stream behind standard output, for Parquet without ``-o``.

    Raises `InputError` (exit 2, one line) when standard output is a terminal (Parquet bytes
    there are garbage and can upset it) or has no binary file behind it (a text-only stream:
    the CLI called in-process with ``sys.stdout`` replaced, e.g. by ``io.StringIO`` or a test's
    capture); a pipe or a redirected file takes the bytes.
    """
    stream = sys.stdout
    if stream is not None and _isatty(stream):
        raise InputError("refusing to write Parquet to a terminal; use -o FILE")
    binary = getattr(stream, "buffer", None)
    try:
        has_file = binary is not None and stream.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        has_file = False
    if not has_file:
        raise InputError("cannot write Parquet to standard output: it is a text-only stream "
                         "here (no binary file behind it); use -o FILE")
    return binary


def _isatty(stream) -> bool:
    """Whether `stream` is a terminal (False when it cannot tell)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _read(args) -> pa.Table:
    """The FILEs as one table; the ``--benchmark``, ``--variant`` and ``--value`` columns come
    out under those role names (``benchmark``, ``variant``, ``value``), which every later step
    uses (`_role`)."""
    if args.variant is None and args.command not in ("describe", "changepoints", "check"):
        raise InputError("--variant none: only describe, changepoints and check work without "
                         "variants; name the variant column, or leave --variant out")
    source = args.files[0] if len(args.files) == 1 else args.files
    return _call(read, source, flags=READ_LIMIT_OPTIONS, format=args.input_format,
                 benchmark=args.benchmark, variant=args.variant or "variant", value=args.value,
                 variants=args.variants, metric=args.metric, memory_limit=args.memory_limit,
                 lazy=True if args.memory_limit is not None else None,
                 max_decompressed=args.max_decompressed, max_expansion=args.max_expansion)


def _role(args, name):
    """A column named on the command line, under the name it has after `_read`: a source
    column given as ``--benchmark``/``--variant``/``--value`` is now its role's column. Lists
    are mapped item by item; None stays None."""
    if name is None:
        return None
    if isinstance(name, (list, tuple)):
        return [_role(args, n) for n in name]
    renamed = {getattr(args, role, None): role for role in ("benchmark", "variant", "value")}
    return renamed.get(name, name)


def _call(function, *args, flags: dict[str, str], **kwargs):
    """``function(*args, **kwargs)``, where an `InputError` about an argument that came from an
    option names that option instead.

    The function checks its arguments (`fastperf.data.validation`); the command line passes the
    options' values on as given (a text that is not a number too) and does not check them
    again. The checks' messages start with the argument's name (``confidence must be ...``,
    ``each of confidences must be ...``); that name becomes the option's.

    Parameters
    ----------
    function : callable
        The table-level function.
    *args, **kwargs
        Its arguments.
    flags : dict
        Argument name -> option, e.g. ``{"confidence": "--confidence"}``.

    Returns
    -------
    object
        What `function` returns.
    """
    try:
        return function(*args, **kwargs)
    except InputError as exc:
        match = re.match(r"(each of )?([A-Za-z_]\w*)", str(exc))
        if match is None or match.group(2) not in flags:
            raise
        text = str(exc)
        raise InputError(text[:match.start(2)] + flags[match.group(2)]
                         + text[match.end(2):]) from exc


#: The arguments of the structure of the measurements (`fastperf.data.levels`) and their
#: options, in every command that does inference.
STRUCTURE_FLAGS = {"levels": "--levels", "block": "--block"}


def _describe(args) -> None:
    result = _call(describe, _read(args), flags={"confidence": "--confidence", **STRUCTURE_FLAGS},
                   by=_role(args, args.by), variant=None if args.variant is None else "variant",
                   unit=args.unit, confidence=args.confidence, levels=args.levels,
                   block=args.block)
    _write(result, args.format, args.output, top=args.top)


def _only_unit(table: pa.Table, unit: str | None) -> pa.Table:
    """The measurements in `unit` (all of them when `unit` is None)."""
    if unit is None:
        return table
    if "unit" not in table.column_names:
        raise InputError("--unit: the input has no unit column")
    if isinstance(table, Dataset):
        table = table.where("unit", unit)
    else:
        table = table.filter(pc.equal(table.column("unit").cast(pa.string()), unit))
    if table.num_rows == 0:
        raise InputError(f"--unit {unit!r}: no measurements in that unit")
    return table


def _aggregate(args) -> None:
    table = _only_unit(_read(args), args.unit)
    result = _call(aggregate_score, table, flags={"confidence": "--confidence", **STRUCTURE_FLAGS},
                   kind=args.kind, method=args.method, weights=_role(args, args.weights),
                   baseline=args.baseline, confidence=args.confidence, levels=args.levels,
                   block=args.block)
    _write(result, args.format, args.output, top=args.top)


def _plan(args) -> None:
    flags = {"precision": "--precision", "confidence": "--confidence",
             "assurance": "--assurance", "process_cost": "--process-cost",
             "iteration_cost": "--iteration-cost", **STRUCTURE_FLAGS}
    result = _call(plan_runs, _read(args), flags=flags, target=args.target,
                   precision=args.precision, confidence=args.confidence,
                   assurance=args.assurance, baseline=args.baseline, candidate=args.candidate,
                   levels=args.levels, block=args.block, process_cost=args.process_cost,
                   iteration_cost=args.iteration_cost)
    _write(result, args.format, args.output, top=args.top)


def _anova(args) -> None:
    result = _call(anova, _read(args), flags={"alpha": "--alpha"},
                   factor=_role(args, args.factor), by=_role(args, args.by), alpha=args.alpha,
                   equal_var=not args.welch)
    _write(result, args.format, args.output, top=args.top)


def _factorial(args) -> None:
    result = _call(factorial, _read(args), flags={"confidence": "--confidence"},
                   factors=_role(args, args.factors), by=_role(args, args.by), log=args.log,
                   confidence=args.confidence)
    # the effects, in CSV/Parquet
    _write(result, args.format, args.output, top=args.top, table=result.effects)


def _changepoints(args) -> int:
    """`fastperf changepoints`: the change table, and the gate ``--fail-on worse [--since]``."""
    if args.since is not None and args.fail_on is None:
        raise InputError("--since is used only with --fail-on worse")
    result = _call(changepoints, _read(args), flags={
        "alpha": "--alpha", "min_size": "--min-size", "max_changes": "--max-changes",
        "permutations": "--permutations", "seed": "--seed", "confidence": "--confidence",
        "order": "--order", "since": "--since", "penalty": "--penalty", "drift": "--no-drift",
        "serial_dependence": "--independent-noise"},
        order=_role(args, args.order), by=_role(args, args.by), unit=args.unit,
        method=args.method, penalty=args.penalty, drift=args.drift,
        serial_dependence=args.serial_dependence, alpha=args.alpha,
        min_size=args.min_size,
        max_changes=args.max_changes, permutations=args.permutations, seed=args.seed,
        higher_is_better=True if args.higher_is_better else None, confidence=args.confidence)
    # the --since text is cast to the order column's type (a number, a timestamp, a string),
    # before any output: a bad value is a one-line error, not a table and then an error
    failures = (None if args.fail_on is None else
                _call(result.failures, args.since, flags={"since": "--since"}))
    # the changes, in CSV/Parquet
    _write(result, args.format, args.output, top=args.top, table=result.changes)
    if failures is None:
        return EXIT_OK
    s = result.summary
    line = (f"fastperf changepoints: {s['changes']} change(s) in {s['series']} series, "
            f"{s['worse']} worse, {s['better']} better")
    if s["drifts"]:
        line = (f"fastperf changepoints: {s['changes']} change(s) in {s['series']} series: "
                f"steps {s['worse']} worse, {s['better']} better; drifts {s['drift_worse']} "
                f"worse, {s['drift_better']} better")
    if failures.num_rows:
        print(f"{line}: FAIL, {failures.num_rows} worse"
              f"{'' if args.since is None else ' since ' + str(args.since)}", file=sys.stderr)
        return EXIT_GATE_FAILED
    print(f"{line}: pass", file=sys.stderr)
    return EXIT_OK


def _variant_names(table: pa.Table, args, several: bool) -> tuple[str, str | list[str]]:
    """--baseline / --candidate; by default the first variant is the baseline and the other
    (`several`: every other) variant the candidate."""
    candidate = args.candidate
    if several and candidate is not None and "," in candidate:
        candidate = column_list(candidate)
    if args.baseline is not None and candidate is not None:
        return args.baseline, candidate
    if "variant" not in table.column_names:
        raise InputError("the input has no variant column; name the files' variants with "
                         "--variants")
    values = (table.distinct("variant") if isinstance(table, Dataset)
              else table.column("variant").unique())
    present = [str(v) for v in values.to_pylist() if v is not None]
    if not present:  # as the functions say it, not "give --baseline and --candidate"
        rows = table.count_rows() if isinstance(table, Dataset) else table.num_rows
        raise InputError("the measurement table is empty (0 rows)" if rows == 0 else
                         "the 'variant' column is null in every row")
    for name in [args.baseline] + ([candidate] if isinstance(candidate, str) else list(candidate or [])):
        if name is not None and name not in present:
            raise InputError(f"variant {name!r} not found; the input has {present}")
    given = [candidate] if isinstance(candidate, str) else list(candidate or [])
    baseline = args.baseline if args.baseline is not None else next(
        (v for v in present if v not in given), None)
    others = [v for v in present if v != baseline]
    if candidate is None:
        if len(others) == 1:
            candidate = others[0]
        elif several and others:
            candidate = others
        else:
            raise InputError(f"give --baseline and --candidate: the input has {len(present)} "
                             f"variants {present}")
    if baseline is None:
        raise InputError(f"give --baseline: the input has {len(present)} variants {present}")
    return baseline, candidate


#: The arguments of the protocols that come from an option of ``fastperf compare``; an
#: `InputError` about one of them names the option (`_call`).
COMPARE_FLAGS = {
    "alpha": "--alpha", "adjust": "--adjust", "confidence": "--confidence",
    "margin": "--margin", "threshold": "--threshold", "large_sample": "--large-sample",
    "precision": "--precision", "proportion_confidence": "--proportion-confidence",
    "confidences": "--confidences", "median_method": "--method", **STRUCTURE_FLAGS,
}


def _protocol_options(args, protocol: str) -> None:
    """Refuse (exit status 2) an option given that `protocol` does not use: the options of
    `PROTOCOL_OPTIONS` the other protocols use, and ``--fail-threshold`` without ``--fail-on``.
    """
    for flag, users in PROTOCOL_OPTIONS.items():
        if protocol not in users and getattr(args, flag[2:].replace("-", "_")) is not None:
            instead = PROTOCOL_SPELLINGS.get((flag, protocol))
            raise InputError(f"{flag} is not used by --protocol {protocol}; it belongs to "
                             f"--protocol {' or '.join(users)}"
                             + (f" ({protocol} takes {instead})" if instead else ""))
    if args.fail_threshold is not None and args.fail_on is None:
        raise InputError("--fail-threshold is used only with --fail-on worse")


def _given(**kwargs):
    """The keyword arguments whose option was given (not None): the others keep the
    function's defaults."""
    return {name: value for name, value in kwargs.items() if value is not None}


def _compare(args) -> int | None:
    protocol = args.protocol or ("speedup-test" if args.config is not None else "compare")
    _protocol_options(args, protocol)
    proportion_confidence = args.proportion_confidence
    if protocol == "speedup-test":  # speedup_test's alpha may name a column; --alpha may not
        args.alpha = check_unit_interval(args.alpha, "--alpha")
    if args.config is not None:
        if args.files or args.unit is not None:
            raise InputError("--config reads the Speedup-Test tool's files: give measurement "
                             "FILEs (and --unit) or --config, not both")
        for option, default in READ_OPTION_DEFAULTS.items():
            if getattr(args, option[2:].replace("-", "_")) != default:  # the configuration's
                # files name their own samples: the options of reading FILEs do not apply
                raise InputError(f"{option} applies to measurement FILEs, not to --config (the "
                                 "Speedup-Test tool's files name their own samples)")
        # the file's lines carry their own levels: --alpha is only their default here
        if proportion_confidence is None:  # the file's levels may vary: the global one here
            proportion_confidence = round(1.0 - args.alpha, 12)
        table = read_speedup_config(args.config, baseline=args.baseline or "initial",
                                    candidate=args.candidate or "optimised",
                                    confidence=1.0 - args.alpha)
        weights = args.weights or "weight"
        alpha = "alpha"
        args.benchmark, args.variant, args.value = "benchmark", "variant", "value"  # as read
    else:
        if not args.files:
            raise InputError("give measurement FILEs (or --config CSV)")
        table = _only_unit(_read(args), args.unit)
        weights, alpha = _role(args, args.weights), args.alpha
    baseline, candidate = _variant_names(table, args, several=protocol in ("compare", "sparc"))
    if protocol == "compare":
        return _regressions(args, table, baseline, candidate)
    if protocol != "speedup-test":
        result = _relevance(args, table, baseline, candidate, protocol)
        _write(result, args.format, args.output, top=args.top)
        return None
    result = _call(speedup_test, table, flags=COMPARE_FLAGS, baseline=baseline,
                   candidate=candidate, by="benchmark", alpha=alpha, weights=weights,
                   higher_is_better=args.higher_is_better, levels=args.levels, block=args.block,
                   **_given(large_sample=args.large_sample, precision=args.precision,
                            proportion_confidence=proportion_confidence,
                            median_method=args.method, warmup=args.warmup))
    if args.reports:
        try:
            result.write_reports(args.reports)
        except OSError as exc:  # a file where the folder should be, no permission, ...
            raise InputError(f"--reports {args.reports}: the four reports need a folder that can "
                             f"be created or written to ({exc.strerror or exc})") from exc
    _write(result, args.format, args.output, top=args.top)
    return None


def _regressions(args, table: pa.Table, baseline: str, candidate) -> int:
    """`fastperf compare` with the default protocol: the regression detector and its gate."""
    higher = direction_option(args)
    fail_threshold = 0.0
    if args.fail_threshold is not None:  # Result.failures takes it unchecked: checked here
        fail_threshold = check_real(args.fail_threshold, "--fail-threshold (a fraction: 0.02 "
                                    "is 2%)", low=0, high=math.inf)
    # the read renamed --benchmark's column to benchmark: the default keys (benchmark plus the
    # configuration the files carry) are right whatever --benchmark was
    by = _role(args, args.by)
    result = _call(compare, table, flags=COMPARE_FLAGS, baseline=baseline,
                   candidate=candidate, by=by, alpha=args.alpha, higher_is_better=higher,
                   levels=args.levels, block=args.block,
                   **_given(adjust=args.adjust, confidence=args.confidence, margin=args.margin,
                            threshold=args.threshold, method=args.method, warmup=args.warmup))
    text = (result.to_text(sort=args.sort) if args.format == "text" else
            result.to_markdown(sort=args.sort or "delta") if args.format == "markdown" else None)
    _write(result, args.format, args.output, top=args.top, text=text)
    if args.fail_on is None:
        return EXIT_OK
    failures = result.failures(fail_threshold)
    counts = result.summary["verdicts"]
    line = (f"fastperf compare: {counts['worse']} worse, {counts['better']} better, "
            f"{counts['changed']} changed, {counts['no change']} no change, "
            f"{counts['equivalent']} equivalent, "
            f"{counts['too few runs']} with too few runs")
    if failures.num_rows:
        names = ", ".join(format_cell(n) for n in failures.column(
            "benchmark" if "benchmark" in failures.column_names else 0).to_pylist()[:3])
        print(f"{line}: FAIL, {failures.num_rows} worse by at least "
              f"{fail_threshold:.2%} ({names}{', ...' if failures.num_rows > 3 else ''})",
              file=sys.stderr)
        return EXIT_GATE_FAILED
    print(f"{line}: pass", file=sys.stderr)
    return EXIT_OK


def _relevance(args, table: pa.Table, baseline: str, candidate, protocol: str):
    """`sparc` or `hpt` on the table (the options of other protocols already refused by
    `_protocol_options`)."""
    options = {**_given(method=args.method, scale=args.scale, warmup=args.warmup),
               "levels": args.levels, "block": args.block}
    if protocol == "sparc":
        pair = _role(args, args.pair)
        if pair is not None and pair not in table.column_names:
            raise InputError(f"--pair {args.pair}: no such column (the input has "
                             f"{table.column_names}); omit --pair for independent runs")
        return _call(sparc, table, flags=COMPARE_FLAGS, baseline=baseline, candidate=candidate,
                     by="benchmark", pair=pair, alpha=args.alpha,
                     higher_is_better=args.higher_is_better,
                     **_given(margin=args.margin, adjust=args.adjust), **options)
    return _call(hpt, table, flags=COMPARE_FLAGS, baseline=baseline, candidate=candidate,
                 by="benchmark", alpha=args.alpha, higher_is_better=args.higher_is_better,
                 **_given(confidences=args.confidences), **options)


#: The arguments of `fastperf.decide` that come from an option of ``fastperf decide``; an
#: `InputError` about one of them names the option (`_call`).
DECIDE_FLAGS = {"margin": "--margin", "alpha": "--alpha", "adjust": "--adjust",
                **STRUCTURE_FLAGS}


def _decide(args) -> int:
    """`fastperf decide`: the decisions (``--undecided-only``: the undecided benchmarks, one
    name per line), a one-line summary on stderr, and the exit status: 1 when a benchmark is
    decided worse, else 4 when one is undecided (``continue``; one with no decision, which more
    runs cannot give, does not count), else 0."""
    if args.undecided_only and args.format_given not in (None, "text"):
        raise InputError("--undecided-only prints benchmark names, one per line: it takes no "
                         "--format")
    table = _only_unit(_read(args), args.unit)
    baseline, candidate = _variant_names(table, args, several=False)
    higher = direction_option(args)
    result = _call(decide, table, flags=DECIDE_FLAGS, baseline=baseline, candidate=candidate,
                   margin=args.margin, by=_role(args, args.by), alpha=args.alpha,
                   adjust=args.adjust, higher_is_better=higher, levels=args.levels,
                   block=args.block, **_given(warmup=args.warmup))
    undecided = result.undecided()
    if args.undecided_only:  # no line at all when every benchmark is decided
        _write_lines(undecided, args.output)
    else:
        _write(result, args.format, args.output, top=args.top)
    return _decide_status(result, undecided)


def _write_lines(lines: list[str], output: str | None) -> None:
    """`lines`, each ended by a newline, to the file `output` or to standard output."""
    text = "".join(f"{line}\n" for line in lines)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def _decide_status(result: DecideResult, undecided: list[str]) -> int:
    """The exit status of ``fastperf decide`` (1 worse, else 4 undecided, else 0), with its
    one-line summary on stderr."""
    counts = result.summary["decisions"]
    line = (f"fastperf decide: {counts['worse']} worse, {counts['better']} better, "
            f"{counts['changed']} changed, {counts['equivalent']} equivalent, "
            f"{counts['continue']} continue")
    no_decision = result.summary["no_decision"]
    if no_decision:
        line += f", {no_decision} with no decision (see status)"
    if counts["worse"]:
        decisions = result.benchmarks.column("decision").to_pylist()
        names = [format_cell(name) for name, decision in zip(
            result.benchmarks.column(result.key_columns[0]).to_pylist(), decisions)
            if decision == "worse"] if result.key_columns else ["(all rows)"]
        print(f"{line}: FAIL, {counts['worse']} worse ({_first_names(names)})",
              file=sys.stderr)
        return EXIT_GATE_FAILED
    if undecided:
        most, unit = result.summary["most_runs_needed"], result.summary["sequential_unit"]
        needed = "" if most is None else f"; at most {most} more {UNIT_NAMES[unit]} projected"
        print(f"{line}: UNDECIDED, {len(undecided)} to run again ({_first_names(undecided)})"
              f"{needed}", file=sys.stderr)
        return EXIT_UNDECIDED
    print(f"{line}: pass", file=sys.stderr)
    return EXIT_OK


def _first_names(names: list[str], shown: int = 3) -> str:
    """The first `shown` names, comma-separated, then ``...`` when there are more."""
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def _check(args) -> int:
    """`fastperf check`: the run diagnostics; with ``--fail-on flags``, a one-line summary on
    stderr and the exit status 1 when a group is flagged, else 0."""
    result = _call(check, _read(args), flags=STRUCTURE_FLAGS, by=_role(args, args.by),
                   variant=None if args.variant is None else "variant", levels=args.levels,
                   block=args.block)
    _write(result, args.format, args.output, top=args.top)
    if args.fail_on is None:
        return EXIT_OK
    flagged = result.summary["flagged"]
    line = f"fastperf check: {result.footer()}"
    if flagged:
        names = [name for name, flags in zip(result.names(),
                                             result.groups.column("flags").to_pylist()) if flags]
        print(f"{line}: FAIL ({_first_names(names)})", file=sys.stderr)
        return EXIT_GATE_FAILED
    print(f"{line}: pass", file=sys.stderr)
    return EXIT_OK


def _warmup(args) -> None:
    if args.jobs is not None:  # warmup takes it unchecked: checked here
        check_whole_number(args.jobs, "--jobs (worker processes)", minimum=1, maximum=256)
    done = warmup(jobs=args.jobs, parallel=args.parallel, progress=progress_stream())
    native = (f"native kernels: {done['native']} builds shipped" if done["native"] else
              "native kernels: none (this install JIT-compiles every kernel)")
    print(f"fastperf warmup: {done['tasks']} tasks in {done['seconds']:.1f} s; compiled "
          f"{done['compiled']} specializations ({done['compile_seconds']:.1f} s of compiling, "
          f"0 when all were cached); Numba cache: {done['cache']}; {native}")


def _report(args) -> int | None:
    """`fastperf report`: `fastperf compare` (any protocol) written as the HTML report."""
    args.format = "html"
    return _compare(args)


def _demo(args) -> None:
    """`fastperf demo`: the comparison of the shipped Go pair as ``fastperf compare
    examples/old.txt examples/new.txt`` prints it, how to read it, the describe table with
    ``--describe``, and the path of its HTML report (written to the temporary directory).

    ``--format text`` (default) writes all of that as one text; the other formats hold one
    result: the comparison's, or describe's with ``--describe``, and the report's path goes to
    stderr.
    """
    table = example_table(DEMO_FILES)
    comparison = compare(table, baseline="old", candidate="new")
    path = os.path.join(tempfile.gettempdir(), DEMO_REPORT)
    comparison.to_html(path)
    report_line = f"The HTML report of this comparison: {path}"
    if args.format != "text":
        shown = describe(table) if args.describe else comparison
        _write(shown, args.format, args.output, top=args.top)
        print(report_line, file=sys.stderr)
        return
    parts = [textwrap.fill(DEMO_TITLE, DEMO_WIDTH), comparison.to_text(),
             textwrap.fill(DEMO_READING, DEMO_WIDTH)]
    if args.describe:
        parts += [textwrap.fill("Each group's statistics, as `fastperf describe "
                                "examples/old.txt examples/new.txt` prints them:", DEMO_WIDTH),
                  describe(table).to_text()]
    _write(comparison, "text", args.output, text="\n\n".join(parts + [report_line]))


@contextlib.contextmanager
def standard_input_as_file(args) -> Iterator[None]:
    """While the command runs, a FILE given as ``-`` is standard input, copied once into a
    private temporary file called ``stdin`` (its variant's name) that the readers detect and
    read as any file; messages name it `STDIN_NAME`. Removed afterwards.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line; its ``files`` (when it has them) are rewritten in place.

    Raises
    ------
    InputError
        ``-`` given more than once (standard input can be read once), or no standard input.
    """
    files = list(getattr(args, "files", None) or [])
    if STDIO not in files:
        yield
        return
    if files.count(STDIO) > 1:
        raise InputError(f"'-' (standard input) is given {files.count(STDIO)} times; it can be "
                         "read once")
    with tempfile.TemporaryDirectory(prefix="fastperf-stdin-") as folder:
        path = os.path.join(folder, "stdin")
        with open(path, "wb") as sink:
            shutil.copyfileobj(_stdin_bytes(), sink)
        args.files = [path if name == STDIO else name for name in files]
        try:
            yield
        except (InputError, OSError, pa.ArrowException) as exc:
            if isinstance(exc, MemoryError) or path not in str(exc):
                raise
            raise InputError(str(exc).replace(path, STDIN_NAME)) from exc


def _stdin_bytes():
    """Standard input as a binary stream (a text-only one, as a test's ``io.StringIO``, as its
    UTF-8 bytes)."""
    stream = sys.stdin
    if stream is None:
        raise InputError("'-' reads standard input, and this process has none")
    binary = getattr(stream, "buffer", None)
    return binary if binary is not None else io.BytesIO(stream.read().encode("utf-8"))


#: What an internal error (a bug in fastperf, not bad input) asks of the user.
REPORT_HINT = ("please report it to the fastperf maintainers with the command line and, if you "
               "can, the input; rerun with --debug for the traceback")
COMMANDS = {"describe": _describe, "aggregate": _aggregate, "plan": _plan, "anova": _anova,
            "factorial": _factorial, "compare": _compare, "changepoints": _changepoints,
            "report": _report, "decide": _decide, "check": _check, "warmup": _warmup,
            "demo": _demo}


def _one_line(exc: BaseException, limit: int = 500) -> str:
    """The message of `exc` on one line, at most `limit` characters: a longer one keeps its
    beginning (what failed) and its end (why, and what to do: a reader's "tried ..." list
    ends with the reason the likeliest format gave), with " ... " for the middle."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    # a file's bytes quoted in a message (a binary file tried as CSV) are not for a terminal
    text = printable(text)
    if len(text) <= limit:
        return text
    head = (limit - 5) // 2
    return text[:head] + " ... " + text[len(text) - (limit - 5 - head):]


#: Whether this process has printed `note_without_native_kernels`'s note.
native_note_printed = False


def note_without_native_kernels() -> None:
    """Say on stderr, once per process, that the native kernels do not serve it: why, what it
    costs and the fix (`fastperf.kernels.builds.native_status`); nothing when they do."""
    global native_note_printed
    status = native_status()
    if status.active or native_note_printed:
        return
    native_note_printed = True
    print(f"fastperf: note: native kernels {status.explain()}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fastperf`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (`fastperf.cli_args.EXIT_STATUSES`): 0 on success (a gate passed);
        1 for ``--fail-on worse`` finding a regression (``decide``: a benchmark decided worse);
        4 when ``decide`` leaves a benchmark undecided; 2 on bad input (an `InputError`, an
        unreadable file, an Arrow error, input too large for memory) with a one-line reason on
        stderr; 3 for an internal error (a bug: any other exception) with a one-line
        ``fastperf: internal error: ...`` asking for a report; 130 when interrupted (Ctrl-C);
        141, silently, when standard output is closed early (a pipe into ``head``). No
        traceback, except with ``--debug``. A bad option raises ``SystemExit(2)`` (argparse)
        after its one-line message; ``--help`` and ``--version`` raise ``SystemExit(0)``.

    Notes
    -----
    Each subcommand calls one table-level function (describe, aggregate_score, plan_runs, anova,
    factorial, speedup_test / sparc / hpt, decide); their docstrings cite the methods' sources.
    """
    args = build_parser().parse_args(argv)  # --help and --version exit here
    note_without_native_kernels()
    debug = getattr(args, "debug", False)
    if getattr(args, "output", None) == STDIO:  # -o -: standard output
        args.output = None
    if hasattr(args, "format"):  # -o report.html: the report, without --format html
        args.format_given = args.format
        args.format = output_format(args.format, getattr(args, "output", None))
    try:
        if getattr(args, "format", None) == "parquet" and not getattr(args, "output", None):
            _binary_stdout()  # refused before any work: a terminal, or text-only output
        thread_count()  # a bad FASTPERF_THREADS: one line now, not only on a large input
        check_output_is_no_input(args)
        if getattr(args, "top", None) is not None and args.command != "report" \
                and args.format != "html":
            raise InputError("--top is used only with --format html (or fastperf report)")
        with progress_default(False if getattr(args, "no_progress", False) else None), \
                standard_input_as_file(args):
            status = COMMANDS[args.command](args)
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        print("fastperf: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (| head): nothing more to say to anyone
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except MemoryError as exc:  # before ArrowException: pyarrow's ArrowMemoryError is both
        if debug:
            traceback.print_exc()
        print(f"fastperf: error: the input is too large for the memory available "
              f"({type(exc).__name__}{': ' + _one_line(exc, 200) if str(exc) else ''}); read "
              "fewer or smaller files", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (InputError, OSError, pa.ArrowException) as exc:
        if debug:
            traceback.print_exc()
        print(f"fastperf: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # a bug: one line, the traceback only with --debug
        if debug:
            traceback.print_exc()
        print(f"fastperf: internal error: {type(exc).__name__}: {_one_line(exc)} "
              f"({REPORT_HINT})", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    return status or EXIT_OK


def direction_option(args: argparse.Namespace) -> dict[str, bool] | bool | None:
    """``higher_is_better`` from ``--direction`` (per unit) or ``--higher-is-better`` (every
    unit); both together are refused (one of them was ignored)."""
    if args.direction is not None and args.higher_is_better:
        raise InputError("--higher-is-better (every unit) and --direction (per unit) contradict "
                         "or repeat each other: give one of them")
    return args.direction if args.direction is not None else (
        True if args.higher_is_better else None)


def check_output_is_no_input(args: argparse.Namespace) -> None:
    """Refuse ``-o`` naming a file the command reads (it would be overwritten by the report
    before anyone could read it again)."""
    output = getattr(args, "output", None)
    if output is None or not os.path.exists(output):
        return
    inputs = list(getattr(args, "files", None) or []) + [getattr(args, "config", None)]
    for given in inputs:
        if isinstance(given, (str, os.PathLike)) and os.path.exists(given) \
                and os.path.samefile(given, output):
            raise InputError(f"-o/--output {output} is an input of the command; write the "
                             "output to another file")


def _silence_stdout() -> None:
    """Point standard output's file at /dev/null, so that the interpreter's final flush of a
    closed pipe raises nothing (Python's documented recipe for SIGPIPE); nothing for a stream
    without a file (an in-process capture)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def command() -> int:
    """The ``fastperf`` command and ``python -m fastperf``: `main` with the process's arguments.

    Returns
    -------
    int
        `main`'s exit status.
    """
    return main()


if __name__ == "__main__":
    sys.exit(command())
