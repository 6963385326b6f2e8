"""The one grouping into units that nested `compare` shares with its flat samples
(fastperf.data.levels.variant_samples_of / unit_samples_of) and the kernels behind it
(unit_moments, segment_means, take_unit_runs), against plain Python and numpy written out here."""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from fastperf.data.levels import (Structure, unit_samples_of, units_of, variant_samples_of)
from fastperf.errors import InputError
from fastperf.kernels.grouping import take_unit_runs
from fastperf.kernels.moments import segment_means, unit_moments

KEYS, VARIANT, VALUE = ["benchmark"], "variant", "value"


def run_table(rng, benchmarks=4, processes=5, iterations=3, variants=("base", "head")):
    """Rows benchmark by benchmark, variant by variant, process by process (each unit one run
    of rows), with a NaN, a unit of NaN only and a benchmark without its second variant."""
    rows = {"benchmark": [], "variant": [], "process": [], "value": []}
    for b in range(benchmarks):
        for v in variants:
            if b == benchmarks - 1 and v == variants[-1]:
                continue
            for p in range(processes):
                for _ in range(iterations):
                    rows["benchmark"].append(f"b{b}")
                    rows["variant"].append(v)
                    rows["process"].append(p)
                    rows["value"].append(float(rng.lognormal()))
    value = np.array(rows["value"])
    value[1] = np.nan
    value[3 * iterations:4 * iterations] = np.nan  # benchmark 0, base, process 3
    rows["value"] = value
    return pa.table(rows)


def python_samples(table, variants):
    """Per (benchmark, variant): the non-NaN values in row order and the NaN count."""
    kept, dropped = {}, {}
    for b, v, x in zip(*(table.column(c).to_pylist() for c in ("benchmark", "variant", "value"))):
        kept.setdefault((b, v), [])
        dropped.setdefault((b, v), 0)
        if x is None or math.isnan(x):
            dropped[(b, v)] += 1
        else:
            kept[(b, v)].append(x)
    return kept, dropped


def check_samples(vs, table, variants):
    kept, dropped = python_samples(table, variants)
    names = [str(b) for b in vs.keys.column("benchmark").to_pylist()]
    assert sorted(names) == sorted({b for b, _ in kept})
    for v in variants:
        sample = vs.samples[v]
        for i, b in enumerate(names):
            got = sample.values[sample.offsets[i]:sample.offsets[i + 1]].tolist()
            assert got == kept.get((b, v), [])
            assert vs.n_dropped[v][i] == dropped.get((b, v), 0)


@pytest.mark.parametrize("interleave", [False, True])
def test_flat_samples_from_the_units_are_each_groups_values_in_row_order(interleave):
    rng = np.random.default_rng(1)
    table = run_table(rng)
    if interleave:  # process k of each variant one after the other: groups not one run
        order = np.lexsort((np.array(table.column("variant").to_pylist()) == "head",
                            table.column("process").to_numpy(),
                            np.array([int(b[1:]) for b in table.column("benchmark").to_pylist()])))
        table = table.take(pa.array(order))
    units = units_of(table, KEYS, VARIANT, VALUE, Structure(("process",)))
    vs = variant_samples_of(units, table, ["base", "head", "absent"], KEYS, VARIANT, VALUE)
    check_samples(vs, table, ["base", "head", "absent"])
    assert vs.groups.order is None if not interleave else vs.groups.order is not None
    # the groups say which rows each (benchmark, variant) holds
    groups = vs.groups
    rows = groups.row_order()
    variant = table.column("variant").to_pylist()
    for g in range(groups.n_groups):
        names = {variant[r] for r in rows[groups.offsets[g]:groups.offsets[g + 1]]}
        assert names == {groups.keys.column("variant")[g].as_py()}


def test_flat_samples_are_left_to_the_grouper_where_units_are_not_runs():
    """Iterations written before processes: a unit's rows are not one run of the table."""
    rng = np.random.default_rng(2)
    table = run_table(rng)
    order = np.lexsort((table.column("process").to_numpy(),
                        np.arange(table.num_rows) % 3,
                        np.array(table.column("variant").to_pylist()) == "head",
                        np.array([int(b[1:]) for b in table.column("benchmark").to_pylist()])))
    table = table.take(pa.array(order))
    units = units_of(table, KEYS, VARIANT, VALUE, Structure(("process",)))
    vs = variant_samples_of(units, table, ["base", "head"], KEYS, VARIANT, VALUE)
    # the grouper's samples (its own grouping of the rows), each group's values in row order
    assert vs.groups is not units.unit_rows and vs.groups.keys.num_columns == 2
    check_samples(vs, table, ["base", "head"])


def test_flat_samples_are_left_to_the_grouper_with_an_infinite_value():
    table = run_table(np.random.default_rng(3))
    value = table.column("value").to_numpy(zero_copy_only=False).copy()
    value[5] = np.inf
    table = table.set_column(3, "value", pa.array(value))
    with np.errstate(invalid="ignore"):
        units = units_of(table, KEYS, VARIANT, VALUE, Structure(("process",)))
    with pytest.raises(InputError, match="infinite"):  # the grouper's error
        variant_samples_of(units, table, ["base", "head"], KEYS, VARIANT, VALUE)


def test_unit_samples_are_the_unit_means_of_each_benchmark_and_variant():
    rng = np.random.default_rng(4)
    table = run_table(rng)
    units = units_of(table, KEYS, VARIANT, VALUE, Structure(("process",)))
    vs = unit_samples_of(units, ["base", "head", "absent"], KEYS, VARIANT, VALUE)
    # the oracle: each unit's mean by a Python loop, in the order the units first appear
    sums = {}
    for b, v, p, x in zip(*(table.column(c).to_pylist()
                            for c in ("benchmark", "variant", "process", "value"))):
        if not math.isnan(x):
            total, count = sums.get((b, v, p), (0.0, 0))
            sums[(b, v, p)] = (total + x, count + 1)
        else:
            sums.setdefault((b, v, p), (0.0, 0))
    names = [str(b) for b in vs.keys.column("benchmark").to_pylist()]
    for v in ("base", "head"):
        sample = vs.samples[v]
        for i, b in enumerate(names):
            want = [t / c for (bb, vv, _), (t, c) in sums.items() if (bb, vv) == (b, v) and c]
            got = sample.values[sample.offsets[i]:sample.offsets[i + 1]]
            np.testing.assert_allclose(got, want, rtol=1e-14)
            empty = sum(1 for (bb, vv, _), (_, c) in sums.items() if (bb, vv) == (b, v) and not c)
            assert vs.n_dropped[v][i] == empty
    assert vs.samples["absent"].values.size == 0


def test_unit_moments_on_each_parents_scale():
    values = np.array([1.0, 2.0, np.nan, 4.0,  # parent 0: all > 0 -> logs
                       3.0, -1.0, 2.0,          # parent 1: a value <= 0 -> the values
                       np.nan, np.nan, 5.0])    # parent 2: a unit without values
    starts = np.array([0, 2, 4, 6, 7, 9], dtype=np.int64)
    offsets = np.array([0, 2, 4, 6, 7, 9, 10], dtype=np.int64)
    parents = np.array([0, 2, 4, 6], dtype=np.int64)
    n, mean, scale_mean, scale_squares, log_scale = unit_moments(values, starts, offsets,
                                                                 parents, n_rows=10)
    assert log_scale.tolist() == [True, False, True]
    segments = [values[s:s + offsets[i + 1] - offsets[i]] for i, s in enumerate(starts)]
    for i, segment in enumerate(segments):
        kept = segment[~np.isnan(segment)]
        assert n[i] == kept.size
        on_scale = np.log(kept) if log_scale[np.searchsorted(parents, i, "right") - 1] else kept
        if kept.size:
            assert mean[i] == pytest.approx(kept.mean(), rel=1e-15)
            assert scale_mean[i] == pytest.approx(on_scale.mean(), rel=1e-15, abs=1e-300)
            assert scale_squares[i] == pytest.approx(((on_scale - on_scale.mean()) ** 2).sum(),
                                                     rel=1e-14, abs=1e-300)
        else:
            assert np.isnan(mean[i]) and np.isnan(scale_mean[i]) and scale_squares[i] == 0


def test_segment_means_and_unit_runs():
    rng = np.random.default_rng(6)
    values = rng.normal(size=40)
    values[[3, 17, 18]] = np.nan
    sizes = np.array([4, 6, 3, 7, 5, 5], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    count, mean = segment_means(values, offsets, n_rows=values.size)
    for i in range(sizes.size):
        segment = values[offsets[i]:offsets[i + 1]]
        assert count[i] == np.count_nonzero(~np.isnan(segment))
        assert mean[i] == pytest.approx(np.nanmean(segment), rel=1e-14)
    # units as runs anywhere in `values`; groups of units one after the other
    starts = np.array([30, 0, 20, 10, 4, 34], dtype=np.int64)
    group_units = np.array([0, 2, 3, 6], dtype=np.int64)
    runs = [values[s:s + n] for s, n in zip(starts, sizes)]
    group_values = [np.concatenate(runs[group_units[g]:group_units[g + 1]]) for g in range(3)]
    counts = np.array([np.count_nonzero(~np.isnan(v)) for v in group_values], dtype=np.int64)
    take = np.array([2, -1, 0, 1, 2], dtype=np.int64)
    got, got_offsets, dropped = take_unit_runs(values, starts, offsets, group_units, counts, take)
    for i, g in enumerate(take):
        want = group_values[g][~np.isnan(group_values[g])] if g >= 0 else np.empty(0)
        np.testing.assert_array_equal(got[got_offsets[i]:got_offsets[i + 1]], want)
        assert dropped[i] == (np.count_nonzero(np.isnan(group_values[g])) if g >= 0 else 0)
