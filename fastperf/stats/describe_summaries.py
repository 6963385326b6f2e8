"""`describe` of a *summary table* (n, mean, sd, ... per benchmark and variant, as summary-only
result files give them): the statistics the file gives, and the Student interval of the mean.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastperf.data.grouping import group_rows
from fastperf.engine.intervals import student_halfwidth
from fastperf.engine.pvalues import first_reason
from fastperf.io.summaries import SUMMARY_STATISTICS, checked_summary_columns
from fastperf.results.base import keyed_table

__all__ = ["describe_summaries", "SUMMARY_DESCRIBE_COLUMNS"]

#: The columns of `describe` on a summary table (after the key columns).
SUMMARY_DESCRIBE_COLUMNS = ("n", "mean", "sd", "min", "median", "max", "iqr", "cv",
                            "ci_mean_low", "ci_mean_high", "status")


def describe_summaries(table: pa.Table, keys: list[str], confidence: float
                       ) -> tuple[pa.Table, dict, list[str]]:
    """One row per group of a summary table: its statistics and the interval of its mean.

    Parameters
    ----------
    table : pyarrow.Table
        A summary table (`fastperf.io.common.summary_table`).
    keys : list of str
        The group key columns (benchmark, variant, unit, ...), checked by `describe`.
    confidence : float
        Level of the interval of the mean.

    Returns
    -------
    (table, summary, warnings)
        What `describe` wraps in its result: keys, then `SUMMARY_DESCRIBE_COLUMNS` (statistics
        the file does not give are null, and the status names them); ``summary`` with
        ``from_summaries`` True.

    Notes
    -----
    ci_mean = mean -+ t[(1 + confidence) / 2; n - 1] sd / sqrt(n) (Student 1908; seed 000, as
    `describe` on runs); cv = sd / mean (NaN, with a status, where the mean is 0 or the ratio
    overflows). Median intervals need the runs.
    """
    table = checked_summary_columns(table)
    groups = group_rows(table, keys)
    k = groups.n_groups
    first = groups.gather(np.arange(table.num_rows))[groups.offsets[:-1]] if k else \
        np.empty(0, dtype=np.int64)
    stats = {}
    for name in SUMMARY_STATISTICS:
        column = table.column(name) if name in table.column_names else pa.nulls(table.num_rows)
        values = pc.cast(column, pa.float64()).fill_null(math.nan).to_numpy()
        stats[name] = values[first] if k else np.empty(0)
    n, mean, sd = stats["n"], stats["mean"], stats["sd"]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        half = student_halfwidth(np.nan_to_num(n), sd, confidence)
        low, high = mean - half, mean + half
        cv = np.where(mean == 0, np.nan, sd / mean)
    cv_overflow = np.isinf(cv)
    cv = np.where(cv_overflow, np.nan, cv)
    interval_overflow = ~np.isfinite(low) | ~np.isfinite(high)
    missing = [name for name in ("min", "median", "max", "iqr")]
    status = first_reason(
        [groups.sizes > 1, np.isnan(mean), np.isinf(mean), np.isnan(n), np.isnan(sd), n < 2,
         interval_overflow, mean == 0, cv_overflow,
         *[np.isnan(stats[name]) for name in missing]],
        ["several summary rows for one group: give by= the columns that tell them apart",
         "the file gives no mean", "the mean is infinite: no interval",
         "the file gives no run count n: no interval",
         "the file gives no sd: no interval", "fewer than 2 runs: no interval",
         "the interval of the mean is beyond the float64 range",
         "mean 0: no cv", "cv = sd / mean beyond the float64 range",
         *[f"the file gives no {name}" for name in missing]], "ok")
    low, high = np.where(interval_overflow, np.nan, low), np.where(interval_overflow, np.nan, high)
    columns = {"n": pa.array(n, pa.float64(), mask=np.isnan(n)).cast(pa.int64()),
               "mean": mean, "sd": sd, "min": stats["min"], "median": stats["median"],
               "max": stats["max"], "iqr": stats["iqr"], "cv": cv,
               "ci_mean_low": low, "ci_mean_high": high, "status": status}
    out = keyed_table(groups.keys, columns)
    warnings = ["described from summaries (n, mean, sd, ...): no median interval without the "
                "raw runs (see docs/readers.md for how to keep them)"]
    summary = {"function": "describe", "from_summaries": True, "input_rows": table.num_rows,
               "confidence": confidence}
    return out, summary, warnings
