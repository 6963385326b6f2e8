"""The ``fastperf`` command line: one subcommand per table-level function, plus ``demo``.

Exit status: 0 on success, 2 on bad input with a one-line reason on stderr.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

import pyarrow as pa

from fastperf.errors import InputError

FORMATS = ["text", "markdown", "json", "csv", "parquet"]
PROTOCOLS = ["compare", "speedup-test", "sparc", "hpt"]
DEMO_FILES = ["old.txt", "new.txt"]


def _columns(text: str) -> list[str]:
    return [c for c in text.split(",") if c]


def _numbers(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(c) for c in text.split(",") if c)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")


def _fraction(text: str) -> float:
    """``2%`` or ``0.02``: a relative change as a fraction."""
    try:
        value = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage (2%) or a fraction (0.02), "
                                         f"got {text!r}")
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative change, got {text!r}")
    return value


def _directions(text: str) -> dict[str, bool]:
    """``B/s=higher,sec/op=lower`` -> {unit: higher is better}."""
    out = {}
    for item in (c for c in text.split(",") if c):
        unit, _, way = item.rpartition("=")
        if not unit or way not in ("higher", "lower"):
            raise argparse.ArgumentTypeError(f"expected UNIT=higher or UNIT=lower, got {item!r}")
        out[unit] = way == "higher"
    return out


def _optional_column(text: str) -> str | None:
    return None if text.lower() == "none" else text


def _optional_number(text: str) -> float | str | None:
    """``none`` -> None, a number -> float; anything else is passed on as given, for the
    function's own check to refuse with a one-line reason (exit status 2)."""
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        return text


def _add_input_arguments(p: argparse.ArgumentParser, files: str = "+") -> None:
    p.add_argument("files", nargs=files, metavar="FILE",
                   help="measurement files: Parquet, CSV, Arrow IPC, or benchmark-tool results "
                        "(pyperf, pytest-benchmark, Google Benchmark, hyperfine, go test -bench)")
    p.add_argument("--input-format", default=None,
                   help="force the input format instead of detecting it from the content")
    p.add_argument("--benchmark", default="benchmark",
                   help="column naming the benchmark in a table file (default: benchmark)")
    p.add_argument("--value", default="value",
                   help="column holding the measurements in a table file (default: value)")
    p.add_argument("--variants", type=_columns, default=None, metavar="NAME,...",
                   help="variant names for the files, in order (default: each file's name)")
    p.add_argument("--metric", default="real_time",
                   help="Google Benchmark time to use: real_time (default) or cpu_time")


def _add_output_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="write to this file instead of standard output")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit status 2), as for every other bad input."""

    def error(self, message: str):  # noqa: D102
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fastperf",
        description="Rigorous, fast statistics for performance comparisons.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    d = sub.add_parser("describe", help="summary statistics and intervals per benchmark and variant")
    _add_input_arguments(d)
    d.add_argument("--by", type=_columns, default=["benchmark"], metavar="COL,...",
                   help="key columns (default: benchmark)")
    d.add_argument("--variant", type=_optional_column, default="variant",
                   help="variant column, or 'none' (default: variant)")
    d.add_argument("--unit", type=_optional_column, default="unit",
                   help="unit column that also splits groups, or 'none' (default: unit)")
    d.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    _add_output_arguments(d)

    a = sub.add_parser("aggregate", help="aggregate score of every variant over the benchmarks, "
                                         "with its confidence interval")
    _add_input_arguments(a)
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
    a.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    _add_output_arguments(a)

    pl = sub.add_parser("plan", help="runs needed per benchmark and variant for a precision, and "
                                     "for two variants' intervals to separate")
    _add_input_arguments(pl)
    pl.add_argument("--precision", type=float, default=0.01,
                    help="target half-width of the mean's interval (default 0.01)")
    pl.add_argument("--target", choices=["relative_halfwidth", "halfwidth"],
                    default="relative_halfwidth",
                    help="precision relative to the mean (default) or in the value's unit")
    pl.add_argument("--baseline", default=None, metavar="VARIANT")
    pl.add_argument("--candidate", default=None, metavar="VARIANT")
    pl.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    pl.add_argument("--assurance", type=_optional_number, default=0.8, metavar="GAMMA|none",
                    help="probability that a follow-up of runs_needed fresh runs reaches the "
                         "precision (default 0.8); 'none' for the plug-in plan, which takes the "
                         "pilot's sd as the truth")
    _add_output_arguments(pl)

    an = sub.add_parser("anova", help="one-way analysis of variance of a factor, per group")
    _add_input_arguments(an)
    an.add_argument("--factor", default="variant", help="the factor column (default: variant)")
    an.add_argument("--by", type=_columns, default=None, metavar="COL,...",
                    help="one ANOVA per group of these columns (default: one in all)")
    an.add_argument("--alpha", type=float, default=0.05, help="level of f_critical (default 0.05)")
    an.add_argument("--welch", action="store_true", help="Welch's ANOVA (unequal variances): equal_var=False")
    _add_output_arguments(an)

    fa = sub.add_parser("factorial", help="effects and allocation of variation of a 2^k (r) or "
                                          "2^(k-p) design")
    _add_input_arguments(fa)
    fa.add_argument("--factors", type=_columns, required=True, metavar="A,B,C",
                    help="the two-level factor columns")
    fa.add_argument("--by", type=_columns, default=None, metavar="COL,...",
                    help="one analysis per group of these columns (default: one in all)")
    fa.add_argument("--log", action="store_true", help="multiplicative model (log of the values)")
    fa.add_argument("--confidence", type=float, default=0.90, help="confidence level (default 0.90)")
    _add_output_arguments(fa)

    c = sub.add_parser("compare", help="compare a candidate with a baseline per benchmark, "
                                       "configuration and unit: the regression detector "
                                       "(default), or the Speedup-Test, SPARC or HPT")
    _add_input_arguments(c, files="*")
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
    c.add_argument("--alpha", type=float, default=0.05,
                   help="risk level of the tests (default 0.05; with --config, lines giving a "
                        "confidence level use theirs)")
    c.add_argument("--adjust", choices=["bh", "holm", "bonferroni", "none"], default=None,
                   help="multiple-testing adjustment: compare: bh (default, false discovery "
                        "rate), holm, bonferroni or none (benchstat's verdicts); sparc: "
                        "bonferroni (default), holm or none")
    c.add_argument("--by", type=_columns, default=None, metavar="COL,...",
                   help="compare: the columns identifying a benchmark (default: benchmark plus "
                        "the configuration the files carry)")
    c.add_argument("--threshold", type=_fraction, default=0.0, metavar="PCT",
                   help="compare: the smallest change called better/worse, e.g. 2%% or 0.02 "
                        "(default 0)")
    c.add_argument("--direction", type=_directions, default=None, metavar="UNIT=higher,...",
                   help="compare: which way is better for a unit (higher or lower), overriding "
                        "the unit's known direction")
    c.add_argument("--confidence", type=float, default=0.95,
                   help="compare: level of the median and ratio intervals (default 0.95)")
    c.add_argument("--sort", choices=["name", "delta"], default=None,
                   help="compare: row order: as read (default), by name, or delta "
                        "(regressions first)")
    c.add_argument("--fail-on", choices=["worse"], default=None,
                   help="compare: exit with status 1 when a benchmark's verdict is worse (the "
                        "CI gate); a summary line goes to stderr")
    c.add_argument("--fail-threshold", type=_fraction, default=0.0, metavar="PCT",
                   help="compare --fail-on worse: only changes of at least this size fail "
                        "(e.g. 2%%)")
    c.add_argument("--weights", default=None, metavar="COL",
                   help="speedup-test: column of per-benchmark weights for the overall speedup "
                        "(with --config: the file's weights)")
    c.add_argument("--higher-is-better", action="store_true",
                   help="the metric is a throughput (every unit; compare infers it per unit)")
    c.add_argument("--large-sample", type=int, default=30,
                   help="speedup-test: samples larger than this skip the normality requirement "
                        "(default 30)")
    c.add_argument("--precision", type=float, default=0.05,
                   help="speedup-test: precision r of the proportion interval for the number "
                        "of benchmarks needed (default 0.05)")
    c.add_argument("--proportion-confidence", type=float, default=None,
                   help="speedup-test: confidence level of the proportion intervals (default "
                        "1 - alpha)")
    c.add_argument("--unit", default=None,
                   help="keep only the measurements in this unit (e.g. Go's sec/op)")
    c.add_argument("--reports", default=None, metavar="DIR",
                   help="speedup-test: also write the four reports (global, benchmarks, "
                        "warnings, errors) here")
    c.add_argument("--margin", type=float, default=None,
                   help="equivalence margin delta, the ratio's interval [1-delta, 1+delta] "
                        "(compare: none by default; sparc: 0.05)")
    c.add_argument("--pair", default=None, metavar="COL",
                   help="sparc: the column pairing baseline and candidate runs (e.g. run) when "
                        "they were measured in pairs; default: independent runs")
    c.add_argument("--method", choices=["auto", "exact", "asymptotic"], default="auto",
                   help="rank tests' p-values (default auto: exact where cheap)")
    c.add_argument("--confidences", type=_numbers, default=(0.9, 0.95, 0.99), metavar="C,...",
                   help="hpt: reliabilities for the largest speedup (default 0.9,0.95,0.99)")
    c.add_argument("--scale", choices=["log", "ratio"], default=None,
                   help="sparc (paired tests) and hpt (level-2 scores): test log ratios "
                        "(default) or the papers' ratio - 1")
    _add_output_arguments(c)

    w = sub.add_parser("warmup", help="compile every kernel into Numba's disk cache, so that later "
                                      "commands start in a fraction of a second")
    w.add_argument("--jobs", type=int, choices=range(1, 257), default=None, metavar="N",
                   help="worker processes (default: the CPUs available)")
    w.add_argument("--parallel", action="store_true",
                   help="also compile the parallel builds (used only on inputs of millions of rows)")

    demo = sub.add_parser("demo", help="describe the real Go benchmark data shipped with fastperf")
    _add_output_arguments(demo)
    return parser


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
            pacsv.write_csv(table, sink)
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
    from fastperf.io.read import read

    source = args.files[0] if len(args.files) == 1 else args.files
    return read(source, format=args.input_format, benchmark=args.benchmark, value=args.value,
                variants=args.variants, metric=args.metric)


def _describe(args) -> None:
    from fastperf.stats.describe import describe

    result = describe(_read(args), by=args.by, variant=args.variant, unit=args.unit,
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
                             weights=args.weights, baseline=args.baseline,
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

    result = anova(_read(args), factor=args.factor, by=args.by, alpha=args.alpha,
                   equal_var=not args.welch)
    _write(result, args.format, args.output)


def _factorial(args) -> None:
    from fastperf.designs.factorial import factorial

    result = factorial(_read(args), factors=args.factors, by=args.by, log=args.log,
                       confidence=args.confidence)
    _write(result, args.format, args.output, table=result.effects)  # the effects, in CSV/Parquet


def _variant_names(table: pa.Table, args, several: bool) -> tuple[str, str | list[str]]:
    """--baseline / --candidate; by default the first variant is the baseline and the other
    (`several`: every other) variant the candidate."""
    candidate = args.candidate
    if several and candidate is not None and "," in candidate:
        candidate = _columns(candidate)
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
    else:
        if not args.files:
            raise InputError("give measurement FILEs (or --config CSV)")
        table, weights, alpha = _only_unit(_read(args), args.unit), args.weights, args.alpha
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
    result = speedup_test(table, baseline=baseline, candidate=candidate, by=args.benchmark,
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
    by = args.by if args.by is not None else (
        None if args.benchmark == "benchmark" else [args.benchmark])
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
        names = ", ".join(str(n) for n in failures.column(args.benchmark if args.benchmark in
                                                          failures.column_names else 0)
                          .to_pylist()[:3])
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
        if args.pair is not None and args.pair not in table.column_names:
            raise InputError(f"--pair {args.pair}: no such column (the input has "
                             f"{table.column_names}); omit --pair for independent runs")
        return sparc(table, baseline=baseline, candidate=candidate, by=args.benchmark,
                     pair=args.pair, margin=0.05 if args.margin is None else args.margin,
                     alpha=args.alpha, adjust=args.adjust or "bonferroni", method=args.method,
                     higher_is_better=args.higher_is_better, scale=scale)
    if args.pair is not None:
        raise InputError("--pair belongs to --protocol sparc (HPT compares independent runs)")
    if args.margin is not None or args.adjust is not None:
        raise InputError("--margin and --adjust belong to --protocol compare or sparc")
    return hpt(table, baseline=baseline, candidate=candidate, by=args.benchmark,
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fastperf`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 2 on bad input (with a one-line reason on stderr).

    Notes
    -----
    Each subcommand calls one table-level function (describe, aggregate_score, plan_runs, anova,
    factorial, speedup_test / sparc / hpt); their docstrings cite the methods' sources.
    """
    args = _parser().parse_args(argv)
    try:
        commands = {"describe": _describe, "aggregate": _aggregate, "plan": _plan,
                    "anova": _anova, "factorial": _factorial, "compare": _compare,
                    "warmup": _warmup, "demo": _demo}
        status = commands[args.command](args)
    except (InputError, OSError, pa.ArrowException) as exc:
        reason = " ".join(str(exc).split())
        print(f"fastperf: error: {reason}", file=sys.stderr)
        return 2
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
