"""2^k r factorial and 2^(k-p) fractional designs: seed 001 (Feitelson) and properties."""
from __future__ import annotations


import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

import fastperf
from fastperf.errors import InputError
from fastperf.designs.factorial import NO_REPLICATIONS, factorial
from fastperf.designs.fractional import LETTERS, fractional_design


def _mask(word: str) -> int:
    word = word.lstrip("-")
    return 0 if word == "I" else sum(1 << LETTERS.index(c) for c in word)


def _full_table(k: int, r: int, rng, effects=None, groups=1):
    """Long table of a 2^k r design (factor columns f0.. with levels 'lo'/'hi'), rows shuffled."""
    rows = {"g": [], **{f"f{j}": [] for j in range(k)}, "value": []}
    for g in range(groups):
        for cell in range(1 << k):
            for _ in range(r):
                rows["g"].append(f"g{g}")
                for j in range(k):
                    rows[f"f{j}"].append(10 * (cell >> j & 1) + 1)
                rows["value"].append(float(rng.normal(50 + cell, 3)))
    order = rng.permutation(len(rows["value"]))
    return pa.table({name: pa.array(np.asarray(col)[order]) for name, col in rows.items()})


def _model_matrix(x: np.ndarray, masks) -> np.ndarray:
    """Columns prod_{j in mask} x_j for -1/+1 levels x (rows x k)."""
    return np.stack([np.prod(x[:, [j for j in range(x.shape[1]) if m >> j & 1]], axis=1)
                     for m in masks], axis=1)


# --- seed 001: Feitelson's 2^2 example -------------------------------------------------------

FEITELSON = pa.table({
    "memory": ["256MB", "1GB", "256MB", "1GB"],
    "cache": ["16KB", "16KB", "32KB", "32KB"],
    "value": [15.0, 45.0, 25.0, 75.0],
})


def test_feitelson_2x2_effects_and_allocation():
    res = factorial(FEITELSON, factors=["memory", "cache"], levels={"memory": ("256MB", "1GB")})
    eff = res.effects.to_pydict()
    assert eff["effect"] == ["I", "A", "B", "AB"]
    assert eff["term"] == ["mean", "memory", "cache", "memory*cache"]
    np.testing.assert_allclose(eff["q"], [40, 20, 10, 5])
    np.testing.assert_allclose(eff["ss"][1:], [1600, 400, 100])
    assert np.isnan(eff["ss"][0])
    assert [round(100 * s) for s in eff["share"][1:]] == [76, 19, 5]
    g = res.groups.to_pylist()[0]
    assert g["sst"] == pytest.approx(2100) and g["sse"] == 0 and g["r"] == 1
    # r = 1: effects and shares hold, but no error estimate: a status says why s_e is NaN
    assert g["status"] == NO_REPLICATIONS and g["design"] == "2^2"
    assert np.isnan(g["s_e"]) and g["df_error"] == 0
    assert res.sign_table.to_pydict() == {
        "I": [1, 1, 1, 1], "A": [-1, 1, -1, 1], "B": [-1, -1, 1, 1], "AB": [1, -1, -1, 1]}
    assert np.isnan(eff["ci_low"]).all()  # r = 1: no error estimate
    assert any("r = 1" in w for w in res.warnings)


def test_level_order_is_sorted_by_default():
    # sorted strings put '1GB' before '256MB': memory's effect flips sign
    res = factorial(FEITELSON, factors=["memory", "cache"])
    np.testing.assert_allclose(res.effects.column("q").to_numpy(), [40, -20, 10, -5])
    assert res.summary["levels"]["memory"] == {"low": "1GB", "high": "256MB"}
    numeric = FEITELSON.set_column(0, "memory", pa.array([256, 1024, 256, 1024]))
    res = factorial(numeric, factors=["memory", "cache"])  # numbers sort numerically
    np.testing.assert_allclose(res.effects.column("q").to_numpy(), [40, 20, 10, 5])
    encoded = numeric.set_column(1, "cache", numeric.column("cache").dictionary_encode())
    res = factorial(encoded, factors=["memory", "cache"])
    np.testing.assert_allclose(res.effects.column("q").to_numpy(), [40, 20, 10, 5])


def test_2kr_confidence_intervals_seed_formula():
    # 2^2 r = 3: q +/- t[1 - a/2; 4 (r - 1)] s_e / sqrt(4 r), s_e^2 = SSE / (4 (r - 1))
    y = {(0, 0): [15, 18, 12], (1, 0): [45, 48, 51], (0, 1): [25, 28, 19], (1, 1): [75, 75, 81]}
    rows = [(a, b, v) for (a, b), vs in y.items() for v in vs]
    t = pa.table({"A": [r[0] for r in rows], "B": [r[1] for r in rows],
                  "value": [float(r[2]) for r in rows]})
    res = factorial(t, factors=["A", "B"], confidence=0.90)
    means = {c: np.mean(v) for c, v in y.items()}
    sse = sum(((np.array(v) - means[c]) ** 2).sum() for c, v in y.items())
    s_e = np.sqrt(sse / (4 * 2))
    s_q = s_e / np.sqrt(12)
    q = np.array([
        sum(means.values()) / 4,
        (-means[0, 0] + means[1, 0] - means[0, 1] + means[1, 1]) / 4,
        (-means[0, 0] - means[1, 0] + means[0, 1] + means[1, 1]) / 4,
        (means[0, 0] - means[1, 0] - means[0, 1] + means[1, 1]) / 4,
    ])
    tq = stats.t.ppf(0.95, 8)
    eff = res.effects.to_pydict()
    np.testing.assert_allclose(eff["q"], q, rtol=1e-12)
    np.testing.assert_allclose(eff["s_q"], s_q, rtol=1e-12)
    np.testing.assert_allclose(eff["ci_low"], q - tq * s_q, rtol=1e-12)
    np.testing.assert_allclose(eff["ci_high"], q + tq * s_q, rtol=1e-12)
    g = res.groups.to_pylist()[0]
    assert g["r"] == 3 and g["df_error"] == 8 and g["n"] == 12
    assert g["sse"] == pytest.approx(sse)
    allv = np.array([r[2] for r in rows], float)
    assert g["sst"] == pytest.approx(((allv - allv.mean()) ** 2).sum())
    assert g["share_error"] == pytest.approx(sse / g["sst"])


# --- seed 001: fractional designs -------------------------------------------------------------

def test_seed_2_4_1_design_d_abc():
    d = fractional_design(4, 1)
    assert d.generators == {"D": "ABC"}
    assert d.defining_relation == ["ABCD"] and d.resolution == 4
    # the seed's sign table (rows in standard order, A alternating fastest)
    seed = [[-1, -1, -1, -1], [1, -1, -1, 1], [-1, 1, -1, 1], [1, 1, -1, -1],
            [-1, -1, 1, 1], [1, -1, 1, -1], [-1, 1, 1, -1], [1, 1, 1, 1]]
    assert [list(r.values()) for r in d.table.to_pylist()] == seed
    assert d.table.column_names == ["A", "B", "C", "D"]
    aliases = dict(zip(*d.aliases.to_pydict().values()))
    assert aliases == {"I": "ABCD", "A": "BCD", "B": "ACD", "C": "ABD", "D": "ABC",
                       "AB": "CD", "AC": "BD", "BC": "AD"}


def test_seed_2_4_1_design_d_ab_confounding():
    d = fractional_design(4, 1, generators={"D": "AB"})
    # the seed's table header: I A B C D AC BC ABC over ABD BD AD ABCD AB BCD ACD CD
    got = dict(zip(*d.aliases.to_pydict().values()))
    assert got == {"I": "ABD", "A": "BD", "B": "AD", "C": "ABCD", "D": "AB",
                   "AC": "BCD", "BC": "ACD", "ABC": "CD"}
    assert d.resolution == 3
    assert d.table.column("D").to_pylist() == [1, -1, -1, 1, 1, -1, -1, 1]
    assert fractional_design(4, 1, generators=["D=AB"]).generators == {"D": "AB"}
    assert fractional_design(4, 1, generators=["AB"]).generators == {"D": "AB"}


def test_seed_2_7_4_design():
    d = fractional_design(7, 4)
    assert d.generators == {"D": "AB", "E": "AC", "F": "BC", "G": "ABC"}
    assert d.resolution == 3 and d.table.num_rows == 8
    rows = d.aliases.to_pylist()
    assert len(rows) == 8
    # each column represents the combined effect of 16 effects
    assert all(len(r["aliases"].split(", ")) == 15 for r in rows)
    g = next(r for r in rows if r["effect"] == "G")
    assert "ABC" in g["aliases"].split(", ")  # the ABC column now also plays G
    explicit = fractional_design(7, 4, generators={"D": "AB", "E": "AC", "F": "BC", "G": "ABC"})
    assert explicit.table.equals(d.table)


@pytest.mark.parametrize("k,p,resolution", [
    (3, 1, 3), (4, 1, 4), (5, 1, 5), (5, 2, 3), (6, 2, 4), (6, 3, 3), (7, 3, 4), (7, 4, 3),
    (8, 4, 4), (9, 4, 4), (10, 3, 5), (4, 0, None),
])
def test_fractional_design_properties(k, p, resolution):
    d = fractional_design(k, p)
    assert d.resolution == resolution
    words = [_mask(w) for w in d.defining_relation]
    assert len(words) == (1 << p) - 1
    if words:
        assert min(bin(w).count("1") for w in words) == d.resolution
        assert all(bin(w).count("1") >= d.resolution for w in words)
    group = set(words) | {0}
    # aliases: each set is one coset of the defining subgroup; together they cover all words
    seen = set()
    for row in d.aliases.to_pylist():
        e = _mask(row["effect"])
        others = [_mask(a) for a in row["aliases"].split(", ")] if row["aliases"] else []
        assert {e ^ a for a in others} | {0} == group
        seen |= {e, *others}
    assert seen == set(range(1 << k))
    # the design: 2^(k-p) distinct runs, every defining word's product column is +1
    x = np.column_stack([d.table.column(c).to_numpy() for c in d.table.column_names])
    assert x.shape == (1 << (k - p), k)
    assert len({tuple(r) for r in x}) == x.shape[0]
    for w in words:
        assert (_model_matrix(x, [w])[:, 0] == 1).all()
    for letter, word in d.generators.items():
        assert (x[:, LETTERS.index(letter)] == _model_matrix(x, [_mask(word)])[:, 0]).all()


def test_fractional_design_bad_input():
    with pytest.raises(InputError, match="one generator"):
        fractional_design(4, 1, generators={"E": "ABC"})
    with pytest.raises(InputError, match="base factors"):
        fractional_design(4, 1, generators={"D": "ABD"})
    with pytest.raises(InputError, match="p must be"):
        fractional_design(3, 3)
    with pytest.raises(InputError, match="interaction columns"):
        fractional_design(5, 3)
    assert fractional_design(4, 1, generators=["D=-ABC"]).defining_relation == ["-ABCD"]


# --- factorial on fractional data -------------------------------------------------------------

def _fraction_table(design, factors, rng, r=1):
    x = np.column_stack([design.table.column(c).to_numpy() for c in design.table.column_names])
    x = np.repeat(x, r, axis=0)
    cols = {f: np.where(x[:, j] > 0, "hi", "lo") for j, f in enumerate(factors)}
    y = 100 + x @ np.arange(1, x.shape[1] + 1) + rng.normal(0, 1, x.shape[0])
    return pa.table({**cols, "value": y}), x, y


@pytest.mark.parametrize("k,p,r", [(4, 1, 1), (4, 1, 2), (7, 4, 1), (5, 2, 3)])
def test_factorial_on_a_fractional_design(k, p, r):
    rng = np.random.default_rng(k * 10 + p)
    design = fractional_design(k, p)
    factors = [f"x{j}" for j in range(k)]
    t, x, y = _fraction_table(design, factors, rng, r)
    levels = {f: ("lo", "hi") for f in factors}
    given_design = factorial(t, factors=factors, design=design, levels=levels)
    detected = factorial(t, factors=factors, levels=levels)
    assert detected.design.generators == design.generators
    for name in given_design.effects.column_names:
        np.testing.assert_array_equal(given_design.effects.column(name).to_numpy(False),
                                      detected.effects.column(name).to_numpy(False))
    eff = detected.effects.to_pydict()
    assert eff["effect"] == design.aliases.column("effect").to_pylist()
    assert eff["aliases"] == design.aliases.column("aliases").to_pylist()
    # effects = least squares on the representative columns
    masks = [_mask(e) for e in eff["effect"]]
    coef = np.linalg.lstsq(_model_matrix(x, masks), y, rcond=None)[0]
    np.testing.assert_allclose(eff["q"], coef, atol=1e-9)
    g = detected.groups.to_pylist()[0]
    assert g["design"] == f"2^({k}-{p})" and g["runs"] == 1 << (k - p) and g["r"] == r
    assert np.nansum(eff["ss"]) + g["sse"] == pytest.approx(((y - y.mean()) ** 2).sum())
    assert detected.summary["resolution"] == design.resolution


def test_detects_the_negative_half_fraction():
    design = fractional_design(4, 1, generators=["D=-ABC"])
    t, _, _ = _fraction_table(design, list("wxyz"), np.random.default_rng(1))
    res = factorial(t, factors=list("wxyz"), levels={f: ("lo", "hi") for f in "wxyz"})
    assert res.design.generators == {"D": "-ABC"}
    aliases = dict(zip(res.effects.column("effect").to_pylist(),
                       res.effects.column("aliases").to_pylist()))
    assert aliases["A"] == "-BCD" and aliases["I"] == "-ABCD"


def test_design_mismatch_is_an_error():
    design = fractional_design(4, 1)
    t, _, _ = _fraction_table(fractional_design(4, 1, generators=["D=-ABC"]), list("wxyz"),
                              np.random.default_rng(2))
    with pytest.raises(InputError, match="not a run"):
        factorial(t, factors=list("wxyz"), design=design)
    with pytest.raises(InputError, match="4 factors but factors= names 3"):
        factorial(t, factors=list("wxy"), design=design)


# --- properties against independent computations ----------------------------------------------

def test_full_2_3_r3_against_least_squares():
    rng = np.random.default_rng(7)
    t = _full_table(3, 3, rng)
    res = factorial(t, factors=["f0", "f1", "f2"])
    x = np.column_stack([np.where(t.column(f"f{j}").to_numpy() > 1, 1.0, -1.0) for j in range(3)])
    masks = [_mask(e) for e in res.effects.column("effect").to_pylist()]
    y = t.column("value").to_numpy()
    coef, residual, *_ = np.linalg.lstsq(_model_matrix(x, masks), y, rcond=None)
    np.testing.assert_allclose(res.effects.column("q").to_numpy(), coef, rtol=1e-10, atol=1e-10)
    assert res.groups.column("sse")[0].as_py() == pytest.approx(residual[0])
    assert res.effects.column("effect").to_pylist() == ["I", "A", "B", "C", "AB", "AC", "BC", "ABC"]


def test_log_model_against_least_squares_on_logs():
    rng = np.random.default_rng(8)
    t = _full_table(3, 2, rng)
    res = factorial(t, factors=["f0", "f1", "f2"], log=True)
    x = np.column_stack([np.where(t.column(f"f{j}").to_numpy() > 1, 1.0, -1.0) for j in range(3)])
    masks = [_mask(e) for e in res.effects.column("effect").to_pylist()]
    coef = np.linalg.lstsq(_model_matrix(x, masks), np.log(t.column("value").to_numpy()),
                           rcond=None)[0]
    np.testing.assert_allclose(res.effects.column("q").to_numpy(), coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.effects.column("exp_q").to_numpy(), np.exp(coef), rtol=1e-10)
    bad = t.set_column(t.column_names.index("value"), "value", pa.array(np.zeros(t.num_rows)))
    with pytest.raises(InputError, match="positive"):
        factorial(bad, factors=["f0", "f1", "f2"], log=True)


@settings(max_examples=30, deadline=None)
@given(k=st.integers(1, 4), r=st.integers(1, 4), groups=st.integers(1, 3),
       seed=st.integers(0, 2**32 - 1))
def test_allocation_of_variation_adds_up(k, r, groups, seed):
    rng = np.random.default_rng(seed)
    t = _full_table(k, r, rng, groups=groups)
    res = factorial(t, factors=[f"f{j}" for j in range(k)], by="g")
    eff, grp = res.effects, res.groups
    assert grp.num_rows == groups and eff.num_rows == groups << k
    for i, g in enumerate(grp.column("g").to_pylist()):
        y = t.filter(pa.compute.equal(t.column("g"), g)).column("value").to_numpy()
        sst = ((y - y.mean()) ** 2).sum()
        ss = eff.column("ss").to_numpy()[i << k:(i + 1) << k]
        row = grp.to_pylist()[i]
        assert row["sst"] == pytest.approx(sst, rel=1e-9)
        assert np.nansum(ss) + row["sse"] == pytest.approx(sst, rel=1e-9)
        shares = eff.column("share").to_numpy()[i << k:(i + 1) << k]
        assert np.nansum(shares) + row["share_error"] == pytest.approx(1.0)


def test_batched_groups_equal_separate_calls():
    rng = np.random.default_rng(3)
    t = _full_table(3, 2, rng, groups=4)
    res = factorial(t, factors=["f0", "f1", "f2"], by="g")
    for g in ["g0", "g1", "g2", "g3"]:
        one = factorial(t.filter(pa.compute.equal(t.column("g"), g)), factors=["f0", "f1", "f2"])
        mine = res.effects.filter(pa.compute.equal(res.effects.column("g"), g))
        np.testing.assert_allclose(mine.column("q").to_numpy(),
                                   one.effects.column("q").to_numpy(), rtol=1e-12)
        np.testing.assert_allclose(mine.column("ci_low").to_numpy(),
                                   one.effects.column("ci_low").to_numpy(), rtol=1e-12)


# --- bad input --------------------------------------------------------------------------------

def test_one_level_factor_is_a_status():
    t = pa.table({"a": [1, 2, 1, 2], "b": ["x"] * 4, "g": ["u", "u", "v", "v"],
                  "value": [1.0, 2.0, 3.0, 4.0]})
    res = factorial(t, factors=["a", "b"], by="g")
    assert res.groups.num_rows == 2
    assert all("factor 'b' has one level" in s for s in res.groups.column("status").to_pylist())
    assert res.effects.num_rows == 0 and res.summary["rows_not_ok"] == 2


def test_three_levels_is_an_error_naming_them():
    t = pa.table({"a": [1, 2, 3, 1], "b": [0, 0, 1, 1], "value": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InputError, match=r"factor 'a' has 3 levels \[1, 2, 3\]"):
        factorial(t, factors=["a", "b"])


def test_a_factor_named_twice_is_an_error():
    """factors=["a", "a"] would fold "b" into the error term of a 2^1 design: refused."""
    t = pa.table({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1], "value": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InputError, match=r"factors \['a', 'a'\] name a column twice"):
        factorial(t, factors=["a", "a"])


def test_unbalanced_replications_is_an_error():
    t = pa.table({"a": [0, 1, 0, 1, 0], "b": [0, 0, 1, 1, 1], "value": [1.0, 2, 3, 4, 5]})
    with pytest.raises(InputError, match="unbalanced replications"):
        factorial(t, factors=["a", "b"])


def test_missing_cell_is_an_error_naming_it():
    t = pa.table({"mem": ["lo", "hi", "lo"], "cache": ["s", "s", "l"], "value": [1.0, 2, 3]})
    with pytest.raises(InputError, match=r"missing cell.*mem='lo', cache='s'|missing cell"):
        factorial(t, factors=["mem", "cache"])
    try:
        factorial(t, factors=["mem", "cache"])
    except InputError as exc:
        assert "mem='hi', cache='s'" in str(exc) or "mem='hi'" in str(exc)
    # a group lacking a cell the other groups have
    t = pa.table({"g": ["u"] * 4 + ["v"] * 3, "a": [0, 1, 0, 1, 0, 1, 0],
                  "b": [0, 0, 1, 1, 0, 0, 1], "value": [1.0, 2, 3, 4, 5, 6, 7]})
    with pytest.raises(InputError, match=r"missing cell.*g='v'.*a=1, b=1"):
        factorial(t, factors=["a", "b"], by="g")


def test_null_values_are_dropped_and_counted():
    t = pa.table({"a": [0, 1, 0, 1, 0, 1, 0, 1], "b": [0, 0, 1, 1, 0, 0, 1, 1],
                  "value": [1.0, 2, 3, 4, 1.5, 2.5, 3.5, None]})
    with pytest.raises(InputError, match="unbalanced"):
        factorial(t, factors=["a", "b"])
    t = t.set_column(2, "value", pa.array([1.0, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, ][:8]))
    t = pa.concat_tables([t, pa.table({"a": [0], "b": [0], "value": pa.array([None], pa.float64())})])
    res = factorial(t, factors=["a", "b"])
    assert res.groups.column("n_dropped")[0].as_py() == 1
    assert res.groups.column("r")[0].as_py() == 2


def test_argument_errors():
    with pytest.raises(InputError, match="not found"):
        factorial(FEITELSON, factors=["memory", "disk"])
    with pytest.raises(InputError, match="confidence"):
        factorial(FEITELSON, factors=["memory", "cache"], confidence=1.5)
    with pytest.raises(InputError, match="levels"):
        factorial(FEITELSON, factors=["memory", "cache"], levels={"memory": ("256MB", "2GB")})


def test_renderings():
    res = factorial(FEITELSON, factors=["memory", "cache"])
    assert "2100" in res.to_text() and res.to_json()
    assert repr(fractional_design(4, 1)).startswith("<FractionalDesign 2^(4-1)")


def test_factor_levels_nan_signed_zero_and_typed():
    """A NaN level is refused as a null one is (pc.equal never matches NaN: the rows fell to
    the low level and a bogus 2^(2-1) fraction was reported); -0.0 and 0.0 are one level (they
    were two distinct values, every row "high"); levels= of another type than the column is
    refused (True == 1 passed the check, then Arrow raised its own error)."""
    base = {"B": [0, 0, 1, 1], "value": [15.0, 45, 25, 75]}
    with pytest.raises(InputError, match="factor column 'A' holds 2 NaN"):
        fastperf.factorial(pa.table({"A": [np.nan, 1.0, np.nan, 1.0], **base}),
                           factors=["A", "B"])
    signed = fastperf.factorial(pa.table({"A": [-0.0, 0.0, -0.0, 0.0], **base}),
                                factors=["A", "B"])
    assert signed.table.column("status")[0].as_py().startswith("factor 'A' has one level")
    mixed = fastperf.factorial(pa.table({"A": [-0.0, 1.0, 0.0, 1.0], **base}), factors=["A", "B"])
    plain = fastperf.factorial(pa.table({"A": [0.0, 1.0, 0.0, 1.0], **base}), factors=["A", "B"])
    assert mixed.summary["design"] == "2^2"
    assert mixed.effects.column("q").to_pylist() == plain.effects.column("q").to_pylist()
    half = pa.array(np.array([0, 1, 0, 1], np.float16))  # Arrow neither adds nor sorts these
    assert fastperf.factorial(pa.table({"A": half, **base}), factors=["A", "B"]).summary[
        "design"] == "2^2"
    for column, levels in (([0, 1, 0, 1], (True, False)), ([False, True, False, True], (1, 0))):
        with pytest.raises(InputError, match="levels for factor 'A' must be its two values"):
            fastperf.factorial(pa.table({"A": column, **base}), factors=["A", "B"],
                               levels={"A": levels})


def test_a_generator_takes_one_sign():
    """"D=--ABC" was read as -ABC (every leading sign stripped, the first one kept); a word
    takes one sign, else it is refused as written."""
    with pytest.raises(InputError, match=r"generator D='--ABC' must be a product"):
        fractional_design(4, 1, generators=["D=--ABC"])
    assert fractional_design(4, 1, generators=["D=+ABC"]).generators == {"D": "ABC"}
    assert fractional_design(4, 1, generators=["D=-ABC"]).generators == {"D": "-ABC"}


def test_numpy_bool_levels_are_bools():
    table = pa.table({"A": [False, True, False, True], "B": [0, 0, 1, 1], "value": [15.0, 45, 25, 75]})
    got = fastperf.factorial(table, factors=["A", "B"], levels={"A": [np.False_, np.True_]})
    assert got.summary["design"] == "2^2"
