"""What a comparison concludes and how it reads: `CompareResult` with its benchstat-style text
table and Markdown pull-request comment, and the rules `compare` applies alike to raw runs and to
summary tables: the identity of a benchmark, the option checks, the adjustment over the run, the
verdict rule and the overall (geomean) table."""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.grouping import key_codes
from fastperf.data.units import HIGHER, LOWER, common_scale, is_binary_unit, percent_range
from fastperf.data.validation import (check_choice, check_confidence, check_higher_is_better,
                                      check_real, check_unit_interval)
from fastperf.io.common import config_columns
from fastperf.io.tables import has_column, key_list, require_columns, with_unit
from fastperf.protocols.flags import flags_footer
from fastperf.protocols.report_views import compare_view
from fastperf.results.base import BenchmarkResult
from fastperf.results.figures import ReportView
from fastperf.results.render import (
    code_span, format_cell, markdown_list, markdown_text, printable, render_markdown,
    text_lines,
)
from fastperf.stats.multitest import multipletests

__all__ = ["CompareResult", "ADJUSTMENTS", "VERDICTS", "COLUMNS", "benchmark_identity",
           "adjusted_pvalues", "verdicts_of", "checked_options", "largest_regressions",
           "overall_table", "format_delta", "format_test", "strip_benchmark_prefix"]

#: `adjust=` names and the `multipletests` method each one runs.
ADJUSTMENTS = {"bh": "fdr_bh", "holm": "holm", "bonferroni": "bonferroni", "none": None}
VERDICTS = ("worse", "better", "changed", "equivalent", "no change", "too few runs")
COLUMNS = ("n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate",
           "median_baseline", "ci_baseline_low", "ci_baseline_high", "median_candidate",
           "ci_candidate_low", "ci_candidate_high", "delta", "ratio", "ci_low", "ci_high",
           "pvalue", "pvalue_adjusted", "method", "direction", "verdict", "flags", "status")


_ADJUST_NAMES = {"bh": "Benjamini-Hochberg", "holm": "Holm", "bonferroni": "Bonferroni"}


def strip_benchmark_prefix(name) -> str:
    """A benchmark name without Go's ``Benchmark`` prefix (``BenchmarkEncode`` -> ``Encode``)."""
    text = format_cell(name)
    return text[len("Benchmark"):] if text.startswith("Benchmark") and len(text) > 9 else text


def format_delta(row: dict) -> str:
    """The change as benchstat prints it: ``-17.20%`` when the verdict is a change, ``~``
    otherwise, ``?`` when the baseline median is zero."""
    if row["verdict"] in ("worse", "better", "changed"):
        delta = row["delta"]
        if delta is None or not math.isfinite(delta):
            return "?"
        return "0.00%" if delta == 0 else f"{100.0 * delta:+.2f}%"
    if row["verdict"] == "too few runs":
        return "?"
    return "~"


def format_test(row: dict, adjusted: bool) -> str:
    """``(p=0.000 n=10)``, or ``n=10+9`` when the sides differ."""
    p = row["pvalue_adjusted"] if adjusted else row["pvalue"]
    if p is None or (isinstance(p, float) and math.isnan(p)):
        p = row["pvalue"]
    n_x, n_y = (_side_count(row, side) for side in ("baseline", "candidate"))
    n = f"n={n_x}" if n_x == n_y else f"n={n_x}+{n_y}"
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return f"({n})"
    return f"(p={p:.3f} {n})"


def _side_count(row: dict, side: str) -> str:
    """A side's runs as the analysis counted them: ``20×3`` (processes × values per process,
    ``~`` when unbalanced), ``10r`` (rounds), else the number of values."""
    n, units = row[f"n_{side}"], row.get(f"units_{side}")
    if n is None:
        return "?"
    analysis = row.get("analysis")
    if analysis == "round" and units:
        return f"{units}r"
    if analysis == "process" and units:
        per = n / units
        return f"{units}\u00d7{per:.0f}" if per == int(per) else f"{units}\u00d7~{per:.1f}"
    return str(n)


def _cell(median, low, high, scale) -> str:
    if median is None or (isinstance(median, float) and math.isnan(median)):
        return ""
    return f"{scale.format(median)} ± {percent_range(median, _nan(low), _nan(high))}"


def _nan(v):
    return math.nan if v is None else v


def _align(rows: list[list[str]], right: set[int]) -> list[str]:
    rows = [[printable(str(c)) for c in r] for r in rows]  # no terminal control in a name
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


class CompareResult(BenchmarkResult):
    """Result of `compare`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per (candidate, benchmark, configuration, unit): ``candidate`` (with several
        candidates), the key columns, then `COLUMNS`.
    overall : pyarrow.Table
        One row per (candidate, unit): benchmarks compared, the geometric means of the medians
        of each side and their ratio (benchstat's geomean row), the ratio of the geometric-mean
        scores with its interval (`aggregate_score`), and the count of each verdict.
    summary : dict
        ``function``, ``baseline``, ``candidates``, ``keys``, ``variant_keys`` (configuration
        that tells the variants apart), ``alpha``, ``adjust``, ``comparisons`` (the family
        adjusted), ``confidence``, ``margin``, ``threshold``, ``verdicts`` (counts),
        ``largest_regressions``, ``rows``, ``rows_not_ok``; from runs, ``flags`` (the
        comparisons raising each flag), ``flagged`` (those raising any), ``flag_rows`` (those
        diagnosed), and with ``warmup="auto"`` ``warmup`` (groups and values dropped).
    warnings : list of str
    """

    def report_view(self) -> ReportView:  # noqa: D102 (see Result.report_view)
        return compare_view(self)

    extra_tables = ("overall",)
    overall: pa.Table

    def __init__(self, table, summary, warnings, overall: pa.Table, keys: list[str],
                 unit: str | None):
        super().__init__(table, summary, warnings, overall=overall)
        self.key_columns = keys
        self.unit_column = unit

    def extra_title(self, name: str) -> str:  # noqa: D102
        return "overall, per candidate and unit"

    def failures(self, threshold: float = 0.0) -> pa.Table:
        """The rows whose verdict is ``worse`` with |delta| >= `threshold` (the CI gate).

        Parameters
        ----------
        threshold : float
            The smallest relative change that fails, e.g. 0.02 for 2%.

        Returns
        -------
        pyarrow.Table
            Those rows of `benchmarks`.
        """
        verdict = self.benchmarks.column("verdict").to_numpy(zero_copy_only=False)
        delta = self.benchmarks.column("delta").to_numpy(zero_copy_only=False)
        with np.errstate(invalid="ignore"):
            small = np.abs(delta) < float(threshold)  # NaN (a zero baseline median): not small
        return self.benchmarks.filter(pa.array((verdict == "worse") & ~small))

    @property
    def center(self) -> str:
        """``"mean"`` for a comparison from summaries, else ``"median"``: the column prefix of
        each side's location (``median_baseline`` / ``mean_baseline``)."""
        return "mean" if self.summary.get("from_summaries") else "median"

    def _sections(self) -> Iterator[tuple[list[str], str | None, list[int], int]]:
        """(header lines, unit, row indices per candidate) per configuration and unit."""
        table = self.benchmarks
        keys = self.key_columns
        header_keys = [c for c in keys[1:] if c != self.unit_column]
        candidates = self.summary["candidates"]
        k = table.num_rows // len(candidates)
        head = table.slice(0, k)
        labels = [tuple(head.column(c).to_pylist()[i] for c in header_keys) for i in range(k)]
        units: list[str | None] = [None] * k
        if self.unit_column:
            units = [None if u is None else format_cell(u)
                     for u in head.column(self.unit_column).to_pylist()]
        sections: dict = {}
        for i in range(k):
            sections.setdefault((labels[i], units[i]), []).append(i)
        for (label, unit), members in sections.items():
            header = [printable(f"{c}: {format_cell(v)}") for c, v in zip(header_keys, label)
                      if v is not None]
            yield header, unit, members, k

    def _order(self, rows: list[dict], members: list[int], sort: str | None) -> list[int]:
        if sort in (None, "name"):
            return members if sort is None else sorted(
                members, key=lambda i: format_cell(rows[i][self.key_columns[0]]))
        def badness(i):
            d = rows[i]["delta"]
            d = 0.0 if d is None or not math.isfinite(d) else d
            return -d if rows[i]["direction"] == HIGHER else d
        return sorted(members, key=badness, reverse=True)

    def to_text(self, sort: str | None = None) -> str:
        """benchstat-style tables, one per configuration and unit: ``median ± interval`` per
        variant, then the change (``~`` when none), ``(p=... n=...)`` and the verdict; a geomean
        row; the adjustment and the warnings below.

        Parameters
        ----------
        sort : {None, "name", "delta"}
            Row order: as read, by name, or regressions first (the largest change for the worse
            at the top).
        """
        rows = self.benchmarks.to_pylist()
        candidates = self.summary["candidates"]
        adjusted = self.summary["adjust"] != "none"
        name_key = self.key_columns[0]
        blocks = []
        for header, unit, members, k in self._sections():
            binary = is_binary_unit(unit)
            grid = [["", self.summary["baseline"]] + sum(([c, "", "", ""] for c in candidates), []),
                    ["", unit or ""] + sum(([unit or "", "vs base", "", ""] for _ in candidates), [])]
            for i in self._order(rows, members, sort):
                picks = [rows[j * k + i] for j in range(len(candidates))]
                scale = common_scale([picks[0][f"{self.center}_baseline"]] +
                                     [r[f"{self.center}_candidate"] for r in picks], binary)
                line = [strip_benchmark_prefix(picks[0][name_key]),
                        _cell(picks[0][f"{self.center}_baseline"], picks[0]["ci_baseline_low"],
                              picks[0]["ci_baseline_high"], scale)]
                for r in picks:
                    line += [_cell(r[f"{self.center}_candidate"], r["ci_candidate_low"],
                                   r["ci_candidate_high"], scale),
                             format_delta(r), format_test(r, adjusted), r["verdict"]]
                grid.append(line)
            if len(members) > 1:
                grid.append(self._geomean_line(rows, members, k, binary))
            blocks.append("\n".join(header + _align(grid, right={1, 2, 3, 6, 7}.union(
                range(2, 2 + 4 * len(candidates), 4)))))
        out = "\n\n".join(blocks)
        out += "\n\n" + self._footer()  # no name in it: nothing to escape
        if self.warnings:
            out += "\n" + text_lines(self.warnings, "warning: ")
        return out

    def _geomean_line(self, rows, members, k, binary) -> list[str]:
        candidates = self.summary["candidates"]
        def gm(values):
            v = np.array([x for x in values if x is not None and x > 0], dtype=float)
            return float(np.exp(np.mean(np.log(v)))) if v.size else math.nan
        base = gm(rows[i][f"{self.center}_baseline"] for i in members)
        cands = [gm(rows[j * k + i][f"{self.center}_candidate"] for i in members)
                 for j in range(len(candidates))]
        scale = common_scale([base] + cands, binary)
        line = ["geomean", scale.format(base)]
        for value in cands:
            change = f"{100.0 * (value / base - 1):+.2f}%" if base > 0 and value > 0 else "?"
            line += [scale.format(value), change, "", ""]
        return line

    def _footer(self) -> str:
        s = self.summary
        counts = ", ".join(f"{v} {name}" for name, v in s["verdicts"].items() if v)
        how = (f"p-values adjusted ({_ADJUST_NAMES[s['adjust']]}) over {s['comparisons']} "
               "comparisons" if s["adjust"] != "none" else "p-values not adjusted")
        line = f"{counts or 'nothing compared'}; {how}; verdicts at alpha={s['alpha']:g}"
        lines = [line, self.structure_line(), flags_footer(s)]
        return "\n".join(part for part in lines if part is not None)

    def structure_line(self) -> str | None:
        """What the structure of the data made of the comparison (None when flat): the
        comparisons made on independent units, their median ICC and effective n.

        Returns
        -------
        str or None
        """
        structure = self.summary.get("structure", "flat")
        if structure == "flat":
            return None
        table = self.benchmarks
        on_units = np.flatnonzero(table.column("analysis").to_numpy(zero_copy_only=False)
                                  != "flat")
        if on_units.size == 0:
            return f"levels ({structure}) present, but every comparison is flat"
        def median_of(name):
            values = table.column(name).to_numpy(zero_copy_only=False)[on_units]
            values = values[np.isfinite(values)]
            return float(np.median(values)) if values.size else math.nan
        n_values = table.column("n_baseline").to_numpy(zero_copy_only=False)[on_units]
        return (f"compared on independent units ({structure}) in {on_units.size} of "
                f"{table.num_rows}: median ICC {median_of('icc_baseline'):.2f}, effective n "
                f"{median_of('n_effective_baseline'):.1f} of {float(np.median(n_values)):g} "
                "values (baseline, median); levels=[] for the flat analysis")

    def to_markdown(self, sort: str | None = "delta") -> str:
        """A pull-request comment: the headline (k worse, m better, the geomean change with its
        interval per unit), the regressions and improvements, and the unchanged rows in a
        collapsible ``<details>`` block.

        Parameters
        ----------
        sort : {None, "name", "delta"}
            Row order inside each table (default: regressions first).
        """
        s = self.summary
        counts = s["verdicts"]
        lines = [f"**fastperf compare** {code_span(str(s['baseline']))} → "
                 f"{', '.join(code_span(str(c)) for c in s['candidates'])}: "
                 f"**{counts['worse']} worse**, "
                 f"**{counts['better']} better**, {counts['no change']} no change"
                 + (f", {counts['equivalent']} equivalent" if counts["equivalent"] else "")
                 + (f", {counts['changed']} changed" if counts["changed"] else "")
                 + (f", {counts['too few runs']} with too few runs" if counts["too few runs"] else ""),
                 ""]
        for r in self.overall.to_pylist():
            if r["compared"]:
                unit = r.get("unit")
                unit = f" {markdown_text(format_cell(unit))}" if unit else ""
                interval = (f" (score ratio {r['score_ratio']:.4g}, {s['confidence']:.0%} CI "
                            f"[{r['score_ci_low']:.4g}, {r['score_ci_high']:.4g}])"
                            if r.get("score_ratio") is not None and math.isfinite(r["score_ratio"])
                            else "")
                lines.append(f"- {code_span(str(r['candidate']))}{unit}: geomean "
                             f"{r['geomean_delta']:+.2%}"
                             f"{interval} over {r['compared']} benchmarks")
        table = self._markdown_rows(sort)
        verdict = table.column("verdict").to_numpy(zero_copy_only=False)
        changed = np.isin(verdict, ["worse", "better", "changed"])
        if changed.any():
            lines += ["", "### Regressions and improvements", "",
                      render_markdown(table.filter(pa.array(changed)))]
        if (~changed).any():
            lines += ["", f"<details><summary>Unchanged and not decided ({int((~changed).sum())})"
                      "</summary>", "", render_markdown(table.filter(pa.array(~changed))), "",
                      "</details>"]
        lines += ["", self._footer()]  # no name in it; `fastperf check` a code span
        if self.warnings:
            lines += ["", markdown_list(self.warnings)]
        return "\n".join(lines)

    def _markdown_rows(self, sort) -> pa.Table:
        rows = self.benchmarks.to_pylist()
        adjusted = self.summary["adjust"] != "none"
        order = list(range(len(rows)))
        if sort == "delta":
            order = self._order(rows, order, "delta")
        out: dict[str, list] = {"benchmark": [], "unit": [], "baseline": [], "candidate": [],
                                "change": [], "test": [], "verdict": []}
        several = len(self.summary["candidates"]) > 1
        varying = [c for c in self.key_columns[1:] if c != self.unit_column
                   and len(set(r[c] for r in rows)) > 1]  # configuration that tells rows apart
        for i in order:
            r = rows[i]
            unit = r.get(self.unit_column) if self.unit_column else None
            unit = None if unit is None else format_cell(unit)
            scale = common_scale([r[f"{self.center}_baseline"], r[f"{self.center}_candidate"]],
                                 is_binary_unit(unit))
            name = strip_benchmark_prefix(r[self.key_columns[0]])
            extra = [f"{c}={format_cell(r[c])}" for c in varying if r[c] is not None]
            out["benchmark"].append(name + (f" ({', '.join(extra)})" if extra else ""))
            out["unit"].append(unit or "")
            out["baseline"].append(_cell(r[f"{self.center}_baseline"], r["ci_baseline_low"],
                                         r["ci_baseline_high"], scale))
            cand = _cell(r[f"{self.center}_candidate"], r["ci_candidate_low"], r["ci_candidate_high"], scale)
            out["candidate"].append(f"{r['candidate']}: {cand}" if several else cand)
            out["change"].append(format_delta(r))
            out["test"].append(format_test(r, adjusted))
            out["verdict"].append(r["verdict"])
        return pa.table(out)


def benchmark_identity(table: pa.Table, by, variant: str, unit: str | None, variants: list[str]):
    """The key columns of a benchmark, and the configuration columns that tell the variants
    apart instead (no value of the baseline's is also a candidate's)."""
    if by is not None:
        keys = key_list(by)
        require_columns(table, keys)
        variant_keys: list[str] = []
    elif not has_column(table, "benchmark"):
        keys, variant_keys = [], []  # no benchmark column: all rows one benchmark
    else:
        keys, variant_keys = ["benchmark"], []
        require_columns(table, keys, hint="name the benchmark key column(s) with by=")
        configuration = [c for c in config_columns(table) if c not in (variant, unit, "benchmark")]
        if not configuration:
            return with_unit(keys, table, unit), variant_keys
        names = pc.cast(table.column(variant), pa.string())
        compared = table.filter(pc.is_in(names, pa.array(variants, pa.string())))
        variant_codes, variant_names = key_codes(pc.cast(compared.column(variant), pa.string()),
                                                 variant)
        present = variant_names.to_pylist()
        of_baseline = variant_codes == (present.index(variants[0]) if variants[0] in present
                                        else -1)
        for name in configuration:  # values compared as text, null a value of its own
            codes, values = key_codes(pc.cast(compared.column(name), pa.string()), name)
            in_baseline = np.zeros(len(values), dtype=bool)
            in_baseline[codes[of_baseline]] = True
            separate = not in_baseline[codes[~of_baseline]].any()  # no value shared
            (variant_keys if separate else keys).append(name)
    return with_unit(keys, table, unit), variant_keys


def adjusted_pvalues(p: np.ndarray, family: np.ndarray, adjust: str, alpha: float) -> np.ndarray:
    """p adjusted over the family (NaN outside it)."""
    out = np.full(p.shape, np.nan)
    if not family.any():
        return out
    method = ADJUSTMENTS[adjust]
    if method is None:
        out[family] = p[family]
    else:
        out[family] = multipletests(p[family], alpha=alpha, method=method).pvalues_corrected
    return out


def verdicts_of(testable, significant, sign, delta, threshold, direction, equivalent):
    """The verdict of each comparison (see `compare`)."""
    big = ~(np.abs(delta) < threshold)  # NaN delta (zero median): cannot be called small
    change = testable & significant & (sign != 0) & big
    lower, higher = direction == LOWER, direction == HIGHER
    worse = change & ((lower & (sign > 0)) | (higher & (sign < 0)))
    better = change & ((lower & (sign < 0)) | (higher & (sign > 0)))
    return np.select([~testable, worse, better, change, testable & equivalent],
                     ["too few runs", "worse", "better", "changed", "equivalent"],
                     "no change").astype(object)


def checked_options(alpha, adjust, confidence, margin, threshold, method, higher_is_better):
    alpha = check_unit_interval(alpha, "alpha")
    check_choice(adjust, "adjust", ADJUSTMENTS)
    confidence = check_confidence(confidence)
    if margin is not None:
        margin = check_unit_interval(margin, "margin")
    threshold = check_real(threshold, "threshold (a fraction: 0.02 is 2%)", low=0, high=math.inf)
    check_choice(method, "method", ("auto", "exact", "asymptotic"))
    check_higher_is_better(higher_is_better)
    return alpha, confidence, margin, threshold


def largest_regressions(out: pa.Table, keys: list[str], limit: int = 5) -> list[dict]:
    """The `limit` worse verdicts with the largest |delta|, as small dicts."""
    verdict = out.column("verdict").to_numpy(zero_copy_only=False)
    delta = out.column("delta").to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(verdict == "worse")
    rows = rows[np.argsort(-np.abs(delta[rows]), kind="stable")][:limit]
    names = [c for c in ["candidate", *keys] if c in out.column_names]
    picked = out.select(names + ["delta"]).take(pa.array(rows, pa.int64()))
    return picked.to_pylist()


def overall_table(out: pa.Table, candidates: list, units: pa.Array, k: int, unit: str | None,
                  center: str, usable: np.ndarray, extra=None) -> pa.Table:
    """Per (candidate, unit): the benchmarks, those compared, the geometric means of each
    side's `center` (``median`` or ``mean``) and their change (benchstat's geomean row), any
    `extra` columns, and the count of each verdict.

    Parameters
    ----------
    out : pyarrow.Table
        The comparison rows (candidate-major blocks of `k` rows).
    candidates : list
        The candidates.
    units : pyarrow.Array of string
        The unit of each of the `k` benchmarks (`fastperf.data.units.unit_strings`; null
        without a unit column).
    k : int
        Benchmarks per candidate.
    unit : str or None
        The unit column (None: no unit column in the output).
    center : str
        ``"median"`` or ``"mean"``: the columns ``{center}_baseline`` / ``{center}_candidate``.
    usable : numpy.ndarray of bool
        The rows whose centers enter the geometric means (positive, compared).
    extra : callable, optional
        ``extra(use) -> dict`` of further values of a block from its usable rows' mask.

    Returns
    -------
    pyarrow.Table

    Notes
    -----
    Geometric mean = exp(mean(log)); benchstat prints the same row.
    """
    x = out.column(f"{center}_baseline").to_numpy()
    y = out.column(f"{center}_candidate").to_numpy()
    verdict = out.column("verdict").to_numpy(zero_copy_only=False)
    unit_codes, unit_labels = key_codes(pa.chunked_array([units]), "unit")
    n_units = len(unit_labels)
    block = (np.repeat(np.arange(len(candidates)), k) * n_units
             + np.tile(unit_codes, len(candidates)))
    usable = usable & (x > 0) & (y > 0)
    rows: dict[str, list] = {"candidate": [], "unit": [], "benchmarks": [], "compared": [],
                             "geomean_baseline": [], "geomean_candidate": [], "geomean_delta": []}
    for b in np.unique(block):  # one row per (candidate, unit) present: few
        members = block == b
        use = members & usable
        with np.errstate(divide="ignore", invalid="ignore"):
            gx = float(np.exp(np.mean(np.log(x[use])))) if use.any() else math.nan
            gy = float(np.exp(np.mean(np.log(y[use])))) if use.any() else math.nan
        rows["candidate"].append(candidates[b // n_units])
        rows["unit"].append(unit_labels[b % n_units].as_py() if unit else None)
        rows["benchmarks"].append(int(members.sum()))
        rows["compared"].append(int(use.sum()))
        rows["geomean_baseline"].append(gx)
        rows["geomean_candidate"].append(gy)
        rows["geomean_delta"].append(gy / gx - 1.0 if use.any() else math.nan)
        for name, value in (extra(use) if extra is not None else {}).items():
            rows.setdefault(name, []).append(value)
        for v in VERDICTS:
            rows.setdefault(v, []).append(int(np.sum(members & (verdict == v))))
    table = pa.table(rows) if rows["candidate"] else pa.table(
        {name: pa.array([], pa.float64()) for name in rows})
    return table if unit is not None else table.drop_columns(["unit"])
