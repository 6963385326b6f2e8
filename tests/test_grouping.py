"""The grouper against a brute-force Python grouping (dict of key tuples, first appearance)."""
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastperf import InputError
from fastperf.data.grouping import group_rows
from naive import groups_by_first_appearance


def check_against_brute_force(table, keys):
    groups = group_rows(table, keys)
    rows = list(zip(*[table.column(k).to_pylist() for k in keys]))
    expected = groups_by_first_appearance(rows)
    rows_in_group_order = groups.gather(np.arange(table.num_rows))
    got = {}
    for g in range(groups.n_groups):
        key = tuple(groups.keys.slice(g, 1).to_pylist()[0][k] for k in keys)
        got[key] = rows_in_group_order[groups.offsets[g]:groups.offsets[g + 1]].tolist()
        assert groups.first_row[g] == got[key][0]
    assert got == expected  # same groups, same rows, input order kept inside each group
    contiguous = all(r == list(range(r[0], r[0] + len(r))) for r in expected.values())
    assert (groups.order is None) == contiguous
    return groups


def test_two_keys_first_appearance_order():
    t = pa.table({"benchmark": ["b", "a", "b", "c", "a", "b"], "variant": ["x", "y", "y", "x", "y", "x"]})
    groups = check_against_brute_force(t, ["benchmark", "variant"])
    # lexicographic in first-appearance order of each column: b < a < c, x < y
    assert groups.keys.to_pylist() == [
        {"benchmark": "b", "variant": "x"}, {"benchmark": "b", "variant": "y"},
        {"benchmark": "a", "variant": "y"}, {"benchmark": "c", "variant": "x"},
    ]
    assert groups.sizes.tolist() == [2, 1, 2, 1]


def test_null_keys_form_their_own_group():
    t = pa.table({"benchmark": ["a", None, "a", None], "variant": ["x", "x", None, "x"]})
    check_against_brute_force(t, ["benchmark", "variant"])


def test_chunked_dictionary_columns_with_different_dictionaries():
    c1 = pa.array(["a", "b", "a"]).dictionary_encode()
    c2 = pa.array(["c", "a"]).dictionary_encode()
    t = pa.table({"benchmark": pa.chunked_array([c1, c2]), "value": [1.0, 2, 3, 4, 5]})
    groups = check_against_brute_force(t, ["benchmark"])
    assert groups.n_groups == 3


def test_contiguous_groups_skip_the_sort():
    t = pa.table({"benchmark": ["a", "a", "c", "c", "c", "b"], "variant": ["x"] * 6})
    groups = check_against_brute_force(t, ["benchmark", "variant"])
    assert groups.order is None
    assert groups.gather(np.arange(6.0)).tolist() == [0, 1, 2, 3, 4, 5]


def test_parallel_gathers_agree(parallel_always):
    rng = np.random.default_rng(4)
    t = pa.table({"k": rng.integers(0, 30, 400)})
    check_against_brute_force(t, ["k"])
    check_against_brute_force(t.sort_by("k"), ["k"])


def test_integer_and_three_keys():
    rng = np.random.default_rng(1)
    t = pa.table({
        "a": rng.integers(0, 4, 500), "b": rng.choice(["p", "q", "r"], 500),
        "c": rng.integers(-3, 3, 500).astype(np.int16),
    })
    check_against_brute_force(t, ["a", "b", "c"])


def test_many_distinct_keys_take_the_sorting_path():
    # more cells than the lookup table allows: the np.unique fallback must agree too
    rng = np.random.default_rng(2)
    n = 3000
    t = pa.table({"a": rng.integers(0, 2000, n), "b": rng.integers(0, 2000, n)})
    check_against_brute_force(t, ["a", "b"])


def test_no_keys_is_one_group():
    t = pa.table({"value": [3.0, 1.0, 2.0]})
    groups = group_rows(t, [])
    assert groups.n_groups == 1 and groups.gather(np.array([3.0, 1.0, 2.0])).tolist() == [3, 1, 2]


def test_unknown_key_names_the_column_and_lists_columns():
    t = pa.table({"benchmark": ["a"], "value": [1.0]})
    with pytest.raises(InputError, match=r"'bench'.*\['benchmark', 'value'\]"):
        group_rows(t, ["bench"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", None]), st.integers(0, 3)), min_size=1,
                max_size=60))
def test_property_partition_matches_brute_force(rows):
    t = pa.table({"k1": [r[0] for r in rows], "k2": [r[1] for r in rows]})
    groups = check_against_brute_force(t, ["k1", "k2"])
    assert sorted(groups.gather(np.arange(len(rows))).tolist()) == list(range(len(rows)))


def test_a_null_key_is_a_null_entry_not_a_null_category():
    """A null benchmark name is a group of its own; in a result's table it is a null entry, not
    a null in the dictionary (pandas refuses a null among a categorical's categories: every
    result's to_pandas() failed on it). Oracle: the same table with the null replaced by a
    name gives the same numbers."""
    import fastperf

    values = [1.0, 1.1, 1.2, 1.05, 1.3, 1.2, 1.25, 1.4, 1.0, 1.5, 1.2, 1.1]
    named = ["a", "z"] * 6
    variants = ["b"] * 6 + ["c"] * 6
    with_null = pa.table({"benchmark": [None if n == "z" else n for n in named],
                          "variant": variants, "value": values})
    renamed = pa.table({"benchmark": named, "variant": variants, "value": values})
    groups = group_rows(with_null, ["benchmark"])  # the grouping gives null a code of its own
    assert groups.keys.column("benchmark").to_pylist() == ["a", None]
    for call in (lambda t: fastperf.compare(t, baseline="b", candidate="c", unit=None),
                 lambda t: fastperf.describe(t, unit=None)):
        got, want = call(with_null), call(renamed)
        column = got.table.column("benchmark")
        assert not any(chunk.dictionary.null_count for chunk in column.chunks)
        frame = got.to_pandas()
        assert frame["benchmark"].isna().tolist() == [
            name == "z" for name in want.table.column("benchmark").to_pylist()]
        assert got.table.column_names == want.table.column_names
        for name in got.table.column_names[1:]:  # NaN equal to NaN
            np.testing.assert_array_equal(got.table.column(name).to_numpy(zero_copy_only=False),
                                          want.table.column(name).to_numpy(zero_copy_only=False))


@pytest.mark.parametrize("indices, dictionary", [
    ([0, 0, None], pa.nulls(1)),  # a key column of type null (its is_null() crashes pyarrow)
    ([0, 1, 2, None, 1], pa.array(["a", None, "c"])),
    ([], pa.array([None], pa.string())),
    ([1, 0], pa.array([3, 4])),
])
def test_null_keys_as_entries_keeps_every_value(indices, dictionary):
    from fastperf.results.base import null_keys_as_entries

    column = pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), dictionary)
    out = null_keys_as_entries(pa.table({"k": column, "x": pa.array(range(len(indices)))}))
    assert out.column("k").to_pylist() == column.to_pylist()
    assert out.column("k").type == column.type
    assert not any(chunk.dictionary.null_count for chunk in out.column("k").chunks
                   if not pa.types.is_null(chunk.dictionary.type))
    assert out.column("x").to_pylist() == list(range(len(indices)))
    out.to_pandas()  # pandas accepts it


def test_a_null_key_is_a_null_entry_in_every_extra_table():
    """The extra tables (compare's and SPARC's `overall`, hpt's `speedups`, anova's `effects`,
    plan_runs' `separation`, changepoints' `changes` and `segments`) fold a null key as the main
    table does: to_pandas() failed on each. Oracle: pyarrow's own values, row for row, and the
    same table with the null replaced by a name."""
    import fastperf

    rng = np.random.default_rng(7)
    n = 12
    values = np.r_[rng.normal(10, 0.1, 2 * n), rng.normal(10.5, 0.1, 2 * n)]
    names = ["a", "z"] * (2 * n)
    variants = ["b"] * (2 * n) + ["c"] * (2 * n)
    runs = np.tile(np.repeat(np.arange(n), 2), 2)

    def table(null):
        return pa.table({"benchmark": [None if null and x == "z" else x for x in names],
                         "variant": variants, "value": values, "run": runs})

    history = np.r_[rng.normal(10, 0.1, 60), rng.normal(12, 0.1, 60)]
    series = pa.table({"benchmark": pa.array([None] * 120, pa.string()),
                       "value": history, "order": np.arange(120)})
    calls = {
        "compare": (lambda t: fastperf.compare(t, baseline="b", candidate="c", unit=None),
                    ["overall"]),
        "sparc": (lambda t: fastperf.sparc(t, baseline="b", candidate="c"), ["overall"]),
        "hpt": (lambda t: fastperf.hpt(t, baseline="b", candidate="c"), ["speedups"]),
        "anova": (lambda t: fastperf.anova(t, by="benchmark"), ["effects"]),
        "plan_runs": (lambda t: fastperf.plan_runs(t, baseline="b", candidate="c", unit=None),
                      ["separation"]),
    }
    for name, (call, extras) in calls.items():
        got, want = call(table(True)), call(table(False))
        for extra in extras:
            got_table, want_table = getattr(got, extra), getattr(want, extra)
            assert got_table is not None, (name, extra)
            got_table.to_pandas()  # pandas accepts it
            if "benchmark" in got_table.column_names:
                keys = got_table.column("benchmark").to_pylist()
                assert keys == [None if k == "z" else k
                                for k in want_table.column("benchmark").to_pylist()], name
    result = fastperf.changepoints(series, order="order")
    for extra in ("changes", "segments"):
        frame = getattr(result, extra).to_pandas()
        assert len(frame) >= 1 and frame["benchmark"].isna().all(), extra


def test_a_nan_key_stays_a_key_of_its_own_and_converts():
    """A float key column holding NaN and null: NaN, null and 1.5 are three benchmarks, and
    every rendering takes the result (to_pandas() refused NaN among the categories). Oracle:
    the same rows with the keys replaced by names."""
    import fastperf

    values = [1.0, 1.1, 1.2, 2.0, 2.1, 2.2, 3.0, 3.1, 3.2] * 2
    keys = [float("nan")] * 3 + [None] * 3 + [1.5] * 3
    variants = ["b"] * 9 + ["c"] * 9
    floats = pa.table({"benchmark": pa.array(keys * 2, pa.float64()), "variant": variants,
                       "value": values})
    names = {None: "null"}
    named = pa.table({"benchmark": [names.get(k, "nan" if k != k else "x") for k in keys] * 2,
                      "variant": variants, "value": values})
    for call in (lambda t: fastperf.describe(t, unit=None),
                 lambda t: fastperf.compare(t, baseline="b", candidate="c", unit=None)):
        got, want = call(floats), call(named)
        column = got.table.column("benchmark")
        labels = want.table.column("benchmark").to_pylist()
        expected = [float("nan") if k == "nan" else None if k == "null" else 1.5
                    for k in labels]
        assert [("nan" if k != k else k) if k is not None else None
                for k in column.to_pylist()] == \
            [("nan" if k != k else k) if k is not None else None for k in expected]
        got.to_pandas()
        got.to_text()
        got.to_html()
        for name in got.table.column_names[1:]:  # NaN equal to NaN
            np.testing.assert_array_equal(got.table.column(name).to_numpy(zero_copy_only=False),
                                          want.table.column(name).to_numpy(zero_copy_only=False))

