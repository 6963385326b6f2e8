"""Inference at the level of the independent units (issue 40) in every function but `compare`:
the table forms of the tests, `speedup_test`, `sparc`, `hpt`, `aggregate_score`, and the variance
components of `describe`.

Oracles, independent of `fastperf.data.levels.collapse_levels`:

- by definition, a function on a nested table (processes x iterations per variant) equals the
  same function with ``levels=[]`` on the process means computed here by pandas' groupby mean;
  a paired one on a round-blocked table equals the flat paired call on the round means paired
  by round;
- ``levels=[]`` on a nested table is the call on the same table without its level columns, bit
  for bit (today's numbers);
- describe's ICC equals statsmodels' MixedLM (REML) on a balanced table, to 1e-8;
- the scaled functions staged on group-complete parts in any order give the in-memory result.
"""
from __future__ import annotations

import inspect
import json
import math
import warnings

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats

import fastperf
from fastperf import InputError
from naive import one_way_anova
from fastperf.protocols.aggregate import (aggregate_score_finish, aggregate_score_options,
                                          aggregate_score_plan, aggregate_score_stage)
from fastperf.protocols.hpt import hpt_finish, hpt_options, hpt_plan, hpt_stage
from fastperf.protocols.sparc import sparc_finish, sparc_options, sparc_plan, sparc_stage
from fastperf.protocols.speedup import (speedup_finish, speedup_options, speedup_plan,
                                        speedup_stage)
from fastperf.stats.describe import (COMPONENT_COLUMNS, describe_finish, describe_options,
                                     describe_plan, describe_stage)
from scale_checks import assert_identical_results, assert_identical_tables, run_in_parts


def nested_table(seed: int = 0, processes: int = 6, iterations: int = 4, benchmarks: int = 4,
                 balanced: bool = False, rounds: bool = False) -> pa.Table:
    """Log-normal values with a random process effect (sd 0.1) and iteration noise (sd 0.05);
    the candidate B 3% slower. Unbalanced unless `balanced`: process p has `iterations` - p % 2
    values. With `rounds`, process p of each variant ran in round p, a drift shared by both."""
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(benchmarks):
        drift = rng.normal(0, 0.2, processes)
        for variant in ("A", "B"):
            for p in range(processes):
                effect = rng.normal(0, 0.1) + (drift[p] if rounds else 0.0)
                n = iterations if balanced else iterations - p % 2
                for i in range(n):
                    value = math.exp(b + (0.03 if variant == "B" else 0.0) + effect
                                     + rng.normal(0, 0.05))
                    rows.append({"benchmark": f"b{b}", "variant": variant, "process": p,
                                 "iteration": i, "round": p, "value": value, "unit": "s"})
    table = pa.Table.from_pylist(rows)
    if not rounds:
        table = table.drop_columns(["round"])
    # rows shuffled: a unit's values need not be adjacent
    return table.take(pa.array(np.random.default_rng(seed + 1).permutation(table.num_rows)))


def means_by(table: pa.Table, unit: str) -> pa.Table:
    """The oracle's unit means: pandas' groupby mean per (benchmark, variant, unit)."""
    frame = table.to_pandas()
    means = frame.groupby(["benchmark", "variant", unit, "unit"], as_index=False)["value"].mean()
    return pa.Table.from_pandas(means, preserve_index=False)


def assert_close(got, want, where: str = "") -> None:
    """Equal, floats to 1e-12 relative (pandas sums a mean in another order)."""
    if isinstance(want, dict):
        assert set(got) == set(want), where
        for key in want:
            assert_close(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for a, b in zip(got, want):
            assert_close(a, b, where)
    elif isinstance(want, float):
        assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, rel=1e-12,
                                                                               abs=1e-15), where
    else:
        assert got == want, where


def assert_tables_close(got: pa.Table, want: pa.Table, keys: list[str]) -> None:
    """The same columns and rows (sorted by `keys`), floats to 1e-12 relative."""
    assert got.column_names == want.column_names
    g, w = (t.to_pandas().sort_values(keys, key=lambda c: c.astype(str)).reset_index(drop=True)
            for t in (got, want))
    for name in w.columns:
        if w[name].dtype.kind == "f":
            np.testing.assert_allclose(g[name].to_numpy(float), w[name].to_numpy(float),
                                       rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=name)
        else:
            assert g[name].tolist() == w[name].tolist(), name


def without(summary: dict, *names: str) -> dict:
    return {k: v for k, v in summary.items() if k not in names}


#: name -> (call, the keys of its rows, its result's further tables)
INDEPENDENT = {
    "mannwhitneyu": (lambda t, **kw: fastperf.mannwhitneyu(t, baseline="A", candidate="B",
                                                           log=True, **kw), ["benchmark"], ()),
    "ttest_ind": (lambda t, **kw: fastperf.ttest_ind(t, baseline="A", candidate="B",
                                                     equal_var=False, **kw), ["benchmark"], ()),
    "ks_2samp": (lambda t, **kw: fastperf.ks_2samp(t, baseline="A", candidate="B", **kw),
                 ["benchmark"], ()),
    "ftest": (lambda t, **kw: fastperf.ftest(t, baseline="A", candidate="B", **kw),
              ["benchmark"], ()),
    "permutation_test": (lambda t, **kw: fastperf.permutation_test(
        t, baseline="A", candidate="B", seed=3, n_resamples=999, **kw), ["benchmark"], ()),
    "shapiro": (lambda t, **kw: fastperf.shapiro(t, **kw), ["benchmark", "variant"], ()),
    "speedup_test": (lambda t, **kw: fastperf.speedup_test(t, baseline="A", candidate="B", **kw),
                     ["benchmark"], ()),
    "sparc": (lambda t, **kw: fastperf.sparc(t, baseline="A", candidate="B", pair=None,
                                             min_runs=3, **kw), ["benchmark"], ("overall",)),
    "hpt": (lambda t, **kw: fastperf.hpt(t, baseline="A", candidate="B", **kw), ["benchmark"],
            ("speedups",)),
    "aggregate_propagation": (lambda t, **kw: fastperf.aggregate_score(
        t, baseline="A", method="propagation", **kw), ["variant"], ()),
}

PAIRED = {
    "wilcoxon": lambda t, **kw: fastperf.wilcoxon(t, baseline="A", candidate="B", log=True, **kw),
    "ttest_rel": lambda t, **kw: fastperf.ttest_rel(t, baseline="A", candidate="B", **kw),
    "permutation_test": lambda t, **kw: fastperf.permutation_test(
        t, baseline="A", candidate="B", paired=True, seed=3, n_resamples=999, **kw),
    "sparc": lambda t, **kw: fastperf.sparc(t, baseline="A", candidate="B", min_runs=3, **kw),
}


#: What the run diagnostics give (the `flags` column, its summary counts): they read the runs
#: as measured, not the unit means the analysis collapses them to, so they differ by design.
DIAGNOSTICS = ("flags", "flagged", "flag_rows")


def result_table(result):
    return result.table.drop_columns([c for c in DIAGNOSTICS if c in result.table.column_names])


@pytest.mark.parametrize("name", sorted(INDEPENDENT))
def test_nested_tables_are_analysed_on_their_process_means(name):
    call, keys, extra = INDEPENDENT[name]
    table = nested_table()
    got = call(table)
    want = call(means_by(table, "process"), levels=[])
    assert got.summary["structure"] == "process"
    assert want.summary["structure"] == "flat"
    assert_tables_close(result_table(got), result_table(want), keys)
    for attribute in extra:
        assert_tables_close(getattr(got, attribute), getattr(want, attribute),
                            getattr(want, attribute).column_names[:1])
    assert_close(without(got.summary, "structure", *DIAGNOSTICS),
                 without(want.summary, "structure", *DIAGNOSTICS))
    # n counts the processes (6 a side), not the values (21 a side)
    counts = [c for c in ("n_baseline", "n", "n_runs") if c in got.table.column_names][0]
    assert set(got.table.column(counts).to_pylist()) <= {6, 24}  # 4 benchmarks x 6


def test_aggregate_per_run_matches_the_processes():
    table = nested_table()
    got = fastperf.aggregate_score(table, baseline="A")
    want = fastperf.aggregate_score(means_by(table, "process"), baseline="A", run="process",
                                    levels=[])
    assert_tables_close(got.groups, want.groups, ["variant"])
    assert got.groups.column("n_runs").to_pylist() == [6, 6]
    assert got.summary["structure"] == "process"


@pytest.mark.parametrize("name", sorted(PAIRED))
def test_round_blocked_tables_pair_the_round_means(name):
    call = PAIRED[name]
    table = nested_table(rounds=True)
    got = call(table)
    want = call(means_by(table, "round"), levels=[], pair="round")
    assert got.summary["structure"] == "round, process"
    assert_tables_close(result_table(got), result_table(want), ["benchmark"])
    assert_close(without(got.summary, "structure", *DIAGNOSTICS),
                 without(want.summary, "structure", *DIAGNOSTICS))


@pytest.mark.parametrize("name", sorted(PAIRED))
def test_a_paired_analysis_of_nested_data_needs_a_block(name):
    table = nested_table()
    with pytest.raises(InputError, match=r"pairs units: pass block= .*or levels=\[\]"):
        PAIRED[name](table)
    # the flat analysis stays available (on the `run` column)
    flat = nested_table().append_column("run", pa.array(
        np.tile(np.arange(21), 8)[:nested_table().num_rows]))
    assert PAIRED[name](flat, levels=[]).summary["structure"] == "flat"


@pytest.mark.parametrize("name", sorted(INDEPENDENT))
def test_levels_none_is_todays_flat_analysis_bit_for_bit(name):
    call, _, extra = INDEPENDENT[name]
    table = nested_table(seed=4)
    got = call(table, levels=[])
    want = call(table.drop_columns(["process", "iteration"]))
    assert_identical_results(got, want, extra)
    assert got.summary["structure"] == want.summary["structure"] == "flat"
    assert_identical_results(call(table, levels="none"), want, extra)


def test_the_cli_takes_levels_and_block(tmp_path, capsys):
    from fastperf.cli import main

    path = tmp_path / "nested.csv"
    nested_table(rounds=True).to_pandas().to_csv(path, index=False)
    for argv, structure in (([], "round, process"), (["--levels", "none"], "flat"),
                            (["--block", "none"], "process"),
                            (["--levels", "process", "--block", "none"], "process")):
        for command in (["describe"], ["aggregate"], ["compare", "--protocol", "speedup-test"],
                        ["compare", "--protocol", "hpt"], ["compare"]):
            assert main([*command, str(path), *argv, "--format", "json"]) == 0
            doc = json.loads(capsys.readouterr().out)
            assert doc["summary"]["structure"] == structure, (command, argv)
    assert main(["describe", str(path), "--levels", "thread"]) == 2
    assert "--levels names column 'thread'" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# describe: the variance components


def test_describe_icc_is_mixedlm_reml_on_a_balanced_table():
    smf = pytest.importorskip("statsmodels.formula.api")
    table = nested_table(seed=7, processes=8, iterations=5, benchmarks=2, balanced=True)
    got = fastperf.describe(table).groups.to_pandas()
    frame = table.to_pandas()
    for _, row in got.iterrows():
        group = frame[(frame.benchmark == row.benchmark) & (frame.variant == row.variant)]
        group = group.assign(y=np.log(group.value))
        with warnings.catch_warnings():  # its convergence notes: the tolerance is tight
            warnings.simplefilter("ignore")
            fit = smf.mixedlm("y ~ 1", group, groups=group["process"]).fit(
                reml=True, method="bfgs", gtol=1e-12)
        between, within = float(fit.cov_re.iloc[0, 0]), float(fit.scale)
        assert row.icc == pytest.approx(between / (between + within), abs=1e-8)
        assert row.sigma2_between == pytest.approx(between, rel=1e-8)
        assert row.sigma2_within == pytest.approx(within, rel=1e-8)
        assert row.n_units == 8
        # balanced: the design effect 1 + (n - 1) icc, n = 5 values a process
        assert row.design_effect == pytest.approx(1 + 4 * row.icc, rel=1e-12)
        assert row.n_effective == pytest.approx(40 / row.design_effect, rel=1e-12)


def test_describe_components_are_joined_to_their_own_group():
    # groups met in another order than their keys sort (b3 first, variant B first), and a
    # second unit: each row's components are those of its own group (closed-form one-way
    # ANOVA on the logs, computed here per group)
    table = nested_table(seed=2)
    table = table.set_column(table.column_names.index("unit"), "unit", pa.array(
        ["s" if b != "b1" else "ns" for b in table.column("benchmark").to_pylist()]))
    order = np.argsort([(-int(b[1:]), v != "B") for b, v in zip(
        table.column("benchmark").to_pylist(), table.column("variant").to_pylist())],
        axis=0, kind="stable")[:, 0]
    table = table.take(pa.array(order))
    got = fastperf.describe(table).groups.to_pandas()
    frame = table.to_pandas()
    for _, row in got.iterrows():
        group = frame[(frame.benchmark == row.benchmark) & (frame.variant == row.variant)]
        y = np.log(group.value.to_numpy())
        per = group.assign(y=y).groupby("process")["y"]
        between, msw = one_way_anova([g.to_numpy() for _, g in per])
        assert row.n == len(group) and row.n_units == per.ngroups
        assert row.sigma2_within == pytest.approx(msw, rel=1e-10)
        assert row.sigma2_between == pytest.approx(between, rel=1e-9, abs=1e-15)
    flat = fastperf.describe(table, levels=[])
    assert flat.groups.column_names == fastperf.describe(
        table.drop_columns(["process", "iteration"])).groups.column_names
    assert "icc" not in flat.groups.column_names and flat.summary["structure"] == "flat"


# ---------------------------------------------------------------------------------------------
# scale: group-complete chunks give the in-memory result


def options_of(options_function, public_function, **given):
    """The options record with the public function's defaults but `given`."""
    defaults = inspect.signature(public_function).parameters
    names = inspect.signature(options_function).parameters
    return options_function(**{**{n: defaults[n].default for n in names if n in defaults},
                               **given})


SCALED = {
    "speedup_test": (speedup_options, fastperf.speedup_test, speedup_plan, speedup_stage,
                     speedup_finish, dict(baseline="A", candidate="B"), ()),
    "sparc": (sparc_options, fastperf.sparc, sparc_plan, sparc_stage, sparc_finish,
              dict(baseline="A", candidate="B", min_runs=3), ("overall",)),
    "hpt": (hpt_options, fastperf.hpt, hpt_plan, hpt_stage, hpt_finish,
            dict(baseline="A", candidate="B"), ("speedups",)),
    "aggregate_score": (aggregate_score_options, fastperf.aggregate_score, aggregate_score_plan,
                        aggregate_score_stage, aggregate_score_finish, dict(baseline="A"), ()),
    "describe": (describe_options, fastperf.describe, describe_plan, describe_stage,
                 describe_finish, {}, ()),
}


@pytest.mark.parametrize("rounds", [False, True])
@pytest.mark.parametrize("name", sorted(SCALED))
def test_nested_chunks_in_any_order_give_the_in_memory_result(name, rounds):
    make_options, public, plan_of, stage, finish, given, extra = SCALED[name]
    table = nested_table(seed=9, benchmarks=7, rounds=rounds)
    if name == "sparc" and not rounds:
        given = {**given, "pair": None}
    want = public(table, **given)
    assert want.summary["structure"] == ("round, process" if rounds else "process")
    plan = plan_of(table, options_of(make_options, public, **given))
    for seed in (0, 1):
        got = run_in_parts(table, plan, stage, finish, n_parts=3, seed=seed)
        if name == "describe":
            # `variance_components` sums over a group's units in the order they first appear
            # in the chunk, so its figures may differ in the last bit between chunkings; the
            # statistics are exact
            keyed = ["benchmark", "variant", *COMPONENT_COLUMNS]
            assert_tables_close(got.table.select(keyed), want.table.select(keyed),
                                ["benchmark", "variant"])
            assert_identical_tables(got.table.drop_columns(list(COMPONENT_COLUMNS)),
                                    want.table.drop_columns(list(COMPONENT_COLUMNS)))
            assert got.summary == want.summary and got.warnings == want.warnings
        else:
            assert_identical_results(got, want, extra)


def test_describe_intervals_of_nested_values_from_their_units():
    """The mean's interval from the units' means (their mean +- t[a - 1] s / sqrt(a)) and
    Woodruff's median interval (the ultimate-cluster standard error of the share at or below
    the median, t with Kish's effective units - 1 df), written out here with pandas and
    scipy."""

    rng = np.random.default_rng(21)
    rows = {"benchmark": [], "variant": [], "process": [], "value": []}
    for b in ("a", "b"):
        for p in range(7 if b == "a" else 3):
            effect = rng.normal(0, 0.1)
            m = 4 + int(rng.integers(0, 3))
            rows["benchmark"] += [b] * m
            rows["variant"] += ["v"] * m
            rows["process"] += [p] * m
            rows["value"] += list(np.exp(1 + effect + rng.normal(0, 0.05, m)))
    table = pa.table(rows)
    got = fastperf.describe(table, confidence=0.9).groups.to_pylist()
    frame = table.to_pandas()
    for row in got:
        group = frame[frame.benchmark == row["benchmark"]]
        y = group.value.to_numpy()
        units = group.groupby("process")["value"]
        n_i, m_i = units.count().to_numpy(float), units.mean().to_numpy()
        a, big_n = len(n_i), n_i.sum()
        w = n_i / big_n
        t = stats.t.ppf(0.95, a - 1)
        se = m_i.std(ddof=1) / np.sqrt(a)
        assert row["ci_mean_low"] == pytest.approx(m_i.mean() - t * se, rel=1e-12)
        assert row["ci_mean_high"] == pytest.approx(m_i.mean() + t * se, rel=1e-12)
        if a < 5:
            assert math.isnan(row["ci_median_low"]) and row["status"].startswith("fewer than 5")
            continue
        below = group.assign(below=(y <= np.median(y)).astype(float)).groupby("process")["below"]
        p_i = below.mean().to_numpy()
        se_p = np.sqrt(a / (a - 1) * ((w * (p_i - (w * p_i).sum())) ** 2).sum())
        t_p = stats.t.ppf(0.95, big_n ** 2 / (n_i ** 2).sum() - 1)
        ordered = np.sort(y)
        low = ordered[int(np.ceil(big_n * (0.5 - t_p * se_p))) - 1]
        high = ordered[int(np.ceil(big_n * (0.5 + t_p * se_p))) - 1]
        assert (row["ci_median_low"], row["ci_median_high"]) == (low, high)
        assert row["ci_median_confidence"] == 0.9 and row["status"] == "ok"


@pytest.mark.parametrize("sizes", [[2, 2, 2, 2, 40], [3] * 10 + [30] * 2, [5] * 10 + [20] * 5])
def test_describe_intervals_of_unequal_units_hold_their_level(sizes):
    """Units of unequal sizes, ICC 0.5: the ultimate-cluster interval of the mean covered 43 %
    (sizes 2, 2, 2, 2, 40), 81 % and 92 % at 95 %: one large unit decides the mean and its
    standard error with it. The mean of the unit means, with their spread, covers E[value]
    at the level; the median's interval is given only from 5 effective units (Kish), and
    then covers the median. Oracle: the simulation's truth (log values normal: E[value] =
    exp(sigma^2 / 2), median 1), 600 groups: coverage within 0.93-0.98 (3.5 standard
    errors)."""
    rng = np.random.default_rng(5)
    s2 = 0.5 * 0.05 ** 2
    rows = {"benchmark": [], "process": [], "value": []}
    for rep in range(600):
        for i, n in enumerate(sizes):
            effect = rng.normal(0, s2 ** 0.5)
            rows["benchmark"] += [rep] * n
            rows["process"] += [i] * n
            rows["value"] += list(np.exp(effect + rng.normal(0, s2 ** 0.5, n)))
    groups = fastperf.describe(pa.table(rows), variant=None).groups
    low, high = (groups[c].to_numpy() for c in ("ci_mean_low", "ci_mean_high"))
    truth = np.exp(s2)
    assert 0.93 <= np.mean((low <= truth) & (truth <= high)) <= 0.98
    low, high = (groups[c].to_numpy() for c in ("ci_median_low", "ci_median_high"))
    given = ~np.isnan(low)
    kish = sum(sizes) ** 2 / sum(n * n for n in sizes)
    assert given.any() == (kish >= 5)
    if given.any():
        assert 0.93 <= np.mean(((low <= 1) & (1 <= high))[given]) <= 0.98
    else:
        assert set(groups["status"].to_pylist()) == {
            "units too unequal for a 0.95 median interval (fewer than 5 effective units)"}
