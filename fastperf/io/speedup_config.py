"""The Speedup-Test tool's configuration file (Touati, Worms & Briais 2013, seed 002, section 5):
a CSV naming, per benchmark, the files of its initial and optimised samples, then optionally a
weight and a confidence level. `read_speedup_config` turns it into a measurement table for
`fastperf.speedup_test`.
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from fastperf.errors import InputError
from fastperf.io.checked import is_out_of_range, read_text, shown

__all__ = ["read_speedup_config"]


def _read_sample(path: Path, config: Path, line_no: int) -> np.ndarray:
    """A sample file: one value per line (blank lines and '#' comments skipped)."""
    try:
        text = read_text(path, "sample file")
    except InputError as exc:
        raise InputError(f"{config}:{line_no}: {exc}") from None
    values = []
    for number, line in enumerate(text.splitlines(), 1):
        item = line.split("#", 1)[0].strip()
        if not item:
            continue
        try:
            value = float(item)
        except ValueError:
            raise InputError(f"{path}:{number}: not a number: {shown(item)} (sample files hold "
                             "one value per line)") from None
        if is_out_of_range(item, value):
            raise InputError(f"{path}:{number}: the value {shown(item)} is beyond the float64 "
                             "range (about 1.8e308)")
        values.append(value)
    if not values:  # its benchmark would vanish from the table, or leave a variant without rows
        raise InputError(f"{config}:{line_no}: the sample file {path} holds no value (one value "
                         "per line)")
    return np.asarray(values, dtype=np.float64)


def _optional_number(field: str, what: str, config: Path, line_no: int) -> float | None:
    """An optional numeric field: None when blank, else its value (an `InputError` naming the
    line when it is no number)."""
    field = field.strip()
    if not field:
        return None
    try:
        return float(field)
    except ValueError:
        raise InputError(f"{config}:{line_no}: the {what} must be a number, got "
                         f"{shown(field)}") from None


def read_speedup_config(
    path: str | os.PathLike,
    *,
    baseline: str = "initial",
    candidate: str = "optimised",
    weight: float = 1.0,
    confidence: float | None = None,
) -> pa.Table:
    """Read the Speedup-Test tool's configuration CSV into a measurement table.

    Each line names a benchmark, the file of its initial sample (X), the file of its optimised
    sample (Y), then optionally a weight and a confidence level; the sample files are plain
    text, one value per line. Fields are separated by commas (or semicolons, or tabs); lines
    starting with '#' and blank lines are skipped; a first line whose weight or sample-file
    fields are not what a data line holds is taken as a header. Relative file names are relative
    to the configuration file's folder.

    Parameters
    ----------
    path : the configuration file.
    baseline, candidate : str
        Variant names given to the initial and optimised samples.
    weight : float
        The weight of a benchmark whose line gives none.
    confidence : float or None
        The confidence level of a benchmark whose line gives none (the tool's global level).

    Returns
    -------
    pyarrow.Table
        ``benchmark``, ``variant``, ``run`` (0, 1, ... within each sample), ``value``,
        ``weight``; and ``alpha`` (1 - the confidence level) when some line gives a level or
        `confidence` is set, so that ``speedup_test(table, ..., alpha="alpha",
        weights="weight")`` uses the tool's per-benchmark settings. A line without a level then
        needs `confidence`.

    Raises
    ------
    InputError
        An unreadable configuration or sample file (missing, a directory, not UTF-8 text), an
        empty sample file, a value beyond the float64 range, a line without the three first
        fields, a benchmark listed twice, a weight that is not a positive number, a confidence
        level outside (0, 1), a value that is not a number, or levels given on some lines only
        without `confidence`.

    Notes
    -----
    The input format of the Speedup-Test tool (Touati, Worms & Briais 2013, "The Speedup-Test",
    Concurrency and Computation: Practice and Experience 25(10), section 5; seed 002). The
    confidence level c of a line becomes the risk level alpha = 1 - c of its benchmark.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"path must be the configuration file's path (str or os.PathLike), "
                         f"got {shown(path)}")
    config = Path(path)
    if config.is_dir():
        raise InputError(f"{config}: is a directory, not the configuration file")
    text = read_text(config, "configuration file")  # a byte-order mark (Excel) is no name
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{config}: no benchmark lines")
    delimiter = max(",;\t", key=lambda d: lines[0][1].count(d))
    try:
        rows = [(n, [f.strip() for f in fields])
                for n, fields in zip((n for n, _ in lines),
                                     csv.reader([line for _, line in lines], delimiter=delimiter))]
    except csv.Error as exc:  # a NUL byte, a field over the csv module's size limit
        raise InputError(f"{config}: not a configuration CSV ({shown(str(exc), 160)})") from None
    folder = config.parent

    def looks_like_header(fields: list[str]) -> bool:
        """A header names its columns: a weight or level that is no number, or sample-file
        fields that are neither files nor look like file names (a typo stays an error). A line
        whose two sample files exist is a data line, its weight or level checked as such."""
        if len(fields) >= 3 and all((folder / f).is_file() for f in fields[1:3] if f):
            return False
        for field in fields[3:5]:
            if field:
                try:
                    float(field)
                except ValueError:
                    return True
        files = fields[1:3]
        return len(files) == 2 and not any((folder / f).is_file() for f in files) and not any(
            "." in f or "/" in f or "\\" in f for f in files)

    if looks_like_header(rows[0][1]):
        rows = rows[1:]
    if not rows:
        raise InputError(f"{config}: no benchmark lines after the header")
    names, variants, runs, values, weights, alphas = [], [], [], [], [], []
    seen = set()
    for line_no, fields in rows:
        if len(fields) < 3 or not all(fields[:3]):
            raise InputError(f"{config}:{line_no}: expected 'name, initial sample file, optimised "
                             f"sample file[, weight[, confidence level]]', got {fields!r}")
        name = fields[0]
        if name in seen:
            raise InputError(f"{config}:{line_no}: benchmark {name!r} is listed twice")
        seen.add(name)
        w = _optional_number(fields[3] if len(fields) > 3 else "", "weight", config, line_no)
        c = _optional_number(fields[4] if len(fields) > 4 else "", "confidence level", config,
                             line_no)
        w = weight if w is None else w
        if not (np.isfinite(w) and w > 0):
            raise InputError(f"{config}:{line_no}: the weight must be positive, got {w!r}")
        if c is not None and not (0 < c < 1):
            raise InputError(f"{config}:{line_no}: the confidence level must lie in (0, 1), "
                             f"got {c!r}")
        for variant_name, file in ((baseline, fields[1]), (candidate, fields[2])):
            sample = _read_sample(folder / file, config, line_no)
            names += [name] * sample.size
            variants += [variant_name] * sample.size
            runs.append(np.arange(sample.size, dtype=np.int64))
            values.append(sample)
            weights += [w] * sample.size
            alphas += [None if c is None else round(1.0 - c, 12)] * sample.size
    columns = {
        "benchmark": pa.array(names, pa.string()).dictionary_encode(),
        "variant": pa.array(variants, pa.string()).dictionary_encode(),
        "run": pa.array(np.concatenate(runs)),
        "value": pa.array(np.concatenate(values)),
        "weight": pa.array(weights, pa.float64()),
    }
    if confidence is not None or any(a is not None for a in alphas):
        if confidence is not None and not (0 < confidence < 1):
            raise InputError(f"confidence must lie in (0, 1), got {confidence!r}")
        default = None if confidence is None else round(1.0 - confidence, 12)
        filled = [default if a is None else a for a in alphas]
        if any(a is None for a in filled):
            raise InputError(f"{config}: some lines give a confidence level and others do not; "
                             "pass confidence= for the lines without one")
        columns["alpha"] = pa.array(filled, pa.float64())
    return pa.table(columns)
