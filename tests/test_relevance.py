"""sparc and hpt (seed 003: SPARC, Tullos, Graham & Jordan 2021, and the HPT framework of Chen
et al. 2012 it is compared with), and `fastperf compare --protocol sparc|hpt`.

Oracles: the paper's printed numbers (Tables IV, V, VIII, IX, eq. 1, 2, 10, 11) and the hand
arithmetic behind them, brute-force enumeration of the exact conditional null distributions of
the signed-rank and rank-sum tests, scipy.stats (mannwhitneyu, wilcoxon, norm) and
statsmodels' multipletests.
"""
import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import scipy.stats as sps
from hypothesis import assume, given, settings, strategies as st
from statsmodels.stats.multitest import multipletests as sm_multipletests

import fastperf
from fastperf import InputError, hpt, simulate, sparc
from fastperf.cli import main
from naive import p_from_tails, rank_sum_tails_enumerated, signed_rank_tails_enumerated

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GO_OLD, GO_NEW = str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")

#: Table I of the paper: (reject H0+, reject the equivalence nulls) -> conclusion
TABLE_I = {(True, False): "relevant difference", (True, True): "trivial difference",
           (False, True): "equivalence", (False, False): "indeterminate"}

#: Tables IV and V: the median ratios M_X/Y (Rocket = X) and the conclusions at [0.50, 1.50]
ARIANE = {"AES": 0.491, "Bigint": 0.519, "Dhrystone": 0.285, "Miniz": 1.302, "Norx": 0.566,
          "Primes": 1.062, "Qsort": 0.573, "SHA512": 0.597}
SHAKTI = {"AES": 0.432, "Bigint": 1.197, "Dhrystone": 0.582, "Miniz": 1.067, "Norx": 0.838,
          "Primes": 0.573, "Qsort": 0.761, "SHA512": 1.049}
#: Rocket's median times (sec), M_X of Tables IV/V
ROCKET = {"AES": 129.516, "Bigint": 203.471, "Dhrystone": 75.660, "Miniz": 505.566,
          "Norx": 73.644, "Primes": 257.019, "Qsort": 129.927, "SHA512": 81.029}
RELEVANT = {"ariane": {"AES", "Dhrystone"}, "shakti": {"AES"}}

#: eq. 10/11 with M = 30 and the continuity correction: sigma = sqrt(M(M+1)(2M+1)/24)
SIGMA30 = math.sqrt(30 * 31 * 61 / 24)
MEAN30 = 30 * 31 / 4


# ---------------------------------------------------------------------------------- helpers


def make_table(samples, paired=True, baseline="X", candidate="Y", unit=None):
    """{benchmark: (baseline values or None, candidate values or None)} -> a measurement table;
    `paired` numbers the runs of each side 0, 1, ... in a ``run`` column."""
    cols = {"benchmark": [], "variant": [], "value": []}
    if paired:
        cols["run"] = []
    for bench, sides in samples.items():
        for variant, values in zip((baseline, candidate), sides):
            if values is None:
                continue
            values = [None if v is None else float(v) for v in values]
            cols["benchmark"] += [bench] * len(values)
            cols["variant"] += [variant] * len(values)
            cols["value"] += values
            if paired:
                cols["run"] += list(range(len(values)))
    table = pa.table(cols)
    if unit is not None:
        table = table.append_column("unit", pa.array(unit, pa.string()))
    return table


def rows(result, key="benchmark"):
    return {r[key]: r for r in result.benchmarks.to_pylist()}


def no_nan(records):
    """Row dicts with NaN replaced by None, so that equal rows compare equal."""
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
            for r in records]


def paper_table(seed=2021):
    """Rocket (baseline) against Ariane and Shakti, 30 paired runs per benchmark, each side with
    0.1 % noise around the paper's medians: the 30 ratios lie within about 0.5 % of M_X/Y."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "variant": [], "run": [], "value": []}
    for bench, m_x in ROCKET.items():
        x = m_x * (1 + 0.001 * rng.standard_normal(30))
        for name, values in (("rocket", x),
                             ("ariane", x / ARIANE[bench] * (1 + 0.001 * rng.standard_normal(30))),
                             ("shakti", x / SHAKTI[bench] * (1 + 0.001 * rng.standard_normal(30)))):
            cols["benchmark"] += [bench] * 30
            cols["variant"] += [name] * 30
            cols["run"] += list(range(30))
            cols["value"] += list(values)
    return pa.table(cols)


def one_sided_table(level, n=30, seed=0):
    """One benchmark whose n paired ratios x/y all lie within 1 % of `level`."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(50, 150, n)
    y = x / (level * rng.uniform(0.99, 1.01, n))
    return make_table({"one": (x, y)})


# ------------------------------------------------------------ the paper's arithmetic (seed 003)


def test_paper_z_and_p_of_30_ratios_on_one_side():
    # 30 ratios in (1, 1.5): W+ = 465 of the difference test, W- = 0 against 1.5 and W+ = 465
    # against 0.5; eq. 10/11 with the continuity correction: z = (465 - 232.5 - 0.5) / sigma
    z_hand = (465 - MEAN30 - 0.5) / SIGMA30
    assert round(z_hand, 3) == 4.772
    res = sparc(one_sided_table(1.2), baseline="X", candidate="Y", margin=0.5,
                method="asymptotic", scale="ratio")
    row = rows(res)["one"]
    assert row["method"] == "asymptotic" and row["n"] == 30 and row["statistic"] == 465
    assert round(abs(row["z_difference"]), 3) == 4.772  # Table IV's z
    assert row["z_difference"] > 0  # the ratio lies above 1
    assert row["pvalue_difference"] == pytest.approx(1.825e-6, rel=1e-3)  # Table IV's p
    assert row["pvalue_difference"] == pytest.approx(2 * sps.norm.sf(z_hand), rel=1e-12)
    for side in ("upper", "lower"):  # both equivalence tests: z = 4.772, p = 9.127e-7
        assert round(row[f"z_{side}"], 3) == 4.772
        assert row[f"pvalue_{side}"] == pytest.approx(9.127e-7, rel=1e-3)
    assert row["pvalue_equivalence"] == pytest.approx(9.127e-7, rel=1e-3)
    assert row["conclusion"] == "trivial difference"


def test_paper_failing_equivalence_z_below_the_lower_bound():
    # AES (Ariane, M_X/Y = 0.491): every ratio below 1 - delta = 0.5, so W+ = 0 against 0.5 and
    # z = (0 - 232.5 - 0.5) / sigma = -4.792 (the paper prints it in the H01 column; it is the
    # test of H02: ratio <= 1 - delta). The paper's p = 0.992 does not follow from its own z:
    # the one-sided p is P(Z >= -4.792) = 1 - 8.2e-7.
    z_hand = (0 - MEAN30 - 0.5) / SIGMA30
    assert round(z_hand, 3) == -4.792
    res = sparc(one_sided_table(0.491), baseline="X", candidate="Y", margin=0.5,
                method="asymptotic", scale="ratio")
    row = rows(res)["one"]
    assert round(row["z_lower"], 3) == -4.792
    assert row["pvalue_lower"] > 0.99
    assert row["pvalue_lower"] == pytest.approx(sps.norm.sf(z_hand), rel=1e-12)
    assert row["pvalue_equivalence"] == row["pvalue_lower"]  # TOST: the larger p
    assert round(row["z_upper"], 3) == 4.772  # below 1.5: H01 rejected
    assert round(row["z_difference"], 3) == -4.772  # the ratio lies below 1
    assert row["pvalue_difference"] == pytest.approx(1.825e-6, rel=1e-3)
    assert row["conclusion"] == "relevant difference"


def test_paper_exact_p_of_30_ratios_on_one_side():
    # exact: only the all-positive and all-negative sign patterns reach T+ = 465 or 0:
    # p = 2 / 2^30 = 1.863e-9 (Table IX's value); each one-sided test 1 / 2^30
    res = sparc(one_sided_table(1.2), baseline="X", candidate="Y", margin=0.5, method="exact",
                scale="ratio")
    row = rows(res)["one"]
    assert row["pvalue_difference"] == pytest.approx(2 / 2 ** 30, rel=1e-12)
    assert round(row["pvalue_difference"], 12) == 1.863e-9
    assert row["pvalue_upper"] == pytest.approx(1 / 2 ** 30, rel=1e-12)
    assert row["pvalue_lower"] == pytest.approx(1 / 2 ** 30, rel=1e-12)
    assert row["method"] == "exact"
    assert math.isnan(row["z_difference"])  # no z for an exact test


def test_paper_family_bonferroni_alpha_and_fwer():
    res = sparc(paper_table(), baseline="rocket", candidate=["ariane", "shakti"], margin=0.5)
    s = res.summary
    assert s["tests"] == 2 * (8 + 8 + 1) == 34  # "34 hypotheses tests 2(8+8+1)"
    assert round(s["alpha_corrected"], 7) == 0.0014706  # eq. 2: 0.05 / 34
    assert s["alpha_corrected"] == pytest.approx(0.05 / 34, rel=1e-15)
    assert round(s["fwer_uncorrected"], 5) == 0.82518  # eq. 1: 1 - 0.95^34
    assert s["fwer_uncorrected"] == pytest.approx(1 - 0.95 ** 34, rel=1e-12)
    assert s["adjust"] == "bonferroni" and s["design"] == "paired"
    # the fewest untied pairs reaching alpha_new: 2/2^n (difference), 1/2^n (equivalence)
    need = s["min_runs_to_conclude"]
    assert need["difference"] == min(n for n in range(1, 64) if 2 / 2 ** n <= 0.05 / 34) == 11
    assert need["equivalence"] == min(n for n in range(1, 64) if 1 / 2 ** n <= 0.05 / 34) == 10


@pytest.mark.parametrize("scale", ["ratio", "log"])
@pytest.mark.parametrize("method", ["auto", "exact", "asymptotic"])
def test_paper_conclusions_tables_iv_v(method, scale):
    """Tables IV-V with the paper's arithmetic (scale="ratio"); every ratio lies on one side
    of 1 and of 1 +/- delta, so the log scale's ranks, p-values and conclusions are the same."""
    res = sparc(paper_table(), baseline="rocket", candidate=["ariane", "shakti"], margin=0.5,
                method=method, scale=scale)
    got = {(r["candidate"], r["benchmark"]): r for r in res.benchmarks.to_pylist()}
    assert len(got) == 16
    for name, medians in (("ariane", ARIANE), ("shakti", SHAKTI)):
        for bench, ratio in medians.items():
            row = got[name, bench]
            expected = "relevant difference" if bench in RELEVANT[name] else "trivial difference"
            assert row["conclusion"] == expected, (name, bench)
            assert row["ratio_median"] == pytest.approx(ratio, rel=5e-3)  # M_X/Y
            assert row["median_baseline"] == pytest.approx(ROCKET[bench], rel=5e-3)  # M_X
            assert row["reject_difference"]
            if method == "asymptotic":
                assert round(abs(row["z_difference"]), 3) == 4.772
                assert row["pvalue_difference"] == pytest.approx(1.825e-6, rel=1e-3)
            else:
                assert row["pvalue_difference"] == pytest.approx(2 / 2 ** 30, rel=1e-12)
    counts = res.summary["conclusions"]
    assert counts["relevant difference"] == 2 + 1 and counts["trivial difference"] == 6 + 7
    assert counts["equivalence"] == counts["indeterminate"] == 0


@pytest.mark.parametrize("scale", ["ratio", "log"])
@pytest.mark.parametrize("method", ["auto", "exact"])
def test_paper_overall_test_table_viii(method, scale):
    # Ariane: the relevant AES (0.491) and Dhrystone (0.285) both below 1: T+ = 0 of n = 2,
    # exact two-sided p = 2 * P(T+ <= 0) = 2 / 4 = 0.50; Shakti: AES alone, p = 2 / 2 = 1.00
    res = sparc(paper_table(), baseline="rocket", candidate=["ariane", "shakti"], margin=0.5,
                method=method, scale=scale)
    overall = {r["candidate"]: r for r in res.overall.to_pylist()}
    assert list(overall) == ["ariane", "shakti"]
    assert overall["ariane"]["n"] == 2 and overall["shakti"]["n"] == 1
    assert overall["ariane"]["pvalue"] == 2 * (1 / 2 ** 2) == 0.5
    assert overall["shakti"]["pvalue"] == 2 * (1 / 2) == 1.0
    assert overall["ariane"]["statistic"] == 0 and overall["shakti"]["statistic"] == 0
    assert not overall["ariane"]["reject"] and not overall["shakti"]["reject"]
    assert overall["ariane"]["alpha"] == pytest.approx(0.05 / 34, rel=1e-15)
    # the median of the relevant benchmarks' median ratios (on the log scale, of their logs:
    # the geometric mean of two)
    middle = (0.491 + 0.285) / 2 if scale == "ratio" else math.sqrt(0.491 * 0.285)
    assert overall["ariane"]["ratio_median"] == pytest.approx(middle, rel=5e-3)
    assert overall["shakti"]["ratio_median"] == pytest.approx(0.432, rel=5e-3)
    assert "overall" not in res.summary  # the table is the one place for it


@pytest.mark.parametrize("shift, verdict", [(1.3, "candidate faster"), (0.7, "candidate slower")])
def test_overall_test_rejects_with_ten_relevant_benchmarks(shift, verdict):
    # 10 benchmarks, 12 pairs each, every ratio near `shift`: each benchmark's exact p = 2/2^12
    # <= 0.05/21, a relevant difference; the overall signed-rank test of the 10 median ratios,
    # all on one side of 1: exact p = 2/2^10 = 0.00195 <= alpha / m = 0.05 / (2 * 10 + 1)
    rng = np.random.default_rng(8)
    data = {}
    for i in range(10):
        x = 10 * rng.lognormal(0, 0.01, 12)
        data[f"b{i}"] = (x, x / (shift * (1 + i / 100)) * rng.lognormal(0, 0.005, 12))
    res = sparc(make_table(data), baseline="X", candidate="Y")
    assert res.summary["tests"] == 21
    assert res.summary["conclusions"]["relevant difference"] == 10
    row = res.overall.to_pylist()[0]
    assert row["n"] == 10 and row["pvalue"] == pytest.approx(2 / 2 ** 10, rel=1e-12)
    assert row["statistic"] == (55 if shift > 1 else 0)  # T+ of the median ratios - 1
    assert row["alpha"] == pytest.approx(0.05 / 21, rel=1e-15)
    assert row["reject"] and row["verdict"] == verdict
    medians = [np.median(np.log(x / y)) for x, y in data.values()]  # 12 pairs: mean of the middle
    assert row["ratio_median"] == pytest.approx(np.exp(np.median(medians)), rel=1e-12)
    # asymptotic (12 pairs: each benchmark's p = 0.0025, relevant only without correction):
    # z = (55 - 27.5 - 0.5) / sqrt(10 * 11 * 21 / 24) = 2.752, signed by the side, p = 0.0059
    res = sparc(make_table(data), baseline="X", candidate="Y", method="asymptotic",
                adjust="none")
    assert res.summary["conclusions"]["relevant difference"] == 10
    row = res.overall.to_pylist()[0]
    z = (55 - 27.5 - 0.5) / math.sqrt(10 * 11 * 21 / 24)
    assert row["z"] == pytest.approx(z if shift > 1 else -z, rel=1e-12)
    assert row["pvalue"] == pytest.approx(2 * sps.norm.sf(z), rel=1e-12)
    assert row["reject"] and row["verdict"] == verdict and row["alpha"] == 0.05


def test_paper_hpt_fwer_of_8_benchmarks():
    # "without an alpha correction the FWER is 36.98% with HPT": 1 - 0.95^(8 + 1)
    table = paper_table()
    res = hpt(table.filter(pc.is_in(table["variant"], pa.array(["rocket", "ariane"]))),
              baseline="rocket", candidate="ariane")
    assert res.summary["benchmarks_tested"] == 8
    assert round(res.summary["fwer_uncorrected"], 4) == 0.3698
    assert res.summary["fwer_uncorrected"] == pytest.approx(1 - 0.95 ** 9, rel=1e-12)
    # Table IX: every benchmark significant (the 30 + 30 runs do not overlap)
    assert all(r["significant"] for r in res.benchmarks.to_pylist())
    # no overlap: U is 0 or 30 * 30 and the exact two-sided p is 2 / C(60, 30)
    for r in res.benchmarks.to_pylist():
        assert r["statistic"] in (0.0, 900.0)
        assert r["pvalue"] == pytest.approx(2 / math.comb(60, 30), rel=1e-9)


# ------------------------------------------------------------ the four conclusions, constructed


def _paired_case(rng, n, shift, noise):
    base = 10 * rng.lognormal(0, 0.2, n)  # run-to-run variation the pair shares
    x = base * (1 + noise * rng.standard_normal(n))
    y = base / shift * (1 + noise * rng.standard_normal(n))
    return x, y


def _unpaired_case(rng, n, shift, noise):
    x = 10 * (1 + noise * rng.standard_normal(n))
    return x, 10 / shift * (1 + noise * rng.standard_normal(n))


def test_four_conclusions_paired():
    rng = np.random.default_rng(2024)
    data = {"trivial": _paired_case(rng, 1000, 1.001, 0.003),
            "relevant": _paired_case(rng, 30, 1.3, 0.01),
            "equivalence": _paired_case(rng, 300, 1.0, 0.01),
            "indeterminate": _paired_case(rng, 5, 1.0, 0.01)}
    res = sparc(make_table(data), baseline="X", candidate="Y")
    got = rows(res)
    expected = {"trivial": "trivial difference", "relevant": "relevant difference",
                "equivalence": "equivalence", "indeterminate": "indeterminate"}
    assert {name: got[name]["conclusion"] for name in data} == expected
    # the tests themselves against scipy's signed-rank test of the log ratios (and of r - 1
    # with scale="ratio", the paper's arithmetic)
    by_ratio = rows(sparc(make_table(data), baseline="X", candidate="Y", scale="ratio"))
    for name, (x, y) in data.items():
        r = x / y
        for row, d, centre in ((got[name], np.log(r), np.exp(np.median(np.log(r)))),
                               (by_ratio[name], r - 1.0, np.median(r))):
            assert row["ratio_median"] == pytest.approx(centre, rel=1e-12)
            kw = ({"method": "exact"} if row["method"].startswith("exact") else
                  {"method": "approx", "correction": True})
            ref = sps.wilcoxon(d, zero_method="wilcox", **kw).pvalue
            assert row["pvalue_difference"] == pytest.approx(ref, rel=1e-9, abs=1e-300), name
    # 5 pairs can never conclude at alpha / m = 0.05 / 9: the smallest exact p-values are
    # 2 / 2^5 = 0.0625 (difference) and 1 / 2^5 = 0.03125 (each one-sided test)
    assert res.summary["alpha_corrected"] == pytest.approx(0.05 / 9)
    assert got["indeterminate"]["pvalue_difference"] >= 2 / 2 ** 5
    assert got["indeterminate"]["pvalue_equivalence"] >= 1 / 2 ** 5
    assert res.summary["conclusions"] == {c: 1 for c in TABLE_I.values()}


def test_four_conclusions_unpaired():
    rng = np.random.default_rng(7)
    data = {"trivial": _unpaired_case(rng, 1000, 1.001, 0.003),
            "relevant": _unpaired_case(rng, 30, 1.3, 0.01),
            "equivalence": _unpaired_case(rng, 100, 1.0, 0.01),
            "indeterminate": _unpaired_case(rng, 3, 1.0, 0.01)}
    res = sparc(make_table(data, paired=False), baseline="X", candidate="Y", pair=None,
                min_runs=3)
    got = rows(res)
    assert res.summary["design"] == "unpaired"
    assert got["trivial"]["conclusion"] == "trivial difference"
    assert got["relevant"]["conclusion"] == "relevant difference"
    assert got["equivalence"]["conclusion"] == "equivalence"
    assert got["indeterminate"]["conclusion"] == "indeterminate"
    # 3 vs 3 runs: the smallest exact p-values are 2 / C(6, 3) = 0.1 and 1 / 20 = 0.05, both
    # above 0.05 / 9
    assert got["indeterminate"]["pvalue_difference"] >= 2 / math.comb(6, 3)
    assert got["indeterminate"]["pvalue_equivalence"] >= 1 / math.comb(6, 3)
    for name, (x, y) in data.items():
        row = got[name]
        assert row["n_baseline"] == row["n_candidate"] == len(x)
        assert row["ratio_median"] == pytest.approx(np.median(x) / np.median(y), rel=1e-12)
        kw = ({"method": "exact"} if row["method"] == "exact" else
              {"method": "asymptotic", "use_continuity": True})
        ref = sps.mannwhitneyu(x, y, alternative="two-sided", **kw).pvalue
        assert row["pvalue_difference"] == pytest.approx(ref, rel=1e-9), name


# ------------------------------------------------------------ exact p-values by enumeration


def _grid_pairs(seed, sizes):
    """Paired values on a grid with dyadic ratios: x/y, x/y - 1 and x/y - (1 +/- delta) are
    exact in floating point for delta = 0.5 or 0.25, so the ties and zeros are real (for other
    deltas the oracle ranks the same floating-point differences)."""
    rng = np.random.default_rng(seed)
    return {f"b{i}": (rng.choice([2.0, 3.0, 4.0, 5.0, 6.0, 8.0], n),
                      rng.choice([2.0, 4.0, 4.0, 8.0], n))
            for i, n in enumerate(sizes)}


@pytest.mark.parametrize("margin", [0.5, 0.25, 0.1])
def test_paired_exact_pvalues_match_enumeration(margin):
    """scale="ratio": the dyadic grid makes r - 1 and r - (1 +/- delta) exact, so the ties and
    zeros are real (the log scale's enumeration is in test_relevance_reference.py)."""
    data = _grid_pairs(5, [6, 7, 8, 9, 10, 11, 12, 12])
    res = sparc(make_table(data), baseline="X", candidate="Y", margin=margin, method="exact",
                min_runs=1, scale="ratio")
    got = rows(res)
    tied = zeros = 0
    for bench, (x, y) in data.items():
        r = x / y
        row = got[bench]
        two = p_from_tails(*signed_rank_tails_enumerated(r - 1.0), "two-sided")
        lower, _ = signed_rank_tails_enumerated(r - (1.0 + margin))  # H01: ratio >= 1 + delta
        _, upper = signed_rank_tails_enumerated(r - (1.0 - margin))  # H02: ratio <= 1 - delta
        assert row["pvalue_difference"] == pytest.approx(two, rel=1e-12), bench
        assert row["pvalue_upper"] == pytest.approx(lower, rel=1e-12), bench
        assert row["pvalue_lower"] == pytest.approx(upper, rel=1e-12), bench
        assert row["pvalue_equivalence"] == max(row["pvalue_upper"], row["pvalue_lower"])
        assert row["n_zero"] == int(np.sum(r == 1.0))
        assert row["statistic"] == sps.rankdata(np.abs(r[r != 1] - 1))[r[r != 1] > 1].sum()
        nonzero = np.abs(r[r != 1.0] - 1.0)
        tied += nonzero.size != np.unique(nonzero).size
        zeros += row["n_zero"] > 0
    assert tied >= 6 and zeros >= 6  # the design really has ties and zeros


def test_paired_exact_pvalues_with_zeros_in_the_equivalence_tests():
    # ratios exactly 1.5 and 0.5 make zeros of r - (1 + delta) and r - (1 - delta), dropped
    x = np.array([3.0, 3.0, 1.0, 1.0, 5.0, 4.0, 2.5, 3.0, 1.5, 2.0])
    y = np.array([2.0, 2.0, 2.0, 2.0, 4.0, 4.0, 2.0, 4.0, 1.0, 2.0])
    r = x / y
    assert np.sum(r == 1.5) == 3 and np.sum(r == 0.5) == 2 and np.sum(r == 1.0) == 2
    res = sparc(make_table({"z": (x, y)}), baseline="X", candidate="Y", margin=0.5,
                method="exact", min_runs=1, scale="ratio")
    row = rows(res)["z"]
    assert row["pvalue_difference"] == pytest.approx(
        p_from_tails(*signed_rank_tails_enumerated(r - 1), "two-sided"), rel=1e-12)
    assert row["pvalue_upper"] == pytest.approx(signed_rank_tails_enumerated(r - 1.5)[0], rel=1e-12)
    assert row["pvalue_lower"] == pytest.approx(signed_rank_tails_enumerated(r - 0.5)[1], rel=1e-12)
    assert row["n_zero"] == 2


@pytest.mark.parametrize("margin", [0.5, 0.25, 1 / 3])
def test_unpaired_exact_pvalues_match_enumeration(margin):
    rng = np.random.default_rng(7)
    data = {f"b{i}": (rng.choice([2.0, 3.0, 4.0, 6.0, 8.0], m),
                      rng.choice([2.0, 3.0, 4.0, 6.0], n))
            for i, (m, n) in enumerate([(5, 6), (6, 5), (5, 5), (4, 7), (6, 6)])}
    res = sparc(make_table(data, paired=False), baseline="X", candidate="Y", pair=None,
                margin=margin, method="exact", min_runs=1)
    got = rows(res)
    cross_ties = 0
    for bench, (x, y) in data.items():
        a, b = np.log(x), np.log(y)
        row = got[bench]
        two = p_from_tails(*rank_sum_tails_enumerated(a, b), "two-sided")
        lower, _ = rank_sum_tails_enumerated(a, b + np.log1p(margin))
        _, upper = rank_sum_tails_enumerated(a, b + np.log1p(-margin))
        assert row["pvalue_difference"] == pytest.approx(two, rel=1e-12), bench
        assert row["pvalue_upper"] == pytest.approx(lower, rel=1e-12), bench
        assert row["pvalue_lower"] == pytest.approx(upper, rel=1e-12), bench
        # U of the ratio's numerator (the baseline's times)
        u = np.sum(a[:, None] > b[None, :]) + 0.5 * np.sum(a[:, None] == b[None, :])
        assert row["statistic"] == u
        assert row["n"] == min(len(x), len(y))
        cross_ties += len(np.intersect1d(a, b)) > 0
    assert cross_ties >= 4  # ties across the samples in the difference test


# ------------------------------------------------------------ corrections


def _correction_table():
    """7 benchmarks of 16 pairs, ratios 1.01 .. 1.10 with 3 % noise (p-values spread around the
    thresholds), and a first one with 4 pairs: not tested, outside the family."""
    rng = np.random.default_rng(3)
    data = {}
    for i, shift in enumerate([1.0, 1.01, 1.02, 1.03, 1.04, 1.06, 1.08, 1.1]):
        n = 4 if i == 0 else 16
        x = 10 * rng.lognormal(0, 0.03, n)
        data[f"b{i}"] = (x, x / shift * rng.lognormal(0, 0.03, n))
    return make_table(data)


@pytest.mark.parametrize("overall", [True, False])
@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm"])
def test_corrections(correction, overall):
    alpha = 0.05
    res = sparc(_correction_table(), baseline="X", candidate="Y", adjust=correction,
                overall=overall, alpha=alpha)
    b = res.benchmarks.to_pydict()
    tested = np.array(b["status"]) == "ok"
    assert tested.sum() == 7 and b["status"][0] == "too few runs (fewer than 5)"
    m = 2 * int(tested.sum()) + (1 if overall else 0)
    assert res.summary["tests"] == m
    assert res.summary["fwer_uncorrected"] == pytest.approx(1 - (1 - alpha) ** m, rel=1e-12)
    p_diff = np.array(b["pvalue_difference"], dtype=float)
    p_eq = np.array(b["pvalue_equivalence"], dtype=float)
    rej_diff, rej_eq = np.array(b["reject_difference"]), np.array(b["reject_equivalence"])
    if correction == "none":
        assert res.summary["alpha_corrected"] == alpha
        want_diff, want_eq = tested & (p_diff <= alpha), tested & (p_eq <= alpha)
    elif correction == "bonferroni":
        assert res.summary["alpha_corrected"] == pytest.approx(alpha / m, rel=1e-15)
        want_diff, want_eq = tested & (p_diff <= alpha / m), tested & (p_eq <= alpha / m)
    else:
        k = int(tested.sum())
        ref = sm_multipletests(np.concatenate([p_diff[tested], p_eq[tested]]),
                               alpha=alpha * (1 - (1 if overall else 0) / m), method="holm")[0]
        want_diff, want_eq = np.zeros(tested.size, bool), np.zeros(tested.size, bool)
        want_diff[tested], want_eq[tested] = ref[:k], ref[k:]
        if overall:  # Holm here really rejects more than Bonferroni would
            assert want_diff.sum() + want_eq.sum() > ((p_diff[tested] <= alpha / m).sum()
                                                      + (p_eq[tested] <= alpha / m).sum())
    np.testing.assert_array_equal(rej_diff, want_diff)
    np.testing.assert_array_equal(rej_eq, want_eq)
    for i in np.flatnonzero(tested):
        assert b["conclusion"][i] == TABLE_I[bool(rej_diff[i]), bool(rej_eq[i])]
    assert b["conclusion"][0] is None
    if overall:
        assert res.overall.num_rows == 1
        assert res.overall["alpha"][0].as_py() == pytest.approx(
            alpha if correction == "none" else alpha / m, rel=1e-15)
    else:
        assert res.overall is None


def test_corrections_differ_on_the_same_data():
    # none >= holm >= bonferroni in rejections (same p-values)
    got = {c: sparc(_correction_table(), baseline="X", candidate="Y", adjust=c)
           for c in ("none", "holm", "bonferroni")}
    count = {c: sum(r.benchmarks["reject_difference"].to_pylist())
             + sum(r.benchmarks["reject_equivalence"].to_pylist()) for c, r in got.items()}
    assert count["none"] > count["holm"] > count["bonferroni"]
    np.testing.assert_array_equal(got["none"].benchmarks["pvalue_difference"].to_numpy(),
                                  got["holm"].benchmarks["pvalue_difference"].to_numpy())


def _holm_case():
    """8 paired ratios 1 + d, |d| = 0.001 .. 0.008, only the third smallest positive: T+ = 3,
    P(T+ <= 3) = #{{}, {1}, {2}, {3}, {1, 2}} / 2^8 = 5/256, two-sided p = 10/256 = 0.039; all
    ratios within [0.95, 1.05]: each one-sided equivalence p = 1/256."""
    d = -np.arange(1, 9) / 1000
    d[2] = -d[2]
    return make_table({"h": (1 + d, np.ones(8))})


@pytest.mark.parametrize("correction, overall, expected", [
    ("none", True, "trivial difference"),  # 0.039 <= 0.05 and 1/256 <= 0.05
    ("bonferroni", True, "equivalence"),  # 0.039 > 0.05 / 3
    # Holm over the 2 benchmark tests at 0.05 (1 - 1/3) = 0.0333: 1/256 <= 0.0333 / 2, then
    # 0.039 > 0.0333 / 1: the difference is not rejected
    ("holm", True, "equivalence"),
    # without the overall test Holm has all of alpha: 1/256 <= 0.025, then 0.039 <= 0.05
    ("holm", False, "trivial difference"),
    ("bonferroni", False, "equivalence"),  # 0.039 > 0.05 / 2
])
def test_holm_keeps_the_overall_tests_share(correction, overall, expected):
    res = sparc(_holm_case(), baseline="X", candidate="Y", adjust=correction,
                overall=overall, method="exact")
    row = rows(res)["h"]
    assert row["pvalue_difference"] == 10 / 256
    assert row["pvalue_upper"] == row["pvalue_lower"] == 1 / 256
    assert row["conclusion"] == expected


def test_p_equal_to_the_level_rejects():
    # eq. 3: reject when p <= alpha_new. 5 pairs all above 1.05: exact two-sided p = 2/2^5 =
    # 0.0625 exactly; at alpha = 0.0625 without correction the difference is rejected
    x = np.array([1.3, 1.4, 1.5, 1.6, 1.7])
    res = sparc(make_table({"b": (x, np.ones(5))}), baseline="X", candidate="Y",
                adjust="none", alpha=0.0625, method="exact")
    row = rows(res)["b"]
    assert row["pvalue_difference"] == 0.0625 and row["reject_difference"]
    assert row["conclusion"] == "relevant difference"
    # HPT level 1: 1 baseline run below 3 candidate runs: U = 0, exact two-sided p =
    # 2 * 1/C(4, 1) = 0.5; at alpha = 0.5 the benchmark is significant
    table = make_table({"b": ([1.0], [2.0, 3.0, 4.0])}, paired=False)
    res = hpt(table, baseline="X", candidate="Y", alpha=0.5, method="exact")
    row = rows(res)["b"]
    assert row["pvalue"] == 0.5 and row["significant"]
    assert row["score"] == pytest.approx(math.log(1.0 / 3.0), rel=1e-12)  # log(median ratio)


# ------------------------------------------------------------ higher_is_better, several candidates


@pytest.mark.parametrize("paired", [True, False])
def test_higher_is_better_flips_the_ratio(paired):
    rng = np.random.default_rng(12)
    times = {}
    for i, shift in enumerate([1.3, 1.0, 1.002, 0.8]):
        x = 10 * rng.lognormal(0, 0.01, 41)  # odd: the median of 1/v is 1/median(v)
        times[f"b{i}"] = (x, x / shift * rng.lognormal(0, 0.01, 41))
    throughputs = {k: (1 / x, 1 / y) for k, (x, y) in times.items()}
    kw = {"baseline": "X", "candidate": "Y", "pair": "run" if paired else None}
    by_time = sparc(make_table(times, paired=paired), **kw)
    by_rate = sparc(make_table(throughputs, paired=paired), higher_is_better=True, **kw)
    assert by_time.summary["ratio"] == "baseline / candidate"
    assert by_rate.summary["ratio"] == "candidate / baseline"
    assert by_rate.summary["higher_is_better"] is True
    t, r = rows(by_time), rows(by_rate)
    for bench in times:
        # the candidate's throughput over the baseline's: > 1 when the candidate is better
        tx, ty = throughputs[bench]
        expected = np.median(ty / tx) if paired else np.median(ty) / np.median(tx)
        assert r[bench]["ratio_median"] == pytest.approx(expected, rel=1e-12)
        assert r[bench]["ratio_median"] == pytest.approx(t[bench]["ratio_median"], rel=1e-9)
        assert r[bench]["conclusion"] == t[bench]["conclusion"]
        for col in ("pvalue_difference", "pvalue_upper", "pvalue_lower"):
            assert r[bench][col] == pytest.approx(t[bench][col], rel=1e-9)
    assert r["b0"]["conclusion"] == "relevant difference" and r["b0"]["ratio_median"] > 1.25
    assert r["b3"]["conclusion"] == "relevant difference" and r["b3"]["ratio_median"] < 0.85
    assert r["b1"]["conclusion"] == "equivalence"


def test_higher_is_better_direction_of_z():
    # throughput: the candidate 1.3x the baseline -> ratio 1.3, z_difference > 0
    rng = np.random.default_rng(4)
    x = 100 * rng.lognormal(0, 0.01, 30)
    res = sparc(make_table({"t": (x, 1.3 * x * rng.lognormal(0, 0.01, 30))}), baseline="X",
                candidate="Y", higher_is_better=True, method="asymptotic")
    row = rows(res)["t"]
    assert row["ratio_median"] == pytest.approx(1.3, rel=0.02)
    assert row["z_difference"] > 0 and row["conclusion"] == "relevant difference"
    res = sparc(make_table({"t": (x, 1.3 * x * rng.lognormal(0, 0.01, 30))}), baseline="X",
                candidate="Y", higher_is_better=False, method="asymptotic")
    assert rows(res)["t"]["z_difference"] < 0  # as times, the candidate is slower


@pytest.mark.parametrize("pair", ["run", None])
def test_z_orientation_and_one_sided_pvalues(pair):
    # the z's point towards the alternatives: z_difference > 0 when the ratio is above 1, the
    # equivalence z's > 0 when the ratio lies inside the margin; each one-sided p = sf(z)
    rng = np.random.default_rng(8)
    x = 10 * rng.lognormal(0, 0.01, 40)
    y = 10 * rng.lognormal(0, 0.01, 40)
    data = {"inside": (x, y), "above": (x, y / 1.3), "below": (x, y * 1.3)}
    res = sparc(make_table(data, paired=pair is not None), baseline="X", candidate="Y",
                pair=pair, method="asymptotic")
    got = rows(res)
    assert got["inside"]["z_upper"] > 3 and got["inside"]["z_lower"] > 3
    assert got["above"]["z_difference"] > 3 and got["above"]["z_upper"] < -3
    assert got["above"]["z_lower"] > 3
    assert got["below"]["z_difference"] < -3 and got["below"]["z_lower"] < -3
    assert got["below"]["z_upper"] > 3
    for bench, (x_, y_) in data.items():
        row = got[bench]
        for side in ("upper", "lower"):
            assert row[f"pvalue_{side}"] == pytest.approx(sps.norm.sf(row[f"z_{side}"]), rel=1e-9)
        assert row["pvalue_difference"] == pytest.approx(
            2 * sps.norm.sf(abs(row["z_difference"])), rel=1e-9)
        if pair is None:  # scipy's rank-sum test of the logs, the candidate's shifted
            a, b = np.log(x_), np.log(y_)
            kw = {"method": "asymptotic", "use_continuity": True}
            up = sps.mannwhitneyu(a, b + np.log1p(0.05), alternative="less", **kw).pvalue
            low = sps.mannwhitneyu(a, b + np.log1p(-0.05), alternative="greater", **kw).pvalue
        else:  # scipy's signed-rank test of r - (1 +/- delta)
            r = x_ / y_
            kw = {"method": "approx", "correction": True}
            up = sps.wilcoxon(r - 1.05, alternative="less", **kw).pvalue
            low = sps.wilcoxon(r - 0.95, alternative="greater", **kw).pvalue
        assert row["pvalue_upper"] == pytest.approx(up, rel=1e-9), bench
        assert row["pvalue_lower"] == pytest.approx(low, rel=1e-9), bench


def test_duplicated_runs_are_not_paired():
    table = pa.table({"benchmark": ["a"] * 14, "variant": ["X"] * 7 + ["Y"] * 7,
                      "run": [0, 1, 2, 3, 4, 5, 5] + [0, 1, 2, 3, 4, 5, 6],
                      "value": [1.0, 2, 3, 4, 5, 6, 7] * 2})
    res = sparc(table, baseline="X", candidate="Y", min_runs=1)
    row = rows(res)["a"]
    assert row["n"] == 5 and row["n_duplicated"] == 1 and row["n_unmatched"] == 1
    assert any("more than once" in w for w in res.warnings)


def test_several_candidates_table_layout():
    rng = np.random.default_rng(9)
    cols = {"benchmark": [], "variant": [], "run": [], "value": []}
    for bench in ("k1", "k2", "k3"):
        x = 10 * rng.lognormal(0, 0.01, 12)
        for name, values in (("base", x), ("A", x * 0.7), ("B", x * rng.lognormal(0, 0.01, 12))):
            cols["benchmark"] += [bench] * 12
            cols["variant"] += [name] * 12
            cols["run"] += list(range(12))
            cols["value"] += list(values)
    table = pa.table(cols)
    res = sparc(table, baseline="base", candidate=["A", "B"])
    assert res.benchmarks.column_names[:2] == ["candidate", "benchmark"]
    assert res.benchmarks["candidate"].to_pylist() == ["A"] * 3 + ["B"] * 3
    assert res.benchmarks["benchmark"].to_pylist() == ["k1", "k2", "k3"] * 2
    assert res.overall["candidate"].to_pylist() == ["A", "B"]
    assert res.summary["candidates"] == ["A", "B"]
    assert res.summary["tests"] == 2 * (2 * 3 + 1)
    # each candidate's rows equal a single-candidate run's, but for the family's level
    single = sparc(table, baseline="base", candidate="A", adjust="none")
    both = sparc(table, baseline="base", candidate=["A", "B"], adjust="none")
    assert "candidate" not in single.benchmarks.column_names
    a_rows = [r for r in both.benchmarks.to_pylist() if r.pop("candidate") == "A"]
    assert no_nan(a_rows) == no_nan(single.benchmarks.to_pylist())
    # a one-element list still gets the candidate column
    assert sparc(table, baseline="base", candidate=["A"]).benchmarks.column_names[0] == "candidate"
    # A is 1/0.7 faster everywhere (ratio x / 0.7x, tied): relevant difference
    assert all(r["conclusion"] == "relevant difference" for r in a_rows)
    for r in a_rows:
        assert r["ratio_median"] == pytest.approx(1 / 0.7, rel=1e-12)


# ------------------------------------------------------------ bad input and edge cases


def _good():
    rng = np.random.default_rng(0)
    return make_table({"a": (rng.uniform(1, 2, 10), rng.uniform(1, 2, 10))})


@pytest.mark.parametrize("margin", [0, 1, -0.1, 1.5, "x", None])
def test_bad_margin(margin):
    with pytest.raises(InputError, match="margin"):
        sparc(_good(), baseline="X", candidate="Y", margin=margin)


@pytest.mark.parametrize("column, role", [("value", "the value column"),
                                          ("variant", "the variant column"),
                                          ("benchmark", "a benchmark key column")])
def test_the_pair_column_is_not_another_columns_role(column, role):
    """pair= numbers the runs paired across variants: naming the value, the variant or a key
    would pair nothing (every benchmark "no runs to compare") and is refused."""
    with pytest.raises(InputError, match=f"pair={column!r} is {role}"):
        sparc(_good(), baseline="X", candidate="Y", pair=column)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.2])
def test_bad_alpha(alpha):
    with pytest.raises(InputError, match="alpha"):
        sparc(_good(), baseline="X", candidate="Y", alpha=alpha)
    with pytest.raises(InputError, match="alpha"):
        hpt(_good(), baseline="X", candidate="Y", alpha=alpha)


def test_bad_options():
    t = _good()
    with pytest.raises(InputError, match="adjust"):
        sparc(t, baseline="X", candidate="Y", adjust="sidak")
    with pytest.raises(InputError, match="method"):
        sparc(t, baseline="X", candidate="Y", method="permutation")
    with pytest.raises(InputError, match="method"):
        hpt(t, baseline="X", candidate="Y", method="permutation")
    with pytest.raises(InputError, match="same variant"):
        sparc(t, baseline="X", candidate="X")
    with pytest.raises(InputError, match="same variant"):
        sparc(t, baseline="X", candidate=["Y", "X"])
    with pytest.raises(InputError, match="same variant"):
        hpt(t, baseline="X", candidate="X")
    with pytest.raises(InputError, match="listed twice"):
        sparc(t, baseline="X", candidate=["Y", "Y"])
    with pytest.raises(InputError, match="'Z' not found"):
        sparc(t, baseline="X", candidate="Z")
    with pytest.raises(InputError, match="'W' not found"):
        hpt(t, baseline="W", candidate="Y")
    with pytest.raises(InputError, match="min_runs"):
        sparc(t, baseline="X", candidate="Y", min_runs=0)
    with pytest.raises(InputError, match="confidence"):
        hpt(t, baseline="X", candidate="Y", confidences=(0.9, 1.0))
    with pytest.raises(InputError, match="one candidate"):
        hpt(t, baseline="X", candidate=["Y"])
    with pytest.raises(InputError, match="max_speedup"):
        hpt(t, baseline="X", candidate="Y", max_speedup=0.5)


def test_missing_pair_column_points_to_pair_none():
    with pytest.raises(InputError, match=r"'run'.*pair=None"):
        sparc(_good().drop(["run"]), baseline="X", candidate="Y")
    # and pair=None works on the same table
    res = sparc(_good().drop(["run"]), baseline="X", candidate="Y", pair=None)
    assert res.summary["design"] == "unpaired"


@pytest.mark.parametrize("paired", [True, False])
def test_non_positive_value_names_the_benchmark(paired):
    table = make_table({"fine": ([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]),
                        "broken": ([1, 2, 3, 4, 5, 6], [1, 2, 0, 4, 5, 6])}, paired=paired)
    with pytest.raises(InputError, match=r"candidate 'Y'.*broken.*non-positive"):
        sparc(table, baseline="X", candidate="Y", pair="run" if paired else None)
    table = make_table({"bad": ([1, 2, -3, 4, 5, 6], [1, 2, 3, 4, 5, 6])}, paired=False)
    with pytest.raises(InputError, match=r"baseline 'X'.*bad.*non-positive"):
        hpt(table, baseline="X", candidate="Y")


def _edge_table():
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 2, 12)
    cols = {"benchmark": [], "variant": [], "run": [], "value": []}

    def add(bench, variant, runs, values):
        cols["benchmark"] += [bench] * len(values)
        cols["variant"] += [variant] * len(values)
        cols["run"] += list(runs)
        cols["value"] += [float(v) for v in values]

    add("full", "X", range(12), x)
    add("full", "Y", range(12), x * rng.uniform(0.7, 0.75, 12))
    add("unmatched", "X", range(12), x)  # runs 0, 1 on the baseline only
    add("unmatched", "Y", range(2, 12), x[2:] * 1.3)
    add("unmatched", "Y", [20, 21, 22], [1.0, 1.0, 1.0])  # 3 runs on the candidate only
    with_nan = x.copy()
    with_nan[3] = np.nan
    add("nan", "X", range(12), with_nan)
    add("nan", "Y", range(12), x * 1.3)
    add("few", "X", range(4), x[:4])
    add("few", "Y", range(4), x[:4] * 1.3)
    add("nocandidate", "X", range(12), x)
    add("ones", "X", range(12), x)
    add("ones", "Y", range(12), x)
    return pa.table(cols)


def test_paired_edge_cases():
    res = sparc(_edge_table(), baseline="X", candidate="Y")
    got = rows(res)
    # every input benchmark gets a row, in input order
    assert list(got) == ["full", "unmatched", "nan", "few", "nocandidate", "ones"]
    assert got["unmatched"]["n_unmatched"] == 2 + 3 and got["unmatched"]["n"] == 10
    assert got["full"]["n_unmatched"] == 0
    assert any("unmatched" in w and "n_unmatched" in w for w in res.warnings)
    assert got["nan"]["n_dropped"] == 1 and got["nan"]["n"] == 11
    assert any("n_dropped" in w for w in res.warnings)
    assert got["few"]["status"] == "too few runs (fewer than 5)"
    assert got["few"]["conclusion"] is None and math.isnan(got["few"]["pvalue_difference"])
    assert got["nocandidate"]["status"] != "ok" and got["nocandidate"]["n"] == 0
    assert got["nocandidate"]["conclusion"] is None
    assert res.summary["rows_not_ok"] == 2
    assert any("could not be tested" in w for w in res.warnings)
    # the other benchmarks are still tested: m = 2 * 4 + 1
    assert res.summary["tests"] == 9
    # identical values: every ratio is exactly 1, no evidence of a difference (p = 1), and
    # both r - 1.05 and r - 0.95 are 12 tied values of one sign: exact p = 1 / 2^12 each
    ones = got["ones"]
    assert ones["n_zero"] == 12 and ones["ratio_median"] == 1.0
    assert ones["pvalue_difference"] == 1.0
    assert ones["pvalue_upper"] == ones["pvalue_lower"] == 1 / 2 ** 12
    assert ones["conclusion"] == "equivalence"
    # the relevant ones (ratios about 1/0.72 and 1/1.3, with 10, 11, 12 pairs: exact p 2/2^n)
    for bench, n in (("full", 12), ("unmatched", 10), ("nan", 11)):
        assert got[bench]["pvalue_difference"] == pytest.approx(2 / 2 ** n, rel=1e-12)
        assert got[bench]["conclusion"] == "relevant difference"


def test_min_runs_option():
    res = sparc(_edge_table(), baseline="X", candidate="Y", min_runs=12)
    got = rows(res)
    assert [b for b, r in got.items() if r["status"] == "ok"] == ["full", "ones"]
    assert got["nan"]["status"] == "too few runs (fewer than 12)"


def test_unpaired_edge_cases():
    res = sparc(_edge_table(), baseline="X", candidate="Y", pair=None)
    got = rows(res)
    assert list(got) == ["full", "unmatched", "nan", "few", "nocandidate", "ones"]
    assert got["unmatched"]["n_baseline"] == 12 and got["unmatched"]["n_candidate"] == 13
    assert got["nan"]["n_dropped_baseline"] == 1 and got["nan"]["n_baseline"] == 11
    assert got["few"]["conclusion"] is None
    assert got["nocandidate"]["status"] != "ok" and got["nocandidate"]["n_candidate"] == 0
    assert got["ones"]["pvalue_difference"] == 1.0


def test_hpt_edge_cases():
    res = hpt(_edge_table(), baseline="X", candidate="Y")
    got = rows(res)
    assert list(got) == ["full", "unmatched", "nan", "few", "nocandidate", "ones"]
    assert got["nocandidate"]["status"] == "missing candidate"
    assert math.isnan(got["nocandidate"]["score"])
    assert res.summary["benchmarks_tested"] == 5
    assert got["nan"]["n_dropped_baseline"] == 1
    assert got["ones"]["pvalue"] == 1.0 and got["ones"]["score"] == 0.0


def test_mixed_units_rejected():
    rng = np.random.default_rng(1)
    x = rng.uniform(1, 2, 6)
    units = ["s"] * 12 + ["s"] * 6 + ["s"] * 5 + ["ms"]
    table = make_table({"same": (x, x), "mixed": (x, x)}, unit=units)
    for call in (lambda: sparc(table, baseline="X", candidate="Y"),
                 lambda: sparc(table, baseline="X", candidate="Y", pair=None),
                 lambda: hpt(table, baseline="X", candidate="Y")):
        with pytest.raises(InputError, match=r"mixes units.*mixed"):
            call()
    # unit=None switches the check off
    assert sparc(table, baseline="X", candidate="Y", unit=None).benchmarks.num_rows == 2


# ------------------------------------------------------------ HPT


def _hpt_data(seed=11):
    """7 benchmarks, 6 baseline and 7 candidate runs each, untied continuous values."""
    rng = np.random.default_rng(seed)
    speed = np.array([1.6, 2.2, 1.3, 3.0, 1.9, 0.9, 2.5])
    x = 10 * rng.lognormal(0, 0.08, (7, 6))
    y = 10 * rng.lognormal(0, 0.08, (7, 7)) / speed[:, None]
    table = make_table({f"b{i}": (x[i], y[i]) for i in range(7)}, paired=False)
    return table, x, y


def _hpt_reliability_grid(x, y, method):
    """scipy's HPT reliability at r = k/100, k = 1..1000 (the candidate's times times r), with
    HPT's ratio - 1 scores (``scale="ratio"``)."""
    r = np.arange(1, 1001) / 100
    mw = ({"method": "exact"} if method == "exact" else
          {"method": "asymptotic", "use_continuity": True})
    p1 = sps.mannwhitneyu(x[None], y[None] * r[:, None, None], axis=2,
                          alternative="two-sided", **mw).pvalue
    ratio = np.median(x, axis=1) / np.median(y, axis=1)
    wx = {"method": "exact"} if method == "exact" else {"method": "approx", "correction": True}
    rel = np.empty(r.size)
    for j in range(r.size):
        scores = np.where(p1[j] <= 0.05, ratio / r[j] - 1, 0.0)
        scores = scores[scores != 0]
        rel[j] = 0.0 if scores.size == 0 else 1 - sps.wilcoxon(
            scores, alternative="greater", zero_method="wilcox", **wx).pvalue
    return rel


@pytest.mark.parametrize("scale", ["log", "ratio"])
@pytest.mark.parametrize("method", ["exact", "asymptotic"])
def test_hpt_levels_match_scipy(method, scale):
    table, x, y = _hpt_data()
    res = hpt(table, baseline="X", candidate="Y", method=method, scale=scale)
    mw = ({"method": "exact"} if method == "exact" else
          {"method": "asymptotic", "use_continuity": True})
    ref = sps.mannwhitneyu(x, y, axis=1, alternative="two-sided", **mw)
    b = res.benchmarks.to_pydict()
    np.testing.assert_allclose(b["pvalue"], ref.pvalue, rtol=1e-9)
    np.testing.assert_array_equal(b["statistic"], ref.statistic)  # U of the baseline's runs
    ratio = np.median(x, axis=1) / np.median(y, axis=1)
    np.testing.assert_allclose(b["ratio_median"], ratio, rtol=1e-12)
    significant = ref.pvalue <= 0.05
    np.testing.assert_array_equal(b["significant"], significant)
    scores = np.where(significant, np.log(ratio) if scale == "log" else ratio - 1, 0.0)
    np.testing.assert_allclose(b["score"], scores, rtol=1e-12)
    nonzero = scores[scores != 0]
    wx = {"method": "exact"} if method == "exact" else {"method": "approx", "correction": True}
    level2 = sps.wilcoxon(nonzero, alternative="greater", zero_method="wilcox", **wx)
    s = res.summary
    assert s["n"] == nonzero.size and s["significant"] == significant.sum()
    assert s["statistic"] == level2.statistic  # T+
    assert s["pvalue"] == pytest.approx(level2.pvalue, rel=1e-9)
    assert s["reliability"] == pytest.approx(1 - level2.pvalue, rel=1e-9)
    assert s["fwer_uncorrected"] == pytest.approx(1 - 0.95 ** 8, rel=1e-12)


def test_hpt_speedup_search_exact_matches_the_grid():
    table, x, y = _hpt_data()
    confidences = (0.8, 0.9, 0.95, 0.99)
    res = hpt(table, baseline="X", candidate="Y", method="exact", confidences=confidences,
              scale="ratio")
    rel = _hpt_reliability_grid(x, y, "exact")
    assert np.all(np.diff(rel) <= 1e-12)  # monotone here: the largest k is well defined
    got = dict(zip(res.speedups["confidence"].to_pylist(), res.speedups["speedup"].to_pylist()))
    for c in confidences:
        ok = np.flatnonzero(rel >= c)
        assert got[c] == (ok.max() + 1) / 100, c
    assert not any(res.speedups["capped"].to_pylist())


def test_hpt_speedup_search_asymptotic_against_the_grid():
    # With normal p-values the grid's reliability is not monotone (it rises by ~7e-4 from
    # r = 0.97 to 0.98, and again near 2.43), so check the bisection's crossing and, for this
    # data, that it is also the largest k (the wiggles do not straddle these confidences).
    table, x, y = _hpt_data()
    confidences = (0.8, 0.9, 0.95, 0.99)
    res = hpt(table, baseline="X", candidate="Y", method="asymptotic", confidences=confidences,
              scale="ratio")
    rel = _hpt_reliability_grid(x, y, "asymptotic")
    got = dict(zip(res.speedups["confidence"].to_pylist(), res.speedups["speedup"].to_pylist()))
    for c in confidences:
        ok = np.flatnonzero(rel >= c)
        if ok.size == 0:  # 7 positive scores at best: z = 13.5 / sqrt(35) = 2.28, rel 0.9888
            assert c == 0.99 and math.isnan(got[c])
            assert rel.max() == pytest.approx(sps.norm.cdf(13.5 / math.sqrt(35)), rel=1e-12)
            continue
        k = round(got[c] * 100)
        assert rel[k - 1] >= c and (k == 1000 or rel[k] < c)
        assert got[c] == (ok.max() + 1) / 100, c


def test_hpt_throughputs_match_times():
    table, x, y = _hpt_data()
    rates = make_table({f"b{i}": (1 / x[i], 1 / y[i]) for i in range(7)}, paired=False)
    by_time = hpt(table, baseline="X", candidate="Y", method="exact")
    by_rate = hpt(rates, baseline="X", candidate="Y", method="exact", higher_is_better=True)
    assert by_rate.summary["ratio"] == "candidate / baseline"
    assert by_rate.speedups.to_pylist() == by_time.speedups.to_pylist()
    # candidate / baseline of the throughputs' medians (6 baseline runs: median(1/x) is not
    # 1/median(x), so the ratio differs slightly from the times' one)
    np.testing.assert_allclose(by_rate.benchmarks["ratio_median"].to_numpy(),
                               np.median(1 / y, axis=1) / np.median(1 / x, axis=1), rtol=1e-12)
    np.testing.assert_array_equal(by_rate.benchmarks["significant"].to_numpy(),
                                  by_time.benchmarks["significant"].to_numpy())
    np.testing.assert_allclose(by_rate.benchmarks["pvalue"].to_numpy(),
                               by_time.benchmarks["pvalue"].to_numpy(), rtol=1e-12)


def test_hpt_speedup_capped_at_max():
    # 20x faster on 8 benchmarks: even slowed by r = 10 the runs do not overlap, every score is
    # positive and the exact level-2 p is 1 / 2^8 (reliability 0.996 >= 0.99)
    rng = np.random.default_rng(5)
    data = {f"b{i}": (100 * rng.lognormal(0, 0.02, 10), 5 * rng.lognormal(0, 0.02, 10))
            for i in range(8)}
    res = hpt(make_table(data, paired=False), baseline="X", candidate="Y")
    assert res.summary["pvalue"] == 1 / 2 ** 8
    assert res.speedups["speedup"].to_pylist() == [10.0, 10.0, 10.0]
    assert res.speedups["capped"].to_pylist() == [True, True, True]
    res = hpt(make_table(data, paired=False), baseline="X", candidate="Y", max_speedup=4)
    assert res.speedups["speedup"].to_pylist() == [4.0] * 3


def test_hpt_speedup_nan_when_unreachable():
    # 3 benchmarks: the smallest exact one-sided signed-rank p is 1 / 2^3, reliability <= 0.875
    rng = np.random.default_rng(5)
    data = {f"b{i}": (100 * rng.lognormal(0, 0.02, 10), 5 * rng.lognormal(0, 0.02, 10))
            for i in range(3)}
    res = hpt(make_table(data, paired=False), baseline="X", candidate="Y")
    assert res.summary["reliability"] == 1 - 1 / 2 ** 3
    assert all(math.isnan(s) for s in res.speedups["speedup"].to_pylist())
    assert res.speedups["capped"].to_pylist() == [False] * 3
    assert res.speedups["confidence"].to_pylist() == [0.9, 0.95, 0.99]


# ------------------------------------------------------------ command line


def _go_values(path, name):
    """The ns/op values of one benchmark in a `go test -bench` file, read by hand."""
    out = []
    for line in Path(path).read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == name and fields[-1] == "ns/op":
            out.append(float(fields[-2]))
    return np.array(out)


def test_cli_sparc_go_files(capsys):
    rc = main(["compare", GO_OLD, GO_NEW, "--unit", "sec/op", "--protocol", "sparc",
               "--margin", "0.05", "--adjust", "holm"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "SPARC" in out and "Holm" in out
    assert "relevant difference" in out and "equivalence" in out


def test_cli_sparc_json_go_files(capsys):
    rc = main(["compare", GO_OLD, GO_NEW, "--unit", "sec/op", "--protocol", "sparc",
               "--format", "json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["function"] == "sparc" and doc["summary"]["design"] == "unpaired"
    assert doc["summary"]["tests"] == 2 * 2 + 1
    got = {r["benchmark"]: r for r in doc["benchmarks"]}
    json_old = _go_values(GO_OLD, "BenchmarkEncode/format=json-48")
    json_new = _go_values(GO_NEW, "BenchmarkEncode/format=json-48")
    gob_old = _go_values(GO_OLD, "BenchmarkEncode/format=gob-48")
    gob_new = _go_values(GO_NEW, "BenchmarkEncode/format=gob-48")
    assert len(json_old) == len(json_new) == len(gob_old) == len(gob_new) == 10
    row = got["BenchmarkEncode/format=json-48"]
    assert row["ratio_median"] == pytest.approx(np.median(json_old) / np.median(json_new),
                                                rel=1e-12)
    # json: every new run faster than every old one: exact two-sided p = 2 / C(20, 10)
    assert json_new.max() < json_old.min()
    assert row["pvalue_difference"] == pytest.approx(2 / math.comb(20, 10), rel=1e-9)
    assert row["conclusion"] == "relevant difference"
    # gob: within 5 % both ways (all runs between 3059 and 3186 ns), so each shifted sample
    # separates: one-sided p = 1 / C(20, 10) each, equivalence
    row = got["BenchmarkEncode/format=gob-48"]
    assert gob_old.max() < 1.05 * gob_new.min() and gob_old.min() > 0.95 * gob_new.max()
    assert row["pvalue_equivalence"] == pytest.approx(1 / math.comb(20, 10), rel=1e-9)
    assert row["conclusion"] == "equivalence"


def test_cli_hpt_go_files(capsys):
    rc = main(["compare", GO_OLD, GO_NEW, "--unit", "sec/op", "--protocol", "hpt",
               "--format", "json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["function"] == "hpt"
    # json significant, gob not: one non-zero score, one-sided p = 1/2
    assert doc["summary"]["significant"] == 1 and doc["summary"]["reliability"] == 0.5
    # 2 benchmarks reach at most 1 - 1/4 = 0.75 < 0.9: no speedup holds
    assert [s["speedup"] for s in doc["speedups"]] == [None, None, None]
    rc = main(["compare", GO_OLD, GO_NEW, "--protocol", "hpt", "--confidences", "0.5,0.7"])
    out = capsys.readouterr().out
    assert rc == 0 and "HPT" in out and "largest speedup" in out


def _small_files(tmp_path):
    rng = np.random.default_rng(3)
    cols = {"benchmark": [], "variant": [], "run": [], "value": []}
    for bench, shift in (("fast", 1.5), ("same", 1.0)):
        x = 10 * rng.lognormal(0, 0.01, 12)
        for name, values in (("base", x), ("cand", x / shift * rng.lognormal(0, 0.005, 12))):
            cols["benchmark"] += [bench] * 12
            cols["variant"] += [name] * 12
            cols["run"] += list(range(12))
            cols["value"] += list(values)
    table = pa.table(cols)
    csv, parquet = tmp_path / "runs.csv", tmp_path / "runs.parquet"
    pacsv.write_csv(table, csv)
    pq.write_table(table, parquet)
    return str(csv), str(parquet)


def test_cli_sparc_paired_csv_and_parquet(tmp_path, capsys):
    csv, parquet = _small_files(tmp_path)
    rc = main(["compare", csv, "--protocol", "sparc", "--pair", "run", "--baseline", "base",
               "--candidate", "cand", "--format", "json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["design"] == "paired" and doc["summary"]["pair"] == "run"
    got = {r["benchmark"]: r for r in doc["benchmarks"]}
    # 12 ratios all above 1.05: exact p = 2 / 2^12; the "same" benchmark: 12 ratios within
    # 5 % both ways: equivalence p = 1 / 2^12 <= 0.05 / 5
    assert got["fast"]["pvalue_difference"] == 2 / 2 ** 12
    assert got["fast"]["conclusion"] == "relevant difference"
    assert got["same"]["pvalue_equivalence"] == 1 / 2 ** 12
    assert got["same"]["conclusion"] == "equivalence"
    rc = main(["compare", parquet, "--protocol", "sparc", "--baseline", "base", "--candidate",
               "cand", "--method", "asymptotic", "--adjust", "none", "--margin", "0.1"])
    out = capsys.readouterr().out
    assert rc == 0 and "unpaired runs" in out and "no correction" in out and "[0.9, 1.1]" in out


@pytest.mark.parametrize("scale", ["log", "ratio"])
def test_cli_scale(tmp_path, capsys, scale):
    """--scale reaches sparc's paired tests and hpt's scores: the CLI's figures are those of
    the functions on the same file (whose tests check them against scipy)."""
    csv, _ = _small_files(tmp_path)
    table = fastperf.read(csv)
    common = ["--baseline", "base", "--candidate", "cand", "--format", "json", "--scale", scale]
    assert main(["compare", csv, "--protocol", "sparc", "--pair", "run", "--method",
                 "asymptotic", *common]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = sparc(table, baseline="base", candidate="cand", pair="run", method="asymptotic",
                 scale=scale)
    assert doc["summary"]["scale"] == scale
    assert [r["pvalue_difference"] for r in doc["benchmarks"]] == pytest.approx(
        want.benchmarks["pvalue_difference"].to_pylist(), rel=1e-12)
    assert main(["compare", csv, "--protocol", "hpt", *common]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = hpt(table, baseline="base", candidate="cand", scale=scale)
    assert [r["score"] for r in doc["benchmarks"]] == pytest.approx(
        want.benchmarks["score"].to_pylist(), rel=1e-12)
    fast = next(r for r in doc["benchmarks"] if r["benchmark"] == "fast")
    centre = fast["ratio_median"]
    assert fast["score"] == pytest.approx(math.log(centre) if scale == "log" else centre - 1,
                                          rel=1e-12)


@pytest.mark.parametrize("args, reason", [
    (["--protocol", "sparc", "--margin", "1.5"], "margin"),
    (["--protocol", "speedup-test", "--scale", "log"], "--scale"),
    (["--scale", "ratio"], "--scale"),
    (["--protocol", "hpt", "--pair", "run"], "--pair"),
    (["--protocol", "sparc", "--weights", "w"], "--weights"),
])
def test_cli_bad_input_exits_2_with_one_line(args, reason, capsys):
    rc = main(["compare", GO_OLD, GO_NEW, "--unit", "sec/op", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("fastperf: error:") and reason in err


def test_cli_pair_column_missing(tmp_path, capsys):
    table = make_table({"a": ([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0])},
                       paired=False)
    path = tmp_path / "unpaired.csv"
    pacsv.write_csv(table, path)
    rc = main(["compare", str(path), "--protocol", "sparc", "--pair", "run"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "--pair run" in err and "omit --pair" in err
    # the Go reader numbers the runs: there --pair run pairs them
    rc = main(["compare", GO_OLD, GO_NEW, "--protocol", "sparc", "--pair", "run", "--format",
               "json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["summary"]["design"] == "paired"
    assert [r["n"] for r in doc["benchmarks"]] == [10, 10]


# ------------------------------------------------------------ renderings


def test_sparc_renderings():
    res = sparc(paper_table(), baseline="rocket", candidate=["ariane", "shakti"], margin=0.5)
    text = res.to_text()
    assert text.startswith("SPARC: 'ariane', 'shakti' against 'rocket' (paired runs")
    assert "equivalence margin [0.5, 1.5]" in text
    assert "Bonferroni over m = 34 tests" in text and "0.82518" in text
    assert "3 relevant difference, 13 trivial difference" in text
    assert "overall test" in text and "no significant overall difference" in text
    md = res.to_markdown()
    assert md.startswith("```\nSPARC:") and "| candidate |" in md.replace("  ", " ")
    assert "overall test" in md
    doc = json.loads(res.to_json())
    assert doc["summary"]["function"] == "sparc" and len(doc["benchmarks"]) == 16
    assert [r["candidate"] for r in doc["overall"]] == ["ariane", "shakti"]
    assert doc["summary"]["equivalence_bounds"] == [0.5, 1.5]
    res = sparc(paper_table(), baseline="rocket", candidate="ariane", margin=0.5, overall=False)
    assert "overall test" not in res.to_text()
    assert json.loads(res.to_json())["overall"] is None


def test_hpt_renderings():
    table, _, _ = _hpt_data()
    res = hpt(table, baseline="X", candidate="Y", method="exact")
    text = res.to_text()
    assert text.startswith("HPT: 'Y' against 'X' (ratio = baseline / candidate)")
    assert "Level 2" in text and "largest speedup" in text
    assert "confidence" in text and "capped" in text
    md = res.to_markdown()
    assert md.startswith("```\nHPT:") and "largest speedup" in md
    doc = json.loads(res.to_json())
    assert doc["summary"]["function"] == "hpt"
    assert [s["confidence"] for s in doc["speedups"]] == [0.9, 0.95, 0.99]
    assert len(doc["benchmarks"]) == 7


def test_results_are_exported():
    assert fastperf.sparc is sparc and fastperf.hpt is hpt
    assert isinstance(sparc(_good(), baseline="X", candidate="Y"), fastperf.SparcResult)
    assert isinstance(hpt(_good(), baseline="X", candidate="Y"), fastperf.HptResult)


# ------------------------------------------------------------ the log scale: symmetry and validity


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), runs=st.integers(5, 40),
       shape=st.sampled_from(["lognormal", "bimodal", "heavy_tail", "quantised"]),
       method=st.sampled_from(["auto", "asymptotic"]),
       delta=st.sampled_from([0.0137, 0.0437, 0.2113]))
def test_log_scale_swapping_the_variants_mirrors_every_conclusion(seed, runs, shape, method,
                                                                  delta):
    """Swapping baseline and candidate turns every log r into -log r: the difference test
    keeps its p and flips its z, the two one-sided equivalence tests trade places when the
    margin is mirrored too ([1 - delta, 1 + delta] becomes [1 / (1 + delta), 1 / (1 - delta)]),
    and every conclusion stays the same. (r - 1 has no such symmetry: 1 / r - 1 != -(r - 1).)
    The deltas are ones no ratio of the simulated timer ticks hits exactly: a ratio on a bound
    is a zero difference on one side and, the mirrored bound rounding differently, a tiny one
    on the other."""
    table = simulate(benchmarks=12, runs=runs, shapes=shape, paired=True, seed=seed,
                     sigma=(0.005, 0.05)).table
    # The mirrored bound log(1 / (1 + delta)) is -log1p(delta) only to an ulp or so: two shifted
    # log ratios on opposite sides of a bound whose magnitudes differ by less than that swap their
    # order between the two runs, and the signed ranks with them (timer ticks make such near
    # coincidences d_i + d_j = 2 log(1 + delta) possible). Such draws test rounding, not symmetry.
    values = np.asarray(table.column("value").to_numpy()).reshape(2, 12, runs)  # variant-major
    x, y = values[0], values[1]
    d = np.sign(x - y) * np.log(np.maximum(x, y) / np.minimum(x, y))
    for bound in (np.log1p(delta), np.log1p(-delta)):
        shifted = np.sort(np.abs(d - bound), axis=1)
        gaps = np.diff(shifted, axis=1)
        assume(not np.any((gaps > 0) & (gaps <= 1e-12 * shifted[:, 1:])))
    forward = sparc(table, baseline="baseline", candidate="candidate", margin=delta,
                    method=method, adjust="none")
    backward = sparc(table, baseline="candidate", candidate="baseline",
                     margin=(1 / (1 + delta), 1 / (1 - delta)), method=method, adjust="none")
    f, b = forward.benchmarks.to_pydict(), backward.benchmarks.to_pydict()
    assert f["conclusion"] == b["conclusion"]
    assert f["n_zero"] == b["n_zero"]
    np.testing.assert_allclose(b["pvalue_difference"], f["pvalue_difference"], rtol=1e-9)
    np.testing.assert_allclose(b["pvalue_upper"], f["pvalue_lower"], rtol=1e-9)
    np.testing.assert_allclose(b["pvalue_lower"], f["pvalue_upper"], rtol=1e-9)
    np.testing.assert_allclose(b["z_difference"], -np.array(f["z_difference"]), rtol=1e-9,
                               atol=1e-12)
    nonzero = np.array(f["n"]) - np.array(f["n_zero"])
    np.testing.assert_allclose(np.array(b["statistic"]) + np.array(f["statistic"]),
                               nonzero * (nonzero + 1) / 2)  # T+ and T- trade places
    np.testing.assert_allclose(b["ratio_median"], 1 / np.array(f["ratio_median"]), rtol=1e-12)
    fo, bo = forward.overall.to_pylist()[0], backward.overall.to_pylist()[0]
    assert (fo["n"], fo["reject"]) == (bo["n"], bo["reject"])
    assert bo["pvalue"] == pytest.approx(fo["pvalue"], rel=1e-9, nan_ok=True)


def test_margin_bounds_are_checked():
    table = make_table({"b": ([1.0, 2.0, 3.0, 4.0, 5.0], [1.1, 2.1, 3.1, 4.1, 5.1])})
    res = sparc(table, baseline="X", candidate="Y", margin=(0.9, 1.25))
    assert res.summary["equivalence_bounds"] == (0.9, 1.25)
    for bad in [(1.1, 1.25), (0.9, 1.0), (0.9,), ("a", 2.0), (0.0, 2.0), (0.9, float("inf"))]:
        with pytest.raises(InputError, match="margin"):
            sparc(table, baseline="X", candidate="Y", margin=bad)
    with pytest.raises(InputError, match="scale"):
        sparc(table, baseline="X", candidate="Y", scale="linear")
    with pytest.raises(InputError, match="scale"):
        hpt(table, baseline="X", candidate="Y", scale="ratios")


def test_sparc_with_no_testable_benchmark_gives_a_row_each_and_no_error():
    """3 runs a side (below min_runs) and no overall test: no test in the family, so no family
    error rate (1 - (1 - alpha)^0 = 0), and every benchmark still gets its row."""
    table, _ = fastperf.simulate(5, 3, seed=1)
    result = fastperf.sparc(table, baseline="baseline", candidate="candidate", overall=False)
    assert result.table.num_rows == 5
    assert result.summary["tests"] == 0 and result.summary["fwer_uncorrected"] == 0.0
    assert all(s.startswith("too few runs") for s in result.table.column("status").to_pylist())
