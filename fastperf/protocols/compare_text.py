"""The renderings of `compare` people read: a benchstat-style text table per configuration and
unit, and a Markdown pull-request comment."""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from fastperf.data.units import HIGHER, common_scale, is_binary_unit, percent_range
from fastperf.results.render import format_cell, render_markdown

__all__ = ["CompareRendering", "format_delta", "format_test", "strip_benchmark_prefix"]

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
    n_x, n_y = ("?" if n is None else n for n in (row["n_baseline"], row["n_candidate"]))
    n = f"n={n_x}" if n_x == n_y else f"n={n_x}+{n_y}"
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return f"({n})"
    return f"(p={p:.3f} {n})"


def _cell(median, low, high, scale) -> str:
    if median is None or (isinstance(median, float) and math.isnan(median)):
        return ""
    return f"{scale.format(median)} ± {percent_range(median, _nan(low), _nan(high))}"


def _nan(v):
    return math.nan if v is None else v


def _align(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


class CompareRendering:
    """`to_text` and `to_markdown` of `CompareResult` (a mixin: reads its tables and summary)."""

    @property
    def center(self) -> str:
        """``"mean"`` for a comparison from summaries, else ``"median"``: the column prefix of
        each side's location (``median_baseline`` / ``mean_baseline``)."""
        return "mean" if self.summary.get("from_summaries") else "median"

    def _sections(self):
        """(header lines, unit, row indices per candidate) per configuration and unit."""
        table = self.benchmarks
        keys = self.key_columns
        header_keys = [c for c in keys[1:] if c != self.unit_column]
        candidates = self.summary["candidates"]
        k = table.num_rows // len(candidates)
        head = table.slice(0, k)
        labels = [tuple(head.column(c).to_pylist()[i] for c in header_keys) for i in range(k)]
        units = [None] * k
        if self.unit_column:
            units = [None if u is None else format_cell(u)
                     for u in head.column(self.unit_column).to_pylist()]
        sections: dict = {}
        for i in range(k):
            sections.setdefault((labels[i], units[i]), []).append(i)
        for (label, unit), members in sections.items():
            header = [f"{c}: {format_cell(v)}" for c, v in zip(header_keys, label) if v is not None]
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
        out += "\n\n" + self._footer()
        if self.warnings:
            out += "\n" + "\n".join(f"warning: {w}" for w in self.warnings)
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
        return f"{counts or 'nothing compared'}; {how}; verdicts at alpha={s['alpha']:g}"

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
        lines = [f"**fastperf compare** `{s['baseline']}` → "
                 f"{', '.join(f'`{c}`' for c in s['candidates'])}: **{counts['worse']} worse**, "
                 f"**{counts['better']} better**, {counts['no change']} no change"
                 + (f", {counts['equivalent']} equivalent" if counts["equivalent"] else "")
                 + (f", {counts['changed']} changed" if counts["changed"] else "")
                 + (f", {counts['too few runs']} with too few runs" if counts["too few runs"] else ""),
                 ""]
        for r in self.overall.to_pylist():
            if r["compared"]:
                unit = r.get("unit")
                unit = f" {format_cell(unit)}" if unit else ""
                interval = (f" (score ratio {r['score_ratio']:.4g}, {s['confidence']:.0%} CI "
                            f"[{r['score_ci_low']:.4g}, {r['score_ci_high']:.4g}])"
                            if r.get("score_ratio") is not None and math.isfinite(r["score_ratio"])
                            else "")
                lines.append(f"- `{r['candidate']}`{unit}: geomean {r['geomean_delta']:+.2%}"
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
        lines += ["", self._footer()]
        if self.warnings:
            lines += [""] + [f"- {w}" for w in self.warnings]
        return "\n".join(lines)

    def _markdown_rows(self, sort) -> pa.Table:
        rows = self.benchmarks.to_pylist()
        adjusted = self.summary["adjust"] != "none"
        order = list(range(len(rows)))
        if sort == "delta":
            order = self._order(rows, order, "delta")
        out = {"benchmark": [], "unit": [], "baseline": [], "candidate": [], "change": [],
               "test": [], "verdict": []}
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
