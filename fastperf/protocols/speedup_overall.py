"""The Speedup-Test over the benchmarks (Touati, Worms & Briais 2013, seed 002): the overall
speedup and gain (equations 1 and 2), the proportion of accelerated benchmarks with its interval
(section 4), the warning and error files, and `speedup_finish`, which makes the result from the
per-benchmark rows of `fastperf.protocols.speedup.speedup_stage` (`fastperf.data.chunked`).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa

from fastperf.data.chunked import visible
from fastperf.errors import InputError
from fastperf.protocols.speedup_report import EXECUTION_TIMES, SpeedupTestResult
from fastperf.results.render import format_cell

__all__ = ["speedup_finish", "SIDES"]

#: The two sides, as the hidden columns of the stage name them: ``__mean_<side>`` (the mean
#: divided by ``2**__exponent``), ``__median_<side>``, ``__min_<side>``; with ``__weight`` (W),
#: ``__compared``, ``__ks_messages`` (the Kolmogorov-Smirnov fallback messages of the stage's
#: chunk, on its first row) and ``__variants`` (the variants the chunk holds, on its first row,
#: when the plan could not look for them).
SIDES = ("baseline", "candidate")

#: The count in a `fastperf.engine.ks.ks_pairs` fallback message ("... for 3 pair(s) ...").
_COUNT = re.compile(r"(?<=for )\d+(?= )")


def _weighted_times(time_x, time_y, compared: np.ndarray, w: np.ndarray):
    """W ET(C) and W ET(C') of the compared benchmarks, all divided by the same powers of 2
    (exact) so that the sums of equation (1) do not overflow; a time is an array, or
    (mean / 2**e, e) per benchmark."""
    parts = [t if isinstance(t, tuple) else (t, np.zeros(t.shape, np.int64))
             for t in (time_x, time_y)]
    parts = [(scaled[compared], exponent[compared]) for scaled, exponent in parts]
    w = w[compared]
    with np.errstate(invalid="ignore"):  # the exponent of the largest |W| and |ET|
        w_top = int(np.frexp(np.max(np.abs(w), initial=0.0))[1])
        top = max(int(np.max(np.frexp(scaled)[1] + exponent, initial=0))
                  for scaled, exponent in parts)
    with np.errstate(under="ignore"):
        return [np.ldexp(w, -w_top) * np.ldexp(scaled, (exponent - top).astype(np.int32))
                for scaled, exponent in parts]


def _overall(time_x: dict, time_y: dict, w: np.ndarray, compared: np.ndarray, higher: bool):
    """Equations (1) and (2): S = sum W ET(C) / sum W ET(C'), G = 1 - 1/S (flipped to
    candidate / baseline when higher is better). Both sums are divided by the same powers of
    2 (exact), so that values near the float64 maximum do not overflow them."""
    speedup, gain = {}, {}
    for time in EXECUTION_TIMES:
        wx, wy = _weighted_times(time_x[time], time_y[time], compared, w)
        num, den = float(np.sum(wx)), float(np.sum(wy))
        if higher:
            num, den = den, num
        s = num / den if compared.any() and den > 0 else float("nan")
        speedup[time] = s
        gain[time] = 1.0 - 1.0 / s if np.isfinite(s) else float("nan")
    return speedup, gain


def _proportion(significant: np.ndarray, compared: np.ndarray, confidence: float,
                precision: float) -> dict[str, Any]:
    """a of b accelerated, with R's prop.test interval and the benchmarks for precision r."""
    from fastperf.stats.proportions import min_benchmarks, proportion_ci

    a, b = int(np.sum(significant & compared)), int(np.sum(compared))
    if b == 0:
        return {"accelerated": 0, "compared": 0, "proportion": float("nan"),
                "ci_low": float("nan"), "ci_high": float("nan"), "ci_valid": False,
                "min_benchmarks": None}
    ci = proportion_ci(a, b, confidence=confidence, method="prop.test")
    return {"accelerated": a, "compared": b, "proportion": a / b, "ci_low": float(ci.low),
            "ci_high": float(ci.high), "ci_valid": bool(ci.valid),
            "min_benchmarks": int(min_benchmarks(a / b, precision, confidence))}


def _messages(keys: pa.Table, notes: np.ndarray, status: np.ndarray, compared: np.ndarray,
              ks_messages: list[str], summary: dict) -> tuple[list[str], list[str]]:
    """The warning and error files: one line per benchmark with a note / not compared."""
    noted, failed = np.flatnonzero(notes != ""), np.flatnonzero(~compared)

    def names(rows: np.ndarray) -> list[str]:  # only the benchmarks reported
        return [", ".join(format_cell(v) for v in row.values())
                for row in keys.take(pa.array(rows, pa.int64())).to_pylist()]

    warnings = [f"{name}: {note}" for name, note in zip(names(noted), notes[noted])]
    warnings += ks_messages
    if summary["dropped"]:
        warnings.append(f"{summary['dropped']} null/NaN values dropped (see n_dropped_baseline, "
                        "n_dropped_candidate)")
    for protocol in ("mean", "median"):
        p = summary[protocol]
        if p["compared"] and not p["ci_valid"]:
            warnings.append(f"the proportion interval of the {protocol} may not be accurate: "
                            "the validity condition a(1 - a/b) > 5 is not satisfied")
    errors = [f"{name}: {reason}: not compared" for name, reason in zip(names(failed), status[failed])]
    return warnings, errors


def _ks_messages(per_chunk: list[str]) -> list[str]:
    """The Kolmogorov-Smirnov fallback messages of every chunk, one per kind with the counts of
    pairs added up (each chunk's messages are on its first row, one per line)."""
    templates: dict[str, int] = {}
    for text in per_chunk:
        for line in text.split("\n") if text else ():
            match = _COUNT.search(line)
            template = line if match is None else line[:match.start()] + "{}" + line[match.end():]
            templates[template] = templates.get(template, 0) + (int(match.group()) if match else 0)
    # one chunk (in memory): its messages as they are; several: each kind once, in the order
    # its first benchmark comes (with the protocol's centred "auto" test only the "exact
    # p-value unsuccessful" kind can occur)
    return [t.replace("{}", str(n), 1) if "{}" in t else t for t, n in templates.items()]


def _check_variants_found(rows: pa.Table, plan: dict) -> None:
    """When the plan could not look for the variants (a column all null in a dataset's key
    table), a variant that no row has is an error here, listing the variants seen."""
    for side in SIDES:
        seen = (rows.column(f"n_{side}").to_numpy().sum()
                + rows.column(f"n_dropped_{side}").to_numpy().sum())
        if not seen:
            present = dict.fromkeys(v for chunk in rows.column("__variants").to_pylist()
                                    for v in chunk)
            raise InputError(f"variant {plan[side]!r} not found; the {plan['variant']!r} column "
                             f"holds [{', '.join(present)}]")


def speedup_finish(rows: pa.Table, plan: dict, info: dict) -> SpeedupTestResult:
    """The result of `speedup_test` from its per-benchmark rows (`fastperf.data.chunked`).

    Parameters
    ----------
    rows : pyarrow.Table
        `fastperf.protocols.speedup.speedup_stage` rows of every benchmark, in output order.
    plan : dict
        `fastperf.protocols.speedup.speedup_plan`.
    info : dict
        ``input_rows``.

    Returns
    -------
    SpeedupTestResult
        The per-benchmark table without its hidden columns, the summary (overall speedups and
        gains, proportions of accelerated benchmarks), the warnings and the errors.

    Notes
    -----
    Equations (1) and (2) and section 4 of Touati, Worms & Briais (2013), seed 002: the
    overall speedup S = sum W ET(C) / sum W ET(C') and gain G = 1 - 1/S over the compared
    benchmarks, and a/b accelerated with R's ``prop.test`` interval.
    """
    if not plan["variants_checked"]:
        _check_variants_found(rows, plan)

    def column(name: str) -> np.ndarray:
        return rows.column(name).to_numpy(zero_copy_only=False)

    n1, n2 = column("n_baseline"), column("n_candidate")
    compared = column("__compared")
    exponent = column("__exponent")
    time_x, time_y = ({"mean": (column(f"__mean_{side}"), exponent),
                       "median": column(f"__median_{side}"), "min": column(f"__min_{side}")}
                      for side in SIDES)
    overall_speedup, overall_gain = _overall(time_x, time_y, column("__weight"), compared,
                                             plan["higher_is_better"])
    confidence, precision = plan["proportion_confidence"], plan["precision"]
    summary = {
        "function": "speedup_test", "baseline": plan["baseline"],
        "candidate": plan["candidate"], "alpha": plan["alpha"],
        "higher_is_better": plan["higher_is_better"], "large_sample": plan["large_sample"],
        "median_method": plan["median_method"], "benchmarks": len(n1),
        "benchmarks_compared": int(compared.sum()),
        "missing_baseline": int((n1 == 0).sum()), "missing_candidate": int((n2 == 0).sum()),
        "dropped": int(column("n_dropped_baseline").sum() + column("n_dropped_candidate").sum()),
        "weights": plan["weights_label"],
        "overall_speedup": overall_speedup, "overall_gain": overall_gain,
        "proportion_confidence": confidence, "precision": precision,
        "mean": _proportion(column("mean_significant"), compared, confidence, precision),
        "median": _proportion(column("median_significant"), compared, confidence, precision),
    }
    table = visible(rows)
    ks_messages = _ks_messages([m for m in column("__ks_messages") if m])
    warnings, errors = _messages(table.select(plan["keys"]), column("warnings"),
                                 column("status"), compared, ks_messages, summary)
    return SpeedupTestResult(table, summary, warnings, errors)
