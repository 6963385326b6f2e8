"""Results leave fastperf in the ecosystem's idiom: Arrow-native results and versioned JSON.

- Every table-level result implements the Arrow PyCapsule interface (``__arrow_c_stream__``),
  so pyarrow, polars, duckdb and pandas read it directly, and ``to_pandas()`` / ``to_polars()``
  convert it. The oracle is the result's own ``pyarrow.Table`` (``result.table``): each reader
  must give its rows, cell for cell, compared here as plain Python values.
- Every JSON document (``to_json()``, ``--format json``) starts with ``"schema":
  "fastperf.<function>/1"``, the function's public name written here, never read from the
  result; docs/cli.md ("JSON output") lists each function's keys and columns, a block this
  module generates (``python tests/test_arrow_interface.py`` rewrites it) and checks.
"""
from __future__ import annotations

import json
import math
import sys
from datetime import datetime
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import fastperf
from cli_calls import run_cli
from test_result_family import BC, PAIRED, TABLE_CALLS

REPO = Path(__file__).resolve().parents[1]
CLI_DOC = REPO / "docs" / "cli.md"
OLD, NEW = str(REPO / "examples" / "old.txt"), str(REPO / "examples" / "new.txt")
GO_PAIR = fastperf.read([OLD, NEW])

#: Results of different kinds: (id, call). The Go pair gives dictionary-encoded key columns
#: (benchmark, goos, unit, ...), the simulated table plain strings and a row that is not "ok".
ARROW_CALLS = [
    ("compare-go", lambda: fastperf.compare(GO_PAIR, baseline="old", candidate="new")),
    ("compare", lambda: fastperf.compare(PAIRED, **BC, by="benchmark")),
    ("describe", lambda: fastperf.describe(GO_PAIR)),
    ("decide", lambda: fastperf.decide(PAIRED, **BC, margin=0.03)),
    ("check", lambda: fastperf.check(GO_PAIR)),
    ("speedup_test", lambda: fastperf.speedup_test(PAIRED, **BC)),
    ("sparc", lambda: fastperf.sparc(PAIRED, **BC)),
    ("mannwhitneyu", lambda: fastperf.mannwhitneyu(PAIRED, **BC)),
    ("anova", lambda: fastperf.anova(PAIRED, by="benchmark")),
    ("aggregate_score", lambda: fastperf.aggregate_score(PAIRED)),
]


def missing(value) -> bool:
    """Whether a cell is missing: null (None, pandas' NA and NaT) or a float NaN."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def plain(value):
    """A cell as a plain Python value, whichever library gave it: numpy scalars as Python
    numbers, pandas timestamps as datetimes, missing cells as one marker."""
    if missing(value):
        return "<missing>"
    if hasattr(value, "item") and not isinstance(value, (list, dict)):
        value = value.item()  # numpy scalars
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, float) and math.isnan(value):
        return "<missing>"
    return value


def table_rows(table: pa.Table) -> list[tuple]:
    """The oracle: the rows of a pyarrow table as tuples of plain values."""
    return [tuple(plain(v) for v in row.values()) for row in table.to_pylist()]


def frame_rows(frame) -> list[tuple]:
    """The rows of a pandas or polars frame as tuples of plain values."""
    if isinstance(frame, pl.DataFrame):
        return [tuple(plain(v) for v in row) for row in frame.iter_rows()]
    return [tuple(plain(v) for v in row) for row in frame.itertuples(index=False, name=None)]


@pytest.fixture(scope="module", params=ARROW_CALLS, ids=[name for name, _ in ARROW_CALLS])
def result(request):
    return request.param[1]()


def test_the_cases_have_rows_missing_cells_and_dictionaries():
    """The readers are checked on what can go wrong: missing cells and dictionary columns."""
    results = [call() for _, call in ARROW_CALLS]
    assert all(r.table.num_rows > 0 for r in results)
    assert any("<missing>" in row for r in results for row in table_rows(r.table))
    assert any(pa.types.is_dictionary(t) for r in results for t in r.table.schema.types)


def test_pyarrow_reads_the_result(result):
    """Same schema (types included) and same cells; NaN cells compare equal here, which
    `pyarrow.Table.equals` does not do."""
    for got in (pa.table(result), pa.RecordBatchReader.from_stream(result).read_all()):
        assert got.schema.equals(result.table.schema)
        assert table_rows(got) == table_rows(result.table)


def test_the_requested_schema_is_passed_on(result):
    """A consumer's requested schema reaches pyarrow's stream, which casts to it: here every
    dictionary column decoded to its values."""
    decoded = pa.schema([pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type)
                         else f for f in result.table.schema])
    got = pa.RecordBatchReader.from_stream(result, schema=decoded).read_all()
    assert got.schema.equals(decoded)
    assert table_rows(got) == table_rows(result.table)


def test_polars_reads_the_result(result):
    frame = pl.DataFrame(result)
    assert frame.columns == result.table.column_names
    assert frame_rows(frame) == table_rows(result.table)


def test_to_polars(result):
    frame = result.to_polars()
    assert isinstance(frame, pl.DataFrame)
    assert frame.columns == result.table.column_names
    assert frame_rows(frame) == table_rows(result.table)


def test_duckdb_reads_the_result(result):
    """DuckDB's replacement scan finds the Python variable ``result`` by its name and reads it
    through ``__arrow_c_stream__`` (duckdb >= 1.1)."""
    relation = duckdb.sql("from result")
    assert relation.columns == result.table.column_names
    assert [tuple(plain(v) for v in row) for row in relation.fetchall()] == \
        table_rows(result.table)
    assert duckdb.sql("select count(*) from result").fetchall() == [(result.table.num_rows,)]


def test_to_pandas(result):
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == result.table.column_names
    assert frame_rows(frame) == table_rows(result.table)


@pytest.mark.skipif(not hasattr(pd.DataFrame, "from_arrow"),
                    reason="pandas.DataFrame.from_arrow (the PyCapsule import) needs pandas >= 3")
def test_pandas_reads_the_result(result):
    frame = pd.DataFrame.from_arrow(result)
    assert list(frame.columns) == result.table.column_names
    assert frame_rows(frame) == table_rows(result.table)


def test_a_timestamp_key_reaches_every_reader():
    """A key column of another Arrow type (timestamps) keeps its values in every reader."""
    stamps = [datetime(2024, 1, d) for d in (1, 1, 1, 2, 2, 2)] * 2
    table = pa.table({"day": pa.array(stamps, pa.timestamp("us")),
                      "variant": ["a"] * 6 + ["b"] * 6,
                      "value": [1.0, 1.1, 1.2, 2.0, 2.1, 2.2, 1.5, 1.6, 1.7, 2.5, 2.6, 2.7]})
    result = fastperf.describe(table, by="day")
    want = table_rows(result.table)
    days = [datetime(2024, 1, 1), datetime(2024, 1, 2)]
    assert sorted(row[:2] for row in want) == [(day, v) for day in days for v in "ab"]
    assert frame_rows(pl.DataFrame(result)) == want
    assert frame_rows(result.to_pandas()) == want
    assert [tuple(plain(v) for v in row) for row in duckdb.sql("from result").fetchall()] == want


@pytest.mark.parametrize("package, method", [("pandas", "to_pandas"), ("polars", "to_polars")])
def test_a_missing_optional_dependency_is_named(monkeypatch, package, method):
    result = fastperf.describe(PAIRED)
    monkeypatch.setitem(sys.modules, package, None)  # `import package` now fails
    with pytest.raises(ModuleNotFoundError, match=rf"{method}\(\) needs {package}.*"
                                                  rf"pip install {package}") as caught:
        getattr(result, method)()
    assert caught.value.name == package


# --- the JSON schema ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, call, kind", TABLE_CALLS,
                         ids=[f"{name}-{i}" for i, (name, *_) in enumerate(TABLE_CALLS)])
def test_every_json_document_names_its_schema(name, call, kind):
    result = call()
    doc = json.loads(result.to_json())
    assert list(doc)[0] == "schema" and doc["schema"] == f"fastperf.{name}/1"
    assert result.json_schema == f"fastperf.{name}/1"
    assert json.loads(result.to_json(indent=None)) == doc


#: CLI commands and the public function each one runs: (argv, schema).
CLI_SCHEMAS = [
    (["compare", OLD, NEW], "fastperf.compare/1"),
    (["compare", OLD, NEW, "--protocol", "speedup-test"], "fastperf.speedup_test/1"),
    (["compare", OLD, NEW, "--protocol", "sparc"], "fastperf.sparc/1"),
    (["compare", OLD, NEW, "--protocol", "hpt"], "fastperf.hpt/1"),
    (["decide", OLD, NEW, "--margin", "5%"], "fastperf.decide/1"),
    (["check", OLD, NEW], "fastperf.check/1"),
    (["describe", OLD], "fastperf.describe/1"),
    (["aggregate", OLD, NEW, "--unit", "sec/op"], "fastperf.aggregate_score/1"),
    (["plan", OLD, NEW], "fastperf.plan_runs/1"),
    (["anova", OLD, NEW, "--by", "benchmark"], "fastperf.anova/1"),
]


@pytest.mark.parametrize("argv, schema", CLI_SCHEMAS, ids=[" ".join(a[:1] + a[3:])
                                                            for a, _ in CLI_SCHEMAS])
def test_cli_json_names_its_schema(argv, schema, tmp_path):
    code, out, err = run_cli([*argv, "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["schema"] == schema
    target = tmp_path / "out.json"
    code, _, err = run_cli([*argv, "--format", "json", "-o", target])
    assert code == 0, err
    assert list(json.loads(target.read_text()))[0] == "schema"


# --- docs/cli.md lists each schema -------------------------------------------------------------

def form_of(function: str, result) -> str:
    """The form of a function that has several table layouts, read off its result ("" for a
    function with one)."""
    if function == "bootstrap":
        return "two samples" if result.table_name == "benchmarks" else "one sample (`statistic=`)"
    if function == "permutation_test":
        return "`paired=True`" if result.summary["paired"] else "unpaired"
    return ""


BEGIN = "<!-- json-schemas: begin (generated by `python tests/test_arrow_interface.py`) -->"
END = "<!-- json-schemas: end -->"
#: Keys every document has, described once above the list instead of in each entry.
COMMON_KEYS = {"schema", "warnings"}
COMMON_SUMMARY_KEYS = {"function", "rows", "rows_not_ok"}


def code_list(names) -> str:
    return ", ".join(f"`{n}`" for n in names)


def schema_entry(function: str, form: str, result) -> list[str]:
    """The lines of one function (or one form) in the list: its schema, then each key of its
    document in order with the columns of its tables (the summary: its keys)."""
    doc = json.loads(result.to_json())
    lines = [f"- `{doc['schema']}`" + (f", {form}" if form else "")]
    for key, value in doc.items():
        if key in COMMON_KEYS:
            continue
        if key == "summary":
            keys = [k for k in value if k not in COMMON_SUMMARY_KEYS]
            lines.append(f"  - `summary`: {code_list(keys)}")
            continue
        table = result.table if key == result.table_name else getattr(result, key, None)
        if isinstance(table, pa.Table):
            lines.append(f"  - `{key}`: {code_list(table.column_names)}")
        else:
            assert isinstance(value, list) and all(isinstance(v, str) for v in value), key
            lines.append(f"  - `{key}`: a list of strings")
    return lines


def schema_block() -> str:
    """The generated list of docs/cli.md, markers included: a line per function and form, from
    the table-level calls of tests/test_result_family.py (every public function's), in the
    order of the functions' names."""
    entries = []
    for function, call, _ in TABLE_CALLS:
        result = call()
        form = form_of(function, result)
        entries.append(((function, form), schema_entry(function, form, result)))
    return "\n".join([BEGIN, *(line for _, lines in sorted(entries) for line in lines), END])


def test_cli_docs_list_every_json_schema():
    text = CLI_DOC.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    documented = text[text.index(BEGIN):text.index(END) + len(END)]
    assert documented == schema_block(), \
        "docs/cli.md's JSON schema list is stale: run python tests/test_arrow_interface.py"


def write_schema_block() -> None:
    """Replace the generated list in docs/cli.md by the current one."""
    text = CLI_DOC.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    CLI_DOC.write_text(text[:start] + schema_block() + text[end:])


if __name__ == "__main__":
    write_schema_block()
