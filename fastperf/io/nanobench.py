"""nanobench JSON (``ankerl::nanobench::templates::json()`` rendered with ``render``) and its
CSV summary (``templates::csv()``).

Layout::

    {"results": [{"title", "name", "unit", "batch", "complexityN", "epochs", "clockResolution",
                  "clockResolutionMultiple", "maxEpochTime", "minEpochTime",
                  "minEpochIterations", "epochIterations", "warmup", "relative",
                  "median(elapsed)", "medianAbsolutePercentError(elapsed)", ..., "totalTime",
                  "measurements": [{"iterations", "elapsed", "pagefaults", "cpucycles",
                                    "contextswitches", "instructions",
                                    "branchinstructions", "branchmisses"}, ...]}, ...]}

One ``measurements`` entry per epoch. nanobench stores every per-epoch figure already divided
by the epoch's iteration count (``Result::add``: ``totalElapsed / iters``): ``elapsed`` is
seconds per iteration, the counters are per iteration. The performance counters appear only
where nanobench could read them (Linux perf events).

CSV (``templates::csv()``): a quoted header, then one ``;``-separated line per benchmark::

    "title";"name";"unit";"batch";"elapsed";"error %";"instructions";"branches";"branch misses";"total"

``elapsed``, ``instructions``, ``branches`` and ``branch misses`` are medians over the epochs
(per iteration), ``error %`` is the median absolute percentage error of ``elapsed`` written as
a fraction, ``total`` the benchmark's total time in seconds. The number of epochs is not
written: a summary without ``n``.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import float_column, int_column, is_out_of_range, shown
from fastperf.io.common import add_config, tool_table
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_nanobench", "read_nanobench", "looks_like_nanobench_csv",
           "read_nanobench_csv", "COUNTERS", "CSV_HEADER"]

KIND = "nanobench"
#: Per-iteration performance counters of a measurement, kept as float64 columns.
COUNTERS = ("pagefaults", "cpucycles", "contextswitches", "instructions", "branchinstructions",
            "branchmisses")
#: Keys of a result object that only nanobench writes (a hyperfine result has none of them).
_RESULT_KEYS = ("clockResolution", "clockResolutionMultiple", "complexityN", "epochs",
                "minEpochIterations", "maxEpochTime", "median(elapsed)")
#: The header line of nanobench's CSV template, as it writes it.
CSV_HEADER = ('"title";"name";"unit";"batch";"elapsed";"error %";"instructions";"branches";'
              '"branch misses";"total"')


def looks_like_nanobench(data: Any) -> bool:
    """True when it is an object whose ``results`` list has an entry with a ``measurements`` list
    and one of nanobench's own keys (``clockResolution``, ``complexityN``, ``epochs``, ...), and no
    entry has hyperfine's ``command``. An empty ``results`` list is not claimed (hyperfine writes
    that too).

    Format: nanobench's ``templates::json()`` in src/include/nanobench.h
    (github.com/martinus/nanobench).
    """
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return False
    results = data["results"]
    if any(isinstance(r, dict) and "command" in r for r in results):
        return False
    return any(isinstance(r, dict) and isinstance(r.get("measurements"), list)
               and any(key in r for key in _RESULT_KEYS) for r in results)


def read_nanobench(path: Path, data: Any) -> pa.Table:
    """Every epoch of every benchmark as one row: ``elapsed``, seconds per iteration.

    ``benchmark`` is the result's ``name``; ``run`` numbers the epochs of a benchmark (a
    benchmark run twice under the same title continues the numbering). ``value`` is the
    epoch's ``elapsed`` as stored, seconds per iteration (nanobench divides the epoch's time by
    its iterations before writing it), unit ``"s"``; nanobench's own figure per ``unit``
    (``ns/byte``, ...) is ``value / batch``.

    Extra columns: ``iterations`` (int64, the epoch's iterations), ``batch`` (float64) and
    ``batch_unit`` (nanobench's ``unit``: ``op``, ``byte``, ...), then the per-iteration
    counters `COUNTERS` (float64, null where not recorded). Configuration columns: ``title``
    (the table a benchmark belongs to) when some result has one, and ``complexityN`` (as text)
    when some result sets it (not -1): benchmarks measured at several ``complexityN`` share a
    name.

    Refuses (InputError) a document that is no nanobench JSON, one without results or measurements,
    a result without a name or a ``measurements`` list, or a value that is no number.

    Format: nanobench's JSON template (``templates::json()``) and ``Result::add`` in
    src/include/nanobench.h (github.com/martinus/nanobench): ``elapsed`` = total epoch time /
    iterations.
    """
    if not looks_like_nanobench(data):
        raise InputError(f"{path}: not a nanobench JSON file (no 'results' with 'measurements' "
                         "and nanobench's keys)")
    names: list[str] = []
    runs: list[int] = []
    values: list[Any] = []
    iterations: list[Any] = []
    batch: list[Any] = []
    batch_unit: list[Any] = []
    counters: dict[str, list[Any]] = {c: [] for c in COUNTERS}
    titles: list[Any] = []
    complexity: list[Any] = []
    seen: dict[tuple[Any, str, Any], int] = {}
    for i, result in enumerate(data["results"]):
        if not isinstance(result, dict):
            raise InputError(f"{path}: malformed nanobench file: results[{i}] is not an object")
        name = result.get("name")
        measurements = result.get("measurements")
        if not isinstance(name, str):
            raise InputError(f"{path}: malformed nanobench file: results[{i}] has no 'name'")
        if not isinstance(measurements, list):
            raise InputError(f"{path}: malformed nanobench file: benchmark {name!r} has no "
                             "'measurements' list")
        title = result.get("title")
        title = None if title is None else str(title)
        n = result.get("complexityN")
        n_text = None if n is None or n == -1 else str(n)
        key = (title, name, n_text)
        start = seen.get(key, 0)
        seen[key] = start + len(measurements)
        for j, m in enumerate(measurements):
            if not isinstance(m, dict):
                raise InputError(f"{path}: malformed nanobench file: benchmark {name!r}: a "
                                 "measurement is not an object")
            names.append(name)
            runs.append(start + j)
            values.append(m.get("elapsed"))
            iterations.append(m.get("iterations"))
            batch.append(result.get("batch"))
            batch_unit.append(result.get("unit"))
            for c in COUNTERS:
                counters[c].append(m.get(c))
            titles.append(title)
            complexity.append(n_text)
    if not names:
        raise InputError(f"{path}: the nanobench file holds no measurements")
    where = str(path)
    extra: dict[str, pa.Array] = {
        "iterations": int_column(iterations, where=where, names=names, field="iterations",
                                 kind=KIND),
        "batch": float_column(batch, where=where, names=names, field="batch", kind=KIND),
        "batch_unit": pa.array([None if u is None else str(u) for u in batch_unit], pa.string()),
    }
    for c in COUNTERS:
        extra[c] = float_column(counters[c], where=where, names=names, field=c, kind=KIND)
    table = tool_table(names, values, run=runs, unit="s", extra=extra, where=path, kind=KIND,
                       value_field="elapsed")
    config: dict[str, pa.Array] = {}
    if any(t is not None for t in titles):
        config["title"] = pa.array(titles, pa.string())
    if any(c is not None for c in complexity):
        config["complexityN"] = pa.array(complexity, pa.string())
    return add_config(table, config)


def looks_like_nanobench_csv(text: str) -> bool:
    """True when the first non-blank line of `text` is nanobench's CSV header.

    Format: nanobench's ``templates::csv()`` in src/include/nanobench.h
    (github.com/martinus/nanobench).
    """
    first = text.lstrip("\ufeff \t\r\n").split("\n", 1)[0].strip()
    return first == CSV_HEADER


def _csv_number(token: str, where: str, line: int, field: str) -> float | None:
    token = token.strip()
    if not token:
        return None
    try:
        value = float(token)
    except ValueError:
        raise InputError(f"{where}:{line}: malformed nanobench CSV file: {field} {shown(token)} "
                         "is not a number") from None
    if is_out_of_range(token, value):
        raise InputError(f"{where}:{line}: {field} {shown(token)} is beyond the float64 range "
                         "(about 1.8e308)")
    return None if math.isnan(value) else value


def read_nanobench_csv(path: Path, text: str) -> pa.Table:
    """nanobench's CSV summary: one summary row per benchmark, the median time per iteration.

    ``benchmark`` is the ``name``; ``median`` is ``elapsed`` (the median over the epochs of
    seconds per iteration), unit ``"s"``; ``n``, ``mean``, ``sd``, ``min``, ``max`` and ``iqr``
    are null (the file does not give them), so this summary allows no test: read nanobench's
    JSON for the epochs. Extra columns: ``batch`` (float64), ``batch_unit`` (nanobench's
    ``unit``), ``mdape`` (``error %``: the median absolute percentage error of the epochs, as a
    fraction), the median counters per iteration ``instructions``, ``branchinstructions``
    (``branches``) and ``branchmisses`` (``branch misses``), and ``total`` (seconds spent);
    configuration column ``title``.

    Refuses (InputError) a text without nanobench's CSV header, without benchmark lines, a line
    without the ten fields, or a field that is no number, naming the file and the line.

    Format: nanobench's ``templates::csv()`` in src/include/nanobench.h
    (github.com/martinus/nanobench): ``{{median(elapsed)}}``,
    ``{{medianAbsolutePercentError(elapsed)}}``, ``{{sumProduct(iterations, elapsed)}}``.
    """
    where = str(path)
    if not looks_like_nanobench_csv(text):
        raise InputError(f"{where}: not a nanobench CSV file (the first line is not "
                         f"{CSV_HEADER})")
    lines = text.lstrip("\ufeff \t\r\n").splitlines()
    names: list[str] = []
    medians: list[float | None] = []
    titles: list[str] = []
    columns: dict[str, list[float | None]] = {
        "batch": [], "mdape": [], "instructions": [], "branchinstructions": [],
        "branchmisses": [], "total": []}
    units: list[str] = []
    fields = ("batch", "elapsed", "mdape", "instructions", "branchinstructions",
              "branchmisses", "total")
    for number, row in enumerate(csv.reader(io.StringIO("\n".join(lines[1:])), delimiter=";"),
                                 start=2):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) != 10:
            raise InputError(f"{where}:{number}: malformed nanobench CSV file: {len(row)} "
                             "fields, expected 10")
        title, name, unit = row[0], row[1], row[2]
        values = {f: _csv_number(t, where, number, f) for f, t in zip(fields, row[3:])}
        names.append(name)
        titles.append(title)
        units.append(unit)
        medians.append(values.pop("elapsed"))
        for key, value in values.items():
            columns[key].append(value)
    if not names:
        raise InputError(f"{where}: the nanobench CSV file holds no benchmark lines")
    extra: dict[str, pa.Array] = {"batch": pa.array(columns.pop("batch"), pa.float64()),
                                  "batch_unit": pa.array(units, pa.string())}
    for key, values in columns.items():
        extra[key] = pa.array(values, pa.float64())
    table = summary_table(names, unit="s", statistics={"median": medians}, extra=extra,
                          where=path, kind=KIND)
    return add_config(table, {"title": pa.array(titles, pa.string())})
