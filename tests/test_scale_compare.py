"""`compare` out of core (issue 21): staged in group-complete parts, in any order, and finished
together, it gives the in-memory result bit for bit (the oracle: `compare` on the whole table).

The parts are made here by hand from the plan's ``partition`` columns (groups interleaved across
three parts, the parts shuffled), then through a real lazy dataset: a hive-partitioned
multi-file Parquet dataset read in chunks under a small memory limit.
"""
from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from scale_checks import first_appearance
from fastperf.data.chunked import finish_parts
from fastperf.protocols.compare import (compare, compare_finish, compare_options, compare_plan,
                                        compare_stage)

CONFIG = b"fastperf:config"  # the schema metadata that declares configuration columns


def same(a, b) -> bool:
    """Equal bit for bit as Python values: floats equal with their sign, NaN only to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def assert_same_table(got: pa.Table, want: pa.Table) -> None:
    """Same schema, same values bit for bit (NaN equal to NaN), and a dictionary-encoded
    column with the same dictionary and codes."""
    assert got.schema == want.schema
    for name in got.column_names:
        if pa.types.is_dictionary(got.schema.field(name).type):
            g, w = got.column(name).combine_chunks(), want.column(name).combine_chunks()
            assert g.dictionary.equals(w.dictionary) and g.indices.equals(w.indices), name
    got_rows, want_rows = got.to_pylist(), want.to_pylist()
    assert len(got_rows) == len(want_rows)
    for i, (g, w) in enumerate(zip(got_rows, want_rows)):
        assert same(g, w), (i, g, w)


def assert_same_result(got, want) -> None:
    assert_same_table(got.benchmarks, want.benchmarks)
    assert_same_table(got.overall, want.overall)
    assert same(got.summary, want.summary), (got.summary, want.summary)
    assert got.warnings == want.warnings
    assert got.key_columns == want.key_columns and got.unit_column == want.unit_column




def split(table: pa.Table, columns, parts: int, seed: int) -> list[pa.Table]:
    """Group-complete parts by `columns`: groups dealt to the parts at random (interleaved),
    each part's rows in input order, the parts shuffled."""
    rng = np.random.default_rng(seed)
    if not columns:
        return [table]
    keys = list(zip(*(table.column(c).to_pylist() for c in columns)))
    distinct = list(dict.fromkeys(keys))
    where = dict(zip(distinct, rng.integers(0, parts, len(distinct))))
    owner = np.array([where[k] for k in keys])
    chunks = [table.filter(pa.array(owner == p)) for p in range(parts)]
    chunks = [c for c in chunks if c.num_rows]
    return [chunks[i] for i in rng.permutation(len(chunks))]


def planned(table: pa.Table, **options):
    """The plan of `compare` on `table`, the options not given at `compare`'s defaults."""
    names = inspect.signature(compare_options).parameters
    defaults = {name: parameter.default
                for name, parameter in inspect.signature(compare).parameters.items()
                if name in names and parameter.default is not inspect.Parameter.empty}
    return compare_plan(table, compare_options(**{**defaults, **options}))


def chunked(table: pa.Table, seed: int = 0, parts: int = 3, **options):
    """`compare` staged on group-complete parts of `table` and finished together."""
    plan = planned(table, **options)
    staged = [compare_stage(part, plan) for part in split(table, plan.partition, parts, seed)]
    return finish_parts(staged, plan, compare_finish, {"input_rows": table.num_rows},
                        first_appearance(table, plan.order))


def hand_table(seed: int) -> pa.Table:
    """Several units (one of unknown direction), ties, constant and tiny groups, NaN and null
    values, values <= 0 and near the float64 limit, a null benchmark, a benchmark only a
    variant not compared has, a configuration column shared by the variants (a key) and one
    that tells them apart (a variant key)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"benchmark": [], "variant": [], "unit": [], "value": [], "cpu": [],
                             "toolchain": []}
    toolchain = {"base": "go1.21", "new": "go1.22", "new2": "go1.23", "other": "go1.20"}
    for b in range(14):
        for unit in ("ns/op", "B/op", "widgets", "ops/s"):
            if rng.random() < 0.2:
                continue
            for v in ("base", "new", "other", "new2"):
                if b == 13 and v != "other":
                    continue  # a benchmark of the variant not compared only
                size = int(rng.integers(0, 4)) if rng.random() < 0.3 else int(rng.integers(4, 13))
                kind = int(rng.integers(0, 7))
                for _ in range(size):
                    x = float(rng.lognormal(0.0, 0.1)) * (10.0 ** (b % 6))
                    if kind == 0:
                        x = round(x, 1)  # ties
                    elif kind == 1:
                        x = 1.0  # constant
                    elif kind == 2 and rng.random() < 0.3:
                        x = math.nan
                    elif kind == 3 and rng.random() < 0.3:
                        x = None
                    elif kind == 4:
                        x = -x if rng.random() < 0.5 else 0.0
                    elif kind == 5 and b == 12:
                        x = 1e307 * (1.0 + rng.random())
                    rows["benchmark"].append(None if b == 11 else f"b{b % 8}")
                    rows["variant"].append(v)
                    rows["unit"].append(unit)
                    rows["value"].append(x)
                    rows["cpu"].append(f"cpu{b % 3}")
                    rows["toolchain"].append(toolchain[v])
    table = pa.table(rows)
    table = table.take(pa.array(rng.permutation(table.num_rows))) if seed % 2 else table
    return table.replace_schema_metadata({CONFIG: json.dumps(["cpu", "toolchain"]).encode()})


HAND_OPTIONS = [
    dict(baseline="base", candidate="new"),
    dict(baseline="base", candidate=["new", "new2"], margin=0.1, threshold=0.02),
    dict(baseline="base", candidate=["new2", "other", "new"], by=["benchmark", "cpu"],
         alpha=0.1, confidence=0.9, adjust="holm"),
    dict(baseline="base", candidate=["new"], higher_is_better={"widgets": True},
         method="asymptotic"),
    dict(baseline="new", candidate=["base", "new2"], unit=None, higher_is_better=False,
         adjust="none", margin=0.2),
    dict(baseline="base", candidate="new2", by=[], adjust="bonferroni"),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", HAND_OPTIONS)
def test_hand_made_parts_give_the_in_memory_result(seed, options):
    table = hand_table(seed)
    want = compare(table, **options)
    got = chunked(table, seed=seed, **options)
    assert_same_result(got, want)
    assert got.runs is None  # the runs of the figures are kept in memory only


def test_hand_made_table_exercises_every_case():
    # the cases the parts must carry across: unknown direction, too few runs, no runs, values
    # <= 0, NaN/null dropped, several verdicts, a finite overall score ratio
    table = hand_table(0)
    want = compare(table, baseline="base", candidate=["new", "new2"], margin=0.1)
    status = set(want.benchmarks.column("status").to_pylist())
    assert {"no baseline runs", "values <= 0: no ratio interval"} <= status
    assert any(s.startswith("too few runs") for s in status)
    assert set(want.benchmarks.column("direction").to_pylist()) == {"lower", "higher", "unknown"}
    assert sum(want.benchmarks.column("n_dropped_candidate").to_pylist()) > 0
    assert any("no known direction" in w for w in want.warnings)
    assert want.summary["variant_keys"] == ["toolchain"] and "cpu" in want.summary["keys"]
    assert len({v for v, n in want.summary["verdicts"].items() if n}) >= 3
    assert np.isfinite(want.overall.column("score_ratio").to_numpy()).any()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", [
    dict(baseline="baseline", candidate="candidate"),
    dict(baseline="baseline", candidate=["candidate", "variant_2", "variant_3"], margin=0.05,
         threshold=0.01),
    dict(baseline="variant_2", candidate=["baseline"], adjust="holm", method="exact"),
])
def test_simulated_parts_give_the_in_memory_result(seed, options):
    table = fastperf.simulate(40, 7 + 2 * seed, variants=4, seed=seed).table
    if seed == 1:  # rows in no particular order
        table = table.take(pa.array(np.random.default_rng(seed).permutation(table.num_rows)))
    want = compare(table, **options)
    got = chunked(table, seed=seed, parts=2 + seed, **options)
    assert_same_result(got, want)


def test_one_part_is_the_in_memory_run():
    table = hand_table(5)
    options = dict(baseline="base", candidate=["new", "new2"], margin=0.1)
    plan = planned(table, **options)
    staged = compare_stage(table, plan, {})
    assert {"testable", "sign", "positive", "equivalent"} <= set(staged.extra.column_names)
    assert staged.extra.num_rows == staged.rows.num_rows
    got = compare_finish(staged, plan, {"input_rows": table.num_rows})
    assert got.benchmarks.column_names == staged.rows.column_names
    assert_same_result(got, compare(table, **options))


def test_plan_is_picklable_and_orders_candidates():
    import pickle

    table = hand_table(1)
    plan = planned(table, baseline="base", candidate=["new2", "new"])
    assert pickle.loads(pickle.dumps(plan)) == plan
    assert plan.partition == ("benchmark", "cpu")
    assert plan.order == ("candidate", "benchmark", "cpu", "unit")
    assert plan.order_values == {"candidate": ("new2", "new")}
    single = planned(table, baseline="base", candidate="new")
    assert single.order == ("benchmark", "cpu", "unit") and not single.order_values


def test_plan_errors_as_the_in_memory_call():
    table = hand_table(2)
    for options in (dict(baseline="base", candidate="absent"),
                    dict(baseline="base", candidate="new", alpha=2.0),
                    dict(baseline="base", candidate="base")):
        with pytest.raises(fastperf.InputError) as from_plan:
            planned(table, **options)
        with pytest.raises(fastperf.InputError) as direct:
            compare(table, **options)
        assert str(from_plan.value) == str(direct.value)


def _write_dataset(table: pa.Table, path) -> None:
    import pyarrow.dataset as ds

    ds.write_dataset(table, str(path), format="parquet", partitioning=["unit"],
                     partitioning_flavor="hive", max_rows_per_file=60, max_rows_per_group=25,
                     min_rows_per_group=0)


@pytest.mark.parametrize("options", [
    dict(baseline="baseline", candidate="candidate"),
    dict(baseline="baseline", candidate=["candidate", "variant_2"], margin=0.05),
])
def test_lazy_dataset_gives_the_in_memory_result(tmp_path, options):
    sim = fastperf.simulate(30, 9, variants=3, seed=4).table
    # two units, so that the hive partition column holds several values
    where = sim.column_names.index("unit")
    table = pa.concat_tables([
        sim.set_column(where, "unit", pa.array([unit] * sim.num_rows, pa.string()))
        for unit in ("s", "B/op")])
    _write_dataset(table, tmp_path)
    lazy = fastperf.read(str(tmp_path), lazy=True, memory_limit=200_000)
    want = compare(fastperf.read(str(tmp_path), lazy=True).to_table(), **options)
    got = compare(lazy, **options)
    assert_same_result(got, want)
    assert got.summary["comparisons"] > 0
