"""`hpt` in group-complete chunks (`hpt_plan`, `hpt_stage`, `hpt_finish`,
`fastperf.data.chunked`) and on a lazy dataset.

Oracle: the in-memory `hpt` of the same table. Level 1 (the rank-sum test of each benchmark)
is staged on group-complete parts of the table (benchmarks dealt at random, parts shuffled,
some parts without the baseline or the candidate); level 2 (the signed-rank test over the
scores, the reliability, the speedup search, which tests every benchmark again at each speedup)
runs in the finish over every part. The result must be the in-memory one bit for bit: the
per-benchmark table, the speedups, the summary and the warnings.
"""
from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError, hpt
from fastperf.data.chunked import finish_parts
from fastperf.protocols.hpt import hpt_finish, hpt_options, hpt_plan, hpt_stage
from scale_checks import (assert_identical_results, first_appearance, group_complete_parts,
                          write_dataset)

DEFAULTS = dict(by="benchmark", variant="variant", value="value", alpha=0.05,
                confidences=(0.9, 0.95, 0.99), method="auto", higher_is_better=False,
                max_speedup=10.0, unit="unit", scale="log")


def plan_of(table, **options):
    return hpt_plan(table, hpt_options(**{**DEFAULTS, **options}))




def chunked(table, n_parts=3, seed=0, **options):
    """`hpt` staged on group-complete parts of `table` (shuffled) and finished together."""
    plan = plan_of(table, **options)
    parts = group_complete_parts(table, plan.partition, n_parts, seed)
    return finish_parts([hpt_stage(p, plan) for p in parts], plan, hpt_finish,
                        {"input_rows": table.num_rows}, first_appearance(table, plan.order))


def hand_table(seed: int = 3, n: int = 24) -> pa.Table:
    """Plain columns, rows shuffled: a second key column (``cpu``), ties, NaN and null
    values, tiny benchmarks (1 or 2 runs a side), a side missing, constant samples, a null
    benchmark name, a ratio past float64 (1e300 against 1e-300), speedups from 0.8 to 2."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "cpu": [], "variant": [], "value": [], "unit": []}
    for i in range(n):
        speedup = 0.8 + 1.2 * rng.random() if i % 4 else 1.0
        for side in ("X", "Y"):
            if (side == "X" and i % 11 == 4) or (side == "Y" and i % 9 == 7):
                continue
            size = 1 if i % 8 == 5 else 2 if i % 10 == 6 else int(rng.integers(5, 20))
            values = rng.lognormal(0, 0.05, size) * (speedup if side == "X" else 1.0)
            values = list(np.round(values, 1 if i % 4 == 0 else 9))  # ties
            if i % 7 == 1:
                values[0] = float("nan")
            if i % 7 == 3:
                values[-1] = None
            if i % 12 == 10:
                values = [2.0] * size  # constant
            if i == 17:
                values = [1e300 if side == "X" else 1e-300] * size
            cols["benchmark"] += [None if i == 19 else f"b{(i * 5) % n:02d}"] * size
            cols["cpu"] += [f"c{i % 2}"] * size
            cols["variant"] += [side] * size
            cols["value"] += values
            cols["unit"] += ["s" if i % 3 else "ns"] * size
    table = pa.table(cols)
    return table.take(pa.array(np.random.default_rng(seed + 1).permutation(table.num_rows)))


def assert_same(got, want) -> None:
    assert_identical_results(got, want, extra=("speedups",))
    assert got.to_text() == want.to_text()
    assert got.to_json() == want.to_json()


HAND_OPTIONS = [
    dict(baseline="X", candidate="Y"),
    dict(baseline="X", candidate="Y", scale="ratio", alpha=0.2, method="asymptotic"),
    dict(baseline="Y", candidate="X", by=["benchmark", "cpu"], higher_is_better=True,
         confidences=(0.5, 0.8)),
    dict(baseline="X", candidate="Y", by=["cpu", "benchmark"], method="exact", alpha=0.3,
         max_speedup=3),
    dict(baseline="X", candidate="Y", scale="ratio", confidences=(0.6,), max_speedup=1.5),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", HAND_OPTIONS)
def test_hand_made_parts_give_the_in_memory_result(seed, options):
    table = hand_table(seed)
    want = hpt(table, **options)
    for n_parts in (3, 30):  # 30: most parts hold one benchmark, some without X or Y
        got = chunked(table, n_parts=n_parts, seed=seed, **options)
        assert_same(got, want)
        assert got.runs is None  # the runs of the figures are kept in memory only


def test_hand_made_table_exercises_every_case():
    table = hand_table(0)
    res = hpt(table, baseline="X", candidate="Y", alpha=0.2, confidences=(0.5, 0.8))
    status = set(res.benchmarks.column("status").to_pylist())
    assert {"ok", "missing baseline", "missing candidate",
            "median ratio outside the float64 range"} <= status
    assert None in res.benchmarks.column("benchmark").to_pylist()
    assert sum(res.benchmarks.column("significant").to_pylist()) >= 3
    assert sum(res.benchmarks.column("n_dropped_baseline").to_pylist()) > 0
    assert len(res.warnings) == 2
    speedups = res.speedups.column("speedup").to_pylist()
    assert any(s == s and 1.0 < s < 10.0 for s in speedups)  # a speedup found by the search
    plan = plan_of(table, baseline="X", candidate="Y")
    parts = group_complete_parts(table, plan.partition, 30, 0)
    assert any("X" not in p.column("variant").to_pylist() for p in parts)
    assert any("Y" not in p.column("variant").to_pylist() for p in parts)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", [
    dict(baseline="baseline", candidate="candidate"),
    dict(baseline="variant_2", candidate="baseline", scale="ratio", alpha=0.1),
    dict(baseline="baseline", candidate="variant_2", higher_is_better=True, method="exact",
         confidences=(0.7, 0.9)),
])
def test_simulated_parts_give_the_in_memory_result(seed, options):
    table = fastperf.simulate(30, 5 + 3 * seed, variants=3, seed=seed,
                              effects=None).table
    if seed == 1:  # rows in no particular order
        table = table.take(pa.array(np.random.default_rng(seed).permutation(table.num_rows)))
    want = hpt(table, **options)
    assert_same(chunked(table, n_parts=2 + seed, seed=seed, **options), want)


def test_one_part_is_the_in_memory_run():
    table = hand_table(4)
    options = dict(baseline="X", candidate="Y", alpha=0.2)
    plan = plan_of(table, **options)
    side: dict = {}
    staged = hpt_stage(table, plan, side)
    assert {"a", "b"} <= set(staged.extra.column_names)
    got = hpt_finish(staged, plan, {"input_rows": table.num_rows})
    assert got.benchmarks.column_names == staged.rows.column_names
    want = hpt(table, **options)
    assert_same(got, want)
    runs = want.runs  # the in-memory path keeps the runs through `side`
    assert (side["runs"].baseline_name, side["runs"].candidate_name) == ("X", "Y")
    for a, b in ((side["runs"].baseline, runs.baseline), (side["runs"].candidate, runs.candidate)):
        assert np.array_equal(a.values, b.values) and np.array_equal(a.offsets, b.offsets)


def test_plan_is_picklable_and_keyed_by_benchmark():
    table = hand_table(1)
    plan = plan_of(table, baseline="X", candidate="Y", by=["benchmark", "cpu"])
    assert pickle.loads(pickle.dumps(plan)) == plan
    assert plan.partition == plan.order == ("benchmark", "cpu")
    assert not plan.order_values


def test_plan_errors_as_the_in_memory_call():
    table = hand_table(2)
    for options in (dict(baseline="X", candidate="absent"),
                    dict(baseline="absent", candidate="Y"),
                    dict(baseline="X", candidate=["Y"]),
                    dict(baseline="X", candidate="Y", max_speedup=0.5),
                    dict(baseline="X", candidate="Y", value="no_such_column")):
        with pytest.raises(InputError) as planned:
            plan_of(table, **options)
        with pytest.raises(InputError) as direct:
            hpt(table, **options)
        assert str(planned.value) == str(direct.value)


def test_lazy_dataset_gives_the_in_memory_result(tmp_path, monkeypatch):
    import fastperf.protocols.hpt as module

    table = fastperf.simulate(30, 9, variants=3, seed=4, effects=1.3).table
    write_dataset(table, tmp_path, partition_by=("variant",), rows_per_file=60,
                  rows_per_group=25)
    options = dict(baseline="baseline", candidate="candidate", alpha=0.1)
    want = hpt(fastperf.read(str(tmp_path), lazy=True).to_table(), **options)
    staged = []

    def counted(part, plan, side=None):
        staged.append(part.num_rows)
        return hpt_stage(part, plan, side)

    monkeypatch.setattr(module, "hpt_stage", counted)
    got = hpt(fastperf.read(str(tmp_path), lazy=True, memory_limit=200_000), **options)
    assert_same(got, want)
    assert len(staged) > 1 and sum(staged) == table.num_rows  # several chunks, every row once
    assert want.summary["significant"] > 0
