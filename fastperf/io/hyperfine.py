"""hyperfine ``--export-json`` results.

Layout: ``{"results": [{"command", "mean", "stddev", ..., "times": [seconds, ...],
"exit_codes": [...]}, ...]}``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import int_column, text_field
from fastperf.io.common import tool_table

__all__ = ["read_hyperfine", "looks_like_hyperfine"]


def looks_like_hyperfine(data: Any) -> bool:
    """True for a parsed JSON document shaped like a hyperfine export.

    Format: hyperfine's ``--export-json`` format (github.com/sharkdp/hyperfine, src/export/json.rs).
    """
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return False
    results = data["results"]
    return not results or any(isinstance(r, dict) and "command" in r for r in results)


def read_hyperfine(path: Path, data: Any) -> pa.Table:
    """Every timed run of every command as one row: ``times``, seconds, run = index.

    ``benchmark`` is the ``command`` (hyperfine writes the ``--command-name`` there when one
    is given). Extra columns: ``exit_code`` (int64) holds the run's exit status when the file
    records it (``exit_codes``), else null; ``process`` (int64), the level
    (docs/data-model.md): hyperfine starts the command anew for every timed run, so each run
    is a process of its own and ``process`` equals ``run``.

    Refuses (InputError) a document that is no hyperfine export, one without results, or a command
    without per-run times.

    Format: hyperfine's ``--export-json`` format (github.com/sharkdp/hyperfine, src/export/json.rs).
    """
    if not looks_like_hyperfine(data):
        raise InputError(f"{path}: not a hyperfine JSON export (no 'results' list with 'command')")
    results = data["results"]
    if not results:
        raise InputError(f"{path}: the hyperfine export holds no results")
    names: list[str] = []
    runs: list[int] = []
    values: list[float] = []
    exit_codes: list[int | None] = []
    seen: dict[str, int] = {}  # a command listed twice continues its runs (each a process)
    for result in results:
        command = text_field(result.get("command"), f"{path}: a hyperfine result's command")
        times = result.get("times")
        if times is None:
            raise InputError(
                f"{path}: command {command!r} has no per-run 'times' (only the summary); "
                "re-run it with a current hyperfine and --export-json"
            )
        codes = result.get("exit_codes")
        if not isinstance(codes, list) or len(codes) != len(times):
            codes = [None] * len(times)
        first = seen.get(command, 0)
        seen[command] = first + len(times)
        names.extend([command] * len(times))
        runs.extend(range(first, first + len(times)))
        values.extend(times)
        exit_codes.extend(codes)
    exit_column = int_column(exit_codes, where=str(path), kind="hyperfine", names=names,
                             field="exit_codes")
    return tool_table(names, values, run=runs, unit="s",
                      extra={"exit_code": exit_column, "process": pa.array(runs, pa.int64())},
                      where=path, kind="hyperfine", value_field="times")
