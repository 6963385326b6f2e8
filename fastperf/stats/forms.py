"""The two call forms of every single test, each written once.

**Array form** (scipy's conventions, in the spirit of scipy's ``_axis_nan_policy`` machinery):
samples lie along `axis`, the other axes are a batch; `fastperf.data.arrays` turns the arrays into
CSR `Samples`, the engine computes one value per sample, and `TestResult.from_batch` shapes every
field back to the batch shape.

**Table form** (in the spirit of flox's ``Aggregation``): a test declares a `TableForm` — its
name, its design and a `compute` function from samples to columns — and `TableForm.run` does the
rest in one place: the form check, variant selection (an unknown variant names the variants
present), the key-clash check, pairing by run, ``log``, the count columns (``n_*``,
``n_dropped_*``), the status of benchmarks that lack a side, the warnings, the summary keys and
the result object.

Designs and their count columns:

``independent``
    baseline and candidate samples per benchmark: ``n_baseline``, ``n_candidate``,
    ``n_dropped_baseline``, ``n_dropped_candidate``; a side without values gives the status
    "no baseline values" / "no candidate values".
``paired``
    per benchmark, the runs of the two variants with the same `pair` value: ``n``,
    ``n_unmatched``, ``n_dropped``, ``n_duplicated``; no pair gives "no paired runs".
``groups``
    one sample per (`by` keys, `variant`) group: ``n``, ``n_dropped``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.data.samples import group_samples, paired_variant_samples, variant_samples
from fastperf.data.validation import check_choice, check_flag, check_key_clash, check_variants
from fastperf.engine.pvalues import first_reason
from fastperf.engine.ranks import log_values
from fastperf.errors import InputError
from fastperf.io.tables import column_name, is_measurement_table, key_list
from fastperf.results.base import BenchmarkResult, dropped_warnings, keyed_table

__all__ = ["DESIGNS", "TableForm", "is_table_call", "check_array_call", "paired_differences", "rejected_at"]

#: The count columns of each design, in table order.
DESIGNS: dict[str, tuple[str, ...]] = {
    "independent": ("n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate"),
    "paired": ("n", "n_unmatched", "n_dropped", "n_duplicated"),
    "groups": ("n", "n_dropped"),
}

#: Compute function of a table form: ``compute(x, y, **options)`` with `x`, `y` the samples
#: (`y` None for the groups design; for the paired design `x` is baseline, `y` candidate, pair
#: j of both at the same position) returning the test's columns in table order (a ``status``
#: column included) and its warnings.
Compute = Callable[..., "tuple[dict[str, np.ndarray], list[str]]"]


def is_table_call(x: Any, y: Any, function: str, *, axis: int, table_args: Mapping[str, Any]) -> bool:
    """Which form a call takes, from its first argument: a measurement table (or path) alone is
    the table form; arrays are the array form. Arguments of the other form are an error."""
    if y is None and is_measurement_table(x):
        if axis != -1:
            raise InputError(f"{function}: axis= applies to arrays; a measurement table is "
                             "tested per benchmark (`by`)")
        return True
    check_array_call(x, function, table_args)
    return False


def check_array_call(x: Any, function: str, table_args: Mapping[str, Any]) -> None:
    """The array form takes no table-form argument, and no table as a sample."""
    if is_measurement_table(x):
        raise InputError(f"{function}: pass a measurement table alone (y omitted), with "
                         "baseline= and candidate=")
    given = [name for name, value in table_args.items() if value is not None]
    if given:
        raise InputError(f"{function}: {', '.join(g + '=' for g in given)} apply to a measurement "
                         "table passed alone; with arrays the samples lie along axis=")


@dataclass(frozen=True)
class TableForm:
    """Declarative spec of a test's table form.

    Attributes
    ----------
    function : str
        The public function's name (messages, ``summary["function"]``).
    design : {"independent", "paired", "groups"}
    columns : tuple of str
        The test's own output columns (``status`` included), for the key-clash check.
    compute : callable
        See `Compute`.
    log : bool
        Whether the test accepts ``log=True`` (values replaced by their logarithms).
    result : type
        The result class (a `Result`).
    summarize : callable or None
        ``summarize(table) -> dict``: further summary figures from the finished table.
    """

    function: str
    design: str
    columns: tuple[str, ...]
    compute: Compute
    log: bool = False
    result: type = BenchmarkResult
    summarize: Callable[[Any], dict] | None = None

    def run(self, data: Any, *, baseline: str | None = None, candidate: str | None = None,
            by: str | Sequence[str] | None = "benchmark", variant: str | None = "variant",
            value: str = "value", pair: str = "run", log: bool = False,
            summary: Mapping[str, Any] | None = None, **options: Any) -> BenchmarkResult:
        """The test per benchmark (or group) of measurement table `data`; see the module
        docstring for what is done here. `summary` holds the options to report."""
        check_choice(self.design, "design", DESIGNS)
        column_name(value, "value")
        column_name(variant, "variant", allow_none=self.design == "groups")
        if self.design == "paired":
            column_name(pair, "pair")
        counts = DESIGNS[self.design]
        keys = key_list(by) + ([variant] if self.design == "groups" and variant is not None else [])
        check_key_clash(keys, counts + self.columns, self.function, value)
        if check_flag(log, "log") and not self.log:
            raise InputError(f"{self.function} takes no log= argument")
        if self.design == "groups":
            if baseline is not None or candidate is not None:
                raise InputError(f"{self.function} on a measurement table tests every "
                                 "(benchmark, variant) group: omit baseline= and candidate=")
            keys_table, x, n_dropped = group_samples(data, by=by, variant=variant, value=value)
            y = None
            count_columns = {"n": x.sizes, "n_dropped": n_dropped}
            missing = []  # every group has rows; a test says why it cannot use too few
            warnings = dropped_warnings(n_dropped)
        elif self.design == "independent":
            check_variants(self.function, baseline, candidate)
            vs = variant_samples(data, variants=[baseline, candidate], by=by, variant=variant,
                                 value=value)
            keys_table = vs.keys
            x, y = vs.samples[baseline], vs.samples[candidate]
            dropped_x, dropped_y = vs.n_dropped[baseline], vs.n_dropped[candidate]
            count_columns = {"n_baseline": x.sizes, "n_candidate": y.sizes,
                             "n_dropped_baseline": dropped_x, "n_dropped_candidate": dropped_y}
            missing = [(x.sizes == 0, "no baseline values"), (y.sizes == 0, "no candidate values")]
            warnings = dropped_warnings(dropped_x + dropped_y, "benchmark(s)",
                                        "n_dropped_baseline / n_dropped_candidate")
        else:
            check_variants(self.function, baseline, candidate)
            pairs = paired_variant_samples(data, baseline=baseline, candidate=candidate, by=by,
                                           variant=variant, value=value, run=pair)
            keys_table, x, y = pairs.keys, pairs.baseline, pairs.candidate
            count_columns = {"n": x.sizes, "n_unmatched": pairs.n_unmatched,
                             "n_dropped": pairs.n_dropped, "n_duplicated": pairs.n_duplicated}
            missing = [(x.sizes == 0, "no paired runs")]
            warnings = dropped_warnings(pairs.n_dropped, "benchmark(s)") + pairs.duplicate_warnings()
        if log:
            x = log_values(x, f"baseline {baseline!r}" if y is not None else "sample")
            if y is not None:
                y = log_values(y, f"candidate {candidate!r}")
        if self.log:
            options["log"] = bool(log)  # the test reports its effect as a ratio then
        columns, test_warnings = self.compute(x, y, **options)
        status = np.asarray(columns.pop("status"))
        if missing:
            lacking = first_reason([c for c, _ in missing], [r for _, r in missing], "")
            status = np.where(lacking != "", lacking, status)
        table = keyed_table(keys_table, {**count_columns, **columns, "status": status})
        warnings = [*test_warnings, *warnings, *_not_tested_warnings(status)]
        head = {"function": self.function}
        if self.design != "groups":
            head.update(baseline=baseline, candidate=candidate)
        if self.log:
            head["log"] = bool(log)
        values = int(x.sizes.sum()) + (int(y.sizes.sum()) if y is not None else 0)
        dropped = sum(int(np.asarray(count_columns[c]).sum()) for c in count_columns
                      if c.startswith("n_dropped"))
        extra = self.summarize(table) if self.summarize is not None else {}
        return self.result(table, {**head, **(summary or {}), **extra, "values": values,
                                  "dropped": dropped},
                           warnings)


def rejected_at(level: float) -> Callable[[Any], dict]:
    """A `TableForm.summarize` counting the tested rows with p <= `level`."""
    def summarize(table) -> dict:
        status = table.column("status").to_numpy(zero_copy_only=False)
        p = table.column("pvalue").to_numpy(zero_copy_only=False)
        tested = status == "ok"
        return {"rows_tested": int(tested.sum()),
                f"rows_rejected_at_{level}": int((p[tested] <= level).sum())}
    return summarize


def _not_tested_warnings(status: np.ndarray) -> list[str]:
    """One warning per reason a row was not tested, with its count."""
    not_ok = status != "ok"
    reasons, counts = np.unique(status[not_ok], return_counts=True)
    return [f"{int(count)} row(s) not tested: {reason} (see status)"
            for reason, count in zip(reasons, counts)]


def paired_differences(xs: Samples, ys: Samples) -> tuple[Samples, np.ndarray]:
    """The differences x − y of paired samples (shared offsets), and which samples hold them
    halved.

    A sample of finite values whose difference overflows gets (x / 2) − (y / 2) throughout:
    its signs, ranks and sign-flip permutations are those of x − y (halving is exact and
    monotone), and only its location figures (a statistic in the values' unit, the
    Hodges-Lehmann estimate and interval) are doubled back by the caller.

    Parameters
    ----------
    xs, ys : Samples
        The paired samples.

    Returns
    -------
    (Samples, numpy.ndarray of bool)
        The differences, and per sample whether they are halved.

    Notes
    -----
    IEEE 754: x / 2 and y / 2 are exact (bar subnormals), and so is their difference where x − y
    overflows.
    """
    from fastperf.engine.parametric import infinite_counts

    with np.errstate(over="ignore", invalid="ignore"):
        d = xs.values - ys.values
    over = np.isinf(d) & np.isfinite(xs.values) & np.isfinite(ys.values)
    halved = infinite_counts(Samples(np.where(over, np.inf, 0.0), xs.offsets)) > 0
    if halved.any():  # the values of the halved segments: +1 at their starts, -1 at their ends
        edges = np.zeros(d.shape[0] + 1, dtype=np.int64)
        np.add.at(edges, xs.offsets[:-1][halved], 1)
        np.add.at(edges, xs.offsets[1:][halved], -1)
        d = np.where(np.cumsum(edges)[:-1] > 0, xs.values / 2.0 - ys.values / 2.0, d)
    return Samples(d, xs.offsets), halved
