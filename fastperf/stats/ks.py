"""Tests on whole distributions: the two-sample Kolmogorov-Smirnov test, batched and per benchmark.

The Speedup-Test's median protocol (seed 002, section 3.2.1) applies it to median-centred
samples, x - med(x) against y - med(y), to check the location-shift model that the
Wilcoxon-Mann-Whitney test assumes (``center="median"``).
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence


from fastperf.engine.ks import ks_options, ks_pairs
from fastperf.data.arrays import two_samples
from fastperf.results.base import BenchmarkResult, TestResult
from fastperf.stats.forms import TableForm, check_y_given, is_table_call, rejected_at

__all__ = ["ks_2samp"]

RESULT_COLUMNS = ["statistic", "statistic_sign", "pvalue", "pvalue_method", "status"]
#: The level at which the table form's summary counts rejected benchmarks.
SUMMARY_ALPHA = 0.05


def ks_2samp(
    x: Any,
    y: Any = None,
    *,
    alternative: str = "two-sided",
    method: str = "auto",
    axis: int = -1,
    center: str | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "TestResult | BenchmarkResult":
    """Two-sample Kolmogorov-Smirnov test of the null hypothesis F_x = F_y, batched.

    D = max_t |F_x(t) - F_y(t)| (two-sided), max_t (F_x - F_y) ("greater"), max_t (F_y - F_x)
    ("less"), with F the empirical distribution functions, compared after all values tied at t
    are counted: scipy's ``ks_2samp`` definitions, argument names and p-values.

    Parameters
    ----------
    x, y : array_like
        Samples along `axis`; the other axes are batched and broadcast together. A pair with a
        NaN or an empty sample gets NaN, its reason in ``status``.
        **Table form**: `x` a measurement table (Arrow object, ``__arrow_c_stream__`` object or
        path(s)), `y` omitted, `baseline` / `candidate` naming two variants: one test per
        benchmark, x = baseline values, y = candidate values (nulls dropped and counted).
    alternative : {"two-sided", "less", "greater"}
        About the CDFs: "less" is F_x < F_y somewhere, i.e. x tends to be *larger* than y (for
        times with x = baseline: the candidate is faster).
    method : {"auto", "exact", "asymp"}
        "auto" is "exact" when max(n1, n2) <= 10000, else "asymp" (ties or not: with ties the
        exact p-value is the one conditional on them, see Notes). Where the exact computation
        fails (one-sided, unequal sizes: overflow beyond n1 + n2 of about 1030) or is not possible
        (n1 n2 / gcd(n1, n2)**2 >= 2**31 - 1, "exact" only), the asymptotic p-value is used with a
        RuntimeWarning, as scipy does.
    axis : int
        Array form: the axis along which the samples lie.
    center : {None, "median"}
        "median": test x - median(x) against y - median(y) (Speedup-Test, seed 002 section
        3.2.1: does the location-shift model hold?). The p-value treats the medians as known,
        as the protocol does, which makes the test conservative.
    baseline, candidate, by, variant, value : table form only.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`).

    Returns
    -------
    TestResult (array form)
        ``statistic`` (D), ``pvalue``, ``status`` ("ok", "NaN in input", "empty sample", ...),
        ``statistic_sign`` (int8: +1 when F_x - F_y attains D, -1 when F_y - F_x does) and
        ``pvalue_method`` ("exact" or "asymp"): shaped like the batch, numpy scalars for 1-D
        input.
    BenchmarkResult (table form)
        ``.benchmarks``: the keys, ``n_baseline``, ``n_candidate``, ``n_dropped_baseline``,
        ``n_dropped_candidate``, ``statistic``, ``statistic_sign``, ``pvalue``,
        ``pvalue_method``, ``status`` ("no baseline values", "no candidate values", ...);
        ``.summary``; ``.warnings``.

    Notes
    -----
    Exact p = P(D >= d) under H0 for continuous data, by counting lattice paths (Hodges 1958,
    Arkiv för Matematik 3, 469-486; two-sided with Viehmann's 2021 recursion for 1 - p,
    arXiv:2102.08037), with d rounded to a multiple of 1 / lcm(n1, n2) as scipy. With ties
    in the pooled sample, the exact p-value is conditional on the tie pattern (the permutation
    distribution of D given the pooled values; Schröer & Trenkler 1995, Computational
    Statistics & Data Analysis 20, 185-202; as R >= 4.2's ``ks.test(exact=TRUE)``): lattice
    paths that reach the boundary at the end of a tie block, n1 n2 steps; where n1 n2 > 10**8
    (``method="exact"`` only) or with ``center="median"``, scipy's continuous-data (conservative)
    p-value instead, the former with a RuntimeWarning. Asymptotic: two-sided,
    the one-sample Kolmogorov distribution with n = round(n1 n2 / (n1 + n2)) (scipy's
    ``kstwo``; Kolmogorov 1933, Smirnov 1939 in the limit); one-sided, Hodges' eq. 5.3,
    exp(-2 z^2 - 2 z (m + 2n) / (3 sqrt(mn (m + n)))), z = d sqrt(mn / (m + n)), m >= n.

    Examples
    --------
    >>> import numpy as np
    >>> from fastperf.stats.ks import ks_2samp
    >>> rng = np.random.default_rng(0)
    >>> res = ks_2samp(rng.lognormal(size=(4, 30)), rng.lognormal(0.5, size=(4, 25)))
    >>> res.statistic.shape, res.pvalue_method.tolist()
    ((4,), ['exact', 'exact', 'exact', 'exact'])
    """
    ks_options(alternative, method, center)
    check_y_given(x, y, "ks_2samp")
    if is_table_call(x, y, "ks_2samp", axis=axis, baseline=baseline, candidate=candidate,
                     by=by, variant=variant, value=value, levels=levels, block=block):
        return KS_TABLE.run(x, baseline=baseline, candidate=candidate, by=by, variant=variant,
                            value=value, levels=levels, block=block,
                            summary={"alternative": alternative, "method": method,
                                                  "center": center},
                            alternative=alternative, method=method, center=center)
    xs, ys, batch_shape = two_samples(x, y, axis)
    columns, messages = ks_pairs(xs, ys, alternative, method, center)
    for message in messages:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    return TestResult.from_batch(batch_shape, columns["statistic"], columns["pvalue"],
                                 columns["status"], statistic_sign=columns["statistic_sign"],
                                 pvalue_method=columns["pvalue_method"])


def _ks_columns(xs, ys, *, alternative, method, center):
    columns, messages = ks_pairs(xs, ys, alternative, method, center)
    return {name: columns[name] for name in RESULT_COLUMNS}, list(messages)


def _ks_summary(table) -> dict:
    source = table.column("pvalue_method").to_numpy(zero_copy_only=False)
    return {"pvalues_exact": int((source == "exact").sum()),
            "pvalues_asymp": int((source == "asymp").sum()),
            **rejected_at(SUMMARY_ALPHA)(table)}


KS_TABLE = TableForm("ks_2samp", "independent", tuple(RESULT_COLUMNS), _ks_columns,
                     summarize=_ks_summary)
