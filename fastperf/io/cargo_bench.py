"""``cargo bench`` output of Rust's built-in (libtest, ``#[bench]``) benchmarks.

Layout: text; each benchmark is one line ``test NAME ... bench:   1,234 ns/iter (+/- 56)``,
optionally followed by `` = 789 MB/s`` when the benchmark sets ``b.bytes``. Numbers carry
``,`` thousands separators (recent toolchains may print decimals). cargo prints
``Running <target> (<executable>)`` before the output of each bench executable; ``running N
tests``, ``test result: ...`` and other lines are not measurements.
"""
from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import shown
from fastperf.io.common import add_config
from fastperf.io.summaries import summary_table

__all__ = ["looks_like_cargo_bench", "read_cargo_bench", "CARGO_BENCH_LINE"]

_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
#: A libtest benchmark result line.
CARGO_BENCH_LINE = re.compile(
    r"^test (?P<name>.+?) \.\.\. bench:\s+(?P<median>" + _NUMBER + r") ns/iter"
    r" \(\+/- (?P<range>" + _NUMBER + r")\)(?: = (?P<mbs>" + _NUMBER + r") MB/s)?\s*$",
    re.MULTILINE)


def looks_like_cargo_bench(text: str) -> bool:
    """True when some line of `text` is a libtest benchmark result line.

    Format: rust-lang/rust, library/test/src/bench.rs (``fmt_bench_samples``).
    """
    return CARGO_BENCH_LINE.search(text) is not None


def _number(token: str) -> float:
    return float(token.replace(",", ""))


def read_cargo_bench(path: Path, text: str) -> pa.Table:
    """Every libtest benchmark line as one row of a *summary table*, nanoseconds per iteration.

    libtest prints only a summary: the number before ``ns/iter`` is the **median** of its
    samples (``median``), and the ``+/-`` number is **max - min** of the same samples
    (``fmt_bench_samples``: ``deviation = max - min``), not a standard deviation; it is kept
    in the extra column ``range`` (float64, ns). libtest computes that summary over 50
    samples (each the mean time per iteration of a batch) after winsorizing them at the 5th
    and 95th percentiles, truncates both numbers to whole nanoseconds, and does not print
    the count, so ``n``, ``mean`` and ``sd`` are null. ``mb_per_s`` (float64) holds the
    `` = N MB/s`` throughput where printed, else null. When cargo's ``Running ...`` lines name
    the bench executables, the configuration column ``executable`` holds the one each line came
    from (two crates may have benchmarks of the same name). A benchmark that appears more
    than once in one executable's output (several runs appended to one file) gives one row per
    occurrence.

    Refuses (InputError) a file without any benchmark line (``running 0 tests`` only: no
    ``#[bench]`` functions ran).

    Format: rust-lang/rust, library/test/src/bench.rs: ``Bencher::bench`` / ``iter`` (50 samples,
    ``winsorize(5.0)``, ``stats::Summary``) and ``fmt_bench_samples`` (median, max - min).
    """
    names: list[str] = []
    medians: list[float] = []
    ranges: list[float] = []
    rates: list[float | None] = []
    executables: list[str | None] = []
    executable: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Running "):  # cargo's line naming the next executable
            executable = stripped[len("Running "):].strip()
            continue
        match = CARGO_BENCH_LINE.match(line.rstrip("\r"))
        if match is None:
            continue
        names.append(match.group("name").strip())
        medians.append(_number(match.group("median")))
        ranges.append(_number(match.group("range")))
        rates.append(None if match.group("mbs") is None else _number(match.group("mbs")))
        executables.append(executable)
    if not names:
        raise InputError(f"{path}: no cargo bench result lines (test NAME ... bench: N ns/iter "
                         "(+/- D)) found; did any #[bench] function run?")
    for value in medians + ranges:
        if value == float("inf"):
            raise InputError(f"{path}: a cargo bench number {shown(value)} is beyond the "
                             "float64 range")
    table = summary_table(
        names, unit="ns", statistics={"median": medians},
        extra={"range": pa.array(ranges, pa.float64()),
               "mb_per_s": pa.array(rates, pa.float64())},
        where=path, kind="cargo bench")
    if any(e is not None for e in executables):
        table = add_config(table, {"executable": pa.array(executables, pa.string())})
    return table
