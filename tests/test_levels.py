"""The levels model (fastperf.data.levels): structures, unit means and variance components,
against statsmodels' REML fit, the textbook ANOVA estimators written out here, and pandas."""
from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest

import fastperf
from naive import one_way_anova
from fastperf.data.levels import (Structure, check_structure_arguments, collapse_levels,
                                  resolve_structure, variance_components)


def nested_table(rng, benchmarks=3, processes=6, iterations=4, sd_process=0.1, sd_iter=0.05,
                 variants=("old", "new"), unbalanced=False):
    rows = {"benchmark": [], "variant": [], "process": [], "iteration": [], "value": []}
    for b in range(benchmarks):
        for v in variants:
            for p in range(processes):
                effect = rng.normal(0, sd_process)
                count = iterations + (int(rng.integers(0, 4)) if unbalanced else 0)
                for i in range(count):
                    rows["benchmark"].append(f"b{b}")
                    rows["variant"].append(v)
                    rows["process"].append(p)
                    rows["iteration"].append(i)
                    rows["value"].append(float(np.exp(1.0 + effect + rng.normal(0, sd_iter))))
    return pa.table(rows)


def test_structure_defaults_and_overrides():
    names = ["benchmark", "variant", "process", "iteration", "value", "round"]
    assert resolve_structure(names) == Structure(("process",), "round")
    assert resolve_structure(names, levels=[]) == Structure((), None)
    assert resolve_structure(names, levels="none").flat
    assert resolve_structure(names, block="none") == Structure(("process",), None)
    assert resolve_structure(names, levels=["process", "iteration"], block="none").label() == \
        "process"
    assert resolve_structure(["value", "build", "process"]).label() == "build > process"
    assert resolve_structure(["value", "fork"], levels="fork").unit == "fork"
    assert resolve_structure(["value"]).flat
    # two files of interleaved variants: invocation k of each ran in round k
    assert resolve_structure(["value", "process"], block="process") == Structure((), "process")
    assert Structure((), "process").label() == "process as rounds"
    assert Structure(("process",), "round").label() == "round, process"


@pytest.mark.parametrize("levels, block, message", [
    (3, None, "levels must be"), (["process", "process"], None, "twice"),
    (["iteration", "process"], None, "only last"), (None, 5, "block must be"),
])
def test_structure_argument_errors(levels, block, message):
    with pytest.raises(fastperf.InputError, match=message):
        check_structure_arguments(levels, block)


def test_missing_level_column_is_named():
    with pytest.raises(fastperf.InputError, match="levels names column 'fork'"):
        resolve_structure(["value", "process"], levels=["fork"])
    with pytest.raises(fastperf.InputError, match="block names column 'pair'"):
        resolve_structure(["value"], block="pair")
    with pytest.raises(fastperf.InputError, match="both a level"):
        resolve_structure(["value", "process"], levels=["process"], taken=["process"])


def test_components_equal_statsmodels_reml_on_balanced_data():
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(7)
    table = nested_table(rng, benchmarks=2, processes=8, iterations=4)
    structure = resolve_structure(table.column_names)
    comp = variance_components(table, ["benchmark"], "variant", "value", structure).to_pylist()
    frame = table.to_pandas()
    frame["y"] = np.log(frame["value"])
    fitted = []
    for (_, _), group in frame.groupby(["benchmark", "variant"], sort=False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = smf.mixedlm("y ~ 1", group, groups=group["process"]).fit(
                reml=True, method="bfgs", gtol=1e-12)  # converged to 1e-15
        fitted.append((float(model.cov_re.iloc[0, 0]), float(model.scale)))
    assert len(comp) == len(fitted) == 4
    for row, (between, within) in zip(comp, fitted):
        assert between > 0  # inside the parameter space, where ANOVA = REML on balanced data
        assert row["sigma2_process"] == pytest.approx(between, rel=0, abs=1e-8)
        assert row["sigma2_iteration"] == pytest.approx(within, rel=0, abs=1e-8)
        assert row["icc"] == pytest.approx(between / (between + within), rel=0, abs=1e-8)
        assert row["scale"] == "log"
        assert row["n_units"] == 8 and row["n_values"] == 32
        # balanced: design effect 1 + (m - 1) icc, effective n = N / deff
        assert row["design_effect"] == pytest.approx(1 + 3 * row["icc"], rel=1e-12)
        assert row["n_effective"] == pytest.approx(32 / row["design_effect"], rel=1e-12)


def test_components_equal_textbook_anova_on_unbalanced_data():
    rng = np.random.default_rng(11)
    table = nested_table(rng, benchmarks=2, processes=5, iterations=2, unbalanced=True)
    comp = variance_components(table, ["benchmark"], "variant", "value",
                               resolve_structure(table.column_names)).to_pylist()
    frame = table.to_pandas()
    i = 0
    for (_, _), group in frame.groupby(["benchmark", "variant"], sort=False):
        logs = [np.log(g["value"].to_numpy()) for _, g in group.groupby("process")]
        between, within = one_way_anova(logs)
        n = np.array([len(g) for g in logs], dtype=float)
        icc = between / (between + within)
        assert comp[i]["sigma2_process"] == pytest.approx(between, rel=1e-10, abs=1e-14)
        assert comp[i]["sigma2_iteration"] == pytest.approx(within, rel=1e-10)
        kish = 1 + ((n ** 2).sum() / n.sum() - 1) * icc
        assert comp[i]["design_effect"] == pytest.approx(kish, rel=1e-10)
        i += 1


def test_two_level_components_on_balanced_data():
    """Balanced builds > processes > values: the textbook nested ANOVA (Sokal & Rohlf)."""
    rng = np.random.default_rng(3)
    a, b, n = 4, 3, 5
    values = np.exp(1 + rng.normal(0, 0.2, (a, 1, 1)) + rng.normal(0, 0.1, (a, b, 1))
                    + rng.normal(0, 0.05, (a, b, n)))
    table = pa.table({
        "benchmark": ["x"] * values.size, "variant": ["v"] * values.size,
        "build": np.repeat(np.arange(a), b * n), "process": np.tile(np.repeat(np.arange(b), n), a),
        "value": values.ravel()})
    comp = variance_components(table, ["benchmark"], "variant", "value",
                               resolve_structure(table.column_names)).to_pylist()[0]
    y = np.log(values)
    mse = ((y - y.mean(axis=2, keepdims=True)) ** 2).sum() / (a * b * (n - 1))
    msb = n * ((y.mean(axis=2) - y.mean(axis=(1, 2))[:, None]) ** 2).sum() / (a * (b - 1))
    msa = b * n * ((y.mean(axis=(1, 2)) - y.mean()) ** 2).sum() / (a - 1)
    assert comp["sigma2_iteration"] == pytest.approx(mse, rel=1e-10)
    assert comp["sigma2_process"] == pytest.approx(max((msb - mse) / n, 0), rel=1e-10)
    assert comp["sigma2_build"] == pytest.approx(max((msa - msb) / (b * n), 0), rel=1e-10)
    assert comp["n_units"] == a


def test_two_levels_in_any_row_order_give_the_textbook_estimates():
    """Builds and processes written out of label order and interleaved: the estimates are
    the textbook nested ANOVA's, and a shuffled table's units are those of the sorted one."""
    rng = np.random.default_rng(4)
    a, b, n = 3, 2, 4
    values = np.exp(1 + rng.normal(0, 0.2, (a, 1, 1)) + rng.normal(0, 0.1, (a, b, 1))
                    + rng.normal(0, 0.05, (a, b, n)))
    build = np.repeat(np.arange(a), b * n)
    process = np.tile(np.repeat(np.arange(b), n), a)
    table = pa.table({"benchmark": ["x"] * values.size, "variant": ["v"] * values.size,
                      "build": build, "process": process, "value": values.ravel()})
    shuffled = table.take(pa.array(rng.permutation(values.size)))
    structure = resolve_structure(table.column_names)
    want = variance_components(table, ["benchmark"], "variant", "value", structure).to_pylist()[0]
    got = variance_components(shuffled, ["benchmark"], "variant", "value",
                              structure).to_pylist()[0]
    y = np.log(values)
    mse = ((y - y.mean(axis=2, keepdims=True)) ** 2).sum() / (a * b * (n - 1))
    msb = n * ((y.mean(axis=2) - y.mean(axis=(1, 2))[:, None]) ** 2).sum() / (a * (b - 1))
    msa = b * n * ((y.mean(axis=(1, 2)) - y.mean()) ** 2).sum() / (a - 1)
    for row in (want, got):
        assert row["sigma2_iteration"] == pytest.approx(mse, rel=1e-10)
        assert row["sigma2_process"] == pytest.approx(max((msb - mse) / n, 0), rel=1e-10)
        assert row["sigma2_build"] == pytest.approx(max((msa - msb) / (b * n), 0), rel=1e-10)
    units = collapse_levels(shuffled, ["benchmark"], "variant", "value", structure)
    means = dict(zip(units.column("build").to_pylist(), units.column("value").to_pylist()))
    for k in range(a):
        assert means[k] == pytest.approx(values[k].mean(), rel=1e-13)


def test_collapse_levels_gives_the_unit_means_pandas_gives():
    rng = np.random.default_rng(5)
    table = nested_table(rng, unbalanced=True)
    value = table.column("value").to_numpy().copy()
    value[[0, 3]] = np.nan
    table = table.set_column(4, "value", pa.array(value))
    units = collapse_levels(table, ["benchmark"], "variant", "value",
                            resolve_structure(table.column_names)).to_pandas()
    expected = (table.to_pandas().groupby(["benchmark", "variant", "process"], sort=False)
                ["value"].agg(["mean", "count"]).reset_index())
    got = units.astype({"benchmark": str, "variant": str, "process": int})
    merged = expected.merge(got, on=["benchmark", "variant", "process"])
    assert len(merged) == len(expected) == len(got)
    np.testing.assert_allclose(merged["value"], merged["mean"], rtol=1e-13)
    assert (merged["n_values"] == merged["count"]).all()


def test_flat_structure_returns_the_table():
    table = pa.table({"value": [1.0, 2.0]})
    assert collapse_levels(table, [], None, "value", Structure()) is table


def test_units_keep_their_order_of_appearance_within_a_group():
    """A chunk holding one benchmark orders its units as the whole table does: by where they
    first appear among the group's rows, not by where their label first appears in the table,
    so sums over units (and every result) are the same bit for bit."""
    rng = np.random.default_rng(12)
    values = np.exp(rng.normal(0, 0.1, 12))
    table = pa.table({"benchmark": ["a"] * 6 + ["b"] * 6, "variant": ["v"] * 12,
                      "process": [3, 3, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3], "value": values})
    structure = resolve_structure(table.column_names)
    whole = collapse_levels(table, ["benchmark"], "variant", "value", structure)
    alone = collapse_levels(table.slice(6), ["benchmark"], "variant", "value", structure)
    b = whole.filter(pa.compute.equal(whole.column("benchmark").cast(pa.string()), "b"))
    assert b.column("process").to_pylist() == [1, 2, 3] == alone.column("process").to_pylist()
    np.testing.assert_array_equal(b.column("value").to_numpy(), alone.column("value").to_numpy())
    np.testing.assert_allclose(b.column("value").to_numpy(),
                               values[6:].reshape(3, 2).mean(axis=1), rtol=1e-15)
    both = variance_components(table, ["benchmark"], "variant", "value", structure)
    one = variance_components(table.slice(6), ["benchmark"], "variant", "value", structure)
    assert both.column("icc")[1].as_py() == one.column("icc")[0].as_py()


@pytest.mark.parametrize("ids", [[0, 0, None, None, 1, 1, None, None],
                                 [0.0, 0.0, np.nan, np.nan, 1.0, 1.0, 2.0, 2.0]])
def test_unknown_ids_among_known_ones_are_refused(ids):
    """Values whose process is null or NaN, in a group whose other values have processes,
    were one process of their own: two real processes pooled, n_units 3 and no word. They are
    refused naming the column, in every function that forms units; a group with no process
    ids at all (the rows of a file that records none) stays one unit, the flat analysis."""
    values = [1.00, 1.01, 1.10, 1.11, 0.90, 0.91, 1.05, 1.04]
    table = pa.table({"benchmark": ["x"] * 8, "variant": ["a"] * 8,
                      "process": pa.array(ids), "value": values})
    for call in (lambda t: fastperf.describe(t), lambda t: fastperf.check(t)):
        with pytest.raises(fastperf.InputError, match="column .process. leaves the process of some values unknown"):
            call(table)
    both = pa.concat_tables([table, table.set_column(1, "variant", pa.array(["b"] * 8))])
    with pytest.raises(fastperf.InputError, match="column 'process'"):
        fastperf.compare(both, baseline="a", candidate="b")
    unknown = table.set_column(2, "process", pa.nulls(8, table.column("process").type))
    row = fastperf.describe(unknown).table.to_pylist()[0]
    assert (row["n"], row["n_units"]) == (8, 1)


def test_ids_unknown_at_one_level_only_are_not_mixed():
    """Builds all unknown and processes known (or the reverse) is no mix of known and unknown
    ids in one column: accepted as before (the check counted another level's units)."""
    rows = {"benchmark": ["a"] * 18, "variant": ["v"] * 18, "build": [None] * 18,
            "process": list(np.repeat(np.arange(6), 3)),
            "value": list(1.0 + np.arange(18) * 0.001)}
    table = pa.table(rows)
    assert fastperf.describe(table, levels=["build", "process"]).table.column(
        "n").to_pylist() == [18]
    builds = table.set_column(2, "build", pa.array(np.arange(18) % 4)).set_column(
        3, "process", pa.nulls(18, pa.int64()))
    assert fastperf.describe(builds, levels=["build", "process"]).table.column(
        "n_units").to_pylist() == [4]
