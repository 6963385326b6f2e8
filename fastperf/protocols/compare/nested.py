"""`compare` at the level of the independent units: processes (forks, launches, invocations),
or rounds that measured both variants interleaved.

A process's values share its state, so they are not independent; the pooled rank-sum test
understates the variance by the design effect and calls changes that are not there (3-9x its
level on realistic data, docs/nested.md). Kalibera & Jones (2013) build inference on the
independent units. Here, per benchmark and variant:

- **processes** (``analysis == "process"``): the values of each process are averaged; the
  change is the difference of the mean log process means, tested by Welch's t-test (Welch 1947)
  with its Welch-Satterthwaite degrees of freedom; the ratio's interval is exp of Welch's
  interval. On balanced data with equal variances this is the REML mixed-model test of the
  variant effect, whose degrees of freedom come from the process level.
- **rounds** (``analysis == "round"``): each variant's values of a round are averaged; the
  within-round log ratios are tested by the paired t-test (Student 1908), which removes any
  drift shared by the two variants of a round.

A unit mean <= 0 has no log: such a benchmark is tested on the unit means themselves (Welch's
t-test on the process means, the paired t-test on the differences of the round means), with no
ratio nor interval (its status says "values <= 0"). A benchmark with fewer than 2 units on a
side, or whose units hold one value each, keeps the flat analysis (``analysis == "flat"``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.arrays import Samples
from fastperf.data.levels import Structure, Units, unit_samples_of, units_of, variant_samples_of
from fastperf.data.samples import (PairedSamples, VariantSamples, chunk_paired_samples,
                                   chunk_variant_samples, concat_samples, present_variants,
                                   variant_takes)
from fastperf.engine.parametric import (paired_t, scaled_moments_of, t_from_moments, t_pvalue,
                                        t_quantile)
from fastperf.engine.sorting import sort_sample_batches, sort_sample_pairs
from fastperf.results.base import nan_as_null

__all__ = ["NestedRows", "NESTED_COLUMNS", "nested_rows", "log_samples", "round_log_ratios",
           "chunk_units", "flat_samples"]

#: The columns a nested comparison adds to `compare`'s table.
NESTED_COLUMNS = ("analysis", "units_baseline", "units_candidate", "icc_baseline",
                  "icc_candidate", "n_effective_baseline", "n_effective_candidate")


@dataclass(frozen=True)
class NestedRows:
    """The nested analysis of every (candidate, benchmark) row of a `compare` chunk.

    Attributes
    ----------
    nested : numpy.ndarray of bool
        Whether the row takes the nested analysis (else the flat one).
    columns : dict
        `NESTED_COLUMNS`, row for row.
    pvalue, estimate, low, high, eq_low, eq_high : numpy.ndarray
        The test's two-sided p-value, the log ratio and its `confidence` and 1 - 2 alpha
        interval (NaN where the row is not nested or the test has no result).
    baseline_units, candidate_units : Samples
        The unit means of each row's sides, sorted (for the medians and the overall score):
        every process's, or the rounds' that measured both variants (those the test pairs).
    method : str
        ``"welch"`` or ``"paired t"``.
    unpaired_rounds : numpy.ndarray of int64
        Rounds of the row that measured one variant only, left out of the pairs (0 for
        processes).
    """

    nested: np.ndarray
    columns: dict[str, Any]
    pvalue: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    eq_low: np.ndarray
    eq_high: np.ndarray
    baseline_units: Samples
    candidate_units: Samples
    method: str
    unpaired_rounds: np.ndarray


def log_samples(samples: Samples) -> Samples:
    """The natural log of every value, NaN for a value <= 0 (it has no log ratio).

    Parameters
    ----------
    samples : Samples

    Returns
    -------
    Samples
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return Samples(np.log(np.where(samples.values > 0, samples.values, np.nan)),
                       samples.offsets)


def round_log_ratios(unit_table: pa.Table, baseline: Any, candidate: Any, keys: list[str],
                     variant: str, value: str, block: str
                     ) -> tuple[Samples, np.ndarray, PairedSamples]:
    """Per benchmark, the within-round log ratios ``log(candidate mean) - log(baseline mean)``
    of the rounds that measured both variants.

    Parameters
    ----------
    unit_table : pyarrow.Table
        One row per (benchmark, variant, round): the round's mean (`units_of`).
    baseline, candidate
        The variants.
    keys : list of str
        The benchmark key columns.
    variant, value, block : str
        The variant, mean and block columns.

    Returns
    -------
    differences : Samples
        NaN where a mean is <= 0.
    unmatched : numpy.ndarray of int64
        Rounds that measured one variant only.
    pairs : PairedSamples
        The round means of the rounds that measured both variants, pair for pair (the medians
        shown beside the test are theirs).

    Notes
    -----
    The pairing of `fastperf.data.samples.chunk_paired_samples`; the log ratio of Kalibera &
    Jones (2013).
    """
    pairs = chunk_paired_samples(unit_table, baseline, candidate, keys, variant, value, block)
    differences = Samples(log_samples(pairs.candidate).values - log_samples(pairs.baseline).values,
                          pairs.baseline.offsets)
    return differences, np.asarray(pairs.n_unmatched, dtype=np.int64), pairs


def _constant(moments) -> np.ndarray:
    """Per sample of these `Moments`, whether it holds at least 2 values, all equal (NaN:
    not)."""
    return (moments.n >= 2) & (moments.n_nan == 0) & (moments.variance == 0)


def _where_positive(positive: np.ndarray, on_logs: tuple, on_values: tuple) -> tuple:
    """The t-test pieces (t, df, se, estimate) of the log unit means where every unit mean is
    positive, else those of the unit means themselves, with no standard error: the change is
    tested, but there is no ratio nor interval (the row's status says "values <= 0"); the
    estimate gives the change's sign."""
    t, df, se, estimate = (np.where(positive, a, b) for a, b in zip(on_logs, on_values[:4]))
    return t, df, np.where(positive, se, np.nan), estimate


def _per_variant(components: pa.Table, takes: dict[Any, np.ndarray],
                 column: str) -> dict[Any, np.ndarray]:
    """A variance-components column per benchmark for each variant (NaN where absent): the
    components' rows are the unit table's (keys, variant) groups, which `takes` indexes."""
    values = components.column(column).to_numpy(zero_copy_only=False).astype(np.float64)
    return {name: np.where(take >= 0, values[np.maximum(take, 0)] if values.size else np.nan,
                           np.nan) for name, take in takes.items()}


def chunk_units(table: pa.Table, structure: Structure, keys: list[str], variant: str,
                value: str) -> Units | None:
    """The units of a `compare` chunk (`fastperf.data.levels.units_of`): the one grouping of its
    rows that the nested and the flat analysis share.

    Parameters
    ----------
    table : pyarrow.Table
        The chunk: complete benchmarks.
    structure : Structure
        The structure of the comparison.
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.

    Returns
    -------
    Units or None
        None for a flat structure and for an empty chunk (whose flat samples say so).

    Notes
    -----
    Data plumbing: no formula.
    """
    if structure.flat or table.num_rows == 0:
        return None
    return units_of(table, keys, variant, value, structure)


def flat_samples(units: Units | None, table: pa.Table, variants: Sequence[Any],
                 keys: list[str], variant: str, value: str) -> VariantSamples:
    """`fastperf.data.samples.chunk_variant_samples` of a `compare` chunk, from its units'
    grouping where they give it (`fastperf.data.levels.variant_samples_of`), each sample sorted
    as `fastperf.engine.sorting.sort_samples` sorts it, in place (no copy of the values), the
    variants' samples at once (`fastperf.engine.sorting.sort_sample_batches`).

    Parameters
    ----------
    units : Units or None
        `chunk_units` of the chunk.
    table : pyarrow.Table
        The chunk.
    variants : sequence
        The variants wanted.
    keys : list of str
        The benchmark key columns.
    variant, value : str
        The variant and value columns.

    Returns
    -------
    VariantSamples
        Each benchmark's values of each variant, sorted ascending.

    Raises
    ------
    InputError
        As `chunk_variant_samples`.

    Notes
    -----
    Data plumbing: no formula.
    """
    samples = (chunk_variant_samples(table, variants, keys, variant, value) if units is None
               else variant_samples_of(units, table, variants, keys, variant, value))
    # the values are this function's to change: sorted where they lie, every variant's at once
    names = list(samples.samples)
    for name, batch in zip(names, sort_sample_batches([samples.samples[name] for name in names],
                                                      in_place=True)):
        samples.samples[name] = batch
    return samples


def nested_rows(table: pa.Table, structure: Structure, keys: list[str], variant: str,
                value: str, baseline: Any, candidates: Sequence[Any], n_benchmarks: int,
                confidence: float, alpha: float, equivalence: bool,
                units: Units | None = None) -> NestedRows:
    """The nested analysis of a `compare` chunk (see the module docstring).

    Parameters
    ----------
    table : pyarrow.Table
        The chunk: complete benchmarks.
    structure : Structure
        Not flat.
    keys : list of str
        The benchmark key columns (the unit included).
    variant, value : str
        The variant and value columns.
    baseline, candidates
        The variants compared.
    n_benchmarks : int
        The benchmarks of the chunk (`chunk_variant_samples`'s keys), whose order the rows
        follow.
    confidence, alpha : float
        The interval's level; the test's level (the equivalence interval is 1 - 2 alpha).
    equivalence : bool
        Whether the equivalence interval is wanted (a margin was given); else it is NaN.
    units : Units, optional
        `chunk_units` of the chunk (computed when not given).

    Returns
    -------
    NestedRows
    """
    c = len(candidates)
    names = [baseline, *candidates]
    units = units_of(table, keys, variant, value, structure) if units is None else units
    unit_table = units.table
    vs = unit_samples_of(units, names, keys, variant, value)
    _, takes = variant_takes(vs.groups, keys, variant, present_variants(vs.groups.keys, variant,
                                                                        names))
    takes = {name: takes.get(name, np.full(n_benchmarks, -1, dtype=np.int64)) for name in names}
    comp = units.components
    n_units, n_values, icc, n_eff = (_per_variant(comp, takes, column) for column in
                                     ("n_units", "n_values", "icc", "n_effective"))
    side = lambda d: (np.tile(np.nan_to_num(d[baseline]), c),  # noqa: E731
                      np.concatenate([np.nan_to_num(d[name]) for name in candidates]))
    units_x, units_y = (u.astype(np.int64) for u in side(n_units))
    values_x, values_y = (v.astype(np.int64) for v in side(n_values))
    icc_x = np.tile(icc[baseline], c)
    icc_y = np.concatenate([icc[name] for name in candidates])
    eff_x = np.tile(n_eff[baseline], c)
    eff_y = np.concatenate([n_eff[name] for name in candidates])

    xs = concat_samples([vs.samples[baseline]] * c)
    ys = concat_samples([vs.samples[name] for name in candidates])
    nan = np.full(n_benchmarks * c, np.nan)
    unpaired = np.zeros(n_benchmarks * c, dtype=np.int64)
    if structure.block is None:
        method = "welch"
        mx, my = scaled_moments_of(log_samples(xs)), scaled_moments_of(log_samples(ys))
        t, df, se, estimate, _ = t_from_moments(my.n, my.n_nan, my.scaled_mean, my.variance,
                                                mx.n, mx.n_nan, mx.scaled_mean, mx.variance,
                                                False, my.exponent, mx.exponent)
        one_each = (values_x == units_x) & (values_y == units_y)
        positive = (mx.n_nan == 0) & (my.n_nan == 0)
        lx, ly = scaled_moments_of(xs), scaled_moments_of(ys)
        # every unit mean of each side the same (an allocation count): Welch's se is 0
        constant = _constant(lx) & _constant(ly)
        if not positive.all():  # a unit mean <= 0 has no log ratio: Welch on the means
            linear = t_from_moments(ly.n, ly.n_nan, ly.scaled_mean, ly.variance, lx.n,
                                    lx.n_nan, lx.scaled_mean, lx.variance, False, ly.exponent,
                                    lx.exponent)
            t, df, se, estimate = _where_positive(positive, (t, df, se, estimate), linear)
        nested = (units_x >= 2) & (units_y >= 2) & ~one_each
    else:
        method = "paired t"
        rounds = [round_log_ratios(unit_table, baseline, name, keys, variant, value,
                                   structure.block) for name in candidates]
        differences = concat_samples([r[0] for r in rounds])
        unpaired = np.concatenate([r[1] for r in rounds])
        # the medians beside the test: of the rounds it pairs, not of every round of a side
        xs = concat_samples([r[2].baseline for r in rounds])
        ys = concat_samples([r[2].candidate for r in rounds])
        pairs, t, df, se, estimate, _ = paired_t(differences)
        moments = scaled_moments_of(differences)
        positive, constant = moments.n_nan == 0, _constant(moments)
        if not positive.all():  # a round mean <= 0 has no log ratio: the paired differences
            with np.errstate(over="ignore", invalid="ignore"):
                linear_differences = Samples(ys.values - xs.values, xs.offsets)
            linear = paired_t(linear_differences)
            pairs = np.where(positive, pairs, linear[0])  # (the count of the log ratios: 0)
            constant = np.where(positive, constant,
                                _constant(scaled_moments_of(linear_differences)))
            t, df, se, estimate = _where_positive(positive, (t, df, se, estimate), linear[1:5])
        units_x = units_y = pairs.astype(np.int64)
        nested = pairs >= 2
    with np.errstate(invalid="ignore"):
        p = np.where(nested, t_pvalue(t, df, "two-sided"), nan)
        q = t_quantile(0.5 + confidence / 2, df)
        q_eq = t_quantile(1.0 - alpha, df) if equivalence else nan
        estimate = np.where(nested, estimate, nan)
        low, high = estimate - q * se, estimate + q * se
        eq_low, eq_high = estimate - q_eq * se, estimate + q_eq * se
    # units that do not vary (each side's unit means all equal, or every round's ratio the
    # same): no noise at the unit level, so the change is exact: p 1 where there is none, else
    # 0, the interval the estimate itself (as `decide` concludes at once)
    exact = nested & constant
    if exact.any():
        p = np.where(exact, np.where(estimate == 0, 1.0, 0.0), p)
        low, high, eq_low, eq_high = (np.where(exact, estimate, v)
                                      for v in (low, high, eq_low, eq_high))
    columns = {
        "analysis": pa.array(np.where(nested, "round" if structure.block else "process",
                                      "flat"), pa.string()),
        "units_baseline": units_x, "units_candidate": units_y,
    }
    for name, figure in (("icc_baseline", icc_x), ("icc_candidate", icc_y),
                         ("n_effective_baseline", eff_x), ("n_effective_candidate", eff_y)):
        columns[name] = nan_as_null(figure)  # one unit, one value each: no such figure
    return NestedRows(nested, columns, p, estimate, low, high, eq_low, eq_high,
                      *sort_sample_pairs(xs, ys), method, unpaired)
