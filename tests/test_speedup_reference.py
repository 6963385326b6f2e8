"""`speedup_test` against a plain per-benchmark reference of the Speedup-Test protocol.

The oracle is written here, one benchmark at a time, from the protocol's rules (Touati, Worms &
Briais 2013, sections 2-4) with scipy.stats and numpy only: scipy's shapiro, F distribution,
ttest_ind, ks_2samp and mannwhitneyu; a brute-force enumeration of every assignment (and, for
larger tied samples, a subset-sum count of the same; both in tests/naive.py) for the
Wilcoxon-Mann-Whitney p-value conditional on ties; a grid search over risk levels for ``max_confidence_mean``; R's
``prop.test`` interval re-derived from its formula. Nothing here calls fastperf except
`speedup_test` itself.
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st

from fastperf import speedup_test
from naive import rank_sum_tails_counted, rank_sum_tails_enumerated

BASE, CAND = "base", "cand"
LARGE = 30
SHAPIRO_RTOL = 1e-6  # as tests/test_normality.py
P_RTOL = 1e-9
SPEEDUP_RTOL = 1e-12
BRUTE_FORCE_MAX_N = 16


# --------------------------------------------------------------------------- measurement tables


def _draw(rng, kind, n, factor, spread):
    """n positive values of one kind, the location multiplied by `factor` (< 1: faster)."""
    if kind == "normal":
        return rng.normal(10.0 * factor, 0.5 * spread, n)
    if kind == "lognormal":  # right-skewed
        return 10.0 * factor * rng.lognormal(0.0, 0.4 * spread, n)
    if kind == "bimodal":
        slow = rng.random(n) < 0.3
        return factor * np.where(slow, rng.normal(13.0, 0.3, n), rng.normal(10.0, 0.3, n))
    if kind == "rounded":  # timer quantisation: some ties, within and across samples
        return np.round(rng.normal(10.0 * factor, 0.5 * spread, n), 1)
    if kind == "heavy_ties":  # a few distinct values, shared by both samples
        weights = np.array([1.0, 2.0, 1.0]) * np.array([1.0, 1.0, factor]) ** 8
        return rng.choice([9.0, 10.0, 11.0], n, p=weights / weights.sum())
    if kind == "constant":  # a whole number: see test_constant_samples_have_zero_variance
        return np.full(n, float(round(10.0 * factor)))
    raise ValueError(kind)


KINDS = ("normal", "lognormal", "bimodal", "rounded", "heavy_ties", "constant")
KIND_WEIGHTS = np.array([5, 3, 2, 3, 2, 1], float)
FACTORS = (0.5, 0.8, 0.9, 0.97, 1.0, 1.0, 1.03, 1.1, 1.3)


def _sizes(rng):
    pattern = rng.choice(["small", "large", "mixed", "tiny"], p=[0.5, 0.3, 0.15, 0.05])
    if pattern == "small":
        return rng.integers(3, 31, 2)
    if pattern == "large":
        return rng.integers(31, 61, 2)
    if pattern == "mixed":
        return rng.permutation([rng.integers(3, 31), rng.integers(31, 61)])
    return rng.integers(1, 4, 2)


def make_benchmarks(seed, count=300, untied=False):
    """{name: (baseline values, candidate values)} with NaN/None sprinkled; None = side absent.

    ``untied``: continuous kinds only (no ties) and no side left out on purpose (a tiny sample
    may still lose all its values to NaN).
    """
    rng = np.random.default_rng(seed)
    kinds = KINDS[:3] if untied else KINDS
    p = KIND_WEIGHTS[: len(kinds)] / KIND_WEIGHTS[: len(kinds)].sum()
    out = {}
    for i in range(count):
        n1, n2 = _sizes(rng)
        kind_x = rng.choice(kinds, p=p)
        kind_y = kind_x if rng.random() < 0.8 else rng.choice(kinds, p=p)
        factor = rng.choice(FACTORS)
        spread_y = rng.choice([1.0, 1.0, 0.3, 3.0])
        x = _draw(rng, kind_x, n1, 1.0, 1.0).astype(object)
        y = _draw(rng, kind_y, n2, factor, spread_y).astype(object)
        for sample in (x, y):
            if rng.random() < 0.15:  # dropped values: NaN or null
                at = rng.choice(len(sample), size=min(len(sample), rng.integers(1, 4)),
                                replace=False)
                sample[at] = [float("nan") if rng.random() < 0.5 else None for _ in at]
        if not untied:
            r = rng.random()
            if r < 0.03:
                x = None
            elif r < 0.06:
                y = None
            elif r < 0.07:  # rows for both variants, every value null or NaN
                x = np.array([None, float("nan")], object)
                y = np.array([float("nan")], object)
        out[f"b{i:04d}"] = (x, y)
    if not untied:
        out["only_other"] = (None, None)  # the benchmark has rows of a third variant only
    return out


def measurement_table(benchmarks, seed=0):
    """Long table (benchmark, variant, run, value, alpha, weight), rows shuffled; a third
    variant "other" on some benchmarks; alpha and weight constant within each benchmark."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, (x, y) in benchmarks.items():
        a = float(rng.choice([0.01, 0.05, 0.1, 0.2]))
        w = float(rng.choice([0.5, 1.0, 2.0, 7.5]))
        samples = [(BASE, x), (CAND, y)]
        if name == "only_other" or rng.random() < 0.1:
            samples.append(("other", rng.normal(5.0, 1.0, 3).astype(object)))
        for variant, sample in samples:
            for run, v in enumerate([] if sample is None else sample):
                rows.append((name, variant, run, v, a, w))
    order = rng.permutation(len(rows))
    rows = [rows[i] for i in order]
    cols = list(zip(*rows))
    return pa.table({
        "benchmark": pa.array(cols[0], pa.string()),
        "variant": pa.array(cols[1], pa.string()),
        "run": pa.array(cols[2], pa.int64()),
        "value": pa.array([None if v is None else float(v) for v in cols[3]], pa.float64()),
        "alpha": pa.array(cols[4], pa.float64()),
        "weight": pa.array(cols[5], pa.float64()),
    })


def per_benchmark(table, column):
    """{benchmark: the (constant) value of `column`} read back from the table."""
    names, values = table.column("benchmark").to_pylist(), table.column(column).to_pylist()
    return dict(zip(names, values))


def clean(sample):
    """The values kept (null and NaN dropped) and the number dropped."""
    if sample is None:
        return np.empty(0), 0
    v = np.array([np.nan if s is None else float(s) for s in sample])
    keep = ~np.isnan(v)
    return v[keep], int((~keep).sum())


# --------------------------------------------------------------------------- reference oracles


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)


def shapiro_p(x):
    """scipy's Shapiro-Wilk p; NaN where not testable (n < 3 or a constant sample)."""
    if len(x) < 3 or np.ptp(x) == 0:
        return np.nan
    return float(quiet(st.shapiro, x).pvalue)


def variance(x):
    """Sample variance (ddof=1), exactly 0 for a constant sample."""
    return 0.0 if np.ptp(x) == 0 else float(np.var(x, ddof=1))


def f_test_p(x, y):
    """R's var.test: two-sided p of var(x)/var(y) on (n1 - 1, n2 - 1) df (F = c/0 = inf and
    F = 0/c = 0 give p = 0; 0/0 gives NaN)."""
    if len(x) < 2 or len(y) < 2:
        return np.nan
    ratio = quiet(np.divide, variance(x), variance(y))
    if np.isnan(ratio):
        return np.nan
    dist = st.f(len(x) - 1, len(y) - 1)
    return min(1.0, 2.0 * min(dist.cdf(ratio), dist.sf(ratio)))


def t_test_p(x, y, equal_var, better):
    """scipy's one-sided t-test; NaN when both samples are constant (R's t.test stops: "data
    are essentially constant"; scipy would return t = +-inf)."""
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        return np.nan
    return float(quiet(st.ttest_ind, x, y, equal_var=equal_var, alternative=better).pvalue)


def rank_sum_p(x, y, better, method):
    """One-sided Wilcoxon-Mann-Whitney p: scipy (asymptotic with continuity correction, or
    exact for untied samples), else the exact distribution conditional on the ties."""
    tied = len(np.unique(np.concatenate([x, y]))) < len(x) + len(y)
    if method == "asymptotic" or (method == "exact" and not tied):
        return float(quiet(st.mannwhitneyu, x, y, alternative=better, method=method,
                           use_continuity=True).pvalue)
    tails = (rank_sum_tails_enumerated if len(x) + len(y) <= BRUTE_FORCE_MAX_N
             else rank_sum_tails_counted)(x, y)
    return float(tails[0] if better == "less" else tails[1])


def prob_x_greater(x, y):
    """U/(mn): P[X > Y] + P[X = Y]/2 counted over all pairs."""
    diff = x[:, None] - y[None, :]
    u = np.sum(diff > 0) + 0.5 * np.sum(diff == 0)
    return u / (len(x) * len(y))


def mean_decision(p, a):
    """Figure 1 at risk level a: (test, p-value, significant) from the benchmark's p-values."""
    normal = p["shapiro_x"] > a and p["shapiro_y"] > a  # NaN compares False: not normal
    if not p["large"] and not normal:
        return "none", np.nan, False
    test = "student" if p["ftest"] > a else "welch"  # NaN F-test p: Welch
    return test, p[test], bool(p[test] <= a)


MISSING = {(True, True): "missing baseline and candidate", (True, False): "missing baseline",
           (False, True): "missing candidate"}


def reference_pvalues(x, y, higher, method, large_sample=LARGE):
    """Every alpha-free figure of one benchmark, or None when a side has no value."""
    if len(x) == 0 or len(y) == 0:
        return None
    better = "less" if higher else "greater"
    ratio = (lambda bx, by: by / bx) if higher else (lambda bx, by: bx / by)
    px = prob_x_greater(x, y)
    return {
        "speedup_min": ratio(np.min(x), np.min(y)),
        "speedup_mean": ratio(np.mean(x), np.mean(y)),
        "speedup_median": ratio(np.median(x), np.median(y)),
        "large": len(x) > large_sample and len(y) > large_sample,
        "shapiro_x": shapiro_p(x), "shapiro_y": shapiro_p(y), "ftest": f_test_p(x, y),
        "student": t_test_p(x, y, True, better), "welch": t_test_p(x, y, False, better),
        "ks": float(quiet(st.ks_2samp, x - np.median(x), y - np.median(y)).pvalue),
        "median": rank_sum_p(x, y, better, method),
        "prob_candidate_faster": 1.0 - px if higher else px,
    }


def reference_status(x, y):
    """The status of a compared benchmark: the F-test (R's var.test) needs 2 values a side and
    a nonzero variance on one side, else the status names it (docs/speedup-test.md)."""
    if len(x) < 2 or len(y) < 2:
        return "F-test not run: fewer than 2 values in a sample"
    if np.all(x == x[0]) and np.all(y == y[0]):
        return "F-test not run: zero variance in both samples"
    return "ok"


def reference_row(x, y, pv, a):
    """The per-benchmark output row of the protocol at risk level a."""
    row = {"n_baseline": len(x), "n_candidate": len(y), "alpha": a}
    if pv is None:
        nan = np.nan
        return {**row, "status": MISSING[len(x) == 0, len(y) == 0], "mean_test": "none",
                "mean_significant": False, "median_significant": False,
                **{c: nan for c in FLOAT_COLUMNS}}
    test, p_mean, significant = mean_decision(pv, a)
    return {
        **row, "status": reference_status(x, y), "mean_test": test,
        "mean_significant": significant,
        "median_significant": bool(pv["median"] <= a),
        "speedup_min": pv["speedup_min"], "speedup_mean": pv["speedup_mean"],
        "speedup_median": pv["speedup_median"],
        "pvalue_shapiro_baseline": pv["shapiro_x"], "pvalue_shapiro_candidate": pv["shapiro_y"],
        "pvalue_ftest": pv["ftest"], "pvalue_mean": p_mean, "pvalue_ks": pv["ks"],
        "pvalue_median": pv["median"], "prob_candidate_faster": pv["prob_candidate_faster"],
        "max_confidence_median": 1.0 - pv["median"],
    }


FLOAT_COLUMNS = {
    "speedup_min": SPEEDUP_RTOL, "speedup_mean": SPEEDUP_RTOL, "speedup_median": SPEEDUP_RTOL,
    "pvalue_shapiro_baseline": SHAPIRO_RTOL, "pvalue_shapiro_candidate": SHAPIRO_RTOL,
    "pvalue_ftest": P_RTOL, "pvalue_mean": P_RTOL, "pvalue_ks": P_RTOL, "pvalue_median": P_RTOL,
    "prob_candidate_faster": 0.0,
    "max_confidence_median": 0.0,  # 1 - p: compared with the absolute tolerance below
}
ABSOLUTE = {"max_confidence_median": 1e-12}  # p matches to 1e-9 relative; 1 - p cancels
EXACT_COLUMNS = ("n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate",
                 "alpha", "status", "mean_test", "mean_significant", "median_significant")


@functools.lru_cache(maxsize=None)
def dataset(seed, untied=False):
    """(samples by benchmark after dropping, dropped counts, table) for a generator seed."""
    benchmarks = make_benchmarks(seed, untied=untied)
    table = measurement_table(benchmarks, seed=seed + 1)
    cleaned = {name: (clean(x), clean(y)) for name, (x, y) in benchmarks.items()}
    samples = {name: (cx[0], cy[0]) for name, (cx, cy) in cleaned.items()}
    dropped = {name: (cx[1], cy[1]) for name, (cx, cy) in cleaned.items()}
    return samples, dropped, table


@functools.lru_cache(maxsize=None)
def reference(seed, untied, higher, method, large_sample=LARGE):
    samples, _, _ = dataset(seed, untied)
    return {name: reference_pvalues(x, y, higher, method, large_sample)
            for name, (x, y) in samples.items()}


# --------------------------------------------------------------------------- comparison helpers


def rows_by_name(result):
    return {row["benchmark"]: row for row in result.benchmarks.to_pylist()}


def as_float(v):
    return np.nan if v is None else float(v)


def assert_rows_match(result, seed, untied, higher, method, alphas, large_sample=LARGE):
    """Every benchmark's row equals the reference: decisions exactly, figures to tolerance."""
    samples, dropped, _ = dataset(seed, untied)
    pvalues = reference(seed, untied, higher, method, large_sample)
    got = rows_by_name(result)
    assert sorted(got) == sorted(samples)
    failures = []
    for name, (x, y) in samples.items():
        want = reference_row(x, y, pvalues[name], alphas[name])
        want["n_dropped_baseline"], want["n_dropped_candidate"] = dropped[name]
        row = got[name]
        for column in EXACT_COLUMNS:
            if row[column] != want[column]:
                failures.append(f"{name} {column}: got {row[column]!r}, want {want[column]!r}")
        for column, rtol in FLOAT_COLUMNS.items():
            g, w = as_float(row[column]), want[column]
            if np.isnan(w) or np.isnan(g):
                same = np.isnan(w) and np.isnan(g)
            else:
                same = abs(g - w) <= rtol * abs(w) + ABSOLUTE.get(column, 0.0)
            if not same:
                failures.append(f"{name} {column}: got {g!r}, want {w!r} (n={len(x)},{len(y)})")
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures[:30])
    return got


# --------------------------------------------------------------------------- oracle self-checks


def test_oracles_agree_with_each_other_and_with_scipy():
    """The two conditional-exact oracles agree on tied data and equal scipy's exact p-value
    on untied data; the prop.test oracle reproduces R's output quoted in the paper."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        m, n = rng.integers(1, 9, 2)
        x = rng.integers(0, 4, m).astype(float)
        y = rng.integers(0, 4, n).astype(float)
        np.testing.assert_allclose(rank_sum_tails_counted(x, y), rank_sum_tails_enumerated(x, y),
                                   rtol=1e-12)
        xu, yu = rng.normal(size=m), rng.normal(size=n)
        lower, upper = rank_sum_tails_counted(xu, yu)
        for alternative, tail in (("less", lower), ("greater", upper)):
            want = st.mannwhitneyu(xu, yu, alternative=alternative, method="exact").pvalue
            assert tail == pytest.approx(want, rel=1e-12)
    # R: prop.test(17, 30, conf.level=0.90) -> 0.4027157 0.7184049 (section 4)
    np.testing.assert_allclose(prop_test_ci(17, 30, 0.90), [0.4027157, 0.7184049], atol=5e-8)
    assert min_benchmarks_ref(17 / 30, 0.05, 0.95) == 378


# --------------------------------------------------------------------------- per-benchmark columns


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_mixed_table_asymptotic_median(alpha, higher):
    """Mixed table (all kinds, ties, NaNs, missing sides), WMW asymptotic with continuity
    correction: every column against the scipy reference."""
    _, _, table = dataset(11)
    res = speedup_test(table, baseline=BASE, candidate=CAND, alpha=alpha,
                       higher_is_better=higher, median_method="asymptotic")
    alphas = {name: alpha for name in dataset(11)[0]}
    got = assert_rows_match(res, 11, False, higher, "asymptotic", alphas)
    methods = {row["median_method"] for row in got.values() if row["status"] == "ok"}
    assert methods <= {"asymptotic", "none"}


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_untied_table_exact_median(alpha, higher):
    """Untied continuous samples, WMW exact: every column against scipy (method="exact")."""
    _, _, table = dataset(12, untied=True)
    res = speedup_test(table, baseline=BASE, candidate=CAND, alpha=alpha,
                       higher_is_better=higher, median_method="exact")
    alphas = {name: alpha for name in dataset(12, True)[0]}
    assert_rows_match(res, 12, True, higher, "exact", alphas)


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_small_tied_exact_median_against_enumeration(higher):
    """Small samples with ties (N <= 16), WMW exact: the p-value conditional on the ties
    against brute-force enumeration of every assignment."""
    rng = np.random.default_rng(13)
    benchmarks = {}
    for i in range(60):
        m, n = rng.integers(1, 9, 2)
        kind = rng.choice(["rounded", "heavy_ties", "constant"], p=[0.45, 0.45, 0.1])
        benchmarks[f"t{i:03d}"] = (_draw(rng, kind, m, 1.0, 1.0),
                                   _draw(rng, kind, n, rng.choice(FACTORS), 1.0))
    table = measurement_table(benchmarks, seed=14)
    res = speedup_test(table, baseline=BASE, candidate=CAND, higher_is_better=higher,
                       median_method="exact")
    got = rows_by_name(res)
    better = "less" if higher else "greater"
    for name, (x, y) in benchmarks.items():
        tails = rank_sum_tails_enumerated(x, y)
        want = tails[0] if better == "less" else tails[1]
        assert got[name]["pvalue_median"] == pytest.approx(want, rel=P_RTOL), name
        assert got[name]["median_significant"] == (want <= 0.05)


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_mixed_table_exact_median(higher):
    """Mixed table, WMW exact: scipy's exact p for untied benchmarks, the distribution
    conditional on the ties (enumeration for N <= 16, subset-sum counts above) for tied ones."""
    samples, _, table = dataset(11)
    res = speedup_test(table, baseline=BASE, candidate=CAND, higher_is_better=higher,
                       median_method="exact")
    got = assert_rows_match(res, 11, False, higher, "exact", {name: 0.05 for name in samples})
    methods = {row["median_method"] for row in got.values() if row["status"] == "ok"}
    assert methods == {"exact", "exact (ties)"}


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_auto_median_method_uses_the_matching_exact_or_normal_p(higher):
    """Default median_method="auto": each row's p-value equals the reference for the method the
    row reports ("exact", "exact (ties)" conditional on ties, or "asymptotic")."""
    samples, _, table = dataset(11)
    res = speedup_test(table, baseline=BASE, candidate=CAND, higher_is_better=higher)
    exact = reference(11, False, higher, "exact")
    normal = reference(11, False, higher, "asymptotic")
    used = set()
    for name, row in rows_by_name(res).items():
        x, y = samples[name]
        if len(x) == 0 or len(y) == 0:  # not compared (an F-test not run still is)
            assert np.isnan(as_float(row["pvalue_median"])), name
            continue
        used.add(row["median_method"])
        tied = len(np.unique(np.concatenate([x, y]))) < len(x) + len(y)
        assert row["median_method"] in (("exact (ties)", "asymptotic") if tied
                                        else ("exact", "asymptotic")), name
        want = (normal if row["median_method"] == "asymptotic" else exact)[name]["median"]
        assert row["pvalue_median"] == pytest.approx(want, rel=P_RTOL), name
        assert row["median_significant"] == (want <= 0.05), name
    assert {"exact", "exact (ties)"} <= used


def test_per_benchmark_alpha_column():
    """alpha="alpha": each benchmark's decisions are the reference's at its own risk level."""
    _, _, table = dataset(11)
    res = speedup_test(table, baseline=BASE, candidate=CAND, alpha="alpha",
                       median_method="asymptotic")
    alphas = per_benchmark(table, "alpha")
    assert len(set(alphas.values())) > 1
    assert_rows_match(res, 11, False, False, "asymptotic", alphas)
    assert res.summary["proportion_confidence"] == 0.95


def test_large_sample_threshold():
    """large_sample=10: samples of 11+ values take the t-test whatever Shapiro-Wilk says."""
    samples, _, table = dataset(11)
    res = speedup_test(table, baseline=BASE, candidate=CAND, alpha=0.05, large_sample=10,
                       median_method="asymptotic")
    assert_rows_match(res, 11, False, False, "asymptotic", {name: 0.05 for name in samples},
                      large_sample=10)


# --------------------------------------------------------------------------- constant samples


def one_benchmark(x, y, **kwargs):
    table = pa.table({"benchmark": ["b"] * (len(x) + len(y)),
                      "variant": [BASE] * len(x) + [CAND] * len(y),
                      "value": np.concatenate([x, y]).astype(float)})
    return speedup_test(table, baseline=BASE, candidate=CAND, **kwargs).benchmarks.to_pylist()[0]


@pytest.mark.parametrize("cx, cy", [(10.0, 9.0), (9.0, 9.0), (10.0, 9.7), (9.7, 10.0),
                                    (9.7, 9.7)])
def test_constant_samples_have_zero_variance(cx, cy):
    """Two large constant samples: zero variances, so no F-test (0/0) and no t-test (R's
    t.test: "data are essentially constant"), whatever the constants are (9.7 x 40 does not
    sum exactly: the moments must not turn that rounding into a variance)."""
    x, y = np.full(40, cx), np.full(40, cy)
    row = one_benchmark(x, y)
    want = reference_row(x, y, reference_pvalues(x, y, False, "asymptotic"), 0.05)
    assert np.isnan(want["pvalue_ftest"]) and np.isnan(want["pvalue_mean"])
    got = {k: row[k] for k in ("mean_test", "mean_significant", "max_confidence_mean")}
    assert got == {"mean_test": "welch", "mean_significant": False, "max_confidence_mean": 0.0}
    assert np.isnan(as_float(row["pvalue_ftest"])) and np.isnan(as_float(row["pvalue_mean"]))


@pytest.mark.parametrize("constant_side", ["baseline", "candidate"])
def test_ftest_with_a_constant_sample_follows_var_test(constant_side):
    """One constant sample, one not: R's var.test gives F = 0 or inf and p = 0 either way."""
    varied = np.array([10.0, 11.0, 12.5, 9.5, 10.2])
    x, y = (np.full(5, 8.0), varied) if constant_side == "baseline" else (varied, np.full(5, 8.0))
    assert f_test_p(x, y) == 0.0
    assert one_benchmark(x, y)["pvalue_ftest"] == 0.0


# --------------------------------------------------------------------------- max_confidence_mean


GRID = np.unique(np.concatenate([np.linspace(1e-4, 1 - 1e-4, 4001),
                                 np.geomspace(1e-12, 1e-4, 400)]))


def significant_levels(pv):
    """Candidate risk levels a' in (0, 1) (a grid, every p-value and p +- 1e-12) and whether
    the mean protocol run at each declares the speedup."""
    ps = np.array([pv[k] for k in ("shapiro_x", "shapiro_y", "ftest", "student", "welch")])
    ps = ps[np.isfinite(ps)]
    levels = np.unique(np.concatenate([GRID, ps, ps - 1e-12, ps + 1e-12, [1e-300]]))
    levels = levels[(levels > 0) & (levels < 1)]
    return levels, np.array([mean_decision(pv, a)[2] for a in levels])


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_max_confidence_mean_by_grid_search(higher):
    """max_confidence_mean = 1 - (smallest a' at which the protocol run at a' declares the mean
    speedup), found by evaluating the reference protocol on a grid of levels."""
    samples, _, table = dataset(11)
    res = speedup_test(table, baseline=BASE, candidate=CAND, higher_is_better=higher,
                       median_method="asymptotic")
    pvalues = reference(11, False, higher, "asymptotic")
    only_below_005 = 0
    for name, row in rows_by_name(res).items():
        pv, got = pvalues[name], as_float(row["max_confidence_mean"])
        if pv is None:
            assert np.isnan(got), name
            continue
        levels, significant = significant_levels(pv)
        if not significant.any():
            assert got == 0.0, (name, got)
            continue
        smallest = levels[np.argmax(significant)]
        assert got > 0, name
        a = 1.0 - got
        if a > 0:  # (a): significant at a' = 1 - max_confidence_mean (to rounding)
            assert mean_decision(pv, a)[2] or mean_decision(pv, a + 1e-12)[2], (name, a)
        else:  # 1 - p rounded to 1: the smallest significant level is below 1e-16
            assert smallest < 1e-16, (name, smallest)
        assert a >= smallest - 1e-9, (name, a, smallest)  # (b): nothing significant below
        assert a <= smallest + 1e-9, (name, a, smallest)
        only_below_005 += bool(significant[levels < 0.05].any() and not
                               mean_decision(pv, 0.05)[2] and not pv["large"])
    # small samples whose normality passes only at small risk levels are covered
    assert only_below_005 >= 3


# --------------------------------------------------------------------------- summary


def prop_test_ci(a, b, confidence):
    """R's prop.test(a, b, conf.level=confidence) interval: Wilson score with continuity
    correction min(0.5, |a - b/2|) (R's rule for p = 0.5), bounds pinned at 0 and 1."""
    z = st.norm.ppf((1 + confidence) / 2)
    yates = min(0.5, abs(a - b / 2))
    z22n = z * z / (2 * b)
    upper_c, lower_c = a / b + yates / b, a / b - yates / b
    upper = 1.0 if upper_c >= 1 else (
        (upper_c + z22n + z * math.sqrt(upper_c * (1 - upper_c) / b + z22n / (2 * b)))
        / (1 + 2 * z22n))
    lower = 0.0 if lower_c <= 0 else (
        (lower_c + z22n - z * math.sqrt(lower_c * (1 - lower_c) / b + z22n / (2 * b)))
        / (1 + 2 * z22n))
    return max(lower, 0.0), min(upper, 1.0)


def min_benchmarks_ref(c, r, confidence):
    z = st.norm.ppf((1 + confidence) / 2)
    return max(1, math.ceil(z * z * c * (1 - c) / (r * r)))


def reference_summary(samples, significant, weights, higher, confidence, precision):
    compared = [k for k, (x, y) in samples.items() if len(x) and len(y)]
    summary = {"overall_speedup": {}, "overall_gain": {}}
    for time, f in (("mean", np.mean), ("median", np.median), ("min", np.min)):
        num = sum(weights[k] * f(samples[k][0]) for k in compared)
        den = sum(weights[k] * f(samples[k][1]) for k in compared)
        s = den / num if higher else num / den
        summary["overall_speedup"][time], summary["overall_gain"][time] = s, 1 - 1 / s
    for protocol in ("mean", "median"):
        a, b = sum(significant[protocol][k] for k in compared), len(compared)
        low, high = prop_test_ci(a, b, confidence)
        summary[protocol] = {
            "accelerated": a, "compared": b, "proportion": a / b, "ci_low": low,
            "ci_high": high, "ci_valid": a * (1 - a / b) > 5,
            "min_benchmarks": min_benchmarks_ref(a / b, precision, confidence)}
    summary["benchmarks"] = len(samples)
    summary["benchmarks_compared"] = len(compared)
    summary["missing_baseline"] = sum(len(x) == 0 for x, _ in samples.values())
    summary["missing_candidate"] = sum(len(y) == 0 for _, y in samples.values())
    return summary


def assert_summary_matches(got, want):
    for key in ("benchmarks", "benchmarks_compared", "missing_baseline", "missing_candidate"):
        assert got[key] == want[key], key
    for key in ("overall_speedup", "overall_gain"):
        for time in ("mean", "median", "min"):
            assert got[key][time] == pytest.approx(want[key][time], rel=1e-12), (key, time)
    for protocol in ("mean", "median"):
        g, w = got[protocol], want[protocol]
        for key in ("accelerated", "compared", "ci_valid", "min_benchmarks"):
            assert g[key] == w[key], (protocol, key)
        for key in ("proportion", "ci_low", "ci_high"):
            assert g[key] == pytest.approx(w[key], rel=1e-12, abs=1e-15), (protocol, key)


@pytest.mark.parametrize("weights", [None, "weight", "mapping"])
@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_summary_against_reference(weights, higher):
    """Overall speedups/gains (equations 1-2) with equal, column and mapping weights, and the
    accelerated proportions with R's prop.test interval and the benchmarks for precision r."""
    samples, dropped, table = dataset(11)
    weight_of = per_benchmark(table, "weight")
    arg = {"mapping": weight_of, "weight": "weight", None: None}[weights]
    if weights is None:
        weight_of = {k: 1.0 for k in weight_of}
    alpha, precision = 0.2, 0.07
    res = speedup_test(table, baseline=BASE, candidate=CAND, alpha=alpha, weights=arg,
                       higher_is_better=higher, median_method="asymptotic", precision=precision)
    pvalues = reference(11, False, higher, "asymptotic")
    significant = {
        "mean": {k: pv is not None and mean_decision(pv, alpha)[2] for k, pv in pvalues.items()},
        "median": {k: pv is not None and pv["median"] <= alpha for k, pv in pvalues.items()},
    }
    want = reference_summary(samples, significant, weight_of, higher, 1 - alpha, precision)
    assert_summary_matches(res.summary, want)
    assert res.summary["dropped"] == sum(a + b for a, b in dropped.values())
    assert res.summary["proportion_confidence"] == 1 - alpha


def test_summary_proportions_on_small_sets_against_prop_test():
    """a/b interval on few benchmarks (a = 0, a = b, a = b/2 edge cases of prop.test) and the
    loose statsmodels Wilson check (no continuity correction: intervals nest inside ours)."""
    from statsmodels.stats.proportion import proportion_confint

    samples, _, table = dataset(11)
    pvalues = reference(11, False, False, "asymptotic")
    ok = [k for k, pv in pvalues.items() if pv is not None]
    fast = [k for k in ok if pvalues[k]["median"] <= 0.05]
    slow = [k for k in ok if pvalues[k]["median"] > 0.05]
    for chosen in (fast[:7], slow[:7], fast[:4] + slow[:4], fast[:1] + slow[:2], fast[:30]):
        sub = table.filter(pa.compute.is_in(table.column("benchmark"),
                                            value_set=pa.array(chosen)))
        res = speedup_test(sub, baseline=BASE, candidate=CAND, median_method="asymptotic")
        a, b = sum(k in fast for k in chosen), len(chosen)
        got = res.summary["median"]
        assert (got["accelerated"], got["compared"]) == (a, b)
        low, high = prop_test_ci(a, b, 0.95)
        assert (got["ci_low"], got["ci_high"]) == (pytest.approx(low, rel=1e-12, abs=1e-15),
                                                   pytest.approx(high, rel=1e-12, abs=1e-15))
        w_low, w_high = proportion_confint(a, b, alpha=0.05, method="wilson")
        assert got["ci_low"] <= w_low + 1e-12 and got["ci_high"] >= w_high - 1e-12
        assert got["min_benchmarks"] == min_benchmarks_ref(a / b, 0.05, 0.95)
