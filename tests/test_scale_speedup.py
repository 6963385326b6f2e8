"""`speedup_test` in group-complete chunks (`speedup_plan`, `speedup_stage`, `speedup_finish`,
`fastperf.data.chunked`) and on a lazy dataset.

Oracle: the in-memory `speedup_test` of the same table: the chunked result must be identical
bit for bit (per-benchmark table, summary with the overall speedups and proportions, warnings,
errors, the four reports).
"""
from __future__ import annotations

import inspect

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf import InputError, speedup_test
from fastperf.data.chunked import StageRows
from fastperf.protocols.speedup import (speedup_finish, speedup_options, speedup_plan,
                                        speedup_stage)
from scale_checks import (LAYOUTS, assert_identical_results, lazy_pair, run_in_parts)

SIM = {"baseline": "baseline", "candidate": "candidate"}
HAND = {"baseline": "X", "candidate": "Y"}


def hand_table(seed: int = 5, n: int = 36) -> pa.Table:
    """Plain (not dictionary-encoded) columns, rows interleaved: ties (values rounded to one
    decimal), NaN and null values, benchmarks with 1 or 2 values a side, constant samples,
    a side missing, per-benchmark weight and alpha columns, a configuration column."""
    rng = np.random.default_rng(seed)
    cols = {"benchmark": [], "cfg": [], "variant": [], "value": [], "w": [], "a": []}
    for i in range(n):
        for side in ("X", "Y"):
            if (i % 7 == 3 and side == "X") or (i % 11 == 5 and side == "Y"):
                continue  # a benchmark without one side
            size = 1 if i % 9 == 2 else 2 if i % 13 == 4 else int(rng.integers(3, 40))
            factor = 1.1 if side == "X" and i % 2 else 1.0
            values = list(np.round(rng.lognormal(0, 0.1, size) * factor, 1 if i % 4 == 0 else 6))
            if i % 5 == 1:
                values[0] = float("nan")
            if i % 6 == 2:
                values.append(None)
            if i % 10 == 7:
                values = [2.0] * len(values)  # constant samples
            cols["benchmark"] += [f"b{(i * 7) % n:02d}"] * len(values)
            cols["cfg"] += [f"c{i % 2}"] * len(values)
            cols["variant"] += [side] * len(values)
            cols["value"] += values
            cols["w"] += [float(1 + i % 4)] * len(values)
            cols["a"] += [0.01 + 0.01 * (i % 5)] * len(values)
    table = pa.table(cols)
    return table.take(pa.array(np.random.default_rng(seed + 1).permutation(table.num_rows)))


def assert_same_result(got, want) -> None:
    """Identical tables, summaries, warnings, errors and report texts."""
    assert_identical_results(got, want)
    assert got.errors == want.errors
    assert got.to_text() == want.to_text()
    assert got.to_markdown() == want.to_markdown()
    assert got.to_json() == want.to_json()


def planned(table: pa.Table, **options):
    """The plan of `speedup_test` on `table`, the options not given at its defaults."""
    names = inspect.signature(speedup_options).parameters
    defaults = {name: parameter.default
                for name, parameter in inspect.signature(speedup_test).parameters.items()
                if name in names and parameter.default is not inspect.Parameter.empty}
    return speedup_plan(table, speedup_options(**{**defaults, **options}))


def chunked(table: pa.Table, n_parts: int = 3, seed: int = 0, **options):
    plan = planned(table, **options)
    return run_in_parts(table, plan, speedup_stage, speedup_finish, n_parts, seed)


CASES = [
    ("sim", lambda: fastperf.simulate(60, 12, seed=1).table, SIM),
    ("sim_large_higher", lambda: fastperf.simulate(30, 35, seed=2).table,
     {**SIM, "higher_is_better": True, "median_method": "exact", "alpha": 0.1}),
    ("sim_small_large_sample", lambda: fastperf.simulate(40, 8, seed=3).table,
     {**SIM, "large_sample": 5, "median_method": "asymptotic", "precision": 0.1,
      "proportion_confidence": 0.9}),
    ("hand", hand_table, HAND),
    ("hand_weights_column", hand_table, {**HAND, "weights": "w"}),
    ("hand_alpha_column", hand_table, {**HAND, "alpha": "a"}),
    ("hand_two_keys", hand_table, {**HAND, "by": ["benchmark", "cfg"], "higher_is_better": True}),
    ("hand_weights_mapping", hand_table,
     {**HAND, "weights": {f"b{i:02d}": 1.0 + i % 5 for i in range(36)}}),
]


@pytest.mark.parametrize("name, make, options", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("n_parts, seed", [(2, 0), (3, 1), (5, 2)])
def test_chunks_in_any_order_give_the_in_memory_result(name, make, options, n_parts, seed):
    table = make()
    want = speedup_test(table, **options)
    got = chunked(table, n_parts, seed, **options)
    assert got.summary["benchmarks"] > 10
    assert_same_result(got, want)


def test_the_in_memory_run_is_plan_stage_finish_and_keeps_the_runs(tmp_path):
    table = hand_table()
    want = speedup_test(table, **HAND, weights="w")
    got = chunked(table, 1, 0, **HAND, weights="w")
    assert_same_result(got, want)
    # the reports as files too
    a, b = got.write_reports(tmp_path / "a"), want.write_reports(tmp_path / "b")
    assert {k: p.read_text() for k, p in a.items()} == {k: p.read_text() for k, p in b.items()}
    # the runs for the figures come from the stage, aligned with the rows, in memory only
    assert got.runs is None and want.runs is not None
    n = want.benchmarks
    assert want.runs.baseline.sizes.tolist() == n.column("n_baseline").to_pylist()
    assert want.runs.candidate.sizes.tolist() == n.column("n_candidate").to_pylist()
    assert want.summary["benchmarks"] > want.summary["benchmarks_compared"] > 0
    assert want.errors and want.warnings  # the table has benchmarks not compared, notes


def test_the_finish_inputs_do_not_reach_the_result():
    table = hand_table()
    plan = planned(table, **HAND)
    staged = speedup_stage(table, plan)
    assert {"weight", "compared"} <= set(staged.extra.column_names)
    assert staged.extra.num_rows == staged.rows.num_rows
    result = speedup_finish(staged, plan, {"input_rows": table.num_rows})
    assert result.benchmarks.column_names == staged.rows.column_names


def test_a_chunk_without_one_variant_is_staged():
    # every benchmark of one part may lack the candidate: the stage gives empty samples
    table = pa.table({"benchmark": ["a"] * 4 + ["b"] * 6,
                      "variant": ["X"] * 4 + ["X", "Y"] * 3,
                      "value": [1.0, 1.1, 1.2, 1.3, 2.0, 1.0, 2.1, 1.1, 2.2, 1.2]})
    want = speedup_test(table, **HAND)
    for seed in range(4):
        assert_same_result(chunked(table, 2, seed, **HAND), want)
    assert want.errors == ["a: missing candidate: not compared"]


def test_fallback_messages_of_the_chunks_are_added_up():
    # the Kolmogorov-Smirnov fallback message of each chunk (on its first row) counts that
    # chunk's pairs: the finish gives one message with the total, as one chunk would
    table = hand_table()
    plan = planned(table, **HAND)
    message = ("ks_2samp: exact p-value unsuccessful for {} pair(s) (floating-point overflow, "
               "or rounding beyond [0, 1]); the asymptotic p-value was used (as scipy)")
    staged = speedup_stage(table, plan)
    extra = staged.extra
    where = extra.column_names.index("ks_messages")
    texts = [""] * extra.num_rows
    texts[0], texts[5] = message.format(2), message.format(3)
    extra = extra.set_column(where, "ks_messages", pa.array(texts, pa.string()))
    result = speedup_finish(StageRows(staged.rows, extra), plan,
                            {"input_rows": table.num_rows})
    assert message.format(5) in result.warnings
    assert not [w for w in result.warnings if "pair(s)" in w and w != message.format(5)]


def test_plan_errors_come_from_the_whole_table():
    table = hand_table()
    with pytest.raises(InputError, match="variant 'Z' not found"):
        planned(table, baseline="X", candidate="Z")
    with pytest.raises(InputError, match="weights has no entry for benchmark"):
        planned(table, **HAND, weights={"b00": 1.0})
    with pytest.raises(InputError, match="names no column"):
        planned(table, **HAND, alpha="nope")


def test_a_benchmark_error_is_raised_by_its_chunk():
    table = hand_table()
    bad = table.set_column(table.column_names.index("value"), "value",
                           pa.array([-1.0] + table.column("value").to_pylist()[1:]))
    with pytest.raises(InputError, match="non-positive value"):
        speedup_test(bad, **HAND)
    with pytest.raises(InputError, match="non-positive value"):
        chunked(bad, 3, 0, **HAND)


# ------------------------------------------------------------------------------ lazy dataset





@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("options", [SIM, {**SIM, "higher_is_better": True, "large_sample": 5}],
                         ids=["default", "higher_large"])
def test_lazy_dataset_gives_the_in_memory_result(tmp_path, options, layout):
    table = fastperf.simulate(150, 31, seed=4).table
    dataset, whole = lazy_pair(table, tmp_path, **LAYOUTS[layout])
    got, want = speedup_test(dataset, **options), speedup_test(whole, **options)
    assert_same_result(got, want)
    assert got.runs is None and want.runs is not None


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lazy_dataset_with_numeric_weight_and_alpha_columns(tmp_path, layout):
    # numeric columns are not in the dataset's key table: the stage reads them per benchmark
    table = hand_table(seed=7, n=200)
    dataset, whole = lazy_pair(table, tmp_path, **LAYOUTS[layout])
    for options in ({**HAND, "weights": "w"}, {**HAND, "alpha": "a"},
                    {**HAND, "by": ["benchmark", "cfg"]}):
        got, want = speedup_test(dataset, **options), speedup_test(whole, **options)
        assert_same_result(got, want)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lazy_dataset_with_a_numeric_variant_column(tmp_path, layout):
    # a numeric variant column is left null in the key table: the plan cannot look for the
    # variants there, the finish says when no row has one (the dataset reads it as text)
    table = fastperf.simulate(150, 31, seed=6).table
    variant = pa.array([1 if v == "baseline" else 2
                        for v in table.column("variant").to_pylist()], pa.int64())
    table = table.set_column(table.column_names.index("variant"), "variant", variant)
    dataset, whole = lazy_pair(table, tmp_path, partition_by=(), **LAYOUTS[layout])
    assert planned(dataset.key_table(["value"]), baseline="1",
                   candidate="2").variants_checked is False
    for data in (whole, dataset):
        with pytest.raises(InputError) as error:
            speedup_test(data, baseline="1", candidate="3")
        assert str(error.value) == "variant '3' not found; the 'variant' column holds ['1', '2']"
    want = speedup_test(whole, baseline="1", candidate="2")
    assert want.summary["benchmarks_compared"] == 150
    assert_same_result(speedup_test(dataset, baseline="1", candidate="2"), want)
