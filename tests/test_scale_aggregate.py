"""`aggregate_score` in group-complete chunks (`aggregate_score_plan`, `aggregate_score_stage`,
`aggregate_score_finish`, `fastperf.data.chunked`) and on a lazy dataset.

Oracle: the in-memory `aggregate_score` of the same table: the chunked result must be
identical bit for bit (the per-variant table with its ratios to the baseline, the summary, the
warnings). A chunk holds whole variants; the sums over a variant's benchmarks must then run in
the whole table's order of the benchmarks, which the hand tables below scramble (each variant
lists its benchmarks, and its runs, in its own order). The helpers of
`fastperf.protocols.group_order` are checked against `fastperf.data.grouping.group_rows` on the
whole table.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError, aggregate_score
from fastperf.data.grouping import group_rows
from fastperf.protocols.aggregate import (aggregate_score_finish, aggregate_score_options,
                                          aggregate_score_plan, aggregate_score_stage)
from fastperf.protocols.group_order import distinct_keys, in_key_order, key_ranks
from fastperf.data.chunked import finish_parts
from scale_checks import (LAYOUTS, assert_identical_results, first_appearance, lazy_pair,
                          run_in_parts)

DEFAULTS = dict(variant="variant", by="benchmark", value="value", kind="geomean", weights=None,
                method="per-run", confidence=0.95, run="run", baseline=None, unit="unit")


def hand_table(seed: int = 3, benchmarks: int = 12, runs: int = 7, run_kind: str = "int"
               ) -> pa.Table:
    """Plain columns, rows shuffled: five variants, each listing its benchmarks and runs in its
    own order; a variant without some benchmarks (status "missing benchmarks"), NaN and null
    values (incomplete runs), null runs (unmatched), a variant with one complete run, one with
    constant values (zero variance), a configuration column and a weight column."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "cfg": [], "variant": [], "run": [], "value": [], "w": []}
    for v in range(5):
        order = rng.permutation(benchmarks)
        for b in order:
            if v == 1 and b % 5 == 2:
                continue  # missing benchmarks
            base = float(rng.uniform(0.5, 50.0))
            run_ids = rng.permutation(runs) if v != 3 else np.arange(1)
            for r in run_ids:
                value = base * float(rng.lognormal(0.02 * v, 0.05))
                if v == 4:
                    value = round(base, 1)  # constant per benchmark: zero variance
                elif (b + r) % 11 == 3:
                    value = float("nan")
                elif (b * r) % 13 == 7:
                    value = None
                run_id = {"int": int(r), "sparse": int(r) * 1_000_003, "str": f"run-{r}"}[run_kind]
                if v == 2 and b == 1 and r == 2:
                    run_id = None  # a null run: matches no run
                cols["benchmark"].append(f"b{b:02d}")
                cols["cfg"].append(f"c{b % 3}")
                cols["variant"].append(f"V{v}")
                cols["run"].append(run_id)
                cols["value"].append(value)
                cols["w"].append(float(1 + b % 4))
    table = pa.table(cols)
    return table.take(pa.array(rng.permutation(table.num_rows)))


def sim_table(seed: int = 1) -> pa.Table:
    return fastperf.simulate(40, 9, variants=["old", "new", "next", "last"], seed=seed).table


def planned(table: pa.Table, **options):
    """The plan on `table` with these options."""
    return aggregate_score_plan(table, aggregate_score_options(**options))


def chunked(table: pa.Table, n_parts: int = 3, seed: int = 0, **options):
    plan = planned(table, **{**DEFAULTS, **options})
    return run_in_parts(table, plan, aggregate_score_stage, aggregate_score_finish, n_parts,
                        seed)


CASES = [
    ("sim", sim_table, {}),
    ("sim_propagation_baseline", sim_table, {"method": "propagation", "baseline": "old"}),
    ("sim_by_position", lambda: sim_table().drop_columns(["run"]), {"kind": "mean"}),
    ("hand", hand_table, {}),
    ("hand_baseline", hand_table, {"baseline": "V2"}),
    ("hand_propagation", hand_table, {"method": "propagation", "baseline": "V0"}),
    ("hand_mean_weights_column", hand_table, {"kind": "mean", "weights": "w"}),
    ("hand_weighted_mapping", hand_table,
     {"kind": "weighted", "weights": {f"b{b:02d}": 1.0 + b % 3 for b in range(12)}}),
    ("hand_two_keys", hand_table, {"by": ["cfg", "benchmark"], "baseline": "V1"}),
    ("hand_sparse_runs", lambda: hand_table(4, run_kind="sparse"), {"baseline": "V0"}),
    ("hand_string_runs", lambda: hand_table(5, run_kind="str"), {"baseline": "V0"}),
    ("hand_two_keys_propagation", hand_table,
     {"by": ["benchmark", "cfg"], "method": "propagation", "weights": "w"}),
]


@pytest.mark.parametrize("name, make, options", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("n_parts, seed", [(2, 0), (3, 1), (5, 2)])
def test_chunks_in_any_order_give_the_in_memory_result(name, make, options, n_parts, seed):
    table = make()
    want = aggregate_score(table, **options)
    got = chunked(table, n_parts, seed, **options)
    assert_identical_results(got, want)
    assert got.to_text() == want.to_text()


def test_the_hand_table_has_what_it_is_for():
    want = aggregate_score(hand_table(), baseline="V2")
    status = dict(zip(want.table.column("variant").to_pylist(),
                      want.table.column("status").to_pylist()))
    assert status["V1"].startswith("missing benchmarks")
    assert status["V3"] == "fewer than 2 complete runs"
    assert status["V4"] == "zero variance: no interval"
    assert any("null run" in w for w in want.warnings)
    assert any("incomplete run" in w for w in want.warnings)
    assert want.summary["benchmarks"] == 12 and want.summary["variants"] == 5


def test_the_in_memory_run_is_plan_stage_finish():
    table = hand_table()
    options = {**DEFAULTS, "baseline": "V0"}
    plan = planned(table, **options)
    staged = aggregate_score_stage(table, plan)
    assert "unmatched" in staged.extra.column_names and "ratio" not in staged.rows.column_names
    got = aggregate_score_finish(staged, plan, {"input_rows": table.num_rows})
    assert not [c for c in got.table.column_names if c.startswith("__")]
    assert_identical_results(got, aggregate_score(table, baseline="V0"))
    assert plan.partition == ("variant",) and plan.benchmarks == 12


def test_a_variant_scored_alone_keeps_the_whole_tables_benchmark_order():
    # variant V1 lists its benchmarks in another order (c, a, b) than the table (a, b, c): its
    # chunk still sums them in the table's order, so its row is the in-memory row bit for bit
    # (in its own order the propagated sd would be 0.27493696141638907, not ...891)
    table = pa.table({"benchmark": ["a", "b", "c"] * 2 + ["c", "a", "b"] * 2,
                      "variant": ["V0"] * 6 + ["V1"] * 6,
                      "run": [0, 0, 0, 1, 1, 1] * 2,
                      "value": [0.1, 0.7, 0.3, 0.11, 0.69, 0.31,
                                0.655, 0.306, 0.089, 0.066, 0.823, 0.917]})
    for method in ("propagation", "per-run"):
        plan = planned(table, **{**DEFAULTS, "method": method})
        rows = aggregate_score_stage(table.slice(6), plan).rows
        want = aggregate_score(table, method=method).table.slice(1)
        for name in ("score", "sd", "se", "df", "ci_low", "ci_high"):
            assert rows.column(name).to_pylist() == want.column(name).to_pylist()


@pytest.mark.parametrize("runs", [["r5", "r4", "r3", "r2", "r1"], [50, 40, 30, 20, 10]],
                         ids=["text", "sparse"])
def test_run_scores_add_up_in_the_order_of_the_runs(runs):
    # V1's runs appear first (in the whole table) in V0's order; a chunk holding V1 alone sees
    # them in its own: its five run scores give an sd of 0.35705399056130327 added up in one
    # order and 0.3570539905613033 in the other, so the runs are taken in the order of their
    # values (sparse integer runs too, which are numbered by their distinct values)
    runs = runs if isinstance(runs[0], str) else [r * 1_000_003 for r in runs]
    scores = [0.63696168732, 0.26978671376, 0.04097352394, 0.01652763553, 0.8132702392]
    table = pa.table({"benchmark": ["a"] * 10, "variant": ["V0"] * 5 + ["V1"] * 5,
                      "run": runs + runs[::-1], "value": [1.0] * 5 + scores})
    want = aggregate_score(table, kind="mean")
    plan = planned(table, **{**DEFAULTS, "kind": "mean"})
    parts = [aggregate_score_stage(table.slice(5), plan),
             aggregate_score_stage(table.slice(0, 5), plan)]
    got = finish_parts(parts, plan, aggregate_score_finish, {"input_rows": 10},
                       first_appearance(table, plan.order))
    assert_identical_results(got, want)


def test_plan_errors_come_from_the_whole_table_and_stage_errors_from_a_chunk():
    table = hand_table()
    with pytest.raises(InputError, match="mixes units"):
        planned(table.append_column("unit", pa.array(
            ["s", "B"] * (table.num_rows // 2) + ["s"] * (table.num_rows % 2))), **DEFAULTS)
    with pytest.raises(InputError, match="empty"):
        planned(table.slice(0, 0), **DEFAULTS)
    with pytest.raises(InputError, match="kind"):
        planned(table, **{**DEFAULTS, "kind": "median"})
    bad = table.set_column(table.column_names.index("value"), "value",
                           pa.array([-1.0] + table.column("value").to_pylist()[1:]))
    for run in (lambda: aggregate_score(bad), lambda: chunked(bad, 3, 0)):
        with pytest.raises(InputError, match="needs positive values"):
            run()
    with pytest.raises(InputError, match="baseline 'V9' is not a variant"):
        chunked(table, 3, 0, baseline="V9")


# -------------------------------------------------------------------- the order of the groups


@pytest.mark.parametrize("seed", range(4))
def test_group_order_helpers_against_the_grouper(seed):
    table = hand_table(seed)
    keys = ["cfg", "benchmark"]
    count, dictionaries = distinct_keys(table, keys)
    whole = group_rows(table, ["variant"] + keys)
    assert count == group_rows(table, keys).n_groups
    part = table.filter(pa.array([v in ("V3", "V1") for v in
                                  table.column("variant").to_pylist()]))
    groups, take = in_key_order(group_rows(part, ["variant"] + keys), ["variant"], keys,
                                dictionaries)
    # each variant's groups, in the whole table's order
    for name in ("V1", "V3"):
        mine = [r for r in groups.keys.to_pylist() if r["variant"] == name]
        oracle = [r for r in whole.keys.to_pylist() if r["variant"] == name]
        assert mine == oracle
    # the rows of each group unchanged
    values = groups.gather(np.arange(part.num_rows, dtype=np.float64))
    for g, key in enumerate(groups.keys.to_pylist()):
        rows = [i for i, r in enumerate(part.select(["variant"] + keys).to_pylist()) if r == key]
        assert values[groups.offsets[g]:groups.offsets[g + 1]].tolist() == rows
    for name in keys:
        ranks = key_ranks(groups.keys, name, dictionaries[name])
        assert [dictionaries[name][int(i)].as_py() for i in ranks] == \
            groups.keys.column(name).to_pylist()


def test_group_order_moves_nothing_on_the_whole_table():
    table = hand_table()
    _, dictionaries = distinct_keys(table, ["benchmark"])
    groups = group_rows(table, ["variant", "benchmark"])
    assert in_key_order(groups, ["variant"], ["benchmark"], dictionaries) == (groups, None)
    with pytest.raises(InputError, match="plan's table lacks"):
        key_ranks(groups.keys, "benchmark", dictionaries["benchmark"].slice(1))


# ------------------------------------------------------------------------------ lazy dataset





@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("options", [{}, {"method": "propagation", "baseline": "old"},
                                     {"kind": "mean", "baseline": "next"}],
                         ids=["per_run", "propagation", "mean"])
def test_lazy_dataset_gives_the_in_memory_result(tmp_path, options, layout):
    table = fastperf.simulate(40, 10, variants=["old", "new", "next", "last"], seed=4).table
    dataset, whole = lazy_pair(table, tmp_path, **LAYOUTS[layout])
    assert_identical_results(aggregate_score(dataset, **options),
                             aggregate_score(whole, **options))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lazy_dataset_of_the_hand_table(tmp_path, layout):
    table = hand_table(6, benchmarks=30)
    dataset, whole = lazy_pair(table, tmp_path, partition_by=("cfg",), **LAYOUTS[layout])
    for options in ({"baseline": "V0"}, {"weights": "w", "method": "propagation"},
                    {"by": ["benchmark", "cfg"]}):
        assert_identical_results(aggregate_score(dataset, **options),
                                 aggregate_score(whole, **options))
