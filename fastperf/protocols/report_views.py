"""What the HTML report of each protocol and design shows (`fastperf.results.figures`): the
headline, the figures and the runs. The results' ``report_view`` methods call these.

The forest plots of the Speedup-Test, SPARC (independent runs) and HPT draw, around each
benchmark's ratio of medians, the Hodges-Lehmann interval of the ratio (Hodges & Lehmann 1963:
the inverted rank-sum test on log values, as `compare`'s ``ci_low`` / ``ci_high``), at 95%.
Those protocols test without an interval; the report adds one so that the picture shows how
sure each ratio is. It is drawn, not added to the result's table.
"""
from __future__ import annotations

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.engine.ranks import rank_sum_effect_state
from fastperf.protocols.flags import flags_footer
from fastperf.results.figures import Intervals, ReportView, Shares
from fastperf.results.html import row_labels
from fastperf.stats.proportions import proportion_ci

__all__ = ["compare_view", "speedup_view", "sparc_view", "hpt_view", "check_view",
           "aggregate_view", "plan_view", "anova_view", "factorial_view", "ratio_interval",
           "REPORT_CONFIDENCE"]

#: The level of the intervals the report draws where the result has none.
REPORT_CONFIDENCE = 0.95


def _keys(result) -> list[str]:
    """The columns that name a row of a two-variant protocol: ``candidate`` where the table has
    it, then the benchmark's key columns (the summary's ``keys``, else ``benchmark``)."""
    names = result.table.column_names
    keys = list(result.summary.get("keys") or ["benchmark"])
    return (["candidate"] if "candidate" in names else []) + keys


def _column(table, name) -> np.ndarray:
    return table.column(name).to_numpy(zero_copy_only=False).astype(float)


def _text(table, name) -> list[str]:
    return ["" if v is None else str(v) for v in table.column(name).to_pylist()]


def _g(value) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.4g}"


def ratio_interval(num: Samples, den: Samples, confidence: float = REPORT_CONFIDENCE):
    """The Hodges-Lehmann estimate and interval of the ratio num / den per pair of samples
    (values <= 0 left out): the shift of log(num) against log(den), exponentiated."""

    def logs(samples: Samples) -> Samples:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.log(np.where(samples.values > 0, samples.values, np.nan))
        return Samples(values, samples.offsets)

    state = rank_sum_effect_state(logs(num), logs(den), "auto", "omit")
    estimate, low, high = state.effects("two-sided", confidence)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(estimate), np.exp(low), np.exp(high)


def _proportion_line(what: str, successes: int, trials: int, confidence: float) -> str:
    if trials == 0:
        return f"{what}: none compared"
    ci = proportion_ci(successes, trials, confidence=confidence)
    return (f"{what}: {successes} of {trials} = {successes / trials:.1%} "
            f"[{float(ci.low):.1%}, {float(ci.high):.1%}] ({confidence:g} interval)")


def compare_view(result) -> ReportView:
    """`compare`: verdict counts, the geomean ratio per candidate and unit with its interval,
    the proportion better; the forest plot of every comparison's ratio interval."""
    s, t = result.summary, result.table
    counts = s["verdicts"]
    first = [f"{counts.get(v, 0)} {v}" for v in ("worse", "better", "no change")]
    first += [f"{counts[v]} {v}" for v in ("changed", "equivalent", "too few runs") if counts.get(v)]
    headline = [", ".join(first) + f" (of {t.num_rows} comparisons; {s['baseline']} is the "
                f"baseline, p-values adjusted by {s['adjust']})"]
    overall = result.overall
    if overall is not None:
        for row in overall.to_pylist():
            unit = f" ({row['unit']})" if row.get("unit") is not None else ""
            headline.append(
                f"geomean ratio {row['candidate']} / {s['baseline']}{unit}: "
                f"{_g(row['score_ratio'])} [{_g(row['score_ci_low'])}, "
                f"{_g(row['score_ci_high'])}] over {row['compared']} benchmarks "
                f"({s['confidence']:g} interval)")
            decided = row["worse"] + row["better"] + row["no change"] + row["equivalent"]
            headline.append(_proportion_line(f"benchmarks better, {row['candidate']}{unit}", row["better"],
                                             decided, s["confidence"]))
    structure = result.structure_line()
    if structure is not None:
        headline.append(structure)
    margin = s.get("margin")
    keys = (["candidate"] if "candidate" in t.column_names else []) + list(s.get("keys") or [])
    how = ("Hodges-Lehmann interval" if structure is None else
           "interval: Hodges-Lehmann, or Welch / paired t on the units")
    figure = Intervals(
        f"ratio candidate / baseline, {s['confidence']:g} {how}",
        row_labels(t, keys), _column(t, "ratio"), _column(t, "ci_low"), _column(t, "ci_high"),
        axis="ratio candidate / baseline (log scale; 1 = no change)",
        category=_text(t, "verdict"),
        band=None if margin is None else (1.0 - margin, 1.0 + margin))
    lead = (*_keys(result), "delta", "ratio", "ci_low", "ci_high", "pvalue_adjusted", "verdict",
            "flags")
    footer = flags_footer(result.summary, "comparisons")
    if footer is not None:
        headline.append(footer)
    return ReportView(headline, [figure], result.runs, "verdict", lead)


def speedup_view(result) -> ReportView:
    """The Speedup-Test: overall speedup and gain, the proportions accelerated with their
    intervals; the forest plot of the median speedups."""
    s, t = result.summary, result.table
    speedup, gain = s["overall_speedup"], s["overall_gain"]
    headline = [f"overall speedup {s['baseline']} / {s['candidate']} (of the medians): "
                f"{_g(speedup['median'])} (gain {_g(gain['median'])}); of the means "
                f"{_g(speedup['mean'])}, of the minima {_g(speedup['min'])}"]
    for name in ("median", "mean"):
        p = s[name]
        headline.append(_proportion_line(f"accelerated by the {name} protocol",
                                         p["accelerated"], p["compared"],
                                         s["proportion_confidence"]))
    significant = t.column("median_significant").to_pylist()
    category = ["accelerated" if sig else "not accelerated" for sig in significant]
    estimate, low, high = _runs_interval(result, t, "speedup_median", invert=True)
    figure = Intervals(f"median speedup {s['baseline']} / {s['candidate']} (> 1: faster), "
                       f"{REPORT_CONFIDENCE:g} Hodges-Lehmann interval", row_labels(t),
                       estimate, low, high, axis="speedup (log scale; 1 = no change)",
                       category=category)
    lead = (*_keys(result), "speedup_median", "pvalue_median", "median_significant", "flags")
    footer = flags_footer(result.summary, "benchmarks")
    if footer is not None:
        headline.append(footer)
    return ReportView(headline, [figure], result.runs, "median_significant", lead)


def _runs_interval(result, table, estimate_column: str, invert: bool):
    """(estimate column, interval low, high) of the rows; the interval from the kept runs
    (baseline / candidate when `invert`, else candidate / baseline), NaN without runs."""
    estimate = _column(table, estimate_column)
    runs = result.runs
    if runs is None:
        return estimate, np.full_like(estimate, np.nan), np.full_like(estimate, np.nan)
    num, den = (runs.baseline, runs.candidate) if invert else (runs.candidate, runs.baseline)
    _, low, high = ratio_interval(num, den)
    ok = np.isfinite(estimate)
    return estimate, np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def sparc_view(result) -> ReportView:
    """SPARC: the conclusions, the overall test; the forest plot of the ratios of medians with
    the equivalence zone."""
    s, t = result.summary, result.table
    counts = s["conclusions"]
    headline = [", ".join(f"{n} {c}" for c, n in counts.items())
                + f" (of {t.num_rows}; family-wise alpha {s['alpha']:g} by {s['adjust']}, "
                f"margin {s['margin']:g})"]
    if result.overall is not None:
        for row in result.overall.to_pylist():
            headline.append(f"overall, {row['candidate']}: {row['verdict']} (median ratio "
                            f"{_g(row['ratio_median'])}, p = {_g(row['pvalue'])})")
    invert = s["ratio"] == "baseline / candidate"
    estimate, low, high = _runs_interval(result, t, "ratio_median", invert)
    figure = Intervals(f"ratio {s['ratio']} of the medians"
                       + (f", {REPORT_CONFIDENCE:g} Hodges-Lehmann interval"
                          if result.runs is not None else " (paired: the points)"),
                       row_labels(t, (["candidate"] if "candidate" in t.column_names else [])
                                  + ["benchmark"]),
                       estimate, low, high, axis=f"{s['ratio']} (log scale)",
                       category=_text(t, "conclusion"), band=tuple(s["equivalence_bounds"]))
    lead = (*_keys(result), "ratio_median", "pvalue_difference", "pvalue_equivalence",
            "conclusion", "flags")
    footer = flags_footer(result.summary, "benchmarks")
    if footer is not None:
        headline.append(footer)
    return ReportView(headline, [figure], result.runs, "conclusion", lead)


def hpt_view(result) -> ReportView:
    """HPT: the reliability and the speedups reached at each confidence; the forest plot."""
    s, t = result.summary, result.table
    headline = [f"reliability that {s['candidate']} beats {s['baseline']}: "
                f"{_g(s['reliability'])} ({s['significant']} of {s['benchmarks_tested']} "
                f"benchmarks significant at {s['alpha']:g})"]
    headline += [f"speedup reached with confidence {_g(r['confidence'])}: {_g(r['speedup'])}"
                 f"{' (capped)' if r['capped'] else ''}" for r in result.speedups.to_pylist()]
    invert = s["ratio"] == "baseline / candidate"
    estimate, low, high = _runs_interval(result, t, "ratio_median", invert)
    category = ["significant" if v else "not significant"
                for v in t.column("significant").to_pylist()]
    figure = Intervals(f"ratio {s['ratio']} of the medians, {REPORT_CONFIDENCE:g} "
                       f"Hodges-Lehmann interval", row_labels(t), estimate, low, high,
                       axis=f"{s['ratio']} (log scale)", category=category)
    lead = (*_keys(result), "ratio_median", "pvalue", "significant", "flags")
    return ReportView(headline, [figure], result.runs, "significant", lead)


def check_view(result) -> ReportView:
    """`check`: how many groups raise a flag and how many raise each; no figure (the table's
    flags are badges, filtered by flag); each group's runs and iteration traces on demand."""
    s, t = result.summary, result.table
    counts = s.get("flags") or {}
    raised = ", ".join(f"{name} {n}" for name, n in counts.items() if n)
    flagged = s.get("flagged", 0)
    headline = [f"{flagged} of {t.num_rows} groups flagged" + (f": {raised}" if raised else "")]
    if "values" in s:
        headline.append(f"{s['values']} values" + (f", {s['dropped']} null/NaN dropped"
                                                   if s.get("dropped") else "")
                        + (f"; structure: {s['structure']}" if s.get("structure") else ""))
    named = {*(s.get("keys") or []), *([s["variant"]] if s.get("variant") else [])}
    keys = [name for name in result.table.column_names if name in named]  # in table order
    return ReportView(headline, [], result.runs, "flags", (*keys, "flags", "advice"))


def aggregate_view(result) -> ReportView:
    """Aggregate scores: the score of each variant with its interval, and the ratios to the
    baseline."""
    s, t = result.summary, result.table
    labels = _text(t, "variant")
    headline = [f"{s['kind']} score of {s['benchmarks']} benchmarks per variant "
                f"({s['method']}, {s['confidence']:g} intervals)"]
    headline += [f"{v}: {_g(x)} [{_g(lo)}, {_g(hi)}]" for v, x, lo, hi in zip(
        labels, _column(t, "score"), _column(t, "ci_low"), _column(t, "ci_high"))]
    figures = [Intervals("score per variant", labels, _column(t, "score"), _column(t, "ci_low"),
                         _column(t, "ci_high"), axis="score", category=labels, reference=None,
                         log=False, sort=False)]
    if s.get("baseline") is not None:
        figures.append(Intervals(f"ratio to {s['baseline']}", labels, _column(t, "ratio"),
                                 _column(t, "ratio_ci_low"), _column(t, "ratio_ci_high"),
                                 axis=f"score / score of {s['baseline']} (log scale)",
                                 category=labels, sort=False))
    return ReportView(headline, figures, None, "variant")


def plan_view(result) -> ReportView:
    """Run planning: the runs needed; the interval of each group's mean now (mean +- its
    half-width), one colour per variant."""
    s, t = result.summary, result.table
    headline = [f"{s['groups_enough']} of {s['groups']} groups already reach the precision "
                f"{s['precision']:g} ({s['target']}); {s['runs_more_total']} more runs in all, "
                f"at most {s['runs_needed_max']} in one group"]
    if s.get("benchmarks"):
        headline.append(f"{s['separated_now']} of {s['benchmarks']} benchmarks already "
                        f"separated; at most {s['runs_to_separate_max']} runs a side to "
                        f"separate the others")
    mean, half = _column(t, "mean"), _column(t, "halfwidth")
    figure = Intervals(f"mean per group, {s['confidence']:g} interval now",
                       row_labels(t, ["benchmark", "unit", "variant"]), mean, mean - half,
                       mean + half, axis="mean", category=_text(t, "variant"), reference=None,
                       log=False, sort=False)
    return ReportView(headline, [figure], None, "variant")


def anova_view(result) -> ReportView:
    """ANOVA: the allocation of variation per benchmark (alternatives vs error)."""
    s, t = result.summary, result.table
    headline = [f"{s['groups_significant']} of {t.num_rows} groups with a significant "
                f"difference between the {s.get('alternatives', '')} alternatives at alpha "
                f"{s['alpha']:g}"]
    figure = Shares("allocation of variation", row_labels(t), {
        "alternatives": _column(t, "share_alternatives"), "error": _column(t, "share_error")})
    return ReportView(headline, [figure], None, "status")


def factorial_view(result) -> ReportView:
    """Factorial designs: the allocation of variation per group (each effect's share and the
    error's) and the effects with their intervals (zero: no effect)."""
    e, t, s = result.effects, result.table, result.summary
    keys = t.column_names[:t.column_names.index("design")]
    order = _column(e, "order")
    effects = e.filter(np.asarray(order > 0))
    names = list(dict.fromkeys(_text(effects, "effect")))
    share = _column(effects, "share").reshape(t.num_rows, len(names)) if names else None
    headline = [f"{len(names)} effects of the {s['design']} design in {t.num_rows} group(s)"
                f"{' (log model: effects are log ratios)' if s.get('log') else ''}; "
                f"{s['confidence']:g} intervals"]
    figures = []
    if share is not None:
        parts = {name: share[:, j] for j, name in enumerate(names)}
        parts["error"] = _column(t, "share_error")
        figures.append(Shares("allocation of variation", row_labels(t, keys), parts))
    figures.append(Intervals("effects q with their intervals", row_labels(effects, keys + ["effect"]),
                             _column(effects, "q"), _column(effects, "ci_low"),
                             _column(effects, "ci_high"), axis="effect q", reference=0.0,
                             log=False, sort=False,
                             rows=np.repeat(np.arange(t.num_rows), len(names))))
    return ReportView(headline, figures, None, "status")
