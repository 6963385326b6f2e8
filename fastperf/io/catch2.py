"""Catch2 benchmark results: the XML reporter (``-r xml``) and the console table.

XML layout (Catch2 v2 root ``<Catch name=...>``, v3 ``<Catch2TestRun name=...>``)::

    <TestCase name="Fibonacci" ...>
      <BenchmarkResults name="Fibonacci 20" samples="100" resamples="100000" iterations="2"
                        clockResolution="..." estimatedDuration="...">
        <!-- All values in nano seconds -->
        <mean value="..." lowerBound="..." upperBound="..." ci="0.95"/>
        <standardDeviation value="..." lowerBound="..." upperBound="..." ci="0.95"/>
        <outliers variance="..." lowMild="..." lowSevere="..." highMild="..." highSevere="..."/>
      </BenchmarkResults>                 (or <failed message="..."/> inside it)
    </TestCase>

The XML holds no samples, whatever ``--benchmark-samples`` says (that sets their count only).

Console layout: per test case a header between lines of ``-``, then the table::

    benchmark name                       samples       iterations    estimated
                                         mean          low mean      high mean
                                         std dev       low std dev   high std dev
    -------------------------------------------------------------------------------
    Fibonacci 20                                   100             2     8.3712 ms
                                              41.731 us      41.25 us     42.622 us
                                               3.256 us      2.163 us      5.353 us

(``est run time`` instead of ``estimated`` in Catch2 2.x; units ``ns``, ``us``, ``ms``,
``s``; a name too long for its column continues on the lines above the one with the numbers.)
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.common import add_config
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_catch2_xml", "read_catch2_xml", "looks_like_catch2_console",
           "read_catch2_console", "population_to_sample_sd"]

_XML_ROOT = re.compile(r"<(?:Catch2TestRun|Catch)[\s>]")
_UNITS_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}
_UNIT = r"(?:ns|us|µs|μs|ms|s|m)"
_NUM = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf|-inf|nan|-nan"
_HEADER = re.compile(r"^benchmark name\s+samples\s+iterations\s+(?:estimated|est run time)\s*$",
                     re.MULTILINE)
_ROW = re.compile(r"^(?P<name>.*?\S)?\s+(?P<samples>[0-9]+)\s+(?P<iters>[0-9]+)\s+"
                  r"(?P<est>" + _NUM + r") (?P<unit>" + _UNIT + r")\s*$")
_STATS = re.compile(r"^\s+(?P<v>" + _NUM + r") (?P<u>" + _UNIT + r")\s+(?P<lo>" + _NUM +
                    r") (?P<lu>" + _UNIT + r")\s+(?P<hi>" + _NUM + r") (?P<hu>" + _UNIT +
                    r")\s*$")
_DASHES = re.compile(r"^-{20,}\s*$")
_DOTS = re.compile(r"^\.{20,}\s*$")
_FAILED = re.compile(r"^\s*Benchmark failed \((?P<why>.*)\)\s*$")


def population_to_sample_sd(sd: float | None, n: int | None) -> float | None:
    """The sample standard deviation from the population one Catch2 reports.

    Parameters
    ----------
    sd : float or None
        Standard deviation with divisor n.
    n : int or None
        Number of samples.

    Returns
    -------
    float or None
        ``sd * sqrt(n / (n - 1))``; None when `sd` or `n` is None or ``n < 2``.

    Notes
    -----
    s = sigma_n * sqrt(n / (n - 1)). Catch2's ``standard_deviation``
    (src/catch2/benchmark/detail/catch_stats.cpp) divides the sum of squares by n.
    """
    if sd is None or n is None or n < 2 or not math.isfinite(sd):
        return None
    return sd * math.sqrt(n / (n - 1))


def looks_like_catch2_xml(text: str) -> bool:
    """True for the start of a Catch2 XML report.

    Format: catchorg/Catch2, src/catch2/reporters/catch_reporter_xml.cpp.
    """
    head = text.lstrip("\ufeff \t\r\n")[:4096]
    return head.startswith("<") and _XML_ROOT.search(head) is not None


def _attr_float(element: ET.Element | None, name: str, path: Path, bench: str) -> float | None:
    if element is None or element.get(name) is None:
        return None
    raw = element.get(name, "")
    try:
        value = float(raw)
    except ValueError:
        raise InputError(f"{path}: malformed Catch2 XML: benchmark {shown(bench)}: {name}="
                         f"{shown(raw)} is not a number") from None
    if math.isinf(value) and raw.strip().lstrip("+-").lower() not in ("inf", "infinity"):
        raise InputError(f"{path}: Catch2 benchmark {shown(bench)}: {name}={shown(raw)} is "
                         "beyond the float64 range")
    return value


def _attr_int(element: ET.Element, name: str, path: Path, bench: str) -> int | None:
    raw = element.get(name)
    if raw is None:
        return None
    if not re.fullmatch(r"\s*[0-9]{1,18}\s*", raw):
        raise InputError(f"{path}: malformed Catch2 XML: benchmark {shown(bench)}: {name}="
                         f"{shown(raw)} is not a whole number")
    return int(raw)


def read_catch2_xml(path: Path, text: str) -> pa.Table:
    """Every ``<BenchmarkResults>`` of a Catch2 XML report as one row of a *summary table*,
    nanoseconds.

    ``benchmark`` is the benchmark's ``name``; ``n`` its ``samples``; ``mean`` the ``<mean
    value>``; ``sd`` the ``<standardDeviation value>`` converted to the sample standard
    deviation (Catch2 divides by n: ``sd * sqrt(n / (n - 1))``, see
    `population_to_sample_sd`). Extra columns: ``iterations`` (int64, iterations per sample),
    ``mean_lb``, ``mean_ub`` (the bootstrap interval of the mean, ns), ``error`` (the message of
    a ``<failed>`` benchmark, whose statistics are null; null otherwise); the configuration
    column ``test_case`` holds the enclosing ``<TestCase name>`` (benchmarks of two test cases
    may share a name). The report holds no samples, so there are no raw runs.

    Refuses (InputError) a document type declaration or entity (refused: entity expansion), XML that
    does not parse, a report without benchmarks, an attribute that is no number.

    Format: catchorg/Catch2: src/catch2/reporters/catch_reporter_xml.cpp (``benchmarkStarting``,
    ``benchmarkEnded``, ``benchmarkFailed``) and src/catch2/benchmark/detail/catch_stats.cpp
    (``standard_deviation``: divisor n).
    """
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise InputError(f"{path}: the XML has a document type declaration or entities; "
                         "fastperf does not expand them (Catch2 writes none)")
    try:
        root = ET.fromstring(text.lstrip("\ufeff"))
    except ET.ParseError as exc:
        raise InputError(f"{path}: not well-formed XML ({exc})") from None
    names: list[str] = []
    stats: dict[str, list[Any]] = {"n": [], "mean": [], "sd": []}
    iterations: list[int | None] = []
    bounds: list[tuple[float | None, float | None]] = []
    errors: list[str | None] = []
    cases: list[str | None] = []

    def visit(element: ET.Element, case: str | None) -> None:
        for child in element:
            if child.tag == "TestCase":
                visit(child, child.get("name"))
            elif child.tag == "BenchmarkResults":
                _one_xml(child, case)
            else:
                visit(child, case)

    def _one_xml(element: ET.Element, case: str | None) -> None:
        name = element.get("name")
        if name is None:
            raise InputError(f"{path}: malformed Catch2 XML: a BenchmarkResults has no name")
        failed = element.find("failed")
        n = _attr_int(element, "samples", path, name)
        mean = element.find("mean")
        sd = _attr_float(element.find("standardDeviation"), "value", path, name)
        names.append(name)
        cases.append(case)
        iterations.append(_attr_int(element, "iterations", path, name))
        errors.append(None if failed is None else failed.get("message", ""))
        if failed is not None:
            stats["n"].append(None)
            stats["mean"].append(None)
            stats["sd"].append(None)
            bounds.append((None, None))
            return
        stats["n"].append(n)
        stats["mean"].append(_attr_float(mean, "value", path, name))
        stats["sd"].append(population_to_sample_sd(sd, n))
        bounds.append((_attr_float(mean, "lowerBound", path, name),
                       _attr_float(mean, "upperBound", path, name)))

    if root.tag == "BenchmarkResults":
        _one_xml(root, None)
    else:
        visit(root, root.get("name") if root.tag == "TestCase" else None)
    if not names:
        raise InputError(f"{path}: the Catch2 XML report holds no benchmark results "
                         "(<BenchmarkResults>); were benchmarks run (not skipped with "
                         "--skip-benchmarks)?")
    table = summary_table(
        names, unit="ns", statistics=stats,
        extra={"iterations": pa.array(iterations, pa.int64()),
               "mean_lb": pa.array([b[0] for b in bounds], pa.float64()),
               "mean_ub": pa.array([b[1] for b in bounds], pa.float64()),
               "error": pa.array(errors, pa.string())},
        where=path, kind="Catch2 XML")
    return add_config(table, {"test_case": pa.array(cases, pa.string())})


def looks_like_catch2_console(text: str) -> bool:
    """True when `text` holds the header of Catch2's console benchmark table.

    Format: catchorg/Catch2, src/catch2/reporters/catch_reporter_console.cpp
    (``lazyPrintWithoutClosingBenchmarkTable``, ``benchmarkPreparing``, ``benchmarkStarting``,
    ``benchmarkEnded``).
    """
    return _HEADER.search(text) is not None


def _to_ns(value: str, unit: str) -> float:
    return float(value) * _UNITS_NS[unit]


def read_catch2_console(path: Path, text: str) -> pa.Table:
    """Every benchmark of Catch2's console table as one row of a *summary table*, nanoseconds.

    A benchmark is a line ``NAME  samples  iterations  estimated`` followed by the ``mean
    low-mean high-mean`` line and the ``std-dev low high`` line. ``n`` is ``samples``, ``mean``
    the mean and ``sd`` the standard deviation converted to the sample one (Catch2 divides by
    n: ``sd * sqrt(n / (n - 1))``); values are converted to nanoseconds from their printed unit
    (``ns``, ``us``, ``ms``, ``s``). Catch2 prints about five significant digits, so the
    values are rounded. Extra columns as in `read_catch2_xml` (``iterations``, ``mean_lb``,
    ``mean_ub``, ``error`` for a ``Benchmark failed (...)`` line); the configuration column
    ``test_case`` holds the first line of the test case header above the table (null when there
    is none). A name wrapped over several lines is joined with spaces.

    Refuses (InputError) no benchmark rows, or a benchmark line not followed by its mean and
    standard deviation lines (naming the line).

    Format: catchorg/Catch2, src/catch2/reporters/catch_reporter_console.cpp (the table) and
    src/catch2/benchmark/detail/catch_stats.cpp (``standard_deviation``: divisor n).
    """
    lines = text.splitlines()
    names: list[str] = []
    stats: dict[str, list[Any]] = {"n": [], "mean": [], "sd": []}
    iterations: list[int] = []
    bounds: list[tuple[float | None, float | None]] = []
    errors: list[str | None] = []
    cases: list[str | None] = []
    case: str | None = None
    in_table = False
    pending: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if _DOTS.match(line):
            case = _case_name(lines, i)
            in_table, pending = False, []
            i += 1
            continue
        if _HEADER.match(line):
            in_table, pending = True, []
            i += 1
            continue
        if not in_table:
            i += 1
            continue
        if _DASHES.match(line) or line.startswith(("=====", "~~~~~")):
            if line.startswith(("=====", "~~~~~")):
                in_table = False
            pending = []
            i += 1
            continue
        if not line.strip():
            pending = []
            i += 1
            continue
        row = _ROW.match(line)
        if row is None:
            if _STATS.match(line) is None and not line.startswith((" ", "\t")):
                pending.append(line.strip())
            i += 1
            continue
        name = " ".join(pending + ([row.group("name").strip()] if row.group("name") else []))
        pending = []
        if not name:
            raise InputError(f"{path}:{i + 1}: a Catch2 benchmark row without a name")
        n = int(row.group("samples"))
        names.append(name)
        cases.append(case)
        iterations.append(int(row.group("iters")))
        following = [lines[j].rstrip() for j in range(i + 1, min(i + 3, len(lines)))]
        failed = _FAILED.match(following[0]) if following else None
        if failed:
            errors.append(failed.group("why"))
            stats["n"].append(None)
            stats["mean"].append(None)
            stats["sd"].append(None)
            bounds.append((None, None))
            i += 2
            continue
        mean_line = _STATS.match(following[0]) if following else None
        sd_line = _STATS.match(following[1]) if len(following) > 1 else None
        if mean_line is None or sd_line is None:
            raise InputError(f"{path}:{i + 1}: Catch2 benchmark {shown(name)} is not followed "
                             "by its mean and standard deviation lines")
        errors.append(None)
        stats["n"].append(n)
        stats["mean"].append(_to_ns(mean_line.group("v"), mean_line.group("u")))
        stats["sd"].append(population_to_sample_sd(_to_ns(sd_line.group("v"),
                                                          sd_line.group("u")), n))
        bounds.append((_to_ns(mean_line.group("lo"), mean_line.group("lu")),
                       _to_ns(mean_line.group("hi"), mean_line.group("hu"))))
        i += 3
    if not names:
        raise InputError(f"{path}: no Catch2 benchmark rows (NAME samples iterations "
                         "estimated, then the mean and std dev lines) found")
    table = summary_table(
        names, unit="ns", statistics=stats,
        extra={"iterations": pa.array(iterations, pa.int64()),
               "mean_lb": pa.array([b[0] for b in bounds], pa.float64()),
               "mean_ub": pa.array([b[1] for b in bounds], pa.float64()),
               "error": pa.array(errors, pa.string())},
        where=path, kind="Catch2 console")
    return add_config(table, {"test_case": pa.array(cases, pa.string())})


def _case_name(lines: list[str], dots: int) -> str | None:
    """The first line of the test case header that ends with the dotted line at `dots`:
    ``----``, name (and section) lines, ``----``, ``file:line``, ``....``."""
    j = dots - 1
    while j >= 0 and not _DASHES.match(lines[j]):
        j -= 1
    k = j - 1
    block: list[str] = []
    while k >= 0 and not _DASHES.match(lines[k]):
        block.append(lines[k].strip())
        k -= 1
    block = [b for b in reversed(block) if b]
    return block[0] if block else None
