"""Issue 18, round 2: the exact rank tests refuse, up front, a distribution they cannot compute
(cost estimate against `EXACT_MAX_OPERATIONS` and the machine's memory, via `check_budget`), and
`rankdata` (every array form) refuses None and complex input naming the argument.

Oracles: hand-derived step and byte counts, scipy's p-values (asymptotic at large n, exact at
small n), scipy's rankdata.
"""
import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st

import fastperf as f
from fastperf.data.budget import check_budget
from fastperf.engine.exact_cost import (
    EXACT_MAX_OPERATIONS, check_exact_budget, rank_sum_exact_cost, signed_rank_exact_cost,
)

REMEDY = "method='asymptotic'"


def _assert_refused(exc: pytest.ExceptionInfo, *fragments):
    text = str(exc.value)
    assert "method='exact'" in text, text
    assert REMEDY in text and "method='auto'" in text, text
    for fragment in fragments:
        assert fragment in text, text


def _table(sizes, seed=0, ties=False):
    """benchmarks b0, b1, ... with sizes[i] runs of variants old and new."""
    rng = np.random.default_rng(seed)
    bench, variant, value, run = [], [], [], []
    for i, n in enumerate(sizes):
        for v, shift in (("old", 0.0), ("new", 0.01)):
            x = rng.random(n) + 1.0 + shift
            if ties:
                x = np.round(x * 20) / 20
            bench += [f"b{i}"] * n
            variant += [v] * n
            value += list(x)
            run += list(range(n))
    return pa.table({"benchmark": bench, "variant": variant, "value": value, "run": run})


# --- the cost model (hand-derived) ----------------------------------------------------------

def test_rank_sum_cost_hand_values():
    # 3 vs 5: min^2 * max = 45 steps; 4 arrays of floor(15/2)+1 = 8 floats (256 bytes) and
    # rings of 3 * (3 + 5) = 24 floats (192 bytes)
    steps, memory = rank_sum_exact_cost(np.array([5]), np.array([3]))
    assert steps.tolist() == [45.0] and memory.tolist() == [448.0]
    steps, _ = rank_sum_exact_cost(np.array([10_000]), np.array([10_000]))
    assert steps.tolist() == [1e12]


def test_signed_rank_cost_hand_values():
    # n = 6: 216 / 12 = 18 steps; floor(42 / 2) + 1 = 22 floats = 176 bytes
    steps, memory = signed_rank_exact_cost(np.array([6]))
    assert steps.tolist() == [18.0] and memory.tolist() == [176.0]


def test_exact_budget_boundary():
    describe = ["a distribution"].__getitem__
    check_exact_budget("t", np.array([float(EXACT_MAX_OPERATIONS)]), np.array([0.0]), describe)
    with pytest.raises(f.InputError) as exc:
        check_exact_budget("t", np.array([EXACT_MAX_OPERATIONS / 2 + 1.0] * 2),
                           np.array([0.0, 0.0]), lambda i: "a distribution")
    _assert_refused(exc, "2 exact distributions in all", "a distribution")


def test_check_budget_tighter_limit_names_its_duration():
    check_budget("g", "k", 1, bytes_needed=0, operations=100, max_operations=100)
    with pytest.raises(f.InputError, match=r"more than the 3e\+10 .*about 30 seconds"):
        check_budget("g", "k", 1, bytes_needed=0, operations=3e10 + 1, max_operations=3e10)
    with pytest.raises(f.InputError, match=r"1e\+14 .*over a day"):  # the default is unchanged
        check_budget("g", "k", 1, bytes_needed=0, operations=1e15)


# --- the reproducers --------------------------------------------------------------------------

def test_mannwhitneyu_exact_10000_refused_up_front():
    x = np.random.default_rng(0).random(10000)
    with pytest.raises(f.InputError) as exc:
        f.mannwhitneyu(x, x + 0.01, method="exact")
    _assert_refused(exc, "10000 and 10000 values", "1e+12")  # 10000^3 steps


def test_wilcoxon_exact_200k_refused_not_memory_error():
    rng = np.random.default_rng(0)
    x, y = rng.random(200_000), rng.random(200_000) + 0.001
    with pytest.raises(f.InputError) as exc:
        f.wilcoxon(x, y, method="exact")
    _assert_refused(exc, "200000 nonzero differences")
    with pytest.raises(f.InputError) as exc:
        f.mannwhitneyu(x, y, method="exact")
    _assert_refused(exc, "200000 and 200000 values")


def test_exact_with_ties_refused():
    rng = np.random.default_rng(1)
    x, y = np.round(rng.random(20_000) * 100), np.round(rng.random(20_000) * 100)
    with pytest.raises(f.InputError) as exc:
        f.mannwhitneyu(x, y, method="exact")
    _assert_refused(exc, "with ties")
    with pytest.raises(f.InputError) as exc:
        f.wilcoxon(x - y, method="exact")
    _assert_refused(exc, "with ties or ranked zeros")


def test_exact_batch_sums_its_distributions():
    # 2700^3 = 1.97e10 and 2710^3 = 1.99e10: each alone fits, together they do not
    with pytest.raises(f.InputError) as exc:
        f.mannwhitneyu(_table([2700, 2710]), baseline="old", candidate="new", method="exact")
    _assert_refused(exc, "2 exact distributions in all", "2710 and 2710 values")


# --- every public function with an exact rank path ---------------------------------------------

@pytest.mark.parametrize("call", [
    lambda t: f.mannwhitneyu(t, baseline="old", candidate="new", method="exact"),
    lambda t: f.wilcoxon(t, baseline="old", candidate="new", method="exact"),
    lambda t: f.compare(t, baseline="old", candidate="new", by="benchmark", method="exact"),
    lambda t: f.hpt(t, baseline="old", candidate="new", method="exact"),
    lambda t: f.sparc(t, baseline="old", candidate="new", method="exact"),
    lambda t: f.speedup_test(t, baseline="old", candidate="new", median_method="exact"),
], ids=["mannwhitneyu", "wilcoxon", "compare", "hpt", "sparc", "speedup_test"])
def test_every_exact_path_refused(call):
    with pytest.raises(f.InputError) as exc:
        call(_table([12_000]))
    _assert_refused(exc, "12000")


def test_auto_goes_asymptotic_at_large_n_as_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.random(10_000), rng.random(10_000) + 0.01
    r = f.mannwhitneyu(x, y)
    assert r.method == "asymptotic"
    assert r.pvalue == pytest.approx(st.mannwhitneyu(x, y, method="asymptotic").pvalue,
                                     rel=1e-9)
    w = f.wilcoxon(x, y)
    assert w.method == "asymptotic"
    assert w.pvalue == pytest.approx(st.wilcoxon(x, y, method="asymptotic").pvalue, rel=1e-9)
    t = f.mannwhitneyu(_table([10_000], ties=True), baseline="old", candidate="new")
    assert t.benchmarks.column("method").to_pylist() == ["asymptotic"]


def test_exact_within_budget_still_exact_as_scipy():
    rng = np.random.default_rng(4)
    x, y = rng.random(40), rng.random(55) + 0.1
    r = f.mannwhitneyu(x, y, method="exact")
    assert r.method == "exact"
    assert r.pvalue == pytest.approx(st.mannwhitneyu(x, y, method="exact").pvalue, rel=1e-9)
    w = f.wilcoxon(x[:30], y[:30], method="exact")
    assert w.pvalue == pytest.approx(st.wilcoxon(x[:30], y[:30], method="exact").pvalue,
                                     rel=1e-9)


# --- rankdata and the array forms: None and complex input -------------------------------------

class _no_warning:
    """Fails on any warning (the ComplexWarning of a silent cast)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


@pytest.mark.parametrize("axis", [None, -1])
@pytest.mark.parametrize("bad, what", [
    (None, "got None"),
    (np.array([1 + 2j, 3 + 0j, 1 + 0j]), "complex"),
    ([1 + 1j, 2.0], "complex"),
    (np.array(["2020-01-01"], dtype="M8[D]"), "dates"),
])
def test_rankdata_refuses_none_and_complex(bad, what, axis):
    with _no_warning():
        with pytest.raises(f.InputError, match=rf"^a must be numeric.*{what}"):
            f.rankdata(bad, axis=axis)


@pytest.mark.parametrize("call, name", [
    (lambda bad: f.mannwhitneyu(bad, [1.0, 2.0]), "x"),
    (lambda bad: f.mannwhitneyu([1.0, 2.0], bad), "y"),
    (lambda bad: f.wilcoxon(bad), "x"),
    (lambda bad: f.ttest_ind(bad, [1.0, 2.0, 3.0]), "x"),
    (lambda bad: f.ks_2samp([1.0, 2.0, 3.0], bad), "y"),
])
@pytest.mark.parametrize("bad", [None, np.array([1 + 2j, 3 + 0j, 1 + 0j])], ids=["None", "complex"])
def test_array_forms_refuse_none_and_complex(call, name, bad):
    with _no_warning():
        with pytest.raises(f.InputError, match=rf"\b{name}\b (must be numeric|is required)"):
            call(bad)


@pytest.mark.parametrize("a", [5.0, [[3, 1], [2, 2]], [1.0, np.nan, 1.0, 0.5], [True, False]])
def test_rankdata_axis_none_as_scipy(a):
    expected = st.rankdata(a, axis=None, nan_policy="propagate")
    np.testing.assert_array_equal(f.rankdata(a, axis=None), expected)
