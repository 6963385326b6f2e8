"""Issue 18 (round 2): multiple-testing levels, benchmark counts, aggregate scores and run plans.

Oracles: exact rational arithmetic (fractions.Fraction) and 60-digit decimal arithmetic for the
Šidák level and the family-wise bound; scipy's normal quantile and the closed form
z sqrt(C (1 - C)) / sqrt(2**53) for the smallest precision accepted; the same table with the
offending rows removed (null runs, a null variant); hand-derived scores and ratios; scipy's F
distribution for the assurance.
"""
import math
import re
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import scipy.stats as sps
from hypothesis import given, settings, strategies as st

import fastperf as f
from fastperf.stats.proportions import min_benchmarks

SPEEDUP_T = pa.table({"benchmark": ["b"] * 6, "variant": ["A"] * 3 + ["B"] * 3,
                      "value": [5.0, 6, 5.5, 7, 8, 7.5]})


# ------------------------------------------------------------------ oracles


def _dec_log1p_neg(a: Decimal) -> Decimal:
    """ln(1 - a) to ~60 digits: the series -sum a^k / k for tiny a, Decimal.ln otherwise."""
    if a > Decimal("1e-10"):
        return (1 - a).ln()
    total, term, k = Decimal(0), a, 1
    while term > Decimal("1e-400") * a:
        total -= term / k
        k += 1
        term *= a
    return total


def _dec_expm1(y: Decimal) -> Decimal:
    """exp(y) - 1 to ~60 digits relative."""
    if abs(y) > Decimal("1e-10"):
        return y.exp() - 1
    total, term, k = Decimal(0), y, 1
    while abs(term) > Decimal("1e-400") * abs(y):
        total += term
        k += 1
        term = term * y / k
    return total


def decimal_sidak(alpha: float, m: int) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emin = -999999
        return float(-_dec_expm1(_dec_log1p_neg(Decimal(alpha)) / Decimal(m)))


def decimal_fwer(alpha: float, m: int) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emin = -999999
        return float(-_dec_expm1(_dec_log1p_neg(Decimal(alpha)) * Decimal(m)))


def fraction_fwer(alpha: float, m: int) -> Fraction:
    """1 - (1 - alpha)^m exactly (alpha's exact binary value)."""
    return 1 - (1 - Fraction(alpha)) ** m


# ------------------------------------------------------------------ 1. Šidák / FWER cancellation


def test_sidak_and_fwer_reproducers():
    """Reproducers: each of these was 0.0 (1 - alpha rounded to 1)."""
    assert f.sidak_alpha(1e-300, 1) == 1e-300
    assert f.fwer_bound(1e-300, 1) == 1e-300
    got = f.sidak_alpha(0.05, 10**18)
    assert got == pytest.approx(decimal_sidak(0.05, 10**18), rel=1e-14)
    assert got == pytest.approx(5.129329438755e-20, rel=1e-12)  # -ln(0.95) / 1e18
    got = f.fwer_bound(1e-20, 1000)
    assert got == pytest.approx(float(fraction_fwer(1e-20, 1000)), rel=1e-14)
    assert got == pytest.approx(1e-17, rel=1e-12)


@pytest.mark.parametrize("alpha", [1e-300, 1e-200, 1e-20, 1e-16, 1e-9, 0.01, 0.05, 0.5, 0.99])
@pytest.mark.parametrize("m", [1, 2, 9, 34, 1000])
def test_fwer_bound_matches_exact_fraction(alpha, m):
    assert f.fwer_bound(alpha, m) == pytest.approx(float(fraction_fwer(alpha, m)), rel=1e-13)


@pytest.mark.parametrize("alpha", [1e-300, 1e-20, 1e-16, 0.01, 0.05, 0.5, 0.99])
@pytest.mark.parametrize("m", [1, 2, 34, 1000])
def test_sidak_alpha_inverts_fwer_bound_exactly(alpha, m):
    """Exact check of the Šidák level: (1 - alpha')^m computed in rationals gives alpha back."""
    level = float(f.sidak_alpha(alpha, m))
    assert level > 0
    assert float(fraction_fwer(level, m)) == pytest.approx(alpha, rel=1e-13)


@settings(max_examples=50, deadline=None)
@given(exponent=st.floats(-300, -0.01), m=st.integers(1, 10**18))
def test_sidak_and_fwer_match_60_digit_decimal(exponent, m):
    alpha = 10.0 ** exponent
    assert f.sidak_alpha(alpha, m) == pytest.approx(decimal_sidak(alpha, m), rel=1e-13)
    expected = decimal_fwer(alpha, m)
    assert f.fwer_bound(alpha, m) == pytest.approx(expected, rel=1e-13, abs=0)


def test_multipletests_alpha_sidak_keeps_small_levels():
    got = f.multipletests(np.array([0.1, 0.2, 0.3]), alpha=1e-300, method="bonferroni")
    assert got.alpha_sidak == pytest.approx(decimal_sidak(1e-300, 3), rel=1e-14)
    assert got.alpha_sidak > 0


def test_multitest_helpers_huge_m_no_cast_warning():
    """m beyond int64 (a Python int, a float): float arithmetic, no invalid-cast warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f.sidak_alpha(0.05, 10**30) == pytest.approx(decimal_sidak(0.05, 10**30), rel=1e-13)
        assert f.bonferroni_alpha(0.05, 1e300) == pytest.approx(5e-302, rel=1e-15)
        assert f.fwer_bound(1e-300, 1e300) == pytest.approx(1 - math.exp(-1), rel=1e-14)


@pytest.mark.parametrize("name", ["sidak_alpha", "fwer_bound", "bonferroni_alpha"])
@pytest.mark.parametrize("alpha, m, word", [
    (0.05, True, "number of tests m"), (0.05, "3", "number of tests m"),
    (0.05, [2, "3"], "number of tests m"), ("0.05", 3, "alpha"), (True, 3, "alpha"),
    (0.05, 10**400, "float range"),
])
def test_multitest_helpers_refuse_strings_bools_and_huge_ints(name, alpha, m, word):
    with pytest.raises(f.InputError, match=word):
        getattr(f, name)(alpha, m)


# ------------------------------------------------------------------ 2. min_benchmarks / speedup


def test_speedup_test_tiny_precision_reproducer():
    """Reproducer: precision=1e-320 gave 'needs nan benchmarks ... at least about 0' and a
    RuntimeWarning. The proportion here is 0 (no benchmark accelerated at 3 runs): z^2 C (1 - C)
    / r^2 = 0, one benchmark, at any precision."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = f.speedup_test(SPEEDUP_T, baseline="A", candidate="B", precision=1e-320)
    for protocol in ("mean", "median"):
        part = res.summary[protocol]
        assert part["proportion"] in (0.0, 1.0)
        assert part["min_benchmarks"] == 1


@pytest.mark.parametrize("proportion", [0.0, 1.0])
@pytest.mark.parametrize("precision", [5e-324, 1e-320, 1e-200, 0.05, 1.0])
def test_min_benchmarks_degenerate_proportion_is_one(proportion, precision):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(min_benchmarks(proportion, precision)) == 1


def _smallest_precision(c, confidence):
    z = sps.norm.ppf((1 + confidence) / 2)
    return z * math.sqrt(c * (1 - c)) / math.sqrt(2.0**53)


@pytest.mark.parametrize("c", [0.5, 0.3, 17 / 30, 0.999, 1e-300, 5e-324])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999999])
@pytest.mark.parametrize("precision", [1e-320, 1e-200])
def test_min_benchmarks_too_many_message_names_real_numbers(c, confidence, precision):
    if _smallest_precision(c, confidence) <= precision:
        pytest.skip("accepted")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(f.InputError) as info:
            min_benchmarks(c, precision, confidence)
    msg = str(info.value)
    assert "nan" not in msg and "about 0" not in msg and "\n" not in msg
    suggested = float(re.search(r"at least (\S+)$", msg).group(1))
    exact = _smallest_precision(c, confidence)
    assert exact <= suggested <= exact * 1.01  # rounded up to 3 digits
    assert int(min_benchmarks(c, suggested, confidence)) <= 2**53  # the value named is accepted
    with pytest.raises(f.InputError):
        min_benchmarks(c, exact * 0.99, confidence)


def test_min_benchmarks_message_count_when_finite():
    """r = 1e-10 at C = 0.5: z^2 / 4 / 1e-20 = 9.6e19 benchmarks, named as such."""
    z = sps.norm.ppf(0.975)
    with pytest.raises(f.InputError, match=re.escape(f"about {z * z / 4 / 1e-20:.3g} benchmarks")):
        min_benchmarks(0.5, 1e-10)


# ------------------------------------------------------------------ 3. aggregate: null runs


def _runs_table(run):
    return pa.table({"benchmark": ["x"] * 5 + ["y"] * 5, "variant": ["A"] * 10,
                     "value": [1.0, 2, 3, 4, 5] * 2, "run": run})


def test_aggregate_all_null_run_column_reproducer():
    """Reproducer: 'a run value occurs more than once'; null runs are left out as documented."""
    t = pa.table({"benchmark": ["x"] * 10, "variant": ["A"] * 5 + ["B"] * 5,
                  "value": [1.0, 2, 3, 4, 5] * 2, "run": pa.array([None] * 10, pa.int64())})
    res = f.aggregate_score(t)
    for row in res.groups.to_pylist():
        assert row["n_runs"] == 0 and row["n_runs_dropped"] == 0
        assert math.isnan(row["score"]) and row["status"] == "fewer than 2 complete runs"
    assert any("10 measurement(s) with a null run" in w for w in res.warnings)


@pytest.mark.parametrize("run", [
    pa.array([0, 1, 2, None, 4, 0, 1, 2, 3, None], pa.int64()),
    pa.array([0, 1, 2, float("nan"), 4, 0, 1, 2, 3, None]),
    pa.array(["a", "b", "c", None, "e", "a", "b", "c", "d", None]),
    pa.array(["a", "b", "c", None, "e", "a", "b", "c", "d", None]).dictionary_encode(),
])
@pytest.mark.parametrize("kind", ["geomean", "mean"])
def test_aggregate_partial_null_runs_as_if_those_rows_were_absent(run, kind):
    """Runs 0, 1, 2 complete (values 1, 2, 3 in both benchmarks: scores 1, 2, 3, mean 2, sd 1);
    runs 3 and 4 each lack a benchmark (dropped: 2); the same as the table without the null-run
    rows."""
    t = _runs_table(run)
    got = f.aggregate_score(t, kind=kind).groups.to_pylist()[0]
    assert (got["n_runs"], got["n_runs_dropped"], got["status"]) == (3, 2, "ok")
    assert got["score"] == pytest.approx(2.0, rel=1e-15)
    assert got["sd"] == pytest.approx(1.0, rel=1e-15)
    known = pc.invert(pc.is_null(t.column("run"), nan_is_null=True))
    ref = f.aggregate_score(t.filter(known), kind=kind).groups.to_pylist()[0]
    for name in ("n_runs", "n_runs_dropped", "score", "sd", "se", "ci_low", "ci_high"):
        assert got[name] == ref[name]


def test_aggregate_null_runs_still_detect_duplicates():
    t = _runs_table(pa.array([0, 0, 2, None, 4, 0, 1, 2, 3, None], pa.int64()))
    with pytest.raises(f.InputError, match="more than once"):
        f.aggregate_score(t)


# ------------------------------------------------------------------ 4. aggregate: baseline ratio


@pytest.mark.parametrize("method", ["per-run", "propagation"])
def test_aggregate_baseline_ratio_to_itself_is_one_with_interval_one(method):
    """Reproducer: the baseline's ratio_ci_low/high were NaN with status ok."""
    t = pa.table({"benchmark": ["b1"] * 4, "variant": ["A", "A", "B", "B"],
                  "value": [1.0, 2, 2, 3], "run": [0, 1, 0, 1]})
    rows = {r["variant"]: r for r in f.aggregate_score(t, baseline="A", method=method,
                                                         kind="mean").groups.to_pylist()}
    base = rows["A"]
    assert (base["ratio"], base["ratio_ci_low"], base["ratio_ci_high"]) == (1.0, 1.0, 1.0)
    assert base["status"] == "ok"
    other = rows["B"]
    assert other["ratio"] == pytest.approx(2.5 / 1.5, rel=1e-15)
    # hand-derived: se 0.5 each side, df 1 each: rel^2 = (0.5/2.5)^2 + (0.5/1.5)^2, df_ratio by
    # Welch-Satterthwaite
    ra, rb = (0.5 / 2.5) ** 2, (0.5 / 1.5) ** 2
    df = (ra + rb) ** 2 / (ra**2 + rb**2)
    half = sps.t.ppf(0.975, df) * math.sqrt(ra + rb)
    assert other["ratio_ci_low"] == pytest.approx(2.5 / 1.5 * math.exp(-half), rel=1e-12)
    assert other["ratio_ci_high"] == pytest.approx(2.5 / 1.5 * math.exp(half), rel=1e-12)


def test_aggregate_no_nan_ratio_interval_with_status_ok():
    rng = np.random.default_rng(5)
    t = pa.table({"benchmark": np.repeat(["p", "q", "r"], 12).tolist(),
                  "variant": np.tile(np.repeat(["A", "B", "C"], 4), 3).tolist(),
                  "value": rng.uniform(1, 2, 36), "run": np.tile(np.arange(4), 9)})
    for row in f.aggregate_score(t, baseline="B").groups.to_pylist():
        assert row["status"] == "ok"
        assert all(np.isfinite(row[c]) for c in ("ratio", "ratio_ci_low", "ratio_ci_high"))


# ------------------------------------------------------------------ 5. plan_runs: null variant


def test_plan_runs_null_variant_gets_its_own_row_reproducer():
    """Reproducer: "variant None not found; the 'variant' column holds ['A']". As describe:
    a row per variant, the null one included; no separation (one named variant)."""
    t = pa.table({"benchmark": ["x"] * 10, "variant": ["A"] * 5 + [None] * 5,
                  "value": [1.0, 2, 3, 4, 5] * 2})
    res = f.plan_runs(t)
    rows = res.groups.to_pylist()
    assert [r["variant"] for r in rows] == [r["variant"] for r in f.describe(t).groups.to_pylist()]
    assert [r["variant"] for r in rows] == ["A", None]
    named = f.plan_runs(t.set_column(1, "variant", pa.array(["A"] * 5 + ["Z"] * 5)))
    for got, ref in zip(rows, named.groups.to_pylist()):
        assert got["n"] == 5 and got["mean"] == 3.0
        assert got["sd"] == pytest.approx(np.std([1.0, 2, 3, 4, 5], ddof=1), rel=1e-15)
        assert got["runs_needed"] == ref["runs_needed"] and got["status"] == "ok"
    assert res.separation is None


@pytest.mark.parametrize("dictionary", [False, True])
def test_plan_runs_separates_the_two_named_variants_beside_a_null_one(dictionary):
    values = [1.0, 2, 3, 4, 5, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7]
    variant = pa.array(["A"] * 5 + [None] * 5 + ["B"] * 5)
    if dictionary:
        variant = variant.dictionary_encode()
    t = pa.table({"benchmark": ["x"] * 15, "variant": variant, "value": values})
    res = f.plan_runs(t)
    assert len(res.groups) == 3
    ref = f.plan_runs(t.filter(pc.is_valid(t.column("variant"))))
    assert res.separation.to_pylist() == ref.separation.to_pylist()
    assert (res.summary["baseline"], res.summary["candidate"]) == ("A", "B")


# ------------------------------------------------------------------ 6. plan_runs: huge precision


@pytest.mark.parametrize("target", ["relative_halfwidth", "halfwidth"])
@pytest.mark.parametrize("assurance", [None, 0.9])
@pytest.mark.parametrize("precision", [1e150, 1e300])
def test_plan_runs_huge_precision_assurance_is_one(target, assurance, precision):
    """Reproducer: assurance NaN with status ok ((bound / half-width)^2 overflowed). The
    smallest plan (2 runs) reaches any half-width that wide: F(1, 2).cdf(x) for x >= 1e300
    is 1 in float64 (scipy)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = f.plan_runs(SPEEDUP_T, precision=precision, target=target,
                           assurance=assurance).groups.to_pylist()
    for row in rows:
        assert row["status"] == "ok" and row["runs_needed"] == 2
        assert row["assurance"] == 1.0
        assert sps.f.cdf(1e300, 1, 2) == 1.0
