"""Haskell criterion results: its JSON report (``--json FILE``) and its CSV summary
(``--csv FILE``).

JSON layout: ``["criterion", "<version>", [report, ...]]``; each report is ``{"reportName",
"reportNumber", "reportKeys": ["time", "cpuTime", "cycles", "iters", ...], "reportMeasured":
[[time, cpuTime, cycles, iters, ...], ...], "reportAnalysis": {"anMean": {"estPoint", ...},
"anStdDev": {"estPoint", ...}, "anRegress": [...], ...}, "reportOutliers", "reportKDEs"}``.
Every ``reportMeasured`` row is one sample: ``time`` is the sample's total wall time in seconds
for ``iters`` iterations (rows are arrays in the order of ``reportKeys``; objects keyed
``measTime``/``measIters`` are read too).

CSV layout: a header ``Name,Mean,MeanLB,MeanUB,Stddev,StddevLB,StddevUB`` and one row per
benchmark, in seconds (names quoted when they hold commas or quotes).
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.common import tool_table
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_haskell_criterion", "read_haskell_criterion",
           "looks_like_haskell_criterion_csv", "read_haskell_criterion_csv",
           "HASKELL_CRITERION_CSV_HEADER"]

#: The header line criterion's ``--csv`` writes.
HASKELL_CRITERION_CSV_HEADER = ("Name", "Mean", "MeanLB", "MeanUB", "Stddev", "StddevLB",
                                "StddevUB")
#: reportKeys of criterion >= 1.1 (the order of the fields of a reportMeasured row).
_DEFAULT_KEYS = ("time", "cpuTime", "cycles", "iters", "allocated", "numGcs", "bytesCopied",
                 "mutatorWallSeconds", "mutatorCpuSeconds", "gcWallSeconds", "gcCpuSeconds")


def looks_like_haskell_criterion(data: Any) -> bool:
    """True for a list ``["criterion", version, [reports...]]``.

    Format: haskell/criterion, Criterion/IO.hs (``hGetRecords``/``writeJSONReports``: the header
    ``"criterion"`` and the version, then the reports) and Criterion/Types.hs (``Report``).
    """
    return isinstance(data, list) and len(data) == 3 and data[0] == "criterion" \
        and isinstance(data[2], list)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _time_and_iters(row: Any, positions: tuple[int, int]) -> tuple[Any, Any]:
    if isinstance(row, dict):
        return row.get("measTime", row.get("time")), row.get("measIters", row.get("iters"))
    if isinstance(row, list) and len(row) > max(positions):
        return row[positions[0]], row[positions[1]]
    return None, None


def read_haskell_criterion(path: Path, data: Any) -> pa.Table:
    """Every measured sample (``reportMeasured``) of every report as one row, seconds per
    iteration.

    ``value`` is ``time / iters`` of the row (seconds per iteration, ``unit`` ``s``),
    ``run`` the row's index in ``reportMeasured``, ``benchmark`` the ``reportName``; the extra
    column ``iterations`` (int64) holds ``iters``. All rows are kept as measured: criterion's
    own mean and standard deviation drop the first row, subtract half its measured overhead
    and leave out samples shorter than its threshold, so they differ from these rows' moments.
    A file whose reports hold no measured rows at all is read as a *summary table* from
    ``reportAnalysis`` (``mean`` = ``anMean.estPoint``, ``sd`` = ``anStdDev.estPoint``, a
    sample standard deviation: criterion uses ``Statistics.Sample.stdDev``, the square root of
    the unbiased variance; ``n`` null).

    Refuses (InputError) no criterion report, no reports, a report without a name, a row whose time
    or iteration count is missing or no number, a count that is not a positive whole number, or some
    reports with measured rows and some without.

    Format: haskell/criterion: Criterion/Types.hs (``Report``, ``Measured``, ``measureKeys``),
    Criterion/Analysis.hs (``analyseSample``), Criterion/IO.hs (the JSON header).
    """
    if not looks_like_haskell_criterion(data):
        raise InputError(f"{path}: not a Haskell criterion JSON report (a list "
                         "[\"criterion\", version, [reports]])")
    reports = data[2]
    if not reports:
        raise InputError(f"{path}: the Haskell criterion report holds no benchmarks")
    measured = [isinstance(r, dict) and bool(r.get("reportMeasured")) for r in reports]
    if not any(measured):
        return _summaries(path, reports)
    names: list[str] = []
    runs: list[int] = []
    values: list[float] = []
    counts: list[int] = []
    for report, has_rows in zip(reports, measured):
        name = report.get("reportName") if isinstance(report, dict) else None
        if not isinstance(name, str):
            raise InputError(f"{path}: a Haskell criterion report has no 'reportName'")
        if not has_rows:
            raise InputError(f"{path}: Haskell criterion benchmark {shown(name)} has no "
                             "measured samples (reportMeasured) while others have")
        keys = report.get("reportKeys")
        keys = list(keys) if isinstance(keys, list) else list(_DEFAULT_KEYS)
        if "time" not in keys or "iters" not in keys:
            raise InputError(f"{path}: Haskell criterion benchmark {shown(name)}: reportKeys "
                             f"{shown(keys, 80)} lack 'time' or 'iters'")
        positions = (keys.index("time"), keys.index("iters"))
        for i, row in enumerate(report["reportMeasured"]):
            time, iters = _time_and_iters(row, positions)
            if not _number(time) or not math.isfinite(time):
                raise InputError(f"{path}: malformed Haskell criterion file: benchmark "
                                 f"{shown(name)}: sample {i}: time {shown(time)} is not a "
                                 "finite number")
            if isinstance(iters, float) and iters.is_integer():
                iters = int(iters)
            if not isinstance(iters, int) or isinstance(iters, bool) or iters <= 0:
                raise InputError(f"{path}: malformed Haskell criterion file: benchmark "
                                 f"{shown(name)}: sample {i}: iters {shown(iters)} is not a "
                                 "positive whole number")
            names.append(name)
            runs.append(i)
            values.append(float(time) / iters)
            counts.append(iters)
    return tool_table(names, values, run=runs, unit="s",
                      extra={"iterations": pa.array(counts, pa.int64())},
                      where=path, kind="Haskell criterion", value_field="reportMeasured")


def _summaries(path: Path, reports: list) -> pa.Table:
    names: list[str] = []
    means: list[Any] = []
    sds: list[Any] = []
    for report in reports:
        name = report.get("reportName") if isinstance(report, dict) else None
        analysis = report.get("reportAnalysis") if isinstance(report, dict) else None
        if not isinstance(name, str) or not isinstance(analysis, dict):
            raise InputError(f"{path}: a Haskell criterion report has neither measured "
                             "samples nor a reportName with reportAnalysis")
        names.append(name)
        means.append((analysis.get("anMean") or {}).get("estPoint"))
        sds.append((analysis.get("anStdDev") or {}).get("estPoint"))
    return summary_table(names, unit="s", statistics={"mean": means, "sd": sds},
                         where=path, kind="Haskell criterion")


def looks_like_haskell_criterion_csv(text: str) -> bool:
    """True when the first line of `text` is Haskell criterion's CSV header.

    Format: haskell/criterion, Criterion/Internal.hs (``runAndAnalyseOne``: the CSV row) and
    Criterion/Main.hs (the header written for ``--csv``).
    """
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    return tuple(c.strip() for c in first.split(",")) == HASKELL_CRITERION_CSV_HEADER


def read_haskell_criterion_csv(path: Path, text: str) -> pa.Table:
    """Every row of Haskell criterion's CSV summary as one row of a *summary table*, seconds.

    ``mean`` is ``Mean`` and ``sd`` is ``Stddev``: criterion's bootstrap point estimates,
    which are the mean and the sample standard deviation (``Statistics.Sample.stdDev``, the
    square root of the unbiased variance) of the per-iteration times it kept (the first
    sample and samples shorter than its threshold are left out). ``n`` is null: the file does
    not say how many samples there were. The bounds of the bootstrap confidence intervals are
    the extra columns ``mean_lb``, ``mean_ub``, ``sd_lb``, ``sd_ub`` (float64, seconds).

    Refuses (InputError) no header, no rows, a row with the wrong number of fields or a field that
    is no number (naming the line).

    Format: haskell/criterion, Criterion/Internal.hs (the ``--csv`` row: name, mean with its bounds,
    standard deviation with its bounds) and Criterion/Analysis.hs (``analyseSample``).
    """
    if not looks_like_haskell_criterion_csv(text):
        raise InputError(f"{path}: not a Haskell criterion CSV (header "
                         f"{','.join(HASKELL_CRITERION_CSV_HEADER)})")
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    names: list[str] = []
    columns: list[list[float]] = [[] for _ in range(6)]
    for line_no, row in enumerate(rows[1:], 2):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) != 7:
            raise InputError(f"{path}:{line_no}: a Haskell criterion CSV row has {len(row)} "
                             "fields, not 7")
        names.append(row[0])
        for column, cell in zip(columns, row[1:]):
            try:
                value = float(cell)
            except ValueError:
                raise InputError(f"{path}:{line_no}: benchmark {shown(row[0])}: "
                                 f"{shown(cell)} is not a number") from None
            if math.isinf(value) and cell.strip().lstrip("+-").lower() not in ("inf",
                                                                                "infinity"):
                raise InputError(f"{path}:{line_no}: benchmark {shown(row[0])}: {shown(cell)} "
                                 "is beyond the float64 range")
            column.append(value)
    if not names:
        raise InputError(f"{path}: the Haskell criterion CSV holds no benchmarks")
    mean, mean_lb, mean_ub, sd, sd_lb, sd_ub = columns
    extra = {key: pa.array(values, pa.float64()) for key, values in
             (("mean_lb", mean_lb), ("mean_ub", mean_ub), ("sd_lb", sd_lb), ("sd_ub", sd_ub))}
    return summary_table(names, unit="s", statistics={"mean": mean, "sd": sd}, extra=extra,
                         where=path, kind="Haskell criterion")
