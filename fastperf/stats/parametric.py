"""Parametric tests, batched: Student and Welch t-tests, the paired t-test, Fisher's F-test.

The Speedup-Test's mean protocol (seed 002) uses them: the F-test decides between Student's and
Welch's t-test, and the one-sided t-test decides whether the candidate's mean time is lower.
Lilja's interval of the mean of paired differences (seed 000) is `ttest_rel`'s interval.

Each function works on arrays (samples along `axis`, batched over the other axes, scipy's
argument names and statistic definitions) and on measurement tables (one test per benchmark,
baseline against candidate). The moments come from one kernel (``sample_moments``); the
statistics and p-values are whole-array arithmetic on them.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from scipy.special import fdtri

from fastperf.data.validation import check_alternative, check_confidence, check_flag
from fastperf.data.arrays import Samples, paired_samples, shaped, two_samples
from fastperf.engine.parametric import (
    f_from_moments, infinite_counts, paired_t, scaled_moments_of, t_from_moments, t_pvalue,
    t_quantile,
)
from fastperf.results.base import BenchmarkResult, ConfidenceInterval, TestResult
from fastperf.stats.forms import TableForm, check_y_given, is_table_call


__all__ = ["ttest_ind", "ttest_rel", "ftest", "ConfidenceInterval", "TTestResult", "FTestResult"]



class TTestResult(TestResult):
    """Result of `ttest_ind` / `ttest_rel`: ``statistic`` (t), ``pvalue``, ``df``, ``status``,
    ``estimate`` (the mean difference x - y), ``standard_error``; and `confidence_interval`."""

    # set by TestResult.__init__ (numpy arrays shaped like the batch, numpy scalars for a single
    # test); declared for type checkers
    df: Any
    estimate: Any
    standard_error: Any

    def __init__(self, statistic, pvalue, status, *, df, estimate, standard_error, alternative,
                 batch_shape):
        super().__init__(statistic, pvalue, status, df=df, estimate=estimate,
                         standard_error=standard_error)
        self._alternative = alternative
        self._batch_shape = batch_shape

    def confidence_interval(self, confidence: float = 0.95) -> ConfidenceInterval:
        """Interval of the mean difference (x - y) matching the test's alternative.

        Two-sided: estimate -/+ t[(1+c)/2; df] * se; "less": (-inf, estimate + t[c; df] * se);
        "greater": (estimate - t[c; df] * se, inf), as scipy. For `ttest_rel` this is Lilja's
        interval of the mean of paired differences (seed 000). A bound beyond the float64 range
        is NaN (the table forms name it in ``status``).
        """
        confidence = check_confidence(confidence)
        estimate = np.asarray(self.estimate, dtype=float)
        se = np.asarray(self.standard_error, dtype=float)
        df = np.asarray(self.df, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            if self._alternative == "two-sided":
                half = t_quantile(0.5 + confidence / 2, df) * se
                low, high = _bound(estimate - half), _bound(estimate + half)
            elif self._alternative == "less":
                low = np.full_like(estimate, -np.inf)
                high = _bound(estimate + t_quantile(confidence, df) * se)
            else:
                low = _bound(estimate - t_quantile(confidence, df) * se)
                high = np.full_like(estimate, np.inf)
        return ConfidenceInterval(shaped(low, self._batch_shape), shaped(high, self._batch_shape))


def _bound(x):
    """An interval bound, NaN where it lies beyond the float64 range."""
    return np.where(np.isinf(x), np.nan, x)


def _interval_status(status, ci):
    """The status, naming a two-sided interval of an "ok" test beyond the float64 range."""
    beyond = (status == "ok") & (np.isnan(ci.low) | np.isnan(ci.high))  # see `_bound`
    return np.where(beyond, "confidence interval beyond the float64 range", status)


def _finish_t(t, df, se, estimate, status, alternative, batch_shape) -> TTestResult:
    failed = status != "ok"
    t = np.where(failed, np.nan, t)
    df = np.where(failed, np.nan, df)
    p = t_pvalue(t, df, alternative)
    return TTestResult.from_batch(
        batch_shape, t, p, status, df=df, estimate=np.where(failed, np.nan, estimate),
        standard_error=np.where(failed, np.nan, se), alternative=alternative,
        batch_shape=batch_shape)


def ttest_ind(
    x: Any,
    y: Any = None,
    *,
    equal_var: bool = True,
    alternative: str = "two-sided",
    axis: int = -1,
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    confidence: float = 0.95,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "TTestResult | BenchmarkResult":
    """Student's (``equal_var=True``) or Welch's t-test of two independent samples.

    t = (x̄ − ȳ) / se with se = sqrt(s_p² (1/n₁ + 1/n₂)), s_p² the pooled variance, df = n₁ + n₂ − 2
    (Student); or se = sqrt(s₁²/n₁ + s₂²/n₂) and the Welch-Satterthwaite df (Welch). scipy's
    definitions; the p-value's tail is computed directly (``scipy.special.stdtr``).

    Parameters
    ----------
    x, y : array_like
        Samples along `axis`; the other axes are batched (and broadcast). A sample with NaN or
        +-inf ("infinite value in input"), fewer than 2 values, or zero variance in both samples
        gets NaN with its reason in ``status``; so does a result beyond the float64 range (finite
        values of any magnitude are scaled by a power of two before summing).
        **Table form**: `x` a measurement table (or path), `y` omitted, `baseline` and
        `candidate` naming the variants: one test per benchmark, x = baseline, y = candidate
        (nulls dropped and counted).
    equal_var : bool
    alternative : {"two-sided", "less", "greater"}
        "greater": the mean of x is greater than that of y (for times, x = baseline: the
        candidate is faster).
    axis : int
    baseline, candidate, by, variant, value : table form only.
    confidence : float
        Table form: level of the ``ci_low`` / ``ci_high`` columns (the mean difference).
        Checked in both forms (in (0, 1)); the array form's interval
        takes its level from ``confidence_interval(confidence)``.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`).

    Returns
    -------
    TTestResult (arrays) or BenchmarkResult (table form, ``.benchmarks`` one row per benchmark).
    """
    alternative = check_alternative(alternative)
    confidence = check_confidence(confidence)  # both forms: a bad level is never ignored
    equal_var = check_flag(equal_var, "equal_var")
    check_y_given(x, y, "ttest_ind")
    if is_table_call(x, y, "ttest_ind", axis=axis, baseline=baseline,
                     candidate=candidate, by=by, variant=variant, value=value,
                     confidence=confidence, levels=levels, block=block):
        return TTEST_IND_TABLE.run(
            x, baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
            levels=levels, block=block,
            summary={"alternative": alternative, "equal_var": equal_var},
            alternative=alternative, equal_var=equal_var, confidence=confidence)
    xs, ys, batch_shape = two_samples(x, y, axis)
    (n1, nan1, _, m1, v1, e1, _), (n2, nan2, _, m2, v2, e2, _) = (scaled_moments_of(xs),
                                                                   scaled_moments_of(ys))
    t, df, se, estimate, status = t_from_moments(n1, nan1, m1, v1, n2, nan2, m2, v2, equal_var,
                                                 e1, e2)
    return _finish_t(t, df, se, estimate, status, alternative, batch_shape)


def ttest_rel(
    x: Any,
    y: Any = None,
    *,
    alternative: str = "two-sided",
    axis: int = -1,
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    pair: str = "run",
    confidence: float = 0.95,
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "TTestResult | BenchmarkResult":
    """Paired t-test: the one-sample t-test of the differences d = x − y.

    t = d̄ / (s_d / √n), df = n − 1 (scipy's `ttest_rel`). ``confidence_interval()`` is Lilja's
    interval of the mean of differences, d̄ ∓ t[1 − α/2; n − 1] s_d / √n (seed 000: the
    before/after example gives [−5.3523, 3.3523]). x and y must have the same length along
    `axis`; a NaN in either member of a pair makes that test NaN ("NaN in input"), an inf
    "infinite value in input"; differences beyond the float64 range are taken halved.

    **Table form**: `x` a measurement table, `y` omitted, `baseline` / `candidate` variant
    names: per benchmark, the baseline and candidate measurements with the same `pair` value are
    paired (runs on one side only, pairs with a null, and runs repeated within a variant are
    dropped and counted in ``n_unmatched``, ``n_dropped``, ``n_duplicated``); returns a
    `BenchmarkResult` with ``mean_difference``, ``statistic``, ``df``, ``pvalue``, ``ci_low``,
    ``ci_high`` (at `confidence`) and ``status`` per benchmark.

    Parameters
    ----------
    x, y : array_like
        Paired samples along `axis` (same length), batched over the other axes; or `x` a
        measurement table and `y` omitted (the table form).
    alternative : {"two-sided", "less", "greater"}
        "greater": the mean difference x − y is positive.
    axis : int
        Array form: the axis of the samples.
    baseline, candidate, by, variant, value : table form only (see docs/conventions.md).
    pair : str
        Table form: the column whose equal values pair a baseline run with a candidate run.
    confidence : float
        Table form: level of ``ci_low`` / ``ci_high``.
        Checked in both forms (in (0, 1)); the array form's interval
        takes its level from ``confidence_interval(confidence)``.
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`);
        a paired test pairs them on the block (nested levels without a block are an error).

    Returns
    -------
    TTestResult or BenchmarkResult
        Array form: ``statistic`` (t), ``pvalue``, ``df``, ``estimate`` (mean difference),
        ``standard_error``, ``status``; table form: one row per benchmark.

    Notes
    -----
    Student (1908), Biometrika 6: t = d̄ / (s_d / √n) has Student's distribution with n − 1
    degrees of freedom under H0: E[d] = 0.
    """
    alternative = check_alternative(alternative)
    confidence = check_confidence(confidence)  # both forms: a bad level is never ignored
    check_y_given(x, y, "ttest_rel")
    if is_table_call(x, y, "ttest_rel", axis=axis, baseline=baseline,
                     candidate=candidate, by=by, variant=variant, value=value, pair=pair,
                     confidence=confidence, levels=levels, block=block):
        return TTEST_REL_TABLE.run(
            x, baseline=baseline, candidate=candidate, by=by, variant=variant, value=value,
            pair=pair, levels=levels, block=block, summary={"alternative": alternative},
            alternative=alternative,
            confidence=confidence)
    xs, ys, batch_shape = paired_samples(x, y, axis)
    _, t, df, se, mean, status = _paired_t(xs, ys)
    return _finish_t(t, df, se, mean, status, alternative, batch_shape)


class FTestResult(TestResult):
    """Result of `ftest`: ``statistic`` (F = s₁²/s₂²), ``pvalue``, ``df_x``, ``df_y``,
    ``status``; and `confidence_interval` of the variance ratio."""

    # set by TestResult.__init__ (numpy arrays shaped like the batch, numpy scalars for a single
    # test); declared for type checkers
    df_x: Any
    df_y: Any

    def __init__(self, statistic, pvalue, status, *, df_x, df_y, batch_shape):
        super().__init__(statistic, pvalue, status, df_x=df_x, df_y=df_y)
        self._batch_shape = batch_shape

    def confidence_interval(self, confidence: float = 0.95) -> ConfidenceInterval:
        """Two-sided interval of σ₁²/σ₂²: [F / f[(1+c)/2], F / f[(1−c)/2]] (R's ``var.test``)."""
        confidence = check_confidence(confidence)
        f = np.asarray(self.statistic, dtype=float)
        d1, d2 = np.asarray(self.df_x, dtype=float), np.asarray(self.df_y, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            low = f / fdtri(d1, d2, 0.5 + confidence / 2)
            high = f / fdtri(d1, d2, 0.5 - confidence / 2)
        return ConfidenceInterval(shaped(low, self._batch_shape), shaped(high, self._batch_shape))


def ftest(
    x: Any,
    y: Any = None,
    *,
    alternative: str = "two-sided",
    axis: int = -1,
    baseline: str | None = None,
    candidate: str | None = None,
    by: str | Sequence[str] | None = "benchmark",
    variant: str = "variant",
    value: str = "value",
    levels: str | Sequence[str] | None = None,
    block: str | None = None,
) -> "FTestResult | BenchmarkResult":
    """Fisher's F-test of equal variances: F = s₁² / s₂² ~ F(n₁ − 1, n₂ − 1) under H0.

    The Speedup-Test (seed 002) uses it to choose between Student's and Welch's t-test. The
    two-sided p-value is min(1, 2 min(P[F' <= F], P[F' >= F])) as R's ``var.test``; each tail is
    computed directly. "greater": the variance of x is greater than that of y.

    Array form as `ttest_ind` (NaN with a reason in ``status`` for NaN or infinite input, fewer
    than 2 values, zero variance in both samples, or an F beyond the float64 range; a constant y alone gives F = inf and the p-values of
    R's ``var.test``); table form: `x` a measurement table, `y` omitted, with
    `baseline` / `candidate`: one test per benchmark.

    Parameters
    ----------
    x, y : array_like
        Samples along `axis`, batched (and broadcast) over the other axes; or `x` a measurement
        table and `y` omitted (the table form).
    alternative : {"two-sided", "less", "greater"}
        "greater": the variance of x is greater than that of y.
    axis : int
        Array form: the axis of the samples.
    baseline, candidate, by, variant, value : table form only (see docs/conventions.md).
    levels, block : table form only
        The structure of the data, as for `fastperf.compare` (docs/nested.md): with levels
        the test runs on the means of the independent units (`fastperf.stats.forms.unit_means`).

    Returns
    -------
    FTestResult or BenchmarkResult
        Array form: ``statistic`` (F), ``pvalue``, ``df_x``, ``df_y``, ``status`` and
        `confidence_interval` of the variance ratio; table form: one row per benchmark.

    Notes
    -----
    Snedecor's F (Fisher 1924; Snedecor 1934): under H0 σ₁² = σ₂² and normal samples,
    s₁²/s₂² ~ F(n₁ − 1, n₂ − 1).
    """
    alternative = check_alternative(alternative)
    check_y_given(x, y, "ftest")
    if is_table_call(x, y, "ftest", axis=axis, baseline=baseline,
                     candidate=candidate, by=by, variant=variant, value=value,
                     levels=levels, block=block):
        return FTEST_TABLE.run(x, baseline=baseline, candidate=candidate, by=by, variant=variant,
                               value=value, levels=levels, block=block,
                               summary={"alternative": alternative},
                               alternative=alternative)
    xs, ys, batch_shape = two_samples(x, y, axis)
    (n1, nan1, m1, _, v1, e1, _), (n2, nan2, m2, _, v2, e2, _) = (scaled_moments_of(xs),
                                                                   scaled_moments_of(ys))
    f, p, df1, df2, status = f_from_moments(n1, nan1, v1, n2, nan2, v2, alternative, e1, e2,
                                            m1, m2)
    return FTestResult.from_batch(batch_shape, f, p, status, df_x=df1, df_y=df2,
                                  batch_shape=batch_shape)


def _paired_t(xs: Samples, ys: Samples):
    """`paired_t` of x - y; differences beyond the float64 range are taken halved (t is the
    same, the estimate and standard error are scaled back), and +-inf in x or y is named."""
    with np.errstate(over="ignore", invalid="ignore"):
        d = xs.values - ys.values
    exponent = 0
    if np.isinf(d[np.isfinite(xs.values) & np.isfinite(ys.values)]).any():
        d = 0.5 * xs.values - 0.5 * ys.values  # exact but for subnormal values
        exponent = 1
    infinite = (infinite_counts(xs) > 0) | (infinite_counts(ys) > 0)
    return paired_t(Samples(d, xs.offsets), exponent, infinite)


def _two_sample_moments(xs: Samples, ys: Samples):
    """Scaled moments of both sides; NaN were dropped by the table form (zero counts)."""
    (n1, _, m1, s1, v1, e1, _), (n2, _, m2, s2, v2, e2, _) = (scaled_moments_of(xs),
                                                              scaled_moments_of(ys))
    return n1, np.zeros_like(n1), m1, s1, v1, n2, np.zeros_like(n2), m2, s2, v2, e1, e2


def _ttest_ind_columns(xs: Samples, ys: Samples, *, alternative, equal_var, confidence):
    n1, zeros1, m1, s1, v1, n2, zeros2, m2, s2, v2, e1, e2 = _two_sample_moments(xs, ys)
    t, df, se, estimate, status = t_from_moments(n1, zeros1, s1, v1, n2, zeros2, s2, v2, equal_var,
                                                 e1, e2)
    result = _finish_t(t, df, se, estimate, status, alternative, (n1.shape[0],))
    ci = result.confidence_interval(confidence)
    return {"mean_baseline": m1, "mean_candidate": m2, "statistic": result.statistic,
            "df": result.df, "pvalue": result.pvalue, "ci_low": ci.low, "ci_high": ci.high,
            "status": _interval_status(result.status, ci)}, []


def _ttest_rel_columns(xs: Samples, ys: Samples, *, alternative, confidence):
    n, t, df, se, mean, status = _paired_t(xs, ys)
    result = _finish_t(t, df, se, mean, status, alternative, (n.shape[0],))
    ci = result.confidence_interval(confidence)
    return {"mean_difference": result.estimate, "statistic": result.statistic, "df": result.df,
            "pvalue": result.pvalue, "ci_low": ci.low, "ci_high": ci.high,
            "status": _interval_status(result.status, ci)}, []


def _ftest_columns(xs: Samples, ys: Samples, *, alternative):
    n1, zeros1, _, _, v1, n2, zeros2, _, _, v2, e1, e2 = _two_sample_moments(xs, ys)
    f, p, df1, df2, status = f_from_moments(n1, zeros1, v1, n2, zeros2, v2, alternative, e1, e2)
    with np.errstate(over="ignore"):
        v1, v2 = np.ldexp(v1, 2 * e1), np.ldexp(v2, 2 * e2)
    overflow = (status == "ok") & (np.isinf(v1) | np.isinf(v2))
    status = np.where(overflow, "variance beyond the float64 range", status)
    f, p, df1, df2 = (np.where(overflow, np.nan, a) for a in (f, p, df1, df2))
    v1, v2 = np.where(np.isinf(v1), np.nan, v1), np.where(np.isinf(v2), np.nan, v2)
    return {"var_baseline": v1, "var_candidate": v2, "statistic": f, "df_baseline": df1,
            "df_candidate": df2, "pvalue": p, "status": status}, []


TTEST_IND_TABLE = TableForm(
    "ttest_ind", "independent", ("mean_baseline", "mean_candidate", "statistic", "df", "pvalue",
                                 "ci_low", "ci_high", "status"), _ttest_ind_columns)
TTEST_REL_TABLE = TableForm(
    "ttest_rel", "paired", ("mean_difference", "statistic", "df", "pvalue", "ci_low", "ci_high",
                            "status"), _ttest_rel_columns)
FTEST_TABLE = TableForm(
    "ftest", "independent", ("var_baseline", "var_candidate", "statistic", "df_baseline",
                             "df_candidate", "pvalue", "status"), _ftest_columns)
