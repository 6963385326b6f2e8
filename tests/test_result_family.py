"""The result family's own rules (docs/conventions.md, "Results"), for every public function.

Each public name of `fastperf.__all__` that is a function is either called here on small data
(`TABLE_CALLS`, `ARRAY_CALLS`) or listed in `NO_RESULT` with what it returns instead, so a new
public function fails `test_every_public_function_is_checked` until it is classified. The rules,
checked on the result of each call:

- every summary starts with ``function``, the public function's name;
- a table with a ``status`` column ends the summary with ``rows`` and ``rows_not_ok``, counted
  here from the table itself;
- the table is under ``.table`` and under the one name of its kind: ``.benchmarks`` for a row
  per benchmark, ``.groups`` for a row per (benchmark, variant) group (the kind each call must
  give is written here from the conventions, never read from the result);
- an array form unpacks as ``statistic, pvalue`` and carries ``status``.
"""
from __future__ import annotations

import inspect

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import fastperf
from fastperf.results.base import BenchmarkResult, GroupResult, Result, TestResult


def _paired_table() -> pa.Table:
    """Three benchmarks, two variants, eight paired runs each, and one benchmark whose
    candidate has no values (a row that is not "ok")."""
    table, _ = fastperf.simulate(benchmarks=3, runs=8, seed=1, paired=True, unit=None)
    lonely = pa.table({"benchmark": ["lonely"] * 3, "variant": ["baseline"] * 3,
                       "run": pa.array([0, 1, 2], pa.int32()), "value": [1.0, 1.1, 1.2]})
    return pa.concat_tables([table.select(lonely.column_names).cast(lonely.schema), lonely])


def _factorial_table() -> pa.Table:
    """A 2x2 design, four runs per cell, two benchmarks."""
    rng = np.random.default_rng(4)
    rows = [(b, a, c, 1.0 + 0.1 * (a == "hi") + 0.05 * (c == "on") + rng.normal(0, 0.01))
            for b in ("b1", "b2") for a in ("lo", "hi") for c in ("off", "on") for _ in range(4)]
    benchmark, a, c, value = zip(*rows)
    return pa.table({"benchmark": list(benchmark), "A": list(a), "C": list(c),
                     "value": list(value)})


def _series_table() -> pa.Table:
    """Two series of 40 points, the first with a step at point 20."""
    order = np.tile(np.arange(40), 2)
    value = np.r_[np.r_[np.full(20, 1.0), np.full(20, 1.5)], np.ones(40)]
    value = value + np.random.default_rng(2).normal(0, 0.01, 80)
    return pa.table({"benchmark": ["step"] * 40 + ["flat"] * 40, "commit": order,
                     "value": value})


PAIRED = _paired_table()
BC = {"baseline": "baseline", "candidate": "candidate"}

#: Table-level calls: (public name, call, the kind of table the family says it gives).
TABLE_CALLS = [
    ("describe", lambda: fastperf.describe(PAIRED), "groups"),
    ("compare", lambda: fastperf.compare(PAIRED, **BC, by="benchmark"), "benchmarks"),
    ("decide", lambda: fastperf.decide(PAIRED, **BC, by="benchmark", margin=0.03),
     "benchmarks"),
    ("check", lambda: fastperf.check(PAIRED), "groups"),
    ("speedup_test", lambda: fastperf.speedup_test(PAIRED, **BC), "benchmarks"),
    ("sparc", lambda: fastperf.sparc(PAIRED, **BC), "benchmarks"),
    ("hpt", lambda: fastperf.hpt(PAIRED, **BC), "benchmarks"),
    ("mannwhitneyu", lambda: fastperf.mannwhitneyu(PAIRED, **BC), "benchmarks"),
    ("wilcoxon", lambda: fastperf.wilcoxon(PAIRED, **BC), "benchmarks"),
    ("ttest_ind", lambda: fastperf.ttest_ind(PAIRED, **BC), "benchmarks"),
    ("ttest_rel", lambda: fastperf.ttest_rel(PAIRED, **BC), "benchmarks"),
    ("ftest", lambda: fastperf.ftest(PAIRED, **BC), "benchmarks"),
    ("shapiro", lambda: fastperf.shapiro(PAIRED), "groups"),
    ("ks_2samp", lambda: fastperf.ks_2samp(PAIRED, **BC), "benchmarks"),
    ("aggregate_score", lambda: fastperf.aggregate_score(PAIRED), "groups"),
    ("plan_runs", lambda: fastperf.plan_runs(PAIRED), "groups"),
    ("anova", lambda: fastperf.anova(PAIRED, by="benchmark"), "groups"),
    ("contrasts", lambda: fastperf.contrasts(fastperf.anova(PAIRED, by="benchmark"),
                                             {"baseline": 1.0, "candidate": -1.0}), "groups"),
    ("factorial", lambda: fastperf.factorial(_factorial_table(), factors=["A", "C"],
                                             by="benchmark"), "groups"),
    ("permutation_test", lambda: fastperf.permutation_test(PAIRED, **BC, n_resamples=99,
                                                           seed=1), "benchmarks"),
    ("permutation_test", lambda: fastperf.permutation_test(PAIRED, **BC, paired=True,
                                                           n_resamples=99, seed=1),
     "benchmarks"),
    ("bootstrap", lambda: fastperf.bootstrap(PAIRED, **BC, n_resamples=99, seed=1),
     "benchmarks"),
    # one-sample statistics: an interval per (benchmark, variant) group
    ("bootstrap", lambda: fastperf.bootstrap(PAIRED, statistic="median", n_resamples=99,
                                             seed=1), "groups"),
    ("changepoints", lambda: fastperf.changepoints(_series_table(), order="commit"), "groups"),
]

X = np.random.default_rng(3).lognormal(size=(2, 9))
Y = np.random.default_rng(4).lognormal(size=(2, 9))

#: Array-level calls of the tests (scipy's result convention).
ARRAY_CALLS = [
    ("mannwhitneyu", lambda: fastperf.mannwhitneyu(X, Y)),
    ("wilcoxon", lambda: fastperf.wilcoxon(X, Y)),
    ("ttest_ind", lambda: fastperf.ttest_ind(X, Y)),
    ("ttest_rel", lambda: fastperf.ttest_rel(X, Y)),
    ("ftest", lambda: fastperf.ftest(X, Y)),
    ("shapiro", lambda: fastperf.shapiro(X)),
    ("ks_2samp", lambda: fastperf.ks_2samp(X, Y)),
    ("f_oneway", lambda: fastperf.f_oneway(X, Y)),
    ("permutation_test", lambda: fastperf.permutation_test((X, Y), n_resamples=99, seed=1)),
]

#: Public functions that return no result of the family, and what they return instead.
NO_RESULT = {
    "read": "a pyarrow.Table (or a lazy Dataset)",
    "read_speedup_config": "a pyarrow.Table",
    "simulate": "(table, truth), a SimulatedTable",
    "rankdata": "an array (scipy's rankdata)",
    "proportion_ci": "a ProportionInterval (low, high arrays)",
    "min_benchmarks": "an array of counts",
    "student_coefficients": "an array of coefficients",
    "fractional_design": "a FractionalDesign (the design, no measurements)",
    "multipletests": "a MultipleTestsResult (statsmodels' reject / pvals_corrected arrays)",
    "bonferroni_alpha": "a level", "sidak_alpha": "a level", "fwer_bound": "a level",
    "e_bh": "a boolean array (the discoveries)",
    # the array form's result mirrors scipy.stats.bootstrap's: estimate, confidence_interval
    "bootstrap (array form)": "a BootstrapResult, as scipy.stats.bootstrap's",
}


def test_every_public_function_is_checked():
    public = {name for name in fastperf.__all__
              if inspect.isfunction(getattr(fastperf, name))}
    checked = ({name for name, *_ in TABLE_CALLS} | {name for name, _ in ARRAY_CALLS}
               | set(NO_RESULT))
    assert not public - checked, "classify these in tests/test_result_family.py"
    assert not {n for n, *_ in TABLE_CALLS + ARRAY_CALLS} - public


def _status_counts(table: pa.Table) -> tuple[int, int]:
    """Rows and rows whose status is not "ok", counted with Arrow's kernels."""
    not_ok = pc.sum(pc.cast(pc.not_equal(table.column("status"), "ok"), pa.int64())).as_py()
    return table.num_rows, int(not_ok or 0)


@pytest.mark.parametrize("name, call, kind", TABLE_CALLS,
                         ids=[f"{name}-{i}" for i, (name, *_) in enumerate(TABLE_CALLS)])
def test_table_results_follow_the_family(name, call, kind):
    result = call()
    assert isinstance(result, Result)
    keys = list(result.summary)
    assert keys[0] == "function" and result.summary["function"] == name
    if "status" in result.table.column_names:
        assert keys[-2:] == ["rows", "rows_not_ok"]
        assert (result.summary["rows"], result.summary["rows_not_ok"]) == \
            _status_counts(result.table)
    other = {"benchmarks": "groups", "groups": "benchmarks"}[kind]
    assert getattr(result, kind) is result.table
    assert not hasattr(result, other), f"{name} names its table .{other}"
    assert isinstance(result, BenchmarkResult if kind == "benchmarks" else GroupResult)
    assert result.table_name == kind


def test_the_status_rule_is_exercised():
    """The call table includes rows that are not "ok", so `rows_not_ok` is checked nonzero."""
    result = fastperf.mannwhitneyu(PAIRED, **BC)
    assert result.summary["rows_not_ok"] == 1
    assert result.benchmarks.column("status").to_pylist()[-1] == "no candidate values"


@pytest.mark.parametrize("name, call", ARRAY_CALLS, ids=[name for name, _ in ARRAY_CALLS])
def test_array_results_unpack_like_scipy(name, call):
    result = call()
    assert isinstance(result, TestResult)
    statistic, pvalue = result
    assert statistic is result.statistic and pvalue is result.pvalue
    assert np.shape(result.status) == np.shape(statistic) == (2,)
    assert np.all((0 <= pvalue) & (pvalue <= 1))
