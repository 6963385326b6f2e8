"""speedup_test, its reports, read_speedup_config and `fastperf compare` (seed 002, the
Speedup-Test of Touati, Worms & Briais 2013).

Oracles: the paper's printed tool outputs and R examples (with R's prop.test interval written out
below), hand computations on small tables, and scipy called directly on golang-perf's old.txt /
new.txt (shipped in examples/) and on Go and pyperf files written from `fastperf.simulate`
tables. (The large scipy-vs-fastperf comparison lives in test_speedup_reference.py; the same
checks on the shared folder's peer files in tests/conformance/test_peers_speedup.py.)
"""
import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pytest
import scipy.stats as sps

import fastperf
from fastperf import InputError, read_speedup_config, speedup_test
from fastperf.cli import main
from fastperf.protocols.speedup_report import REPORT_FILES, RESULT_COLUMNS
from naive import rank_sum_tails_counted
from tool_files import go_name, pyperf_doc, write_go, write_json

#: golang-perf's old.txt and new.txt, shipped with fastperf for its demo
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
OLD, NEW = str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")
GO_NAMES = ["BenchmarkEncode/format=json-48", "BenchmarkEncode/format=gob-48"]

RUNS = 31  # the paper's runs per binary
#: 31 normal quantiles: a "perfectly normal" sample shape, symmetric, median exactly 0
D = sps.norm.ppf((np.arange(1, RUNS + 1) - 0.5) / RUNS)
TOP7 = np.r_[np.zeros(RUNS - 7), np.ones(7)]  # the 7 largest of 31 sorted runs


# ---------------------------------------------------------------------------------- helpers


def make_table(samples, baseline="X", candidate="Y", **extra):
    """A measurement table from {benchmark: (baseline values or None, candidate values or None)};
    `extra` columns hold one value per benchmark ({name: {benchmark: value}})."""
    cols = {"benchmark": [], "variant": [], "value": []}
    cols.update({name: [] for name in extra})
    for bench, sides in samples.items():
        for variant, values in zip((baseline, candidate), sides):
            if values is None:
                continue
            values = [None if v is None else float(v) for v in values]
            cols["benchmark"] += [bench] * len(values)
            cols["variant"] += [variant] * len(values)
            cols["value"] += values
            for name, per_bench in extra.items():
                cols[name] += [per_bench[bench]] * len(values)
    return pa.table(cols)


def rows(result):
    return {r["benchmark"]: r for r in result.benchmarks.to_pylist()}


def flat(text):
    """Whitespace-normalised text: the paper wraps the tool's long lines."""
    return " ".join(text.split())


def r_prop_test(x, n, conf):
    """R's prop.test(x, n, conf.level=conf)$conf.int (stats:::prop.test, one sample, p = 0.5,
    correct = TRUE), written out: Wilson's score interval with Yates' continuity correction."""
    z = NormalDist().inv_cdf((1 + conf) / 2)
    est = x / n
    yates = min(0.5, abs(x - n * 0.5))
    z22n = z * z / (2 * n)
    pc_ = est + yates / n
    root = lambda p: z * math.sqrt(p * (1 - p) / n + z22n / (2 * n))  # noqa: E731
    high = 1.0 if pc_ >= 1 else (pc_ + z22n + root(pc_)) / (1 + 2 * z22n)
    pc_ = est - yates / n
    low = 0.0 if pc_ <= 0 else (pc_ + z22n - root(pc_)) / (1 + 2 * z22n)
    return low, high


def needed_benchmarks(c, r, conf):
    """Section 4: b >= z_{1-alpha/2}^2 C (1 - C) / r^2."""
    z = NormalDist().inv_cdf((1 + conf) / 2)
    return math.ceil(z * z * c * (1 - c) / r ** 2)


def scenario(both, median_only=0, none=0, s_mean=None, s_median=None):
    """b = both + median_only + none benchmarks, 31 runs a side, where we know which are
    accelerated: `both` by mean and median (X = 100 + D, Y = c + D, far apart), `median_only`
    by the median only (Y: 24 runs near 50 and 7 near 300, so its mean is slower than X's 100),
    `none` by neither (X = Y = 100 + D). c, and a push of the 7 largest runs of X or of Y (mean
    moved, median not), make the overall speedups of eq. (1) s_median and s_mean."""
    b = both + median_only + none
    mo_x = 100 + 0.1 * D
    mo_y = np.r_[50 + 0.01 * np.arange(24), 300 + 0.01 * np.arange(7)]
    c = 50.0
    if s_median is not None:
        c = (100 * b / s_median - 100 * none - np.median(mo_y) * median_only) / both
    x_push = y_push = 0.0
    if s_mean is not None:
        x_sum, y_sum = 100.0 * b, 100 * none + np.mean(mo_y) * median_only + c * both
        if s_mean * y_sum > x_sum:
            x_push = (s_mean * y_sum - x_sum) / both * RUNS / 7
        else:
            y_push = (x_sum / s_mean - y_sum) / both * RUNS / 7
    samples = {}
    for i in range(both):
        samples[f"both{i:02d}"] = (100 + D + x_push * TOP7, c + D + y_push * TOP7)
    for i in range(median_only):
        samples[f"median_only{i:02d}"] = (mo_x, mo_y)
    for i in range(none):
        samples[f"none{i:02d}"] = (100 + D, 100 + D)
    return samples


def overall_by_hand(samples, stat, weights=None):
    """Eq. (1): sum W ET(C) / sum W ET(C'), ET = numpy's mean / median / min of each sample."""
    f = {"mean": np.mean, "median": np.median, "min": np.min}[stat]
    w = weights or {name: 1.0 for name in samples}
    num = sum(w[k] * f(x) for k, (x, y) in samples.items())
    den = sum(w[k] * f(y) for k, (x, y) in samples.items())
    return num / den


# ------------------------------------------------------------- 1. the paper's printed figures


def test_paper_6_1_all_34_accelerated_proportion_at_90():
    # Section 6.1: 34 pairs all accelerated (tests at 95%), proportion interval at 90%
    samples = scenario(34, s_mean=1.865, s_median=1.865)
    result = speedup_test(make_table(samples), baseline="X", candidate="Y", alpha=0.05,
                          proportion_confidence=0.90)
    report = result.global_report()
    assert flat("""Overall gain (ExecutionTime=mean) = 0.464
                   Overall speedup (ExecutionTime=mean) = 1.865
                   Overall gain (ExecutionTime=median) = 0.464
                   Overall speedup (ExecutionTime=median) = 1.865""") in flat(report)
    assert flat("""The observed proportion of accelerated benchmarks (speedup of the mean)
        a/b = 34/34 = 1
        The confidence level for computing proportion confidence interval is 0.9.
        Proportion confidence interval (speedup of the mean) = [0.901; 1]
        Warning: this confidence interval of the proportion may not be accurate because
        the validity condition {a(1-a/b) > 5} is not satisfied.""") in flat(report)
    for protocol in ("mean", "median"):
        p = result.summary[protocol]
        assert (p["accelerated"], p["compared"]) == (34, 34)
        assert round(p["ci_low"], 3) == 0.901 and p["ci_high"] == 1.0 and not p["ci_valid"]
        assert p["ci_low"] == pytest.approx(r_prop_test(34, 34, 0.90)[0], rel=1e-9)
    assert sum("validity condition" in w for w in result.warnings) == 2
    assert result.summary["overall_speedup"]["mean"] == pytest.approx(
        overall_by_hand(samples, "mean"), rel=1e-12)
    assert result.summary["overall_gain"]["median"] == pytest.approx(
        1 - 1 / overall_by_hand(samples, "median"), rel=1e-12)


def test_paper_6_2_31_of_45_by_the_mean_at_95():
    samples = scenario(31, none=14, s_mean=1.79, s_median=1.7967)
    result = speedup_test(make_table(samples), baseline="X", candidate="Y", alpha=0.05)
    report = result.global_report()
    assert flat("""Overall gain (ExecutionTime=mean) = 0.441
                   Overall speedup (ExecutionTime=mean) = 1.79
                   Overall gain (ExecutionTime=median) = 0.443
                   Overall speedup (ExecutionTime=median) = 1.797""") in flat(report)
    # the paper typesets the last line's "r=0.05" as math; the text is the same
    assert flat("""The observed proportion of accelerated benchmarks (speedup of the mean)
        a/b = 31/45 = 0.689
        The confidence level for computing proportion confidence interval is 0.95.
        Proportion confidence interval (speedup of the mean) = [0.532; 0.814]
        The minimal needed number of randomly selected benchmarks is 330
        (in order to have a precision r=0.05).""") in flat(report)
    mean = result.summary["mean"]
    assert (mean["accelerated"], mean["compared"], mean["min_benchmarks"]) == (31, 45, 330)
    assert mean["min_benchmarks"] == needed_benchmarks(31 / 45, 0.05, 0.95)
    assert (mean["ci_low"], mean["ci_high"]) == pytest.approx(r_prop_test(31, 45, 0.95), rel=1e-9)
    assert mean["ci_valid"]  # 31 (1 - 31/45) = 9.64 > 5
    sig = rows(result)
    assert all(sig[f"both{i:02d}"]["mean_significant"] for i in range(31))
    assert not any(sig[f"none{i:02d}"]["mean_significant"] for i in range(14))
    for stat in ("mean", "median", "min"):
        assert result.summary["overall_speedup"][stat] == pytest.approx(
            overall_by_hand(samples, stat), rel=1e-12)


def test_paper_6_3_41_of_54_by_the_median_at_95():
    # 54 pairs: the mean's speedup rejected in 14, the median's in 13
    samples = scenario(40, median_only=1, none=13, s_mean=1.1622, s_median=1.1583)
    result = speedup_test(make_table(samples), baseline="X", candidate="Y", alpha=0.05)
    report = result.global_report()
    assert flat("""Overall gain (ExecutionTime=mean) = 0.14
                   Overall speedup (ExecutionTime=mean) = 1.162
                   Overall gain (ExecutionTime=median) = 0.137
                   Overall speedup (ExecutionTime=median) = 1.158""") in flat(report)
    assert flat("""The observed proportion of accelerated benchmarks (speedup of the median)
        a/b = 41/54 = 0.759
        The confidence level for computing proportion confidence interval is 0.95.
        Proportion confidence interval (speedup of the median) = [0.621; 0.861]
        The minimal needed number of randomly selected benchmarks is 281
        (in order to have a precision r=0.05).""") in flat(report)
    s = result.summary
    assert (s["mean"]["accelerated"], s["median"]["accelerated"]) == (40, 41)
    assert s["median"]["min_benchmarks"] == 281 == needed_benchmarks(41 / 54, 0.05, 0.95)
    row = rows(result)["median_only00"]
    assert row["median_significant"] and not row["mean_significant"]
    assert row["prob_candidate_faster"] == pytest.approx(24 / 31)  # 24 of 31 runs of Y below all X
    assert row["speedup_mean"] == pytest.approx(100 / np.mean(samples["median_only00"][1]))


@pytest.mark.parametrize("conf, expected", [(0.90, (0.4027157, 0.7184049)),
                                            (0.95, None)])
def test_example_1_17_of_30(conf, expected):
    samples = scenario(17, none=13)
    result = speedup_test(make_table(samples), baseline="X", candidate="Y",
                          proportion_confidence=conf)
    for protocol in ("mean", "median"):
        p = result.summary[protocol]
        assert (p["accelerated"], p["compared"]) == (17, 30)
        if expected:  # R's printed prop.test(17, 30, conf.level=0.90)
            np.testing.assert_allclose([p["ci_low"], p["ci_high"]], expected, rtol=1e-6)
        assert (p["ci_low"], p["ci_high"]) == pytest.approx(r_prop_test(17, 30, conf), rel=1e-9)
        assert p["ci_valid"]  # 17 - 17^2/30 = 7.37 > 5
        # Example 2 computes b for r = 5% at 95%: 377.46 -> 378
        if conf == 0.95:
            assert p["min_benchmarks"] == 378 == needed_benchmarks(17 / 30, 0.05, 0.95)
    report = result.global_report()
    assert "a/b = 17/30 = 0.567" in report and "Warning" not in report
    if expected:
        assert "Proportion confidence interval (speedup of the mean) = [0.403; 0.718]" in report
    assert result.warnings == [] and result.errors == []


def test_example_1_text_percentages():
    """The paper's prose: "between 40.27% and 71.87%" at 90% and "[49.84%, 64.23%]" at 50%.

    R's interval (and ours) is [40.27%, 71.84%] and [48.84%, 64.23%] (truncated to 2 decimals):
    "71.87" and "49.84" are typos in the paper (the first is contradicted by its own printed R
    output 0.7184049; the second is off by exactly one percentage point)."""
    samples = scenario(17, none=13)
    table = make_table(samples)
    at90 = speedup_test(table, baseline="X", candidate="Y", proportion_confidence=0.90).summary["mean"]
    at50 = speedup_test(table, baseline="X", candidate="Y", proportion_confidence=0.50).summary["mean"]
    pct = lambda p: (math.floor(p["ci_low"] * 1e4), math.floor(p["ci_high"] * 1e4))  # noqa: E731
    assert pct(at90) == (4027, 7184)
    assert pct(at50) == (4884, 6423)  # the paper prints 4984 (typo), 6423 (matches)
    assert (at50["ci_low"], at50["ci_high"]) == pytest.approx(r_prop_test(17, 30, 0.5), rel=1e-9)
    assert r_prop_test(17, 30, 0.5) == pytest.approx((0.4884442, 0.6423572), abs=5e-8)


def test_default_proportion_level_printed_readably():
    result = speedup_test(make_table(HAND), baseline="X", candidate="Y", alpha=0.07)
    assert "The confidence level for computing proportion confidence interval is 0.93." in \
        result.global_report().splitlines()


# Small table for equation (1) by hand:
#   A: X = 10 12 20 (mean 14, median 12, min 10)   Y = 5 6 7 (mean 6, median 6, min 5)
#   B: X = 3 4 8    (mean 5,  median 4,  min 3)    Y = 2 4 6 (mean 4, median 4, min 2)
HAND = {"A": ([10, 12, 20], [5, 6, 7]), "B": ([3, 4, 8], [2, 4, 6])}
# equal weights: S = 19/10, 16/10, 13/7; weights A=1, B=3: S = 29/18, 24/18, 19/11
HAND_EQUAL = {"mean": (19 / 10, "1.9", "0.474"), "median": (16 / 10, "1.6", "0.375"),
              "min": (13 / 7, "1.857", "0.462")}
HAND_WEIGHTED = {"mean": (29 / 18, "1.611", "0.379"), "median": (24 / 18, "1.333", "0.25"),
                 "min": (19 / 11, "1.727", "0.421")}


@pytest.mark.parametrize("weights", [None, "column", "mapping"])
def test_overall_speedup_and_gain_by_hand(weights):
    table = make_table(HAND, w={"A": 1.0, "B": 3.0})
    arg = {None: None, "column": "w", "mapping": {"A": 1, "B": 3}}[weights]
    result = speedup_test(table, baseline="X", candidate="Y", weights=arg)
    expected = HAND_EQUAL if weights is None else HAND_WEIGHTED
    report = result.global_report().splitlines()
    for stat, (s, s_text, g_text) in expected.items():
        assert result.summary["overall_speedup"][stat] == pytest.approx(s, rel=1e-14)
        assert result.summary["overall_gain"][stat] == pytest.approx(1 - 1 / s, rel=1e-14)
        assert f"Overall speedup (ExecutionTime={stat}) = {s_text}" in report
        assert f"Overall gain (ExecutionTime={stat}) = {g_text}" in report
    got = rows(result)
    assert got["A"]["speedup_mean"] == pytest.approx(14 / 6)
    assert got["A"]["speedup_median"] == pytest.approx(2.0)
    assert got["B"]["speedup_min"] == pytest.approx(1.5)


def test_overall_speedup_higher_is_better_flips_the_ratio():
    result = speedup_test(make_table(HAND), baseline="X", candidate="Y", higher_is_better=True)
    assert result.summary["overall_speedup"]["mean"] == pytest.approx(10 / 19)
    assert result.summary["overall_gain"]["mean"] == pytest.approx(1 - 19 / 10)
    assert rows(result)["A"]["speedup_mean"] == pytest.approx(6 / 14)
    assert "(higher is better)" in result.global_report().splitlines()[0]


def test_report_numbers_three_decimals_trailing_zeros_dropped():
    # one benchmark with X = 2 Y: S = 2 and G = 0.5 print as "2" and "0.5"
    x = 100 + D
    result = speedup_test(make_table({"a": (x, x / 2)}), baseline="X", candidate="Y")
    report = result.global_report().splitlines()
    for stat in ("mean", "median", "min"):
        assert f"Overall speedup (ExecutionTime={stat}) = 2" in report
        assert f"Overall gain (ExecutionTime={stat}) = 0.5" in report


# ----------------------------------------------------------- 2. real files against scipy


def protocol_by_scipy(x, y, alpha=0.05, higher_is_better=False, method=None):
    """The paper's Figures 1 and 2 from scipy's p-values (and the exact rank-sum tails conditional
    on the ties, counted by `naive.rank_sum_tails_counted`)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    alt = "less" if higher_is_better else "greater"
    large = len(x) > 30 and len(y) > 30
    p_sw_x, p_sw_y = sps.shapiro(x).pvalue, sps.shapiro(y).pvalue
    f = np.var(x, ddof=1) / np.var(y, ddof=1)
    dfs = (len(x) - 1, len(y) - 1)
    p_f = min(1.0, 2 * min(sps.f.cdf(f, *dfs), sps.f.sf(f, *dfs)))
    p_t = {"student": sps.ttest_ind(x, y, equal_var=True, alternative=alt).pvalue,
           "welch": sps.ttest_ind(x, y, equal_var=False, alternative=alt).pvalue}

    def decide(a):
        normal = large or (p_sw_x > a and p_sw_y > a)
        test = "none" if not normal else ("student" if p_f > a else "welch")
        return test, (test != "none" and p_t[test] <= a)

    test, mean_sig = decide(alpha)
    levels = [a for a in (p_t["student"], p_t["welch"], p_f, p_sw_x, p_sw_y) if a < 1 and decide(a)[1]]
    if method == "exact":
        p_med = sps.mannwhitneyu(x, y, alternative=alt, method="exact").pvalue
    elif method == "exact (ties)":
        lower, upper = rank_sum_tails_counted(x, y)  # P(W <= w), P(W >= w) of x's rank sum
        p_med = upper if alt == "greater" else lower
    else:
        p_med = sps.mannwhitneyu(x, y, alternative=alt, method="asymptotic").pvalue
    u = sps.mannwhitneyu(x, y).statistic  # U of x: #(x > y) + #(x = y) / 2
    ratio = (lambda a, b: b / a) if higher_is_better else (lambda a, b: a / b)
    return {
        "speedup_mean": ratio(np.mean(x), np.mean(y)),
        "speedup_median": ratio(np.median(x), np.median(y)),
        "speedup_min": ratio(np.min(x), np.min(y)),
        "pvalue_shapiro_baseline": p_sw_x, "pvalue_shapiro_candidate": p_sw_y,
        "pvalue_ftest": p_f, "mean_test": test,
        "pvalue_mean": p_t[test] if test != "none" else float("nan"),
        "mean_significant": bool(mean_sig),
        "max_confidence_mean": 1 - min(levels) if levels else 0.0,
        "pvalue_ks": sps.ks_2samp(x - np.median(x), y - np.median(y)).pvalue,
        "pvalue_median": p_med, "median_significant": bool(p_med <= alpha),
        "prob_candidate_faster": (1 - u / (len(x) * len(y))) if higher_is_better else u / (len(x) * len(y)),
    }


def sample(table, benchmark, variant):
    mask = pc.and_(pc.equal(table.column("benchmark").cast(pa.string()), benchmark),
                   pc.equal(table.column("variant").cast(pa.string()), variant))
    return table.filter(mask).column("value").to_numpy()


def check_against_scipy(table, result, benchmarks, baseline, candidate, **kw):
    got = rows(result)
    for bench in benchmarks:
        row = got[bench]
        x, y = sample(table, bench, baseline), sample(table, bench, candidate)
        assert (row["n_baseline"], row["n_candidate"]) == (len(x), len(y))
        expected = protocol_by_scipy(x, y, method=row["median_method"], **kw)
        for name, value in expected.items():
            if isinstance(value, str) or isinstance(value, bool):
                assert row[name] == value, (bench, name)
            elif math.isnan(value) and name.startswith("pvalue_"):
                assert row[name] is None, (bench, name)  # a test not run: null, not NaN
            elif math.isnan(value):
                assert math.isnan(row[name]), (bench, name)
            else:
                assert row[name] == pytest.approx(value, rel=1e-7, abs=1e-14), (bench, name)


def test_go_old_vs_new_against_scipy():
    table = fastperf.read([OLD, NEW])
    result = speedup_test(table, baseline="old", candidate="new")
    assert result.benchmarks.column("benchmark").to_pylist() == GO_NAMES
    check_against_scipy(table, result, GO_NAMES, "old", "new")
    json_row = rows(result)[GO_NAMES[0]]
    assert json_row["median_method"].startswith("exact")
    assert json_row["pvalue_median"] == pytest.approx(1 / math.comb(20, 10))  # complete separation
    assert result.summary["median"]["accelerated"] == 1


def test_go_old_vs_new_asymptotic_median_against_scipy():
    table = fastperf.read([OLD, NEW])
    result = speedup_test(table, baseline="old", candidate="new", median_method="asymptotic")
    for bench, row in rows(result).items():
        x, y = sample(table, bench, "old"), sample(table, bench, "new")
        assert row["median_method"] == "asymptotic"
        expected = sps.mannwhitneyu(x, y, alternative="greater", method="asymptotic").pvalue
        assert row["pvalue_median"] == pytest.approx(expected, rel=1e-9)


def only_unit(table, unit):
    return table.filter(pc.equal(table.column("unit").cast(pa.string()), unit))


#: true speedups of the simulated two-unit Go files (ns/op and MB/s on every line): one
#: benchmark 4.5x faster, others faster, slower, unchanged, tiny; seed 1 draws every noise shape
SIM_EFFECTS = [1.0, 4.5, 1.2, 0.9, 1.0, 1.05, 2.0, 1.0, 0.8, 1.3, 1.0, 1.002]


def two_unit_files(folder):
    """(old, new) Go files of a simulated table, 12 benchmarks x 10 runs, two units a line."""
    sim = fastperf.simulate(benchmarks=12, runs=10, seed=1, effects=SIM_EFFECTS, sigma=(0.005, 0.05))
    old = write_go(folder / "sim-old.txt", sim.table, ["baseline"], notes="simulated", throughput=True)
    new = write_go(folder / "sim-new.txt", sim.table, ["candidate"], notes="simulated", throughput=True)
    return str(old), str(new)


def test_mixed_units_are_refused(tmp_path):
    old, new = two_unit_files(tmp_path)
    with pytest.raises(InputError, match="mixes units") as info:
        speedup_test(fastperf.read([old, new]), baseline="sim-old", candidate="sim-new")
    assert "BenchmarkSim" in str(info.value)


def check_one_unit_speedups(table, baseline, candidate, higher, n_benchmarks):
    """`speedup_test` on a one-unit table: a row per benchmark, all tested, and every
    benchmark's mean and median speedups equal numpy's. Returns the result and its rows."""
    result = speedup_test(table, baseline=baseline, candidate=candidate, higher_is_better=higher)
    names = table.column("benchmark").unique().to_pylist()
    assert len(names) == n_benchmarks and result.benchmarks.column("benchmark").to_pylist() == names
    assert set(result.benchmarks.column("status").to_pylist()) == {"ok"}
    got = rows(result)
    for bench in names:  # every benchmark's speedups, by numpy
        x, y = sample(table, bench, baseline), sample(table, bench, candidate)
        ratio = np.mean(y) / np.mean(x) if higher else np.mean(x) / np.mean(y)
        assert got[bench]["speedup_mean"] == pytest.approx(ratio, rel=1e-12)
        ratio = np.median(y) / np.median(x) if higher else np.median(x) / np.median(y)
        assert got[bench]["speedup_median"] == pytest.approx(ratio, rel=1e-12)
    return result, got


@pytest.mark.parametrize("unit, higher", [("sec/op", False), ("B/s", True)])
def test_one_unit_against_scipy(tmp_path, unit, higher):
    old, new = two_unit_files(tmp_path)
    table = only_unit(fastperf.read([old, new]), unit)
    result, got = check_one_unit_speedups(table, "sim-old", "sim-new", higher, 12)
    names = table.column("benchmark").unique().to_pylist()
    # the quantised benchmarks have ties: the exact distribution conditional on them
    assert {"exact", "exact (ties)"} <= set(result.benchmarks.column("median_method").to_pylist())
    check_against_scipy(table, result, names, "sim-old", "sim-new", higher_is_better=higher)
    # the benchmark made 4.5x faster is about 4.5x faster in both units, significantly
    fast = go_name("bench_00001")
    assert got[fast]["speedup_mean"] > 4 and got[fast]["mean_significant"]


SECTIONS = "\n".join(["goos: linux", "pkg: example.com/big", "note: before", ""]
                     + ["BenchmarkBigAdd/1000-4    10000000    %s ns/op" % v for v in (230, 228, 230, 230, 230)]
                     + ["", "note: after", ""]
                     + ["BenchmarkBigAdd/1000-4    10000000    150 ns/op"] * 5 + ["PASS", ""])


def check_before_after_row(row, benchmark, before, after):
    """The Speedup-Test row of one benchmark whose "after" runs (all equal) are each below every
    "before" run, against hand computations and scipy."""
    after_value = after[0]
    assert row["benchmark"] == benchmark
    assert row["speedup_mean"] == pytest.approx(np.mean(before) / after_value)
    assert row["speedup_median"] == pytest.approx(np.median(before) / after_value)
    assert row["speedup_min"] == pytest.approx(min(before) / after_value)
    # every "after" run is below every "before" run: exact p = 1 / C(10, 5), whatever the ties
    assert row["pvalue_median"] == pytest.approx(1 / 252)
    assert row["median_method"] == "exact (ties)" and row["median_significant"]
    assert row["prob_candidate_faster"] == 1.0
    # a constant sample cannot be tested for normality: small samples, no t-test (as R's
    # shapiro.test, which refuses identical values)
    assert row["mean_test"] == "none" and not row["mean_significant"]
    assert "cannot conclude on the mean" in row["warnings"]
    assert row["pvalue_shapiro_baseline"] == pytest.approx(sps.shapiro(before).pvalue, rel=1e-7)
    centred_before = [v - np.median(before) for v in before]
    assert row["pvalue_ks"] == pytest.approx(sps.ks_2samp(centred_before, [0] * len(after)).pvalue)


@pytest.mark.filterwarnings("ignore:ks_2samp:RuntimeWarning")  # scipy: exact KS falls back, as ours
def test_before_after_sections_by_hand(tmp_path):
    path = tmp_path / "sections.txt"
    path.write_text(SECTIONS)
    table = fastperf.read(path)  # one file, "note: before" / "note: after" sections
    assert table.column("variant").unique().to_pylist() == ["before", "after"]
    result = speedup_test(table, baseline="before", candidate="after")
    (row,) = result.benchmarks.to_pylist()
    # before: 230 228 230 230 230 ns (mean 229.6), after: 150 x 5
    check_before_after_row(row, "BenchmarkBigAdd/1000-4", [230, 228, 230, 230, 230], [150] * 5)


def test_pyperf_files_against_scipy(tmp_path):
    # 3 benchmarks x 20 pyperf runs x 3 values a side; bimodal and heavy-tailed noise, no ties
    sim = fastperf.simulate(benchmarks=3, runs=60, seed=1, shapes=("heavy_tail", "bimodal"),
                            sigma=(0.02, 0.06), effects=[1.0, 1.1, 0.95])
    py311 = write_json(tmp_path / "sim_py311.json", pyperf_doc(sim.table, "baseline"))
    py312 = write_json(tmp_path / "sim_py312.json", pyperf_doc(sim.table, "candidate"))
    table = fastperf.read([py311, py312])
    # the flat analysis (levels=[]): scipy on the 60 values a side, not on the pyperf processes
    result = speedup_test(table, baseline="sim_py311", candidate="sim_py312", levels=[])
    names = ["bench_00000", "bench_00001", "bench_00002"]
    assert result.benchmarks.column("benchmark").to_pylist() == names
    got = rows(result)
    assert all(got[n]["n_baseline"] == got[n]["n_candidate"] == 60 for n in names)
    assert all(got[n]["median_method"] == "exact" for n in names)  # no ties in 60 + 60 values
    check_against_scipy(table, result, names, "sim_py311", "sim_py312")
    # large samples: the t-test runs although Shapiro-Wilk rejects, with a warning
    assert all(got[n]["mean_test"] != "none" for n in names)
    assert all("normality rejected" in got[n]["warnings"] for n in names)


# ------------------------------------------------------------------------- 3. bad input


MISSING = {"a": ([3, 4, 5], [1, 2, None]), "b": ([1, 2, 3], None), "c": (None, [4, 5, 6]),
           "d": ([5, 6, 7], [1, 2, 3])}


def test_missing_sides_are_rows_and_errors_not_exceptions():
    result = speedup_test(make_table(MISSING), baseline="X", candidate="Y")
    got = rows(result)
    assert [got[b]["status"] for b in "abcd"] == ["ok", "missing candidate", "missing baseline", "ok"]
    assert (got["b"]["n_baseline"], got["b"]["n_candidate"]) == (3, 0)
    assert math.isnan(got["b"]["speedup_mean"]) and not got["b"]["mean_significant"]
    s = result.summary
    assert (s["benchmarks"], s["benchmarks_compared"]) == (4, 2)
    assert (s["missing_baseline"], s["missing_candidate"]) == (1, 1)
    assert result.errors == ["b: missing candidate: not compared", "c: missing baseline: not compared"]
    assert s["mean"]["compared"] == 2 and s["median"]["compared"] == 2
    # the overall speedup only sums the compared benchmarks a (X 3 4 5, Y 1 2) and d
    assert s["overall_speedup"]["mean"] == pytest.approx((4 + 6) / (1.5 + 2))
    assert "Benchmarks: 2 compared of 4 (1 missing baseline, 1 missing candidate)" in result.global_report()


def test_nan_and_null_values_dropped_and_counted():
    nan = float("nan")
    result = speedup_test(make_table({"a": ([3, nan, 4, 5, None], [1, 2, nan])}),
                          baseline="X", candidate="Y")
    (row,) = result.benchmarks.to_pylist()
    assert (row["n_baseline"], row["n_candidate"]) == (3, 2)
    assert (row["n_dropped_baseline"], row["n_dropped_candidate"]) == (2, 1)
    assert row["speedup_mean"] == pytest.approx(4 / 1.5) and row["speedup_min"] == 3.0
    assert result.summary["dropped"] == 3
    assert "3 null/NaN values dropped (see n_dropped_baseline, n_dropped_candidate)" in result.warnings


def test_a_benchmark_with_neither_variant():
    table = pa.concat_tables([make_table({"a": ([3, 4, 5], [1, 2, 3])}),
                              make_table({"z": ([1, 2, 3], None)}, baseline="Z")])
    result = speedup_test(table, baseline="X", candidate="Y")
    assert rows(result)["z"]["status"] == "missing baseline and candidate"
    assert result.errors == ["z: missing baseline and candidate: not compared"]


def test_unknown_variant_lists_the_variants_present():
    with pytest.raises(InputError) as info:
        speedup_test(make_table(HAND), baseline="X", candidate="Z")
    assert "'Z'" in str(info.value) and "'X'" in str(info.value) and "'Y'" in str(info.value)


@pytest.mark.parametrize("bad", [0.0, -2.5])
def test_non_positive_value_names_the_benchmark(bad):
    samples = {"good": ([1, 2, 3], [1, 2, 3]), "broken": ([1, 2, 3], [1, bad, 3])}
    with pytest.raises(InputError, match="broken") as info:
        speedup_test(make_table(samples), baseline="X", candidate="Y")
    assert "candidate 'Y'" in str(info.value) and "non-positive" in str(info.value)


def test_non_positive_value_message_is_readable():
    with pytest.raises(InputError) as info:
        speedup_test(make_table({"a": ([1, 2, 3], [1, 0, 3])}), baseline="X", candidate="Y")
    assert "np.float64" not in str(info.value) and "value 0.0" in str(info.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"candidate": "X"}, "same variant"),
    ({"alpha": 0}, "alpha"), ({"alpha": 1}, "alpha"), ({"alpha": -0.1}, "alpha"),
    ({"alpha": 1.5}, "alpha"), ({"alpha": float("nan")}, "alpha"),
    ({"precision": 0}, "precision"), ({"precision": 1.01}, "precision"),
    ({"precision": -0.05}, "precision"),
    ({"large_sample": -1}, "large_sample"), ({"large_sample": 2.5}, "large_sample"),
    ({"large_sample": True}, "large_sample"),
    ({"proportion_confidence": 0}, "proportion_confidence"),
    ({"proportion_confidence": 1}, "proportion_confidence"),
    ({"proportion_confidence": 1.5}, "proportion_confidence"),
    ({"median_method": "permutation"}, "median_method"),
    ({"alpha": "nope"}, "names no column"),
    ({"weights": {"A": 1}}, "no entry for benchmark 'B'"),
    ({"weights": {"A": 1, "B": -1}}, "positive"),
])
def test_bad_arguments(kwargs, message):
    args = {"baseline": "X", "candidate": "Y", **kwargs}
    with pytest.raises(InputError, match=message):
        speedup_test(make_table(HAND), **args)


@pytest.mark.parametrize("key", ["status", "alpha", "speedup_mean", "warnings"])
def test_key_column_named_like_an_output_column(key):
    table = make_table(HAND).rename_columns([key, "variant", "value"])
    with pytest.raises(InputError, match="output column"):
        speedup_test(table, baseline="X", candidate="Y", by=key)


def test_alpha_column_out_of_range_names_the_benchmark():
    table = make_table(HAND, level={"A": 0.05, "B": 1.2})
    with pytest.raises(InputError, match="B"):
        speedup_test(table, baseline="X", candidate="Y", alpha="level")


# ------------------------------------------------------- 4. the tool's configuration file


def write_samples(folder, name, values, decorate=False):
    lines = [repr(float(v)) for v in values]
    if decorate:  # blank lines, a comment line and a trailing comment
        lines = ["# runs of " + name, ""] + lines[:1] + ["", lines[1] + "  # warm"] + lines[2:] + [""]
    (folder / name).write_text("\n".join(lines) + "\n")


# bench1: X 4 5 6, Y 1 2 3; bench2: X 8 10 12, Y 5 6 7 (both: equal-variance-compatible,
# Student's one-sided t: bench1 t = 3/sqrt(2/3) = 3.674, p = 0.0107; bench2 t = 4/sqrt(2.5*2/3)
# = 3.098, p = 0.0182 (df 4); Wilcoxon-Mann-Whitney: complete separation, p = 1/C(6,3) = 0.05
CFG = {"bench1": ([4, 5, 6], [1, 2, 3]), "bench2": ([8, 10, 12], [5, 6, 7])}


@pytest.fixture
def samples_dir(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    for bench, (x, y) in CFG.items():
        write_samples(folder, f"{bench}-O0.txt", x, decorate=True)
        write_samples(folder, f"{bench}-O3.txt", y)
    return folder


def test_config_plain_lines(tmp_path, samples_dir):
    cfg = tmp_path / "speedup.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt\n"
                   "bench2,data/bench2-O0.txt,data/bench2-O3.txt\n")
    table = read_speedup_config(cfg)
    assert "alpha" not in table.column_names
    assert table.column("benchmark").to_pylist() == ["bench1"] * 6 + ["bench2"] * 6
    assert table.column("variant").to_pylist() == (["initial"] * 3 + ["optimised"] * 3) * 2
    assert table.column("run").to_pylist() == [0, 1, 2] * 4
    assert table.column("value").to_pylist() == [4, 5, 6, 1, 2, 3, 8, 10, 12, 5, 6, 7]
    assert set(table.column("weight").to_pylist()) == {1.0}


def test_config_header_semicolons_comments_weights_levels(tmp_path, samples_dir, monkeypatch):
    cfg = tmp_path / "speedup.csv"
    cfg.write_text("# the Speedup-Test configuration\n"
                   "name;initial;optimised;weight;confidence\n"
                   "\n"
                   "bench1; data/bench1-O0.txt ; data/bench1-O3.txt;3;0.9\n"
                   "   # a comment between lines\n"
                   "bench2;data/bench2-O0.txt;data/bench2-O3.txt;1;0.99\n")
    monkeypatch.chdir(samples_dir)  # relative names are relative to the config, not the cwd
    table = read_speedup_config(cfg)
    assert table.column("value").to_pylist() == [4, 5, 6, 1, 2, 3, 8, 10, 12, 5, 6, 7]
    assert table.column("weight").to_pylist() == [3.0] * 6 + [1.0] * 6
    np.testing.assert_allclose(table.column("alpha").to_numpy(), [0.1] * 6 + [0.01] * 6, rtol=1e-12)

    result = speedup_test(table, baseline="initial", candidate="optimised", alpha="alpha",
                          weights="weight")
    got = rows(result)
    np.testing.assert_allclose([got["bench1"]["alpha"], got["bench2"]["alpha"]], [0.1, 0.01])
    # bench1 at risk 10%: p 0.0107 (mean) and 0.05 (median) both declare the speedup;
    # bench2 at 1%: p 0.0182 and 0.05 do not
    assert got["bench1"]["pvalue_mean"] == pytest.approx(sps.t.sf(3 / math.sqrt(2 / 3), 4))
    assert got["bench2"]["pvalue_mean"] == pytest.approx(sps.t.sf(4 / math.sqrt(2.5 * 2 / 3), 4))
    assert got["bench1"]["pvalue_median"] == pytest.approx(0.05)
    assert got["bench1"]["mean_significant"] and got["bench1"]["median_significant"]
    assert not got["bench2"]["mean_significant"] and not got["bench2"]["median_significant"]
    # eq. (1) with the file's weights: (3 x 5 + 10) / (3 x 2 + 6) = 25/12
    assert result.summary["overall_speedup"]["mean"] == pytest.approx(25 / 12)
    assert result.summary["overall_speedup"]["min"] == pytest.approx((3 * 4 + 8) / (3 * 1 + 5))
    assert result.summary["proportion_confidence"] == 0.95


def test_config_default_weight_and_confidence_arguments(tmp_path, samples_dir):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1\tdata/bench1-O0.txt\tdata/bench1-O3.txt\t\t0.9\n"
                   "bench2\tdata/bench2-O0.txt\tdata/bench2-O3.txt\n")
    table = read_speedup_config(cfg, weight=2.0, confidence=0.95, baseline="gcc", candidate="icc")
    assert set(table.column("variant").to_pylist()) == {"gcc", "icc"}
    assert set(table.column("weight").to_pylist()) == {2.0}
    np.testing.assert_allclose(table.column("alpha").to_numpy(), [0.1] * 6 + [0.05] * 6)


def test_config_absolute_paths(tmp_path, samples_dir):
    cfg = tmp_path / "elsewhere" / "cfg.csv"
    cfg.parent.mkdir()
    cfg.write_text(f"bench1,{samples_dir / 'bench1-O0.txt'},{samples_dir / 'bench1-O3.txt'}\n")
    assert read_speedup_config(cfg).column("value").to_pylist() == [4, 5, 6, 1, 2, 3]


def test_config_error_non_number_in_sample_file(tmp_path, samples_dir):
    (samples_dir / "bad.txt").write_text("1.0\n\n# note\n2,5\n")
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt\nbench2,data/bench2-O0.txt,data/bad.txt\n")
    with pytest.raises(InputError, match=r"bad\.txt:4: not a number: '2,5'"):
        read_speedup_config(cfg)


def test_config_error_missing_sample_file(tmp_path, samples_dir):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt\nbench2,data/bench2-O0.txt,data/nope.txt\n")
    with pytest.raises(InputError, match=r"cfg\.csv:2: .*nope\.txt: cannot read the sample file"):
        read_speedup_config(cfg)


def test_config_error_missing_sample_file_on_the_first_line(tmp_path, samples_dir):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/typo.txt\nbench2,data/bench2-O0.txt,data/bench2-O3.txt\n")
    with pytest.raises(InputError, match=r"cfg\.csv:1: .*typo\.txt: cannot read the sample file"):
        read_speedup_config(cfg)


@pytest.mark.parametrize("line2, message", [
    ("bench2,data/bench2-O0.txt,data/bench2-O3.txt,heavy", r"cfg\.csv:2: the weight must be a number"),
    ("bench2,data/bench2-O0.txt,data/bench2-O3.txt,-1", r"cfg\.csv:2: the weight must be positive"),
    ("bench2,data/bench2-O0.txt,data/bench2-O3.txt,1,95", r"cfg\.csv:2: the confidence level must lie"),
    ("bench1,data/bench2-O0.txt,data/bench2-O3.txt", r"cfg\.csv:2: benchmark 'bench1' is listed twice"),
    ("bench2,data/bench2-O0.txt", r"cfg\.csv:2: expected"),
])
def test_config_line_errors(tmp_path, samples_dir, line2, message):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt\n" + line2 + "\n")
    with pytest.raises(InputError, match=message):
        read_speedup_config(cfg)


def test_config_mixed_confidence_levels_need_a_default(tmp_path, samples_dir):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt,1,0.9\n"
                   "bench2,data/bench2-O0.txt,data/bench2-O3.txt\n")
    with pytest.raises(InputError, match=r"cfg\.csv.*confidence="):
        read_speedup_config(cfg)
    assert read_speedup_config(cfg, confidence=0.99).column("alpha").to_pylist()[-1] == pytest.approx(0.01)


def test_config_with_a_byte_order_mark(tmp_path, samples_dir):
    cfg = tmp_path / "cfg.csv"
    cfg.write_bytes(b"\xef\xbb\xbfbench1,data/bench1-O0.txt,data/bench1-O3.txt\n")
    assert read_speedup_config(cfg).column("benchmark").unique().to_pylist() == ["bench1"]


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "name,initial,optimised\n"])
def test_config_without_benchmark_lines(tmp_path, text):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text(text)
    with pytest.raises(InputError, match="no benchmark lines"):
        read_speedup_config(cfg)


def test_config_file_missing(tmp_path):
    with pytest.raises(InputError, match="cannot read the configuration file"):
        read_speedup_config(tmp_path / "absent.csv")


# ------------------------------------------------------------------------------ 5. reports


def test_write_reports_contents(tmp_path):
    result = speedup_test(make_table(MISSING), baseline="X", candidate="Y")
    paths = result.write_reports(tmp_path / "out" / "nested")
    assert set(paths) == set(REPORT_FILES) == {"global", "benchmarks", "warnings", "errors"}
    for name, path in paths.items():
        assert path == tmp_path / "out" / "nested" / REPORT_FILES[name] and path.is_file()
    text = {name: path.read_text(encoding="utf-8") for name, path in paths.items()}
    assert text["global"] == result.global_report() + "\n"
    assert text["global"].splitlines()[0].startswith("Speedup-Test: candidate 'Y' against baseline 'X'")
    assert "Overall speedup (ExecutionTime=mean) = 2.857" in text["global"]  # (4+6)/(1.5+2)
    lines = text["benchmarks"].splitlines()
    assert lines[0].split() == ["benchmark"] + RESULT_COLUMNS
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert [line.split()[0] for line in lines[2:]] == ["a", "b", "c", "d"]
    assert text["errors"].splitlines() == ["b: missing candidate: not compared",
                                           "c: missing baseline: not compared"]
    assert text["warnings"].splitlines() == result.warnings
    assert ("1 null/NaN values dropped (see n_dropped_baseline, n_dropped_candidate)"
            in text["warnings"].splitlines())


def test_write_reports_empty_files_when_nothing_to_say(tmp_path):
    result = speedup_test(make_table(scenario(17, none=13)), baseline="X", candidate="Y")
    paths = result.write_reports(tmp_path)
    assert paths["warnings"].read_text() == "" and paths["errors"].read_text() == ""
    assert len(paths["benchmarks"].read_text().splitlines()) == 2 + 30


def test_to_json_to_markdown_to_text():
    result = speedup_test(make_table(MISSING), baseline="X", candidate="Y")
    doc = json.loads(result.to_json())
    assert list(doc) == ["schema", "summary", "warnings", "errors", "benchmarks"]
    assert doc["schema"] == "fastperf.speedup_test/1"
    assert doc["errors"] == result.errors and doc["warnings"] == result.warnings
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["a", "b", "c", "d"]
    assert doc["benchmarks"][1]["speedup_mean"] is None  # NaN as null
    assert doc["summary"]["overall_speedup"]["mean"] == pytest.approx(10 / 3.5)
    assert doc["summary"]["mean"]["compared"] == 2
    json.loads(result.to_json(indent=None))

    md = result.to_markdown()
    assert md.startswith("```\nSpeedup-Test:") and "| benchmark | n_baseline |" in md
    assert "**Warnings**" in md and "**Errors**" in md and "- b: missing candidate: not compared" in md

    text = result.to_text()
    table = text.split("\n\n")[0].splitlines()
    assert table[0].split()[0] == "benchmark" and len(table) == 2 + 4
    assert [line.split()[0] for line in table[2:]] == ["a", "b", "c", "d"]
    assert "Overall speedup (ExecutionTime=mean) = 2.857" in text
    assert "2 error(s):" in text


# --------------------------------------------------------------------------- 6. the CLI


#: `fastperf compare` runs the regression detector by default: these tests are the Speedup-Test's.
SPEEDUP = ["--protocol", "speedup-test"]


def exit_code(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_cli_compare_text(capsys):
    assert main(["compare", *SPEEDUP, OLD, NEW]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[0] == "benchmark" and "speedup_mean" in lines[0]
    assert lines[2].startswith(GO_NAMES[0]) and lines[3].startswith(GO_NAMES[1])
    start = out.index("Overall gain (ExecutionTime=mean)")
    assert out.index(GO_NAMES[1]) < start
    assert "candidate 'new' against baseline 'old'" in out
    # old.txt / new.txt: means by numpy
    t = fastperf.read([OLD, NEW])
    s = sum(np.mean(sample(t, b, "old")) for b in GO_NAMES) / sum(np.mean(sample(t, b, "new")) for b in GO_NAMES)
    assert f"Overall speedup (ExecutionTime=mean) = {round(s, 3):g}" in out


def test_cli_defaults_follow_file_order(tmp_path, capsys):
    assert main(["compare", *SPEEDUP, NEW, OLD, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"]["baseline"], doc["summary"]["candidate"]) == ("new", "old")
    assert main(["compare", *SPEEDUP, OLD, NEW, "--baseline", "new", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"]["baseline"], doc["summary"]["candidate"]) == ("new", "old")
    sections = tmp_path / "sections.txt"
    sections.write_text(SECTIONS)
    assert main(["compare", *SPEEDUP, str(sections), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["summary"]["baseline"], doc["summary"]["candidate"]) == ("before", "after")
    assert doc["benchmarks"][0]["speedup_mean"] == pytest.approx(229.6 / 150)


def test_cli_json_matches_the_library(capsys):
    assert main(["compare", *SPEEDUP, OLD, NEW, "--format", "json", "--alpha", "0.1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["alpha"] == 0.1 and doc["summary"]["proportion_confidence"] == pytest.approx(0.9)
    assert len(doc["benchmarks"]) == 2 and {"summary", "warnings", "errors"} <= set(doc)


def test_cli_proportion_options(capsys):
    argv = ["compare", *SPEEDUP, OLD, NEW, "--proportion-confidence", "0.9", "--precision", "0.1",
            "--large-sample", "5", "--format", "json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    s = doc["summary"]
    assert (s["proportion_confidence"], s["precision"], s["large_sample"]) == (0.9, 0.1, 5)
    # 10 runs > 5: "large", so the t-test runs although Shapiro-Wilk rejects normality
    assert all(b["mean_test"] in ("student", "welch") for b in doc["benchmarks"])
    a, b = s["median"]["accelerated"], s["median"]["compared"]
    assert (s["median"]["ci_low"], s["median"]["ci_high"]) == pytest.approx(r_prop_test(a, b, 0.9), rel=1e-9)
    assert s["median"]["min_benchmarks"] == needed_benchmarks(a / b, 0.1, 0.9)


def test_cli_csv_writes_the_benchmark_table(tmp_path):
    out = tmp_path / "b.csv"
    assert main(["compare", *SPEEDUP, OLD, NEW, "--format", "csv", "-o", str(out)]) == 0
    table = pacsv.read_csv(out)
    assert table.column_names == ["benchmark"] + RESULT_COLUMNS
    assert table.column("benchmark").to_pylist() == GO_NAMES
    t = fastperf.read([OLD, NEW])
    b = GO_NAMES[1]
    assert table.column("speedup_median").to_pylist()[1] == pytest.approx(
        np.median(sample(t, b, "old")) / np.median(sample(t, b, "new")), rel=1e-12)


def test_cli_unit_filter(tmp_path, capsys):
    old, new = two_unit_files(tmp_path)
    assert exit_code(["compare", *SPEEDUP, old, new]) == 2
    err = capsys.readouterr().err
    assert "mixes units" in err and len(err.strip().splitlines()) == 1
    assert main(["compare", *SPEEDUP, old, new, "--unit", "sec/op", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["benchmarks"]) == 12
    assert main(["compare", *SPEEDUP, old, new, "--unit", "B/s", "--higher-is-better", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    t = only_unit(fastperf.read([old, new]), "B/s")
    b = go_name("bench_00001")
    row = next(r for r in doc["benchmarks"] if r["benchmark"] == b)
    expected = np.mean(sample(t, b, "sim-new")) / np.mean(sample(t, b, "sim-old"))
    assert row["speedup_mean"] == pytest.approx(expected)
    assert doc["summary"]["higher_is_better"] is True


def test_cli_config_and_reports(tmp_path, samples_dir, capsys):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt,3,0.9\n"
                   "bench2,data/bench2-O0.txt,data/bench2-O3.txt,1,0.99\n")
    reports = tmp_path / "reports"
    assert main(["compare", "--config", str(cfg), "--reports", str(reports)]) == 0
    out = capsys.readouterr().out
    assert "Overall speedup (ExecutionTime=mean) = 2.083" in out  # 25/12 with the file's weights
    assert sorted(p.name for p in reports.iterdir()) == sorted(REPORT_FILES.values())
    detail = (reports / REPORT_FILES["benchmarks"]).read_text().splitlines()
    assert [line.split()[0] for line in detail[2:]] == ["bench1", "bench2"]
    assert "Overall gain (ExecutionTime=mean) = 0.52" in (reports / REPORT_FILES["global"]).read_text()
    assert (reports / REPORT_FILES["errors"]).read_text() == ""


def test_cli_reports_where_no_folder_can_be(tmp_path, samples_dir, capsys):
    """--reports naming a file, not a folder: one line naming the option, exit 2."""
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt\n")
    taken = tmp_path / "a_file"
    taken.write_text("")
    assert main(["compare", "--config", str(cfg), "--reports", str(taken)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"fastperf: error: --reports {taken}: the four reports need a folder")


def test_cli_config_alpha_sets_the_proportion_level(tmp_path, samples_dir, capsys):
    cfg = tmp_path / "cfg.csv"
    cfg.write_text("bench1,data/bench1-O0.txt,data/bench1-O3.txt\n")
    assert main(["compare", "--config", str(cfg), "--alpha", "0.1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["benchmarks"][0]["alpha"] == pytest.approx(0.1)
    assert doc["summary"]["proportion_confidence"] == pytest.approx(0.9)


@pytest.mark.parametrize("argv, message", [
    (["compare", OLD, NEW, "--baseline", "nope"], "variant 'nope' not found"),
    (["compare", *SPEEDUP, OLD, NEW, "--baseline", "nope"], "variant 'nope' not found"),
    (["compare", *SPEEDUP, OLD, NEW, "--candidate", "nope", "--baseline", "old"], "variant 'nope' not found"),
    (["compare", *SPEEDUP, "/no/such/file.txt", NEW], "no such file"),
    (["compare"], "give measurement FILEs"),
    (["compare", *SPEEDUP, OLD, NEW, "--alpha", "2"], "alpha"),
    (["compare", *SPEEDUP, OLD, "--config", "cfg.csv"], "not both"),
    (["compare", "--config", "/no/such/cfg.csv"], "cannot read the configuration file"),
    (["compare", *SPEEDUP, OLD, NEW, "--unit", "B/s"], "no measurements in that unit"),
    (["compare", *SPEEDUP, OLD, NEW, "--format", "xml"], "invalid choice"),
])
def test_cli_bad_input_exits_2_with_one_line(capsys, argv, message):
    assert exit_code(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and len(captured.err.strip().splitlines()) == 1
    assert captured.out == ""
