"""`changepoints`: the energy statistic, the two significance rules, the change table, and
detection on simulated histories with known change points.

Oracles: brute-force O(L^3) energy statistics (tests/naive.py), scipy's Welch t-test, numpy
medians of the runs, brute-force Hodges-Lehmann intervals (all pairwise log differences), the
known change points of the simulated histories, and binomial bounds for the false-change rate.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest
import scipy.stats as sps

import fastperf
from fastperf import InputError
from fastperf.kernels import builds
from fastperf.kernels.changepoints import next_change
from fastperf.stats.changepoints import METHODS
from naive import energy_best_split, pairwise_differences, untied_rank_sum_cdf


def history(steps, points=120, runs=1, benchmarks=1, shape="lognormal", sigma=0.01, seed=0,
            unit="s"):
    """Simulated histories: fastperf.simulate's noise (one variant; its runs are the commits),
    the level multiplied by each step's factor from its commit on. `steps`: {commit: factor}."""
    sim = fastperf.simulate(benchmarks, points * runs, variants=("main", "unused"), seed=seed,
                            shapes=[shape], sigma=(sigma, sigma), base=(1.0, 1.0), unit=unit)
    t = sim.table.filter(pa.compute.equal(sim.table.column("variant").cast(pa.string()), "main"))
    commit = t.column("run").to_numpy() // runs
    factor = np.ones(t.num_rows)
    for at, step in steps.items():
        factor *= np.where(commit >= at, step, 1.0)
    return pa.table({"benchmark": t.column("benchmark"), "commit": commit,
                     "value": t.column("value").to_numpy() * factor, "unit": t.column("unit")})


#: One series' stream identity (`next_change` keys its permutations by it).
IDENTITY = np.zeros(1, np.uint64)


def empty_cache(columns):
    """The kernel's cache of one series' scanned segments, empty (`next_change`): `columns` is
    the capacity of its cuts + 1."""
    return (np.full((1, columns), -1, np.int64), np.full((1, columns), -1, np.int64),
            np.full((1, columns), -np.inf))


@pytest.mark.parametrize("seed", range(6))
def test_energy_split_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=int(rng.integers(12, 50)))
    z[len(z) // 3:] += rng.uniform(0, 2)
    if seed % 2:
        z = np.round(z, 1)  # ties
    want_t, want_q = energy_best_split(z, 3)
    position, q, _, _, _ = next_change(z, np.array([0, len(z)]), np.zeros((1, 1), np.int64),
                                       np.zeros(1, np.int64), np.ones(1, bool), 3, 1, 1, 0.05,
                                       0, IDENTITY, 0, *empty_cache(2), n_rows=0)
    assert position[0] == want_t
    assert q[0] == pytest.approx(want_q, rel=1e-10)


def test_split_within_segments_matches_brute_force():
    """With a cut already at 40, the next split is the best of [0, 40) and [40, 100)."""
    rng = np.random.default_rng(3)
    z = np.concatenate([rng.normal(0, 1, 40), rng.normal(5, 1, 30), rng.normal(7, 1, 30)])
    cuts = np.array([[40, np.iinfo(np.int64).max]])
    position, q, _, _, _ = next_change(z, np.array([0, 100]), cuts, np.array([1]),
                                       np.ones(1, bool), 4, 1, 1, 0.05, 0, IDENTITY, 0,
                                       *empty_cache(3),
                                       n_rows=0)
    left, right = energy_best_split(z[:40], 4), energy_best_split(z[40:], 4)
    want = (left[0], left[1]) if left[1] > right[1] else (40 + right[0], right[1])
    assert (position[0], q[0]) == (want[0], pytest.approx(want[1], rel=1e-10))
    # cuts in the order found, not sorted: segments [0, 20), [20, 40), [40, 100)
    position, q, _, _, _ = next_change(z, np.array([0, 100]), np.array([[40, 20]]), np.array([2]),
                                       np.ones(1, bool), 4, 1, 1, 0.05, 0, IDENTITY, 0,
                                       *empty_cache(3),
                                       n_rows=0)
    parts = [(0, energy_best_split(z[:20], 4)), (20, energy_best_split(z[20:40], 4)),
             (40, energy_best_split(z[40:], 4))]
    start, (t, best) = max(parts, key=lambda part: part[1][1])
    assert (position[0], q[0]) == (start + t, pytest.approx(best, rel=1e-10))


@pytest.mark.parametrize("method", [0, 1])  # EDIVISIVE, TTEST
def test_rounds_reading_the_cache_answer_as_a_fresh_scan(method):
    """Each bisection round with the cache kept from the earlier rounds (a segment no cut has
    touched is not scanned again) gives the answer of the same round from an empty cache,
    which scans every segment: five rounds of 40 series with 0-3 steps and ties."""
    rng = np.random.default_rng(12)
    sizes = rng.integers(20, 160, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    z = np.round(rng.normal(0, 1, offsets[-1]), 1)
    for g in range(40):
        for at in rng.integers(0, sizes[g], rng.integers(0, 4)):
            z[offsets[g] + at:offsets[g + 1]] += rng.choice([-3.0, 3.0])
    cuts, n_cuts = np.zeros((40, 5), np.int64), np.zeros(40, np.int64)
    kept = tuple(np.repeat(c, 40, axis=0) for c in empty_cache(6))
    identity = np.arange(40, dtype=np.uint64)
    for round_index in range(5):
        args = (z, offsets, cuts, n_cuts, np.ones(40, bool), 5, method, 19, 0.05, 1, identity,
                round_index)
        fresh = tuple(np.repeat(c, 40, axis=0) for c in empty_cache(6))
        with_cache = next_change(*args, *kept, n_rows=0)
        without = next_change(*args, *fresh, n_rows=0)
        for a, b in zip(with_cache, without):
            assert np.array_equal(a, b, equal_nan=True), round_index
        for name, a, b in zip(("hi", "t", "q"), kept, fresh):  # kept: the fresh scan's, and more
            scanned = b != (-1 if name != "q" else -np.inf)
            assert np.array_equal(a[scanned], b[scanned]), (round_index, name)
        found = with_cache[0] >= 0
        cuts[found, n_cuts[found]] = with_cache[0][found]
        n_cuts[found] += 1
    assert n_cuts.sum() > 40  # cuts found over the rounds: the cache was read


def test_ttest_pvalue_is_welchs_on_the_two_sides():
    t = history({60: 1.05}, points=100, sigma=0.02, seed=4)
    r = fastperf.changepoints(t, order="commit", method="ttest", alpha=0.01)
    row = r.changes.to_pylist()[0]
    z = t.column("value").to_numpy()
    want = sps.ttest_ind(z[row["position"]:], z[:row["position"]], equal_var=False).pvalue
    assert row["pvalue"] == pytest.approx(want, rel=1e-9)


def test_change_table_against_numpy_and_brute_force_hodges_lehmann():
    """The medians of the runs either side, the Hodges-Lehmann ratio (median of all pairwise
    log differences) and its exact distribution-free interval [d_(k), d_(mn+1-k)], k from the
    enumerated Mann-Whitney null (tests/naive.py)."""
    t = history({8: 1.2}, points=16, sigma=0.005, seed=5)
    r = fastperf.changepoints(t, order="commit", method="ttest", min_size=4)
    assert r.changes.num_rows == 1
    row = r.changes.to_pylist()[0]
    assert row["position"] == 8 and (row["order_before"], row["order_after"]) == (7, 8)
    commit, value = t.column("commit").to_numpy(), t.column("value").to_numpy()
    before, after = value[commit < 8], value[commit >= 8]
    assert row["median_before"] == np.median(before) and row["median_after"] == np.median(after)
    d = np.sort(pairwise_differences(np.log(after), np.log(before)))
    assert row["ratio"] == pytest.approx(np.exp(np.median(d)), rel=1e-12)
    cdf = untied_rank_sum_cdf(8, 8)
    k = int(np.searchsorted(cdf, 0.025, side="right"))  # P(U <= k - 1) <= 0.025 < P(U <= k)
    assert row["ratio_ci_low"] == pytest.approx(np.exp(d[k - 1]), rel=1e-12)
    assert row["ratio_ci_high"] == pytest.approx(np.exp(d[64 - k]), rel=1e-12)
    assert row["direction"] == "worse" and row["rank"] == 1 and row["status"] == "ok"


@pytest.mark.parametrize("method", ["pelt", "edivisive", "ttest"])
@pytest.mark.parametrize("shape", ["lognormal", "heavy_tail", "quantised", "bimodal"])
def test_known_change_points_are_found_within_one(method, shape):
    """Steps of 5-20% up and down, several runs per commit: every change found, at +-1."""
    steps = {40: 1.08, 90: 0.85, 150: 1.2}
    t = history(steps, points=200, runs=3, benchmarks=4, shape=shape, sigma=0.01, seed=7)
    seed = {"seed": 1} if method == "edivisive" else {}
    r = fastperf.changepoints(t, order="commit", method=method, **seed)  # default alpha
    for name in set(t.column("benchmark").to_pylist()):
        found = sorted(row["position"] for row in r.changes.to_pylist()
                       if row["benchmark"] == name)
        assert len(found) == len(steps), (name, found)
        for want, got in zip(sorted(steps), found):
            assert abs(want - got) <= 1, (name, found)


def test_direction_from_the_unit():
    up = history({60: 1.2}, points=120, sigma=0.01, seed=2, unit="s")
    assert fastperf.changepoints(up, order="commit").changes.column("direction").to_pylist() == ["worse"]
    for unit, direction in (("B/s", "better"), ("widgets", "changed")):
        other = up.set_column(3, "unit", pa.array([unit] * up.num_rows))
        got = fastperf.changepoints(other, order="commit").changes.column("direction").to_pylist()
        assert got == [direction], unit
    flipped = fastperf.changepoints(up, order="commit", higher_is_better=True)
    assert flipped.changes.column("direction").to_pylist() == ["better"]


@pytest.mark.parametrize("shape", ["lognormal", "quantised"])
def test_stationary_series_false_change_rate(shape):
    """No change in 300 stationary series. edivisive: at most alpha of them get one (binomial
    bound: the permutation test is valid for the best split); ttest: the rate documented in
    docs/changepoints.md (well above alpha, the price of testing the best split with a t-test)
    is not exceeded."""
    t = history({}, points=100, benchmarks=300, sigma=0.02, seed=11, shape=shape)
    for method, alpha, rate in (("edivisive", 0.05, 0.05), ("ttest", 0.001, 0.10)):
        r = fastperf.changepoints(t, order="commit", method=method, alpha=alpha, max_changes=1,
                                  permutations=99)
        changed = int((r.series.column("changes").to_numpy() > 0).sum())
        assert changed <= sps.binom.ppf(0.999, 300, rate), (method, changed)


def test_permutation_pvalue_grid_and_seed():
    t = history({60: 1.2}, points=120, sigma=0.01, seed=2)
    a = fastperf.changepoints(t, order="commit", method="edivisive", permutations=99, seed=3)
    b = fastperf.changepoints(t, order="commit", method="edivisive", permutations=99, seed=3)
    assert a.changes.to_pylist() == b.changes.to_pylist()
    assert a.changes.column("pvalue").to_pylist() == [pytest.approx(1 / 100)]


def test_results_do_not_depend_on_the_build(monkeypatch):
    t = history({40: 1.1, 80: 0.9}, points=120, benchmarks=5, sigma=0.01, seed=6)
    for method in METHODS:
        monkeypatch.setattr(builds, "FORCE_PARALLEL", False)
        options = {"permutations": 49} if method == "edivisive" else {}
        serial = fastperf.changepoints(t, order="commit", method=method, **options)
        monkeypatch.setattr(builds, "FORCE_PARALLEL", True)
        parallel = fastperf.changepoints(t, order="commit", method=method, **options)
        assert serial.changes.equals(parallel.changes) and serial.series.equals(parallel.series)
        assert serial.segments.equals(parallel.segments), method


def test_statuses_min_size_max_changes_and_dropped():
    t = pa.table({"benchmark": ["short"] * 6 + ["flat"] * 20 + ["gone"] * 2,
                  "commit": list(range(6)) + list(range(20)) + [0, 1],
                  "value": [1.0] * 6 + [2.0] * 20 + [None, float("nan")]})
    r = fastperf.changepoints(t, order="commit")
    rows = {row["benchmark"]: row for row in r.series.to_pylist()}
    assert rows["short"]["status"] == "too short: 6 points, fewer than 2 x min_size = 10"
    assert rows["flat"]["status"] == "constant series"
    assert rows["gone"]["status"] == "no values (all missing)" and rows["gone"]["n_dropped"] == 2
    steps = history({30: 1.2, 60: 0.8, 90: 1.3}, points=120, sigma=0.005, seed=8)
    assert fastperf.changepoints(steps, order="commit", method="edivisive",
                                 max_changes=2).changes.num_rows == 2
    for method in METHODS:
        capped = fastperf.changepoints(steps, order="commit", min_size=40, method=method)
        step = pa.compute.equal(capped.changes.column("kind"), "step")
        assert all(p >= 40 and 120 - p >= 40
                   for p in capped.changes.filter(step).column("position").to_pylist())
        lengths = pa.compute.subtract(capped.segments.column("end"),
                                      capped.segments.column("start")).to_numpy()
        assert (lengths >= 40).all(), method


@pytest.mark.parametrize("method", ["pelt", "edivisive", "ttest"])
def test_row_order_does_not_matter(method):
    """Rows as a history is written (by series, then commit) take the path that sorts nothing;
    the same rows shuffled, or with the commit as text, give the same tables."""
    t = pa.concat_tables([history({25: 1.2}, points=50, runs=3, seed=s).set_column(
        0, "benchmark", pa.array([f"b{s}"] * 150)) for s in range(3)])
    want = fastperf.changepoints(t, order="commit", method=method)
    # shuffled within each series (the series keep their order, and so their random streams)
    shuffled = t.take(np.lexsort((np.random.default_rng(1).random(t.num_rows),
                                  np.repeat(np.arange(3), 150))))
    as_text = shuffled.set_column(1, "commit", pa.array(
        [f"c{c:03d}" for c in shuffled.column("commit").to_pylist()]))
    for other in (shuffled, as_text):
        got = fastperf.changepoints(other, order="commit", method=method)
        assert got.series.to_pylist() == want.series.to_pylist()
        assert got.changes.drop_columns(["order_before", "order_after"]).to_pylist() == \
            want.changes.drop_columns(["order_before", "order_after"]).to_pylist()
    assert want.changes.column("position").to_pylist() == [25, 25, 25]
    intervals = t.set_column(1, "commit", pa.array(
        [pa.MonthDayNano([0, int(c), 0]) for c in t.column("commit").to_pylist()]))
    with pytest.raises(InputError, match="order column 'commit'"):  # Arrow cannot sort these
        fastperf.changepoints(intervals, order="commit", method=method)


def test_order_may_be_a_timestamp_and_points_are_medians():
    t = history({20: 1.3}, points=40, runs=5, sigma=0.01, seed=9)
    stamps = pa.array((t.column("commit").to_numpy() * 86400).astype("datetime64[s]"))
    r = fastperf.changepoints(t.set_column(1, "commit", stamps), order="commit", method="ttest")
    row = r.changes.to_pylist()[0]
    assert row["position"] == 20
    assert str(row["order_after"]) .startswith("1970-01-21")


def test_failures_since():
    t = history({30: 1.2, 80: 1.1}, points=120, sigma=0.005, seed=10)
    r = fastperf.changepoints(t, order="commit")
    assert r.failures().num_rows == 2
    assert r.failures(since=50).column("position").to_pylist() == [80]
    with pytest.raises(InputError, match="since"):
        r.failures(since="not a number")


@pytest.mark.parametrize("kwargs, word", [
    ({"method": "binseg"}, "method"), ({"alpha": 0}, "alpha"), ({"min_size": 1}, "min_size"),
    ({"method": "ttest", "alpha": 0}, "alpha"), ({"max_changes": 2}, "max_changes"),
    ({"method": "ttest", "max_changes": 0}, "max_changes"), ({"permutations": 0}, "permutations"),
    ({"penalty": 0}, "penalty"), ({"penalty": "bic"}, "penalty"), ({"penalty": float("nan")},
    "penalty"), ({"drift": 1}, "drift"), ({"method": "ttest", "penalty": 30}, "penalty"),
    ({"method": "edivisive", "drift": False}, "drift"), ({"permutations": 99}, "permutations"), ({"seed": 3}, "seed"),
    ({"serial_dependence": "yes"}, "serial_dependence"),
    ({"method": "ttest", "serial_dependence": False}, "serial_dependence"),
    ({"order": "nope"}, "nope"), ({"order": "value"}, "different"),
])
def test_bad_arguments_name_themselves(kwargs, word):
    t = history({}, points=20)
    with pytest.raises(InputError, match=word):
        fastperf.changepoints(t, **{"order": "commit", **kwargs})


def test_noise_free_steps_and_wandering_histories():
    """A deterministic metric (values constant within each level) keeps its step: an exact
    fit is not read as serially dependent noise. Histories whose noise wanders (AR(1), phi 0.5,
    1% on the log scale) get changes in most series when the noise is taken as independent,
    and in few by default; the series table shows the dependence and the inflation."""
    flat = pa.table({"benchmark": ["size"] * 400, "commit": np.arange(400),
                     "value": [100.0] * 200 + [130.0] * 200})
    r = fastperf.changepoints(flat, order="commit")
    assert r.changes.column("position").to_pylist() == [200]
    assert r.changes.column("ratio").to_pylist() == [pytest.approx(1.3)]
    assert r.series.column("noise_inflation").to_pylist() == [1.0]
    rng = np.random.default_rng(41)
    noise = np.empty((100, 300))
    noise[:, 0] = rng.normal(0.0, 1.0, 100) / math.sqrt(0.75)
    for i in range(1, 300):
        noise[:, i] = 0.5 * noise[:, i - 1] + rng.normal(0.0, 1.0, 100)
    wandering = pa.table({"benchmark": np.repeat(np.arange(100), 300),
                          "commit": np.tile(np.arange(300), 100),
                          "value": np.exp(0.01 * noise.ravel())})
    dependent = fastperf.changepoints(wandering, order="commit")
    independent = fastperf.changepoints(wandering, order="commit", serial_dependence=False)
    changed = lambda result: (result.series.column("changes").to_numpy() > 0).mean()  # noqa: E731
    assert changed(independent) > 0.5 and changed(dependent) <= 0.05
    inflation = dependent.series.column("noise_inflation").to_numpy()
    assert (inflation > 1.0).mean() > 0.9
    assert independent.series.column("noise_inflation").to_pylist() == [1.0] * 100
    phi = dependent.series.column("noise_autocorrelation").to_numpy()
    assert 0.35 < np.median(phi) < 0.65  # about the AR coefficient: the fit is one level
    ttest = fastperf.changepoints(wandering, order="commit", method="ttest")
    assert ttest.series.column("noise_inflation").null_count == 100
    assert (dependent.summary["serial_dependence"], independent.summary["serial_dependence"],
            ttest.summary["serial_dependence"]) == (True, False, None)


def test_renderings():
    t = history({60: 1.2}, points=120, sigma=0.01, seed=2)
    r = fastperf.changepoints(t, order="commit")
    assert "changes" in r.to_text() and "worse" in r.to_markdown()
    import json
    doc = json.loads(r.to_json())
    assert doc["changes"][0]["position"] == 60


def test_cli_gate_exit_codes(tmp_path, capsys):
    """`fastperf changepoints --fail-on worse --since`: 1 when a change for the worse lies
    after --since, 0 otherwise; 2 and one line for a bad value; the changes in CSV."""
    from fastperf.cli import main

    path = tmp_path / "h.parquet"
    import pyarrow.parquet as pq

    pq.write_table(history({30: 1.2, 80: 1.1}, points=120, sigma=0.005, seed=10), path)
    base = ["changepoints", str(path), "--order", "commit"]
    assert main(base + ["--fail-on", "worse", "--since", "50"]) == 1
    assert "FAIL, 1 worse since 50" in capsys.readouterr().err
    assert main(base + ["--fail-on", "worse", "--since", "100"]) == 0
    capsys.readouterr()
    assert main(base + ["--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith('"benchmark","unit","kind","position"') and len(out.splitlines()) == 3
    assert main(base + ["--independent-noise", "--format", "json"]) == 0
    assert '"serial_dependence": false' in capsys.readouterr().out
    for bad in (["--since", "5"], ["--fail-on", "worse", "--since", "abc"], ["--alpha", "2"],
                ["--method", "ttest", "--alpha", "2"], ["--min-size", "1"],
                ["--penalty", "-1"], ["--method", "binseg"],
                ["--method", "ttest", "--independent-noise"]):
        if bad == ["--method", "binseg"]:  # refused by the argument parser itself
            with pytest.raises(SystemExit) as refused:
                main(base + bad)
            code = refused.value.code
        else:
            code = main(base + bad)
        assert code == 2, bad
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "error" in err[0], (bad, err)


@pytest.mark.parametrize("method", ["pelt", "edivisive", "ttest"])
def test_outliers_and_constant_stretches(method):
    """Isolated outliers (single points 3x the level) are no change; a constant stretch (a
    timer's resolution) is handled. edivisive (distances, not variances) and pelt (clipped,
    with a noise scale from the non-zero differences) find the known step; the t-test's variance is inflated by the outliers, so it may miss the
    step (documented in docs/changepoints.md), but never reports an outlier as a change."""
    t = history({70: 1.15}, points=140, sigma=0.01, seed=12)
    value = t.column("value").to_numpy().copy()
    value[[20, 45, 100, 120]] *= 3.0  # outliers
    value[:30] = value[0]             # a constant stretch at the start
    r = fastperf.changepoints(t.set_column(2, "value", pa.array(value)), order="commit",
                              method=method)
    found = r.changes.column("position").to_pylist()
    # pelt: the constant stretch sits 1.5 noise sd off the level after it for 30 points, a
    # change in the mean that the model may report (and the only other change it may report)
    want = {"edivisive": ([70],), "ttest": ([70], []), "pelt": ([70], [30, 70])}[method]
    assert found in want, r.changes.to_pylist()


def _flat_then(values_after, n=20, before=1.0, order=None):
    values = [before] * n + list(values_after)
    return pa.table({"benchmark": ["b"] * len(values), "unit": ["ns"] * len(values),
                     "commit": order if order is not None else list(range(len(values))),
                     "value": values})


def test_red_team_gate_and_order_edges(tmp_path):
    """Red team, round 2: the gate of a history without changes passes (the empty change table
    keeps its types); --since nan is refused; NaN order values are missing ones; a struct order
    column is refused by name; arguments beyond int64 are refused by name."""
    from fastperf.cli import main
    import pyarrow.parquet as pq

    quiet = fastperf.changepoints(_flat_then([1.0] * 20), order="commit")
    assert quiet.changes.num_rows == 0 and quiet.failures(since=5).num_rows == 0
    assert quiet.changes.schema.field("order_after").type == pa.int64()
    path = tmp_path / "q.parquet"
    pq.write_table(_flat_then([1.0] * 20), path)
    assert main(["changepoints", str(path), "--order", "commit", "--fail-on", "worse",
                 "--since", "5"]) == 0
    stepped = fastperf.changepoints(_flat_then([2.0] * 20, order=[float(i) for i in range(40)]),
                                    order="commit")
    with pytest.raises(InputError, match="since"):
        stepped.failures(since=float("nan"))
    with pytest.raises(InputError, match="since"):
        stepped.failures(since=2 ** 70)
    nan_order = [float("nan")] * 5 + [float(i) for i in range(35)]
    r = fastperf.changepoints(_flat_then([2.0] * 20, order=nan_order), order="commit")
    assert r.series.column("n_dropped").to_pylist() == [5]
    assert r.series.column("points").to_pylist() == [35]
    struct = pa.array([{"a": i} for i in range(40)])
    with pytest.raises(InputError, match="order column 'commit'"):
        fastperf.changepoints(_flat_then([2.0] * 20, order=struct), order="commit")
    for kwargs in ({"min_size": 2 ** 63}, {"seed": 2 ** 64}, {"permutations": 2 ** 63}):
        with pytest.raises(InputError, match=next(iter(kwargs))):
            fastperf.changepoints(_flat_then([2.0] * 20), order="commit", **kwargs)


def test_red_team_values_at_the_float64_limits():
    """Infinite values are named; medians of subnormal values are exact (halve after adding);
    a ratio beyond the float64 range says so, not "values <= 0"."""
    r = fastperf.changepoints(_flat_then([float("inf")] * 20), order="commit", method="ttest")
    assert r.series.column("status").to_pylist()[0].startswith("infinite values in input (20)")
    tiny = fastperf.changepoints(_flat_then([5e-324 * 4] * 20, before=5e-324), order="commit",
                                 method="ttest")
    row = tiny.changes.to_pylist()[0]
    assert row["median_before"] == 5e-324 and row["median_after"] == 2e-323
    huge = fastperf.changepoints(_flat_then([1e308] * 20, before=1e-308), order="commit",
                                 method="ttest")
    assert huge.changes.column("status").to_pylist() == [
        "ratio or its interval beyond the float64 range"]


def _drift_history(points=200, start=60, length=80, total=1.10, sigma=0.01, seed=21, runs=1,
                   benchmarks=1, unit="ns"):
    """Flat, then a steady change by `total` over `length` points, then flat at the new level
    (a growing cache, a leak)."""
    rng = np.random.default_rng(seed)
    commit = np.repeat(np.arange(points), runs)
    along = np.clip((commit - start + 1) / length, 0.0, 1.0)
    level = np.exp(np.log(total) * along)
    n = commit.size
    return pa.table({"benchmark": np.repeat([f"b{i}" for i in range(benchmarks)], n).tolist(),
                     "commit": np.tile(commit, benchmarks),
                     "value": 100.0 * np.tile(level, benchmarks)
                     * np.exp(rng.normal(0, sigma, n * benchmarks)),
                     "unit": [unit] * (n * benchmarks)})


def test_pelt_reports_a_drift_once_with_its_rate():
    """A 10% degradation spread over 80 points is one `drift worse` row (not a cascade of
    steps, nor steps at its ends): its ratio (the ramp from the level before to the level
    after) has an interval covering the true 1.10, its slope is near the true rate per point,
    and the gate counts it; `edivisive` cuts the same history into steps."""
    t = _drift_history()
    r = fastperf.changepoints(t, order="commit")
    rows = r.changes.to_pylist()
    assert [row["kind"] for row in rows] == ["drift"], rows
    d = rows[0]
    assert d["direction"] == "drift worse" and d["status"] == "ok"
    assert abs(d["position"] - 60) <= 8 and abs(d["end_position"] - 139) <= 8, d
    assert d["ratio_ci_low"] < 1.10 < d["ratio_ci_high"], d
    assert d["ratio"] == pytest.approx(d["median_after"] / d["median_before"], rel=1e-9)
    before = np.median(t.column("value").to_numpy()[:55])
    assert d["median_before"] == pytest.approx(before, rel=0.01)
    true_rate = 1.10 ** (1 / 80) - 1
    assert d["slope"] == pytest.approx(true_rate, rel=0.25)
    assert d["slope_ci_low"] < d["slope"] < d["slope_ci_high"]
    assert d["evidence"] > 0 and d["pvalue"] is None
    assert r.failures().num_rows == 1 and r.summary["drift_worse"] == 1
    assert r.segments.column("kind").to_pylist() == ["level", "drift", "level"]
    steps = fastperf.changepoints(t, order="commit", method="edivisive").changes
    assert steps.num_rows >= 3  # the cascade the default avoids
    assert set(steps.column("kind").to_pylist()) == {"step"}


def test_pelt_drift_interval_coverage():
    """Over 200 flat-ramp-flat histories (1% noise, +10% over 80 points) the drift's ratio
    interval covers the true 1.10 in about 95% of them (binomial bound at 90%), and a step
    is reported beside the drift in few."""
    t = _drift_history(benchmarks=200, seed=5)
    r = fastperf.changepoints(t, order="commit")
    drifts = r.changes.filter(pa.compute.equal(r.changes.column("kind"), "drift")).to_pylist()
    covered = sum(d["ratio_ci_low"] < 1.10 < d["ratio_ci_high"] for d in drifts)
    assert len(drifts) >= 195
    assert covered >= sps.binom.ppf(0.001, 200, 0.90), covered
    steps = int(pa.compute.sum(pa.compute.equal(r.changes.column("kind"), "step")).as_py() or 0)
    assert steps <= 10, steps


def test_pelt_stationary_and_drift_false_alarms():
    """200 stationary series of 200 points (1% noise): at most a few % get any change, and
    almost none a drift (binomial bounds on rates measured by bench/validity)."""
    t = history({}, points=200, benchmarks=200, sigma=0.01, seed=31)
    r = fastperf.changepoints(t, order="commit")
    changed = int((r.series.column("changes").to_numpy() > 0).sum())
    drifted = int((r.series.column("drifts").to_numpy() > 0).sum())
    assert changed <= sps.binom.ppf(0.999, 200, 0.03), changed
    assert drifted <= sps.binom.ppf(0.999, 200, 0.01), drifted
    # a coarse timer: every value one of two ticks (100 or 101 ns, the higher with p), where
    # most differences tie; its noise scale is the ticks' sd, not one quantum's rounding noise
    rng = np.random.default_rng(32)
    for p in (0.2, 0.3, 0.45, 0.5):
        ticks = 100.0 + (rng.random((200, 200)) < p)
        t = pa.table({"benchmark": np.repeat(np.arange(200), 200),
                      "commit": np.tile(np.arange(200), 200), "value": ticks.ravel()})
        changed = int((fastperf.changepoints(t, order="commit").series.column(
            "changes").to_numpy() > 0).sum())
        assert changed <= sps.binom.ppf(0.999, 200, 0.03), (p, changed)
    # bimodal noise: modes 10 within-mode sd apart, the upper one with share p (a cache that
    # hits or misses): the jumps between modes are noise, not changes
    for p in (0.3, 0.5):
        within = 1.0 + 0.003 * rng.normal(size=(200, 200))
        values = within * np.where(rng.random((200, 200)) < p, 1.03, 1.0)
        t = pa.table({"benchmark": np.repeat(np.arange(200), 200),
                      "commit": np.tile(np.arange(200), 200), "value": values.ravel()})
        changed = int((fastperf.changepoints(t, order="commit").series.column(
            "changes").to_numpy() > 0).sum())
        assert changed <= sps.binom.ppf(0.999, 200, 0.03), ("bimodal", p, changed)


def test_segments_table_against_numpy():
    """Each segment's runs: count, median (numpy) and distribution-free median interval (the
    order statistics from scipy's binomial); a level's fit is its median; segments tile the
    series and their boundaries are the steps."""
    t = history({40: 1.1, 90: 0.9}, points=130, runs=3, sigma=0.01, seed=5)
    r = fastperf.changepoints(t, order="commit")
    commit, value = t.column("commit").to_numpy(), t.column("value").to_numpy()
    segs = r.segments.to_pylist()
    assert [s_["start"] for s_ in segs] == [0, 40, 90] and segs[-1]["end"] == 130
    assert [s_["segment"] for s_ in segs] == [0, 1, 2]
    for s_ in segs:
        runs = np.sort(value[(commit >= s_["start"]) & (commit < s_["end"])])
        n = runs.size
        assert s_["runs"] == n and s_["median"] == pytest.approx(np.median(runs), rel=1e-15)
        j = int(sps.binom.ppf(0.025, n, 0.5))  # P(B <= j) >= 0.025: the bound is j - 1 or j
        while sps.binom.cdf(j, n, 0.5) > 0.025:
            j -= 1
        assert s_["median_ci_low"] == runs[j] and s_["median_ci_high"] == runs[n - 1 - j]
        assert s_["kind"] == "level" and s_["fit_start"] == s_["fit_end"] == s_["median"]
        assert s_["order_start"] == s_["start"] and s_["order_end"] == s_["end"] - 1
    assert r.changes.column("position").to_pylist() == [40, 90]


def test_edivisive_streams_are_keyed_by_the_series_identity():
    """A series' permutation p-values are the same alone, among other series, in any order of
    the series (its stream is keyed by its key values, not its position)."""
    t = pa.concat_tables([history({30: 1.004}, points=80, sigma=0.01, seed=s).set_column(
        0, "benchmark", pa.array([f"b{s}"] * 80)) for s in range(6)])
    # a weak step and a lenient alpha: p-values between 0.01 and 0.4 that differ from stream
    # to stream (a position-keyed stream fails this test)
    kwargs = {"order": "commit", "method": "edivisive", "permutations": 99, "seed": 4,
              "alpha": 0.4}
    together = fastperf.changepoints(t, **kwargs).changes.to_pylist()
    backwards = t.take(pa.array(np.argsort(-np.repeat(np.arange(6), 80), kind="stable")))
    reordered = fastperf.changepoints(backwards, **kwargs).changes.to_pylist()
    key = lambda row: (row["benchmark"], row["position"])  # noqa: E731
    assert len({row["pvalue"] for row in together}) > 3
    assert sorted(together, key=key) == sorted(reordered, key=key)
    for name in ("b0", "b3", "b5"):
        alone = t.filter(pa.compute.equal(t.column("benchmark"), name))
        assert fastperf.changepoints(alone, **kwargs).changes.to_pylist() == \
            [row for row in together if row["benchmark"] == name]
