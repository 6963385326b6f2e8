"""Go benchmark text format (``go test -bench`` output; golang.org/design/14313-benchmark-format).

A file is a sequence of lines. Benchmark result lines read
``BenchmarkName  N  value unit  [value unit ...]`` (fields split on white space; an even number of
fields, at least four; N a decimal integer; values parse as float64). Configuration lines read
``key: value`` (key starts with a lower-case letter and has no space or upper-case letter) and
apply to the results that follow until the key is set again. ``Unit ...`` metadata lines,
comments, ``PASS``/``ok`` lines and any other text are ignored, as the format specifies.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import INT64_MAX, is_out_of_range, shown
from fastperf.io.common import add_config, tool_table

__all__ = ["read_go", "looks_like_go", "tidy_unit", "GO_RESULT_LINE"]

#: A line that looks like a Go benchmark result (used for detection by content).
GO_RESULT_LINE = re.compile(r"^Benchmark\S+[ \t]+\d+[ \t]+[-+0-9.eE]+[ \t]+\S+", re.MULTILINE)
_UNIT_TOKENS = re.compile(r"([*/\-\s]+)|([^*/\-\s]+)")
_DIGITS = re.compile(r"[0-9]+")  # Go's strconv.Atoi takes ASCII digits only
_NOT_IN_ASCII_KEY = re.compile(r"[\sA-Z]")  # an ASCII configuration key has no space or capital
#: The last line of a test binary's output (``PASS``, ``FAIL``, ``ok  pkg  1.2s``,
#: ``FAIL  pkg  1.2s``): a ``go test`` invocation (a process) ended there.
_END_OF_OUTPUT = re.compile(r"^(?:PASS|FAIL|ok)(?:[ \t]|$)")


def looks_like_go(text: str) -> bool:
    """True when some line of `text` looks like a Go benchmark result line.

    Format: The Go benchmark data format, golang.org/design/14313-benchmark-format.
    """
    return GO_RESULT_LINE.search(text) is not None


def tidy_unit(unit: str) -> tuple[str, float]:
    """Normalise a Go unit to base units like benchstat (golang.org/x/perf/benchunit.Tidy).

    ``ns`` in the numerator becomes ``sec`` (factor 1e-9) and ``MB`` becomes ``B`` (factor 1e6):
    ``ns/op`` -> ``sec/op``, ``MB/s`` -> ``B/s``, ``L1-miss-ns/op`` -> ``L1-miss-sec/op``.
    Other units are kept as written (factor 1). Returns ``(unit, factor)``.

    Parameters
    ----------
    unit : str
        A unit as written in a result line.

    Returns
    -------
    unit : str
        The tidied unit.
    factor : float
        What a value in `unit` is multiplied by to be in the tidied unit.

    Notes
    -----
    benchstat's unit tidying, golang.org/x/perf/benchunit (``Tidy``).
    """
    if unit == "ns/op":
        return "sec/op", 1e-9
    if unit == "MB/s":
        return "B/s", 1e6
    if "ns" not in unit and "MB" not in unit:
        return unit, 1.0
    parts: list[str] = []
    factor = 1.0
    in_denominator = False
    for separator, token in _UNIT_TOKENS.findall(unit):
        if separator:
            for ch in separator:
                if ch == "*":
                    in_denominator = False
                elif ch == "/":
                    in_denominator = True
            parts.append(separator)
        elif token == "ns" and not in_denominator:
            parts.append("sec")
            factor /= 1e9
        elif token == "MB" and not in_denominator:
            parts.append("B")
            factor *= 1e6
        else:
            parts.append(token)
    return "".join(parts), factor


def _parse_float(token: str) -> float | None:
    """Parse like Go's strconv.ParseFloat (decimal, hex, inf, nan); None when it would fail."""
    if "_" in token:
        return None
    try:
        return float(token)
    except ValueError:
        pass
    if token.lstrip("+-")[:2].lower() == "0x":
        try:
            return float.fromhex(token)
        except ValueError:
            return None
        except OverflowError:  # beyond float64: `read_go` reports it as out of range
            return -math.inf if token.startswith("-") else math.inf
    return None


def _config_line(line: str) -> tuple[str, str] | None:
    """``(key, value)`` for a configuration line, else None."""
    colon = line.find(":")
    if colon <= 0:
        return None
    key, rest = line[:colon], line[colon + 1 :]
    if key.isascii():
        if not "a" <= key[0] <= "z" or _NOT_IN_ASCII_KEY.search(key):
            return None
    elif not key[0].islower() or any(c.isspace() or c.isupper() for c in key):
        return None
    if rest and rest[0] not in " \t":
        return None
    return key, rest.strip()


def read_go(path: Path, text: str) -> pa.Table:
    """Every (value, unit) pair of every result line as one row, with its configuration.

    ``benchmark`` is the name as written (``BenchmarkCRC32/poly=IEEE/size=15/align=0-8``);
    units are tidied by `tidy_unit`; the extra column ``iterations`` (int64) is N.

    Configuration lines ``key: value`` are in force for the result lines after them until the
    key is set again; an empty value unsets the key (as golang.org/x/perf/benchfmt reads it).
    Each key in force for some result line becomes a string column, in first-seen order, null
    for lines where it is not set; the columns are declared as configuration
    (`fastperf.io.common.with_config`). A key named like a column the reader makes itself
    (`fastperf.io.common.READER_COLUMNS`) becomes ``config_<key>``. ``note`` is special: when
    the result lines carry two or more distinct notes (a line before any note counting as the
    empty note), the table has a ``variant`` column holding each line's note (null for lines
    without one) and no ``note`` column; one note for every line makes an ordinary ``note``
    configuration column. ``run`` is the occurrence index of the (configuration including the
    note, benchmark, unit) triple.

    The levels (docs/data-model.md). Each ``go test`` invocation is a process: its output is a
    *block* of result lines, and a block ends where configuration lines (the header a new
    invocation prints: ``goos:``, ``pkg:``, ``note:``, ...) or the end of a test binary's output
    (``PASS``, ``FAIL``, ``ok  pkg  1.2s``) follow result lines. When some (configuration,
    benchmark) has result lines in two or more blocks (a file of repeated ``go test -count=1``
    invocations), the table has ``process`` (int64: the index of the block among the blocks
    holding that configuration and benchmark, from 0) and ``iteration`` (int64: the index of
    the value among the (configuration, benchmark, unit)'s values in its block, from 0);
    otherwise (one ``go test -count=10``: one process) it has neither. When, besides, the
    blocks carry two or more notes (``variant``) measured interleaved, the table has ``round``
    (int64) = ``process``: the k-th invocation of each variant form round k. Interleaved
    means: some benchmark was measured under two notes, and for every (configuration without
    the note, benchmark) round k of every note comes before round k + 1 of any note in the
    file (``a b a b`` or ``a b b a``, not ``a a b b``); otherwise there is no ``round``.

    Refuses (InputError) a file without any benchmark result line; an iteration count beyond int64
    or a value beyond the float64 range (before or after tidying its unit), naming the file, the
    line and the field. (A token that is no number at all makes the line no result line, as the
    format specifies.)

    Format: The Go benchmark data format, golang.org/design/14313-benchmark-format.
    """
    names: list[str] = []
    row_config: list[int] = []
    runs: list[int] = []
    units: list[str] = []
    values: list[float] = []
    iterations: list[int] = []
    seen: dict[tuple[int, str, str], int] = {}
    tidy_cache: dict[str, tuple[str, float]] = {}
    current: dict[str, str] = {}  # the configuration in force
    configs: list[dict[str, str]] = [{}]  # every distinct configuration a result line had
    config_index: dict[frozenset[tuple[str, str]], int] = {frozenset(): 0}
    config = 0
    changed = False
    order: dict[str, None] = {}  # every key set, in first-seen order
    blocks: list[int] = []  # the block (invocation) of each row
    block = 0
    block_has_results = False  # the current block has a result line
    block_closed = False  # a configuration or end-of-output line followed its result lines
    for line_no, raw_line in enumerate(text.split("\n"), 1):
        line = raw_line.rstrip("\r")
        if block_has_results and _END_OF_OUTPUT.match(line):
            block_closed = True
        if line.startswith("Benchmark"):
            fields = line.split()
            if len(fields) < 4 or len(fields) % 2 or not fields[0].startswith("Benchmark"):
                continue
            if not _DIGITS.fullmatch(fields[1]):
                continue
            pairs = []
            for i in range(2, len(fields), 2):
                v = _parse_float(fields[i])
                if v is None:
                    break
                if is_out_of_range(fields[i], v):
                    raise InputError(f"{path}:{line_no}: {shown(fields[0])}: the value "
                                     f"{shown(fields[i])} {shown(fields[i + 1])} is beyond the "
                                     "float64 range (about 1.8e308)")
                pairs.append((v, fields[i + 1]))
            else:
                if changed:
                    state = frozenset(current.items())
                    config = config_index.get(state, -1)
                    if config < 0:
                        config = config_index[state] = len(configs)
                        configs.append(dict(current))
                    changed = False
                digits = fields[1].lstrip("0") or "0"
                if len(digits) > 19 or int(digits) > INT64_MAX:
                    raise InputError(f"{path}:{line_no}: {shown(fields[0])}: the iteration count "
                                     f"{shown(fields[1])} is out of range (Go's N is a 64-bit "
                                     f"integer: at most {INT64_MAX})")
                n = int(digits)
                name = fields[0]
                if block_closed:
                    block += 1
                    block_closed = False
                block_has_results = True
                for v, unit in pairs:
                    if unit not in tidy_cache:
                        tidy_cache[unit] = tidy_unit(unit)
                    tidied, factor = tidy_cache[unit]
                    if math.isinf(v * factor) and not math.isinf(v):
                        raise InputError(f"{path}:{line_no}: {shown(name)}: the value {v!r} "
                                         f"{shown(unit)} is beyond the float64 range in "
                                         f"{shown(tidied)}")
                    key = (config, name, tidied)
                    occurrence = seen.get(key, 0)
                    seen[key] = occurrence + 1
                    names.append(name)
                    row_config.append(config)
                    runs.append(occurrence)
                    units.append(tidied)
                    values.append(v * factor)
                    iterations.append(n)
                    blocks.append(block)
            continue
        setting = _config_line(line)
        if setting is not None:
            key, value = setting
            if block_has_results:
                block_closed = True
            if value:
                if current.get(key) != value:
                    current[key] = value
                    order.setdefault(key)
                    changed = True
            elif key in current:
                del current[key]
                changed = True
    if not names:
        raise InputError(
            f"{path}: no Go benchmark result lines (BenchmarkName N value unit ...) found"
        )
    levels = _levels(names, units, row_config, blocks, configs)
    return _with_configuration(names, values, runs, units, iterations, row_config, configs, order,
                               levels)


def _levels(names: list[str], units: list[str], row_config: list[int], blocks: list[int],
            configs: list[dict[str, str]]) -> dict[str, pa.Array]:
    """The level columns of `read_go` (``process``, ``iteration``, ``round``), or none."""
    if not blocks or blocks[-1] == 0:  # one block: one process, no levels
        return {}
    processes: list[int] = []
    positions: list[int] = []
    last_process: dict[tuple[int, str], list[int]] = {}  # key -> [its last block, process]
    last_position: dict[tuple[int, str, str], list[int]] = {}  # -> [last block, position]
    for config, name, unit, block in zip(row_config, names, units, blocks):
        state = last_process.get((config, name))
        if state is None:
            state = last_process[(config, name)] = [block, 0]
        elif state[0] != block:  # blocks only grow along the rows
            state[0] = block
            state[1] += 1
        processes.append(state[1])
        position = last_position.get((config, name, unit))
        if position is None or position[0] != block:
            position = last_position[(config, name, unit)] = [block, 0]
        else:
            position[1] += 1
        positions.append(position[1])
    if not any(state[1] for state in last_process.values()):
        return {}  # every benchmark in one block: one process, no levels
    levels = {"process": pa.array(processes, pa.int64()),
              "iteration": pa.array(positions, pa.int64())}
    if _interleaved(names, row_config, processes, configs):
        levels["round"] = levels["process"]
    return levels


def _interleaved(names: list[str], row_config: list[int], processes: list[int],
                 configs: list[dict[str, str]]) -> bool:
    """Whether the file's notes were measured in interleaved rounds (see `read_go`)."""
    used = set(row_config)
    if len({configs[c].get("note", "") for c in used}) < 2:
        return False
    without_note: dict[int, frozenset[tuple[str, str]]] = {
        c: frozenset((k, v) for k, v in configs[c].items() if k != "note") for c in used}
    last_round: dict[tuple[frozenset, str], int] = {}
    notes_of: dict[tuple[frozenset, str], set[str]] = {}
    for config, name, process in zip(row_config, names, processes):
        key = (without_note[config], name)
        if process < last_round.get(key, 0):
            return False  # a round began before an earlier one had ended
        last_round[key] = process
        notes_of.setdefault(key, set()).add(configs[config].get("note", ""))
    return any(len(notes) >= 2 for notes in notes_of.values())


def _with_configuration(names: list[str], values: list[float], runs: list[int], units: list[str],
                        iterations: list[int], row_config: list[int],
                        configs: list[dict[str, str]], order: dict[str, None],
                        levels: dict[str, pa.Array]) -> pa.Table:
    """The table of `read_go`: one column per key in force for some result line, taken from
    the distinct configurations by index; the `levels` columns follow ``iterations``."""
    used = sorted(set(row_config))
    in_force = {key for c in used for key in configs[c]}
    keys = {key: None for key in order if key in in_force}
    indices = pa.array(row_config, pa.int32())
    notes = {configs[c].get("note", "") for c in used}
    variant = None
    if len(notes) >= 2:
        variant = pa.array([c.get("note") for c in configs], pa.string()).take(indices)
        keys.pop("note", None)
    table = tool_table(
        names,
        values,
        run=runs,
        unit=units,
        variant=variant,
        extra={"iterations": pa.array(iterations, pa.int64()), **levels},
    )
    columns = {
        key: pa.array([c.get(key) for c in configs], pa.string()).take(indices) for key in keys
    }
    return add_config(table, columns)
