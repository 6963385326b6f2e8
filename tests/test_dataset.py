"""Lazy datasets (`fastperf.read(..., lazy=True)`, directories, globs): what they read, how they
split into group-complete chunks, and that a function run chunk by chunk gives the table an
in-memory run of the same rows gives (the oracle), bit for bit."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastperf
from fastperf.errors import InputError
from fastperf.io.dataset import Dataset, WORK_FACTOR
from cli_calls import OUTSIDE_CHECKOUT
from scale_checks import assert_identical_results, write_dataset


def measurements(benchmarks=30, runs=7, seed=1):
    table = fastperf.simulate(benchmarks=benchmarks, runs=runs, variants=["old", "new"],
                              seed=seed).table
    rows = table.to_pylist()
    for i in range(0, len(rows), 17):
        rows[i]["value"] = None          # dropped and counted
    for i in range(3, len(rows), 41):
        rows[i]["value"] = float("nan")
    for i in range(9, len(rows), 23):    # ties
        rows[i]["value"] = rows[i - 1]["value"]
    return pa.Table.from_pylist(rows, schema=table.schema)


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("hive")
    write_dataset(measurements(), path)
    return path


def test_a_directory_of_table_files_is_lazy_and_holds_every_row(dataset_dir):
    lazy = fastperf.read(str(dataset_dir), memory_limit=20_000)
    assert isinstance(lazy, Dataset)
    assert len(lazy.paths) > 4                    # groups split across files
    whole = lazy.to_table()
    source = measurements()
    assert whole.num_rows == lazy.count_rows() == source.num_rows
    # the hive folder variant=... became a column holding the same (variant, value) pairs
    key = lambda t: sorted(zip(t.column("variant").cast(pa.string()).to_pylist(),  # noqa: E731
                               t.column("benchmark").cast(pa.string()).to_pylist(),
                               t.column("run").to_pylist(),
                               [repr(v) for v in t.column("value").to_pylist()]))
    assert key(whole) == key(source)


def test_several_chunks_give_the_in_memory_describe_bit_for_bit(dataset_dir):
    lazy = fastperf.read(str(dataset_dir), memory_limit=20_000)
    layout = lazy.layout(["benchmark"], ["benchmark", "variant", "unit"], 20_000)
    assert layout.n_chunks >= 5
    # every group in one chunk: the chunk of each row depends on its benchmark only
    whole = lazy.to_table()
    ids = layout.chunk_ids(whole)
    bench = whole.column("benchmark").cast(pa.string()).to_numpy(zero_copy_only=False)
    for name in np.unique(bench):
        assert np.unique(ids[bench == name]).size == 1
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(whole))


@pytest.mark.parametrize("fmt", ["ipc", "csv"])
def test_ipc_and_csv_datasets(tmp_path, fmt):
    table = measurements(benchmarks=12)
    if fmt == "csv":  # CSV holds plain text
        table = table.cast(pa.schema([pa.field(f.name, f.type.value_type)
                                      if pa.types.is_dictionary(f.type) else f
                                      for f in table.schema]))
    write_dataset(table, tmp_path, format=fmt)
    lazy = fastperf.read(str(tmp_path), memory_limit=10_000)
    assert lazy.format == fmt
    assert lazy.layout(["benchmark"], ["benchmark"], 10_000).n_chunks > 1
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(lazy.to_table()))


def test_a_glob_and_a_list_of_files(tmp_path):
    table = measurements(benchmarks=6)
    for i, part in enumerate([table.slice(0, 50), table.slice(50)]):
        pq.write_table(part, tmp_path / f"part{i}.parquet")
    (tmp_path / "notes.txt").write_text("not a table")
    lazy = fastperf.read(str(tmp_path / "*.parquet"))
    assert isinstance(lazy, Dataset) and lazy.count_rows() == table.num_rows
    listed = fastperf.read([str(tmp_path / "part0.parquet"), str(tmp_path / "part1.parquet")],
                           lazy=True)
    assert listed.count_rows() == table.num_rows
    # a folder that also holds other files is not a dataset by default (a tool's results tree)
    with pytest.raises(InputError):
        fastperf.read(str(tmp_path))


def test_empty_partitions_and_groups_in_many_files(tmp_path):
    table = measurements(benchmarks=8)
    write_dataset(table, tmp_path / "data", rows_per_file=7, rows_per_group=3)
    (tmp_path / "data" / "variant=unused").mkdir()   # an empty partition
    empty = table.slice(0, 0)
    pq.write_table(empty.drop_columns(["variant"]),
                   tmp_path / "data" / "variant=old" / "empty.parquet")
    lazy = fastperf.read(str(tmp_path / "data"), memory_limit=20_000)
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(lazy.to_table()))


def test_a_group_larger_than_the_memory_limit_is_a_clear_error(dataset_dir):
    lazy = fastperf.read(str(dataset_dir), memory_limit=1_000)
    with pytest.raises(InputError, match="do not fit the memory limit: benchmark='bench_"):
        fastperf.describe(lazy)


def test_a_dataset_that_fits_is_read_once_in_memory(dataset_dir, monkeypatch):
    lazy = fastperf.read(str(dataset_dir))              # default limit: half the free memory
    assert lazy.fits_in_memory(10**9)
    want = fastperf.describe(fastperf.read(str(dataset_dir), lazy=True).to_table())
    reads = []
    monkeypatch.setattr(Dataset, "layout", lambda *a, **k: pytest.fail("chunked"))
    original = Dataset.to_table
    monkeypatch.setattr(Dataset, "to_table", lambda self: reads.append(1) or original(self))
    assert_identical_results(fastperf.describe(lazy), want)
    assert reads == [1]


def test_the_memory_model(dataset_dir):
    lazy = fastperf.read(str(dataset_dir))
    limit = 50_000
    layout = lazy.layout(["benchmark"], ["benchmark"], limit)
    whole = lazy.to_table()
    ids = layout.chunk_ids(whole)
    per_row = lazy.bytes_per_row()
    biggest = np.bincount(ids).max()
    assert biggest * per_row * WORK_FACTOR <= limit
    assert layout.n_chunks == ids.max() + 1


@pytest.mark.parametrize("kwargs, match", [
    ({"memory_limit": 0}, "memory_limit .*must be a positive number of bytes"),
    ({"memory_limit": "2GB"}, "memory_limit .*must be a positive number of bytes"),
    ({"lazy": "yes"}, "lazy= must be None, True or False"),
    ({"lazy": True, "summaries": True}, "summaries=, variants= and tool formats do not apply"),
])
def test_bad_options_name_the_argument(dataset_dir, kwargs, match):
    with pytest.raises(InputError, match=match):
        fastperf.read(str(dataset_dir), **kwargs)


def test_memory_limit_without_a_lazy_source_is_refused(tmp_path):
    path = tmp_path / "one.parquet"
    pq.write_table(measurements(benchmarks=2), path)
    with pytest.raises(InputError, match="memory_limit= applies to a lazy dataset only"):
        fastperf.read(str(path), memory_limit=10**6)
    assert isinstance(fastperf.read(str(path), lazy=True, memory_limit=10**6), Dataset)


def test_renamed_role_columns(tmp_path):
    table = measurements(benchmarks=5).rename_columns(
        ["name", "variant", "run", "ns", "unit"])
    write_dataset(table, tmp_path)
    lazy = fastperf.read(str(tmp_path), benchmark="name", value="ns", memory_limit=20_000)
    whole = lazy.to_table()
    assert {"benchmark", "value"} <= set(whole.column_names)
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(whole))
    assert sorted(map(repr, whole.column("value").drop_null().to_pylist())) == sorted(
        map(repr, table.column("ns").drop_null().to_pylist()))


def test_dictionaries_come_in_first_appearance_order():
    from fastperf.io.layout import first_appearance_dictionary

    # chunks with their writers' dictionaries: unused entries, another order, a null
    d1 = pa.DictionaryArray.from_arrays(pa.array([2, 0, 2, None], pa.int32()),
                                        pa.array(["a", "b", "c", "unused"]))
    d2 = pa.DictionaryArray.from_arrays(pa.array([1, 0], pa.int32()), pa.array(["b", "d"]))
    column = pa.chunked_array([d1, d2])
    got = first_appearance_dictionary(column)
    plain = column.cast(pa.string())
    assert got.to_pylist() == plain.to_pylist()
    assert got.chunk(0).dictionary.to_pylist() == ["c", "a", "d", "b"]  # as encoding the text
    want = plain.dictionary_encode().combine_chunks()
    assert got.chunk(0).dictionary.equals(want.dictionary)
    assert got.chunk(0).indices.equals(want.indices)


def test_the_command_line_reads_a_dataset_within_a_memory_limit(dataset_dir, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "result.parquet"
    done = subprocess.run([sys.executable, "-m", "fastperf", "describe", str(dataset_dir),
                           "--memory-limit", "20KB", "-o", str(out), "--format", "parquet"],
                          cwd=OUTSIDE_CHECKOUT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastperf.describe(fastperf.read(str(dataset_dir), lazy=True).to_table()).table
    got = pq.read_table(out)
    assert got.column_names == want.column_names
    assert got.column("median").to_pylist() == pytest.approx(want.column("median").to_pylist(),
                                                              nan_ok=True, rel=0, abs=0)
    bad = subprocess.run([sys.executable, "-m", "fastperf", "describe", str(dataset_dir),
                          "--memory-limit", "lots"], cwd=OUTSIDE_CHECKOUT, capture_output=True,
                         text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--memory-limit" in bad.stderr


def test_numeric_key_columns_are_in_the_key_table(tmp_path):
    # a numeric variant or factor and a numeric `by` column: the plans need their values
    table = measurements(benchmarks=20)
    variant = pa.array([1 if v == "old" else 2
                        for v in table.column("variant").cast(pa.string()).to_pylist()],
                       pa.int64())
    table = table.set_column(table.column_names.index("variant"), "variant", variant)
    size = pa.array([int(b[-2:]) % 4 for b in
                     table.column("benchmark").cast(pa.string()).to_pylist()], pa.int64())
    table = table.append_column("size", size)
    write_dataset(table, tmp_path, partition_by=())
    lazy = fastperf.read(str(tmp_path), memory_limit=20_000)
    whole = lazy.to_table()
    assert not lazy.fits_in_memory(20_000)
    assert_identical_results(fastperf.plan_runs(lazy), fastperf.plan_runs(whole))
    assert fastperf.plan_runs(lazy).separation is not None
    got = fastperf.anova(lazy, factor="variant", by=["benchmark", "size"])
    assert_identical_results(got, fastperf.anova(whole, factor="variant",
                                                 by=["benchmark", "size"]), extra=("effects",))
    wide = fastperf.read(str(tmp_path), memory_limit=60_000)
    assert not wide.fits_in_memory(60_000)
    assert_identical_results(fastperf.describe(wide, by=["size"], variant="variant"),
                             fastperf.describe(whole, by=["size"], variant="variant"))


def test_progress_bars_over_the_scan_and_the_chunks(dataset_dir, capsys):
    lazy = fastperf.read(str(dataset_dir), memory_limit=20_000, progress=True)
    fastperf.describe(lazy)
    err = capsys.readouterr().err
    assert "scan keys" in err and "describe chunks" in err
    quiet = fastperf.read(str(dataset_dir), memory_limit=20_000, progress=False)
    fastperf.describe(quiet)
    assert capsys.readouterr().err == ""


def test_a_dataset_keeps_the_configuration_columns_a_file_declares(tmp_path):
    # Go files declare goos/goarch/pkg as configuration: compare groups by them
    table = fastperf.read(["examples/old.txt", "examples/new.txt"])
    (tmp_path / "d").mkdir()
    pq.write_table(table, tmp_path / "d" / "go.parquet")
    direct = fastperf.compare(fastperf.read(str(tmp_path / "d" / "go.parquet")),
                              baseline="old", candidate="new")
    lazy = fastperf.read(str(tmp_path / "d"), memory_limit=15_000)
    assert not lazy.fits_in_memory(15_000)
    chunked = fastperf.compare(lazy, baseline="old", candidate="new")
    assert chunked.summary["keys"] == direct.summary["keys"]
    assert "pkg" in chunked.summary["keys"]
    assert_identical_results(chunked, direct, extra=("overall",))


@pytest.mark.parametrize("kwargs, match", [
    ({"benchmark": "variant"}, "variant"),
    ({"variant": "no_such_column"}, "no_such_column"),
    ({"run": "no_such_column"}, "no_such_column"),
    ({"lazy": 1}, "lazy= must be None, True or False"),
])
def test_role_columns_are_checked_as_for_a_file(dataset_dir, kwargs, match):
    with pytest.raises(InputError, match=match):
        fastperf.read(str(dataset_dir), **{"lazy": True, **kwargs})


def test_timestamps_stay_out_of_the_key_table(tmp_path):
    table = measurements(benchmarks=4)
    stamps = pa.array(np.arange(table.num_rows) * 10**9, pa.timestamp("ns"))
    write_dataset(table.append_column("at", stamps), tmp_path)
    lazy = fastperf.read(str(tmp_path))
    keys = lazy.key_table(["value"])
    assert keys.column("at").null_count == keys.num_rows
    assert keys.num_rows == 4 * 2  # benchmark x variant (one unit)


def test_the_partition_pass_in_waves_of_open_files(dataset_dir, monkeypatch):
    import fastperf.io.dataset as dataset_module

    monkeypatch.setattr(dataset_module, "MAX_OPEN_CHUNKS", 2)
    lazy = fastperf.read(str(dataset_dir), memory_limit=20_000)
    assert lazy.layout(["benchmark"], ["benchmark"], 20_000).n_chunks > 4
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(lazy.to_table()))


def test_a_table_without_a_key_column_that_does_not_fit(dataset_dir):
    lazy = fastperf.read(str(dataset_dir), memory_limit=20_000)
    with pytest.raises(InputError, match="the whole table .* has"):
        fastperf.describe(lazy, by=None, variant=None, unit=None)


def test_a_stored_dictionary_with_unused_entries(tmp_path):
    # a Parquet writer may store its whole dictionary, values no row uses included
    table = measurements(benchmarks=12)
    names = table.column("benchmark").combine_chunks()
    padded = pa.DictionaryArray.from_arrays(
        names.indices, pa.concat_arrays([names.dictionary, pa.array(["never_used"])]))
    (tmp_path / "d").mkdir()
    pq.write_table(table.set_column(0, "benchmark", padded), tmp_path / "d" / "a.parquet")
    lazy = fastperf.read(str(tmp_path / "d"), memory_limit=20_000)
    assert not lazy.fits_in_memory(20_000)
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(lazy.to_table()))


def test_key_ranks_of_half_floats_and_of_the_listed_values_themselves():
    from fastperf.io.layout import key_ranks

    listed = pa.array([0.0, 1.5, None], pa.float16())  # Arrow's index_in has no float16 kernel
    column = pa.chunked_array([pa.array([1.5, None, 0.0, 2.0], pa.float16())])
    assert key_ranks(column, listed).tolist() == [1, 2, 0, -1]
    assert key_ranks(listed, listed).tolist() == [0, 1, 2]


def test_a_numeric_configuration_column_is_a_key_out_of_core(tmp_path):
    """A configuration column the file declares (here a numeric one that tells the variants
    apart, as a thread count does) is in the key table whatever its type: it was left null
    there, so `benchmark_identity` took it for a benchmark key and split each benchmark in two
    rows with no baseline or no candidate runs. Oracle: the same file read in memory."""
    from fastperf.io.common import with_config

    table = measurements(benchmarks=20)
    threads = pa.array([1 if v == "old" else 2
                        for v in table.column("variant").cast(pa.string()).to_pylist()],
                       pa.int64())
    (tmp_path / "d").mkdir()
    pq.write_table(with_config(table.append_column("threads", threads), ["threads"]),
                   tmp_path / "d" / "a.parquet")
    direct = fastperf.read(str(tmp_path / "d" / "a.parquet"))
    lazy = fastperf.read(str(tmp_path / "d"), memory_limit=20_000)
    assert not lazy.fits_in_memory(20_000)
    for call in (lambda t: fastperf.compare(t, baseline="old", candidate="new"),
                 lambda t: fastperf.decide(t, baseline="old", candidate="new", margin=0.05)):
        chunked, whole = call(lazy), call(direct)
        assert chunked.table.num_rows == whole.table.num_rows == 20
        status = set(chunked.table.column("status").to_pylist())
        assert not status & {"no baseline runs", "no candidate runs"}
        assert_identical_results(chunked, whole)


@pytest.mark.parametrize("nested", [pa.list_(pa.string()), pa.struct([("tag", pa.string())])])
def test_a_nested_column_is_no_label_out_of_core(tmp_path, nested):
    """An unused list or struct column is ignored out of core as it is in memory (Arrow's
    group_by refused it: "Keys of type list<...>"). Oracle: the in-memory result."""
    table = measurements(benchmarks=20)
    value = ["x"] if pa.types.is_list(nested) else {"tag": "x"}
    write_dataset(table.append_column("tags", pa.array([value] * table.num_rows, nested)),
                  tmp_path, partition_by=())
    lazy = fastperf.read(str(tmp_path), memory_limit=20_000)
    assert not lazy.fits_in_memory(20_000)
    whole = lazy.to_table()
    assert_identical_results(fastperf.compare(lazy, baseline="old", candidate="new"),
                             fastperf.compare(whole, baseline="old", candidate="new"))
    assert_identical_results(fastperf.describe(lazy), fastperf.describe(whole))
    with pytest.raises(InputError, match="nope"):
        fastperf.describe(lazy, by="nope")


@pytest.mark.parametrize("name, options", [
    ("bootstrap", {"seed": 1}), ("permutation_test", {"seed": 1}), ("mannwhitneyu", {}),
    ("wilcoxon", {}), ("ttest_ind", {}), ("ks_2samp", {}), ("shapiro", None)])
def test_the_table_forms_of_the_tests_take_a_lazy_dataset(tmp_path, name, options):
    """A lazy dataset is a measurement table to the tests' table forms, read whole (it was
    taken for arrays: "baseline=, candidate= apply to measurement tables passed alone, not to
    arrays"). Oracle: the same call on the file's path."""
    (tmp_path / "d").mkdir()
    pq.write_table(measurements(benchmarks=6), tmp_path / "d" / "a.parquet")
    lazy = fastperf.read(str(tmp_path / "d"), lazy=True)
    path = str(tmp_path / "d" / "a.parquet")
    function = getattr(fastperf, name)
    if options is None:
        got, want = function(lazy), function(path)
    else:
        got = function(lazy, baseline="old", candidate="new", **options)
        want = function(path, baseline="old", candidate="new", **options)
    assert got.table.num_rows == want.table.num_rows > 0
    assert_identical_results(got, want)


def test_a_function_that_reads_whole_refuses_a_dataset_beyond_its_limit(dataset_dir):
    lazy = fastperf.read(str(dataset_dir), memory_limit=20_000)
    assert not lazy.fits_in_memory(20_000)
    for call in (lambda: fastperf.mannwhitneyu(lazy, baseline="old", candidate="new"),
                 lambda: fastperf.changepoints(lazy, order="run")):
        with pytest.raises(InputError, match="does not fit memory_limit=20000"):
            call()
    assert fastperf.changepoints(fastperf.read(str(dataset_dir), lazy=True),
                                 order="run").table.num_rows > 0  # no limit given: read whole


def test_files_that_disagree_on_a_column_type_are_named(tmp_path):
    """A read error from files written with different column types names the file and the
    column (it said only "Float value 1.500000 was truncated converting to int64")."""
    rows = {"benchmark": ["a"] * 4, "variant": ["old", "old", "new", "new"]}
    pq.write_table(pa.table({**rows, "value": pa.array([1, 2, 3, 4], pa.int64())}),
                   tmp_path / "a.parquet")
    pq.write_table(pa.table({**rows, "value": [1.5, 2.0, 3.0, 4.0]}), tmp_path / "b.parquet")
    with pytest.raises(InputError, match=r"b\.parquet has column 'value' as double, the "
                                         r"dataset \(its first file\) as int64"):
        fastperf.describe(fastperf.read(str(tmp_path)))


def test_a_corrupt_file_is_not_blamed_on_a_convertible_type(tmp_path):
    """An int64 column in a dataset of doubles converts: when another file is corrupt, the
    error must not send the user to rewrite the good file."""
    rows = {"benchmark": ["a"] * 4, "variant": ["old", "old", "new", "new"]}
    pq.write_table(pa.table({**rows, "value": [1.5, 2.0, 3.0, 4.0]}), tmp_path / "p0.parquet")
    pq.write_table(pa.table({**rows, "value": pa.array([1, 2, 3, 4], pa.int64())}),
                   tmp_path / "p1.parquet")
    pq.write_table(pa.table({**rows, "value": [1.5, 2.0, 3.0, 4.0]}), tmp_path / "p2.parquet")
    data = (tmp_path / "p2.parquet").read_bytes()
    (tmp_path / "p2.parquet").write_bytes(data[:8] + b"\x00" * 50 + data[58:])
    with pytest.raises(InputError, match="cannot read the dataset") as error:
        fastperf.describe(fastperf.read(str(tmp_path), memory_limit=10**8))
    assert "has column" not in str(error.value)
