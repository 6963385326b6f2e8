"""fastperf.compare, its renderings and the ``fastperf compare`` command (default protocol).

Oracles, all written here and independent of fastperf: scipy.stats.mannwhitneyu (exact without
ties, asymptotic with continuity correction with ties), a brute-force enumeration of the exact
rank-sum distribution conditional on ties, numpy medians, the "shortest" median interval
transcribed from its definition with exact binomial probabilities (math.comb, fractions), the
Hodges-Lehmann ratio and its interval from all m*n log differences and the exact rank-sum
quantile (a counting recursion), scipy.stats.false_discovery_control for Benjamini-Hochberg and
Holm / Bonferroni by hand, the verdict rule of compare's docstring, and strings computed by hand
from benchstat's printing rules.
"""
from __future__ import annotations

import itertools
import json
import math
import warnings
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import scipy.stats as st

import fastperf
from fastperf.cli import main

BASE, CAND = "baseline", "candidate"


# =========================================================================== oracles


def make_table(groups, unit="sec/op", variants=(BASE, CAND)) -> pa.Table:
    """{benchmark or (benchmark, unit): (baseline values, candidate values[, more...])}."""
    b, v, x, u = [], [], [], []
    for key, sides in groups.items():
        name, un = key if isinstance(key, tuple) else (key, unit)
        for variant, values in zip(variants, sides):
            for value in values:
                b.append(name), v.append(variant), x.append(float(value)), u.append(un)
    return pa.table({"benchmark": b, "variant": v, "value": x, "unit": u})


def missing(v) -> bool:
    """A null or NaN cell."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def tied(x, y) -> bool:
    both = list(x) + list(y)
    return len(set(both)) < len(both)


def scipy_p(x, y) -> float:
    """The project's plain implementation: exact without ties, else asymptotic + continuity."""
    method = "asymptotic" if tied(x, y) else "exact"
    return float(st.mannwhitneyu(y, x, alternative="two-sided", method=method,
                                 use_continuity=True).pvalue)


def brute_exact_p(x, y) -> float:
    """Two-sided exact p conditional on ties: every split of the pooled mid-ranks."""
    pooled = np.concatenate([x, y])
    ranks = st.rankdata(pooled)
    m, n = len(x), len(y)
    observed = ranks[m:].sum()
    sums = np.array([ranks[list(c)].sum() for c in itertools.combinations(range(m + n), n)])
    eps = 1e-9
    lower, upper = np.mean(sums <= observed + eps), np.mean(sums >= observed - eps)
    return min(1.0, 2 * min(lower, upper))


@lru_cache(maxsize=None)
def u_counts(m: int, n: int) -> tuple:
    """Number of arrangements with each value 0..m*n of the Mann-Whitney U (no ties):
    f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u)."""
    if m == 0 or n == 0:
        return (1,)
    a, b = u_counts(m - 1, n), u_counts(m, n - 1)
    out = [0] * (m * n + 1)
    for u, c in enumerate(a):
        out[u + n] += c
    for u, c in enumerate(b):
        out[u] += c
    return tuple(out)


def hl_oracle(x, y, confidence):
    """exp of the median of all log(y_j) - log(x_i), and the interval [D_(k), D_(mn+1-k)] with
    k the largest rank such that P(U <= k - 1) <= (1 - confidence) / 2 (exact, untied)."""
    d = np.sort((np.log(np.asarray(y))[None, :] - np.log(np.asarray(x))[:, None]).ravel())
    m, n = len(x), len(y)
    counts = u_counts(m, n)
    total = math.comb(m + n, m)
    level = Fraction(1 - confidence).limit_denominator(10 ** 12) / 2
    k, cum = 1, Fraction(0)
    for j in range(m * n):  # cum = P(U <= j)
        cum += Fraction(counts[j], total)
        if cum <= level:  # [D_(j+1), D_(mn-j)] covers with 1 - 2 P(U <= j)
            k = j + 1
        else:
            break
    return math.exp(np.median(d)), math.exp(d[k - 1]), math.exp(d[m * n - k])


def shortest_ranks(n: int, confidence: float):
    """benchstat's rule: add P(B = k), B ~ Binomial(n, 1/2), from the middle outwards, the
    left one first on ties, until the sum reaches `confidence`; the interval is
    [x_(lo), x_(hi + 1)] (lo, hi the smallest and largest k added; 0 or n + 1: unbounded)."""
    order = sorted(range(n + 1), key=lambda k: (abs(2 * k - n), k))
    target = Fraction(confidence).limit_denominator(10 ** 12)
    total, added = Fraction(0), []
    for k in order:
        added.append(k)
        total += Fraction(math.comb(n, k), 2 ** n)
        if total >= target:
            break
    return min(added), max(added) + 1


def median_ci(values, confidence=0.95):
    s = np.sort(values)
    lo, hi = shortest_ranks(len(s), confidence)
    low = s[lo - 1] if lo >= 1 else math.nan
    high = s[hi - 1] if hi <= len(s) else math.nan
    return float(np.median(s)), low, high


def bh(p):
    return st.false_discovery_control(np.asarray(p), method="bh")


def holm(p):
    p = np.asarray(p, float)
    order = np.argsort(p)
    m = len(p)
    out, running = np.empty(m), 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        out[j] = running
    return out


def bonferroni(p):
    return np.minimum(1.0, np.asarray(p, float) * len(p))


ADJUST = {"bh": bh, "holm": holm, "bonferroni": bonferroni, "none": lambda p: np.asarray(p)}


def reaches_alpha(m, n, alpha=0.05) -> bool:
    return m > 0 and n > 0 and Fraction(2, math.comb(m + n, m)) <= Fraction(alpha)


def verdict_oracle(x, y, p_adj, direction, alpha=0.05, threshold=0.0, margin=None):
    """compare's docstring: too few runs / worse, better (changed without a direction) when the
    adjusted p < alpha and |delta| >= threshold / equivalent / no change."""
    if not reaches_alpha(len(x), len(y), alpha):
        return "too few runs"
    mx, my = np.median(x), np.median(y)
    delta = my / mx - 1
    sign = np.sign(my - mx)
    if sign == 0:
        sign = np.sign(math.log(hl_oracle(x, y, 0.95)[0]))
    if p_adj < alpha and abs(delta) >= threshold and sign != 0:
        if direction is None:
            return "changed"
        return "worse" if (sign > 0) == (direction == "lower") else "better"
    if margin is not None:
        _, lo, hi = hl_oracle(x, y, 1 - 2 * alpha)
        if lo >= 1 - margin and hi <= 1 + margin:
            return "equivalent"
    return "no change"


def samples(table: pa.Table, benchmark, variant, unit=None):
    rows = table.to_pylist()
    return np.array([r["value"] for r in rows if str(r["benchmark"]) == benchmark
                     and str(r["variant"]) == variant and (unit is None or r["unit"] == unit)
                     and r["value"] is not None and not math.isnan(r["value"])])


def rows_by(result, *keys):
    return {tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]: r
            for r in result.benchmarks.to_pylist()}


def check_rows(table, result, *, alpha=0.05, adjust="bh", threshold=0.0, margin=None,
               direction="lower", exact_tol=1e-12):
    """Every row of `result` against the oracles (one candidate, unit per row)."""
    rows = result.benchmarks.to_pylist()
    data = [(samples(table, r["benchmark"], BASE), samples(table, r["benchmark"], CAND))
            for r in rows]
    family = [i for i, (x, y) in enumerate(data) if reaches_alpha(len(x), len(y), alpha)]
    p = np.array([scipy_p(*data[i]) for i in family])
    adjusted = dict(zip(family, ADJUST[adjust](p))) if family else {}
    assert result.summary["comparisons"] == len(family)
    for i, (r, (x, y)) in enumerate(zip(rows, data)):
        assert (r["n_baseline"], r["n_candidate"]) == (len(x), len(y))
        mx, lx, hx = median_ci(x)
        my, ly, hy = median_ci(y)
        assert r["median_baseline"] == pytest.approx(mx, rel=1e-15)
        assert r["median_candidate"] == pytest.approx(my, rel=1e-15)
        for got, want in ((r["ci_baseline_low"], lx), (r["ci_baseline_high"], hx),
                          (r["ci_candidate_low"], ly), (r["ci_candidate_high"], hy)):
            assert (missing(got) and math.isnan(want)) or got == want
        assert r["delta"] == pytest.approx(my / mx - 1, rel=1e-12, abs=1e-15)
        if len(x) and len(y) and len(set(np.concatenate([x, y]))) > 1:
            # every row with runs on both sides has its p-value, testable or not
            tol = exact_tol if not tied(x, y) else 1e-9
            assert r["pvalue"] == pytest.approx(scipy_p(x, y), rel=tol, abs=1e-300)
        if i in adjusted:
            assert r["pvalue_adjusted"] == pytest.approx(adjusted[i], rel=1e-9)
            want = verdict_oracle(x, y, adjusted[i], direction, alpha, threshold, margin)
        else:
            assert missing(r["pvalue_adjusted"])
            want = "too few runs"
        assert r["verdict"] == want, (r["benchmark"], r)
        if want == "too few runs":
            assert r["status"] != "ok"


# =========================================================================== verdicts


def simulated(runs=10, seed=3, shapes="lognormal", sigma=0.02):
    effects = [1 / 1.3, 1 / 1.15, 1 / 1.5, 1 / 1.1,   # slower candidate: regressions
               1.3, 1.15, 1.5, 1.1,                   # faster candidate: improvements
               1.0, 1.0, 1.0, 1.0]                    # no change
    return fastperf.simulate(len(effects), runs, seed=seed, effects=effects, shapes=shapes,
                             sigma=sigma)


@pytest.mark.parametrize("adjust", ["bh", "holm", "bonferroni", "none"])
def test_verdicts_against_scipy_on_known_truth(adjust):
    sim = simulated()
    result = fastperf.compare(sim.table, baseline=BASE, candidate=CAND, adjust=adjust)
    check_rows(sim.table, result, adjust=adjust)
    verdict = {r["benchmark"]: r["verdict"] for r in result.benchmarks.to_pylist()}
    for t in sim.truth.to_pylist():
        want = {"slower": "worse", "faster": "better"}.get(t["kind"])
        if want:  # 10-50 % changes with 2 % noise and 10 runs: found under every adjustment
            assert verdict[t["benchmark"]] == want
    assert result.benchmarks.column("method").to_pylist() == ["exact"] * 12
    assert result.summary["adjust"] == adjust
    assert result.summary["verdicts"] == {
        v: sum(x == v for x in verdict.values()) for v in fastperf.protocols.compare.VERDICTS}


def test_largest_regression_summary():
    sim = simulated()
    result = fastperf.compare(sim.table, baseline=BASE, candidate=CAND)
    worst = result.summary["largest_regressions"]
    rows = [r for r in result.benchmarks.to_pylist() if r["verdict"] == "worse"]
    rows.sort(key=lambda r: -abs(r["delta"]))
    assert [w["benchmark"] for w in worst] == [r["benchmark"] for r in rows][:5]
    assert worst[0]["benchmark"] == "bench_00002"  # the 50 % slowdown


def quantised_table(seed=11):
    """simulate's quantised shape, rounded to one grid shared by both variants (a coarse
    timer): exact ties within and across the variants."""
    sim = fastperf.simulate(6, 6, seed=seed, shapes="quantised", sigma=0.05, base=1.0,
                            effects=[1.0, 1.0, 0.9, 1.1, 1.0, 0.95])
    value = np.round(sim.table.column("value").to_numpy() / 0.05) * 0.05
    return sim.table.set_column(3, "value", pa.array(value))


def test_ties_quantised_against_asymptotic_and_brute_force_exact():
    table = quantised_table()
    asym = fastperf.compare(table, baseline=BASE, candidate=CAND, method="asymptotic")
    rows = asym.benchmarks.to_pylist()
    assert sum(tied(samples(table, r["benchmark"], BASE), samples(table, r["benchmark"], CAND))
               for r in rows) >= 5
    check_rows(table, asym)
    auto = fastperf.compare(table, baseline=BASE, candidate=CAND)
    for r in auto.benchmarks.to_pylist():
        x, y = samples(table, r["benchmark"], BASE), samples(table, r["benchmark"], CAND)
        if len(set(np.concatenate([x, y]))) == 1:
            assert r["pvalue"] == 1.0  # one value on both sides: nothing changed
            continue
        assert r["pvalue"] == pytest.approx(brute_exact_p(x, y), rel=1e-9), r["benchmark"]


def test_pvalue_of_distinct_values_one_ulp_apart():
    a = 2.718625
    b = math.nextafter(a, math.inf)
    assert a != b and math.log(a) == math.log(b)
    x = [a - 0.3, a - 0.2, a - 0.1, a, a + 0.1]
    y = [b, a + 0.2, a + 0.3, a + 0.4, a + 0.5]
    r = fastperf.compare(make_table({"b": (x, y)}), baseline=BASE, candidate=CAND,
                         adjust="none").benchmarks.to_pylist()[0]
    assert r["pvalue"] == pytest.approx(scipy_p(x, y), rel=1e-12)  # 1/63, untied


SIZES = [(1, 1), (1, 2), (2, 2), (3, 3), (3, 4), (4, 4), (3, 5), (2, 7), (2, 8), (5, 5),
         (1, 38), (1, 39), (39, 1), (38, 1), (6, 9), (10, 10), (12, 7), (20, 3), (30, 30),
         (50, 50), (50, 1), (1, 50), (7, 3)]


def test_sample_sizes_1_to_50_too_few_runs_and_intervals():
    rng = np.random.default_rng(5)
    groups = {}
    for m, n in SIZES:
        shift = 1.0 + 0.3 * ((m + n) % 3 - 1)  # some slower, some faster, some equal
        groups[f"m{m}_n{n}"] = (np.exp(rng.normal(0, 0.05, m)),
                                shift * np.exp(rng.normal(0, 0.05, n)))
    table = make_table(groups)
    result = fastperf.compare(table, baseline=BASE, candidate=CAND)
    check_rows(table, result)
    got = rows_by(result, "benchmark")
    for m, n in SIZES:
        r = got[f"m{m}_n{n}"]
        few = 2 / math.comb(m + n, m) > 0.05
        assert (r["verdict"] == "too few runs") is few, (m, n)
        if few:
            assert r["status"].startswith("too few runs") and missing(r["pvalue_adjusted"])
            assert r["pvalue"] == pytest.approx(scipy_p(*groups[f"m{m}_n{n}"]), rel=1e-12)
        # Hodges-Lehmann: exp(median of all m*n log differences), interval by brute force
        x, y = groups[f"m{m}_n{n}"]
        ratio, lo, hi = hl_oracle(x, y, 0.95)
        assert r["ratio"] == pytest.approx(ratio, rel=1e-12)
        if m * n <= 400 and m > 1 and n > 1 and not few:
            assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi), rel=1e-12), (m, n)
    # (1, 39): 2/40 = alpha exactly reaches it; (1, 38) does not
    assert got["m1_n39"]["verdict"] != "too few runs"
    assert got["m1_n38"]["verdict"] == "too few runs"


@pytest.mark.parametrize("n", list(range(1, 51)))
def test_median_interval_shortest_rule(n):
    values = np.exp(np.random.default_rng(n).normal(0, 0.1, n))
    result = fastperf.compare(make_table({"b": (values, values * 1.01)}), baseline=BASE,
                              candidate=CAND)
    r = result.benchmarks.to_pylist()[0]
    med, lo, hi = median_ci(values)
    assert r["median_baseline"] == pytest.approx(med, rel=1e-15)
    assert missing(r["ci_baseline_low"]) if math.isnan(lo) else r["ci_baseline_low"] == lo
    assert missing(r["ci_baseline_high"]) if math.isnan(hi) else r["ci_baseline_high"] == hi
    if math.isnan(lo) or math.isnan(hi):
        assert r["status"] != "ok"


def test_median_interval_rule_hand_values():
    # n = 10: P(B=k)*1024 = 252 (k=5), 210 (4), 210 (6), 120 (3), 120 (7), 45 (2), 45 (8):
    # 1002/1024 = 0.9785 >= 0.95 after k = 8 -> [x_(2), x_(9)]
    assert shortest_ranks(10, 0.95) == (2, 9)
    # n = 9: 126+126+84+84+36+36 = 492/512 = 0.961 -> k = 2..7 -> [x_(2), x_(8)]
    assert shortest_ranks(9, 0.95) == (2, 8)
    # n = 5: 30/32 = 0.9375 < 0.95 with k = 1..4: k = 0 is added, the low side unbounded
    assert shortest_ranks(5, 0.95) == (0, 5)


def test_threshold_and_margin():
    rng = np.random.default_rng(9)
    x = 1.0 + rng.normal(0, 1e-4, 12)
    groups = {"small": (x, x * 1.01),            # significant 1 % slowdown
              "big": (x, x * 1.10),              # 10 %
              "same": (x, 1.0 + rng.normal(0, 1e-4, 12))}
    table = make_table(groups)
    plain = rows_by(fastperf.compare(table, baseline=BASE, candidate=CAND), "benchmark")
    assert plain["small"]["verdict"] == plain["big"]["verdict"] == "worse"
    result = fastperf.compare(table, baseline=BASE, candidate=CAND, threshold=0.02)
    check_rows(table, result, threshold=0.02)
    got = rows_by(result, "benchmark")
    assert got["small"]["verdict"] == "no change" and got["big"]["verdict"] == "worse"
    result = fastperf.compare(table, baseline=BASE, candidate=CAND, margin=0.005)
    check_rows(table, result, margin=0.005)
    got = rows_by(result, "benchmark")
    _, lo, hi = hl_oracle(groups["same"][0], groups["same"][1], 0.9)
    assert 0.995 <= lo and hi <= 1.005
    assert got["same"]["verdict"] == "equivalent"
    assert result.summary["verdicts"]["equivalent"] == 1


def test_several_candidates_share_the_adjustment_family():
    rng = np.random.default_rng(2)
    names = [f"b{i}" for i in range(5)]
    sides = {name: [np.exp(rng.normal(0, 0.05, 8)) * s for s in (1.0, 1.0 + 0.1 * i, 1.0 - 0.05 * i)]
             for i, name in enumerate(names)}
    table = make_table(sides, variants=(BASE, "a", "b"))
    result = fastperf.compare(table, baseline=BASE, candidate=["a", "b"])
    out = result.benchmarks
    assert out.column_names[0] == "candidate"
    assert out.column("candidate").to_pylist() == ["a"] * 5 + ["b"] * 5
    assert out.column("benchmark").to_pylist() == names * 2
    rows = out.to_pylist()
    ps = [scipy_p(sides[r["benchmark"]][0], sides[r["benchmark"]][1 + (r["candidate"] == "b")])
          for r in rows]
    assert [r["pvalue"] for r in rows] == pytest.approx(ps, rel=1e-12)
    assert [r["pvalue_adjusted"] for r in rows] == pytest.approx(list(bh(ps)), rel=1e-9)
    assert result.summary["comparisons"] == 10 and result.summary["candidates"] == ["a", "b"]
    assert result.overall.column("candidate").to_pylist() == ["a", "b"]
    for r in rows:
        x, y = sides[r["benchmark"]][0], sides[r["benchmark"]][1 + (r["candidate"] == "b")]
        assert r["median_candidate"] == pytest.approx(np.median(y), rel=1e-15)
        assert r["median_baseline"] == pytest.approx(np.median(x), rel=1e-15)


# =========================================================================== units


def unit_groups():
    x = np.linspace(1.00, 1.02, 10)
    return {("B", "sec/op"): (x * 1e-6, x * 1.2e-6),      # slower: worse
            ("B", "B/s"): (x * 1e9, x * 1.3e9),           # more throughput: better
            ("B", "allocs/op"): (x * 10, x * 12),         # more allocations: worse
            ("B", "widgets"): (x, x * 1.5)}               # no direction: changed


def test_units_give_directions_and_verdicts():
    table = make_table(unit_groups())
    result = fastperf.compare(table, baseline=BASE, candidate=CAND)
    got = rows_by(result, "unit")
    assert result.summary["keys"] == ["benchmark", "unit"]
    assert {u: (r["direction"], r["verdict"]) for u, r in got.items()} == {
        "sec/op": ("lower", "worse"), "B/s": ("higher", "better"),
        "allocs/op": ("lower", "worse"), "widgets": ("unknown", "changed")}
    assert any("widgets" in w and "direction" in w for w in result.warnings)
    assert result.overall.column("unit").to_pylist() == ["sec/op", "B/s", "allocs/op", "widgets"]


def test_higher_is_better_overrides():
    table = make_table(unit_groups())
    up = rows_by(fastperf.compare(table, baseline=BASE, candidate=CAND, higher_is_better=True),
                 "unit")
    assert {u: r["verdict"] for u, r in up.items()} == dict.fromkeys(
        ["sec/op", "B/s", "allocs/op", "widgets"], "better")
    some = fastperf.compare(table, baseline=BASE, candidate=CAND,
                            higher_is_better={"B/s": False, "widgets": False})
    assert {u: r["verdict"] for u, r in rows_by(some, "unit").items()} == {
        "sec/op": "worse", "B/s": "worse", "allocs/op": "worse", "widgets": "worse"}
    assert not any("no known direction" in w for w in some.warnings)


# =========================================================================== odd input


def test_every_group_gets_a_row_nan_and_nonpositive_values():
    x = np.linspace(1.0, 1.1, 10)
    base_nan = np.concatenate([x, [np.nan, np.nan]])
    zero = np.concatenate([[0.0], x[1:]])
    table = make_table({"only_base": (x, []), "only_cand": ([], x), "nan": (base_nan, x * 1.3),
                        "zero": (zero, x * 2)})
    result = fastperf.compare(table, baseline=BASE, candidate=CAND)
    got = rows_by(result, "benchmark")
    assert list(got) == ["only_base", "only_cand", "nan", "zero"]
    assert (got["only_base"]["status"], got["only_base"]["verdict"]) == ("no candidate runs",
                                                                          "too few runs")
    assert (got["only_cand"]["status"], got["only_cand"]["verdict"]) == ("no baseline runs",
                                                                         "too few runs")
    assert got["only_base"]["n_baseline"] == 10 and got["only_base"]["n_candidate"] == 0
    r = got["nan"]
    assert (r["n_baseline"], r["n_dropped_baseline"], r["n_dropped_candidate"]) == (10, 2, 0)
    assert r["median_baseline"] == pytest.approx(np.median(x), rel=1e-15)
    assert r["pvalue"] == pytest.approx(scipy_p(x, x * 1.3), rel=1e-12)
    assert r["verdict"] == "worse" and r["status"] == "ok"
    assert any("dropped" in w for w in result.warnings)
    r = got["zero"]
    assert missing(r["ratio"]) and missing(r["ci_low"]) and r["status"] != "ok"
    assert "<= 0" in r["status"]
    assert r["pvalue"] == pytest.approx(scipy_p(zero, x * 2), rel=1e-12)
    assert r["median_baseline"] == pytest.approx(np.median(zero), rel=1e-15)
    assert result.summary["rows_not_ok"] == 3 and result.summary["rows"] == 4


@pytest.mark.parametrize("kwargs, name", [
    ({"alpha": 2}, "alpha"), ({"alpha": 0}, "alpha"), ({"adjust": "x"}, "adjust"),
    ({"threshold": -1}, "threshold"), ({"threshold": "abc"}, "threshold"),
    ({"candidate": BASE}, "candidate"), ({"candidate": [CAND, CAND]}, "candidate"),
    ({"candidate": "nope"}, "nope"), ({"baseline": "nope"}, "nope"),
    ({"confidence": 1.5}, "confidence"), ({"margin": 2}, "margin"), ({"method": "x"}, "method"),
    ({"higher_is_better": "yes"}, "higher_is_better"), ({"by": "missing"}, "missing"),
])
def test_bad_arguments_raise_input_error(kwargs, name):
    table = make_table({"b": ([1.0, 2.0], [3.0, 4.0])})
    args = {"baseline": BASE, "candidate": CAND, **kwargs}
    with pytest.raises(fastperf.InputError, match=name):
        fastperf.compare(table, **args)


# =========================================================================== configuration

GO_HEADER = "goos: linux\ngoarch: amd64\n{extra}"


def go_file(path, sections: dict, extra: str = ""):
    """sections: {pkg: {BenchmarkName: [ns/op values]}}."""
    lines = [GO_HEADER.format(extra=extra)]
    for pkg, benches in sections.items():
        lines.append(f"pkg: {pkg}")
        for name, values in benches.items():
            lines += [f"{name}-8   \t 1000\t {v:.1f} ns/op" for v in values]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def two_pkg_files(tmp_path, extra_old="toolchain: go1.21\nnote: first\n",
                  extra_new="toolchain: go1.22\nnote: second\n"):
    base_a = [1000 + 10 * i for i in range(10)]
    base_b = [2000 + 10 * i for i in range(10)]
    old = go_file(tmp_path / "old.txt", {"example.com/a": {"BenchmarkX": base_a},
                                         "example.com/b": {"BenchmarkX": base_b}}, extra_old)
    new = go_file(tmp_path / "new.txt", {"example.com/a": {"BenchmarkX": [v * 1.2 for v in base_a]},
                                         "example.com/b": {"BenchmarkX": base_b}}, extra_new)
    return old, new, base_a, base_b


def test_configuration_keys_and_variant_keys(tmp_path):
    old, new, base_a, base_b = two_pkg_files(tmp_path)
    result = fastperf.compare(fastperf.read([old, new]), baseline="old", candidate="new")
    out = result.benchmarks
    assert out.num_rows == 2
    assert out.column("pkg").to_pylist() == ["example.com/a", "example.com/b"]
    assert set(result.summary["variant_keys"]) == {"toolchain", "note"}
    assert "pkg" in result.summary["keys"] and "toolchain" not in result.summary["keys"]
    assert out.column("n_baseline").to_pylist() == [10, 10]
    got = rows_by(result, "pkg")
    assert got["example.com/a"]["median_baseline"] == pytest.approx(np.median(base_a) * 1e-9)
    assert got["example.com/a"]["verdict"] == "worse"
    assert got["example.com/b"]["verdict"] == "no change"
    text = result.to_text()
    assert "pkg: example.com/a" in text and "pkg: example.com/b" in text
    assert "goos: linux" in text
    assert "toolchain" not in text.split("\n\n")[0]  # not a header of the section
    # by= overrides: one benchmark, both packages pooled
    pooled = fastperf.compare(fastperf.read([old, new]), baseline="old", candidate="new",
                              by="benchmark")
    assert pooled.benchmarks.num_rows == 1
    assert pooled.summary["keys"] == ["benchmark", "unit"]  # every unit on its own
    assert pooled.benchmarks.column("n_baseline").to_pylist() == [20]
    assert pooled.summary["variant_keys"] == []


def test_shared_configuration_splits_benchmarks(tmp_path):
    old, new, _, _ = two_pkg_files(tmp_path, "toolchain: go1.21\n", "toolchain: go1.21\n")
    result = fastperf.compare(fastperf.read([old, new]), baseline="old", candidate="new")
    assert "toolchain" in result.summary["keys"] and result.summary["variant_keys"] == []
    assert result.benchmarks.num_rows == 2


def test_two_candidates_sharing_a_toolchain_are_compared(tmp_path):
    old, new, _, _ = two_pkg_files(tmp_path, "toolchain: go1.21\n", "toolchain: go1.22\n")
    third = tmp_path / "third.txt"
    third.write_text((tmp_path / "new.txt").read_text())
    result = fastperf.compare(fastperf.read([old, new, str(third)]), baseline="old",
                              candidate=["new", "third"])
    assert result.benchmarks.num_rows == 4
    assert "too few runs" not in result.benchmarks.column("verdict").to_pylist()


# =========================================================================== renderings

# hand-made: baseline median (1.716 + 1.720)/2 = 1.718 us, interval [x_(2), x_(9)] (n = 10)
# = [1.700, 1.735]: max(1.735/1.718 - 1, 1 - 1.700/1.718) = max(0.99 %, 1.05 %) -> "1%";
# candidate median (1.4222 + 1.4230)/2 = 1.4226 -> "1.423µ", [1.410, 1.450]:
# max(1.93 %, 0.89 %) -> "2%"; delta 1.4226/1.718 - 1 = -17.19 %.
ENC_BASE = [1.690, 1.700, 1.705, 1.710, 1.716, 1.720, 1.725, 1.730, 1.735, 1.760]
ENC_CAND = [1.400, 1.410, 1.415, 1.418, 1.4222, 1.4230, 1.430, 1.435, 1.450, 1.460]
# baseline median 2.400 (x_(2), x_(9)) = (2.390, 2.410): 0.42 % -> "0%"; candidate n = 9:
# median y_(5) = 2.403, [y_(2), y_(8)] = [2.392, 2.409]: max(0.25 %, 0.46 %) -> "0%"
DEC_BASE = [2.380, 2.390, 2.395, 2.398, 2.399, 2.401, 2.402, 2.405, 2.410, 2.420]
DEC_CAND = [2.385, 2.392, 2.396, 2.3993, 2.403, 2.404, 2.406, 2.409, 2.415]


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("  ") if c.strip()]


def hand_table():
    return make_table({"BenchmarkEncode": ([v * 1e-6 for v in ENC_BASE], [v * 1e-6 for v in ENC_CAND]),
                       "BenchmarkDecode": ([v * 1e-6 for v in DEC_BASE], [v * 1e-6 for v in DEC_CAND])})


def test_text_cells_by_hand():
    result = fastperf.compare(hand_table(), baseline=BASE, candidate=CAND)
    text = result.to_text()
    lines = text.splitlines()
    assert cells(lines[0]) == [BASE, CAND]
    assert cells(lines[1]) == ["sec/op", "sec/op", "vs base"]
    p_enc = 2 / math.comb(20, 10)  # every candidate run below every baseline run
    p_dec = scipy_p(DEC_BASE, DEC_CAND)
    adj = bh([p_enc, p_dec])
    assert adj[0] < 0.0005
    assert cells(lines[2]) == ["Encode", "1.718µ ± 1%", "1.423µ ± 2%", "-17.19%",
                               "(p=0.000 n=10)", "better"]
    assert cells(lines[3]) == ["Decode", "2.400µ ± 0%", "2.403µ ± 0%", "~",
                               f"(p={adj[1]:.3f} n=10+9)", "no change"]
    gb = math.sqrt(1.718 * 2.400)     # 2.0306 -> "2.031µ"
    gc = math.sqrt(1.4226 * 2.403)    # 1.8489 -> "1.849µ"
    assert (f"{gb:.3f}", f"{gc:.3f}") == ("2.031", "1.849")
    assert cells(lines[4]) == ["geomean", "2.031µ", "1.849µ", f"{100 * (gc / gb - 1):+.2f}%"]
    assert "Benchmark" not in text
    assert "1 better, 1 no change; p-values adjusted (Benjamini-Hochberg) over 2 comparisons" in text
    unadjusted = fastperf.compare(hand_table(), baseline=BASE, candidate=CAND, adjust="none")
    assert f"(p={p_dec:.3f} n=10+9)" in unadjusted.to_text()
    assert "p-values not adjusted" in unadjusted.to_text()


def test_text_binary_prefixes_for_bytes_per_second():
    gib = 2.0 ** 30
    x = np.array([1.990, 1.995, 1.998, 2.000, 2.001, 2.001, 2.003, 2.005, 2.010, 2.020]) * gib
    table = make_table({"BenchmarkCRC": (x, x * 1.25)}, unit="B/s")
    result = fastperf.compare(table, baseline=BASE, candidate=CAND)
    line = [ln for ln in result.to_text().splitlines() if ln.startswith("CRC")][0]
    # median 2.001 Gi; [x_(2), x_(9)] = [1.995, 2.010]: max(0.45 %, 0.30 %) -> "0%"
    # candidate: every value times 1.25 -> median 2.50125 Gi -> "2.501Gi"
    assert cells(line)[:4] == ["CRC", "2.001Gi ± 0%", "2.501Gi ± 0%", "+25.00%"]
    assert cells(line)[-1] == "better"


def test_text_sort_delta_puts_the_largest_regression_first():
    x = np.linspace(1.0, 1.05, 10)
    table = make_table({"BenchmarkA": (x, x * 1.05), "BenchmarkB": (x, x * 1.30),
                        "BenchmarkC": (x, x * 0.8), "BenchmarkD": (x, x * 1.10)})
    result = fastperf.compare(table, baseline=BASE, candidate=CAND)
    names = [cells(ln)[0] for ln in result.to_text(sort="delta").splitlines()[2:6]]
    assert names == ["B", "D", "A", "C"]
    names = [cells(ln)[0] for ln in result.to_text(sort="name").splitlines()[2:6]]
    assert names == ["A", "B", "C", "D"]
    names = [cells(ln)[0] for ln in result.to_text().splitlines()[2:6]]
    assert names == ["A", "B", "C", "D"]


def test_markdown_and_json():
    x = np.linspace(1.0, 1.05, 10)
    table = make_table({"BenchmarkA": (x, x * 1.05), "BenchmarkB": (x, x * 1.30),
                        "BenchmarkC": (x, x * 0.8), "BenchmarkD": (x, x * 1.001)})
    result = fastperf.compare(table, baseline=BASE, candidate=CAND)
    md = result.to_markdown()
    assert md.splitlines()[0] == (f"**fastperf compare** `{BASE}` → `{CAND}`: **2 worse**, "
                                  "**1 better**, 1 no change")
    assert "### Regressions and improvements" in md
    head, details = md.split("<details>")
    assert "Unchanged and not decided (1)" in details and "</details>" in details
    assert "| D " in details and "| D " not in head
    table_lines = [ln for ln in head.splitlines() if ln.startswith("| ")]
    order = [ln.split("|")[1].strip() for ln in table_lines[1:]]
    assert order == ["B", "A", "C"]  # regressions first
    doc = json.loads(result.to_json())
    assert {"benchmarks", "overall", "summary"} <= set(doc)
    assert [b["benchmark"] for b in doc["benchmarks"]] == [f"Benchmark{c}" for c in "ABCD"]
    assert doc["summary"]["verdicts"]["worse"] == 2
    geo = doc["overall"][0]
    meds_x = [np.median(x)] * 4
    meds_y = [np.median(x * f) for f in (1.05, 1.30, 0.8, 1.001)]
    want = math.exp(np.mean(np.log(meds_y))) / math.exp(np.mean(np.log(meds_x))) - 1
    assert geo["geomean_delta"] == pytest.approx(want, rel=1e-12)
    assert geo["compared"] == 4 and geo["worse"] == 2 and geo["better"] == 1


# =========================================================================== the CLI


def run(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def cli_files(folder, factors=(1.2, 1.0, 1.0), names=("old", "new")):
    """Go files in `folder`: the candidates' BenchmarkA..C times the factors (A: 20 % slower),
    one distinct note line per file."""
    folder.mkdir(parents=True, exist_ok=True)
    base = {f"Benchmark{c}": [1000.0 + 7 * i + 100 * k for i in range(10)]
            for k, c in enumerate("ABC")}
    paths = []
    for v, name in enumerate(names):
        sections = {"example.com/p": {b: [x * (factors[k] if v else 1.0) for x in values]
                                      for k, (b, values) in enumerate(base.items())}}
        paths.append(go_file(folder / f"{name}.txt", sections, f"note: file {name}\n"))
    return paths


def test_cli_default_protocol_is_compare(tmp_path, capsys):
    old, new = cli_files(tmp_path)
    rc, out, err = run(["compare", old, new], capsys)
    assert rc == 0 and err == ""
    assert "vs base" in out and "sec/op" in out
    assert "A-8" in out and "+20.00%" in out and "worse" in out
    rc, out, _ = run(["compare", old, new, "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["summary"]["function"] == "compare"
    assert doc["summary"]["baseline"] == "old" and doc["summary"]["candidates"] == ["new"]


def test_cli_fail_on_worse(tmp_path, capsys):
    old, new = cli_files(tmp_path)
    rc, out, err = run(["compare", old, new, "--fail-on", "worse"], capsys)
    assert rc == 1
    assert len(err.strip().splitlines()) == 1 and "FAIL" in err and "1 worse" in err
    assert "BenchmarkA-8" in err
    rc, _, err = run(["compare", old, new, "--fail-on", "worse", "--fail-threshold", "25%"], capsys)
    assert rc == 0 and "pass" in err and "FAIL" not in err
    rc, _, _ = run(["compare", old, new, "--fail-on", "worse", "--fail-threshold", "0.19"], capsys)
    assert rc == 1
    same_old, same_new = cli_files(tmp_path / "better", factors=(1.0, 0.8, 1.0))
    rc, _, err = run(["compare", same_old, same_new, "--fail-on", "worse"], capsys)
    assert rc == 0 and "0 worse, 1 better" in err
    rc, _, _ = run(["compare", old, new], capsys)  # no gate: 0 although a benchmark is worse
    assert rc == 0


@pytest.mark.parametrize("extra, message", [
    (["--threshold", "abc"], "--threshold"),
    (["--direction", "x=sideways"], "--direction"),
    (["--protocol", "sparc", "--fail-threshold", "2%"], "--fail-threshold"),
    (["--protocol", "speedup-test", "--fail-on", "worse"], "--fail-on"),
    (["--adjust", "x"], "--adjust"),
    (["--alpha", "2"], "alpha"),
    (["--candidate", "nope", "--baseline", "old"], "nope"),
    (["--weights", "w"], "--weights"),
])
def test_cli_bad_input_one_line(tmp_path, capsys, extra, message):
    old, new = cli_files(tmp_path)
    rc, out, err = run(["compare", old, new, *extra], capsys)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "Traceback" not in err


def test_cli_unknown_file(capsys, tmp_path):
    rc, out, err = run(["compare", str(tmp_path / "nope.txt"), str(tmp_path / "other.txt")],
                       capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_adjust_direction_candidates_sort_markdown(tmp_path, capsys):
    old, new = cli_files(tmp_path, factors=(1.2, 1.05, 0.9))
    table = fastperf.read([old, new])
    _, out, _ = run(["compare", old, new, "--format", "json", "--adjust", "none"], capsys)
    rows = json.loads(out)["benchmarks"]
    ps = [scipy_p(samples(table, r["benchmark"], "old"), samples(table, r["benchmark"], "new"))
          for r in rows]
    assert [r["pvalue_adjusted"] for r in rows] == pytest.approx(ps, rel=1e-12)
    _, out, _ = run(["compare", old, new, "--format", "json"], capsys)
    rows = json.loads(out)["benchmarks"]
    assert [r["pvalue_adjusted"] for r in rows] == pytest.approx(list(bh(ps)), rel=1e-9)
    _, out, _ = run(["compare", old, new, "--sort", "delta"], capsys)
    order = [cells(ln)[0] for ln in out.splitlines() if ln.startswith(("A-8", "B-8", "C-8"))]
    assert order == ["A-8", "B-8", "C-8"]
    _, out, _ = run(["compare", old, new, "--format", "markdown"], capsys)
    assert out.startswith("**fastperf compare** `old` → `new`: **2 worse**, **1 better**")
    # three files, two candidates
    paths = cli_files(tmp_path / "three", names=("a", "b", "c"))
    _, out, _ = run(["compare", *paths, "--candidate", "b,c", "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["summary"]["baseline"] == "a" and doc["summary"]["candidates"] == ["b", "c"]
    assert [r["candidate"] for r in doc["benchmarks"]] == ["b"] * 3 + ["c"] * 3
    assert doc["summary"]["comparisons"] == 6


def test_cli_direction_override(tmp_path, capsys):
    x = np.linspace(1.0, 1.05, 10) * 1e9
    old = tmp_path / "old.txt"
    new = tmp_path / "new.txt"
    for path, f in ((old, 1.0), (new, 1.3)):
        path.write_text("pkg: p\n" + "".join(f"BenchmarkT-8 \t 100\t 1000 ns/op\t {v * f:.2f} MB/s\n"
                                             for v in x / 1e6))
    table = fastperf.read([str(old), str(new)])
    units = set(table.column("unit").to_pylist())
    rate = next(u for u in units if u.endswith("/s"))
    _, out, _ = run(["compare", str(old), str(new), "--format", "json"], capsys)
    got = {r["unit"]: r for r in json.loads(out)["benchmarks"]}
    assert got[rate]["verdict"] == "better" and got[rate]["direction"] == "higher"
    _, out, _ = run(["compare", str(old), str(new), "--format", "json", "--direction",
                     f"{rate}=lower"], capsys)
    got = {r["unit"]: r for r in json.loads(out)["benchmarks"]}
    assert got[rate]["verdict"] == "worse" and got[rate]["direction"] == "lower"


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_cli_csv_parquet_full_precision(tmp_path, capsys, fmt):
    old, new = cli_files(tmp_path)
    out = tmp_path / f"out.{fmt}"
    rc, _, _ = run(["compare", old, new, "--format", fmt, "-o", str(out)], capsys)
    assert rc == 0
    got = (pacsv.read_csv(out) if fmt == "csv" else pq.read_table(out)).to_pylist()
    table = fastperf.read([old, new])
    assert len(got) == 3
    for r in got:
        x, y = samples(table, r["benchmark"], "old"), samples(table, r["benchmark"], "new")
        assert r["median_baseline"] == float(np.median(x))
        assert r["median_candidate"] == float(np.median(y))
        assert r["pvalue"] == pytest.approx(scipy_p(x, y), rel=1e-12)
        assert r["delta"] == pytest.approx(np.median(y) / np.median(x) - 1, rel=1e-12)


# =========================================================================== the alpha cut-off
# Adjusted p-values just either side of alpha, from oracles independent of compare: the exact
# two-sided rank-sum p by enumeration (brute_exact_p) and scipy's exact mannwhitneyu, adjusted by
# Benjamini-Hochberg written out here in rationals. A verdict moves exactly where p_adjusted < alpha
# stops holding: a cut-off moved by a fifth of alpha (p <= 1.2 alpha, p < 0.8 alpha) fails here.


def with_u_inversions(m: int, n: int, u: int) -> tuple[list[float], list[float]]:
    """Untied baseline (m values) and candidate (n values) with exactly `u` pairs where the
    baseline value is the larger: every candidate above every baseline value, then `u` swaps of
    adjacent (baseline, candidate) labels, the candidate moving one place down each time."""
    labels = ["x"] * m + ["y"] * n
    for _ in range(u):
        i = max(i for i in range(m + n - 1) if labels[i:i + 2] == ["x", "y"])
        labels[i], labels[i + 1] = "y", "x"
    x = [10.0 + i for i, label in enumerate(labels) if label == "x"]
    y = [10.0 + i for i, label in enumerate(labels) if label == "y"]
    assert sum(a > b for a in x for b in y) == u
    return x, y


def bh_by_hand(p: list[Fraction]) -> list[Fraction]:
    """Benjamini-Hochberg adjusted p-values: min over j >= rank i of p_(j) m / j, capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [Fraction(0)] * m, Fraction(1)
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        out[i] = running
    return out


def exact_rank_sum_p(x, y) -> Fraction:
    """The two-sided exact p (untied) as a rational: 2 P(U <= u) by counting arrangements."""
    m, n = len(x), len(y)
    u = min(sum(a > b for a in x for b in y), sum(b > a for a in x for b in y))
    return min(Fraction(1), Fraction(2 * sum(u_counts(m, n)[:u + 1]), math.comb(m + n, m)))


# (m, n, u): the exact p of each, and where it lies from alpha = 0.05
ABOVE_ALPHA = (5, 5, 3)    # p = 1/18 = 0.0556: above alpha, below 1.2 alpha = 0.06
BELOW_ALPHA = (8, 8, 13)   # p = 107/2145 = 0.04988: below alpha, above 0.8 alpha = 0.04


@pytest.mark.parametrize("groups, expected", [
    ({"a": ABOVE_ALPHA}, {"a": "no change"}),
    ({"a": BELOW_ALPHA}, {"a": "worse"}),
    # BH lifts a's raw p = 2/63 (below alpha) to b's 1/18 (above): both no change
    ({"a": (5, 5, 2), "b": ABOVE_ALPHA}, {"a": "no change", "b": "no change"}),
    # two equal p just below alpha: BH leaves them there, both worse
    ({"a": BELOW_ALPHA, "b": BELOW_ALPHA}, {"a": "worse", "b": "worse"}),
], ids=["above", "below", "bh-lifted-above", "bh-family-below"])
def test_alpha_cut_off_with_adjusted_p_either_side(groups, expected):
    data = {name: with_u_inversions(*sizes) for name, sizes in groups.items()}
    names = sorted(data)
    raw = [exact_rank_sum_p(*data[name]) for name in names]
    adjusted = dict(zip(names, bh_by_hand(raw)))
    for name, p in zip(names, raw):  # the oracles agree on the raw p
        x, y = data[name]
        assert float(p) == pytest.approx(brute_exact_p(np.array(x), np.array(y)), rel=1e-12)
        assert float(p) == pytest.approx(st.mannwhitneyu(y, x, method="exact").pvalue, rel=1e-12)
    for name in names:  # each adjusted p lies within a fifth of alpha, on the side expected
        below = expected[name] == "worse"
        assert (0.04 < adjusted[name] < 0.05) if below else (0.05 < adjusted[name] <= 0.06)
    result = fastperf.compare(make_table(data), baseline=BASE, candidate=CAND)
    rows = {row["benchmark"]: row for row in result.benchmarks.to_pylist()}
    for name, p in zip(names, raw):
        assert rows[name]["pvalue"] == pytest.approx(float(p), rel=1e-9), name
        assert rows[name]["pvalue_adjusted"] == pytest.approx(float(adjusted[name]), rel=1e-9), name
        assert rows[name]["verdict"] == expected[name], (name, rows[name]["pvalue_adjusted"])


@pytest.mark.parametrize("t_target, expected", [(1.96, "no change"), (2.05, "worse")])
def test_alpha_cut_off_of_summary_tables(t_target, expected):
    """Summaries (n, mean, sd) take Welch's t-test: scipy's p from the same summaries, just
    above or below alpha, decides the verdict as the rank-sum p does."""
    n, sd = 40, 1.0
    shift = t_target * sd * math.sqrt(2 / n)
    table = fastperf.read(pa.table({"benchmark": ["b", "b"], "variant": [BASE, CAND],
                                    "unit": ["ns", "ns"], "n": [n, n],
                                    "mean": [100.0, 100.0 + shift], "sd": [sd, sd]}),
                          summaries=True)
    p = st.ttest_ind_from_stats(100.0 + shift, sd, n, 100.0, sd, n, equal_var=False).pvalue
    assert (0.05 < p <= 0.06) if expected == "no change" else (0.04 < p < 0.05)
    row = fastperf.compare(table, baseline=BASE, candidate=CAND).benchmarks.to_pylist()[0]
    assert row["pvalue"] == pytest.approx(p, rel=1e-9)
    assert row["pvalue_adjusted"] == pytest.approx(p, rel=1e-9)  # one comparison: BH keeps p
    assert row["verdict"] == expected


def test_alpha_cut_off_is_strict():
    """An adjusted p equal to alpha is no change (p < alpha, compare's docstring): alpha is set
    to the adjusted p the first call gives, which the oracle's 1/18 confirms to 1e-12."""
    table = make_table({"a": with_u_inversions(*ABOVE_ALPHA)})
    p = fastperf.compare(table, baseline=BASE, candidate=CAND).benchmarks.to_pylist()[0]
    assert p["pvalue_adjusted"] == pytest.approx(1 / 18, rel=1e-12)
    at = fastperf.compare(table, baseline=BASE, candidate=CAND, alpha=p["pvalue_adjusted"])
    assert at.benchmarks.to_pylist()[0]["verdict"] == "no change"
    above = fastperf.compare(table, baseline=BASE, candidate=CAND,
                             alpha=math.nextafter(p["pvalue_adjusted"], 1.0))
    assert above.benchmarks.to_pylist()[0]["verdict"] == "worse"


# ------------------------------------------------------------------ values near the float64 limits

def _two_variants(old: list[float], new: list[float]) -> pa.Table:
    return pa.table({"benchmark": ["b"] * (len(old) + len(new)),
                     "variant": ["old"] * len(old) + ["new"] * len(new), "value": old + new})


def test_medians_near_the_float64_limit_are_finite_and_exact():
    """Two middle values whose sum overflows: the median is their exact midpoint rounded once
    (exact rationals as the oracle), the change finite, status ok, no warning."""
    new = [1.6e308 + i * 1e300 for i in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning reaches the user
        row = fastperf.compare(_two_variants([1.7e308] * 8, new), baseline="old",
                               candidate="new").benchmarks.to_pylist()[0]
    middle = sorted(new)[3:5]
    assert row["median_baseline"] == 1.7e308
    assert row["median_candidate"] == float((Fraction(middle[0]) + Fraction(middle[1])) / 2)
    assert row["delta"] == pytest.approx(float(Fraction(row["median_candidate"])
                                               / Fraction(1.7e308) - 1), rel=1e-15)
    assert row["status"] == "ok" and math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"])


def test_a_ratio_beyond_float64_has_a_status():
    """Values 1e-300 against 1e300: the ratio (1e600) is beyond float64, which the status says;
    the rank test itself is valid, so the verdict stands."""
    old = [1e-300 * (i + 1) for i in range(8)]
    new = [1e300 * (i + 3) for i in range(8)]
    row = fastperf.compare(_two_variants(old, new), baseline="old",
                           candidate="new").benchmarks.to_pylist()[0]
    assert row["status"] == "ratio or its interval beyond the float64 range"
    assert row["ratio"] == math.inf and row["verdict"] == "changed"
    assert row["pvalue"] == pytest.approx(st.mannwhitneyu(new, old, method="exact").pvalue)
    # 1e-50 against 1e50 fits: ok
    fits = fastperf.compare(_two_variants([v * 1e250 for v in old], [v / 1e250 for v in new]),
                            baseline="old", candidate="new").benchmarks.to_pylist()[0]
    assert fits["status"] == "ok" and math.isfinite(fits["ratio"])


@pytest.mark.parametrize("flag", ["yes", 1, [True], {"ms": "no"}, {1: True}])
def test_higher_is_better_must_be_a_flag_or_a_mapping_of_flags(flag):
    table = _two_variants([1.0, 1.1, 1.2, 1.0, 1.1], [2.0, 2.1, 2.2, 2.0, 2.1])
    for call in (lambda: fastperf.compare(table, baseline="old", candidate="new",
                                          higher_is_better=flag),
                 lambda: fastperf.decide(table, baseline="old", candidate="new", margin=0.1,
                                         higher_is_better=flag),
                 lambda: fastperf.changepoints(table.append_column("commit", pa.array(
                     range(10))), order="commit", higher_is_better=flag)):
        with pytest.raises(fastperf.InputError, match="higher_is_better must be None"):
            call()


def test_midpoint_is_the_exact_mean_of_two_rounded_once():
    """`midpoint` against exact rationals: finite pairs (sums that overflow included) give the
    correctly rounded (a + b) / 2; infinities and NaN pass through as float arithmetic does."""
    from fastperf.engine.summaries import midpoint
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.uniform(-1, 1, 200) * 1.7976931348623157e308,
                        rng.normal(0, 1e-300, 50), rng.normal(0, 1, 50), [5e-324, -5e-324]])
    b = np.concatenate([rng.uniform(-1, 1, 200) * 1.7976931348623157e308,
                        rng.normal(0, 1e-300, 50), rng.normal(0, 1, 50), [5e-324, 5e-324]])
    got = midpoint(a, b)
    want = [float((Fraction(x) + Fraction(y)) / 2) for x, y in zip(a.tolist(), b.tolist())]
    # above the subnormals halving is exact, so one rounding: within half an ulp of the exact
    # midpoint, and equal to it wherever the sum does not overflow
    np.testing.assert_allclose(got, want, rtol=2 ** -52, atol=5e-324)
    with np.errstate(over="ignore"):
        fits = np.isfinite(a + b)
    np.testing.assert_array_equal(got[fits], np.array(want)[fits])
    special = midpoint(np.array([np.inf, np.inf, np.nan, -np.inf]),
                       np.array([1.0, -np.inf, 1.0, -np.inf]))
    assert special[0] == np.inf and np.isnan(special[1]) and np.isnan(special[2])
    assert special[3] == -np.inf
