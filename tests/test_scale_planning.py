"""`plan_runs` in group-complete chunks (`plan_runs_plan`, `plan_runs_stage`, `plan_runs_finish`,
`fastperf.data.chunked`) and on a lazy dataset.

Oracle: the in-memory `plan_runs` of the same table: the chunked result must be identical bit
for bit (the per-group table, the separation table, the summary, the warnings). The plan's
choice of the two variants to separate is checked against its documented rule (the variants in
the order of the groups, `fastperf.data.grouping.group_rows`), whatever the encoding.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import fastperf
from fastperf import InputError, plan_runs
from fastperf.data.grouping import group_rows
from fastperf.protocols.planning import (plan_runs_finish, plan_runs_options, plan_runs_plan,
                                         plan_runs_stage)
from scale_checks import (LAYOUTS, assert_identical_results, lazy_pair, run_in_parts)

DEFAULTS = dict(by="benchmark", variant="variant", value="value", target="relative_halfwidth",
                precision=0.01, confidence=0.95, assurance=0.8, baseline=None, candidate=None,
                unit="unit")


def hand_table(seed: int = 2, benchmarks: int = 24, variants=("X", "Y")) -> pa.Table:
    """Plain columns, rows shuffled: two units, a configuration column; groups with no value
    (all null/NaN), one value, zero spread, mean 0, values near 1.8e308 (a half-width beyond
    float64), ties; benchmarks without one variant."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "cfg": [], "unit": [], "variant": [], "value": []}
    for b in range(benchmarks):
        for v, name in enumerate(variants):
            if (b % 7 == 3 and v == 0) or (b % 9 == 5 and v == 1):
                continue  # a benchmark without one variant
            size = 1 if b % 8 == 1 else int(rng.integers(2, 12))
            values = list(np.round(rng.normal(10.0 + v, 1.0 + b % 3, size), 1 + b % 4))
            if b % 6 == 0:
                values[0] = float("nan")
            if b % 5 == 3:
                values.append(None)
            if b % 10 == 2:
                values = [3.0] * size  # zero spread
            if b % 12 == 6:
                values = [-1.0, 1.0] * 2  # mean 0
            if b % 13 == 8:
                values = [None, float("nan")]  # no values
            if b % 11 == 4:
                values = [1.5e308, -1.0e308, 1.2e308 + v * 1e306]  # a half-width beyond float64
            cols["benchmark"] += [f"b{b:02d}"] * len(values)
            cols["cfg"] += [f"c{b % 2}"] * len(values)
            cols["unit"] += ["s" if b % 4 else "B"] * len(values)
            cols["variant"] += [name] * len(values)
            cols["value"] += values
    table = pa.table(cols)
    return table.take(pa.array(rng.permutation(table.num_rows)))


def planned(table: pa.Table, **options):
    """The plan on `table` with these options."""
    return plan_runs_plan(table, plan_runs_options(**options))


def chunked(table: pa.Table, n_parts: int = 3, seed: int = 0, **options):
    plan = planned(table, **{**DEFAULTS, **options})
    return run_in_parts(table, plan, plan_runs_stage, plan_runs_finish, n_parts, seed)


def sim_table(seed: int = 1) -> pa.Table:
    return fastperf.simulate(40, 8, seed=seed).table


def nested_table(seed: int = 3) -> pa.Table:
    return fastperf.simulate(30, processes=5, iterations=4, icc=0.5, seed=seed).table


def three() -> pa.Table:
    return hand_table(3, variants=("X", "Y", "Z"))


CASES = [
    ("sim", sim_table, {}),
    ("sim_halfwidth_plug_in", sim_table,
     {"target": "halfwidth", "precision": 1e-7, "assurance": None}),
    ("hand", hand_table, {}),
    ("hand_plug_in", hand_table, {"assurance": None, "confidence": 0.9}),
    ("hand_halfwidth", hand_table, {"target": "halfwidth", "precision": 0.5}),
    ("hand_two_keys", hand_table, {"by": ["cfg", "benchmark"]}),
    ("hand_one_benchmark", hand_table, {"by": None}),
    ("hand_no_variant", hand_table, {"variant": None}),
    ("three_variants", three, {}),
    ("three_named", three, {"baseline": "Z", "candidate": "X"}),
    ("three_named_no_unit", three, {"baseline": "Y", "candidate": "Z", "unit": None}),
    ("nested", nested_table, {}),
    ("nested_costs_plug_in", nested_table, {"process_cost": 20.0, "assurance": None}),
]


@pytest.mark.parametrize("name, make, options", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("n_parts, seed", [(2, 0), (3, 1), (5, 2)])
def test_chunks_in_any_order_give_the_in_memory_result(name, make, options, n_parts, seed):
    table = make()
    want = plan_runs(table, **options)
    got = chunked(table, n_parts, seed, **options)
    assert_identical_results(got, want, extra=("separation",))
    assert got.to_text() == want.to_text()


def test_the_hand_tables_have_what_they_are_for():
    want = plan_runs(hand_table())
    status = set(want.table.column("status").to_pylist())
    assert {"no values (all missing)", "1 value: no sd", "zero spread",
            "mean is 0: no relative precision", "ok"} <= status
    assert any("beyond the float64" in s for s in status)
    separation = set(want.separation.column("status").to_pylist())
    assert {"no 'X' values", "no 'Y' values", "ok"} <= separation
    assert want.summary["baseline"] == "X" and want.summary["benchmarks"] == 24
    three_variants = plan_runs(three())
    assert three_variants.separation is None
    assert "3 variants: pass baseline= and candidate= for the separation table" in \
        three_variants.warnings


def test_the_in_memory_run_is_plan_stage_finish():
    table = hand_table()
    plan = planned(table, **DEFAULTS)
    assert plan.pair == ("X", "Y") and plan.partition == ("benchmark", "unit")
    staged = plan_runs_stage(table, plan)
    assert "separation" in staged.extra.column_names
    got = plan_runs_finish(staged, plan, {"input_rows": table.num_rows})
    assert not [c for c in got.table.column_names + got.separation.column_names
                if c.startswith("__")]
    assert_identical_results(got, plan_runs(table), extra=("separation",))
    # without a separation, whole groups are enough
    assert planned(table, **{**DEFAULTS, "variant": None}).partition == ("benchmark", "unit")
    assert planned(three(), **DEFAULTS).partition == ("benchmark", "unit", "variant")


def test_a_chunk_without_the_candidate_is_staged():
    table = pa.table({"benchmark": ["a"] * 4 + ["b"] * 6,
                      "variant": ["X"] * 4 + ["X", "Y"] * 3,
                      "value": [1.0, 1.1, 1.2, 1.3, 2.0, 1.0, 2.1, 1.1, 2.2, 1.2]})
    want = plan_runs(table)
    for seed in range(4):
        assert_identical_results(chunked(table, 2, seed), want, extra=("separation",))
    assert want.separation.column("status").to_pylist() == ["no 'Y' values", "ok"]


def _pair_by_the_rule(table: pa.Table, keys: list[str]):
    """The documented rule: the two variants (not null) in the order of the groups."""
    groups = group_rows(table, keys + ["variant"]).keys
    present = [v for v in pc.unique(groups.column("variant")).to_pylist() if v is not None]
    return tuple(present) if len(present) == 2 else None


def _encodings(table: pa.Table) -> dict[str, pa.Table]:
    """The table as it is, with a dictionary-encoded variant whose dictionary is in another
    order, with dictionary-encoded keys, and with a null variant in the first row."""
    where = table.column_names.index("variant")
    variant = table.column("variant").combine_chunks()
    values = list(reversed(pc.unique(variant).to_pylist()))
    indices = pa.array([values.index(v) for v in variant.to_pylist()], pa.int32())
    return {
        "plain": table,
        "scrambled": table.set_column(where, "variant", pa.DictionaryArray.from_arrays(
            indices, pa.array(values))),
        "encoded_keys": table.set_column(0, "benchmark",
                                         table.column("benchmark").dictionary_encode()),
        "first_null": table.set_column(where, "variant",
                                       pa.array([None] + variant.to_pylist()[1:])),
    }


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("encoding", ["plain", "scrambled", "encoded_keys", "first_null"])
def test_the_plan_separates_the_variants_of_the_first_group(seed, encoding):
    table = _encodings(hand_table(seed, benchmarks=12))[encoding]
    plan = planned(table, **DEFAULTS)
    assert plan.pair == _pair_by_the_rule(table, ["benchmark", "unit"])
    if encoding != "scrambled":  # chunks are put in first-appearance order, not a dictionary's
        assert_identical_results(chunked(table, 3, seed), plan_runs(table),
                                 extra=("separation",))


def test_plan_errors_come_from_the_whole_table():
    table = three()
    with pytest.raises(InputError, match="variant 'W' not found"):
        planned(table, **{**DEFAULTS, "baseline": "X", "candidate": "W"})
    with pytest.raises(InputError, match="pass both baseline= and candidate="):
        planned(table, **{**DEFAULTS, "baseline": "X"})
    with pytest.raises(InputError, match="empty"):
        planned(table.slice(0, 0), **DEFAULTS)
    with pytest.raises(InputError, match="precision"):
        planned(table, **{**DEFAULTS, "precision": 0.0})
    bad = table.set_column(table.column_names.index("value"), "value",
                           pa.array([float("inf")] + table.column("value").to_pylist()[1:]))
    with pytest.raises(InputError, match="infinite"):
        chunked(bad, 3, 0)


# ------------------------------------------------------------------------------ lazy dataset





@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("options", [{}, {"assurance": None, "target": "halfwidth",
                                          "precision": 1e-7}], ids=["default", "plug_in"])
def test_lazy_dataset_gives_the_in_memory_result(tmp_path, options, layout):
    table = fastperf.simulate(150, 21, seed=4).table
    dataset, whole = lazy_pair(table, tmp_path, **LAYOUTS[layout])
    got, want = plan_runs(dataset, **options), plan_runs(whole, **options)
    assert_identical_results(got, want, extra=("separation",))
    assert got.separation is not None


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lazy_dataset_of_the_hand_table(tmp_path, layout):
    table = hand_table(5, benchmarks=120, variants=("X", "Y", "Z"))
    dataset, whole = lazy_pair(table, tmp_path, partition_by=("cfg",), **LAYOUTS[layout])
    for options in ({}, {"baseline": "Z", "candidate": "Y"}, {"by": ["benchmark", "cfg"]},
                    {"variant": None}):
        assert_identical_results(plan_runs(dataset, **options), plan_runs(whole, **options),
                                 extra=("separation",))
