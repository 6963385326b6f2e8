"""Google Benchmark console output (the default ``ConsoleReporter``, ``--benchmark_format=console``).

Layout::

    2024-05-01T10:00:00+00:00                    (older versions: 2019-11-14 09:43:59)
    Running ./bench
    Run on (8 X 2600 MHz CPU s)
    CPU Caches:
      L1 Data 32 KiB (x4)
    Load Average: 1.10, 0.90, 0.80
    ***WARNING*** CPU scaling is enabled, the benchmark real time measurements may be noisy ...
    ***WARNING*** Library was built as DEBUG. Timings may be affected.
    -------------------------------------------------------------------
    Benchmark                   Time             CPU   Iterations UserCounters...
    -------------------------------------------------------------------
    BM_Copy/8                1234 ns         1230 ns       567890 bytes_per_second=6.2G/s
    BM_Copy/8                1240 ns         1236 ns       567890 bytes_per_second=6.1G/s
    BM_Copy/8_mean           1237 ns         1233 ns            2 bytes_per_second=6.15G/s
    BM_Copy/8_median ...  BM_Copy/8_stddev ...  BM_Copy/8_cv      0.34 %   0.34 %   2
    BM_Fail                ERROR OCCURRED: 'message'

With ``--benchmark_repetitions=N`` every repetition is a line, followed by the aggregate lines
(``_mean``, ``_median``, ``_stddev``, ``_cv``, custom statistics; ``_BigO`` and ``_RMS`` for
complexity fits). Several runs may be pasted into one file, each with its own header.
"""
from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import int_column, is_out_of_range, shown
from fastperf.io.common import add_config, tool_table
from fastperf.io.google_benchmark import AGGREGATE_ONLY_ADVICE, AGGREGATES, METRICS, TIME_UNITS

__all__ = ["looks_like_google_benchmark_console", "read_google_benchmark_console"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_HEADER = re.compile(r"^Benchmark\s+Time\s+CPU\s+Iterations\b")
_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_ROW = re.compile(rf"^(\S+)\s+({_NUMBER})\s*(ns|us|ms|s|%)\s+({_NUMBER})\s*(ns|us|ms|s|%)"
                  rf"(?:\s+([0-9]+))?(?:\s+(.*))?$")
_FAILED = re.compile(r"^(\S+)\s+(ERROR OCCURRED|SKIPPED)\b")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}\S*$")
_RUN_ON = re.compile(r"^Run on \((\d+) X ([0-9.]+) MHz CPUs?(?: s)?\)")


def _lines(text: str):
    for raw in text.split("\n"):
        yield _ANSI.sub("", raw).rstrip("\r").rstrip()


def looks_like_google_benchmark_console(text: str) -> bool:
    """True when a line (colour codes removed) starts ``Benchmark  Time  CPU  Iterations``.

    Format: Google Benchmark's console reporter (github.com/google/benchmark,
    src/console_reporter.cc, ``PrintHeader``).
    """
    return any(_HEADER.match(line) for line in _lines(text))


def read_google_benchmark_console(path: Path, text: str, *,
                                  metric: str = "real_time") -> pa.Table:
    """Every benchmark line of the console table (aggregates skipped) as one row, in seconds.

    Mirrors `fastperf.io.google_benchmark.read_google_benchmark` (the JSON reader), so that the
    console and JSON output of one run read the same: ``benchmark`` is the name as printed,
    ``value`` is the ``Time`` column (``real_time``) or, with ``metric="cpu_time"``, the
    ``CPU`` column, converted from its unit (``ns``, ``us``, ``ms``, ``s``) to seconds, unit
    ``"s"``; the extra column ``iterations`` (int64) is the ``Iterations`` column. ``run`` is
    the line's occurrence index within its benchmark in its table (the repetition index with
    ``--benchmark_repetitions``). Aggregate lines (names ending ``_mean``, ``_median``,
    ``_stddev``, ``_cv``, ``_BigO``, ``_RMS``, and any other ``_<name>`` of the benchmark just
    repeated once such an aggregate has followed it) are not runs and are skipped. Lines
    ``ERROR OCCURRED: ...`` and ``SKIPPED: ...`` get a null value and are kept. User counters
    (``bytes_per_second=...``) are not read, as in the JSON reader. Configuration columns, from
    the header lines above each table (as JSON's ``context``): ``date``, ``executable``
    (``Running ...``), ``num_cpus`` and ``mhz_per_cpu`` (``Run on (...)``),
    ``cpu_scaling_enabled`` (``"true"`` after the CPU-scaling warning) and
    ``library_build_type`` (``"debug"`` after the DEBUG warning); each table of a file with
    several takes the header lines printed since the previous table's last benchmark line
    (a table header without new header lines continues the previous table: its runs count on).

    Refuses (InputError) an unknown metric, no table header, no benchmark line, aggregate lines
    only, or a time in an unknown unit.

    Format: Google Benchmark's console reporter (github.com/google/benchmark,
    src/console_reporter.cc) and the context it prints (src/reporter.cc, ``PrintBasicContext``).
    """
    if metric not in METRICS:
        raise InputError(f"metric={metric!r} is not a Google Benchmark time; use one of "
                         f"{list(METRICS)}")
    names: list[str] = []
    values: list[float | None] = []
    runs: list[int] = []
    iterations: list[int | None] = []
    row_block: list[int] = []
    contexts: list[dict[str, str]] = [{}]
    context: dict[str, str] = contexts[0]
    seen: dict[tuple[int, str], int] = {}
    block, in_table, block_has_rows, header_seen, aggregates = 0, False, False, False, 0
    last_name, in_tail = "", False

    def new_block() -> None:
        nonlocal block, block_has_rows, context, last_name, in_tail
        contexts.append({})
        block += 1
        block_has_rows, last_name, in_tail = False, "", False
        context = contexts[block]

    for number, line in enumerate(_lines(text), 1):
        stripped = line.strip()
        if _HEADER.match(stripped):
            in_table = header_seen = True
            continue
        items = _context_items(stripped)
        if items:
            if block_has_rows:
                new_block()
            in_table = False
            context.update(items)
            continue
        if not in_table or not stripped or set(stripped) <= {"-"}:
            continue
        failed = _FAILED.match(stripped)
        match = None if failed else _ROW.match(stripped)
        if failed is None and match is None:
            continue
        name = (failed or match).group(1)
        base, _, suffix = name.rpartition("_")
        if match is not None and base and (
                suffix in AGGREGATES or (in_tail and base == last_name)):
            in_tail = in_tail or base == last_name
            aggregates += 1
            continue
        in_tail, last_name = False, name
        value, count = None, None
        if match is not None:
            column = 2 if metric == "real_time" else 4
            unit = match.group(column + 1)
            if unit not in TIME_UNITS:
                raise InputError(f"{path}:{number}: Google Benchmark line {shown(name)}: a "
                                 f"time in {unit!r}, none of {list(TIME_UNITS)}")
            token = match.group(column)
            value = float(token)
            if is_out_of_range(token, value):
                raise InputError(f"{path}:{number}: Google Benchmark line {shown(name)}: the "
                                 f"time {shown(token)} is beyond the float64 range")
            value *= TIME_UNITS[unit]
            count = int(match.group(6)) if match.group(6) else None
        key = (block, name)
        seen[key] = seen.get(key, 0) + 1
        names.append(name)
        values.append(value)
        runs.append(seen[key] - 1)
        iterations.append(count)
        row_block.append(block)
        block_has_rows = True
    if not header_seen:
        raise InputError(f"{path}: no Google Benchmark console table (a 'Benchmark  Time  CPU  "
                         "Iterations' header line)")
    if not names:
        if aggregates:
            raise InputError(f"{path}: the Google Benchmark output holds only aggregate lines "
                             f"(mean/median/stddev/... of repetitions); {AGGREGATE_ONLY_ADVICE}")
        raise InputError(f"{path}: the Google Benchmark console table holds no benchmark lines")
    counts = int_column(iterations, where=str(path), names=names, field="Iterations",
                        kind="google-benchmark console")
    table = tool_table(names, values, run=runs, unit="s", extra={"iterations": counts},
                       where=path, kind="google-benchmark console", value_field=metric)
    keys: dict[str, None] = {}
    used = sorted(set(row_block))
    for b in used:
        for k in contexts[b]:
            keys.setdefault(k)
    indices = pa.array(row_block, pa.int32())
    columns = {k: pa.array([c.get(k) for c in contexts], pa.string()).take(indices)
               for k in keys}
    return add_config(table, columns)


def _context_items(line: str) -> dict[str, str]:
    """The context entries a header line of the console reporter gives (empty: none)."""
    if _DATE.match(line):
        return {"date": line}
    if line.startswith("Running "):
        return {"executable": line[len("Running "):].strip()}
    match = _RUN_ON.match(line)
    if match:
        return {"num_cpus": match.group(1), "mhz_per_cpu": match.group(2)}
    if line.startswith("***WARNING*** CPU scaling is enabled"):
        return {"cpu_scaling_enabled": "true"}
    if line.startswith("***WARNING*** Library was built as DEBUG"):
        return {"library_build_type": "debug"}
    return {}
