"""One form per call, or a clear error (docs/conventions.md, "Two forms, one function").

Every public function with an array form and a table form refuses an argument that only the
other form uses, with an `InputError` naming it, instead of ignoring it. Which arguments each
form uses is written here from the functions' documentation (the oracle), and every parameter
of every two-form function must be classified, so a new parameter fails
`test_every_parameter_is_classified` until it is.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import fastperf
from fastperf import InputError

X = np.random.default_rng(3).lognormal(size=(2, 9))
Y = np.random.default_rng(4).lognormal(size=(2, 9))
TABLE, _ = fastperf.simulate(benchmarks=2, runs=6, seed=1, paired=True, unit=None)
BC = {"baseline": "baseline", "candidate": "candidate"}

TABLE_SHAPE = ("baseline", "candidate", "by", "variant", "value", "levels", "block")

#: Per two-form function: the array call, the table call, the arguments only the table form
#: uses, those only the array form uses, and those both use.
FUNCTIONS = {
    "mannwhitneyu": (lambda **kw: fastperf.mannwhitneyu(X, Y, **kw),
                     lambda **kw: fastperf.mannwhitneyu(TABLE, **BC, **kw),
                     TABLE_SHAPE + ("log", "confidence"), ("axis", "nan_policy"),
                     ("x", "y", "alternative", "method", "use_continuity", "progress")),
    "wilcoxon": (lambda **kw: fastperf.wilcoxon(X, Y, **kw),
                 lambda **kw: fastperf.wilcoxon(TABLE, **BC, **kw),
                 TABLE_SHAPE + ("pair", "log", "confidence"), ("axis", "nan_policy"),
                 ("x", "y", "alternative", "method", "zero_method", "correction", "progress")),
    "ttest_ind": (lambda **kw: fastperf.ttest_ind(X, Y, **kw),
                  lambda **kw: fastperf.ttest_ind(TABLE, **BC, **kw),
                  TABLE_SHAPE + ("confidence",), ("axis",),
                  ("x", "y", "equal_var", "alternative")),
    "ttest_rel": (lambda **kw: fastperf.ttest_rel(X, Y, **kw),
                  lambda **kw: fastperf.ttest_rel(TABLE, **BC, **kw),
                  TABLE_SHAPE + ("pair", "confidence"), ("axis",), ("x", "y", "alternative")),
    "ftest": (lambda **kw: fastperf.ftest(X, Y, **kw),
              lambda **kw: fastperf.ftest(TABLE, **BC, **kw),
              TABLE_SHAPE, ("axis",), ("x", "y", "alternative")),
    "shapiro": (lambda **kw: fastperf.shapiro(X, **kw),
                lambda **kw: fastperf.shapiro(TABLE, **kw),
                ("by", "variant", "value", "levels", "block"), ("axis",), ("x",)),
    "ks_2samp": (lambda **kw: fastperf.ks_2samp(X, Y, **kw),
                 lambda **kw: fastperf.ks_2samp(TABLE, **BC, **kw),
                 TABLE_SHAPE, ("axis",), ("x", "y", "alternative", "method", "center")),
    "permutation_test": (
        lambda **kw: fastperf.permutation_test((X, Y), n_resamples=9, seed=1, **kw),
        lambda **kw: fastperf.permutation_test(TABLE, **BC, n_resamples=9, seed=1, **kw),
        TABLE_SHAPE + ("pair",), ("axis",),
        ("data", "statistic", "alternative", "n_resamples", "seed", "paired", "progress")),
    "bootstrap": (
        lambda **kw: fastperf.bootstrap((X, Y), n_resamples=9, seed=1, **kw),
        lambda **kw: fastperf.bootstrap(TABLE, **BC, n_resamples=9, seed=1, **kw),
        TABLE_SHAPE, ("axis", "return_distribution"),
        ("data", "statistic", "method", "n_resamples", "confidence", "seed", "q", "progress")),
}

#: A value other than the default for each form-specific argument.
OTHER_VALUE = {"baseline": "baseline", "candidate": "candidate", "by": "bench",
               "variant": "system", "value": "seconds", "pair": "round", "log": True,
               "confidence": 0.9, "axis": 0, "nan_policy": "omit",
               "return_distribution": True, "levels": "none", "block": "none"}


def test_every_two_form_function_is_listed():
    """A public function taking both `axis` (arrays) and `by` (tables) has two forms."""
    for name in fastperf.__all__:
        obj = getattr(fastperf, name)
        if inspect.isfunction(obj):
            params = inspect.signature(obj).parameters
            assert ("axis" in params and "by" in params) == (name in FUNCTIONS), name


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_parameter_is_classified(name):
    _, _, table_only, array_only, both = FUNCTIONS[name]
    params = list(inspect.signature(getattr(fastperf, name)).parameters)
    assert sorted(params) == sorted(table_only + array_only + both)


def _cases(position: int):
    return [(name, argument) for name, spec in sorted(FUNCTIONS.items())
            for argument in spec[position]]


@pytest.mark.parametrize("name, argument", _cases(2))
def test_array_form_refuses_table_arguments(name, argument):
    array_call = FUNCTIONS[name][0]
    with pytest.raises(InputError,
                       match=rf"{name}: .*\b{argument}=.* appl(y|ies) to measurement tables"):
        array_call(**{argument: OTHER_VALUE[argument]})


@pytest.mark.parametrize("name, argument", _cases(3))
def test_table_form_refuses_array_arguments(name, argument):
    table_call = FUNCTIONS[name][1]
    with pytest.raises(InputError, match=rf"{name}: .*\b{argument}=.* appl(y|ies) to arrays"):
        table_call(**{argument: OTHER_VALUE[argument]})


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_argument_given_is_named(name):
    array_call, table_call, table_only, array_only, _ = FUNCTIONS[name]
    given = {a: OTHER_VALUE[a] for a in table_only if a not in ("baseline", "candidate")}
    with pytest.raises(InputError) as error:
        array_call(**given)
    assert all(f"{a}=" in str(error.value) for a in given)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_defaults_and_own_arguments_are_accepted(name):
    """Each form with the defaults of the other form's arguments spelled out, and the table
    form with its own arguments, runs."""
    array_call, table_call, table_only, array_only, _ = FUNCTIONS[name]
    defaults = {p.name: p.default for p in
                inspect.signature(getattr(fastperf, name)).parameters.values()}
    array_call(**{a: defaults[a] for a in table_only})
    table_call(**{a: defaults[a] for a in array_only})
    renamed = TABLE.rename_columns(["bench" if c == "benchmark" else c
                                    for c in TABLE.column_names])
    extra = {} if name == "shapiro" else dict(BC)
    if name in ("permutation_test", "bootstrap"):
        extra.update(n_resamples=9, seed=1)
    result = getattr(fastperf, name)(renamed, by="bench", **extra)
    assert result.table.column_names[0] == "bench"


def test_a_table_beside_y_is_refused():
    for name in ("mannwhitneyu", "wilcoxon", "ttest_ind", "ttest_rel", "ftest", "ks_2samp"):
        with pytest.raises(InputError, match="measurement table alone"):
            getattr(fastperf, name)(TABLE, Y)
    with pytest.raises(InputError, match="measurement table alone"):
        fastperf.permutation_test((TABLE, Y))


def test_a_list_by_is_never_a_default():
    with pytest.raises(InputError, match="by="):
        fastperf.mannwhitneyu(X, Y, by=["benchmark"])
