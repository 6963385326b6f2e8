"""Random streams keyed by a group's identity (issue 41): `fastperf.data.identity` and every
function that draws random numbers per group.

The identity is checked against tests/naive.py's plain-Python recomputation of the same word
definition, and pinned to literal values written down once from it. Each random function must
give every group the same row, bit for bit, when run on that group alone, on the table with
its rows shuffled, on the table in many chunks (record batches, progress chunks, a lazy
dataset) and, where `fastperf.spark` offers the function, on Spark.
"""
from __future__ import annotations

import datetime
import struct
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import fastperf
import fastperf.spark
from fastperf.data.identity import group_identities, position_identities
from fastperf.errors import InputError
from naive import identity_of_row
from scale_checks import group_complete_parts, write_dataset



def identities(**columns) -> list[int]:
    """`group_identities` of a table of the given columns, as Python ints."""
    return [int(v) for v in group_identities(pa.table(columns))]


def oracle(*columns) -> list[int]:
    """tests/naive.py's identity of each row of the given Python columns."""
    return [identity_of_row(row) for row in zip(*columns)]


# ================================================================================ the identity


def test_identities_are_pinned_to_literal_values():
    """Written down once from tests/naive.py: any change of the hash changes every stream."""
    keys = pa.table({"benchmark": ["bench_00000", "bench_00001", None,
                                   "a slightly longer benchmark name", "", "ü"],
                     "size": pa.array([0, 1, 7, -3, None, 2**62], pa.int64())})
    assert [int(v) for v in group_identities(keys)] == [
        0x7E9795749D9D689E, 0xF9116477D2D127B2, 0x1D51564F8A303007, 0x5B762917C7816985,
        0x5BC89FC3AA2FFAE8, 0x9E0B69D904807B3C]
    assert identities(k=pa.array([2**64 - 1], pa.uint64())) == [0x59F3FF9615CBD1EB]
    assert identities(k=[0.25]) == [0x191E4AF6838E366D]
    assert identities(k=[float("nan")]) == [0xDF39EBB1492FA3AB]
    assert identities(k=[True]) == [0xB6D80350FB85651D]
    assert group_identities(keys).dtype == np.uint64


def test_the_pinned_values_are_the_reference_implementation():
    assert oracle(["bench_00000", None], [0, 7]) == [0x7E9795749D9D689E, 0x1D51564F8A303007]
    assert identity_of_row([2**64 - 1]) == 0x59F3FF9615CBD1EB


@pytest.mark.parametrize("kind", [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(),
                                  pa.uint16(), pa.uint32(), pa.uint64()])
def test_an_integer_is_its_value_whatever_its_width_and_signedness(kind):
    signed = pa.types.is_signed_integer(kind)
    top = 2 ** (kind.bit_width - (1 if signed else 0)) - 1
    values = [0, 1, 5, None, top] + ([-1, -top - 1] if signed else [])
    assert identities(k=pa.array(values, kind)) == oracle(values)
    assert identities(k=pa.array([0, 1, 5, None], kind)) == identities(
        k=pa.array([0, 1, 5, None], pa.int64()))


def test_negative_integers_differ_from_their_unsigned_bits():
    assert identities(k=pa.array([-1], pa.int64())) != identities(
        k=pa.array([2**64 - 1], pa.uint64()))


@pytest.mark.parametrize("kind", [pa.float16(), pa.float32(), pa.float64()])
def test_a_float_is_its_value(kind):
    values = [0.5, -0.0, 0.0, 3.0, -3.0, float("inf"), float("-inf"), None, float("nan"), 1.25]
    array = pa.array(np.array([np.nan if v is None else v for v in values],
                              dtype=kind.to_pandas_dtype()),
                     kind, mask=np.array([v is None for v in values]))
    assert identities(k=array) == oracle(values)


def test_float_rules():
    """-0.0 is 0.0, every NaN is one value, an integral float is that integer (within
    [-2**63, 2**64)), any other float its bits."""
    nans = np.array([0x7FF8000000000000, 0x7FF0000000000001, 0xFFF8000000000000,
                     0x7FFFFFFFFFFFFFFF], dtype=np.uint64).view(np.float64)
    assert len(set(identities(k=nans))) == 1
    assert identities(k=[-0.0]) == identities(k=[0.0]) == identities(k=[0])
    assert identities(k=[3.0, -7.0, 2.0**59]) == identities(
        k=pa.array([3, -7, 2**59], pa.decimal128(20, 0)))
    assert identities(k=[2.0**63]) == identities(k=pa.array([2**63], pa.uint64()))
    assert identities(k=[-2.0**63]) == identities(k=pa.array([-2**63], pa.int64()))
    beyond = [2.0**64, 1e300, -2.0**64]
    assert identities(k=beyond) == oracle(beyond)
    bits = [struct.unpack("<Q", struct.pack("<d", v))[0] for v in beyond]
    assert identities(k=beyond) != identities(k=pa.array(bits, pa.uint64()))
    assert identities(k=[0.5]) != identities(k=[0]) != identities(k=[1])


@pytest.mark.parametrize("make", [
    lambda v: pa.array(v, pa.string()),
    lambda v: pa.array(v, pa.large_string()),
    lambda v: pa.array(v, pa.string_view()),
    lambda v: pa.array(v, pa.string()).dictionary_encode(),
    lambda v: pa.array(v, pa.large_string()).dictionary_encode().cast(
        pa.dictionary(pa.int8(), pa.large_string())),
], ids=["string", "large_string", "string_view", "dictionary", "dictionary_int8_large"])
def test_a_string_is_its_bytes_whatever_its_type(make):
    values = ["", "a", "bench_00000", "1234567", "12345678", "123456789", "ü€𝄞", None,
              "a" * 17, "bench_00000"]
    assert identities(k=make(values)) == oracle(values)


def test_binary_is_its_bytes_and_not_a_string():
    values = [b"", b"ab", b"\x00\xff" * 9, None]
    assert identities(k=pa.array(values, pa.binary())) == oracle(values)
    assert identities(k=pa.array(values, pa.large_binary())) == oracle(values)
    fixed = [b"ab", None, b"\x00\x01"]
    assert identities(k=pa.array(fixed, pa.binary(2))) == oracle(fixed)
    assert identities(k=pa.array(["ab"])) != identities(k=pa.array([b"ab"], pa.binary()))


def test_temporal_values_are_their_integer_value():
    assert identities(k=pa.array([datetime.date(1970, 1, 2), None, datetime.date(1969, 12, 31)])
                      ) == oracle([1, None, -1])
    assert identities(k=pa.array([86_400_000, None], pa.date64())) == oracle([86_400_000, None])
    for kind in (pa.timestamp("s"), pa.timestamp("us", tz="UTC"), pa.duration("ns"),
                 pa.time64("us")):
        assert identities(k=pa.array([0, 12345, None], kind)) == oracle([0, 12345, None])
    assert identities(k=pa.array([5, None], pa.time32("s"))) == oracle([5, None])


def test_booleans_decimals_and_nulls():
    assert identities(k=[True, False, None]) == oracle([True, False, None])
    assert identities(k=[True]) != identities(k=[1])
    decimals = [Decimal("1.50"), Decimal("-0.00"), Decimal("2.00"), None, Decimal("-12.340")]
    assert identities(k=pa.array(decimals, pa.decimal128(6, 3))) == oracle(decimals)
    assert (identities(k=pa.array([Decimal("1.5")], pa.decimal128(3, 1)))
            == identities(k=pa.array([Decimal("1.500")], pa.decimal256(10, 3))))
    big = [Decimal("12345678901234567890123.45"), Decimal("1234567890123456789")]
    assert identities(k=pa.array(big, pa.decimal128(38, 2))) == oracle(big)
    null = identities(k=pa.array([None, None], pa.null()))
    assert null == oracle([None, None])
    others = [identities(k=pa.array([v], kind))[0] for v, kind in
              ((0, pa.int64()), ("", pa.string()), (False, pa.bool_()),
               (float("nan"), pa.float64()), (b"", pa.binary()))]
    assert null[0] not in others and len(set(others)) == len(others)


def test_columns_combine_in_order_names_ignored():
    a, b = ["x", "y", None], pa.array([1, 2, 3], pa.int32())
    assert identities(first=a, second=b) == oracle(a, [1, 2, 3])
    assert identities(other=a, names=b) == identities(first=a, second=b)
    assert identities(second=b, first=a) != identities(first=a, second=b)
    assert identities(k=["x1"]) != identities(k=["x"], j=[1])
    none = group_identities(pa.table({"a": [1, 2, 3]}).select([]))
    assert none.shape == (3,) and set(int(v) for v in none) == {identity_of_row([])}
    assert group_identities(pa.table({"a": pa.array([], pa.int64())})).shape == (0,)


def test_chunks_slices_and_encodings_give_each_row_its_own_identity():
    """A row's identity depends on its values only: not on the chunking, the slice offset, the
    validity bitmap's offset, the dictionary or the other rows."""
    names = ["bench_0", None, "x" * 11, "bench_1", "", "ü", "bench_0", None, "tail"]
    sizes = [0, 1, None, 3, -4, 5, 0, 7, 2**40]
    want = oracle(names, sizes)
    table = pa.table({"benchmark": names, "size": pa.array(sizes, pa.int64())})
    chunked = pa.table({
        "benchmark": pa.chunked_array([names[:2], names[2:7], names[7:]]),
        "size": pa.chunked_array([pa.array(sizes[:4], pa.int64()),
                                  pa.array(sizes[4:], pa.int64())])})
    assert [int(v) for v in group_identities(chunked)] == want
    for start in range(len(names)):
        for stop in range(start, len(names) + 1):
            part = table.slice(start, stop - start)
            assert [int(v) for v in group_identities(part)] == want[start:stop]
    encoded = pa.table({"benchmark": pa.array(names).dictionary_encode().slice(2, 5),
                        "size": pa.array(sizes, pa.int64()).slice(2, 5)})
    assert [int(v) for v in group_identities(encoded)] == want[2:7]
    runs = pa.array([5, 5, None, 9], pa.int64())
    ree = pa.table({"k": pc.run_end_encode(runs)})
    assert [int(v) for v in group_identities(ree)] == oracle([5, 5, None, 9])


def test_empty_and_all_null_arrays():
    assert identities(k=pa.array([], pa.string())) == []
    assert identities(k=pa.array([None, None], pa.string())) == oracle([None, None])
    assert identities(k=pa.array([""], pa.string())) == oracle([""])
    empty_dictionary = pa.DictionaryArray.from_arrays(pa.array([None, None], pa.int32()),
                                                      pa.array([], pa.string()))
    assert identities(k=empty_dictionary) == oracle([None, None])


def test_a_key_without_a_value_identity_is_an_input_error():
    with pytest.raises(InputError, match="'tags'.*list"):
        group_identities(pa.table({"tags": pa.array([[1], [2]])}))


def test_array_forms_key_by_position():
    assert position_identities(4).tolist() == [0, 1, 2, 3]
    assert position_identities(4).dtype == np.uint64


# ============================================================ every random function, per group


def plain(table: pa.Table) -> pa.Table:
    """`table` with its dictionary columns decoded."""
    return pa.table({name: column.cast(column.type.value_type)
                     if pa.types.is_dictionary(column.type) else column
                     for name, column in zip(table.column_names, table.columns)})


@pytest.fixture(scope="module")
def table() -> pa.Table:
    """Five benchmarks x two sizes (runs 0-11 and 12-23), two variants, 12 paired runs each:
    enough values that every permutation test is sampled (C(24, 12) and 2**12 rearrangements
    exceed 99)."""
    base = plain(fastperf.simulate(5, 24, seed=3, paired=True).table)
    size = pc.divide(base.column("run"), 12).cast(pa.int64())
    return base.append_column("size", size)


BY = ["benchmark", "size"]
#: name -> (call on a table, the key columns of its rows); every call draws random numbers per
#: group, except compare (its Hodges-Lehmann selection samples pivots, which change only the
#: work: the order statistics are exact), which is here for Spark.
FUNCTIONS = {
    "bootstrap two-sample": (lambda t, seed=11, **o: fastperf.bootstrap(
        t, statistic="median_ratio", method="bca", n_resamples=99, seed=seed, by=BY,
        baseline="baseline", candidate="candidate", **o), BY),
    "bootstrap one-sample": (lambda t, seed=11, **o: fastperf.bootstrap(
        t, statistic="mean", method="percentile", n_resamples=99, seed=seed, by=BY, **o),
        BY + ["variant"]),
    "bootstrap studentized by benchmark": (lambda t, seed=11, **o: fastperf.bootstrap(
        t, statistic="mean_diff", method="studentized", n_resamples=99, seed=seed,
        by="benchmark", baseline="baseline", candidate="candidate", **o), ["benchmark"]),
    "bootstrap hodges_lehmann": (lambda t, seed=11, **o: fastperf.bootstrap(
        t, statistic="hodges_lehmann", method="percentile", n_resamples=99, seed=seed,
        by=BY, baseline="baseline", candidate="candidate", **o), BY),
    "permutation_test": (lambda t, seed=11, **o: fastperf.permutation_test(
        t, n_resamples=99, seed=seed, by=BY, baseline="baseline", candidate="candidate", **o),
        BY),
    "permutation_test paired": (lambda t, seed=11, **o: fastperf.permutation_test(
        t, statistic="median_diff", paired=True, n_resamples=99, seed=seed, by=BY,
        baseline="baseline", candidate="candidate", **o), BY),
}
RANDOM = list(FUNCTIONS)


def rows_by_key(result, keys) -> dict:
    """Each output row by its key values: the other columns, floats as their bits."""
    table = plain(result.table)
    out = {}
    for row in table.to_pylist():
        key = tuple(row[k] for k in keys)
        assert key not in out
        out[key] = tuple(struct.pack("<d", v) if isinstance(v, float) else v
                         for name, v in row.items() if name not in keys)
    return out


def group_mask(table: pa.Table, keys, key) -> pa.Array:
    mask = np.ones(table.num_rows, dtype=bool)
    for name, value in zip(keys, key):
        column = table.column(name).to_pylist()
        mask &= np.array([v == value for v in column])
    return pa.array(mask)


@pytest.mark.parametrize("name", RANDOM)
def test_a_group_alone_gets_its_row_in_the_table(table, name):
    function, keys = FUNCTIONS[name]
    whole = rows_by_key(function(table), keys)
    outer = [k for k in keys if k != "variant"]
    for key in {k[:len(outer)] for k in whole}:
        alone = rows_by_key(function(table.filter(group_mask(table, outer, key))), keys)
        assert alone == {k: v for k, v in whole.items() if k[:len(outer)] == key}


@pytest.mark.parametrize("name", RANDOM)
def test_any_row_order_gives_each_group_its_row(table, name):
    function, keys = FUNCTIONS[name]
    whole = rows_by_key(function(table), keys)
    for seed in (1, 2):
        order = np.random.default_rng(seed).permutation(table.num_rows)
        assert rows_by_key(function(table.take(pa.array(order))), keys) == whole
    backwards = table.take(pa.array(np.arange(table.num_rows)[::-1]))
    assert rows_by_key(function(backwards), keys) == whole


@pytest.mark.parametrize("name", RANDOM)
def test_chunks_give_each_group_its_row(table, name, tmp_path, capsys):
    """Group-complete parts run one by one (as out of core or in Spark partitions), record
    batches of 7 rows, dictionary-encoded keys, the kernel in progress chunks (one group
    each), and a dataset split by size into files of 20 rows, read back whole (these functions
    take tables, not lazy datasets: the rows come back in another order)."""
    function, keys = FUNCTIONS[name]
    whole = rows_by_key(function(table), keys)
    for seed in (0, 1):
        parts = {}
        outer = [k for k in keys if k != "variant"]
        for part in group_complete_parts(table, outer, n_parts=3, seed=seed):
            parts.update(rows_by_key(function(part), keys))
        assert parts == whole
    batches = pa.Table.from_batches(table.to_batches(max_chunksize=7))
    assert rows_by_key(function(batches), keys) == whole
    encoded = table.set_column(0, "benchmark", table.column("benchmark").dictionary_encode())
    assert rows_by_key(function(encoded), keys) == whole
    assert rows_by_key(function(table, progress=True), keys) == whole
    capsys.readouterr()
    write_dataset(table, tmp_path / "data", partition_by=("size",))
    read_back = fastperf.read(str(tmp_path / "data"), lazy=True).to_table()
    assert read_back.column("size").to_pylist() != table.column("size").to_pylist()
    assert rows_by_key(function(read_back), keys) == whole


@pytest.mark.parametrize("name", RANDOM)
def test_the_seed_still_matters(table, name):
    """The same seed and identities give the same rows; another seed other streams (rows
    change, though a clear difference keeps its smallest p-value, 1 / 100, under both)."""
    function, keys = FUNCTIONS[name]
    whole = rows_by_key(function(table), keys)
    assert rows_by_key(function(table), keys) == whole
    changed = rows_by_key(function(table, seed=12), keys)
    assert changed.keys() == whole.keys()
    assert sum(changed[k] != whole[k] for k in whole) >= (
        len(whole) if name.startswith("bootstrap") else 2)


def test_array_forms_are_unchanged_by_chunks_and_key_by_position():
    """Arrays have no keys: sample g is keyed by its position g (so the same sample at another
    position draws another stream), and progress chunks change nothing."""
    rng = np.random.default_rng(0)
    x, y = rng.lognormal(size=(5, 15)), rng.lognormal(size=(5, 15))
    one = fastperf.permutation_test((x, y), n_resamples=99, seed=3)
    chunked = fastperf.permutation_test((x, y), n_resamples=99, seed=3, progress=True)
    assert np.array_equal(one.pvalue, chunked.pvalue)
    same = fastperf.permutation_test((np.stack([x[2]] * 3), np.stack([y[2]] * 3)),
                                     n_resamples=99, seed=3)
    assert len(set(same.pvalue.tolist())) > 1  # positions 0, 1, 2: three streams
    b = fastperf.bootstrap((x, y), statistic="median_diff", n_resamples=99, seed=3)
    b2 = fastperf.bootstrap((x, y), statistic="median_diff", n_resamples=99, seed=3,
                            progress=True)
    assert np.array_equal(b.confidence_interval.low, b2.confidence_interval.low)


# ==================================================================================== Spark


def test_spark_gives_each_group_its_row_alone(spark, table):
    """`fastperf.spark` offers no function that draws random numbers per group today; compare
    (whose Hodges-Lehmann selection samples pivots) gives each benchmark, in Spark partitions,
    the row it gets when run alone."""
    # adjust="none": an adjusted p-value depends on the other benchmarks by design
    options = dict(baseline="baseline", candidate="candidate", by=BY, adjust="none")
    got = rows_by_key(fastperf.spark.compare(spark.createDataFrame(table), **options), BY)
    for key, row in got.items():
        alone = fastperf.compare(table.filter(group_mask(table, BY, key)), **options)
        assert rows_by_key(alone, BY) == {key: row}
