"""`sparc` and `hpt` against plain per-benchmark references of the two protocols.

The oracle is written here, one benchmark at a time, from the protocols' definitions (SPARC:
Tullos, Graham & Jordan 2021; HPT: Chen et al. 2012, as `fastperf.protocols.sparc` and
`fastperf.protocols.hpt` document them) with scipy.stats, statsmodels and numpy only:

- paired SPARC: runs matched by run id, r = x / y (y / x when higher is better), Wilcoxon
  signed-rank tests of log r (two-sided), log r - log1p(delta) ("less") and log r -
  log1p(-delta) ("greater") on the default log scale, of r - 1, r - (1 + delta) and
  r - (1 - delta) with scale="ratio" (the paper's arithmetic), zeros dropped; scipy's ``wilcoxon`` (continuity-corrected normal approximation),
  and exactly a brute-force enumeration of the 2^n sign patterns over the midranks (n <= 14) or
  a count of the same patterns by rank sum (larger n), checked against scipy's exact p for
  untied differences (to 1e-15 absolute: scipy forms some tails as 1 - cdf and loses what lies
  below ~1e-16, so it cannot be the 1e-12 relative oracle for tiny p at n ~ 70);
- unpaired SPARC: scipy's ``mannwhitneyu`` of the logs (shifted by log(1 +/- delta) for the
  equivalence nulls), exact with ties by enumerating every assignment (N <= 16) or counting
  subsets by rank sum;
- the family: m = 2 x (benchmarks tested) + (overall tests); Bonferroni alpha / m, Holm by
  statsmodels' ``multipletests``, or none; Table I's four conclusions; the overall signed-rank
  test over the median ratios of the benchmarks with a relevant difference (their logs, or
  the ratios - 1 with scale="ratio");
- HPT: a two-sided rank-sum test per benchmark, the scores, scipy's one-sided signed-rank test
  over them, and the reliability on the whole grid r = k / 100 of speedups.

z statistics are recomputed here from T+ (or U) with the tie and continuity corrections and
checked against scipy's p-values before being compared with fastperf's. Nothing here calls
fastperf except `sparc` and `hpt`.

Conventions taken from fastperf's docstrings: a signed-rank test whose differences are all zero
has p = 1 and T+ = 0 (a sum over no difference, as scipy's), z NaN; z is NaN where the test
was exact; "auto" is exact
(conditional on ties) at every size drawn here. The HPT reference slows the candidate by
r = k / 100 as a shift of the logs by log(r) and scores log(ratio) - log(r) (ratio / r - 1
with scale="ratio"). HPT's speedup search is a
bisection over k: it returns the largest k reaching the confidence only when the k's that reach
it are 1 .. K, which holds whenever the reliability falls as r grows; the grid test asserts
those cases (the reliability is not always monotone, see test_hpt_speedups_on_the_grid).
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st

from fastperf import hpt, sparc
from naive import (
    p_from_tails, rank_sum_tails_counted, rank_sum_tails_enumerated, signed_rank_tails_counted,
    signed_rank_tails_enumerated,
)

BASE = "base"
CANDIDATES = ("c1", "c2")
P_RTOL = 1e-9  # asymptotic p-values and z statistics
EXACT_RTOL = 1e-12  # exact p-values
FIGURE_RTOL = 1e-12  # medians, ratios, rank statistics
Z_ATOL = 1e-12
SCIPY_EXACT_ATOL = 1e-15  # scipy's exact signed-rank p: see signed_rank_ref
SIGNED_RANK_ENUMERATION_MAX_N = 14
RANK_SUM_ENUMERATION_MAX_N = 16
CONCLUSIONS = ("relevant difference", "trivial difference", "equivalence", "indeterminate")


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)


def _scipy_asymptotic_name() -> str:
    """scipy's name for the normal approximation of ``wilcoxon`` ("approx" before 1.11ish)."""
    try:
        quiet(st.wilcoxon, [1.0, 2.0, -3.5, 4.0], method="asymptotic")
        return "asymptotic"
    except ValueError:
        return "approx"


WILCOXON_ASYMPTOTIC = _scipy_asymptotic_name()


# --------------------------------------------------------------------------- measurement tables

FACTORS = (0.5, 0.8, 0.95, 0.99, 0.999, 1.0, 1.0, 1.0, 1.001, 1.01, 1.03, 1.1, 1.3, 2.0)
FASTER = (0.97, 1.0, 1.0, 1.001, 1.01, 1.03, 1.1, 1.1, 1.3, 2.0)
KINDS = ("lognormal", "independent", "quantised", "integer", "margin_low", "margin_high", "equal")
KIND_WEIGHTS = np.array([6, 2, 3, 2, 1, 1, 1], float)
UNTIED_KINDS = 2  # the first kinds: continuous values, no ties and no zero differences


def _baseline_values(rng, kind, n):
    if kind in ("lognormal", "equal"):
        return 10.0 * rng.lognormal(0.0, 0.05, n)
    if kind == "independent":
        return 10.0 * rng.lognormal(0.0, 0.1, n)
    if kind == "quantised":  # timer resolution 0.1: ties and zero differences
        return np.round(rng.normal(10.0, 0.3, n), 1)
    if kind == "integer":  # a few distinct values
        return rng.integers(18, 23, n).astype(float)
    if kind == "margin_low":  # x / 20 hits 0.8, 0.95, 1, 1.05, 1.2 exactly
        w = rng.dirichlet(np.ones(5))
        return rng.choice([16.0, 19.0, 20.0, 21.0, 24.0], n, p=w) * rng.choice([1.0, 2.0])
    if kind == "margin_high":
        return np.full(n, 20.0)
    raise ValueError(kind)


def _candidate_values(rng, kind, x, factor):
    """The candidate's runs paired with the baseline's `x` (times divided by `factor`)."""
    n = len(x)
    if kind == "lognormal":
        return x / factor * rng.lognormal(0.0, rng.choice([0.003, 0.02, 0.1]), n)
    if kind == "independent":
        return 10.0 / factor * rng.lognormal(0.0, 0.1, n)
    if kind == "quantised":
        return np.round(x / factor + rng.normal(0.0, 0.1, n), 1)
    if kind == "integer":
        return np.round(x / factor) + rng.choice([-1.0, 0.0, 0.0, 1.0], n)
    if kind == "margin_low":  # x / y in {0.8, 0.95, 1, 1.05, 1.2}
        return np.full(n, 40.0 if n and x.max() > 24 else 20.0)
    if kind == "margin_high":  # y / x in {0.8, 0.95, 1, 1.05, 1.2}
        w = rng.dirichlet(np.ones(5))
        return rng.choice([16.0, 19.0, 20.0, 21.0, 24.0], n, p=w)
    if kind == "equal":  # every ratio exactly 1
        return x.copy()
    raise ValueError(kind)


def _size(rng, max_n):
    pattern = rng.choice(["tiny", "small", "medium", "large"], p=[0.12, 0.4, 0.33, 0.15])
    if pattern == "tiny":
        return int(rng.integers(1, 5))
    if pattern == "small":
        return int(rng.integers(5, 15))
    if pattern == "medium":
        return int(rng.integers(15, min(31, max_n + 1)))
    return int(rng.integers(min(31, max_n), max_n + 1))


def _sprinkle(rng, side: dict) -> None:
    """Null or NaN in place of 1-3 values of a side."""
    runs = list(side)
    if not runs:
        return
    for run in rng.choice(runs, size=min(len(runs), int(rng.integers(1, 4))), replace=False):
        side[int(run)] = float("nan") if rng.random() < 0.5 else None


def make_benchmarks(seed, count=260, untied=False, max_n=70):
    """{benchmark: {variant: {run: value}}}: the baseline and both candidates (value None for a
    null, NaN for NaN), with runs on one side only, missing sides and a third variant."""
    rng = np.random.default_rng(seed)
    kinds = KINDS[:UNTIED_KINDS] if untied else KINDS
    p = KIND_WEIGHTS[: len(kinds)] / KIND_WEIGHTS[: len(kinds)].sum()
    out = {}
    for i in range(count):
        n = _size(rng, max_n)
        kind = str(rng.choice(kinds, p=p))
        x = _baseline_values(rng, kind, n)
        sides = {BASE: dict(enumerate(x.tolist()))}
        for name in CANDIDATES:  # c2 tends to be faster: its overall test rejects
            factor = float(rng.choice(FACTORS if name == "c1" else FASTER))
            y = _candidate_values(rng, kind, x, factor)
            sides[name] = dict(enumerate(y.tolist()))
        for side in sides.values():
            if rng.random() < 0.12:
                _sprinkle(rng, side)
            r = rng.random()
            if r < 0.08 and side:  # runs of this side lost: unmatched on the other sides
                for run in rng.choice(list(side), size=min(len(side), int(rng.integers(1, 4))),
                                      replace=False):
                    del side[int(run)]
            elif r < 0.14:  # extra runs on this side only
                for k in range(int(rng.integers(1, 3))):
                    side[n + k] = float(_baseline_values(rng, "lognormal", 1)[0])
            elif r < 0.16 and side:  # every value null or NaN
                for run in side:
                    side[run] = None if rng.random() < 0.5 else float("nan")
        r = rng.random()
        if r < 0.04:
            del sides["c1"]
        elif r < 0.08:
            del sides["c2"]
        elif r < 0.10:
            del sides[BASE]
        if rng.random() < 0.1:
            sides["other"] = {k: float(v) for k, v in enumerate(rng.uniform(5, 6, 3))}
        out[f"b{i:04d}"] = sides
    out["only_other"] = {"other": {0: 1.0, 1: 2.0}}
    return out


def measurement_table(benchmarks, seed):
    """Long table (benchmark, variant, run, value, unit), rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = [(name, variant, run, value)
            for name, sides in benchmarks.items()
            for variant, side in sides.items()
            for run, value in side.items()]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    cols = list(zip(*rows))
    return pa.table({
        "benchmark": pa.array(cols[0], pa.string()),
        "variant": pa.array(cols[1], pa.string()),
        "run": pa.array(cols[2], pa.int64()),
        "value": pa.array([None if v is None else float(v) for v in cols[3]], pa.float64()),
        "unit": pa.array(["s"] * len(rows), pa.string()),
    })


def has_rows(sides) -> bool:
    return any(len(side) for side in sides.values())


def missing(v) -> bool:
    return v is None or v != v


def paired_sample(sides, candidate):
    """The matched pairs of one benchmark: x, y, runs on one side only, pairs with a null."""
    xs, ys = sides.get(BASE, {}), sides.get(candidate, {})
    common = sorted(set(xs) & set(ys))
    kept = [r for r in common if not missing(xs[r]) and not missing(ys[r])]
    return (np.array([xs[r] for r in kept], float), np.array([ys[r] for r in kept], float),
            len(set(xs) ^ set(ys)), len(common) - len(kept))


def side_sample(sides, variant):
    """One side's values (nulls and NaN dropped) and the number dropped."""
    values = list(sides.get(variant, {}).values())
    kept = np.array([v for v in values if not missing(v)], float)
    return kept, len(values) - kept.size


@functools.lru_cache(maxsize=None)
def dataset(seed, untied=False, max_n=70, count=260):
    benchmarks = make_benchmarks(seed, count=count, untied=untied, max_n=max_n)
    return benchmarks, measurement_table(benchmarks, seed + 1000)


# --------------------------------------------------------------------------- rank-test oracles


def tie_term(values):
    _, t = np.unique(values, return_counts=True)
    return float(np.sum(t.astype(float) ** 3 - t))


def signed_rank_ref(d, alternative, method):
    """One Wilcoxon signed-rank test of the differences `d`, zeros dropped: (p, z, T+, method).

    z is oriented as SPARC reports it: two-sided, positive when T+ is above its mean; "less",
    towards the alternative (-z); "greater", z. p = 1 (exactly) when every difference is zero."""
    d = np.asarray(d, float)
    d = d[d != 0]
    n = d.size
    if n == 0:
        return 1.0, np.nan, 0.0, "exact"
    ranks = st.rankdata(np.abs(d))
    t_plus = float(ranks[d > 0].sum())
    tied = np.unique(np.abs(d)).size < n
    if method == "asymptotic":
        mean = n * (n + 1) / 4.0
        sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - tie_term(np.abs(d)) / 48.0)
        dev = t_plus - mean
        z = {"two-sided": np.sign(dev) * (abs(dev) - 0.5) / sigma,
             "less": (-dev - 0.5) / sigma, "greater": (dev - 0.5) / sigma}[alternative]
        res = quiet(st.wilcoxon, d, zero_method="wilcox", correction=True,
                    alternative=alternative, method=WILCOXON_ASYMPTOTIC)
        p = float(res.pvalue)
        # the z recomputed here gives scipy's p
        assert p == pytest.approx(min(1.0, (2.0 if alternative == "two-sided" else 1.0)
                                      * st.norm.sf(abs(z) if alternative == "two-sided" else z)),
                                  rel=1e-12, abs=1e-300)
        return p, float(z), t_plus, "asymptotic"
    tails = (signed_rank_tails_enumerated if n <= SIGNED_RANK_ENUMERATION_MAX_N
             else signed_rank_tails_counted)(d)
    p = p_from_tails(*tails, alternative)
    if not tied:
        # scipy's exact p agrees, to its precision: it forms some tails as 1 - cdf, which
        # loses everything below ~1e-16 (e.g. 1.1e-16 for a true 2.7e-20 at n = 70)
        scipy_p = quiet(st.wilcoxon, d, zero_method="wilcox", alternative=alternative,
                        method="exact").pvalue
        assert scipy_p == pytest.approx(p, rel=1e-12, abs=SCIPY_EXACT_ATOL)
        return p, np.nan, t_plus, "exact"
    return p, np.nan, t_plus, "exact (ties)"


def rank_sum_ref(a, b, alternative, method):
    """One Wilcoxon-Mann-Whitney test of `a` against `b`: (p, z, U of a, method); z two-sided
    positive when `a` tends to be larger, one-sided oriented towards the alternative."""
    m, n = a.size, b.size
    pooled = np.concatenate([a, b])
    big_n = m + n
    u = float(st.rankdata(pooled)[:m].sum() - m * (m + 1) / 2.0)
    tied = np.unique(pooled).size < big_n
    if method == "asymptotic":
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = np.sqrt(m * n / 12.0 * ((big_n + 1) - tie_term(pooled) / (big_n * (big_n - 1))))
            dev = u - m * n / 2.0
            z = {"two-sided": np.sign(dev) * (abs(dev) - 0.5) / sigma,
                 "less": (-dev - 0.5) / sigma, "greater": (dev - 0.5) / sigma}[alternative]
        if sigma == 0:  # every value tied: no spread under the null, z = 0 and p = 1
            z = 0.0
        p = float(quiet(st.mannwhitneyu, a, b, use_continuity=True, alternative=alternative,
                        method="asymptotic").pvalue)
        return p, float(z), u, "asymptotic"
    if not tied:
        p = float(quiet(st.mannwhitneyu, a, b, alternative=alternative, method="exact").pvalue)
        return p, np.nan, u, "exact"
    tails = (rank_sum_tails_enumerated if big_n <= RANK_SUM_ENUMERATION_MAX_N
             else rank_sum_tails_counted)(a, b)
    return p_from_tails(*tails, alternative), np.nan, u, "exact (ties)"


def joined(methods):
    """The method column: the common method, else the distinct ones joined by " / "."""
    distinct = list(dict.fromkeys(methods))
    return distinct[0] if len(distinct) == 1 else " / ".join(distinct)


# --------------------------------------------------------------------------- SPARC reference


def status_of(n, min_runs):
    if n == 0:
        return "no runs to compare"
    return "ok" if n >= min_runs else f"too few runs (fewer than {min_runs})"


@functools.lru_cache(maxsize=None)
def sparc_tests(key, candidate, paired, higher, margin, method, min_runs=5, scale="log"):
    """{benchmark: reference row (counts, medians, the three tests)} of one comparison;
    `key` = the arguments of `dataset`."""
    benchmarks, _ = dataset(*key)
    rows = {}
    for name, sides in benchmarks.items():
        if not has_rows(sides):
            continue
        if paired:
            x, y, unmatched, dropped = paired_sample(sides, candidate)
            r = y / x if higher else x / y
            n = r.size
            # log r as the docs define it: sign(num - den) log(max / min), antisymmetric
            num, den = (y, x) if higher else (x, y)
            log_r = np.sign(num - den) * np.log(np.maximum(num, den) / np.minimum(num, den))
            centre = (np.exp(np.median(log_r)) if scale == "log" else np.median(r)) if n else np.nan
            row = {"n": n, "n_zero": int(np.sum(r == 1.0)), "n_unmatched": unmatched,
                   "n_dropped": dropped, "n_duplicated": 0, "ratio_median": float(centre),
                   "log_median": float(np.median(log_r)) if n else np.nan}
        else:
            x, dx = side_sample(sides, BASE)
            y, dy = side_sample(sides, candidate)
            n = min(x.size, y.size)
            mx = float(np.median(x)) if x.size else np.nan
            my = float(np.median(y)) if y.size else np.nan
            num, den = (my, mx) if higher else (mx, my)
            row = {"n": n, "n_baseline": x.size, "n_candidate": y.size,
                   "n_dropped_baseline": dx, "n_dropped_candidate": dy,
                   "ratio_median": num / den,
                   "log_median": math.copysign(math.log(max(num, den) / min(num, den)), num - den)
                   if num != den else 0.0}
        row["median_baseline"] = float(np.median(x)) if x.size else np.nan
        row["median_candidate"] = float(np.median(y)) if y.size else np.nan
        row["status"] = status_of(n, min_runs)
        if row["status"] == "ok":
            if paired and scale == "log":
                d = log_r
                tests = [signed_rank_ref(d, "two-sided", method),
                         signed_rank_ref(d - math.log1p(margin), "less", method),
                         signed_rank_ref(d - math.log1p(-margin), "greater", method)]
            elif paired:
                tests = [signed_rank_ref(r - 1.0, "two-sided", method),
                         signed_rank_ref(r - (1.0 + margin), "less", method),
                         signed_rank_ref(r - (1.0 - margin), "greater", method)]
            else:
                a, b = (np.log(y), np.log(x)) if higher else (np.log(x), np.log(y))
                tests = [rank_sum_ref(a, b, "two-sided", method),
                         rank_sum_ref(a, b + math.log1p(margin), "less", method),
                         rank_sum_ref(a, b + math.log1p(-margin), "greater", method)]
            (p_d, z_d, stat, m_d), (p_u, z_u, _, m_u), (p_l, z_l, _, m_l) = tests
            row.update({"statistic": stat, "pvalue_difference": p_d, "z_difference": z_d,
                        "pvalue_upper": p_u, "z_upper": z_u, "pvalue_lower": p_l,
                        "z_lower": z_l, "pvalue_equivalence": max(p_u, p_l),
                        "method": joined([m_d, m_u, m_l])})
        else:
            row.update({c: np.nan for c in PVALUE_COLUMNS + Z_COLUMNS + ("statistic",)})
            row["method"] = "none"
        rows[name] = row
    return rows


PVALUE_COLUMNS = ("pvalue_difference", "pvalue_upper", "pvalue_lower", "pvalue_equivalence")
Z_COLUMNS = ("z_difference", "z_upper", "z_lower")


def sparc_reference(key, candidates, paired, higher, margin, alpha, correction, method,
                    overall=True, min_runs=5, scale="log"):
    """[((candidate, benchmark), row)] with the family's decisions and conclusions, the
    overall rows, m and the per-test level."""
    from statsmodels.stats.multitest import multipletests

    keyed = [((c, name), dict(row)) for c in candidates
             for name, row in sparc_tests(key, c, paired, higher, margin, method,
                                          min_runs, scale).items()]
    tested = [row for _, row in keyed if row["status"] == "ok"]
    n_overall = len(candidates) if overall else 0
    m = 2 * len(tested) + n_overall
    level = alpha if correction == "none" or m == 0 else alpha / m
    for _, row in keyed:
        row["reject_difference"] = row["reject_equivalence"] = False
        row["conclusion"] = None
    if correction == "holm" and tested:
        pvalues = [row["pvalue_difference"] for row in tested] + \
                  [row["pvalue_equivalence"] for row in tested]
        reject = multipletests(pvalues, alpha=alpha * (1.0 - n_overall / m), method="holm")[0]
        for row, rd, re in zip(tested, reject[: len(tested)], reject[len(tested):]):
            row["reject_difference"], row["reject_equivalence"] = bool(rd), bool(re)
    else:
        for row in tested:
            row["reject_difference"] = row["pvalue_difference"] <= level
            row["reject_equivalence"] = row["pvalue_equivalence"] <= level
    table_one = {(True, False): CONCLUSIONS[0], (True, True): CONCLUSIONS[1],
                 (False, True): CONCLUSIONS[2], (False, False): CONCLUSIONS[3]}
    for row in tested:
        row["conclusion"] = table_one[row["reject_difference"], row["reject_equivalence"]]
    overall_rows = None
    if overall:
        overall_rows = [overall_reference(
            [row["log_median" if scale == "log" else "ratio_median"] for (c, _), row in keyed
             if c == cand and row["conclusion"] == CONCLUSIONS[0]], cand, method, level, scale)
            for cand in candidates]
    return keyed, overall_rows, m, level


def overall_reference(ratio_medians, candidate, method, level, scale="log"):
    """SPARC's overall test of one candidate: two-sided signed-rank of the relevant benchmarks'
    median log ratios (`ratio_medians` holds those logs on the log scale; median ratios - 1
    with scale="ratio"; exact where `method` is; "auto" is exact at these sizes)."""
    medians = np.array(ratio_medians, float)
    n = medians.size
    if n == 0:
        return {"candidate": candidate, "n": 0, "ratio_median": np.nan, "statistic": np.nan,
                "pvalue": np.nan, "z": np.nan, "method": "none", "alpha": level,
                "reject": False, "verdict": "no relevant differences"}
    centred = medians if scale == "log" else medians - 1.0
    p, z, t_plus, used = signed_rank_ref(centred, "two-sided",
                                         "asymptotic" if method == "asymptotic" else "exact")
    nonzero = int(np.sum(centred != 0.0))
    reject = bool(p <= level)
    faster = t_plus > nonzero * (nonzero + 1) / 4.0
    verdict = ("no significant overall difference" if not reject
               else "candidate faster" if faster else "candidate slower")
    centre = np.exp(np.median(medians)) if scale == "log" else np.median(medians)
    return {"candidate": candidate, "n": n, "ratio_median": float(centre),
            "statistic": t_plus, "pvalue": p, "z": z, "method": used, "alpha": level,
            "reject": reject, "verdict": verdict}


# --------------------------------------------------------------------------- comparison helpers


def close(got, want, rel, abs_=0.0):
    got = np.nan if got is None else float(got)
    want = float(want)
    if np.isnan(want) or np.isnan(got):
        return np.isnan(want) and np.isnan(got)
    return got == pytest.approx(want, rel=rel, abs=abs_)


def mismatches(label, got, want, exact_columns, float_columns):
    """Messages for every column of `got` (a row of fastperf) differing from `want`."""
    out = []
    for column in exact_columns:
        if got[column] != want[column]:
            out.append(f"{label} {column}: got {got[column]!r}, want {want[column]!r}")
    for column, (rel, abs_) in float_columns.items():
        if not close(got[column], want[column], rel, abs_):
            out.append(f"{label} {column}: got {got[column]!r}, want {want[column]!r}")
    return out


def assert_no_mismatches(failures):
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures[:25])


PAIRED_COUNTS = ("n", "n_zero", "n_unmatched", "n_dropped", "n_duplicated")
UNPAIRED_COUNTS = ("n", "n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate")
DECISIONS = ("method", "reject_difference", "reject_equivalence", "conclusion", "status")


def float_tolerances(method):
    p_rtol = P_RTOL if method == "asymptotic" else EXACT_RTOL
    out = {c: (FIGURE_RTOL, 0.0) for c in ("median_baseline", "median_candidate",
                                             "ratio_median", "statistic")}
    out.update({c: (p_rtol, 0.0) for c in PVALUE_COLUMNS})
    out.update({c: (P_RTOL, Z_ATOL) for c in Z_COLUMNS})
    return out


def run_sparc(key, candidate, paired, higher, margin, alpha, correction, method, overall=True,
              min_runs=5, scale="log"):
    """fastperf's result and the failures of its comparison with the reference (every column
    of every row, the overall table and the summary's family)."""
    _, table = dataset(*key)
    res = sparc(table, baseline=BASE, candidate=candidate, pair="run" if paired else None,
                margin=margin, alpha=alpha, adjust=correction, method=method,
                overall=overall, higher_is_better=higher, min_runs=min_runs, scale=scale)
    candidates = [candidate] if isinstance(candidate, str) else list(candidate)
    keyed, overall_rows, m, level = sparc_reference(key, candidates, paired, higher, margin,
                                                    alpha, correction, method, overall,
                                                    min_runs, scale)
    rows = res.benchmarks.to_pylist()
    assert ("candidate" in res.benchmarks.column_names) == (not isinstance(candidate, str))
    got = {(row.get("candidate", candidate), row["benchmark"]): row for row in rows}
    assert len(got) == len(rows)
    assert sorted(got) == sorted(k for k, _ in keyed)
    counts = PAIRED_COUNTS if paired else UNPAIRED_COUNTS
    tolerances = float_tolerances(method)
    failures = []
    for k, want in keyed:
        failures += mismatches(k, got[k], want, counts + DECISIONS, tolerances)
    failures += overall_mismatches(res, overall_rows, method)
    s = res.summary
    if (s["tests"], s["alpha_corrected"]) != (m, pytest.approx(level, rel=1e-15)):
        failures.append(f"summary: m = {s['tests']}, level {s['alpha_corrected']}; "
                        f"want {m}, {level}")
    want_counts = {c: sum(row["conclusion"] == c for _, row in keyed) for c in CONCLUSIONS}
    if s["conclusions"] != want_counts:
        failures.append(f"summary conclusions {s['conclusions']}, want {want_counts}")
    return res, keyed, failures


def overall_mismatches(res, overall_rows, method):
    """The overall table against the reference (every column)."""
    if overall_rows is None:
        return [] if res.overall is None else ["an overall table with overall=False"]
    got = res.overall.to_pylist()
    if [g["candidate"] for g in got] != [w["candidate"] for w in overall_rows]:
        return [f"overall candidates {[g['candidate'] for g in got]}"]
    p_rtol = P_RTOL if method == "asymptotic" else EXACT_RTOL
    floats = {"ratio_median": (FIGURE_RTOL, 0.0), "statistic": (FIGURE_RTOL, 0.0),
              "pvalue": (p_rtol, 0.0), "z": (P_RTOL, Z_ATOL), "alpha": (1e-15, 0.0)}
    exact = ["n", "method", "reject", "verdict"]
    out = []
    for g, w in zip(got, overall_rows):
        out += mismatches(f"overall {w['candidate']}", g, w, exact, floats)
    return out


def conclusions_seen(keyed):
    return {row["conclusion"] for _, row in keyed}


# --------------------------------------------------------------------------- SPARC, paired

MIXED = (11, False, 70, 260)  # dataset key: seed, untied, max_n, count
UNTIED = (12, True, 70, 240)
UNPAIRED_MIXED = (13, False, 30, 240)  # exact counts with ties stay cheap at <= 30 a side


PAIRED_ASYMPTOTIC_CONFIGS = [
    # candidate, higher, margin, alpha, correction, overall, min_runs
    ("c1", False, 0.05, 0.05, "bonferroni", True, 5),
    (["c1", "c2"], True, 0.2, 0.05, "holm", True, 5),
    (["c1", "c2"], False, 0.05, 0.1, "none", True, 5),
    (["c2", "c1"], False, 0.2, 0.05, "holm", False, 8),
    ("c2", True, 0.05, 0.2, "bonferroni", True, 5),
]


@pytest.mark.parametrize("candidate, higher, margin, alpha, correction, overall, min_runs",
                         PAIRED_ASYMPTOTIC_CONFIGS)
def test_paired_asymptotic(candidate, higher, margin, alpha, correction, overall, min_runs):
    """Paired runs, normal approximation: every column of every benchmark against scipy's
    continuity- and tie-corrected signed-rank tests, the family's decisions exactly."""
    res, keyed, failures = run_sparc(MIXED, candidate, True, higher, margin, alpha, correction,
                                     "asymptotic", overall, min_runs)
    assert_no_mismatches(failures)
    statuses = {row["status"] for _, row in keyed}
    assert {"ok", "no runs to compare", f"too few runs (fewer than {min_runs})"} <= statuses
    assert sum(row["n_unmatched"] > 0 for _, row in keyed) >= 10
    assert sum(row["n_dropped"] > 0 for _, row in keyed) >= 10
    assert sum(row["n_zero"] > 0 for _, row in keyed if row["status"] == "ok") >= 10
    if correction != "none":
        assert len(conclusions_seen(keyed) - {None}) >= 3
    if overall and "c2" in candidate and margin == 0.05:  # c2 is mostly faster: it rejects
        c2 = [row for row in res.overall.to_pylist() if row["candidate"] == "c2"][0]
        assert c2["verdict"] == ("candidate slower" if higher else "candidate faster")


@pytest.mark.parametrize("candidate, higher, margin, correction", [
    (["c1", "c2"], False, 0.05, "bonferroni"),
    ("c1", True, 0.2, "holm"),
])
def test_paired_exact_untied(candidate, higher, margin, correction):
    """Paired continuous runs (no ties, no zero differences), method="exact": scipy's exact
    signed-rank p-values; the overall test exact too."""
    res, keyed, failures = run_sparc(UNTIED, candidate, True, higher, margin, 0.05, correction,
                                     "exact")
    assert_no_mismatches(failures)
    assert {row["method"] for _, row in keyed} == {"exact", "none"}


@pytest.mark.parametrize("candidate, higher, margin, correction", [
    (["c1", "c2"], False, 0.05, "holm"),
    ("c2", True, 0.2, "none"),
])
def test_paired_exact_mixed(candidate, higher, margin, correction):
    """Paired runs with ties and zero differences, method="exact": scipy's exact p where the
    nonzero |r - c| are untied, else the distribution conditional on the ties (2^n sign
    patterns enumerated for n <= 14, counted by rank sum above)."""
    res, keyed, failures = run_sparc(MIXED, candidate, True, higher, margin, 0.05, correction,
                                     "exact")
    assert_no_mismatches(failures)
    methods = {m for _, row in keyed for m in row["method"].split(" / ")}
    assert methods == {"exact", "exact (ties)", "none"}


@pytest.mark.parametrize("method", ["asymptotic", "exact"])
def test_paired_ratio_scale(method):
    """scale="ratio" (the paper's r - 1 arithmetic): every column against the reference's
    signed-rank tests of r - 1, r - (1 +/- delta) and the overall test of median ratios - 1."""
    res, keyed, failures = run_sparc(MIXED, ["c1", "c2"], True, False, 0.05, 0.05, "holm",
                                     method, scale="ratio")
    assert_no_mismatches(failures)
    assert res.summary["scale"] == "ratio"
    log_res = run_sparc(MIXED, ["c1", "c2"], True, False, 0.05, 0.05, "holm", method)[0]
    assert not np.array_equal(res.benchmarks["pvalue_difference"].to_numpy(zero_copy_only=False),
                              log_res.benchmarks["pvalue_difference"].to_numpy(zero_copy_only=False),
                              equal_nan=True)


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "unpaired"])
def test_auto_is_exact_at_these_sizes(paired):
    """method="auto" takes the exact (conditional on ties) distribution for every benchmark
    here (n <= 70 pairs; <= 32 runs a side): the reference's exact rows, method column too
    (the reference treats every method but "asymptotic" as exact)."""
    key = MIXED if paired else UNPAIRED_MIXED
    res, keyed, failures = run_sparc(key, ["c1", "c2"], paired, False, 0.05, 0.05, "bonferroni",
                                     "auto")
    assert_no_mismatches(failures)


# --------------------------------------------------------------------------- SPARC, unpaired

UNPAIRED_CONFIGS = [
    # candidate, higher, margin, alpha, correction, method
    ("c1", False, 0.05, 0.05, "bonferroni", "asymptotic"),
    (["c1", "c2"], True, 0.2, 0.05, "holm", "asymptotic"),
    (["c2", "c1"], False, 0.2, 0.1, "none", "asymptotic"),
    (["c1", "c2"], False, 0.05, 0.05, "holm", "exact"),
    ("c2", True, 0.05, 0.05, "bonferroni", "exact"),
]


@pytest.mark.parametrize("candidate, higher, margin, alpha, correction, method",
                         UNPAIRED_CONFIGS)
def test_unpaired(candidate, higher, margin, alpha, correction, method):
    """pair=None: rank-sum tests of the logs (shifted by log(1 +/- delta)) against scipy's
    mannwhitneyu (asymptotic; exact for untied samples) and the exact distribution conditional
    on the ties (enumerated for N <= 16, counted above)."""
    res, keyed, failures = run_sparc(UNPAIRED_MIXED, candidate, False, higher, margin, alpha,
                                     correction, method)
    assert_no_mismatches(failures)
    statuses = {row["status"] for _, row in keyed}
    assert {"ok", "no runs to compare", "too few runs (fewer than 5)"} <= statuses
    if method == "exact":
        assert any("exact (ties)" in row["method"] for _, row in keyed)


@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_unpaired_exact_untied(higher):
    """Continuous runs, method="exact": every rank-sum p against scipy's exact p."""
    res, keyed, failures = run_sparc(UNTIED, ["c1", "c2"], False, higher, 0.05, 0.05,
                                     "bonferroni", "exact")
    assert_no_mismatches(failures)
    assert {row["method"] for _, row in keyed} == {"exact", "none"}


def small_tied_benchmarks(seed, count, paired):
    """Tiny benchmarks drawn from a few values: ties, zeros, exact ratios 1 +/- delta."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(count):
        n = int(rng.integers(5, 15 if paired else 9))
        x = rng.choice([19.0, 20.0, 21.0], n)
        y = rng.choice([19.0, 20.0, 21.0, 24.0], n if paired else int(rng.integers(5, 9)))
        if rng.random() < 0.3:
            y = np.round(x * rng.choice([1.0, 0.95, 1.05]), 2) if paired else y
        out[f"t{i:03d}"] = {BASE: dict(enumerate(x.tolist())), "c1": dict(enumerate(y.tolist()))}
    return out


@pytest.mark.parametrize("paired, scale", [(True, "log"), (True, "ratio"), (False, "log")],
                         ids=["paired-log", "paired-ratio", "unpaired"])
@pytest.mark.parametrize("higher", [False, True], ids=["lower-better", "higher-better"])
def test_small_tied_exact_against_enumeration(paired, scale, higher):
    """Tiny tied samples, method="exact", no correction: every p against brute force (all 2^n
    sign patterns over the midranks; all C(N, m) assignments of the pooled logs)."""
    benchmarks = small_tied_benchmarks(21 + paired, 60, paired)
    res = sparc(measurement_table(benchmarks, 5), baseline=BASE, candidate="c1",
                pair="run" if paired else None, margin=0.05, adjust="none", method="exact",
                higher_is_better=higher, scale=scale)
    got = {row["benchmark"]: row for row in res.benchmarks.to_pylist()}
    failures = []
    for name, sides in benchmarks.items():
        if paired:
            x, y, _, _ = paired_sample(sides, "c1")
            r = y / x if higher else x / y
            num, den = (y, x) if higher else (x, y)
            log_r = np.sign(num - den) * np.log(np.maximum(num, den) / np.minimum(num, den))
            samples = ([log_r, log_r - math.log1p(0.05), log_r - math.log1p(-0.05)]
                       if scale == "log" else [r - 1.0, r - (1.0 + 0.05), r - (1.0 - 0.05)])
            tails = [signed_rank_tails_enumerated(d[d != 0]) if np.any(d != 0) else (1.0, 1.0)
                     for d in samples]
        else:
            x, y = side_sample(sides, BASE)[0], side_sample(sides, "c1")[0]
            a, b = (np.log(y), np.log(x)) if higher else (np.log(x), np.log(y))
            tails = [rank_sum_tails_enumerated(a, b + s)
                     for s in (0.0, math.log1p(0.05), math.log1p(-0.05))]
        want = [p_from_tails(*t, alt) for t, alt in zip(tails, ("two-sided", "less", "greater"))]
        want.append(max(want[1], want[2]))
        for column, w in zip(PVALUE_COLUMNS, want):
            if not close(got[name][column], w, EXACT_RTOL):
                failures.append(f"{name} {column}: got {got[name][column]!r}, want {w!r}")
        rd, re = want[0] <= 0.05, want[3] <= 0.05
        conclusion = CONCLUSIONS[{(True, False): 0, (True, True): 1, (False, True): 2,
                                  (False, False): 3}[rd, re]]
        if got[name]["conclusion"] != conclusion:
            failures.append(f"{name}: {got[name]['conclusion']!r}, want {conclusion!r}")
    assert_no_mismatches(failures)


def test_reference_counts_agree_with_enumeration():
    """The reference's two exact computations (enumeration, counting by rank sum) agree."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        d = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0], int(rng.integers(1, 13)))
        assert np.allclose(signed_rank_tails_enumerated(d), signed_rank_tails_counted(d),
                           rtol=1e-13, atol=0)
        a = rng.choice([1.0, 2.0, 3.0, 4.0], int(rng.integers(1, 8)))
        b = rng.choice([1.5, 2.0, 3.0], int(rng.integers(1, 9)))
        assert np.allclose(rank_sum_tails_enumerated(a, b), rank_sum_tails_counted(a, b),
                           rtol=1e-13, atol=0)
        assert np.allclose(rank_sum_tails_enumerated(b, a), rank_sum_tails_counted(b, a),
                           rtol=1e-13, atol=0)


# --------------------------------------------------------------------------- overall verdict


def faster_everywhere(n_benchmarks=8, runs=10, factor=1.5):
    """Every benchmark's candidate 1.5 times faster: every benchmark a relevant difference."""
    rng = np.random.default_rng(5)
    out = {}
    for i in range(n_benchmarks):
        x = 10.0 * rng.lognormal(0.0, 0.01, runs)
        y = x / factor * rng.lognormal(0.0, 0.01, runs)
        out[f"f{i}"] = {BASE: dict(enumerate(x.tolist())), "c1": dict(enumerate(y.tolist()))}
    return out


@pytest.mark.parametrize("method", ["asymptotic", "exact", "auto"])
def test_overall_verdict_when_exact(method):
    """A candidate 1.5 x faster on all 8 benchmarks: the overall test rejects and the verdict is
    "candidate faster" (T+ = n(n + 1)/2 above its mean) whatever the method: an exact test
    has no z, the direction must come from T+ (fastperf read z > 0 before commit 4826ba7)."""
    res = sparc(measurement_table(faster_everywhere(), 1), baseline=BASE, candidate="c1",
                method=method, adjust="none")
    row = res.overall.to_pylist()[0]
    assert row["n"] == 8 and row["reject"] and row["statistic"] == 36.0
    assert row["verdict"] == "candidate faster"


@pytest.mark.parametrize("protocol", ["sparc", "hpt"])
def test_equal_runs_emit_no_runtime_warning(protocol):
    """Both sides' runs all equal: p = 1 and z = 0 (zero null variance), without a numpy
    RuntimeWarning."""
    table = pa.table({"benchmark": ["b"] * 10, "variant": [BASE] * 5 + ["c1"] * 5,
                      "value": [5.0] * 10})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        if protocol == "sparc":
            row = sparc(table, baseline=BASE, candidate="c1", pair=None,
                        method="asymptotic").benchmarks.to_pylist()[0]
            assert row["pvalue_difference"] == 1.0 and row["z_difference"] == 0.0
        else:
            row = hpt(table, baseline=BASE, candidate="c1",
                      method="asymptotic").benchmarks.to_pylist()[0]
            assert row["pvalue"] == 1.0 and not row["significant"]


# --------------------------------------------------------------------------- HPT reference


def hpt_samples(benchmarks, higher):
    """{benchmark: (x, y, dropped x, dropped y, a, b)}: the sides and the logs of the ratio's
    numerator and denominator."""
    out = {}
    for name, sides in benchmarks.items():
        if not has_rows(sides):
            continue
        (x, dx), (y, dy) = side_sample(sides, BASE), side_sample(sides, "c1")
        num, den = (y, x) if higher else (x, y)
        out[name] = (x, y, dx, dy, np.log(num), np.log(den))
    return out


def hpt_status(x, y):
    if x.size == 0 and y.size == 0:
        return "missing baseline and candidate"
    if x.size == 0:
        return "missing baseline"
    return "missing candidate" if y.size == 0 else "ok"


def hpt_reference(samples, higher, alpha, method, k=100, scale="log"):
    """HPT with the candidate slowed by r = k / 100: per-benchmark rows and level 2."""
    r = k / 100.0
    log_r = math.log(r)
    rows, scores, n_significant = {}, [], 0
    for name, (x, y, dx, dy, a, b) in samples.items():
        status = hpt_status(x, y)
        mx = float(np.median(x)) if x.size else np.nan
        my = float(np.median(y)) if y.size else np.nan
        row = {"n_baseline": x.size, "n_candidate": y.size, "n_dropped_baseline": dx,
               "n_dropped_candidate": dy, "median_baseline": mx, "median_candidate": my,
               "status": status}
        if status == "ok":
            p, _, u, used = rank_sum_ref(a, b + log_r, "two-sided", method)
            ratio = my / mx if higher else mx / my
            significant = p <= alpha
            change = math.log(ratio) - log_r if scale == "log" else ratio / r - 1.0
            score = change if significant else 0.0
            scores.append(score)
            n_significant += significant
            row.update({"ratio_median": ratio, "statistic": u, "pvalue": p, "method": used,
                        "significant": significant, "score": score})
        else:
            row.update({"ratio_median": np.nan, "statistic": np.nan, "pvalue": np.nan,
                        "method": "none", "significant": False, "score": np.nan})
        rows[name] = row
    scores = np.array(scores, float)
    p2, _, t_plus, used2 = signed_rank_ref(scores, "greater", method)
    level2 = {"n": int(np.sum(scores != 0)), "statistic": t_plus, "pvalue": p2,
              "reliability": 1.0 - p2, "method_used": used2,
              "benchmarks_tested": len(scores), "significant": n_significant}
    return rows, level2


HPT_EXACT = ("n_baseline", "n_candidate", "n_dropped_baseline", "n_dropped_candidate", "status",
             "method", "significant")


def hpt_mismatches(res, rows, level2, method):
    p_rtol = P_RTOL if method == "asymptotic" else EXACT_RTOL
    floats = {c: (FIGURE_RTOL, 0.0) for c in ("median_baseline", "median_candidate",
                                                "ratio_median", "statistic", "score")}
    floats["pvalue"] = (p_rtol, 0.0)
    got = {row["benchmark"]: row for row in res.benchmarks.to_pylist()}
    assert sorted(got) == sorted(rows)
    failures = []
    for name, want in rows.items():
        failures += mismatches(name, got[name], want, HPT_EXACT, floats)
    s = res.summary
    for k in ("n", "method_used", "benchmarks_tested", "significant"):
        if s[k] != level2[k]:
            failures.append(f"level 2 {k}: got {s[k]!r}, want {level2[k]!r}")
    for k, tol in (("statistic", FIGURE_RTOL), ("pvalue", p_rtol)):
        if not close(s[k], level2[k], tol):
            failures.append(f"level 2 {k}: got {s[k]!r}, want {level2[k]!r}")
    if not close(s["reliability"], level2["reliability"], 0.0, 1e-12):
        failures.append(f"reliability: got {s['reliability']!r}, want {level2['reliability']!r}")
    return failures


@pytest.mark.parametrize("key, higher, alpha, method, scale", [
    (MIXED, False, 0.05, "asymptotic", "log"),
    (MIXED, True, 0.01, "asymptotic", "log"),
    (MIXED, False, 0.05, "asymptotic", "ratio"),
    (UNTIED, False, 0.05, "exact", "log"),
    (UNPAIRED_MIXED, True, 0.05, "exact", "log"),
    (UNPAIRED_MIXED, False, 0.1, "auto", "ratio"),
])
def test_hpt_against_reference(key, higher, alpha, method, scale):
    """HPT on a large table: level 1 per benchmark (scipy's rank-sum, exact conditional on
    ties where needed), the scores, level 2 (scipy's one-sided signed-rank) and, for each
    confidence, the speedup's defining property: reliability(r) >= c > reliability(r + 0.01)
    (or capped at 10 / NaN when even 0.01 falls short)."""
    benchmarks, table = dataset(*key)
    samples = hpt_samples(benchmarks, higher)
    res = hpt(table, baseline=BASE, candidate="c1", alpha=alpha, method=method,
              higher_is_better=higher, scale=scale)
    rows, level2 = hpt_reference(samples, higher, alpha, method, scale=scale)
    assert_no_mismatches(hpt_mismatches(res, rows, level2, method))
    assert level2["n"] >= 10 and 0 < level2["reliability"]
    if method == "asymptotic":
        reliability = functools.lru_cache(maxsize=None)(
            lambda k: hpt_reference(samples, higher, alpha, method, k, scale)[1]["reliability"])
        for row in res.speedups.to_pylist():
            c, s = row["confidence"], row["speedup"]
            if row["capped"]:
                assert s == 10.0 and reliability(1000) >= c
            elif s != s:
                assert reliability(1) < c
            else:
                k = int(round(s * 100))
                assert reliability(k) >= c > reliability(k + 1), (c, s)


def hpt_small_benchmarks(seed):
    """4-10 benchmarks of 3-15 runs a side, the candidate mostly faster; some quantised, some
    NaN, now and then a missing candidate."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(int(rng.integers(4, 11))):
        m, n = rng.integers(3, 16, 2)
        factor = float(rng.choice([0.9, 1.0, 1.1, 1.2, 1.3, 1.6, 2.0, 3.0]))
        spread = float(rng.choice([0.02, 0.1, 0.3]))
        x = 10.0 * rng.lognormal(0.0, spread, m)
        y = 10.0 / factor * rng.lognormal(0.0, spread, n)
        if rng.random() < 0.3:
            x, y = np.round(x, 1), np.round(y, 1)
        sides = {BASE: dict(enumerate(x.tolist())), "c1": dict(enumerate(y.tolist()))}
        if rng.random() < 0.15:
            _sprinkle(rng, sides["c1"])
        if rng.random() < 0.05:
            del sides["c1"]
        out[f"h{i}"] = sides
    return out


def reliability_grid(samples, higher, alpha, scale="log"):
    """Reliability of HPT (asymptotic) at r = k / 100 for k = 1 .. 1000: level 1 of each
    benchmark at every shift in one vectorised scipy call, level 2 one r at a time."""
    ks = np.arange(1, 1001)
    log_r = np.array([math.log(k / 100.0) for k in ks])
    columns = []
    for x, y, _, _, a, b in samples.values():
        if x.size == 0 or y.size == 0:
            continue
        p = quiet(st.mannwhitneyu, np.broadcast_to(a, (ks.size, a.size)),
                  b[None, :] + log_r[:, None], use_continuity=True, alternative="two-sided",
                  method="asymptotic", axis=1).pvalue
        ratio = np.median(y) / np.median(x) if higher else np.median(x) / np.median(y)
        change = (math.log(ratio) - log_r if scale == "log" else ratio / (ks / 100.0) - 1.0)
        columns.append(np.where(p <= alpha, change, 0.0))
    scores = np.stack(columns, axis=1)
    return np.array([1.0 - signed_rank_ref(row, "greater", "asymptotic")[0] for row in scores])


def grid_answer(grid, c):
    """The largest k with reliability >= c (NaN if none), and whether the k's that reach c are
    1 .. K (then bisection cannot miss it)."""
    reach = grid >= c
    if not reach.any():
        return np.nan, True
    k = int(np.flatnonzero(reach)[-1]) + 1
    return k, bool(reach[:k].all())


def bisection(grid, c, k_max=1000):
    """`fastperf.protocols.hpt`'s largest-speedup search, run on the reference grid."""
    rel = lambda k: grid[k - 1]  # noqa: E731
    if rel(k_max) >= c:
        return k_max
    if rel(1) < c:
        return np.nan
    low, high = 1, k_max
    while high - low > 1:
        mid = (low + high) // 2
        if rel(mid) >= c:
            low = mid
        else:
            high = mid
    return low


HPT_GRID_CASES = [(seed, higher) for seed in range(40, 48) for higher in (False, True)]


@pytest.mark.parametrize("seed, higher", HPT_GRID_CASES)
def test_hpt_speedups_on_the_grid(seed, higher):
    """Small tables: the reliability on the whole grid r = 0.01 .. 10.00; where the r's that
    reach confidence c are exactly 0.01 .. K (true whenever the reliability falls with r),
    fastperf's speedup is K / 100 (capped at 10, NaN when none)."""
    benchmarks = hpt_small_benchmarks(seed)
    samples = hpt_samples(benchmarks, higher)
    res = hpt(measurement_table(benchmarks, seed), baseline=BASE, candidate="c1",
              method="asymptotic", higher_is_better=higher)
    rows, level2 = hpt_reference(samples, higher, 0.05, "asymptotic")
    assert_no_mismatches(hpt_mismatches(res, rows, level2, "asymptotic"))
    grid = reliability_grid(samples, higher, 0.05)
    assert grid[99] == pytest.approx(level2["reliability"], abs=1e-12)
    for row in res.speedups.to_pylist():
        c, got = row["confidence"], row["speedup"]
        k, prefix = grid_answer(grid, c)
        if not prefix:  # bisection may find another boundary: see the module's notes
            continue
        want = k / 100 if k == k else np.nan
        assert close(got, want, 0.0), (c, got, want)
        assert row["capped"] == (k == 1000)


#: A table (seed 1059 of a wider search, values rounded to 6 digits) whose reliability is not
#: monotone in r at alpha = 0.2: h6's level-1 test (integer times) is significant, with a
#: negative score, for r in 0.92 .. 0.99 and from 1.10 on, but not for r in 1.00 .. 1.09; so the
#: reliability is 0.951 up to r = 0.91, 0.861 on 0.92 .. 0.99, 0.901 on 1.00 .. 1.09 and 0.861
#: again from 1.10. For c = 0.9 the r's reaching c are 0.01 .. 0.91 and 1.00 .. 1.09: the largest
#: is 1.09, bisection finds the boundary at 0.91 (below r = 1, whose reliability 0.901 the
#: summary reports).
NON_MONOTONE = {
    "h0": ([20, 21, 6, 24, 20, 8, 10, 28], [19, 5, 10, 13, 8, 18, 6, 4, 4]),
    "h1": ([9.457653, 10.764219, 6.36561, 15.096941, 8.302374, 8.212915, 9.309735, 10.837694],
           [9.075308, 7.518968, 9.034443, 3.833529, 12.644992, 9.366515, 15.209954, 9.254053]),
    "h2": ([9, 12, 11, 12, 10, 11, 12, 11, 11, 12, 11, 12, 10, 11],
           [12, 13, 11, 16, 14, 13, 14, 12, 13]),
    "h3": ([8, 13, 9, 13, 11, 19, 10, 11, 9, 11, 12, 12, 14, 8, 12],
           [10, 9, 31, 11, 18, 14, 7, 12]),
    "h4": ([11, 11, 11, 14, 12, 10, 9, 10, 9, 11], [4, 5, 4, 4, 4, 4, 4, 4]),
    "h5": ([12, 10, 11, 11, 11, 12, 11, 11], [4, 4, 4]),
    "h6": ([12, 12, 12, 11, 10, 13, 11, 11, 13, 11, 11], [12, 10, 12, 12, 10, 12, 10]),
    "h7": ([7.394998, 16.340573, 4.271765, 8.726826, 18.859974, 3.274112, 21.655708, 8.398084,
            8.294361, 4.882944, 25.618346, 6.570459, 16.358387, 18.050289],
           [8.152172, 8.055709, 5.817782, 18.404445, 30.05314, 11.595095]),
}


def test_hpt_speedup_where_reliability_is_not_monotone():
    """The non-monotone table above (HPT's ratio - 1 scores, ``scale="ratio"``): fastperf's
    reliabilities match the reference grid, and
    its speedup for c = 0.9 is *a* boundary of the grid (reliability(s) >= c >
    reliability(s + 0.01)); which boundary it should be (0.91 found by bisection, or 1.09, the
    largest r reaching c) is a design question this test leaves open."""
    benchmarks = {name: {BASE: dict(enumerate(map(float, x))), "c1": dict(enumerate(map(float, y)))}
                  for name, (x, y) in NON_MONOTONE.items()}
    samples = hpt_samples(benchmarks, False)
    res = hpt(measurement_table(benchmarks, 0), baseline=BASE, candidate="c1", alpha=0.2,
              method="asymptotic", confidences=(0.9,), scale="ratio")
    rows, level2 = hpt_reference(samples, False, 0.2, "asymptotic", scale="ratio")
    assert_no_mismatches(hpt_mismatches(res, rows, level2, "asymptotic"))
    grid = reliability_grid(samples, False, 0.2, scale="ratio")
    reach = np.flatnonzero(grid >= 0.9) + 1
    assert list(reach) == list(range(1, 92)) + list(range(100, 110))
    assert res.summary["reliability"] >= 0.9
    s = res.speedups.to_pylist()[0]["speedup"]
    k = int(round(s * 100))
    assert grid[k - 1] >= 0.9 > grid[k]
    assert k == bisection(grid, 0.9)
