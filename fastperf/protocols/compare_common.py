"""What `compare` on raw runs and `compare` on summary tables share: the result class, the
identity of a benchmark, the adjustment over the run, the verdict rule, the option checks."""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pyarrow as pa

from fastperf.data.grouping import key_codes
from fastperf.data.units import HIGHER, LOWER
from fastperf.data.validation import (check_choice, check_confidence, check_real,
                                      check_unit_interval)
from fastperf.errors import InputError
from fastperf.io.common import config_columns
from fastperf.io.tables import has_column, key_list, require_columns
from fastperf.protocols.compare_text import CompareRendering
from fastperf.results.base import BenchmarkResult

__all__ = ["CompareResult", "ADJUSTMENTS", "VERDICTS", "COLUMNS", "benchmark_identity",
           "adjusted_pvalues", "verdicts_of", "checked_options", "largest_regressions",
           "overall_table"]

#: `adjust=` names and the `multipletests` method each one runs.
ADJUSTMENTS = {"bh": "fdr_bh", "holm": "holm", "bonferroni": "bonferroni", "none": None}
VERDICTS = ("worse", "better", "changed", "equivalent", "no change", "too few runs")
COLUMNS = ("n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate",
           "median_baseline", "ci_baseline_low", "ci_baseline_high", "median_candidate",
           "ci_candidate_low", "ci_candidate_high", "delta", "ratio", "ci_low", "ci_high",
           "pvalue", "pvalue_adjusted", "method", "direction", "verdict", "status")


class CompareResult(CompareRendering, BenchmarkResult):
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
        ``largest_regressions``, ``rows``, ``rows_not_ok``.
    warnings : list of str
    """

    def report_view(self):  # noqa: D102 (see Result.report_view)
        from fastperf.protocols.report_views import compare_view

        return compare_view(self)

    extra_tables = ("overall",)

    def __init__(self, table, summary, warnings, overall: pa.Table, keys: list[str],
                 unit: str | None):
        super().__init__(table, summary, warnings)
        self.overall = overall
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
        import pyarrow.compute as pc

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


def with_unit(keys: list[str], table: pa.Table, unit: str | None) -> list[str]:
    """The keys and the unit column (every unit is compared on its own)."""
    if has_column(table, unit) and unit not in keys:
        return keys + [unit]
    return keys


def adjusted_pvalues(p: np.ndarray, family: np.ndarray, adjust: str, alpha: float) -> np.ndarray:
    """p adjusted over the family (NaN outside it)."""
    from fastperf.stats.multitest import multipletests

    out = np.full(p.shape, np.nan)
    if not family.any():
        return out
    if ADJUSTMENTS[adjust] is None:
        out[family] = p[family]
    else:
        out[family] = multipletests(p[family], alpha=alpha,
                                    method=ADJUSTMENTS[adjust]).pvalues_corrected
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
    if not (higher_is_better is None or isinstance(higher_is_better, (bool, np.bool_))
            or isinstance(higher_is_better, Mapping)):
        raise InputError("higher_is_better must be None (from the unit), True/False, or a "
                         f"mapping unit -> True/False, got {higher_is_better!r}")
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


def overall_table(out: pa.Table, candidates: list, units: list, k: int, unit: str | None,
                  center: str, usable: np.ndarray, extra=None) -> pa.Table:
    """Per (candidate, unit): the benchmarks, those compared, the geometric means of each
    side's `center` (``median`` or ``mean``) and their change (benchstat's geomean row), any
    `extra` columns, and the count of each verdict.

    Parameters
    ----------
    out : pyarrow.Table
        The comparison rows (candidate-major blocks of `k` rows).
    candidates, units : list
        The candidates; the unit of each of the `k` benchmarks (None without a unit column).
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
    unit_codes, unit_labels = key_codes(pa.chunked_array([pa.array(units, pa.string())]), "unit")
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
