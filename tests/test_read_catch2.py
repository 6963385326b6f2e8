"""The Catch2 readers, fastperf/io/catch2.py, on reports the tests write by hand in Catch2's
layouts: the XML reporter (v3 ``<Catch2TestRun>`` and v2 ``<Catch>`` roots, test cases and
sections, a failed benchmark, entity declarations refused) and the console table (units
ns/us/ms/s, a wrapped name, a failed benchmark, two test cases). Expected values are the
numbers written, the standard deviation turned into the sample one by hand:
sd * sqrt(n / (n - 1))."""
from __future__ import annotations

import math

import pytest

from fastperf import InputError
from fastperf.io.catch2 import (
    looks_like_catch2_console, looks_like_catch2_xml, population_to_sample_sd,
    read_catch2_console, read_catch2_xml,
)
from fastperf.io.common import config_columns
from fastperf.io.summaries import is_summary_table

XML_V3 = """<?xml version="1.0" encoding="UTF-8"?>
<Catch2TestRun name="bench" rng-seed="1" xml-format-version="3" catch2-version="3.5.2">
  <TestCase name="Fibonacci" tags="[fib]" filename="fib.cpp" line="5">
    <BenchmarkResults name="Fibonacci 20" samples="100" resamples="100000" iterations="2" clockResolution="17.5" estimatedDuration="8371200">
      <!-- All values in nano seconds -->
      <mean value="41731.5" lowerBound="41250" upperBound="42622" ci="0.95"/>
      <standardDeviation value="3256" lowerBound="2163" upperBound="5353" ci="0.95"/>
      <outliers variance="0.7" lowMild="0" lowSevere="0" highMild="3" highSevere="2"/>
    </BenchmarkResults>
    <Section name="small" filename="fib.cpp" line="9">
      <BenchmarkResults name="Fibonacci 5" samples="10" resamples="1000" iterations="1961" clockResolution="17.5" estimatedDuration="7059600">
        <!-- All values in nano seconds -->
        <mean value="36" lowerBound="35" upperBound="37" ci="0.95"/>
        <standardDeviation value="3" lowerBound="2" upperBound="6" ci="0.95"/>
        <outliers variance="0.1" lowMild="0" lowSevere="0" highMild="0" highSevere="0"/>
      </BenchmarkResults>
      <OverallResults successes="0" failures="0" expectedFailures="0" skipped="false"/>
    </Section>
    <OverallResult success="true" skips="0"/>
  </TestCase>
  <TestCase name="Broken" filename="fib.cpp" line="20">
    <BenchmarkResults name="throws" samples="100" resamples="100000" iterations="1" clockResolution="17.5" estimatedDuration="10">
      <failed message="std::runtime_error: boom"/>
    </BenchmarkResults>
    <OverallResult success="false" skips="0"/>
  </TestCase>
  <OverallResults successes="0" failures="1" expectedFailures="0" skips="0"/>
</Catch2TestRun>
"""

XML_V2 = """<?xml version="1.0" encoding="UTF-8"?>
<Catch name="bench">
  <Group name="bench">
    <TestCase name="Vector" filename="v.cpp" line="3">
      <BenchmarkResults name="push_back" samples="50" resamples="100000" iterations="10" clockResolution="20" estimatedDuration="1000">
        <mean value="120" lowerBound="118" upperBound="125" ci="0.95"/>
        <standardDeviation value="7" lowerBound="5" upperBound="9" ci="0.95"/>
        <outliers variance="0.01" lowMild="0" lowSevere="0" highMild="1" highSevere="0"/>
      </BenchmarkResults>
      <OverallResult success="true"/>
    </TestCase>
  </Group>
</Catch>
"""


def sample_sd(sd, n):
    return sd * math.sqrt(n / (n - 1))


def test_population_to_sample_sd():
    assert population_to_sample_sd(3.0, 10) == pytest.approx(3.0 * math.sqrt(10 / 9), rel=1e-15)
    assert population_to_sample_sd(0.0, 1) is None
    assert population_to_sample_sd(None, 5) is None
    assert population_to_sample_sd(2.0, None) is None


def test_xml_v3_summary(tmp_path):
    assert looks_like_catch2_xml(XML_V3)
    table = read_catch2_xml(tmp_path / "r.xml", XML_V3)
    assert is_summary_table(table)
    assert table.column_names == ["benchmark", "unit", "n", "mean", "sd", "min", "max", "median",
                                  "iqr", "iterations", "mean_lb", "mean_ub", "error",
                                  "test_case"]
    assert config_columns(table) == ["test_case"]
    got = table.to_pylist()
    assert [(r["benchmark"], r["test_case"], r["n"], r["iterations"], r["unit"]) for r in got] \
        == [("Fibonacci 20", "Fibonacci", 100, 2, "ns"), ("Fibonacci 5", "Fibonacci", 10, 1961, "ns"),
            ("throws", "Broken", None, 1, "ns")]
    assert [r["mean"] for r in got] == [41731.5, 36.0, None]
    assert got[0]["sd"] == pytest.approx(sample_sd(3256.0, 100), rel=1e-15)
    assert got[1]["sd"] == pytest.approx(sample_sd(3.0, 10), rel=1e-15)
    assert got[2]["sd"] is None
    assert [(r["mean_lb"], r["mean_ub"]) for r in got] == [(41250.0, 42622.0), (35.0, 37.0),
                                                           (None, None)]
    assert [r["error"] for r in got] == [None, None, "std::runtime_error: boom"]


def test_xml_v2_summary(tmp_path):
    assert looks_like_catch2_xml(XML_V2)
    got = read_catch2_xml(tmp_path / "r.xml", XML_V2).to_pylist()
    assert len(got) == 1
    assert (got[0]["benchmark"], got[0]["test_case"], got[0]["n"], got[0]["mean"]) == \
        ("push_back", "Vector", 50, 120.0)
    assert got[0]["sd"] == pytest.approx(sample_sd(7.0, 50), rel=1e-15)


@pytest.mark.parametrize("text, message", [
    ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">]>\n<Catch2TestRun name="x">'
     '&lol;</Catch2TestRun>', "document type declaration or entities"),
    ('<Catch2TestRun name="x"><TestCase name="t">', "not well-formed XML"),
    ('<Catch2TestRun name="x"><TestCase name="t"/></Catch2TestRun>', "holds no benchmark results"),
    ('<Catch2TestRun name="x"><BenchmarkResults name="b" samples="many"/></Catch2TestRun>',
     "samples='many' is not a whole number"),
    ('<Catch2TestRun name="x"><BenchmarkResults name="b" samples="3"><mean value="fast"/>'
     '</BenchmarkResults></Catch2TestRun>', "value='fast' is not a number"),
])
def test_xml_errors(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_catch2_xml(tmp_path / "r.xml", text)


def test_xml_detection_is_specific():
    assert not looks_like_catch2_xml('<?xml version="1.0"?><testsuites><testsuite/></testsuites>')
    assert not looks_like_catch2_xml("benchmark name  samples  iterations  estimated")
    assert looks_like_catch2_xml('\ufeff  <Catch2TestRun name="x"/>')


CONSOLE = """\

~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
bench is a Catch2 v3.5.2 host application.
Run with -? for options

-------------------------------------------------------------------------------
Sorting
  small inputs
-------------------------------------------------------------------------------
sort.cpp:10
...............................................................................

benchmark name                       samples       iterations    estimated
                                     mean          low mean      high mean
                                     std dev       low std dev   high std dev
-------------------------------------------------------------------------------
std::sort 100                                  100            71     2.2223 ms
                                        313.25 ns     311.5 ns    316.75 ns
                                         12.5 ns       8.25 ns     19.5 ns

a very long benchmark name that
wraps onto a second line                        20             1    15.625 ms
                                         1.25 ms       1.2 ms      1.3 ms
                                           50 us        40 us       60 us


-------------------------------------------------------------------------------
Hashing
-------------------------------------------------------------------------------
hash.cpp:4
...............................................................................

benchmark name                       samples       iterations    estimated
                                     mean          low mean      high mean
                                     std dev       low std dev   high std dev
-------------------------------------------------------------------------------
sha256 1MiB                                     10             1        2.5 s
                                          2.0 s        1.9 s        2.1 s
                                         0.25 s        0.2 s        0.3 s

explodes                                       100             1     1.0 ms
Benchmark failed (std::runtime_error: boom)

===============================================================================
test cases: 2 | 1 passed | 1 failed
assertions: 1 | 1 failed
"""


def test_console_summary(tmp_path):
    assert looks_like_catch2_console(CONSOLE)
    table = read_catch2_console(tmp_path / "c.txt", CONSOLE)
    assert is_summary_table(table)
    assert config_columns(table) == ["test_case"]
    got = table.to_pylist()
    assert [(r["benchmark"], r["test_case"], r["n"], r["iterations"]) for r in got] == [
        ("std::sort 100", "Sorting", 100, 71),
        ("a very long benchmark name that wraps onto a second line", "Sorting", 20, 1),
        ("sha256 1MiB", "Hashing", 10, 1),
        ("explodes", "Hashing", None, 1),
    ]
    assert got[0]["mean"] == 313.25 and got[1]["mean"] == 1.25e6 and got[2]["mean"] == 2.0e9
    assert got[3]["mean"] is None and got[3]["sd"] is None
    assert got[0]["sd"] == pytest.approx(sample_sd(12.5, 100), rel=1e-15)
    assert got[1]["sd"] == pytest.approx(sample_sd(50e3, 20), rel=1e-15)
    assert got[2]["sd"] == pytest.approx(sample_sd(0.25e9, 10), rel=1e-15)
    assert [(r["mean_lb"], r["mean_ub"]) for r in got[:3]] == [
        (311.5, 316.75), (1.2e6, 1.3e6), (1.9e9, 2.1e9)]
    assert [r["error"] for r in got] == [None, None, None, "std::runtime_error: boom"]
    assert set(table.column("unit").to_pylist()) == {"ns"}


def test_console_v2_header_and_errors(tmp_path):
    text = ("benchmark name                                  samples       iterations    est run time\n"
            "                                                mean          low mean      high mean\n"
            "                                                std dev       low std dev   high std dev\n"
            "-------------------------------------------------------------------------------\n"
            "Fibonacci 10                                              100           208     7.1968 ms \n"
            "                                                       344 ns        341 ns        349 ns \n"
            "                                                        19 ns         11 ns         29 ns \n")
    got = read_catch2_console(tmp_path / "c.txt", text).to_pylist()
    assert [(r["benchmark"], r["n"], r["mean"], r["test_case"]) for r in got] == \
        [("Fibonacci 10", 100, 344.0, None)]
    truncated = "\n".join(text.splitlines()[:5]) + "\n"
    with pytest.raises(InputError, match=r":5: Catch2 benchmark 'Fibonacci 10' is not followed"):
        read_catch2_console(tmp_path / "c.txt", truncated)
    header_only = "\n".join(text.splitlines()[:4]) + "\n"
    assert looks_like_catch2_console(header_only)
    with pytest.raises(InputError, match="no Catch2 benchmark rows"):
        read_catch2_console(tmp_path / "c.txt", header_only)
    assert not looks_like_catch2_console("test a ... bench: 10 ns/iter (+/- 1)\n")
