"""Arguments that name columns or flags, across the table-level functions: a column plays one
role (the value, the variant, a key), and a flag is True or False.

Oracle: the contract itself (docs/conventions.md: bad input gets an error naming the argument
or column). Each case below was accepted before and answered something else: ``by="variant"``
put each variant in a benchmark of its own ("no candidate runs"); ``higher_is_better="False"``
read as true and inverted every speedup.
"""
import inspect

import numpy as np
import pyarrow as pa
import scipy.stats
import pytest

import fastperf
from fastperf.errors import InputError

PAIR = {"baseline": "baseline", "candidate": "candidate"}


@pytest.fixture(scope="module")
def table():
    return fastperf.simulate(benchmarks=3, runs=8, seed=6).table


CALLS = {
    "compare": lambda t, **kw: fastperf.compare(t, **PAIR, **kw),
    "decide": lambda t, **kw: fastperf.decide(t, **PAIR, margin=0.05, **kw),
    "speedup_test": lambda t, **kw: fastperf.speedup_test(t, **PAIR, **kw),
    "sparc": lambda t, **kw: fastperf.sparc(t, **PAIR, **kw),
    "hpt": lambda t, **kw: fastperf.hpt(t, **PAIR, **kw),
    "plan_runs": lambda t, **kw: fastperf.plan_runs(t, **PAIR, **kw),
    "check": lambda t, **kw: fastperf.check(t, **kw),
    "aggregate_score": lambda t, **kw: fastperf.aggregate_score(t, **kw),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("by, role", [("variant", "variant"), ("value", "value"),
                                      (["benchmark", "variant"], "variant")])
def test_a_key_cannot_be_the_value_or_the_variant(table, name, by, role):
    with pytest.raises(InputError, match=f"column '{role}' cannot be both the {role} and a key"):
        CALLS[name](table, by=by)
    assert CALLS[name](table, by="benchmark").table.num_rows > 0


@pytest.mark.parametrize("name", ["compare", "decide", "speedup_test", "sparc", "hpt",
                                  "plan_runs"])
@pytest.mark.parametrize("role", ["variant", "value"])
def test_the_unit_column_cannot_be_the_variant_or_the_value(table, name, role):
    """Where the unit is a key (compare, decide, plan_runs) it clashes as a key; the protocols
    that need one unit per benchmark name the unit's clash (they said "the 'variant' column
    mixes units" and advised adding it to by=, which is refused)."""
    message = (f"column '{role}' cannot be both the {role} and a key"
               if name in ("compare", "decide", "plan_runs") else
               f"column '{role}' cannot be both the {role} and the unit")
    with pytest.raises(InputError, match=message):
        CALLS[name](table, unit=role)


@pytest.mark.parametrize("variant", ["benchmark", "unit"])
def test_checks_variant_cannot_be_a_default_key(table, variant):
    """check's default keys are the benchmark (and the unit): a variant column named like one
    merged the real variants into each group."""
    with pytest.raises(InputError, match=f"column '{variant}' cannot be both the variant"):
        fastperf.check(table, variant=variant)
    groups = fastperf.check(table).table
    assert groups.num_rows == 6  # 3 benchmarks x 2 variants


@pytest.mark.parametrize("name", ["speedup_test", "sparc", "hpt"])
@pytest.mark.parametrize("flag", ["False", "no", 0, 1, None, {"s": False}])
def test_higher_is_better_is_a_bool(table, name, flag):
    with pytest.raises(InputError, match="higher_is_better must be True or False"):
        CALLS[name](table, higher_is_better=flag)


@pytest.mark.parametrize("name", ["speedup_test", "sparc", "hpt"])
def test_higher_is_better_inverts_the_ratio(table, name):
    """The accepted values still work: True gives the reciprocal of False's speedups."""
    lower = CALLS[name](table, higher_is_better=False).table
    higher = CALLS[name](table, higher_is_better=True).table
    column = {"speedup_test": "speedup_median", "sparc": "ratio", "hpt": "ratio"}[name]
    if column not in lower.column_names:
        column = next(c for c in lower.column_names if c.startswith(("speedup", "ratio")))
    for a, b in zip(lower.column(column).to_pylist(), higher.column(column).to_pylist()):
        assert a * b == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("flag", ["no", 0, None])
def test_sparcs_overall_is_a_bool(table, flag):
    with pytest.raises(InputError, match="overall must be True or False"):
        fastperf.sparc(table, **PAIR, overall=flag)


@pytest.mark.parametrize("weight", ["2", True])
def test_weights_map_to_numbers(table, weight):
    """A string "2" was read as 2.0 by numpy and a bool as 1.0."""
    names = sorted(set(table.column("benchmark").to_pylist()))
    weights = {n: 1.0 for n in names} | {names[0]: weight}
    for call in (CALLS["speedup_test"], CALLS["aggregate_score"]):
        with pytest.raises(InputError, match="weights must map benchmarks to numbers"):
            call(table, weights=weights)


@pytest.mark.parametrize("call, shown", [
    (lambda: fastperf.multipletests([0.1, 1.5]), "got 1.5 at index (1,)"),
    (lambda: fastperf.min_benchmarks(1.5, 0.1), "got 1.5"),
    (lambda: fastperf.min_benchmarks(0.5, 2.0), "got 2.0"),
    (lambda: fastperf.mannwhitneyu(fastperf.simulate(2, 5, seed=1).table.set_column(
        3, "value", pa.array([-1.0] + [1.0] * 19)), **PAIR, log=True), "(e.g. -1.0)"),
    (lambda: fastperf.aggregate_score(pa.table({
        "benchmark": ["a", "a"], "variant": ["old", "new"], "value": [0.0, 1.0]}),
        baseline="old"), "has 0.0;"),
])
def test_a_bad_number_is_shown_as_a_number(call, shown):
    """A message shows the offending value as Python writes it, not numpy's repr
    ("np.float64(1.5)")."""
    with pytest.raises(InputError) as error:
        call()
    assert shown in str(error.value) and "np." not in str(error.value)


@pytest.mark.parametrize("function", ["mannwhitneyu", "ttest_ind", "ks_2samp"])
def test_a_masked_array_with_masked_values_is_refused(function):
    """scipy leaves masked values out; fastperf read the values under the mask (the 1000 was
    tested: ttest_ind's t 0.84 where scipy gives -1.22). It refuses them, naming the argument;
    a masked array with nothing masked is its values. Oracle: scipy on the unmasked values."""
    x = np.ma.masked_array([1.0, 2.0, 3.0, 1000.0], mask=[0, 0, 0, 1])
    y = [2.5, 3.5, 4.5]  # no value tied with x (scipy has no exact test with ties)
    with pytest.raises(InputError, match=r"x is a masked array .*x\.filled\(np\.nan\)"):
        getattr(fastperf, function)(x, y)
    plain = np.ma.masked_array([1.0, 2.0, 3.0])
    want = getattr(scipy.stats, function)([1.0, 2.0, 3.0], y).pvalue
    assert getattr(fastperf, function)(plain, y).pvalue == pytest.approx(want, rel=1e-12)


def test_integers_float64_cannot_hold_are_refused():
    """2**53 + 1 is no float64: converted, 2**53 + 1 and 2**53 tie (ks_2samp's D was 0.6 where
    every x exceeds every y: 1.0). Integers beyond 2**53 in size are refused naming the
    argument; 2**53 itself passes. Oracle: scipy's integer ranks."""
    x = np.array([2**53 + 1, 2**53 + 2, 2**53 + 3], np.int64)
    y = np.full(3, 2**53, np.int64)
    for call in (lambda: fastperf.ks_2samp(x, y), lambda: fastperf.rankdata(x),
                 lambda: fastperf.ttest_rel(y, x), lambda: fastperf.wilcoxon(-x),
                 lambda: fastperf.mannwhitneyu(y, x.astype(np.uint64))):
        with pytest.raises(InputError, match=r"integers beyond 2\*\*53"):
            call()
    edge = np.array([2**53, 2**53 - 1, -(2**53)], np.int64)
    np.testing.assert_array_equal(fastperf.rankdata(edge), scipy.stats.rankdata(edge))


def _flag_calls():
    """Every bool parameter of the public functions, with a call that takes it (the other
    arguments valid): found from the signatures, so a new flag is checked too."""
    rng = np.random.default_rng(0)
    x, y = rng.lognormal(size=8), rng.lognormal(size=8)
    table = fastperf.simulate(3, 8, seed=1).table
    two = dict(baseline="baseline", candidate="candidate")
    history = pa.table({"benchmark": ["a"] * 20, "commit": list(range(20)),
                        "value": list(rng.lognormal(size=20))})
    design = pa.table({"A": [0, 1, 0, 1], "B": [0, 0, 1, 1], "value": [15.0, 45, 25, 75]})
    return {
        "speedup_test": lambda **f: fastperf.speedup_test(table, **two, **f),
        "sparc": lambda **f: fastperf.sparc(table, **two, pair=None, **f),
        "hpt": lambda **f: fastperf.hpt(table, **two, **f),
        "rankdata": lambda **f: fastperf.rankdata(x, **f),
        "mannwhitneyu": lambda **f: (fastperf.mannwhitneyu(table, **two, **f) if "log" in f
                                     else fastperf.mannwhitneyu(x, y, **f)),
        "wilcoxon": lambda **f: (fastperf.wilcoxon(table, **two, pair="run", **f)
                                 if "log" in f else fastperf.wilcoxon(x, y, **f)),
        "ttest_ind": lambda **f: fastperf.ttest_ind(x, y, **f),
        "anova": lambda **f: fastperf.anova(table, **f),
        "f_oneway": lambda **f: fastperf.f_oneway(x, y, **f),
        "factorial": lambda **f: fastperf.factorial(design, factors=["A", "B"], **f),
        "permutation_test": lambda **f: fastperf.permutation_test((x, y), **f),
        "bootstrap": lambda **f: fastperf.bootstrap((x,), statistic="mean", **f),
        "simulate": lambda **f: fastperf.simulate(2, 4, **f),
        "changepoints": lambda **f: fastperf.changepoints(history, order="commit", **f),
    }


FLAGS = [(name, p.name) for name in fastperf.EXPORTS
         if inspect.isfunction(getattr(fastperf, name))
         for p in inspect.signature(getattr(fastperf, name)).parameters.values()
         if isinstance(p.default, bool)]


def test_every_flag_is_found():
    assert {name for name, _ in FLAGS} == set(_flag_calls())


@pytest.mark.parametrize("name, flag", FLAGS)
def test_every_flag_refuses_a_string(name, flag):
    """A flag is True or False: the string "False" is refused naming it (``paired="False"``
    ran the paired test, ``log="False"`` the log model). Both bools are taken."""
    call = _flag_calls()[name]
    for bad in ("False", 0, None):
        with pytest.raises(InputError, match=f"{flag} must be True or False"):
            call(**{flag: bad})
    call(**{flag: np.False_})


def test_python_integers_beyond_int64_are_refused_too():
    """Python ints beyond 2**64 make an object array, which the dtype check did not see:
    ks_2samp's D was 0.0 where every x exceeds every y."""
    with pytest.raises(InputError, match=r"integers beyond 2\*\*53"):
        fastperf.ks_2samp([2**64 + 2, 2**64 + 4, 2**64 + 6], [2**64, 2**64 + 1, 2**64 + 1])
