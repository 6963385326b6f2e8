"""`decide`: run until decided. After each round of measurements, per benchmark: the change is
``worse`` or ``better`` (decided with an anytime-valid guarantee), ``equivalent`` (within the
margin), or ``continue`` with the runs it likely still needs (docs/sequential.md).

The sequential unit is the experiment's independent unit (`fastperf.data.levels`): a round
that measured both variants (``block``), else a process of each variant paired with the other
variant's process of the same rank in order of appearance, else a run of each variant paired
likewise. Its log ratio (candidate over baseline, each side the log of its unit's mean) is one
observation; the inference on their mean is the t-mixture e-process and its confidence
sequence (`fastperf.engine.sequential`), valid whenever the caller looks and stops; the
decisions over many benchmarks control the false-discovery rate by e-BH (Wang & Ramdas 2022).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.chunked import Plan, StageRows, run_planned
from fastperf.data.grouping import code_of, key_codes
from fastperf.data.levels import (Structure, check_structure_arguments, resolve_structure,
                                  unit_samples_of, units_of, variant_samples_of)
from fastperf.data.samples import chunk_variant_samples
from fastperf.data.units import (HIGHER, LOWER, direction_warnings, row_directions,
                                 unit_strings)
from fastperf.data.validation import (check_choice, check_higher_is_better, check_key_clash,
                                      check_real, check_unit_interval, check_variants)
from fastperf.engine.ranks import RATIO_BEYOND_FLOAT64
from fastperf.engine.sequential import (MIXTURE_VARIANCE, confidence_sequence,
                                        observations_needed)
from fastperf.errors import InputError
from fastperf.io.tables import column_name, require_columns
from fastperf.protocols.compare.nested import log_samples, round_log_ratios
from fastperf.protocols.compare.result import benchmark_identity, strip_benchmark_prefix
from fastperf.protocols.flags import (benchmark_takes, check_warmup, tested_table,
                                      dropped_counts, row_warmup, warmup_summary,
                                      warmup_warning, with_columns_after)
from fastperf.results.base import BenchmarkResult, dropped_warnings, empty_keys, keyed_table
from fastperf.results.render import (
    format_cell, markdown_list, markdown_text, printable, render_markdown, render_text,
    text_lines,
)
from fastperf.stats.multitest import e_bh

__all__ = ["decide", "DecideResult", "DecideOptions", "DecidePlan", "DECISIONS",
           "DECIDE_ADJUSTMENTS", "DECIDE_COLUMNS", "decide_options", "decide_plan",
           "decide_stage", "decide_finish"]

#: The decisions, in the order the summary counts them.
DECISIONS = ("worse", "better", "changed", "equivalent", "continue")
#: `adjust=`: e-BH false-discovery control (default), Bonferroni on e-values, or none.
DECIDE_ADJUSTMENTS = ("e-bh", "bonferroni", "none")
#: The columns of `decide`'s table after the key columns.
DECIDE_COLUMNS = ("analysis", "n_baseline", "n_candidate", "n_dropped_baseline",
                  "n_dropped_candidate", "units", "unpaired", "ratio", "ci_low", "ci_high",
                  "e_value", "direction", "decision", "runs_needed", "status")
#: What `analysis` says of each sequential unit.
UNIT_NAMES = {"round": "rounds", "process": "processes", "run": "runs"}
#: The most units `runs_needed` projects to (beyond: null, "not within reach").
PROJECTION_LIMIT = 100_000


def decide(
    data: Any,
    *,
    baseline: str,
    candidate: str,
    margin: float,
    by: str | list[str] | None = None,
    variant: str = "variant",
    value: str = "value",
    unit: str | None = "unit",
    alpha: float = 0.05,
    adjust: str = "e-bh",
    higher_is_better: bool | Mapping[str, bool] | None = None,
    levels: str | list[str] | None = None,
    block: str | None = None,
    warmup: str | None = None,
) -> DecideResult:
    """Decide, after any round, which benchmarks changed, which are equivalent and which need
    more runs, with error rates that hold however often the caller looks.

    Parameters
    ----------
    data : measurement table (Arrow object, path or paths) or lazy `fastperf.io.dataset.Dataset`
        Every round so far, one row per measurement (as `fastperf.compare` takes it).
    baseline, candidate : str
        The two variants.
    margin : float
        Equivalence margin: ``equivalent`` when the anytime-valid interval of the ratio lies
        in [1 - margin, 1 + margin] (0.02: 2%).
    by : str, sequence of str or None
        The columns that identify a benchmark (None: as `fastperf.compare`).
    variant, value, unit : str
        The variant, measurement and unit columns (`unit` None: no unit column).
    alpha : float
        The error rate: per benchmark, the probability of ever deciding ``worse``/``better``
        when nothing changed, or ``equivalent`` when the change exceeds the margin, is at most
        alpha; with ``adjust="e-bh"`` the false-discovery rate of the changes over the run is
        at most alpha too.
    adjust : {"e-bh", "bonferroni", "none"}
        How the changes are decided over many benchmarks: e-BH (false-discovery rate,
        default), Bonferroni on the e-values (family-wise) or none (each benchmark at alpha).
    higher_is_better : None, bool or mapping unit -> bool
        The direction of the units; None infers it from the unit.
    levels, block, warmup : see `fastperf.compare`
        The experiment's structure; the sequential unit is its block (a round) or its
        outermost level (a process), else a run.

    Returns
    -------
    DecideResult
        One row per benchmark: ``analysis`` (the sequential unit: ``round``, ``process`` or
        ``run``), the values and dropped values of each side, ``units`` (paired units so far)
        and ``unpaired`` (units waiting for a partner), ``ratio`` (the geometric mean of the
        units' ratios) with its anytime-valid interval ``ci_low``/``ci_high``, ``e_value``
        (the evidence against no change), ``direction``, ``decision``, ``runs_needed`` (for
        ``continue``: the further units of each variant that would decide it were the mean
        and spread to stay; null when out of reach) and ``status``.

    Notes
    -----
    Per benchmark, the log ratios ``d_i`` of its paired units are modelled as N(mu, sigma^2);
    the e-value ``E_n(0)`` is the scale-invariant t-mixture Bayes factor (Rouder et al. 2009;
    Lai 1976), a test martingale under ``mu = 0`` whatever sigma, and the interval is its
    inversion, a confidence sequence (`fastperf.engine.sequential`). Decisions: ``worse`` /
    ``better`` (``changed`` for a unit without direction) for the benchmarks e-BH rejects
    (Wang & Ramdas 2022: the k* largest e-values with ``k* = max{k : k e_(k) / K >= 1 /
    alpha}``, K the benchmarks with an e-value); else ``equivalent`` when ``[ci_low, ci_high]``
    lies within ``[1 - margin, 1 + margin]``; else ``continue``. A benchmark whose values
    cannot give a ratio (values <= 0) has no decision (null) and says why in ``status``.
    """
    options = decide_options(baseline=baseline, candidate=candidate, margin=margin, by=by,
                             variant=variant, value=value, unit=unit, alpha=alpha,
                             adjust=adjust, higher_is_better=higher_is_better, levels=levels,
                             block=block, warmup=warmup)
    return run_planned(data, partial(decide_plan, options=options), decide_stage,
                       decide_finish, values=[options.value], keys=[by, variant, unit],
                       function="decide")


@dataclass(frozen=True)
class DecideOptions:
    """The options of `decide`, checked (`decide_options`); see `decide` for each."""

    baseline: Any
    candidate: Any
    margin: float
    by: Any
    variant: str
    value: str
    unit: str | None
    alpha: float
    adjust: str
    higher_is_better: Any
    levels: tuple[str, ...] | None
    block: str | None
    warmup: str | None = None


@dataclass(frozen=True, kw_only=True)
class DecidePlan(Plan):
    """The plan of `decide` (`decide_plan`).

    Attributes
    ----------
    options : DecideOptions
    keys : list of str
        The columns that identify a benchmark, the unit included.
    variant_keys : list of str
        The configuration columns that tell the variants apart.
    structure : Structure
        The levels and block (`fastperf.data.levels.resolve_structure`).
    """

    options: DecideOptions
    keys: list[str]
    variant_keys: list[str]
    structure: Structure


def decide_options(*, baseline, candidate, margin, by, variant, value, unit, alpha, adjust,
                   higher_is_better, levels, block, warmup=None) -> DecideOptions:
    """The options of `decide`, checked.

    Parameters
    ----------
    baseline, candidate, margin, by, variant, value, unit, alpha, adjust, higher_is_better,
    levels, block, warmup
        See `decide`.

    Returns
    -------
    DecideOptions
    """
    value = column_name(value, "value")
    variant = column_name(variant, "variant")
    unit = column_name(unit, "unit", allow_none=True)
    alpha = check_unit_interval(alpha, "alpha")
    if margin is None:
        raise InputError("margin must be given: the equivalence margin, e.g. 0.02 for 2%")
    margin = check_real(margin, "margin", low=0.0, high=1.0, low_open=True, high_open=True)
    check_choice(adjust, "adjust", DECIDE_ADJUSTMENTS)
    higher_is_better = check_higher_is_better(higher_is_better)
    levels, block = check_structure_arguments(levels, block)
    warmup = check_warmup(warmup)
    check_variants("decide", baseline, candidate)
    if not isinstance(candidate, (str, int)) or candidate == baseline:
        raise InputError(f"candidate must name one variant other than the baseline "
                         f"{baseline!r}; got {candidate!r}")
    return DecideOptions(baseline=baseline, candidate=candidate, margin=margin, by=by,
                         variant=variant, value=value, unit=unit, alpha=alpha, adjust=adjust,
                         higher_is_better=higher_is_better, levels=levels,
                         block=block, warmup=warmup)


def decide_plan(table: pa.Table, options: DecideOptions) -> DecidePlan:
    """The plan of `decide`: the benchmark's key columns and the structure.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table or a dataset's key table.
    options : DecideOptions

    Returns
    -------
    DecidePlan

    Raises
    ------
    InputError
        An empty table, missing columns, a key column named like an output column, or a
        variant that no row has.
    """
    if table.num_rows == 0:
        raise InputError("the measurement table is empty (0 rows)")
    variant, value, unit = options.variant, options.value, options.unit
    names = [options.baseline, options.candidate]
    require_columns(table, [variant, value])
    keys, variant_keys = benchmark_identity(table, options.by, variant, unit, names)
    check_key_clash(keys, DECIDE_COLUMNS, "decide", value, variant)
    _, dictionary = key_codes(table.column(variant), variant)
    for name in names:
        code_of(dictionary, name, f"the {variant!r} column")
    structure = resolve_structure(table.column_names, options.levels, options.block,
                                  taken=[*keys, variant, value, *variant_keys])
    return DecidePlan(options=options, keys=keys, variant_keys=variant_keys,
                      structure=structure, partition=tuple(k for k in keys if k != unit),
                      order=tuple(keys))


def ordered_differences(xs: Samples, ys: Samples) -> Samples:
    """``y[i] - x[i]`` for ``i < min(len(x), len(y))`` in each pair of samples: the i-th unit
    of one side paired with the i-th of the other.

    Parameters
    ----------
    xs, ys : Samples
        As many samples each.

    Returns
    -------
    Samples

    Notes
    -----
    CSR bookkeeping: no formula.
    """
    pairs = np.minimum(xs.sizes, ys.sizes)
    offsets = np.zeros(pairs.size + 1, dtype=np.int64)
    np.cumsum(pairs, out=offsets[1:])
    within = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], pairs)
    x_index = np.repeat(xs.offsets[:-1], pairs) + within
    y_index = np.repeat(ys.offsets[:-1], pairs) + within
    return Samples(ys.values[y_index] - xs.values[x_index], offsets)


def decide_stage(table: pa.Table, plan: DecidePlan, side: dict | None = None) -> StageRows:
    """The rows of `decide` for the benchmarks of `table` (`fastperf.data.chunked`).

    Parameters
    ----------
    table : pyarrow.Table
        Every row of some benchmarks.
    plan : DecidePlan
    side : dict or None
        Unused (the runs are not kept).

    Returns
    -------
    StageRows
        The key columns and `DECIDE_COLUMNS` (``decision`` and ``runs_needed`` left for the
        finish); in ``extra`` the standard error of the mean log ratio.
    """
    options, structure = plan.options, plan.structure
    keys, variant, value, unit = plan.keys, options.variant, options.value, options.unit
    baseline, candidate = options.baseline, options.candidate
    names = [baseline, candidate]
    table, measured = tested_table(table, options.warmup, keys, variant, value, structure)
    # one grouping: each side's runs (in row order) from the grouping into units, if any
    units = None if structure.flat else units_of(table, keys, variant, value, structure)
    vs = (chunk_variant_samples(table, names, keys, variant, value) if units is None
          else variant_samples_of(units, table, names, keys, variant, value))
    x, y = vs.samples[baseline], vs.samples[candidate]
    if units is not None and structure.block is not None:
        analysis = "round"
        differences, unpaired, _ = round_log_ratios(units.table, baseline, candidate, keys,
                                                    variant, value, structure.block)
    else:
        if units is None:
            analysis, ux, uy = "run", x, y
        else:
            analysis = "process"
            unit_samples = unit_samples_of(units, names, keys, variant, value).samples
            ux, uy = unit_samples[baseline], unit_samples[candidate]
        differences = ordered_differences(log_samples(ux), log_samples(uy))
        unpaired = np.abs(ux.sizes - uy.sizes).astype(np.int64)
    sequence = confidence_sequence(differences, options.alpha)
    status = np.where(sequence.status == "NaN in input", "values <= 0: no ratio",
                      sequence.status).astype(object)
    status = np.where(status == "fewer than 2 pairs",
                      f"fewer than 2 paired {UNIT_NAMES[analysis]}", status).astype(object)
    status = np.where(x.sizes == 0, "no baseline runs", status)
    status = np.where(y.sizes == 0, "no candidate runs", status)
    k = vs.keys.num_rows
    units = unit_strings(vs.keys.column(unit), unit) if unit in keys else pa.nulls(k, pa.string())
    with np.errstate(over="ignore", under="ignore"):
        ratio, ci_low, ci_high = np.exp(sequence.mean), np.exp(sequence.low), np.exp(sequence.high)
    # a ratio float64 cannot hold (runs of 1e-300 against 1e300): a finite log whose exp is
    # infinite or 0 (compare says the same); an infinite log is an interval end by design (the
    # confidence sequence is unbounded at its first units)
    beyond = np.zeros(k, dtype=bool)
    for log_value, value_ in ((sequence.mean, ratio), (sequence.low, ci_low),
                              (sequence.high, ci_high)):
        beyond |= np.isfinite(log_value) & ((value_ == 0) | np.isinf(value_))
    status = np.where((status == "ok") & beyond, RATIO_BEYOND_FLOAT64, status)
    columns = {
        "analysis": pa.array([analysis] * k, pa.string()),
        "n_baseline": x.sizes, "n_candidate": y.sizes,
        "n_dropped_baseline": vs.n_dropped[baseline],
        "n_dropped_candidate": vs.n_dropped[candidate],
        "units": sequence.n, "unpaired": unpaired,
        "ratio": ratio, "ci_low": ci_low, "ci_high": ci_high, "e_value": sequence.evalue,
        "direction": pa.array(row_directions(units, options.higher_is_better),
                              pa.string()),
        "decision": pa.nulls(k, pa.string()),
        "runs_needed": pa.nulls(k, pa.int64()),
        "status": pa.array(status.tolist(), pa.string()),
    }
    extra = {"se": sequence.se}
    if options.warmup == "auto":  # no flags column here: only the warm-up dropped
        warmup_x = warmup_y = np.zeros(k, dtype=np.int64)
        groups = values = 0
        if measured is not None:
            takes = benchmark_takes(measured[0], keys, variant, names, vs.keys)
            warmup_x, warmup_y = row_warmup(measured[1], takes, baseline, [candidate])
            groups, values = dropped_counts(measured[0], measured[1],
                                            np.concatenate(list(takes.values())))
        columns = with_columns_after(columns, "n_dropped_candidate",
                                     {"warmup_baseline": warmup_x, "warmup_candidate": warmup_y})
        first = np.arange(k) == 0
        extra["warmup_groups"] = np.where(first, groups, 0).astype(np.int64)
        extra["warmup_values"] = np.where(first, values, 0).astype(np.int64)
    key_table = vs.keys if vs.keys.num_columns else empty_keys(k)
    return StageRows.of(keyed_table(key_table, columns), extra)


def decide_finish(staged: StageRows, plan: DecidePlan, info: dict) -> DecideResult:
    """The result of `decide` from its rows: the changes decided over the whole run (e-BH),
    then equivalence, the runs still needed, the summary.

    Parameters
    ----------
    staged : StageRows
        `decide_stage` rows of every benchmark, in output order.
    plan : DecidePlan
    info : dict
        ``input_rows``.

    Returns
    -------
    DecideResult
    """
    options = plan.options
    alpha, margin = options.alpha, options.margin
    rows = staged.rows
    column = lambda name: rows.column(name).to_numpy(zero_copy_only=False)  # noqa: E731
    status = column("status")
    ok = status == "ok"
    waiting = np.isin(status, ["no baseline runs", "no candidate runs"]) | np.char.startswith(
        status.astype(str), "fewer than 2 paired")
    evalue = column("e_value").astype(np.float64)
    n_tests = int(ok.sum())
    reject = np.zeros(rows.num_rows, dtype=bool)
    if options.adjust == "e-bh":
        reject[ok] = e_bh(evalue[ok], alpha)
    else:
        family = n_tests if options.adjust == "bonferroni" else 1
        reject = ok & (evalue * alpha >= family)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(column("ratio").astype(np.float64))
        low, high = (np.log(column(c).astype(np.float64)) for c in ("ci_low", "ci_high"))
    sign = np.sign(np.nan_to_num(log_ratio))
    direction = column("direction")
    lower, higher = direction == LOWER, direction == HIGHER
    worse = reject & ((lower & (sign > 0)) | (higher & (sign < 0)))
    better = reject & ((lower & (sign < 0)) | (higher & (sign > 0)))
    bounds = math.log1p(-margin), math.log1p(margin)
    equivalent = ok & ~reject & (low >= bounds[0]) & (high <= bounds[1])
    decision = np.select([worse, better, reject, equivalent, ok | waiting],
                         ["worse", "better", "changed", "equivalent", "continue"], "")
    undecided = decision == "continue"
    # what would decide it: the interval narrower than the distance to 0 (a change) or than the
    # room inside the margins (equivalence), the mean and spread staying as they are
    with np.errstate(invalid="ignore"):
        room = np.minimum(log_ratio - bounds[0], bounds[1] - log_ratio)
        target = np.nan_to_num(np.maximum(np.abs(log_ratio), room), nan=np.inf)
    n_units = column("units").astype(np.int64)
    se = np.nan_to_num(staged.extra.column("se").to_numpy(zero_copy_only=False), nan=0.0)
    needed = observations_needed(n_units, se, target, alpha, MIXTURE_VARIANCE,
                                 PROJECTION_LIMIT) - n_units
    needed = np.where(undecided & (needed > 0), needed, -1)
    names = rows.column_names
    rows = rows.set_column(names.index("decision"), "decision",
                           pa.array(decision, pa.string(), mask=decision == ""))
    rows = rows.set_column(names.index("runs_needed"), "runs_needed",
                           pa.array(needed, pa.int64(), mask=needed < 0))
    counts = {name: int(np.sum(decision == name)) for name in DECISIONS}
    warnings = dropped_warnings(column("n_dropped_baseline") + column("n_dropped_candidate"),
                                "benchmark(s)", "n_dropped_baseline / n_dropped_candidate")
    undecidable = int(np.sum(decision == ""))
    if undecidable:
        warnings.append(f"{undecidable} benchmark(s) can take no decision (see status)")
    units = (unit_strings(rows.column(options.unit), options.unit)
             if options.unit in plan.keys else pa.nulls(rows.num_rows, pa.string()))
    warnings.extend(direction_warnings(units, direction))
    analysis = rows.column("analysis")[0].as_py() if rows.num_rows else "run"
    summary = {
        "function": "decide", "baseline": options.baseline, "candidate": options.candidate,
        "keys": plan.keys, "variant_keys": plan.variant_keys, "alpha": alpha,
        "adjust": options.adjust, "margin": margin, "tests": n_tests,
        "structure": plan.structure.label(), "sequential_unit": analysis,
        "mixture_variance": MIXTURE_VARIANCE, "decisions": counts,
        "undecided": int(undecided.sum()), "no_decision": undecidable,
        "most_runs_needed": int(needed.max()) if (needed > 0).any() else None,
    }
    if options.warmup == "auto":
        extra = staged.extra
        groups = int(extra.column("warmup_groups").to_numpy(zero_copy_only=False).sum())
        values = int(extra.column("warmup_values").to_numpy(zero_copy_only=False).sum())
        summary["warmup"] = warmup_summary(groups, values)
        warnings.extend(warmup_warning(groups, values))
    return DecideResult(rows, summary, warnings, plan.keys)


def _percent(log_value: float) -> str:
    if not math.isfinite(log_value):
        return "-inf" if log_value < 0 else "+inf"
    return f"{100.0 * math.expm1(log_value):+.2f}%"


class DecideResult(BenchmarkResult):
    """Result of `decide`.

    Attributes
    ----------
    benchmarks : pyarrow.Table
        One row per benchmark (and unit): the key columns, then `DECIDE_COLUMNS`.
    summary : dict
        ``function``, ``baseline``, ``candidate``, ``keys``, ``alpha``, ``adjust``,
        ``margin``, ``tests`` (benchmarks with an e-value), ``structure``,
        ``sequential_unit``, ``mixture_variance``, ``decisions`` (counts), ``undecided``
        (decision ``continue``), ``no_decision`` (decision null: more runs cannot decide them,
        the status says why), ``most_runs_needed``.
    warnings : list of str
    """

    def __init__(self, table, summary, warnings, keys: list[str]):
        super().__init__(table, summary, warnings)
        self.key_columns = keys

    def undecided(self) -> list[str]:
        """The benchmarks still to run: those whose decision is ``continue``, named by their
        first key column (each once, in table order). A benchmark with no decision (null: its
        `status` says why, e.g. values <= 0) is not among them: more runs cannot decide it.

        Returns
        -------
        list of str
        """
        decision = self.benchmarks.column("decision").to_pylist()
        if not self.key_columns:
            return ["(all rows)"] if "continue" in decision else []
        names = self.benchmarks.column(self.key_columns[0]).to_pylist()
        return list(dict.fromkeys(format_cell(n) for n, d in zip(names, decision)
                                  if d == "continue"))

    def _display(self) -> pa.Table:
        """The table as the text and Markdown renderings show it."""
        table = self.benchmarks
        out: dict[str, list[str]] = {}
        for i, name in enumerate(self.key_columns):
            values = table.column(name).to_pylist()
            out[name] = [strip_benchmark_prefix(v) if i == 0 else format_cell(v)
                         for v in values]
        suffix = {"round": "r", "process": "p", "run": ""}
        records = table.select(["analysis", "units", "ratio", "ci_low", "ci_high",
                                "decision", "runs_needed", "status"]).to_pylist()
        out["units"] = [f"{r['units']}{suffix.get(r['analysis'], '')}" for r in records]
        out["change"], out["anytime interval"] = [], []
        for r in records:
            if r["status"] != "ok":
                out["change"].append("?")
                out["anytime interval"].append(r["status"])
                continue
            out["change"].append(_percent(math.log(r["ratio"])))
            low, high = (math.log(v) if v > 0 else -math.inf for v in (r["ci_low"], r["ci_high"]))
            out["anytime interval"].append(f"[{_percent(low)}, {_percent(high)}]")
        out["decision"] = [r["decision"] or "-" for r in records]
        out["runs needed"] = ["" if r["runs_needed"] is None else f"+{r['runs_needed']}"
                              for r in records]
        return pa.table({k: pa.array(v, pa.string()) for k, v in out.items()})

    def _footer(self) -> str:
        s = self.summary
        counts = ", ".join(f"{v} {k}" for k, v in s["decisions"].items() if v)
        family = {"e-bh": f"e-BH over {s['tests']} benchmark(s)",
                  "bonferroni": f"Bonferroni over {s['tests']} benchmark(s)",
                  "none": "each benchmark on its own"}[s["adjust"]]
        unit = UNIT_NAMES.get(s["sequential_unit"], "runs")
        line = (f"decide {s['candidate']} vs {s['baseline']}: {counts or 'no benchmark'}; "
                f"anytime-valid at alpha={s['alpha']:g} ({family}), margin "
                f"±{100 * s['margin']:g}%, unit: {unit} (structure: {s['structure']})")
        if s["most_runs_needed"] is not None:
            line += f"; at most {s['most_runs_needed']} more {unit} projected"
        return line

    def to_text(self) -> str:
        """One line per benchmark: its units so far (``r``: rounds, ``p``: process pairs), the
        change and its anytime-valid interval, the decision and the runs still needed; the
        counts and the method below, then the warnings."""
        out = render_text(self._display()) + "\n\n" + printable(self._footer())
        if self.warnings:
            out += "\n" + text_lines(self.warnings, "warning: ")
        return out

    def to_markdown(self) -> str:
        """The text table as a Markdown table, the counts below."""
        out = render_markdown(self._display()) + "\n\n" + markdown_text(self._footer())
        if self.warnings:
            out += "\n\n" + markdown_list(self.warnings, "warning: ")
        return out
