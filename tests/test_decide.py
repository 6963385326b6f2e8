"""`fastperf.decide` against a plain implementation of the same method: a Python loop over the
benchmarks that pairs the units by hand, takes scipy's t statistic, the textbook Bayes factor
(`naive.t_mixture_bayes_factor`), the interval by root-finding and e-BH by its definition; and
its structures (runs, processes, rounds), statuses, chunked runs and what a benchmark's answer
may depend on."""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

import fastperf
from fastperf.engine.sequential import MIXTURE_VARIANCE
from fastperf.errors import InputError
from fastperf.protocols.decide import decide_finish, decide_options, decide_plan, decide_stage
from naive import e_bh_by_definition, t_mixture_bayes_factor, t_mixture_interval_by_root
from scale_checks import assert_identical_results, run_in_parts


def reference(table: pa.Table, margin: float, alpha: float = 0.05, adjust: str = "e-bh",
              unit_of: str = "run"):
    """Per benchmark (first appearance order): the log ratios of the i-th units of each side
    (``unit_of``: "run" every value, "process" the process means, "round" the round means
    paired by round), the e-value, the interval, then the decisions (lower is better)."""
    rows = table.to_pylist()
    names = list(dict.fromkeys(r["benchmark"] for r in rows))
    out = {}
    for name in names:
        sides = {}
        for variant in ("baseline", "candidate"):
            mine = [r for r in rows if r["benchmark"] == name and r["variant"] == variant
                    and r["value"] is not None and not math.isnan(r["value"])]
            if unit_of == "run":
                sides[variant] = {i: r["value"] for i, r in enumerate(mine)}
            else:
                units: dict = {}
                for r in mine:
                    units.setdefault(r[unit_of], []).append(r["value"])
                means = {u: sum(v) / len(v) for u, v in units.items()}
                sides[variant] = (means if unit_of == "round" else
                                  dict(enumerate(means.values())))
        common = [u for u in sides["baseline"] if u in sides["candidate"]]
        d = np.array([math.log(sides["candidate"][u]) - math.log(sides["baseline"][u])
                      for u in common])
        if d.size >= 2:
            e = t_mixture_bayes_factor(d, 0.0, MIXTURE_VARIANCE)
            low, high = t_mixture_interval_by_root(d, alpha, MIXTURE_VARIANCE)
        else:
            e, low, high = 1.0, -math.inf, math.inf
        out[name] = dict(units=d.size, mean=d.mean() if d.size else math.nan, e=e, low=low,
                         high=high, ok=d.size >= 2)
    tested = [n for n in names if out[n]["ok"]]
    evalues = [out[n]["e"] for n in tested]
    if adjust == "e-bh":
        rejected = dict(zip(tested, e_bh_by_definition(evalues, alpha)))
    else:
        family = len(tested) if adjust == "bonferroni" else 1
        rejected = {n: out[n]["e"] >= family / alpha for n in tested}
    for name in names:
        r = out[name]
        if rejected.get(name):
            r["decision"] = "worse" if r["mean"] > 0 else "better"
        elif r["ok"] and math.log1p(-margin) <= r["low"] and r["high"] <= math.log1p(margin):
            r["decision"] = "equivalent"
        else:
            r["decision"] = "continue"
    return out


def check_against_reference(result, want) -> None:
    got = {r["benchmark"]: r for r in result.table.to_pylist()}
    assert list(got) == list(want)
    for name, w in want.items():
        g = got[name]
        assert g["units"] == w["units"], name
        assert g["decision"] == w["decision"], name
        assert g["e_value"] == pytest.approx(w["e"], rel=1e-9), name
        if w["ok"]:
            assert math.log(g["ratio"]) == pytest.approx(w["mean"], rel=1e-12, abs=1e-15)
        if math.isfinite(w["low"]):
            assert math.log(g["ci_low"]) == pytest.approx(w["low"], rel=1e-8, abs=1e-12), name
            assert math.log(g["ci_high"]) == pytest.approx(w["high"], rel=1e-8, abs=1e-12)
        else:
            assert g["ci_low"] == 0.0 and g["ci_high"] == math.inf


def flat_table(seed: int, benchmarks: int = 24) -> pa.Table:
    """Benchmarks of 1 to 14 rounds, no change, +/-3 % and +/-12 % changes, unequal runs."""
    rng = np.random.default_rng(seed)
    effects = rng.choice([1.0, 1.03, 1 / 1.03, 1.12, 1 / 1.12], benchmarks)
    rows = {"benchmark": [], "variant": [], "value": [], "unit": []}
    for b in range(benchmarks):
        rounds = int(rng.integers(1, 15))
        for variant, factor in (("baseline", 1.0), ("candidate", effects[b])):
            n = rounds + int(rng.integers(0, 2) if variant == "candidate" else 0)
            values = factor * np.exp(rng.normal(0.0, 0.03, n))
            rows["benchmark"] += [f"b{b:02d}"] * n
            rows["variant"] += [variant] * n
            rows["value"] += values.tolist()
            rows["unit"] += ["s"] * n
    order = rng.permutation(len(rows["value"]))  # rows interleaved: order of appearance
    return pa.table({k: [v[i] for i in order] for k, v in rows.items()})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("adjust", ["e-bh", "bonferroni", "none"])
def test_flat_against_the_reference(seed, adjust):
    table = flat_table(seed)
    got = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03,
                          adjust=adjust)
    assert got.summary["sequential_unit"] == "run"
    want = reference(table, 0.03, adjust=adjust)
    check_against_reference(got, want)
    decisions = got.table.column("decision").to_pylist()
    assert "continue" in decisions and {"worse", "better"} & set(decisions)


def test_processes_against_the_reference():
    sim = fastperf.simulate(12, processes=6, iterations=4, icc=0.3, unit="s", seed=3,
                            effects=[1.0, 1 / 1.1, 1.1] * 4)
    table = sim.table
    got = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03)
    assert got.summary["sequential_unit"] == "process"
    check_against_reference(got, reference(table, 0.03, unit_of="process"))
    assert got.table.column("units").to_pylist() == [6] * 12


def test_rounds_against_the_reference():
    sim = fastperf.simulate(10, rounds=9, unit="s", seed=8, drift=0.05,
                            effects=[1.0, 1 / 1.08] * 5)
    table = sim.table
    got = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03)
    assert got.summary["sequential_unit"] == "round"
    check_against_reference(got, reference(table, 0.03, unit_of="round"))


def test_decisions_and_direction():
    sim = fastperf.simulate(6, 20, unit="s", seed=1, shapes=("lognormal",), sigma=0.01,
                            base=1.0, effects=[1.0, 1.0, 1 / 1.2, 1 / 1.2, 1.2, 1.2])
    got = fastperf.decide(sim.table, baseline="baseline", candidate="candidate", margin=0.05)
    assert got.table.column("decision").to_pylist() == (
        ["equivalent"] * 2 + ["worse"] * 2 + ["better"] * 2)
    assert got.summary["decisions"] == {"worse": 2, "better": 2, "changed": 0,
                                        "equivalent": 2, "continue": 0}
    assert got.table.column("runs_needed").null_count == 6
    faster = fastperf.decide(sim.table, baseline="baseline", candidate="candidate",
                             margin=0.05, higher_is_better=True)
    assert faster.table.column("decision").to_pylist()[2:] == ["better"] * 2 + ["worse"] * 2
    no_unit = fastperf.decide(sim.table.drop_columns(["unit"]), baseline="baseline",
                              candidate="candidate", margin=0.05)
    assert no_unit.table.column("decision").to_pylist()[2:] == ["changed"] * 4
    assert any("no known direction" in w for w in no_unit.warnings)


def test_statuses_and_runs_needed():
    table = pa.table({
        "benchmark": ["one"] * 2 + ["neg"] * 8 + ["lonely"] * 3 + ["nan"] * 7,
        "variant": ["baseline", "candidate"] + ["baseline", "candidate"] * 4
                   + ["baseline"] * 3 + ["baseline", "candidate"] * 3 + ["candidate"],
        "value": [1.0, 1.1] + [1.0, -1.0, 1.1, 1.0, 1.0, 1.05, 0.9, 1.0]
                 + [1.0, 1.1, 1.2] + [1.0, 1.01, 1.02, 0.99, None, 1.0, float("nan")],
    })
    got = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.02,
                          by="benchmark", unit=None)
    rows = {r["benchmark"]: r for r in got.table.to_pylist()}
    assert rows["one"]["status"] == "fewer than 2 paired runs"
    assert rows["one"]["decision"] == "continue" and rows["one"]["runs_needed"] == 3
    assert rows["neg"]["status"] == "values <= 0: no ratio" and rows["neg"]["decision"] is None
    assert rows["lonely"]["status"] == "no candidate runs"
    assert rows["lonely"]["decision"] == "continue"
    assert rows["nan"]["n_dropped_baseline"] == 1 and rows["nan"]["n_dropped_candidate"] == 1
    assert rows["nan"]["units"] == 2 and rows["nan"]["unpaired"] == 1
    assert math.isnan(rows["neg"]["ratio"])
    assert any("can take no decision" in w for w in got.warnings)
    assert any("n_dropped" in w for w in got.warnings)
    # the benchmarks to run again: not "neg", which no further run can decide
    assert got.undecided() == ["one", "lonely", "nan"]
    assert got.summary["undecided"] == 3 and got.summary["no_decision"] == 1
    text = got.to_text()
    assert "values <= 0: no ratio" in text and "+3" in text


def test_runs_needed_is_the_projection():
    """Rounds added with the same mean and spread decide within the projected count."""
    rng = np.random.default_rng(2)
    d = rng.normal(0.0, 1.0, 6)
    d = (d - d.mean()) / d.std(ddof=1) * 0.02 + 0.01  # mean +1 %, sd 2 %
    x = np.ones(6)
    table = pa.table({"benchmark": ["a"] * 12, "variant": ["baseline"] * 6 + ["candidate"] * 6,
                      "value": np.r_[x, np.exp(d)]})
    got = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03,
                          unit=None).table.to_pylist()[0]
    assert got["decision"] == "continue"
    more = got["runs_needed"]
    # the same six differences repeated keep mean and nearly the sd: decided at 6 + more
    # (rounded up to whole copies of the pattern) at the latest, not much before
    copies = math.ceil((6 + more) / 6)
    big = pa.table({"benchmark": ["a"] * 12 * copies,
                    "variant": (["baseline"] * 6 * copies + ["candidate"] * 6 * copies),
                    "value": np.r_[np.tile(x, copies), np.tile(np.exp(d), copies)]})
    later = fastperf.decide(big, baseline="baseline", candidate="candidate", margin=0.03,
                            unit=None).table.to_pylist()[0]
    assert later["decision"] == "equivalent"


def test_a_benchmarks_evidence_does_not_depend_on_the_others():
    table = flat_table(7)
    together = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03)
    names = together.table.column("benchmark").to_pylist()
    for name in names[:5]:
        alone = fastperf.decide(table.filter(pa.compute.equal(table.column("benchmark"), name)),
                                baseline="baseline", candidate="candidate", margin=0.03,
                                adjust="none")
        row, solo = together.table.to_pylist()[names.index(name)], alone.table.to_pylist()[0]
        for column in ("units", "ratio", "ci_low", "ci_high", "e_value", "status"):
            assert row[column] == solo[column] or (
                isinstance(row[column], float) and math.isnan(row[column])
                and math.isnan(solo[column])), (name, column)


@pytest.mark.parametrize("seed", range(3))
def test_group_complete_parts_give_the_in_memory_result(seed):
    table = flat_table(seed, 30)
    options = decide_options(baseline="baseline", candidate="candidate", margin=0.03, by=None,
                             variant="variant", value="value", unit="unit", alpha=0.05,
                             adjust="e-bh", higher_is_better=None, levels=None, block=None)
    plan = decide_plan(table, options)
    want = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.03)
    got = run_in_parts(table, plan, decide_stage, decide_finish, n_parts=4, seed=seed)
    assert_identical_results(got, want)


def test_levels_none_takes_every_value():
    sim = fastperf.simulate(4, processes=5, iterations=3, unit="s", seed=2)
    flat = fastperf.decide(sim.table, baseline="baseline", candidate="candidate", margin=0.03,
                           levels="none")
    assert flat.summary["sequential_unit"] == "run" and flat.summary["structure"] == "flat"
    assert flat.table.column("units").to_pylist() == [15] * 4


@pytest.mark.parametrize("kwargs, match", [
    (dict(margin=None), "margin"),
    (dict(margin=0.0), "margin"),
    (dict(margin=1.5), "margin"),
    (dict(margin=0.02, alpha=2.0), "alpha"),
    (dict(margin=0.02, adjust="bh"), "adjust"),
    (dict(margin=0.02, candidate="baseline"), "candidate"),
    (dict(margin=0.02, candidate=["x", "y"]), "candidate"),
    (dict(margin=0.02, candidate="nope"), "nope"),
    (dict(margin=0.02, levels=["missing"]), "missing"),
    (dict(margin=0.02, higher_is_better="yes"), "higher_is_better"),
])
def test_bad_arguments_are_named(kwargs, match):
    table = flat_table(0, 3)
    options = {"baseline": "baseline", "candidate": "candidate", **kwargs}
    with pytest.raises(InputError, match=match):
        fastperf.decide(table, **options)


def test_renderings():
    got = fastperf.decide(flat_table(1), baseline="baseline", candidate="candidate",
                          margin=0.03)
    text = got.to_text()
    assert "anytime interval" in text and "e-BH over" in text
    assert got.to_markdown().startswith("| benchmark")
    assert '"decision"' in got.to_json()
    assert "decision" in got.to_html()


def test_a_ratio_beyond_float64_is_no_decision():
    """Runs of 1e-300 against 1e300: the mean log ratio is about 1381.6 (computed here from
    math.log, not by decide), whose exp float64 cannot hold; the row says so and decides
    nothing (it said ratio inf, status ok, and on rounds decision "changed")."""
    low, high = [1e-300, 2e-300, 3e-300], [1e300, 2e300, 3e300]
    mean_log = sum(math.log(h) - math.log(lo) for lo, h in zip(low, high)) / 3
    assert mean_log > math.log(np.finfo(float).max)
    flat = pa.table({"benchmark": ["a"] * 6, "variant": ["b"] * 3 + ["c"] * 3,
                     "value": low + high})
    rounds = pa.table({"benchmark": ["a"] * 12, "variant": ["b"] * 6 + ["c"] * 6,
                       "round": list(range(6)) * 2, "value": (low * 2) + (high * 2)})
    for table, baseline, candidate in ((flat, "b", "c"), (flat, "c", "b"), (rounds, "b", "c")):
        row = fastperf.decide(table, baseline=baseline, candidate=candidate, margin=0.02,
                              unit=None).table.to_pylist()[0]
        assert row["status"] == "ratio or its interval beyond the float64 range"
        assert row["decision"] is None


def test_an_unbounded_first_interval_stays_ok():
    """The confidence sequence is unbounded at its first units by design (its log ends are
    infinite): that is no overflow. Two runs a side: [0, inf], status ok."""
    table = fastperf.simulate(benchmarks=20, runs=2, seed=3).table
    result = fastperf.decide(table, baseline="baseline", candidate="candidate", margin=0.02)
    rows = result.table.to_pylist()
    assert all(r["status"] == "ok" for r in rows)
    assert all(r["ci_low"] == 0 and r["ci_high"] == math.inf for r in rows)
