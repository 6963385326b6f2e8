"""The file formats `fastperf.read` knows, in the order detection tries them.

Each format is one `Format`: its name (what ``format=`` accepts), what its detector looks at
(``"json"``: the parsed document, parsed, for a file longer than `SNIFF_BYTES`, only when its
start matches a sign of `JSON_PREFIX_SIGNS`; ``"text"``: the first `SNIFF_BYTES` decoded as UTF-8;
``"tree"``: a directory), the detector and the reader. Table files (Parquet, Arrow IPC, CSV)
are recognised by magic bytes or as the fallback and read by `fastperf.io.tabular`.

Every tool reader module follows one contract, written here once (each function's docstring says
only what is special to its tool): a detector ``looks_like_<tool>(data) -> bool`` takes what its
kind looks at (the parsed JSON document, the text, or the directory's path); a reader
``read_<tool>(path, data) -> pyarrow.Table`` takes the file's path (for messages) and the same
data (a directory's reader the path alone), and returns ``benchmark``, ``run``, ``unit``,
``value`` (one row per measurement; the extra and configuration columns its docstring names) or
a summary table (`fastperf.io.common.summary_table`). It raises `InputError` naming the file for
what its docstring lists under "Refuses"; "Format" names the tool's own definition of the
format.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.io.asv import (looks_like_asv, looks_like_asv_benchmarks, looks_like_asv_console,
                             looks_like_asv_tree, read_asv, read_asv_benchmarks,
                             read_asv_console, read_asv_tree)
from fastperf.io.benchmarkdotnet import looks_like_benchmarkdotnet, read_benchmarkdotnet
from fastperf.io.benchmarkdotnet_csv import (looks_like_benchmarkdotnet_csv,
                                             read_benchmarkdotnet_csv)
from fastperf.io.cargo_bench import looks_like_cargo_bench, read_cargo_bench
from fastperf.io.catch2 import (looks_like_catch2_console, looks_like_catch2_xml,
                                read_catch2_console, read_catch2_xml)
from fastperf.io.criterion import (looks_like_criterion_estimates, looks_like_criterion_sample,
                                   looks_like_criterion_tree, read_criterion_estimates,
                                   read_criterion_sample, read_criterion_tree)
from fastperf.io.criterion_messages import (
    looks_like_criterion_console, looks_like_criterion_messages,
    looks_like_criterion_messages_text, read_criterion_console, read_criterion_messages,
    read_criterion_messages_text,
)
from fastperf.io.go import looks_like_go, read_go
from fastperf.io.google_benchmark import looks_like_google_benchmark, read_google_benchmark
from fastperf.io.google_benchmark_console import (looks_like_google_benchmark_console,
                                                  read_google_benchmark_console)
from fastperf.io.haskell_criterion import (looks_like_haskell_criterion,
                                           looks_like_haskell_criterion_csv,
                                           read_haskell_criterion, read_haskell_criterion_csv)
from fastperf.io.hyperfine import looks_like_hyperfine, read_hyperfine
from fastperf.io.jmh import looks_like_jmh, read_jmh
from fastperf.io.pyperf import looks_like_pyperf, read_pyperf
from fastperf.io.nanobench import (looks_like_nanobench, looks_like_nanobench_csv, read_nanobench,
                                   read_nanobench_csv)
from fastperf.io.pytest_benchmark import looks_like_pytest_benchmark, read_pytest_benchmark
from fastperf.io.pytest_benchmark_summaries import (
    has_rounds, looks_like_pytest_benchmark_tree, read_pytest_benchmark_summaries,
    read_pytest_benchmark_tree,
)

__all__ = ["Format", "TOOL_FORMATS", "TABULAR", "SNIFF_BYTES", "tool_format", "formats_of_kind",
           "tried", "JSON_PREFIX_SIGNS", "json_prefix_may_match"]

#: Bytes read from the start of a file to detect a text format (Go result lines must start here).
SNIFF_BYTES = 1 << 20
#: Table file formats, read by `fastperf.io.tabular`.
TABULAR = ("parquet", "csv", "ipc")


@dataclass(frozen=True)
class Format:
    """A benchmark tool's result format.

    Attributes
    ----------
    name : str
        The name ``format=`` accepts.
    kind : {"json", "text", "tree"}
        What `looks_like` and `reader` receive: a parsed JSON document, the file's text, or a
        directory path.
    looks_like : callable
        ``looks_like(payload) -> bool``; the cheap detector.
    reader : callable
        ``reader(path, payload, options) -> pyarrow.Table``; ``options`` holds ``metric``.
    title : str
        The tool's name for messages ("formats tried: ...").
    """

    name: str
    kind: str
    looks_like: Callable[[Any], bool]
    reader: Callable[[Path, Any, dict], pa.Table]
    title: str


def _plain(reader: Callable[[Path, Any], pa.Table]) -> Callable[[Path, Any, dict], pa.Table]:
    """A reader without options, in the registry's signature."""
    def read_with_options(path: Path, payload: Any, options: dict) -> pa.Table:
        return reader(path, payload)
    read_with_options.__doc__ = reader.__doc__
    return read_with_options


def _google_benchmark_console(path: Path, text: str, options: dict) -> pa.Table:
    return read_google_benchmark_console(path, text, metric=options.get("metric", "real_time"))


def _pytest_benchmark(path: Path, data: Any, options: dict) -> pa.Table:
    """Rounds when every benchmark kept them (``--benchmark-save-data``); else the summary
    statistics when every benchmark has them; else the rounds reader names what is wrong."""
    if has_rounds(data) or not all(isinstance(b, dict) and isinstance(b.get("stats"), dict)
                                   and "mean" in b["stats"] for b in data["benchmarks"]):
        return read_pytest_benchmark(path, data)
    return read_pytest_benchmark_summaries(path, data)


def _tree(reader: Callable[[Path], pa.Table]) -> Callable[[Path, Any, dict], pa.Table]:
    """A results-tree reader in the registry's signature."""
    def read_tree(path: Path, payload: Any, options: dict) -> pa.Table:
        return reader(path)
    read_tree.__doc__ = reader.__doc__
    return read_tree


def _google_benchmark(path: Path, data: Any, options: dict) -> pa.Table:
    return read_google_benchmark(path, data, metric=options.get("metric", "real_time"))


#: Every tool format, in detection order within its kind (the more specific detectors first).
TOOL_FORMATS: tuple[Format, ...] = (
    Format("pyperf", "json", looks_like_pyperf, _plain(read_pyperf), "pyperf"),
    Format("pytest-benchmark", "json", looks_like_pytest_benchmark, _pytest_benchmark,
           "pytest-benchmark"),
    Format("google-benchmark", "json", looks_like_google_benchmark, _google_benchmark,
           "Google Benchmark JSON"),
    Format("asv", "json", looks_like_asv, _plain(read_asv), "asv results"),
    Format("asv-benchmarks", "json", looks_like_asv_benchmarks, _plain(read_asv_benchmarks),
           "asv benchmarks.json (refused: no measurements)"),
    Format("jmh", "json", looks_like_jmh, _plain(read_jmh), "JMH JSON"),
    Format("benchmarkdotnet", "json", looks_like_benchmarkdotnet, _plain(read_benchmarkdotnet),
           "BenchmarkDotNet JSON"),
    Format("nanobench", "json", looks_like_nanobench, _plain(read_nanobench), "nanobench JSON"),
    Format("hyperfine", "json", looks_like_hyperfine, _plain(read_hyperfine), "hyperfine"),
    Format("criterion-sample", "json", looks_like_criterion_sample,
           _plain(read_criterion_sample), "criterion.rs sample.json"),
    Format("criterion-estimates", "json", looks_like_criterion_estimates,
           _plain(read_criterion_estimates), "criterion.rs estimates.json"),
    Format("criterion-messages", "json", looks_like_criterion_messages,
           _plain(read_criterion_messages), "cargo-criterion JSON messages"),
    Format("haskell-criterion", "json", looks_like_haskell_criterion,
           _plain(read_haskell_criterion), "Haskell criterion JSON"),
    Format("catch2-xml", "text", looks_like_catch2_xml, _plain(read_catch2_xml), "Catch2 XML"),
    Format("criterion-console", "text", looks_like_criterion_console,
           _plain(read_criterion_console), "criterion.rs console output"),
    Format("asv-console", "text", looks_like_asv_console, _plain(read_asv_console),
           "asv console output"),
    Format("criterion-messages-text", "text", looks_like_criterion_messages_text,
           _plain(read_criterion_messages_text), "cargo-criterion JSON messages among text"),
    Format("go", "text", looks_like_go, _plain(read_go), "Go benchmark text"),
    Format("cargo-bench", "text", looks_like_cargo_bench, _plain(read_cargo_bench),
           "cargo bench (libtest) text"),
    Format("catch2-console", "text", looks_like_catch2_console, _plain(read_catch2_console),
           "Catch2 console"),
    Format("haskell-criterion-csv", "text", looks_like_haskell_criterion_csv,
           _plain(read_haskell_criterion_csv), "Haskell criterion CSV"),
    Format("google-benchmark-console", "text", looks_like_google_benchmark_console,
           _google_benchmark_console, "Google Benchmark console"),
    Format("benchmarkdotnet-csv", "text", looks_like_benchmarkdotnet_csv,
           _plain(read_benchmarkdotnet_csv), "BenchmarkDotNet CSV summary"),
    Format("nanobench-csv", "text", looks_like_nanobench_csv, _plain(read_nanobench_csv),
           "nanobench CSV"),
    Format("criterion", "tree", looks_like_criterion_tree, _tree(read_criterion_tree),
           "criterion.rs target/criterion directory"),
    Format("asv-results", "tree", looks_like_asv_tree, _tree(read_asv_tree),
           "asv results directory"),
    Format("pytest-benchmark-dir", "tree", looks_like_pytest_benchmark_tree,
           _tree(read_pytest_benchmark_tree), "pytest-benchmark .benchmarks directory"),
)


def _sign(*keys: str, opening: str = "") -> re.Pattern[bytes]:
    """A pattern of a JSON object key among `keys` (``"key"`` then ``:``) or of `opening` at the
    start (a regular expression)."""
    alternatives = [r'"(?:' + "|".join(re.escape(key) for key in keys) + r')"\s*:'] if keys else []
    alternatives += [r"\A" + opening] if opening else []
    return re.compile("|".join(alternatives).encode())


#: What the first `SNIFF_BYTES` of every document of each JSON format hold: an object key its
#: detector reads, at any depth (so the order a writer puts keys in does not matter), or, for
#: documents without keys, how they open (after any byte-order mark and whitespace). A JSON file
#: longer than `SNIFF_BYTES` is parsed only when its start matches one of these
#: (`json_prefix_may_match`), so an unknown 100 MB document is refused unparsed.
JSON_PREFIX_SIGNS: dict[str, re.Pattern[bytes]] = {
    "pyperf": _sign("benchmarks", "benchmark", "runs", "metadata", "version"),
    "pytest-benchmark": _sign("benchmarks", "stats", "machine_info", "commit_info"),
    "google-benchmark": _sign("benchmarks", "context", "run_type", "run_name", "real_time",
                              "cpu_time", "time_unit", "family_index"),
    "asv": _sign("results", "commit_hash", "result_columns", "params"),
    "asv-benchmarks": _sign("name", "type", "unit", "version"),
    "jmh": _sign("benchmark", "primaryMetric"),
    "benchmarkdotnet": _sign("Benchmarks", "HostEnvironmentInfo", "FullName", "Statistics"),
    "nanobench": _sign("results", "measurements", "clockResolution", "epochs", "name"),
    "hyperfine": _sign("results", "command"),
    "criterion-sample": _sign("iters", "times", "sampling_mode",
                              opening=r"\[\s*\[\s*[-+0-9.]"),  # or [[iters...], [times...]]
    "criterion-estimates": _sign("mean", "Mean", "point_estimate", "confidence_interval"),
    "criterion-messages": _sign("reason"),
    "haskell-criterion": _sign(opening=r'\[\s*"criterion"'),
}


def json_prefix_may_match(prefix: bytes) -> bool:
    """Whether a JSON document starting with `prefix` may be of a JSON format fastperf reads.

    Parameters
    ----------
    prefix : bytes
        The first `SNIFF_BYTES` of the (decompressed) file.

    Returns
    -------
    bool
        True when a pattern of `JSON_PREFIX_SIGNS` matches: only then is a document longer
        than the prefix parsed to find its format.

    Notes
    -----
    No formula: byte patterns over the prefix, linear in its length.
    """
    start = prefix.lstrip(b"\xef\xbb\xbf \t\r\n")
    return any(sign.search(start) for sign in JSON_PREFIX_SIGNS.values())


def tool_format(name: str) -> Format:
    """The tool format called `name` (a key of `TOOL_FORMATS`).

    Parameters
    ----------
    name : str
        A format name.

    Returns
    -------
    Format
        Its registry entry.

    Raises
    ------
    KeyError
        No tool format has that name (table formats are not in the registry).

    Notes
    -----
    No formula.
    """
    for fmt in TOOL_FORMATS:
        if fmt.name == name:
            return fmt
    raise KeyError(name)


def formats_of_kind(kind: str) -> list[Format]:
    """The tool formats whose detector takes `kind` (``json``, ``text``, ``tree``), in order.

    Parameters
    ----------
    kind : str
        ``"json"``, ``"text"`` or ``"tree"``.

    Returns
    -------
    list of Format

    Notes
    -----
    No formula.
    """
    return [fmt for fmt in TOOL_FORMATS if fmt.kind == kind]


def tried(kind: str) -> str:
    """The titles of the formats of `kind`, for "formats tried: ..." messages.

    Parameters
    ----------
    kind : str
        ``"json"``, ``"text"`` or ``"tree"``.

    Returns
    -------
    str
        Comma-separated titles.

    Notes
    -----
    No formula.
    """
    return ", ".join(fmt.title for fmt in formats_of_kind(kind))
