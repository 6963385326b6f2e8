"""cargo-criterion ``--message-format=json`` output (criterion.rs results as JSON lines).

Layout: one JSON object per line; ``{"reason": "benchmark-complete", "id", "report_directory",
"iteration_count": [n, ...], "measured_values": [total time per sample, ...], "unit": "ns",
"throughput": [...], "typical", "mean", "median", "median_abs_dev", "slope", "change"}`` for
every benchmark, ``{"reason": "group-complete", "group_name", "benchmarks", ...}`` after each
group. cargo's own lines (compiler messages, text) may be mixed in.

Also recognised here, to be refused with advice: criterion's console output (``cargo bench``
with criterion), whose result lines ``NAME  time:   [low estimate high]`` hold no samples.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import load_json_bytes, shown
from fastperf.io.common import tool_table
from fastperf.io.criterion import per_iteration_values

__all__ = ["looks_like_criterion_messages", "read_criterion_messages",
           "looks_like_criterion_messages_text", "read_criterion_messages_text",
           "looks_like_criterion_console", "read_criterion_console", "CRITERION_CONSOLE_LINE",
           "CRITERION_CONSOLE_ADVICE"]

#: Multipliers to nanoseconds of the units cargo-criterion writes.
_TO_NS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}


def _is_message(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("reason") in ("benchmark-complete",
                                                               "group-complete")


def looks_like_criterion_messages(data: Any) -> bool:
    """True when it is (or the list holds) an object whose ``reason`` is ``benchmark-complete`` or
    ``group-complete``.

    Format: cargo-criterion, src/message_formats/json.rs.
    """
    if isinstance(data, list):
        return any(_is_message(entry) for entry in data)
    return _is_message(data)


def read_criterion_messages(path: Path, data: Any) -> pa.Table:
    """Every measured sample of every ``benchmark-complete`` message as one row.

    ``value`` is ``measured_values[i] / iteration_count[i]`` converted to nanoseconds from the
    message's ``unit`` (``ps``, ``ns``, ``us``, ``ms``, ``s``), so ``unit`` is ``ns``; ``run``
    is the sample's index, ``benchmark`` the message's ``id``; the extra column ``iterations``
    (int64) holds ``iteration_count[i]``. Other messages (``group-complete``) are skipped.

    Refuses (InputError) no ``benchmark-complete`` message, one without ``id``, without samples or
    with an unknown unit, counts and values of different lengths.

    Format: cargo-criterion, src/message_formats/json.rs (``BenchmarkComplete``).
    """
    entries = data if isinstance(data, list) else [data]
    names: list[str] = []
    runs: list[int] = []
    values: list[float | None] = []
    counts: list[int | None] = []
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("reason") != "benchmark-complete":
            continue
        name = entry.get("id")
        if not isinstance(name, str):
            raise InputError(f"{path}: a criterion benchmark-complete message has no 'id'")
        iters, measured = entry.get("iteration_count"), entry.get("measured_values")
        if not isinstance(iters, list) or not isinstance(measured, list) or not measured:
            raise InputError(f"{path}: criterion benchmark {shown(name)} has no samples "
                             "('iteration_count' and 'measured_values')")
        unit = entry.get("unit", "ns")
        if unit not in _TO_NS:
            raise InputError(f"{path}: criterion benchmark {shown(name)}: unknown unit "
                             f"{shown(unit)} (known: {sorted(_TO_NS)})")
        per_iter, its = per_iteration_values(path, name, iters, measured, _TO_NS[unit])
        names.extend([name] * len(per_iter))
        runs.extend(range(len(per_iter)))
        values.extend(per_iter)
        counts.extend(its)
    if not names:
        raise InputError(f"{path}: the criterion messages hold no benchmark-complete message")
    return tool_table(names, values, run=runs, unit="ns",
                      extra={"iterations": pa.array(counts, pa.int64())},
                      where=path, kind="criterion", value_field="measured_values")


def looks_like_criterion_messages_text(text: str) -> bool:
    """True when the first JSON line of `text` is a cargo-criterion message.

    Format: cargo-criterion, src/message_formats/json.rs.
    """
    if '"reason"' not in text:
        return False
    for line in text.splitlines()[:50]:
        line = line.strip()
        if line.startswith("{"):
            try:
                if _is_message(json.loads(line)):
                    return True
            except (ValueError, RecursionError):
                continue
    return False


def read_criterion_messages_text(path: Path, text: str) -> pa.Table:
    """`read_criterion_messages` on the JSON lines of `text` (other lines are skipped).

    Refuses (InputError) a line starting with ``{`` that is not valid JSON (naming the line), or as
    `read_criterion_messages`.

    Format: cargo-criterion, src/message_formats/json.rs.
    """
    messages = []
    for line_no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line.startswith("{"):
            continue
        messages.append(load_json_bytes(line.encode("utf-8", "surrogatepass"),
                                        Path(f"{path}:{line_no}")))
    return read_criterion_messages(path, messages)


#: The estimate of a result line of criterion's console output:
#: ``name  time:   [1.2 ns 1.3 ns 1.4 ns]`` (no nested quantifiers: linear on any text).
CRITERION_CONSOLE_LINE = re.compile(
    r"[ \t]time:[ \t]+\[[-+0-9.eE]+ [^\s\]0-9]+ [-+0-9.eE]+ [^\s\]0-9]+ [-+0-9.eE]+ "
    r"[^\s\]0-9]+\]")
CRITERION_CONSOLE_ADVICE = (
    "criterion's console output holds only a point estimate and its confidence interval per "
    "benchmark, no samples and no standard deviation; read the target/criterion directory "
    "(or a <benchmark>/new/sample.json in it), or cargo-criterion's --message-format=json "
    "output, instead"
)


def looks_like_criterion_console(text: str) -> bool:
    """True when `text` holds criterion's console result lines (``time:   [lo est hi]``).

    Format: criterion.rs, src/report.rs (``CliReport``: the ``time:`` line).
    """
    return CRITERION_CONSOLE_LINE.search(text) is not None


def read_criterion_console(path: Path, text: str) -> pa.Table:
    """Refuse criterion's console output, saying what to read instead.

    Refuses (InputError) always: `CRITERION_CONSOLE_ADVICE`, with the count of result lines found.

    Format: criterion.rs, src/report.rs (``CliReport``).
    """
    found = len(CRITERION_CONSOLE_LINE.findall(text))
    raise InputError(f"{path}: looks like criterion.rs console output ({found} 'time: [...]' "
                     f"lines); {CRITERION_CONSOLE_ADVICE}")
