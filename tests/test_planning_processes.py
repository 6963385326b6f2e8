"""`plan_runs` per level: processes x iterations at least cost (Kalibera & Jones 2013).

Oracles, all computed here by hand: the balanced one-way ANOVA estimators of the variance
components (textbook formulas on a table built so that they are exact), Kalibera and Jones's
closed form ``iters* = sqrt((c_p / c_i) (s2_i / s2_p))``, a brute-force search over every (P, iters) of
a grid for the least-cost plan meeting ``t(p, P)^2 (s2_p + s2_i / iters) F_gamma(P - 1, m - 1) / P
<= H^2`` (scipy.stats quantiles), and a simulation of follow-ups of the planned size.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from scipy import stats

import fastperf
from fastperf import InputError, plan_runs
from fastperf.cli import main
from fastperf.protocols.planning.processes import least_cost_plans


def balanced_table(between, within, processes, iterations, *, centre=100.0, variants=("old",),
                   seed=0):
    """A table of benchmarks b0, b1, ... whose balanced ANOVA estimates on log values are
    exactly (`between`, `within`): the process effects and the iteration deviations are
    standardised to the sums of squares those estimates need."""
    rng = np.random.default_rng(seed)
    rows = {"benchmark": [], "variant": [], "process": [], "iteration": [], "value": []}
    for b, (s2_p, s2_i) in enumerate(zip(between, within)):
        for variant in variants:
            # MSW = SSW / (P (iters - 1)) = s2_i; MSB = iters SSA / (P - 1) = s2_i + iters s2_p
            noise = rng.standard_normal((processes, iterations))
            noise -= noise.mean(axis=1, keepdims=True)
            noise *= np.sqrt(s2_i * processes * (iterations - 1) / (noise ** 2).sum())
            effect = rng.standard_normal(processes)
            effect -= effect.mean()
            # s2_p = 0: MSB = 0.9 MSW, an estimate truncated at 0 (not rounding noise)
            msb = s2_i + iterations * s2_p if s2_p else 0.9 * s2_i
            effect *= np.sqrt(msb * (processes - 1) / iterations / (effect ** 2).sum())
            logs = np.log(centre * (b + 1)) + effect[:, None] + noise
            rows["benchmark"] += [f"b{b}"] * logs.size
            rows["variant"] += [variant] * logs.size
            rows["process"] += list(np.repeat(np.arange(processes), iterations))
            rows["iteration"] += list(np.tile(np.arange(iterations), processes))
            rows["value"] += list(np.exp(logs).ravel())
    return pa.table(rows)


def textbook_components(logs):
    """Balanced one-way random-effects ANOVA on a (processes, iterations) array."""
    p, i = logs.shape
    means = logs.mean(axis=1)
    msw = ((logs - means[:, None]) ** 2).sum() / (p * (i - 1))
    msb = i * ((means - logs.mean()) ** 2).sum() / (p - 1)
    return max((msb - msw) / i, 0.0), msw


def reaches(P, iters, s2_p, s2_i, m, bound, confidence, assurance):
    """Whether P processes of iters iterations meet the precision rule (scipy.stats quantiles)."""
    t = stats.t.ppf(0.5 + confidence / 2, P - 1)
    f = 1.0 if assurance is None else stats.f.ppf(assurance, P - 1, m - 1)
    return t ** 2 * f * (s2_p + s2_i / iters) / P <= bound ** 2


def satterthwaite(s2_p, s2_i, m, k, iters):
    """Satterthwaite's degrees of freedom of MSB / k + MSW (1 / iters - 1 / k), the pilot's
    estimate of s2_p + s2_i / iters (MSB = s2_i + k s2_p on m - 1 df, MSW = s2_i on m (k - 1)),
    kept in [1, m - 1]."""
    a, b = (s2_i + k * s2_p) / k, s2_i * (1 / iters - 1 / k)
    return min(max((a + b) ** 2 / (a ** 2 / (m - 1) + b ** 2 / (m * (k - 1))), 1.0), m - 1.0)


def planned(s2_p, s2_i, m, k, bound, confidence, assurance, c_p, c_i):
    """The least-cost plan by brute force, each (P, iters) judged with the degrees of freedom
    of the pilot's estimate at its own iters (Satterthwaite's; m - 1 at the pilot's k)."""
    return brute_force(s2_p, s2_i, m, bound, confidence, assurance, c_p, c_i, k=k)


def brute_force(s2_p, s2_i, m, bound, confidence, assurance, c_p, c_i, top=600, k=None):
    """The least-cost (P, iters) on the grid 2..top x 1..top (fewest processes on a tie), and
    the degrees of freedom at its iters (m - 1 for the plug-in plan, or without `k`)."""
    P = np.arange(2, top + 1)[:, None]
    iters = np.arange(1, top + 1)[None, :]
    pilot = np.full(iters.shape, float(m))
    if assurance is not None and k is not None:
        pilot = np.array([[satterthwaite(s2_p, s2_i, m, k, i) + 1.0 for i in iters[0]]])
    cost = np.where(reaches(P, iters, s2_p, s2_i, pilot, bound, confidence, assurance),
                    P * (c_p + iters * c_i), np.inf)
    best = cost.min()
    p, i = np.argwhere(cost == best)[0]  # row-major: the fewest processes first
    return int(P[p, 0]), int(iters[0, i]), best, float(pilot[0, i] if pilot.ndim else m) - 1.0


BETWEEN = [4e-4, 1e-4, 2.5e-5, 1e-3, 0.0]
WITHIN = [1e-3, 4e-3, 1e-3, 1e-4, 2e-3]


@pytest.mark.parametrize("assurance", [0.8, None])
@pytest.mark.parametrize("process_cost, iteration_cost", [(1.0, 1.0), (30.0, 1.0), (2.0, 0.5)])
def test_plan_against_closed_form_and_brute_force(assurance, process_cost, iteration_cost):
    processes, iterations, precision, confidence = 8, 6, 0.01, 0.95
    table = balanced_table(BETWEEN, WITHIN, processes, iterations)
    result = plan_runs(table, precision=precision, confidence=confidence, assurance=assurance,
                       process_cost=process_cost, iteration_cost=iteration_cost)
    groups = result.groups
    assert result.summary["structure"] == "process"
    values = table.column("value").to_numpy().reshape(len(BETWEEN), processes, iterations)
    bound = np.log1p(precision)
    for row, logs in enumerate(np.log(values)):
        s2_p, s2_i = textbook_components(logs)
        np.testing.assert_allclose([s2_p, s2_i], [BETWEEN[row], WITHIN[row]], rtol=1e-9,
                                   atol=1e-15)
        got = {name: groups.column(name)[row].as_py() for name in groups.column_names}
        np.testing.assert_allclose(got["sigma2_between"], s2_p, rtol=1e-8, atol=1e-14)
        np.testing.assert_allclose(got["sigma2_within"], s2_i, rtol=1e-8)
        np.testing.assert_allclose(got["icc"], s2_p / (s2_p + s2_i), rtol=1e-8, atol=1e-12)
        closed_form = np.sqrt(process_cost / iteration_cost * s2_i / s2_p) if s2_p else np.inf
        np.testing.assert_allclose(got["iterations_optimal"], closed_form, rtol=1e-7)
        want_p, want_i, want_cost, _ = planned(BETWEEN[row], WITHIN[row], processes,
                                               iterations, bound, confidence, assurance,
                                               process_cost, iteration_cost)
        got_p, got_i = got["processes"], got["iterations"]
        df = (processes - 1.0 if assurance is None
              else satterthwaite(BETWEEN[row], WITHIN[row], processes, iterations, got_i))
        # the plan meets its own condition (the degrees of freedom at its own iterations), and
        # costs the least (the plug-in plan), or within 10 % of it (with an assurance, the
        # best of four candidate iteration counts: `_plans_at_their_own_df`)
        assert reaches(got_p, got_i, s2_p, s2_i, df + 1.0, bound, confidence, assurance), row
        if assurance is None:
            assert (got_p, got_i) == (want_p, want_i), row
        assert want_cost <= got["cost"] <= 1.10 * want_cost, row
        assert got["cost"] == pytest.approx(got_p * (process_cost + got_i * iteration_cost),
                                            rel=1e-12)
        want_p, want_i = got_p, got_i
        assert got["runs_needed"] == want_p * want_i
        assert got["runs_more"] == max(0, want_p * want_i - processes * iterations)
        assert got["processes_more"] == max(0, want_p - processes)
        assert got["plan"] == (f"{want_p} processes x {want_i} "
                               f"{'iteration' if want_i == 1 else 'iterations'}")
        assert got["analysis"] == "process" and got["units"] == processes
        assert got["scale"] == "log" and got["status"] == "ok"
        # Kalibera and Jones's rounded plan: iters* rounded, then the smallest P; never cheaper
        if s2_p:
            kj_i = max(1, int(np.rint(closed_form)))
            kj_df = (processes - 1.0 if assurance is None
                     else satterthwaite(s2_p, s2_i, processes, iterations, kj_i))
            kj_p = next(P for P in range(2, 100000)
                        if reaches(P, kj_i, s2_p, s2_i, kj_df + 1.0, bound, confidence,
                                   assurance))
            assert got["cost"] <= kj_p * (process_cost + kj_i * iteration_cost)
        # the assurance reached, by hand: P(t S_V / sqrt(P) <= h), S_V^2 / V ~ F(P - 1, df)
        if assurance is not None:
            P, iters = want_p, want_i
            t = stats.t.ppf(0.5 + confidence / 2, P - 1)
            x = bound ** 2 * P / (t ** 2 * (s2_p + s2_i / iters))
            np.testing.assert_allclose(got["assurance"], stats.f.cdf(x, P - 1, df), rtol=1e-9)
            assert got["assurance"] >= assurance


def test_least_cost_plans_match_brute_force_on_random_components():
    rng = np.random.default_rng(7)
    size = 60
    between = 10 ** rng.uniform(-5, -2.5, size) * (rng.random(size) > 0.15)
    within = 10 ** rng.uniform(-5, -2.5, size)
    units = rng.integers(2, 30, size).astype(float)
    bound = 10 ** rng.uniform(-2, -1.3, size)
    checked = 0
    for assurance in (0.8, 0.5, None):
        for process_cost in (0.3, 5.0):
            plans = least_cost_plans(between, within, units, bound, 0.95, assurance,
                                     process_cost, 1.0)
            for g in range(size):
                want = brute_force(between[g], within[g], units[g], bound[g], 0.95, assurance,
                                   process_cost, 1.0, top=300)
                if not np.isfinite(want[2]) or max(want[:2]) >= 300:
                    continue  # beyond the grid
                assert (plans["processes"][g], plans["iterations"][g]) == want[:2], g
                checked += 1
    assert checked > 200


def test_the_promised_precision_is_met_in_simulation():
    # pilots of 10 processes x 5 iterations from one truth; each plan's follow-up drawn fresh:
    # its interval reaches the precision in at least `assurance` of the pilots (3 SE slack)
    rng = np.random.default_rng(11)
    s2_p, s2_i, pilots, m, k = 2e-4, 1e-3, 400, 10, 5
    effect = rng.normal(0, np.sqrt(s2_p), (pilots, m, 1))
    logs = np.log(50.0) + effect + rng.normal(0, np.sqrt(s2_i), (pilots, m, k))
    table = pa.table({"benchmark": np.repeat(np.arange(pilots), m * k),
                      "process": np.tile(np.repeat(np.arange(m), k), pilots),
                      "value": np.exp(logs).ravel()})
    precision, confidence, assurance = 0.01, 0.95, 0.8
    groups = plan_runs(table, variant=None, precision=precision, confidence=confidence,
                       assurance=assurance, process_cost=5.0).groups
    P = groups.column("processes").to_numpy()
    iters = groups.column("iterations").to_numpy()
    reached = np.empty(pilots, dtype=bool)
    for g in range(pilots):
        means = (np.log(50.0) + rng.normal(0, np.sqrt(s2_p), P[g])
                 + rng.normal(0, np.sqrt(s2_i), (P[g], iters[g])).mean(axis=1))
        half = stats.t.ppf(0.5 + confidence / 2, P[g] - 1) * means.std(ddof=1) / np.sqrt(P[g])
        reached[g] = half <= np.log1p(precision)
    se = np.sqrt(assurance * (1 - assurance) / pilots)
    assert reached.mean() >= assurance - 3 * se
    assert (P >= 2).all() and (iters >= 1).all()


def test_flat_plan_is_unchanged():
    table = balanced_table(BETWEEN[:3], WITHIN[:3], 6, 4, variants=("old", "new"))
    flat = table.drop_columns(["process", "iteration"])
    want = plan_runs(flat)
    for levels in ([], "none"):
        got = plan_runs(table, levels=levels)
        assert got.table.equals(want.table) and got.separation.equals(want.separation)
        assert got.summary == want.summary and got.summary["structure"] == "flat"


def test_a_round_block_and_a_build_level():
    table = balanced_table(BETWEEN[:2], WITHIN[:2], 6, 4)
    as_rounds = table.rename_columns(["benchmark", "variant", "round", "iteration", "value"])
    rounds = plan_runs(as_rounds)
    processes = plan_runs(table)
    assert rounds.summary["structure"] == "round"
    assert rounds.groups.column("analysis").to_pylist() == ["round", "round"]
    assert rounds.groups.column("processes").equals(processes.groups.column("processes"))
    assert rounds.groups.column("plan")[0].as_py().endswith("iterations") and \
        " rounds x " in rounds.groups.column("plan")[0].as_py()
    # one process per build: the between variance sums both levels
    builds = table.append_column("build", pc.divide(table.column("process"), 2))
    two = plan_runs(builds)
    assert two.summary["structure"] == "build > process"
    groups = two.groups
    assert groups.column("analysis").to_pylist() == ["build", "build"]
    assert groups.column("units").to_pylist() == [3, 3]
    assert " builds x " in groups.column("plan")[0].as_py()
    assert np.isfinite(groups.column("sigma2_between").to_numpy()).all()


def test_statuses_of_a_plan_per_level():
    table = pa.table({
        "benchmark": ["one"] * 4 + ["single"] * 4 + ["zero"] * 4 + ["neg"] * 4,
        "process": [0, 0, 0, 0] + [0, 1, 2, 3] + [0, 0, 1, 1] + [0, 0, 1, 1],
        "value": [1.0, 1.1, 1.2, 1.3, 1.0, 1.1, 1.2, 1.3, 2.0, 2.0, 2.0, 2.0,
                  -1.0, 1.0, 1.5, -0.5],
    })
    got = plan_runs(table, variant=None).groups
    rows = {b: i for i, b in enumerate(got.column("benchmark").to_pylist())}
    status = got.column("status").to_pylist()
    assert status[rows["one"]] == "1 process: no variance between processes"
    assert got.column("processes")[rows["one"]].as_py() == -1
    # one value per process: the values are independent, the flat plan is the plan
    flat = plan_runs(table.filter(pc.equal(table.column("benchmark"), "single")),
                     variant=None, levels=[]).groups
    single = rows["single"]
    assert got.column("analysis")[single].as_py() == "flat"
    assert got.column("processes")[single].as_py() == flat.column("runs_needed")[0].as_py()
    assert got.column("iterations")[single].as_py() == 1
    assert status[rows["zero"]] == "zero spread"
    assert (got.column("processes")[rows["zero"]].as_py(),
            got.column("iterations")[rows["zero"]].as_py()) == (2, 1)
    assert got.column("scale")[rows["neg"]].as_py() == "linear"
    assert status[rows["neg"]] == "ok"


def test_rows_in_any_order_give_the_same_plan():
    table = balanced_table(BETWEEN, WITHIN, 5, 3, variants=("old", "new"))
    order = np.random.default_rng(3).permutation(table.num_rows)
    keys = [("benchmark", "ascending"), ("variant", "ascending")]
    want = plan_runs(table, process_cost=4.0).groups
    got = plan_runs(table.take(order), process_cost=4.0).groups
    want, got = (pa.table({c: t.column(c).cast(pa.string()) if c in ("benchmark", "variant")
                           else t.column(c) for c in t.column_names}).sort_by(keys)
                 for t in (want, got))
    for name in ("processes", "iterations", "runs_needed", "units", "plan", "status"):
        assert got.column(name).equals(want.column(name)), name
    for name in ("sigma2_between", "sigma2_within", "cost", "halfwidth"):
        np.testing.assert_allclose(got.column(name).to_numpy(), want.column(name).to_numpy(),
                                   rtol=1e-9)


def test_separation_counts_units():
    table = balanced_table(BETWEEN[:2], WITHIN[:2], 6, 4, variants=("old", "new"))
    got = plan_runs(table)
    assert got.separation.column("n_baseline").to_pylist() == [6, 6]
    logs = np.log(table.column("value").to_numpy().reshape(2, 2, 6, 4))
    unit_means = np.exp(logs).mean(axis=3)  # the processes' arithmetic means
    np.testing.assert_allclose(got.separation.column("sd_baseline").to_numpy(),
                               unit_means[:, 0].std(axis=1, ddof=1), rtol=1e-12)


@pytest.mark.parametrize("options, argument", [
    ({"process_cost": 0.0}, "process_cost"), ({"iteration_cost": -1.0}, "iteration_cost"),
    ({"process_cost": "2"}, "process_cost"), ({"levels": ["nope"]}, "levels"),
    ({"block": "nope"}, "block"),
])
def test_bad_arguments(options, argument):
    table = balanced_table(BETWEEN[:1], WITHIN[:1], 3, 2)
    with pytest.raises(InputError, match=argument):
        plan_runs(table, **options)


def test_cli_plan_per_level(tmp_path, capsys):
    path = tmp_path / "nested.parquet"
    pq.write_table(balanced_table(BETWEEN[:2], WITHIN[:2], 6, 4), path)
    assert main(["plan", str(path), "--process-cost", "30", "--iteration-cost", "1"]) == 0
    out = capsys.readouterr().out
    want = plan_runs(balanced_table(BETWEEN[:2], WITHIN[:2], 6, 4), process_cost=30.0).groups
    for label in want.column("plan").to_pylist():
        assert label in out and " processes x " in label
    assert main(["plan", str(path), "--levels", "none"]) == 0
    assert "processes x" not in capsys.readouterr().out
    assert main(["plan", str(path), "--process-cost", "0"]) == 2
    assert "--process-cost" in capsys.readouterr().err


def test_a_plan_far_from_the_pilot_does_not_price_every_other_plan():
    """A pilot of 10 processes x 5 iterations: planned with m - 1 degrees of freedom the plan
    asked for 17 iterations, and planned again with Satterthwaite's at 17 for every count, it
    became 51 x 17 (cost 1,122), though 49 x 5 (cost 490) meets the rule with the pilot's own
    m - 1 at its own 5 iterations. Oracle: `brute_force` with the degrees of freedom of each
    count of iterations (the least cost on the grid)."""
    sim = fastperf.simulate(benchmarks=1, processes=10, iterations=5, icc=0.23043363673581885,
                            seed=0, shapes="lognormal", sigma=0.03, variants=["a", "b"],
                            unit=None)
    table = sim.table.filter(pc.equal(sim.table["variant"], "b"))
    row = plan_runs(table, variant=None, precision=0.005, process_cost=5.0).groups.to_pylist()[0]
    want = planned(row["sigma2_between"], row["sigma2_within"], 10, 5, np.log1p(0.005), 0.95,
                   0.8, 5.0, 1.0)
    assert (row["processes"], row["iterations"], row["cost"]) == (49, 5, 490.0) == want[:3]
