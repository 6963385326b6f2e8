"""JMH JSON results (``java -jar benchmarks.jar -rf json -rff results.json``).

Layout: a JSON array with one object per benchmark run::

    [{"jmhVersion", "benchmark", "mode": "thrpt" | "avgt" | "sample" | "ss", "threads", "forks",
      "jvm", "jvmArgs", "jdkVersion", "vmName", "vmVersion", "warmupIterations", ...,
      "measurementIterations", "measurementTime", "measurementBatchSize",
      "params": {name: "value", ...},                     (only when the benchmark has @Params)
      "primaryMetric": {"score", "scoreError", "scoreConfidence", "scorePercentiles",
                        "scoreUnit",
                        "rawData": [[fork 1 iteration scores], [fork 2 ...], ...]
                        | "rawDataHistogram": [[[[value, count], ...] per iteration] per fork]},
      "secondaryMetrics": {"·gc.alloc.rate": {same shape, always "rawData"}, ...}}, ...]

``rawDataHistogram`` replaces ``rawData`` in sample mode. NaN and infinities are written as the
strings ``"NaN"``, ``"+INF"`` and ``"-INF"``. With ``-Djmh.json.rawData=false`` the raw data
lists are empty: only the summary (score, error, percentiles) is left.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.common import add_config, config_text, tool_table
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_jmh", "read_jmh", "JMH_MODES"]

#: JMH's short mode labels (``Mode.shortLabel``).
JMH_MODES = ("thrpt", "avgt", "sample", "ss")
#: Entries of a benchmark object kept as configuration columns (besides mode, threads, params).
_VM_KEYS = ("jdkVersion", "vmName", "vmVersion", "jvmArgs")
#: The special doubles of JMH's JSON writer (``JSONResultFormat.emit``).
_SPECIAL = {"NaN": None, "+INF": math.inf, "-INF": -math.inf}
#: Most values one histogram may expand to (sample mode), to refuse absurd counts cleanly.
_MAX_SAMPLES = 50_000_000


def looks_like_jmh(data: Any) -> bool:
    """True for a non-empty list whose first element is an object with a string ``benchmark`` and an
    object ``primaryMetric``.

    Format: JMH's JSON result format (github.com/openjdk/jmh,
    jmh-core/src/main/java/org/openjdk/jmh/results/format/JSONResultFormat.java).
    """
    if not isinstance(data, list) or not data:
        return False
    first = data[0]
    return (isinstance(first, dict) and isinstance(first.get("benchmark"), str)
            and isinstance(first.get("primaryMetric"), dict))


def read_jmh(path: Path, data: Any) -> pa.Table:
    """Every measured iteration of every fork (every sample in sample mode) as one row.

    ``benchmark`` is the benchmark's ``benchmark`` (``package.Class.method``) for the primary
    metric, and ``benchmark + ":" + name`` for a secondary metric (as JMH prints it:
    ``...method:·gc.alloc.rate``), each with its own ``scoreUnit`` as ``unit``, written as JMH
    writes it (``ops/s``, ``ops/ms``, ``ns/op``, ``us/op``, ``B/op``, ``MB/sec``, ...); values
    are JMH's scores unchanged (per operation in avgt/sample/ss modes, operations per time unit
    in thrpt mode). ``run`` counts the values of one (benchmark, metric) over its forks in order
    (fork * iterations + iteration when every fork ran every iteration). In sample mode each
    ``[value, count]`` pair of ``rawDataHistogram`` is ``count`` rows of ``value``. Extra
    columns, the levels (docs/data-model.md): ``process`` (the fork: each JMH fork is a JVM of
    its own) and ``iteration`` (the iteration within the fork), int64, from 0; the samples of
    one iteration in sample mode share it. Configuration columns (declared, see
    `fastperf.io.common.add_config`): ``mode``, ``threads``, one ``param_<name>`` per JMH
    ``@Param`` (null where a benchmark has no such param), and ``jdkVersion``, ``vmName``,
    ``vmVersion``, ``jvmArgs`` (joined with ``,``) where the file has them. A score written as
    ``"NaN"`` is a null value; ``"+INF"``/``"-INF"`` are infinities. A secondary metric
    without raw values is left out.

    A file whose primary metrics carry no raw data at all (``-Djmh.json.rawData=false``, or
    files cut down by other tools) is read as a *summary table* (`summary_table`), one row per
    (benchmark, metric): ``mean`` = ``score``; ``min``, ``median``, ``max`` = the ``0.0``,
    ``50.0``, ``100.0`` ``scorePercentiles``; ``n`` = ``forks * measurementIterations``
    outside sample mode (unknown in sample mode, where the score averages every sample) and
    ``sd`` from ``scoreError``, the half-width of JMH's 99.9% Student-t interval:
    ``sd = scoreError * sqrt(n) / t(0.9995, n - 1)`` (null when n < 2 or the error is NaN).

    Refuses (InputError) a document that is no JMH result list, an empty one, an element without a
    benchmark name or primary metric, a metric without a unit, raw data of the wrong shape, or a
    score that is no number; primary metrics with raw data for some benchmarks only.

    Format: JMH's JSON result format (github.com/openjdk/jmh,
    jmh-core/src/main/java/org/openjdk/jmh/results/format/JSONResultFormat.java); the score error is
    ``Statistics.getMeanErrorAt(0.999)`` (jmh-core/.../util/AbstractStatistics.java).
    """
    if not isinstance(data, list):
        raise InputError(f"{path}: not JMH JSON results (a JSON array of benchmark objects)")
    if not data:
        raise InputError(f"{path}: the JMH results hold no benchmarks (an empty JSON array)")
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("benchmark"), str):
            raise InputError(f"{path}: JMH result {i} is not an object with a 'benchmark' name")
        if not isinstance(entry.get("primaryMetric"), dict):
            raise InputError(f"{path}: JMH benchmark {shown(entry['benchmark'])} has no "
                             "'primaryMetric' object")
    raw = [_has_raw(entry["primaryMetric"]) for entry in data]
    if not any(raw):
        return _summaries(path, data)
    if not all(raw):
        missing = [entry["benchmark"] for entry, r in zip(data, raw) if not r][:3]
        raise InputError(f"{path}: looks like JMH JSON with rawData for some benchmarks only "
                         f"(none for {missing}); re-run with -rf json and without "
                         "-Djmh.json.rawData=false")
    rows = _Rows()
    for entry in data:
        name = entry["benchmark"]
        config = _config(entry)
        primary = entry["primaryMetric"]
        unit = _unit(path, name, primary)
        if isinstance(primary.get("rawDataHistogram"), list) and primary["rawDataHistogram"]:
            rows.histogram(path, name, unit, primary["rawDataHistogram"], config)
        else:
            rows.scores(path, name, unit, primary.get("rawData"), config)
        secondary = entry.get("secondaryMetrics") or {}
        if not isinstance(secondary, dict):
            raise InputError(f"{path}: JMH benchmark {shown(name)}: 'secondaryMetrics' is not "
                             "an object")
        for metric, result in secondary.items():
            label = f"{name}:{metric}"
            if not isinstance(result, dict):
                raise InputError(f"{path}: JMH metric {shown(label)} is not an object")
            if _has_raw(result):
                rows.scores(path, label, _unit(path, label, result), result.get("rawData"),
                            config)
    table = tool_table(rows.names, rows.values, run=rows.runs, unit=rows.units,
                       extra={"process": pa.array(rows.forks, pa.int64()),
                              "iteration": pa.array(rows.iterations, pa.int64())},
                       where=path, kind="JMH", value_field="rawData")
    return add_config(table, _config_columns(rows.configs, rows.config_index))


class _Rows:
    """The per-row lists `read_jmh` collects."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.values: list[Any] = []
        self.runs: list[int] = []
        self.units: list[str] = []
        self.forks: list[int] = []
        self.iterations: list[int] = []
        self.configs: list[dict[str, str]] = []
        self.config_index: list[int] = []
        #: (name, configuration) -> the forks and values it has so far: a benchmark listed
        #: twice (two JMH runs concatenated) continues its forks, each a JVM of its own
        self.seen: dict[tuple, tuple[int, int]] = {}

    def _add(self, name: str, unit: str, config: dict[str, str], values: list[Any],
             forks: list[int], iterations: list[int]) -> None:
        self.configs.append(config)
        key = (name, tuple(sorted(config.items())))
        fork_offset, run_offset = self.seen.get(key, (0, 0))
        self.seen[key] = (fork_offset + (max(forks) + 1 if forks else 0),
                          run_offset + len(values))
        self.names.extend([name] * len(values))
        self.values.extend(values)
        self.runs.extend(range(run_offset, run_offset + len(values)))
        self.units.extend([unit] * len(values))
        self.forks.extend(fork + fork_offset for fork in forks)
        self.iterations.extend(iterations)
        self.config_index.extend([len(self.configs) - 1] * len(values))

    def scores(self, path: Path, name: str, unit: str, raw: Any, config: dict[str, str]) -> None:
        """One row per iteration score of ``rawData`` (a list per fork)."""
        if not isinstance(raw, list) or not all(isinstance(f, list) for f in raw):
            raise InputError(f"{path}: JMH metric {shown(name)}: 'rawData' is not a list of "
                             "lists (one per fork)")
        values, forks, iterations = [], [], []
        for fork, scores in enumerate(raw):
            for iteration, score in enumerate(scores):
                values.append(_number(path, name, score, "rawData"))
                forks.append(fork)
                iterations.append(iteration)
        self._add(name, unit, config, values, forks, iterations)

    def histogram(self, path: Path, name: str, unit: str, raw: Any,
                  config: dict[str, str]) -> None:
        """``count`` rows of ``value`` per ``[value, count]`` pair of ``rawDataHistogram``."""
        bad = InputError(f"{path}: JMH metric {shown(name)}: 'rawDataHistogram' is not a list "
                         "(per fork) of lists (per iteration) of [value, count] pairs")
        values: list[np.ndarray] = []
        counts: list[int] = []
        forks: list[int] = []
        iterations: list[int] = []
        total = 0
        for fork, per_fork in enumerate(raw):
            if not isinstance(per_fork, list):
                raise bad
            for iteration, pairs in enumerate(per_fork):
                if not isinstance(pairs, list):
                    raise bad
                for pair in pairs:
                    if not isinstance(pair, list) or len(pair) != 2:
                        raise bad
                    count = pair[1]
                    if isinstance(count, float) and count.is_integer():
                        count = int(count)
                    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                        raise InputError(f"{path}: JMH metric {shown(name)}: the sample count "
                                         f"{shown(pair[1])} is not a whole number >= 0")
                    total += count
                    if total > _MAX_SAMPLES:
                        raise InputError(f"{path}: JMH metric {shown(name)}: the histogram "
                                         f"holds more than {_MAX_SAMPLES} samples")
                    values.append(_number(path, name, pair[0], "rawDataHistogram"))
                    counts.append(count)
                    forks.append(fork)
                    iterations.append(iteration)
        reps = np.asarray(counts, dtype=np.int64)
        expanded = [values[i] for i in np.repeat(np.arange(len(values)), reps)]
        self._add(name, unit, config, expanded,
                  np.repeat(np.asarray(forks, np.int64), reps).tolist(),
                  np.repeat(np.asarray(iterations, np.int64), reps).tolist())


def _has_raw(metric: dict) -> bool:
    """Whether a metric holds raw values (rawData or rawDataHistogram): a non-empty list with a
    non-empty per-fork list, or anything else than a list per fork (read, then refused)."""
    for key in ("rawData", "rawDataHistogram"):
        raw = metric.get(key)
        if isinstance(raw, list) and any(not isinstance(f, list) or f for f in raw):
            return True
    return False


def _number(path: Path, name: str, value: Any, field: str) -> float | None:
    """A JMH double: a JSON number, or ``"NaN"`` (None), ``"+INF"``, ``"-INF"``."""
    if isinstance(value, str) and value in _SPECIAL:
        return _SPECIAL[value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{path}: JMH metric {shown(name)}: {field} {shown(value)} is not a "
                         "number")
    try:
        return float(value)
    except OverflowError:
        raise InputError(f"{path}: JMH metric {shown(name)}: {field} {shown(value)} is beyond "
                         "the float64 range") from None


def _unit(path: Path, name: str, metric: dict) -> str:
    unit = metric.get("scoreUnit")
    if not isinstance(unit, str) or not unit:
        raise InputError(f"{path}: JMH metric {shown(name)} has no 'scoreUnit'")
    return unit


def _config(entry: dict) -> dict[str, str]:
    """The configuration of one benchmark object: mode, threads, params, VM entries."""
    out: dict[str, str] = {}
    for key in ("mode", "threads"):
        text = config_text(entry.get(key))
        if text is not None:
            out[key] = text
    params = entry.get("params")
    if isinstance(params, dict):
        for key, value in params.items():
            text = config_text(value)
            if text is not None:
                out[f"param_{key}"] = text
    for key in _VM_KEYS:
        text = config_text(entry.get(key))
        if text is not None:
            out[key] = text
    return out


def _config_columns(configs: list[dict[str, str]], index: list[int]) -> dict[str, pa.Array]:
    """One string column per configuration key, taken per row from its benchmark object."""
    keys: dict[str, None] = {}
    for config in configs:
        for key in config:
            keys.setdefault(key)
    indices = pa.array(index, pa.int32())
    return {key: pa.array([c.get(key) for c in configs], pa.string()).take(indices)
            for key in keys}


def _summaries(path: Path, data: list) -> pa.Table:
    """The summary table of a JMH file without raw data (see `read_jmh`)."""
    from scipy.stats import t as student_t  # deferred: scipy.stats ~0.5 s, summaries only

    names: list[str] = []
    units: list[str] = []
    stats: dict[str, list[Any]] = {k: [] for k in ("n", "mean", "sd", "min", "median", "max")}
    configs: list[dict[str, str]] = []
    for entry in data:
        config = _config(entry)
        metrics = [(entry["benchmark"], entry["primaryMetric"])]
        secondary = entry.get("secondaryMetrics")
        if isinstance(secondary, dict):
            metrics += [(f"{entry['benchmark']}:{k}", v) for k, v in secondary.items()
                        if isinstance(v, dict)]
        n = None
        forks, iterations = entry.get("forks"), entry.get("measurementIterations")
        if entry.get("mode") != "sample" and all(
                isinstance(v, int) and not isinstance(v, bool) and v > 0
                for v in (forks, iterations)):
            n = max(forks, 1) * iterations
        for name, metric in metrics:
            if "score" not in metric:
                raise InputError(f"{path}: looks like JMH JSON without rawData, and JMH metric "
                                 f"{shown(name)} has no 'score' either")
            names.append(name)
            units.append(_unit(path, name, metric))
            configs.append(config)
            stats["n"].append(n)
            stats["mean"].append(_number(path, name, metric["score"], "score"))
            error = _number(path, name, metric.get("scoreError", "NaN"), "scoreError")
            sd = None
            if n is not None and n >= 2 and error is not None and math.isfinite(error):
                sd = error * math.sqrt(n) / float(student_t.ppf(0.9995, n - 1))
            stats["sd"].append(sd)
            percentiles = metric.get("scorePercentiles")
            percentiles = percentiles if isinstance(percentiles, dict) else {}
            for key, stat in (("0.0", "min"), ("50.0", "median"), ("100.0", "max")):
                value = percentiles.get(key)
                stats[stat].append(None if value is None else
                                   _number(path, name, value, f"scorePercentiles[{key}]"))
    table = summary_table(names, unit=units, statistics=stats, where=path, kind="JMH")
    return add_config(table, _config_columns(configs, list(range(len(configs)))))
