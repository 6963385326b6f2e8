"""The run diagnostics inside the protocols (`fastperf.protocols.flags`): the ``flags`` column
of compare, speedup_test and sparc, ``warmup="auto"``, the footer and the traces.

Oracles: compare on the table with the transient's rows removed by a plain loop; the flags of
`diagnose` on sequences built by hand; the columns of a run without the option."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf.data.levels import Sequences, resolve_structure, run_sequences
from fastperf.engine.diagnostics import FLAGS, diagnose, find_warmup
from fastperf.errors import InputError
from fastperf.protocols.flags import comparison_flags, flag_text
from fastperf.protocols.flags import drop_warmup


def _table(seed=3, benchmarks=6, runs=40, transient=None, processes=None):
    """Two variants of log-normal runs; `transient`: {(benchmark, variant): iterations} made 5x
    slower; `processes`: that many processes of runs // processes iterations each."""
    rng = np.random.default_rng(seed)
    columns = {"benchmark": [], "variant": [], "value": []}
    if processes:
        columns["process"] = []
    for b in range(benchmarks):
        for v in ("base", "new"):
            per = processes or 1
            for p in range(per):
                values = rng.lognormal(0.0, 0.01, runs // per) * (1.03 if v == "new" and b % 2
                                                                  else 1.0)
                first = (transient or {}).get((b, v), 0)
                values[:first] *= 5.0
                columns["benchmark"] += [f"bench{b}"] * values.size
                columns["variant"] += [v] * values.size
                columns["value"] += values.tolist()
                if processes:
                    columns["process"] += [p] * values.size
    return pa.table(columns)


def _without_first(table, counts, processes=False):
    """The oracle: the first `counts[(benchmark, variant)]` rows of each group (of each process)
    removed by a plain loop over the rows."""
    seen: dict = {}
    keep = []
    rows = table.to_pylist()
    for row in rows:
        b = int(row["benchmark"][5:])
        key = (b, row["variant"], row["process"] if processes else None)
        seen[key] = seen.get(key, 0) + 1
        keep.append(seen[key] > counts.get((b, row["variant"]), 0))
    return table.filter(pa.array(keep))


def _same(a: pa.Table, b: pa.Table, drop=()):
    a = a.drop_columns([c for c in drop if c in a.column_names])
    b = b.drop_columns([c for c in drop if c in b.column_names])
    assert a.column_names == b.column_names
    for name in a.column_names:
        left, right = a.column(name), b.column(name)
        if pa.types.is_floating(left.type):  # NaN equals NaN, bit for bit otherwise
            np.testing.assert_array_equal(left.to_numpy(), right.to_numpy(), err_msg=name)
        else:
            assert left.to_pylist() == right.to_pylist(), name


def test_known_transient_is_dropped_as_by_hand():
    transient = {(1, "new"): 10, (4, "base"): 10}
    table = _table(transient=transient)
    auto = fastperf.compare(table, baseline="base", candidate="new", warmup="auto")
    by_hand = fastperf.compare(_without_first(table, transient), baseline="base",
                               candidate="new")
    _same(auto.benchmarks, by_hand.benchmarks,
          drop=("warmup_baseline", "warmup_candidate", "flags"))
    rows = auto.benchmarks.to_pylist()
    assert [r["warmup_candidate"] for r in rows] == [0, 10, 0, 0, 0, 0]
    assert [r["warmup_baseline"] for r in rows] == [0, 0, 0, 0, 10, 0]
    assert auto.summary["warmup"] == {"method": "auto", "groups": 2, "values": 20}
    assert any("2 (benchmark, variant) group(s), 20 value(s)" in w for w in auto.warnings)


def test_found_iterations_are_dropped_as_by_hand_with_processes():
    transient = {(0, "new"): 10, (3, "base"): 10}
    table = _table(seed=5, runs=200, processes=10, transient=transient)
    structure = resolve_structure(table.column_names)
    sequences = run_sequences(table, ["benchmark"], "variant", "value", structure)
    found = find_warmup(sequences)
    keys = sequences.keys.to_pylist()
    counts = {(int(k["benchmark"][5:]), k["variant"]): int(i) if f else 0
              for k, i, f in zip(keys, found.iterations, found.found)}
    assert counts[(0, "new")] >= 10 and counts[(3, "base")] >= 10
    auto = fastperf.compare(table, baseline="base", candidate="new", warmup="auto")
    by_hand = fastperf.compare(_without_first(table, counts, processes=True),
                               baseline="base", candidate="new")
    _same(auto.benchmarks, by_hand.benchmarks,
          drop=("warmup_baseline", "warmup_candidate", "flags"))
    steady, _, _ = drop_warmup(table, ["benchmark"], "variant", "value", structure)
    assert steady.num_rows == table.num_rows - 10 * sum(counts.values())


def test_warmup_none_is_unchanged_and_adds_only_flags():
    table = _table(transient={(2, "new"): 10})
    result = fastperf.compare(table, baseline="base", candidate="new")
    names = result.benchmarks.column_names
    assert "warmup_baseline" not in names and "warmup" not in result.summary
    assert names.index("flags") == names.index("verdict") + 1
    assert names.index("status") == names.index("flags") + 1
    # the tested values are every value: n counts the transient's runs
    assert result.benchmarks.column("n_candidate").to_pylist() == [40] * 6


def test_flags_are_the_union_of_each_side_by_hand():
    table = _table(seed=7, benchmarks=5, runs=12, transient={(1, "new"): 3, (3, "base"): 3})
    structure = resolve_structure(table.column_names)
    # the oracle: each group's values built by hand in row order, diagnosed one group at a time
    rows = table.to_pylist()
    groups: dict = {}
    for row in rows:
        groups.setdefault((row["benchmark"], row["variant"]), []).append(row["value"])
    flags = {}
    for key, values in groups.items():
        one = Sequences(pa.table({"benchmark": [key[0]], "variant": [key[1]]}),
                        np.array(values), np.arange(len(values)), np.array([0, len(values)]),
                        np.array([0, 1]), np.zeros(1, dtype=np.int64), False)
        flags[key] = set(np.array(FLAGS)[diagnose(one).flags[0]])
    expected = [", ".join(f for f in FLAGS if f in flags[(f"bench{b}", "base")]
                          | flags[(f"bench{b}", "new")]) for b in range(5)]
    result = fastperf.compare(table, baseline="base", candidate="new")
    assert result.benchmarks.column("flags").to_pylist() == expected
    sequences = run_sequences(table, ["benchmark"], "variant", "value", structure)
    benchmarks = pa.table({"benchmark": [f"bench{b}" for b in (4, 0, 3)]})
    row_flags = comparison_flags(sequences, ["benchmark"], "variant", "base", ["new"],
                                 benchmarks)
    assert row_flags.text.to_pylist() == [expected[4], expected[0], expected[3]]
    counts = {f: sum(f in e.split(", ") for e in expected) for f in FLAGS}
    assert result.summary["flags"] == counts
    assert result.summary["flagged"] == sum(e != "" for e in expected)


def test_flag_text_lists_flags_in_order():
    bits = np.array([0, 1, 2 | 32, (1 << len(FLAGS)) - 1])
    assert flag_text(bits).to_pylist() == ["", "warmup", "outliers, noisy", ", ".join(FLAGS)]


def test_footer_in_text_and_markdown():
    table = _table(transient={(1, "new"): 10})
    result = fastperf.compare(table, baseline="base", candidate="new")
    flagged = result.summary["flagged"]
    assert flagged >= 1
    line = f"{flagged} of 6 comparisons flagged ("
    assert line in result.to_text()
    assert line in result.to_markdown()
    assert "`fastperf check` explains them" in result.to_text()


def test_no_footer_when_nothing_flagged():
    table = _table(seed=11, runs=60)
    result = fastperf.compare(table, baseline="base", candidate="new")
    if result.summary["flagged"] == 0:
        assert "flagged" not in result.to_text()


def test_dataset_in_chunks_equals_in_memory(tmp_path):
    table = _table(benchmarks=12, transient={(1, "new"): 10, (7, "base"): 10})
    path = tmp_path / "runs.parquet"
    import pyarrow.parquet as pq
    pq.write_table(table, path, row_group_size=80)
    for warmup in (None, "auto"):
        memory = fastperf.compare(table, baseline="base", candidate="new", warmup=warmup)
        lazy = fastperf.read(str(path), lazy=True, memory_limit=20_000)
        chunked = fastperf.compare(lazy, baseline="base", candidate="new", warmup=warmup)
        _same(memory.benchmarks, chunked.benchmarks)
        assert memory.summary.get("flags") == chunked.summary.get("flags")
        assert memory.summary.get("warmup") == chunked.summary.get("warmup")


def test_traces_mark_the_transient():
    table = _table(benchmarks=3, transient={(1, "new"): 10})
    result = fastperf.compare(table, baseline="base", candidate="new", warmup="auto")
    traces = result.runs.traces
    assert traces.warmup_candidate.tolist() == [0, 10, 0]
    values = table.filter(pa.array([b == "bench1" and v == "new" for b, v in zip(
        table.column("benchmark").to_pylist(), table.column("variant").to_pylist())]))
    offsets = traces.candidate.offsets
    assert traces.candidate.values[offsets[1]:offsets[2]].tolist() == \
        values.column("value").to_pylist()
    plain = fastperf.compare(table, baseline="base", candidate="new")
    assert plain.runs.traces.candidate.values.size == table.num_rows // 2


@pytest.mark.parametrize("function", ["speedup_test", "sparc"])
def test_speedup_and_sparc_flags_and_warmup(function):
    transient = {(1, "new"): 10}
    table = _table(transient=transient)
    extra = {"pair": None} if function == "sparc" else {}
    run = getattr(fastperf, function)
    auto = run(table, baseline="base", candidate="new", warmup="auto", **extra)
    by_hand = run(_without_first(table, transient), baseline="base", candidate="new", **extra)
    _same(auto.benchmarks, by_hand.benchmarks,
          drop=("warmup_baseline", "warmup_candidate", "flags"))
    assert auto.benchmarks.column("warmup_candidate").to_pylist() == [0, 10, 0, 0, 0, 0]
    plain = run(table, baseline="base", candidate="new", **extra)
    names = plain.benchmarks.column_names
    assert "warmup_candidate" not in names
    assert names.index("flags") == names.index("status") - 1
    assert "warmup" in plain.benchmarks.column("flags")[1].as_py()
    assert plain.summary["flags"]["warmup"] >= 1


def test_warmup_is_validated():
    table = _table(benchmarks=1)
    for run in (fastperf.compare, fastperf.speedup_test):
        with pytest.raises(InputError, match="warmup"):
            run(table, baseline="base", candidate="new", warmup="yes")


def test_decide_warmup_auto_as_by_hand():
    transient = {(1, "new"): 10}
    table = _table(transient=transient)
    auto = fastperf.decide(table, baseline="base", candidate="new", margin=0.02,
                           warmup="auto")
    by_hand = fastperf.decide(_without_first(table, transient), baseline="base",
                              candidate="new", margin=0.02)
    _same(auto.benchmarks, by_hand.benchmarks, drop=("warmup_baseline", "warmup_candidate"))
    assert auto.benchmarks.column("warmup_candidate").to_pylist() == [0, 10, 0, 0, 0, 0]
    assert auto.summary["warmup"] == {"method": "auto", "groups": 1, "values": 10}
    plain = fastperf.decide(table, baseline="base", candidate="new", margin=0.02)
    assert "warmup_candidate" not in plain.benchmarks.column_names


def test_cli_warmup_auto(tmp_path):
    from cli_calls import assert_clean_error, run_cli
    import pyarrow.parquet as pq
    transient = {(1, "new"): 10}
    path = tmp_path / "runs.parquet"
    pq.write_table(_table(transient=transient), path)
    expected = fastperf.compare(_table(transient=transient), baseline="base", candidate="new",
                                warmup="auto")
    code, out, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                              "--warmup", "auto", "--format", "json"])
    assert code == 0, err
    import json
    rows = json.loads(out)["benchmarks"]
    assert [r["warmup_candidate"] for r in rows] == [0, 10, 0, 0, 0, 0]
    assert [r["pvalue"] for r in rows] == pytest.approx(
        expected.benchmarks.column("pvalue").to_pylist(), rel=0, abs=0)
    for protocol in ("speedup-test", "sparc"):
        code, out, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                                  "--protocol", protocol, "--warmup", "auto", "--format",
                                  "json"])
        assert code == 0, err
        assert [r["warmup_candidate"] for r in json.loads(out)["benchmarks"]][1] == 10
    code, out, err = run_cli(["decide", path, "--baseline", "base", "--candidate", "new",
                              "--margin", "2%", "--warmup", "auto", "--format", "json"])
    assert code in (0, 1, 4), err
    assert [r["warmup_candidate"] for r in json.loads(out)["benchmarks"]][1] == 10
    code, _, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                            "--protocol", "hpt", "--warmup", "auto"])
    assert_clean_error(code, err, match="--warmup")
    code, _, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                            "--warmup", "yes"])
    assert code == 2
