"""One-factor ANOVA, Welch's ANOVA and contrasts: Lilja's worked example (seed 000), scipy,
R's ``oneway.test`` (quoted in scipy's tests) and statsmodels OLS as oracles."""
import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st

from fastperf import InputError
from fastperf.designs.anova import anova, contrasts, f_oneway

# Lilja, seed 000: 5 measurements of 3 alternatives
LILJA = np.array([
    [0.0972, 0.1382, 0.7966],
    [0.0971, 0.1432, 0.5300],
    [0.0969, 0.1382, 0.5152],
    [0.1954, 0.1730, 0.6675],
    [0.0974, 0.1383, 0.5298],
])


def lilja_table():
    return pa.table({"variant": np.tile(["1", "2", "3"], 5), "value": LILJA.ravel()})


def long_table(samples_by_group, rng=None):
    """A measurement table from {benchmark: [sample per alternative]} (rows shuffled)."""
    bench, variant, value = [], [], []
    for b, samples in samples_by_group.items():
        for j, s in enumerate(samples):
            bench += [b] * len(s)
            variant += [f"v{j}"] * len(s)
            value += list(s)
    order = np.arange(len(value)) if rng is None else rng.permutation(len(value))
    return pa.table({"benchmark": np.array(bench)[order], "variant": np.array(variant)[order],
                     "value": np.array(value, dtype=float)[order]})


def row(result, i=0):
    return result.groups.slice(i, 1).to_pylist()[0]


# ---------------------------------------------------------------------------- seed 000


def test_lilja_anova_table():
    r = anova(lilja_table())
    g = row(r)
    assert r.groups.num_rows == 1
    assert (g["k"], g["n"], g["df_alternatives"], g["df_error"], g["df_total"]) == (3, 15, 2, 12, 14)
    assert round(g["ssa"], 4) == 0.7585
    assert g["sse"] == pytest.approx(0.068561356, rel=1e-8)  # the slide truncates: 0.0685
    assert np.floor(g["sse"] * 1e4) / 1e4 == 0.0685
    assert round(g["sst"], 4) == 0.8270
    assert round(g["msa"], 4) == 0.3792  # the slide's 0.3793 is 0.7585 / 2 from rounded SSA
    assert round(g["mse"], 4) == 0.0057
    assert round(g["f"], 4) == 66.3749
    assert round(g["f_critical"], 2) == 3.89
    assert round(g["share_alternatives"], 3) == 0.917
    assert round(g["share_error"], 3) == 0.083
    assert g["f"] > g["f_critical"] and g["pvalue"] < 0.05
    assert g["status"] == "ok"
    assert g["sst"] == pytest.approx(((LILJA - LILJA.mean()) ** 2).sum(), rel=1e-13)


def test_lilja_effects():
    e = anova(lilja_table()).effects.to_pydict()
    assert e["variant"] == ["1", "2", "3"]
    assert [round(m, 4) for m in e["mean"]] == [0.1168, 0.1462, 0.6078]
    assert [round(a, 4) for a in e["effect"]] == [-0.1735, -0.1441, 0.3176]
    # the slide prints 0.3175 = 0.6078 - 0.2903 from the rounded means
    assert e["effect"][2] == pytest.approx(0.3175, abs=1e-4)
    assert e["n"] == [5, 5, 5]


def test_lilja_contrasts_slide_formula():
    r = anova(lilja_table())
    c12 = row(r.contrasts([1, -1, 0], confidence=0.90, method="lilja"))
    assert round(c12["contrast"], 4) == -0.0294
    assert round(c12["s_c"], 4) == 0.0276  # slide: 0.0275 from s_e rounded
    assert (round(c12["ci_low"], 4), round(c12["ci_high"], 4)) == (-0.0786, 0.0198)
    assert c12["ci_low"] < 0 < c12["ci_high"]  # includes 0: no significant difference
    c13 = row(contrasts(r, {"1": 1, "3": -1}, confidence=0.90, method="lilja"))
    assert round(c13["contrast"], 4) == -0.4910
    assert (round(c13["ci_low"], 3), round(c13["ci_high"], 3)) == (-0.540, -0.442)


def test_lilja_contrasts_standard_formula():
    """Default s_c = sqrt(MSE sum w^2 / n_j): sqrt(k) wider than the slide's for equal n."""
    r = anova(lilja_table())
    std = row(r.contrasts([1, -1, 0]))
    slide = row(r.contrasts([1, -1, 0], method="lilja"))
    assert std["s_c"] == pytest.approx(slide["s_c"] * np.sqrt(3), rel=1e-13)
    assert std["s_c"] == pytest.approx(np.sqrt(row(r)["mse"] * 2 / 5), rel=1e-13)
    # c / s_c is the pooled-variance t statistic of alternative 1 against 2
    t = std["contrast"] / std["s_c"]
    assert round(std["contrast"], 4) == -0.0294
    assert (round(std["ci_low"], 4), round(std["ci_high"], 4)) == (-0.1146, 0.0558)
    assert std["ci_low"] < 0 < std["ci_high"]
    assert abs(t) < st.t.ppf(0.95, 12)


# ---------------------------------------------------------------------------- contrasts


def test_contrast_intervals_match_ols_with_unequal_sizes():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    sizes = [4, 9, 6, 12]
    samples = [rng.normal(j, 1 + j / 3, size=m) for j, m in enumerate(sizes)]
    r = anova(long_table({"b": samples}, rng), by="benchmark")
    y = np.concatenate(samples)
    X = np.zeros((y.size, 4))
    X[np.arange(y.size), np.repeat(np.arange(4), sizes)] = 1.0  # cell-means model
    fit = sm.OLS(y, X).fit()
    for w in ([1, -1, 0, 0], [0.5, 0.5, -1, 0], [1, 1, -1, -1], [3, -1, -1, -1]):
        ref = fit.t_test(np.array(w, dtype=float))
        # the rows are shuffled, so name the alternatives (a sequence follows r.alternatives)
        got = row(r.contrasts({f"v{j}": wj for j, wj in enumerate(w)}, confidence=0.95))
        assert got["contrast"] == pytest.approx(float(ref.effect[0]), rel=1e-12)
        assert got["s_c"] == pytest.approx(float(np.ravel(ref.sd)[0]), rel=1e-12)
        low, high = ref.conf_int(alpha=0.05)[0]
        assert got["ci_low"] == pytest.approx(low, rel=1e-11)
        assert got["ci_high"] == pytest.approx(high, rel=1e-11)


def test_contrasts_per_group_and_missing_alternative():
    rng = np.random.default_rng(1)
    data = {"a": [rng.normal(0, 1, 5), rng.normal(1, 1, 5), rng.normal(2, 1, 5)],
            "b": [rng.normal(0, 1, 7), rng.normal(0, 1, 3)]}  # b lacks v2
    r = anova(long_table(data), by="benchmark")
    assert r.alternatives == ["v0", "v1", "v2"]
    c = r.contrasts({"v0": 1, "v2": -1}).groups.to_pydict()
    assert c["benchmark"] == ["a", "b"]
    assert c["status"] == ["ok", "no values for an alternative with a nonzero weight"]
    assert np.isnan(c["contrast"][1])
    c01 = r.contrasts([1, -1, 0]).groups.to_pydict()
    assert c01["status"] == ["ok", "ok"]
    means_b = [s.mean() for s in data["b"]]
    assert c01["contrast"][1] == pytest.approx(means_b[0] - means_b[1], rel=1e-12)


def test_contrast_weights_are_checked():
    r = anova(lilja_table())
    with pytest.raises(InputError, match="sum to zero"):
        r.contrasts([1, 1, 0])
    with pytest.raises(InputError, match="3 alternatives"):
        r.contrasts([1, -1])
    with pytest.raises(InputError, match="unknown alternative"):
        r.contrasts({"1": 1, "9": -1})
    with pytest.raises(InputError, match="all zero"):
        r.contrasts([0, 0, 0])
    with pytest.raises(InputError, match="confidence"):
        r.contrasts([1, -1, 0], confidence=1.5)
    with pytest.raises(InputError, match="method"):
        r.contrasts([1, -1, 0], method="jain")
    with pytest.raises(InputError, match="anova"):
        contrasts(r.groups, [1, -1, 0])


# ---------------------------------------------------------------------------- scipy


@pytest.mark.parametrize("k", [2, 3, 7, 40])
def test_table_matches_scipy_per_benchmark(k):
    rng = np.random.default_rng(k)
    data = {f"bench{i}": [rng.normal(rng.uniform(0, 2), rng.uniform(0.1, 3),
                                     size=rng.integers(2, 30)) for _ in range(k)]
            for i in range(25)}
    r = anova(long_table(data, rng), by="benchmark")
    g = r.groups.to_pydict()
    assert g["benchmark"] == sorted(g["benchmark"], key=lambda b: g["benchmark"].index(b))
    for i, name in enumerate(g["benchmark"]):
        ref = st.f_oneway(*data[name])
        assert g["f"][i] == pytest.approx(ref.statistic, rel=1e-12)
        assert g["pvalue"][i] == pytest.approx(ref.pvalue, rel=1e-12)
        all_values = np.concatenate(data[name])
        assert g["sst"][i] == pytest.approx(((all_values - all_values.mean()) ** 2).sum(),
                                            rel=1e-12)
        assert g["f_critical"][i] == pytest.approx(st.f.ppf(0.95, k - 1, all_values.size - k),
                                                   rel=1e-12)


def test_f_oneway_matches_scipy_unequal_sizes_and_batches():
    rng = np.random.default_rng(7)
    samples = [rng.normal(j * 0.1, 1, size=(3, 4, m)) for j, m in enumerate([5, 11, 2, 30])]
    for equal_var in (True, False):
        got = f_oneway(*samples, equal_var=equal_var)
        assert got.statistic.shape == (3, 4)
        for index in np.ndindex(3, 4):  # scipy's Welch path does not batch ragged samples
            ref = st.f_oneway(*(s[index] for s in samples), equal_var=equal_var)
            assert got.statistic[index] == pytest.approx(ref.statistic, rel=1e-12)
            assert got.pvalue[index] == pytest.approx(ref.pvalue, rel=1e-12)
        assert (got.status == "ok").all()
    # axis=0 and broadcasting of batch axes
    a, b = rng.normal(size=(6, 5)), rng.normal(size=(9, 1))
    stat, p = f_oneway(a, b, axis=0)
    ref = st.f_oneway(a, np.broadcast_to(b, (9, 5)), axis=0)
    np.testing.assert_allclose(stat, ref.statistic, rtol=1e-12)
    np.testing.assert_allclose(p, ref.pvalue, rtol=1e-12)


def test_f_oneway_many_groups(parallel_always):
    rng = np.random.default_rng(3)
    samples = [rng.normal(size=rng.integers(2, 20)) for _ in range(200)]
    got = f_oneway(*samples)
    ref = st.f_oneway(*samples)
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_f_oneway_scipy_known_values():
    assert tuple(f_oneway([0, 2], [2, 4])) == (2.0, pytest.approx(1 - 0.5 ** 0.5, rel=1e-14))
    stat, p = f_oneway([2], [2], [2, 3, 4])
    assert (stat, p) == (pytest.approx(3 / 5, rel=1e-14), pytest.approx(5 / 8, rel=1e-14))
    stat, p = f_oneway([42, 42, 42], [7, 7, 7])
    assert (stat, p) == (np.inf, 0.0)


# ---------------------------------------------------------------------------- Welch

# R: oneway.test(value ~ group, var.equal = FALSE), quoted in scipy's test_stats.py
# (TestFOneWay.test_unequal_var)
WELCH_SAMPLES = [[-50.42, 40.31, -18.09, 35.58, -6.8, 0.22], [23.44, 4.5, 15.1, 9.66],
                 [11.94, 11.1, 9.87, 9.09, 3.33]]
R_WELCH_F, R_WELCH_P = 0.609740409019517, 0.574838941286302


def test_welch_matches_r_oneway_test():
    stat, p = f_oneway(*WELCH_SAMPLES, equal_var=False)
    assert stat == pytest.approx(R_WELCH_F, rel=1e-13)
    assert p == pytest.approx(R_WELCH_P, rel=1e-13)
    r = anova(long_table({"x": WELCH_SAMPLES}), equal_var=False)
    g = row(r)
    assert g["f"] == pytest.approx(R_WELCH_F, rel=1e-13)
    assert g["pvalue"] == pytest.approx(R_WELCH_P, rel=1e-13)
    assert g["f_critical"] == pytest.approx(st.f.ppf(0.95, 2, g["df_welch"]), rel=1e-12)
    assert r.summary["function"] == "anova" and r.summary["equal_var"] is False
    classical = row(anova(long_table({"x": WELCH_SAMPLES})))
    assert g["ssa"] == classical["ssa"] and g["df_error"] == classical["df_error"] == 12


def test_welch_needs_variance():
    res = f_oneway([1.0, 1.0, 1.0], [2.0, 3.0], equal_var=False)
    assert np.isnan(res.statistic) and "zero variance" in str(res.status)


# ---------------------------------------------------------------------------- bad input


def test_one_level_factor_gives_a_status_row():
    t = pa.table({"benchmark": ["a"] * 4 + ["b"] * 6,
                  "variant": ["x"] * 4 + ["x", "y"] * 3,
                  "value": np.arange(10.0)})
    r = anova(t, by="benchmark")
    g = r.groups.to_pydict()
    assert g["benchmark"] == ["a", "b"]
    assert g["status"] == ["fewer than 2 alternatives with values", "ok"]
    assert g["k"] == [1, 2]
    assert np.isnan(g["f"][0]) and np.isnan(g["pvalue"][0]) and np.isnan(g["f_critical"][0])
    assert r.summary["rows_not_ok"] == 1 and r.warnings


def test_nan_values_are_dropped_and_counted():
    values = LILJA.ravel().copy()
    values[[0, 4]] = np.nan
    t = pa.table({"variant": np.tile(["1", "2", "3"], 5), "value": values})
    r = anova(t)
    g = row(r)
    assert (g["n"], g["n_dropped"]) == (13, 2)
    kept = [LILJA[:, j][~np.isnan(values.reshape(5, 3)[:, j])] for j in range(3)]
    assert g["f"] == pytest.approx(st.f_oneway(*kept).statistic, rel=1e-12)
    assert r.effects.column("n_dropped").to_pylist() == [1, 1, 0]
    assert any("dropped" in w for w in r.warnings)


def test_missing_columns_and_bad_arguments():
    with pytest.raises(InputError, match="'variant' not found"):
        anova(pa.table({"value": [1.0, 2.0]}))
    with pytest.raises(InputError, match="'time' not found"):
        anova(lilja_table(), value="time")
    with pytest.raises(InputError, match="'benchmark' not found"):
        anova(lilja_table(), by="benchmark")
    with pytest.raises(InputError, match="alpha"):
        anova(lilja_table(), alpha=0)
    with pytest.raises(InputError, match="both"):
        anova(lilja_table(), by="variant")
    with pytest.raises(InputError, match="at least 2"):
        f_oneway([1.0, 2.0])


def test_f_oneway_bad_samples_in_a_batch_get_a_status():
    a = np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0], [5.0, 5.0, 5.0], [1.0, 2.0, 4.0]])
    b = np.array([[2.0, 3.0, 5.0], [2.0, 3.0, 5.0], [5.0, 5.0, 5.0], [9.0, 9.0, 9.0]])
    res = f_oneway(a, b)
    assert list(res.status) == ["ok", "NaN in input", "all values equal", "ok"]
    assert np.isnan(res.statistic[1]) and np.isnan(res.statistic[2])
    ref = st.f_oneway(a[[0, 3]], b[[0, 3]], axis=-1)
    np.testing.assert_allclose(res.statistic[[0, 3]], ref.statistic, rtol=1e-12)
    res = f_oneway(np.ones((2, 0)), np.ones((2, 3)))
    assert list(res.status) == ["an empty sample"] * 2
    res = f_oneway([1.0], [2.0])
    assert str(res.status).startswith("no error degrees of freedom") and np.isnan(res.pvalue)


def test_renderings():
    r = anova(lilja_table())
    assert "ssa" in r.to_markdown() and '"groups"' in r.to_json()
    assert r.summary["groups_significant"] == 1


# ---------------------------------------------------------------------------- large offsets
# Values large against their spread (timings of 1e9 ns that differ by tens): the sums of
# squares, F, Welch's F and the effects against exact rational arithmetic on the same floats.

OFFSETS = [0.0, 1e6, 1e9, 1e12, 1e16]


def offset_samples(offset, seed=5):
    """Four samples (sizes 3 to 12, sd 50, means 0-90 apart) around `offset`; their means are
    not floats."""
    rng = np.random.default_rng(seed)
    return [offset + np.round(rng.normal(30.0 * j, 50.0, size), 3)
            for j, size in enumerate([7, 3, 12, 5])]


def exact_one_way(samples):
    """SSA, SSE, F, Welch's F and the effects m_j - m, in Fractions of the given floats."""
    from fractions import Fraction

    values = [[Fraction(float(v)) for v in s] for s in samples]
    n = [len(s) for s in values]
    big_n, k = sum(n), len(values)
    means = [sum(s) / len(s) for s in values]
    grand = sum(nj * m for nj, m in zip(n, means)) / big_n
    ssa = sum(nj * (m - grand) ** 2 for nj, m in zip(n, means))
    var = [sum((v - m) ** 2 for v in s) / (len(s) - 1) for s, m in zip(values, means)]
    sse = sum((nj - 1) * v for nj, v in zip(n, var))
    w = [nj / v for nj, v in zip(n, var)]
    welch_mean = sum(wj * m for wj, m in zip(w, means)) / sum(w)
    a = sum(wj * (m - welch_mean) ** 2 for wj, m in zip(w, means)) / (k - 1)
    lam = sum((1 - wj / sum(w)) ** 2 / (nj - 1) for wj, nj in zip(w, n))
    welch_f = a / (1 + Fraction(2 * (k - 2), k * k - 1) * lam)
    return {"ssa": ssa, "sse": sse, "f": (ssa / (k - 1)) / (sse / (big_n - k)),
            "welch_f": welch_f, "effects": [m - grand for m in means]}


def test_exact_at_large_offsets_tester_example():
    a, b = [1e16, 1e16 + 2, 1e16 + 4], [1e16 + 2, 1e16 + 4, 1e16 + 6]
    assert f_oneway(a, b).statistic == 1.5  # SSA = 6, SSE = 16 (was 3.0: SSA 12)
    assert f_oneway(a, b, equal_var=False).statistic == 1.5  # Welch's F = t^2 for k = 2
    r = anova(long_table({"x": [a, b]}))
    assert (row(r)["ssa"], row(r)["sse"], row(r)["f"]) == (6.0, 16.0, 1.5)
    assert r.effects.column("effect").to_pylist() == [-1.0, 1.0]


@pytest.mark.parametrize("offset", OFFSETS)
def test_f_oneway_exact_at_large_offsets(offset):
    samples = offset_samples(offset)
    exact = exact_one_way(samples)
    assert f_oneway(*samples).statistic == pytest.approx(float(exact["f"]), rel=1e-12)
    assert f_oneway(*samples, equal_var=False).statistic == pytest.approx(
        float(exact["welch_f"]), rel=1e-12)
    # scipy centres the values on their mean before its sums (its Welch path does not)
    assert f_oneway(*samples).statistic == pytest.approx(st.f_oneway(*samples).statistic,
                                                         rel=1e-12)
    # batched: one test per offset, each row its own samples
    batch = [np.stack([s + shift for shift in (0.0, offset)]) for s in offset_samples(0.0)]
    got = f_oneway(*batch).statistic
    np.testing.assert_allclose(got, [float(exact_one_way([b[i] for b in batch])["f"])
                                     for i in range(2)], rtol=1e-12)


def test_welch_exact_with_extreme_weights():
    # weights n / s^2 from 2**-48 to 2**58: the centre is the middle sample's mean, -2**-29,
    # not the means' range (2**24) that a reference mean would round the deviations at
    samples = [[0.0, 2.0 ** 25], [0.0, -(2.0 ** -28)], [0.0, 1.0]]
    exact = exact_one_way(samples)
    assert f_oneway(*samples, equal_var=False).statistic == pytest.approx(
        float(exact["welch_f"]), rel=1e-12)
    assert f_oneway(*samples).statistic == pytest.approx(float(exact["f"]), rel=1e-12)


@pytest.mark.parametrize("equal_var", [True, False])
def test_anova_exact_at_large_offsets(equal_var):
    data = {f"b{i}": offset_samples(offset, seed=i) for i, offset in enumerate(OFFSETS)}
    r = anova(long_table(data, np.random.default_rng(1)), by="benchmark", equal_var=equal_var)
    g = r.groups.to_pydict()
    effects = r.effects.to_pydict()
    for i, name in enumerate(g["benchmark"]):
        exact = exact_one_way(data[name])
        assert g["ssa"][i] == pytest.approx(float(exact["ssa"]), rel=1e-12)
        assert g["sse"][i] == pytest.approx(float(exact["sse"]), rel=1e-12)
        assert g["f"][i] == pytest.approx(float(exact["f" if equal_var else "welch_f"]),
                                          rel=1e-12)
        got = {v: e for b, v, e in zip(effects["benchmark"], effects["variant"],
                                       effects["effect"]) if b == name}
        want = [float(e) for e in exact["effects"]]
        np.testing.assert_allclose([got[f"v{j}"] for j in range(4)], want, rtol=0,
                                   atol=1e-12 * max(map(abs, want)))
    # a contrast is a difference of effects: exact as well
    c = contrasts(r, {"v0": 1, "v3": -1}).groups.to_pydict()
    for i, name in enumerate(c["benchmark"]):
        exact = exact_one_way(data[name])["effects"]
        assert c["contrast"][i] == pytest.approx(float(exact[0] - exact[3]), rel=1e-12)


def test_a_group_without_values_has_no_degrees_of_freedom():
    """A benchmark whose values are all null showed df_alternatives and df_total of -1 (k - 1
    and n - 1 with k = n = 0); they are null, as the group has none."""
    table = pa.table({"benchmark": ["a"] * 4 + ["b"] * 4, "variant": ["x", "x", "y", "y"] * 2,
                      "value": [1.0, 2.0, 3.0, 4.0, None, None, None, None]})
    rows = anova(table, by="benchmark").table.to_pylist()
    assert (rows[0]["df_alternatives"], rows[0]["df_total"]) == (1, 3)
    assert (rows[1]["df_alternatives"], rows[1]["df_total"]) == (None, None)


def test_the_value_as_factor_is_named_as_the_factor():
    table = pa.table({"variant": ["x", "y"], "value": [1.0, 2.0]})
    with pytest.raises(InputError, match="'value' cannot be both the value and the factor"):
        anova(table, factor="value")
