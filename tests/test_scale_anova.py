"""`anova` in group-complete chunks (`anova_plan`, `anova_stage`, `anova_finish`,
`fastperf.data.chunked`) and on a lazy dataset.

Oracle: the in-memory `anova` of the same table: the chunked result must be identical bit for
bit (the ANOVA table, the effects, the alternatives, the summary, the warnings, and the
contrasts computed from it). A chunk holds whole `by` groups; the sums over a group's
alternatives must then run in the whole table's order of the factor's levels, which the hand
tables below scramble (each group lists its alternatives in its own order).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError, anova
from fastperf.data.chunked import finish_parts
from fastperf.designs.anova import anova_finish, anova_options, anova_plan, anova_stage
from scale_checks import (LAYOUTS, assert_identical_results, first_appearance, lazy_pair,
                          run_in_parts)

DEFAULTS = dict(factor="variant", value="value", by=None, alpha=0.05, equal_var=True)
LEVELS = ("A", "B", "C", "D")


def hand_table(seed: int = 1, benchmarks: int = 20) -> pa.Table:
    """Plain columns, rows shuffled, a configuration column: each benchmark lists the levels
    in its own order; null levels, NaN and null values, ties; a benchmark with one level, one
    with all values equal, one with zero variance within levels, one with a level of one value
    (no Welch), one with values near 1e307 (sums of squares beyond float64)."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "cfg": [], "variant": [], "value": []}
    for b in range(benchmarks):
        levels = [LEVELS[i] for i in rng.permutation(len(LEVELS))][:1 if b % 9 == 4 else 4]
        for j, level in enumerate(levels):
            if b % 5 == 1 and j == 3:
                continue  # three levels only
            size = 1 if (b % 7 == 2 and j == 0) else int(rng.integers(2, 9))
            values = list(np.round(rng.normal(5.0 + j * (b % 3), 1.0, size), 1 + b % 3))
            if b % 6 == 5:
                values[-1] = float("nan")
            if b % 4 == 3:
                values.append(None)
            if b % 10 == 6:
                values = [2.5] * size  # all values equal
            if b % 10 == 8:
                values = [float(j)] * size  # zero variance within levels
            if b % 11 == 7:
                values = [None if v is None else float(v) * 1e307 for v in values]
            name = None if (b % 8 == 3 and j == 1) else level
            cols["benchmark"] += [f"b{b:02d}"] * len(values)
            cols["cfg"] += [f"c{b % 2}"] * len(values)
            cols["variant"] += [name] * len(values)
            cols["value"] += values
    table = pa.table(cols)
    return table.take(pa.array(rng.permutation(table.num_rows)))


def sim_table(seed: int = 3) -> pa.Table:
    return fastperf.simulate(30, 7, variants=["old", "new", "next"], seed=seed).table


def planned(table: pa.Table, **options):
    """The plan of `anova` on `table` with these options."""
    return anova_plan(table, anova_options(**options))


def chunked(table: pa.Table, n_parts: int = 3, seed: int = 0, **options):
    plan = planned(table, **{**DEFAULTS, **options})
    return run_in_parts(table, plan, anova_stage, anova_finish, n_parts, seed)


def assert_same_anova(got, want) -> None:
    """Identical results, alternatives and contrasts."""
    assert_identical_results(got, want, extra=("effects",))
    assert got.alternatives == want.alternatives
    assert got.to_text() == want.to_text()
    k = len(want.alternatives)
    weights = [[1.0, -1.0] + [0.0] * (k - 2), [1.0] * (k - 1) + [1.0 - k]] if k >= 2 else []
    if k >= 3:
        weights.append({want.alternatives[2]: 2.0, want.alternatives[0]: -2.0})
    for w in weights:
        for method in ("standard", "lilja"):
            assert_identical_results(got.contrasts(w, method=method, confidence=0.9),
                                     want.contrasts(w, method=method, confidence=0.9))


CASES = [
    ("sim", sim_table, {"by": "benchmark"}),
    ("sim_welch", sim_table, {"by": "benchmark", "equal_var": False, "alpha": 0.1}),
    ("hand", hand_table, {"by": "benchmark"}),
    ("hand_welch", hand_table, {"by": "benchmark", "equal_var": False}),
    ("hand_two_keys", hand_table, {"by": ["cfg", "benchmark"]}),
    ("hand_config_only", hand_table, {"by": "cfg"}),
    ("hand_one_test", hand_table, {}),
]


@pytest.mark.parametrize("name, make, options", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("n_parts, seed", [(2, 0), (3, 1), (5, 2)])
def test_chunks_in_any_order_give_the_in_memory_result(name, make, options, n_parts, seed):
    table = make()
    assert_same_anova(chunked(table, n_parts, seed, **options), anova(table, **options))


def test_the_hand_table_has_what_it_is_for():
    want = anova(hand_table(), by="benchmark")
    status = set(want.table.column("status").to_pylist())
    assert {"ok", "fewer than 2 alternatives with values", "all values equal",
            "zero variance within alternatives"} <= status
    assert any("beyond the float64" in s for s in status)
    assert want.alternatives[-1] is None and len(want.alternatives) == 5
    welch = set(anova(hand_table(), by="benchmark", equal_var=False).table.column(
        "status").to_pylist())
    assert any("Welch's ANOVA needs both" in s for s in welch)
    assert any("dropped" in w for w in want.warnings)


def test_the_in_memory_run_is_plan_stage_finish():
    table = hand_table()
    plan = planned(table, **{**DEFAULTS, "by": "benchmark"})
    assert plan.partition == ("benchmark",) and plan.order == ("benchmark", "variant")
    staged = anova_stage(table, plan)
    assert "level" in staged.extra.column_names and "group_f" in staged.extra.column_names
    assert staged.extra.num_rows == staged.rows.num_rows
    got = anova_finish(staged, plan, {"input_rows": table.num_rows})
    assert not [c for c in got.table.column_names + got.effects.column_names
                if c.startswith("__")]
    assert_same_anova(got, anova(table, by="benchmark"))


def test_a_group_scored_alone_keeps_the_whole_tables_level_order():
    # benchmark b lists its levels (C, A, B) in another order than the table (A, B, C): its
    # chunk still adds them up in the table's order, so its row is the in-memory row
    rng = np.random.default_rng(0)
    for _ in range(50):
        values = list(np.round(rng.uniform(0, 1, 9), 3))
        table = pa.table({"benchmark": ["a"] * 3 + ["b"] * 9,
                          "variant": ["A", "B", "C"] + ["C"] * 3 + ["A"] * 3 + ["B"] * 3,
                          "value": [1.0, 2.0, 3.0] + values})
        plan = planned(table, **{**DEFAULTS, "by": "benchmark"})
        parts = [anova_stage(table.slice(3), plan), anova_stage(table.slice(0, 3), plan)]
        got = finish_parts(parts, plan, anova_finish, {"input_rows": table.num_rows},
                           first_appearance(table, plan.order))
        assert_same_anova(got, anova(table, by="benchmark"))


def test_plan_errors_come_from_the_whole_table_and_stage_errors_from_a_chunk():
    table = hand_table()
    with pytest.raises(InputError, match="alpha"):
        planned(table, **{**DEFAULTS, "alpha": 1.5})
    with pytest.raises(InputError, match="empty"):
        planned(table.slice(0, 0), **DEFAULTS)
    with pytest.raises(InputError, match="both the factor and a `by` key"):
        planned(table, **{**DEFAULTS, "by": "variant"})
    with pytest.raises(InputError, match="equal_var"):
        planned(table, **{**DEFAULTS, "equal_var": "no"})
    bad = table.set_column(table.column_names.index("value"), "value",
                           pa.array([float("inf")] + table.column("value").to_pylist()[1:]))
    for run in (lambda: anova(bad, by="benchmark"), lambda: chunked(bad, 3, 0, by="benchmark")):
        with pytest.raises(InputError, match="infinite"):
            run()


# ------------------------------------------------------------------------------ lazy dataset





@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("options", [{"by": "benchmark"},
                                     {"by": "benchmark", "equal_var": False}],
                         ids=["classic", "welch"])
def test_lazy_dataset_gives_the_in_memory_result(tmp_path, options, layout):
    table = fastperf.simulate(120, 9, variants=["old", "new", "next"], seed=4).table
    dataset, whole = lazy_pair(table, tmp_path, **LAYOUTS[layout])
    assert_same_anova(anova(dataset, **options), anova(whole, **options))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lazy_dataset_of_the_hand_table(tmp_path, layout):
    table = hand_table(6, benchmarks=80)
    dataset, whole = lazy_pair(table, tmp_path, partition_by=("cfg",), **LAYOUTS[layout])
    for options in ({"by": "benchmark"}, {"by": ["benchmark", "cfg"], "equal_var": False}):
        assert_same_anova(anova(dataset, **options), anova(whole, **options))
