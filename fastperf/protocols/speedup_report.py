"""The Speedup-Test's result and its four reports (Touati, Worms & Briais 2013, seed 002,
sections 5 and 6): the global report (overall speedups and gains, proportions of accelerated
benchmarks with their intervals), the per-benchmark detail, the warnings and the errors.
`fastperf.protocols.speedup.speedup_test` builds it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from fastperf.protocols.flags import flags_footer
from fastperf.protocols.report_views import speedup_view
from fastperf.results.base import BenchmarkResult
from fastperf.results.figures import ReportView
from fastperf.results.render import (
    dumps, markdown_list, render_markdown, render_text, table_records, text_lines,
)

__all__ = ["SpeedupTestResult", "EXECUTION_TIMES", "RESULT_COLUMNS", "TEXT_COLUMNS",
           "REPORT_FILES"]

#: The execution-time summaries of equation (1), in report order.
EXECUTION_TIMES = ("mean", "median", "min")

#: Per-benchmark output columns (after the keys); a key column may not take one of these names.
RESULT_COLUMNS = [
    "n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate", "alpha",
    "speedup_min", "speedup_mean", "speedup_median",
    "mean_test", "pvalue_shapiro_baseline", "pvalue_shapiro_candidate", "pvalue_ftest",
    "pvalue_mean", "mean_significant", "max_confidence_mean",
    "pvalue_ks", "pvalue_median", "median_method", "median_significant", "prob_candidate_faster",
    "max_confidence_median", "flags", "status", "warnings",
]

#: The columns of the short per-benchmark table printed by `SpeedupTestResult.to_text`.
TEXT_COLUMNS = ["speedup_mean", "speedup_median", "mean_significant", "median_significant",
                "pvalue_mean", "pvalue_median", "status"]

REPORT_FILES = {"global": "speedup-test-global.txt", "benchmarks": "speedup-test-benchmarks.txt",
                "warnings": "speedup-test-warnings.txt", "errors": "speedup-test-errors.txt"}


def _r3(x: float) -> str:
    """A number as the Speedup-Test tool prints it: three decimals, trailing zeros dropped."""
    if x is None or not np.isfinite(x):
        return "NA"
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class SpeedupTestResult(BenchmarkResult):
    """Result of `speedup_test`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per benchmark, keys first; the columns are listed in `speedup_test`.
    summary : dict
        Overall figures: ``overall_speedup`` and ``overall_gain`` (dicts keyed by the execution
        time "mean", "median", "min"), and ``mean`` / ``median`` dicts with ``accelerated`` (a),
        ``compared`` (b), ``proportion``, ``ci_low``, ``ci_high``, ``ci_valid``
        (a(1 - a/b) > 5) and ``min_benchmarks``; the counts of benchmarks and of missing sides.
    warnings, errors : list of str
        The tool's warning and error files: why a speedup could not be concluded or its risk
        level is not guaranteed; which benchmarks could not be compared at all.
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return speedup_view(self)

    def __init__(self, table: pa.Table, summary: dict[str, Any], warnings: list[str],
                 errors: list[str]):
        super().__init__(table, summary, warnings)
        self.errors = errors

    def global_report(self) -> str:
        """The tool's global report: overall speedups and gains, then the proportions of
        accelerated benchmarks with their intervals (the lines of the paper's section 6).

        Returns
        -------
        str
            The report's lines: per execution time the overall gain G and speedup S
            (equations 1 and 2), then per protocol a/b, its confidence interval, the validity
            warning and the minimal number of benchmarks for precision r.

        Notes
        -----
        Touati, Worms & Briais (2013), "The Speedup-Test: a statistical methodology for
        programme speedup analysis and computation", Concurrency Computat.: Pract. Exper. 25(10),
        1410-1426, sections 4 to 6 (seed 002). Numbers are printed with three decimals, as the
        tool does.
        """
        s = self.summary
        direction = "higher is better" if s["higher_is_better"] else "lower is better"
        alpha = s["alpha"]
        risk = f"alpha = {alpha}" if not isinstance(alpha, str) else f"alpha from column {alpha!r}"
        lines = [
            f"Speedup-Test: candidate {s['candidate']!r} against baseline {s['baseline']!r} "
            f"({direction}), risk level {risk}",
            f"Benchmarks: {s['benchmarks_compared']} compared of {s['benchmarks']} "
            f"({s['missing_baseline']} missing baseline, {s['missing_candidate']} missing "
            "candidate)",
            "",
        ]
        for time in EXECUTION_TIMES:
            lines.append(f"Overall gain (ExecutionTime={time}) = {_r3(s['overall_gain'][time])}")
            lines.append(f"Overall speedup (ExecutionTime={time}) = "
                         f"{_r3(s['overall_speedup'][time])}")
        for protocol in ("mean", "median"):
            p = s[protocol]
            what = f"speedup of the {protocol}"
            lines += ["", f"The observed proportion of accelerated benchmarks ({what})",
                      f"a/b = {p['accelerated']}/{p['compared']} = {_r3(p['proportion'])}"]
            if p["compared"] == 0:
                continue
            lines += [
                "The confidence level for computing proportion confidence interval is "
                f"{s['proportion_confidence']}.",
                f"Proportion confidence interval ({what}) = [{_r3(p['ci_low'])}; "
                f"{_r3(p['ci_high'])}]",
            ]
            if not p["ci_valid"]:
                lines.append("Warning: this confidence interval of the proportion may not be "
                             "accurate because the validity condition {a(1-a/b) > 5} is not "
                             "satisfied.")
            lines.append(f"The minimal needed number of randomly selected benchmarks is "
                         f"{p['min_benchmarks']} (in order to have a precision "
                         f"r={s['precision']}).")
        return "\n".join(lines)

    def detail_report(self) -> str:
        """The per-benchmark report: every column of `benchmarks`, aligned.

        Returns
        -------
        str
            The whole per-benchmark table as plain text.

        Notes
        -----
        The tool's benchmark report (Touati, Worms & Briais 2013, section 5): a rendering, no
        formula.
        """
        return render_text(self.benchmarks)

    def to_text(self) -> str:
        """A readable table (one line per benchmark: speedups, verdicts, p-values), then the
        global report and the counts of warnings and errors.

        Returns
        -------
        str
            The keys and `TEXT_COLUMNS` per benchmark, `global_report`, the warnings and the
            errors.

        Notes
        -----
        A rendering: no formula.
        """
        keys = [c for c in self.benchmarks.column_names if c not in RESULT_COLUMNS]
        out = render_text(self.benchmarks.select(keys + TEXT_COLUMNS)) + "\n\n" + self.global_report()
        footer = flags_footer(self.summary, "benchmarks")
        if footer:
            out += "\n\n" + footer
        if self.warnings:
            out += f"\n\n{len(self.warnings)} warning(s):\n" + text_lines(self.warnings)
        if self.errors:
            out += f"\n\n{len(self.errors)} error(s):\n" + text_lines(self.errors)
        return out

    def to_markdown(self) -> str:
        """Markdown: the global report, the per-benchmark table, the warnings and the errors.

        Returns
        -------
        str
            `global_report` in a fenced block, the whole per-benchmark table, then the warnings
            and errors as lists.

        Notes
        -----
        A rendering: no formula.
        """
        out = "```\n" + self.global_report() + "\n```\n\n" + render_markdown(self.benchmarks)
        footer = flags_footer(self.summary, "benchmarks")
        if footer:
            out += "\n\n" + footer
        for title, items in (("Warnings", self.warnings), ("Errors", self.errors)):
            if items:
                out += f"\n\n**{title}**\n\n" + markdown_list(items)
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """JSON object with ``schema`` (``"fastperf.speedup_test/1"``), ``summary``,
        ``warnings``, ``errors`` and ``benchmarks`` (rows).

        Parameters
        ----------
        indent : int or None
            Indentation of the JSON text (None: one line).

        Returns
        -------
        str
            Strict JSON text: NaN and infinities become null, keys of any Arrow type take
            their forms of `fastperf.results.cells` (ISO 8601 dates, bytes as UTF-8...).

        Notes
        -----
        A rendering: no formula.
        """
        return dumps({"schema": self.json_schema, "summary": self.summary,
                      "warnings": self.warnings,
                      "errors": self.errors, "benchmarks": table_records(self.benchmarks)},
                     indent=indent)

    def write_reports(self, directory: str | os.PathLike) -> dict[str, Path]:
        """Write the tool's four reports as text files in `directory` (created if needed).

        Parameters
        ----------
        directory : str or os.PathLike
            The folder to write to; created with its parents when missing.

        Returns
        -------
        dict of str -> pathlib.Path
            The paths by report: "global" (overall speedups and proportions), "benchmarks"
            (the per-benchmark detail), "warnings" and "errors" (one line each; empty files
            when there are none). File names are `REPORT_FILES`.

        Notes
        -----
        The Speedup-Test tool's four outputs (Touati, Worms & Briais 2013, section 5).
        """
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        texts = {"global": self.global_report(), "benchmarks": self.detail_report(),
                 "warnings": "\n".join(self.warnings), "errors": "\n".join(self.errors)}
        paths = {}
        for name, text in texts.items():
            path = folder / REPORT_FILES[name]
            path.write_text(text + "\n" if text else "", encoding="utf-8")
            paths[name] = path
        return paths
