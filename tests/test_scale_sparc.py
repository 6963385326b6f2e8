"""`sparc` in group-complete chunks (`sparc_plan`, `sparc_stage`, `sparc_finish`,
`fastperf.data.chunked`) and on a lazy dataset.

Oracle: the in-memory `sparc` of the same table. Staged on group-complete parts of the table
(benchmarks dealt to the parts at random, the parts shuffled, some parts without a candidate or
the baseline at all) and finished together, it must give the same result bit for bit: the
per-benchmark table (p-values, medians, rejections after the family-wise correction over every
benchmark and candidate, conclusions), the overall tests, the summary and the warnings.
"""
from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError, sparc
from fastperf.data.chunked import finish_parts
from fastperf.protocols.sparc import sparc_finish, sparc_options, sparc_plan, sparc_stage
from scale_checks import (assert_identical_results, first_appearance, group_complete_parts,
                          write_dataset)

DEFAULTS = dict(by="benchmark", variant="variant", value="value", pair="run", margin=0.05,
                alpha=0.05, adjust="bonferroni", method="auto", overall=True,
                higher_is_better=False, min_runs=5, unit="unit", scale="log")


def plan_of(table, **options):
    return sparc_plan(table, sparc_options(**{**DEFAULTS, **options}))


def hand_table(seed: int = 3, n: int = 30) -> pa.Table:
    """Plain columns, rows shuffled: paired runs (``run``), a second key column (``cpu``),
    ties, NaN and null values, small benchmarks, runs on one side only or repeated, a side
    missing, a candidate (Z) that few benchmarks have, a null benchmark name, a ratio past
    float64 (1e300 against 1e-300), units differing between benchmarks."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "cpu": [], "variant": [], "run": [], "value": [], "unit": []}
    for i in range(n):
        base = rng.lognormal(0, 0.1, 40)
        for side, factor in (("X", 1.0), ("Y", 0.9 if i % 3 == 0 else 1.0 + 0.01 * (i % 2)),
                             ("Z", 1.3)):
            if (side == "X" and i % 11 == 4) or (side == "Y" and i % 9 == 7) \
                    or (side == "Z" and i % 5 != 1):
                continue
            size = 2 if i % 8 == 5 else 4 if i % 10 == 6 else int(rng.integers(6, 25))
            values = base[:size] * factor * rng.lognormal(0, 0.02, size)
            values = list(np.round(values, 1 if i % 4 == 0 else 9))  # ties
            runs = list(range(size))
            if i % 7 == 2 and side == "Y":
                runs = [r + 2 for r in runs]  # runs present on one side only
            if i % 13 == 8 and side == "X":
                runs[1] = runs[0]  # a repeated run
            if i % 6 == 1:
                values[0] = float("nan")
            if i % 6 == 3:
                values[-1] = None
            if i == 17:
                values = [1e300 if side == "X" else 1e-300] * size
            cols["benchmark"] += [None if i == 19 else f"b{(i * 7) % n:02d}"] * size
            cols["cpu"] += [f"c{i % 2}"] * size
            cols["variant"] += [side] * size
            cols["run"] += runs
            cols["value"] += values
            cols["unit"] += ["s" if i % 3 else "ns"] * size
    table = pa.table(cols)
    return table.take(pa.array(np.random.default_rng(seed + 1).permutation(table.num_rows)))


def assert_same(got, want) -> None:
    assert_identical_results(got, want, extra=("overall",))
    assert got.to_text() == want.to_text()
    assert got.to_json() == want.to_json()




def chunked(table, n_parts=3, seed=0, **options):
    """`sparc` staged on group-complete parts of `table` (shuffled) and finished together."""
    plan = plan_of(table, **options)
    parts = group_complete_parts(table, plan.partition, n_parts, seed)
    return finish_parts([sparc_stage(p, plan) for p in parts], plan, sparc_finish,
                        {"input_rows": table.num_rows}, first_appearance(table, plan.order))


HAND_OPTIONS = [
    dict(baseline="X", candidate="Y"),
    dict(baseline="X", candidate="Y", pair=None, scale="ratio", adjust="holm"),
    dict(baseline="X", candidate=["Y", "Z"], min_runs=3, adjust="holm"),
    dict(baseline="X", candidate=["Z", "Y"], pair=None, min_runs=2, margin=(0.9, 1.2)),
    dict(baseline="Y", candidate=["X"], by=["benchmark", "cpu"], scale="ratio",
         higher_is_better=True, method="asymptotic"),
    dict(baseline="X", candidate="Y", adjust="none", overall=False, method="exact", min_runs=4),
    dict(baseline="X", candidate=["Y", "Z"], by=["cpu", "benchmark"], pair=None,
         adjust="bonferroni", alpha=0.2),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", HAND_OPTIONS)
def test_hand_made_parts_give_the_in_memory_result(seed, options):
    table = hand_table(seed)
    want = sparc(table, **options)
    for n_parts in (3, 40):  # 40: most parts hold one benchmark, many without Z, X or Y
        got = chunked(table, n_parts=n_parts, seed=seed, **options)
        assert_same(got, want)
        assert got.runs is None  # the runs of the figures are kept in memory only


def test_hand_made_table_exercises_every_case():
    table = hand_table(0)
    paired = sparc(table, baseline="X", candidate=["Y", "Z"], min_runs=3, adjust="holm")
    status = set(paired.benchmarks.column("status").to_pylist())
    assert {"ok", "no runs to compare", "median ratio outside the float64 range"} <= status
    assert any(s.startswith("too few runs") for s in status)
    assert sum(paired.benchmarks.column("n_unmatched").to_pylist()) > 0
    assert sum(paired.benchmarks.column("n_duplicated").to_pylist()) > 0
    assert sum(paired.benchmarks.column("n_dropped").to_pylist()) > 0
    assert None in paired.benchmarks.column("benchmark").to_pylist()
    assert len(paired.warnings) >= 5
    assert paired.summary["conclusions"]["relevant difference"] > 0
    assert paired.overall.num_rows == 2
    # the candidate Z is missing from most parts of 40
    plan = plan_of(table, baseline="X", candidate=["Y", "Z"])
    parts = group_complete_parts(table, plan.partition, 40, 0)
    assert any("Z" not in p.column("variant").to_pylist() for p in parts)
    assert any("X" not in p.column("variant").to_pylist() for p in parts)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", [
    dict(baseline="baseline", candidate="candidate"),
    dict(baseline="baseline", candidate=["candidate", "variant_2", "variant_3"], adjust="holm",
         scale="ratio"),
    dict(baseline="variant_2", candidate=["baseline", "candidate"], pair=None, adjust="holm",
         min_runs=3),
    dict(baseline="baseline", candidate="variant_3", pair=None, higher_is_better=True,
         scale="ratio", margin=0.1),
])
def test_simulated_parts_give_the_in_memory_result(seed, options):
    table = fastperf.simulate(40, 5 + 3 * seed, variants=4, seed=seed, paired=True).table
    if seed == 1:  # rows in no particular order
        table = table.take(pa.array(np.random.default_rng(seed).permutation(table.num_rows)))
    want = sparc(table, **options)
    assert_same(chunked(table, n_parts=2 + seed, seed=seed, **options), want)


def test_one_part_is_the_in_memory_run():
    table = hand_table(4)
    options = dict(baseline="X", candidate=["Y", "Z"], pair=None, min_runs=3)
    plan = plan_of(table, **options)
    side: dict = {}
    staged = sparc_stage(table, plan, side)
    assert {"comparison", "log_median"} <= set(staged.extra.column_names)
    got = sparc_finish(staged, plan, {"input_rows": table.num_rows})
    assert got.benchmarks.column_names == staged.rows.column_names
    want = sparc(table, **options)
    assert_same(got, want)
    # the runs of the figures: the in-memory path keeps them through `side`
    runs = want.runs
    assert side["runs"].candidate_name == runs.candidate_name == "candidate"
    for a, b in ((side["runs"].baseline, runs.baseline), (side["runs"].candidate, runs.candidate)):
        assert np.array_equal(a.values, b.values) and np.array_equal(a.offsets, b.offsets)


def test_plan_is_picklable_and_orders_candidates():
    table = hand_table(1)
    plan = plan_of(table, baseline="X", candidate=["Z", "Y"], by=["benchmark", "cpu"])
    assert pickle.loads(pickle.dumps(plan)) == plan
    assert plan.partition == ("benchmark", "cpu")
    assert plan.order == ("candidate", "benchmark", "cpu")
    assert plan.order_values == {"candidate": ("Z", "Y")}
    single = plan_of(table, baseline="X", candidate="Y")
    assert single.order == single.partition == ("benchmark",)
    assert not single.order_values


def test_plan_errors_as_the_in_memory_call():
    table = hand_table(2)
    for options in (dict(baseline="X", candidate="absent"),
                    dict(baseline="absent", candidate=["Y"]),
                    dict(baseline="X", candidate=["Y", "absent"], pair=None),
                    dict(baseline="X", candidate="Y", alpha=2.0),
                    dict(baseline="X", candidate="Y", pair="no_such_column"),
                    dict(baseline="X", candidate="X")):
        with pytest.raises(InputError) as planned:
            plan_of(table, **options)
        with pytest.raises(InputError) as direct:
            sparc(table, **options)
        assert str(planned.value) == str(direct.value)


def test_chunk_errors_as_the_in_memory_call():
    # a non-positive value: the part holding it raises the in-memory message
    table = hand_table(5)
    values = table.column("value").to_pylist()
    where = next(i for i, v in enumerate(values) if v is not None and v == v)
    table = table.set_column(table.column_names.index("value"), "value",
                             pa.array(values[:where] + [-1.0] + values[where + 1:]))
    options = dict(baseline="X", candidate=["Y", "Z"], pair=None)  # every row is compared
    with pytest.raises(InputError, match="non-positive") as direct:
        sparc(table, **options)
    with pytest.raises(InputError) as staged:
        chunked(table, n_parts=40, **options)
    assert str(staged.value) == str(direct.value)


@pytest.mark.parametrize("options", [
    dict(baseline="baseline", candidate="candidate"),
    dict(baseline="baseline", candidate=["candidate", "variant_2"], pair=None, adjust="holm"),
])
def test_lazy_dataset_gives_the_in_memory_result(tmp_path, options, monkeypatch):
    import fastperf.protocols.sparc as module

    table = fastperf.simulate(30, 9, variants=3, seed=4, paired=True).table
    write_dataset(table, tmp_path, partition_by=("variant",), rows_per_file=60,
                  rows_per_group=25)
    want = sparc(fastperf.read(str(tmp_path), lazy=True).to_table(), **options)
    staged = []

    def counted(part, plan, side=None):
        staged.append(part.num_rows)
        return sparc_stage(part, plan, side)

    monkeypatch.setattr(module, "sparc_stage", counted)
    got = sparc(fastperf.read(str(tmp_path), lazy=True, memory_limit=200_000), **options)
    assert_same(got, want)
    assert len(staged) > 1 and sum(staged) == table.num_rows  # several chunks, every row once
    assert sum(want.summary["conclusions"].values()) > 0


def test_finish_parts_in_any_order_of_the_parts():
    table = hand_table(6)
    options = dict(baseline="X", candidate=["Y", "Z"], min_runs=3, adjust="holm")
    plan = plan_of(table, **options)
    parts = group_complete_parts(table, plan.partition, 5, 6)
    staged = [sparc_stage(p, plan) for p in parts]
    first = first_appearance(table, plan.order)
    want = sparc(table, **options)
    for order in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]):
        got = finish_parts([staged[i] for i in order if i < len(staged)], plan, sparc_finish,
                           {"input_rows": table.num_rows}, first)
        assert_same(got, want)
