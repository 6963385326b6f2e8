"""The libtest (``cargo bench``) reader, fastperf/io/cargo_bench.py, on output the tests write
by hand in libtest's format (``fmt_bench_samples``): thousands separators, MB/s, several bench
executables (cargo's Running lines), ignored and failed tests, no benchmarks. Expected values
are the numbers written."""
from __future__ import annotations

import pytest

from fastperf import InputError
from fastperf.io.cargo_bench import looks_like_cargo_bench, read_cargo_bench
from fastperf.io.common import config_columns
from fastperf.io.summaries import is_summary_table

OUTPUT = """\
   Compiling demo v0.1.0 (/src/demo)
    Finished `bench` profile [optimized] target(s) in 1.20s
     Running unittests src/lib.rs (target/release/deps/demo-1a2b3c)

running 2 tests
test tests::it_works ... ignored
test bench_fib_10 ... bench:         135 ns/iter (+/- 24)

test result: ok. 0 passed; 0 failed; 1 ignored; 1 measured; 0 filtered out

     Running benches/io.rs (target/release/deps/io-4d5e6f)

running 3 tests
test bench_fib_10 ... bench:       1,234 ns/iter (+/- 1,056)
test read_big   ... bench:   2,345,678 ns/iter (+/- 56,789) = 447 MB/s
test broken ... FAILED

test result: FAILED. 0 passed; 1 failed; 0 ignored; 2 measured; 0 filtered out
"""


def test_reads_every_bench_line_as_a_summary(tmp_path):
    assert looks_like_cargo_bench(OUTPUT)
    table = read_cargo_bench(tmp_path / "out.txt", OUTPUT)
    assert is_summary_table(table)
    assert table.column_names == ["benchmark", "unit", "n", "mean", "sd", "min", "max", "median",
                                  "iqr", "range", "mb_per_s", "executable"]
    assert config_columns(table) == ["executable"]
    got = [(r["benchmark"], r["median"], r["range"], r["mb_per_s"], r["executable"], r["unit"],
            r["n"], r["mean"], r["sd"]) for r in table.to_pylist()]
    assert got == [
        ("bench_fib_10", 135.0, 24.0, None, "unittests src/lib.rs (target/release/deps/demo-1a2b3c)",
         "ns", None, None, None),
        ("bench_fib_10", 1234.0, 1056.0, None, "benches/io.rs (target/release/deps/io-4d5e6f)",
         "ns", None, None, None),
        ("read_big", 2345678.0, 56789.0, 447.0, "benches/io.rs (target/release/deps/io-4d5e6f)",
         "ns", None, None, None),
    ]


def test_plain_libtest_output_without_cargo_lines(tmp_path):
    text = ("running 2 tests\n"
            "test a::b ... bench:          87 ns/iter (+/- 0)\r\n"
            "test c    ... bench:      18,149.50 ns/iter (+/- 755.25)\n")
    table = read_cargo_bench(tmp_path / "x.txt", text)
    assert "executable" not in table.column_names
    assert config_columns(table) == []
    assert table.column("benchmark").to_pylist() == ["a::b", "c"]
    assert table.column("median").to_pylist() == [87.0, 18149.5]
    assert table.column("range").to_pylist() == [0.0, 755.25]


def test_no_benchmarks_is_a_clean_error(tmp_path):
    text = "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured\n"
    assert not looks_like_cargo_bench(text)
    with pytest.raises(InputError, match="no cargo bench result lines"):
        read_cargo_bench(tmp_path / "empty.txt", text)


@pytest.mark.parametrize("text", [
    "BenchmarkFoo-8   1000   1234 ns/op\n",  # Go
    "foo   time:   [1.0 ns 1.1 ns 1.2 ns]\n",  # criterion console
    "test foo ... ok\n",
    "test foo ... bench: 12 ms/iter (+/- 1)\n",  # libtest only writes ns/iter
])
def test_detection_is_specific(text):
    assert not looks_like_cargo_bench(text)
