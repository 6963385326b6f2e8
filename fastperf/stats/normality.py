"""`shapiro`: the Shapiro-Wilk test of normality, on arrays (batched along an axis) or on every
(benchmark, variant) group of a measurement table."""
from __future__ import annotations

from typing import Any, Sequence, cast

from fastperf.data.arrays import one_sample
from fastperf.results.base import GroupResult, TestResult
from fastperf.stats.forms import TableForm, is_table_call, rejected_at
from fastperf.engine.normality import shapiro_wilk_samples

__all__ = ["shapiro", "ShapiroResult"]


#: The level at which the summary counts groups whose normality is rejected.
SUMMARY_ALPHA = 0.05


class ShapiroResult(GroupResult):
    """Result of `shapiro` on a measurement table.

    Attributes
    ----------
    groups : pyarrow.Table
        One row per (`by` keys, `variant`) group: the keys, then ``n``, ``n_dropped``,
        ``statistic`` (W), ``pvalue``, ``status``.
    summary : dict
        ``function`` ("shapiro"), ``dropped`` (null/NaN), ``rows_tested``,
        ``rows_rejected_at_0.05`` (tested groups with p <= 0.05), ``rows``, ``rows_not_ok``.
    warnings : list of str
    """


def _shapiro_columns(samples, _unused, **_options):
    w, p, status = shapiro_wilk_samples(samples)
    return {"statistic": w, "pvalue": p, "status": status}, []


SHAPIRO_TABLE = TableForm("shapiro", "groups", ("statistic", "pvalue", "status"),
                          _shapiro_columns, result=ShapiroResult,
                          summarize=rejected_at(SUMMARY_ALPHA))


def shapiro(
    x: Any,
    *,
    axis: int = -1,
    by: str | Sequence[str] | None = "benchmark",
    variant: str | None = "variant",
    value: str = "value",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> TestResult | ShapiroResult:
    """Shapiro-Wilk test of the null hypothesis that a sample comes from a normal distribution.

    Array form ``shapiro(x, axis=-1)``: one test per sample along `axis`, like
    ``scipy.stats.shapiro(x, axis=axis)``. Table form ``shapiro(data, by=, variant=, value=)``:
    one test per (`by` keys, `variant`) group of a measurement table. The form follows the type
    of the first argument.

    Parameters
    ----------
    x : array_like, or a measurement table
        Array form: numbers, samples along `axis` (a pandas/polars Series or a pyarrow array is
        one sample). Table form: a ``pyarrow.Table``, ``RecordBatch``, ``RecordBatchReader``,
        any object with ``__arrow_c_stream__`` (polars/pandas DataFrame, duckdb) or path(s)
        read with `fastperf.read`.
    axis : int
        Array form only: the axis along which the samples lie.
    by : str or list of str or None
        Table form only: key column(s) naming the benchmark.
    variant : str or None
        Table form only: the column naming the system/version measured (None: no variants).
    value : str
        Table form only: the measurement column; null and NaN values are dropped and counted.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`).

    Returns
    -------
    TestResult (array form)
        ``statistic`` (W) and ``pvalue`` shaped like the batch (numpy scalars for 1-D input), and
        ``status``: "ok" or why the sample was not tested, in which case W and p are NaN:
        "n < 3", "n > 5000", "NaN in input" (scipy's ``nan_policy="propagate"``), "infinite value
        in input", "all values equal (zero range)".
    ShapiroResult (table form)
        ``.groups``: the keys, then ``n``, ``n_dropped``, ``statistic``, ``pvalue``,
        ``status`` (one row per group, in the grouper's order); ``.summary``; ``.warnings``.

    Notes
    -----
    W = (sum_i a_i x_(i))^2 / sum_i (x_i - mean)^2 (Shapiro & Wilk 1965, Biometrika 52), with
    Royston's approximations of the coefficients a_i and of W's null distribution (Royston 1992,
    Statistics and Computing 2; algorithm AS R94, Applied Statistics 44, 1995), ported from the
    Fortran scipy uses, so W and p agree with ``scipy.stats.shapiro`` to rounding for
    3 <= n <= 5000 (p is exact for n = 3). Small p rejects normality.

    Seed 002 (Touati, Worms & Briais, the Speedup-Test): the mean protocol may apply Student's
    t-test to small samples (n <= 30) only when both pass this normality test at the risk level
    alpha; otherwise it cannot conclude on the mean.

    Examples
    --------
    >>> import numpy as np
    >>> from fastperf.stats.normality import shapiro
    >>> res = shapiro(np.random.default_rng(0).lognormal(size=(3, 20)))
    >>> res.statistic.shape, res.status.tolist()
    ((3,), ['ok', 'ok', 'ok'])
    """
    if is_table_call(x, None, "shapiro", axis=axis, by=by, variant=variant, value=value,
                     levels=levels, block=block):
        # a ShapiroResult: SHAPIRO_TABLE's result class (TableForm.run is typed for any form)
        return cast(ShapiroResult, SHAPIRO_TABLE.run(x, by=by, variant=variant, value=value,
                                                     levels=levels, block=block))
    samples, batch_shape = one_sample(x, axis)
    w, p, status = shapiro_wilk_samples(samples)
    return TestResult.from_batch(batch_shape, w, p, status)
