"""The ``fastperf`` command line: one subcommand per table-level function, plus ``demo``.

Exit status: 0 on success, 2 on bad input with a one-line reason on stderr, 1 on an internal
error (a bug) with a one-line message asking for a report (the traceback with ``--debug``).
The parser lives in `fastperf.cli_args`.
"""
from __future__ import annotations

import sys
import traceback
from typing import Sequence

import pyarrow as pa

from fastperf.cli_args import build_parser, column_list
from fastperf.errors import InputError
from fastperf.results.render import csv_table, format_cell

DEMO_FILES = ["old.txt", "new.txt"]


def _write(result, fmt: str, output: str | None, table: pa.Table | None = None,
           text: str | None = None) -> None:
    """Render `result` in `fmt` to the file `output` or to standard output.

    CSV and Parquet hold one table: `table`, by default the result's main one. `text`: the
    text or Markdown already rendered (with the caller's options).
    """
    if fmt in ("csv", "parquet"):
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        sink = output if output else pa.PythonFile(sys.stdout.buffer, mode="w")
        table = result.table if table is None else table
        if fmt == "csv":
            pacsv.write_csv(csv_table(table), sink)
        else:
            pq.write_table(table, sink)
        return
    if text is None:
        text = {"text": result.to_text, "markdown": result.to_markdown,
                "json": result.to_json}[fmt]()
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)


def _read(args) -> pa.Table:
    """The FILEs as one table; the ``--benchmark``, ``--variant`` and ``--value`` columns come
    out under those role names (``benchmark``, ``variant``, ``value``), which every later step
    uses (`_role`)."""
    from fastperf.io.read import read

    if args.variant is None and args.command != "describe":
        raise InputError("--variant none: only describe works without variants; name the "
                         "variant column, or leave --variant out")
    source = args.files[0] if len(args.files) == 1 else args.files
    return read(source, format=args.input_format, benchmark=args.benchmark,
                variant=args.variant or "variant", value=args.value, variants=args.variants,
                metric=args.metric)


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


def _describe(args) -> None:
    from fastperf.stats.describe import describe

    result = describe(_read(args), by=_role(args, args.by),
                      variant=None if args.variant is None else "variant", unit=args.unit,
                      confidence=args.confidence)
    _write(result, args.format, args.output)


def _only_unit(table: pa.Table, unit: str | None) -> pa.Table:
    """The measurements in `unit` (all of them when `unit` is None)."""
    if unit is None:
        return table
    import pyarrow.compute as pc

    if "unit" not in table.column_names:
        raise InputError("--unit: the input has no unit column")
    table = table.filter(pc.equal(table.column("unit").cast(pa.string()), unit))
    if table.num_rows == 0:
        raise InputError(f"--unit {unit!r}: no measurements in that unit")
    return table


def _aggregate(args) -> None:
    from fastperf.protocols.aggregate import aggregate_score

    table = _only_unit(_read(args), args.unit)
    result = aggregate_score(table, kind=args.kind, method=args.method,
                             weights=_role(args, args.weights), baseline=args.baseline,
                             confidence=args.confidence)
    _write(result, args.format, args.output)


def _plan(args) -> None:
    from fastperf.protocols.planning import plan_runs

    result = plan_runs(_read(args), target=args.target, precision=args.precision,
                       confidence=args.confidence, assurance=args.assurance,
                       baseline=args.baseline, candidate=args.candidate)
    _write(result, args.format, args.output)


def _anova(args) -> None:
    from fastperf.designs.anova import anova

    result = anova(_read(args), factor=_role(args, args.factor), by=_role(args, args.by),
                   alpha=args.alpha,
                   equal_var=not args.welch)
    _write(result, args.format, args.output)


def _factorial(args) -> None:
    from fastperf.designs.factorial import factorial

    result = factorial(_read(args), factors=_role(args, args.factors), by=_role(args, args.by),
                       log=args.log,
                       confidence=args.confidence)
    _write(result, args.format, args.output, table=result.effects)  # the effects, in CSV/Parquet


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
    present = [str(v) for v in table.column("variant").unique().to_pylist() if v is not None]
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


def _compare(args) -> None:
    from fastperf.io.speedup_config import read_speedup_config
    from fastperf.protocols.speedup import speedup_test

    protocol = args.protocol or ("speedup-test" if args.config is not None else "compare")
    if protocol != "compare":
        only_compare = [flag for flag, given in (
            ("--by", args.by is not None), ("--threshold", args.threshold != 0),
            ("--direction", args.direction is not None), ("--sort", args.sort is not None),
            ("--fail-on", args.fail_on is not None),
            ("--fail-threshold", args.fail_threshold != 0)) if given]
        if only_compare:
            raise InputError(f"{only_compare[0]} belongs to --protocol compare")
    proportion_confidence = args.proportion_confidence
    if args.config is not None:
        if args.files or args.unit is not None:
            raise InputError("--config reads the Speedup-Test tool's files: give measurement "
                             "FILEs (and --unit) or --config, not both")
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
    if args.adjust == "bh" or (protocol != "sparc" and args.adjust is not None):
        raise InputError(f"--adjust {args.adjust} belongs to --protocol compare"
                         + (" (sparc takes bonferroni, holm or none)" if protocol == "sparc" else ""))
    if protocol != "speedup-test":
        result = _relevance(args, table, baseline, candidate, protocol)
        _write(result, args.format, args.output)
        return None
    if args.margin is not None:
        raise InputError("--margin belongs to --protocol compare or sparc")
    if args.scale is not None:
        raise InputError("--scale belongs to --protocol sparc or hpt")
    result = speedup_test(table, baseline=baseline, candidate=candidate, by="benchmark",
                          alpha=alpha, weights=weights, higher_is_better=args.higher_is_better,
                          large_sample=args.large_sample, precision=args.precision,
                          proportion_confidence=proportion_confidence)
    if args.reports:
        result.write_reports(args.reports)
    _write(result, args.format, args.output)
    return None


def _regressions(args, table: pa.Table, baseline: str, candidate) -> int:
    """`fastperf compare` with the default protocol: the regression detector and its gate."""
    from fastperf.protocols.compare import compare

    only_others = [flag for flag, given in (
        ("--weights", args.weights is not None), ("--reports", args.reports is not None),
        ("--pair", args.pair is not None), ("--scale", args.scale is not None),
        ("--proportion-confidence", args.proportion_confidence is not None)) if given]
    if only_others:
        raise InputError(f"{only_others[0]} belongs to another --protocol (speedup-test, sparc, "
                         "hpt)")
    higher = args.direction if args.direction is not None else (
        True if args.higher_is_better else None)
    # the read renamed --benchmark's column to benchmark: the default keys (benchmark plus the
    # configuration the files carry) are right whatever --benchmark was
    by = _role(args, args.by)
    result = compare(table, baseline=baseline, candidate=candidate, by=by,
                     alpha=args.alpha, adjust=args.adjust or "bh", confidence=args.confidence,
                     margin=args.margin, threshold=args.threshold, higher_is_better=higher,
                     method=args.method)
    text = (result.to_text(sort=args.sort) if args.format == "text" else
            result.to_markdown(sort=args.sort or "delta") if args.format == "markdown" else None)
    _write(result, args.format, args.output, text=text)
    if args.fail_on is None:
        return 0
    failures = result.failures(args.fail_threshold)
    counts = result.summary["verdicts"]
    line = (f"fastperf compare: {counts['worse']} worse, {counts['better']} better, "
            f"{counts['changed']} changed, {counts['no change']} no change, "
            f"{counts['equivalent']} equivalent, "
            f"{counts['too few runs']} with too few runs")
    if failures.num_rows:
        names = ", ".join(format_cell(n) for n in failures.column(
            "benchmark" if "benchmark" in failures.column_names else 0).to_pylist()[:3])
        print(f"{line}: FAIL, {failures.num_rows} worse by at least "
              f"{args.fail_threshold:.2%} ({names}{', ...' if failures.num_rows > 3 else ''})",
              file=sys.stderr)
        return 1
    print(f"{line}: pass", file=sys.stderr)
    return 0


def _relevance(args, table: pa.Table, baseline: str, candidate, protocol: str):
    """`sparc` or `hpt` on the table (the Speedup-Test-only options rejected, not ignored)."""
    from fastperf.protocols.hpt import hpt
    from fastperf.protocols.sparc import sparc

    only_speedup_test = [flag for flag, given in (
        ("--config", args.config is not None), ("--weights", args.weights is not None),
        ("--reports", args.reports is not None)) if given]
    scale = args.scale or "log"
    if only_speedup_test:
        raise InputError(f"{only_speedup_test[0]} belongs to --protocol speedup-test")
    if protocol == "sparc":
        pair = _role(args, args.pair)
        if pair is not None and pair not in table.column_names:
            raise InputError(f"--pair {args.pair}: no such column (the input has "
                             f"{table.column_names}); omit --pair for independent runs")
        return sparc(table, baseline=baseline, candidate=candidate, by="benchmark",
                     pair=pair, margin=0.05 if args.margin is None else args.margin,
                     alpha=args.alpha, adjust=args.adjust or "bonferroni", method=args.method,
                     higher_is_better=args.higher_is_better, scale=scale)
    if args.pair is not None:
        raise InputError("--pair belongs to --protocol sparc (HPT compares independent runs)")
    if args.margin is not None or args.adjust is not None:
        raise InputError("--margin and --adjust belong to --protocol compare or sparc")
    return hpt(table, baseline=baseline, candidate=candidate, by="benchmark",
               alpha=args.alpha, confidences=args.confidences, method=args.method,
               higher_is_better=args.higher_is_better, scale=scale)


def _warmup(args) -> None:
    from fastperf.warmup import progress_stream, warmup

    done = warmup(jobs=args.jobs, parallel=args.parallel, progress=progress_stream())
    print(f"fastperf warmup: {done['tasks']} tasks in {done['seconds']:.1f} s; compiled "
          f"{done['compiled']} specializations ({done['compile_seconds']:.1f} s of compiling, "
          f"0 when all were cached); Numba cache: {done['cache']}")


def _demo(args) -> None:
    from fastperf.io.read import example_table
    from fastperf.stats.describe import describe

    table = example_table(DEMO_FILES)
    if args.format == "text" and not args.output:
        print("fastperf demo: Go's encoding benchmarks (golang.org/x/perf test data), "
              "old.txt vs new.txt, 10 runs each\n")
    _write(describe(table), args.format, args.output)


#: What an internal error (a bug in fastperf, not bad input) asks of the user.
REPORT_HINT = ("please report it to the fastperf maintainers with the command line and, if you "
               "can, the input; rerun with --debug for the traceback")
COMMANDS = {"describe": _describe, "aggregate": _aggregate, "plan": _plan, "anova": _anova,
            "factorial": _factorial, "compare": _compare, "warmup": _warmup, "demo": _demo}


def _one_line(exc: BaseException, limit: int = 500) -> str:
    """The message of `exc` on one line, cut to `limit` characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fastperf`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success; 2 on bad input (an `InputError`, an unreadable file, an
        Arrow error, input too large for memory) with a one-line reason on stderr; 1 for
        ``compare --fail-on worse`` finding a regression, or for an internal error (a bug: any
        other exception) with a one-line ``fastperf: internal error: ...`` asking for a report;
        130 when interrupted (Ctrl-C). No traceback, except with ``--debug``. A bad option
        raises ``SystemExit(2)`` (argparse) after its one-line message.

    Notes
    -----
    Each subcommand calls one table-level function (describe, aggregate_score, plan_runs, anova,
    factorial, speedup_test / sparc / hpt); their docstrings cite the methods' sources.
    """
    args = build_parser().parse_args(argv)
    debug = getattr(args, "debug", False)
    try:
        status = COMMANDS[args.command](args)
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        print("fastperf: interrupted", file=sys.stderr)
        return 130
    except MemoryError as exc:  # before ArrowException: pyarrow's ArrowMemoryError is both
        if debug:
            traceback.print_exc()
        print(f"fastperf: error: the input is too large for the memory available "
              f"({type(exc).__name__}{': ' + _one_line(exc, 200) if str(exc) else ''}); read "
              "fewer or smaller files", file=sys.stderr)
        return 2
    except (InputError, OSError, pa.ArrowException) as exc:
        if debug:
            traceback.print_exc()
        print(f"fastperf: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: one line, the traceback only with --debug
        if debug:
            traceback.print_exc()
        print(f"fastperf: internal error: {type(exc).__name__}: {_one_line(exc)} "
              f"({REPORT_HINT})", file=sys.stderr)
        return 1
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
