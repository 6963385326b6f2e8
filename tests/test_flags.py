"""The run diagnostics inside the protocols (`fastperf.protocols.flags`): the ``flags`` column
of compare, speedup_test and sparc, ``warmup="auto"``, the footer and the traces.

Oracles: compare on the table with the transient's rows removed by a plain loop; the flags of
`diagnose` on sequences built by hand; the columns of a run without the option."""
from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.stats import norm

import fastperf
from cli_calls import assert_clean_error, run_cli
from fastperf.data.levels import Sequences, resolve_structure, run_sequences
from fastperf.engine.diagnostics import FLAGS, diagnose
from fastperf.errors import InputError
from fastperf.protocols.flags import comparison_flags, drop_warmup, flag_text
from naive import mann_kendall_brute, tukey_outliers, warmup_brute
from scale_checks import lazy_pair

#: The default level of the warm-up test and the fewest values Tukey's fences classify,
#: written here from docs/check.md.
WARMUP_ALPHA = 0.01
MIN_FENCE_VALUES = 12


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
    # the oracle: each group's processes built by a loop over the rows, its warm-up by
    # brute-force MSER-5 and scipy's one-sample t-test (tests/naive.py)
    processes: dict = {}
    for row in table.to_pylist():
        key = (int(row["benchmark"][5:]), row["variant"])
        processes.setdefault(key, {}).setdefault(row["process"], []).append(row["value"])
    counts = {}
    for key, by_process in processes.items():
        d, _, _, found = warmup_brute(list(by_process.values()), WARMUP_ALPHA)
        counts[key] = d if found else 0
    # 20 iterations a process: MSER cuts at most half, the 10 slow ones exactly
    assert counts[(0, "new")] == 10 and counts[(3, "base")] == 10
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


def quantile_runs(n: int, sigma: float, seed: int) -> np.ndarray:
    """n log-normal runs at log-sd `sigma` with no randomness in their spread: exp(sigma z_i)
    for the normal quantiles z_i = Phi^-1((i + 1/2) / n), in a fixed shuffled order."""
    z = norm.ppf((np.arange(n) + 0.5) / n)
    return np.exp(sigma * z[np.random.default_rng(seed).permutation(n)])


def oracle_flags(values) -> list[str]:
    """The flags of one group of runs by tests/naive.py and numpy (bimodal left out: the groups
    are built unimodal)."""
    x = np.asarray(values, dtype=float)
    d, _, _, found = warmup_brute([x], WARMUP_ALPHA)
    steady = x[d:] if found else x
    severe = tukey_outliers(np.log(steady))[1] if steady.size >= MIN_FENCE_VALUES else 0
    _, _, drift_p = mann_kendall_brute(list(steady))
    distinct = np.unique(steady)
    tied = distinct.size < steady.size
    share = np.diff(distinct).min() / np.median(steady) if distinct.size > 1 else math.nan
    named = {"warmup": found, "outliers": severe > 0, "drift": drift_p < 0.01,
             "resolution": (tied and share > 0.01) or distinct.size == 1,
             "noisy": np.std(steady, ddof=1) / np.mean(steady) > 0.10, "few runs": x.size < 5}
    return [f for f in FLAGS if named.get(f, False)]


def test_flags_of_groups_built_by_hand():
    """Each benchmark has one defect by construction on one side, the other side clean: clean
    (none), a 10-run transient at +50 % (warmup), one run 50 % slow among 40 (outliers), 40
    equal runs (resolution), a 30 % spread (noisy), 4 runs (few runs). The clean runs are the
    normal quantiles at a 1 % spread, so nothing else is in them (checked with the oracles)."""
    clean = [quantile_runs(40, 0.01, seed) for seed in range(6)]
    transient = clean[1].copy()
    transient[:10] *= 1.5
    outlier = clean[2].copy()
    outlier[-1] *= 1.5
    sides = [(clean[0], quantile_runs(40, 0.01, 10)), (clean[0], transient),
             (outlier, clean[3]), (clean[4], np.full(40, 1.0)),
             (quantile_runs(40, 0.3, 11), clean[5]),
             (clean[1], np.exp(0.01 * norm.ppf([0.375, 0.875, 0.125, 0.625])))]
    expected = ["", "warmup", "outliers", "resolution", "noisy", "few runs"]
    columns = {"benchmark": [], "variant": [], "value": []}
    for b, (base, new) in enumerate(sides):
        assert ", ".join(oracle_flags(base) + oracle_flags(new)) == expected[b]
        for variant, values in (("base", base), ("new", new)):
            columns["benchmark"] += [f"bench{b}"] * values.size
            columns["variant"] += [variant] * values.size
            columns["value"] += values.tolist()
    table = pa.table(columns)
    for run, extra in ((fastperf.compare, {}), (fastperf.speedup_test, {}),
                       (fastperf.sparc, {"pair": None})):
        result = run(table, baseline="base", candidate="new", **extra)
        assert result.benchmarks.column("flags").to_pylist() == expected, run.__name__
        assert result.summary["flagged"] == 5
        assert result.summary["flags"] == {f: int(f in expected) for f in FLAGS}


@pytest.mark.parametrize("function, extra", [("compare", {}), ("speedup_test", {}),
                                             ("sparc", {"pair": None}),
                                             ("decide", {"margin": 0.02})])
def test_warmup_auto_refuses_an_infinite_value_as_without_it(function, extra):
    table = _table(benchmarks=3)
    values = table.column("value").to_numpy().copy()
    values[45] = math.inf  # bench0, new
    table = table.set_column(table.column_names.index("value"), "value", pa.array(values))
    run = getattr(fastperf, function)
    with pytest.raises(InputError) as plain:
        run(table, baseline="base", candidate="new", **extra)
    with pytest.raises(InputError) as auto:
        run(table, baseline="base", candidate="new", warmup="auto", **extra)
    assert "infinite" in str(plain.value)
    assert str(auto.value) == str(plain.value)


def test_lazy_dataset_with_processes_in_chunks_equals_in_memory(tmp_path):
    table, _ = fastperf.simulate(benchmarks=30, processes=6, iterations=10, seed=8,
                                 shapes=("lognormal",))
    # the first 3 iterations of each candidate process of 3 benchmarks twice as slow
    slow = {"bench_00000", "bench_00007", "bench_00020"}
    rows = table.select(["benchmark", "variant", "iteration"]).to_pylist()
    factor = [2.0 if r["benchmark"] in slow and r["variant"] == "candidate"
              and r["iteration"] < 3 else 1.0 for r in rows]
    values = table.column("value").to_numpy() * np.array(factor)
    table = table.set_column(table.column_names.index("value"), "value", pa.array(values))
    dataset, whole = lazy_pair(table, tmp_path / "data", memory_limit=100_000)
    for warmup in (None, "auto"):
        chunked = fastperf.compare(dataset, baseline="baseline", candidate="candidate",
                                   warmup=warmup)
        memory = fastperf.compare(whole, baseline="baseline", candidate="candidate",
                                  warmup=warmup)
        _same(memory.benchmarks, chunked.benchmarks)
        assert memory.summary.get("flags") == chunked.summary.get("flags")
        assert memory.summary.get("warmup") == chunked.summary.get("warmup")
    rows = chunked.benchmarks.to_pylist()
    assert len(rows) == 30
    assert [r["warmup_candidate"] for r in rows if r["benchmark"] in slow] == [3, 3, 3]
    assert chunked.summary["warmup"]["groups"] >= 3


def test_flag_text_lists_flags_in_order():
    bits = np.array([0, 1, 2 | 32, (1 << len(FLAGS)) - 1])
    assert flag_text(bits).to_pylist() == ["", "warmup", "outliers, noisy", ", ".join(FLAGS)]


def test_footer_in_text_markdown_and_report():
    table = _table(transient={(1, "new"): 10})
    result = fastperf.compare(table, baseline="base", candidate="new")
    flags = result.table.column("flags").to_pylist()
    flagged = sum(1 for f in flags if f)  # the oracle: the rows whose flags column is not empty
    assert flagged >= 1 and result.summary["flagged"] == flagged
    line = f"{flagged} of {len(flags)} comparisons flagged ("
    assert line in result.to_text()
    assert line in result.to_markdown()
    assert any(h.startswith(line) for h in result.report_view().headline)
    assert "`fastperf check` explains them" in result.to_text()


def test_no_footer_when_nothing_flagged():
    table = _table(seed=12, runs=60)  # a seed whose clean groups raise no flag
    result = fastperf.compare(table, baseline="base", candidate="new")
    assert result.table.column("flags").to_pylist() == [""] * result.table.num_rows
    assert result.summary["flagged"] == 0
    assert "flagged" not in result.to_text()
    assert not any("flagged" in h for h in result.report_view().headline)


def test_dataset_in_chunks_equals_in_memory(tmp_path):
    table = _table(benchmarks=12, transient={(1, "new"): 10, (7, "base"): 10})
    path = tmp_path / "runs.parquet"
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
    transient = {(1, "new"): 10}
    path = tmp_path / "runs.parquet"
    pq.write_table(_table(transient=transient), path)
    expected = fastperf.compare(_table(transient=transient), baseline="base", candidate="new",
                                warmup="auto")
    code, out, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                              "--warmup", "auto", "--format", "json"])
    assert code == 0, err
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
    # at a 1 % spread and 40 runs: bench1, 3 and 5 3 % apart, beyond the 2 % margin, changed
    # (no unit, so no direction: not "worse"); the others equal, equivalent; all decided: 0
    assert code == 0, err
    decisions = [r["decision"] for r in json.loads(out)["benchmarks"]]
    assert decisions == ["equivalent", "changed"] * 3
    assert [r["warmup_candidate"] for r in json.loads(out)["benchmarks"]][1] == 10
    code, _, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                            "--protocol", "hpt", "--warmup", "auto"])
    assert_clean_error(code, err, match="--warmup")
    code, _, err = run_cli(["compare", path, "--baseline", "base", "--candidate", "new",
                            "--warmup", "yes"])
    assert code == 2
