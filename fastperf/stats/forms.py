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

Levels (`fastperf.data.levels`, docs/nested.md): when the table has levels (``process``,
``build``) or a block (``round``), or ``levels=`` / ``block=`` name them, each (benchmark,
variant) is first collapsed to the means of its independent units (`unit_means`) and the test
runs unchanged on them, so that ``n`` counts units; the paired design pairs the variants' unit
means of a block (`paired_column`). ``levels=[]`` is the flat analysis (every value
independent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.data.identity import group_identities
from fastperf.data.levels import Structure, collapse_levels, resolve_structure
from fastperf.data.samples import group_samples, paired_variant_samples, variant_samples
from fastperf.data.validation import check_choice, check_flag, check_key_clash, check_variants
from fastperf.engine.pvalues import first_reason
from fastperf.engine.parametric import infinite_counts
from fastperf.engine.ranks import log_values
from fastperf.errors import InputError
from fastperf.io.read import load_table
from fastperf.io.read import is_measurement_table
from fastperf.io.tables import column_name, key_list
from fastperf.results.base import BenchmarkResult, dropped_warnings, keyed_table

__all__ = ["DESIGNS", "ONE_FORM_ARGUMENTS", "TableForm", "is_table_call", "check_y_given",
           "check_not_table",
           "check_one_form", "paired_differences", "rejected_at", "unit_means", "paired_column",
           "PAIRED_NESTED_MESSAGE"]

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


#: The arguments that one form only uses: name -> (that form, the default every function gives
#: it). `confidence` is the table forms' interval level in the tests whose array result takes its
#: level from ``confidence_interval(confidence)``; `bootstrap` uses it in both forms and does not
#: pass it to `check_one_form`.
ONE_FORM_ARGUMENTS: dict[str, tuple[str, Any]] = {
    "baseline": ("table", None), "candidate": ("table", None), "by": ("table", "benchmark"),
    "variant": ("table", "variant"), "value": ("table", "value"), "pair": ("table", "run"),
    "log": ("table", False), "confidence": ("table", 0.95),
    "levels": ("table", None), "block": ("table", None),
    "axis": ("array", -1), "nan_policy": ("array", "propagate"),
    "return_distribution": ("array", False),
}


def is_table_call(x: Any, y: Any, function: str, **arguments: Any) -> bool:
    """Which form a call takes, from its first argument: a measurement table (or path) alone is
    the table form; arrays are the array form. `arguments` are the call's arguments that one
    form only uses (`check_one_form`)."""
    table = y is None and is_measurement_table(x)
    if not table:
        check_not_table(x, function)
    check_one_form(function, table, **arguments)
    return table


def check_y_given(x: Any, y: Any, function: str) -> None:
    """A two-sample call has its second sample, unless its first is a measurement table (the
    table form)."""
    if y is None and not is_measurement_table(x):
        raise InputError(f"{function}: y is required unless x is a measurement table")


def check_not_table(x: Any, function: str) -> None:
    """A sample of the array form is no measurement table."""
    if is_measurement_table(x):
        raise InputError(f"{function}: pass a measurement table alone (y omitted), with "
                         "baseline= and candidate=")


def check_one_form(function: str, table: bool, **arguments: Any) -> None:
    """One form per call: refuse an argument that only the other form uses.

    Parameters
    ----------
    function : str
        The public function's name, for the message.
    table : bool
        Whether the call takes the table form.
    **arguments
        The call's arguments that one form only uses (names of `ONE_FORM_ARGUMENTS`). One of
        the other form counts as given when its value is not its default.

    Raises
    ------
    InputError
        Naming each argument given that the call's form does not use.
    """
    other = "array" if table else "table"
    given = [name for name, value in arguments.items()
             if ONE_FORM_ARGUMENTS[name][0] == other
             and not _is_default(value, ONE_FORM_ARGUMENTS[name][1])]
    if not given:
        return
    names = ", ".join(name + "=" for name in given)
    verb = "applies" if len(given) == 1 else "apply"
    if table:
        raise InputError(f"{function}: {names} {verb} to arrays, not to a measurement table "
                         "(tested per benchmark, `by`; null/NaN dropped and counted)")
    hint = ("; the array result's interval takes its level from confidence_interval(confidence)"
            if "confidence" in given else "")
    raise InputError(f"{function}: {names} {verb} to measurement tables passed alone, not to "
                     f"arrays: with arrays the samples lie along axis={hint}")


def _is_default(value: Any, default: Any) -> bool:
    """Whether `value` is the argument's default (an array or a list never is)."""
    if value is default:
        return True
    if (isinstance(value, (list, tuple, dict, np.ndarray))
            or isinstance(value, bool) != isinstance(default, bool)):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


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
    identities : bool
        Whether `compute` draws random numbers per group: it then gets ``identities=``, the
        groups' identities (`fastperf.data.identity.group_identities` of their key values),
        to key each group's streams by.
    """

    function: str
    design: str
    columns: tuple[str, ...]
    compute: Compute
    log: bool = False
    result: type = BenchmarkResult
    summarize: Callable[[Any], dict] | None = None
    identities: bool = False

    def run(self, data: Any, *, baseline: str | None = None, candidate: str | None = None,
            by: str | Sequence[str] | None = "benchmark", variant: str | None = "variant",
            value: str = "value", pair: str = "run", log: bool = False,
            levels: str | Sequence[str] | None = None, block: str | None = None,
            summary: Mapping[str, Any] | None = None, **options: Any) -> BenchmarkResult:
        """The test per benchmark (or group) of measurement table `data`; see the module
        docstring for what is done here. `summary` holds the options to report; `levels` and
        `block` are those of `fastperf.data.levels.resolve_structure`."""
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
        data = load_table(data)
        taken = [*keys, value, *([variant] if variant is not None else []),
                 *([pair] if self.design == "paired" else [])]
        structure = resolve_structure(data.column_names, levels, block, taken=taken)
        if not structure.flat:
            if self.design == "paired":
                pair = paired_column(structure)
            data = unit_means(data, key_list(by), variant, value, structure)
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
        if self.identities:
            options["identities"] = group_identities(keys_table)
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
                                  "dropped": dropped, "structure": structure.label()},
                           warnings)


#: The error of a paired analysis of nested data without a block to pair the units on.
PAIRED_NESTED_MESSAGE = (
    "a paired analysis of nested data pairs units: pass block= (the column whose values pair a "
    "baseline unit with a candidate unit, e.g. 'round'), or levels=[] for the flat analysis")


def unit_means(table: Any, keys: Sequence[str], variant: str | None, value: str,
               structure: Structure, carried: Sequence[str | None] = ()) -> Any:
    """The table an analysis at the level of the independent units runs on: one row per unit
    of each (keys, variant) group, its `value` the unit's mean
    (`fastperf.data.levels.collapse_levels`), keeping the per-benchmark columns `carried`.

    Parameters
    ----------
    table : pyarrow.Table
        The measurement table (complete groups).
    keys : sequence of str
        The benchmark key columns.
    variant : str or None
        The variant column.
    value : str
        The value column.
    structure : Structure
        `fastperf.data.levels.resolve_structure`.
    carried : sequence of str or None
        Columns that hold one value per benchmark (a unit, a risk level or weight column):
        kept, as further keys of the collapse, when the table has them (a benchmark whose
        column varies keeps each value on its own units, so a later check still sees it vary).

    Returns
    -------
    pyarrow.Table
        `table` itself when `structure` is flat.

    Notes
    -----
    Kalibera & Jones (2013): the means of the independent units are independent under the
    random-effects model, so a test on them holds its level whatever the variance components.
    """
    if structure.flat:
        return table
    present = set(table.column_names)
    extra = [c for c in dict.fromkeys(carried) if isinstance(c, str) and c in present
             and c not in keys and c != variant and c != value]
    outer = [*keys, *extra, *([variant] if variant is not None else [])]
    return collapse_levels(table, outer, None, value, structure)


def paired_column(structure: Structure) -> str:
    """The column that pairs a baseline unit with a candidate unit: the block.

    Parameters
    ----------
    structure : Structure
        A structure that is not flat.

    Returns
    -------
    str
        ``structure.block``.

    Raises
    ------
    InputError
        Nested levels without a block (`PAIRED_NESTED_MESSAGE`).

    Notes
    -----
    Argument plumbing: no formula.
    """
    if structure.block is None:
        raise InputError(PAIRED_NESTED_MESSAGE)
    return structure.block


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
    with np.errstate(over="ignore", invalid="ignore"):
        d = xs.values - ys.values
    infinite = np.isinf(d)
    if not infinite.any():  # the usual case: nothing overflows, one pass
        return Samples(d, xs.offsets), np.zeros(len(xs), dtype=bool)
    over = infinite & np.isfinite(xs.values) & np.isfinite(ys.values)
    halved = infinite_counts(Samples(np.where(over, np.inf, 0.0), xs.offsets)) > 0
    if halved.any():  # the values of the halved segments: +1 at their starts, -1 at their ends
        edges = np.zeros(d.shape[0] + 1, dtype=np.int64)
        np.add.at(edges, xs.offsets[:-1][halved], 1)
        np.add.at(edges, xs.offsets[1:][halved], -1)
        d = np.where(np.cumsum(edges)[:-1] > 0, xs.values / 2.0 - ys.values / 2.0, d)
    return Samples(d, xs.offsets), halved
