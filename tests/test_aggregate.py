"""Aggregate scores: the article's tables (seed 004), closed forms, brute-force references."""
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import scipy.stats as sps

import fastperf
from fastperf import InputError
from fastperf.protocols.aggregate import aggregate_score, score_gradient
from naive import aggregate_score_reference

# Seed 004, Table 5: five runs of two tests on one PC
BW = [22.3, 22.6, 22.7, 22.5, 22.7]
MCC = [31.8, 31.9, 32.0, 31.9, 31.9]


def article_table(with_run=True):
    cols = {"benchmark": ["Business Winstone"] * 5 + ["Multimedia CC Winstone"] * 5,
            "variant": ["PC"] * 10, "value": BW + MCC}
    if with_run:
        cols["run"] = list(range(5)) * 2
    return pa.table(cols)


@pytest.mark.parametrize("with_run", [True, False])
def test_article_table_5_per_run_geometric_mean(with_run):
    row = aggregate_score(article_table(with_run)).groups.to_pylist()[0]
    # per-run scores 26.63 26.85 26.95 26.79 26.91 -> 26.827 +/- 0.156 (95%); the exact mean is
    # 26.82647 (the article's own rounded scores average to 26.826): within one unit of its digits
    assert abs(row["score"] - 26.827) <= 0.001
    assert round((row["ci_high"] - row["ci_low"]) / 2, 3) == 0.156


def test_article_table_6_propagated_deviation():
    row = aggregate_score(article_table(), method="propagation").groups.to_pylist()[0]
    assert round(row["score"], 3) == 26.827 and round(row["sd"], 3) == 0.104


@pytest.mark.parametrize("kind", ["geomean", "mean"])
def test_table_7_closed_forms_match_numerical_derivatives(kind):
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 50, 7)
    w = rng.uniform(0.5, 2, 7)
    w /= w.sum()
    score, gradient = score_gradient(kind, x, w, np.array([0]))
    f = (lambda v: np.exp(np.sum(w * np.log(v)))) if kind == "geomean" else (lambda v: np.sum(w * v))
    assert score[0] == pytest.approx(f(x), rel=1e-12)
    for i in range(7):
        h = 1e-6 * x[i]
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        assert gradient[i] == pytest.approx((f(up) - f(down)) / (2 * h), rel=1e-7)
    if kind == "geomean":  # Table 7 itself, equal weights: f / n * sqrt(sum((S_i / x_i)^2))
        s = rng.uniform(0.1, 1, 7)
        _, g = score_gradient(kind, x, np.full(7, 1 / 7), np.array([0]))
        f_eq = np.exp(np.mean(np.log(x)))
        assert np.sqrt(np.sum((g * s) ** 2)) == pytest.approx(f_eq / 7 * np.sqrt(np.sum((s / x) ** 2)))


def random_suite(rng, variants=3, benchmarks=6, runs=8):
    rows = []
    for v in range(variants):
        for b in range(benchmarks):
            base = rng.uniform(1, 100)
            for r in range(runs):
                rows.append((f"v{v}", f"b{b}", r, float(base * rng.lognormal(0.01 * v, 0.05))))
    rng.shuffle(rows)  # the run column, not the row order, matches runs
    return pa.table(dict(zip(["variant", "benchmark", "run", "value"], map(list, zip(*rows))))), rows


@pytest.mark.parametrize("kind", ["geomean", "mean"])
@pytest.mark.parametrize("method", ["per-run", "propagation"])
@pytest.mark.parametrize("weighted", [False, True])
def test_against_brute_force(kind, method, weighted):
    rng = np.random.default_rng(1)
    table, rows = random_suite(rng)
    weights = {f"b{b}": float(b + 1) for b in range(6)} if weighted else None
    got = {r["variant"]: r for r in aggregate_score(table, kind=kind, method=method,
                                                    weights=weights).groups.to_pylist()}
    for v, (score, sd, lo, hi) in aggregate_score_reference(rows, kind, method, weights).items():
        assert got[v]["score"] == pytest.approx(score, rel=1e-12)
        assert got[v]["sd"] == pytest.approx(sd, rel=1e-10)
        assert got[v]["ci_low"] == pytest.approx(lo, rel=1e-10)
        assert got[v]["ci_high"] == pytest.approx(hi, rel=1e-10)


def test_weights_column_equals_mapping_and_weighted_kind():
    rng = np.random.default_rng(2)
    table, _ = random_suite(rng)
    mapping = {f"b{b}": float(b + 1) for b in range(6)}
    column = pa.array([mapping[b] for b in table.column("benchmark").to_pylist()])
    by_column = aggregate_score(table.append_column("w", column), kind="weighted", weights="w")
    by_mapping = aggregate_score(table, kind="mean", weights=mapping)
    np.testing.assert_allclose(by_column.groups.column("score").to_numpy(),
                               by_mapping.groups.column("score").to_numpy(), rtol=1e-12)
    with pytest.raises(InputError, match="needs weights"):
        aggregate_score(table, kind="weighted")
    with pytest.raises(InputError, match="no entry for benchmark"):
        aggregate_score(table, weights={"b0": 1.0})
    with pytest.raises(InputError, match="numbers"):
        aggregate_score(table, weights={f"b{b}": "heavy" for b in range(6)})
    with pytest.raises(InputError, match="positive"):
        aggregate_score(table, weights={f"b{b}": float(b) for b in range(6)})  # b0 weighs 0


def test_incomplete_runs_are_dropped_and_counted():
    table, rows = random_suite(np.random.default_rng(3), variants=1)
    keep = [not (r[1] == "b2" and r[2] == 3) for r in rows]  # run 3 lacks b2
    res = aggregate_score(table.filter(pa.array(keep)))
    row = res.groups.to_pylist()[0]
    assert row["n_runs"] == 7 and row["n_runs_dropped"] == 1
    assert any("incomplete" in w for w in res.warnings)


def test_bad_input():
    t = article_table(with_run=False)
    with pytest.raises(InputError, match="propagation"):  # unequal run counts, no run column
        aggregate_score(t.slice(0, 9))
    assert aggregate_score(t.slice(0, 9), method="propagation").groups.num_rows == 1
    neg = t.set_column(2, "value", pa.array([-1.0] + BW[1:] + MCC))
    with pytest.raises(InputError, match="Business Winstone"):
        aggregate_score(neg)
    assert aggregate_score(neg, kind="mean").groups.column("status").to_pylist() == ["ok"]
    with pytest.raises(InputError, match="kind"):
        aggregate_score(t, kind="median")


def test_variant_missing_a_benchmark_gets_a_status_row():
    table, rows = random_suite(np.random.default_rng(4), variants=2)
    keep = [not (r[0] == "v1" and r[1] == "b0") for r in rows]
    rows_out = aggregate_score(table.filter(pa.array(keep))).groups.to_pylist()
    assert [r["status"] for r in rows_out] == ["ok", "missing benchmarks: 1"]
    assert np.isnan(rows_out[1]["score"])


def test_ratio_to_baseline():
    table, rows = random_suite(np.random.default_rng(5), variants=3)
    res = aggregate_score(table, baseline="v0").groups.to_pylist()
    base = res[0]
    for row in res[1:]:
        assert row["ratio"] == pytest.approx(row["score"] / base["score"], rel=1e-12)
        rel = np.sqrt((row["se"] / row["score"]) ** 2 + (base["se"] / base["score"]) ** 2)
        df = rel ** 4 / ((row["se"] / row["score"]) ** 4 / row["df"] + (base["se"] / base["score"]) ** 4 / base["df"])
        t = sps.t.ppf(0.975, df)
        assert row["ratio_ci_low"] == pytest.approx(row["ratio"] * np.exp(-t * rel), rel=1e-10)
        assert row["ratio_ci_low"] < row["ratio"] < row["ratio_ci_high"]
    assert res[0]["ratio"] == 1.0
    with pytest.raises(InputError, match="not a variant"):
        aggregate_score(table, baseline="nope")


def test_mixed_units_are_refused():
    t = article_table().append_column("unit", pa.array(["s"] * 5 + ["B/s"] * 5))
    with pytest.raises(InputError, match="mixes units"):
        aggregate_score(t)
    assert aggregate_score(t, unit=None).groups.num_rows == 1


# -----------------------------------------------------------------------------------------------
# Null runs left out as documented; the baseline's ratio to itself
# -----------------------------------------------------------------------------------------------


# ------------------------------------------------------------------ 3. aggregate: null runs


def _runs_table(run):
    return pa.table({"benchmark": ["x"] * 5 + ["y"] * 5, "variant": ["A"] * 10,
                     "value": [1.0, 2, 3, 4, 5] * 2, "run": run})


def test_aggregate_all_null_run_column_reproducer():
    """Reproducer: 'a run value occurs more than once'; null runs are left out as documented."""
    t = pa.table({"benchmark": ["x"] * 10, "variant": ["A"] * 5 + ["B"] * 5,
                  "value": [1.0, 2, 3, 4, 5] * 2, "run": pa.array([None] * 10, pa.int64())})
    res = fastperf.aggregate_score(t)
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
    got = fastperf.aggregate_score(t, kind=kind).groups.to_pylist()[0]
    assert (got["n_runs"], got["n_runs_dropped"], got["status"]) == (3, 2, "ok")
    assert got["score"] == pytest.approx(2.0, rel=1e-15)
    assert got["sd"] == pytest.approx(1.0, rel=1e-15)
    known = pc.invert(pc.is_null(t.column("run"), nan_is_null=True))
    ref = fastperf.aggregate_score(t.filter(known), kind=kind).groups.to_pylist()[0]
    for name in ("n_runs", "n_runs_dropped", "score", "sd", "se", "ci_low", "ci_high"):
        assert got[name] == ref[name]


def test_aggregate_null_runs_still_detect_duplicates():
    t = _runs_table(pa.array([0, 0, 2, None, 4, 0, 1, 2, 3, None], pa.int64()))
    with pytest.raises(fastperf.InputError, match="more than once"):
        fastperf.aggregate_score(t)


# ------------------------------------------------------------------ 4. aggregate: baseline ratio


@pytest.mark.parametrize("method", ["per-run", "propagation"])
def test_aggregate_baseline_ratio_to_itself_is_one_with_interval_one(method):
    """Reproducer: the baseline's ratio_ci_low/high were NaN with status ok."""
    t = pa.table({"benchmark": ["b1"] * 4, "variant": ["A", "A", "B", "B"],
                  "value": [1.0, 2, 2, 3], "run": [0, 1, 0, 1]})
    rows = {r["variant"]: r for r in fastperf.aggregate_score(t, baseline="A", method=method,
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


def test_a_constant_baseline_leaves_the_candidates_ratio_interval_its_own():
    """A baseline without variance (every run 2.0) adds nothing to the ratio's variance nor
    to its Satterthwaite df: the candidate's ratio interval is its own t interval on the log
    scale, score / 2 * exp(+-t(0.975, n - 1) se / score); the baseline's score stands (status
    "zero variance: no interval"), and no warning says it has none."""
    new = [1 + 0.01 * i for i in range(8)]
    t = pa.table({"benchmark": ["b"] * 16, "variant": ["old"] * 8 + ["new"] * 8,
                  "value": [2.0] * 8 + new, "run": list(range(8)) * 2})
    result = fastperf.aggregate_score(t, baseline="old")
    old_row, new_row = result.groups.to_pylist()
    assert old_row["status"] == "zero variance: no interval" and old_row["score"] == 2.0
    mean, se = np.mean(new), np.std(new, ddof=1) / math.sqrt(8)
    half = sps.t.ppf(0.975, 7) * se / mean
    assert new_row["status"] == "ok"
    assert new_row["ratio_ci_low"] == pytest.approx(mean / 2 * math.exp(-half), rel=1e-12)
    assert new_row["ratio_ci_high"] == pytest.approx(mean / 2 * math.exp(half), rel=1e-12)
    assert not any("no score" in w for w in result.warnings)


def test_aggregate_no_nan_ratio_interval_with_status_ok():
    rng = np.random.default_rng(5)
    t = pa.table({"benchmark": np.repeat(["p", "q", "r"], 12).tolist(),
                  "variant": np.tile(np.repeat(["A", "B", "C"], 4), 3).tolist(),
                  "value": rng.uniform(1, 2, 36), "run": np.tile(np.arange(4), 9)})
    for row in fastperf.aggregate_score(t, baseline="B").groups.to_pylist():
        assert row["status"] == "ok"
        assert all(np.isfinite(row[c]) for c in ("ratio", "ratio_ci_low", "ratio_ci_high"))


def test_no_baseline_score_is_named_as_such():
    """A baseline with no score (every value of one benchmark NaN: "fewer than 2 complete
    runs") leaves the candidates' ratios NaN; their status said "beyond the float64 range"."""
    table = fastperf.simulate(benchmarks=3, runs=6, seed=2).table
    first = table.column("benchmark").to_pylist()[0]
    hole = pc.and_(pc.equal(table["benchmark"], first), pc.equal(table["variant"], "baseline"))
    values = pc.if_else(hole, pa.scalar(float("nan")), table["value"])
    table = table.set_column(table.column_names.index("value"), "value", values)
    rows = {r["variant"]: r for r in
            fastperf.aggregate_score(table, baseline="baseline").table.to_pylist()}
    assert rows["baseline"]["status"] == "fewer than 2 complete runs"
    assert math.isnan(rows["candidate"]["ratio"])
    assert rows["candidate"]["status"] == "no ratio: the baseline has no score"
