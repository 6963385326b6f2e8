"""The one-pass data plumbing of `compare` (issue 42), against plain Python written out here:
key codes of chunked dictionary columns that share one dictionary, the run sequences gathered
with their positions checked in the same pass (`fastperf.kernels.grouping.segment_values`), the
samples taken from groups that are runs of rows without a gather first, and the traces."""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from fastperf import compare
from fastperf.data.grouping import key_codes, key_dictionary
from fastperf.data.levels import Structure, run_sequences
from fastperf.data.samples import chunk_variant_samples
from fastperf.kernels.grouping import segment_values


def chunked_dictionary(values, dictionary, cuts, dictionaries=None):
    """`values` (Python values, each in `dictionary`) as a dictionary column cut into chunks at
    `cuts`, every chunk with `dictionary` (or its own of `dictionaries`)."""
    chunks = []
    for i, (start, end) in enumerate(zip(cuts[:-1], cuts[1:])):
        own = dictionary if dictionaries is None else dictionaries[i]
        index = {v: k for k, v in reversed(list(enumerate(own)))}
        chunks.append(pa.DictionaryArray.from_arrays(
            pa.array([index[v] for v in values[start:end]], pa.int32()), pa.array(own)))
    return pa.chunked_array(chunks)


def assert_codes_encode(codes, dictionary, values):
    """Each row's code names its value, and equal values share one code."""
    decoded = dictionary.to_pylist()
    assert [decoded[c] for c in codes] == values
    first = {}
    for code, value in zip(codes.tolist(), values):
        assert first.setdefault(value, code) == code


@pytest.mark.parametrize("dictionary", [["a", "b", "c", "d"], ["d", "b", "a", "c", "unused"]])
def test_chunks_sharing_one_dictionary_keep_its_codes(dictionary):
    rng = np.random.default_rng(0)
    values = [str(v) for v in rng.choice(["a", "b", "c", "d"], 50)]
    column = chunked_dictionary(values, dictionary, [0, 10, 11, 30, 50])
    codes, got = key_codes(column, "k")
    assert got.to_pylist() == dictionary  # the shared dictionary, in its order
    assert_codes_encode(codes, got, values)
    assert codes.dtype == np.int32


def test_chunks_with_different_dictionaries_are_unified():
    values = ["a", "b", "c", "a", "c", "b"]
    column = chunked_dictionary(values, None, [0, 3, 6], [["a", "b", "c"], ["c", "b", "a"]])
    codes, dictionary = key_codes(column, "k")
    assert dictionary.to_pylist() == ["a", "b", "c"]
    assert_codes_encode(codes, dictionary, values)


def test_a_shared_dictionary_holding_a_value_twice_gives_it_one_code():
    # two entries "a": unifying merges them, so the rows of either are one group
    values = ["a", "b", "a", "a", "b", "a"]
    parts = [pa.DictionaryArray.from_arrays(pa.array(index, pa.int32()), pa.array(["a", "b", "a"]))
             for index in ([0, 1, 2], [2, 1, 0])]
    codes, dictionary = key_codes(pa.chunked_array(parts), "k")
    assert_codes_encode(codes, dictionary, values)
    result = compare(pa.table({"benchmark": pa.chunked_array(parts),
                               "variant": ["x", "y", "x", "y", "x", "y"],
                               "value": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}),
                     baseline="x", candidate="y")
    assert sorted(result.table.column("benchmark").to_pylist()) == ["a", "b"]


def test_key_dictionary_without_the_codes():
    plain = pa.chunked_array([["b", None, "a"], ["c", "b"]])
    assert key_dictionary(plain, "k").to_pylist() == ["b", None, "a", "c"]  # first appearance
    shared = chunked_dictionary(["x", "y", "x"], ["y", "x", "z"], [0, 1, 3])
    assert key_dictionary(shared, "k").to_pylist() == ["y", "x", "z"]
    assert key_dictionary(pa.chunked_array([], pa.string()), "k").to_pylist() == []


def python_sequences(table, keys, variant, position):
    """Per (keys, variant) group in first-appearance order: its rows sorted by `position`
    (stable; NaN or no position last), those with a NaN or null value left out, and the count
    left out."""
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    groups = {}
    for row in range(table.num_rows):
        key = tuple(columns[k][row] for k in [*keys, variant])
        groups.setdefault(key, []).append(row)
    out = {}
    for key, rows in groups.items():
        if position is not None:
            def place(row):
                p = columns[position][row]
                return math.inf if p is None or math.isnan(p) else p
            rows = sorted(rows, key=place)
        kept = [r for r in rows if columns["value"][r] is not None
                and not math.isnan(columns["value"][r])]
        out[key] = (kept, len(rows) - len(kept))
    return out


def measurement_table(rng, shuffle, run_order, nan_values=True, nan_runs=False):
    rows = {"benchmark": [], "variant": [], "run": [], "value": []}
    for b in range(5):
        for v in ("base", "head"):
            runs = np.arange(7)
            if run_order == "reversed":
                runs = runs[::-1]
            elif run_order == "permuted":
                runs = rng.permutation(7)
            for r in runs:
                rows["benchmark"].append(f"b{b}")
                rows["variant"].append(v)
                rows["run"].append(float(r))
                rows["value"].append(float(rng.lognormal()))
    value, run = np.array(rows["value"]), np.array(rows["run"])
    if nan_values:
        value[::9] = np.nan
    if nan_runs:
        run[::5] = np.nan
    table = pa.table({**rows, "value": value, "run": run})
    if shuffle:
        table = table.take(pa.array(rng.permutation(table.num_rows)))
    return table


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("run_order", ["ascending", "reversed", "permuted"])
@pytest.mark.parametrize("nan_runs", [False, True])
def test_run_sequences_against_python(shuffle, run_order, nan_runs):
    rng = np.random.default_rng(3)
    table = measurement_table(rng, shuffle, run_order, nan_runs=nan_runs)
    sequences = run_sequences(table, ["benchmark"], "variant", "value", Structure())
    expected = python_sequences(table, ["benchmark"], "variant", "run")
    keys = list(zip(*(sequences.keys.column(k).to_pylist() for k in ("benchmark", "variant"))))
    assert sorted(keys) == sorted(expected)
    values = table.column("value").to_numpy()
    offsets = sequences.group_offsets
    for g, key in enumerate(keys):
        rows, dropped = expected[key]
        assert sequences.rows[offsets[g]:offsets[g + 1]].tolist() == rows
        assert sequences.values[offsets[g]:offsets[g + 1]].tolist() == values[rows].tolist()
        assert sequences.n_dropped[g] == dropped


def test_segment_values_reports_the_first_segment_out_of_order():
    column = np.array([1.0, np.nan, 3.0, 4.0, 5.0])
    offsets = np.array([0, 2, 5], dtype=np.int64)
    starts = np.array([0, 2], dtype=np.int64)
    no_order, no_position = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    values, rows, kept, in_order = segment_values(column, no_order, starts, offsets, no_position)
    assert in_order and values.tolist() == [1.0, 3.0, 4.0, 5.0]
    assert rows.tolist() == [0, 2, 3, 4] and kept.tolist() == [0, 1, 4]
    # a NaN position may follow anything; a number may not follow a NaN
    position = np.array([0.0, np.nan, 2.0, 3.0, np.nan])
    assert segment_values(column, no_order, starts, offsets, position)[3]
    position = np.array([0.0, 1.0, np.nan, 3.0, 4.0])
    assert not segment_values(column, no_order, starts, offsets, position)[3]
    # rows by an explicit order: segment 1 is rows 4, 2
    order = np.array([1, 0, 4, 2, 3], dtype=np.int64)
    values, rows, kept, in_order = segment_values(column, order, starts, offsets, no_position)
    assert rows.tolist() == [0, 4, 2, 3] and kept.tolist() == [0, 1, 4]


@pytest.mark.parametrize("shuffle", [False, True])
def test_variant_major_samples_against_python(shuffle):
    # every baseline row before every candidate row: each group one run of rows, the runs not
    # in group order (the samples are taken where they lie)
    rng = np.random.default_rng(5)
    table = measurement_table(rng, False, "ascending")
    variant = table.column("variant").to_numpy(zero_copy_only=False)
    table = table.take(pa.array(np.argsort(variant == "head", kind="stable")))
    if shuffle:
        table = table.take(pa.array(rng.permutation(table.num_rows)))
    vs = chunk_variant_samples(table, ["base", "head"], ["benchmark"], "variant", "value")
    expected = python_sequences(table, ["benchmark"], "variant", None)
    values = table.column("value").to_numpy()
    for i, benchmark in enumerate(vs.keys.column("benchmark").to_pylist()):
        for name in ("base", "head"):
            rows, dropped = expected[(benchmark, name)]
            sample = vs.samples[name]
            got = sample.values[sample.offsets[i]:sample.offsets[i + 1]]
            assert got.tolist() == values[rows].tolist()
            assert vs.n_dropped[name][i] == dropped


def test_traces_are_each_rows_values_in_measurement_order():
    rng = np.random.default_rng(7)
    table = measurement_table(rng, True, "permuted")
    result = compare(table, baseline="base", candidate="head")
    traces = result.runs.traces
    expected = python_sequences(table, ["benchmark"], "variant", "run")
    values = table.column("value").to_numpy()
    for i, benchmark in enumerate(result.table.column("benchmark").to_pylist()):
        for side, name in ((traces.baseline, "base"), (traces.candidate, "head")):
            got = side.values[side.offsets[i]:side.offsets[i + 1]]
            assert got.tolist() == values[expected[(benchmark, name)][0]].tolist()
